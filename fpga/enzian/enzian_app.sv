// Adapter between the Enzian shell's application slot and coh_top. The
// shell's directory controller hands the application, for lines homed on
// the FPGA: read requests (which may be held), write-backs, LC/LCI
// acknowledgements; it takes read answers (with the option to grant
// Exclusive), write acknowledgements, LC/LCI and UL requests (eci.md). The
// port names below are this repository's names for those channels; the
// shell's own names must be mapped here. Vivado only (not linted here: it is
// pure wiring, coh_top is the verified part).
module enzian_app (
    input  logic          clk,          // directory controller clock
    input  logic          rst_n,
    // AXI4-Lite I/O window (uncached, 0x9000_0000_0000 on the CPU side)
    input  logic          io_awvalid,
    output logic          io_awready,
    input  logic [43:0]   io_awaddr,
    input  logic          io_wvalid,
    output logic          io_wready,
    input  logic [31:0]   io_wdata,
    input  logic [3:0]    io_wstrb,
    output logic          io_bvalid,
    input  logic          io_bready,
    output logic [1:0]    io_bresp,
    input  logic          io_arvalid,
    output logic          io_arready,
    input  logic [43:0]   io_araddr,
    output logic          io_rvalid,
    input  logic          io_rready,
    output logic [31:0]   io_rdata,
    output logic [1:0]    io_rresp,
    // directory controller, lines homed on the FPGA (0x100_0000_0000 window)
    input  logic          dc_rd_valid,
    output logic          dc_rd_ready,
    input  logic [5:0]    dc_rd_id,
    input  logic [39:0]   dc_rd_addr,
    input  logic          dc_rd_excl,
    output logic          app_rd_valid,
    input  logic          app_rd_ready,
    output logic [5:0]    app_rd_id,
    output logic [1023:0] app_rd_data,
    output logic          app_rd_excl,
    input  logic          dc_wr_valid,
    output logic          dc_wr_ready,
    input  logic [5:0]    dc_wr_id,
    input  logic [39:0]   dc_wr_addr,
    input  logic [1023:0] dc_wr_data,
    input  logic [127:0]  dc_wr_be,
    output logic          app_wr_ack_valid,
    input  logic          app_wr_ack_ready,
    output logic [5:0]    app_wr_ack_id,
    output logic          app_lcl_valid,
    input  logic          app_lcl_ready,
    output logic [39:0]   app_lcl_addr,
    output logic          app_lcl_inv,
    input  logic          dc_lcl_ack_valid,
    output logic          dc_lcl_ack_ready,
    input  logic [39:0]   dc_lcl_ack_addr,
    input  logic          dc_lcl_ack_inv,
    output logic          app_ul_valid,
    input  logic          app_ul_ready,
    output logic [39:0]   app_ul_addr
);
    // The engine sees 20-bit offsets into its window at the start of the
    // FPGA-homed region; the shell's upper address bits are dropped here.
    logic [19:0] lcl_off, ul_off;
    assign app_lcl_addr = {20'd0, lcl_off};
    assign app_ul_addr  = {20'd0, ul_off};

    coh_top #(.AW(20), .ID_W(6)) u_coh (
        .clk, .rst_n,
        .s_awvalid(io_awvalid), .s_awready(io_awready), .s_awaddr(io_awaddr[11:0]),
        .s_wvalid(io_wvalid), .s_wready(io_wready), .s_wdata(io_wdata), .s_wstrb(io_wstrb),
        .s_bvalid(io_bvalid), .s_bready(io_bready), .s_bresp(io_bresp),
        .s_arvalid(io_arvalid), .s_arready(io_arready), .s_araddr(io_araddr[11:0]),
        .s_rvalid(io_rvalid), .s_rready(io_rready), .s_rdata(io_rdata), .s_rresp(io_rresp),
        .rdreq_valid(dc_rd_valid), .rdreq_ready(dc_rd_ready), .rdreq_id(dc_rd_id),
        .rdreq_addr(dc_rd_addr[19:0]), .rdreq_excl(dc_rd_excl),
        .rdrsp_valid(app_rd_valid), .rdrsp_ready(app_rd_ready), .rdrsp_id(app_rd_id),
        .rdrsp_data(app_rd_data), .rdrsp_excl(app_rd_excl),
        .wrreq_valid(dc_wr_valid), .wrreq_ready(dc_wr_ready), .wrreq_id(dc_wr_id),
        .wrreq_addr(dc_wr_addr[19:0]), .wrreq_data(dc_wr_data), .wrreq_be(dc_wr_be),
        .wrrsp_valid(app_wr_ack_valid), .wrrsp_ready(app_wr_ack_ready), .wrrsp_id(app_wr_ack_id),
        .lclreq_valid(app_lcl_valid), .lclreq_ready(app_lcl_ready), .lclreq_addr(lcl_off),
        .lclreq_inv(app_lcl_inv),
        .lclrsp_valid(dc_lcl_ack_valid), .lclrsp_ready(dc_lcl_ack_ready),
        .lclrsp_addr(dc_lcl_ack_addr[19:0]), .lclrsp_inv(dc_lcl_ack_inv),
        .ulreq_valid(app_ul_valid), .ulreq_ready(app_ul_ready), .ulreq_addr(ul_off),
        .dmsg_valid(1'b0), .dmsg_ready(), .dmsg_data('0), .dmsg_len('0), .busy(),
        .cycles());
endmodule
