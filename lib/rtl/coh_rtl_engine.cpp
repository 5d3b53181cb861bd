// The Verilated coherent invocation engine behind the ECI simulator's
// device_engine interface (see coh_rtl_engine.hpp).
#include "coh_rtl_engine.hpp"

#include <pioc/bloom_hash.hpp>
#include <pioc/error.hpp>
#include <pioc/regs/pio_dev.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pioc::rtl {

namespace C = pioc::regs::coh_dev;
namespace P = pioc::regs::pio_dev;
using coherent::ctrl;
using coherent::kind;

static_assert(C::LINE1_OFF == C::LINE_BYTES, "the library's layout puts line B one line after A");
static_assert(C::MESSAGE_MAX == coherent::max_message, "the engine's buffers hold the library's largest message");
static_assert(C::PAYLOAD_MAX == C::LINE_BYTES - coherent::ctrl_bytes, "a chunk is a line after the control word");

namespace {
// Engine cycles the model's compute time stands for (calibrated against the
// RTL behind the same simulator, tests/rtl/test_coh_rtl_engine.cpp): from the
// LCI's acknowledgement through the write-back, the function unit and the
// answer register, plus the cycles of issuing the LCI and the answer.
constexpr double fixed_cycles = 8.5; // 7.5 before the cycle that examines the pulled word (signal rule)
constexpr double bloom_cycles = 64; // the Bloom pipeline's latency (instead of 1 cycle)
} // namespace

coh_rtl_engine::coh_rtl_engine(sim::eci::system &sys, options o)
	: sys_(sys), ctx_(sys), o_(o), period_(1000.0 / double(C::clock_mhz))
{
	if (sys.cfg().line_size != C::LINE_BYTES)
		throw error(errc::invalid_argument,
			    fmt::format("rtl coherent engine: the engine's lines are {} bytes, the simulated CPU's {}",
					C::LINE_BYTES, sys.cfg().line_size));
	if (sys.cfg().device_bytes < window_bytes)
		throw error(errc::invalid_argument,
			    fmt::format("rtl coherent engine: the device-homed window ({} bytes) is smaller than the "
					"engine's {} bytes",
					sys.cfg().device_bytes, window_bytes));
	if (double(o.timeout_cycles) * period_ >= sys.cfg().timeout_ns)
		throw error(errc::invalid_argument,
			    fmt::format("rtl coherent engine: TIMEOUT {} cycles ({:.0f} ns) is not before the CPU's "
					"machine check ({:.0f} ns)",
					o.timeout_cycles, double(o.timeout_cycles) * period_, sys.cfg().timeout_ns));
	make_engine();
	sys_.attach(this);
}

coh_rtl_engine::~coh_rtl_engine()
{
	if (sys_.engine() == this)
		sys_.attach(nullptr);
}

void coh_rtl_engine::make_engine()
{
	if (rtl_) {
		cycles_before_ += rtl_->cycle();
		evaluated_before_ += rtl_->evaluated();
	}
	rtl_ = std::make_unique<coh_engine_rtl>(coh_engine_rtl::options{o_.seed + gen_, o_.stall_percent, o_.skip_idle});
	configure();
	channels_ = rtl_->ctrl_read(static_cast<std::uint32_t>(C::CHANNELS.offset));
	if (channels_ == 0 || channels_ > cpu_channels)
		fail(errc::device_error, fmt::format("CHANNELS reads {}: this host code lays out at most {} channels",
						     channels_, cpu_channels));
}

void coh_rtl_engine::configure()
{
	if (rtl_->ctrl_read(static_cast<std::uint32_t>(C::ID.offset)) != C::id_value)
		fail(errc::device_error, "the control block does not read ID = COHE");
	rtl_->ctrl_write(static_cast<std::uint32_t>(C::CONFIG.offset), o_.exclusive ? std::uint32_t(C::CFG_EXCLUSIVE) : 0u);
	rtl_->ctrl_write(static_cast<std::uint32_t>(C::OP.offset), o_.op);
	rtl_->ctrl_write(static_cast<std::uint32_t>(C::TIMEOUT.offset), o_.timeout_cycles);
	rtl_->ctrl_write(static_cast<std::uint32_t>(C::DELAY.offset), o_.delay_cycles);
}

void coh_rtl_engine::fail(errc c, const std::string &what) const
{
	throw error(c, fmt::format("rtl coherent engine (cycle {}, {:.1f} ns): {}", cycles(), sys_.now(), what));
}

