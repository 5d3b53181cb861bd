// DMA_READ / DMA_WRITE: a region the client maps without a descriptor is
// reached through messages. The test plays the client on a socketpair from a
// second thread, answering the server's messages from its own "guest memory".
// Tagged [native]: creating a thread hangs under qemu-aarch64 user emulation
// on the CI host (tests/CMakeLists.txt), so the cross build leaves them out.
#include "pioc-devd/served_device.hpp"
#include "vfio_user/channel.hpp"
#include "vfio_user/server.hpp"

#include <pioc/regs/xdma.hpp>
#include <pioc/sim/host_memory.hpp>
#include <pioc/sim/xdma_control.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace pioc::vfio_user;

namespace {

constexpr std::uint64_t rom_iova = 0xfffc0000, rom_size = 0x10000;

/** How the fake client answers one DMA message: the honest answer, or a fault. */
enum class answer { honest, error, short_read, wrong_id };

struct fake_client {
	std::vector<std::uint8_t> mem = std::vector<std::uint8_t>(rom_size);
	answer how = answer::honest;
	std::vector<std::uint32_t> counts; ///< count of each message seen
	std::uint32_t max_seen = 0;

	/** Answers messages until the socket closes. */
	void run(int sock)
	{
		while (auto m = recv_message(sock, nullptr, true)) {
			const auto a = m->get<dma_access>(0, dma_access_wire);
			counts.push_back(a.count);
			REQUIRE(a.address >= rom_iova);
			REQUIRE(a.address + a.count <= rom_iova + rom_size);
			const std::size_t off = a.address - rom_iova;
			std::vector<std::uint8_t> p;
			put(p, a, dma_access_wire);
			if (m->cmd() == command::dma_write) {
				REQUIRE(m->payload.size() == dma_access_wire + a.count);
				std::memcpy(mem.data() + off, m->payload.data() + dma_access_wire, a.count);
			} else {
				REQUIRE(m->cmd() == command::dma_read);
				std::size_t give = a.count;
				if (how == answer::short_read)
					give /= 2;
				p.insert(p.end(), mem.begin() + off, mem.begin() + off + give);
			}
			message r = how == answer::error ? make_error(m->hdr, EFAULT) : make_reply(m->hdr, p);
			if (how == answer::wrong_id)
				++r.hdr.id;
			send_message(sock, r);
		}
	}
};

std::vector<std::uint8_t> version_payload(const std::string &json)
{
	std::vector<std::uint8_t> p;
	put(p, version_major);
	put(p, version_minor);
	p.insert(p.end(), json.begin(), json.end());
	p.push_back(0);
	return p;
}

message request(command c, std::vector<std::uint8_t> payload)
{
	static std::uint16_t id = 1;
	message m;
	m.hdr.id = id++;
	m.hdr.cmd = std::uint16_t(c);
	m.hdr.size = std::uint32_t(sizeof(header) + payload.size());
	m.payload = std::move(payload);
	return m;
}

/** A server attached to one end of a socketpair, past VERSION (the client
 *  allowing 4 KiB per message) and with [rom_iova, +rom_size) mapped without an fd. */
struct connection {
	int sv[2];
	pioc::devd::served_device dev = pioc::devd::find_served_device("sim:xdma", "pc-gen3x16");
	device_server srv{dev.make, dev.identity, [] { return std::uint64_t(0); }};
	fake_client client;
	std::thread thread;

	connection()
	{
		REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
		srv.attach(sv[0]);
		auto v = request(command::version, version_payload(R"({"capabilities":{"max_data_xfer_size":4096}})"));
		REQUIRE(!(srv.handle(v)->msg.hdr.flags & flag::error));
		std::vector<std::uint8_t> p;
		put(p, dma_map_req{32, dma_map_req::flag_read | dma_map_req::flag_write, 0, rom_iova, rom_size});
		auto m = request(command::dma_map, p);
		REQUIRE(!(srv.handle(m)->msg.hdr.flags & flag::error));
		thread = std::thread([this] { client.run(sv[1]); });
	}
	~connection()
	{
		::shutdown(sv[0], SHUT_RDWR);
		thread.join();
		::close(sv[0]);
		::close(sv[1]);
	}
};

} // namespace

