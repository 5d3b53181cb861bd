/** @file
 * The user API of pioc in one include: open a device, map its BARs, and talk
 * to it by PIO (@ref pioc::pio), by descriptor DMA (@ref pioc::xdma) or by
 * cache-coherent messages (@ref pioc::coherent).
 *
 * @code
 * #include <pioc/pioc.hpp>
 *
 * pioc::device dev = pioc::device::open("sim:pio");   // or "0000:01:00.0"
 * pioc::pio::invoker inv(dev.map(0, pioc::mem_type::wc));
 * auto resp = inv.invoke(pioc::pio::op::bit_not, request);
 * @endcode
 *
 * Start with examples/hello_pio.cpp, hello_xdma.cpp and hello_eci.cpp.
 *
 * What is here:
 *  - pioc::device, pioc::transport, pioc::list_devices(): devices by spec
 *    (a PCI address, a vendor:device pair, "sim:pio", "rtl:xdma", ...);
 *  - pioc::region: a mapped BAR with checked accessors; region::visit()
 *    hands a timed loop the unchecked I/O view (pioc::mmio_io on hardware,
 *    pioc::sim_io in simulation), picked once above the loop;
 *  - pioc::io_view, pioc::coherent::line_policy: the two seams a driver is
 *    written over, as concepts;
 *  - pioc::pio: PIO invocation (pioc::pio::call: one prepared once) and
 *    streams over the PIO test image;
 *  - pioc::xdma: the user-space XDMA (PG195) descriptor DMA driver (its
 *    prepared_run for latency loops), and the
 *    Xilinx character devices (pioc::xdma::chardev);
 *  - pioc::coherent: invocation and queues over coherent memory
 *    (pioc::coherent::mem_lines on a real cacheable mapping);
 *  - pioc::error / pioc::errc, pioc::mem_type, barriers and the clock.
 *
 * What is not, on purpose (include it by name if you need it):
 *  - <pioc/sim/...>: the simulator's models and its line policy
 *    (coherent::eci_sim_lines), for tests, tools and the examples that run
 *    on a model directly;
 *  - <pioc/bench/...>, <pioc/place.hpp>, <pioc/pcie_model.hpp>: benchmark
 *    support (histograms, reports, thread placement, the analytical model);
 *  - <pioc/regs/...>: generated register maps, for drivers and models.
 */
#pragma once

#include <pioc/barrier.hpp>
#include <pioc/clock.hpp>
#include <pioc/device.hpp>
#include <pioc/error.hpp>
#include <pioc/io.hpp>
#include <pioc/mem_type.hpp>
#include <pioc/region.hpp>

#include <pioc/pio.hpp>
#include <pioc/pio_call.hpp>

#include <pioc/xdma/chardev.hpp>
#include <pioc/xdma/prepared_run.hpp>
#include <pioc/xdma/xdma.hpp>

#include <pioc/coherent/invoke.hpp>
#include <pioc/coherent/lines.hpp>
#include <pioc/coherent/queue.hpp>

/** @namespace pioc
 *  Low-latency CPU <-> FPGA I/O: PCIe PIO, XDMA descriptor DMA and ECI
 *  cache-coherent messages, each the same code on hardware and in simulation. */
/** @namespace pioc::pio
 *  PIO invocation (paper Sec. 4, Fig. 3) and raw PIO streams. */
/** @namespace pioc::xdma
 *  A user-space XDMA (PG195) descriptor DMA driver. */
/** @namespace pioc::coherent
 *  Invocation (paper Fig. 5) and queues over cache-coherent memory. */
