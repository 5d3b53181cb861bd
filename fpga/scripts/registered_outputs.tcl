# The outputs a simulator samples before a clock edge without evaluating the
# image first must come from flip-flops only: no combinational path from any
# input. lib/rtl evaluates rtl:xdma and rtl:nic_eci once per cycle
# (tb::sim::arm_edge), which is exact only then; its tests compare against
# two evaluations per cycle, but only for the traffic they make. This checks
# the structure: for each pattern in $OUTPUTS, no input of $TOP may be in the
# combinational input cone of the matching outputs (flip-flops end a cone;
# memories read without a clock do not). Fails naming the inputs found.
yosys -import
foreach f $::env(SRCS) { read_verilog -sv $f }
hierarchy -check -top $::env(TOP)
yosys proc   ;# (Tcl has a proc of its own)
flatten
opt_clean
# Only flip-flops that change at the clock alone end a cone: a latch, or an
# asynchronous reset, set or load, passes an input on between edges and stays
# in the cone (the checked tops have none).
set ff {$dff,$dffe,$sdff,$sdffe,$sdffce}
foreach o $::env(OUTPUTS) {
    log "$::env(TOP): inputs with a combinational path to the outputs $o (none allowed)"
    select -assert-none o:$o %ci*:-$ff i:* %i
}
