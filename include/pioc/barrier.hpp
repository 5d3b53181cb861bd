/** @file
 * Barriers named for what they order, with the right instruction per
 * architecture. Inline: they sit in the hottest loops.
 *
 * | function          | orders                                              | x86-64    | arm64          |
 * |-------------------|-----------------------------------------------------|-----------|----------------|
 * | wc_flush()        | drains write-combining buffers to the bus           | sfence    | dsb st         |
 * | store_store()     | earlier stores before later stores (device memory)  | compiler  | dmb oshst      |
 * | store_load()      | earlier stores visible before later loads issue     | mfence    | dmb sy         |
 * | load_load()       | earlier loads before later loads                    | compiler  | dmb oshld      |
 * | full()            | everything before everything, pipeline resynchronised| mfence   | dsb sy; isb    |
 *
 * x86 keeps stores in order and loads in order on UC/WB memory, so only the
 * compiler must be stopped there; WC stores are weakly ordered and need sfence.
 * The coherent protocols on ThunderX-1 use store_load() ("dmb sy") between
 * writing line B and loading line A (paper Sec. 5), for latency; their
 * correctness rests on release/acquire of the control words (stlr/ldar, in
 * pioc/coherent/lines.hpp), which tests/herd proves under the ARMv8 model.
 * load_load() is for device (MMIO) reads; on coherent memory an acquire
 * load orders the loads after it at no extra barrier.
 */
#pragma once

namespace pioc::barrier {

/** Stops the compiler from moving memory accesses across this point. */
inline void compiler() noexcept { asm volatile("" ::: "memory"); }

#if defined(__x86_64__)
inline void wc_flush() noexcept { asm volatile("sfence" ::: "memory"); }
inline void store_store() noexcept { compiler(); }
inline void store_load() noexcept { asm volatile("mfence" ::: "memory"); }
inline void load_load() noexcept { compiler(); }
inline void full() noexcept { asm volatile("mfence" ::: "memory"); }
#elif defined(__aarch64__)
inline void wc_flush() noexcept { asm volatile("dsb st" ::: "memory"); }
inline void store_store() noexcept { asm volatile("dmb oshst" ::: "memory"); }
inline void store_load() noexcept { asm volatile("dmb sy" ::: "memory"); }
inline void load_load() noexcept { asm volatile("dmb oshld" ::: "memory"); }
inline void full() noexcept { asm volatile("dsb sy\n\tisb" ::: "memory"); }
#else
#error "pioc supports x86-64 and aarch64"
#endif

/** The barrier kinds, for code that forwards a barrier to a simulator. */
enum class kind { compiler, wc_flush, store_store, store_load, load_load, full };

/** Executes the barrier of the given kind (use the named functions in hot code). */
inline void issue(kind k) noexcept
{
	switch (k) {
	case kind::compiler: compiler(); break;
	case kind::wc_flush: wc_flush(); break;
	case kind::store_store: store_store(); break;
	case kind::store_load: store_load(); break;
	case kind::load_load: load_load(); break;
	case kind::full: full(); break;
	}
}

} // namespace pioc::barrier
