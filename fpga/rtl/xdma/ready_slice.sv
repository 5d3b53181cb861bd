// One-entry register slice of a valid/ready channel whose s_ready comes from
// a flip-flop: the sender sees a ready that does not depend on anything it
// drives in the same cycle (as Vivado's AXI register slice, "light" mode,
// gives the XDMA IP's M_AXI).
//
// Empty: the beat passes straight through (m_valid = s_valid, m_data =
// s_data); a beat the receiver does not take is kept, s_ready drops for the
// cycles until the receiver takes it, and the next beat passes through
// again. The receiver sees every beat in the same cycle as it would without
// the slice when the sender holds valid as AXI requires; only the sender's
// handshake can come earlier.
module ready_slice #(
    parameter int W = 8
) (
    input  logic         clk,
    input  logic         rst_n,
    input  logic         s_valid,
    output logic         s_ready,
    input  logic [W-1:0] s_data,
    output logic         m_valid,
    input  logic         m_ready,
    output logic [W-1:0] m_data,
    output logic         full      // a beat is held (s_ready low)
);
    logic [W-1:0] held;

    assign s_ready = !full;
    assign m_valid = full || s_valid;
    assign m_data  = full ? held : s_data;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            full <= 1'b0;
        end else if (full) begin
            if (m_ready) full <= 1'b0;
        end else if (s_valid && !m_ready) begin
            full <= 1'b1;
            held <= s_data;
        end
    end
endmodule
