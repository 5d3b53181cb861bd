// One evaluation per clock edge for a Verilated image whose every sampled
// output is a register's (tb::sim::arm_edge): the helpers that make the next
// eval() a rising edge, where this Verilator allows it.
#pragma once

namespace pioc::rtl {

/** Verilator 5.006 keeps the clock's value at the last evaluation in
 *  __Vtrigrprev__TOP__clk and sees a rising edge when clk is 1 and that is
 *  0. Another Verilator names it differently: there the images evaluate
 *  twice per cycle (slower, the same values and times). */
template <class M>
constexpr bool can_arm_edge = requires(M &m) { m.rootp->__Vtrigrprev__TOP__clk = 0; };

/** The next eval() is a rising edge of clk (tb::sim::arm_edge). */
template <class M> void arm_edge(M &m)
{
	if constexpr (can_arm_edge<M>) {
		m.clk = 1;
		m.rootp->__Vtrigrprev__TOP__clk = 0;
	}
}

} // namespace pioc::rtl
