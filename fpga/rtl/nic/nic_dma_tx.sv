// TX path of the DMA NIC: XDMA's H2C0 AXI4-Stream -> one register stage ->
// the MAC's TX stream, and the TX stamps.
//
// Beats pass cut-through, one per cycle, a frame's first beat on the MAC
// stream one cycle after H2C0 offered it. A frame with a partial beat
// (tkeep not all ones) before its last is malformed (PG195: an H2C
// descriptor without EOP whose length is not a multiple of the beat); its
// first beats are already in the MAC, which has no abort input, so the frame
// is made one the MAC drops: its last beat goes out without tlast, followed by
// full pad beats until the MAC has counted more than MTU bytes, the last of
// them with tlast. H2C0 waits meanwhile. The MAC counts that frame as
// oversize; the NIC counts it as MALFORMED and reports OVERSIZE without it.
//
// Stamps (nic_dma.toml): one per frame, in order, pushed when the MAC's
// tx_done strobe for it arrives (the cycle after the MAC took its last beat):
// the frame's 16-bit sequence number, the error bit (runt or oversize at the
// MAC, or malformed) and the cycle of its last beat at the MAC, or, for a
// malformed frame, the cycle its last beat left H2C0.
module nic_dma_tx (
    input  logic         clk,
    input  logic         rst_n,
    input  logic [63:0]  now,
    // from XDMA H2C0
    input  logic [511:0] s_tdata,
    input  logic [63:0]  s_tkeep,
    input  logic         s_tlast,
    input  logic         s_tvalid,
    output logic         s_tready,
    // to the MAC
    output logic [511:0] m_tdata,
    output logic [63:0]  m_tkeep,
    output logic         m_tlast,
    output logic         m_tvalid,
    input  logic         m_tready,
    input  logic         tx_done_valid,
    input  logic [63:0]  tx_done_ts,
    input  logic         tx_done_err,
    // stamps and counters
    output logic         stamp_valid,
    output logic [63:0]  stamp,
    output logic [31:0]  malformed,
    output logic         busy            // a frame is between H2C0 and the MAC's tx_done
);
    localparam logic [15:0] MTU = 16'(nic_dma_pkg::MTU);

    logic        o_pad;                  // the output beat belongs to a malformed frame
    logic        padding;                // sending pad beats, H2C0 held
    logic        bad;                    // the frame from H2C0 had a partial beat
    logic [15:0] out_len;                // bytes of the frame given to the MAC (saturating)
    logic [46:0] bad_ts;                 // cycle the malformed frame's last beat left H2C0
    logic        pad_done;               // the next tx_done is a malformed frame's
    logic [15:0] seq;

    wire out_fire = m_tvalid && m_tready;
    wire load     = !m_tvalid || m_tready;            // the output register is free next
    assign s_tready = rst_n && !padding && load;
    wire in_fire  = s_tvalid && s_tready;
    wire partial  = s_tkeep != '1;
    wire bad_now  = bad || (partial && !s_tlast);

    function automatic logic [15:0] add_sat(input logic [15:0] a, input logic [63:0] keep);
        logic [16:0] s;
        s = 17'(a) + 17'($countones(keep));
        add_sat = s[16] ? 16'hffff : s[15:0];
    endfunction
    // bytes the MAC will have counted after the beat in the output register,
    // and whether a pad beat sent next takes it past the MTU
    wire [15:0] len_after = add_sat(out_len, m_tkeep);
    wire [15:0] len_base  = out_fire ? len_after : out_len;
    wire        pad_last  = 17'(len_base) + 17'd64 > 17'(MTU);

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            m_tvalid <= 1'b0;
            padding  <= 1'b0;
            bad      <= 1'b0;
            out_len  <= '0;
            o_pad    <= 1'b0;
        end else begin
            if (out_fire) out_len <= m_tlast ? 16'd0 : len_after;
            if (in_fire) begin
                m_tvalid <= 1'b1;
                m_tdata  <= s_tdata;
                m_tkeep  <= s_tkeep;
                m_tlast  <= s_tlast && !bad_now;
                o_pad    <= bad_now;
                bad      <= bad_now && !s_tlast;
                if (s_tlast && bad_now) begin
                    padding <= 1'b1;
                    bad_ts  <= now[46:0];
                end
            end else if (padding && load) begin
                // pad beats: full, the last one once the MAC has more than MTU bytes
                m_tvalid <= 1'b1;
                m_tkeep  <= '1;
                m_tlast  <= pad_last;
                o_pad    <= 1'b1;
                if (pad_last) padding <= 1'b0;
            end else if (out_fire) begin
                m_tvalid <= 1'b0;
            end
        end
    end

    // ---- stamps: the MAC's tx_done follows the tlast it took by one cycle
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            pad_done    <= 1'b0;
            stamp_valid <= 1'b0;
            seq         <= '0;
            malformed   <= '0;
        end else begin
            pad_done <= out_fire && m_tlast && o_pad;
            // counted in the cycle the MAC counts it as oversize, so that
            // OVERSIZE (the MAC's count minus this) never shows it
            if (out_fire && m_tlast && o_pad) malformed <= malformed + 32'd1;
            stamp_valid <= tx_done_valid;
            if (tx_done_valid) begin
                seq   <= seq + 16'd1;
                stamp <= {seq, pad_done || tx_done_err,
                          pad_done ? bad_ts : tx_done_ts[46:0]};
            end
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ts = ^{tx_done_ts[63:47], now[63:47]};   // a stamp keeps 47 bits of the cycle
    /* verilator lint_on UNUSEDSIGNAL */

    assign busy = m_tvalid || padding || bad || pad_done;
endmodule
