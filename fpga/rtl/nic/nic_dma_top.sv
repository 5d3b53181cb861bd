// PCIe DMA NIC image, user side of the XDMA IP (the paper's Fig. 8(a),
// issue 15 (a)): XDMA's H2C0 AXI4-Stream (512 bit) is the NIC's TX stream,
// its C2H0 AXI4-Stream the RX stream, and the user BAR (BAR0,
// fpga/regmap/nic_dma.toml) an AXI4 slave with 64-bit data: XDMA's "DMA
// bypass" master through a width converter in Vivado, as the PIO images
// have it. Not the IP's AXI-Lite master: it moves 32 bits per access, and a
// 64-bit stamp read pops its FIFO, so it must be one access.
//
//   H2C0 -> nic_dma_tx -> mac_loopback (near-end loopback) -> nic_dma_rx -> C2H0
//
// Plain ports only, so yosys and Verilator read it as a top; on the board
// (fpga/vcu118/vcu118_nic_dma_top.sv) the XDMA IP drives them. `cycles` is
// the core-clock counter the MAC stamps count (CYCLES).
module nic_dma_top #(
    parameter int ID_W = 4
) (
    input  logic            clk,
    input  logic            rst_n,
    // user BAR: AXI4 slave; the map is 4 KiB, addresses above it read all ones
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
    // XDMA H2C0 stream (TX)
    input  logic [511:0]    h2c_tdata,
    input  logic [63:0]     h2c_tkeep,
    input  logic            h2c_tlast,
    input  logic            h2c_tvalid,
    output logic            h2c_tready,
    // XDMA C2H0 stream (RX)
    output logic [511:0]    c2h_tdata,
    output logic [63:0]     c2h_tkeep,
    output logic            c2h_tlast,
    output logic            c2h_tvalid,
    input  logic            c2h_tready,
    output logic [63:0]     cycles,
    output logic            idle        // no frame anywhere between H2C0 and C2H0
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

    cycle_counter u_cnt (.clk, .rst_n, .count(cycles));

    logic [511:0] tx_tdata, rx_tdata;
    logic [63:0]  tx_tkeep, rx_tkeep, tx_done_ts, rx_done_ts;
    logic         tx_tlast, tx_tvalid, tx_tready, rx_tlast, rx_tvalid, rx_tready;
    logic         tx_done_valid, tx_done_err, rx_done_valid;
    logic [15:0]  tx_done_len;
    logic [31:0]  runt_count, oversize_count, malformed, rx_drops;
    logic         tx_stamp_valid, rx_stamp_valid, tx_busy, rx_busy, rx_pop, tx_pop, rx_drop, tx_drop;
    logic [15:0]  drop_seq;
    logic [63:0]  tx_stamp_in, rx_stamp_in, rx_stamp_out, tx_stamp_out;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_len = ^tx_done_len;       // the MAC's counters say what it dropped
    /* verilator lint_on UNUSEDSIGNAL */

    nic_dma_tx u_tx (
        .clk, .rst_n, .now(cycles),
        .s_tdata(h2c_tdata), .s_tkeep(h2c_tkeep), .s_tlast(h2c_tlast), .s_tvalid(h2c_tvalid), .s_tready(h2c_tready),
        .m_tdata(tx_tdata), .m_tkeep(tx_tkeep), .m_tlast(tx_tlast), .m_tvalid(tx_tvalid), .m_tready(tx_tready),
        .tx_done_valid, .tx_done_ts, .tx_done_err,
        .stamp_valid(tx_stamp_valid), .stamp(tx_stamp_in), .malformed, .busy(tx_busy));

    mac_loopback u_mac (
        .clk, .rst_n, .now(cycles),
        .s_tdata(tx_tdata), .s_tkeep(tx_tkeep), .s_tlast(tx_tlast), .s_tvalid(tx_tvalid), .s_tready(tx_tready),
        .m_tdata(rx_tdata), .m_tkeep(rx_tkeep), .m_tlast(rx_tlast), .m_tvalid(rx_tvalid), .m_tready(rx_tready),
        .tx_done_valid, .tx_done_ts, .tx_done_len, .tx_done_err, .rx_done_valid, .rx_done_ts,
        .runt_count, .oversize_count);

    nic_dma_rx u_rx (
        .clk, .rst_n,
        .s_tdata(rx_tdata), .s_tkeep(rx_tkeep), .s_tlast(rx_tlast), .s_tvalid(rx_tvalid), .s_tready(rx_tready),
        .rx_done_valid, .rx_done_ts,
        .m_tdata(c2h_tdata), .m_tkeep(c2h_tkeep), .m_tlast(c2h_tlast), .m_tvalid(c2h_tvalid), .m_tready(c2h_tready),
        .stamp_valid(rx_stamp_valid), .stamp(rx_stamp_in), .drops(rx_drops), .busy(rx_busy));

    nic_dma_stamps #(.DEPTH(32'(nic_dma_pkg::STAMP_FIFO))) u_rx_stamps (
        .clk, .rst_n, .push(rx_stamp_valid), .push_data(rx_stamp_in), .pop(rx_pop), .pop_data(rx_stamp_out),
        .drop(rx_drop), .drop_seq);
    nic_dma_stamps #(.DEPTH(32'(nic_dma_pkg::STAMP_FIFO))) u_tx_stamps (
        .clk, .rst_n, .push(tx_stamp_valid), .push_data(tx_stamp_in), .pop(tx_pop), .pop_data(tx_stamp_out),
        .drop(tx_drop), .drop_seq);

    nic_dma_regs #(.AW(18)) u_regs (
        .clk, .rst_n, .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb, .m_rvalid, .m_rdata, .cycles,
        .rx_pop, .rx_stamp(rx_stamp_out), .rx_drop,
        .tx_pop, .tx_stamp(tx_stamp_out), .tx_drop, .drop_seq,
        .rx_drops, .runts(runt_count), .oversize(oversize_count - malformed), .malformed);

    // The MAC holds a frame between its tx_done and its last RX beat: frames
    // it took whole and has not handed back yet.
    logic [31:0] mac_frames;
    always_ff @(posedge clk) begin
        if (!rst_n) mac_frames <= '0;
        else mac_frames <= mac_frames + 32'(tx_done_valid && !tx_done_err) - 32'(rx_done_valid);
    end
    assign idle = !tx_busy && !tx_done_valid && !rx_busy && mac_frames == '0 && !tx_stamp_valid && !rx_stamp_valid;
endmodule
