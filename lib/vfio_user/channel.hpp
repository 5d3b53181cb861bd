// One vfio-user connection's byte stream: whole messages in and out of a
// UNIX stream socket, descriptors as SCM_RIGHTS.
#pragma once

#include "vfio_user/protocol.hpp"

#include <optional>

namespace pioc::vfio_user {

/** Reads one message. nullopt when the peer closed the socket cleanly
 *  between messages. A bad header throws protocol_error with the header
 *  (id/cmd) already consumed, so the caller can answer it; the payload is
 *  drained first so the stream stays in step. I/O errors throw pioc::error.
 *  @p replies_ok: a reply is a good message too (see check_header). */
std::optional<message> recv_message(int sock, header *last_header = nullptr, bool replies_ok = false);

/** Writes @p m (header size filled in) and passes @p fds with it. */
void send_message(int sock, const message &m, const std::vector<int> &fds = {});

/** Closes every descriptor in @p fds and clears it. */
void close_fds(std::vector<int> &fds) noexcept;

} // namespace pioc::vfio_user
