# Vivado batch build of the VCU118 image: XDMA IP (PCIe Gen3 x16, 512-bit AXI
# at 250 MHz) + our user logic (fpga/rtl/xdma/xdma_user_top.sv).
#
#   vivado -mode batch -source fpga/vcu118/build.tcl [-tclargs OUTDIR [IMAGE]]
#
# IMAGE pio (default): the PIO/XDMA image above. IMAGE nic_pio: the PCIe PIO
# NIC (fpga/rtl/nic/nic_pio_top.sv under vcu118_nic_top.sv): the same XDMA
# IP with a 4 MiB bypass BAR (nic_pio.toml), no AXI-Lite BAR, device 10ee:9048.
# BARs (PG195, "Target Bridge"): with the AXI-Lite master BAR0 is AXI-Lite,
# BAR1 the DMA (config) BAR, BAR2 the bypass BAR; without it (both NIC
# images) BAR0 is the config BAR and the bypass BAR BAR1 (BAR2 if 64-bit).
# The drivers find the NIC by its ID register (pioc::find_bar), the config
# BAR by the IP's identifiers; sim:nic_pio / sim:nic_dma use the NIC layout.
# IMAGE nic_dma: the PCIe DMA NIC (fpga/rtl/nic/nic_dma_top.sv under
# vcu118_nic_dma_top.sv): the IP in AXI4-Stream mode, one H2C and one C2H
# stream engine, a 4 KiB bypass BAR (nic_dma.toml), device 10ee:9049.
#
# Written for Vivado 2022.2 (XDMA 4.1). NOT run in this repository's CI (no
# Vivado there): see Documentation/fpga.md for what was verified and what a
# machine with Vivado must check (IP parameter names, pins, timing).
set here   [file normalize [file dirname [info script]]]
set fpga   [file normalize $here/..]
set root   [file normalize $fpga/..]
set out    [expr {[llength $argv] > 0 ? [lindex $argv 0] : "$root/build/fpga/vcu118"}]
set image  [expr {[llength $argv] > 1 ? [lindex $argv 1] : "pio"}]
set part   xcvu9p-flga2104-2L-e
if {$image ni {pio nic_pio nic_dma}} { puts "ERROR: IMAGE must be pio, nic_pio or nic_dma"; exit 1 }
file mkdir $out

# ---- register-map packages from the same TOML as the library
file mkdir $out/generated
foreach map {pio_dev coh_dev nic_pio nic_dma} {
    exec python3 $root/scripts/gen-regmap $fpga/regmap/$map.toml --sv $out/generated/${map}_pkg.sv
}

create_project -force pioc_vcu118 $out/project -part $part
set boards [get_board_parts -quiet -latest_file_version {*vcu118*}]
if {[llength $boards]} { set_property board_part [lindex $boards 0] [current_project] }

