// AXI4 block-RAM slave: axi4_to_mem in front of a byte-enabled block RAM.
// 64-bit data, bursts, narrow transfers, one read answer per cycle.
module axi_ram #(
    parameter int AW   = 16,           // bytes = 2**AW
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
    output logic            s_rlast
);
    logic          m_valid, m_we, m_rvalid;
    logic [AW-1:0] m_addr;
    logic [63:0]   m_wdata, m_rdata;
    logic [7:0]    m_wstrb;

    axi4_to_mem #(.AW(AW), .ID_W(ID_W)) u_fe (
        .clk, .rst_n,
        .s_awvalid, .s_awready, .s_awid, .s_awaddr, .s_awlen, .s_awsize, .s_awburst,
        .s_wvalid, .s_wready, .s_wdata, .s_wstrb, .s_wlast,
        .s_bvalid, .s_bready, .s_bid, .s_bresp,
        .s_arvalid, .s_arready, .s_arid, .s_araddr, .s_arlen, .s_arsize, .s_arburst,
        .s_rvalid, .s_rready, .s_rid, .s_rdata, .s_rresp, .s_rlast,
        .m_valid, .m_ready(1'b1), .m_we, .m_addr, .m_wdata, .m_wstrb,
        .m_rvalid, .m_rdata);

    bram_sdp #(.WORDS(2 ** (AW - 3))) u_mem (
        .clk,
        .wr_be(m_valid && m_we ? m_wstrb : 8'h00), .wr_addr(m_addr[AW-1:3]), .wr_data(m_wdata),
        .rd_en(m_valid && !m_we), .rd_addr(m_addr[AW-1:3]), .rd_data(m_rdata));

    always_ff @(posedge clk) begin
        if (!rst_n) m_rvalid <= 1'b0;
        else        m_rvalid <= m_valid && !m_we;
    end

    wire unused = &m_addr[2:0];
endmodule
