// VCU118 board top: XDMA IP (xdma_0) and our user logic. Vivado only (uses
// Xilinx primitives and IP); not part of the lint / simulation set.
module vcu118_top (
    input  logic        pcie_refclk_p,
    input  logic        pcie_refclk_n,
    input  logic        pcie_perst_n,
    input  logic [15:0] pci_exp_rxp,
    input  logic [15:0] pci_exp_rxn,
    output logic [15:0] pci_exp_txp,
    output logic [15:0] pci_exp_txn
);
    logic refclk, refclk_gt, axi_aclk, axi_aresetn, user_lnk_up;

    IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_refclk (
        .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(refclk_gt), .ODIV2(refclk));

    // AXI-Lite master (control BAR)
    logic [31:0]  l_awaddr, l_araddr, l_wdata, l_rdata;
    logic [3:0]   l_wstrb;
    logic [1:0]   l_bresp, l_rresp;
    logic [2:0]   l_awprot, l_arprot;
    logic         l_awvalid, l_awready, l_wvalid, l_wready, l_bvalid, l_bready;
    logic         l_arvalid, l_arready, l_rvalid, l_rready;

    // AXI4 512-bit masters: DMA (m_axi) and bypass (m_axib)
    `define AXI512(p) \
    logic [3:0] p``_awid, p``_bid, p``_arid, p``_rid; logic [63:0] p``_awaddr, p``_araddr; \
    logic [7:0] p``_awlen, p``_arlen; logic [2:0] p``_awsize, p``_arsize, p``_awprot, p``_arprot; \
    logic [1:0] p``_awburst, p``_arburst, p``_bresp, p``_rresp; logic [3:0] p``_awcache, p``_arcache; \
    logic p``_awlock, p``_arlock, p``_awvalid, p``_awready, p``_wvalid, p``_wready, p``_wlast; \
    logic [511:0] p``_wdata, p``_rdata; logic [63:0] p``_wstrb; \
    logic p``_bvalid, p``_bready, p``_arvalid, p``_arready, p``_rvalid, p``_rready, p``_rlast;
    `AXI512(dm)
    `AXI512(bp)

    xdma_0 u_xdma (
        .sys_clk(refclk), .sys_clk_gt(refclk_gt), .sys_rst_n(pcie_perst_n),
        .pci_exp_txp, .pci_exp_txn, .pci_exp_rxp, .pci_exp_rxn,
        .axi_aclk, .axi_aresetn, .user_lnk_up, .usr_irq_req(1'b0), .usr_irq_ack(),
        .msix_enable(),
        .m_axi_awid(dm_awid), .m_axi_awaddr(dm_awaddr), .m_axi_awlen(dm_awlen), .m_axi_awsize(dm_awsize),
        .m_axi_awburst(dm_awburst), .m_axi_awprot(dm_awprot), .m_axi_awvalid(dm_awvalid),
        .m_axi_awready(dm_awready), .m_axi_awlock(dm_awlock), .m_axi_awcache(dm_awcache),
        .m_axi_wdata(dm_wdata), .m_axi_wstrb(dm_wstrb), .m_axi_wlast(dm_wlast), .m_axi_wvalid(dm_wvalid),
        .m_axi_wready(dm_wready), .m_axi_bid(dm_bid), .m_axi_bresp(dm_bresp), .m_axi_bvalid(dm_bvalid),
        .m_axi_bready(dm_bready), .m_axi_arid(dm_arid), .m_axi_araddr(dm_araddr), .m_axi_arlen(dm_arlen),
        .m_axi_arsize(dm_arsize), .m_axi_arburst(dm_arburst), .m_axi_arprot(dm_arprot),
        .m_axi_arvalid(dm_arvalid), .m_axi_arready(dm_arready), .m_axi_arlock(dm_arlock),
        .m_axi_arcache(dm_arcache), .m_axi_rid(dm_rid), .m_axi_rdata(dm_rdata), .m_axi_rresp(dm_rresp),
        .m_axi_rlast(dm_rlast), .m_axi_rvalid(dm_rvalid), .m_axi_rready(dm_rready),
        .m_axib_awid(bp_awid), .m_axib_awaddr(bp_awaddr), .m_axib_awlen(bp_awlen), .m_axib_awsize(bp_awsize),
        .m_axib_awburst(bp_awburst), .m_axib_awprot(bp_awprot), .m_axib_awvalid(bp_awvalid),
        .m_axib_awready(bp_awready), .m_axib_awlock(bp_awlock), .m_axib_awcache(bp_awcache),
        .m_axib_wdata(bp_wdata), .m_axib_wstrb(bp_wstrb), .m_axib_wlast(bp_wlast), .m_axib_wvalid(bp_wvalid),
        .m_axib_wready(bp_wready), .m_axib_bid(bp_bid), .m_axib_bresp(bp_bresp), .m_axib_bvalid(bp_bvalid),
        .m_axib_bready(bp_bready), .m_axib_arid(bp_arid), .m_axib_araddr(bp_araddr), .m_axib_arlen(bp_arlen),
        .m_axib_arsize(bp_arsize), .m_axib_arburst(bp_arburst), .m_axib_arprot(bp_arprot),
        .m_axib_arvalid(bp_arvalid), .m_axib_arready(bp_arready), .m_axib_arlock(bp_arlock),
        .m_axib_arcache(bp_arcache), .m_axib_rid(bp_rid), .m_axib_rdata(bp_rdata), .m_axib_rresp(bp_rresp),
        .m_axib_rlast(bp_rlast), .m_axib_rvalid(bp_rvalid), .m_axib_rready(bp_rready),
        .m_axil_awaddr(l_awaddr), .m_axil_awprot(l_awprot), .m_axil_awvalid(l_awvalid),
        .m_axil_awready(l_awready), .m_axil_wdata(l_wdata), .m_axil_wstrb(l_wstrb), .m_axil_wvalid(l_wvalid),
        .m_axil_wready(l_wready), .m_axil_bvalid(l_bvalid), .m_axil_bresp(l_bresp), .m_axil_bready(l_bready),
        .m_axil_araddr(l_araddr), .m_axil_arprot(l_arprot), .m_axil_arvalid(l_arvalid),
        .m_axil_arready(l_arready), .m_axil_rdata(l_rdata), .m_axil_rresp(l_rresp), .m_axil_rvalid(l_rvalid),
        .m_axil_rready(l_rready));

    // 512 -> 64 bit converters, then the user logic (18-bit BAR offsets)
    `define AXI64(p) \
    logic [3:0] p``_awid, p``_bid, p``_arid, p``_rid; logic [63:0] p``_awaddr, p``_araddr; \
    logic [7:0] p``_awlen, p``_arlen; logic [2:0] p``_awsize, p``_arsize; logic [1:0] p``_awburst, p``_arburst, p``_bresp, p``_rresp; \
    logic p``_awvalid, p``_awready, p``_wvalid, p``_wready, p``_wlast; logic [63:0] p``_wdata, p``_rdata; \
    logic [7:0] p``_wstrb; logic p``_bvalid, p``_bready, p``_arvalid, p``_arready, p``_rvalid, p``_rready, p``_rlast;
    `AXI64(d64)
    `AXI64(b64)

    `define DWC(inst, name, s, m) \
    name inst (.s_axi_aclk(axi_aclk), .s_axi_aresetn(axi_aresetn), \
        .s_axi_awid(s``_awid), .s_axi_awaddr(s``_awaddr), .s_axi_awlen(s``_awlen), .s_axi_awsize(s``_awsize), \
        .s_axi_awburst(s``_awburst), .s_axi_awlock(1'b0), .s_axi_awcache(s``_awcache), .s_axi_awprot(s``_awprot), \
        .s_axi_awregion(4'd0), .s_axi_awqos(4'd0), .s_axi_awvalid(s``_awvalid), .s_axi_awready(s``_awready), \
        .s_axi_wdata(s``_wdata), .s_axi_wstrb(s``_wstrb), .s_axi_wlast(s``_wlast), .s_axi_wvalid(s``_wvalid), \
        .s_axi_wready(s``_wready), .s_axi_bid(s``_bid), .s_axi_bresp(s``_bresp), .s_axi_bvalid(s``_bvalid), \
        .s_axi_bready(s``_bready), .s_axi_arid(s``_arid), .s_axi_araddr(s``_araddr), .s_axi_arlen(s``_arlen), \
        .s_axi_arsize(s``_arsize), .s_axi_arburst(s``_arburst), .s_axi_arlock(1'b0), .s_axi_arcache(s``_arcache), \
        .s_axi_arprot(s``_arprot), .s_axi_arregion(4'd0), .s_axi_arqos(4'd0), .s_axi_arvalid(s``_arvalid), \
        .s_axi_arready(s``_arready), .s_axi_rid(s``_rid), .s_axi_rdata(s``_rdata), .s_axi_rresp(s``_rresp), \
        .s_axi_rlast(s``_rlast), .s_axi_rvalid(s``_rvalid), .s_axi_rready(s``_rready), \
        .m_axi_awaddr(m``_awaddr), .m_axi_awlen(m``_awlen), .m_axi_awsize(m``_awsize), .m_axi_awburst(m``_awburst), \
        .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(), .m_axi_awregion(), .m_axi_awqos(), \
        .m_axi_awvalid(m``_awvalid), .m_axi_awready(m``_awready), .m_axi_wdata(m``_wdata), .m_axi_wstrb(m``_wstrb), \
        .m_axi_wlast(m``_wlast), .m_axi_wvalid(m``_wvalid), .m_axi_wready(m``_wready), .m_axi_bresp(m``_bresp), \
        .m_axi_bvalid(m``_bvalid), .m_axi_bready(m``_bready), .m_axi_araddr(m``_araddr), .m_axi_arlen(m``_arlen), \
        .m_axi_arsize(m``_arsize), .m_axi_arburst(m``_arburst), .m_axi_arlock(), .m_axi_arcache(), \
        .m_axi_arprot(), .m_axi_arregion(), .m_axi_arqos(), .m_axi_arvalid(m``_arvalid), .m_axi_arready(m``_arready), \
        .m_axi_rdata(m``_rdata), .m_axi_rresp(m``_rresp), .m_axi_rlast(m``_rlast), .m_axi_rvalid(m``_rvalid), \
        .m_axi_rready(m``_rready));
    `DWC(u_dwc_dma, dwc_dma, dm, d64)
    `DWC(u_dwc_byp, dwc_byp, bp, b64)
    // the converters' master side has no IDs: one ID towards the user logic
    assign d64_awid = '0; assign d64_arid = '0; assign b64_awid = '0; assign b64_arid = '0;

    xdma_user_top u_user (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .ctl_awvalid(l_awvalid), .ctl_awready(l_awready), .ctl_awaddr(l_awaddr[17:0]),
        .ctl_wvalid(l_wvalid), .ctl_wready(l_wready), .ctl_wdata(l_wdata), .ctl_wstrb(l_wstrb),
        .ctl_bvalid(l_bvalid), .ctl_bready(l_bready), .ctl_bresp(l_bresp),
        .ctl_arvalid(l_arvalid), .ctl_arready(l_arready), .ctl_araddr(l_araddr[17:0]),
        .ctl_rvalid(l_rvalid), .ctl_rready(l_rready), .ctl_rdata(l_rdata), .ctl_rresp(l_rresp),
        .dma_awvalid(d64_awvalid), .dma_awready(d64_awready), .dma_awid(d64_awid), .dma_awaddr(d64_awaddr[17:0]),
        .dma_awlen(d64_awlen), .dma_awsize(d64_awsize), .dma_awburst(d64_awburst),
        .dma_wvalid(d64_wvalid), .dma_wready(d64_wready), .dma_wdata(d64_wdata), .dma_wstrb(d64_wstrb),
        .dma_wlast(d64_wlast), .dma_bvalid(d64_bvalid), .dma_bready(d64_bready), .dma_bid(d64_bid),
        .dma_bresp(d64_bresp), .dma_arvalid(d64_arvalid), .dma_arready(d64_arready), .dma_arid(d64_arid),
        .dma_araddr(d64_araddr[17:0]), .dma_arlen(d64_arlen), .dma_arsize(d64_arsize), .dma_arburst(d64_arburst),
        .dma_rvalid(d64_rvalid), .dma_rready(d64_rready), .dma_rid(d64_rid), .dma_rdata(d64_rdata),
        .dma_rresp(d64_rresp), .dma_rlast(d64_rlast),
        .byp_awvalid(b64_awvalid), .byp_awready(b64_awready), .byp_awid(b64_awid), .byp_awaddr(b64_awaddr[17:0]),
        .byp_awlen(b64_awlen), .byp_awsize(b64_awsize), .byp_awburst(b64_awburst),
        .byp_wvalid(b64_wvalid), .byp_wready(b64_wready), .byp_wdata(b64_wdata), .byp_wstrb(b64_wstrb),
        .byp_wlast(b64_wlast), .byp_bvalid(b64_bvalid), .byp_bready(b64_bready), .byp_bid(b64_bid),
        .byp_bresp(b64_bresp), .byp_arvalid(b64_arvalid), .byp_arready(b64_arready), .byp_arid(b64_arid),
        .byp_araddr(b64_araddr[17:0]), .byp_arlen(b64_arlen), .byp_arsize(b64_arsize), .byp_arburst(b64_arburst),
        .byp_rvalid(b64_rvalid), .byp_rready(b64_rready), .byp_rid(b64_rid), .byp_rdata(b64_rdata),
        .byp_rresp(b64_rresp), .byp_rlast(b64_rlast),
        .cycles(), .idle());
endmodule
