/** @file
 * Recycled fixed-size memory blocks for the models' short-lived objects: a
 * cache line's data in flight (sim:eci answers, forwards and victims carry a
 * copy of the line) and the event callbacks too large to live inline (a
 * continuation that captures another one). Each is allocated and freed once
 * or more per modelled message; glibc's malloc/free cost about 200
 * instructions a pair there (more blocks of one size in flight than its
 * per-thread cache keeps), a free list here a few
 * (Documentation/benchmarking.md, "ECI model faster than real time").
 *
 * One free list per thread and block size; a block may be freed on another
 * thread than it came from (all blocks of a size are alike). Blocks return
 * to the system when their thread exits.
 */
#pragma once

#include <cstddef>
#include <new>

namespace pioc::sim {

/** The free list of @p Size -byte blocks of the calling thread. The list
 *  head is a plain thread_local (no destructor, so valid as long as the
 *  thread runs); a guard empties it at thread exit, after which blocks
 *  come from and go to operator new/delete directly (an object of static
 *  duration freed after the main thread's thread_locals). */
template <std::size_t Size>
class block_pool {
public:
	static_assert(Size >= sizeof(void *) && Size % alignof(std::max_align_t) == 0);

	static void *get()
	{
		if (node *n = head_) {
			head_ = n->next;
			return n;
		}
		return ::operator new(Size);
	}
	static void put(void *b) noexcept
	{
		if (gone_) {
			::operator delete(b);
			return;
		}
		static thread_local guard g; // constructed on the thread's first put()
		auto *n = static_cast<node *>(b);
		n->next = head_;
		head_ = n;
	}

private:
	struct node {
		node *next;
	};
	struct guard {
		~guard()
		{
			gone_ = true;
			while (node *n = head_) {
				head_ = n->next;
				::operator delete(n);
			}
		}
	};
	static inline thread_local node *head_ = nullptr;
	static inline thread_local bool gone_ = false;
};

} // namespace pioc::sim
