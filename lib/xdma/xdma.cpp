// The XDMA driver: discovery, rings, request preparation, error decoding and
// recovery. The timed path is in include/pioc/xdma/xdma.hpp (templates).

#include "core/log.hpp"
#include <pioc/xdma/xdma.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <fmt/format.h>

#include <liburing.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace pioc::xdma {

namespace r = pioc::regs::xdma;

std::string_view to_string(completion c) noexcept
{
	switch (c) {
	case completion::writeback: return "writeback";
	case completion::count: return "count";
	case completion::interrupt: return "interrupt";
	}
	return "?";
}

completion completion_from(std::string_view s)
{
	if (s == "writeback" || s == "wb" || s == "poll")
		return completion::writeback;
	if (s == "count")
		return completion::count;
	if (s == "interrupt" || s == "irq")
		return completion::interrupt;
	throw error(errc::invalid_argument,
		    fmt::format("completion mode '{}': use writeback (poll), count or interrupt (irq)", s));
}

namespace {
/** A 5-bit error field whose failing side is PCIe: the completion status. */
std::string pcie_codes(std::uint32_t code)
{
	std::vector<std::string> v;
	if (code & r::ERR_UR)
		v.push_back("unsupported request (UR)");
	if (code & r::ERR_CA)
		v.push_back("completer abort (CA)");
	if (code & r::ERR_PARITY)
		v.push_back("parity error");
	if (code & r::ERR_HEADER_EP)
		v.push_back("poisoned header (EP)");
	if (code & r::ERR_UNEXP_CPL)
		v.push_back("unexpected completion");
	return fmt::format("{}", fmt::join(v, ", "));
}
/** A 5-bit error field whose failing side is the card's AXI bus. */
std::string axi_codes(std::uint32_t code)
{
	std::vector<std::string> v;
	if (code & r::ERR_DECODE)
		v.push_back("AXI decode error (DECERR: no slave at the card address)");
	if (code & r::ERR_SLAVE)
		v.push_back("AXI slave error (SLVERR)");
	if (code & ~(r::ERR_DECODE | r::ERR_SLAVE))
		v.push_back(fmt::format("reserved bits {:#x}", code & ~(r::ERR_DECODE | r::ERR_SLAVE)));
	return fmt::format("{}", fmt::join(v, ", "));
}
} // namespace

std::string decode_status(std::uint32_t st, bool c2h)
{
	// PG195 "H2C Channel Status (0x40)" / "C2H Channel Status (0x40)": an
	// H2C engine reads the host (PCIe) and writes the card (AXI); a C2H
	// engine reads the card (AXI) and posts writes to the host, which are
	// never answered, so it has no write_error. Descriptors always come
	// from the host.
	std::vector<std::string> parts;
	const std::uint32_t rd = (st & r::ST_READ_ERROR) >> r::ST_READ_ERROR_SHIFT;
	const std::uint32_t wr = (st & r::ST_WRITE_ERROR) >> r::ST_WRITE_ERROR_SHIFT;
	const std::uint32_t de = (st & r::ST_DESC_ERROR) >> r::ST_DESC_ERROR_SHIFT;
	if (st & r::ST_MAGIC_STOPPED)
		parts.push_back("magic_stopped: a fetched descriptor's magic is not 0xAD4B (bad descriptor address, "
				"or an adjacent block crossing 4 KiB)");
	if (st & r::ST_ALIGN_MISMATCH)
		parts.push_back("align_mismatch: a descriptor's source and destination addresses are not aligned to "
				"each other (or its length breaks the granularity) as the engine's alignment register "
				"requires");
	if (st & r::ST_INVALID_LENGTH)
		parts.push_back("invalid_length: a descriptor length is 0 or not a multiple of the granularity");
	if (rd)
		parts.push_back(c2h ? "read_error (" + axi_codes(rd) + "): reading the card (AXI) failed"
				    : "read_error (" + pcie_codes(rd) + "): reading host memory failed");
	if (wr)
		parts.push_back(c2h ? fmt::format("write_error bits {:#x}, which a C2H engine does not have", wr)
				    : "write_error (" + axi_codes(wr) + "): writing the card (AXI) failed");
	if (de)
		parts.push_back("desc_error (" + pcie_codes(de) + "): fetching a descriptor from host memory failed");
	if (parts.empty()) {
		if (st & r::ST_BUSY)
			parts.push_back("busy");
		if (st & r::ST_DESC_STOPPED)
			parts.push_back("desc_stopped");
		if (st & r::ST_IDLE_STOPPED)
			parts.push_back("idle_stopped");
		if (parts.empty())
			parts.push_back("no error bits");
	}
	return fmt::format("{} [status {:#x}]", fmt::join(parts, "; "), st);
}

