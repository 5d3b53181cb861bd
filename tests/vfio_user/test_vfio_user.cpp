// vfio-user server: parsing and errors of every implemented command, config
// space, DMA mapping into the model's view of host memory, interrupts as
// eventfds, and whole messages over a socketpair with descriptors.
#include "pioc-devd/served_device.hpp"
#include "vfio_user/channel.hpp"
#include "vfio_user/server.hpp"

#include <pioc/regs/pio_dev.hpp>
#include <pioc/sim/host_memory.hpp>

#include <catch2/catch.hpp>

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace pioc::vfio_user;

namespace {

std::uint16_t next_id = 1;

message request(command c, std::vector<std::uint8_t> payload = {}, std::uint32_t flags = 0)
{
	message m;
	m.hdr.id = next_id++;
	m.hdr.cmd = std::uint16_t(c);
	m.hdr.flags = flags;
	m.hdr.size = std::uint32_t(sizeof(header) + payload.size());
	m.payload = std::move(payload);
	return m;
}

template <class T> std::vector<std::uint8_t> bytes(const T &v, std::size_t wire = sizeof(T))
{
	std::vector<std::uint8_t> out;
	put(out, v, wire);
	return out;
}

std::vector<std::uint8_t> version_payload(std::uint16_t major, std::uint16_t minor, const std::string &json)
{
	std::vector<std::uint8_t> p;
	put(p, major);
	put(p, minor);
	p.insert(p.end(), json.begin(), json.end());
	p.push_back(0);
	return p;
}

/** A server for @p spec with a clock the test moves, already past VERSION. */
pioc::devd::served_device with_msix(pioc::devd::served_device d, bool msix_capability)
{
	d.identity.msix_capability = msix_capability;
	return d;
}

struct fixture {
	std::uint64_t t = 0;
	pioc::devd::served_device dev;
	device_server srv;
	explicit fixture(const std::string &spec, bool msix_capability = true)
		: dev(with_msix(pioc::devd::find_served_device(spec, "pc-gen3x16"), msix_capability)),
		  srv(dev.make, dev.identity, [this] { return t; })
	{
		auto v = request(command::version, version_payload(0, 1, R"({"capabilities":{"max_msg_fds":8}})"));
		auto r = srv.handle(v);
		REQUIRE(r);
		REQUIRE(!(r->msg.hdr.flags & flag::error));
	}
	reply call(message m)
	{
		auto r = srv.handle(m);
		REQUIRE(r);
		return std::move(*r);
	}
	std::uint32_t region_read32(unsigned region, std::uint64_t off)
	{
		auto r = call(request(command::region_read, bytes(region_access{off, region, 4})));
		REQUIRE(!(r.msg.hdr.flags & flag::error));
		REQUIRE(r.msg.payload.size() == sizeof(region_access) + 4);
		std::uint32_t v;
		std::memcpy(&v, r.msg.payload.data() + sizeof(region_access), 4);
		return v;
	}
	reply region_write32(unsigned region, std::uint64_t off, std::uint32_t v)
	{
		auto p = bytes(region_access{off, region, 4});
		put(p, v);
		return call(request(command::region_write, p));
	}
};

/** The capability IDs of @p f's config space, in list order (at most 8). */
std::vector<unsigned> capability_ids(fixture &f)
{
	unsigned at = f.region_read32(region_config, 0x34) & 0xff, n = 0;
	std::vector<unsigned> ids;
	while (at && n++ < 8) {
		const std::uint32_t h = f.region_read32(region_config, at);
		ids.push_back(h & 0xff);
		at = h >> 8 & 0xff;
	}
	return ids;
}

} // namespace

TEST_CASE("headers: size, type and command are checked", "[vfio_user]")
{
	header h{1, std::uint16_t(command::region_read), 16, flag::request, 0};
	CHECK_NOTHROW(check_request_header(h));
	h.size = 15;
	CHECK_THROWS_AS(check_request_header(h), protocol_error);
	h.size = std::uint32_t(max_message + 1);
	CHECK_THROWS_AS(check_request_header(h), protocol_error);
	h.size = 16;
	h.flags = flag::reply;
	CHECK_THROWS_AS(check_request_header(h), protocol_error);
	h.flags = 0;
	h.cmd = 99;
	try {
		check_request_header(h);
		FAIL("unknown command accepted");
	} catch (const protocol_error &e) {
		CHECK(e.err() == ENOSYS);
	}
}

