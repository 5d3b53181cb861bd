// AXI4 slave (64-bit data) to the internal memory bus.
//
// The memory bus ("mem bus") used by every block of the images:
//   m_valid/m_ready  request handshake; m_we = 1 write, 0 read
//   m_addr           byte address of the beat (low 3 bits kept so a target
//                    can tell a 32-bit access to the upper half of a word)
//   m_wdata/m_wstrb  write data and byte enables; for reads m_wstrb holds the
//                    byte lanes the read covers (from ARSIZE and the address)
//   m_rvalid/m_rdata read data, exactly one beat per accepted read, in order,
//                    any number of cycles later (a target may hold a read).
//                    There is no m_rready: this block only issues a read when
//                    it has room for the answer.
//
// Bursts: INCR and FIXED; WRAP is treated as INCR (PCIe bridges do not emit
// it). Narrow transfers are supported. Writes are answered (B) after the last
// beat has been accepted by the mem bus, so a read issued after a B response
// sees the write. A burst owns the mem bus until it is done; when AW and AR
// arrive in the same cycle the write goes first (PCIe: reads do not pass
// posted writes).
module axi4_to_mem #(
    parameter int AW    = 18,
    parameter int ID_W  = 4,
    parameter int RFIFO = 4     // read beats in flight (power of two)
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
    localparam int CW = $clog2(RFIFO) + 1;

    typedef enum logic [1:0] { IDLE, WR, WRESP, RD } state_t;
    state_t state;

    logic [ID_W-1:0] id;
    logic [AW-1:0]   addr;
    logic [7:0]      len;        // beats - 1
    logic [2:0]      size;
    logic            fixed;
    logic [8:0]      issued;     // beats handed to the mem bus
    logic [8:0]      sent;       // read beats sent on R

    // Byte lanes a narrow read covers.
    function automatic logic [7:0] lanes(input logic [2:0] a, input logic [2:0] sz);
        logic [7:0] m;
        case (sz)
            3'd0: m = 8'h01;
            3'd1: m = 8'h03;
            3'd2: m = 8'h0f;
            default: m = 8'hff;
        endcase
        lanes = m << (a & ~((3'd1 << sz) - 3'd1));
    endfunction

    function automatic logic [AW-1:0] next_addr(input logic [AW-1:0] a, input logic [2:0] sz, input logic fx);
        logic [AW-1:0] step;
        step = AW'(1) << sz;
        next_addr = fx ? a : (a & ~(step - AW'(1))) + step;
    endfunction

    // Read answers: a small FIFO; reads are issued only with room for them.
    logic [63:0]  rq_data [RFIFO];
    logic [CW-1:0] rq_wp, rq_rp;
    logic [CW-1:0] inflight;     // issued reads not yet answered
    logic [CW-1:0] rq_count;
    assign rq_count = rq_wp - rq_rp;
    wire rq_empty = rq_count == '0;
    wire r_fire   = s_rvalid && s_rready;
    wire can_issue_rd = (32'(inflight) + 32'(rq_count)) < RFIFO;

    assign s_awready = state == IDLE;
    assign s_arready = state == IDLE && !s_awvalid;

    wire [7:0] rd_lanes = lanes(addr[2:0], size);

    always_comb begin
        m_valid = 1'b0;
        m_we    = 1'b0;
        m_addr  = addr;
        m_wdata = s_wdata;
        m_wstrb = s_wstrb;
        s_wready = 1'b0;
        case (state)
            WR: begin
                m_valid  = s_wvalid;
                m_we     = 1'b1;
                s_wready = m_ready;
            end
            RD: begin
                m_valid = issued <= {1'b0, len} && can_issue_rd;
                m_wstrb = rd_lanes;
            end
            default: ;
        endcase
    end

    assign s_bvalid = state == WRESP;
    assign s_bid    = id;
    assign s_bresp  = 2'b00;
    assign s_rvalid = state == RD && !rq_empty;
    assign s_rid    = id;
    assign s_rdata  = rq_data[rq_rp[CW-2:0]];
    assign s_rresp  = 2'b00;
    assign s_rlast  = sent == {1'b0, len};

    wire m_fire = m_valid && m_ready;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state    <= IDLE;
            rq_wp    <= '0;
            rq_rp    <= '0;
            inflight <= '0;
            issued   <= '0;
            sent     <= '0;
        end else begin
            // read answers into the FIFO
            if (m_rvalid) begin
                rq_data[rq_wp[CW-2:0]] <= m_rdata;
                rq_wp <= rq_wp + 1'b1;
            end
            if (r_fire) rq_rp <= rq_rp + 1'b1;
            inflight <= inflight + CW'(m_fire && !m_we) - CW'(m_rvalid);

            case (state)
                IDLE: begin
                    issued <= '0;
                    sent   <= '0;
                    if (s_awvalid) begin
                        state <= WR;
                        id    <= s_awid;
                        addr  <= s_awaddr;
                        len   <= s_awlen;
                        size  <= s_awsize;
                        fixed <= s_awburst == 2'b00;
                    end else if (s_arvalid) begin
                        state <= RD;
                        id    <= s_arid;
                        addr  <= s_araddr;
                        len   <= s_arlen;
                        size  <= s_arsize;
                        fixed <= s_arburst == 2'b00;
                    end
                end
                WR: if (m_fire) begin
                    addr   <= next_addr(addr, size, fixed);
                    issued <= issued + 1'b1;
                    if (issued == {1'b0, len}) state <= WRESP;
                end
                WRESP: if (s_bready) state <= IDLE;
                RD: begin
                    if (m_fire) begin
                        addr   <= next_addr(addr, size, fixed);
                        issued <= issued + 1'b1;
                    end
                    if (r_fire) begin
                        sent <= sent + 1'b1;
                        if (s_rlast) state <= IDLE;
                    end
                end
                default: state <= IDLE;
            endcase
        end
    end

    // WLAST is implied by AWLEN; it is not needed to find the end of a burst.
    wire unused = s_wlast;
endmodule