// ---- discovery -----------------------------------------------------------------

int find_config_bar(device &dev)
{
	for (const auto &b : dev.info().bars) {
		if (b.is_io || b.size < r::min_bar_size)
			continue;
		try {
			region reg = dev.map(b.index, mem_type::uc);
			const auto irq = reg.read<std::uint32_t>(r::irq_base);
			const auto cfg = reg.read<std::uint32_t>(r::config_base);
			if (r::id_is(irq, r::target_irq) && r::id_is(cfg, r::target_config))
				return int(b.index);
		} catch (const error &e) {
			log().debug("{}: BAR{} not probed for XDMA: {}", dev.spec(), b.index, e.what());
		}
	}
	return -1;
}

unsigned user_bar(device &dev, std::uint64_t min_size, std::uint64_t id_off, std::uint32_t id, std::string_view what)
{
	const int cfg = find_config_bar(dev);
	if (cfg >= 0) {
		try {
			return find_bar(dev, min_size, id_off, id, what, unsigned(cfg) + 1);
		} catch (const error &e) {
			if (e.code() != errc::not_found)
				throw;
		}
	}
	return find_bar(dev, min_size, id_off, id, what);
}

unsigned pio_image_bar(device &dev)
{
	namespace p = regs::pio_dev;
	return user_bar(dev, p::bar_size, p::ID.offset, p::id_value, "PIO image (pio_dev.toml)");
}

