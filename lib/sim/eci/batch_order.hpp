// What the two batches of the ECI model share (miss_batch.cpp, lci_batch.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace pioc::sim::eci {

/** @p order becomes 0 .. @p n - 1 sorted by @p later (i, j): "i's event runs
 *  after j's". An insertion sort: stable (equal ones keep the order they
 *  were scheduled in, as the event queue does), no allocation once @p order
 *  has room, and about one compare an entry on the nearly sorted times a
 *  batch gives. */
template <class Later> void event_order(std::vector<std::uint32_t> &order, std::size_t n, Later later)
{
	order.resize(n);
	for (std::uint32_t i = 0; i < n; ++i) {
		std::uint32_t j = i;
		for (; j && later(order[j - 1], i); --j)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/** Sets a flag back to false however the scope is left. */
struct flag_scope {
	bool &on;
	~flag_scope() { on = false; }
};

} // namespace pioc::sim::eci
