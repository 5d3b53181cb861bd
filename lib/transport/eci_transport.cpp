// The simulated coherent devices: "sim:eci" (the modelled Enzian with the
// behavioral engines) and "rtl:coh" (the same model, the Verilated coherent
// invocation engine as its device side). device::open() finds them in the
// simulated-device registry (sim_transport.cpp); device::coherent() hands
// their port to the coherent drivers, so no tool builds a simulator itself.
#include "transport/eci_transport.hpp"

#include <pioc/coherent/port.hpp>
#include <pioc/error.hpp>
#include <pioc/sim/eci.hpp>
#include <pioc/sim/eci_cq.hpp>
#include <pioc/sim/eci_engine.hpp>

#include "sim/nic/eci_nic_model.hpp"

#ifdef PIOC_HAVE_RTL
#include "coh_rtl_engine.hpp"
#include "nic_eci_rtl_engine.hpp"
#endif

#include <fmt/format.h>

#include <memory>

namespace pioc::detail {
namespace {

/** The model and its device side: one engine per opened device. */
class eci_sim_port : public coherent::port {
public:
	explicit eci_sim_port(std::string spec) : port(std::move(spec)) {}
	bool simulated() const noexcept override { return true; }

	void set_line_size(std::uint32_t bytes) override
	{
		if (sys_)
			refuse(fmt::format("line size {}", bytes), "set it before the system is used");
		if (bytes < 16 || bytes > 4096 || (bytes & (bytes - 1)))
			throw error(errc::invalid_argument, fmt::format("{}: line size {}: a power of two, 16..4096",
									spec(), bytes));
		cfg_.line_size = bytes;
	}
	const sim::eci::config &model() const override { return sys_ ? sys_->cfg() : cfg_; }
	sim::eci::system &system() override
	{
		if (!sys_)
			sys_ = std::make_unique<sim::eci::system>(cfg_);
		return *sys_;
	}

protected:
	/** Before attaching an engine: the system exists, no engine runs yet. */
	sim::eci::system &fresh_system(std::string_view what)
	{
		if (started_)
			refuse(what, "the device already runs an engine (open the device again for another run)");
		started_ = true;
		return system();
	}

private:
	sim::eci::config cfg_;
	std::unique_ptr<sim::eci::system> sys_;
	bool started_ = false;
};

/** The behavioral Fig. 5 engine (sim::eci::proto_engine). */
class model_invocations final : public coherent::invocation_engine {
public:
	model_invocations(sim::eci::system &sys, sim::eci::engine_config c) : e_(sys, std::move(c)) {}
	std::uint64_t window_base() const noexcept override { return e_.window_base(); }
	coherent::layout channel_layout(std::uint32_t ch) const override { return e_.channel_layout(ch); }
	void post(std::uint32_t ch, std::vector<std::uint8_t> m) override { e_.post(ch, std::move(m)); }

private:
	sim::eci::proto_engine e_;
};

/** "sim:eci": the behavioral engines, any variant, line size, pipelining. */
class eci_model_port final : public eci_sim_port {
public:
	using eci_sim_port::eci_sim_port;
	std::string_view engine_kind() const noexcept override { return "model"; }