TEST_CASE("VERSION: JSON capabilities parsed, errors named", "[vfio_user]")
{
	auto ok = request(command::version,
			  version_payload(0, 1, R"({"capabilities":{"max_msg_fds":16,"max_data_xfer_size":4096}})"));
	const auto c = parse_version(ok);
	CHECK(c.max_msg_fds == 16);
	CHECK(c.max_data_xfer_size == 4096);

	auto err_of = [](const message &m) {
		try {
			parse_version(m);
		} catch (const protocol_error &e) {
			return e.err();
		}
		return 0;
	};
	CHECK(err_of(request(command::version, version_payload(1, 0, "{}"))) == ENOTSUP);
	CHECK(err_of(request(command::version, version_payload(0, 1, "{not json"))) == EINVAL);
	CHECK(err_of(request(command::version, version_payload(0, 1, R"({"capabilities":{"max_msg_fds":"x"}})"))) == EINVAL);
	auto unterminated = request(command::version, version_payload(0, 1, "{}"));
	unterminated.payload.pop_back();
	CHECK(err_of(unterminated) == EINVAL);
	CHECK(err_of(request(command::version, {0, 0})) == EINVAL);

	// Our reply: major 0, the lower minor, a NUL-terminated JSON object.
	const auto p = version_reply_payload(c);
	REQUIRE(p.size() > 5);
	CHECK(p[0] == 0);
	CHECK(p.back() == 0);
	const std::string text(p.begin() + 4, p.end() - 1);
	CHECK(text.find("\"max_msg_fds\"") != std::string::npos);
}

TEST_CASE("served devices: the coherent ones are not PCIe functions", "[vfio_user]")
{
	CHECK_THROWS_WITH(pioc::devd::find_served_device("sim:eci", "pc-gen3x16"),
			  Catch::Contains("sim:eci is a coherent (ECI) device"));
	CHECK(pioc::devd::served_device_list().find("sim:eci") == std::string::npos);
	CHECK(pioc::devd::served_device_list().find("sim:pio") != std::string::npos);
}

TEST_CASE("server: nothing before VERSION, VERSION once", "[vfio_user]")
{
	auto dev = pioc::devd::find_served_device("sim:pio", "pc-gen3x16");
	device_server srv(dev.make, dev.identity, [] { return 0; });
	auto early = request(command::device_get_info, bytes(device_info{16, 0, 0, 0}));
	auto r = srv.handle(early);
	REQUIRE(r);
	CHECK((r->msg.hdr.flags & flag::error));
	CHECK(r->msg.hdr.error == EINVAL);
	CHECK(r->msg.hdr.id == early.hdr.id);
	auto v = request(command::version, version_payload(0, 1, ""));
	CHECK(!(srv.handle(v)->msg.hdr.flags & flag::error));
	auto again = request(command::version, version_payload(0, 1, ""));
	CHECK((srv.handle(again)->msg.hdr.flags & flag::error));
}

TEST_CASE("server: device, region and IRQ info of sim:xdma", "[vfio_user]")
{
	fixture f("sim:xdma");
	auto r = f.call(request(command::device_get_info, bytes(device_info{16, 0, 0, 0})));
	const auto d = r.msg.get<device_info>();
	CHECK(d.num_regions == num_regions);
	CHECK(d.num_irqs == num_irqs);
	CHECK((d.flags & device_info::flag_pci));
	CHECK((d.flags & device_info::flag_reset));

	auto short_argsz = f.call(request(command::device_get_info, bytes(device_info{8, 0, 0, 0})));
	CHECK(short_argsz.msg.hdr.error == EINVAL);

	for (unsigned i = 0; i < num_regions; ++i) {
		auto ri = f.call(request(command::device_get_region_info, bytes(region_info{32, 0, i, 0, 0, 0})))
				  .msg.get<region_info>();
		const std::uint64_t want = i < 6 ? f.srv.model().bar_size(i) : i == region_config ? 4096 : 0;
		CHECK(ri.size == want);
		CHECK(!(ri.flags & region_info::flag_mmap)); // every access must reach the model
	}
	auto bad = f.call(request(command::device_get_region_info, bytes(region_info{32, 0, 9, 0, 0, 0})));
	CHECK(bad.msg.hdr.error == EINVAL);

	auto msix = f.call(request(command::device_get_irq_info, bytes(irq_info{16, 0, irq_msix, 0})))
			    .msg.get<irq_info>();
	CHECK(msix.count == 32);
	CHECK((msix.flags & irq_info::flag_eventfd));
	auto intx = f.call(request(command::device_get_irq_info, bytes(irq_info{16, 0, irq_intx, 0})))
			    .msg.get<irq_info>();
	CHECK(intx.count == 1);
	CHECK((intx.flags & irq_info::flag_automasked));
}

