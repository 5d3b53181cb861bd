// ECI NIC image (the paper's Fig. 8(c), issue 15 (c); window =
// fpga/regmap/nic_eci.toml): the coherent engine (fpga/rtl/coh/coh_engine.sv,
// the same Fig. 5 signal rule as the coherent invocation image) between the
// Enzian directory controller's interface and the MAC stand-in in near-end
// loopback.
//
//   RX_CHAN  the engine's device-initiated channel (Fig. 5b): one message
//            per received frame (nic_eci_rx: RX stamp, then the frame), over
//            as many 120-byte chunks as it takes
//   TX_CHAN  its CPU-initiated channel 0 (Fig. 5a), function unit outside
//            the engine (EXT_FN): the request's rows go to the MAC's TX
//            stream (nic_eci_tx), the answer is the MAC's TX stamp
//   CYCLES   a line answered here with the core-clock counter at the cycle
//            its read was taken (the MAC stamps count the same cycles)
//   FEATURES a line answered here with what the image does: with rx_banks
//            high FEAT_RX_BANKS | BANK_LINES << FEAT_LINES_SHIFT, and RX
//            messages go whole (chunk 0x7ff) with their rest in the answered
//            line's data bank (coh_engine's bank_mode); low: 0, and messages
//            go line by line, as before the data banks. With tx_banks high
//            also FEAT_TX_BANKS: a TX request may come whole (chunk 0x7ff,
//            the frame's bytes 120.. in the request line's bank, coh_engine's
//            tx_bank_mode); line-by-line requests stay valid. Both are mode
//            pins, held from reset on (the Enzian adapter ties them high;
//            the simulation harness sets them per run: a driver that does
//            not read FEATURES only works with them low)
//
// The engine's channels sit at its own offsets (CPU channels 0..3, device
// channel 4, coh_dev.toml); this module translates the NIC's window to them
// and back (RX_CHAN <-> engine channel 4, TX_CHAN <-> engine channel 0).
// Lines of no channel read as zeros and take write-backs, as in the engine.
// No control block: the engine runs with Exclusive answers, no DELAY and a
// not-ready timeout of NOT_READY_CYCLES (an RX poll without a frame returns
// after it). Plain ports only (Verilator, yosys, iverilog read it as a top);
// on Enzian the shell connects the DC ports (fpga/enzian/).
module nic_eci_top #(
    parameter int AW   = 20,
    parameter int ID_W = 6
) (
    input  logic            clk,
    input  logic            rst_n,
    input  logic            rx_banks,   // RX messages with data banks (FEATURES says so)
    input  logic            tx_banks,   // TX requests may come whole with data banks (FEATURES says so)
    input  logic            rdreq_valid,
    output logic            rdreq_ready,
    input  logic [ID_W-1:0] rdreq_id,
    input  logic [AW-1:0]   rdreq_addr,
    input  logic            rdreq_excl,
    output logic            rdrsp_valid,
    input  logic            rdrsp_ready,
    output logic [ID_W-1:0] rdrsp_id,
    output logic [1023:0]   rdrsp_data,
    output logic            rdrsp_excl,
    input  logic            wrreq_valid,
    output logic            wrreq_ready,
    input  logic [ID_W-1:0] wrreq_id,
    input  logic [AW-1:0]   wrreq_addr,
    input  logic [1023:0]   wrreq_data,
    input  logic [127:0]    wrreq_be,
    output logic            wrrsp_valid,
    input  logic            wrrsp_ready,
    output logic [ID_W-1:0] wrrsp_id,
    output logic            lclreq_valid,
    input  logic            lclreq_ready,
    output logic [AW-1:0]   lclreq_addr,
    output logic            lclreq_inv,
    input  logic            lclrsp_valid,
    output logic            lclrsp_ready,
    input  logic [AW-1:0]   lclrsp_addr,
    input  logic            lclrsp_inv,
    output logic            ulreq_valid,
    input  logic            ulreq_ready,
    output logic [AW-1:0]   ulreq_addr,
    output logic            busy,       // work in flight: the clock may stop while low and no input is valid
    // Simulation only (idle-cycle skipping; the Enzian shell leaves them
    // open): while quiet is high and no input is valid, the next edges
    // change nothing but the cycle counter and the held reads' timers (+1
    // each), for quiet_for edges at most (then a held read's not-ready
    // timeout). A frame waiting in the RX bridge for the CPU's signal, a
    // held read waiting for the CPU's LCIA or its next read are quiet; a
    // frame on the MAC's line or in a bridge's datapath, a bank copy or
    // take-back, an answer or LCI/UL to send, a TX stamp to come are not.
    output logic            quiet,
    output logic [31:0]     quiet_for,
    output logic [63:0]     cycles,
    output logic [31:0]     runt_count,
    output logic [31:0]     oversize_count
);
    localparam int SH = $clog2(32'(nic_eci_pkg::CHANNEL_STRIDE));   // channel field of an offset
    localparam logic [AW-SH-1:0] N_RX = (AW - SH)'(nic_eci_pkg::RX_CHAN_OFF >> SH),
                                 N_TX = (AW - SH)'(nic_eci_pkg::TX_CHAN_OFF >> SH),
                                 E_RX = (AW - SH)'(coh_dev_pkg::CPU_CHANNELS),   // the engine's 5b channel
                                 E_TX = '0,                                      // its CPU channel 0
                                 E_NONE = '1;                                    // lines of no channel
    localparam logic [AW-1:0] CYC = AW'(nic_eci_pkg::CYCLES_OFF), FEAT = AW'(nic_eci_pkg::FEATURES_OFF);
    // The mode pins, taken while rst_n is low and held after: they are
    // constants of a build (enzian_nic_app ties them high), but as inputs
    // every gate they reach would sit in the input-combinational logic a
    // simulator evaluates on every input change (Verilator's ico region).
    logic rxb, txb;
    always_ff @(posedge clk)
        if (!rst_n) begin
            rxb <= rx_banks;
            txb <= tx_banks;
        end
    wire [63:0] features = (rxb ? 64'(nic_eci_pkg::FEAT_RX_BANKS) : 64'd0) |
                           (txb ? 64'(nic_eci_pkg::FEAT_TX_BANKS) : 64'd0) |
                           (rxb || txb ? 64'(nic_eci_pkg::BANK_LINES) << nic_eci_pkg::FEAT_LINES_SHIFT : 64'd0);

    // NIC window offset -> engine offset, and back
    function automatic logic [AW-1:0] to_eng(input logic [AW-1:0] a);
        logic [AW-SH-1:0] c;
        c = a[AW-1:SH];
        to_eng = {c == N_RX ? E_RX : c == N_TX ? E_TX : E_NONE, a[SH-1:0]};
    endfunction
    function automatic logic [AW-1:0] to_nic(input logic [AW-1:0] a);
        to_nic = {a[AW-1:SH] == E_RX ? N_RX : N_TX, a[SH-1:0]};
    endfunction

    cycle_counter u_cnt (.clk, .rst_n, .count(cycles));

    // ---- CYCLES, FEATURES: answered here; the output register is shared with the engine
    logic            cyc_v;
    logic [ID_W-1:0] cyc_id;
    logic [63:0]     cyc_val;
    logic            e_rdreq_ready, e_rdrsp_valid, e_rdrsp_excl;
    logic [ID_W-1:0] e_rdrsp_id;
    logic [1023:0]   e_rdrsp_data;
    wire  is_cyc = rdreq_addr == CYC || rdreq_addr == FEAT;
    // One ready for both, from registers only: a read waits while a CYCLES
    // answer is up or the engine cannot take one, whichever it is for. (A
    // ready that followed the request's address was the one output with a
    // path from an input: a simulator had to settle the inputs before the
    // clock edge, two evaluations per cycle instead of one.)
    assign rdreq_ready = !cyc_v && e_rdreq_ready;
    wire  cyc_take = rdreq_valid && is_cyc && rdreq_ready;
    // a CYCLES answer, once up, goes first; the engine's waits (its valid stays)
    assign rdrsp_valid = cyc_v || e_rdrsp_valid;
    assign rdrsp_id    = cyc_v ? cyc_id : e_rdrsp_id;
    assign rdrsp_data  = cyc_v ? {960'd0, cyc_val} : e_rdrsp_data;
    assign rdrsp_excl  = cyc_v ? 1'b0 : e_rdrsp_excl;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            cyc_v <= 1'b0;
        end else begin
            if (cyc_v && rdrsp_ready) cyc_v <= 1'b0;
            if (cyc_take) begin
                cyc_v   <= 1'b1;
                cyc_id  <= rdreq_id;
                cyc_val <= rdreq_addr == FEAT ? features : cycles;
            end
        end
    end

    // ---- the engine
    localparam int XTW = $clog2(32'(coh_dev_pkg::CPU_CHANNELS)) + 1;
    logic            dmsg_valid, dmsg_ready, dmsg_last, x_in_valid, x_in_ready, x_in_last, x_out_valid;
    logic [959:0]    dmsg_data;
    logic [6:0]      dmsg_len;
    logic [10:0]     dmsg_chunk, dmsg_rchunk;
    logic [15:0]     dmsg_total;
    logic            dmsg_rvalid;
    logic [1023:0]   x_in_data, x_out_data;
    logic [7:0]      x_in_nbytes, x_out_nbytes;
    logic [XTW-1:0]  x_in_tag, x_out_tag;
    logic [AW-1:0]   e_lclreq_addr, e_ulreq_addr;
    logic            eng_busy, rx_busy, tx_busy, eng_waits, rx_quiet;
    /* verilator lint_off PINCONNECTEMPTY */   // counters: the NIC has no control block
    coh_engine #(.AW(AW), .ID_W(ID_W), .EXT_FN(1'b1), .BANK_LINES(32'(nic_eci_pkg::BANK_LINES)),
                 .TX_BANK_LINES(32'(nic_eci_pkg::BANK_LINES))) u_eng (
        .clk, .rst_n, .cfg_excl(1'b1), .cfg_op(8'd0), .cfg_timeout(32'(nic_eci_pkg::NOT_READY_CYCLES)),
        .cfg_delay(32'd0), .bank_mode(rxb), .tx_bank_mode(txb), .cnt_result(), .cnt_not_ready(),
        .rdreq_valid(rdreq_valid && !is_cyc && !cyc_v), .rdreq_ready(e_rdreq_ready), .rdreq_id, .rdreq_addr(to_eng(rdreq_addr)),
        .rdreq_excl,
        .rdrsp_valid(e_rdrsp_valid), .rdrsp_ready(rdrsp_ready && !cyc_v), .rdrsp_id(e_rdrsp_id),
        .rdrsp_data(e_rdrsp_data), .rdrsp_excl(e_rdrsp_excl),
        .wrreq_valid, .wrreq_ready, .wrreq_id, .wrreq_addr(to_eng(wrreq_addr)), .wrreq_data, .wrreq_be,
        .wrrsp_valid, .wrrsp_ready, .wrrsp_id,
        .lclreq_valid, .lclreq_ready, .lclreq_addr(e_lclreq_addr), .lclreq_inv,
        .lclrsp_valid, .lclrsp_ready, .lclrsp_addr(to_eng(lclrsp_addr)), .lclrsp_inv,
        .ulreq_valid, .ulreq_ready, .ulreq_addr(e_ulreq_addr),
        .dmsg_valid, .dmsg_ready, .dmsg_data, .dmsg_len, .dmsg_last, .dmsg_chunk,
        .dmsg_total, .dmsg_rvalid, .dmsg_rchunk,
        .x_in_valid, .x_in_ready, .x_in_data, .x_in_nbytes, .x_in_last, .x_in_tag,
        .x_out_valid, .x_out_data, .x_out_nbytes, .x_out_tag, .busy(eng_busy),
        .only_waits(eng_waits), .wait_edges(quiet_for));
    /* verilator lint_on PINCONNECTEMPTY */
    assign lclreq_addr = to_nic(e_lclreq_addr);
    assign ulreq_addr  = to_nic(e_ulreq_addr);

    // ---- bridges and the MAC
    logic [511:0] tx_tdata, rx_tdata;
    logic [63:0]  tx_tkeep, rx_tkeep, tx_done_ts, rx_done_ts;
    logic         tx_tlast, tx_tvalid, tx_tready, rx_tlast, rx_tvalid, rx_tready;
    logic         tx_done_valid, tx_done_err, rx_done_valid;
    logic [15:0]  tx_done_len;

    nic_eci_tx #(.TW(XTW)) u_tx (
        .clk, .rst_n, .x_in_valid, .x_in_ready, .x_in_data, .x_in_nbytes, .x_in_last, .x_in_tag,
        .x_out_valid, .x_out_data, .x_out_nbytes, .x_out_tag,
        .tdata(tx_tdata), .tkeep(tx_tkeep), .tlast(tx_tlast), .tvalid(tx_tvalid), .tready(tx_tready),
        .tx_done_valid, .tx_done_ts, .tx_done_err, .busy(tx_busy));

    nic_eci_rx u_rx (
        .clk, .rst_n, .tdata(rx_tdata), .tkeep(rx_tkeep), .tlast(rx_tlast), .tvalid(rx_tvalid), .tready(rx_tready),
        .rx_done_valid, .rx_done_ts, .dmsg_valid, .dmsg_ready, .dmsg_data, .dmsg_len, .dmsg_last, .dmsg_chunk,
        .dmsg_total, .dmsg_rvalid, .dmsg_rchunk, .busy(rx_busy), .quiet(rx_quiet));

    mac_loopback u_mac (
        .clk, .rst_n, .now(cycles),
        .s_tdata(tx_tdata), .s_tkeep(tx_tkeep), .s_tlast(tx_tlast), .s_tvalid(tx_tvalid), .s_tready(tx_tready),
        .m_tdata(rx_tdata), .m_tkeep(rx_tkeep), .m_tlast(rx_tlast), .m_tvalid(rx_tvalid), .m_tready(rx_tready),
        .tx_done_valid, .tx_done_ts, .tx_done_len, .tx_done_err, .rx_done_valid, .rx_done_ts,
        .runt_count, .oversize_count);

    // frames the MAC took and has not handed to the RX bridge yet (on its
    // line or in its store): the clock must run for them
    logic [15:0] in_mac;
    always_ff @(posedge clk) begin
        if (!rst_n) in_mac <= '0;
        else in_mac <= in_mac + 16'(tx_done_valid && !tx_done_err) - 16'(rx_done_valid);
    end
    assign busy = eng_busy || rx_busy || tx_busy || cyc_v || in_mac != 16'd0;
    // the MAC's strobes: the cycle after a frame's last beat on either side
    assign quiet = eng_waits && rx_quiet && !tx_busy && !cyc_v && in_mac == 16'd0 && !tx_done_valid &&
                   !rx_done_valid;

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused = ^tx_done_len;
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
