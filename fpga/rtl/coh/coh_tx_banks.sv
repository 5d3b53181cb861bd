// Data banks of a CPU-initiated channel (Fig. 5a): the multi-line variant's
// request side (Documentation/protocols.md, "Data banks"; the ECI NIC's
// FEAT_TX_BANKS). A whole request of n bytes comes in one exchange on
// control line r: its word (chunk 0x7ff, len = n) and bytes 0..119 in r,
// byte 120 + j at byte j % 128 of bank-r data line j / 128, which the CPU
// stored before it wrote the word (bank b line i: index 2i + b here).
//
// The CPU reads (RLDX to store, or any read) data lines: answered from `mem`
// the next cycle, never held, the line lent (coh_lent). Its dirty lines come
// back as write-backs (an eviction, or the LCI of a take-back), merged into
// `mem` byte by byte. While `take` is high (from the signal until the
// request has been read) every lent line of bank `take_bank` is taken back,
// all in flight; `ready` says none is lent any more: every byte the CPU
// stored is in `mem`. The engine then reads the lines it needs (s_*, one
// cycle of latency).
module coh_tx_banks #(
    parameter int BL   = 75,             // data lines per bank
    localparam int NB  = 2 * BL,
    localparam int IW  = $clog2(NB)
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic          take,          // take bank take_bank back
    input  logic          take_bank,
    output logic          ready,         // no line of that bank lent
    // plain reads of data lines
    input  logic          rd,
    input  logic [IW-1:0] rd_idx,
    output logic [1023:0] rd_q,
    // write-backs of data lines
    input  logic          wr,
    input  logic [IW-1:0] wr_idx,
    input  logic [1023:0] wr_data,
    input  logic [127:0]  wr_be,
    // the engine's reads of a request's lines
    input  logic          s_re,
    input  logic [IW-1:0] s_idx,
    output logic [1023:0] s_q,
    // take-back of lent lines
    input  logic          lci_ok,
    output logic          lci_valid,
    output logic [IW-1:0] lci_idx,
    input  logic          lci_take,
    input  logic          lcia,
    input  logic [IW-1:0] lcia_idx,
    output logic          ul_valid,
    output logic [IW-1:0] ul_idx,
    input  logic          ul_take,
    output logic          busy,
    output logic          waits          // simulation only: only LCIAs awaited
);
    logic [1023:0] mem [NB];
    logic          lent_in_bank;

    coh_lent #(.BL(BL)) u_lent (
        .clk, .rst_n, .active(take), .bank(take_bank), .lent_in_bank, .rd, .rd_idx,
        .lci_ok, .lci_valid, .lci_idx, .lci_take, .lcia, .lcia_idx, .ul_valid, .ul_idx, .ul_take,
        .busy, .waits);
    assign ready = !lent_in_bank;

    always_ff @(posedge clk) begin
        if (rd) rd_q <= mem[rd_idx];
        if (s_re) s_q <= mem[s_idx];
        if (wr) begin   // the enabled bytes merged into the line
            logic [1023:0] m;
            m = mem[wr_idx];
            for (int b = 0; b < 128; b++)
                if (wr_be[b]) m[8*b +: 8] = wr_data[8*b +: 8];
            mem[wr_idx] <= m;
        end
    end
endmodule