dma::dma(device &d, options o) : dev_(&d), opt_(std::move(o)), name_(d.spec())
{
	int bar = opt_.config_bar;
	if (bar < 0) {
		bar = find_config_bar(d);
		if (bar < 0)
			throw error(errc::not_found,
				    fmt::format("{}: no XDMA config BAR (no BAR of >= 32 KiB has the IRQ block "
						"identifier 0x1FC2 at +0x2000 and the config block 0x1FC3 at +0x3000); "
						"pass the BAR number if probing is unsafe on this design",
						name_));
	}
	bar_ = unsigned(bar);
	cfg_ = d.map(bar_, mem_type::uc);
	if (cfg_.size() < r::min_bar_size)
		throw error(errc::invalid_argument,
			    fmt::format("{} BAR{}: {} bytes is too small for an XDMA config BAR (32 KiB)", name_, bar_,
					cfg_.size()));
	const auto cfgid = cfg_.read<std::uint32_t>(r::config_base + r::CFG_ID);
	if (!r::id_is(cfgid, r::target_config))
		throw error(errc::not_found,
			    fmt::format("{} BAR{}: config block identifier at {:#x} reads {:#x}, not 0x1FC3xxxx: not an "
					"XDMA config BAR",
					name_, bar_, r::config_base, cfgid));
	mps_ = r::size_from_code(cfg_.read<std::uint32_t>(r::config_base + r::CFG_MPS));
	mrrs_ = r::size_from_code(cfg_.read<std::uint32_t>(r::config_base + r::CFG_MRRS));
	card_limit_ = opt_.card_size ? opt_.card_size : d.get_transport().card_memory_size();

	for (int dir = 0; dir < 2; ++dir)
		for (unsigned ch = 0; ch < r::max_channels; ++ch) {
			const std::uint32_t id = cfg_.read<std::uint32_t>(r::engine_base(dir, ch) + r::ENG_ID);
			if (!r::id_is(id, dir ? r::target_c2h : r::target_h2c) || r::id_channel(id) != ch)
				continue;
			const std::uint32_t al = cfg_.read<std::uint32_t>(r::engine_base(dir, ch) + r::ENG_ALIGN);
			engine_info e;
			e.c2h = dir;
			e.channel = ch;
			e.stream = r::id_stream(id);
			e.version = r::id_version(id);
			e.addr_align = std::max(1u, r::align_addr(al));
			e.len_granularity = std::max(1u, r::align_len(al));
			e.addr_bits = r::align_bits(al) ? r::align_bits(al) : 64;
			e.id = id;
			engines_.push_back(e);
		}
	if (engines_.empty())
		throw error(errc::not_found, fmt::format("{} BAR{}: XDMA config BAR without any H2C/C2H engine", name_, bar_));
	unsigned nh = 0;
	for (auto &e : engines_)
		nh += !e.c2h;
	// Channel interrupt bits: H2C first, then C2H; vector = bit.
	std::array<std::uint32_t, 2> vec{};
	for (auto &e : engines_) {
		const unsigned bit = r::chan_irq_bit(e.c2h, e.channel, nh);
		vec[bit / 4] |= std::uint32_t(bit & 0x1f) << (8 * (bit % 4));
		auto ch = std::unique_ptr<channel>(new channel(*this, e, bit));
		(e.c2h ? c2h_ : h2c_).push_back(std::move(ch));
	}
	cfg_.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_VEC, vec[0]);
	cfg_.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_VEC + 4, vec[1]);
	log().info("{}: XDMA config BAR{}, {} H2C + {} C2H engines, MPS {} MRRS {}", name_, bar_, h2c_.size(),
		   c2h_.size(), mps_, mrrs_);
}

dma::~dma() = default;

channel &dma::h2c(unsigned ch)
{
	if (ch >= h2c_.size())
		throw error(errc::not_found, fmt::format("{}: no H2C channel {} ({} present)", name_, ch, h2c_.size()));
	return *h2c_[ch];
}

channel &dma::c2h(unsigned ch)
{
	if (ch >= c2h_.size())
		throw error(errc::not_found, fmt::format("{}: no C2H channel {} ({} present)", name_, ch, c2h_.size()));
	return *c2h_[ch];
}

void dma::function_reset()
{
	dev_->get_transport().function_reset();
	unsigned nh = unsigned(h2c_.size());
	std::array<std::uint32_t, 2> vec{};
	for (auto *v : {&h2c_, &c2h_})
		for (auto &c : *v) {
			const unsigned bit = r::chan_irq_bit(c->info_.c2h, c->info_.channel, nh);
			vec[bit / 4] |= std::uint32_t(bit & 0x1f) << (8 * (bit % 4));
			c->program();
		}
	cfg_.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_VEC, vec[0]);
	cfg_.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_VEC + 4, vec[1]);
}

// ---- channels -------------------------------------------------------------------

