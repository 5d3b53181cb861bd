// DMA_READ / DMA_WRITE: the server asks the client to move guest memory.
#include "vfio_user/dma_messages.hpp"

#include "vfio_user/channel.hpp"

#include <pioc/error.hpp>
#include "core/log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <poll.h>

namespace pioc::vfio_user {

void dma_messages::set_max_xfer(std::uint64_t bytes) noexcept
{
	// Never more than we accept ourselves; a client claiming 0 gets the
	// smallest useful size rather than an endless loop.
	max_xfer_ = std::clamp<std::uint64_t>(bytes, 64, max_data_xfer);
}

bool dma_messages::read(std::uint64_t bus, void *dst, std::size_t n) noexcept
{
	return in_chunks(command::dma_read, bus, static_cast<std::uint8_t *>(dst), n);
}

bool dma_messages::write(std::uint64_t bus, const void *src, std::size_t n) noexcept
{
	// transfer() takes a mutable pointer for both directions; a write only reads it.
	return in_chunks(command::dma_write, bus, const_cast<std::uint8_t *>(static_cast<const std::uint8_t *>(src)), n);
}

bool dma_messages::in_chunks(command c, std::uint64_t bus, std::uint8_t *data, std::size_t n) noexcept
{
	try {
		for (std::size_t done = 0; done < n;) {
			const std::size_t k = std::min<std::uint64_t>(n - done, max_xfer_);
			transfer(c, bus + done, data + done, k);
			done += k;
		}
		return true;
	} catch (const std::exception &e) {
		return fail(to_string(c), bus, n, e);
	}
}

bool dma_messages::fail(const char *what, std::uint64_t bus, std::size_t n, const std::exception &e) noexcept
{
	try {
		last_error_ = fmt::format("{} of {} B at {:#x}: {}", what, n, bus, e.what());
		log().warn("vfio-user: {}", last_error_);
	} catch (...) {
	}
	return false;
}

void dma_messages::transfer(command c, std::uint64_t bus, std::uint8_t *data, std::size_t n)
{
	if (sock_ < 0)
		throw protocol_error(ENOTCONN, "no client connection to send it on");
	const bool write = c == command::dma_write;
	message m;
	m.hdr.id = next_id_--;
	m.hdr.cmd = std::uint16_t(c);
	m.hdr.flags = flag::request;
	// Sized once, then filled (GCC 12 misreads an insert after put() as an overflow).
	const dma_access ask{bus, std::uint32_t(n)};
	m.payload.resize(dma_access_wire + (write ? n : 0));
	std::memcpy(m.payload.data(), &ask, dma_access_wire);
	if (write)
		std::memcpy(m.payload.data() + dma_access_wire, data, n);
	send_message(sock_, m);
	++sent_;
	const message r = await_reply(m.hdr);
	if (r.hdr.flags & flag::error)
		throw protocol_error(int(r.hdr.error), fmt::format("client answered error {} ({})", r.hdr.error,
								  std::strerror(int(r.hdr.error))));
	const auto a = r.get<dma_access>(0, dma_access_wire);
	const std::size_t want = dma_access_wire + (write ? 0 : n);
	if (a.address != bus || a.count != n || r.payload.size() != want)
		throw protocol_error(EIO, fmt::format("reply covers {} B at {:#x} in {} B of payload, asked {} B at {:#x}",
						      a.count, a.address, r.payload.size(), n, bus));
	if (!write)
		std::memcpy(data, r.payload.data() + dma_access_wire, n);
}

message dma_messages::await_reply(const header &sent)
{
	for (;;) {
		pollfd p{sock_, POLLIN, 0};
		const int ready = ::poll(&p, 1, reply_timeout_ms);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			throw protocol_error(ETIMEDOUT, fmt::format("no reply within {} ms", reply_timeout_ms));
		auto m = recv_message(sock_, nullptr, true);
		if (!m)
			throw protocol_error(ECONNRESET, "client closed the connection");
		if ((m->hdr.flags & flag::type_mask) == flag::request) {
			// The client's own requests do not wait for our DMA: keep them in order.
			deferred_.push_back(std::move(*m));
			continue;
		}
		close_fds(m->fds);
		if (m->hdr.id != sent.id || m->hdr.cmd != sent.cmd)
			throw protocol_error(EPROTO, fmt::format("reply id {} cmd {} to request id {} cmd {}", m->hdr.id,
								 m->hdr.cmd, sent.id, sent.cmd));
		return std::move(*m);
	}
}

std::optional<message> dma_messages::take_deferred()
{
	if (deferred_.empty())
		return std::nullopt;
	message m = std::move(deferred_.front());
	deferred_.pop_front();
	return m;
}

} // namespace pioc::vfio_user
