// AXI4-Lite slave (32-bit data) to the 64-bit mem bus (see axi4_to_mem.sv):
// the register-block front end of the control interfaces (XDMA's AXI-Lite
// master, Enzian's uncached I/O window). A 32-bit access becomes a mem-bus
// beat on the half of the 64-bit word that address bit 2 selects, so 32-bit
// halves of 64-bit registers keep their meaning. AW and W may arrive in any
// order; one transaction at a time; a write that arrives together with a
// read goes first.
module axil_to_mem #(
    parameter int AW = 18
) (
    input  logic          clk,
    input  logic          rst_n,

    input  logic          s_awvalid,
    output logic          s_awready,
    input  logic [AW-1:0] s_awaddr,
    input  logic          s_wvalid,
    output logic          s_wready,
    input  logic [31:0]   s_wdata,
    input  logic [3:0]    s_wstrb,
    output logic          s_bvalid,
    input  logic          s_bready,
    output logic [1:0]    s_bresp,
    input  logic          s_arvalid,
    output logic          s_arready,
    input  logic [AW-1:0] s_araddr,
    output logic          s_rvalid,
    input  logic          s_rready,
    output logic [31:0]   s_rdata,
    output logic [1:0]    s_rresp,

    output logic          m_valid,
    input  logic          m_ready,
    output logic          m_we,
    output logic [AW-1:0] m_addr,
    output logic [63:0]   m_wdata,
    output logic [7:0]    m_wstrb,
    input  logic          m_rvalid,
    input  logic [63:0]   m_rdata
);
    typedef enum logic [2:0] { IDLE, WCOLLECT, WREQ, WRESP, RREQ, RWAIT, RRESP } state_t;
    state_t state;

    logic          have_aw, have_w;
    logic [AW-1:0] addr;
    logic [31:0]   wdata;
    logic [3:0]    wstrb;
    logic [31:0]   rdata;

    assign s_awready = (state == IDLE || state == WCOLLECT) && !have_aw;
    assign s_wready  = (state == IDLE || state == WCOLLECT) && !have_w;
    assign s_arready = state == IDLE && !s_awvalid && !s_wvalid;
    assign s_bvalid  = state == WRESP;
    assign s_bresp   = 2'b00;
    assign s_rvalid  = state == RRESP;
    assign s_rdata   = rdata;
    assign s_rresp   = 2'b00;

    assign m_valid = state == WREQ || state == RREQ;
    assign m_we    = state == WREQ;
    assign m_addr  = addr;
    assign m_wdata = {wdata, wdata};
    assign m_wstrb = addr[2] ? {wstrb, 4'h0} : {4'h0, wstrb};

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state   <= IDLE;
            have_aw <= 1'b0;
            have_w  <= 1'b0;
        end else begin
            case (state)
                IDLE, WCOLLECT: begin
                    if (s_awvalid && s_awready) begin
                        addr    <= s_awaddr;
                        have_aw <= 1'b1;
                    end
                    if (s_wvalid && s_wready) begin
                        wdata  <= s_wdata;
                        wstrb  <= s_wstrb;
                        have_w <= 1'b1;
                    end
                    if ((have_aw || (s_awvalid && s_awready)) && (have_w || (s_wvalid && s_wready)))
                        state <= WREQ;
                    else if (have_aw || have_w || s_awvalid || s_wvalid)
                        state <= WCOLLECT;
                    else if (s_arvalid && s_arready) begin
                        addr  <= s_araddr;
                        wstrb <= 4'hf;
                        state <= RREQ;
                    end
                end
                WREQ: if (m_ready) begin
                    have_aw <= 1'b0;
                    have_w  <= 1'b0;
                    state   <= WRESP;
                end
                WRESP: if (s_bready) state <= IDLE;
                RREQ: if (m_ready) state <= RWAIT;
                RWAIT: if (m_rvalid) begin
                    rdata <= addr[2] ? m_rdata[63:32] : m_rdata[31:0];
                    state <= RRESP;
                end
                RRESP: if (s_rready) state <= IDLE;
                default: state <= IDLE;
            endcase
        end
    end
endmodule
