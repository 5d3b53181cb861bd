// VCU118 board top of the PCIe PIO NIC image (issue 15, the paper's Fig. 8(b)):
// XDMA IP (xdma_0) used only for its DMA-bypass BAR (BAR0 = nic_pio.toml,
// 4 MiB), a 512 -> 64 bit width converter and nic_pio_top (NIC core + MAC
// stand-in in near-end loopback). Vivado only (Xilinx primitives and IP);
// not part of the lint / simulation set, and NOT run here: build.tcl with
// IMAGE nic_pio selects it (Documentation/fpga.md). The DMA engines the IP
// always has are tied off: this image moves every byte with PIO.
module vcu118_nic_top (
    input  logic        pcie_refclk_p,
    input  logic        pcie_refclk_n,
    input  logic        pcie_perst_n,
    input  logic [15:0] pci_exp_rxp,
    input  logic [15:0] pci_exp_rxn,
    output logic [15:0] pci_exp_txp,
    output logic [15:0] pci_exp_txn
);
    logic refclk, refclk_gt, axi_aclk, axi_aresetn, user_lnk_up;
    // RX interrupt: the NIC's one-cycle pulse held as the IP's user interrupt
    // request until it acknowledges (PG195 usr_irq_req/usr_irq_ack), which
    // sends MSI-X vector RX_IRQ_VECTOR (the IP's user vector 0)
    logic rx_irq, irq_req, irq_ack;
    always_ff @(posedge axi_aclk)
        if (!axi_aresetn) irq_req <= 1'b0;
        else if (rx_irq)  irq_req <= 1'b1;
        else if (irq_ack) irq_req <= 1'b0;

    IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_refclk (
        .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(refclk_gt), .ODIV2(refclk));

    // bypass master (512 bit) of the IP
    logic [3:0]   bp_awid, bp_bid, bp_arid, bp_rid, bp_awcache, bp_arcache;
    logic [63:0]  bp_awaddr, bp_araddr, bp_wstrb;
    logic [7:0]   bp_awlen, bp_arlen;
    logic [2:0]   bp_awsize, bp_arsize, bp_awprot, bp_arprot;
    logic [1:0]   bp_awburst, bp_arburst, bp_bresp, bp_rresp;
    logic         bp_awlock, bp_arlock, bp_awvalid, bp_awready, bp_wvalid, bp_wready, bp_wlast;
    logic [511:0] bp_wdata, bp_rdata;
    logic         bp_bvalid, bp_bready, bp_arvalid, bp_arready, bp_rvalid, bp_rready, bp_rlast;

    xdma_0 u_xdma (
        .sys_clk(refclk), .sys_clk_gt(refclk_gt), .sys_rst_n(pcie_perst_n),
        .pci_exp_txp, .pci_exp_txn, .pci_exp_rxp, .pci_exp_rxn,
        .axi_aclk, .axi_aresetn, .user_lnk_up, .usr_irq_req(irq_req), .usr_irq_ack(irq_ack),
        .msix_enable(),
        // DMA master: unused by this image, never ready, never answers
        .m_axi_awid(), .m_axi_awaddr(), .m_axi_awlen(), .m_axi_awsize(), .m_axi_awburst(), .m_axi_awprot(),
        .m_axi_awvalid(), .m_axi_awready(1'b0), .m_axi_awlock(), .m_axi_awcache(),
        .m_axi_wdata(), .m_axi_wstrb(), .m_axi_wlast(), .m_axi_wvalid(), .m_axi_wready(1'b0),
        .m_axi_bid(4'd0), .m_axi_bresp(2'd0), .m_axi_bvalid(1'b0), .m_axi_bready(),
        .m_axi_arid(), .m_axi_araddr(), .m_axi_arlen(), .m_axi_arsize(), .m_axi_arburst(), .m_axi_arprot(),
        .m_axi_arvalid(), .m_axi_arready(1'b0), .m_axi_arlock(), .m_axi_arcache(),
        .m_axi_rid(4'd0), .m_axi_rdata(512'd0), .m_axi_rresp(2'd0), .m_axi_rlast(1'b0), .m_axi_rvalid(1'b0),
        .m_axi_rready(),
        .m_axib_awid(bp_awid), .m_axib_awaddr(bp_awaddr), .m_axib_awlen(bp_awlen), .m_axib_awsize(bp_awsize),
        .m_axib_awburst(bp_awburst), .m_axib_awprot(bp_awprot), .m_axib_awvalid(bp_awvalid),
        .m_axib_awready(bp_awready), .m_axib_awlock(bp_awlock), .m_axib_awcache(bp_awcache),
        .m_axib_wdata(bp_wdata), .m_axib_wstrb(bp_wstrb), .m_axib_wlast(bp_wlast), .m_axib_wvalid(bp_wvalid),
        .m_axib_wready(bp_wready), .m_axib_bid(bp_bid), .m_axib_bresp(bp_bresp), .m_axib_bvalid(bp_bvalid),
        .m_axib_bready(bp_bready), .m_axib_arid(bp_arid), .m_axib_araddr(bp_araddr), .m_axib_arlen(bp_arlen),
        .m_axib_arsize(bp_arsize), .m_axib_arburst(bp_arburst), .m_axib_arprot(bp_arprot),
        .m_axib_arvalid(bp_arvalid), .m_axib_arready(bp_arready), .m_axib_arlock(bp_arlock),
        .m_axib_arcache(bp_arcache), .m_axib_rid(bp_rid), .m_axib_rdata(bp_rdata), .m_axib_rresp(bp_rresp),
        .m_axib_rlast(bp_rlast), .m_axib_rvalid(bp_rvalid), .m_axib_rready(bp_rready));

    // 512 -> 64 bit converter (dwc_byp, as in the PIO image), then the NIC (22-bit BAR offsets)
    logic [63:0] b_awaddr, b_araddr, b_wdata, b_rdata;
    logic [7:0]  b_awlen, b_arlen, b_wstrb;
    logic [2:0]  b_awsize, b_arsize;
    logic [1:0]  b_awburst, b_arburst, b_bresp, b_rresp;
    logic        b_awvalid, b_awready, b_wvalid, b_wready, b_wlast, b_bvalid, b_bready;
    logic        b_arvalid, b_arready, b_rvalid, b_rready, b_rlast;

    dwc_byp u_dwc (
        .s_axi_aclk(axi_aclk), .s_axi_aresetn(axi_aresetn),
        .s_axi_awid(bp_awid), .s_axi_awaddr(bp_awaddr), .s_axi_awlen(bp_awlen), .s_axi_awsize(bp_awsize),
        .s_axi_awburst(bp_awburst), .s_axi_awlock(1'b0), .s_axi_awcache(bp_awcache), .s_axi_awprot(bp_awprot),
        .s_axi_awregion(4'd0), .s_axi_awqos(4'd0), .s_axi_awvalid(bp_awvalid), .s_axi_awready(bp_awready),
        .s_axi_wdata(bp_wdata), .s_axi_wstrb(bp_wstrb), .s_axi_wlast(bp_wlast), .s_axi_wvalid(bp_wvalid),
        .s_axi_wready(bp_wready), .s_axi_bid(bp_bid), .s_axi_bresp(bp_bresp), .s_axi_bvalid(bp_bvalid),
        .s_axi_bready(bp_bready), .s_axi_arid(bp_arid), .s_axi_araddr(bp_araddr), .s_axi_arlen(bp_arlen),
        .s_axi_arsize(bp_arsize), .s_axi_arburst(bp_arburst), .s_axi_arlock(1'b0), .s_axi_arcache(bp_arcache),
        .s_axi_arprot(bp_arprot), .s_axi_arregion(4'd0), .s_axi_arqos(4'd0), .s_axi_arvalid(bp_arvalid),
        .s_axi_arready(bp_arready), .s_axi_rid(bp_rid), .s_axi_rdata(bp_rdata), .s_axi_rresp(bp_rresp),
        .s_axi_rlast(bp_rlast), .s_axi_rvalid(bp_rvalid), .s_axi_rready(bp_rready),
        .m_axi_awaddr(b_awaddr), .m_axi_awlen(b_awlen), .m_axi_awsize(b_awsize), .m_axi_awburst(b_awburst),
        .m_axi_awlock(), .m_axi_awcache(), .m_axi_awprot(), .m_axi_awregion(), .m_axi_awqos(),
        .m_axi_awvalid(b_awvalid), .m_axi_awready(b_awready), .m_axi_wdata(b_wdata), .m_axi_wstrb(b_wstrb),
        .m_axi_wlast(b_wlast), .m_axi_wvalid(b_wvalid), .m_axi_wready(b_wready), .m_axi_bresp(b_bresp),
        .m_axi_bvalid(b_bvalid), .m_axi_bready(b_bready), .m_axi_araddr(b_araddr), .m_axi_arlen(b_arlen),
        .m_axi_arsize(b_arsize), .m_axi_arburst(b_arburst), .m_axi_arlock(), .m_axi_arcache(),
        .m_axi_arprot(), .m_axi_arregion(), .m_axi_arqos(), .m_axi_arvalid(b_arvalid), .m_axi_arready(b_arready),
        .m_axi_rdata(b_rdata), .m_axi_rresp(b_rresp), .m_axi_rlast(b_rlast), .m_axi_rvalid(b_rvalid),
        .m_axi_rready(b_rready));

    // the converter's master side has no IDs: one ID towards the NIC
    /* verilator lint_off PINCONNECTEMPTY */
    nic_pio_top u_nic (
        .clk(axi_aclk), .rst_n(axi_aresetn),
        .s_awvalid(b_awvalid), .s_awready(b_awready), .s_awid(4'd0), .s_awaddr(b_awaddr[21:0]),
        .s_awlen(b_awlen), .s_awsize(b_awsize), .s_awburst(b_awburst),
        .s_wvalid(b_wvalid), .s_wready(b_wready), .s_wdata(b_wdata), .s_wstrb(b_wstrb), .s_wlast(b_wlast),
        .s_bvalid(b_bvalid), .s_bready(b_bready), .s_bid(), .s_bresp(b_bresp),
        .s_arvalid(b_arvalid), .s_arready(b_arready), .s_arid(4'd0), .s_araddr(b_araddr[21:0]),
        .s_arlen(b_arlen), .s_arsize(b_arsize), .s_arburst(b_arburst),
        .s_rvalid(b_rvalid), .s_rready(b_rready), .s_rid(), .s_rdata(b_rdata), .s_rresp(b_rresp),
        .s_rlast(b_rlast), .cycles(), .rx_irq, .idle());   // idle: for the simulator only
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