channel::channel(dma &d, const engine_info &e, unsigned irq_bit)
	: dma_(&d), info_(e), name_(fmt::format("{} {}{}", d.name_, e.c2h ? "C2H" : "H2C", e.channel)),
	  eng_(r::engine_base(e.c2h, e.channel)), sg_(r::sgdma_base(e.c2h, e.channel)), irq_bit_(irq_bit),
	  vector_(irq_bit)
{
	ring_slots_ = std::max(1u, d.opt_.ring_descriptors);
	// Ring, then a 64-byte write-back slot on its own cache line.
	ring_ = d.dev_->alloc_dma(ring_slots_ * sizeof(descriptor) + 64);
	if (ring_.bus % 32)
		throw error(errc::misaligned, fmt::format("{}: descriptor ring at bus {:#x} is not 32-byte aligned",
							  name_, ring_.bus));
	ring_cpu_ = static_cast<descriptor *>(ring_.cpu);
	std::memset(ring_.cpu, 0, ring_.size);
	wb_ = reinterpret_cast<volatile std::uint32_t *>(static_cast<std::uint8_t *>(ring_.cpu) +
							  ring_slots_ * sizeof(descriptor));
	wb_bus_ = ring_.bus + ring_slots_ * sizeof(descriptor);
	efd_ = ::eventfd(0, EFD_CLOEXEC); // blocking: io_uring reads on it must wait
	if (efd_ < 0)
		throw_os_error(name_ + ": eventfd", errno);
	if (d.opt_.bind_irq)
		d.opt_.bind_irq(vector_, efd_);
	else {
		// A transport that delivers interrupts itself (the pioc module, a
		// simulated device's model): its eventfd for this MSI-X vector
		// replaces ours.
		try {
			auto in = d.dev_->get_transport().interrupt(vector_);
			if (in.owner) {
				::close(efd_);
				efd_ = in.fd;
				irq_owner_ = std::move(in.owner);
			}
		} catch (const error &e) {
			log().info("{}: no interrupt for vector {} ({}); interrupt completion unavailable", name_, vector_,
				   e.what());
		}
	}
	program();
}

channel::~channel()
{
	if (efd_ >= 0 && !irq_owner_)
		::close(efd_);
}

void channel::program()
{
	const region &c = dma_->cfg_;
	c.write<std::uint32_t>(eng_ + r::ENG_CTRL, 0); // stop
	(void)c.read<std::uint32_t>(eng_ + r::ENG_STATUS_RC);
	c.write<std::uint32_t>(eng_ + r::ENG_WB_LO, std::uint32_t(wb_bus_));
	c.write<std::uint32_t>(eng_ + r::ENG_WB_HI, std::uint32_t(wb_bus_ >> 32));
	// Every error logged and stopping the engine; write_error only on H2C
	// (C2H has no such field: the bits do not exist there).
	const std::uint32_t errs = (r::IE_ALIGN_MISMATCH | r::IE_MAGIC_STOPPED | r::IE_INVALID_LENGTH |
				    r::IE_READ_ERROR | r::IE_WRITE_ERROR | r::IE_DESC_ERROR) &
				   r::ctrl_bits(info_.c2h);
	ctrl_ = errs | r::IE_DESC_STOPPED | r::IE_DESC_COMPLETED;
	if (mode_ == completion::writeback)
		ctrl_ |= r::CTRL_POLL_WB;
	if (mode_ == completion::interrupt) {
		c.write<std::uint32_t>(eng_ + r::ENG_IRQ_MASK, errs | r::IE_DESC_STOPPED);
		c.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1S, 1u << irq_bit_);
	} else {
		c.write<std::uint32_t>(eng_ + r::ENG_IRQ_MASK, 0);
		c.write<std::uint32_t>(r::irq_base + r::IRQ_CHAN_EN_W1C, 1u << irq_bit_);
	}
	c.write<std::uint32_t>(eng_ + r::ENG_CTRL, ctrl_);
	sg_bus_ = ~0ull;
	sg_adj_ = ~0u;
	busy_ = false;
	if (held_) {
		// A prepared_run writes the SGDMA registers once, when it is built:
		// after a reset they must point at its request again, and the
		// channel stays held.
		c.write<std::uint32_t>(sg_ + r::SG_DESC_LO, std::uint32_t(held_->head_.bus));
		c.write<std::uint32_t>(sg_ + r::SG_DESC_HI, std::uint32_t(held_->head_.bus >> 32));
		c.write<std::uint32_t>(sg_ + r::SG_DESC_ADJ, held_->head_.adj);
		sg_bus_ = held_->head_.bus;
		sg_adj_ = held_->head_.adj;
		busy_ = true;
	}
	while (detail::try_read_eventfd(efd_)) {
	}
}

