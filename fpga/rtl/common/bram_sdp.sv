// Simple dual-port block RAM: one write port with byte enables, one read
// port with one cycle of latency. Infers BRAM/URAM in Vivado and a $mem cell
// in yosys. Contents are not reset.
module bram_sdp #(
    parameter int WORDS = 1024,
    parameter int DW    = 64,
    localparam int AW   = $clog2(WORDS)
) (
    input  logic            clk,
    input  logic [DW/8-1:0] wr_be,
    input  logic [AW-1:0]   wr_addr,
    input  logic [DW-1:0]   wr_data,
    input  logic            rd_en,
    input  logic [AW-1:0]   rd_addr,
    output logic [DW-1:0]   rd_data
);
    logic [DW-1:0] mem [WORDS];

    always_ff @(posedge clk) begin
        for (int i = 0; i < DW / 8; i++)
            if (wr_be[i]) mem[wr_addr][8*i +: 8] <= wr_data[8*i +: 8];
    end

    always_ff @(posedge clk) begin
        if (rd_en) rd_data <= mem[rd_addr];
    end
endmodule
