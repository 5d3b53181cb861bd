// Instructions per XDMA transfer of one descriptor, submit + poll for its
// completion: the library's general path (channel_ops::submit and ::wait,
// write-back polling) and its prepared run (xdma::prepared_run::start and
// ::wait, what pciebench dma's latency runs use) against the smallest
// hand-written PG195 sequence, both on the hardware I/O view (mmio_io) over ordinary memory
// standing in for the config BAR and for host memory. Run under callgrind by
// bench/check_xdma_instructions.sh, which collects only inside the extern "C"
// functions below.
//
// The stand-in answers like the IP but never runs by itself: between submit
// and wait (not counted) engine_answers() does what the engine does after
// the run bit rises: it follows the SGDMA registers to the descriptor,
// checks it, moves the bytes to card memory, sets the completed count and
// the status, and writes the count to the write-back address the driver
// programmed. So there is no second thread and the count is deterministic
// (each wait polls once). Afterwards the driver must have cleared the run
// bit again.
//
// usage: xdma_instructions lib|run|hand ITERATIONS
#include <pioc/barrier.hpp>
#include <pioc/clock.hpp>
#include <pioc/device.hpp>
#include <pioc/xdma/prepared_run.hpp>
#include <pioc/xdma/xdma.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace r = pioc::regs::xdma;

namespace {

constexpr std::size_t transfer_bytes = 4096;
constexpr std::uint64_t eng = r::engine_base(false, 0), sg = r::sgdma_base(false, 0);
constexpr std::uint64_t bar_size = 1 << 16;

template <class T> T *at(std::uint64_t bus) { return reinterpret_cast<T *>(bus); }

/** One XDMA function with a single H2C engine, all of it ordinary memory: a
 *  config BAR whose identifier and capability registers read as the IP's,
 *  and DMA buffers whose bus address is their CPU address. */
class memory_xdma final : public pioc::transport {
public:
	memory_xdma()
		: bar_(static_cast<std::uint8_t *>(std::aligned_alloc(4096, bar_size)), std::free)
	{
		std::memset(bar_.get(), 0, bar_size);
		reg(r::irq_base + r::IRQ_ID) = r::id_make(r::target_irq, false, 0, 6);
		reg(r::config_base + r::CFG_ID) = r::id_make(r::target_config, false, 0, 6);
		reg(r::config_base + r::CFG_MPS) = r::code_from_size(256);
		reg(r::config_base + r::CFG_MRRS) = r::code_from_size(512);
		reg(eng + r::ENG_ID) = r::id_make(r::target_h2c, false, 0, 6);
		reg(eng + r::ENG_ALIGN) = 1u << 16 | 1u << 8 | 64; // byte alignment, 64-bit addresses
		reg(sg + r::SG_ID) = r::id_make(r::target_h2c_sgdma, false, 0, 6);
		info_.spec = "memory:xdma";
		info_.description = "XDMA stand-in in ordinary memory (bench/xdma_instructions)";
		info_.transport = "memory";
		info_.bars.push_back({0, bar_size, 0, false, false, false});
	}
	std::string_view name() const noexcept override { return "memory"; }
	bool simulated() const noexcept override { return false; }
	const pioc::device_info &info() const noexcept override { return info_; }
	pioc::region map_bar(unsigned, pioc::mem_type) override
	{
		return pioc::region("memory:xdma BAR0", pioc::mmio_io(bar_.get(), bar_size, pioc::mem_type::uc, pioc::wide_isa::none),
				    bar_);
	}
	pioc::dma_buffer alloc_dma(std::size_t size) override
	{
		const std::size_t rounded = (size + 4095) & ~std::size_t(4095);
		std::shared_ptr<void> mem(std::aligned_alloc(4096, rounded), std::free);
		std::memset(mem.get(), 0, rounded);
		return {mem.get(), reinterpret_cast<std::uint64_t>(mem.get()), size, mem};
	}

	std::uint8_t *bar() const noexcept { return bar_.get(); }
	std::uint32_t &reg(std::uint64_t off) const noexcept { return *at<std::uint32_t>(std::uint64_t(bar_.get() + off)); }

