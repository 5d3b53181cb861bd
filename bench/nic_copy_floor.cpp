// The bytes one frame of `nicbench throughput --path dma` on sim:nic_dma must
// move, and nothing else: what the simulator's speed cannot beat on this
// machine (issue 13; Documentation/benchmarking.md, session 13). Per frame:
//   1. the driver copies the frame into its TX slot (dma_nic::send),
//   2. the H2C engine model takes its snapshot of the slot (the bytes the
//      engine reads; the host may reuse the slot once the engine is done),
//   3. the C2H engine model writes the frame into the next RX slot,
//   4. the driver copies it out into the caller's buffer (dma_nic::poll_rx),
//   5. nicbench compares it with what was sent.
// The same layout as the run: two rings of RING slots of BUF_BYTES each
// (pioc::xdma::stream_ring's stride), a frame's bytes a slice of a 64 KiB
// pool at a random offset (nicbench::frame_source), one recycled snapshot
// buffer. Prints CPU ns per frame (the process's CPU clock, as the
// simulator's speed meter reads it) for all five, for the model's two, and
// for the least any model of the device could do: 1, one copy from the TX
// slot straight into the RX slot (the device must move the bytes; a model
// that keeps no snapshot), 4 and 5. Steps 1, 4 and 5 are the driver's and
// nicbench's, the code that runs on hardware too, so that last figure is
// a floor for every model on this machine, not just this one
// (bench/nic_dma_ceiling.py turns it into the best speed the default run
// could reach here).
//
// Once per run, before any frame, the driver's two stream rings are
// allocated (alloc_dma), written whole (stream_ring zeroes them) and, at
// the run's end, freed: "rings" times exactly that, the library's own
// xdma::stream_ring on sim:nic_dma, each time with fresh memory as the run
// has it. On a machine where a page's first touch is cheap it is small
// beside the copies; on a VM whose hypervisor maps each new page at its
// first access it is not (the session 30 section of benchmarking.md:
// 4.3 us a page after MAP_POPULATE on the Zen 5 VM, 1.3 ms and more for
// the default rings). The copy passes below are timed after every slot was
// touched.
//
// usage: nic_copy_floor [--json] [SIZE [RING [FRAMES]]]   (default 9600 64 200000)
#include <pioc/device.hpp>
#include <pioc/regs/nic_dma.hpp>
#include <pioc/xdma/stream.hpp>
#include <pioc/xdma/xdma.hpp>

#include <algorithm>

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

namespace {

double cpu_ns()
{
	timespec ts{};
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

std::byte *ring_memory(std::size_t bytes)
{
	void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		std::perror("nic_copy_floor: mmap");
		std::exit(1);
	}
	return static_cast<std::byte *>(p);
}

struct floor_run {
	std::size_t size, ring;
	std::byte *tx, *rx;
	std::vector<std::byte> pool, snapshot, user;
	std::mt19937_64 rng{42};

	/** What a timed pass does per frame. */
	enum class steps {
		all,	    ///< 1 to 5, as the run
		model_only, ///< 2 and 3: this model's two copies
		least,	    ///< 1, one TX slot -> RX slot copy, 4, 5: any model's floor
	};

