// AXI4-Stream engine rings (include/pioc/xdma/stream.hpp): memory layout,
// the circular chain, programming the engine, and the rules' errors.
#include <pioc/error.hpp>
#include <pioc/xdma/stream.hpp>

#include <fmt/format.h>

#include <cstring>

namespace pioc::xdma {

namespace r = pioc::regs::xdma;

namespace {
constexpr std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
} // namespace

stream_ring::stream_ring(channel &ch, unsigned slots, std::uint32_t buf_bytes)
	: ch_(&ch), slots_(slots), mask_(slots - 1), buf_bytes_(buf_bytes), sg_(ch.sg_), eng_(ch.eng_)
{
	const std::string &who = ch.name();
	if (!ch.info().stream)
		throw error(errc::not_supported,
			    fmt::format("{}: a memory-mapped engine (identifier {:#x}, bit 15 clear): a stream ring "
					"needs an AXI4-Stream engine; use channel::prepare()",
					who, ch.info().id));
	if (slots < 2 || slots > 512 || (slots & (slots - 1)))
		throw error(errc::invalid_argument,
			    fmt::format("{}: a stream ring of {} descriptors: use a power of two in 2..512 (the "
					"engine's credit register holds at most 1023)",
					who, slots));
	if (buf_bytes == 0 || buf_bytes > r::DESC_MAX_LEN)
		throw error(errc::invalid_argument,
			    fmt::format("{}: stream buffers of {} bytes: a descriptor carries 1..2^28-1", who,
					buf_bytes));
	if (ch.c2h() && buf_bytes % r::C2H_STREAM_LEN_MULTIPLE)
		throw error(errc::invalid_argument,
			    fmt::format("{}: C2H stream buffers of {} bytes: PG195 requires C2H stream descriptor "
					"lengths in multiples of {} bytes (use {})",
					who, buf_bytes, r::C2H_STREAM_LEN_MULTIPLE,
					round_up(buf_bytes, r::C2H_STREAM_LEN_MULTIPLE)));
	if (ch.stream_ring_ || ch.busy_ || !ch.pending_.empty())
		throw error(errc::invalid_argument, fmt::format("{}: the engine is already in use", who));
	beat_ = r::stream_beat_bytes(ch.dma_->config().read<std::uint32_t>(r::config_base + r::CFG_DATA_WIDTH));

	// descriptors | result records (C2H) | buffers, each part 4 KiB aligned
	stride_ = round_up(buf_bytes, 64);
	const std::size_t desc_bytes = round_up(std::size_t(slots) * sizeof(r::descriptor), 4096);
	const std::size_t res_bytes = ch.c2h() ? round_up(std::size_t(slots) * sizeof(r::c2h_result), 4096) : 0;
	mem_ = ch.dma_->dev().alloc_dma(desc_bytes + res_bytes + std::size_t(slots) * stride_);
	if (mem_.bus % 32)
		throw error(errc::misaligned,
			    fmt::format("{}: stream ring memory at bus {:#x} is not 32-byte aligned", who, mem_.bus));
	std::memset(mem_.cpu, 0, mem_.size);
	auto *base = static_cast<std::byte *>(mem_.cpu);
	desc_ = reinterpret_cast<r::descriptor *>(base);
	desc_bus_ = mem_.bus;
	res_ = reinterpret_cast<volatile r::c2h_result *>(base + desc_bytes);
	bufs_ = base + desc_bytes + res_bytes;
	bufs_bus_ = mem_.bus + desc_bytes + res_bytes;
	wb_ = ch.wb_;

	// The circular chain: descriptor i's next is i + 1 (the last's the
	// first), its Nxt_adj the block position of that next one, as the
	// adjacency rules of descriptor.hpp want; no STOP anywhere.
	for (unsigned i = 0; i < slots; ++i) {
		const unsigned nx = (i + 1) % slots;
		segment s;
		if (ch.c2h()) // source: the result record; destination: the buffer
			s = {mem_.bus + desc_bytes + std::uint64_t(i) * sizeof(r::c2h_result), buffer_bus(i),
			     buf_bytes};
		else // source: the buffer; length and EOP set per packet
			s = {buffer_bus(i), 0, buf_bytes};
		desc_[i] = encode(s, ch.c2h() ? 0u : r::DESC_EOP, adjacent_after(desc_bus_, slots, nx),
				  desc_bus_ + 32ull * nx);
	}
	ch.stream_ring_ = true;
}

stream_ring::~stream_ring()
{
	try {
		stop();
	} catch (...) {
		// a device that is gone cannot be stopped; nothing else to do
	}
	ch_->stream_ring_ = false;
}

void stream_ring::start()
{
	if (running_)
		return;
	const region &c = ch_->dma_->config();
	ch_->set_completion(completion::writeback);
	*wb_ = 0;
	for (unsigned i = 0; i < slots_; ++i)
		res_[i].status = 0;
	c.write<std::uint32_t>(r::sgdma_common_base + r::SGC_CREDIT_MODE_W1S,
			       1u << r::credit_mode_bit(ch_->c2h(), ch_->info().channel));
	c.write<std::uint32_t>(sg_ + r::SG_DESC_LO, std::uint32_t(desc_bus_));
	c.write<std::uint32_t>(sg_ + r::SG_DESC_HI, std::uint32_t(desc_bus_ >> 32));
	c.write<std::uint32_t>(sg_ + r::SG_DESC_ADJ, adjacent_after(desc_bus_, slots_, 0));
	if (ch_->c2h())
		c.write<std::uint32_t>(sg_ + r::SG_DESC_CREDITS, slots_);
	if (irq_) {
		// after set_completion(), which clears both
		c.write<std::uint32_t>(eng_ + r::ENG_IRQ_MASK, r::IE_DESC_COMPLETED);
		c.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1S, 1u << ch_->irq_bit_);
	}
	c.write<std::uint32_t>(ch_->eng_ + r::ENG_CTRL, ch_->ctrl_ | r::CTRL_RUN);
	running_ = true;
}