coherent::layout coh_rtl_engine::channel_layout(std::uint32_t ch) const
{
	if (ch >= channels_)
		throw error(errc::out_of_range,
			    fmt::format("rtl coherent engine: CPU-initiated channel {} (its CHANNELS register says {})",
					ch, channels_));
	auto l = coherent::layout::for_channel(window_bytes, C::LINE_BYTES, ch, C::CHANNEL_STRIDE);
	l.check_tads(sys_.cfg().tads);
	return l;
}

coherent::layout coh_rtl_engine::message_layout() const
{
	auto l = coherent::layout::for_channel(window_bytes, C::LINE_BYTES, channels_, C::CHANNEL_STRIDE);
	l.check_tads(sys_.cfg().tads);
	return l;
}

void coh_rtl_engine::post(std::vector<std::uint8_t> m, double at)
{
	if (m.empty() || m.size() > coherent::max_message)
		throw error(errc::out_of_range, fmt::format("rtl coherent engine: message of {} bytes (1..{})", m.size(),
							    coherent::max_message));
	if (m.size() > max_payload)
		throw error(errc::not_supported,
			    fmt::format("rtl coherent engine: message of {} bytes; the RTL carries at most {} bytes "
					"(one line, no multi-chunk messages)",
					m.size(), max_payload));
	if (at < ctx_.now())
		at = ctx_.now();
	// The message's producer is not the engine: a restart in between
	// (restart()) does not take it back.
	ctx_.at(at, [this, m = std::move(m)] {
		rtl_->push_message(m.data(), m.size());
		kick();
	});
}

void coh_rtl_engine::set_op(std::uint32_t op)
{
	o_.op = op;
	ctrl_write(static_cast<std::uint32_t>(C::OP.offset), op);
}
void coh_rtl_engine::set_exclusive(bool on)
{
	o_.exclusive = on;
	ctrl_write(static_cast<std::uint32_t>(C::CONFIG.offset), on ? std::uint32_t(C::CFG_EXCLUSIVE) : 0u);
}
void coh_rtl_engine::set_timeout_cycles(std::uint32_t c)
{
	if (double(c) * period_ >= sys_.cfg().timeout_ns)
		throw error(errc::invalid_argument,
			    fmt::format("rtl coherent engine: TIMEOUT {} cycles is not before the CPU's machine check", c));
	o_.timeout_cycles = c;
	ctrl_write(static_cast<std::uint32_t>(C::TIMEOUT.offset), c);
}
void coh_rtl_engine::set_delay_cycles(std::uint32_t c)
{
	o_.delay_cycles = c;
	ctrl_write(static_cast<std::uint32_t>(C::DELAY.offset), c);
}

std::uint32_t coh_rtl_engine::ctrl_read(std::uint32_t off) { return rtl_->ctrl_read(off); }
void coh_rtl_engine::ctrl_write(std::uint32_t off, std::uint32_t v)
{
	rtl_->ctrl_write(off, v);
	kick(); // events the engine produced meanwhile
}

void coh_rtl_engine::restart()
{
	++gen_;
	rtl_->reset(); // the same design: what it does not reset keeps its content
	configure();   // the control block is reset
	writes_.clear();
	known_.clear();
	lci_out_.clear(); // their LCIA, when it comes, unlocks the line (stale generation)
	for (auto a : locked_)
		ctx_.unlock(a);
	locked_.clear();
	// The engine's reset clears its state, not its line storage (block RAM
	// on the device). Write-backs queued at the reset were dropped, so the
	// lines are written again from the directory's copy; the reads the
	// directory still holds are presented once that is done (a re-read
	// after a reset must find an answer the CPU may still be copying,
	// Documentation/protocols.md).
	for (std::uint32_t ch = 0; ch <= cpu_channels; ++ch)
		for (std::uint64_t k = 0; k < 2; ++k)
			write_back(ch * C::CHANNEL_STRIDE + k * C::LINE1_OFF, false);
	restoring_ = true;
	kick();
}

void coh_rtl_engine::restored()
{
	restoring_ = false;
	for (const auto &[id, r] : reads_) // the directory still holds these
		rtl_->read_request(id, r.addr, r.excl);
	kick();
}

std::uint64_t coh_rtl_engine::cycles() const noexcept { return cycles_before_ + rtl_->cycle(); }
std::uint64_t coh_rtl_engine::evaluated_cycles() const noexcept { return evaluated_before_ + rtl_->evaluated(); }
double coh_rtl_engine::clock_mhz() const noexcept { return double(C::clock_mhz); }

std::uint32_t coh_rtl_engine::alloc_id(std::map<std::uint32_t, read_req> *r, std::map<std::uint32_t, write_req> *w,
				       const char *what)
{
	for (std::uint32_t id = 0; id < 64; ++id)
		if (r ? !r->count(id) : !w->count(id))
			return id;
	fail(errc::not_supported, fmt::format("more than 64 {} in flight (6-bit ids)", what));
}

