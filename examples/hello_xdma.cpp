// hello_xdma: one round trip through an XDMA engine (descriptor DMA). The
// host-to-card (H2C) engine copies a buffer into card memory, the card-to-host
// (C2H) engine copies it back into another part of the buffer, and we compare.
//   hello_xdma             (sim:xdma)     hello_xdma 0000:01:00.0  (a board)
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/pio_dev.hpp>
#include <pioc/xdma/xdma.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
	const char *spec = argc > 1 ? argv[1] : "sim:xdma";
	try {
		pioc::device dev = pioc::device::open(spec);
		pioc::xdma::dma engines(dev); // finds the config BAR, sets up rings

		// Host memory the device can reach: one page out, one page back.
		pioc::dma_buffer buf = dev.alloc_dma(2 * 4096);
		auto *out = static_cast<char *>(buf.cpu), *back = out + 4096;
		const char msg[] = "hello from the host, via card memory";
		std::memcpy(out, msg, sizeof msg);

		// A card address for plain data: on a VCU118 (and sim:xdma_pio) the
		// engines reach the PIO image, whose low addresses are registers
		// (0x1000 is its doorbell), so the data goes to its block-RAM window;
		// on sim:xdma the same address is card memory.
		const std::uint64_t card = pioc::regs::pio_dev::BRAM.offset;
		engines.h2c(0).transfer(buf, 0, sizeof msg, card);    // host -> card
		engines.c2h(0).transfer(buf, 4096, sizeof msg, card); // card -> host

		const bool ok = std::memcmp(out, back, sizeof msg) == 0;
		std::printf("hello_xdma: %s moved %zu bytes there and back: %s%s\n", dev.spec().c_str(), sizeof msg,
			    ok ? "identical" : "DIFFERENT", dev.simulated() ? " (simulated device)" : "");
		return ok ? 0 : 1;
	} catch (const pioc::error &e) {
		std::fprintf(stderr, "hello_xdma: %s: %s\n", spec, e.what());
		return 1;
	}
}