int stream_ring::enable_interrupt()
{
	if (running_)
		throw error(errc::invalid_argument,
			    name() + ": enable the interrupt before start(): the engine has fetched descriptors "
				     "without COMPLETED");
	if (!ch_->dma_->opt_.bind_irq && !ch_->irq_owner_)
		throw error(errc::not_supported, name() + ": interrupts need MSI-X vectors delivered to eventfds (the "
							  "pioc module's PIOC_IOC_IRQ_SET; options::bind_irq)");
	for (unsigned i = 0; i < slots_; ++i)
		desc_[i].control |= r::DESC_COMPLETED;
	irq_ = true;
	return ch_->efd_;
}

void stream_ring::stop()
{
	if (!running_)
		return;
	const region &c = ch_->dma_->config();
	c.write<std::uint32_t>(ch_->eng_ + r::ENG_CTRL_W1C, r::CTRL_RUN);
	if (irq_)
		c.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1C, 1u << ch_->irq_bit_);
	c.write<std::uint32_t>(r::sgdma_common_base + r::SGC_CREDIT_MODE_W1C,
			       1u << r::credit_mode_bit(ch_->c2h(), ch_->info().channel));
	(void)c.read<std::uint32_t>(ch_->eng_ + r::ENG_STATUS_RC);
	running_ = false;
}

void stream_ring::set_h2c(unsigned slot, std::uint32_t len, bool eop)
{
	slot &= mask_;
	if (len == 0 || len > buf_bytes_)
		throw error(errc::invalid_argument,
			    fmt::format("{}: descriptor {} of {} bytes: its buffer holds 1..{}", name(), slot, len,
					buf_bytes_));
	if (!eop && len % beat_)
		throw error(errc::invalid_argument,
			    fmt::format("{}: descriptor {} of {} bytes without EOP: H2C packs data per descriptor, so "
					"a descriptor inside a packet must be a multiple of the {}-byte stream beat "
					"(else the packet has a partial beat before its last)",
					name(), slot, len, beat_));
	r::descriptor &d = desc_[slot];
	d.length = len;
	const std::uint32_t keep = d.control & ~(r::DESC_EOP | r::DESC_COMPLETED | r::DESC_STOP);
	d.control = keep | (eop ? r::DESC_EOP | r::DESC_COMPLETED : 0u);
}

void stream_ring::release(unsigned slot, unsigned n) noexcept
{
	for (unsigned k = 0; k < n; ++k)
		res_[(slot + k) & mask_].status = 0;
}

void stream_ring::check_result(unsigned slot, std::uint32_t status, std::uint32_t len, bool eop) const
{
	if (len > buf_bytes_)
		throw error(errc::device_error,
			    fmt::format("{}: result record of descriptor {} reports {} bytes in its {}-byte buffer "
					"[status {:#x}]",
					name(), slot, len, buf_bytes_, status));
	if (!eop && len != buf_bytes_)
		throw error(errc::device_error,
			    fmt::format("{}: descriptor {} closed with {} of {} bytes without EOP: the engine closes "
					"a descriptor early only at a packet's end [status {:#x}]",
					name(), slot, len, buf_bytes_, status));
}

void stream_ring::too_long(unsigned slot) const
{
	throw error(errc::device_error,
		    fmt::format("{}: the packet at descriptor {} fills all {} descriptors of {} bytes without EOP: "
				"it cannot be received (buffers larger than the largest packet, or a larger ring)",
				name(), slot, slots_, buf_bytes_));
}

} // namespace pioc::xdma
