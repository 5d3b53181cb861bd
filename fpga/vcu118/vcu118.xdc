# VCU118 (XCVU9P-L2FLGA2104): PCIe edge connector, reset and reference clock.
# Pins from the VCU118 board user guide (UG1224): PCIE_PERST_LS on AM17,
# PCIE_EP_REFCLK (100 MHz) on the GTY quad's MGTREFCLK0 AC9/AC8. The GT lanes
# are placed by the XDMA IP (pcie_blk_locn X1Y2). Check against the board
# file of the Vivado version in use before building.
set_property PACKAGE_PIN AM17 [get_ports pcie_perst_n]
set_property IOSTANDARD LVCMOS18 [get_ports pcie_perst_n]
set_property PULLUP true [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]

set_property PACKAGE_PIN AC9 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AC8 [get_ports pcie_refclk_n]
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk_p]

set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN div-1 [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 8 [current_design]
set_property CONFIG_MODE SPIx8 [current_design]
