// vfio-user requests -> transactions on the served model.
#include "vfio_user/server.hpp"

#include "vfio_user/channel.hpp"

#include <pioc/error.hpp>
#include "core/log.hpp"
#include <pioc/sim/xdma_control.hpp>

#include <chrono>
#include <bit>
#include <limits>
#include <unistd.h>

namespace pioc::vfio_user {

namespace {

std::vector<std::uint8_t> bytes_of(const void *p, std::size_t n)
{
	const auto *b = static_cast<const std::uint8_t *>(p);
	return {b, b + n};
}

template <class T> void check_argsz(const T &s, const char *what)
{
	if (s.argsz < sizeof(T))
		throw protocol_error(EINVAL, std::string(what) + ": argsz " + std::to_string(s.argsz) +
						     " smaller than " + std::to_string(sizeof(T)));
}

} // namespace

device_server::device_server(factory make, pci_identity id, std::function<std::uint64_t()> clock)
	: make_(std::move(make)), id_(id), clock_(std::move(clock)), model_(make_()),
	  ctl_(dynamic_cast<xdma::sim_control *>(model_.get())), config_(id_)
{
	if (!clock_) {
		const auto t0 = std::chrono::steady_clock::now();
		clock_ = [t0] {
			return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
						     std::chrono::steady_clock::now() - t0)
						     .count());
		};
	}
	for (unsigned b = 0; b < 6; ++b)
		if (model_->bar_size(b) != id_.bar_sizes[b])
			throw error(errc::invalid_argument,
				    "device_server: identity and model disagree on BAR" + std::to_string(b));
	if (id_.msix && !ctl_)
		throw error(errc::invalid_argument, "device_server: MSI-X declared but the model cannot interrupt");
	for (unsigned i = 0; i < num_irqs; ++i)
		irq_fds_[i].assign(i == irq_intx ? 1 : (id_.msix ? id_.msix->vectors : 0), -1);
	irq_fds_[irq_msi].resize(id_.msix ? std::min(id_.msix->vectors, 32u) : 0, -1);
	if (!id_.msix_capability)
		irq_fds_[irq_msix].clear();
	irq_fds_[irq_err].clear();
	irq_fds_[irq_req].clear();
	if (!id_.msix)
		irq_fds_[irq_intx].clear();
}

device_server::~device_server()
{
	if (ctl_)
		for (unsigned v = 0; v < 32; ++v)
			ctl_->bind_vector(v, -1);
	for (unsigned i = 0; i < num_irqs; ++i)
		close_irq(i);
}

std::uint64_t device_server::now_ns()
{
	const std::uint64_t c = clock_();
	if (c > now_)
		now_ = c;
	return now_;
}

void device_server::tick()
{
	model_->advance(now_ns());
}

std::uint64_t device_server::next_event_ns() const noexcept
{
	return ctl_ ? ctl_->next_event_ns() : std::numeric_limits<std::uint64_t>::max();
}

std::optional<reply> device_server::handle(message &req)
{
	std::optional<reply> r;
	try {
		if (!negotiated_ && req.cmd() != command::version)
			throw protocol_error(EINVAL, std::string(to_string(req.cmd())) + " before VERSION");
		tick();
		switch (req.cmd()) {
		case command::version: r = do_version(req); break;
		case command::dma_map: {
			const auto m = req.get<dma_map_req>();
			check_argsz(m, "DMA_MAP");
			const int fd = req.fds.empty() ? -1 : req.fds.front();
			if (!req.fds.empty())
				req.fds.erase(req.fds.begin());
			dma_.map(m, fd);
			r = reply{make_reply(req.hdr), {}};
			break;
		}
		case command::dma_unmap: {
			const auto m = req.get<dma_unmap_req>();
			check_argsz(m, "DMA_UNMAP");
			dma_.unmap(m);
			std::vector<std::uint8_t> out;
			put(out, m);
			r = reply{make_reply(req.hdr, std::move(out)), {}};
			break;
		}
		case command::device_get_info: r = do_device_info(req); break;
		case command::device_get_region_info: r = do_region_info(req); break;
		case command::device_get_irq_info: r = do_irq_info(req); break;
		case command::device_set_irqs: r = do_set_irqs(req); break;
		case command::region_read: r = do_region_rw(req, false); break;
		case command::region_write: r = do_region_rw(req, true); break;
		case command::device_reset: r = do_reset(req); break;
		default:
			throw protocol_error(ENOTSUP, std::string(to_string(req.cmd())) + " is not implemented");
		}
	} catch (const protocol_error &e) {
		log().warn("vfio-user: {} (id {}): {}", to_string(req.cmd()), req.hdr.id, e.what());
		r = reply{make_error(req.hdr, e.err()), {}};
	}
	close_fds(req.fds);
	if (req.hdr.flags & flag::no_reply) {
		if (r)
			for (int fd : r->fds)
				::close(fd);
		return std::nullopt;
	}
	return r;
}

