// The UAPI as the module and libpioc both see it: layouts fixed, vfio-style
// commands, memory types equal to pioc::mem_type, and the kmod
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
	// The version-2 sizes are the least argsz the module accepts: fields
	// may only be appended (with zero meaning "not used").
	STATIC_REQUIRE(sizeof(pioc_version) == 96);
	STATIC_REQUIRE(sizeof(pioc_dev_info) == 72);
	STATIC_REQUIRE(sizeof(pioc_bar_info) == 48);
	STATIC_REQUIRE(sizeof(pioc_map) == 80);
	STATIC_REQUIRE(sizeof(pioc_unmap) == 16);
	STATIC_REQUIRE(sizeof(pioc_dma_alloc) == 48);
	STATIC_REQUIRE(sizeof(pioc_dma_free) == 16);
	STATIC_REQUIRE(sizeof(pioc_irq_set) == 40);
	STATIC_REQUIRE(offsetof(pioc_version, caps) == 16);
	STATIC_REQUIRE(offsetof(pioc_dev_info, numa_node) == 32);
	STATIC_REQUIRE(offsetof(pioc_version, dma_mask_bits) == 64);
	STATIC_REQUIRE(offsetof(pioc_map, start) == 32);
	STATIC_REQUIRE(offsetof(pioc_map, offset) == 56);
	STATIC_REQUIRE(offsetof(pioc_dma_alloc, bus_addr) == 16);
	STATIC_REQUIRE(offsetof(pioc_irq_set, count) == 16);
}

TEST_CASE("every ioctl is _IO with our magic and a distinct number; the size travels in argsz")
{
	const unsigned long cmds[] = {PIOC_IOC_VERSION, PIOC_IOC_DEV_INFO, PIOC_IOC_BAR_INFO,
				      PIOC_IOC_MAP, PIOC_IOC_UNMAP, PIOC_IOC_DMA_ALLOC,
				      PIOC_IOC_DMA_FREE, PIOC_IOC_IRQ_SET};
	std::set<unsigned> nrs;
	for (unsigned long c : cmds) {
		CHECK(_IOC_DIR(c) == _IOC_NONE);
		CHECK(_IOC_SIZE(c) == 0);
		CHECK(_IOC_TYPE(c) == PIOC_IOC_MAGIC);
		nrs.insert(_IOC_NR(c));
	}
	CHECK(nrs.size() == std::size(cmds));
	// 0xB7 (version 1) belongs to remoteproc and nsfs.
	CHECK(PIOC_IOC_MAGIC != 0xB7);
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
