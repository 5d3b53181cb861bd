// The XDMA model's AXI4-Stream engines (xdma_config::stream; PG195 "DMA H2C
// Stream", "DMA C2H Stream", "SGDMA Descriptor Credit Mode Enable"):
//  - H2C: a descriptor's bytes (source = host bus address, destination
//    unused) go to the stream sink, packed per descriptor; EOP puts tlast on
//    its last beat.
//  - C2H: the engine fills descriptors' buffers (destination) from the
//    packets offered on its stream, in order; a packet may span descriptors;
//    when a descriptor is full or closed by the packet's end, the engine
//    writes a 32-byte result record (magic 0x52B4, EOP, length) to the host
//    address in the descriptor's source field. Without a descriptor the
//    stream waits. Descriptor lengths must be multiples of 64 bytes: the
//    model stops the run with invalid_length otherwise.
//  - Credit mode: an enabled engine fetches only as many descriptors as it
//    holds credits for and waits for more, so a circular ring can run for
//    ever (the DMA NIC's rings).
// Timing: H2C as the memory-mapped engine reads the host; C2H writes a
// chunk from its first beat on at the link's write rate and ends no earlier
// than one beat after the chunk's last byte arrived; the result record is a
// posted write behind the data, visible one link traversal later.
#include "sim/xdma/xdma_dev.hpp"

#include "core/log.hpp"
#include <pioc/error.hpp>
#include <pioc/sim/host_memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pioc::sim {

namespace r = pioc::regs::xdma;

std::size_t xdma_dev::c2h_stream_waiting_bytes(unsigned ch) const
{
	std::size_t n = 0;
	if (ch < c2h_.size())
		for (const auto &p : c2h_[ch].stream_in)
			n += p.bytes.size() - p.taken;
	return n;
}

std::vector<std::uint8_t> xdma_dev::stream_buffer()
{
	if (spare_bytes_.empty())
		return {};
	std::vector<std::uint8_t> b = std::move(spare_bytes_.back());
	spare_bytes_.pop_back();
	b.clear();
	return b;
}

void xdma_dev::recycle(std::vector<std::uint8_t> &&b)
{
	if (b.capacity() != 0 && spare_bytes_.size() < max_spare_buffers)
		spare_bytes_.push_back(std::move(b));
}

bool xdma_dev::credit_mode(const engine &e) const noexcept
{
	return credit_mode_ >> r::credit_mode_bit(e.c2h, e.ch) & 1;
}

void xdma_dev::sgdma_common_write(std::uint64_t off, std::uint32_t v)
{
	std::uint32_t bits = 0;
	for (auto *vec : {&h2c_, &c2h_})
		for (const auto &e : *vec)
			bits |= 1u << r::credit_mode_bit(e.c2h, e.ch);
	const std::uint32_t was = credit_mode_;
	if (off == r::SGC_CREDIT_MODE)
		credit_mode_ = v & bits;
	else if (off == r::SGC_CREDIT_MODE_W1S)
		credit_mode_ |= v & bits;
	else if (off == r::SGC_CREDIT_MODE_W1C)
		credit_mode_ &= ~(v & bits);
	else
		return;
	// PG195: disabling credit mode clears the channel's credits.
	for (auto *vec : {&h2c_, &c2h_})
		for (auto &e : *vec)
			if ((was & ~credit_mode_) >> r::credit_mode_bit(e.c2h, e.ch) & 1)
				e.credits = 0;
}

void xdma_dev::add_credits(engine &e, std::uint32_t n, double t)
{
	if (!credit_mode(e))
		return; // PG195: the register is used only in credit mode
	e.credits = std::min(e.credits + (n & r::SG_CREDITS_MASK), r::SG_CREDITS_MASK);
	if (e.busy && e.parked)
		wake(e, t);
}

void xdma_dev::wake(engine &e, double t)
{
	e.parked = false;
	e.cursor = std::max(e.cursor, t);
	schedule_step(e, e.cursor);
}

void xdma_dev::c2h_stream_push(unsigned ch, stream_packet p)
{
	if (ch >= c2h_.size())
		throw error(errc::out_of_range,
			    fmt::format("{}: no C2H channel {} for a stream packet", cfg_.label, ch));
	if (p.bytes.empty())
		throw error(errc::invalid_argument,
			    fmt::format("{} C2H{}: an empty stream packet (tlast with tkeep all zeros is not a valid "
					"beat, PG195)",
					cfg_.label, ch));
	engine &e = c2h_[ch];
	e.stream_in.push_back(std::move(p));
	if (e.busy && e.parked)
		wake(e, now_);
}

std::size_t xdma_dev::c2h_stream_waiting(unsigned ch) const { return ch < c2h_.size() ? c2h_[ch].stream_in.size() : 0; }

void xdma_dev::step_stream(engine &e, std::uint64_t gen)
{
	if (e.gen != gen || !e.busy || e.parked)
		return;
	if (e.block_pos >= e.block.size()) {
		count_completions(e);
		if (e.next_bus == 0 && e.completed > 0)
			return; // stopped: the STOP descriptor's completion ends the run
		if (credit_mode(e)) {
			if (e.credits == 0) {
				e.parked = true; // add_credits wakes it
				return;
			}
			// Fetch no more than the credits allow; the last fetched
			// descriptor's next pointer and Nxt_adj describe the rest.
			const unsigned n = std::min(e.next_adj + 1, e.credits);
			e.next_adj = n - 1;
			e.credits -= n;
		}
		fetch_block(e);
		if (e.gen != gen)
			return;
	} else {
		const fetched f = e.block[e.block_pos];
		if (!process_stream(e, f)) {
			e.parked = true; // c2h_stream_push wakes it
			return;
		}
		if (e.gen != gen)
			return;
		++e.block_pos;
		if (f.d.control & r::DESC_STOP) {
			e.block.clear(), e.block_pos = 0, e.next_bus = 0;
			return;
		}
		if (e.block_pos == e.block.size() && !follow_next(e, f))
			return;
	}
	schedule_step(e, e.cursor); // e.gen == gen here: by key, no allocation
}

