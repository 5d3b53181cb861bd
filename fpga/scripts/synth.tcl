# Generic yosys synthesis of one top: $TOP from $SRCS, resource summary into
# $OUT.stat. The hierarchy is kept (each module is synthesised once, e.g. the
# 64 identical Bloom pipeline stages) and `stat -top` multiplies it out.
# Memories stay $mem cells (block RAM on an FPGA) instead of flip-flops.
yosys -import
foreach f $::env(SRCS) { read_verilog -sv $f }
hierarchy -check -top $::env(TOP)
synth -top $::env(TOP) -run :fine
opt -fast -full
techmap
opt -fast
abc -fast
opt_clean
tee -q -o $::env(OUT).stat stat -width -top $::env(TOP)
