// PIO invoke unit: on a doorbell, reads the request (REQ window RAM) in
// 128-byte chunks, runs them through invoke_fn and writes the result into the
// RESP window RAM, then waits cfg_delay extra cycles and reports done.
//
// A start is taken only when idle, with len <= MAX_PAYLOAD and a known op;
// anything else (also len = 0) is dropped. Result length: len, or 64 * ceil(len / 128) for BLOOM.
// Throughput about 17 cycles per chunk (16 reads + hand-over); reading the
// next chunk overlaps with the function and the write-back of the previous.
module invoke_unit
(
    input  logic        clk,
    input  logic        rst_n,
    input  logic        start,
    input  logic [31:0] start_len,
    input  logic [7:0]  start_op,
    input  logic [31:0] cfg_delay,
    output logic        busy,
    output logic        done,        // one-cycle pulse
    output logic [31:0] done_len,    // valid with done
    // REQ RAM read port (one cycle latency)
    output logic        req_rd_en,
    output logic [9:0]  req_rd_addr,
    input  logic [63:0] req_rd_data,
    // RESP RAM write port
    output logic [7:0]  resp_we,
    output logic [9:0]  resp_addr,
    output logic [63:0] resp_wdata
);
    localparam int TW = 7;   // {last chunk, chunk index}

    logic [31:0] len;
    logic [7:0]  op;
    logic [6:0]  nchunks;    // 0..64
    logic [6:0]  rchunk;     // chunk being read
    logic [4:0]  rword;      // words requested of this chunk
    logic [4:0]  cword;      // words captured of this chunk
    logic        rcap;       // a read was issued last cycle
    logic [1023:0] buf_q;

    typedef enum logic [1:0] { R_IDLE, R_READ, R_PRESENT, R_WAIT } rstate_t;
    rstate_t rs;

    typedef enum logic [1:0] { W_IDLE, W_WRITE, W_DELAY } wstate_t;
    wstate_t ws;
    logic [31:0] delay_cnt;

    // ---- function unit
    logic          f_in_valid, f_in_ready, f_out_valid, f_out_ready;
    logic [7:0]    f_nbytes, f_out_nbytes;
    logic [1023:0] f_out_data;
    logic [TW-1:0] f_out_tag;
    wire  [31:0]   remaining = len - {18'd0, rchunk, 7'd0};
    assign f_nbytes   = remaining >= 32'd128 ? 8'd128 : remaining[7:0];
    assign f_in_valid = rs == R_PRESENT;

    invoke_fn #(.TW(TW)) u_fn (
        .clk, .rst_n,
        .in_valid(f_in_valid), .in_ready(f_in_ready), .in_op(op), .in_nbytes(f_nbytes),
        .in_data(buf_q), .in_tag({rchunk == nchunks - 7'd1, rchunk[5:0]}),
        .out_valid(f_out_valid), .out_ready(f_out_ready), .out_data(f_out_data),
        .out_nbytes(f_out_nbytes), .out_tag(f_out_tag));

    wire ok = start_len != 32'd0 && start_len <= 32'(pio_dev_pkg::MAX_PAYLOAD) && start_op <= 8'(pio_dev_pkg::OP_BLOOM);
    wire go = start && !busy && ok;
    wire [6:0] go_chunks = 7'((start_len + 32'd127) >> 7);

    // ---- reader
    assign req_rd_en   = rs == R_READ && rword != 5'd16;
    assign req_rd_addr = {rchunk[5:0], rword[3:0]};

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rs   <= R_IDLE;
            rcap <= 1'b0;
        end else begin
            rcap <= req_rd_en;
            if (rcap) begin
                buf_q[64*cword[3:0] +: 64] <= req_rd_data;
                cword <= cword + 5'd1;
            end
            case (rs)
                R_IDLE: if (go && go_chunks != 7'd0) begin
                    rs     <= R_READ;
                    rchunk <= '0;
                    rword  <= '0;
                    cword  <= '0;
                end
                R_READ: begin
                    if (rword != 5'd16) rword <= rword + 5'd1;
                    if (rcap && cword == 5'd15) rs <= R_PRESENT;
                end
                R_PRESENT: if (f_in_ready) begin
                    if (rchunk == nchunks - 7'd1) begin
                        rs <= R_WAIT;
                    end else begin
                        rs     <= R_READ;
                        rchunk <= rchunk + 7'd1;
                        rword  <= '0;
                        cword  <= '0;
                    end
                end
                R_WAIT: if (ws == W_DELAY) rs <= R_IDLE;
                default: rs <= R_IDLE;
            endcase
        end
    end

    // ---- writer
    logic [4:0] wword;
    wire        w_bloom = op == 8'(pio_dev_pkg::OP_BLOOM);
    wire [4:0]  nwords  = w_bloom ? 5'd8 : 5'((f_out_nbytes + 8'd7) >> 3);
    wire [7:0]  tailb   = f_out_nbytes - {wword[3:0], 3'd0};     // bytes left from this word
    assign f_out_ready = ws == W_WRITE && f_out_valid && wword == nwords - 5'd1;
    assign resp_we     = (ws == W_WRITE && f_out_valid)
                         ? (tailb >= 8'd8 ? 8'hff : 8'((9'd1 << tailb[3:0]) - 9'd1)) : 8'h00;
    assign resp_addr   = w_bloom ? {1'b0, f_out_tag[5:0], wword[2:0]} : {f_out_tag[5:0], wword[3:0]};
    assign resp_wdata  = f_out_data[64*wword[3:0] +: 64];

    always_ff @(posedge clk) begin
        done <= 1'b0;
        if (!rst_n) begin
            ws   <= W_IDLE;
            busy <= 1'b0;
        end else begin
            if (go) begin
                busy     <= 1'b1;
                len      <= start_len;
                op       <= start_op;
                nchunks  <= go_chunks;
                done_len <= start_op == 8'(pio_dev_pkg::OP_BLOOM) ? {19'd0, go_chunks, 6'd0} : start_len;
                wword    <= '0;
                if (go_chunks == 7'd0) begin
                    ws        <= W_DELAY;
                    delay_cnt <= cfg_delay;
                end else begin
                    ws <= W_WRITE;
                end
            end
            case (ws)
                W_WRITE: if (f_out_valid) begin
                    if (f_out_ready) begin
                        wword <= '0;
                        if (f_out_tag[6]) begin
                            ws        <= W_DELAY;
                            delay_cnt <= cfg_delay;
                        end
                    end else begin
                        wword <= wword + 5'd1;
                    end
                end
                W_DELAY: begin
                    if (delay_cnt == 32'd0) begin
                        ws   <= W_IDLE;
                        busy <= 1'b0;
                        done <= 1'b1;
                    end else begin
                        delay_cnt <= delay_cnt - 32'd1;
                    end
                end
                default: ;
            endcase
        end
    end
endmodule
