// vfio-user message checks, replies and version negotiation.
#include "vfio_user/protocol.hpp"

#include <nlohmann/json.hpp>

namespace pioc::vfio_user {

const char *to_string(command c) noexcept
{
	switch (c) {
	case command::version: return "VERSION";
	case command::dma_map: return "DMA_MAP";
	case command::dma_unmap: return "DMA_UNMAP";
	case command::device_get_info: return "DEVICE_GET_INFO";
	case command::device_get_region_info: return "DEVICE_GET_REGION_INFO";
	case command::device_get_region_io_fds: return "DEVICE_GET_REGION_IO_FDS";
	case command::device_get_irq_info: return "DEVICE_GET_IRQ_INFO";
	case command::device_set_irqs: return "DEVICE_SET_IRQS";
	case command::region_read: return "REGION_READ";
	case command::region_write: return "REGION_WRITE";
	case command::dma_read: return "DMA_READ";
	case command::dma_write: return "DMA_WRITE";
	case command::device_reset: return "DEVICE_RESET";
	case command::dirty_pages: return "DIRTY_PAGES";
	case command::region_write_multi: return "REGION_WRITE_MULTI";
	}
	return "unknown command";
}

void check_request_header(const header &h)
{
	check_header(h, false);
}

void check_header(const header &h, bool replies_ok)
{
	if (h.size < sizeof(header) || h.size > max_message)
		throw protocol_error(EINVAL, "message size " + std::to_string(h.size) + " outside 16.." +
						     std::to_string(max_message));
	const std::uint32_t type = h.flags & flag::type_mask;
	if (type != flag::request && !(replies_ok && type == flag::reply))
		throw protocol_error(EINVAL, "message " + std::to_string(h.id) + " is not a request (flags " +
						     std::to_string(h.flags) + ")");
	if (h.cmd < std::uint16_t(command::version) || h.cmd > std::uint16_t(command::region_write_multi))
		throw protocol_error(ENOSYS, "unknown command " + std::to_string(h.cmd));
}

message make_reply(const header &req, std::vector<std::uint8_t> payload)
{
	message m;
	m.hdr.id = req.id;
	m.hdr.cmd = req.cmd;
	m.hdr.flags = flag::reply;
	m.hdr.error = 0;
	m.hdr.size = static_cast<std::uint32_t>(sizeof(header) + payload.size());
	m.payload = std::move(payload);
	return m;
}

message make_error(const header &req, int err)
{
	message m = make_reply(req);
	m.hdr.flags |= flag::error;
	m.hdr.error = static_cast<std::uint32_t>(err);
	return m;
}

client_caps parse_version(const message &req)
{
	client_caps c;
	if (req.payload.size() < 4)
		throw protocol_error(EINVAL, "VERSION: payload shorter than major/minor");
	std::memcpy(&c.major, req.payload.data(), 2);
	std::memcpy(&c.minor, req.payload.data() + 2, 2);
	if (c.major != version_major)
		throw protocol_error(ENOTSUP, "VERSION: client speaks major " + std::to_string(c.major) +
						      ", we speak " + std::to_string(version_major));
	// The JSON string is NUL-terminated; an empty one means "no capabilities".
	std::string text(req.payload.begin() + 4, req.payload.end());
	if (auto nul = text.find('\0'); nul != std::string::npos)
		text.resize(nul);
	else if (!text.empty())
		throw protocol_error(EINVAL, "VERSION: capabilities are not NUL-terminated");
	if (text.empty())
		return c;
	const auto j = nlohmann::json::parse(text, nullptr, false);
	if (j.is_discarded() || !j.is_object())
		throw protocol_error(EINVAL, "VERSION: capabilities are not a JSON object");
	if (!j.contains("capabilities"))
		return c;
	const auto &caps = j["capabilities"];
	if (!caps.is_object())
		throw protocol_error(EINVAL, "VERSION: \"capabilities\" is not an object");
	auto number = [&](const char *key, auto &out) {
		if (!caps.contains(key))
			return;
		if (!caps[key].is_number_unsigned())
			throw protocol_error(EINVAL, std::string("VERSION: \"") + key + "\" is not an unsigned number");
		out = caps[key].get<std::remove_reference_t<decltype(out)>>();
	};
	number("max_msg_fds", c.max_msg_fds);
	number("max_data_xfer_size", c.max_data_xfer_size);
	number("pgsizes", c.pgsizes);
	return c;
}

std::vector<std::uint8_t> version_reply_payload(const client_caps &client)
{
	// We answer with the lower minor, our limits, and no migration and no
	// write_multiple (not implemented: the client falls back to single writes).
	const std::uint16_t minor = client.minor < version_minor ? client.minor : version_minor;
	nlohmann::json caps = {{"capabilities",
				{{"max_msg_fds", max_msg_fds},
				 {"max_data_xfer_size", max_data_xfer},
				 {"pgsizes", 4096},
				 {"max_dma_maps", 65535}}}};
	const std::string text = caps.dump();
	std::vector<std::uint8_t> out;
	put(out, version_major);
	put(out, minor);
	out.insert(out.end(), text.begin(), text.end());
	out.push_back(0);
	return out;
}

} // namespace pioc::vfio_user
