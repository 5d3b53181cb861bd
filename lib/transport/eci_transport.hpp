// The simulated coherent devices, as transports device::open() returns.
#pragma once

#include <pioc/device.hpp>

#include <memory>

namespace pioc::detail {

/** "sim:eci": the modelled Enzian, its device side the behavioral engines. */
std::shared_ptr<transport> open_eci_model(device_info info);
/** "sim:nic_eci": the ECI NIC model on the modelled Enzian. */
std::shared_ptr<transport> open_eci_nic_model(device_info info);
#ifdef PIOC_HAVE_RTL
/** "rtl:coh": the modelled Enzian, its device side the Verilated coherent engine. */
std::shared_ptr<transport> open_eci_rtl(device_info info);
/** "rtl:nic_eci": the modelled Enzian, its device side the Verilated ECI NIC image. */
std::shared_ptr<transport> open_eci_nic_rtl(device_info info);
/** "rtl:nic_eci_lines": the same image with its RX and TX banks pins low:
 *  every message line by line (FEATURES 0), as the images before the data banks. */
std::shared_ptr<transport> open_eci_nic_rtl_lines(device_info info);
#endif

} // namespace pioc::detail