	/** What the engine does once the run bit rose: false (and why on
	 *  stderr) if the driver did not set up a run the IP would accept. */
	bool engine_answers(std::uint8_t *card)
	{
		const std::uint32_t ctrl = reg(eng + r::ENG_CTRL);
		if (!(ctrl & r::CTRL_RUN) || !(ctrl & r::CTRL_POLL_WB) || !(ctrl & r::IE_DESC_COMPLETED))
			return complain("run, poll-mode write-back or ie_desc_completed not set", ctrl);
		const auto &d = *at<const r::descriptor>(std::uint64_t(reg(sg + r::SG_DESC_LO)) |
							 std::uint64_t(reg(sg + r::SG_DESC_HI)) << 32);
		if (r::desc_magic(d.control) != r::DESC_MAGIC || !(d.control & r::DESC_STOP) || d.length != transfer_bytes ||
		    reg(sg + r::SG_DESC_ADJ) != 0)
			return complain("not one stopping descriptor of the transfer", d.control);
		const std::uint64_t src = std::uint64_t(d.src_hi) << 32 | d.src_lo;
		const std::uint64_t dst = std::uint64_t(d.dst_hi) << 32 | d.dst_lo;
		std::memcpy(card + dst, at<const void>(src), d.length);
		reg(eng + r::ENG_COMPLETED) = 1;
		reg(eng + r::ENG_STATUS) = r::ST_DESC_STOPPED | r::ST_DESC_COMPLETED;
		*at<std::uint32_t>(std::uint64_t(reg(eng + r::ENG_WB_LO)) | std::uint64_t(reg(eng + r::ENG_WB_HI)) << 32) = 1;
		return true;
	}
	/** The driver must leave the run bit clear (PG195: a run starts on its rising edge). */
	bool run_cleared() const { return !(reg(eng + r::ENG_CTRL) & r::CTRL_RUN); }

private:
	static bool complain(const char *what, std::uint32_t v)
	{
		std::fprintf(stderr, "xdma_instructions: the engine would not run: %s (%#x)\n", what, v);
		return false;
	}

	std::shared_ptr<std::uint8_t> bar_;
	pioc::device_info info_;
};

using ops_t = pioc::xdma::channel_ops<pioc::mmio_io>;
using run_t = pioc::xdma::prepared_run<pioc::mmio_io>;

} // namespace

extern "C" {

/** The library: queue the prepared request and start the run. */
[[gnu::noipa]] void pioc_bench_lib_submit(ops_t &ops, pioc::xdma::request &q)
{
	ops.submit(q);
}
/** The library: poll the write-back until the request completed. */
[[gnu::noipa]] void pioc_bench_lib_wait(ops_t &ops, pioc::xdma::request &q)
{
	ops.wait(q);
}

/** The library's prepared run: start one run of the held request. */
[[gnu::noipa]] void pioc_bench_run_start(run_t &run)
{
	run.start();
}
/** The library's prepared run: wait for it. */
[[gnu::noipa]] void pioc_bench_run_wait(run_t &run)
{
	run.wait();
}

/** By hand, the least PG195 asks per run of one descriptor already in host
 *  memory (its address in the SGDMA registers, written once, as the library
 *  does): clear the write-back slot, order it before the doorbell, set run
 *  with the control bits that make the engine write back. */
[[gnu::noipa]] void pioc_bench_hand_submit(std::uint8_t *eng_regs, volatile std::uint32_t *wb, std::uint32_t ctrl)
{
	*wb = 0;
	pioc::barrier::store_store();
	*reinterpret_cast<volatile std::uint32_t *>(eng_regs + r::ENG_CTRL) = ctrl | r::CTRL_RUN;
}
/** By hand: poll the write-back until the error flag or the completed
 *  count says the run ended, order the data after it, clear run so the
 *  next run is a rising edge. */
[[gnu::noipa]] void pioc_bench_hand_wait(std::uint8_t *eng_regs, volatile std::uint32_t *wb, std::uint32_t ctrl)
{
	std::uint32_t w;
	while (!((w = *wb) & (r::WB_ERROR | r::WB_COUNT_MASK)))
		pioc::xdma::detail::cpu_relax();
	if ((w & r::WB_ERROR) || (w & r::WB_COUNT_MASK) < 1)
		std::abort();
	pioc::barrier::load_load();
	*reinterpret_cast<volatile std::uint32_t *>(eng_regs + r::ENG_CTRL) = ctrl;
}
}

