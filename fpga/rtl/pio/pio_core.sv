// The PIO device behind one mem bus (see common/axi4_to_mem.sv): address
// decode of fpga/regmap/pio_dev.toml into the control block, the REQ / RESP
// windows of the invoke unit and the block-RAM window. Reads answer one
// cycle after they are taken, except a held INVOKE_STATUS read; while it is
// held m_ready is low. REQ is write-only (reads return 0), RESP read-only
// (writes are ignored), unmapped space reads 0 and ignores writes.
//
// idle: nothing but the cycle counter changes at the next edge as long as
// the mem bus stays quiet (no invocation, delay, held read or read answer in
// flight). A simulator may then skip cycles and only advance the counter.
module pio_core
#(
    parameter int AW = 18
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic          m_valid,
    output logic          m_ready,
    input  logic          m_we,
    input  logic [AW-1:0] m_addr,
    input  logic [63:0]   m_wdata,
    input  logic [7:0]    m_wstrb,
    output logic          m_rvalid,
    output logic [63:0]   m_rdata,
    output logic [63:0]   cycles,
    output logic          idle
);
    localparam int REQ_W  = pio_dev_pkg::REQ_SIZE / 8;
    localparam int BRAM_W = pio_dev_pkg::BRAM_SIZE / 8;

    function automatic logic in_win(input logic [AW-1:0] a, input logic [31:0] off, input logic [31:0] size);
        in_win = 32'(a) >= off && 32'(a) < off + size;
    endfunction

    wire acc      = m_valid && m_ready;
    wire sel_reg  = 32'(m_addr) < pio_dev_pkg::REQ_OFF;
    wire sel_req  = in_win(m_addr, pio_dev_pkg::REQ_OFF, pio_dev_pkg::REQ_SIZE);
    wire sel_resp = in_win(m_addr, pio_dev_pkg::RESP_OFF, pio_dev_pkg::RESP_SIZE);
    wire sel_bram = in_win(m_addr, pio_dev_pkg::BRAM_OFF, pio_dev_pkg::BRAM_SIZE);

    cycle_counter u_cnt (.clk, .rst_n, .count(cycles));

    // ---- control block
    logic        reg_rvalid, hold, start, done, busy;
    logic [63:0] reg_rdata;
    logic [31:0] start_len, cfg_delay, done_len;
    logic [7:0]  start_op;
    pio_regs u_regs (
        .clk, .rst_n,
        .req(acc && sel_reg), .we(m_we), .addr(m_addr[12:2]), .wdata(m_wdata), .wstrb(m_wstrb),
        .rvalid(reg_rvalid), .rdata(reg_rdata), .hold, .cycles,
        .start, .start_len, .start_op, .cfg_delay, .busy, .done, .done_len);
    assign m_ready = !hold;

    // ---- invoke unit with its two windows
    logic        req_rd_en;
    logic [9:0]  req_rd_addr, resp_addr;
    logic [63:0] req_rd_data, resp_wdata, resp_rdata;
    logic [7:0]  resp_we;

    bram_sdp #(.WORDS(REQ_W)) u_req (
        .clk,
        .wr_be(acc && m_we && sel_req ? m_wstrb : 8'h00), .wr_addr(m_addr[12:3]), .wr_data(m_wdata),
        .rd_en(req_rd_en), .rd_addr(req_rd_addr), .rd_data(req_rd_data));

    bram_sdp #(.WORDS(REQ_W)) u_resp (
        .clk,
        .wr_be(resp_we), .wr_addr(resp_addr), .wr_data(resp_wdata),
        .rd_en(acc && !m_we && sel_resp), .rd_addr(m_addr[12:3]), .rd_data(resp_rdata));

    invoke_unit u_inv (
        .clk, .rst_n, .start, .start_len, .start_op, .cfg_delay, .busy, .done, .done_len,
        .req_rd_en, .req_rd_addr, .req_rd_data, .resp_we, .resp_addr, .resp_wdata);

    // ---- block-RAM window
    logic [63:0] bram_rdata;
    bram_sdp #(.WORDS(BRAM_W)) u_bram (
        .clk,
        .wr_be(acc && m_we && sel_bram ? m_wstrb : 8'h00), .wr_addr(m_addr[$clog2(BRAM_W)+2:3]),
        .wr_data(m_wdata),
        .rd_en(acc && !m_we && sel_bram), .rd_addr(m_addr[$clog2(BRAM_W)+2:3]), .rd_data(bram_rdata));

    assign idle = !busy && !start && !done && !hold && !reg_rvalid && !rd_q;

    // ---- read answers of the one-cycle targets
    typedef enum logic [1:0] { T_NONE, T_RESP, T_BRAM } tgt_t;
    logic rd_q;
    tgt_t tgt_q;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rd_q <= 1'b0;
        end else begin
            rd_q  <= acc && !m_we && !sel_reg;
            tgt_q <= sel_resp ? T_RESP : sel_bram ? T_BRAM : T_NONE;
        end
    end

    assign m_rvalid = rd_q || reg_rvalid;
    always_comb begin
        if (reg_rvalid)          m_rdata = reg_rdata;
        else if (tgt_q == T_RESP) m_rdata = resp_rdata;
        else if (tgt_q == T_BRAM) m_rdata = bram_rdata;
        else                      m_rdata = '0;
    end

endmodule
