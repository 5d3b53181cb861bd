// Two-master arbiter for the mem bus (see axi4_to_mem.sv). Round robin per
// beat; read answers come back in order, so a FIFO of granted-read sources
// routes them. Master 0 wins ties after master 1 was served last.
module mem_arb #(
    parameter int AW    = 18,
    parameter int DEPTH = 8      // reads in flight (power of two)
) (
    input  logic          clk,
    input  logic          rst_n,

    input  logic [1:0]    s_valid,
    output logic [1:0]    s_ready,
    input  logic [1:0]    s_we,
    input  logic [2*AW-1:0] s_addr,    // {master 1, master 0}
    input  logic [127:0]  s_wdata,
    input  logic [15:0]   s_wstrb,
    output logic [1:0]    s_rvalid,
    output logic [63:0]   s_rdata,

    output logic          m_valid,
    input  logic          m_ready,
    output logic          m_we,
    output logic [AW-1:0] m_addr,
    output logic [63:0]   m_wdata,
    output logic [7:0]    m_wstrb,
    input  logic          m_rvalid,
    input  logic [63:0]   m_rdata
);
    localparam int PW = $clog2(DEPTH);
    logic            src [DEPTH];
    logic [PW:0]     wp, rp;
    wire             full = (wp - rp) == (PW + 1)'(DEPTH);
    logic            last;    // master served last
    logic            sel;

    assign sel = s_valid == 2'b11 ? !last : s_valid[1];

    // A read may only be granted with room in the source FIFO.
    wire go = s_valid[sel] && (s_we[sel] || !full);
    assign m_valid = go;
    assign m_we    = s_we[sel];
    assign m_addr  = sel ? s_addr[2*AW-1:AW] : s_addr[AW-1:0];
    assign m_wdata = sel ? s_wdata[127:64] : s_wdata[63:0];
    assign m_wstrb = sel ? s_wstrb[15:8] : s_wstrb[7:0];
    assign s_ready = (go && m_ready) ? (sel ? 2'b10 : 2'b01) : 2'b00;

    wire head = src[rp[PW-1:0]];
    assign s_rvalid = m_rvalid ? (head ? 2'b10 : 2'b01) : 2'b00;
    assign s_rdata  = m_rdata;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            wp   <= '0;
            rp   <= '0;
            last <= 1'b1;
        end else begin
            if (m_valid && m_ready) begin
                last <= sel;
                if (!m_we) begin
                    src[wp[PW-1:0]] <= sel;
                    wp <= wp + 1'b1;
                end
            end
            if (m_rvalid) rp <= rp + 1'b1;
        end
    end
endmodule
