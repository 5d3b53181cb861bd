// Choosing the wide-access instructions once, and the hardware copy routines.
#include <pioc/io.hpp>
#include "core/log.hpp"
#include <pioc/wide.hpp>

#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pioc {

std::string_view to_string(wide_isa w) noexcept
{
	return name_of(wide_isa_names, w);
}

std::optional<wide_isa> parse_wide_isa(std::string_view s) noexcept
{
	return parse_name(wide_isa_names, s);
}

bool wide_isa_supported(wide_isa w) noexcept
{
	switch (w) {
	case wide_isa::none: return true;
#if defined(__x86_64__)
	case wide_isa::sse: return true;
	case wide_isa::avx2: return __builtin_cpu_supports("avx");
	case wide_isa::avx512: return __builtin_cpu_supports("avx512f");
	case wide_isa::movdir64b: {
		unsigned a, b, c, d;
		if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
			return false;
		return (c >> 28) & 1;
	}
	case wide_isa::neon: return false;
#else
	case wide_isa::neon: return true;
	default: return false;
#endif
	}
	return false;
}

wide_isa wide_isa_default()
{
	static const wide_isa chosen = [] {
		if (const char *env = std::getenv("PIOC_WIDE")) {
			auto w = parse_wide_isa(env);
			if (w && wide_isa_supported(*w))
				return *w;
			log().warn("PIOC_WIDE={} is unknown or not supported by this CPU; choosing automatically", env);
		}
#if defined(__x86_64__)
		// MOVDIR64B only helps stores; AVX-512 covers both directions.
		if (wide_isa_supported(wide_isa::avx512))
			return wide_isa::avx512;
		if (wide_isa_supported(wide_isa::avx2))
			return wide_isa::avx2;
		return wide_isa::sse;
#else
		return wide_isa::neon;
#endif
	}();
	return chosen;
}

// The switch runs once per copy, never per word: each case is a loop compiled
// for one instruction family.
void mmio_io::copy_to_any(std::uint64_t off, const void *src, std::size_t n) const noexcept
{
	const auto *s = static_cast<const std::uint8_t *>(src);
	std::uint8_t *b = base_;
	switch (isa_) {
#if defined(__x86_64__)
	case wide_isa::sse:
		detail::copy_to(*this, off, s, n, 16, [b](std::uint64_t o, const std::uint8_t *p) { wide::store16(b + o, p); });
		return;
	case wide_isa::avx2:
		detail::copy_to(*this, off, s, n, 32, [b](std::uint64_t o, const std::uint8_t *p) { wide::store32(b + o, p); });
		return;
	case wide_isa::avx512:
		detail::copy_to(*this, off, s, n, 64, [b](std::uint64_t o, const std::uint8_t *p) { wide::store64(b + o, p); });
		return;
	case wide_isa::movdir64b:
		detail::copy_to(*this, off, s, n, 64, [b](std::uint64_t o, const std::uint8_t *p) { wide::movdir64b(b + o, p); });
		return;
#elif defined(__aarch64__)
	case wide_isa::neon:
		detail::copy_to(*this, off, s, n, 16, [b](std::uint64_t o, const std::uint8_t *p) { wide::store16(b + o, p); });
		return;
#endif
	default:
		detail::copy_to(*this, off, s, n, 8, [this](std::uint64_t o, const std::uint8_t *p) { store_bytes(o, p, 8); });
		return;
	}
}

void mmio_io::copy_from_any(std::uint64_t off, void *dst, std::size_t n) const noexcept
{
	auto *d = static_cast<std::uint8_t *>(dst);
	const std::uint8_t *b = base_;
	wide_isa w = isa_;
#if defined(__x86_64__)
	if (w == wide_isa::movdir64b)
		w = wide_isa_supported(wide_isa::avx512) ? wide_isa::avx512 : wide_isa::sse;
#endif
	switch (w) {
#if defined(__x86_64__)
	case wide_isa::sse:
		detail::copy_from(*this, off, d, n, 16, [b](std::uint64_t o, std::uint8_t *p) { wide::load16(b + o, p); });
		return;
	case wide_isa::avx2:
		detail::copy_from(*this, off, d, n, 32, [b](std::uint64_t o, std::uint8_t *p) { wide::load32(b + o, p); });
		return;
	case wide_isa::avx512:
		detail::copy_from(*this, off, d, n, 64, [b](std::uint64_t o, std::uint8_t *p) { wide::load64(b + o, p); });
		return;
#elif defined(__aarch64__)
	case wide_isa::neon:
		detail::copy_from(*this, off, d, n, 16, [b](std::uint64_t o, std::uint8_t *p) { wide::load16(b + o, p); });
		return;
#endif
	default:
		detail::copy_from(*this, off, d, n, 8, [this](std::uint64_t o, std::uint8_t *p) { load_bytes(o, p, 8); });
		return;
	}
}

} // namespace pioc
