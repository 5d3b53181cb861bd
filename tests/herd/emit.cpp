// Compiled for arm64 by tests/herd/check-asm (never linked): one function per
// protocol step the litmus tests model, so the script can check that the
// compiler emits the instructions the tests assume (stlr, dmb sy, ldar).
#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/queue.hpp>

using namespace pioc::coherent;

// invoke-request-before-signal, invoke-control-before-data
std::size_t herd_invoke(invoker<mem_lines> &inv, const void *req, std::size_t n, void *resp)
{
	return inv.call(req, n, resp, 4096);
}

// queue-payload-before-valid (sender side), queue-read-before-reuse (sender)
bool herd_cq_send(cq::sender &s, const void *p, std::size_t n) { return s.try_send(p, n); }
bool herd_ff_send(ff_queue &q, const void *p, std::size_t n) { return q.try_send(p, n); }

// queue-payload-before-valid (receiver side), queue-read-before-reuse (receiver)
long herd_cq_receive(cq::receiver &r, void *p) { return r.try_receive(p, 120); }
long herd_ff_receive(ff_queue &q, void *p) { return q.try_receive(p, 120); }

// Not a litmus test: an echo loop into a local buffer, as a user writes one.
// The payload copies must stay inline (check-asm: no memcpy call, no rep
// movs): the loop of 8-byte copies of before became both (12 memcpy calls
// on arm64) once it was inlined into such a loop.
void herd_cq_echo(cq::receiver &r, cq::sender &s, std::uint64_t k)
{
	std::uint64_t buf[8];
	for (std::uint64_t i = 0; i < k; ++i)
		s.send(buf, r.receive(buf, sizeof buf));
}
void herd_ff_echo(ff_queue &a, ff_queue &b, std::uint64_t k)
{
	std::uint64_t buf[8];
	for (std::uint64_t i = 0; i < k; ++i)
		b.send(buf, a.receive(buf, sizeof buf));
}
