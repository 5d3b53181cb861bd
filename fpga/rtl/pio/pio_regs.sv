// Control block of the PIO image: the registers of fpga/regmap/pio_dev.toml
// below the windows (offsets and reset values from the generated package
// pio_dev_pkg). A mem-bus target (see common/axi4_to_mem.sv) with one cycle
// of read latency, except INVOKE_STATUS, which it holds:
//
//  * A read covering byte 0 of INVOKE_STATUS: while an invocation is in
//    flight the read is held until it finishes, then answered
//    STATUS_DONE | seq << 32 | result length (seq = INVOKE_COUNT after it);
//    if it does not finish within INVOKE_TIMEOUT cycles of the read's arrival
//    the answer is NOT_READY (counted in NOT_READY_COUNT). With nothing in
//    flight the answer comes at once: the last invocation's status again, or
//    NOT_READY (counted) if none ever finished. While it holds a read, `hold`
//    is up and the image takes no other access (answers stay in order).
//  * A 32-bit read of the upper half (0x100c) returns the upper half of the
//    last answer, without side effect. A read of CYCLES covering its low
//    half latches the high half, which a 32-bit read of 0x1c returns.
//  * DOORBELL fires on a full 64-bit write only; other writes to it are ignored.
module pio_regs
(
    input  logic        clk,
    input  logic        rst_n,
    input  logic        req,          // m_valid && m_ready for this block
    input  logic        we,
    input  logic [12:2] addr,
    input  logic [63:0] wdata,
    input  logic [7:0]  wstrb,
    output logic        rvalid,
    output logic [63:0] rdata,
    output logic        hold,
    input  logic [63:0] cycles,
    // invoke unit
    output logic        start,
    output logic [31:0] start_len,
    output logic [7:0]  start_op,
    output logic [31:0] cfg_delay,
    input  logic        busy,         // invoke unit has an invocation in flight
    input  logic        done,
    input  logic [31:0] done_len
);
    logic [31:0] scratch, timeout, invoke_count, nr_count;
    logic [31:0] cycles_hi;
    logic [63:0] last_status;
    logic        pending;        // some invocation has finished
    logic [31:0] pend_len;
    logic [30:0] pend_seq;
    logic [31:0] timer;

    // Word index (offset[12:3]) and half (offset[2]) of every register, from the package.
    localparam logic [31:0] O_ID = pio_dev_pkg::ID_OFF, O_VER = pio_dev_pkg::VERSION_OFF,
        O_CAPS = pio_dev_pkg::CAPS_OFF, O_MHZ = pio_dev_pkg::CLOCK_MHZ_OFF,
        O_SCR = pio_dev_pkg::SCRATCH_OFF, O_CYC = pio_dev_pkg::CYCLES_OFF,
        O_TMO = pio_dev_pkg::INVOKE_TIMEOUT_OFF, O_DLY = pio_dev_pkg::INVOKE_DELAY_OFF,
        O_CNT = pio_dev_pkg::INVOKE_COUNT_OFF, O_NRC = pio_dev_pkg::NOT_READY_COUNT_OFF,
        O_DB = pio_dev_pkg::DOORBELL_OFF, O_ST = pio_dev_pkg::INVOKE_STATUS_OFF;
    localparam logic [63:0] STATUS_DONE = pio_dev_pkg::STATUS_DONE;
    localparam logic [63:0] NOT_READY = pio_dev_pkg::NOT_READY;
    localparam logic [31:0] CAPS = 32'(pio_dev_pkg::CAP_INVOKE | pio_dev_pkg::CAP_BRAM | pio_dev_pkg::CAP_BLOOM);
    localparam logic [31:0] VERSION = {pio_dev_pkg::VERSION_MAJOR, pio_dev_pkg::VERSION_MINOR};

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [63:0] d,
                                         input logic [7:0] s, input logic hi);
        logic [31:0] r;
        for (int b = 0; b < 4; b++)
            r[8*b +: 8] = s[(hi ? 4 : 0) + b] ? d[(hi ? 32 : 0) + 8*b +: 8] : old[8*b +: 8];
        merge = r;
    endfunction

    /* verilator lint_off UNUSEDSIGNAL */
    // A 32-bit register's value placed in its half of the 64-bit word.
    function automatic logic [63:0] at(input logic [31:0] off, input logic [31:0] val);
        at = off[2] ? {val, 32'd0} : {32'd0, val};
    endfunction

    function automatic logic is(input logic [31:0] off, input logic [9:0] wd);
        is = off[12:3] == wd;
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    wire [9:0] word = addr[12:3];
    wire status_rd = req && !we && is(O_ST, word) && wstrb[0];
    wire [63:0] status_now = STATUS_DONE | {1'b0, pend_seq, pend_len};

    // Read value of the plain registers (INVOKE_STATUS's held reads handled
    // below), computed in the read's branch of the always_ff, not as a mux
    // beside it: the Verilated image then decodes an address only when a read
    // comes, instead of at every evaluation (its input-combinational region
    // ran this decode every cycle, issue 13). The same logic in hardware.
    function automatic logic [63:0] rd_value(input logic [9:0] w, input logic hi);
        logic [63:0] r;
        r = '0;
        if (is(O_ID, w))   r = r | at(O_ID, pio_dev_pkg::ID_VALUE);
        if (is(O_VER, w))  r = r | at(O_VER, VERSION);
        if (is(O_CAPS, w)) r = r | at(O_CAPS, CAPS);
        if (is(O_MHZ, w))  r = r | at(O_MHZ, pio_dev_pkg::CLOCK_MHZ);
        if (is(O_SCR, w))  r = r | at(O_SCR, scratch);
        if (is(O_TMO, w))  r = r | at(O_TMO, timeout);
        if (is(O_DLY, w))  r = r | at(O_DLY, cfg_delay);
        if (is(O_CNT, w))  r = r | at(O_CNT, invoke_count);
        if (is(O_NRC, w))  r = r | at(O_NRC, nr_count);
        if (is(O_CYC, w))  r = hi ? {cycles_hi, cycles[31:0]} : cycles;
        if (is(O_ST, w))   r = last_status;
        rd_value = r;
    endfunction

    always_ff @(posedge clk) begin
        start  <= 1'b0;
        rvalid <= 1'b0;
        if (!rst_n) begin
            scratch      <= 32'(pio_dev_pkg::SCRATCH_RESET);
            timeout      <= pio_dev_pkg::INVOKE_TIMEOUT_RESET;
            cfg_delay    <= pio_dev_pkg::INVOKE_DELAY_RESET;
            invoke_count <= pio_dev_pkg::INVOKE_COUNT_RESET;
            nr_count     <= pio_dev_pkg::NOT_READY_COUNT_RESET;
            cycles_hi    <= '0;
            last_status  <= '0;
            pending      <= 1'b0;
            hold         <= 1'b0;
        end else begin
            if (done) begin
                invoke_count <= invoke_count + 32'd1;
                pending      <= 1'b1;   // stays: later reads repeat the last status
                pend_len     <= done_len;
                pend_seq     <= 31'(invoke_count + 32'd1);
            end

            if (req && we) begin
                if (is(O_SCR, word)) scratch   <= merge(scratch, wdata, wstrb, O_SCR[2]);
                if (is(O_TMO, word)) timeout   <= merge(timeout, wdata, wstrb, O_TMO[2]);
                if (is(O_DLY, word)) cfg_delay <= merge(cfg_delay, wdata, wstrb, O_DLY[2]);
                if (is(O_DB, word) && wstrb == 8'hff) begin
                    start     <= 1'b1;
                    start_len <= wdata[31:0];
                    start_op  <= wdata[39:32];
                end
            end

            if (req && !we && !status_rd) begin
                rvalid <= 1'b1;
                rdata  <= rd_value(word, addr[2]);
                if (is(O_CYC, word) && !addr[2]) cycles_hi <= cycles[63:32];
            end

            // INVOKE_STATUS: hold while an invocation is in flight.
            if (status_rd) begin
                hold  <= 1'b1;
                timer <= '0;
            end
            if (hold) begin
                if (done) begin
                    // its status is registered at this edge: answer next cycle
                end else if (!busy && pending) begin
                    hold        <= 1'b0;
                    rvalid      <= 1'b1;
                    rdata       <= status_now;
                    last_status <= status_now;
                end else if (!busy || timer >= timeout) begin
                    hold        <= 1'b0;
                    rvalid      <= 1'b1;
                    rdata       <= NOT_READY;
                    last_status <= NOT_READY;
                    nr_count    <= nr_count + 32'd1;
                end else begin
                    timer <= timer + 32'd1;
                end
            end
        end
    end
endmodule
