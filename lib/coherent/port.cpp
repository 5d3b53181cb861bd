// coherent::port: what each kind of coherent device refuses, and the
// hardware kind, a window of the pioc module mapped write-back. The simulated
// kinds live beside the other simulated transports (lib/transport).
#include <pioc/coherent/port.hpp>
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/io.hpp>

#include <fmt/format.h>

namespace pioc::coherent {

void port::refuse(std::string_view what, std::string_view why) const
{
	throw error(errc::not_supported, fmt::format("{}: {}: {}", spec_, what, why));
}

namespace {
constexpr std::string_view on_hardware = "a hardware window has no model (its lines are the module's "
					 "ECI window, mapped write-back: map_window())";
} // namespace

void port::set_line_size(std::uint32_t) { refuse("line size", "the hardware's cache line is fixed; " + std::string(on_hardware)); }
const sim::eci::config &port::model() const { refuse("model parameters", on_hardware); }
sim::eci::system &port::system() { refuse("simulated system", on_hardware); }
invocation_engine &port::start_invocations(const engine_setup &)
{
	refuse("starting an invocation engine", "the image's engine runs on the device; address its channels "
						"in the window (regs::coh_dev)");
}
queue_rings port::start_queue(std::uint32_t)
{
	refuse("starting a queue engine", "the image's device side is fixed; put the rings in the window");
}
window port::map_window(std::uint64_t)
{
	refuse("mapping a window", "a simulated device's lines live in its model: drive them with "
				   "eci_sim_lines over system()");
}

namespace {

/** A module's coherent ECI window (or any device that grants a write-back
 *  mapping of BAR 0: only those are). */
class window_port final : public port {
public:
	window_port(std::shared_ptr<transport> t, region r)
		: port(t->info().spec), t_(std::move(t)), map_(std::move(r))
	{
	}
	bool simulated() const noexcept override { return false; }
	std::string_view engine_kind() const noexcept override { return "hardware"; }
	window map_window(std::uint64_t bytes) override
	{
		if (bytes > map_.size())
			throw error(errc::out_of_range, fmt::format("{}: {} bytes asked of a {}-byte window", spec(),
								    bytes, map_.size()));
		return {std::get<mmio_io>(map_.io()).base(), bytes ? bytes : map_.size()};
	}

private:
	std::shared_ptr<transport> t_;
	region map_;
};

} // namespace
} // namespace pioc::coherent

namespace pioc {

coherent::port &device::coherent()
{
	if (auto *p = t_->coherent_port())
		return *p;
	if (!window_) {
		region r = [&] {
			try {
				return t_->map_bar(0, mem_type::wb);
			} catch (const error &e) {
				throw error(e.code(), fmt::format("{}: not a coherent device (a coherent ECI window "
								  "maps write-back): {}",
								  spec(), e.what()));
			}
		}();
		if (!std::holds_alternative<mmio_io>(r.io()))
			throw error(errc::not_supported, fmt::format("{}: not a coherent device: BAR 0 is not "
								     "memory of this process",
								     spec()));
		window_ = std::make_shared<coherent::window_port>(t_, std::move(r));
	}
	return *window_;
}

} // namespace pioc
