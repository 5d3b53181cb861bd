// The coherent devices through device::open (issue 14): "sim:eci", "rtl:coh"
// (RTL builds) and a module's ECI window ("kmod:eci0"); device::coherent()
// gives the coherent drivers what they need, so no caller builds the model.
#include "fixture.hpp"

#include <pioc/coherent/port.hpp>
#include <pioc/coherent/queue.hpp>
#include <pioc/device.hpp>
#include <pioc/error.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace pioc;
using namespace fx;

namespace {

/** Runs @p f, which must throw pioc::error @p code with every piece of @p parts in its message. */
template <class F> void require_error(F f, errc code, std::initializer_list<std::string> parts)
{
	try {
		f();
	} catch (const error &e) {
		CHECK(e.code() == code);
		const std::string m = e.what();
		for (const auto &p : parts) {
			INFO(m);
			CHECK(m.find(p) != std::string::npos);
		}
		return;
	}
	FAIL("no pioc::error thrown");
}

/** One 5a call of @p n bytes through @p inv; returns the simulated time it took. */
template <class Inv> double timed_call(Inv &inv, sim::eci::system &sys, std::size_t n)
{
	auto req = pattern(n, 3);
	std::vector<std::uint8_t> resp(coherent::max_message);
	const double t0 = sys.now();
	const auto got = inv.call(req.data(), n, resp.data(), resp.size());
	REQUIRE(got == n);
	resp.resize(n);
	CHECK(resp == req); // the engine echoes
	return sys.now() - t0;
}

} // namespace

TEST_CASE("sim:eci opens through device::open and runs Fig. 5a as the model does")
{
	auto dev = device::open("sim:eci");
	CHECK(dev.spec() == "sim:eci");
	CHECK(dev.simulated());
	CHECK(dev.info().transport == "sim");
	auto &p = dev.coherent();
	CHECK(p.simulated());
	CHECK(p.engine_kind() == "model");
	CHECK(p.model().line_size == 128);

	auto &eng = p.start_invocations({});
	auto &sys = p.system();
	CHECK(eng.window_base() == 0); // 5a: device-homed
	sys.cpu_spend(5000);
	coherent::invoker<lines_t> inv(lines_t(sys, 0), eng.channel_layout(0));
	CHECK(!eng.cycles());
	const double via_device = timed_call(inv, sys, 64);

	// The same call on a model built by hand: the device adds nothing.
	rig r;
	auto inv2 = r.invoker();
	CHECK(via_device == timed_call(inv2, *r.sys, 64));
}

TEST_CASE("sim:eci applies the engine setup: Shared answers, channels, line size, device-initiated")
{
	SECTION("line size set before the system is made")
	{
		auto dev = device::open("sim:eci");
		dev.coherent().set_line_size(64);
		CHECK(dev.coherent().system().cfg().line_size == 64);
		CHECK(dev.coherent().model().line_size == 64);
	}
	SECTION("a Shared answer costs more than Exclusive (the store upgrades)")
	{
		double t[2];
		for (int shared = 0; shared < 2; ++shared) {
			auto dev = device::open("sim:eci");
			coherent::engine_setup s;
			s.exclusive = !shared;
			auto &eng = dev.coherent().start_invocations(s);
			auto &sys = dev.coherent().system();
			sys.cpu_spend(5000);
			coherent::invoker<lines_t> inv(lines_t(sys, 0), eng.channel_layout(0));
			timed_call(inv, sys, 64);
			t[shared] = timed_call(inv, sys, 64);
		}
		CHECK(t[1] > t[0]);
	}
	SECTION("5b: a posted message reaches the receiver on channel 2 of 3")
	{
		auto dev = device::open("sim:eci");
		coherent::engine_setup s;
		s.v = coherent::variant::dev_dev;
		s.channels = 3;
		auto &eng = dev.coherent().start_invocations(s);
		auto &sys = dev.coherent().system();
		sys.cpu_spend(5000);
		coherent::receiver<lines_t> rx(lines_t(sys, 0), eng.channel_layout(2));
		auto m = pattern(200, 5);
		eng.post(2, m);
		std::vector<std::uint8_t> buf(coherent::max_message);
		REQUIRE(rx.receive(buf.data(), buf.size(), 1u << 20) == m.size());
		buf.resize(m.size());
		CHECK(buf == m);
	}
	SECTION("5c: the CPU-homed window starts where the engine says, not at 0")
	{
		auto dev = device::open("sim:eci");
		coherent::engine_setup s;
		s.v = coherent::variant::cpu_cpu;
		auto &eng = dev.coherent().start_invocations(s);
		auto &sys = dev.coherent().system();
		CHECK(eng.window_base() == sys.cpu_base());
		sys.cpu_spend(5000);
		coherent::invoker<lines_t> inv(lines_t(sys, eng.window_base()), eng.channel_layout(0));
		CHECK(timed_call(inv, sys, 64) > 0);
	}
	SECTION("the CNI queue engine echoes through the library's rings")
	{
		auto dev = device::open("sim:eci");
		auto rings = dev.coherent().start_queue(8);
		auto &sys = dev.coherent().system();
		using ring = coherent::cq_ring<lines_t>;
		ring to(lines_t(sys, 0), rings.to_device, 8), from(lines_t(sys, 0), rings.from_device, 8);
		ring::sender tx(to);
		ring::receiver rx(from);
		auto m = pattern(40, 9);
		tx.send(m.data(), m.size());
		std::vector<std::uint8_t> buf(128);
		REQUIRE(rx.receive_for(buf.data(), buf.size(), 1e6) == long(m.size()));
		buf.resize(m.size());
		CHECK(buf == m);
	}
}

