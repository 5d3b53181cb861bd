// Behavioral model of the PIO test image. Semantics: fpga/regmap/pio_dev.toml.
#include "sim/pio_dev.hpp"

#include <pioc/bloom_hash.hpp>
#include "core/log.hpp"

#include <algorithm>
#include <cstring>

namespace pioc::sim {

namespace r = pioc::regs::pio_dev;

namespace {
bool in(const r::window &w, std::uint64_t off, std::size_t len)
{
	return off >= w.offset && off + len <= w.offset + w.size;
}
} // namespace

pio_dev::pio_dev() : pio_dev(timing{}) {}

pio_dev::pio_dev(timing t)
	: timing_(t), req_(r::REQ.size), resp_(r::RESP.size), bram_(r::BRAM.size),
	  timeout_cycles_(static_cast<std::uint32_t>(r::INVOKE_TIMEOUT.reset))
{
}

std::uint64_t pio_dev::bar_size(unsigned bar) const
{
	return bar == 0 ? r::bar_size : 0;
}

std::uint64_t pio_dev::cycles_at(std::uint64_t t_ns) noexcept
{
	return t_ns * r::clock_mhz / 1000;
}

std::uint64_t pio_dev::ns_at(std::uint64_t cycles) noexcept
{
	return (cycles * 1000 + r::clock_mhz - 1) / r::clock_mhz;
}

void pio_dev::start_invoke(std::uint64_t doorbell, std::uint64_t t_ns)
{
	const auto len = static_cast<std::uint32_t>(doorbell & 0xffffffffu);
	const auto op = static_cast<unsigned>((doorbell >> 32) & 0xff);
	if (len == 0 || len > r::MAX_PAYLOAD || op > r::OP_BLOOM) {
		// The RTL ignores a malformed doorbell; software sees no completion.
		log().debug("pio_dev: doorbell {:#x} ignored (length 1..{}, op 0..3)",
			    doorbell, r::MAX_PAYLOAD);
		++ignored_writes_;
		return;
	}
	if (busy_ && t_ns < done_ns_) {
		// One invocation at a time, as in the RTL: a doorbell while the unit
		// computes is dropped, and software sees only the running one complete.
		log().debug("pio_dev: doorbell {:#x} while busy ignored", doorbell);
		++ignored_writes_;
		return;
	}
	const std::uint64_t start = t_ns;
	std::uint64_t cycles = timing_.fixed_cycles + timing_.cycles_per_64b * ((len + 63) / 64) + delay_cycles_;
	switch (op) {
	case r::OP_ECHO:
		std::memcpy(resp_.data(), req_.data(), len);
		break;
	case r::OP_NOT:
		for (std::uint32_t i = 0; i < len; ++i)
			resp_[i] = static_cast<std::uint8_t>(~req_[i]);
		break;
	case r::OP_ADD1: {
		std::memcpy(resp_.data(), req_.data(), len);
		for (std::uint32_t i = 0; i + 8 <= len; i += 8) {
			std::uint64_t w;
			std::memcpy(&w, req_.data() + i, 8);
			++w;
			std::memcpy(resp_.data() + i, &w, 8);
		}
		break;
	}
	case r::OP_BLOOM: {
		// 8 x 64-bit hashes per 128-byte element (zero-padded; definition in
		// pioc/bloom_hash.hpp), timed as the RTL (fpga/rtl/pio) takes them.
		const auto n = static_cast<std::uint32_t>((len + bloom::element_bytes - 1) / bloom::element_bytes);
		bloom::hash_buffer_best(req_.data(), len, resp_.data());
		len_ = static_cast<std::uint32_t>(bloom::result_len(len));
		cycles = timing_.fixed_cycles + timing_.bloom_first_cycles + timing_.bloom_per_element_cycles * (n - 1) +
			 delay_cycles_;
		break;
	}
	default:
		++ignored_writes_;
		return;
	}
	if (op != r::OP_BLOOM)
		len_ = len;
	busy_ = true;
	++seq_;
	done_ns_ = start + ns_at(cycles);
	++invoke_count_;
}

std::uint64_t pio_dev::reg_read(std::uint64_t off, unsigned len, std::uint64_t t_ns, std::uint64_t &ready_ns)
{
	ready_ns = t_ns;
	const std::uint64_t cyc = cycles_at(t_ns);
	switch (off) {
	case r::ID.offset: return r::id_value;
	case r::VERSION.offset: return (r::version_major << 16) | r::version_minor;
	case r::CAPS.offset: return r::CAPS.reset;
	case r::CLOCK_MHZ.offset: return r::clock_mhz;
	case r::SCRATCH.offset: return scratch_;
	case r::CYCLES.offset:
		if (len == 4) // a 32-bit read of the low half latches the high half
			cycles_hi_latch_ = static_cast<std::uint32_t>(cyc >> 32);
		return len == 4 ? (cyc & 0xffffffffu) : cyc;
	case r::CYCLES.offset + 4: return cycles_hi_latch_;
	case r::INVOKE_TIMEOUT.offset: return timeout_cycles_;
	case r::INVOKE_DELAY.offset: return delay_cycles_;
	case r::INVOKE_COUNT.offset: return invoke_count_;
	case r::NOT_READY_COUNT.offset: return not_ready_count_;
	case r::INVOKE_STATUS.offset: {
		if (!busy_ && seq_ == 0) { // nothing was ever started: the unit answers at once
			++not_ready_count_;
			return r::NOT_READY;
		}
		const std::uint64_t deadline = t_ns + ns_at(timeout_cycles_);
		if (done_ns_ > deadline) {
			ready_ns = deadline;
			++not_ready_count_;
			return r::NOT_READY;
		}
		ready_ns = std::max(t_ns, done_ns_);
		busy_ = false;
		return r::STATUS_DONE | (std::uint64_t(seq_ & r::STATUS_SEQ_MASK) << r::STATUS_SEQ_SHIFT) | len_;
	}
	default: return 0; // unmapped register space reads as zero, as the RTL does
	}
}

void pio_dev::reg_write(std::uint64_t off, std::uint64_t v, unsigned len, std::uint64_t t_ns)
{
	switch (off) {
	case r::SCRATCH.offset: scratch_ = static_cast<std::uint32_t>(v); return;
	case r::INVOKE_TIMEOUT.offset: timeout_cycles_ = static_cast<std::uint32_t>(v); return;
	case r::INVOKE_DELAY.offset: delay_cycles_ = static_cast<std::uint32_t>(v); return;
	case r::DOORBELL.offset:
		if (len == 8) {
			start_invoke(v, t_ns);
			return;
		}
		break;
	default: break;
	}
	++ignored_writes_; // read-only or unmapped: dropped, as posted writes are
}

void pio_dev::posted_write(unsigned bar, std::uint64_t off, const void *data, std::size_t len, std::uint64_t t_ns)
{
	if (bar != 0 || off + len > r::bar_size) {
		++ignored_writes_;
		return;
	}
	if (in(r::REQ, off, len)) {
		std::memcpy(req_.data() + (off - r::REQ.offset), data, len);
	} else if (in(r::BRAM, off, len)) {
		std::memcpy(bram_.data() + (off - r::BRAM.offset), data, len);
	} else if ((len == 4 || len == 8) && off % len == 0 && off < r::REQ.offset) {
		std::uint64_t v = 0;
		std::memcpy(&v, data, len);
		reg_write(off, v, static_cast<unsigned>(len), t_ns);
	} else {
		++ignored_writes_;
	}
}

std::uint64_t pio_dev::read(unsigned bar, std::uint64_t off, void *data, std::size_t len, std::uint64_t t_ns)
{
	std::memset(data, 0, len);
	if (bar != 0 || off + len > r::bar_size)
		return t_ns;
	if (in(r::RESP, off, len)) {
		std::memcpy(data, resp_.data() + (off - r::RESP.offset), len);
	} else if (in(r::BRAM, off, len)) {
		std::memcpy(data, bram_.data() + (off - r::BRAM.offset), len);
	} else if ((len == 4 || len == 8) && off % len == 0 && off < r::REQ.offset) {
		std::uint64_t ready = t_ns;
		std::uint64_t v = reg_read(off, static_cast<unsigned>(len), t_ns, ready);
		std::memcpy(data, &v, len);
		return ready;
	}
	return t_ns;
}

std::unique_ptr<target> make_pio_dev()
{
	return std::make_unique<pio_dev>();
}

} // namespace pioc::sim