void channel::set_completion(completion m)
{
	if (busy_)
		throw error(errc::invalid_argument, name_ + ": cannot change the completion mode with a run in flight");
	if (m == completion::interrupt && !dma_->opt_.bind_irq && !irq_owner_)
		throw error(errc::not_supported,
			    name_ + ": interrupt completion needs MSI-X vectors delivered to eventfds (the pioc "
				    "module's PIOC_IOC_IRQ_SET; options::bind_irq)");
	mode_ = m;
	program();
}

std::string channel::describe(const request &q) const
{
	return info_.c2h ? fmt::format("{} bytes card {:#x} -> host bus {:#x}", q.len_, q.card_, q.host_bus_)
			 : fmt::format("{} bytes host bus {:#x} -> card {:#x}", q.len_, q.host_bus_, q.card_);
}

request &channel::prepare(const dma_buffer &buf, std::uint64_t off, std::uint64_t len, std::uint64_t card)
{
	if (!buf.cpu || !buf.size)
		throw error(errc::invalid_argument, name_ + ": prepare: empty DMA buffer");
	if (len == 0)
		throw error(errc::invalid_argument,
			    fmt::format("{}: transfer of 0 bytes at offset {:#x}: XDMA descriptors carry 1..2^28-1 bytes",
					name_, off));
	if (off > buf.size || len > buf.size - off)
		throw error(errc::out_of_range,
			    fmt::format("{}: transfer of {} bytes at offset {:#x} runs past the end of a {}-byte DMA "
					"buffer",
					name_, len, off, buf.size));
	if (info_.stream)
		throw error(errc::not_supported,
			    fmt::format("{}: an AXI4-Stream engine (identifier {:#x}): prepare() moves memory-mapped "
					"transfers to a card address; a stream engine has none (H2C packets end with EOP, "
					"C2H writes result records): use pioc::xdma::stream_ring "
					"(include/pioc/xdma/stream.hpp, Documentation/xdma.md)",
					name_, info_.id));
	const std::uint64_t host = buf.bus + off;
	const unsigned al = info_.addr_align, gr = info_.len_granularity;
	// PG195 (memory-mapped): source and destination must be aligned to each
	// other, the same offset modulo the alignment; neither needs to be
	// aligned by itself.
	if (host % al != card % al)
		throw error(errc::misaligned,
			    fmt::format("{}: host bus address {:#x} (buffer offset {:#x}, {} bytes) and card address "
					"{:#x} are not aligned to each other: the engine's alignment register requires "
					"the same offset modulo {} (here {} and {})",
					name_, host, off, len, card, al, host % al, card % al));
	if (len % gr)
		throw error(errc::misaligned,
			    fmt::format("{}: length {} at offset {:#x} is not a multiple of the engine's length "
					"granularity {}",
					name_, len, off, gr));
	if (info_.addr_bits < 64 && ((host + len - 1) >> info_.addr_bits))
		throw error(errc::out_of_range,
			    fmt::format("{}: host bus address {:#x}+{} is beyond the engine's {}-bit addressing", name_,
					host, len, info_.addr_bits));
	const std::uint64_t limit = dma_->card_limit_;
	if (limit != 0 && (card > limit || len > limit - card))
		throw error(errc::out_of_range,
			    fmt::format("{}: transfer of {} bytes at card address {:#x} does not fit the card's {}-byte "
					"AXI address space (0..{:#x})",
					name_, len, card, limit, limit - 1));
	std::uint32_t seg = dma_->opt_.max_segment;
	seg -= seg % std::max(al, gr);
	const auto segs = info_.c2h ? split(card, host, len, seg) : split(host, card, len, seg);
	if (segs.size() > ring_slots_ - ring_used_)
		throw error(errc::out_of_range,
			    fmt::format("{}: transfer of {} bytes at offset {:#x} needs {} descriptors; the ring has {} "
					"of {} free (release_all(), or raise options::ring_descriptors / max_segment)",
					name_, len, off, segs.size(), ring_slots_ - ring_used_, ring_slots_));
	request &q = reqs_.emplace_back();
	q.head_ = build_chain(ring_cpu_ + ring_used_, ring_.bus + ring_used_ * sizeof(descriptor),
			      ring_slots_ - ring_used_, segs);
	q.last_ = ring_cpu_ + ring_used_ + segs.size() - 1;
	ring_used_ += segs.size();
	q.host_bus_ = host;
	q.card_ = card;
	q.len_ = len;
	return q;
}

