// Two real threads on two cores: see threads.hpp.
#include "threads.hpp"

#include <pioc/coherent/backing_check.hpp>
#include <pioc/coherent/port.hpp>
#include <pioc/error.hpp>
#include <pioc/place.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include <pthread.h>
#include <sched.h>

namespace ecibench {

using namespace pioc;

struct ring_memory::heap_block {
	void *p;
	heap_block(std::size_t n, std::size_t a) : p(std::aligned_alloc(a, n))
	{
		if (!p)
			throw error(errc::os_error, "ecibench: out of memory");
		std::memset(p, 0, n);
	}
	~heap_block() { std::free(p); }
};

ring_memory::ring_memory(const device_choice &d, std::uint32_t line) : line_(line), spec_(d.spec)
{
	if (d.kind != device_kind::window)
		return;
	dev_.emplace(device::open(d.spec));
	const coherent::window w = dev_->coherent().map_window();
	if (reinterpret_cast<std::uintptr_t>(w.base) % line)
		throw error(errc::misaligned, fmt::format("ecibench: window {} is not {}-byte aligned", d.spec, line));
	win_ = w.base;
	win_size_ = w.size;
}

ring_memory::~ring_memory() = default;

std::pair<void *, void *> ring_memory::two(std::size_t bytes)
{
	const std::size_t r = (bytes + line_ - 1) / line_ * line_;
	if (!win_) {
		heap_.clear();
		heap_.push_back(std::make_unique<heap_block>(r, line_));
		heap_.push_back(std::make_unique<heap_block>(r, line_));
		return {heap_[0]->p, heap_[1]->p};
	}
	if (2 * r > win_size_)
		throw error(errc::out_of_range,
			    fmt::format("ecibench: two rings of {} bytes do not fit the {}-byte window {}", r, win_size_, spec_));
	auto *b = static_cast<std::uint8_t *>(win_);
	// The rings need memory behind them: refuse a window that does not keep
	// its lines (pioc's own Enzian image serves only its channels' lines).
	coherent::check_keeps_data(coherent::mem_lines(b, line_), 0, 2 * r, spec_, std::uint64_t(std::time(nullptr)));
	return {b, b + r};
}

std::string pin_peer(std::thread &t)
{
	auto cores = all_cores();
	if (cores.size() < 2)
		return "not pinned (one core)";
	unsigned me = static_cast<unsigned>(sched_getcpu());
	for (auto &c : cores)
		if (c.os_index != me) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(c.os_index, &set);
			if (pthread_setaffinity_np(t.native_handle(), sizeof set, &set) == 0)
				return fmt::format("core {}", c.os_index);
		}
	return "not pinned";
}

bench::report two_core_report(const std::string &tool, const device_choice &d, const bench_options &o,
			      std::uint32_t line)
{
	bench::report rep;
	rep.tool = tool;
	rep.device = d.spec;
	rep.transport = d.kind == device_kind::window ? "kmod" : "shared memory";
	rep.memory_type = "wb";
	rep.simulated = false;
	rep.cpu = pin_timing_thread(pin_info(d), o);
	rep.extra["line"] = line;
	return rep;
}

} // namespace ecibench