TEST_CASE("sim:eci refuses what it cannot do, naming the spec and the rule")
{
	auto dev = device::open("sim:eci");
	auto &p = dev.coherent();
	require_error([&] { p.set_line_size(96); }, errc::invalid_argument, {"sim:eci", "line size 96", "power of two"});
	require_error([&] { p.map_window(); }, errc::not_supported, {"sim:eci", "eci_sim_lines"});
	require_error([&] { dev.map(0, mem_type::wb); }, errc::not_supported, {"sim:eci", "BAR0", "no BARs"});
	p.start_invocations({});
	require_error([&] { p.start_queue(8); }, errc::not_supported, {"sim:eci", "already runs an engine"});
	require_error([&] { p.set_line_size(64); }, errc::not_supported, {"sim:eci", "line size 64", "before"});
}

TEST_CASE("bad coherent specs name the spec and the rule")
{
	require_error([] { device::open("sim:eci@enzian-gen3x8"); }, errc::invalid_argument,
		      {"sim:eci@enzian-gen3x8", "no PCIe link timing preset"});
	require_error([] { device::open("sim:ecx"); }, errc::not_found, {"sim:ecx", "sim:eci"});
	require_error([] { device::open("sim:coh"); }, errc::not_found, {"sim:coh"});
#ifndef PIOC_HAVE_RTL
	require_error([] { device::open("rtl:coh"); }, errc::not_found, {"rtl:coh", "-DPIOC_RTL=ON"});
#endif
	// A device that is not coherent says so when asked for its lines.
	auto pio = device::open("sim:pio");
	require_error([&] { pio.coherent(); }, errc::not_supported, {"sim:pio", "not a coherent device"});
}

TEST_CASE("list_devices names the coherent devices")
{
	bool eci = false, coh = false;
	for (const auto &d : list_devices(false)) {
		eci |= d.spec == "sim:eci" && d.simulated && d.bars.empty();
		coh |= d.spec == "rtl:coh";
	}
	CHECK(eci);
#ifdef PIOC_HAVE_RTL
	CHECK(coh);
#else
	CHECK(!coh);
#endif
}

TEST_CASE("kmod:eci0 opens through the module (the ECI window route)")
{
	// Not a pioc node: a regular file, so the module's version handshake (an
	// ioctl) fails; that error, naming the node, shows the kmod route was taken.
	namespace fs = std::filesystem;
	const fs::path dir = fs::temp_directory_path() / ("pioc-eci-open-" + std::to_string(::getpid()));
	fs::create_directories(dir);
	std::ofstream(dir / "eci0").put('\0');
	const char *old = std::getenv("PIOC_DEV_DIR");
	const std::string saved = old ? old : "";
	::setenv("PIOC_DEV_DIR", dir.c_str(), 1);
	std::string msg;
	try {
		device::open("kmod:eci0");
	} catch (const error &e) {
		msg = e.what();
	}
	old ? ::setenv("PIOC_DEV_DIR", saved.c_str(), 1) : ::unsetenv("PIOC_DEV_DIR");
	fs::remove_all(dir);
	INFO(msg);
	CHECK(msg.find((dir / "eci0").string()) != std::string::npos);
	CHECK(msg.find("PIOC_IOC_VERSION") != std::string::npos);
}

#ifdef PIOC_HAVE_RTL
TEST_CASE("rtl:coh runs Fig. 5a on the Verilated engine and refuses the rest, naming the rule")
{
	{
		auto dev = device::open("rtl:coh");
		CHECK(dev.info().transport == "rtl");
		auto &p = dev.coherent();
		CHECK(p.engine_kind() == "rtl");
		auto &eng = p.start_invocations({});
		auto &sys = p.system();
		sys.cpu_spend(5000);
		coherent::invoker<lines_t> inv(lines_t(sys, 0), eng.channel_layout(0));
		timed_call(inv, sys, 64);
		REQUIRE(eng.cycles());
		CHECK(*eng.cycles() > 0);
	}
	auto dev = device::open("rtl:coh");
	auto &p = dev.coherent();
	require_error([&] { p.set_line_size(64); }, errc::not_supported, {"rtl:coh", "line size 64", "128 bytes"});
	coherent::engine_setup s;
	s.v = coherent::variant::cpu_cpu;
	require_error([&] { p.start_invocations(s); }, errc::not_supported, {"rtl:coh", "variant 5c", "device-homed"});
	s = {};
	s.data_lines = 4;
	require_error([&] { p.start_invocations(s); }, errc::not_supported, {"rtl:coh", "pipelined", "data banks"});
	require_error([&] { p.start_queue(8); }, errc::not_supported, {"rtl:coh", "no CNI queue engine"});
}
#endif
