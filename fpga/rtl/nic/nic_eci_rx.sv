// RX bridge of the ECI NIC: the MAC's RX stream into Fig. 5b messages.
//
// Each frame becomes one message: RX_HDR bytes (the MAC's rx_done stamp,
// the cycle of the frame's last beat) then the frame, stored as the 120-byte
// chunks the engine sends (one row of `rows` per chunk), so a chunk is one
// row read. The header is not known until the frame has ended: chunk 0's
// first 8 bytes are left free and the stamp is put in when the row is read.
// A frame is offered (its meta entry pushed) when the MAC's rx_done strobe
// arrives, the cycle after its last beat: store-and-forward, as the model.
//
// Incoming beats (64 bytes, tkeep contiguous from byte 0) are packed into an
// accumulator of up to 183 bytes; a full row goes out whenever 120 bytes are
// there, a frame's tail that leaves two rows writes the second one the next
// cycle, beside the next beat: the bridge takes a beat every cycle (the MAC
// model's assumption). Nothing is dropped: while the row ring or the frame
// queue could overflow, tready is low and the MAC holds the frame (its own
// store then fills and stalls its TX side).
//
// The engine says which chunk it sends next (dmsg_chunk: 0 after a reset or
// a new session, so a message interrupted by a resync goes out whole again);
// the row of that chunk is read every cycle, and dmsg_valid is up once the
// row read matches the chunk and the head frame (one cycle after either
// changes). The engine's data banks (coh_banks) read the head message's
// chunks one a cycle instead, dmsg_chunk moving every cycle: dmsg_rvalid
// and dmsg_rchunk say which chunk dmsg_data shows, dmsg_total how long the
// message is.
module nic_eci_rx #(
    parameter int ROWS = 2048,     // 120-byte rows: 240 KiB, 25 MTU frames
    parameter int FRAMES = 32      // frames queued at once
) (
    input  logic          clk,
    input  logic          rst_n,
    // MAC RX stream and its per-frame stamp
    input  logic [511:0]  tdata,
    input  logic [63:0]   tkeep,
    input  logic          tlast,
    input  logic          tvalid,
    output logic          tready,
    input  logic          rx_done_valid,
    input  logic [63:0]   rx_done_ts,
    // to the engine's device-initiated channel
    output logic          dmsg_valid,
    input  logic          dmsg_ready,
    output logic [959:0]  dmsg_data,
    output logic [6:0]    dmsg_len,
    output logic          dmsg_last,
    input  logic [10:0]   dmsg_chunk,
    // the same rows streamed (the engine's data banks read one a cycle):
    output logic [15:0]   dmsg_total,   // the head message's bytes (RX_HDR + frame)
    output logic          dmsg_rvalid,  // dmsg_data is its chunk dmsg_rchunk
    output logic [10:0]   dmsg_rchunk,
    output logic          busy,         // a frame is arriving or its stamp not in yet
    // simulation only (idle-cycle skipping): not busy, and the read side
    // shows what the next edges would read again (the head frame's row
    // dmsg_chunk, its valid): while no beat comes and dmsg_chunk stays,
    // nothing here changes
    output logic          quiet
);
    localparam int RW = $clog2(ROWS);
    localparam int PW = $clog2(FRAMES);
    localparam int HDR = 32'(nic_eci_pkg::RX_HDR);
    localparam int CH = 120;                      // payload bytes of a chunk (coh_dev PAYLOAD_MAX)

    logic [959:0]  rows [ROWS];
    // write side
    logic          in_frame, pend, dv;
    logic [1471:0] acc;                           // up to 183 bytes not yet in a row
    logic [7:0]    acc_n;
    logic [959:0]  dd;                            // a row waiting for the next write cycle (dv)
    logic [RW:0]   wptr, rfree;                   // one extra bit: full vs empty
    logic [RW-1:0] fstart, pend_start;
    logic [15:0]   flen, pend_len;
    // frame queue: start row, frame length, stamp
    logic [RW-1:0] q_start [FRAMES];
    logic [15:0]   q_len   [FRAMES];
    logic [63:0]   q_ts    [FRAMES];
    logic [PW:0]   qh, qt;

    wire [PW:0]   queued = qt - qh;
    wire [RW:0]   used   = wptr - rfree;
    // room for this beat's rows and a waiting one; a queue entry for every frame under way
    assign tready = rst_n && used + (RW + 1)'(3) <= (RW + 1)'(ROWS) &&
                    32'(queued) + 32'(pend) + 32'(in_frame) < FRAMES;
    wire          take = tvalid && tready;
    wire [7:0]    base_n = in_frame ? acc_n : 8'(HDR);
    wire [7:0]    cnt    = 8'($countones(tkeep));
    wire [7:0]    tot    = base_n + cnt;
    wire [1471:0] x      = (in_frame ? acc : 1472'd0) | ({960'd0, tdata} << {base_n, 3'b000});
    // rows this beat completes: one when 120 bytes are there or the frame
    // ends, two when it ends with more than 120 (the second waits in dd)
    wire          row0 = take && (tlast || tot >= 8'(CH));
    wire          row1 = take && tlast && tot > 8'(CH);
    // One row is written a cycle. A beat completes at most one row unless it
    // ends its frame, and a frame's first beat (RX_HDR + 64 bytes) completes
    // none unless the frame is that one beat: so a waiting row is always
    // written before a beat could leave two, and the MAC is never held.
    wire          we  = dv || row0;
    wire [959:0]  wd  = dv ? dd : x[959:0];
    assign busy = in_frame || pend || dv;

    always_ff @(posedge clk) begin
        if (we) rows[wptr[RW-1:0]] <= wd;
    end

    // read side: the head frame's chunk dmsg_chunk
    wire          nonempty = qh != qt;
    wire [RW-1:0] h_start  = q_start[qh[PW-1:0]];
    wire [15:0]   h_len    = q_len[qh[PW-1:0]];
    wire [63:0]   h_ts     = q_ts[qh[PW-1:0]];
    wire [16:0]   h_tot    = 17'(h_len) + 17'(HDR);
    wire [16:0]   c_off    = 17'(dmsg_chunk) * 17'(CH);
    wire [16:0]   c_left   = h_tot - c_off;
    logic [959:0] rdata;
    logic         r_ok;
    logic [10:0]  r_k;
    logic [RW-1:0] r_a;                           // the row rdata was read from
    wire          pop = dmsg_valid && dmsg_ready && dmsg_last;
    assign dmsg_valid = r_ok && r_k == dmsg_chunk && nonempty;
    assign dmsg_data  = r_k == 11'd0 ? {rdata[959:64], h_ts} : rdata;
    assign dmsg_last  = c_left <= 17'(CH);
    assign dmsg_len   = dmsg_last ? 7'(c_left) : 7'(CH);
    assign dmsg_total = 16'(h_tot);
    assign dmsg_rvalid = r_ok && nonempty;
    assign dmsg_rchunk = r_k;
    // the rows' chunks hold h_tot bytes: ceil(h_tot / 120) rows
    wire [RW:0]   h_rows   = (RW + 1)'((h_tot + 17'(CH - 1)) / 17'(CH));

    wire [RW-1:0] r_next   = h_start + RW'(dmsg_chunk);
    always_ff @(posedge clk) begin
        rdata <= rows[r_next];
        r_a   <= r_next;
        r_k   <= dmsg_chunk;
        r_ok  <= nonempty && !pop && rst_n;
    end
    // (rows are written only while busy or a beat comes: a row read again reads the same)
    assign quiet = !busy && r_ok == (nonempty && !pop) && r_k == dmsg_chunk && r_a == r_next;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            in_frame <= 1'b0; dv <= 1'b0; pend <= 1'b0;
            acc_n <= '0; wptr <= '0; rfree <= '0; qh <= '0; qt <= '0;
        end else begin
            if (we) wptr <= wptr + 1'b1;
            // the row that waits: this beat's second row, or its only one
            // when the cycle's write went to the row waiting before it
            if (row1) begin
                dd <= {448'd0, x[1471:960]};   // at most 63 bytes
                dv <= 1'b1;
            end else if (dv && row0) begin
                dd <= x[959:0];
            end else begin
                dv <= 1'b0;
            end
            // the MAC's stamp of the frame's last beat: the frame is offered (before
            // a one-beat frame ending in this cycle sets pend again, below)
            if (rx_done_valid && pend) begin
                q_start[qt[PW-1:0]] <= pend_start;
                q_len[qt[PW-1:0]]   <= pend_len;
                q_ts[qt[PW-1:0]]    <= rx_done_ts;
                qt   <= qt + 1'b1;
                pend <= 1'b0;
            end
            if (take) begin
                if (!in_frame) fstart <= wptr[RW-1:0] + RW'(dv);   // after the row waiting now
                flen     <= (in_frame ? flen : 16'd0) + 16'(cnt);
                in_frame <= !tlast;
                if (tot >= 8'(CH)) begin
                    acc   <= x >> 960;
                    acc_n <= tot - 8'(CH);
                end else begin
                    acc   <= x;
                    acc_n <= tot;
                end
                if (tlast) begin
                    pend       <= 1'b1;
                    pend_start <= in_frame ? fstart : wptr[RW-1:0] + RW'(dv);
                    pend_len   <= (in_frame ? flen : 16'd0) + 16'(cnt);
                end
            end
            if (pop) begin
                qh    <= qh + 1'b1;
                rfree <= rfree + h_rows;
            end
        end
    end
endmodule
