// Card sides of the XDMA engine model: sim:xdma's card memory (a flat, lazily
// committed address space) and a device model's BAR (the PIO image).
#include "sim/xdma/card_port.hpp"

#include <pioc/error.hpp>

#include <fmt/format.h>

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pioc::sim {

namespace {

class card_memory final : public card_port {
public:
	card_memory(std::uint64_t size, double read_ns) : size_(size), read_ns_(read_ns)
	{
		void *p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			throw_os_error(fmt::format("xdma model: reserving {} bytes of card memory", size_), errno);
		mem_ = static_cast<std::uint8_t *>(p); // pages are committed when first touched
	}
	~card_memory() override { munmap(mem_, size_); }
	card_memory(const card_memory &) = delete;
	card_memory &operator=(const card_memory &) = delete;

	std::uint64_t size() const noexcept override { return size_; }
	double write(std::uint64_t addr, const void *data, std::size_t len, double t_ns) override
	{
		std::memcpy(mem_ + addr, data, len);
		return t_ns;
	}
	double read(std::uint64_t addr, void *data, std::size_t len, double t_ns) override
	{
		std::memcpy(data, mem_ + addr, len);
		return t_ns + read_ns_;
	}

private:
	std::uint64_t size_;
	double read_ns_;
	std::uint8_t *mem_ = nullptr;
};

class card_on_bar final : public card_port {
public:
	card_on_bar(target &t, unsigned bar, std::uint64_t data_base) : t_(t), bar_(bar), base_(data_base) {}

	std::uint64_t size() const noexcept override { return t_.bar_size(bar_); }
	std::uint64_t data_base() const noexcept override { return base_; }
	double write(std::uint64_t addr, const void *data, std::size_t len, double t_ns) override
	{
		const auto *b = static_cast<const std::uint8_t *>(data);
		for (std::size_t k; len; addr += k, b += k, len -= k) {
			k = std::min<std::size_t>(len, 4096 - (addr & 4095));
			t_.posted_write(bar_, addr, b, k, std::uint64_t(t_ns));
		}
		return t_ns;
	}
	double read(std::uint64_t addr, void *data, std::size_t len, double t_ns) override
	{
		auto *b = static_cast<std::uint8_t *>(data);
		double done = t_ns;
		for (std::size_t k; len; addr += k, b += k, len -= k) {
			k = std::min<std::size_t>(len, 4096 - (addr & 4095));
			done = std::max(done, double(t_.read(bar_, addr, b, k, std::uint64_t(done))));
		}
		return done;
	}

private:
	target &t_;
	unsigned bar_;
	std::uint64_t base_;
};

} // namespace

std::unique_ptr<card_port> make_card_on_bar(target &t, unsigned bar, std::uint64_t data_base)
{
	return std::make_unique<card_on_bar>(t, bar, data_base);
}

std::unique_ptr<card_port> make_card_memory(std::uint64_t size, double read_ns)
{
	return std::make_unique<card_memory>(size, read_ns);
}

} // namespace pioc::sim