# ---- our RTL (packages first) and the board top
if {$image eq "nic_pio"} {
    set top vcu118_nic_top
    add_files -norecurse [list $out/generated/nic_pio_pkg.sv]
    add_files -norecurse [glob $fpga/rtl/common/*.sv $fpga/rtl/nic/*.sv]
} elseif {$image eq "nic_dma"} {
    set top vcu118_nic_dma_top
    add_files -norecurse [list $out/generated/nic_dma_pkg.sv]
    add_files -norecurse [glob $fpga/rtl/common/*.sv $fpga/rtl/nic/mac_loopback.sv $fpga/rtl/nic/nic_dma_*.sv]
} else {
    set top vcu118_top
    add_files -norecurse [list $out/generated/pio_dev_pkg.sv $out/generated/coh_dev_pkg.sv]
    add_files -norecurse [glob $fpga/rtl/common/*.sv $fpga/rtl/bloom/*.sv $fpga/rtl/pio/*.sv $fpga/rtl/xdma/*.sv]
}
add_files -norecurse $here/$top.sv
set_property file_type SystemVerilog [get_files *.sv]
add_files -fileset constrs_1 -norecurse $here/vcu118.xdc
set_property top $top [current_fileset]

# ---- XDMA: memory-mapped DMA (1 H2C + 1 C2H channel), AXI-Lite master BAR
# (control, 256 KiB), DMA bypass BAR (PIO, 256 KiB), MSI-X, PCIe device 10ee:9038.
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0
set_property -dict [list \
    CONFIG.mode_selection            {Advanced} \
    CONFIG.pcie_blk_locn             {X1Y2} \
    CONFIG.pl_link_cap_max_link_width {X16} \
    CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
    CONFIG.axi_data_width            {512_bit} \
    CONFIG.axisten_freq              {250} \
    CONFIG.pf0_device_id             {9038} \
    CONFIG.pf0_subsystem_id          {0007} \
    CONFIG.xdma_axi_intf_mm          {AXI_Memory_Mapped} \
    CONFIG.xdma_rnum_chnl            {1} \
    CONFIG.xdma_wnum_chnl            {1} \
    CONFIG.axilite_master_en         {true} \
    CONFIG.axilite_master_size       {256} \
    CONFIG.axilite_master_scale      {Kilobytes} \
    CONFIG.axist_bypass_en           {true} \
    CONFIG.axist_bypass_size         {256} \
    CONFIG.axist_bypass_scale        {Kilobytes} \
    CONFIG.pf0_msix_enabled          {true} \
    CONFIG.pf0_msi_enabled           {false} \
    CONFIG.xdma_num_usr_irq          {1} \
    CONFIG.cfg_mgmt_if               {false} \
    CONFIG.xdma_sts_ports            {false} \
] [get_ips xdma_0]
if {$image eq "nic_pio"} {
    # bypass BAR (BAR1 beside the config BAR0) = nic_pio.toml (4 MiB, rings
    # and packet buffers), no AXI-Lite BAR; user interrupt 0 = the RX irq
    set_property -dict [list \
        CONFIG.pf0_device_id      {9048} \
        CONFIG.axilite_master_en  {false} \
        CONFIG.axist_bypass_size  {4} \
        CONFIG.axist_bypass_scale {Megabytes} \
    ] [get_ips xdma_0]
}
if {$image eq "nic_dma"} {
    # AXI4-Stream engines (H2C0 = the NIC's TX, C2H0 its RX), bypass BAR
    # (BAR1 beside the config BAR0) = nic_dma.toml (4 KiB), no AXI-Lite BAR
    set_property -dict [list \
        CONFIG.pf0_device_id      {9049} \
        CONFIG.xdma_axi_intf_mm   {AXI_Stream} \
        CONFIG.axilite_master_en  {false} \
        CONFIG.axist_bypass_size  {4} \
        CONFIG.axist_bypass_scale {Kilobytes} \
    ] [get_ips xdma_0]
}

# ---- 512 -> 64 bit AXI4 width converters for the DMA and the bypass paths
foreach n {dwc_dma dwc_byp} {
    create_ip -name axi_dwidth_converter -vendor xilinx.com -library ip -module_name $n
    set_property -dict [list \
        CONFIG.PROTOCOL {AXI4} CONFIG.SI_DATA_WIDTH {512} CONFIG.MI_DATA_WIDTH {64} \
        CONFIG.ADDR_WIDTH {64} CONFIG.SI_ID_WIDTH {4} CONFIG.FIFO_MODE {0} \
        CONFIG.ACLK_ASYNC {0} \
    ] [get_ips $n]
}
generate_target all [get_ips]
synth_ip [get_ips]

# ---- build
synth_design -top $top -part $part
write_checkpoint -force $out/post_synth.dcp
report_utilization -file $out/utilization_synth.rpt
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force $out/post_route.dcp
report_timing_summary -file $out/timing.rpt
report_utilization -file $out/utilization.rpt
if {[get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]] < 0} {
    puts "ERROR: timing not met, see $out/timing.rpt"
    exit 1
}
set bit [expr {$image eq "pio" ? "pioc_vcu118.bit" : "pioc_vcu118_$image.bit"}]
write_bitstream -force $out/$bit
puts "bitstream: $out/$bit"
