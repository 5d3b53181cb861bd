// coherent::engine_control: the coherent engine's control block read through
// an I/O window (here ordinary memory holding the registers): the channel
// count and the answer mode come from the registers; a window that is not
// the engine's, or an engine older than 3.1, is refused by name and value.
#include <pioc/coherent/engine_control.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/coh_dev.hpp>

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

using namespace pioc;
namespace C = regs::coh_dev;

namespace {

struct fake_window {
	std::shared_ptr<std::vector<std::uint32_t>> mem =
		std::make_shared<std::vector<std::uint32_t>>(C::bar_size / 4, 0);
	std::uint32_t &at(const C::reg &r) { return (*mem)[r.offset / 4]; }
	fake_window(std::uint32_t channels = 2)
	{
		at(C::ID) = C::id_value;
		at(C::VERSION) = C::version_major << 16 | C::version_minor;
		at(C::CONFIG) = 0x100 | C::CFG_EXCLUSIVE; // another bit the tool must keep
		at(C::CHANNELS) = channels;
	}
	region map(std::uint64_t size = C::bar_size)
	{
		auto *base = reinterpret_cast<std::uint8_t *>(mem->data());
		return region("kmod:eci1", mmio_io(base, size, mem_type::uc, wide_isa::none), mem);
	}
};

std::string message_of(fake_window &w)
{
	try {
		coherent::engine_control c(w.map());
	} catch (const error &e) {
		CHECK(e.code() == errc::not_supported);
		return e.what();
	}
	return {};
}

} // namespace

TEST_CASE("engine_control reads the channel count and the answer mode from the registers", "[engine_control]")
{
	fake_window w(2);
	coherent::engine_control c(w.map());
	CHECK(c.channels() == 2); // not the build constant CPU_CHANNELS (4)
	CHECK(c.exclusive());
	c.set_exclusive(false);
	CHECK(w.at(C::CONFIG) == 0x100);
	CHECK(!c.exclusive());
	c.set_exclusive(true);
	CHECK(w.at(C::CONFIG) == (0x100 | C::CFG_EXCLUSIVE));
}

TEST_CASE("engine_control refuses what is not our engine's control block", "[engine_control]")
{
	SECTION("an I/O window that reads zeros")
	{
		fake_window w;
		w.at(C::ID) = 0;
		const auto m = message_of(w);
		CHECK_THAT(m, Catch::Contains("kmod:eci1") && Catch::Contains("0x00000000") &&
				      Catch::Contains("COHE"));
	}
	SECTION("an engine before 3.1 has no CHANNELS register")
	{
		fake_window w;
		w.at(C::VERSION) = 3u << 16;
		CHECK_THAT(message_of(w), Catch::Contains("3.0") && Catch::Contains("CHANNELS"));
	}
	SECTION("another major version speaks other control words")
	{
		fake_window w;
		w.at(C::VERSION) = 2u << 16 | 5;
		CHECK_THAT(message_of(w), Catch::Contains("2.5"));
	}
	SECTION("a window smaller than the block")
	{
		fake_window w;
		CHECK_THROWS_MATCHES(coherent::engine_control(w.map(0x20)), error,
				     Catch::Predicate<error>([](const error &e) { return e.code() == errc::out_of_range; }));
	}
}
