// Clock-domain-safe transfer of a data word with valid/ready on both sides:
// a four-phase req/ack handshake between the domains. The data register is
// held stable while req is up, so only the synchronised req/ack bits cross.
// Throughput: one word per about 2 * (STAGES + 1) cycles of the slower clock;
// meant for control traffic (configuration, doorbells, counters).
module cdc_handshake #(
    parameter int DW     = 64,
    parameter int STAGES = 2
) (
    // source domain
    input  logic          s_clk,
    input  logic          s_rst_n,
    input  logic          s_valid,
    output logic          s_ready,
    input  logic [DW-1:0] s_data,
    // destination domain
    input  logic          d_clk,
    input  logic          d_rst_n,
    output logic          d_valid,
    input  logic          d_ready,
    output logic [DW-1:0] d_data
);
    logic          req;        // s_clk
    logic          ack;        // d_clk
    logic          req_d;      // req synchronised into d_clk
    logic          ack_s;      // ack synchronised into s_clk
    logic [DW-1:0] hold;       // s_clk, stable while req is up

    sync_ff #(.STAGES(STAGES)) u_req (.clk(d_clk), .d(req), .q(req_d));
    sync_ff #(.STAGES(STAGES)) u_ack (.clk(s_clk), .d(ack), .q(ack_s));

    // Source: idle when req and ack_s are both low.
    assign s_ready = !req && !ack_s;
    always_ff @(posedge s_clk) begin
        if (!s_rst_n) begin
            req <= 1'b0;
        end else if (s_valid && s_ready) begin
            req  <= 1'b1;
            hold <= s_data;
        end else if (req && ack_s) begin
            req <= 1'b0;
        end
    end

    // Destination: present the word once per req rising edge.
    logic pending;
    assign d_valid = pending;
    always_ff @(posedge d_clk) begin
        if (!d_rst_n) begin
            ack     <= 1'b0;
            pending <= 1'b0;
        end else begin
            if (req_d && !ack && !pending) begin
                pending <= 1'b1;
                d_data  <= hold;      // stable: req is up and not yet acked
            end
            if (pending && d_ready) begin
                pending <= 1'b0;
                ack     <= 1'b1;
            end
            if (!req_d && ack) ack <= 1'b0;
        end
    end
endmodule
