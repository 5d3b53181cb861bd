// pciebench dma's data check (see dma_check.hpp).
#include "pciebench/dma_check.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pioc::tool {
namespace {

// What the C2H area holds before the card's data lands: a transfer that
// never wrote shows up as these bytes (and a mismatch, unless the pattern
// happens to equal it everywhere, which it cannot over 8 bytes).
constexpr std::uint8_t poison = 0xa5;

std::uint64_t mix(std::uint64_t x)
{
	// splitmix64's finaliser: neighbouring slots and checks share no bytes.
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

} // namespace

std::vector<std::uint8_t> dma_check::pattern(std::uint64_t seed, std::uint64_t slot, std::uint64_t size)
{
	std::vector<std::uint8_t> p(size);
	const std::uint64_t base = mix(seed) ^ mix(slot + 1) * 0x100000001b3ull;
	for (std::uint64_t i = 0; i < size; i += 8) {
		const std::uint64_t w = mix(base + i);
		std::memcpy(p.data() + i, &w, std::min<std::uint64_t>(8, size - i));
	}
	return p;
}

dma_check::dma_check(device &dev, xdma::dma &x, unsigned channel, const dma_check_layout &l, std::uint64_t seed)
	: dev_(dev), x_(x), h2c_(x.h2c(channel)), c2h_(x.c2h(channel)), l_(l), seed_(seed)
{
	const std::uint64_t span = l.slots * l.stride + l.offset + 64;
	out_ = dev.alloc_dma(span);
	back_ = dev.alloc_dma(span);
	for (std::uint64_t i = 0; i < l.slots; ++i) {
		const std::uint64_t host = i * l.stride + l.offset, card = l.card + i * l.stride;
		h2c_reqs_.push_back(&h2c_.prepare(out_, host, l.size, card));
		c2h_reqs_.push_back(&c2h_.prepare(back_, host, l.size, card));
	}
}

void dma_check::move(xdma::channel &ch, std::vector<xdma::request *> &reqs)
{
	x_.config().visit([&](const auto &io) {
		auto ops = ch.ops(io);
		for (auto *r : reqs)
			ops.submit(*r);
		for (auto *r : reqs)
			ops.wait(*r);
	});
}

void dma_check::to_card()
{
	auto *host = static_cast<std::uint8_t *>(out_.cpu);
	for (std::uint64_t i = 0; i < l_.slots; ++i) {
		const auto p = pattern(seed_, i, l_.size);
		std::memcpy(host + i * l_.stride + l_.offset, p.data(), p.size());
	}
	move(h2c_, h2c_reqs_);
}

void dma_check::back_and_compare()
{
	auto *host = static_cast<std::uint8_t *>(back_.cpu);
	std::memset(host, poison, back_.size);
	move(c2h_, c2h_reqs_);
	compare_slots(dev_.spec(), l_, seed_, host);
}

void compare_slots(std::string_view what, const dma_check_layout &l, std::uint64_t seed, const std::uint8_t *host)
{
	for (std::uint64_t i = 0; i < l.slots; ++i) {
		const auto want = dma_check::pattern(seed, i, l.size);
		const std::uint8_t *got = host + i * l.stride + l.offset;
		const auto bad = std::mismatch(want.begin(), want.end(), got);
		if (bad.first == want.end())
			continue;
		const auto at = std::uint64_t(bad.first - want.begin());
		std::uint64_t wrong = 0;
		for (std::uint64_t k = 0; k < l.size; ++k)
			wrong += want[k] != got[k];
		throw error(errc::device_error,
			    fmt::format("pciebench dma: {}: data check failed: {}-byte transfer {} of {} (card "
					"address {:#x}, host offset {}): byte at offset {} read back {:#04x}, wrote "
					"{:#04x}; {} of {} bytes differ",
					what, l.size, i, l.slots, l.card + i * l.stride, i * l.stride + l.offset, at,
					got[at], want[at], wrong, l.size));
	}
}

void run_dma_check(device &dev, xdma::dma &x, unsigned channel, const dma_check_layout &l, std::uint64_t seed)
{
	dma_check c(dev, x, channel, l, seed);
	c.to_card();
	c.back_and_compare();
}

void run_chardev_check(xdma::chardev &cd, std::string_view what, const dma_check_layout &l, std::uint64_t seed)
{
	if (l.slots > cd.queue_depth())
		throw error(errc::invalid_argument,
			    fmt::format("pciebench dma: {}: data check of {} transfers in flight exceeds the queue depth "
					"{}",
					what, l.slots, cd.queue_depth()));
	const std::uint64_t span = l.slots * l.stride + l.offset + 64;
	std::vector<std::uint8_t> out(span), back(span, poison);
	for (std::uint64_t i = 0; i < l.slots; ++i) {
		const auto p = dma_check::pattern(seed, i, l.size);
		std::memcpy(out.data() + i * l.stride + l.offset, p.data(), p.size());
	}
	// Every slot in flight at once, as the timed runs queue them: the stock
	// driver's queued path is where card addresses went wrong (chardev.hpp).
	auto all = [&](auto submit) {
		for (std::uint64_t i = 0; i < l.slots; ++i)
			submit(i);
		for (std::uint64_t got = 0; got < l.slots;)
			got += cd.reap(unsigned(l.slots - got)).size();
	};
	all([&](std::uint64_t i) {
		cd.submit_write(l.card + i * l.stride, out.data() + i * l.stride + l.offset, l.size, i);
	});
	all([&](std::uint64_t i) {
		cd.submit_read(l.card + i * l.stride, back.data() + i * l.stride + l.offset, l.size, i);
	});
	compare_slots(what, l, seed, back.data());
}

} // namespace pioc::tool
