/** @file
 * A mapped window of a device: a BAR, a sub-range of one, or an ECI window.
 *
 * A region owns its mapping (through a shared owner) and knows its name,
 * size and memory type. Its accessors check bounds and alignment and throw
 * pioc::error naming the region, offset, size and rule. For timed loops,
 * visit() hands the unchecked I/O view (pioc::mmio_io or pioc::sim_io) to a
 * generic lambda once, so the loop is compiled per backend.
 */
#pragma once

#include <pioc/error.hpp>
#include <pioc/io.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace pioc {

class region {
public:
	using io_variant = std::variant<mmio_io, sim_io>;

	region() = default;
	/** @p owner keeps the mapping (or the simulated device) alive. */
	region(std::string name, io_variant io, std::shared_ptr<const void> owner);

	const std::string &name() const noexcept { return name_; }
	std::uint64_t size() const noexcept;
	mem_type type() const noexcept;
	bool simulated() const noexcept { return std::holds_alternative<sim_io>(io_); }
	explicit operator bool() const noexcept { return owner_ != nullptr; }

	/** Calls @p f with the I/O view (mmio_io& or sim_io&). Pick once, above hot loops. */
	template <class F> decltype(auto) visit(F &&f) const { return std::visit(std::forward<F>(f), io_); }
	const io_variant &io() const noexcept { return io_; }

	/** Checked typed read of 1, 2, 4 or 8 bytes (must be naturally aligned). */
	template <class T> T read(std::uint64_t off) const
	{
		static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
		check(off, sizeof(T), sizeof(T), "read");
		return visit([off](const auto &io) { return io.template load<T>(off); });
	}
	/** Checked typed write. */
	template <class T> void write(std::uint64_t off, T v) const
	{
		static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
		check(off, sizeof(T), sizeof(T), "write");
		visit([off, v](const auto &io) { io.template store<T>(off, v); });
	}
	/** Checked copy host -> device (any size and alignment; device side aligned first). */
	void copy_to(std::uint64_t off, const void *src, std::size_t n) const;
	/** Checked copy device -> host. */
	void copy_from(std::uint64_t off, void *dst, std::size_t n) const;

	/** The sub-range [off, off+size) as a region of its own ("name+0x2000"). */
	region sub(std::uint64_t off, std::uint64_t size, std::string_view label = {}) const;

	/** Throws pioc::error unless [off, off+len) lies inside the region and off
	 *  is a multiple of @p align; @p what names the access in the message. */
	void check(std::uint64_t off, std::uint64_t len, std::uint64_t align, const char *what) const;

private:
	std::string name_;
	io_variant io_;
	std::shared_ptr<const void> owner_;
};

} // namespace pioc
