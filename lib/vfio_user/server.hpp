// A vfio-user device server for one pioc device model or Verilated image:
// turns the client's requests into transactions on the same sim::target the
// in-process backends drive, and the model's interrupts into the client's
// eventfds. Socket-free: the tool (tools/pioc-devd) feeds it messages, the
// unit tests feed it byte strings.
#pragma once

#include "vfio_user/dma_messages.hpp"
#include "vfio_user/dma_space.hpp"
#include "vfio_user/pci_config.hpp"
#include "vfio_user/protocol.hpp"

#include <pioc/sim/target.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace pioc::xdma {
class sim_control;
}

namespace pioc::vfio_user {

/** What a reply carries: the message and the descriptors passed with it. */
struct reply {
	message msg;
	std::vector<int> fds;
};

class device_server {
public:
	using factory = std::function<std::unique_ptr<sim::target>()>;
	/** Serves a model made by @p make (again on a reset of a model without a
	 *  function-reset of its own) under the identity @p id. @p clock gives
	 *  simulated nanoseconds (pioc-devd: a virtual clock moved per request
	 *  and to the model's next event while the client is quiet); by default
	 *  wall-clock time since construction. */
	device_server(factory make, pci_identity id, std::function<std::uint64_t()> clock = {});
	~device_server();

	/** Answers one request; nullopt when the client asked for no reply.
	 *  Descriptors the request carried are consumed or closed. */
	std::optional<reply> handle(message &req);

	/** Lets the model run up to the clock's now (engines, interrupts). */
	void tick();
	/** Simulated time of the model's next event, UINT64_MAX if none. */
	std::uint64_t next_event_ns() const noexcept;
	/** The clock's now, never behind the model's time. */
	std::uint64_t now_ns();

	/** The connection's socket, for the DMA_READ/DMA_WRITE messages the
	 *  model's accesses to descriptor-less regions become. Without one those
	 *  regions are recorded but unreachable. */
	void attach(int sock) noexcept { dma_msgs_.attach(sock); }
	/** A request that arrived while the server waited for a DMA reply; the
	 *  connection's loop handles these before reading the socket again. */
	std::optional<message> take_deferred() { return dma_msgs_.take_deferred(); }
	const dma_messages &dma_msgs() const noexcept { return dma_msgs_; }

	bool negotiated() const noexcept { return negotiated_; }
	const pci_config &config() const noexcept { return config_; }
	const dma_space &dma() const noexcept { return dma_; }
	sim::target &model() noexcept { return *model_; }
	/** Counters: accesses the model refused (answered like an unsupported request). */
	std::uint64_t refused_accesses() const noexcept { return refused_; }
	/** Function resets done (DEVICE_RESET or the guest's FLR). */
	std::uint64_t resets() const noexcept { return resets_; }
	/** Of those, the ones the guest asked for with an FLR. */
	std::uint64_t flr_resets() const noexcept { return flr_resets_; }

private:
	reply do_version(const message &req);
	reply do_device_info(const message &req);
	reply do_region_info(const message &req);
	reply do_irq_info(const message &req);
	reply do_set_irqs(message &req);
	reply do_region_rw(const message &req, bool write);
	reply do_reset(const message &req);
	void function_reset();
	void bar_access(unsigned bar, std::uint64_t off, std::uint8_t *data, std::size_t len, bool write);
	void rebind_irqs();
	void close_irq(unsigned index) noexcept;

	factory make_;
	pci_identity id_;
	std::function<std::uint64_t()> clock_;
	std::unique_ptr<sim::target> model_;
	xdma::sim_control *ctl_ = nullptr;
	pci_config config_;
	dma_messages dma_msgs_; ///< before dma_: outlives the host_memory ranges that point to it
	dma_space dma_{&dma_msgs_};
	bool negotiated_ = false;
	std::uint64_t now_ = 0;
	std::uint64_t refused_ = 0, resets_ = 0, flr_resets_ = 0;
	/** Per IRQ index, per vector: the client's eventfd, -1 if none. */
	std::array<std::vector<int>, num_irqs> irq_fds_;
	unsigned active_irq_ = irq_msix;
};

} // namespace pioc::vfio_user