int main(int argc, char **argv)
{
	const std::string_view mode = argc == 3 ? argv[1] : "";
	if (mode != "lib" && mode != "run" && mode != "hand") {
		std::fprintf(stderr, "usage: xdma_instructions lib|run|hand ITERATIONS\n");
		return 2;
	}
	const bool lib = mode == "lib", prepared = mode == "run";
	const unsigned long iters = std::strtoul(argv[2], nullptr, 0);
	auto standin = std::make_shared<memory_xdma>();
	pioc::device dev(standin);
	pioc::xdma::options o;
	o.config_bar = 0;
	o.ring_descriptors = 16;
	o.bind_irq = [](unsigned, int) {}; // polling only: no interrupt is ever raised
	pioc::xdma::dma x(dev, o);
	auto &h2c = x.h2c(0);
	h2c.set_completion(pioc::xdma::completion::writeback);
	auto buf = dev.alloc_dma(transfer_bytes);
	auto *card = static_cast<std::uint8_t *>(std::calloc(1, transfer_bytes));
	auto &q = h2c.prepare(buf, 0, transfer_bytes, 0);
	// The hand-written runs use the ring and write-back slot the driver set
	// up (SGDMA registers as its first run leaves them), with its control value.
	const std::uint64_t wb_bus = std::uint64_t(standin->reg(eng + r::ENG_WB_LO)) |
				     std::uint64_t(standin->reg(eng + r::ENG_WB_HI)) << 32;
	auto *wb = at<volatile std::uint32_t>(wb_bus);
	const std::uint32_t ctrl = standin->reg(eng + r::ENG_CTRL);
	standin->reg(sg + r::SG_DESC_LO) = std::uint32_t(q.head().bus);
	standin->reg(sg + r::SG_DESC_HI) = std::uint32_t(q.head().bus >> 32);
	standin->reg(sg + r::SG_DESC_ADJ) = q.head().adj;

	// The clock calibrates on first use (a timed spin): not inside the count.
	(void)pioc::hw_clock{}.now_ns();
	int rc = 0;
	x.config().visit([&](const auto &io) {
		if constexpr (!std::decay_t<decltype(io)>::simulated) {
			ops_t ops = h2c.ops(io);
			std::optional<run_t> run;
			if (prepared)
				run.emplace(h2c, io, q);
			for (unsigned long i = 0; i < iters && rc == 0; ++i) {
				auto *src = static_cast<std::uint8_t *>(buf.cpu);
				for (std::size_t b = 0; b < transfer_bytes; b += 512)
					src[b] = static_cast<std::uint8_t>(i + b);
				if (lib)
					pioc_bench_lib_submit(ops, q);
				else if (prepared)
					pioc_bench_run_start(*run);
				else
					pioc_bench_hand_submit(standin->bar() + eng, wb, ctrl);
				if (!standin->engine_answers(card)) {
					rc = 1;
					break;
				}
				if (lib)
					pioc_bench_lib_wait(ops, q);
				else if (prepared)
					pioc_bench_run_wait(*run);
				else
					pioc_bench_hand_wait(standin->bar() + eng, wb, ctrl);
				if (!standin->run_cleared() || std::memcmp(card, buf.cpu, transfer_bytes) ||
				    (lib && !q.done())) {
					std::fprintf(stderr, "xdma_instructions: %s: run %lu did not end as it should\n",
						     argv[1], i);
					rc = 1;
				}
			}
		}
	});
	std::free(card);
	return rc;
}
