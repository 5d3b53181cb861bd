// Ordinary memory standing in for BAR0 of the PIO image, for the tests of the
// hardware I/O view (mmio_io): the test writes the status the device would
// answer before the invocation reads it.
#pragma once

#include <pioc/regs/pio_dev.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace pioc::test {

struct fake_bar {
	std::uint8_t *p = static_cast<std::uint8_t *>(std::aligned_alloc(4096, regs::pio_dev::bar_size));
	fake_bar() { std::memset(p, 0, regs::pio_dev::bar_size); }
	~fake_bar() { std::free(p); }
	fake_bar(const fake_bar &) = delete;
	fake_bar &operator=(const fake_bar &) = delete;
	void status(std::uint64_t v) { std::memcpy(p + regs::pio_dev::INVOKE_STATUS.offset, &v, 8); }
	std::uint64_t doorbell() const
	{
		std::uint64_t v;
		std::memcpy(&v, p + regs::pio_dev::DOORBELL.offset, 8);
		return v;
	}
};

} // namespace pioc::test
