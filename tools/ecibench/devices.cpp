// The devices ecibench runs on: see devices.hpp.
#include "devices.hpp"

#include <pioc/coherent/port.hpp>

#include <fmt/format.h>

namespace ecibench {

device_choice classify(std::string_view spec)
{
	if (spec == "sim:eci")
		return {"sim:eci", device_kind::model};
	if (spec == "rtl:coh")
		return {"rtl:coh", device_kind::rtl};
	if (spec == "cores")
		return {"cores", device_kind::cores};
	// A module's ECI window: "eci0", "/dev/pioc/eci0" or "kmod:eci0".
	std::string_view name = spec;
	if (name.rfind("kmod:", 0) == 0)
		name = name.substr(5);
	if (auto slash = name.rfind('/'); slash != std::string_view::npos)
		name = name.substr(slash + 1);
	if (name.rfind("eci", 0) == 0 && name.size() > 3 &&
	    name.find_first_not_of("0123456789", 3) == std::string_view::npos)
		return {fmt::format("kmod:{}", name), device_kind::window};
	throw usage_error(fmt::format("--device {}: not a coherent device (sim:eci, rtl:coh, kmod:eciN, or cores "
				      "for queue and pingpong)",
				      spec));
}

void device_options::add(command_line &c, const std::string &help, const std::string &fallback, bool engine_alias)
{
	pioc::tool::show_default(c.add_text("--device,-d", "SPEC", help, device), fallback);
	c.add_text("--window", "PATH", "a module's ECI window (eci0, /dev/pioc/eci0): the same as --device kmod:eci0",
		   window);
	if (engine_alias)
		c.add_text("--engine", "E", "model: the same as --device sim:eci; rtl: --device rtl:coh", engine);
}

device_choice device_options::resolve(const command_line &c, std::string_view fallback) const
{
	if (c.given("--window") && c.given("--device"))
		throw usage_error(fmt::format("--window {}: the same as --device kmod:{}; give one of them", window,
					      window));
	device_choice d = classify(c.given("--window")   ? std::string_view(window)
				   : c.given("--device") ? std::string_view(device)
							 : fallback);
	if (c.given("--window") && d.kind != device_kind::window)
		throw usage_error(fmt::format("--window {}: not an ECI window (eciN, /dev/pioc/eciN)", window));
	if (!c.given("--engine"))
		return d;
	if (engine != "model" && engine != "rtl")
		throw usage_error(fmt::format("--engine {}: expected model or rtl", engine));
	if (d.kind == device_kind::window) {
		if (engine == "model")
			return d; // the default engine: nothing chosen
		throw usage_error(fmt::format("--engine {}: chooses the simulated device; with --window the device "
					      "is the hardware",
					      engine));
	}
	const device_choice e = engine == "rtl" ? device_choice{"rtl:coh", device_kind::rtl}
						: device_choice{"sim:eci", device_kind::model};
	if (c.given("--device") && e.kind != d.kind)
		throw usage_error(fmt::format("--engine {}: contradicts --device {}", engine, device));
	return e;
}

nlohmann::json model_params(const pioc::sim::eci::config &c)
{
	return {{"link_ns", c.link_ns},
		{"dir_msg_ns", c.dir_msg_ns},
		{"dir_occupancy_ns", c.dir_occupancy_ns},
		{"dir_slices", c.dir_slices},
		{"line", c.line_size}};
}

void add_link_counts(pioc::bench::result &r, const pioc::sim::eci::counters &d, std::uint64_t ops)
{
	r.extra["messages_per_op"] = double(d.link_messages()) / double(ops);
	r.extra["round_trips_per_op"] = double(d.round_trips) / double(ops);
}

pioc::device_info pin_info(const device_choice &d)
{
	pioc::device_info i;
	i.spec = d.spec;
	i.transport = d.kind == device_kind::window ? "kmod" : d.kind == device_kind::cores ? "shared memory" : "sim";
	i.simulated = d.simulated();
	i.description = d.simulated() ? "modelled Enzian ECI (ThunderX-1 L2 + FPGA directory)" : "ECI window";
	return i;
}

} // namespace ecibench