TEST_CASE("DMA_READ/DMA_WRITE: an fd-less region is reached through the client", "[vfio_user][native]")
{
	auto &hm = pioc::sim::host_memory::instance();
	connection c;
	// A write of 10000 B: three messages of at most the client's 4096 B.
	std::vector<std::uint8_t> out(10000);
	for (std::size_t i = 0; i < out.size(); ++i)
		out[i] = std::uint8_t(i * 7 + 3);
	REQUIRE(hm.write(rom_iova + 100, out.data(), out.size()));
	// Reading back through messages gives the same bytes.
	std::vector<std::uint8_t> in(out.size());
	REQUIRE(hm.read(rom_iova + 100, in.data(), in.size()));
	CHECK(in == out);
	CHECK(c.srv.dma_msgs().messages_sent() == 6);
	CHECK(c.srv.dma_msgs().last_error().empty());
	// No pointer to remote memory: translate() refuses it.
	CHECK(hm.translate(rom_iova, 4) == nullptr);
	// Past the region's end: no message, a failed access.
	std::uint8_t b[8];
	CHECK(!hm.read(rom_iova + rom_size - 4, b, 8));
	CHECK(c.srv.dma_msgs().messages_sent() == 6);
	c.srv.handle(*std::make_unique<message>(request(command::dma_unmap, [] {
		std::vector<std::uint8_t> p;
		put(p, dma_unmap_req{24, 0, rom_iova, rom_size});
		return p;
	}())));
	CHECK(!hm.read(rom_iova, b, 1)); // unmapped: gone from the model's view
	// The client's bytes are what the model wrote, at the right place.
	CHECK(std::equal(out.begin(), out.end(), c.client.mem.begin() + 100));
	CHECK(c.client.counts == std::vector<std::uint32_t>{4096, 4096, 1808, 4096, 4096, 1808});
}

TEST_CASE("DMA_READ/DMA_WRITE: bad replies are the model's DMA error", "[vfio_user][native]")
{
	auto &hm = pioc::sim::host_memory::instance();
	std::uint8_t b[64]{};
	auto fails_with = [&](answer how, bool write, const char *text) {
		connection c;
		c.client.how = how;
		const bool ok = write ? hm.write(rom_iova, b, sizeof b) : hm.read(rom_iova, b, sizeof b);
		CHECK(!ok);
		INFO(c.srv.dma_msgs().last_error());
		CHECK(c.srv.dma_msgs().last_error().find(text) != std::string::npos);
	};
	fails_with(answer::error, false, "client answered error 14");
	fails_with(answer::error, true, "client answered error 14");
	fails_with(answer::short_read, false, "reply covers");
	fails_with(answer::wrong_id, false, "reply id");
}

TEST_CASE("DMA_READ: requests arriving meanwhile are kept for later, a gone client fails", "[vfio_user][native]")
{
	auto &hm = pioc::sim::host_memory::instance();
	std::uint8_t b[16]{};
	{
		connection c;
		c.client.mem[0] = 0x42;
		// The client sends a request of its own before answering ours.
		auto early = request(command::device_reset, {});
		send_message(c.sv[1], early);
		REQUIRE(hm.read(rom_iova, b, sizeof b));
		CHECK(b[0] == 0x42);
		auto d = c.srv.take_deferred();
		REQUIRE(d);
		CHECK(d->hdr.id == early.hdr.id);
		CHECK(!c.srv.take_deferred());
	}
	connection c;
	::shutdown(c.sv[1], SHUT_RDWR); // the client goes away
	CHECK(!hm.read(rom_iova, b, sizeof b));
	CHECK(!c.srv.dma_msgs().last_error().empty());
}

