// TX bridge of the ECI NIC: a Fig. 5a request (the frame) to the MAC's TX
// stream, its answer the MAC's TX stamp.
//
// The coherent engine (EXT_FN) hands the request's rows out as they reach
// its function unit: up to 128 bytes each, x_in_last on the final row. Each
// row leaves as one or two 64-byte beats, one beat a cycle, tlast on the
// final row's last beat. The MAC strobes tx_done the cycle after it took
// that beat; that strobe is the result: TX_RESP bytes, the stamp (the cycle
// the MAC took the last beat; TX_DROPPED set if the MAC dropped the frame),
// so the answer never carries the stamp of a beat still to come. One frame
// at a time: the next request's rows wait until the answer went back.
module nic_eci_tx #(
    parameter int TW = 3
) (
    input  logic          clk,
    input  logic          rst_n,
    // from the engine's function port
    input  logic          x_in_valid,
    output logic          x_in_ready,
    input  logic [1023:0] x_in_data,
    input  logic [7:0]    x_in_nbytes,
    input  logic          x_in_last,
    input  logic [TW-1:0] x_in_tag,
    output logic          x_out_valid,
    output logic [1023:0] x_out_data,
    output logic [7:0]    x_out_nbytes,
    output logic [TW-1:0] x_out_tag,
    // MAC TX stream and its per-frame strobe
    output logic [511:0]  tdata,
    output logic [63:0]   tkeep,
    output logic          tlast,
    output logic          tvalid,
    input  logic          tready,
    input  logic          tx_done_valid,
    input  logic [63:0]   tx_done_ts,
    input  logic          tx_done_err,
    output logic          busy
);
    logic [1023:0] r_data;
    logic [7:0]    r_nb;
    logic          r_have, r_last, r_half, waiting;
    logic [TW-1:0] r_tag;

    function automatic logic [63:0] keep_of(input logic [7:0] n);
        keep_of = n >= 8'd64 ? '1 : (64'd1 << n) - 64'd1;
    endfunction

    wire two      = r_nb > 8'd64;
    wire row_end  = r_half || !two;              // this beat ends the row
    wire beat     = tvalid && tready;
    assign tvalid = r_have;
    assign tdata  = r_half ? r_data[1023:512] : r_data[511:0];
    assign tkeep  = keep_of(r_half ? r_nb - 8'd64 : r_nb);
    assign tlast  = r_last && row_end;
    assign x_in_ready = rst_n && !waiting && (!r_have || (beat && row_end && !r_last));
    wire take = x_in_valid && x_in_ready;

    assign x_out_valid  = waiting && tx_done_valid;
    assign x_out_data   = {960'd0, tx_done_ts | (tx_done_err ? 64'(nic_eci_pkg::TX_DROPPED) : 64'd0)};
    assign x_out_nbytes = 8'(nic_eci_pkg::TX_RESP);
    assign x_out_tag    = r_tag;
    assign busy = r_have || waiting;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            r_have <= 1'b0; r_half <= 1'b0; waiting <= 1'b0;
        end else begin
            if (beat) begin
                r_half <= !row_end;
                if (row_end) r_have <= 1'b0;
                if (tlast) waiting <= 1'b1;
            end
            if (take) begin
                r_data <= x_in_data;
                r_nb   <= x_in_nbytes;
                r_last <= x_in_last;
                r_tag  <= x_in_tag;
                r_have <= 1'b1;
                r_half <= 1'b0;
            end
            if (x_out_valid) waiting <= 1'b0;
        end
    end
endmodule
