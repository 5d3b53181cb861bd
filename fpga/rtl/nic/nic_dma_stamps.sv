// One stamp FIFO of the DMA NIC (fpga/regmap/nic_dma.toml: RX_STAMP with
// RX_STAMP_DROP, TX_STAMP with TX_STAMP_DROP): DEPTH 64-bit stamps in block RAM. A push into a
// full FIFO loses the oldest stamp (the driver sees the gap in the sequence
// numbers); a pop answers the oldest one cycle later, or STAMP_EMPTY when
// there is none. Push and pop in the same cycle are both done (the pop
// answers the oldest stamp already stored; a stamp pushed in that cycle is
// not seen by it).
//
// The pointers count pushes and removals since reset in 16 bits, the width
// of a stamp's sequence number, and the i-th push carries sequence i: so the
// oldest stored stamp's sequence is rd itself, and a drop of the stamps
// before sequence drop_seq is one subtraction, whatever the FIFO holds. A
// stamp pushed in the drop's cycle is kept (as a pop does not see it).
module nic_dma_stamps #(
    parameter int DEPTH = 1024,        // a power of two, at most 2^15 (half the sequence space)
    localparam int AW = $clog2(DEPTH)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        push,
    input  logic [63:0] push_data,
    input  logic        pop,
    output logic [63:0] pop_data,    // valid the cycle after pop
    input  logic        drop,        // its STAMP_DROP (never with pop: one bus request a cycle)
    input  logic [15:0] drop_seq
);
    logic [63:0] mem [DEPTH];
    logic [15:0] wr, rd;               // pushes, removals since reset (mod 2^16)
    logic [63:0] rd_data;
    logic        was_empty;

    wire [15:0] count = wr - rd;
    wire        empty = count == '0;
    wire        full  = count == 16'(DEPTH);
    wire        take  = pop && !empty;
    // how many of the oldest stamps lie before drop_seq (at most all)
    wire [15:0] ahead = drop_seq - rd;
    wire [15:0] skip  = !drop || ahead[15] ? '0 : ahead < count ? ahead : count;

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
            // pop or a drop takes that stamp in the same cycle
            if (skip != '0) rd <= rd + skip;
            else if (take || (push && full)) rd <= rd + 1'b1;
            was_empty <= !take;
        end
    end

    assign pop_data = was_empty ? 64'(nic_dma_pkg::STAMP_EMPTY) : rd_data;
endmodule
