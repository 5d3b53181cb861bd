# Vivado batch build of the Enzian image: the Enzian shell (ECI links,
# directory controller, AXI-Lite I/O window) with our coherent invocation
# engine (fpga/rtl/coh/coh_top.sv) as its application.
#
#   ENZIAN_SHELL=/path/to/enzian-shell vivado -mode batch -source fpga/enzian/build.tcl [-tclargs OUTDIR]
#
# The shell is not part of this repository. This script expects in it:
#   $ENZIAN_SHELL/create_project.tcl  creates the shell project (part
#                                     xcvu9p-flgb2104-3-e) without an application
#   an application slot named `enzian_app` whose ports are those of
#   fpga/enzian/enzian_app.sv (our adapter; edit its body if the shell's
#   directory-controller port names differ from the ones assumed there).
# APP=nic_eci builds the ECI NIC variant instead (fpga/rtl/nic/nic_eci_top.sv
# through enzian_nic_app.sv, Documentation/nic.md "The ECI NIC RTL"): the
# slot is the same, the application module is enzian_nic_app (the shell's
# slot instance must name it, or rename the module).
# NOT run in this repository's CI (no Vivado, no shell): see
# Documentation/fpga.md for what was verified and what must be checked.
set here [file normalize [file dirname [info script]]]
set fpga [file normalize $here/..]
set root [file normalize $fpga/..]
set out  [expr {[llength $argv] > 0 ? [lindex $argv 0] : "$root/build/fpga/enzian"}]
if {![info exists ::env(ENZIAN_SHELL)]} {
    puts "ERROR: set ENZIAN_SHELL to a checkout of the Enzian shell"
    exit 2
}
set shell [file normalize $::env(ENZIAN_SHELL)]
file mkdir $out $out/generated
set app [expr {[info exists ::env(APP)] ? $::env(APP) : "coh"}]
if {$app ni {coh nic_eci}} {
    puts "ERROR: APP=$app: coh (the coherent invocation engine) or nic_eci (the ECI NIC)"
    exit 2
}
set maps [expr {$app eq "nic_eci" ? {pio_dev coh_dev nic_eci} : {pio_dev coh_dev}}]
foreach map $maps {
    exec python3 $root/scripts/gen-regmap $fpga/regmap/$map.toml --sv $out/generated/${map}_pkg.sv
}

set ::project_dir $out/project
source $shell/create_project.tcl

foreach map $maps { add_files -norecurse $out/generated/${map}_pkg.sv }
add_files -norecurse [glob $fpga/rtl/common/*.sv $fpga/rtl/bloom/*.sv $fpga/rtl/pio/*.sv $fpga/rtl/coh/*.sv]
if {$app eq "nic_eci"} {
    add_files -norecurse [list $fpga/rtl/nic/mac_loopback.sv $fpga/rtl/nic/nic_eci_rx.sv \
                              $fpga/rtl/nic/nic_eci_tx.sv $fpga/rtl/nic/nic_eci_top.sv]
    add_files -norecurse $here/enzian_nic_app.sv
} else {
    add_files -norecurse $here/enzian_app.sv
}
set_property file_type SystemVerilog [get_files *.sv]
add_files -fileset constrs_1 -norecurse $here/enzian_app.xdc

synth_design -top [get_property top [current_fileset]]
write_checkpoint -force $out/post_synth.dcp
report_utilization -file $out/utilization_synth.rpt
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force $out/post_route.dcp
report_timing_summary -file $out/timing.rpt
report_utilization -hierarchical -file $out/utilization.rpt
if {[get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]] < 0} {
    puts "ERROR: timing not met, see $out/timing.rpt"
    exit 1
}
set bit [expr {$app eq "nic_eci" ? "$out/pioc_enzian_nic_eci.bit" : "$out/pioc_enzian.bit"}]
write_bitstream -force $bit
puts "bitstream: $bit"