void channel::release_all()
{
	if (busy_ || !pending_.empty())
		throw error(errc::invalid_argument, name_ + ": release_all with requests in flight");
	reqs_.clear();
	cache_.clear();
	ring_used_ = 0;
	sg_bus_ = ~0ull;
	sg_adj_ = ~0u;
}

void channel::transfer(const dma_buffer &buf, std::uint64_t off, std::uint64_t len, std::uint64_t card)
{
	// By bus address, which the descriptors hold: a buffer allocated where
	// a freed one was (the same CPU address, mmap reuses the hole) has
	// another, and a request cached by CPU address sent its data to the old.
	// And by size: an IOMMU hands a freed IOVA out again, maybe to a smaller
	// buffer, and a cached request skips prepare()'s bounds check: it would
	// DMA past the new buffer's end.
	auto key = std::make_tuple(buf.bus, std::uint64_t(buf.size), off, len, card);
	auto it = cache_.find(key);
	request *q;
	if (it != cache_.end()) {
		q = it->second;
	} else {
		if (ring_free() < len / dma_->opt_.max_segment + 1 && !busy_ && pending_.empty())
			release_all();
		q = &prepare(buf, off, len, card);
		cache_[key] = q;
	}
	dma_->cfg_.visit([&](const auto &io) {
		auto o = ops(io);
		o.submit(*q);
		o.wait(*q);
	});
}

template <class IO> std::string channel::recover(const IO &io, std::uint32_t status, const std::string &why)
{
	const std::uint32_t done = io.template load<std::uint32_t>(eng_ + r::ENG_COMPLETED);
	// Stop: clear run, wait (bounded) for busy to drop.
	io.template store<std::uint32_t>(eng_ + r::ENG_CTRL_W1C, r::CTRL_RUN);
	const std::uint64_t t0 = io.now_ns();
	std::uint32_t st = io.template load<std::uint32_t>(eng_ + r::ENG_STATUS);
	while ((st & r::ST_BUSY) && io.now_ns() - t0 < 1'000'000) {
		detail::idle(io, 1000);
		st = io.template load<std::uint32_t>(eng_ + r::ENG_STATUS);
	}
	const bool stuck = st & r::ST_BUSY;
	(void)io.template load<std::uint32_t>(eng_ + r::ENG_STATUS_RC); // clear status and the IRQ request
	io.template store<std::uint32_t>(eng_ + r::ENG_CTRL, ctrl_);
	if (mode_ == completion::writeback)
		*wb_ = 0;
	while (detail::try_read_eventfd(efd_)) {
	}
	sg_bus_ = ~0ull;
	sg_adj_ = ~0u;
	++recoveries_;
	std::string what;
	for (request *q : running_)
		what += (what.empty() ? "" : ", ") + describe(*q);
	std::string msg = fmt::format("{}: run of {} descriptor(s) [{}] failed: {}; {}; completed {}; ", name_,
				      expected_, what, why, decode_status(status, info_.c2h), done);
	if (stuck)
		msg += "the engine stays busy after run was cleared: it needs a function reset "
		       "(pioc::xdma::dma::function_reset(), or echo 1 > /sys/bus/pci/devices/<BDF>/reset)";
	else
		msg += "engine stopped and reset, ready for the next transfer";
	log().warn("{}", msg);
	return msg;
}

