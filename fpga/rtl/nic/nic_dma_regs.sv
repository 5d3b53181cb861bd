// The DMA NIC's user BAR (fpga/regmap/nic_dma.toml, the generated
// nic_dma_pkg) on the mem bus of common/axi4_to_mem.sv: every register is
// read-only but RX_STAMP_DROP and TX_STAMP_DROP, whose write (byte strobes 0
// and 1: the sequence number) becomes a one-cycle drop to its stamp FIFO;
// other writes are taken and ignored. A read is answered one cycle after it
// is taken; holes (and the drop registers) read all ones. RX_STAMP and
// TX_STAMP pop their FIFO only on a whole 64-bit read (a stamp must not be
// split between two reads that each pop); narrower reads of them read all
// ones, as in the model.
module nic_dma_regs #(
    parameter int AW = 12
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
    input  logic [63:0]   cycles,
    // stamp FIFOs
    output logic          rx_pop,
    input  logic [63:0]   rx_stamp,
    output logic          rx_drop,
    output logic          tx_pop,
    input  logic [63:0]   tx_stamp,
    output logic          tx_drop,
    output logic [15:0]   drop_seq,     // for whichever drop is set (one write a cycle)
    // counters
    input  logic [31:0]   rx_drops,
    input  logic [31:0]   runts,
    input  logic [31:0]   oversize,
    input  logic [31:0]   malformed
);
    typedef enum logic [1:0] { SRC_REG, SRC_RX, SRC_TX } src_t;

    assign m_ready = 1'b1;
    wire        rd   = m_valid && !m_we;
    wire [31:0] word = 32'(m_addr) >> 3;
    wire        full = m_wstrb == 8'hff;

    assign rx_pop = rd && word == nic_dma_pkg::RX_STAMP_OFF >> 3 && full;
    assign tx_pop = rd && word == nic_dma_pkg::TX_STAMP_OFF >> 3 && full;

    // each drop register sits in the low half of its own 64-bit word
    wire   seq_wr      = m_valid && m_we && m_wstrb[1:0] == 2'b11;
    assign rx_drop     = seq_wr && word == nic_dma_pkg::RX_STAMP_DROP_OFF >> 3;
    assign tx_drop     = seq_wr && word == nic_dma_pkg::TX_STAMP_DROP_OFF >> 3;
    assign drop_seq    = m_wdata[15:0];
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_wdata = ^m_wdata[63:16];  // no other register takes a write
    /* verilator lint_on UNUSEDSIGNAL */

    function automatic logic [63:0] value(input logic [31:0] w);
        case (w)
            nic_dma_pkg::ID_OFF >> 3:       value = {16'(nic_dma_pkg::VERSION_MAJOR), 16'(nic_dma_pkg::VERSION_MINOR), nic_dma_pkg::ID_VALUE};
            nic_dma_pkg::CYCLES_OFF >> 3:   value = cycles;
            nic_dma_pkg::RX_DROPS_OFF >> 3: value = {runts, rx_drops};        // RUNTS at 0x24
            nic_dma_pkg::OVERSIZE_OFF >> 3: value = {malformed, oversize};    // MALFORMED at 0x2c
            default:                        value = '1;
        endcase
    endfunction

    src_t        src;
    logic [63:0] reg_q;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            m_rvalid <= 1'b0;
        end else begin
            m_rvalid <= rd;
            src      <= rx_pop ? SRC_RX : tx_pop ? SRC_TX : SRC_REG;
            reg_q    <= value(word);
        end
    end

    always_comb begin
        case (src)
            SRC_RX:  m_rdata = rx_stamp;
            SRC_TX:  m_rdata = tx_stamp;
            default: m_rdata = reg_q;
        endcase
    end
endmodule
