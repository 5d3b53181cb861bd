// TX engine of the PIO NIC: for every descriptor between the frames already
// started and the host's TX_HEAD, read the length from the TX ring, then
// stream the slot out of TX_BUF to the MAC, one 512-bit beat per cycle while
// the MAC takes them (s_tready). The last beat's tkeep covers the frame's
// tail; a zero-length descriptor still sends one beat (tkeep 0), so the MAC
// sees and counts the runt. Lengths beyond the slot keep re-reading the
// slot's last beat (the MAC drops anything above the MTU anyway).
//
// The beat in flight is the buffer's registered read data itself: a new row
// is read only when there is no beat or the MAC takes the current one, so a
// beat waits in the RAM's output register under backpressure and the stream
// runs at one beat per cycle otherwise.
//
// Cycles: TX_HEAD written in cycle d -> descriptor read in d+1 -> first row
// read in d+2 -> first beat offered in d+3.
module nic_pio_tx #(
    parameter int SLOT_BEATS = 160,
    parameter int ROWS = 10240,
    localparam int RW = $clog2(ROWS)
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic [31:0]   tx_head,        // host's producer index
    input  logic [5:0]    ring_mask,      // TX ring size - 1
    output logic [5:0]    desc_slot,      // descriptor looked up ...
    input  logic [15:0]   desc_len,       // ... and its length
    output logic          row_re,
    output logic [RW-1:0] row_raddr,
    input  logic [511:0]  row_rdata,
    output logic [511:0]  tdata,
    output logic [63:0]   tkeep,
    output logic          tlast,
    output logic          tvalid,
    input  logic          tready,
    output logic          busy            // a frame is being read or streamed
);
    logic [31:0] started;                 // descriptors taken from the ring
    logic        active;                  // rows of frame `slot` left to read
    logic [5:0]  slot;
    logic [15:0] len;
    logic [10:0] beats, beat;             // beats of the frame, next beat to read
    logic        have, have_last;
    logic [63:0] have_keep;

    assign desc_slot = started[5:0] & ring_mask;
    assign busy      = active || have;

    wire [10:0] nbeats    = desc_len == 16'd0 ? 11'd1 : 11'((32'(desc_len) + 63) / 64);
    wire        take      = have && tready;
    wire        issue     = active && beat != beats && (!have || tready);
    wire        last_rd   = beat == beats - 11'd1;
    wire [6:0]  tail      = len[5:0] == 6'd0 ? 7'd64 : {1'b0, len[5:0]};
    wire [63:0] tail_keep = len == 16'd0 ? 64'd0 : (tail == 7'd64 ? {64{1'b1}} : (64'd1 << tail) - 64'd1);
    wire [10:0] row_beat  = beat < 11'(SLOT_BEATS) ? beat : 11'(SLOT_BEATS - 1);

    assign row_re    = issue;
    assign row_raddr = RW'(32'(slot) * SLOT_BEATS + 32'(row_beat));
    assign tdata     = row_rdata;
    assign tkeep     = have_keep;
    assign tlast     = have_last;
    assign tvalid    = have;

    // The next descriptor is taken in the cycle the current frame's last row
    // is read, so frames queued together leave back to back.
    wire next = (!active || (issue && last_rd)) && started != tx_head;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            started <= '0;
            active  <= 1'b0;
            have    <= 1'b0;
        end else begin
            if (issue) begin
                have      <= 1'b1;
                have_last <= last_rd;
                have_keep <= last_rd ? tail_keep : {64{1'b1}};
                beat      <= beat + 11'd1;
                if (last_rd) active <= 1'b0;
            end else if (take) begin
                have <= 1'b0;
            end
            if (next) begin
                active  <= 1'b1;
                started <= started + 32'd1;
                slot    <= desc_slot;
                len     <= desc_len;
                beats   <= nbeats;
                beat    <= '0;
            end
        end
    end
endmodule
