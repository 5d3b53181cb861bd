// hello_eci: one coherent invocation (paper Fig. 5a) on the modelled Enzian.
// The CPU writes its request into one cache line and loads the other; the
// device, which is home of both lines, holds that load until its answer is
// in the line. No doorbell, no spinning: two cache-line exchanges.
#include <pioc/pioc.hpp>
// No board yet: the modelled Enzian (ECI link, caches, the device) and the
// line policy that routes the CPU's accesses through it, from the simulator.
#include <pioc/sim/eci_engine.hpp>
#include <pioc/sim/eci_lines.hpp>

#include <cstdio>
#include <cstring>

int main()
{
	pioc::sim::eci::system enzian; // CPU caches, directory, ECI link (modelled)
	pioc::sim::eci::engine_config cfg; // Fig. 5a: CPU-initiated, lines homed on the device
	cfg.handler = [](const std::uint8_t *req, std::size_t n, std::uint8_t *resp, std::size_t) {
		for (std::size_t i = 0; i < n; ++i) // the device's function: reverse the bytes
			resp[i] = req[n - 1 - i];
		return n;
	};
	pioc::sim::eci::proto_engine device(enzian, cfg);
	enzian.cpu_spend(5000); // let the device come out of reset

	// The CPU side is the same code that runs on a real coherent mapping.
	pioc::coherent::eci_sim_lines lines(enzian, device.window_base());
	pioc::coherent::invoker inv(lines, device.channel_layout(0));

	const char req[] = "olleh";
	char resp[sizeof req] = {};
	const double t0 = enzian.now();
	const std::size_t n = inv.call(req, 5, resp, sizeof resp);
	const bool ok = n == 5 && std::memcmp(resp, "hello", 5) == 0;
	std::printf("hello_eci: sent \"%s\", got \"%s\" in %.0f ns of SIMULATED time: %s\n", req, resp,
		    enzian.now() - t0, ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}
