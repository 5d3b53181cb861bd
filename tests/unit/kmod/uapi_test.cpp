// The UAPI as the module and libpioc both see it: layouts fixed, handles
// that never overlap, memory types equal to pioc::mem_type, and the kmod
// transport's behaviour without a module (clear errors, no crash).
#include "kmod/kmod_transport.hpp"

#include <pioc/error.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdlib>
#include <set>
#include <sys/ioctl.h>

TEST_CASE("UAPI structs have fixed sizes and 8-byte aligned u64 fields")
{
	// Sizes are part of the ioctl numbers: any change is an ABI break.
	STATIC_REQUIRE(sizeof(pioc_version) == 96);
	STATIC_REQUIRE(sizeof(pioc_dev_info) == 72);
	STATIC_REQUIRE(sizeof(pioc_bar_info) == 48);
	STATIC_REQUIRE(sizeof(pioc_map) == 64);
	STATIC_REQUIRE(sizeof(pioc_unmap) == 16);
	STATIC_REQUIRE(sizeof(pioc_dma_alloc) == 48);
	STATIC_REQUIRE(sizeof(pioc_dma_free) == 16);
	STATIC_REQUIRE(sizeof(pioc_irq_set) == 40);
	STATIC_REQUIRE(offsetof(pioc_version, caps) == 16);
	STATIC_REQUIRE(offsetof(pioc_dev_info, numa_node) == 32);
	STATIC_REQUIRE(offsetof(pioc_map, offset) == 40);
	STATIC_REQUIRE(offsetof(pioc_dma_alloc, bus_addr) == 16);
	STATIC_REQUIRE(offsetof(pioc_irq_set, count) == 16);
}

TEST_CASE("every ioctl is _IOWR with its own struct and a distinct number")
{
	const unsigned long cmds[] = {PIOC_IOC_VERSION, PIOC_IOC_DEV_INFO, PIOC_IOC_BAR_INFO,
				      PIOC_IOC_MAP, PIOC_IOC_UNMAP, PIOC_IOC_DMA_ALLOC,
				      PIOC_IOC_DMA_FREE, PIOC_IOC_IRQ_SET};
	const std::size_t sizes[] = {sizeof(pioc_version), sizeof(pioc_dev_info), sizeof(pioc_bar_info),
				     sizeof(pioc_map), sizeof(pioc_unmap), sizeof(pioc_dma_alloc),
				     sizeof(pioc_dma_free), sizeof(pioc_irq_set)};
	std::set<unsigned> nrs;
	for (std::size_t i = 0; i < std::size(cmds); i++) {
		CHECK(_IOC_DIR(cmds[i]) == (_IOC_READ | _IOC_WRITE));
		CHECK(_IOC_TYPE(cmds[i]) == PIOC_IOC_MAGIC);
		CHECK(_IOC_SIZE(cmds[i]) == sizes[i]);
		nrs.insert(_IOC_NR(cmds[i]));
	}
	CHECK(nrs.size() == std::size(cmds));
}

TEST_CASE("mmap offsets of two handles never overlap and fit in off_t")
{
	const std::uint64_t span = 1ULL << PIOC_MMAP_SHIFT;
	for (std::uint64_t h : std::initializer_list<std::uint64_t>{1, 2, 1000, PIOC_MMAP_MAX_HANDLE}) {
		const std::uint64_t off = h << PIOC_MMAP_SHIFT;
		CHECK(off >> PIOC_MMAP_SHIFT == h);          // decodes back
		CHECK(off + span - 1 <= 0x7fffffffffffffffULL); // positive off_t
		CHECK(((h + 1) << PIOC_MMAP_SHIFT) == off + span); // next handle starts after
	}
	// A whole Enzian coherent window (1 TiB) fits under one handle.
	CHECK(span >= (1ULL << 40));
}

TEST_CASE("memory type names")
{
	CHECK(pioc::kmod::mem_name(PIOC_MEM_UC) == "uc");
	CHECK(pioc::kmod::mem_name(PIOC_MEM_WB) == "wb");
	CHECK(pioc::kmod::mem_name(PIOC_MEM_COUNT) == "?");
}

TEST_CASE("opening a device with no module gives not_found naming the node")
{
	setenv("PIOC_DEV_DIR", "/nonexistent-pioc-dir", 1);
	try {
		pioc::kmod::transport::open("0000:01:00.0");
		FAIL("open succeeded without a module");
	} catch (const pioc::error &e) {
		CHECK(e.code() == pioc::errc::not_found);
		CHECK(std::string(e.what()).find("/nonexistent-pioc-dir/0000:01:00.0") != std::string::npos);
	}
	// The short BDF form is completed with domain 0000.
	try {
		pioc::open_kmod("kmod:01:00.0");
		FAIL("open succeeded without a module");
	} catch (const pioc::error &e) {
		CHECK(std::string(e.what()).find("/0000:01:00.0") != std::string::npos);
	}
	unsetenv("PIOC_DEV_DIR");
}

TEST_CASE("listing without the module loaded is empty, not an error")
{
	// /sys/class/pioc exists only while the module is loaded.
	auto v = pioc::kmod_list_devices();
	for (const auto &d : v)
		CHECK(d.transport == "kmod");
}
