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