void coh_rtl_engine::on_request(sim::eci::engine_ctx &, std::uint64_t addr, bool exclusive)
{
	if (addr >= window_bytes)
		fail(errc::out_of_range,
		     fmt::format("CPU request for line {:#x}, outside the engine's {}-byte window", addr, window_bytes));
	for (const auto &[id, r] : reads_)
		if (r.addr == addr)
			fail(errc::device_error,
			     fmt::format("a second CPU request for line {:#x} while read id {} is pending", addr, id));
	std::uint32_t id = alloc_id(&reads_, nullptr, "reads");
	reads_[id] = {addr, exclusive};
	++st_.reads;
	if (restoring_)
		return; // presented by restored()
	rtl_->read_request(id, addr, exclusive);
	kick();
}

void coh_rtl_engine::on_victim(sim::eci::engine_ctx &, std::uint64_t addr, bool dirty)
{
	if (!dirty || addr >= window_bytes)
		return; // a clean victim changes nothing at the engine; outside its window there is nothing
	write_back(addr, false);
}

void coh_rtl_engine::write_back(std::uint64_t addr, bool then_lcia)
{
	std::uint32_t id = alloc_id(nullptr, &writes_, "write-backs");
	writes_[id] = {addr, then_lcia};
	line d;
	std::memcpy(d.data(), ctx_.data(addr), d.size());
	++st_.write_backs;
	known_[addr] = d;
	rtl_->write_back(id, addr, d);
	kick();
}

void coh_rtl_engine::lcia(std::uint64_t addr)
{
	lci_out_.erase(addr);
	locked_.insert(addr);
	rtl_->local_ack(addr, true);
}

void coh_rtl_engine::check_pulled(std::uint64_t addr)
{
	// A request the CPU wrote into a CPU-initiated channel's line that the
	// RTL does not serve (it would answer SYNC_ACK): say so instead of a
	// protocol error.
	if (addr / C::CHANNEL_STRIDE >= cpu_channels || addr % C::CHANNEL_STRIDE >= 2 * C::LINE_BYTES)
		return;
	ctrl w;
	std::memcpy(&w.w, ctx_.data(addr), 8);
	if (!w.valid() || w.k() != kind::request)
		return;
	if (w.chunk() == coherent::pipelined_chunk)
		fail(errc::not_supported,
		     fmt::format("pipelined request of {} bytes (message {}, data banks) on line {:#x}: the RTL engine "
				 "carries messages in {}-byte chunks only (no pipelined mode)",
				 w.len(), w.seq(), addr, max_payload));
	if (std::uint64_t(w.chunk()) * max_payload + w.len() > max_message)
		fail(errc::out_of_range,
		     fmt::format("request chunk {} ({} bytes) of message {} on line {:#x}: beyond the RTL engine's "
				 "{}-byte message buffer",
				 w.chunk(), w.len(), w.seq(), addr, max_message));
}

void coh_rtl_engine::kick()
{
	if (ticking_)
		return;
	ticking_ = true;
	ctx_.at(ctx_.now(), [this] { tick(); });
}

void coh_rtl_engine::tick()
{
	rtl_->step();
	++st_.ticks;
	while (auto e = rtl_->next_event())
		handle(*e);
	if (!rtl_->protocol_errors().empty())
		fail(errc::device_error, "handshake violation on the engine's ports: " + rtl_->protocol_errors().front());
	if (rtl_->busy())
		ctx_.at(ctx_.now() + period_, [this] { tick(); });
	else
		ticking_ = false;
}

template <class T> T coh_rtl_engine::take(std::map<std::uint32_t, T> &m, std::uint32_t id, const char *what) const
{
	auto it = m.find(id);
	if (it == m.end())
		fail(errc::device_error, fmt::format("{} id {}, which is not pending", what, id));
	T v = it->second;
	m.erase(it);
	return v;
}

