// RX path of the DMA NIC: the MAC's RX stream -> the RX FIFO -> XDMA's C2H0
// AXI4-Stream, and the RX stamps.
//
// The NIC never backpressures the MAC (tready is always up): while C2H0 has
// no descriptor, and so holds its tready low, frames wait in the RX FIFO,
// RX_FIFO_BYTES (64-byte beats of block RAM, counting the beats read from it
// and not yet taken by C2H0) in at most RX_FIFO_FRAMES frames. The MAC does not say a frame's length before its last beat, so a
// frame is let in at its first beat only if the FIFO has room for an MTU
// frame and a frame slot; otherwise it is dropped whole and counted
// (RX_DROPS). A frame let in always fits, so beats go on to C2H0 as they
// come (cut-through): a beat the MAC offers in cycle t is on C2H0 in t + 3
// (written in t, read from the RAM in t + 1, in the output buffer in t + 2).
//
// Stamps: one per frame let in, pushed the cycle after the MAC's rx_done
// strobe for it (two cycles after its last beat): the frame's 16-bit
// sequence number (frames let in, from 0) and the MAC's cycle of its last beat.
module nic_dma_rx (
    input  logic         clk,
    input  logic         rst_n,
    // from the MAC
    input  logic [511:0] s_tdata,
    input  logic [63:0]  s_tkeep,
    input  logic         s_tlast,
    input  logic         s_tvalid,
    output logic         s_tready,
    input  logic         rx_done_valid,
    input  logic [63:0]  rx_done_ts,
    // to XDMA C2H0
    output logic [511:0] m_tdata,
    output logic [63:0]  m_tkeep,
    output logic         m_tlast,
    output logic         m_tvalid,
    input  logic         m_tready,
    // stamps and counters
    output logic         stamp_valid,
    output logic [63:0]  stamp,
    output logic [31:0]  drops,
    output logic         busy            // beats in the FIFO or a frame arriving
);
    localparam int DEPTH      = 32'(nic_dma_pkg::RX_FIFO_BYTES / 64);
    localparam int FRAMES     = 32'(nic_dma_pkg::RX_FIFO_FRAMES);
    localparam int MTU_BEATS  = 32'((nic_dma_pkg::MTU + 63) / 64);
    localparam int AW         = $clog2(DEPTH);
    localparam int FW         = $clog2(FRAMES + 1);
    localparam int BW         = 512 + 64 + 1;

    // ---- write side
    logic [BW-1:0] mem [DEPTH];
    logic [AW:0]   wr, rd;                // rd: next beat to read from the RAM
    logic [AW:0]   out;                   // beats C2H0 took
    logic [FW-1:0] frames;                // frames let in, last beat not yet on C2H0
    logic          in_frame, accept;
    logic          pend, pend_accept;     // last beat taken, waiting for rx_done
    logic [15:0]   seq;

    wire take      = s_tvalid && s_tready;
    wire [AW:0] used = wr - rd;           // in the RAM
    wire [AW:0] held = wr - out;          // in the RAM, read from it or in the output buffer
    wire room      = 32'(DEPTH) - 32'(held) >= MTU_BEATS && 32'(frames) < FRAMES;
    wire acc_now   = in_frame ? accept : room;
    wire out_last  = m_tvalid && m_tready && m_tlast;

    assign s_tready = rst_n;

    always_ff @(posedge clk) begin
        if (take && acc_now) mem[wr[AW-1:0]] <= {s_tlast, s_tkeep, s_tdata};
    end

    always_ff @(posedge clk) begin
        stamp_valid <= 1'b0;
        if (!rst_n) begin
            wr       <= '0;
            frames   <= '0;
            in_frame <= 1'b0;
            pend     <= 1'b0;
            drops    <= '0;
            seq      <= '0;
        end else begin
            frames <= frames + FW'(take && !in_frame && room) - FW'(out_last);
            // the strobe of the frame before: before the take below, which
            // may end the next (one-beat) frame in the same cycle
            if (rx_done_valid) begin
                pend <= 1'b0;
                if (pend && pend_accept) begin
                    stamp_valid <= 1'b1;
                    stamp       <= {seq, 1'b0, rx_done_ts[46:0]};
                    seq         <= seq + 16'd1;
                end
            end
            if (take) begin
                if (!in_frame) begin
                    accept <= room;
                    if (!room) drops <= drops + 32'd1;
                end
                if (acc_now) wr <= wr + 1'b1;
                in_frame <= !s_tlast;
                if (s_tlast) begin
                    pend        <= 1'b1;
                    pend_accept <= acc_now;
                end
            end
        end
    end

    // ---- read side: a RAM read in flight and a two-beat output buffer,
    // enough for a beat per cycle while C2H0 takes them
    logic          rd_inflight;
    logic [BW-1:0] rd_q;
    logic [BW-1:0] ob [2];
    logic [1:0]    ob_n;
    logic          ob_head;               // index of the oldest entry

    wire pop    = m_tvalid && m_tready;
    wire issue  = used != '0 && 32'(ob_n) + 32'(rd_inflight) - 32'(pop) < 2;

    always_ff @(posedge clk) begin
        if (issue) rd_q <= mem[rd[AW-1:0]];
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rd          <= '0;
            out         <= '0;
            rd_inflight <= 1'b0;
            ob_n        <= '0;
            ob_head     <= 1'b0;
        end else begin
            rd_inflight <= issue;
            if (issue) rd <= rd + 1'b1;
            if (rd_inflight) ob[ob_head ^ ob_n[0]] <= rd_q;   // behind the entries that stay
            if (pop) begin
                ob_head <= !ob_head;
                out     <= out + 1'b1;
            end
            ob_n <= ob_n + 2'(rd_inflight) - 2'(pop);
        end
    end

    assign m_tvalid = ob_n != '0;
    assign {m_tlast, m_tkeep, m_tdata} = ob[ob_head];
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ts = ^rx_done_ts[63:47];   // a stamp keeps 47 bits of the cycle
    /* verilator lint_on UNUSEDSIGNAL */

    assign busy = in_frame || pend || wr != rd || rd_inflight || ob_n != '0;
endmodule