reply device_server::do_version(const message &req)
{
	if (negotiated_)
		throw protocol_error(EINVAL, "VERSION sent twice");
	const auto c = parse_version(req);
	negotiated_ = true;
	dma_msgs_.set_max_xfer(c.max_data_xfer_size);
	return {make_reply(req.hdr, version_reply_payload(c)), {}};
}

reply device_server::do_device_info(const message &req)
{
	auto d = req.get<device_info>();
	check_argsz(d, "DEVICE_GET_INFO");
	d.argsz = sizeof d;
	d.flags = device_info::flag_reset | device_info::flag_pci;
	d.num_regions = num_regions;
	d.num_irqs = num_irqs;
	return {make_reply(req.hdr, bytes_of(&d, sizeof d)), {}};
}

reply device_server::do_region_info(const message &req)
{
	auto ri = req.get<region_info>();
	check_argsz(ri, "DEVICE_GET_REGION_INFO");
	if (ri.index >= num_regions)
		throw protocol_error(EINVAL, "DEVICE_GET_REGION_INFO: region " + std::to_string(ri.index));
	ri.argsz = sizeof ri;
	ri.cap_offset = 0;
	ri.offset = 0;
	ri.size = 0;
	ri.flags = 0;
	if (ri.index < 6)
		ri.size = id_.bar_sizes[ri.index];
	else if (ri.index == region_config)
		ri.size = pci_config::size;
	// Readable and writable, never mmappable: every BAR access must reach
	// the model as a transaction (a served BAR is device logic, not memory).
	if (ri.size)
		ri.flags = region_info::flag_read | region_info::flag_write;
	return {make_reply(req.hdr, bytes_of(&ri, sizeof ri)), {}};
}

reply device_server::do_irq_info(const message &req)
{
	auto ii = req.get<irq_info>();
	check_argsz(ii, "DEVICE_GET_IRQ_INFO");
	if (ii.index >= num_irqs)
		throw protocol_error(EINVAL, "DEVICE_GET_IRQ_INFO: index " + std::to_string(ii.index));
	ii.argsz = sizeof ii;
	ii.count = std::uint32_t(irq_fds_[ii.index].size());
	ii.flags = irq_info::flag_eventfd;
	if (ii.index == irq_intx)
		ii.flags |= irq_info::flag_maskable | irq_info::flag_automasked;
	else
		ii.flags |= irq_info::flag_noresize;
	return {make_reply(req.hdr, bytes_of(&ii, sizeof ii)), {}};
}

void device_server::close_irq(unsigned index) noexcept
{
	for (int &fd : irq_fds_[index]) {
		if (fd >= 0)
			::close(fd);
		fd = -1;
	}
}

void device_server::rebind_irqs()
{
	if (!ctl_)
		return;
	// The model has one vector table: MSI-X and MSI vectors map one to one;
	// INTx is one line every vector asserts (as the IP's legacy mode).
	const auto &fds = irq_fds_[active_irq_];
	for (unsigned v = 0; v < 32; ++v) {
		int fd = -1;
		if (active_irq_ == irq_intx)
			fd = fds.empty() ? -1 : fds[0];
		else if (v < fds.size())
			fd = fds[v];
		ctl_->bind_vector(v, fd);
	}
}

reply device_server::do_set_irqs(message &req)
{
	const auto s = req.get<irq_set>();
	check_argsz(s, "DEVICE_SET_IRQS");
	if (s.index >= num_irqs)
		throw protocol_error(EINVAL, "DEVICE_SET_IRQS: index " + std::to_string(s.index));
	auto &table = irq_fds_[s.index];
	const std::uint32_t data = s.flags & (irq_set::data_none | irq_set::data_bool | irq_set::data_eventfd);
	const std::uint32_t action = s.flags & (irq_set::action_mask | irq_set::action_unmask | irq_set::action_trigger);
	if (std::popcount(data) != 1 || std::popcount(action) != 1)
		throw protocol_error(EINVAL, "DEVICE_SET_IRQS: exactly one data and one action flag");
	if (s.start > table.size() || s.count > table.size() - s.start)
		throw protocol_error(EINVAL, "DEVICE_SET_IRQS: vectors " + std::to_string(s.start) + "+" +
						     std::to_string(s.count) + " beyond " + std::to_string(table.size()));
	if (action == irq_set::action_trigger && data == irq_set::data_eventfd) {
		if (!req.fds.empty() && req.fds.size() != s.count)
			throw protocol_error(EINVAL, "DEVICE_SET_IRQS: " + std::to_string(req.fds.size()) +
							     " descriptors for " + std::to_string(s.count) + " vectors");
		for (std::uint32_t i = 0; i < s.count; ++i) {
			int &slot = table[s.start + i];
			if (slot >= 0)
				::close(slot);
			slot = req.fds.empty() ? -1 : req.fds[i];
		}
		req.fds.clear();
		active_irq_ = s.index;
		rebind_irqs();
	} else if (action == irq_set::action_trigger && data == irq_set::data_none && s.count == 0) {
		close_irq(s.index); // disable the whole index
		if (active_irq_ == s.index)
			rebind_irqs();
	} else if (action == irq_set::action_trigger && data == irq_set::data_none) {
		for (std::uint32_t i = 0; i < s.count; ++i)
			if (const int fd = table[s.start + i]; fd >= 0) {
				const std::uint64_t one = 1;
				[[maybe_unused]] ssize_t n = ::write(fd, &one, sizeof one);
			}
	} else if (action != irq_set::action_trigger && data == irq_set::data_none) {
		// Mask/unmask: the line is edge-like toward the client (automasked
		// INTx is re-armed by the client's unmask); nothing to hold here.
	} else {
		throw protocol_error(ENOTSUP, "DEVICE_SET_IRQS: this data/action combination is not implemented");
	}
	return {make_reply(req.hdr), {}};
}