void coh_rtl_engine::handle(const coh_event &e)
{
	switch (e.type) {
	case coh_event::kind::read_data: {
		read_req r = take(reads_, e.id, "line data for read");
		if (r.excl && !e.flag)
			fail(errc::device_error,
			     fmt::format("line {:#x} granted Shared to an Exclusive request (id {})", r.addr, e.id));
		if (locked_.count(r.addr) || lci_out_.count(r.addr))
			fail(errc::device_error, fmt::format("line {:#x} answered while the engine holds it locked", r.addr));
		++st_.answers;
		ctrl w;
		std::memcpy(&w.w, e.data.data(), 8);
		if (!w.valid()) {
			// "Not ready" goes in the fill only (the engine's line keeps its
			// content): so does the home copy, as in proto_engine::transient().
			line kept;
			std::memcpy(kept.data(), ctx_.data(r.addr), kept.size());
			std::memcpy(ctx_.data(r.addr), e.data.data(), e.data.size());
			ctx_.answer(r.addr, e.flag);
			std::memcpy(ctx_.data(r.addr), kept.data(), kept.size());
			return;
		}
		std::memcpy(ctx_.data(r.addr), e.data.data(), e.data.size());
		known_[r.addr] = e.data;
		ctx_.answer(r.addr, e.flag);
		return;
	}
	case coh_event::kind::write_ack: {
		write_req w = take(writes_, e.id, "write acknowledgement for");
		if (w.then_lcia)
			lcia(w.addr);
		if (restoring_ && writes_.empty())
			restored();
		return;
	}
	case coh_event::kind::local_op: {
		const std::uint64_t a = e.addr;
		if (!e.flag)
			fail(errc::not_supported, fmt::format("LC (clean without invalidate) of line {:#x}: the ECI model "
							      "offers LCI only, and this engine never needs LC",
							      a));
		if (a >= window_bytes || a % C::LINE_BYTES)
			fail(errc::device_error, fmt::format("LCI of address {:#x}, not a line of the window", a));
		if (lci_out_.count(a) || locked_.count(a))
			fail(errc::device_error, fmt::format("LCI of line {:#x}, which the engine already holds locked", a));
		for (const auto &[id, r] : reads_)
			if (r.addr == a)
				fail(errc::device_error,
				     fmt::format("LCI of line {:#x} before answering the CPU's read of it (id {})", a, id));
		lci_out_.insert(a);
		++st_.lcis;
		ctx_.clean_invalidate(a, [this, a, g = gen_] {
			if (g != gen_) { // the engine was reset meanwhile: nobody will unlock it
				ctx_.unlock(a);
				return;
			}
			check_pulled(a);
			// The CPU's data goes back to the engine before the LCIA, as
			// the directory does with dirty data; a line the CPU did not
			// change (the engine's copy is the home's) is acknowledged at once.
			auto k = known_.find(a);
			if (k == known_.end() || std::memcmp(k->second.data(), ctx_.data(a), k->second.size()) != 0) {
				write_back(a, true);
				return;
			}
			lcia(a);
			kick();
		});
		return;
	}
	case coh_event::kind::unlock:
		if (!locked_.count(e.addr))
			fail(errc::device_error,
			     fmt::format("UL of line {:#x}, which the engine has not locked (or whose LCIA it did not get)",
					 e.addr));
		locked_.erase(e.addr);
		++st_.unlocks;
		ctx_.unlock(e.addr);
		return;
	}
}

sim::eci::handler_fn coh_rtl_engine::op_handler(std::uint32_t op)
{
	return [op](const std::uint8_t *req, std::size_t n, std::uint8_t *resp, std::size_t cap) -> std::size_t {
		if (op == P::OP_BLOOM) {
			std::size_t len = bloom::result_len(n);
			if (len > cap)
				return 0;
			bloom::hash_buffer(req, n, resp);
			return len;
		}
		std::size_t k = std::min(n, cap);
		for (std::size_t i = 0; i < k; ++i)
			resp[i] = op == P::OP_NOT ? static_cast<std::uint8_t>(~req[i]) : req[i];
		if (op == P::OP_ADD1)
			for (std::size_t i = 0; i + 8 <= k; i += 8) {
				std::uint64_t w;
				std::memcpy(&w, resp + i, 8);
				++w;
				std::memcpy(resp + i, &w, 8);
			}
		return k;
	};
}

sim::eci::engine_config coh_rtl_engine::model_config(const options &o, coherent::variant v)
{
	const double ns = 1000.0 / double(C::clock_mhz);
	sim::eci::engine_config c;
	c.v = v;
	c.channels = v == coherent::variant::cpu_dev ? cpu_channels : 1;
	c.stride = C::CHANNEL_STRIDE;
	c.answer_exclusive = o.exclusive;
	c.compute_ns = (fixed_cycles + (o.op == P::OP_BLOOM ? bloom_cycles : 1) + o.delay_cycles) * ns;
	c.not_ready_ns = double(o.timeout_cycles) * ns;
	c.handler = op_handler(o.op);
	c.supported = {coherent::variant::cpu_dev, coherent::variant::dev_dev};
	return c;
}

} // namespace pioc::rtl
