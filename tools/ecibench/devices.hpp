/** @file
 * The devices ecibench runs on, and how a command line names them. Every
 * coherent device opens through pioc::device::open and reaches the drivers
 * through device::coherent() (pioc/coherent/port.hpp):
 *   sim:eci      the modelled Enzian (SIMULATED time)
 *   rtl:coh      the model with the Verilated coherent engine (SIMULATED; -DPIOC_RTL=ON)
 *   kmod:eciN    a pioc module's ECI window (eciN and /dev/pioc/eciN too; measured)
 *   cores        no device: two cores of this machine on the heap (queue, pingpong)
 * Old spellings stay: --window W is --device kmod:W, --engine rtl is
 * --device rtl:coh, queue --peer device is --device sim:eci.
 */
#pragma once

#include "options.hpp"

#include <pioc/bench/report.hpp>
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ecibench {

enum class device_kind { model, rtl, window, cores };

/** A --device as given, resolved before anything is opened. */
struct device_choice {
	std::string spec;  ///< what device::open takes ("kmod:eci0"); "cores" for none
	device_kind kind;
	bool simulated() const noexcept { return kind == device_kind::model || kind == device_kind::rtl; }
};

/** Classifies @p spec ("sim:eci", "rtl:coh", "eci0", "/dev/pioc/eci0",
 *  "kmod:eci0", "cores"); usage_error naming --device for anything else. */
device_choice classify(std::string_view spec);

/** The --device option and its old spellings, as one command registers them. */
struct device_options {
	std::string device, window, engine;
	/** Adds --device/-d (@p help lists what this command runs on, @p fallback
	 *  is its default), --window and, with @p engine_alias, --engine. */
	void add(command_line &c, const std::string &help, const std::string &fallback, bool engine_alias);
	/** The device the options name; @p fallback when none is given. */
	device_choice resolve(const command_line &c, std::string_view fallback) const;
};

/** Runs @p f, a setting of the device; a setting the device refuses
 *  (errc::not_supported, invalid_argument) becomes a usage error naming
 *  @p option, the device's reason after it. */
template <class F> decltype(auto) device_setting(const std::string &option, F &&f)
{
	try {
		return f();
	} catch (const pioc::error &e) {
		if (e.code() != pioc::errc::not_supported && e.code() != pioc::errc::invalid_argument)
			throw;
		throw usage_error(option + ": " + e.what());
	}
}

/** The model's parameters a simulated report carries, read from the model
 *  the run used (FITTED / ASSUMED: see sim::eci::config). */
nlohmann::json model_params(const pioc::sim::eci::config &c);

/** Link messages and round trips per timed operation (simulated results). */
void add_link_counts(pioc::bench::result &r, const pioc::sim::eci::counters &d, std::uint64_t ops);

/** device_info for pinning the timing thread (no NUMA node: any core). */
pioc::device_info pin_info(const device_choice &d);

} // namespace ecibench
