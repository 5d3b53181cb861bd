// Coherent invocation engine (Enzian): the device side of the paper's
// Fig. 5a (CPU-initiated, device-homed) and Fig. 5b (device-initiated),
// behind an interface that mirrors what the Enzian directory controller (DC)
// gives an application for lines homed on the FPGA:
//
//   rdreq  DC -> engine  the CPU wants a line (id, line address, wants
//                        Exclusive); the engine may hold it (stall the CPU)
//   rdrsp  engine -> DC  the line's data for request id; excl = grant
//                        Exclusive (also when Shared was asked)
//   wrreq  DC -> engine  a write-back of a line (VICD, or the dirty data that
//                        an LC/LCI pulled from the CPU), with byte enables
//   wrrsp  engine -> DC  its acknowledgement
//   lclreq engine -> DC  LC (inv = 0) / LCI (inv = 1): clean (and invalidate)
//                        the line in the CPU's cache; locks it at the home
//   lclrsp DC -> engine  LCA / LCIA; any dirty data arrived on wrreq before
//   ulreq  engine -> DC  UL: unlock the line
//
// Addresses are byte offsets of 128-byte lines inside the engine's window.
// Channel c owns lines  c * CHANNEL_STRIDE + {0, LINE1_OFF}  (coh_dev.toml);
// channels 0 .. CPU_CHANNELS-1 are CPU-initiated, channel CPU_CHANNELS is
// device-initiated. Any other line in the window reads as zeros and ignores
// write-backs (acknowledged).
//
// Word 0 of every channel line is the library's control word
// (pioc/coherent/proto.hpp, constants CTRL_* / KIND_* of coh_dev.toml):
// bit 0 valid, bits 1-3 kind, bit 4 last, bits 5-15 chunk, bits 16-31 len,
// bits 32-63 seq; the payload follows at byte 8 (PAYLOAD_MAX = 120 bytes).
// Fig. 5a messages of up to MESSAGE_MAX (16 KiB) bytes travel in chunks of
// 120 bytes as the library (pioc/coherent/invoke.hpp) and the behavioral model
// send them: see "Multi-chunk messages" below. Fig. 5b messages are one line.
//
// The signal rule (Documentation/protocols.md, as the behavioral model
// lib/sim/eci/proto_engine.cpp): per channel the engine keeps the line it
// answered last (ans) and the last CPU word it consumed (taken). The CPU
// writes its next word (REQUEST, MORE, SYNC; Fig. 5b: ACK) into ans and then
// loads the other line.
//  - A read of ans (a re-read after an eviction, a prefetch) is answered at
//    once with the line's content and changes nothing.
//  - A read of the other line is held; the engine takes ans back (LCI, UL)
//    and examines its word: a CPU word it has not consumed yet is consumed
//    and answered on the held line, which becomes ans. Anything else (no
//    word written yet, a speculative read, the word it already ran) gets a
//    not-ready word in the fill only: the line keeps its content, ans stays.
//  - While a consumed word's answer is computed (Fig. 5a) or waits for a
//    device message (Fig. 5b), a read of the other line is held without an
//    LCI and answered when ready, or not ready (fill only) after TIMEOUT
//    cycles (counted from the consumption, then from each new hold).
//  - After a reset there is no ans and no session: only a SYNC is consumed;
//    another CPU word gets SYNC_ACK with its seq in the fill only (out of
//    step: the CPU resyncs), and a read of a line holding a device answer is
//    served as it is (the CPU may still be copying it). The last SYNC
//    consumed is kept over the reset (VERSION 3.1): that one SYNC is old, so
//    the session's SYNC still in a line is never consumed a second time.
// Fig. 5a: a consumed REQUEST (last, chunk 0, len <= 120) runs OP
// (invoke_fn) on its payload, waits DELAY cycles and is answered RESPONSE,
// last, the request's seq, result length (len; 64 for BLOOM, 0 for an empty
// BLOOM), the result from byte 8. A consumed SYNC is answered SYNC_ACK with
// its seq, as is a consumed word the engine cannot serve (the CPU then sees
// the protocol out of step). Answers are granted Exclusive when
// CONFIG.EXCLUSIVE is set.
// Multi-chunk messages (Fig. 5a): a pulled request chunk that is not a whole
// one-line message (last = 0, or chunk > 0) goes to the chunk unit, which
// serves one chunk (of any channel) at a time. Chunk 0 starts a message
// (seq), chunk k must follow chunk k-1 of the same seq; its len bytes are
// appended to the channel's request buffer (block RAM, MESSAGE_MAX bytes per
// channel, 128-byte rows: byte i of the message is byte i % 128 of row
// i / 128). A non-final chunk is answered ACK (last = 0, len 0, seq, the
// chunk's index). After the final chunk the unit streams the rows through the
// function unit (BLOOM: one 128-byte element per row, zero-padded past the
// message; ECHO/NOT/ADD1 over the whole message) into the channel's response
// buffer, waits DELAY cycles and answers RESPONSE chunk 0 (the first 120
// bytes; last when they are all). Each pulled MORE (seq) is answered with the
// next 120 bytes (RESPONSE, the MORE's chunk index, last on the final one).
// A chunk out of order, with another seq, beyond MESSAGE_MAX, or a MORE with
// nothing left to send is answered SYNC_ACK (the CPU sees the protocol out
// of step), as the model does. Pipelined requests (chunk 0x7ff, data banks)
// are not supported: they are out of order here.
// Fig. 5b: a consumed SYNC(n) is answered SYNC_ACK(n) and numbers the
// following messages n+1, n+2, ...; a consumed ACK (the receiver's
// acknowledgement of the message in ans, a CPU write a prefetch cannot fake)
// is answered with the next device message (dmsg_*): word 0 = MESSAGE, last,
// len, seq. A message longer than one line comes as chunks: dmsg_chunk says
// which chunk of the current message the engine sends next (0 after a reset
// and after a consumed SYNC: the producer starts that message again, so the
// new session gets it whole); dmsg_last marks its final chunk, after which
// the message number advances. coh_top ties dmsg_last to 1 (one-line
// messages).
// Data banks (BANK_LINES > 0 and bank_mode, the ECI NIC's FEAT_RX_BANKS;
// Documentation/protocols.md "Data banks", coh_banks.sv): a consumed ACK is
// answered with the next device message whole, MESSAGE, last, chunk 0x7ff,
// len = its bytes (dmsg_total), its first 120 bytes in the answered line x
// and the rest in bank x's data lines (2 + 2i + x of the channel), which
// coh_banks fills from the producer's chunks (dmsg_chunk / dmsg_r*) while it
// takes back every lent line of bank x; the answer waits for both. Plain
// reads of data lines are answered (the next cycle, never held) with the
// line's content and mark it lent. With bank_mode low (and in coh_top,
// BANK_LINES = 0) the data lines read as zeros and messages go in chunks.
// EXT_FN = 1 (the ECI NIC, fpga/rtl/nic/nic_eci_top.sv): no invoke_fn; the
// rows a Fig. 5a request reaches the function unit with (x_in_*, x_in_last
// on the message's final row) go out of the engine, and one result per
// request comes back on x_out_* (its length x_out_nbytes is the response's);
// the response is chunked and answered as any other. EXT_FN = 0 (coh_top)
// leaves the engine as it was.
// A signal takes ans back (LCI + UL) before the word is examined: that pulls
// the CPU's word in and makes the CPU's next access of ans miss. A held read
// is answered only after that LCI has been acknowledged. An Exclusive read (RLDX: the CPU wants to store) of either
// line is answered at once with the line's content.
module coh_engine #(
    parameter int AW   = 20,     // window offset bits
    parameter int ID_W = 6,
    parameter bit EXT_FN = 1'b0, // the function unit outside the engine (x_*)
    parameter int BANK_LINES = 0, // data lines per bank of the device-initiated channel (0: none)
    parameter int TX_BANK_LINES = 0, // data lines per bank of CPU channel 0 (0: none)
    localparam int XTW = $clog2(32'(coh_dev_pkg::CPU_CHANNELS)) + 1
) (
    input  logic            clk,
    input  logic            rst_n,
    // configuration (control block)
    input  logic            cfg_excl,
    input  logic [7:0]      cfg_op,
    input  logic [31:0]     cfg_timeout,
    input  logic [31:0]     cfg_delay,
    input  logic            bank_mode,       // device messages whole, with data banks (BANK_LINES > 0)
    input  logic            tx_bank_mode,    // channel 0 takes whole requests with data banks (TX_BANK_LINES > 0)
    output logic            cnt_result,      // pulses: a result / message answer
    output logic            cnt_not_ready,   //         a NOT_READY answer
    // directory controller interface
    input  logic            rdreq_valid,
    output logic            rdreq_ready,
    input  logic [ID_W-1:0] rdreq_id,
    input  logic [AW-1:0]   rdreq_addr,
    input  logic            rdreq_excl,
    output logic            rdrsp_valid,
    input  logic            rdrsp_ready,
    output logic [ID_W-1:0] rdrsp_id,
    output logic [1023:0]   rdrsp_data,
    output logic            rdrsp_excl,
    input  logic            wrreq_valid,
    output logic            wrreq_ready,
    input  logic [ID_W-1:0] wrreq_id,
    input  logic [AW-1:0]   wrreq_addr,
    input  logic [1023:0]   wrreq_data,
    input  logic [127:0]    wrreq_be,
    output logic            wrrsp_valid,
    input  logic            wrrsp_ready,
    output logic [ID_W-1:0] wrrsp_id,
    output logic            lclreq_valid,
    input  logic            lclreq_ready,
    output logic [AW-1:0]   lclreq_addr,
    output logic            lclreq_inv,
    input  logic            lclrsp_valid,
    output logic            lclrsp_ready,
    input  logic [AW-1:0]   lclrsp_addr,
    input  logic            lclrsp_inv,
    output logic            ulreq_valid,
    input  logic            ulreq_ready,
    output logic [AW-1:0]   ulreq_addr,
    // device-initiated messages (Fig. 5b channel)
    input  logic            dmsg_valid,
    output logic            dmsg_ready,
    input  logic [959:0]    dmsg_data,
    input  logic [6:0]      dmsg_len,
    input  logic            dmsg_last,   // the message's final chunk
    output logic [10:0]     dmsg_chunk,  // the chunk the engine sends next
    input  logic [15:0]     dmsg_total,  // bank_mode: the head message's bytes,
    input  logic            dmsg_rvalid, //   dmsg_data is its chunk dmsg_rchunk (read of a
    input  logic [10:0]     dmsg_rchunk, //   previous dmsg_chunk)
    // external function unit (EXT_FN = 1; unused otherwise)
    output logic            x_in_valid,
    input  logic            x_in_ready,
    output logic [1023:0]   x_in_data,
    output logic [7:0]      x_in_nbytes,
    output logic            x_in_last,
    output logic [XTW-1:0]  x_in_tag,
    input  logic            x_out_valid,
    input  logic [1023:0]   x_out_data,
    input  logic [7:0]      x_out_nbytes,
    input  logic [XTW-1:0]  x_out_tag,
    // work in flight (held reads, pending LC/LCI/UL, invocations, outputs):
    // a simulator may stop the clock while it is low and no input is valid
    output logic            busy,
    // simulation only (idle-cycle skipping; see quiet below): the engine
    // only waits, and for at most wait_edges edges
    output logic            only_waits,
    output logic [31:0]     wait_edges
);
    localparam int NCPU = 32'(coh_dev_pkg::CPU_CHANNELS);
    localparam int NCH  = NCPU + 1;
    localparam int NL   = 2 * NCH;
    localparam int STRIDE = 32'(coh_dev_pkg::CHANNEL_STRIDE);
    localparam int L1OFF  = 32'(coh_dev_pkg::LINE1_OFF);
    localparam int CB     = $clog2(STRIDE);   // channel field starts here
    localparam logic [7:0]  OP_BLOOM    = 8'(pio_dev_pkg::OP_BLOOM);
    // the control word (coh_dev.toml, = pioc/coherent/proto.hpp)
    localparam int KSH = 32'(coh_dev_pkg::CTRL_KIND_SHIFT);
    localparam int CSH = 32'(coh_dev_pkg::CTRL_CHUNK_SHIFT);
    localparam int LSH = 32'(coh_dev_pkg::CTRL_LEN_SHIFT);
    localparam int SSH = 32'(coh_dev_pkg::CTRL_SEQ_SHIFT);
    localparam logic [63:0] C_VALID = coh_dev_pkg::CTRL_VALID;
    localparam logic [63:0] C_LAST  = coh_dev_pkg::CTRL_LAST;
    localparam logic [2:0]  K_REQ  = 3'(coh_dev_pkg::KIND_REQUEST),  K_RSP = 3'(coh_dev_pkg::KIND_RESPONSE),
                            K_NR   = 3'(coh_dev_pkg::KIND_NOT_READY), K_SYNC = 3'(coh_dev_pkg::KIND_SYNC),
                            K_SACK = 3'(coh_dev_pkg::KIND_SYNC_ACK), K_MSG = 3'(coh_dev_pkg::KIND_MESSAGE);
    localparam logic [15:0] PMAX = 16'(coh_dev_pkg::PAYLOAD_MAX);
    localparam logic [2:0]  K_ACK = 3'(coh_dev_pkg::KIND_ACK), K_MORE = 3'(coh_dev_pkg::KIND_MORE);
    localparam int MMAX  = 32'(coh_dev_pkg::MESSAGE_MAX);
    localparam int ROWS  = MMAX / 128;          // buffer rows (128 bytes) per channel
    localparam int RW    = $clog2(ROWS);
    localparam int CW    = $clog2(NCPU);
    localparam int BA    = CW + RW;             // buffer address: {channel, row}

    // a control word of any chunk
    function automatic logic [63:0] mk_word(input logic [2:0] k, input logic last, input logic [10:0] chunk,
                                            input logic [15:0] len, input logic [31:0] sq);
        mk_word = C_VALID | (64'(k) << KSH) | (last ? C_LAST : 64'd0) | (64'(chunk) << CSH) | (64'(len) << LSH) |
                  (64'(sq) << SSH);
    endfunction

    // a one-line control word (last = 1, chunk 0); valid unless not ready
    function automatic logic [63:0] mk_ctrl(input logic [2:0] k, input logic [15:0] len, input logic [31:0] sq);
        mk_ctrl = (k == K_NR ? 64'd0 : C_VALID) | (64'(k) << KSH) | C_LAST | (64'(len) << LSH) | (64'(sq) << SSH);
    endfunction
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic logic [2:0]  w_kind(input logic [63:0] w); w_kind = w[KSH +: 3];  endfunction
    function automatic logic [10:0] w_chunk(input logic [63:0] w); w_chunk = w[CSH +: 11]; endfunction
    function automatic logic [15:0] w_len(input logic [63:0] w); w_len = w[LSH +: 16]; endfunction
    function automatic logic [31:0] w_seq(input logic [63:0] w); w_seq = w[SSH +: 32]; endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // a request the function unit serves: valid, REQUEST, one line
    function automatic logic w_is_req(input logic [63:0] w);
        w_is_req = (w & C_VALID) != 0 && w_kind(w) == K_REQ && (w & C_LAST) != 0 && w_chunk(w) == 11'd0 &&
                   w_len(w) <= PMAX;
    endfunction

    // a word the CPU writes: a signal if the engine has not consumed it yet
    function automatic logic w_cpu(input logic [63:0] w, input logic dev_init);
        w_cpu = (w & C_VALID) != 0 && (w_kind(w) == K_SYNC ||
                (dev_init ? w_kind(w) == K_ACK : (w_kind(w) == K_REQ || w_kind(w) == K_MORE)));
    endfunction

    // invocation state of a CPU channel
    localparam logic [2:0] I_IDLE = 3'd0, I_FETCH = 3'd1, I_QUEUED = 3'd2, I_COMPUTE = 3'd3, I_READY = 3'd4,
                           I_CHUNK = 3'd5,   // the chunk unit serves the pulled line
                           I_TAKEN = 3'd6,   // the pulled word is consumed: dispatch it
                           I_PIPE = 3'd7;    // a whole request (data banks): its bank taken back, streamed
    // what a ready answer is: a result (counted), another answer that
    // becomes the answered line (SYNC_ACK, ACK, out of step), or a transient
    // one (not ready, out of step before a SYNC): in the fill only, the line
    // keeps its content and the answered line stays where it was
    localparam logic [1:0] A_RES = 2'd0, A_TR = 2'd1, A_SACK = 2'd2;
    // Fig. 5b channel: idle, taking the other line back, examining it, an
    // ACK consumed (the next message goes out on the held line), an answer
    // ready (b_tr: transient)
    localparam logic [2:0] B_IDLE = 3'd0, B_FETCH = 3'd1, B_EXAM = 3'd2, B_PEND = 3'd3, B_READY = 3'd4;

    // ---- line address decode: line index (2 * channel + line) or -1
    function automatic int line_of(input logic [AW-1:0] a);
        int l;
        l = -1;
        for (int c = 0; c < NCH; c++)
            for (int k = 0; k < 2; k++)
                if (a == AW'(c * (1 << CB) + k * L1OFF)) l = 2 * c + k;
        line_of = l;
    endfunction

    function automatic logic [AW-1:0] addr_of(input int l);
        addr_of = AW'((l / 2) * (1 << CB) + (l % 2) * L1OFF);
    endfunction

    // ---- state
    // Unpacked (one element per line, per answer): a write sets one element;
    // as one packed vector Verilator copied all of it every cycle (issue 13).
    logic [1023:0]      lines [NL];   // the device's copy of every channel line
    logic [NCH-1:0]     par;          // line of channel c held (or held last): 2c + par[c]
    // the signal rule (Documentation/protocols.md): per channel the line
    // answered last (ansl, once ansv), the last CPU word consumed (taken),
    // and whether a SYNC came since reset (synced)
    logic [NCH-1:0]     ansv, ansl, synced;
    logic [NCH*64-1:0]  taken;
    // the last SYNC consumed per channel: not reset (block RAM beside the
    // line storage), so that after a reset a read of the line holding the
    // CPU's pending request does not consume the session's SYNC, still in
    // the other line, a second time and overwrite the request with SYNC_ACK
    logic [NCH*64-1:0]  last_sync;
    logic [2:0]         b_st;         // Fig. 5b channel state (B_*)
    logic               b_fline;      // line it examines
    logic               b_tr;         // its ready answer is transient
    logic [63:0]        b_res;        // its ready answer's control word
    logic [NCH-1:0]     hold;         // a trigger read is held
    logic [NCH*ID_W-1:0] hold_id;
    logic [NCH*32-1:0]  timer;
    logic [NCPU*3-1:0]  inv;          // invocation state
    logic [NCPU-1:0]    fline;        // line the invocation fetches (R at its start)
    logic [NCPU*32-1:0] dly;          // remaining DELAY cycles of a ready result
    logic [NCPU*32-1:0] cseq;         // seq of the channel's current request
    logic [NCPU*7-1:0]  clen;         // its payload length
    logic [NCPU*2-1:0]  akind;        // what the ready answer is (A_*)
    logic [31:0]        mseq;         // device messages sent (Fig. 5b channel)
    logic [10:0]        mchunk;       // chunk of the current message sent next
    logic [1023:0]      res [NCPU];   // answer line of a finished invocation
    logic [NL-1:0]      need_lci, lci_out, need_ul;
    logic [NL-1:0]      ul_line;      // the line whose UL ulreq_addr holds (none: a bank line's)
    // multi-chunk state of a CPU channel
    logic [NCPU*11-1:0] mnext;        // next request chunk expected
    logic [NCPU*16-1:0] moff;         // request bytes received
    logic [NCPU*16-1:0] rtot;         // response bytes
    logic [NCPU*16-1:0] rsent;        // response bytes answered

    // ---- the pulled request of every CPU channel (word 0 of its fetch line)
    logic [NCPU*64-1:0] qw;
    logic [NCPU-1:0]    q_req;
    logic [NCPU*960-1:0] qp;          // its payload (bytes 8..127)
    logic [NCPU*8-1:0]  ql;           // its length (when q_req)
    for (genvar c = 0; c < NCPU; c++) begin : g_pull
        assign qw[64*c +: 64]   = fline[c] ? lines[2*c+1][63:0] : lines[2*c][63:0];
        assign qp[960*c +: 960] = fline[c] ? lines[2*c+1][1023:64] : lines[2*c][1023:64];
        assign q_req[c]         = w_is_req(qw[64*c +: 64]);
        assign ql[8*c +: 8]     = 8'(w_len(qw[64*c +: 64]));
    end

    // ---- a pulled line for the chunk unit: a request chunk in order, or a MORE
    logic [NCPU-1:0] q_mc;
    for (genvar c = 0; c < NCPU; c++) begin : g_mc
        wire [63:0] w       = qw[64*c +: 64];
        wire [16:0] end_off = (w_chunk(w) == 11'd0 ? 17'd0 : 17'(moff[16*c +: 16])) + 17'(w_len(w));
        wire        chunk_ok = w_kind(w) == K_REQ && !q_req[c] && w_len(w) <= PMAX && 32'(end_off) <= MMAX &&
                               (w_chunk(w) == 11'd0 || (w_seq(w) == cseq[32*c +: 32] && w_chunk(w) == mnext[11*c +: 11]));
        wire        more_ok  = w_kind(w) == K_MORE && w_seq(w) == cseq[32*c +: 32] && rsent[16*c +: 16] < rtot[16*c +: 16];
        assign q_mc[c] = (w & C_VALID) != 0 && (chunk_ok || more_ok);
    end

    // function unit ports (below), shared by the CPU channels and the chunk unit
    localparam int TW = $clog2(NCPU) + 1;
    logic          f_in_valid, f_in_ready, f_out_valid;
    logic [TW-1:0] f_in_tag, f_out_tag;
    logic [1023:0] f_in_data, f_out_data;
    logic [7:0]    f_in_nbytes, f_out_nbytes;

    // ---- chunk unit: request / response buffers (block RAM) and their sequencer
    localparam logic [2:0] M_IDLE = 3'd0, M_WR0 = 3'd1, M_WR1 = 3'd2, M_FEED = 3'd3, M_RD0 = 3'd4, M_RD1 = 3'd5,
                           M_RD2 = 3'd6, M_WRM = 3'd7;
    logic [2:0]    m_st;
    logic [CW-1:0] m_c;              // channel served
    logic [63:0]   m_w;              // its pulled control word
    logic [959:0]  m_pay;            // its payload
    logic [15:0]   m_off;            // byte offset in the message (request write / response read)
    logic [15:0]   m_len;            // request bytes (compute)
    logic [15:0]   m_tot;            // response bytes (compute)
    logic [7:0]    m_n, m_iss, m_i;  // rows: to compute, read, taken by the function unit
    logic [8:0]    m_o;              // results received
    logic          m_dv;             // req_q holds row m_i
    logic          m_first;          // the response read is chunk 0 (DELAY applies)
    logic [10:0]   m_chunk;          // chunk index of the response
    logic [1023:0] m_lo;             // first row of a response read
    logic [7:0]    m_xn;             // EXT_FN: the result's length

    logic [1023:0] reqm [NCPU*ROWS];
    logic [1023:0] rspm [NCPU*ROWS];
    logic [1023:0] req_q, rsp_q;

    wire  [6:0]    m_s  = m_off[6:0];                  // byte in the row
    wire  [RW-1:0] m_r  = m_off[7 +: RW];              // row
    wire  [2047:0] m_x  = {1088'd0, m_pay} << {m_s, 3'b000};
    wire  [15:0]   m_wlen = w_len(m_w);

    // request buffer: chunk writes, row reads for the function unit
    wire  [1023:0] req_keep = (1024'd1 << {m_s, 3'b000}) - 1024'd1;   // bytes of earlier chunks in row m_r
    wire           m_feed_valid = m_st == M_FEED && m_dv;
    wire           m_take = m_feed_valid && f_in_ready;
    wire           m_adv  = !m_dv || m_take;
    wire  [15:0]   m_rest = m_len - {1'b0, m_i, 7'd0};
    wire  [7:0]    m_feed_nb = m_rest >= 16'd128 ? 8'd128 : m_rest[7:0];
    // M_WR0 reads row m_r, M_WRM writes it back with the chunk's first
    // bytes merged in, M_WR1 writes the rest into the next row
    wire           req_we = m_st == M_WRM || m_st == M_WR1;
    wire  [BA-1:0] req_wa = {m_c, m_st == M_WRM ? m_r : m_r + RW'(1)};
    wire  [1023:0] req_wd = m_st == M_WRM ? (req_q & req_keep) | (m_x[1023:0] & ~req_keep) : m_x[2047:1024];
    wire           req_re = (m_st == M_FEED && m_adv && m_iss < m_n) || m_st == M_WR0;
    wire  [BA-1:0] req_ra = {m_c, m_st == M_WR0 ? m_r : m_iss[RW-1:0]};
    always_ff @(posedge clk) begin
        if (req_we) reqm[req_wa] <= req_wd;
        if (req_re) req_q <= reqm[req_ra];
    end

    // response buffer: function unit results (BLOOM: 64 bytes each), chunk reads
    wire           m_res    = f_out_valid && f_out_tag == TW'(NCPU);
    wire           m_bloom  = !EXT_FN && cfg_op == OP_BLOOM;
    wire           rsp_we_lo = m_res && (!m_bloom || !m_o[0]);
    wire           rsp_we_hi = m_res && (!m_bloom || m_o[0]);
    wire  [BA-1:0] rsp_wa = {m_c, m_bloom ? m_o[RW:1] : m_o[RW-1:0]};
    wire  [1023:0] rsp_wd = m_bloom ? {f_out_data[511:0], f_out_data[511:0]} : f_out_data;
    wire           rsp_re = m_st == M_RD0 || m_st == M_RD1;
    wire  [BA-1:0] rsp_ra = {m_c, m_st == M_RD0 ? m_r : m_r + RW'(1)};
    always_ff @(posedge clk) begin
        if (rsp_we_lo) rspm[rsp_wa][511:0]    <= rsp_wd[511:0];
        if (rsp_we_hi) rspm[rsp_wa][1023:512] <= rsp_wd[1023:512];
        if (rsp_re) rsp_q <= rspm[rsp_ra];
    end
    // a response chunk: the 120 bytes at m_off
    wire  [2047:0] m_y     = {rsp_q, m_lo} >> {m_s, 3'b000};
    wire  [15:0]   m_left  = m_tot - m_off;
    wire  [15:0]   m_clen  = m_left >= PMAX ? PMAX : m_left;

    // ---- whole requests of channel 0 (data banks, coh_tx_banks below):
    // the streamer's rows to the function port: row k = message bytes
    // 128k .. 128k + 127, the last 120 bytes of bank line k - 1 (for k = 0
    // the control line's 120) and the first 8 of bank line k
    localparam logic [1:0] P_IDLE = 2'd0, P_WAIT = 2'd1, P_RD = 2'd2, P_ROW = 2'd3;
    logic [1:0]    p_st;
    logic [15:0]   p_len;
    logic [7:0]    p_k, p_rows, p_nl;   // row, rows, bank lines
    logic          p_bank;
    logic [959:0]  p_up;                // the bytes row p_k starts with
    logic [1023:0] tb_sq;               // the bank line read for row p_k
    wire           p_valid = p_st == P_ROW;
    wire  [1023:0] p_row   = {p_k < p_nl ? tb_sq[63:0] : 64'd0, p_up};
    wire  [15:0]   p_left  = p_len - {p_k, 7'd0};
    wire  [7:0]    p_nb    = p_left >= 16'd128 ? 8'd128 : p_left[7:0];
    wire           p_last  = p_k + 8'd1 == p_rows;

    // ---- function unit (shared by the CPU channels and the chunk unit)

    always_comb begin
        f_in_valid  = 1'b0;
        f_in_tag    = '0;
        f_in_data   = '0;
        f_in_nbytes = '0;
        for (int c = NCPU - 1; c >= 0; c--)
            if (inv[3*c +: 3] == I_TAKEN && q_req[c]) begin
                f_in_valid  = 1'b1;
                f_in_tag    = TW'(c);
                // the payload (bytes 8..127 of R) at byte 0
                f_in_data   = {64'd0, qp[960*c +: 960]};
                f_in_nbytes = ql[8*c +: 8];
            end
        if (p_valid) begin            // a whole request's rows (data banks, channel 0)
            f_in_valid  = 1'b1;
            f_in_tag    = '0;
            f_in_data   = p_row;
            f_in_nbytes = p_nb;
        end
        if (m_feed_valid) begin       // the chunk unit streams a buffered request (tag NCPU)
            f_in_valid  = 1'b1;
            f_in_tag    = TW'(NCPU);
            f_in_data   = req_q;
            f_in_nbytes = m_feed_nb;
        end
    end

    if (EXT_FN) begin : g_xfn
        // the request's rows leave the engine; x_in_last on a message's final row
        assign x_in_valid   = f_in_valid;
        assign f_in_ready   = x_in_ready;
        assign x_in_data    = f_in_data;
        assign x_in_nbytes  = f_in_nbytes;
        assign x_in_last    = m_feed_valid ? m_i + 8'd1 == m_n : !p_valid || p_last;
        assign x_in_tag     = f_in_tag;
        assign f_out_valid  = x_out_valid;
        assign f_out_data   = x_out_data;
        assign f_out_nbytes = x_out_nbytes;
        assign f_out_tag    = x_out_tag;
    end else begin : g_fn
        invoke_fn #(.TW(TW)) u_fn (
            .clk, .rst_n,
            .in_valid(f_in_valid), .in_ready(f_in_ready), .in_op(cfg_op), .in_nbytes(f_in_nbytes),
            .in_data(f_in_data), .in_tag(f_in_tag),
            .out_valid(f_out_valid), .out_ready(1'b1), .out_data(f_out_data),
            .out_nbytes(f_out_nbytes), .out_tag(f_out_tag));
        assign x_in_valid  = 1'b0;
        assign x_in_data   = '0;
        assign x_in_nbytes = '0;
        assign x_in_last   = 1'b0;
        assign x_in_tag    = '0;
    end

    // ---- data banks of the device-initiated channel (coh_banks)
    localparam int BL  = BANK_LINES > 0 ? BANK_LINES : 1;
    localparam int BIW = $clog2(2 * BL);
    // data line of a window offset: its index 2i + b, or -1
    function automatic int bank_line(input logic [AW-1:0] a);
        int o;
        o = 32'(a[CB-1:7]) - 2;   // (a size cast: yosys reads no int'())
        bank_line = BANK_LINES > 0 && a[AW-1:CB] == (AW - CB)'(NCPU) && a[6:0] == 7'd0 && o >= 0 && o < 2 * BL ?
                    o : -1;
    endfunction
    function automatic logic [AW-1:0] bank_addr(input logic [BIW-1:0] i);
        bank_addr = AW'(NCPU * (1 << CB)) + AW'((32'(i) + 2) * 128);
    endfunction
    logic            bk_rv;            // a data line's answer: next cycle
    logic [ID_W-1:0] bk_rid;
    logic            bk_rexcl;
    logic            bk_active, bk_bank, bk_ready, bk_lci_valid, bk_ul_valid, bk_busy, bk_waits;
    logic [BIW-1:0]  bk_lci_idx, bk_ul_idx;
    logic [959:0]    bk_ctl;
    logic [15:0]     bk_total;
    logic [10:0]     bk_chunk;
    logic [1023:0]   bk_q;
    int              rd_b, lr_b;
    assign rd_b = bank_line(rdreq_addr);
    assign lr_b = bank_line(lclrsp_addr);
    // the delivery's bank is the held line's (a held read during B_PEND is
    // always on the signalled line: a read of the answered one is served at once)
    wire bk_held = bk_bank == par[NCPU];

    // ---- answer selection: a held read that can be answered now
    logic [NCH-1:0] reclaiming;   // LCI of channel c's non-trigger line not yet acknowledged
    always_comb begin
        for (int c = 0; c < NCH; c++)
            reclaiming[c] = par[c] ? (need_lci[2*c] || lci_out[2*c]) : (need_lci[2*c+1] || lci_out[2*c+1]);
    end

    // per channel: its answer can go now (ready_now), or a not-ready one
    // once TIMEOUT has passed (may_nr)
    logic [NCH-1:0] ready_now, may_nr;
    always_comb begin
        for (int c = 0; c < NCPU; c++) begin
            ready_now[c] = inv[3*c +: 3] == I_READY && dly[32*c +: 32] == 32'd0;
            // not ready only while a consumed word's answer is computed
            // (the pulled line's examination takes a few cycles)
            may_nr[c]    = inv[3*c +: 3] != I_FETCH && inv[3*c +: 3] != I_QUEUED;
        end
        // with banks: the message in bank x (the held line) and nothing of it lent
        ready_now[NCPU] = b_st == B_READY ||
                          (b_st == B_PEND && dmsg_valid && (!bank_mode || (bk_ready && bk_held)));
        // no "not ready" while the message is going into the held line's
        // bank (its copy or the take-back of lent lines under way): the
        // answer follows, and a not-ready one would cost the CPU a round trip
        may_nr[NCPU]    = b_st == B_PEND && !(bank_mode && bk_active && bk_held);
    end

    logic          ans_go;         // an answer of a held read is loaded this cycle
    int            ans_c;
    logic          ans_nr;         // it is a not-ready answer after TIMEOUT
    always_comb begin
        ans_go = 1'b0;
        ans_c  = 0;
        ans_nr = 1'b0;
        for (int c = NCH - 1; c >= 0; c--) begin
            // Answer only once the other line is Invalid in the CPU's cache
            // (its LCI acknowledged): the CPU's next load goes there.
            if (hold[c] && !reclaiming[c] && (ready_now[c] || (may_nr[c] && timer[32*c +: 32] >= cfg_timeout))) begin
                ans_go = 1'b1;
                ans_c  = c;
                ans_nr = !ready_now[c];
            end
        end
        if (rdrsp_valid || bk_rv) ans_go = 1'b0;    // output register busy (or a data line's answer next)
    end
    assign dmsg_ready = ans_go && ans_c == NCPU && !ans_nr && b_st == B_PEND;

    assign dmsg_chunk = bank_mode ? bk_chunk : mchunk;

    // An incoming read is taken when no held answer wants the output register.
    assign rdreq_ready = !rdrsp_valid && !ans_go && !bk_rv;
    wire   rd_take     = rdreq_valid && rdreq_ready;
    int    rd_l;
    assign rd_l = line_of(rdreq_addr);

    assign wrreq_ready  = !wrrsp_valid;
    wire   wr_take      = wrreq_valid && wrreq_ready;
    int    wr_l;
    assign wr_l = line_of(wrreq_addr);

    assign lclrsp_ready = 1'b1;
    int    lr_l;
    assign lr_l = line_of(lclrsp_addr);

    // ---- LCI and UL issue: lowest pending line first. A line's LCI waits
    // while its previous LCI or UL is still in flight (one lock at a time).
    // (The UL's line as a mask, not an address compared per line, and the
    // search only while there is something to find: a simulator runs this
    // block every cycle, and the ten address compares were a tenth of an
    // rtl:nic_eci cycle.)
    int lci_pick, ul_pick;
    wire [NL-1:0] lci_cand = need_lci & ~lci_out & ~need_ul & (ulreq_valid ? ~ul_line : '1);
    always_comb begin
        lci_pick = -1;
        ul_pick  = -1;
        if (lci_cand != '0 || need_ul != '0)
            for (int l = NL - 1; l >= 0; l--) begin
                if (lci_cand[l]) lci_pick = l;
                if (need_ul[l])  ul_pick = l;
            end
    end

    // a consumed CPU word whose answer is not given yet
    logic [NCH-1:0] pending;
    always_comb begin
        for (int c = 0; c < NCPU; c++) pending[c] = inv[3*c +: 3] != I_IDLE;
        pending[NCPU] = b_st == B_PEND;
    end

    // ---- data banks: the unit (declared above)
    wire   rd_bank   = bank_mode && rd_b >= 0;
    wire   rd_txb    = tx_bank_mode && rd_t >= 0;
    wire   bk_lci_go = (!lclreq_valid || lclreq_ready) && lci_pick < 0 && bk_lci_valid;
    wire   bk_ul_go  = (!ulreq_valid || ulreq_ready) && ul_pick < 0 && bk_ul_valid;
    // the answer of a delivery leaves (the producer pops the message)
    wire   bk_done   = bank_mode && ans_go && ans_c == NCPU && !ans_nr && b_st == B_PEND;
    // a delivery starts: the next edge begins copying the head message
    wire   bk_start  = bank_mode && b_st == B_PEND && !bk_active && dmsg_rvalid;
    if (BANK_LINES > 0) begin : g_banks
        coh_banks #(.BL(BL)) u_banks (
            .clk, .rst_n,
            .start(bk_start), .start_bank(par[NCPU]),
            .active(bk_active), .bank(bk_bank), .ready(bk_ready), .done(bk_done), .ctl(bk_ctl),
            .total(bk_total),
            .chunk(bk_chunk), .c_last(dmsg_last), .c_valid(dmsg_rvalid), .c_k(dmsg_rchunk), .c_data(dmsg_data),
            .c_total(dmsg_total),
            .rd(rd_take && rd_bank), .rd_idx(BIW'(rd_b)), .rd_q(bk_q),
            // an LCI never overtakes the answer of a read of its line
            .lci_ok(!rdrsp_valid && !bk_rv && !ulreq_valid && !(rd_take && (rd_bank || rd_txb))),
            .lci_valid(bk_lci_valid), .lci_idx(bk_lci_idx),
            .lci_take(bk_lci_go), .lcia(lclrsp_valid && lr_b >= 0), .lcia_idx(BIW'(lr_b)),
            .ul_valid(bk_ul_valid), .ul_idx(bk_ul_idx), .ul_take(bk_ul_go), .busy(bk_busy),
            .waits(bk_waits));
    end else begin : g_no_banks
        assign bk_active = 1'b0;   assign bk_bank = 1'b0;  assign bk_ready = 1'b0;
        assign bk_ctl = '0;        assign bk_total = '0;   assign bk_chunk = '0;
        assign bk_q = '0;          assign bk_lci_valid = 1'b0; assign bk_lci_idx = '0;
        assign bk_ul_valid = 1'b0; assign bk_ul_idx = '0;  assign bk_busy = 1'b0;
        assign bk_waits = 1'b1;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_bk = ^dmsg_total ^ dmsg_rvalid ^ ^dmsg_rchunk ^ bk_active ^ bk_done ^ |lr_b;
        /* verilator lint_on UNUSEDSIGNAL */
    end
    // a whole message: the answered line (word + bytes 0..119), its rest in the bank

    // ---- data banks of CPU channel 0 (coh_tx_banks): whole requests
    localparam int TBL = TX_BANK_LINES > 0 ? TX_BANK_LINES : 1;
    localparam int TIW = $clog2(2 * TBL);
    // data line of a window offset in channel 0: its index 2i + b, or -1
    function automatic int tx_bank_line(input logic [AW-1:0] a);
        int o;
        o = 32'(a[CB-1:7]) - 2;
        tx_bank_line = TX_BANK_LINES > 0 && a[AW-1:CB] == '0 && a[6:0] == 7'd0 && o >= 0 && o < 2 * TBL ? o : -1;
    endfunction
    function automatic logic [AW-1:0] tx_bank_addr(input logic [TIW-1:0] i);
        tx_bank_addr = AW'((32'(i) + 2) * 128);
    endfunction
    int rd_t, wr_t, lr_t;
    assign rd_t = tx_bank_line(rdreq_addr);
    assign wr_t = tx_bank_line(wrreq_addr);
    assign lr_t = tx_bank_line(lclrsp_addr);
    // a whole request on channel 0 (pulled word): REQUEST, last, chunk 0x7ff, 1..max bytes
    wire [63:0] q0 = qw[63:0];
    wire q_pipe0 = tx_bank_mode && (q0 & C_VALID) != 0 && w_kind(q0) == K_REQ && (q0 & C_LAST) != 0 &&
                   w_chunk(q0) == 11'h7ff && w_len(q0) != 16'd0 && 32'(w_len(q0)) <= 120 + 128 * TBL;
    logic [NCPU-1:0] q_pipe, piped;   // piped: the channel's request came whole (its response goes whole)
    assign q_pipe = NCPU'(q_pipe0);
    // from the signal until the request is examined and, if whole, read:
    // every lent line of the request line's bank is taken back
    wire tb_take = inv[2:0] == I_FETCH || inv[2:0] == I_QUEUED || inv[2:0] == I_TAKEN || inv[2:0] == I_PIPE;
    logic            tb_ready, tb_lci_valid, tb_ul_valid, tb_busy, tb_waits, bk_rtx;
    logic [TIW-1:0]  tb_lci_idx, tb_ul_idx;
    logic [1023:0]   tb_q;
    wire   tb_lci_go = (!lclreq_valid || lclreq_ready) && lci_pick < 0 && !bk_lci_valid && tb_lci_valid;
    wire   tb_ul_go  = (!ulreq_valid || ulreq_ready) && ul_pick < 0 && !bk_ul_valid && tb_ul_valid;
    wire           p_take  = p_valid && f_in_ready && !m_feed_valid;
    wire           p_wait  = p_st == P_WAIT && !tb_ready;   // a whole request waits for its bank's LCIAs
    wire           tb_sre  = p_st == P_RD && p_k < p_nl;
    wire [TIW-1:0] tb_sidx = TIW'({p_k, p_bank});
    if (TX_BANK_LINES > 0) begin : g_tx_banks
        coh_tx_banks #(.BL(TBL)) u_tx_banks (
            .clk, .rst_n, .take(tx_bank_mode && tb_take), .take_bank(fline[0]), .ready(tb_ready),
            .rd(rd_take && rd_txb), .rd_idx(TIW'(rd_t)), .rd_q(tb_q),
            .wr(wr_take && tx_bank_mode && wr_t >= 0), .wr_idx(TIW'(wr_t)), .wr_data(wrreq_data), .wr_be(wrreq_be),
            .s_re(tb_sre), .s_idx(tb_sidx), .s_q(tb_sq),
            .lci_ok(!rdrsp_valid && !bk_rv && !ulreq_valid && !(rd_take && (rd_bank || rd_txb))),
            .lci_valid(tb_lci_valid), .lci_idx(tb_lci_idx), .lci_take(tb_lci_go),
            .lcia(lclrsp_valid && lr_t >= 0), .lcia_idx(TIW'(lr_t)),
            .ul_valid(tb_ul_valid), .ul_idx(tb_ul_idx), .ul_take(tb_ul_go), .busy(tb_busy), .waits(tb_waits));
    end else begin : g_no_tx_banks
        assign tb_ready = 1'b0;     assign tb_lci_valid = 1'b0; assign tb_ul_valid = 1'b0;
        assign tb_busy = 1'b0;      assign tb_waits = 1'b1;     assign tb_lci_idx = '0;
        assign tb_ul_idx = '0;      assign tb_q = '0;           assign tb_sq = '0;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_tb = tb_take ^ tb_lci_go ^ tb_ul_go ^ tb_sre ^ |tb_sidx ^ |wr_t ^ |lr_t;
        /* verilator lint_on UNUSEDSIGNAL */
    end

    logic inv_busy;
    always_comb begin
        inv_busy = 1'b0;
        for (int c = 0; c < NCPU; c++)
            if (inv[3*c +: 3] != I_IDLE) inv_busy = 1'b1;
    end
    assign busy = m_st != M_IDLE || |hold || |need_lci || |lci_out || |need_ul || inv_busy || rdrsp_valid || wrrsp_valid ||
                  lclreq_valid || ulreq_valid || bk_rv || bk_busy || tb_busy || p_st != P_IDLE;

    // Idle-cycle skipping (simulation only: lib/rtl/coh_rtl.cpp reads these
    // through speed.vlt, nic_eci_top through only_waits / wait_edges; the
    // hardware ignores them). quiet: while no input is valid, the next edge
    // changes nothing but the timers of held reads (+1 each): the engine
    // only waits for an LCIA (of a control line or of a data line it takes
    // back), the CPU's next read or a device message (a bank delivery that
    // would start is not quiet); a whole request may wait for its bank. quiet_for: edges until a held read's TIMEOUT
    // passes (its not-ready answer), all ones if none can time out; a
    // simulator may leave out quiet_for - 1 edges and advance those timers
    // (and the cycle counter) by the edges it left out.
    logic        quiet;
    logic [31:0] quiet_for;
    always_comb begin
        quiet = !cnt_result && !cnt_not_ready && !rdrsp_valid && !wrrsp_valid && !lclreq_valid &&
                !ulreq_valid && m_st == M_IDLE && b_st != B_EXAM && !ans_go && lci_pick < 0 && need_ul == '0 &&
                !bk_rv && bk_waits && !(BANK_LINES > 0 && bk_start) && tb_waits && (p_st == P_IDLE || p_wait);
        for (int c = 0; c < NCPU; c++)
            if (!(inv[3*c +: 3] == I_IDLE || inv[3*c +: 3] == I_FETCH ||
                  (inv[3*c +: 3] == I_READY && dly[32*c +: 32] == 32'd0) || (c == 0 && p_wait)))
                quiet = 1'b0;
        quiet_for = '1;
        for (int c = 0; c < NCH; c++)
            if (hold[c] && !reclaiming[c] && may_nr[c] && cfg_timeout - timer[32*c +: 32] < quiet_for)
                quiet_for = cfg_timeout - timer[32*c +: 32];
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            par          <= '0;
            ansv         <= '0;
            ansl         <= '0;
            synced       <= '0;
            taken        <= '0;
            b_st         <= B_IDLE;
            hold         <= '0;
            inv          <= '0;
            mseq         <= '0;
            mchunk       <= '0;
            cseq         <= '0;
            need_lci     <= '0;
            lci_out      <= '0;
            need_ul      <= '0;
            ul_line      <= '0;
            mnext        <= '0;
            moff         <= '0;
            rtot         <= '0;
            rsent        <= '0;
            m_st         <= M_IDLE;
            m_dv         <= 1'b0;
            // lines: not reset. Line storage keeps its content over a reset
            // (block RAM): a re-read after it must find an answer the CPU
            // may still be copying.
            rdrsp_valid  <= 1'b0;
            wrrsp_valid  <= 1'b0;
            lclreq_valid <= 1'b0;
            ulreq_valid  <= 1'b0;
            cnt_result   <= 1'b0;
            cnt_not_ready <= 1'b0;
            bk_rv        <= 1'b0;
            p_st         <= P_IDLE;
            piped        <= '0;
        end else begin
            cnt_result    <= 1'b0;
            cnt_not_ready <= 1'b0;
            if (rdrsp_valid && rdrsp_ready) rdrsp_valid <= 1'b0;
            if (wrrsp_valid && wrrsp_ready) wrrsp_valid <= 1'b0;
            if (lclreq_valid && lclreq_ready) lclreq_valid <= 1'b0;
            if (ulreq_valid && ulreq_ready) ulreq_valid <= 1'b0;

            // timers of held reads, DELAY countdown of ready results
            for (int c = 0; c < NCH; c++)
                if (hold[c]) timer[32*c +: 32] <= timer[32*c +: 32] + 32'd1;
            for (int c = 0; c < NCPU; c++)
                if (inv[3*c +: 3] == I_READY && dly[32*c +: 32] != 32'd0)
                    dly[32*c +: 32] <= dly[32*c +: 32] - 32'd1;

            // the pulled line examined: only a CPU word not consumed yet is a
            // signal (a speculative or early read, or a re-read after the
            // CPU's store of its next word, finds the word it already ran);
            // after a reset only a SYNC is (the word may be one already run)
            for (int c = 0; c < NCPU; c++)
                if (inv[3*c +: 3] == I_QUEUED) begin
                    logic [63:0] w;
                    w = qw[64*c +: 64];
                    dly[32*c +: 32] <= 32'd0;
                    if (!w_cpu(w, 1'b0) || w == taken[64*c +: 64] ||
                        (w_kind(w) == K_SYNC && w == last_sync[64*c +: 64])) begin
                        res[c]              <= {960'd0, mk_ctrl(K_NR, 16'd0, cseq[32*c +: 32])};
                        akind[2*c +: 2]     <= A_TR;
                        inv[3*c +: 3]       <= I_READY;
                    end else if (!synced[c] && w_kind(w) != K_SYNC) begin
                        res[c]              <= {960'd0, mk_ctrl(K_SACK, 16'd0, w_seq(w))};
                        akind[2*c +: 2]     <= A_TR;
                        inv[3*c +: 3]       <= I_READY;
                    end else begin
                        taken[64*c +: 64] <= w;
                        if (w_kind(w) == K_SYNC) last_sync[64*c +: 64] <= w;
                        ansv[c]           <= 1'b1;
                        ansl[c]           <= fline[c];
                        inv[3*c +: 3]     <= I_TAKEN;
                        timer[32*c +: 32] <= '0;   // TIMEOUT counts from the word's consumption
                    end
                end
            // consumed words the function unit does not serve: answered at once
            for (int c = 0; c < NCPU; c++)
                if (inv[3*c +: 3] == I_TAKEN && !q_req[c] && !q_mc[c] && !q_pipe[c]) begin
                    logic [63:0] w;
                    w = qw[64*c +: 64];
                    inv[3*c +: 3] <= I_READY;
                    dly[32*c +: 32] <= 32'd0;
                    begin
                        // SYNC, or a message the engine cannot serve: SYNC_ACK
                        res[c]              <= {960'd0, mk_ctrl(K_SACK, 16'd0, w_seq(w))};
                        akind[2*c +: 2]     <= A_SACK;
                        if (w_kind(w) == K_SYNC) begin
                            synced[c]         <= 1'b1;
                            cseq[32*c +: 32]  <= w_seq(w);
                            mnext[11*c +: 11] <= '0;
                            moff[16*c +: 16]  <= '0;
                            rtot[16*c +: 16]  <= '0;
                            rsent[16*c +: 16] <= '0;
                        end
                    end
                end

            // a whole request (channel 0): its bank taken back, then streamed
            for (int c = 0; c < NCPU; c++)
                if (inv[3*c +: 3] == I_TAKEN) piped[c] <= q_pipe[c];
            if (inv[2:0] == I_TAKEN && q_pipe[0]) begin
                inv[2:0] <= I_PIPE;
                p_st     <= P_WAIT;
                p_len    <= w_len(q0);
                p_k      <= '0;
                p_rows   <= 8'((w_len(q0) + 16'd127) >> 7);
                p_nl     <= w_len(q0) > 16'd120 ? 8'((w_len(q0) - 16'd120 + 16'd127) >> 7) : 8'd0;
                p_bank   <= fline[0];
                p_up     <= qp[959:0];
            end
            case (p_st)
                P_WAIT: if (tb_ready) p_st <= P_RD;   // every byte the CPU stored is in the bank
                P_RD:   p_st <= P_ROW;                // bank line p_k read
                P_ROW:
                    if (p_take) begin
                        p_up <= tb_sq[1023:64];
                        p_k  <= p_k + 8'd1;
                        p_st <= p_last ? P_IDLE : P_RD;
                    end
                default: ;
            endcase

            // function unit hand-over and results
            if (f_in_valid && f_in_ready)
                for (int c = 0; c < NCPU; c++)
                    if (TW'(c) == f_in_tag) begin
                        inv[3*c +: 3]   <= I_COMPUTE;
                        cseq[32*c +: 32] <= w_seq(qw[64*c +: 64]);
                        clen[7*c +: 7]   <= 7'(w_len(qw[64*c +: 64]));
                        // a one-line message: nothing left for MORE
                        mnext[11*c +: 11] <= 11'd1;
                        moff[16*c +: 16]  <= w_len(qw[64*c +: 64]);
                        rtot[16*c +: 16]  <= '0;
                        rsent[16*c +: 16] <= '0;
                    end
            if (f_out_valid)
                for (int c = 0; c < NCPU; c++)
                    if (TW'(c) == f_out_tag) begin
                        logic [15:0] n;
                        n = 16'(clen[7*c +: 7]);
                        if (cfg_op == OP_BLOOM) n = clen[7*c +: 7] == 7'd0 ? 16'd0 : 16'(f_out_nbytes);
                        if (EXT_FN) n = 16'(f_out_nbytes);
                        // a whole request's response comes whole too (chunk 0x7ff)
                        res[c]              <= {f_out_data[959:0], piped[c] ?
                                                mk_word(K_RSP, 1'b1, 11'h7ff, n, cseq[32*c +: 32]) :
                                                mk_ctrl(K_RSP, n, cseq[32*c +: 32])};
                        akind[2*c +: 2]     <= A_RES;
                        dly[32*c +: 32]     <= cfg_delay;
                        inv[3*c +: 3]       <= I_READY;
                    end

            // ---- chunk unit
            case (m_st)
                M_IDLE: begin
                    logic pick;
                    pick = 1'b0;
                    for (int c = 0; c < NCPU; c++)
                        if (!pick && inv[3*c +: 3] == I_TAKEN && q_mc[c]) begin
                            logic [63:0] w;
                            pick = 1'b1;
                            w = qw[64*c +: 64];
                            inv[3*c +: 3] <= I_CHUNK;
                            m_c   <= CW'(c);
                            m_w   <= w;
                            m_pay <= qp[960*c +: 960];
                            if (w_kind(w) == K_MORE) begin
                                m_off   <= rsent[16*c +: 16];
                                m_tot   <= rtot[16*c +: 16];
                                m_chunk <= w_chunk(w);
                                m_first <= 1'b0;
                                m_st    <= M_RD0;
                            end else begin
                                if (w_chunk(w) == 11'd0) begin   // a new message
                                    cseq[32*c +: 32]  <= w_seq(w);
                                    rtot[16*c +: 16]  <= '0;
                                    rsent[16*c +: 16] <= '0;
                                    m_off <= '0;
                                end else begin
                                    m_off <= moff[16*c +: 16];
                                end
                                m_st <= M_WR0;
                            end
                        end
                end
                M_WR0: m_st <= M_WRM;
                M_WRM, M_WR1: begin
                    if (m_st == M_WRM && 32'(m_s) + 32'(m_wlen) > 128) begin
                        m_st <= M_WR1;
                    end else begin
                        for (int c = 0; c < NCPU; c++)
                            if (CW'(c) == m_c) begin
                                mnext[11*c +: 11] <= w_chunk(m_w) + 11'd1;
                                moff[16*c +: 16]  <= m_off + m_wlen;
                                if ((m_w & C_LAST) == 0) begin
                                    res[c]              <= {960'd0, mk_word(K_ACK, 1'b0, w_chunk(m_w), 16'd0,
                                                                            w_seq(m_w))};
                                    akind[2*c +: 2]     <= A_SACK;   // not counted
                                    dly[32*c +: 32]     <= 32'd0;
                                    inv[3*c +: 3]       <= I_READY;
                                end
                            end
                        if ((m_w & C_LAST) == 0) begin
                            m_st <= M_IDLE;
                        end else begin
                            logic [15:0] l;
                            l = m_off + m_wlen;
                            m_len <= l;
                            m_n   <= 8'((l + 16'd127) >> 7);
                            m_iss <= '0;
                            m_i   <= '0;
                            m_o   <= '0;
                            m_dv  <= 1'b0;
                            m_st  <= M_FEED;
                        end
                    end
                end
                M_FEED: begin
                    if (m_adv) m_dv <= req_re;
                    if (req_re) m_iss <= m_iss + 8'd1;   // (req_re is M_FEED's here)
                    if (m_take) m_i <= m_i + 8'd1;
                    if (f_out_valid && f_out_tag == TW'(NCPU)) m_o <= m_o + 9'd1;
                    if (m_res) m_xn <= f_out_nbytes;
                    if (m_i == m_n && m_o == (EXT_FN ? 9'd1 : {1'b0, m_n})) begin
                        logic [15:0] t;
                        t = cfg_op == OP_BLOOM ? {2'd0, m_n, 6'd0} : m_len;
                        if (EXT_FN) t = 16'(m_xn);   // one result: the response
                        m_tot   <= t;
                        m_off   <= '0;
                        m_chunk <= '0;
                        m_first <= 1'b1;
                        for (int c = 0; c < NCPU; c++)
                            if (CW'(c) == m_c) rtot[16*c +: 16] <= t;
                        m_st <= M_RD0;
                    end
                end
                M_RD0: m_st <= M_RD1;
                M_RD1: begin
                    m_lo <= rsp_q;
                    m_st <= M_RD2;
                end
                default: begin   // M_RD2: the answer
                    for (int c = 0; c < NCPU; c++)
                        if (CW'(c) == m_c) begin
                            res[c]              <= {m_y[959:0], mk_word(K_RSP, m_off + m_clen == m_tot, m_chunk, m_clen,
                                                                        cseq[32*c +: 32])};
                            akind[2*c +: 2]     <= A_RES;
                            dly[32*c +: 32]     <= m_first ? cfg_delay : 32'd0;
                            inv[3*c +: 3]       <= I_READY;
                            rsent[16*c +: 16]   <= m_off + m_clen;
                        end
                    m_st <= M_IDLE;
                end
            endcase

            // answer of a held read. A transient answer (not ready, out of
            // step) goes in the fill only: the line keeps its content and
            // the answered line stays. Any other answer is written into the
            // held line, which becomes the answered one.
            if (ans_go) begin
                for (int c = 0; c < NCH; c++)
                    if (c == ans_c) begin
                        logic [1023:0] line;
                        logic          tr;
                        tr = 1'b1;
                        if (ans_nr) begin
                            line = {960'd0, mk_ctrl(K_NR, 16'd0, c < NCPU ? cseq[32*c +: 32] : 32'd0)};
                            cnt_not_ready <= 1'b1;
                        end else if (c < NCPU) begin
                            line = res[c];
                            tr   = akind[2*c +: 2] == A_TR;
                            if (akind[2*c +: 2] == A_RES) cnt_result <= 1'b1;
                            if (tr && (line[63:0] & C_VALID) == 0) cnt_not_ready <= 1'b1;
                            inv[3*c +: 3] <= I_IDLE;
                        end else if (b_st == B_READY) begin
                            line = {960'd0, b_res};
                            tr   = b_tr;
                            if (tr && (b_res & C_VALID) == 0) cnt_not_ready <= 1'b1;
                            b_st <= B_IDLE;
                        end else if (bank_mode) begin
                            // (the answer lines built here, where they are
                            // used, not as wires a simulator rebuilt at every
                            // change of the message's row: every cycle)
                            line   = {bk_ctl, mk_word(K_MSG, 1'b1, 11'h7ff, bk_total, mseq + 32'd1)};
                            tr     = 1'b0;
                            mseq   <= mseq + 32'd1;
                            cnt_result <= 1'b1;
                            b_st <= B_IDLE;
                        end else begin
                            line = {dmsg_data, mk_word(K_MSG, dmsg_last, mchunk, 16'(dmsg_len), mseq + 32'd1)};
                            tr   = 1'b0;
                            // the message number advances after its final chunk
                            if (dmsg_last) begin
                                mseq   <= mseq + 32'd1;
                                mchunk <= '0;
                            end else begin
                                mchunk <= mchunk + 11'd1;
                            end
                            cnt_result <= 1'b1;
                            b_st <= B_IDLE;
                        end
                        rdrsp_valid <= 1'b1;
                        rdrsp_id    <= hold_id[ID_W*c +: ID_W];
                        rdrsp_data  <= line;
                        rdrsp_excl  <= cfg_excl;
                        if (!tr) begin
                            if (par[c]) lines[2*c+1] <= line;
                            else        lines[2*c]   <= line;
                            ansv[c] <= 1'b1;
                            ansl[c] <= par[c];
                        end
                        hold[c] <= 1'b0;
                    end
            end

            // Fig. 5b: the pulled line examined, as for a CPU channel; an ACK
            // is consumed and the next message answers the held read
            if (b_st == B_EXAM) begin
                logic [63:0] w;
                w = b_fline ? lines[2*NCPU+1][63:0] : lines[2*NCPU][63:0];
                b_st <= B_READY;
                b_tr <= 1'b1;
                if (!w_cpu(w, 1'b1) || w == taken[64*NCPU +: 64] ||
                    (w_kind(w) == K_SYNC && w == last_sync[64*NCPU +: 64])) begin
                    b_res <= mk_ctrl(K_NR, 16'd0, 32'd0);
                end else if (!synced[NCPU] && w_kind(w) != K_SYNC) begin
                    b_res <= mk_ctrl(K_SACK, 16'd0, w_seq(w));
                end else begin
                    taken[64*NCPU +: 64] <= w;
                    if (w_kind(w) == K_SYNC) last_sync[64*NCPU +: 64] <= w;
                    ansv[NCPU] <= 1'b1;
                    ansl[NCPU] <= b_fline;
                    if (w_kind(w) == K_SYNC) begin   // a new owner: messages numbered from its n
                        synced[NCPU] <= 1'b1;
                        mseq  <= w_seq(w);
                        mchunk <= '0;   // the new session gets the current message whole
                        b_res <= mk_ctrl(K_SACK, 16'd0, w_seq(w));
                        b_tr  <= 1'b0;
                    end else begin
                        b_st <= B_PEND;
                        timer[32*NCPU +: 32] <= '0;   // TIMEOUT counts from the ACK's consumption
                    end
                end
            end

            // a new read request
            if (rd_take) begin
                logic immediate, fetch;
                logic [1023:0] line;
                immediate = !rd_bank && !rd_txb;   // a data line: answered from its bank next cycle
                if (rd_bank || rd_txb) begin
                    bk_rtx   <= rd_txb;
                    bk_rv    <= 1'b1;
                    bk_rid   <= rdreq_id;
                    bk_rexcl <= rdreq_excl;
                end
                fetch = 1'b0;
                line = '0;
                for (int c = 0; c < NCH; c++)
                    for (int k = 0; k < 2; k++)
                        if (rd_l == 2 * c + k) begin
                            line = lines[2*c + k];
                            if (rdreq_excl) begin
                                // the CPU wants to store: answered at once
                            end else if (hold[c] && k == 32'(par[c])) begin
                                line = {960'd0, mk_ctrl(K_NR, 16'd0, 32'd0)};  // a second reader of the held line
                            end else if (hold[c] || (ansv[c] && k == 32'(ansl[c]))) begin
                                // the answered line (a re-read after an eviction,
                                // a prefetch): the same content, nothing changes
                            end else if (!ansv[c] && (line[63:0] & C_VALID) != 0 && !w_cpu(line[63:0], c == NCPU)) begin
                                // after a reset: an answer the CPU may still be copying
                            end else begin
                                // the other line: a signal if the answered line
                                // holds a CPU word not consumed yet (examined
                                // once it is back); while a consumed word's
                                // answer is pending, the read waits for it
                                immediate = 1'b0;
                                hold[c] <= 1'b1;
                                par[c]  <= k[0];
                                hold_id[ID_W*c +: ID_W] <= rdreq_id;
                                timer[32*c +: 32] <= '0;
                                if (!pending[c]) begin
                                    fetch = 1'b1;
                                    if (!lci_out[2*c + 1 - k]) need_lci[2*c + 1 - k] <= 1'b1;
                                    if (c == NCPU) begin
                                        b_st    <= B_FETCH;
                                        b_fline <= k == 0;
                                    end
                                end
                            end
                        end
                // 5a: an idle channel fetches its other line now
                for (int c = 0; c < NCPU; c++)
                    for (int k = 0; k < 2; k++)
                        if (fetch && rd_l == 2 * c + k) begin
                            inv[3*c +: 3] <= I_FETCH;
                            fline[c] <= k == 0;
                        end
                if (immediate) begin
                    rdrsp_valid <= 1'b1;
                    rdrsp_id    <= rdreq_id;
                    rdrsp_data  <= line;
                    rdrsp_excl  <= cfg_excl || rdreq_excl;
                end
            end

            if (bk_rv) begin
                bk_rv       <= 1'b0;
                rdrsp_valid <= 1'b1;
                rdrsp_id    <= bk_rid;
                rdrsp_data  <= bk_rtx ? tb_q : bk_q;
                rdrsp_excl  <= cfg_excl || bk_rexcl;
            end

            // write-backs into the device's copy of the line
            if (wr_take) begin
                // the enabled bytes merged in here (not as a 1024-bit mask
                // evaluated with every change of the inputs)
                logic [1023:0] merged;
                merged = '0;
                for (int l = 0; l < NL; l++)
                    if (wr_l == l) merged = lines[l];
                for (int b = 0; b < 128; b++)
                    if (wrreq_be[b]) merged[8*b +: 8] = wrreq_data[8*b +: 8];
                for (int l = 0; l < NL; l++)
                    if (wr_l == l) lines[l] <= merged;
                wrrsp_valid <= 1'b1;
                wrrsp_id    <= wrreq_id;
            end

            // LCI out, LCIA in, UL out
            if ((!lclreq_valid || lclreq_ready) && lci_pick >= 0) begin
                lclreq_valid <= 1'b1;
                lclreq_addr  <= addr_of(lci_pick);
                lclreq_inv   <= 1'b1;
                for (int l = 0; l < NL; l++)
                    if (l == lci_pick) begin
                        need_lci[l] <= 1'b0;
                        lci_out[l]  <= 1'b1;
                    end
            end else if (bk_lci_go) begin   // a lent data line taken back
                lclreq_valid <= 1'b1;
                lclreq_addr  <= bank_addr(bk_lci_idx);
                lclreq_inv   <= 1'b1;
            end else if (tb_lci_go) begin   // a lent line of a request's bank taken back
                lclreq_valid <= 1'b1;
                lclreq_addr  <= tx_bank_addr(tb_lci_idx);
                lclreq_inv   <= 1'b1;
            end
            if (lclrsp_valid && lr_l >= 0) begin
                for (int l = 0; l < NL; l++)
                    if (l == lr_l) begin
                        lci_out[l] <= 1'b0;
                        need_ul[l] <= 1'b1;
                    end
                for (int c = 0; c < NCPU; c++)
                    if (inv[3*c +: 3] == I_FETCH && lr_l == 2 * c + 32'(fline[c]))
                        inv[3*c +: 3] <= I_QUEUED;
                if (b_st == B_FETCH && lr_l == 2 * NCPU + 32'(b_fline))
                    b_st <= B_EXAM;
            end
            if ((!ulreq_valid || ulreq_ready) && ul_pick >= 0) begin
                ulreq_valid <= 1'b1;
                ulreq_addr  <= addr_of(ul_pick);
                ul_line     <= NL'(1) << ul_pick;
                for (int l = 0; l < NL; l++)
                    if (l == ul_pick) need_ul[l] <= 1'b0;
            end else if (bk_ul_go) begin
                ulreq_valid <= 1'b1;
                ulreq_addr  <= bank_addr(bk_ul_idx);   // in the bank window, past every line's
                ul_line     <= '0;
            end else if (tb_ul_go) begin
                ulreq_valid <= 1'b1;
                ulreq_addr  <= tx_bank_addr(tb_ul_idx);
                ul_line     <= '0;
            end
        end
    end

    assign only_waits = quiet;
    assign wait_edges = quiet_for;

    wire unused = lclrsp_inv ^ |f_out_data[1023:960] ^ |m_y[2047:960] ^ x_in_ready ^
                  x_out_valid ^ |x_out_data ^ |x_out_nbytes ^ |x_out_tag;
endmodule
