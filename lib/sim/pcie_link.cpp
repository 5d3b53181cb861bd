// The CPU side of a simulated PCIe link: CPU accesses -> TLPs, with timing.
#include <pioc/error.hpp>
#include <pioc/sim/pcie_link.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace pioc::sim {

namespace {
// Per-TLP overhead with 64-bit addresses, no ECRC (pcie-model.md):
// 8 B framing/sequence/LCRC + 4 B common header + 12 B (MWr/MRd) or 8 B (CplD).
constexpr unsigned mwr_overhead = 24;
constexpr unsigned mrd_overhead = 24;
constexpr unsigned cpl_overhead = 20;
} // namespace

double link_timing::bytes_per_ns() const noexcept
{
	const double encoding = gts_per_lane <= 5.0 ? 8.0 / 10.0 : 128.0 / 130.0;
	return gts_per_lane * encoding * lanes / 8.0;
}

unsigned link_timing::generation() const noexcept
{
	static constexpr double rates[] = {2.5, 5, 8, 16, 32};
	unsigned gen = 1;
	while (gen < std::size(rates) && gts_per_lane >= rates[gen])
		++gen;
	return gen;
}

link_timing link_timing::preset_named(std::string_view name)
{
	link_timing t;
	if (name == "pc-gen3x16")
		return t;
	if (name == "enzian-gen3x8") {
		// ThunderX-1 root port over the loopback cable to the FPGA: slower
		// core and longer path; stores combine into 512-bit bursts.
		t.preset = "enzian-gen3x8";
		t.lanes = 8;
		t.one_way_ns = 480;
		t.uc_store_ns = 12;
		t.wc_store_ns = 1;
		t.load_issue_ns = 8;
		return t;
	}
	throw error(errc::invalid_argument,
		    fmt::format("unknown link timing preset '{}' (known: pc-gen3x16, enzian-gen3x8)", name));
}

pcie_link::pcie_link(std::unique_ptr<target> dev, link_timing t) : dev_(std::move(dev)), timing_(std::move(t))
{
	if (!dev_)
		throw error(errc::invalid_argument, "pcie_link: no device model");
	if (timing_.wc_line == 0 || timing_.wc_line > 64 || (timing_.wc_line & (timing_.wc_line - 1)))
		throw error(errc::invalid_argument,
			    fmt::format("pcie_link: wc_line {} must be a power of two in 1..64", timing_.wc_line));
	if (timing_.max_read_bytes == 0 || (timing_.max_read_bytes & (timing_.max_read_bytes - 1)))
		throw error(errc::invalid_argument,
			    fmt::format("pcie_link: max_read_bytes {} must be a power of two", timing_.max_read_bytes));
	timing_.wc_buffers = std::clamp(timing_.wc_buffers, 1u, unsigned(wc_.size()));
	timing_.posted_credits = std::clamp(timing_.posted_credits, 1u, unsigned(credit_ring_.size()));
	bytes_per_ns_ = timing_.bytes_per_ns();
	dev_->attach_link(timing_);
}

pcie_link::~pcie_link() = default;

double pcie_link::wire_ns(unsigned payload, unsigned header) const noexcept
{
	return double(payload + header) / bytes_per_ns_;
}

void pcie_link::emit_write(unsigned bar, std::uint64_t off, const void *src, unsigned len)
{
	// Flow control: at most posted_credits writes in flight.
	double &slot = credit_ring_[credit_head_ % timing_.posted_credits];
	if (slot > now_) {
		now_ = slot;
		++stats_.credit_stalls;
	}
	const double start = std::max(now_, link_free_);
	link_free_ = start + wire_ns(len, mwr_overhead);
	const double arrival = link_free_ + timing_.one_way_ns;
	last_write_arrival_ = std::max(last_write_arrival_, arrival);
	slot = arrival;
	++credit_head_;
	++stats_.mwr_tlps;
	stats_.mwr_bytes += len;
	if (trace_)
		trace_(tlp{tlp::kind::mwr, bar, off, len, std::uint64_t(arrival)});
	++accesses_;
	dev_->posted_write(bar, off, src, len, std::uint64_t(arrival));
}

void pcie_link::flush_buf(wc_buf &b)
{
	if (!b.used)
		return;
	const unsigned line = timing_.wc_line;
	const std::uint64_t full = line == 64 ? ~0ull : ((1ull << line) - 1);
	if (b.mask == full) {
		emit_write(b.bar, b.line, b.data.data(), line);
	} else {
		// A partial line leaves as one write per contiguous run of valid bytes.
		unsigned i = 0;
		while (i < line) {
			if (!((b.mask >> i) & 1)) {
				++i;
				continue;
			}
			unsigned j = i;
			while (j < line && ((b.mask >> j) & 1))
				++j;
			emit_write(b.bar, b.line + i, b.data.data() + i, j - i);
			i = j;
		}
	}
	b.used = false;
	b.mask = 0;
	--wc_open_;
}

