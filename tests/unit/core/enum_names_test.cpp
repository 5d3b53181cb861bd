// enum_names.hpp: one table gives both directions with one parse contract.
#include <pioc/coherent/proto.hpp>
#include <pioc/enum_names.hpp>
#include <pioc/mem_type.hpp>
#include <pioc/pio.hpp>
#include <pioc/wide.hpp>

#include <catch2/catch.hpp>

using namespace pioc;

namespace {
enum class shade { light, dark, unnamed };
constexpr enum_name<shade> shade_names[] = {{shade::light, "light"}, {shade::dark, "dark"}, {shade::dark, "night"}};
} // namespace

TEST_CASE("enum names: a table gives the name and the value, case ignored")
{
	STATIC_REQUIRE(name_of(shade_names, shade::light) == "light");
	// The first row of a value is its name; later rows are aliases for parsing.
	REQUIRE(name_of(shade_names, shade::dark) == "dark");
	REQUIRE(name_of(shade_names, shade::unnamed) == "?");
	REQUIRE(parse_name(shade_names, "NIGHT") == shade::dark);
	REQUIRE(parse_name(shade_names, "Light") == shade::light);
	REQUIRE(!parse_name(shade_names, "ligh"));
	REQUIRE(!parse_name(shade_names, ""));
}

TEST_CASE("enum names: a failed parse names the value and every accepted name")
{
	REQUIRE(accepted_names(shade_names) == "light, dark, night");
	REQUIRE(unknown_name(shade_names, "dim", "shade") == "shade 'dim' is not one of light, dark, night");
	try {
		parse_name_or_throw(shade_names, "dim", "shade");
		FAIL("no exception");
	} catch (const error &e) {
		REQUIRE(e.code() == errc::invalid_argument);
		REQUIRE(std::string(e.what()) == "shade 'dim' is not one of light, dark, night");
	}
	REQUIRE(parse_name_or_throw(shade_names, "dark", "shade") == shade::dark);
}

TEST_CASE("enum names: every library table round-trips and has no name twice")
{
	auto round_trip = [](const auto &table) {
		for (const auto &row : table) {
			REQUIRE(parse_name(table, name_of(table, row.value)) == row.value);
			for (const auto &other : table)
				if (&other != &row)
					REQUIRE(!detail::equal_ignoring_ascii_case(other.name, row.name));
		}
	};
	round_trip(mem_type_names);
	round_trip(wide_isa_names);
	round_trip(pio::op_names);
	round_trip(coherent::variant_names);
	// The aliases the tools took before the tables, still accepted.
	REQUIRE(coherent::parse_variant("cpu-cpu") == coherent::variant::cpu_cpu);
	REQUIRE(coherent::parse_variant("d") == coherent::variant::dev_cpu);
	REQUIRE(to_string(coherent::variant::dev_dev) == "5b");
	REQUIRE(pio::parse_op("NOT") == pio::op::bit_not);
	REQUIRE(to_string(pio::op::bit_not) == "not");
	REQUIRE(parse_mem_type("Wb") == mem_type::wb);
	REQUIRE(to_string(errc::device_gone) == "device_gone");
}
