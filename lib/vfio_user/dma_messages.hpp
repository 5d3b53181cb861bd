// The served model's DMA into client memory that came without a file
// descriptor: each access becomes DMA_READ/DMA_WRITE messages to the client
// on the connection's socket, and waits for the client's reply.
#pragma once

#include "vfio_user/protocol.hpp"

#include <pioc/sim/host_memory.hpp>

#include <deque>
#include <optional>
#include <string>

namespace pioc::vfio_user {

class dma_messages final : public sim::host_memory::remote {
public:
	/** How long a reply may take before the access fails (a client that
	 *  never answers must not hang the server). */
	static constexpr int reply_timeout_ms = 5000;

	/** The connection's socket (-1: none, every access fails). */
	void attach(int sock) noexcept { sock_ = sock; }
	/** The client's max_data_xfer_size from VERSION: larger accesses are split. */
	void set_max_xfer(std::uint64_t bytes) noexcept;

	bool read(std::uint64_t bus, void *dst, std::size_t n) noexcept override;
	bool write(std::uint64_t bus, const void *src, std::size_t n) noexcept override;

	/** Requests the client sent while we waited for a reply, oldest first;
	 *  the connection's loop handles them next. */
	std::optional<message> take_deferred();
	/** Why the last failed access failed (empty if none failed). */
	const std::string &last_error() const noexcept { return last_error_; }
	std::uint64_t messages_sent() const noexcept { return sent_; }

private:
	/** Splits an access into messages of at most max_xfer_ bytes; false on the first failure. */
	bool in_chunks(command c, std::uint64_t bus, std::uint8_t *data, std::size_t n) noexcept;
	/** One message of at most max_xfer_ bytes; throws protocol_error on a bad reply. */
	void transfer(command c, std::uint64_t bus, std::uint8_t *data, std::size_t n);
	message await_reply(const header &sent);
	bool fail(const char *what, std::uint64_t bus, std::size_t n, const std::exception &e) noexcept;

	int sock_ = -1;
	std::uint64_t max_xfer_ = max_data_xfer;
	/** Our ids count down from the top so they are told apart from the client's in traces. */
	std::uint16_t next_id_ = 0xffff;
	std::uint64_t sent_ = 0;
	std::deque<message> deferred_;
	std::string last_error_;
};

} // namespace pioc::vfio_user