void pcie_link::flush_all_wc()
{
	// Oldest first, as the buffers drained in the order they were opened.
	for (;;) {
		wc_buf *oldest = nullptr;
		for (unsigned i = 0; i < timing_.wc_buffers; ++i)
			if (wc_[i].used && (!oldest || wc_[i].age < oldest->age))
				oldest = &wc_[i];
		if (!oldest)
			return;
		flush_buf(*oldest);
	}
}

void pcie_link::flush_wc_overlapping(unsigned bar, std::uint64_t off, unsigned len)
{
	if (wc_open_ == 0)
		return; // every load of a UC mapping
	const std::uint64_t mask = ~std::uint64_t(timing_.wc_line - 1);
	for (unsigned i = 0; i < timing_.wc_buffers; ++i) {
		wc_buf &b = wc_[i];
		if (b.used && b.bar == bar && b.line <= off + len - 1 && (off & mask) <= b.line)
			flush_buf(b);
	}
}

void pcie_link::cpu_store(unsigned bar, std::uint64_t off, const void *src, unsigned len, mem_type mt)
{
	++stats_.cpu_stores;
	if (mt != mem_type::wc) {
		now_ += timing_.uc_store_ns;
		emit_write(bar, off, src, len);
		return;
	}
	now_ += timing_.wc_store_ns;
	const auto *s = static_cast<const std::uint8_t *>(src);
	const unsigned line = timing_.wc_line;
	while (len) {
		const std::uint64_t base = off & ~std::uint64_t(line - 1);
		const unsigned in = unsigned(off - base);
		const unsigned n = std::min(len, line - in);
		wc_buf *b = nullptr;
		for (unsigned i = 0; i < timing_.wc_buffers && !b; ++i)
			if (wc_[i].used && wc_[i].bar == bar && wc_[i].line == base)
				b = &wc_[i];
		if (!b) {
			for (unsigned i = 0; i < timing_.wc_buffers && !b; ++i)
				if (!wc_[i].used)
					b = &wc_[i];
			if (!b) { // evict the oldest buffer
				b = &wc_[0];
				for (unsigned i = 1; i < timing_.wc_buffers; ++i)
					if (wc_[i].age < b->age)
						b = &wc_[i];
				flush_buf(*b);
			}
			b->used = true;
			++wc_open_;
			b->bar = bar;
			b->line = base;
			b->mask = 0;
			b->age = ++wc_age_;
		}
		std::memcpy(b->data.data() + in, s, n);
		b->mask |= (n == 64 ? ~0ull : ((1ull << n) - 1)) << in;
		if (b->mask == (line == 64 ? ~0ull : ((1ull << line) - 1)))
			flush_buf(*b);
		off += n, s += n, len -= n;
	}
}

void pcie_link::cpu_load(unsigned bar, std::uint64_t off, void *dst, unsigned len, mem_type mt)
{
	++stats_.cpu_loads;
	flush_wc_overlapping(bar, off, len);
	now_ += timing_.load_issue_ns;
	// Write-through mappings fetch whole lines; UC/WC loads go out at most
	// max_read_bytes at a time, one request outstanding.
	const unsigned chunk = mt == mem_type::wt ? timing_.wc_line : timing_.max_read_bytes;
	auto *d = static_cast<std::uint8_t *>(dst);
	while (len) {
		const std::uint64_t base = off & ~std::uint64_t(chunk - 1);
		const unsigned n = std::min<unsigned>(len, unsigned(base + chunk - off));
		const double start = std::max(now_, link_free_);
		link_free_ = start + wire_ns(0, mrd_overhead);
		// Reads never pass posted writes: they queue behind them.
		const double arrive = std::max(link_free_ + timing_.one_way_ns, last_write_arrival_);
		++stats_.mrd_tlps;
		stats_.mrd_bytes += n;
		if (trace_)
			trace_(tlp{tlp::kind::mrd, bar, off, n, std::uint64_t(arrive)});
		++accesses_;
		const double ready = double(dev_->read(bar, off, d, n, std::uint64_t(arrive)));
		const double sent = std::max(ready, arrive + timing_.device_ns);
		now_ = sent + wire_ns(n, cpl_overhead) + timing_.one_way_ns;
		off += n, d += n, len -= n;
	}
}

void pcie_link::cpu_barrier(barrier::kind k)
{
	switch (k) {
	case barrier::kind::wc_flush:
	case barrier::kind::store_load:
	case barrier::kind::full:
		++stats_.wc_flushes;
		flush_all_wc();
		now_ += 2;
		break;
	default:
		break;
	}
}

} // namespace pioc::sim
