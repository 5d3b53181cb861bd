// PIO invocation: the checked API and the cold paths of the templates.
#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>

#include <fmt/format.h>


namespace pioc::pio {

std::string_view to_string(op o) noexcept
{
	return name_of(op_names, o);
}

std::optional<op> parse_op(std::string_view s) noexcept
{
	return parse_name(op_names, s);
}

namespace detail {

void throw_not_ready(const invoke_state &st, unsigned reads)
{
	throw error(errc::timeout,
		    fmt::format("{}: invocation not ready after {} reads of INVOKE_STATUS (offset {:#x}); each "
				"stalls up to INVOKE_TIMEOUT cycles and got NOT_READY ({:#x}): the function did not "
				"finish in time (raise INVOKE_TIMEOUT or the retry count)",
				st.device, reads, regs::INVOKE_STATUS.offset, regs::NOT_READY));
}

void throw_bad_status(const invoke_state &st, std::uint64_t s)
{
	if (s == ~0ull)
		throw error(errc::device_gone,
			    fmt::format("{}: INVOKE_STATUS (offset {:#x}) read all-ones: the device is gone or "
					"its BAR is disabled", st.device, regs::INVOKE_STATUS.offset));
	if (!(s & regs::STATUS_DONE))
		throw error(errc::device_error,
			    fmt::format("{}: INVOKE_STATUS (offset {:#x}) = {:#x}: neither done (bit 63) nor "
					"NOT_READY", st.device, regs::INVOKE_STATUS.offset, s));
	const auto seq = (s >> regs::STATUS_SEQ_SHIFT) & regs::STATUS_SEQ_MASK;
	throw error(errc::device_error,
		    fmt::format("{}: completion carries sequence {} but {} was expected: the doorbell was "
				"ignored (length must be 1..{}, op 0..2) or another user shares the device",
				st.device, seq, st.next_seq, max_payload));
}

void check_request_len(const invoke_state &st, op o, std::size_t n)
{
	if (n == 0)
		throw error(errc::invalid_argument,
			    fmt::format("{}: invocation ({}) of 0 bytes: the request must be 1..{} bytes", st.device,
					to_string(o), max_payload));
	if (n > max_payload)
		throw error(errc::out_of_range,
			    fmt::format("{}: invocation ({}) of {} bytes: the request window REQ at {:#x} holds {} bytes",
					st.device, to_string(o), n, regs::REQ.offset, max_payload));
}

} // namespace detail

std::uint32_t next_sequence(const region &bar0)
{
	const auto count = bar0.read<std::uint32_t>(regs::INVOKE_COUNT.offset);
	return (count + 1) & static_cast<std::uint32_t>(regs::STATUS_SEQ_MASK);
}

invoker::invoker(region bar0) : bar_(std::move(bar0)), name_(std::make_shared<const std::string>(bar_.name()))
{
	st_.device = name_->c_str();
	if (bar_.size() < regs::bar_size)
		throw error(errc::not_supported,
			    fmt::format("{}: {:#x} bytes is smaller than the PIO image's BAR0 ({:#x} bytes)",
					*name_, bar_.size(), regs::bar_size));
	if (bar_.type() == mem_type::wb)
		throw error(errc::not_supported, fmt::format("{}: memory type wb is not allowed for PIO (use uc, wc or wt)", *name_));
	const auto id = bar_.read<std::uint32_t>(regs::ID.offset);
	if (id != regs::id_value)
		throw error(errc::not_supported,
			    fmt::format("{}: ID register (offset {:#x}) reads {:#x}, not {:#x} ('PIOC'): not a pioc "
					"PIO image", *name_, regs::ID.offset, id, regs::id_value));
	const auto ver = bar_.read<std::uint32_t>(regs::VERSION.offset);
	if ((ver >> 16) != regs::version_major)
		throw error(errc::not_supported,
			    fmt::format("{}: PIO image version {}.{}, this library speaks {}.x", *name_, ver >> 16,
					ver & 0xffff, regs::version_major));
	const auto caps = bar_.read<std::uint32_t>(regs::CAPS.offset);
	if (!(caps & regs::CAP_INVOKE))
		throw error(errc::not_supported, fmt::format("{}: CAPS {:#x} has no invoke unit", *name_, caps));
	st_.next_seq = next_sequence(bar_);
}

std::size_t invoker::invoke(op o, std::span<const std::uint8_t> req, std::span<std::uint8_t> resp)
{
	detail::check_request_len(st_, o, req.size());
	if (resp.size() < req.size())
		throw error(errc::invalid_argument,
			    fmt::format("{}: invocation ({}) of {} bytes: the response buffer has {} bytes, needs {}",
					*name_, to_string(o), req.size(), resp.size(), req.size()));
	return bar_.visit([&](const auto &io) {
		return with_mem_type(io.type(), [&](auto mt) {
			return pio::invoke<decltype(mt)::value>(io, st_, o, req.data(), req.size(), resp.data());
		});
	});
}

std::vector<std::uint8_t> invoker::invoke(op o, std::span<const std::uint8_t> req)
{
	std::vector<std::uint8_t> out(std::max<std::size_t>(req.size(), 1));
	out.resize(invoke(o, req, out));
	return out;
}

void invoker::check_bram(std::uint64_t off, std::size_t n, const char *what) const
{
	if (n == 0)
		throw error(errc::invalid_argument,
			    fmt::format("{}: {} of 0 bytes at BRAM+{:#x}: size must be at least 1", *name_, what, off));
	if (off >= regs::BRAM.size || n > regs::BRAM.size - off)
		throw error(errc::out_of_range,
			    fmt::format("{}: {} of {} bytes at BRAM+{:#x} ends past the BRAM window ({:#x} bytes at "
					"BAR offset {:#x})", *name_, what, n, off, regs::BRAM.size, regs::BRAM.offset));
}

void invoker::write(std::uint64_t off, std::span<const std::uint8_t> data)
{
	check_bram(off, data.size(), "write stream");
	bar_.visit([&](const auto &io) {
		with_mem_type(io.type(), [&](auto mt) {
			write_stream<decltype(mt)::value>(io, regs::BRAM.offset + off, data.data(), data.size());
		});
	});
}

void invoker::read(std::uint64_t off, std::span<std::uint8_t> data)
{
	check_bram(off, data.size(), "read stream");
	bar_.visit([&](const auto &io) {
		with_mem_type(io.type(), [&](auto mt) {
			read_stream<decltype(mt)::value>(io, regs::BRAM.offset + off, data.data(), data.size());
		});
	});
}

void invoker::set_timeout_cycles(std::uint32_t cycles)
{
	bar_.write<std::uint32_t>(regs::INVOKE_TIMEOUT.offset, cycles);
	bar_.visit([](const auto &io) { io.wc_flush(); }); // a register store must not linger in a WC buffer
}

void invoker::set_delay_cycles(std::uint32_t cycles)
{
	bar_.write<std::uint32_t>(regs::INVOKE_DELAY.offset, cycles);
	bar_.visit([](const auto &io) { io.wc_flush(); }); // a register store must not linger in a WC buffer
}

} // namespace pioc::pio
