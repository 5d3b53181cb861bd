// Free-running 64-bit cycle counter, cleared by reset.
module cycle_counter (
    input  logic        clk,
    input  logic        rst_n,
    output logic [63:0] count
);
    always_ff @(posedge clk) begin
        if (!rst_n) count <= '0;
        else        count <= count + 64'd1;
    end
endmodule
