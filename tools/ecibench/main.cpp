// ecibench: coherence-message protocols (paper Fig. 5), CNI cachable queues
// and the FastForward / raw cache-line floor between two cores.
//   ecibench COMMAND --device SPEC [options]     (commands.hpp, devices.hpp)
#include "commands.hpp"

int main(int argc, char **argv)
{
	pioc::tool::tool t("ecibench",
			   "Coherent-interconnect messaging. 'invoke' runs the paper's Fig. 5 protocols on the\n"
			   "modelled Enzian unless --device says otherwise (SIMULATED time: link and directory\n"
			   "model); 'queue' and 'pingpong' run for real between two cores of this machine\n"
			   "(measured time), on the heap or in an ECI window; 'queue --device sim:eci' puts\n"
			   "the modelled FPGA at the other end (SIMULATED time).");
	pioc::tool::set_footer(t.app(), "devices (--device SPEC)          invoke     queue      pingpong\n"
		       "  sim:eci   modelled Enzian       default    yes        -\n"
		       "  rtl:coh   Verilated coh engine  yes        -          -\n"
		       "            (-DPIOC_RTL=ON builds)\n"
		       "  kmod:eciN a module's ECI window yes        yes        yes\n"
		       "            (also eciN, /dev/pioc/eciN, --window eciN)\n"
		       "  cores     heap, two cores       -          default    default\n"
		       "  pioc-info lists them; Documentation/devices.md explains specs.\n"
		       "\n'ecibench COMMAND --help' explains a command's options.\n\n"
		       "examples:\n"
		       "  ecibench invoke --sizes 64                 # Fig. 6: ~900 ns simulated\n"
		       "  ecibench invoke --sizes 64 --shared        # Fig. 6: the Shared answer\n"
		       "  ecibench invoke --sizes 8..16K --json      # Fig. 7 shape\n"
		       "  ecibench queue --device sim:eci --json     # CNI queue with the FPGA: ~1.5 us\n"
		       "  ecibench pingpong --cpu 1");
#define ECIBENCH_ADD(name, help) t.command(#name, help, ecibench::ecibench_##name);
	ECIBENCH_COMMANDS(ECIBENCH_ADD)
#undef ECIBENCH_ADD
	return t.main(argc, argv);
}