	/** CPU ns per frame over @p frames; counts the compare's failures
	 *  (none) in @p bad. */
	double run(std::uint64_t frames, steps what, std::uint64_t &bad)
	{
		const bool model_only = what == steps::model_only;
		const std::size_t stride = pioc::regs::nic_dma::BUF_BYTES;
		const std::size_t pool_bytes = pool.size() - pioc::regs::nic_dma::MTU;
		const double t0 = cpu_ns();
		for (std::uint64_t i = 0; i < frames; ++i) {
			const std::byte *src = pool.data() + rng() % pool_bytes;
			std::byte *txs = tx + (i % ring) * stride, *rxs = rx + (i % ring) * stride;
			if (!model_only)
				std::memcpy(txs, src, size);
			if (what == steps::least) {
				std::memcpy(rxs, txs, size);
			} else {
				std::memcpy(snapshot.data(), txs, size);
				std::memcpy(rxs, snapshot.data(), size);
			}
			if (!model_only) {
				std::memcpy(user.data(), rxs, size);
				bad += std::memcmp(user.data(), src, size) != 0;
			}
		}
		return (cpu_ns() - t0) / double(frames);
	}
};

/** CPU ns to build and free the run's two stream rings of @p ring slots
 *  (TX on H2C0, RX on C2H0), as dma_nic does: the median of @p reps, each
 *  on fresh memory. The device is opened and probed before the clock. */
double rings_ns(std::size_t ring, int reps)
{
	namespace nd = pioc::regs::nic_dma;
	auto dev = pioc::device::open("sim:nic_dma");
	pioc::xdma::options o;
	o.ring_descriptors = 64; // as with_dma_nic: the channels' own rings stay unused
	pioc::xdma::dma x(dev, o);
	std::vector<double> t;
	for (int i = 0; i < reps; ++i) {
		const double t0 = cpu_ns();
		{
			pioc::xdma::stream_ring tx(x.h2c(0), unsigned(ring), std::uint32_t(nd::BUF_BYTES));
			pioc::xdma::stream_ring rx(x.c2h(0), unsigned(ring), std::uint32_t(nd::BUF_BYTES));
		}
		t.push_back(cpu_ns() - t0);
	}
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
	namespace nd = pioc::regs::nic_dma;
	const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
	if (json)
		--argc, ++argv;
	const std::size_t size = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : nd::MTU;
	const std::size_t ring = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 64;
	const std::uint64_t frames = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 200000;
	if (size < nd::MIN_FRAME || size > nd::MTU || ring == 0 || ring > nd::MAX_RING || frames == 0) {
		std::fprintf(stderr,
			     "nic_copy_floor: size %zu must be %llu..%llu bytes, ring %zu 1..%llu slots, frames > 0\n",
			     size, (unsigned long long)nd::MIN_FRAME, (unsigned long long)nd::MTU, ring,
			     (unsigned long long)nd::MAX_RING);
		return 2;
	}
	// First: the run's rings are its process's first large allocation.
	const double rings = rings_ns(ring, 3);
	floor_run f{size, ring, ring_memory(ring * nd::BUF_BYTES), ring_memory(ring * nd::BUF_BYTES),
		    std::vector<std::byte>((std::size_t(1) << 16) + nd::MTU), std::vector<std::byte>(nd::MTU),
		    std::vector<std::byte>(nd::MTU)};
	for (auto &b : f.pool)
		b = std::byte(f.rng());
	std::uint64_t bad = 0;
	using steps = floor_run::steps;
	f.run(frames / 10 + 1, steps::all, bad); // warm: every slot touched once
	const double all = f.run(frames, steps::all, bad);
	const double model = f.run(frames, steps::model_only, bad);
	const double least = f.run(frames, steps::least, bad);
	if (json) {
		std::printf("{\"size\": %zu, \"ring\": %zu, \"frames\": %llu, \"all_ns\": %.1f, \"model_ns\": %.1f, "
			    "\"least_ns\": %.1f, \"rings_ns\": %.0f, \"measured\": \"CPU ns per frame; rings_ns once "
			    "per run\"}\n",
			    size, ring, (unsigned long long)frames, all, model, least, rings);
	} else {
		std::printf("nic_copy_floor: %zu-byte frames, rings of %zu slots, %llu frames (MEASURED CPU time)\n",
			    size, ring, (unsigned long long)frames);
		std::printf("  driver + engine models + check (4 copies, 1 compare): %.0f ns per frame\n", all);
		std::printf("  the engine models' two copies alone:                  %.0f ns per frame\n", model);
		std::printf("  any model's floor (3 copies, 1 compare):              %.0f ns per frame\n", least);
		std::printf("  the driver's two rings built and freed, once a run:    %.0f us\n", rings / 1e3);
	}
	if (bad != 0) {
		std::fprintf(stderr, "nic_copy_floor: %llu frames compared unequal\n", (unsigned long long)bad);
		return 1;
	}
	return 0;
}
