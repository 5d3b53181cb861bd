// PCIe PIO NIC image (BAR0 = fpga/regmap/nic_pio.toml): the NIC core behind
// an AXI4 slave (64-bit data, as pio_top: the XDMA IP's "DMA bypass" master
// through a width converter in Vivado) and the MAC stand-in in near-end
// loopback on its 512-bit streams. Plain ports only, so yosys and Verilator
// read it as a top; on the board the MAC stand-in is what the paper's
// loopback through the PCS/PMA would be (fpga/vcu118/vcu118_nic_top.sv).
module nic_pio_top #(
    parameter int ID_W = 4
) (
    input  logic            clk,
    input  logic            rst_n,
    input  logic            s_awvalid,
    output logic            s_awready,
    input  logic [ID_W-1:0] s_awid,
    input  logic [21:0]     s_awaddr,
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
    input  logic [21:0]     s_araddr,
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
    output logic            rx_irq,    // one-cycle pulse: MSI-X vector RX_IRQ_VECTOR
    output logic            idle       // see nic_pio_core: only the counter changes while the port is quiet
);
    logic        m_valid, m_ready, m_we, m_rvalid;
    logic [21:0] m_addr;
    logic [63:0] m_wdata, m_rdata;
    logic [7:0]  m_wstrb;

    axi4_to_mem #(.AW(22), .ID_W(ID_W)) u_fe (
        .clk, .rst_n,
        .s_awvalid, .s_awready, .s_awid, .s_awaddr, .s_awlen, .s_awsize, .s_awburst,
        .s_wvalid, .s_wready, .s_wdata, .s_wstrb, .s_wlast,
        .s_bvalid, .s_bready, .s_bid, .s_bresp,
        .s_arvalid, .s_arready, .s_arid, .s_araddr, .s_arlen, .s_arsize, .s_arburst,
        .s_rvalid, .s_rready, .s_rid, .s_rdata, .s_rresp, .s_rlast,
        .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb, .m_rvalid, .m_rdata);

    logic [511:0] tx_tdata, rx_tdata;
    logic [63:0]  tx_tkeep, rx_tkeep, tx_done_ts, rx_done_ts;
    logic         tx_tlast, tx_tvalid, tx_tready, rx_tlast, rx_tvalid, rx_tready;
    logic         tx_done_valid, tx_done_err, rx_done_valid;
    logic [15:0]  tx_done_len;
    logic [31:0]  runt_count, oversize_count;
    logic         core_idle;

    nic_pio_core #(.AW(22)) u_nic (
        .clk, .rst_n, .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb, .m_rvalid, .m_rdata, .cycles,
        .tx_tdata, .tx_tkeep, .tx_tlast, .tx_tvalid, .tx_tready,
        .rx_tdata, .rx_tkeep, .rx_tlast, .rx_tvalid, .rx_tready,
        .tx_done_valid, .tx_done_ts, .tx_done_err, .rx_done_valid, .rx_done_ts, .runt_count, .oversize_count,
        .rx_irq, .idle(core_idle));

    // The front end between bursts (s_awready: its IDLE state) has no read
    // answer queued or in flight; the burst counters it clears there are
    // set again when the next burst is taken, so they need not settle.
    assign idle = core_idle && s_awready;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_len = ^tx_done_len;       // the NIC keeps the length from its descriptor
    /* verilator lint_on UNUSEDSIGNAL */

    mac_loopback u_mac (
        .clk, .rst_n, .now(cycles),
        .s_tdata(tx_tdata), .s_tkeep(tx_tkeep), .s_tlast(tx_tlast), .s_tvalid(tx_tvalid), .s_tready(tx_tready),
        .m_tdata(rx_tdata), .m_tkeep(rx_tkeep), .m_tlast(rx_tlast), .m_tvalid(rx_tvalid), .m_tready(rx_tready),
        .tx_done_valid, .tx_done_ts, .tx_done_len, .tx_done_err, .rx_done_valid, .rx_done_ts,
        .runt_count, .oversize_count);
endmodule