	coherent::invocation_engine &start_invocations(const coherent::engine_setup &s) override
	{
		auto &sys = fresh_system("starting an invocation engine");
		sim::eci::engine_config ec;
		ec.v = s.v;
		ec.answer_exclusive = s.exclusive;
		ec.data_lines = s.data_lines;
		ec.channels = s.channels;
		inv_ = std::make_unique<model_invocations>(sys, std::move(ec));
		return *inv_;
	}
	coherent::queue_rings start_queue(std::uint32_t entries) override
	{
		auto &sys = fresh_system("starting a queue engine");
		sim::eci::cq_config qc;
		qc.entries = entries;
		cq_ = std::make_unique<sim::eci::cq_engine>(sys, qc);
		return {cq_->to_device_base(), cq_->from_device_base()};
	}

private:
	std::unique_ptr<model_invocations> inv_;
	std::unique_ptr<sim::eci::cq_engine> cq_;
};

/** An ECI NIC as the device side from the first use of the system on, its
 *  window fpga/regmap/nic_eci.toml: "sim:nic_eci" (Nic = the model,
 *  sim::nic::eci_nic_model), "rtl:nic_eci" and "rtl:nic_eci_lines" (the
 *  Verilated image, rtl::nic_eci_rtl_engine, with its RX and TX banks pins
 *  high or low). @p make builds the Nic on the system. */
template <class Nic> class eci_nic_port final : public eci_sim_port {
public:
	using maker = std::unique_ptr<Nic> (*)(sim::eci::system &);
	eci_nic_port(std::string spec, std::string_view kind, maker make)
		: eci_sim_port(std::move(spec)), kind_(kind), make_(make)
	{
	}
	std::string_view engine_kind() const noexcept override { return kind_; }

	void set_line_size(std::uint32_t bytes) override
	{
		if (bytes != 128)
			refuse(fmt::format("line size {}", bytes), "the ECI NIC's lines are 128 bytes");
		eci_sim_port::set_line_size(bytes);
	}
	sim::eci::system &system() override
	{
		auto &sys = eci_sim_port::system();
		if (!nic_)
			nic_ = make_(sys);
		return sys;
	}
	coherent::invocation_engine &start_invocations(const coherent::engine_setup &) override
	{
		refuse("starting an invocation engine", "the NIC's engines run already (pioc::nic::eci_nic drives them)");
	}
	coherent::queue_rings start_queue(std::uint32_t) override
	{
		refuse("starting a queue engine", "the ECI NIC has no CNI queue engine");
	}

private:
	std::string_view kind_;
	maker make_;
	std::unique_ptr<Nic> nic_;
};

#ifdef PIOC_HAVE_RTL
/** The Verilated engine (rtl::coh_rtl_engine), Fig. 5a. */
class rtl_invocations final : public coherent::invocation_engine {
public:
	/** @p messages: Fig. 5b (the engine's device-initiated channel), else Fig. 5a. */
	rtl_invocations(sim::eci::system &sys, rtl::coh_rtl_engine::options o, bool messages)
		: e_(sys, o), messages_(messages)
	{
	}
	std::uint64_t window_base() const noexcept override { return e_.window_base(); }
	coherent::layout channel_layout(std::uint32_t ch) const override
	{
		return messages_ ? e_.message_layout() : e_.channel_layout(ch);
	}
	void post(std::uint32_t, std::vector<std::uint8_t> m) override
	{
		if (!messages_)
			throw error(errc::not_supported, "rtl:coh: posting a message needs variant 5b");
		e_.post(std::move(m)); // the engine refuses more than one line's payload
	}
	std::optional<std::uint64_t> cycles() const override { return e_.cycles(); }
	/** CPU-initiated channels, from the engine's CHANNELS register. */
	std::uint32_t channels() const noexcept { return e_.channels(); }

private:
	rtl::coh_rtl_engine e_;
	bool messages_;
};

/** "rtl:coh": what the RTL engine runs and the library's CPU side follows. */
class eci_rtl_port final : public eci_sim_port {
public:
	using eci_sim_port::eci_sim_port;
	std::string_view engine_kind() const noexcept override { return "rtl"; }

