/** @file
 * A move-only callable with a larger inline buffer than std::function's 16
 * bytes, for the models' events (sim:eci's system and protocol engine,
 * sim:xdma's engines): their callbacks capture `this`, a line address, a few
 * flags, a continuation or a line's data (a std::vector: 24 bytes), 24 to 56
 * bytes, so that std::function allocated and freed once or twice per event
 * (a fifth of a sim:nic_eci run's instructions went to malloc/free,
 * Documentation/benchmarking.md, "ECI model faster than real time").
 * Callables up to @p Inline bytes live inside; larger ones (a continuation
 * that captures another continuation) in a recycled block (block_pool.hpp)
 * or, above 128 bytes, on the heap as std::function's do.
 * Single-threaded use, like the models.
 */
#pragma once

#include <pioc/sim/block_pool.hpp>

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace pioc::sim {

template <class Sig, std::size_t Inline = 56>
class inline_function;

template <class R, class... Args, std::size_t Inline>
class inline_function<R(Args...), Inline> {
public:
	inline_function() noexcept = default;
	inline_function(std::nullptr_t) noexcept {}

	template <class F, class D = std::decay_t<F>,
		  class = std::enable_if_t<!std::is_same_v<D, inline_function> && std::is_invocable_r_v<R, D &, Args...>>>
	inline_function(F &&f)
	{
		if constexpr (std::is_same_v<D, std::function<R(Args...)>> || std::is_pointer_v<D>) {
			if (!f)
				return; // empty stays empty, as std::function's conversion does
		}
		if constexpr (fits<D>) {
			::new (static_cast<void *>(buf_)) D(std::forward<F>(f));
			ops_ = &inline_ops<D>;
		} else if constexpr (pooled<D>) {
			void *b = block_pool<pool_block>::get();
			try {
				::new (static_cast<void *>(buf_)) D *(::new (b) D(std::forward<F>(f)));
			} catch (...) {
				block_pool<pool_block>::put(b);
				throw;
			}
			ops_ = &heap_ops<D>;
		} else {
			::new (static_cast<void *>(buf_)) D *(new D(std::forward<F>(f)));
			ops_ = &heap_ops<D>;
		}
	}

	inline_function(inline_function &&o) noexcept : ops_(o.ops_)
	{
		take(o);
	}

	inline_function &operator=(inline_function &&o) noexcept
	{
		if (this != &o) {
			reset();
			ops_ = o.ops_;
			take(o);
		}
		return *this;
	}

	inline_function &operator=(std::nullptr_t) noexcept
	{
		reset();
		return *this;
	}

	inline_function(const inline_function &) = delete;
	inline_function &operator=(const inline_function &) = delete;
	~inline_function() { reset(); }

	explicit operator bool() const noexcept { return ops_ != nullptr; }

	/** Calls the callable; it must not be empty (std::function would throw
	 *  bad_function_call: here that is a bug of the model). Const and
	 *  calling the callable as non-const, as std::function does, so that
	 *  it replaces std::function in lambdas that are not mutable. */
	R operator()(Args... args) const
	{
		return ops_->call(const_cast<unsigned char *>(buf_), std::forward<Args>(args)...);
	}

private:
	struct ops {
		R (*call)(void *, Args &&...);
		void (*relocate)(void *dst, void *src) noexcept; // move-constructs dst, destroys src
		void (*destroy)(void *) noexcept;
		// Moved by copying the buffer, destroyed by forgetting it: a
		// callable of plain captures (this, line numbers, flags, pointers;
		// most events) or a heap callable's pointer (moves only). The event
		// list moves each event a few times: no indirect call for those.
		bool trivial_move, trivial_destroy;
	};

	template <class D>
	static constexpr bool fits = sizeof(D) <= Inline && alignof(D) <= alignof(void *) &&
				     std::is_nothrow_move_constructible_v<D>;

	template <class D>
	static constexpr ops inline_ops = {
		[](void *p, Args &&...a) -> R { return std::invoke(*static_cast<D *>(p), std::forward<Args>(a)...); },
		[](void *dst, void *src) noexcept {
			::new (dst) D(std::move(*static_cast<D *>(src)));
			static_cast<D *>(src)->~D();
		},
		[](void *p) noexcept { static_cast<D *>(p)->~D(); },
		std::is_trivially_copyable_v<D>,
		std::is_trivially_destructible_v<D>,
	};

	// Larger callables in recycled blocks (a continuation capturing another
	// continuation: 80 to 120 bytes), the rest from operator new.
	static constexpr std::size_t pool_block = 128;
	template <class D>
	static constexpr bool pooled = sizeof(D) <= pool_block && alignof(D) <= alignof(std::max_align_t);
	template <class D>
	static void destroy_heap(D *d) noexcept
	{
		if constexpr (pooled<D>) {
			d->~D();
			block_pool<pool_block>::put(d);
		} else {
			delete d;
		}
	}

	template <class D>
	static constexpr ops heap_ops = {
		[](void *p, Args &&...a) -> R { return std::invoke(**static_cast<D **>(p), std::forward<Args>(a)...); },
		[](void *dst, void *src) noexcept { ::new (dst) D *(*static_cast<D **>(src)); },
		[](void *p) noexcept { destroy_heap(*static_cast<D **>(p)); },
		true,
		false,
	};

	void reset() noexcept
	{
		if (ops_) {
			if (!ops_->trivial_destroy)
				ops_->destroy(buf_);
			ops_ = nullptr;
		}
	}
	/** The callable of @p o (ops_ already copied from it) moves here. */
	void take(inline_function &o) noexcept
	{
		if (!ops_)
			return;
		if (ops_->trivial_move)
			std::memcpy(buf_, o.buf_, Inline);
		else
			ops_->relocate(buf_, o.buf_);
		o.ops_ = nullptr;
	}

	alignas(void *) unsigned char buf_[Inline]; // 56 + 8: a 64-byte object
	const ops *ops_ = nullptr;
};

} // namespace pioc::sim
