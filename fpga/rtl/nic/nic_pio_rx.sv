// RX engine of the PIO NIC: takes every beat the MAC offers (tready is always
// up: the buffer is written at line rate) and writes the frame into the next
// free RX slot. Whether a frame has a slot is decided at its first beat: if
// the host has not freed one (RX ring full) the whole frame is dropped and
// counted (RX_DROPS). A frame's descriptor (DESC_DONE | length, and the MAC's
// stamp of its last beat) is written and RX_HEAD advanced when the MAC's
// rx_done strobe for it arrives, one cycle after the last beat.
//
// Cycles: last beat taken in cycle l -> rx_done in l+1, descriptor and
// RX_HEAD written at the end of l+1 -> a host read taken in l+2 sees them.
module nic_pio_rx #(
    parameter int SLOT_BEATS = 160,
    parameter int ROWS = 10240,
    localparam int RW = $clog2(ROWS)
) (
    input  logic          clk,
    input  logic          rst_n,
    // from the MAC
    input  logic [511:0]  tdata,
    input  logic [63:0]   tkeep,
    input  logic          tlast,
    input  logic          tvalid,
    output logic          tready,
    input  logic          rx_done_valid,
    input  logic [63:0]   rx_done_ts,
    // ring state
    input  logic [31:0]   rx_tail,
    input  logic [5:0]    ring_mask,      // RX ring size - 1
    output logic [31:0]   rx_head,        // frames landed (descriptor written)
    output logic [31:0]   drops,
    output logic          busy,           // a frame is arriving or not yet landed
    // RX_BUF row write
    output logic          row_we,
    output logic [RW-1:0] row_waddr,
    output logic [511:0]  row_wdata,
    output logic [63:0]   row_wkeep,
    // descriptor write
    output logic          land,
    output logic [5:0]    land_slot,
    output logic [15:0]   land_len,
    output logic [63:0]   land_ts
);
    logic [31:0] reserved;                // frames given a slot (>= rx_head)
    logic        in_frame, accept;
    logic [5:0]  slot;
    logic [7:0]  beat;
    logic [15:0] len;
    logic        pend, pend_accept;       // frame ended, waiting for rx_done
    logic [5:0]  pend_slot;
    logic [15:0] pend_len;

    wire        take     = tvalid && tready;
    wire [31:0] ring_sz  = 32'(ring_mask) + 32'd1;
    wire        room     = reserved - rx_tail < ring_sz;
    wire        acc_now  = in_frame ? accept : room;
    wire [5:0]  slot_now = in_frame ? slot : reserved[5:0] & ring_mask;
    wire [7:0]  beat_now = in_frame ? beat : 8'd0;
    wire [15:0] len_next = (in_frame ? len : 16'd0) + 16'($countones(tkeep));

    assign tready    = rst_n;
    assign busy      = in_frame || pend || reserved != rx_head;
    assign row_we    = take && acc_now;
    assign row_waddr = RW'(32'(slot_now) * SLOT_BEATS + 32'(beat_now));
    assign row_wdata = tdata;
    assign row_wkeep = tkeep;

    assign land      = rx_done_valid && pend && pend_accept;
    assign land_slot = pend_slot;
    assign land_len  = pend_len;
    assign land_ts   = rx_done_ts;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            reserved <= '0;
            rx_head  <= '0;
            drops    <= '0;
            in_frame <= 1'b0;
            pend     <= 1'b0;
        end else begin
            if (rx_done_valid) begin
                pend <= 1'b0;
                if (pend && pend_accept) rx_head <= rx_head + 32'd1;
            end
            if (take) begin
                if (!in_frame) begin
                    accept <= room;
                    slot   <= slot_now;
                    if (room) reserved <= reserved + 32'd1;
                    else      drops    <= drops + 32'd1;
                end
                beat <= beat_now + 8'd1;
                len  <= len_next;
                in_frame <= !tlast;
                if (tlast) begin
                    pend        <= 1'b1;
                    pend_accept <= acc_now;
                    pend_slot   <= slot_now;
                    pend_len    <= len_next;
                end
            end
        end
    end
endmodule
