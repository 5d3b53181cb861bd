// Stand-in for a 100 Gb/s Ethernet MAC in near-end loopback (issue 15).
//
// Every NIC image (PIO, DMA, ECI) puts its TX stream into s_* and takes its
// RX stream from m_*: 512-bit AXI-Stream at the 250 MHz core clock. The MAC
// stores a whole frame, then "sends" it: the line is busy for
// max(len, MIN_FRAME) + 4 FCS + 8 preamble + 12 IFG bytes at 12.5 GB/s, i.e.
// LINE_BYTES_PER_CYCLE = 50 bytes per core cycle, and a frame that left the
// line is looped back to m_*. Frames below MIN_FRAME or above MTU are counted
// and dropped, never delivered.
//
// Latency is measured as the paper defines it (Sec. 6.3): TX latency ends
// when the last beat of a frame reaches the MAC (tx_done_* strobe, stamped
// with `now`), RX latency starts when the MAC hands the last beat of a frame
// to the NIC (rx_done_* strobe). `now` is the NIC's free-running cycle
// counter, which the host can read in every NIC's register map.
//
// The line model is exact in byte-times: a frame visible to the line at cycle
// v starts at max(v * 50, end of the previous frame) byte-times and its first
// beat is offered on m_* at ceil(end / 50). lib/sim/nic/mac_model.cpp charges
// the same formula; the testbench checks the RTL against it.
module mac_loopback #(
    parameter int FIFO_BEATS = 256,          // 16 KiB: one MTU frame always fits
    parameter int PKTS = 16,                 // frames stored at once
    parameter int MTU = 9600,
    parameter int MIN_FRAME = 60,
    parameter int LINE_BYTES_PER_CYCLE = 50, // 12.5 GB/s at 250 MHz
    parameter int WIRE_OVERHEAD = 24         // FCS 4 + preamble 8 + IFG 12
) (
    input  logic         clk,
    input  logic         rst_n,
    input  logic [63:0]  now,
    // from the NIC's TX path
    input  logic [511:0] s_tdata,
    input  logic [63:0]  s_tkeep,
    input  logic         s_tlast,
    input  logic         s_tvalid,
    output logic         s_tready,
    // to the NIC's RX path
    output logic [511:0] m_tdata,
    output logic [63:0]  m_tkeep,
    output logic         m_tlast,
    output logic         m_tvalid,
    input  logic         m_tready,
    // one strobe per frame that reached the MAC (err: runt/oversize, dropped)
    output logic         tx_done_valid,
    output logic [63:0]  tx_done_ts,
    output logic [15:0]  tx_done_len,
    output logic         tx_done_err,
    // one strobe per frame handed to the NIC (the cycle of its last beat)
    output logic         rx_done_valid,
    output logic [63:0]  rx_done_ts,
    // error counters (the NIC maps them into its registers)
    output logic [31:0]  runt_count,
    output logic [31:0]  oversize_count
);
    localparam int AW = $clog2(FIFO_BEATS);
    localparam int PW = $clog2(PKTS);

    // ---- beat store: write side fills from s_*, read side drains to m_*
    logic [511:0] mem_data [FIFO_BEATS];
    logic [63:0]  mem_keep [FIFO_BEATS];
    logic [AW:0]  wr, wr_commit, rd;        // one extra bit: full vs empty
    logic [AW:0]  used;
    assign used = wr - rd;

    // ---- frame queue: written at commit, line pointer, read pointer
    logic [15:0]  pkt_len  [PKTS];
    logic [AW:0]  pkt_last [PKTS];          // beat index of the frame's tlast
    logic [PW:0]  pw, pl, pr;               // write, on-the-line, read

    // ---- write side
    logic [15:0]  len;                      // bytes of the frame so far
    logic         dropping;                 // frame exceeded the MTU
    logic [15:0]  len_next;
    logic         pq_full;
    assign len_next = len + 16'($countones(s_tkeep));
    assign pq_full  = (pw - pr) == (PW + 1)'(PKTS);
    assign s_tready = rst_n && !pq_full && (used != (AW + 1)'(FIFO_BEATS));

    always_ff @(posedge clk) begin
        tx_done_valid <= 1'b0;
        if (!rst_n) begin
            wr <= '0; wr_commit <= '0; pw <= '0;
            len <= '0; dropping <= 1'b0;
            runt_count <= '0; oversize_count <= '0;
            tx_done_ts <= '0; tx_done_len <= '0; tx_done_err <= 1'b0;
        end else if (s_tvalid && s_tready) begin
            if (!dropping && len_next <= 16'(MTU)) begin
                mem_data[wr[AW-1:0]] <= s_tdata;
                mem_keep[wr[AW-1:0]] <= s_tkeep;
            end
            if (s_tlast) begin
                tx_done_valid <= 1'b1;
                tx_done_ts    <= now;
                tx_done_len   <= len_next;
                len           <= '0;
                dropping      <= 1'b0;
                if (dropping || len_next > 16'(MTU)) begin
                    oversize_count <= oversize_count + 1;
                    tx_done_err    <= 1'b1;
                    wr             <= wr_commit;
                end else if (len_next < 16'(MIN_FRAME)) begin
                    runt_count  <= runt_count + 1;
                    tx_done_err <= 1'b1;
                    wr          <= wr_commit;
                end else begin
                    tx_done_err            <= 1'b0;
                    pkt_len[pw[PW-1:0]]    <= len_next;
                    pkt_last[pw[PW-1:0]]   <= wr;
                    pw                     <= pw + 1;
                    wr                     <= wr + 1;
                    wr_commit              <= wr + 1;
                end
            end else if (dropping || len_next > 16'(MTU)) begin
                dropping <= 1'b1;           // keep accepting, store nothing
                len      <= len_next;
            end else begin
                wr  <= wr + 1;
                len <= len_next;
            end
        end
    end

    // ---- the line: serialise frame pl at LINE_BYTES_PER_CYCLE, carrying the
    // budget left over in a cycle into the next frame if it is already there
    logic        busy;
    logic [15:0] remaining;                 // wire bytes of frame pl still to send
    function automatic logic [15:0] wire_bytes(input logic [15:0] l);
        wire_bytes = (l < 16'(MIN_FRAME) ? 16'(MIN_FRAME) : l) + 16'(WIRE_OVERHEAD);
    endfunction
    logic [15:0] budget_left;
    logic [PW:0] pl_next;
    assign budget_left = 16'(LINE_BYTES_PER_CYCLE) - remaining;
    assign pl_next = pl + 1;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            busy <= 1'b0; remaining <= '0; pl <= '0;
        end else if (busy) begin
            if (remaining > 16'(LINE_BYTES_PER_CYCLE)) begin
                remaining <= remaining - 16'(LINE_BYTES_PER_CYCLE);
            end else begin
                pl <= pl_next;
                if (pl_next != pw) begin
                    // wire bytes >= 84 > 50: the next frame never ends this cycle
                    remaining <= wire_bytes(pkt_len[pl_next[PW-1:0]]) - budget_left;
                end else begin
                    busy <= 1'b0;
                end
            end
        end else if (pl != pw) begin
            busy      <= 1'b1;
            remaining <= wire_bytes(pkt_len[pl[PW-1:0]]) - 16'(LINE_BYTES_PER_CYCLE);
        end
    end

    // ---- read side: frames that left the line go to m_*, one beat a cycle
    logic [AW:0] last_beat;
    assign last_beat = pkt_last[pr[PW-1:0]];
    assign m_tvalid  = rst_n && (pr != pl);
    assign m_tdata   = mem_data[rd[AW-1:0]];
    assign m_tkeep   = mem_keep[rd[AW-1:0]];
    assign m_tlast   = rd == last_beat;

    always_ff @(posedge clk) begin
        rx_done_valid <= 1'b0;
        if (!rst_n) begin
            rd <= '0; pr <= '0; rx_done_ts <= '0;
        end else if (m_tvalid && m_tready) begin
            rd <= rd + 1;
            if (m_tlast) begin
                pr            <= pr + 1;
                rx_done_valid <= 1'b1;
                rx_done_ts    <= now;
            end
        end
    end
endmodule
