// vfio-user messages over a UNIX stream socket.
#include "vfio_user/channel.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace pioc::vfio_user {

namespace {

[[noreturn]] void io_fail(const char *what)
{
	throw error(errc::os_error, fmt::format("vfio-user socket: {}: {}", what, std::strerror(errno)));
}

/** Reads exactly @p n bytes; collects any descriptors that arrive. false on EOF before the first byte. */
bool read_full(int sock, void *buf, std::size_t n, std::vector<int> *fds)
{
	auto *p = static_cast<std::uint8_t *>(buf);
	std::size_t got = 0;
	while (got < n) {
		iovec iov{p + got, n - got};
		alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int) * max_msg_fds)];
		msghdr mh{};
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof ctl;
		const ssize_t r = ::recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			io_fail("recvmsg");
		}
		for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			const std::size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (std::size_t i = 0; i < k; ++i) {
				int fd;
				std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
				if (fds)
					fds->push_back(fd);
				else
					::close(fd);
			}
		}
		if (mh.msg_flags & MSG_CTRUNC) {
			if (fds)
				close_fds(*fds);
			throw error(errc::os_error, "vfio-user socket: more descriptors than max_msg_fds in one message");
		}
		if (r == 0) {
			if (got == 0)
				return false;
			throw error(errc::os_error, fmt::format("vfio-user socket: peer closed after {} of {} bytes", got, n));
		}
		got += std::size_t(r);
	}
	return true;
}

} // namespace

void close_fds(std::vector<int> &fds) noexcept
{
	for (int fd : fds)
		if (fd >= 0)
			::close(fd);
	fds.clear();
}

std::optional<message> recv_message(int sock, header *last_header, bool replies_ok)
{
	message m;
	if (!read_full(sock, &m.hdr, sizeof m.hdr, &m.fds))
		return std::nullopt;
	if (last_header)
		*last_header = m.hdr;
	try {
		check_header(m.hdr, replies_ok);
	} catch (const protocol_error &) {
		close_fds(m.fds);
		// Keep the stream in step when the size is believable, else give up.
		if (m.hdr.size >= sizeof(header) && m.hdr.size <= max_message) {
			std::vector<std::uint8_t> skip(m.hdr.size - sizeof(header));
			read_full(sock, skip.data(), skip.size(), nullptr);
		} else {
			throw error(errc::os_error, fmt::format("vfio-user socket: message size {} cannot be skipped", m.hdr.size));
		}
		throw;
	}
	m.payload.resize(m.hdr.size - sizeof(header));
	if (!m.payload.empty() && !read_full(sock, m.payload.data(), m.payload.size(), &m.fds)) {
		close_fds(m.fds);
		throw error(errc::os_error, "vfio-user socket: peer closed inside a message");
	}
	return m;
}

void send_message(int sock, const message &m, const std::vector<int> &fds)
{
	header h = m.hdr;
	h.size = static_cast<std::uint32_t>(sizeof h + m.payload.size());
	iovec iov[2] = {{&h, sizeof h}, {const_cast<std::uint8_t *>(m.payload.data()), m.payload.size()}};
	alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int) * max_msg_fds)]{};
	msghdr mh{};
	mh.msg_iov = iov;
	mh.msg_iovlen = m.payload.empty() ? 1 : 2;
	if (!fds.empty()) {
		if (fds.size() > max_msg_fds)
			throw error(errc::invalid_argument, "vfio-user: too many descriptors in one message");
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
		cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
		std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
	}
	std::size_t total = sizeof h + m.payload.size(), sent = 0;
	while (sent < total) {
		const ssize_t r = ::sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			io_fail("sendmsg");
		}
		sent += std::size_t(r);
		if (sent == total)
			break;
		// A short write: send the rest without descriptors.
		mh.msg_control = nullptr;
		mh.msg_controllen = 0;
		std::size_t skip = std::size_t(r);
		while (skip && mh.msg_iovlen) {
			if (skip >= mh.msg_iov[0].iov_len) {
				skip -= mh.msg_iov[0].iov_len;
				++mh.msg_iov;
				--mh.msg_iovlen;
			} else {
				mh.msg_iov[0].iov_base = static_cast<char *>(mh.msg_iov[0].iov_base) + skip;
				mh.msg_iov[0].iov_len -= skip;
				skip = 0;
			}
		}
	}
}

} // namespace pioc::vfio_user
