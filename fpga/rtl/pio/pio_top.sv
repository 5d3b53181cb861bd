// PIO image (BAR0 of the VCU118 card): the PIO device of
// fpga/regmap/pio_dev.toml behind an AXI4 slave (64-bit data), meant for the
// XDMA IP's "DMA bypass" AXI4 master (through a width converter in Vivado).
// Plain ports only, so yosys and Verilator read it as a top.
module pio_top #(
    parameter int ID_W = 4
) (
    input  logic            clk,
    input  logic            rst_n,
    input  logic            s_awvalid,
    output logic            s_awready,
    input  logic [ID_W-1:0] s_awid,
    input  logic [17:0]     s_awaddr,
    input  logic [7:0]      s_awlen,
    input  logic [2:0]      s_awsize,
    input  logic [1:0]      s_awburst,
    input  logic            s_wvalid,
    output logic            s_wready,
    input  logic [63:0]     s_wdata,
    input  logic [7:0]      s_wstrb,
    input  logic            s_wlast,
    output logic            s_bvalid,
    input  logic            s_bready,
    output logic [ID_W-1:0] s_bid,
    output logic [1:0]      s_bresp,
    input  logic            s_arvalid,
    output logic            s_arready,
    input  logic [ID_W-1:0] s_arid,
    input  logic [17:0]     s_araddr,
    input  logic [7:0]      s_arlen,
    input  logic [2:0]      s_arsize,
    input  logic [1:0]      s_arburst,
    output logic            s_rvalid,
    input  logic            s_rready,
    output logic [ID_W-1:0] s_rid,
    output logic [63:0]     s_rdata,
    output logic [1:0]      s_rresp,
    output logic            s_rlast,
    output logic [63:0]     cycles,
    output logic            idle      // see pio_core: only the counter changes while the ports are quiet
);
    logic        m_valid, m_ready, m_we, m_rvalid;
    logic [17:0] m_addr;
    logic [63:0] m_wdata, m_rdata;
    logic [7:0]  m_wstrb;

    axi4_to_mem #(.AW(18), .ID_W(ID_W)) u_fe (
        .clk, .rst_n,
        .s_awvalid, .s_awready, .s_awid, .s_awaddr, .s_awlen, .s_awsize, .s_awburst,
        .s_wvalid, .s_wready, .s_wdata, .s_wstrb, .s_wlast,
        .s_bvalid, .s_bready, .s_bid, .s_bresp,
        .s_arvalid, .s_arready, .s_arid, .s_araddr, .s_arlen, .s_arsize, .s_arburst,
        .s_rvalid, .s_rready, .s_rid, .s_rdata, .s_rresp, .s_rlast,
        .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb, .m_rvalid, .m_rdata);

    pio_core #(.AW(18)) u_core (
        .clk, .rst_n, .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb,
        .m_rvalid, .m_rdata, .cycles, .idle);
endmodule
