// hello_pio: one PIO invocation (paper Fig. 3). The CPU stores a request into
// the device's BAR, rings a doorbell and loads the answer back; no DMA, no
// descriptors. Runs on the simulated PIO image unless you name a device:
//   hello_pio              (sim:pio)      hello_pio 0000:01:00.0   (a board)
#include <pioc/pioc.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "sim:pio";
	try {
		pioc::device dev = pioc::device::open(spec);
		// The PIO image's BAR (found by its ID: BAR0 on the simulated
		// devices, the XDMA IP's bypass BAR2 on a VCU118); write combining
		// lets the request leave in 64-byte packets. The invoker checks
		// that this is a PIO image.
		pioc::pio::invoker inv(dev.map(pioc::xdma::pio_image_bar(dev), pioc::mem_type::wc));

		const std::vector<std::uint8_t> req = {'h', 'e', 'l', 'l', 'o'};
		// The device answers with every byte inverted (op "not").
		const auto resp = inv.invoke(pioc::pio::op::bit_not, req);

		bool ok = resp.size() == req.size();
		for (std::size_t i = 0; ok && i < req.size(); ++i)
			ok = resp[i] == static_cast<std::uint8_t>(~req[i]);
		std::printf("hello_pio: %s answered %zu bytes, %s%s\n", dev.spec().c_str(), resp.size(),
			    ok ? "each the NOT of the request" : "WRONG", dev.simulated() ? " (simulated device)" : "");
		return ok ? 0 : 1;
	} catch (const pioc::error &e) { // every pioc failure says device, offset and rule
		std::fprintf(stderr, "hello_pio: %s: %s\n", spec, e.what());
		return 1;
	}
}
