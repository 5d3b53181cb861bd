// The coherent engine's control block through the I/O window: see
// pioc/coherent/engine_control.hpp.
#include <pioc/coherent/engine_control.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/coh_dev.hpp>

#include <fmt/format.h>

namespace pioc::coherent {

namespace C = regs::coh_dev;

namespace {
std::uint32_t reg(const region &io, const C::reg &r)
{
	return io.read<std::uint32_t>(r.offset);
}
} // namespace

engine_control::engine_control(region io) : io_(std::move(io))
{
	if (io_.size() < C::bar_size)
		throw error(errc::out_of_range,
			    fmt::format("{}: {:#x} bytes, smaller than the coherent engine's control block ({:#x} bytes at "
					"offset 0)",
					name(), io_.size(), C::bar_size));
	const std::uint32_t id = reg(io_, C::ID);
	if (id != C::id_value)
		throw error(errc::not_supported,
			    fmt::format("{}: ID at offset {:#x} reads {:#010x}, not the coherent engine's {:#010x} "
					"(\"COHE\"): is this the I/O window of our Enzian image?",
					name(), C::ID.offset, id, C::id_value));
	const std::uint32_t v = version();
	if (v >> 16 != C::version_major || (v & 0xffff) < 1)
		throw error(errc::not_supported,
			    fmt::format("{}: VERSION at offset {:#x} reads {}.{}; this library speaks the control words "
					"of version {}.x and takes the channel count from CHANNELS (3.1 and later)",
					name(), C::VERSION.offset, v >> 16, v & 0xffff, C::version_major));
}

std::uint32_t engine_control::version() const { return reg(io_, C::VERSION); }

std::uint32_t engine_control::channels() const { return reg(io_, C::CHANNELS); }

bool engine_control::exclusive() const { return reg(io_, C::CONFIG) & C::CFG_EXCLUSIVE; }

void engine_control::set_exclusive(bool on) const
{
	const std::uint32_t old = reg(io_, C::CONFIG);
	const std::uint32_t want = on ? old | C::CFG_EXCLUSIVE : old & ~std::uint32_t(C::CFG_EXCLUSIVE);
	io_.write<std::uint32_t>(C::CONFIG.offset, want);
	const std::uint32_t got = reg(io_, C::CONFIG);
	if (got != want)
		throw error(errc::device_error,
			    fmt::format("{}: CONFIG at offset {:#x} reads {:#x} after writing {:#x} (CFG_EXCLUSIVE {})",
					name(), C::CONFIG.offset, got, want, on ? "set" : "cleared"));
}

} // namespace pioc::coherent
