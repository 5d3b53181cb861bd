// pioc-devd: serves one pioc device model or Verilated image as a PCI
// function to a virtual machine over vfio-user (QEMU's vfio-user-pci).
#include "served_device.hpp"

#include "vfio_user/channel.hpp"
#include "vfio_user/server.hpp"

#include "common/options.hpp"

#include <pioc/error.hpp>
#include "core/log.hpp"

#include <pioc/sim/pcie_link.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <algorithm>
#include <iostream>
#include <limits>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

constexpr const char *prog = "pioc-devd";

int listen_on(const std::string &path)
{
	sockaddr_un a{};
	if (path.size() >= sizeof a.sun_path)
		throw pioc::error(pioc::errc::invalid_argument, fmt::format("socket path '{}' is too long", path));
	a.sun_family = AF_UNIX;
	std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
	const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		throw pioc::error(pioc::errc::os_error, fmt::format("socket: {}", std::strerror(errno)));
	::unlink(path.c_str());
	if (::bind(s, reinterpret_cast<sockaddr *>(&a), sizeof a) < 0 || ::listen(s, 1) < 0)
		throw pioc::error(pioc::errc::os_error, fmt::format("{}: {}", path, std::strerror(errno)));
	return s;
}

/** Simulated nanoseconds each request lets pass: about one PCIe round trip. */
constexpr std::uint64_t ns_per_request = 1000;

/** Serves one client until it disconnects. The model's time is virtual: it
 *  moves by ns_per_request per request (a read further, to when the model
 *  answers), and while the client is quiet it jumps to the model's next
 *  event. Wall-clock time would make a Verilated model clock billions of
 *  cycles between two guest accesses. */
void serve(pioc::vfio_user::device_server &srv, std::uint64_t &virtual_ns, int conn)
{
	using namespace pioc::vfio_user;
	srv.attach(conn);
	auto answer = [&](message &m) {
		if (auto rep = srv.handle(m)) {
			send_message(conn, rep->msg, rep->fds);
			close_fds(rep->fds);
		}
	};
	for (;;) {
		// Requests that came while the model waited on a DMA_READ/DMA_WRITE reply.
		while (auto d = srv.take_deferred())
			answer(*d);
		const std::uint64_t next = srv.next_event_ns();
		const bool pending = next != std::numeric_limits<std::uint64_t>::max();
		pollfd p{conn, POLLIN, 0};
		const int r = ::poll(&p, 1, pending ? 0 : -1);
		if (r < 0 && errno != EINTR)
			throw pioc::error(pioc::errc::os_error, fmt::format("poll: {}", std::strerror(errno)));
		if (r <= 0) {
			if (pending) {
				virtual_ns = std::max(virtual_ns, next);
				srv.tick();
			}
			continue;
		}
		virtual_ns = std::max(virtual_ns, srv.now_ns()) + ns_per_request;
		srv.tick();
		std::optional<message> m;
		header h{};
		try {
			m = recv_message(conn, &h);
		} catch (const protocol_error &e) {
			pioc::log().warn("vfio-user: bad request: {}", e.what());
			send_message(conn, make_error(h, e.err()));
			continue;
		}
		if (!m)
			return; // client gone
		answer(*m);
	}
}

} // namespace

int main(int argc, char **argv)
{
	pioc::tool::tool t(prog, "Serve a pioc device model or Verilated image to a VM over vfio-user.");
	CLI::App &cli = t.app();
	std::string spec = "sim:xdma", socket_path, link = "pc-gen3x16";
	bool list = false, forever = false, no_msix = false;
	pioc::tool::add_text(cli, "--device,-d", spec, "device to serve: one of the devices below", "SPEC");
	pioc::tool::add_text(cli, "--socket,-s", socket_path, "UNIX socket QEMU's vfio-user-pci connects to (required)",
			     "PATH");
	pioc::tool::add_parsed(
		cli, "--link", "link the PCIe capability reports: pc-gen3x16 or enzian-gen3x8",
		[&link](std::string_view v) {
			link = std::string(v);
			(void)pioc::sim::link_timing::preset_named(link); // refuses an unknown preset here
		},
		"PRESET", link);
	pioc::tool::add_flag(cli, "--list", list, "list the devices that can be served");
	pioc::tool::add_flag(cli, "--no-msix", no_msix,
		     "offer MSI and INTx only: no MSI-X capability (QEMU 11.1's vfio-user client aborts when a "
		     "function with MSI-X is unplugged; Documentation/cosim.md)");
	pioc::tool::add_flag(cli, "--forever", forever, "serve the next client after one disconnects (a fresh model each time)");
	pioc::tool::set_footer(cli, "devices this build serves (the simulated ones of 'pciebench --help'):\n" +
		   pioc::devd::served_device_list() +
		   "\n"
		   "QEMU (10.1 or newer) side:\n"
		   "  -object memory-backend-memfd,id=mem,size=512M,share=on -machine q35,memory-backend=mem\n"
		   "  -device '{\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":\"PATH\",\"type\":\"unix\"}}'\n"
		   "Times inside the guest are the emulator's, not a board's. See Documentation/cosim.md.");
	return t.main(argc, argv, [&] {
		if (list) {
			std::cout << pioc::devd::served_device_list();
			return 0;
		}
		if (socket_path.empty())
			throw pioc::tool::usage_error("--socket PATH is required");
		std::signal(SIGPIPE, SIG_IGN);
		const auto dev = [&] {
			try {
				return pioc::devd::find_served_device(spec, link);
			} catch (const pioc::error &e) {
				if (e.code() != pioc::errc::not_found)
					throw;
				throw pioc::tool::usage_error(fmt::format("--device {}: {}", spec, e.what()));
			}
		}();
		if (no_msix && !dev.identity.msix)
			throw pioc::tool::usage_error(
				fmt::format("--no-msix: {} has no MSI-X to leave out (it does not interrupt)", dev.spec));
		auto identity = dev.identity;
		identity.msix_capability = !no_msix;
		const int ls = listen_on(socket_path);
		std::cerr << fmt::format("{}: serving {} ({:04x}:{:04x}) on {}\n", prog, dev.spec, dev.identity.vendor,
					 dev.identity.device, socket_path);
		do {
			const int conn = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
			if (conn < 0)
				throw pioc::error(pioc::errc::os_error, fmt::format("accept: {}", std::strerror(errno)));
			std::uint64_t virtual_ns = 0;
			pioc::vfio_user::device_server srv(dev.make, identity, [&virtual_ns] { return virtual_ns; });
			try {
				serve(srv, virtual_ns, conn);
			} catch (const pioc::error &e) {
				std::cerr << fmt::format("{}: connection ended: {}\n", prog, e.what());
			}
			::close(conn);
			std::cerr << fmt::format("{}: client disconnected ({} refused accesses, {} resets, {} by FLR)\n",
						 prog, srv.refused_accesses(), srv.resets(), srv.flr_resets());
		} while (forever);
		::close(ls);
		::unlink(socket_path.c_str());
		return 0;
	});
}
