// VCU118 user logic behind AMD's XDMA IP: one PIO device (pio_core, the
// register map of fpga/regmap/pio_dev.toml) reached three ways:
//   ctl_*  AXI4-Lite (32-bit): XDMA's "PCIe to AXI-Lite master" BAR (control)
//   dma_*  AXI4 (64-bit): XDMA's DMA engines' M_AXI (H2C writes, C2H reads):
//          the memory the engine reads and writes is the image's address map,
//          so DMA fills REQ / BRAM and drains RESP / BRAM
//   byp_*  AXI4 (64-bit): XDMA's "DMA bypass" BAR for PIO (write-combined stores)
// The XDMA IP itself is instantiated by fpga/vcu118/ (Vivado); in simulation
// the engine model of lib/sim/xdma stands in for it. Wider XDMA data paths
// (256/512 bit) are narrowed to 64 bit by AXI width converters in Vivado.
// The three ports are merged per beat (mem_arb); a held INVOKE_STATUS read
// holds all three. The two AXI4 ports answer with registered readies
// (axi4_to_mem_rr: register slices on W and AR, as Vivado inserts them), so
// every output their masters sample is a flip-flop's.
module xdma_user_top #(
    parameter int ID_W = 4
) (
    input  logic            clk,
    input  logic            rst_n,
    input  logic            ctl_awvalid,
    output logic            ctl_awready,
    input  logic [17:0]     ctl_awaddr,
    input  logic            ctl_wvalid,
    output logic            ctl_wready,
    input  logic [31:0]     ctl_wdata,
    input  logic [3:0]      ctl_wstrb,
    output logic            ctl_bvalid,
    input  logic            ctl_bready,
    output logic [1:0]      ctl_bresp,
    input  logic            ctl_arvalid,
    output logic            ctl_arready,
    input  logic [17:0]     ctl_araddr,
    output logic            ctl_rvalid,
    input  logic            ctl_rready,
    output logic [31:0]     ctl_rdata,
    output logic [1:0]      ctl_rresp,
    input  logic            dma_awvalid,
    output logic            dma_awready,
    input  logic [ID_W-1:0] dma_awid,
    input  logic [18-1:0]   dma_awaddr,
    input  logic [7:0]      dma_awlen,
    input  logic [2:0]      dma_awsize,
    input  logic [1:0]      dma_awburst,
    input  logic            dma_wvalid,
    output logic            dma_wready,
    input  logic [63:0]     dma_wdata,
    input  logic [7:0]      dma_wstrb,
    input  logic            dma_wlast,
    output logic            dma_bvalid,
    input  logic            dma_bready,
    output logic [ID_W-1:0] dma_bid,
    output logic [1:0]      dma_bresp,
    input  logic            dma_arvalid,
    output logic            dma_arready,
    input  logic [ID_W-1:0] dma_arid,
    input  logic [18-1:0]   dma_araddr,
    input  logic [7:0]      dma_arlen,
    input  logic [2:0]      dma_arsize,
    input  logic [1:0]      dma_arburst,
    output logic            dma_rvalid,
    input  logic            dma_rready,
    output logic [ID_W-1:0] dma_rid,
    output logic [63:0]     dma_rdata,
    output logic [1:0]      dma_rresp,
    output logic            dma_rlast,
    input  logic            byp_awvalid,
    output logic            byp_awready,
    input  logic [ID_W-1:0] byp_awid,
    input  logic [18-1:0]   byp_awaddr,
    input  logic [7:0]      byp_awlen,
    input  logic [2:0]      byp_awsize,
    input  logic [1:0]      byp_awburst,
    input  logic            byp_wvalid,
    output logic            byp_wready,
    input  logic [63:0]     byp_wdata,
    input  logic [7:0]      byp_wstrb,
    input  logic            byp_wlast,
    output logic            byp_bvalid,
    input  logic            byp_bready,
    output logic [ID_W-1:0] byp_bid,
    output logic [1:0]      byp_bresp,
    input  logic            byp_arvalid,
    output logic            byp_arready,
    input  logic [ID_W-1:0] byp_arid,
    input  logic [18-1:0]   byp_araddr,
    input  logic [7:0]      byp_arlen,
    input  logic [2:0]      byp_arsize,
    input  logic [1:0]      byp_arburst,
    output logic            byp_rvalid,
    input  logic            byp_rready,
    output logic [ID_W-1:0] byp_rid,
    output logic [63:0]     byp_rdata,
    output logic [1:0]      byp_rresp,
    output logic            byp_rlast,
    output logic [63:0]     cycles,
    output logic            idle      // see pio_core: only the counter changes while the ports are quiet
);
    // front ends: 0 = control, 1 = DMA, 2 = bypass
    logic [2:0]  v, rdy, we, rv;
    logic [17:0] a  [3];
    logic [63:0] wd [3], rd [3];
    logic [7:0]  ws [3];

    axil_to_mem #(.AW(18)) u_ctl (
        .clk, .rst_n,
        .s_awvalid(ctl_awvalid), .s_awready(ctl_awready), .s_awaddr(ctl_awaddr),
        .s_wvalid(ctl_wvalid), .s_wready(ctl_wready), .s_wdata(ctl_wdata), .s_wstrb(ctl_wstrb),
        .s_bvalid(ctl_bvalid), .s_bready(ctl_bready), .s_bresp(ctl_bresp),
        .s_arvalid(ctl_arvalid), .s_arready(ctl_arready), .s_araddr(ctl_araddr),
        .s_rvalid(ctl_rvalid), .s_rready(ctl_rready), .s_rdata(ctl_rdata), .s_rresp(ctl_rresp),
        .m_valid(v[0]), .m_ready(rdy[0]), .m_we(we[0]), .m_addr(a[0]), .m_wdata(wd[0]),
        .m_wstrb(ws[0]), .m_rvalid(rv[0]), .m_rdata(rd[0]));

    axi4_to_mem_rr #(.AW(18), .ID_W(ID_W)) u_dma (
        .clk, .rst_n,
        .s_awvalid(dma_awvalid), .s_awready(dma_awready), .s_awid(dma_awid), .s_awaddr(dma_awaddr),
        .s_awlen(dma_awlen), .s_awsize(dma_awsize), .s_awburst(dma_awburst),
        .s_wvalid(dma_wvalid), .s_wready(dma_wready), .s_wdata(dma_wdata), .s_wstrb(dma_wstrb), .s_wlast(dma_wlast),
        .s_bvalid(dma_bvalid), .s_bready(dma_bready), .s_bid(dma_bid), .s_bresp(dma_bresp),
        .s_arvalid(dma_arvalid), .s_arready(dma_arready), .s_arid(dma_arid), .s_araddr(dma_araddr),
        .s_arlen(dma_arlen), .s_arsize(dma_arsize), .s_arburst(dma_arburst),
        .s_rvalid(dma_rvalid), .s_rready(dma_rready), .s_rid(dma_rid), .s_rdata(dma_rdata),
        .s_rresp(dma_rresp), .s_rlast(dma_rlast),
        .m_valid(v[1]), .m_ready(rdy[1]), .m_we(we[1]), .m_addr(a[1]), .m_wdata(wd[1]),
        .m_wstrb(ws[1]), .m_rvalid(rv[1]), .m_rdata(rd[1]));

    axi4_to_mem_rr #(.AW(18), .ID_W(ID_W)) u_byp (
        .clk, .rst_n,
        .s_awvalid(byp_awvalid), .s_awready(byp_awready), .s_awid(byp_awid), .s_awaddr(byp_awaddr),
        .s_awlen(byp_awlen), .s_awsize(byp_awsize), .s_awburst(byp_awburst),
        .s_wvalid(byp_wvalid), .s_wready(byp_wready), .s_wdata(byp_wdata), .s_wstrb(byp_wstrb), .s_wlast(byp_wlast),
        .s_bvalid(byp_bvalid), .s_bready(byp_bready), .s_bid(byp_bid), .s_bresp(byp_bresp),
        .s_arvalid(byp_arvalid), .s_arready(byp_arready), .s_arid(byp_arid), .s_araddr(byp_araddr),
        .s_arlen(byp_arlen), .s_arsize(byp_arsize), .s_arburst(byp_arburst),
        .s_rvalid(byp_rvalid), .s_rready(byp_rready), .s_rid(byp_rid), .s_rdata(byp_rdata),
        .s_rresp(byp_rresp), .s_rlast(byp_rlast),
        .m_valid(v[2]), .m_ready(rdy[2]), .m_we(we[2]), .m_addr(a[2]), .m_wdata(wd[2]),
        .m_wstrb(ws[2]), .m_rvalid(rv[2]), .m_rdata(rd[2]));

    // (control, DMA) -> x, then (x, bypass) -> the core
    logic        x_valid, x_ready, x_we, x_rvalid;
    logic [17:0] x_addr;
    logic [63:0] x_wdata, x_rdata;
    logic [7:0]  x_wstrb;
    logic [1:0]  arb0_rvalid, arb1_rvalid;
    logic [63:0] arb0_rdata, arb1_rdata;

    mem_arb #(.AW(18)) u_arb0 (
        .clk, .rst_n,
        .s_valid(v[1:0]), .s_ready(rdy[1:0]), .s_we(we[1:0]), .s_addr({a[1], a[0]}),
        .s_wdata({wd[1], wd[0]}), .s_wstrb({ws[1], ws[0]}), .s_rvalid(arb0_rvalid), .s_rdata(arb0_rdata),
        .m_valid(x_valid), .m_ready(x_ready), .m_we(x_we), .m_addr(x_addr), .m_wdata(x_wdata),
        .m_wstrb(x_wstrb), .m_rvalid(x_rvalid), .m_rdata(x_rdata));

    logic        c_valid, c_ready, c_we, c_rvalid;
    logic [17:0] c_addr;
    logic [63:0] c_wdata, c_rdata;
    logic [7:0]  c_wstrb;
    mem_arb #(.AW(18)) u_arb1 (
        .clk, .rst_n,
        .s_valid({v[2], x_valid}), .s_ready({rdy[2], x_ready}), .s_we({we[2], x_we}),
        .s_addr({a[2], x_addr}), .s_wdata({wd[2], x_wdata}), .s_wstrb({ws[2], x_wstrb}),
        .s_rvalid(arb1_rvalid), .s_rdata(arb1_rdata),
        .m_valid(c_valid), .m_ready(c_ready), .m_we(c_we), .m_addr(c_addr), .m_wdata(c_wdata),
        .m_wstrb(c_wstrb), .m_rvalid(c_rvalid), .m_rdata(c_rdata));

    assign x_rvalid = arb1_rvalid[0];
    assign x_rdata  = arb1_rdata;
    assign rv[1:0]  = arb0_rvalid;
    assign rd[0]    = arb0_rdata;
    assign rd[1]    = arb0_rdata;
    assign rv[2]    = arb1_rvalid[1];
    assign rd[2]    = arb1_rdata;

    pio_core #(.AW(18)) u_core (
        .clk, .rst_n, .m_valid(c_valid), .m_ready(c_ready), .m_we(c_we), .m_addr(c_addr),
        .m_wdata(c_wdata), .m_wstrb(c_wstrb), .m_rvalid(c_rvalid), .m_rdata(c_rdata), .cycles, .idle);
endmodule
