/** @file
 * An object alone on a heap block of its own, for measurements between two
 * threads: what both threads touch (queue objects, their ends, the lines
 * themselves) must not share a 128-byte prefetch pair with anything else,
 * and must not sit wherever the compiler put a stack frame. With two
 * FastForward queues on the main thread's stack, bench/queue_pingpong
 * measured 95 ns in one build and 145 ns in the next, with the same queue
 * code (Documentation/benchmarking.md, session 17).
 */
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace pioc::bench {

/** Bytes a placed block starts on and is rounded up to: two 128-byte pairs. */
inline constexpr std::size_t placed_block = 256;

/** @p n zeroed bytes on their own placed_block-aligned heap block (free
 *  with std::free); throws std::bad_alloc when there is no memory. */
inline void *placed_bytes(std::size_t n)
{
	n = (n + placed_block - 1) / placed_block * placed_block;
	void *p = std::aligned_alloc(placed_block, n ? n : placed_block);
	if (!p)
		throw std::bad_alloc();
	std::memset(p, 0, n);
	return p;
}

/** @p n zeroed bytes on their own block, freed with it. */
class placed_buffer {
public:
	explicit placed_buffer(std::size_t n) : p_(placed_bytes(n)) {}
	placed_buffer(const placed_buffer &) = delete;
	placed_buffer &operator=(const placed_buffer &) = delete;
	~placed_buffer() { std::free(p_); }
	void *get() const noexcept { return p_; }

private:
	void *p_;
};

/** A T constructed on its own block; get() is stable for its lifetime. */
template <class T>
class placed {
public:
	template <class... A>
	explicit placed(A &&...a) : mem_(placed_bytes(sizeof(T)))
	{
		try {
			obj_ = new (mem_) T(std::forward<A>(a)...);
		} catch (...) {
			std::free(mem_);
			throw;
		}
	}
	placed(const placed &) = delete;
	placed &operator=(const placed &) = delete;
	~placed()
	{
		obj_->~T();
		std::free(mem_);
	}
	T *get() const noexcept { return obj_; }
	T &operator*() const noexcept { return *obj_; }
	T *operator->() const noexcept { return obj_; }

private:
	void *mem_;
	T *obj_ = nullptr;
};

} // namespace pioc::bench