namespace {

namespace xr = pioc::regs::xdma;

/** One descriptor in the fake client's memory at @p off: @p len bytes from @p src to @p dst, last of its run. */
void put_descriptor(fake_client &cl, std::size_t off, std::uint64_t src, std::uint64_t dst, std::uint32_t len)
{
	const xr::descriptor d{xr::DESC_MAGIC << 16 | xr::DESC_STOP | xr::DESC_COMPLETED,
			       len,
			       std::uint32_t(src),
			       std::uint32_t(src >> 32),
			       std::uint32_t(dst),
			       std::uint32_t(dst >> 32),
			       0,
			       0};
	std::memcpy(cl.mem.data() + off, &d, sizeof d);
}

/** Runs channel 0 of one direction on the descriptor at @p desc_iova, as a
 *  driver does through the config BAR (1), and lets the model finish.
 *  Returns the engine's status; @p completed gets its completed count. */
std::uint32_t run_engine(pioc::sim::target &m, bool c2h, std::uint64_t desc_iova, std::uint32_t &completed)
{
	static std::uint64_t t = 1000;
	auto wr = [&](std::uint64_t off, std::uint32_t v) { m.posted_write(1, off, &v, 4, t += 10); };
	auto rd = [&](std::uint64_t off) {
		std::uint32_t v = 0;
		m.read(1, off, &v, 4, t += 10);
		return v;
	};
	const std::uint64_t eng = xr::engine_base(c2h, 0), sg = xr::sgdma_base(c2h, 0);
	wr(eng + xr::ENG_CTRL, 0);
	wr(sg + xr::SG_DESC_LO, std::uint32_t(desc_iova));
	wr(sg + xr::SG_DESC_HI, std::uint32_t(desc_iova >> 32));
	wr(sg + xr::SG_DESC_ADJ, 0);
	// Error bits reach the status register only where their ie_* bit is set.
	wr(eng + xr::ENG_CTRL, xr::CTRL_RUN | xr::IE_DESC_STOPPED | xr::IE_DESC_COMPLETED | xr::IE_READ_ERROR |
				       xr::IE_WRITE_ERROR | xr::IE_DESC_ERROR | xr::IE_MAGIC_STOPPED);
	t += 1'000'000;
	m.advance(t);
	completed = rd(eng + xr::ENG_COMPLETED);
	const std::uint32_t st = rd(eng + xr::ENG_STATUS);
	wr(eng + xr::ENG_CTRL, 0);
	return st;
}

} // namespace

TEST_CASE("XDMA data to and from a region without a descriptor goes through DMA_READ/DMA_WRITE", "[vfio_user][native]")
{
	connection c;
	auto &m = c.srv.model();
	auto *ctl = dynamic_cast<pioc::xdma::sim_control *>(&m);
	REQUIRE(ctl);
	// 5000 bytes: more than one 4 KiB message each way.
	constexpr std::uint32_t len = 5000;
	constexpr std::size_t src = 0x1000, dst = 0x4000;
	constexpr std::uint64_t card = 0x20000;
	for (std::size_t i = 0; i < len; ++i)
		c.client.mem[src + i] = std::uint8_t(i * 13 + 5);
	put_descriptor(c.client, 0, rom_iova + src, card, len);
	put_descriptor(c.client, 0x40, card, rom_iova + dst, len);

	std::uint32_t done = 0;
	const std::uint32_t h2c = run_engine(m, false, rom_iova, done);
	CHECK((h2c & xr::ST_ERRORS) == 0);
	CHECK((h2c & xr::ST_DESC_STOPPED));
	CHECK(done == 1);
	std::vector<std::uint8_t> on_card(len);
	ctl->card_read(card, on_card.data(), len);
	CHECK(std::equal(on_card.begin(), on_card.end(), c.client.mem.begin() + src));

	// C2H on its own: fresh card data, not what H2C left there.
	for (std::size_t i = 0; i < len; ++i)
		on_card[i] = std::uint8_t(i * 29 + 11);
	ctl->card_write(card, on_card.data(), len);
	const std::uint32_t c2h = run_engine(m, true, rom_iova + 0x40, done);
	CHECK((c2h & xr::ST_ERRORS) == 0);
	CHECK((c2h & xr::ST_DESC_STOPPED));
	CHECK(done == 1);
	CHECK(std::equal(on_card.begin(), on_card.end(), c.client.mem.begin() + dst));
	CHECK(c.srv.dma_msgs().last_error().empty());
}