void device_server::bar_access(unsigned bar, std::uint64_t off, std::uint8_t *data, std::size_t len, bool write)
{
	// The target takes transactions that do not cross 4 KiB, as TLPs.
	while (len) {
		const std::size_t n = std::min<std::size_t>(len, 4096 - (off & 4095));
		try {
			if (write) {
				model_->posted_write(bar, off, data, n, now_ns());
			} else {
				// A non-posted read: the reply leaves when the model answers.
				const std::uint64_t done = model_->read(bar, off, data, n, now_ns());
				if (done > now_)
					now_ = done;
				model_->advance(now_);
			}
		} catch (const error &e) {
			// The device answers an access it does not decode with an
			// unsupported request: writes dropped, reads all ones.
			++refused_;
			log().warn("vfio-user: BAR{} {} of {} B at {:#x} refused by the model: {}", bar,
				   write ? "write" : "read", n, off, e.what());
			if (!write)
				std::memset(data, 0xff, n);
		}
		off += n;
		data += n;
		len -= n;
	}
}

reply device_server::do_region_rw(const message &req, bool write)
{
	const auto a = req.get<region_access>();
	const char *what = write ? "REGION_WRITE" : "REGION_READ";
	if (a.count == 0 || a.count > max_data_xfer)
		throw protocol_error(EINVAL, std::string(what) + ": count " + std::to_string(a.count));
	if (write && req.payload.size() != sizeof a + a.count)
		throw protocol_error(EINVAL, std::string(what) + ": payload does not match count");
	std::uint64_t rsize = 0;
	if (a.region < 6)
		rsize = id_.bar_sizes[a.region];
	else if (a.region == region_config)
		rsize = pci_config::size;
	if (!rsize || a.offset > rsize || a.count > rsize - a.offset)
		throw protocol_error(EINVAL, std::string(what) + ": region " + std::to_string(a.region) + " offset " +
						     std::to_string(a.offset) + " count " + std::to_string(a.count) +
						     " outside the region");
	std::vector<std::uint8_t> data(a.count);
	if (write)
		std::memcpy(data.data(), req.payload.data() + sizeof a, a.count);
	if (a.region == region_config) {
		if (write) {
			config_.write(std::uint32_t(a.offset), data.data(), a.count);
			// Device control bit 15, "initiate function-level reset" (PCIe
			// 7.5.3.4): the guest's FLR resets the model; the bit reads 0.
			const std::uint64_t flr_byte = pci_config::cap_pcie + 9;
			if (a.offset <= flr_byte && flr_byte < a.offset + a.count && (data[flr_byte - a.offset] & 0x80)) {
				++flr_resets_;
				function_reset();
			}
		} else
			config_.read(std::uint32_t(a.offset), data.data(), a.count);
	} else {
		bar_access(a.region, a.offset, data.data(), a.count, write);
	}
	std::vector<std::uint8_t> out;
	put(out, a);
	if (!write)
		out.insert(out.end(), data.begin(), data.end());
	return {make_reply(req.hdr, std::move(out)), {}};
}

reply device_server::do_reset(const message &req)
{
	function_reset();
	return {make_reply(req.hdr), {}};
}

void device_server::function_reset()
{
	// A function-level reset: engines idle, registers at reset values. A
	// model without its own reset is made anew. The client keeps its
	// interrupt wiring and DMA mappings (as vfio-pci does across a reset).
	++resets_;
	if (ctl_) {
		ctl_->function_reset();
	} else {
		model_ = make_();
		ctl_ = dynamic_cast<xdma::sim_control *>(model_.get());
	}
	model_->advance(now_ns());
	rebind_irqs();
}

} // namespace pioc::vfio_user
