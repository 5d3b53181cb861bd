// The PCIe PIO NIC (the paper's Fig. 8(b)) behind one mem bus (see
// common/axi4_to_mem.sv), exactly the map of fpga/regmap/nic_pio.toml: the
// registers, the RX and TX descriptor rings and the two packet buffers, all
// in device memory the host reads and writes over the BAR. The MAC stream
// ports go to the MAC (mac_loopback.sv in near-end loopback).
//
// Bus rules, as the behavioural model (lib/sim/nic/pio_nic_model.cpp) has
// them: a register takes a write only as a whole 32-bit half (strobes 0x0f
// or 0xf0); a ring size only if it is a power of two in 2..nic_pio_pkg::MAX_RING and the
// NIC is idle; RX_TAIL only up to RX_HEAD; TX_HEAD only if the ring does not
// overrun. Everything else a write touches outside TX_DESC and TX_BUF is
// ignored. Reads answer one cycle after they are taken; holes read all ones.
// A TX_BUF read is held (m_ready low) while the TX engine streams, because
// both use the buffer's read port.
//
// RX interrupt: RX_IRQ_ARM bit 0 is one-shot. A frame landing while it is
// set clears it and pulses rx_irq for one cycle, the cycle RX_HEAD shows the
// frame (the image's MSI-X vector RX_IRQ_VECTOR); an arm write in that same
// cycle wins, so a driver re-arming then stays armed. A frame that landed
// before the arm raises nothing: the driver re-reads RX_HEAD after arming.
//
// idle: with the mem bus quiet, nothing but the cycle counter changes at the
// next edges: no TX frame queued or streaming (TX_HEAD == TX_TAIL), no RX
// frame arriving or about to land, no frame inside the MAC (taken whole and
// not yet handed back, or its done strobe still up), no read answer and no
// interrupt pulse pending. Frames the host has not consumed yet (RX_HEAD !=
// RX_TAIL) do not count: they only wait. A simulator may then skip cycles and
// only advance the counter (lib/rtl/rtl_clock.hpp).
module nic_pio_core #(
    parameter int AW = 22
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
    // to / from the MAC
    output logic [511:0]  tx_tdata,
    output logic [63:0]   tx_tkeep,
    output logic          tx_tlast,
    output logic          tx_tvalid,
    input  logic          tx_tready,
    input  logic [511:0]  rx_tdata,
    input  logic [63:0]   rx_tkeep,
    input  logic          rx_tlast,
    input  logic          rx_tvalid,
    output logic          rx_tready,
    input  logic          tx_done_valid,
    input  logic [63:0]   tx_done_ts,
    input  logic          tx_done_err,
    input  logic          rx_done_valid,
    input  logic [63:0]   rx_done_ts,
    input  logic [31:0]   runt_count,
    input  logic [31:0]   oversize_count,
    output logic          rx_irq,
    output logic          idle
);
    localparam int SLOTS      = 32'(nic_pio_pkg::MAX_RING);
    localparam int SLOT_BEATS = 32'(nic_pio_pkg::SLOT_BYTES / 64);
    localparam int ROWS       = SLOTS * SLOT_BEATS;
    localparam int RW         = $clog2(ROWS);
    localparam logic [31:0] DONE = 32'(nic_pio_pkg::DESC_DONE), ERR = 32'(nic_pio_pkg::DESC_ERR);

    function automatic logic in_win(input logic [AW-1:0] a, input logic [31:0] off, input logic [31:0] size);
        in_win = 32'(a) >= off && 32'(a) < off + size;
    endfunction

    wire sel_reg    = 32'(m_addr) < nic_pio_pkg::RX_DESC_OFF;
    wire sel_rxdesc = in_win(m_addr, nic_pio_pkg::RX_DESC_OFF, nic_pio_pkg::RX_DESC_SIZE);
    wire sel_txdesc = in_win(m_addr, nic_pio_pkg::TX_DESC_OFF, nic_pio_pkg::TX_DESC_SIZE);
    wire sel_rxbuf  = in_win(m_addr, nic_pio_pkg::RX_BUF_OFF, nic_pio_pkg::RX_BUF_SIZE);
    wire sel_txbuf  = in_win(m_addr, nic_pio_pkg::TX_BUF_OFF, nic_pio_pkg::TX_BUF_SIZE);
    wire [RW+2:0] rxbuf_word = (RW + 3)'((32'(m_addr) - nic_pio_pkg::RX_BUF_OFF) >> 3);
    wire [RW+2:0] txbuf_word = (RW + 3)'((32'(m_addr) - nic_pio_pkg::TX_BUF_OFF) >> 3);
    wire [6:0] desc_word = m_addr[9:3];   // descriptor windows: 64 x 2 words

    logic tx_busy;
    assign m_ready = !(m_valid && !m_we && sel_txbuf && tx_busy);
    wire acc = m_valid && m_ready;
    wire wr  = acc && m_we;
    wire rd  = acc && !m_we;

    cycle_counter u_cnt (.clk, .rst_n, .count(cycles));

    // ---- registers
    logic [6:0]  rx_size, tx_size;
    logic [31:0] rx_tail, tx_head, tx_tail, rx_head, drops;
    logic [31:0] mac_frames;              // frames in the MAC that will come back
    logic        rx_busy;
    wire  [5:0]  rx_mask = 6'(rx_size - 7'd1), tx_mask = 6'(tx_size - 7'd1);
    wire  [8:0]  reg_word = m_addr[11:3];
    wire         lo_write = wr && sel_reg && m_wstrb == 8'h0f;
    wire         hi_write = wr && sel_reg && m_wstrb == 8'hf0;
    wire  [31:0] v_lo = m_wdata[31:0], v_hi = m_wdata[63:32];
    // ring sizes change only with no frame anywhere and none unconsumed
    wire         rings_idle = tx_head == tx_tail && !tx_busy && !rx_busy && rx_head == rx_tail && mac_frames == '0;

    function automatic logic ring_ok(input logic [31:0] n);
        ring_ok = n >= 32'd2 && n <= 32'(nic_pio_pkg::MAX_RING) && (n & (n - 32'd1)) == 32'd0;
    endfunction

    wire reg_rx_size = lo_write && 32'(reg_word) == nic_pio_pkg::RX_RING_SIZE_OFF >> 3;
    wire reg_tx_size = hi_write && 32'(reg_word) == nic_pio_pkg::TX_RING_SIZE_OFF >> 3;
    wire reg_rx_tail = hi_write && 32'(reg_word) == nic_pio_pkg::RX_TAIL_OFF >> 3;
    wire reg_tx_head = lo_write && 32'(reg_word) == nic_pio_pkg::TX_HEAD_OFF >> 3;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rx_size <= 7'(nic_pio_pkg::RX_RING_SIZE_RESET);
            tx_size <= 7'(nic_pio_pkg::TX_RING_SIZE_RESET);
            rx_tail <= '0;
            tx_head <= '0;
        end else begin
            if (reg_rx_size && ring_ok(v_lo) && rings_idle) rx_size <= 7'(v_lo);
            if (reg_tx_size && ring_ok(v_hi) && rings_idle) tx_size <= 7'(v_hi);
            if (reg_rx_tail && v_hi - rx_tail <= rx_head - rx_tail) rx_tail <= v_hi;
            if (reg_tx_head && v_lo - tx_tail <= 32'(tx_size) && v_lo - tx_head <= 32'(tx_size))
                tx_head <= v_lo;
        end
    end

    always_ff @(posedge clk) begin
        if (!rst_n) mac_frames <= '0;
        else mac_frames <= mac_frames + 32'(tx_done_valid && !tx_done_err) - 32'(rx_done_valid);
    end

    // ---- TX ring: the host writes descriptors; a completion from the MAC
    // sets nic_pio_pkg::DESC_DONE (and nic_pio_pkg::DESC_ERR) in word 0 of the oldest and its stamp in word 1
    logic [63:0] tx_desc [2 * SLOTS];
    logic [5:0]  tx_desc_slot;
    wire  [5:0]  done_slot = tx_tail[5:0] & tx_mask;

    always_ff @(posedge clk) begin
        if (wr && sel_txdesc)
            for (int b = 0; b < 8; b++)
                if (m_wstrb[b]) tx_desc[desc_word][8*b +: 8] <= m_wdata[8*b +: 8];
        if (tx_done_valid) begin
            tx_desc[{done_slot, 1'b0}] <= {32'd0, (tx_done_err ? ERR : 32'd0) | DONE | {16'd0, tx_desc[{done_slot, 1'b0}][15:0]}};
            tx_desc[{done_slot, 1'b1}] <= tx_done_ts;
        end
    end

    always_ff @(posedge clk) begin
        if (!rst_n) tx_tail <= '0;
        else if (tx_done_valid) tx_tail <= tx_tail + 32'd1;
    end

    // ---- TX buffer and engine
    logic          tx_row_re;
    logic [RW-1:0] tx_row_raddr;
    logic [511:0]  tx_row_rdata;
    logic [63:0]   txbuf_rdata;

    nic_pio_buf #(.ROWS(ROWS)) u_txbuf (
        .clk,
        .row_we(1'b0), .row_waddr({RW{1'b0}}), .row_wdata(512'd0), .row_wkeep(64'd0),
        .row_re(tx_row_re), .row_raddr(tx_row_raddr), .row_rdata(tx_row_rdata),
        .word_we(wr && sel_txbuf), .word_re(rd && sel_txbuf), .word_addr(txbuf_word),
        .word_wdata(m_wdata), .word_wstrb(m_wstrb), .word_rdata(txbuf_rdata));

    nic_pio_tx #(.SLOT_BEATS(SLOT_BEATS), .ROWS(ROWS)) u_tx (
        .clk, .rst_n, .tx_head, .ring_mask(tx_mask),
        .desc_slot(tx_desc_slot), .desc_len(tx_desc[{tx_desc_slot, 1'b0}][15:0]),
        .row_re(tx_row_re), .row_raddr(tx_row_raddr), .row_rdata(tx_row_rdata),
        .tdata(tx_tdata), .tkeep(tx_tkeep), .tlast(tx_tlast), .tvalid(tx_tvalid), .tready(tx_tready),
        .busy(tx_busy));

    // ---- RX buffer, engine and ring
    logic          rx_row_we, land;
    logic [RW-1:0] rx_row_waddr;
    logic [511:0]  rx_row_wdata;
    logic [63:0]   rx_row_wkeep, land_ts, rxbuf_rdata;
    logic [5:0]    land_slot;
    logic [15:0]   land_len;

    nic_pio_rx #(.SLOT_BEATS(SLOT_BEATS), .ROWS(ROWS)) u_rx (
        .clk, .rst_n,
        .tdata(rx_tdata), .tkeep(rx_tkeep), .tlast(rx_tlast), .tvalid(rx_tvalid), .tready(rx_tready),
        .rx_done_valid, .rx_done_ts, .rx_tail, .ring_mask(rx_mask), .rx_head, .drops, .busy(rx_busy),
        .row_we(rx_row_we), .row_waddr(rx_row_waddr), .row_wdata(rx_row_wdata), .row_wkeep(rx_row_wkeep),
        .land, .land_slot, .land_len, .land_ts);

    /* verilator lint_off PINCONNECTEMPTY */
    nic_pio_buf #(.ROWS(ROWS)) u_rxbuf (
        .clk,
        .row_we(rx_row_we), .row_waddr(rx_row_waddr), .row_wdata(rx_row_wdata), .row_wkeep(rx_row_wkeep),
        .row_re(1'b0), .row_raddr({RW{1'b0}}), .row_rdata(),
        .word_we(1'b0), .word_re(rd && sel_rxbuf), .word_addr(rxbuf_word),
        .word_wdata(64'd0), .word_wstrb(8'd0), .word_rdata(rxbuf_rdata));
    /* verilator lint_on PINCONNECTEMPTY */

    logic [31:0] rx_w0 [SLOTS];           // nic_pio_pkg::DESC_DONE | length
    logic [63:0] rx_ts [SLOTS];           // MAC cycle of the last RX beat
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            for (int i = 0; i < SLOTS; i++) begin
                rx_w0[i] <= '0;
                rx_ts[i] <= '0;
            end
        end else if (land) begin
            rx_w0[land_slot] <= DONE | 32'(land_len);
            rx_ts[land_slot] <= land_ts;
        end
    end

    // ---- RX interrupt (RX_IRQ_ARM, RX_IRQS)
    logic        rx_irq_armed;
    logic [31:0] rx_irqs;
    wire         reg_irq_arm = lo_write && 32'(reg_word) == nic_pio_pkg::RX_IRQ_ARM_OFF >> 3;
    wire         irq_fire    = land && rx_irq_armed;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rx_irq_armed <= 1'b0;
            rx_irqs      <= '0;
            rx_irq       <= 1'b0;
        end else begin
            rx_irq <= irq_fire;
            if (irq_fire) rx_irqs <= rx_irqs + 32'd1;
            if (reg_irq_arm)   rx_irq_armed <= v_lo[0];
            else if (irq_fire) rx_irq_armed <= 1'b0;
        end
    end

    // ---- reads: registers and rings answer from flops, buffers from RAM
    function automatic logic [63:0] reg_value(input logic [8:0] w);
        case (32'(w))
            nic_pio_pkg::ID_OFF >> 3:           reg_value = {16'(nic_pio_pkg::VERSION_MAJOR), 16'(nic_pio_pkg::VERSION_MINOR), nic_pio_pkg::ID_VALUE};
            nic_pio_pkg::CYCLES_OFF >> 3:       reg_value = cycles;
            nic_pio_pkg::RX_RING_SIZE_OFF >> 3: reg_value = {25'd0, tx_size, 25'd0, rx_size};
            nic_pio_pkg::RX_HEAD_OFF >> 3:      reg_value = {rx_tail, rx_head};
            nic_pio_pkg::TX_HEAD_OFF >> 3:      reg_value = {tx_tail, tx_head};
            nic_pio_pkg::RX_DROPS_OFF >> 3:     reg_value = {runt_count, drops};
            nic_pio_pkg::OVERSIZE_OFF >> 3:     reg_value = {32'hffffffff, oversize_count};
            nic_pio_pkg::RX_IRQ_ARM_OFF >> 3:   reg_value = {rx_irqs, 31'd0, rx_irq_armed};
            default:               reg_value = '1;
        endcase
    endfunction

    // The answer is captured only when a read is taken: between reads
    // nothing here follows the counter (see idle).
    typedef enum logic [1:0] { T_FLOP, T_RXBUF, T_TXBUF } tgt_t;
    logic        rd_q;
    tgt_t        tgt_q;
    logic [63:0] flop_q;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rd_q <= 1'b0;
        end else begin
            rd_q <= rd;
            if (rd) begin
                tgt_q <= sel_rxbuf ? T_RXBUF : sel_txbuf ? T_TXBUF : T_FLOP;
                if (sel_reg)         flop_q <= reg_value(reg_word);
                else if (sel_rxdesc) flop_q <= desc_word[0] ? rx_ts[desc_word[6:1]] : {32'd0, rx_w0[desc_word[6:1]]};
                else if (sel_txdesc) flop_q <= tx_desc[desc_word];
                else                 flop_q <= '1;
            end
        end
    end

    assign m_rvalid = rd_q;
    assign idle = tx_head == tx_tail && !tx_busy && !tx_done_valid && !rx_busy && !rx_done_valid &&
                  mac_frames == '0 && !rx_irq && !rd_q;
    always_comb begin
        case (tgt_q)
            T_RXBUF: m_rdata = rxbuf_rdata;
            T_TXBUF: m_rdata = txbuf_rdata;
            default: m_rdata = flop_q;
        endcase
    end
endmodule