bool xdma_dev::process_stream(engine &e, const fetched &f)
{
	const r::descriptor &d = f.d;
	const double t = e.cursor;
	if (r::desc_magic(d.control) != r::DESC_MAGIC) {
		fail(e, r::ST_MAGIC_STOPPED, t);
		return true;
	}
	const std::uint32_t len = d.length & r::DESC_MAX_LEN;
	const std::uint64_t src = (std::uint64_t(d.src_hi) << 32) | d.src_lo;
	const std::uint64_t dst = (std::uint64_t(d.dst_hi) << 32) | d.dst_lo;
	if (len == 0 || (e.c2h && len % r::C2H_STREAM_LEN_MULTIPLE)) {
		fail(e, r::ST_INVALID_LENGTH, t);
		return true;
	}
	if (!e.c2h) {
		const void *hp = host_memory::instance().translate(src, len);
		if (!hp && stage_in(src, len))
			hp = stage_.data();
		if (!hp || e.fault == xdma::fault::read_error) {
			e.fault = xdma::fault::none;
			fail(e, r::ERR_UR << r::ST_READ_ERROR_SHIFT, t + 2 * cfg_.one_way_ns);
			return true;
		}
		const double round_trip = 2 * cfg_.one_way_ns + cfg_.host_mem_ns;
		const double first = t + cfg_.desc_ns + round_trip;
		e.cursor = t + cfg_.desc_ns + xfer_ns(false, len);
		const double last = e.cursor + round_trip;
		const bool eop = d.control & r::DESC_EOP;
		const auto *b = static_cast<const std::uint8_t *>(hp);
		const double taken = sink_ ? sink_->h2c_stream(e.ch, b, len, eop, first, last)
					   : loop_back(e, b, len, eop, first, last);
		e.perf_bytes += len;
		schedule_completion(e, std::max(last, taken), d.control);
		return true;
	}
	if (e.stream_in.empty())
		return false;
	stream_packet &p = e.stream_in.front();
	const std::size_t k = std::min<std::size_t>(len, p.bytes.size() - p.taken);
	const bool end = p.taken + k == p.bytes.size();
	const double start = std::max(t, p.ready_ns(p.taken + 1)) + cfg_.desc_ns;
	const double avail = p.ready_ns(p.taken + k);
	if (!host_memory::instance().write(dst, p.bytes.data() + p.taken, k))
		log().warn("{} C2H{}: {} stream bytes written to bus address {:#x} hit no host memory; dropped",
			   cfg_.label, e.ch, k, dst);
	const double done =
		std::max(start + xfer_ns(true, k), avail + xfer_ns(true, std::min<std::size_t>(k, stream_beat_bytes)));
	e.cursor = done;
	r::c2h_result res{};
	res.status = (r::C2H_RESULT_MAGIC << 16) | (end ? r::C2H_RESULT_EOP : 0);
	res.length = std::uint32_t(k);
	host_write w;
	w.bus = src;
	static_assert(sizeof res == sizeof w.data);
	std::memcpy(w.data.data(), &res, sizeof res);
	w.len = sizeof res;
	w.c2h = true;
	w.ch = std::uint8_t(e.ch);
	w.what = "result record";
	// Posted behind the data: visible one link traversal after it is sent.
	post_host_write(done + cfg_.one_way_ns, w);
	p.taken += k;
	if (end) {
		recycle(std::move(p.bytes));
		e.stream_in.pop_front();
	}
	e.perf_bytes += k;
	schedule_completion(e, done, d.control);
	return true;
}

double xdma_dev::loop_back(engine &h2c, const std::uint8_t *data, std::size_t len, bool eop, double first_ns,
			   double last_ns)
{
	(void)first_ns;
	h2c.loop_pkt.insert(h2c.loop_pkt.end(), data, data + len);
	if (!eop && len % stream_beat_bytes)
		h2c.loop_bad = true;
	if (!eop)
		return last_ns;
	if (h2c.loop_bad) {
		++malformed_;
		log().warn("{} H2C{}: a {}-byte packet with a partial beat before its last (an H2C descriptor without "
			   "EOP of a length not a multiple of {} bytes) is no valid C2H stream: dropped",
			   cfg_.label, h2c.ch, h2c.loop_pkt.size(), stream_beat_bytes);
	} else if (h2c.ch < c2h_.size()) {
		stream_packet p;
		p.bytes = std::move(h2c.loop_pkt);
		p.last_ns = last_ns;
		c2h_stream_push(h2c.ch, std::move(p));
		h2c.loop_pkt = stream_buffer();
	}
	h2c.loop_pkt.clear();
	h2c.loop_bad = false;
	return last_ns;
}

std::unique_ptr<target> make_xdma_stream_dev()
{
	xdma_config c;
	c.name = "xdma_stream";
	c.label = "sim:xdma_stream";
	c.stream = true;
	return std::make_unique<xdma_dev>(std::move(c));
}

} // namespace pioc::sim
