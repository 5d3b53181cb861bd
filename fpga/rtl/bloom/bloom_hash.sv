// Bloom-filter hash unit (paper Sec. 6.5): k = 8 shift-add-xor hashes over
// 128-byte elements, as defined in include/pioc/bloom_hash.hpp:
//     h_i = SEED_i;  for each byte b in order: h_i ^= (h_i << SHL_i) + (h_i >> SHR_i) + b
// Bytes at and past in_nbytes are hashed as zeros (a short last chunk).
//
// A pipeline of 128 / BPS identical stages, each folding BPS bytes into all 8
// hashes (BPS = 2: 64 stages, 64 cycles of latency, as in the paper). It
// accepts one element per cycle; fed from a 512-bit bus (two beats per
// element) it runs at the paper's initiation interval of 2. The whole
// pipeline stalls while the output is valid and not taken (global enable).
// TAG travels with the element.
//
// The stages' enable is "the pipeline moves and holds or takes an element"
// (run; n_q counts the elements inside), not only "the output is not
// stalled": with every stage under the same condition, the Verilated model
// tests an empty pipeline once per clock edge, not once per stage. Those 64
// tests, spread over the image's largest function, made the code run every
// cycle larger than a 32 KiB instruction cache: 36 misses per simulated
// cycle in rtl:xdma's DMA loop, 0.08 without them (issue 13,
// Documentation/benchmarking.md, session 15). An empty pipeline that does
// not move holds the same nothing, so the outputs are the same cycle for
// cycle.
module bloom_hash #(
    parameter int BPS = 2,
    parameter int TW  = 8
) (
    input  logic            clk,
    input  logic            rst_n,
    input  logic            in_valid,
    output logic            in_ready,
    input  logic [1023:0]   in_data,     // byte j at [8*j +: 8]
    input  logic [7:0]      in_nbytes,   // 1..128: bytes of in_data hashed as given
    input  logic [TW-1:0]   in_tag,
    output logic            out_valid,
    input  logic            out_ready,
    output logic [511:0]    out_hash,    // hash i at [64*i +: 64]
    output logic [TW-1:0]   out_tag,
    output logic            busy         // an element is inside (the stages are enabled)
);
    localparam int NS = 128 / BPS;
    localparam int NW = $clog2(NS + 1);

    localparam logic [511:0] SEEDS = {
        64'hf1bbcdcbfa53e0a8, 64'h538454127b096493, 64'hb54cda58fbbee87e, 64'h1715609f7c746c69,
        64'h78dde6e5fd29f054, 64'hdaa66d2c7ddf743f, 64'h3c6ef372fe94f82a, 64'h9e3779b97f4a7c15};

    // Chain s is the input of stage s and the output of stage s - 1 (the
    // valid bits unpacked: as one packed vector, the Verilated model built
    // all 65 bits from the stages' at every evaluation).
    logic                 v [NS+1];
    logic [NW-1:0]        n_q;      // elements in the stages (0..NS)
    logic [512*(NS+1)-1:0]  h;
    logic [1024*(NS+1)-1:0] d;
    logic [TW*(NS+1)-1:0]   t;

    wire adv = !(v[NS] && !out_ready);
    wire run = adv && (in_valid || busy);
    assign in_ready    = adv;
    assign v[0]        = in_valid;
    assign h[511:0]    = SEEDS;
    assign d[1023:0]   = in_data;
    assign t[TW-1:0]   = in_tag;

    // When the pipeline moves, an element enters with in_valid and the last
    // stage's (taken: run implies out_ready when it is valid) leaves.
    always_ff @(posedge clk) begin
        if (!rst_n)   n_q <= '0;
        else if (run) n_q <= n_q + {{(NW-1){1'b0}}, in_valid} - {{(NW-1){1'b0}}, v[NS]};
    end

    for (genvar s = 0; s < NS; s++) begin : g_stage
        bloom_stage #(.BPS(BPS), .TW(TW), .MASK(s == 0)) u_stage (
            .clk, .rst_n, .en(run), .in_nbytes, .in_v(v[s]),
            .in_h(h[512*s +: 512]), .in_d(d[1024*s +: 1024]), .in_t(t[TW*s +: TW]),
            .out_v(v[s+1]), .out_h(h[512*(s+1) +: 512]), .out_d(d[1024*(s+1) +: 1024]), .out_t(t[TW*(s+1) +: TW]));
    end

    assign busy      = n_q != '0;
    assign out_valid = v[NS];
    assign out_hash  = h[512*NS +: 512];
    assign out_tag   = t[TW*NS +: TW];

    wire unused = |d[1024*NS +: 1024];
endmodule

// One pipeline stage: folds bytes 0 .. BPS-1 of in_d into the 8 hashes and
// shifts them out of the data it passes on. The first stage (MASK) zeroes
// the bytes at and past in_nbytes first, only for an element it takes.
module bloom_stage #(
    parameter int BPS = 2,
    parameter int TW  = 8,
    parameter bit MASK = 1'b0
) (
    input  logic           clk,
    input  logic           rst_n,
    input  logic           en,
    input  logic [7:0]     in_nbytes,
    input  logic           in_v,
    input  logic [511:0]   in_h,
    input  logic [1023:0]  in_d,
    input  logic [TW-1:0]  in_t,
    output logic           out_v,
    output logic [511:0]   out_h,
    output logic [1023:0]  out_d,
    output logic [TW-1:0]  out_t
);
    // The k = 8 shift amounts of include/pioc/bloom_hash.hpp.
    function automatic int shl(input int i);
        case (i)
            0: shl = 5; 1: shl = 6; 2: shl = 7; 3: shl = 4;
            4: shl = 9; 5: shl = 3; 6: shl = 8; default: shl = 11;
        endcase
    endfunction
    function automatic int shr(input int i);
        case (i)
            0: shr = 2; 1: shr = 3; 2: shr = 1; 3: shr = 5;
            4: shr = 2; 5: shr = 7; 6: shr = 4; default: shr = 3;
        endcase
    endfunction
    // Folds bytes 0 .. BPS-1 of d into the 8 hashes.
    function automatic logic [511:0] fold(input logic [511:0] hin, input logic [1023:0] d);
        logic [63:0] a;
        for (int i = 0; i < 8; i++) begin
            a = hin[64*i +: 64];
            for (int j = 0; j < BPS; j++)
                a = a ^ ((a << shl(i)) + (a >> shr(i)) + {56'd0, d[8*j +: 8]});
            fold[64*i +: 64] = a;
        end
    endfunction
    // The element's bytes, those at and past in_nbytes zeroed (MASK) or as given.
    function automatic logic [1023:0] bytes_of(input logic [1023:0] x, input logic [7:0] nbytes);
        for (int j = 0; j < 128; j++)
            bytes_of[8*j +: 8] = !MASK || j < 32'(nbytes) ? x[8*j +: 8] : 8'h00;
    endfunction

    // Hashes, data and tag load only with a valid element, and the hashes are
    // computed only then: an empty stage holds still (in Verilator an idle
    // pipeline costs next to nothing, issue 13; in hardware it does not toggle).
    // (Written as one block, the valid bit first: the Verilated model then
    // puts all 64 stages under one test of en.)
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            out_v <= 1'b0;
        end else if (en) begin
            out_v <= in_v;
            if (in_v) begin
                out_h <= fold(in_h, bytes_of(in_d, in_nbytes));
                out_d <= bytes_of(in_d, in_nbytes) >> (8 * BPS);
                out_t <= in_t;
            end
        end
    end

    wire unused = |in_nbytes;
endmodule