void channel::lost_device(const std::string &why)
{
	std::string what;
	for (request *q : running_)
		what += (what.empty() ? "" : ", ") + describe(*q);
	const std::string msg =
		fmt::format("{}: run of {} descriptor(s) [{}] failed: {}: registers read all-ones (0xffffffff): the "
			    "device is gone (hot-unplugged, reset under this process, or its vfio-user server died); "
			    "{} queued request(s) failed with it; open the device again once it is back",
			    name_, expected_, what, why, pending_.size());
	for (auto *v : {&running_, &pending_})
		for (request *q : *v) {
			q->st_ = request::state::failed;
			q->code_ = errc::device_gone;
			q->err_ = msg;
		}
	running_.clear();
	pending_.clear();
	busy_ = false;
	log().warn("{}", msg);
	throw error(errc::device_gone, msg);
}

template std::string channel::recover<mmio_io>(const mmio_io &, std::uint32_t, const std::string &);
template std::string channel::recover<sim_io>(const sim_io &, std::uint32_t, const std::string &);

// ---- interrupts ------------------------------------------------------------------

struct irq_group::impl {
	dma *d = nullptr;
	std::vector<channel *> chans;
	io_uring ring{};
	std::vector<std::uint64_t> bufs;
	std::vector<bool> armed;
};

irq_group::irq_group(dma &d, std::vector<channel *> chans) : p_(std::make_unique<impl>())
{
	p_->d = &d;
	p_->chans = std::move(chans);
	p_->bufs.resize(p_->chans.size());
	p_->armed.assign(p_->chans.size(), false);
	const int rc = io_uring_queue_init(unsigned(std::max<std::size_t>(8, 2 * p_->chans.size())), &p_->ring, 0);
	if (rc < 0)
		throw_os_error(d.name() + ": io_uring for interrupt waits", -rc);
}

irq_group::~irq_group()
{
	io_uring_queue_exit(&p_->ring);
}

std::vector<channel *> irq_group::wait(std::uint64_t timeout_ns)
{
	auto &P = *p_;
	// One read per eventfd in flight (re-armed after each completion).
	auto arm = [&] {
		bool any = false;
		for (std::size_t i = 0; i < P.chans.size(); ++i) {
			if (P.armed[i])
				continue;
			io_uring_sqe *sqe = io_uring_get_sqe(&P.ring);
			if (!sqe)
				break;
			io_uring_prep_read(sqe, P.chans[i]->eventfd(), &P.bufs[i], sizeof(std::uint64_t), 0);
			io_uring_sqe_set_data64(sqe, i);
			P.armed[i] = any = true;
		}
		if (any)
			io_uring_submit(&P.ring);
	};
	std::vector<channel *> fired;
	auto reap = [&] {
		io_uring_cqe *cqe;
		while (io_uring_peek_cqe(&P.ring, &cqe) == 0) {
			const std::size_t i = std::size_t(io_uring_cqe_get_data64(cqe));
			const int res = cqe->res;
			io_uring_cqe_seen(&P.ring, cqe);
			P.armed[i] = false;
			if (res == sizeof(std::uint64_t))
				fired.push_back(P.chans[i]);
			else if (res < 0 && res != -EAGAIN)
				throw_os_error(P.chans[i]->name() + ": io_uring read of the interrupt eventfd", -res);
		}
	};
	P.d->config().visit([&](const auto &io) {
		const std::uint64_t deadline = io.now_ns() + timeout_ns;
		for (;;) {
			arm();
			reap();
			if (!fired.empty() || io.now_ns() >= deadline)
				return;
			if constexpr (std::decay_t<decltype(io)>::simulated) {
				io.sleep_until_event(deadline);
			} else {
				__kernel_timespec ts{};
				const std::uint64_t left = deadline - io.now_ns();
				ts.tv_sec = (long long)(left / 1'000'000'000);
				ts.tv_nsec = (long long)(left % 1'000'000'000);
				io_uring_cqe *cqe;
				const int rc = io_uring_wait_cqe_timeout(&P.ring, &cqe, &ts);
				if (rc < 0 && rc != -ETIME && rc != -EINTR)
					throw_os_error("io_uring wait for interrupts", -rc);
			}
		}
	});
	return fired;
}

} // namespace pioc::xdma
