// axi4_to_mem behind registered readies: AWREADY, WREADY and ARREADY are
// flip-flop outputs (with axi4_to_mem's BVALID/RVALID and their payloads,
// every output the master samples is), where axi4_to_mem's WREADY follows
// the arbiters and the core in the same cycle and its ARREADY follows
// AWVALID. A master therefore sees the same handshakes whether or not it
// has evaluated the slave after driving its inputs: the Verilated rtl:xdma
// evaluates the image once per cycle instead of twice (lib/rtl/rtl_clock.hpp).
//
// W and AR pass through one-entry slices (ready_slice): the mem bus sees
// every W beat and every read burst in the cycle it would without them.
// AW is held back while a read waits in the AR slice, so a write the master
// issues after that read does not pass it; AW and AR that arrive together
// still go write first (axi4_to_mem).
module axi4_to_mem_rr #(
    parameter int AW   = 18,
    parameter int ID_W = 4
) (
    input  logic            clk,
    input  logic            rst_n,

    input  logic            s_awvalid,
    output logic            s_awready,
    input  logic [ID_W-1:0] s_awid,
    input  logic [AW-1:0]   s_awaddr,
    input  logic [7:0]      s_awlen,
    input  logic [2:0]      s_awsize,
    input  logic [1:0]      s_awburst,
    input  logic            s_wvalid,
    output logic            s_wready,
    input  logic [63:0]     s_wdata,
    input  logic [7:0]      s_wstrb,
    input  logic            s_wlast,
    output logic            s_bvalid,
    input  logic            s_bready,
    output logic [ID_W-1:0] s_bid,
    output logic [1:0]      s_bresp,
    input  logic            s_arvalid,
    output logic            s_arready,
    input  logic [ID_W-1:0] s_arid,
    input  logic [AW-1:0]   s_araddr,
    input  logic [7:0]      s_arlen,
    input  logic [2:0]      s_arsize,
    input  logic [1:0]      s_arburst,
    output logic            s_rvalid,
    input  logic            s_rready,
    output logic [ID_W-1:0] s_rid,
    output logic [63:0]     s_rdata,
    output logic [1:0]      s_rresp,
    output logic            s_rlast,

    output logic            m_valid,
    input  logic            m_ready,
    output logic            m_we,
    output logic [AW-1:0]   m_addr,
    output logic [63:0]     m_wdata,
    output logic [7:0]      m_wstrb,
    input  logic            m_rvalid,
    input  logic [63:0]     m_rdata
);
    localparam int WW  = 64 + 8 + 1;
    localparam int ARW = ID_W + AW + 8 + 3 + 2;

    // W slice
    logic          w_valid, w_ready, w_last;
    logic [63:0]   w_data;
    logic [7:0]    w_strb;
    logic          w_full;
    ready_slice #(.W(WW)) u_w (
        .clk, .rst_n, .s_valid(s_wvalid), .s_ready(s_wready), .s_data({s_wdata, s_wstrb, s_wlast}),
        .m_valid(w_valid), .m_ready(w_ready), .m_data({w_data, w_strb, w_last}), .full(w_full));

    // AR slice
    logic            ar_valid, ar_ready, ar_full;
    logic [ID_W-1:0] ar_id;
    logic [AW-1:0]   ar_addr;
    logic [7:0]      ar_len;
    logic [2:0]      ar_size;
    logic [1:0]      ar_burst;
    ready_slice #(.W(ARW)) u_ar (
        .clk, .rst_n, .s_valid(s_arvalid), .s_ready(s_arready),
        .s_data({s_arid, s_araddr, s_arlen, s_arsize, s_arburst}),
        .m_valid(ar_valid), .m_ready(ar_ready), .m_data({ar_id, ar_addr, ar_len, ar_size, ar_burst}),
        .full(ar_full));

    // AW: axi4_to_mem's AWREADY is its IDLE state (a register); a read held
    // in the AR slice goes first.
    logic aw_ready;
    assign s_awready = aw_ready && !ar_full;

    axi4_to_mem #(.AW(AW), .ID_W(ID_W)) u_fe (
        .clk, .rst_n,
        .s_awvalid(s_awvalid && !ar_full), .s_awready(aw_ready), .s_awid, .s_awaddr, .s_awlen,
        .s_awsize, .s_awburst,
        .s_wvalid(w_valid), .s_wready(w_ready), .s_wdata(w_data), .s_wstrb(w_strb), .s_wlast(w_last),
        .s_bvalid, .s_bready, .s_bid, .s_bresp,
        .s_arvalid(ar_valid), .s_arready(ar_ready), .s_arid(ar_id), .s_araddr(ar_addr),
        .s_arlen(ar_len), .s_arsize(ar_size), .s_arburst(ar_burst),
        .s_rvalid, .s_rready, .s_rid, .s_rdata, .s_rresp, .s_rlast,
        .m_valid, .m_ready, .m_we, .m_addr, .m_wdata, .m_wstrb, .m_rvalid, .m_rdata);

    wire unused = w_full;
endmodule