TEST_CASE("server: sim:pio has no interrupts, its BAR reads reach the model", "[vfio_user]")
{
	namespace R = pioc::regs::pio_dev;
	fixture f("sim:pio");
	for (unsigned i = 0; i < num_irqs; ++i)
		CHECK(f.call(request(command::device_get_irq_info, bytes(irq_info{16, 0, i, 0})))
			      .msg.get<irq_info>()
			      .count == 0);
	CHECK(f.region_read32(0, R::ID.offset) == R::id_value);
	// A write goes to the model and a read sees it.
	CHECK(!(f.region_write32(0, R::SCRATCH.offset, 0x1234abcd).msg.hdr.flags & flag::error));
	CHECK(f.region_read32(0, R::SCRATCH.offset) == 0x1234abcd);
	// Outside the BAR: EINVAL; a model-refused access: all ones, counted.
	auto out = f.call(request(command::region_read, bytes(region_access{R::bar_size - 2, 0, 4})));
	CHECK(out.msg.hdr.error == EINVAL);
	auto nobar = f.call(request(command::region_read, bytes(region_access{0, 3, 4})));
	CHECK(nobar.msg.hdr.error == EINVAL);
	// A write whose payload does not match its count.
	auto p = bytes(region_access{R::SCRATCH.offset, 0, 8});
	put(p, std::uint32_t(1));
	CHECK(f.call(request(command::region_write, p)).msg.hdr.error == EINVAL);
	// no_reply: handled, nothing returned.
	auto w = bytes(region_access{R::SCRATCH.offset, 0, 4});
	put(w, std::uint32_t(77));
	auto nr = request(command::region_write, w, flag::no_reply);
	CHECK(!f.srv.handle(nr));
	CHECK(f.region_read32(0, R::SCRATCH.offset) == 77);
}

TEST_CASE("config space: IDs, BAR sizing, capabilities, read-only bits", "[vfio_user]")
{
	fixture f("sim:xdma");
	const auto &id = f.dev.identity;
	CHECK(f.region_read32(region_config, 0) == (std::uint32_t(id.device) << 16 | id.vendor));
	// BAR sizing: all ones in, size mask out; the type bits stay (BAR0
	// prefetchable for WC mappings, BAR1 registers).
	f.region_write32(region_config, 0x10, 0xffffffff);
	CHECK(f.region_read32(region_config, 0x10) == (~std::uint32_t(id.bar_sizes[0] - 1) | 0x8));
	f.region_write32(region_config, 0x10, 0xfe000000);
	CHECK(f.region_read32(region_config, 0x10) == ((0xfe000000 & ~std::uint32_t(id.bar_sizes[0] - 1)) | 0x8));
	f.region_write32(region_config, 0x14, 0xffffffff);
	CHECK(f.region_read32(region_config, 0x14) == ~std::uint32_t(id.bar_sizes[1] - 1));
	// Vendor ID is read-only.
	f.region_write32(region_config, 0, 0);
	CHECK((f.region_read32(region_config, 0) & 0xffff) == id.vendor);
	// Capability chain: MSI -> PCIe -> MSI-X -> end.
	CHECK((f.region_read32(region_config, 0x04) >> 16 & 0x10));
	CHECK(capability_ids(f) == std::vector<unsigned>{0x05, 0x10, 0x11});
	// PCIe link status: the modelled Gen3 x16.
	const std::uint32_t ls = f.region_read32(region_config, pci_config::cap_pcie + 16) >> 16;
	CHECK((ls & 0xf) == 3);
	CHECK((ls >> 4 & 0x3f) == 16);
	// MSI-X: 32 vectors, table in BAR1 at the IP's offset.
	const std::uint32_t mx = f.region_read32(region_config, pci_config::cap_msix);
	CHECK((mx >> 16 & 0x7ff) == 31);
	CHECK(f.region_read32(region_config, pci_config::cap_msix + 4) == (id.msix->table_offset | 1));
	CHECK(!f.srv.config().msix_enabled());
	f.region_write32(region_config, pci_config::cap_msix, 0x80000000 | mx);
	CHECK(f.srv.config().msix_enabled());
	// Out of the 4 KiB space.
	CHECK(f.call(request(command::region_read, bytes(region_access{4094, region_config, 4}))).msg.hdr.error ==
	      EINVAL);
}

