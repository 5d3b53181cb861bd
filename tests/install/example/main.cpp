// An out-of-tree program using the installed libpioc: opens the simulated
// PIO device, reads its ID register and says where it ran.
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/place.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <cstdio>

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "sim:pio";
	try {
		auto dev = pioc::device::open(spec);
		pioc::pin_for_timing(dev.info());
		const pioc::region bar0 = dev.map(0, pioc::mem_type::uc);
		const auto id = bar0.read<std::uint32_t>(pioc::regs::pio_dev::ID.offset);
		const char text[5] = {char(id >> 24), char(id >> 16), char(id >> 8), char(id), 0};
		std::printf("pioc example: %s ID = 0x%08x (%s) on %s\n", dev.spec().c_str(), id, text,
			    pioc::describe_current_cpu().c_str());
		return id == pioc::regs::pio_dev::id_value ? 0 : 1;
	} catch (const pioc::error &e) {
		std::fprintf(stderr, "pioc example: %s: %s\n", spec, e.what());
		return 1;
	}
}
