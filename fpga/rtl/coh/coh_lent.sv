// Lent bits of a channel's data banks and their take-back (the multi-line
// Fig. 5 variant, Documentation/protocols.md "Data banks"): one bit per data
// line (index 2i + b: bank b line i), set when the line is granted to the
// CPU (any read of it: a load, a prefetch, a speculative read, an RLDX for a
// store), cleared when the CPU's copy is taken back (the LCI acknowledged),
// unless a read of the line was taken while its LCI was out (the CPU's
// request crossed it: the line is the CPU's again). After a reset every line
// counts as lent: the CPU may still hold lines from before it.
//
// While `active`, every lent line of bank `bank` not asked for yet is taken
// back, lowest first, all in flight at once (LCI, then UL after its LCIA);
// `lent_in_bank` says whether any line of the bank is still the CPU's. Shared
// by the RX banks (coh_banks: the device writes a bank, then answers) and the
// TX banks (coh_tx_banks: the device reads a bank the CPU wrote).
module coh_lent #(
    parameter int BL   = 75,             // data lines per bank
    localparam int NB  = 2 * BL,
    localparam int IW  = $clog2(NB)
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic          active,        // take bank `bank` back
    input  logic          bank,
    output logic          lent_in_bank,  // a line of `bank` is (still) the CPU's
    input  logic          rd,            // a read of line rd_idx taken (granted)
    input  logic [IW-1:0] rd_idx,
    input  logic          lci_ok,        // an LCI may go now (nothing it could overtake)
    output logic          lci_valid,
    output logic [IW-1:0] lci_idx,
    input  logic          lci_take,
    input  logic          lcia,
    input  logic [IW-1:0] lcia_idx,
    output logic          ul_valid,
    output logic [IW-1:0] ul_idx,
    input  logic          ul_take,
    output logic          busy,          // an LCI to send or in flight, a UL owed
    output logic          waits          // no LCI or UL to send: only LCIAs awaited
);
    logic [NB-1:0] lent, again, out, owe_ul;

    localparam logic [NB-1:0] BANK1 = {BL{2'b10}};   // the lines of bank 1 (odd indices)
    wire [NB-1:0] in_bank = bank ? BANK1 : ~BANK1;

    // the lowest lent line of the bank not yet asked for
    wire [NB-1:0] want = active ? lent & ~out & ~owe_ul & in_bank : '0;
    always_comb begin
        lci_valid = 1'b0;
        lci_idx   = '0;
        ul_valid  = 1'b0;
        ul_idx    = '0;
        // (the search only while there is something to find: a simulator
        // runs this block every cycle)
        if (want != '0 || owe_ul != '0) begin
            for (int i = NB - 1; i >= 0; i--) begin
                if (want[i]) begin
                    lci_valid = lci_ok;
                    lci_idx   = IW'(i);
                end
                if (owe_ul[i]) begin
                    ul_valid = 1'b1;
                    ul_idx   = IW'(i);
                end
            end
        end
    end

    assign lent_in_bank = (lent & in_bank) != '0;
    assign busy  = want != '0 || out != '0 || owe_ul != '0;
    assign waits = want == '0 && owe_ul == '0;

    wire [NB-1:0] rd_hot   = rd ? NB'(1) << rd_idx : '0;
    wire [NB-1:0] lci_hot  = lci_valid && lci_take ? NB'(1) << lci_idx : '0;
    wire [NB-1:0] lcia_hot = lcia ? NB'(1) << lcia_idx : '0;
    wire [NB-1:0] ul_hot   = ul_valid && ul_take ? NB'(1) << ul_idx : '0;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            lent   <= '1;
            again  <= '0;
            out    <= '0;
            owe_ul <= '0;
        end else begin
            lent   <= (lent & ~lcia_hot) | (again & lcia_hot) | rd_hot;
            again  <= (again | (rd_hot & out)) & ~lcia_hot;
            out    <= (out | lci_hot) & ~lcia_hot;
            owe_ul <= (owe_ul | lcia_hot) & ~ul_hot;
        end
    end
endmodule
