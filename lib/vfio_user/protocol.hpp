/** @file
 * The vfio-user wire format (QEMU docs/interop/vfio-user.rst, version 0.1),
 * the subset pioc-devd serves. Every message is a 16-byte header followed by
 * a command-specific payload; file descriptors travel beside it as
 * SCM_RIGHTS. Payload structs are the VFIO ioctl structs the protocol reuses,
 * little-endian, packed as on the wire (all fields naturally aligned).
 *
 * Where QEMU's client (hw/vfio-user/protocol.h, 10.1) and the specification
 * differ, the client is what we talk to: DMA_READ/DMA_WRITE carry a 32-bit
 * count after the 64-bit address.
 */
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace pioc::vfio_user {

enum class command : std::uint16_t {
	version = 1,
	dma_map = 2,
	dma_unmap = 3,
	device_get_info = 4,
	device_get_region_info = 5,
	device_get_region_io_fds = 6,
	device_get_irq_info = 7,
	device_set_irqs = 8,
	region_read = 9,
	region_write = 10,
	dma_read = 11,
	dma_write = 12,
	device_reset = 13,
	dirty_pages = 14,
	region_write_multi = 15,
};
const char *to_string(command c) noexcept;

/** Header flags. */
namespace flag {
constexpr std::uint32_t type_mask = 0xf, request = 0x0, reply = 0x1;
constexpr std::uint32_t no_reply = 0x10, error = 0x20;
} // namespace flag

struct header {
	std::uint16_t id;
	std::uint16_t cmd;
	std::uint32_t size;  ///< header + payload, bytes
	std::uint32_t flags;
	std::uint32_t error; ///< errno, in replies with flag::error
};
static_assert(sizeof(header) == 16);

constexpr std::uint16_t version_major = 0, version_minor = 1;
/** Largest message pioc-devd accepts (a region write of max_data_xfer plus its header). */
constexpr std::size_t max_data_xfer = 1 << 20;
constexpr std::size_t max_message = max_data_xfer + 64;
constexpr unsigned max_msg_fds = 16;

// VFIO PCI region and interrupt indices (linux/vfio.h).
constexpr unsigned region_bar0 = 0, region_rom = 6, region_config = 7, region_vga = 8, num_regions = 9;
constexpr unsigned irq_intx = 0, irq_msi = 1, irq_msix = 2, irq_err = 3, irq_req = 4, num_irqs = 5;

struct device_info {
	std::uint32_t argsz, flags, num_regions, num_irqs;
	static constexpr std::uint32_t flag_reset = 1 << 0, flag_pci = 1 << 1;
};
struct region_info {
	std::uint32_t argsz, flags, index, cap_offset;
	std::uint64_t size, offset;
	static constexpr std::uint32_t flag_read = 1 << 0, flag_write = 1 << 1, flag_mmap = 1 << 2;
};
struct irq_info {
	std::uint32_t argsz, flags, index, count;
	static constexpr std::uint32_t flag_eventfd = 1 << 0, flag_maskable = 1 << 1,
				       flag_automasked = 1 << 2, flag_noresize = 1 << 3;
};
struct irq_set {
	std::uint32_t argsz, flags, index, start, count;
	static constexpr std::uint32_t data_none = 1 << 0, data_bool = 1 << 1, data_eventfd = 1 << 2,
				       action_mask = 1 << 3, action_unmask = 1 << 4, action_trigger = 1 << 5;
};
struct dma_map_req {
	std::uint32_t argsz, flags;
	std::uint64_t offset, address, size;
	static constexpr std::uint32_t flag_read = 1 << 0, flag_write = 1 << 1;
};
struct dma_unmap_req {
	std::uint32_t argsz, flags;
	std::uint64_t address, size;
	static constexpr std::uint32_t flag_get_dirty_bitmap = 1 << 0, flag_unmap_all = 1 << 1;
};
struct region_access {
	std::uint64_t offset;
	std::uint32_t region, count;
};
struct dma_access {
	std::uint64_t address;
	std::uint32_t count;
};
/** Bytes of dma_access on the wire (the struct has 4 bytes of tail padding). */
constexpr std::size_t dma_access_wire = 12;
static_assert(sizeof(region_access) == 16 && sizeof(region_info) == 32 && sizeof(irq_set) == 20 &&
	      sizeof(dma_map_req) == 32 && sizeof(dma_unmap_req) == 24);

/** A protocol failure answered with an error reply carrying @p err (an errno). */
class protocol_error : public std::runtime_error {
public:
	protocol_error(int err, const std::string &what) : std::runtime_error(what), err_(err) {}
	int err() const noexcept { return err_; }

private:
	int err_;
};

/** One message: header, payload and the descriptors that came with it (owned). */
struct message {
	header hdr{};
	std::vector<std::uint8_t> payload;
	std::vector<int> fds;

	command cmd() const noexcept { return static_cast<command>(hdr.cmd); }
	/** The payload's first bytes as @p T; EINVAL if the payload is shorter. */
	template <class T> T get(std::size_t at = 0, std::size_t wire = sizeof(T)) const
	{
		if (payload.size() < at + wire)
			throw protocol_error(EINVAL, std::string(to_string(cmd())) + ": payload of " +
							     std::to_string(payload.size()) + " bytes, need " +
							     std::to_string(at + wire));
		T v{};
		std::memcpy(&v, payload.data() + at, wire);
		return v;
	}
};

/** Checks a header read from the socket: its size (>= 16, <= max_message),
 *  type (a request) and command (known). Throws protocol_error. */
void check_request_header(const header &h);
/** As check_request_header, and a reply is accepted too (the server waiting
 *  for the answer to its DMA_READ/DMA_WRITE). */
void check_header(const header &h, bool replies_ok);

/** A reply to @p req: same id and command, reply type, the given payload. */
message make_reply(const header &req, std::vector<std::uint8_t> payload = {});
/** An error reply to @p req carrying errno @p err. */
message make_error(const header &req, int err);

/** Appends the bytes of @p v to @p out. */
template <class T> void put(std::vector<std::uint8_t> &out, const T &v, std::size_t wire = sizeof(T))
{
	const auto *p = reinterpret_cast<const std::uint8_t *>(&v);
	out.insert(out.end(), p, p + wire);
}

/** The server's side of VERSION: parses the client's major/minor and JSON
 *  capabilities (EINVAL on a malformed one, ENOTSUP on another major) and
 *  returns the reply payload: our version and capabilities. */
struct client_caps {
	std::uint16_t major = 0, minor = 0;
	unsigned max_msg_fds = 1;
	std::uint64_t max_data_xfer_size = max_data_xfer;
	std::uint64_t pgsizes = 4096;
};
client_caps parse_version(const message &req);
std::vector<std::uint8_t> version_reply_payload(const client_caps &client);

} // namespace pioc::vfio_user
