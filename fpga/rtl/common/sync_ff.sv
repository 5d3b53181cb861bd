// Two-flop synchroniser for single-bit level signals crossing clock domains.
module sync_ff #(
    parameter int STAGES = 2
) (
    input  logic clk,
    input  logic d,
    output logic q
);
    (* ASYNC_REG = "TRUE" *) logic [STAGES-1:0] s;
    always_ff @(posedge clk) s <= {s[STAGES-2:0], d};
    assign q = s[STAGES-1];
endmodule
