// Instructions per PIO invocation: a prepared pio::call and pio::invoke on
// the hardware I/O view (mmio_io, UC, 8-byte accesses) against the paper's
// Fig. 3 sequence written by hand, all over memory that answers like the PIO
// image (the status word is already there when it is read). Run under
// callgrind by bench/check_pio_instructions.sh, which collects only inside the
// extern "C" functions below; this program just drives them and checks that
// each read back what the "device" answered.
//
// usage: pio_instructions call|invoke|fig3 BYTES ITERATIONS
#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace regs = pioc::regs::pio_dev;

// The device's answer in the high word of INVOKE_STATUS: STATUS_DONE | seq.
static_assert(regs::STATUS_SEQ_SHIFT == 32 && regs::STATUS_SEQ_MASK == 0x7fffffff);

// Each counted function is called, not inlined into main(), and compiled for
// any argument: GCC's noipa says both; clang has no noipa, and noinline
// suffices there (it specialises no externally visible function).
#if defined(__clang__)
#define PIOC_BENCH_OPAQUE gnu::noinline
#else
#define PIOC_BENCH_OPAQUE gnu::noipa
#endif

extern "C" {

/** The library as a timed loop uses it: one invocation through a call
 *  prepared (op and size checked) before the loop. */
[[PIOC_BENCH_OPAQUE]] std::size_t pioc_bench_lib_call(const pioc::pio::call<pioc::mem_type::uc, pioc::mmio_io> &c,
					       const void *req, void *resp)
{
	return c(req, resp);
}

/** The library without preparation: one invocation of @p o on @p n bytes. */
[[PIOC_BENCH_OPAQUE]] std::size_t pioc_bench_lib_invoke(const pioc::mmio_io &io, pioc::pio::invoke_state &st,
						 pioc::pio::op o, const void *req, std::size_t n, void *resp)
{
	return pioc::pio::invoke<pioc::mem_type::uc>(io, st, o, req, n, resp);
}

/** By hand, Fig. 3 for this device: volatile 8-byte stores of the request
 *  and the doorbell, the fence UC needs (none on x86: UC is in order; the
 *  compiler is stopped), the volatile status load, the least a caller must
 *  check (done and the expected sequence number, one compare), and the
 *  volatile loads of the response. Op and size are arguments, as they are
 *  to the library; n is a multiple of 8. */
[[PIOC_BENCH_OPAQUE]] std::size_t pioc_bench_fig3_invoke(std::uint8_t *bar, std::uint32_t *seq, std::uint32_t op,
						  const std::uint64_t *req, std::size_t n, std::uint64_t *resp)
{
	auto *r = reinterpret_cast<volatile std::uint64_t *>(bar + regs::REQ.offset);
	for (std::size_t i = 0; i < n / 8; ++i)
		r[i] = req[i];
	pioc::barrier::store_store();
	*reinterpret_cast<volatile std::uint64_t *>(bar + regs::DOORBELL.offset) = std::uint64_t(op) << 32 | n;
	const std::uint64_t s = *reinterpret_cast<volatile std::uint64_t *>(bar + regs::INVOKE_STATUS.offset);
	if (static_cast<std::uint32_t>(s >> 32) != (*seq | 0x80000000u))
		std::abort();
	*seq = (*seq + 1) & 0x7fffffffu;
	const std::size_t len = static_cast<std::uint32_t>(s);
	auto *p = reinterpret_cast<volatile const std::uint64_t *>(bar + regs::RESP.offset);
	for (std::size_t i = 0; i < len / 8; ++i)
		resp[i] = p[i];
	return len;
}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: pio_instructions call|invoke|fig3 BYTES ITERATIONS\n");
		return 2;
	}
	const std::string_view which = argv[1];
	const std::size_t n = std::strtoul(argv[2], nullptr, 0);
	const unsigned long iters = std::strtoul(argv[3], nullptr, 0);
	if ((which != "call" && which != "invoke" && which != "fig3") || n == 0 || n % 8 ||
	    n > pioc::pio::max_payload) {
		std::fprintf(stderr, "pio_instructions: call, invoke or fig3, BYTES a multiple of 8 up to %zu\n",
			     pioc::pio::max_payload);
		return 2;
	}
	// The stand-in BAR0: ordinary memory, the response already in RESP.
	auto *bar = static_cast<std::uint8_t *>(std::aligned_alloc(4096, regs::bar_size));
	std::memset(bar, 0, regs::bar_size);
	for (std::size_t i = 0; i < n; ++i)
		bar[regs::RESP.offset + i] = static_cast<std::uint8_t>(i * 7 + 1);
	std::uint64_t req[pioc::pio::max_payload / 8], resp[pioc::pio::max_payload / 8];
	std::memset(req, 0x5a, n);
	pioc::mmio_io io(bar, regs::bar_size, pioc::mem_type::uc, pioc::wide_isa::none);
	pioc::pio::invoke_state st;
	const pioc::pio::call<pioc::mem_type::uc, pioc::mmio_io> prepared(io, st, pioc::pio::op::echo, n);
	if (!prepared.words()) {
		std::fprintf(stderr, "pio_instructions: the prepared call did not take the 8-byte path\n");
		return 1;
	}
	std::uint32_t seq = 1;
	for (unsigned long i = 0; i < iters; ++i) {
		// The device's answer to this invocation (not counted).
		auto &status = *reinterpret_cast<std::uint64_t *>(bar + regs::INVOKE_STATUS.offset);
		status = regs::STATUS_DONE | (std::uint64_t(which == "fig3" ? seq : st.next_seq) << 32) | n;
		std::memset(resp, 0, n);
		std::size_t got;
		if (which == "call")
			got = pioc_bench_lib_call(prepared, req, resp);
		else if (which == "invoke")
			got = pioc_bench_lib_invoke(io, st, pioc::pio::op::echo, req, n, resp);
		else
			got = pioc_bench_fig3_invoke(bar, &seq, regs::OP_ECHO, req, n, resp);
		if (got != n || std::memcmp(resp, bar + regs::RESP.offset, n) ||
		    std::memcmp(req, bar + regs::REQ.offset, n)) {
			std::fprintf(stderr, "pio_instructions: %s read back the wrong answer\n", argv[1]);
			return 1;
		}
	}
	std::free(bar);
	return 0;
}
