// Data banks of the coherent engine's device-initiated channel: the
// multi-line Fig. 5b variant (Documentation/protocols.md, "Data banks"; the
// ECI NIC's FEAT_RX_BANKS). A message goes out whole in one exchange on
// control line x: the control line carries the word and message bytes
// 0..119, message byte 120 + j sits at byte j % 128 of bank-x data line
// j / 128. Bank b line i is window line 2 + 2i + b of the channel; here it is
// index 2i + b of `mem` (and of every per-line bit vector).
//
// Delivery (start .. done): the head message's 120-byte chunks are read from
// the producer one a cycle (chunk / c_*: the RX bridge's row RAM, one cycle
// of read latency), chunk 0 kept as the control line, the others packed into
// 128-byte bank lines and written, one a cycle. Meanwhile, if the message
// has bytes past the control line's, every lent line of the bank is taken
// back (LCI, all in flight, then UL). `ready` says the
// message is in the bank and no line of the bank is lent: no CPU copy of a
// bank line can be older than the data the answer announces, also when a
// speculative read raced with the delivery (it sets the line's lent bit
// again, and that line is taken back once more before `ready`).
//
// Lent bits (coh_lent): set on every read of a data line (answered from
// `mem` the next cycle, never held), cleared by the LCI's acknowledgement,
// unless a read crossed the LCI; after a reset every line counts as lent.
module coh_banks #(
    parameter int BL   = 75,             // data lines per bank
    localparam int NB  = 2 * BL,
    localparam int IW  = $clog2(NB)
) (
    input  logic          clk,
    input  logic          rst_n,
    // a delivery of the producer's head message into bank start_bank
    input  logic          start,
    input  logic          start_bank,
    output logic          active,        // under way, or waiting for its answer to leave
    output logic          bank,          // the bank it fills
    output logic          ready,         // in the bank, and no line of the bank lent
    input  logic          done,          // the answer left (the producer pops the message)
    output logic [959:0]  ctl,           // message bytes 0..119
    output logic [15:0]   total,         // message bytes
    // the producer's message rows: 120-byte chunks, the read of `chunk` seen next cycle
    output logic [10:0]   chunk,
    input  logic          c_last,        // `chunk` is the head message's final one
    input  logic          c_valid,       // c_data is chunk c_k of the head message
    input  logic [10:0]   c_k,
    input  logic [959:0]  c_data,
    input  logic [15:0]   c_total,
    // plain reads of data lines
    input  logic          rd,
    input  logic [IW-1:0] rd_idx,
    output logic [1023:0] rd_q,
    // take-back of lent lines
    input  logic          lci_ok,        // no data line's answer on its way out (nor a read taken now), no UL
    output logic          lci_valid,
    output logic [IW-1:0] lci_idx,
    input  logic          lci_take,
    input  logic          lcia,
    input  logic [IW-1:0] lcia_idx,
    output logic          ul_valid,
    output logic [IW-1:0] ul_idx,
    input  logic          ul_take,
    output logic          busy,
    // simulation only (the engine's quiet): no copy under way, no LCI or UL
    // to issue; what it does next waits for an input (an LCIA, a read, done)
    output logic          waits
);
    localparam logic [1:0] D_IDLE = 2'd0, D_COPY = 2'd1, D_FLUSH = 2'd2, D_DONE = 2'd3;

    logic [1023:0] mem [NB];
    logic [1:0]    st;
    logic [10:0]   k, e;                 // chunk read, chunk expected next
    logic [1015:0] acc;                  // bank bytes not written yet (fewer than 128)
    logic [6:0]    acc_n;
    logic [IW:0]   row;                  // next bank line written (index, steps of 2)
    logic          lent_in_bank, lent_busy, lent_waits;

    // ---- lent bits and the take-back of the bank being filled. Only for a
    // message with bytes in the bank: one that fits the control line leaves
    // the bank's lines with the CPU (their lent bits stay set, and the next
    // message with bank bytes takes them back).
    wire          uses_bank = total > 16'd120;
    coh_lent #(.BL(BL)) u_lent (
        .clk, .rst_n, .active(st != D_IDLE && uses_bank), .bank, .lent_in_bank, .rd, .rd_idx,
        .lci_ok, .lci_valid, .lci_idx, .lci_take, .lcia, .lcia_idx, .ul_valid, .ul_idx, .ul_take,
        .busy(lent_busy), .waits(lent_waits));

    assign active = st != D_IDLE;
    assign ready  = st == D_DONE && (!uses_bank || !lent_in_bank);
    assign chunk  = k;
    assign busy   = st != D_IDLE || lent_busy;
    assign waits  = (st == D_IDLE || st == D_DONE) && lent_waits;

    // ---- packing: chunk e (1..) appended to the bank's byte stream. The
    // shifts are in the clocked block, evaluated only for a chunk (as wires
    // a simulator computed them whenever the producer's row changed, every
    // cycle: rtl:nic_eci ran at half its speed).
    wire           consume = st == D_COPY && c_valid && c_k == e;
    wire           fin     = consume && e == k && c_last;
    wire [7:0]     cat_n   = 8'(acc_n) + 8'd120;
    wire           full    = consume && e != 11'd0 && cat_n >= 8'd128;
    wire           room    = row < (IW + 1)'(NB);
    always_ff @(posedge clk) begin
        if (rd) rd_q <= mem[rd_idx];
        if (st == D_IDLE && start) begin
            acc_n <= '0;
            row   <= (IW + 1)'(start_bank);
        end else if (st == D_FLUSH) begin   // the message's last, partial bank line
            if (room) mem[row[IW-1:0]] <= {8'd0, acc};
        end else if (consume && e != 11'd0) begin
            logic [1015:0] acc_m;
            /* verilator lint_off UNUSEDSIGNAL */   // its top byte: never reached (at most 247 bytes)
            logic [2047:0] cat;
            /* verilator lint_on UNUSEDSIGNAL */
            // only acc's first acc_n bytes are the stream's (the rest: an earlier message's)
            acc_m = acc & ~({1016{1'b1}} << {acc_n, 3'b000});
            cat   = {1032'd0, acc_m} | ({1088'd0, c_data} << {acc_n, 3'b000});
            if (full) begin
                if (room) mem[row[IW-1:0]] <= cat[1023:0];
                acc   <= cat[2039:1024];
                acc_n <= 7'(cat_n - 8'd128);
                row   <= row + (IW + 1)'(2);
            end else begin
                acc   <= cat[1015:0];
                acc_n <= 7'(cat_n);
            end
        end
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            st     <= D_IDLE;
            k      <= '0;
            e      <= '0;
        end else begin
            case (st)
                D_IDLE:
                    if (start) begin
                        st    <= D_COPY;
                        bank  <= start_bank;
                        total <= c_total;
                        e     <= '0;
                        k     <= c_last ? 11'd0 : 11'd1;   // one read ahead: a chunk a cycle
                    end
                D_COPY: begin
                    if (consume) begin
                        e <= e + 11'd1;
                        if (!c_last) k <= k + 11'd1;
                        if (e == 11'd0) ctl <= c_data;
                        if (fin)
                            st <= e != 11'd0 && 7'(cat_n) != 7'd0 ? D_FLUSH : D_DONE;
                    end else begin
                        k <= e;   // a chunk missed: read it again
                    end
                end
                D_FLUSH: st <= D_DONE;
                default:
                    if (done) begin
                        st <= D_IDLE;
                        k  <= '0;
                    end
            endcase
        end
    end

endmodule
