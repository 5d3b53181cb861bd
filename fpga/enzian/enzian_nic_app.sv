// Adapter between the Enzian shell's application slot and nic_eci_top (the
// ECI NIC, fpga/rtl/nic/nic_eci_top.sv): the same directory-controller
// channels as enzian_app.sv (coh_top), without the AXI4-Lite control block
// (the NIC has none: nic_eci.toml is a window of cache lines only; the I/O
// window answers SLVERR). The MAC is the loopback stand-in inside
// nic_eci_top, as in the paper's near-end loopback. Vivado only, selected
// by `APP=nic_eci` in build.tcl. NOT run here (no Vivado, no shell).
module enzian_nic_app (
    input  logic          clk,          // directory controller clock
    input  logic          rst_n,
    // AXI4-Lite I/O window: unused by the NIC, every access answered SLVERR
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
    // I/O window: one outstanding access each way, answered SLVERR
    assign io_awready = !io_bvalid && io_wvalid;
    assign io_wready  = !io_bvalid && io_awvalid;
    assign io_bresp   = 2'b10;
    assign io_arready = !io_rvalid;
    assign io_rdata   = '0;
    assign io_rresp   = 2'b10;
    always_ff @(posedge clk) begin
        if (!rst_n) begin
            io_bvalid <= 1'b0;
            io_rvalid <= 1'b0;
        end else begin
            if (io_bvalid && io_bready) io_bvalid <= 1'b0;
            else if (io_awvalid && io_wvalid && !io_bvalid) io_bvalid <= 1'b1;
            if (io_rvalid && io_rready) io_rvalid <= 1'b0;
            else if (io_arvalid && !io_rvalid) io_rvalid <= 1'b1;
        end
    end

    // The NIC sees 20-bit offsets into its window at the start of the
    // FPGA-homed region; the shell's upper address bits are dropped here.
    logic [19:0] lcl_off, ul_off;
    assign app_lcl_addr = {20'd0, lcl_off};
    assign app_ul_addr  = {20'd0, ul_off};

    // rx_banks / tx_banks: RX messages and TX requests whole with data banks; FEATURES tells the driver
    nic_eci_top #(.AW(20), .ID_W(6)) u_nic (
        .clk, .rst_n, .rx_banks(1'b1), .tx_banks(1'b1),
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
        .busy(), .quiet(), .quiet_for(), .cycles(), .runt_count(), .oversize_count());
endmodule
