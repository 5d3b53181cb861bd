/** @file
 * A cache line's bytes as the ECI model keeps and sends them (the CPU's
 * copy, the home's memory, the copy an answer, forward or victim carries):
 * the few operations of std::vector<std::uint8_t> the model uses, its
 * memory from a recycled block (block_pool.hpp) and its copies one memcpy
 * (a std::vector with a custom allocator copies byte by byte: a sixth of a
 * sim:nic_eci run's instructions, Documentation/benchmarking.md, "ECI
 * model faster than real time").
 */
#pragma once

#include <pioc/sim/block_pool.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace pioc::sim {

class line_bytes {
public:
	line_bytes() noexcept = default;
	line_bytes(const line_bytes &o) : line_bytes() { copy_from(o.p_, o.n_); }
	line_bytes(line_bytes &&o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
	line_bytes &operator=(const line_bytes &o)
	{
		if (this != &o)
			copy_from(o.p_, o.n_);
		return *this;
	}
	line_bytes &operator=(line_bytes &&o) noexcept
	{
		if (this != &o) {
			release();
			p_ = std::exchange(o.p_, nullptr);
			n_ = std::exchange(o.n_, 0);
		}
		return *this;
	}
	~line_bytes() { release(); }

	/** @p n bytes, each @p v (as vector::assign). */
	void assign(std::size_t n, std::uint8_t v)
	{
		resize_uninit(n);
		if (n)
			std::memset(p_, v, n);
	}
	std::uint8_t *data() noexcept { return p_; }
	const std::uint8_t *data() const noexcept { return p_; }
	std::size_t size() const noexcept { return n_; }
	bool empty() const noexcept { return n_ == 0; }

private:
	static constexpr std::size_t block = 256; // lines up to 256 bytes recycled

	void copy_from(const std::uint8_t *src, std::size_t n)
	{
		resize_uninit(n);
		if (n)
			std::memcpy(p_, src, n);
	}
	/** Room for exactly @p n bytes (contents undefined); keeps the block
	 *  when the size class does not change. */
	void resize_uninit(std::size_t n)
	{
		if (n == n_)
			return;
		if (n && n <= block && n_ && n_ <= block) {
			n_ = n;
			return;
		}
		release();
		if (n)
			p_ = static_cast<std::uint8_t *>(n <= block ? block_pool<block>::get() : ::operator new(n));
		n_ = n;
	}
	void release() noexcept
	{
		if (!p_)
			return;
		if (n_ <= block)
			block_pool<block>::put(p_);
		else
			::operator delete(p_);
		p_ = nullptr;
		n_ = 0;
	}

	std::uint8_t *p_ = nullptr;
	std::uint32_t n_ = 0;
};

} // namespace pioc::sim
