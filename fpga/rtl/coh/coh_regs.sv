// Control block of the coherent invocation engine (fpga/regmap/coh_dev.toml,
// generated package coh_dev_pkg): a mem-bus target with one cycle of read
// latency. A read of CYCLES covering its low half latches the high half.
module coh_regs (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        req,
    input  logic        we,
    input  logic [11:2] addr,
    input  logic [63:0] wdata,
    input  logic [7:0]  wstrb,
    output logic        rvalid,
    output logic [63:0] rdata,
    input  logic [63:0] cycles,
    output logic        cfg_excl,
    output logic [7:0]  cfg_op,
    output logic [31:0] cfg_timeout,
    output logic [31:0] cfg_delay,
    input  logic        cnt_result,
    input  logic        cnt_not_ready
);
    localparam logic [31:0] O_ID = coh_dev_pkg::ID_OFF, O_VER = coh_dev_pkg::VERSION_OFF,
        O_CFG = coh_dev_pkg::CONFIG_OFF, O_OP = coh_dev_pkg::OP_OFF,
        O_TMO = coh_dev_pkg::TIMEOUT_OFF, O_DLY = coh_dev_pkg::DELAY_OFF,
        O_CNT = coh_dev_pkg::INVOKE_COUNT_OFF, O_NRC = coh_dev_pkg::NOT_READY_COUNT_OFF,
        O_CYC = coh_dev_pkg::CYCLES_OFF, O_SCR = coh_dev_pkg::SCRATCH_OFF,
        O_CHN = coh_dev_pkg::CHANNELS_OFF;
    // what coh_engine is built with (its NCPU), so the register cannot disagree
    localparam logic [31:0] CHANNELS = 32'(coh_dev_pkg::CPU_CHANNELS);
    localparam logic [31:0] VERSION = {coh_dev_pkg::VERSION_MAJOR, coh_dev_pkg::VERSION_MINOR};

    logic [31:0] config_q, op_q, scratch, count, nr_count, cycles_hi;
    assign cfg_excl = config_q[0];
    assign cfg_op   = op_q[7:0];

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [63:0] d,
                                         input logic [7:0] s, input logic hi);
        logic [31:0] r;
        for (int b = 0; b < 4; b++)
            r[8*b +: 8] = s[(hi ? 4 : 0) + b] ? d[(hi ? 32 : 0) + 8*b +: 8] : old[8*b +: 8];
        merge = r;
    endfunction
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic logic [63:0] at(input logic [31:0] off, input logic [31:0] val);
        at = off[2] ? {val, 32'd0} : {32'd0, val};
    endfunction
    function automatic logic is(input logic [31:0] off, input logic [8:0] wd);
        is = off[11:3] == wd;
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    wire [8:0] word = addr[11:3];
    // Read value, computed in the read's branch of the always_ff (as in
    // pio_regs.sv): the Verilated image decodes an address only when a read
    // comes, not at every evaluation. The same logic in hardware.
    function automatic logic [63:0] rd_value(input logic [8:0] w, input logic hi);
        logic [63:0] r;
        r = '0;
        if (is(O_ID, w))  r = r | at(O_ID, coh_dev_pkg::ID_VALUE);
        if (is(O_VER, w)) r = r | at(O_VER, VERSION);
        if (is(O_CFG, w)) r = r | at(O_CFG, config_q);
        if (is(O_OP, w))  r = r | at(O_OP, op_q);
        if (is(O_TMO, w)) r = r | at(O_TMO, cfg_timeout);
        if (is(O_DLY, w)) r = r | at(O_DLY, cfg_delay);
        if (is(O_CNT, w)) r = r | at(O_CNT, count);
        if (is(O_NRC, w)) r = r | at(O_NRC, nr_count);
        if (is(O_SCR, w)) r = r | at(O_SCR, scratch);
        if (is(O_CHN, w)) r = r | at(O_CHN, CHANNELS);
        if (is(O_CYC, w)) r = hi ? {cycles_hi, cycles[31:0]} : cycles;
        rd_value = r;
    endfunction

    always_ff @(posedge clk) begin
        rvalid <= 1'b0;
        if (!rst_n) begin
            config_q    <= coh_dev_pkg::CONFIG_RESET;
            op_q        <= coh_dev_pkg::OP_RESET;
            cfg_timeout <= coh_dev_pkg::TIMEOUT_RESET;
            cfg_delay   <= coh_dev_pkg::DELAY_RESET;
            scratch     <= coh_dev_pkg::SCRATCH_RESET;
            count       <= '0;
            nr_count    <= '0;
            cycles_hi   <= '0;
        end else begin
            if (cnt_result)    count    <= count + 32'd1;
            if (cnt_not_ready) nr_count <= nr_count + 32'd1;
            if (req && we) begin
                if (is(O_CFG, word)) config_q    <= merge(config_q, wdata, wstrb, O_CFG[2]);
                if (is(O_OP, word))  op_q        <= merge(op_q, wdata, wstrb, O_OP[2]);
                if (is(O_TMO, word)) cfg_timeout <= merge(cfg_timeout, wdata, wstrb, O_TMO[2]);
                if (is(O_DLY, word)) cfg_delay   <= merge(cfg_delay, wdata, wstrb, O_DLY[2]);
                if (is(O_SCR, word)) scratch     <= merge(scratch, wdata, wstrb, O_SCR[2]);
            end
            if (req && !we) begin
                rvalid <= 1'b1;
                rdata  <= rd_value(word, addr[2]);
                if (is(O_CYC, word) && !addr[2]) cycles_hi <= cycles[63:32];
            end
        end
    end
endmodule