TEST_CASE("config space without MSI-X (pioc-devd --no-msix): MSI and INTx only", "[vfio_user]")
{
	fixture f("sim:xdma", false);
	// Capability chain: MSI -> PCIe -> end; nothing at the MSI-X offset.
	CHECK(capability_ids(f) == std::vector<unsigned>{0x05, 0x10});
	CHECK(f.region_read32(region_config, pci_config::cap_msix) == 0);
	// Writing where the capability would be enables nothing.
	f.region_write32(region_config, pci_config::cap_msix, 0x80000000);
	CHECK(!f.srv.config().msix_enabled());
	// IRQ info: no MSI-X vectors to bind, 32 MSI vectors, one INTx line.
	auto count = [&](unsigned index) {
		return f.call(request(command::device_get_irq_info, bytes(irq_info{16, 0, index, 0})))
			.msg.get<irq_info>()
			.count;
	};
	CHECK(count(irq_msix) == 0);
	CHECK(count(irq_msi) == 32);
	CHECK(count(irq_intx) == 1);
}

TEST_CASE("DMA_MAP: the client's memory is what the model reads and writes", "[vfio_user]")
{
	fixture f("sim:xdma");
	const std::size_t size = 64 * 1024;
	const int mfd = memfd_create("guest", 0);
	REQUIRE(mfd >= 0);
	REQUIRE(ftruncate(mfd, 2 * size) == 0);
	auto *guest = static_cast<std::uint8_t *>(mmap(nullptr, 2 * size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0));
	REQUIRE(guest != MAP_FAILED);
	const std::uint64_t iova = 0x40000000; // low guest-physical addresses, as QEMU uses

	auto m = request(command::dma_map,
			 bytes(dma_map_req{32, dma_map_req::flag_read | dma_map_req::flag_write, size, iova, size}));
	m.fds.push_back(dup(mfd));
	CHECK(!(f.call(std::move(m)).msg.hdr.flags & flag::error));
	CHECK(f.srv.dma().mappings() == 1);

	// The guest writes, the device side reads it at the IOVA (file offset size).
	guest[size + 100] = 0x5a;
	std::uint8_t b = 0;
	CHECK(pioc::sim::host_memory::instance().read(iova + 100, &b, 1));
	CHECK(b == 0x5a);
	const std::uint8_t w = 0xc3;
	CHECK(pioc::sim::host_memory::instance().write(iova + size - 1, &w, 1));
	CHECK(guest[2 * size - 1] == 0xc3);
	CHECK(!pioc::sim::host_memory::instance().read(iova + size, &b, 1)); // past the end: unmapped

	// Overlap and misalignment refused; a fd-less range is recorded but unreachable.
	auto overlap = request(command::dma_map, bytes(dma_map_req{32, 3, 0, iova + 4096, 4096}));
	overlap.fds.push_back(dup(mfd));
	CHECK(f.call(std::move(overlap)).msg.hdr.error == EINVAL);
	CHECK(f.call(request(command::dma_map, bytes(dma_map_req{32, 3, 0, iova + 2 * size + 1, 4096}))).msg.hdr.error ==
	      EINVAL);
	CHECK(!(f.call(request(command::dma_map, bytes(dma_map_req{32, 1, 0, 0xf0000, 0x10000}))).msg.hdr.flags &
		flag::error));
	CHECK(!pioc::sim::host_memory::instance().read(0xf0000, &b, 1));

	// Unmapping half a mapping is refused; the whole one works and the model loses it.
	CHECK(f.call(request(command::dma_unmap, bytes(dma_unmap_req{24, 0, iova, size / 2}))).msg.hdr.error == EINVAL);
	CHECK(!(f.call(request(command::dma_unmap, bytes(dma_unmap_req{24, 0, iova, size}))).msg.hdr.flags & flag::error));
	CHECK(!pioc::sim::host_memory::instance().read(iova + 100, &b, 1));
	CHECK(f.call(request(command::dma_unmap, bytes(dma_unmap_req{24, 0, iova, size}))).msg.hdr.error == EINVAL);
	CHECK(!(f.call(request(command::dma_unmap, bytes(dma_unmap_req{24, dma_unmap_req::flag_unmap_all, 0, 0})))
			.msg.hdr.flags &
		flag::error));
	CHECK(f.srv.dma().mappings() == 0);
	munmap(guest, 2 * size);
	close(mfd);
}

