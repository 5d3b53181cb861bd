// One stamp FIFO of the DMA NIC (fpga/regmap/nic_dma.toml: RX_STAMP,
// TX_STAMP): DEPTH 64-bit stamps in block RAM. A push into a full FIFO loses
// the oldest stamp (the driver sees the gap in the sequence numbers); a pop
// answers the oldest one cycle later, or STAMP_EMPTY when there is none.
// Push and pop in the same cycle are both done (the pop answers the oldest
// stamp already stored; a stamp pushed in that cycle is not seen by it).
module nic_dma_stamps #(
    parameter int DEPTH = 1024,
    localparam int AW = $clog2(DEPTH)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        push,
    input  logic [63:0] push_data,
    input  logic        pop,
    output logic [63:0] pop_data     // valid the cycle after pop
);
    logic [63:0] mem [DEPTH];
    logic [AW:0] wr, rd;               // one extra bit: full vs empty
    logic [63:0] rd_data;
    logic        was_empty;

    wire empty = wr == rd;
    wire full  = (wr - rd) == (AW + 1)'(DEPTH);
    wire take  = pop && !empty;

    always_ff @(posedge clk) begin
        if (push) mem[wr[AW-1:0]] <= push_data;
        rd_data <= mem[rd[AW-1:0]];
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            wr <= '0;
            rd <= '0;
            was_empty <= 1'b1;
        end else begin
            if (push) wr <= wr + 1'b1;
            // a full FIFO drops its oldest stamp for the new one, unless a
            // pop takes that stamp in the same cycle
            if (take || (push && full)) rd <= rd + 1'b1;
            was_empty <= !take;
        end
    end

    assign pop_data = was_empty ? 64'(nic_dma_pkg::STAMP_EMPTY) : rd_data;
endmodule