	void set_line_size(std::uint32_t bytes) override
	{
		if (bytes != regs::coh_dev::LINE_BYTES)
			refuse(fmt::format("line size {}", bytes),
			       fmt::format("the RTL engine's lines are {} bytes", regs::coh_dev::LINE_BYTES));
		eci_sim_port::set_line_size(bytes);
	}
	coherent::invocation_engine &start_invocations(const coherent::engine_setup &s) override
	{
		if (!coherent::device_homed(s.v))
			refuse(fmt::format("variant {}", coherent::to_string(s.v)),
			       "the RTL engine is device-homed: it runs Fig. 5a and Fig. 5b (5c and 5d only on sim:eci)");
		if (s.data_lines)
			refuse("pipelined mode", "the RTL engine has no data banks (line by line only)");
		auto &sys = fresh_system("starting an invocation engine");
		rtl::coh_rtl_engine::options o;
		o.exclusive = s.exclusive;
		auto inv = std::make_unique<rtl_invocations>(sys, o, !coherent::cpu_initiated(s.v));
		if (s.channels > inv->channels())
			refuse(fmt::format("{} channels", s.channels),
			       fmt::format("the RTL engine's CHANNELS register reports {} CPU-initiated channels",
					   inv->channels()));
		inv_ = std::move(inv);
		return *inv_;
	}
	coherent::queue_rings start_queue(std::uint32_t) override
	{
		refuse("starting a queue engine", "the coherent engine's image has no CNI queue engine (sim:eci has)");
	}

private:
	std::unique_ptr<rtl_invocations> inv_;
};
#endif

/** A simulated coherent device as a transport: no BARs, a port. */
class eci_transport final : public transport {
public:
	eci_transport(device_info info, std::unique_ptr<coherent::port> p) : info_(std::move(info)), port_(std::move(p)) {}
	std::string_view name() const noexcept override { return info_.transport; }
	bool simulated() const noexcept override { return true; }
	const device_info &info() const noexcept override { return info_; }
	coherent::port *coherent_port() noexcept override { return port_.get(); }
	region map_bar(unsigned bar, mem_type) override
	{
		throw error(errc::not_supported, fmt::format("{}: BAR{}: a coherent device has no BARs; its lines are "
							     "reached through device::coherent()",
							     info_.spec, bar));
	}

private:
	device_info info_;
	std::unique_ptr<coherent::port> port_;
};

} // namespace

std::shared_ptr<transport> open_eci_model(device_info info)
{
	auto spec = info.spec;
	return std::make_shared<eci_transport>(std::move(info), std::make_unique<eci_model_port>(std::move(spec)));
}

/** An ECI NIC device: @p make builds its device side (model or image) on the system. */
template <class Nic>
std::shared_ptr<transport> open_eci_nic(device_info info, std::string_view kind,
					typename eci_nic_port<Nic>::maker make)
{
	auto spec = info.spec;
	return std::make_shared<eci_transport>(std::move(info),
					       std::make_unique<eci_nic_port<Nic>>(std::move(spec), kind, make));
}

std::shared_ptr<transport> open_eci_nic_model(device_info info)
{
	return open_eci_nic<sim::nic::eci_nic_model>(std::move(info), "model", [](sim::eci::system &sys) {
		return std::make_unique<sim::nic::eci_nic_model>(sys);
	});
}

#ifdef PIOC_HAVE_RTL
std::shared_ptr<transport> open_eci_rtl(device_info info)
{
	auto spec = info.spec;
	return std::make_shared<eci_transport>(std::move(info), std::make_unique<eci_rtl_port>(std::move(spec)));
}

std::shared_ptr<transport> open_eci_nic_rtl(device_info info)
{
	return open_eci_nic<rtl::nic_eci_rtl_engine>(std::move(info), "rtl", [](sim::eci::system &sys) {
		return std::make_unique<rtl::nic_eci_rtl_engine>(sys);
	});
}

std::shared_ptr<transport> open_eci_nic_rtl_lines(device_info info)
{
	return open_eci_nic<rtl::nic_eci_rtl_engine>(std::move(info), "rtl", [](sim::eci::system &sys) {
		rtl::nic_eci_rtl_engine::options o;
		o.rx_banks = o.tx_banks = false;
		return std::make_unique<rtl::nic_eci_rtl_engine>(sys, o);
	});
}
#endif

} // namespace pioc::detail
