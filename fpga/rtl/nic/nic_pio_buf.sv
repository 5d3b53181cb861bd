// Packet buffer of the PIO NIC (RX_BUF or TX_BUF of fpga/regmap/nic_pio.toml):
// 64 slots of SLOT_BYTES in block RAM, seen two ways. The MAC side moves one
// 512-bit beat (a "row") per cycle; the host side (BAR) moves 64-bit words.
// So the buffer is 8 banks of 64-bit simple dual-port RAM: a row is the same
// address in all 8 banks, a host word is one bank (address bits 5:3).
//
// Each bank has one write and one read port; on both the wide (row) access
// wins over the narrow (host) one. The NIC never asks for both in a cycle:
// RX_BUF is written only by the RX engine and read only by the host, TX_BUF
// is written only by the host and read by the host only while the TX engine
// is idle (nic_pio_core holds the host's read otherwise). Read data is there
// one cycle after the read and stays until the next read of that bank, which
// the TX engine relies on to hold a beat under backpressure.
module nic_pio_buf #(
    parameter int ROWS = 10240,          // 64 slots x 160 beats
    localparam int RW  = $clog2(ROWS)
) (
    input  logic          clk,
    // wide side: one row
    input  logic          row_we,
    input  logic [RW-1:0] row_waddr,
    input  logic [511:0]  row_wdata,
    input  logic [63:0]   row_wkeep,      // byte enables
    input  logic          row_re,
    input  logic [RW-1:0] row_raddr,
    output logic [511:0]  row_rdata,
    // narrow side: one 64-bit word, word address = {row, bank}
    input  logic          word_we,
    input  logic          word_re,
    input  logic [RW+2:0] word_addr,
    input  logic [63:0]   word_wdata,
    input  logic [7:0]    word_wstrb,
    output logic [63:0]   word_rdata
);
    logic [2:0] bank_q;                   // bank of the last narrow read

    for (genvar b = 0; b < 8; b++) begin : g_bank
        wire word_here = word_addr[2:0] == 3'(b);
        bram_sdp #(.WORDS(ROWS)) u_ram (
            .clk,
            .wr_be(row_we ? row_wkeep[8*b +: 8] : (word_we && word_here ? word_wstrb : 8'h00)),
            .wr_addr(row_we ? row_waddr : word_addr[RW+2:3]),
            .wr_data(row_we ? row_wdata[64*b +: 64] : word_wdata),
            .rd_en(row_re || (word_re && word_here)),
            .rd_addr(row_re ? row_raddr : word_addr[RW+2:3]),
            .rd_data(row_rdata[64*b +: 64]));
    end

    always_ff @(posedge clk)
        if (word_re && !row_re) bank_q <= word_addr[2:0];

    assign word_rdata = row_rdata[64*bank_q +: 64];
endmodule