TEST_CASE("SET_IRQS: eventfds bound per vector, counts checked", "[vfio_user]")
{
	fixture f("sim:xdma");
	const int e0 = eventfd(0, EFD_NONBLOCK), e1 = eventfd(0, EFD_NONBLOCK);
	auto set = request(command::device_set_irqs,
			   bytes(irq_set{20, irq_set::data_eventfd | irq_set::action_trigger, irq_msix, 0, 2}));
	set.fds = {dup(e0), dup(e1)};
	CHECK(!(f.call(std::move(set)).msg.hdr.flags & flag::error));
	// A software trigger of vector 1 reaches the second eventfd only.
	CHECK(!(f.call(request(command::device_set_irqs,
			       bytes(irq_set{20, irq_set::data_none | irq_set::action_trigger, irq_msix, 1, 1})))
			.msg.hdr.flags &
		flag::error));
	std::uint64_t v = 0;
	CHECK(read(e0, &v, 8) < 0);
	CHECK(read(e1, &v, 8) == 8);
	CHECK(v == 1);

	auto mismatch = request(command::device_set_irqs,
				bytes(irq_set{20, irq_set::data_eventfd | irq_set::action_trigger, irq_msix, 0, 2}));
	mismatch.fds = {dup(e0)};
	CHECK(f.call(std::move(mismatch)).msg.hdr.error == EINVAL);
	CHECK(f.call(request(command::device_set_irqs,
			     bytes(irq_set{20, irq_set::data_eventfd | irq_set::action_trigger, irq_msix, 31, 2})))
		      .msg.hdr.error == EINVAL);
	CHECK(f.call(request(command::device_set_irqs, bytes(irq_set{20, irq_set::action_trigger, irq_msix, 0, 1})))
		      .msg.hdr.error == EINVAL);
	// Disable the index: later triggers reach nothing.
	CHECK(!(f.call(request(command::device_set_irqs,
			       bytes(irq_set{20, irq_set::data_none | irq_set::action_trigger, irq_msix, 0, 0})))
			.msg.hdr.flags &
		flag::error));
	f.call(request(command::device_set_irqs,
		       bytes(irq_set{20, irq_set::data_none | irq_set::action_trigger, irq_msix, 1, 1})));
	CHECK(read(e1, &v, 8) < 0);
	close(e0);
	close(e1);
}

TEST_CASE("DEVICE_RESET: the model's registers return to reset values", "[vfio_user]")
{
	namespace R = pioc::regs::pio_dev;
	fixture f("sim:pio");
	f.region_write32(0, R::SCRATCH.offset, 0xdeadbeef);
	CHECK(f.region_read32(0, R::SCRATCH.offset) == 0xdeadbeef);
	CHECK(!(f.call(request(command::device_reset)).msg.hdr.flags & flag::error));
	CHECK(f.region_read32(0, R::SCRATCH.offset) == 0);
	CHECK(f.srv.resets() == 1);

	// The guest's FLR (device control bit 15) resets the model too; the bit reads 0.
	f.region_write32(0, R::SCRATCH.offset, 0x600d);
	const unsigned devctl = pci_config::cap_pcie + 8;
	const std::uint32_t ctl = f.region_read32(region_config, devctl);
	f.region_write32(region_config, devctl, ctl | 0x8000);
	CHECK(f.srv.resets() == 2);
	CHECK(f.srv.flr_resets() == 1);
	CHECK(f.region_read32(0, R::SCRATCH.offset) == 0);
	CHECK(!(f.region_read32(region_config, devctl) & 0x8000));
	// Other device control writes do not.
	f.region_write32(region_config, devctl, ctl);
	CHECK(f.srv.resets() == 2);
}

TEST_CASE("channel: whole messages and descriptors over a socketpair", "[vfio_user]")
{
	int sv[2];
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	const int efd = eventfd(0, 0);
	auto m = request(command::dma_map, bytes(dma_map_req{32, 3, 0, 0x1000, 0x1000}));
	send_message(sv[0], m, {efd});
	auto got = recv_message(sv[1]);
	REQUIRE(got);
	CHECK(got->hdr.id == m.hdr.id);
	CHECK(got->payload == m.payload);
	REQUIRE(got->fds.size() == 1);
	// The descriptor is the same eventfd.
	const std::uint64_t one = 1;
	CHECK(write(got->fds[0], &one, 8) == 8);
	std::uint64_t v = 0;
	CHECK(read(efd, &v, 8) == 8);
	close_fds(got->fds);

	// A reply-typed message is refused with its header known, and the stream
	// stays in step: the next message parses.
	auto bad = request(command::region_read, {1, 2, 3, 4}, flag::reply);
	send_message(sv[0], bad);
	send_message(sv[0], m);
	header h{};
	CHECK_THROWS_AS(recv_message(sv[1], &h), protocol_error);
	CHECK(h.id == bad.hdr.id);
	auto next = recv_message(sv[1]);
	REQUIRE(next);
	CHECK(next->hdr.id == m.hdr.id);
	close(sv[0]);
	CHECK(!recv_message(sv[1])); // clean EOF between messages
	close(sv[1]);
	close(efd);
}
