# Constraints of our application inside the Enzian shell. The shell owns the
# pins and the clocks; the application runs on the directory controller's
# clock (about 300 MHz, coh_dev clock_mhz). The Bloom pipeline's two bytes per
# stage are the tightest path (two 64-bit three-operand adds in series).
set_max_delay -datapath_only 3.3 -from [get_cells -hier -filter {NAME =~ *u_app/u_coh/u_regs/*}] -to [get_cells -hier -filter {NAME =~ *u_app/u_coh/u_eng/*}]
