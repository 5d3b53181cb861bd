// The pcie-bench PCIe bandwidth model (shared/reference/pcie-model.md).
#include <pioc/error.hpp>
#include <pioc/pcie_model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace pioc::pcie_model {

namespace {

// Recommended intervals in symbols, [lane row][MPS column]; rows x1..x32,
// columns MPS 128..4096. PCIe Base Spec 5.0 tables 2-46..48 and 3-7..9.
using table = unsigned[6][6];

constexpr table ack_gen1 = {
	{237, 416, 559, 1071, 2095, 4143}, {128, 217, 289, 545, 1057, 2081},
	{73, 118, 154, 282, 538, 1050},    {67, 107, 86, 150, 278, 534},
	{48, 72, 86, 150, 278, 534},       {33, 45, 52, 84, 148, 276}};
constexpr table ack_gen2 = {
	{288, 467, 610, 1122, 2146, 4194}, {179, 268, 340, 596, 1108, 2132},
	{124, 169, 205, 333, 589, 1101},   {118, 158, 137, 201, 329, 585},
	{99, 123, 137, 201, 329, 585},     {84, 96, 103, 135, 199, 237}};
constexpr table ack_gen3 = {
	{333, 512, 655, 1167, 2191, 4239}, {224, 313, 385, 641, 1153, 2177},
	{169, 214, 250, 378, 634, 1146},   {163, 203, 182, 246, 374, 630},
	{144, 168, 182, 246, 374, 630},    {129, 141, 148, 180, 244, 372}};
// The flow-control tables equal the ACK tables except for two x32 entries,
// kept exactly as the reference gives them.
constexpr table fc_gen1 = {
	{237, 416, 559, 1071, 2095, 4143}, {128, 217, 289, 545, 1057, 2081},
	{73, 118, 154, 282, 538, 1050},    {67, 107, 86, 150, 278, 534},
	{48, 72, 86, 150, 278, 534},       {33, 45, 52, 84, 248, 276}};
constexpr table fc_gen2 = {
	{288, 467, 610, 1122, 2146, 4194}, {179, 268, 340, 596, 1108, 2132},
	{124, 169, 205, 333, 589, 1101},   {118, 158, 137, 201, 329, 585},
	{99, 123, 137, 201, 329, 585},     {84, 96, 103, 135, 199, 327}};
constexpr const table &fc_gen3 = ack_gen3;

bool pow2(unsigned v) { return v && !(v & (v - 1)); }

unsigned log2u(unsigned v)
{
	unsigned r = 0;
	while (v >>= 1)
		++r;
	return r;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Framing (start/end, sequence number, LCRC) and the common TLP header.
constexpr unsigned dll_framing = 8;
constexpr unsigned common_header = 4;
constexpr unsigned ecrc_bytes = 4;

} // namespace

void params::validate() const
{
	if (gen < 1 || gen > 7)
		throw error(errc::invalid_argument, fmt::format("PCIe model: generation {} is not 1..7", gen));
	if (!pow2(lanes) || lanes > 32)
		throw error(errc::invalid_argument,
			    fmt::format("PCIe model: {} lanes is not one of 1, 2, 4, 8, 16, 32", lanes));
	if (!pow2(mps) || mps < 128 || mps > 4096)
		throw error(errc::invalid_argument,
			    fmt::format("PCIe model: MPS {} is not a power of two in 128..4096", mps));
	if (!pow2(mrrs) || mrrs < 128 || mrrs > 4096)
		throw error(errc::invalid_argument,
			    fmt::format("PCIe model: MRRS {} is not a power of two in 128..4096", mrrs));
	if (rcb != 64 && rcb != 128)
		throw error(errc::invalid_argument, fmt::format("PCIe model: RCB {} is not 64 or 128", rcb));
	if (addr_bits != 32 && addr_bits != 64)
		throw error(errc::invalid_argument,
			    fmt::format("PCIe model: address width {} is not 32 or 64", addr_bits));
}

model::model(const params &p) : p_(p)
{
	p_.validate();
	const unsigned row = log2u(p_.lanes), col = log2u(p_.mps) - 7;
	const table &ack = p_.gen == 1 ? ack_gen1 : p_.gen == 2 ? ack_gen2 : ack_gen3;
	const table &fc = p_.gen == 1 ? fc_gen1 : p_.gen == 2 ? fc_gen2 : fc_gen3;
	ack_ = ack[row][col];
	fc_ = fc[row][col];
}

double model::gts_per_lane() const noexcept
{
	static constexpr double gts[] = {0, 2.5, 5, 8, 16, 32, 64, 128};
	return gts[p_.gen];
}

double model::encoding() const noexcept
{
	if (p_.gen <= 2)
		return 8.0 / 10.0;
	if (p_.gen <= 5)
		return 128.0 / 130.0;
	return 242.0 / 256.0;
}

double model::raw_gbps() const noexcept { return gts_per_lane() * encoding() * p_.lanes; }

double model::tlp_gbps() const noexcept
{
	return raw_gbps() * (1.0 - 8.0 / ack_ - 8.0 / fc_ - 4.0 / 1538.0);
}

unsigned model::mwr_overhead() const noexcept
{
	return dll_framing + common_header + (p_.addr_bits == 64 ? 12 : 8) + (p_.ecrc ? ecrc_bytes : 0);
}
unsigned model::mrd_overhead() const noexcept { return mwr_overhead(); }
unsigned model::cpl_overhead() const noexcept
{
	return dll_framing + common_header + 8 + (p_.ecrc ? ecrc_bytes : 0);
}

std::uint64_t model::write_bytes(std::uint64_t s) const noexcept
{
	return ceil_div(s, p_.mps) * mwr_overhead() + s;
}

std::uint64_t model::read_request_bytes(std::uint64_t s) const noexcept
{
	return ceil_div(s, p_.mrrs) * mrd_overhead();
}

std::uint64_t model::read_completion_bytes(std::uint64_t s) const noexcept
{
	const unsigned chunk = p_.rcb_chunks ? p_.rcb : p_.mps;
	return ceil_div(s, chunk) * cpl_overhead() + s;
}

double model::write_gbps(std::uint64_t s) const noexcept
{
	if (!s)
		return 0;
	return tlp_gbps() * double(s) / double(write_bytes(s));
}

double model::read_gbps(std::uint64_t s) const noexcept
{
	if (!s)
		return 0;
	// RX saturated by completions unless the requests that rate needs do not
	// fit on TX; both directions have the same TLP bandwidth.
	const double busiest = double(std::max(read_completion_bytes(s), read_request_bytes(s)));
	return tlp_gbps() * double(s) / busiest;
}

row model::evaluate(std::uint64_t s) const noexcept
{
	row r;
	r.size = s;
	r.write_gbps = write_gbps(s);
	r.read_gbps = read_gbps(s);
	if (s) {
		// One write and one read of S bytes per transaction pair: TX carries
		// the write TLPs and the read requests, RX the completions.
		const double tx = double(write_bytes(s) + read_request_bytes(s));
		const double rx = double(read_completion_bytes(s));
		const double pairs_per_s = tlp_gbps() / std::max(tx, rx); // in units of 1/byte
		r.rdwr_tx_gbps = double(s) * pairs_per_s;
		r.rdwr_rx_gbps = double(s) * pairs_per_s;
	}
	return r;
}

std::vector<row> model::evaluate(const std::vector<std::uint64_t> &sizes) const
{
	std::vector<row> v;
	v.reserve(sizes.size());
	for (auto s : sizes)
		v.push_back(evaluate(s));
	return v;
}

namespace {
std::uint64_t parse_size(const std::string &t, const std::string &whole)
{
	if (t.empty())
		throw error(errc::invalid_argument, fmt::format("sizes '{}': empty entry", whole));
	char *end = nullptr;
	errno = 0;
	unsigned long long v = std::strtoull(t.c_str(), &end, 0);
	std::uint64_t mul = 1;
	std::string suffix = end ? end : "";
	if (suffix == "k" || suffix == "K" || suffix == "KiB")
		mul = 1024;
	else if (suffix == "M" || suffix == "MiB")
		mul = 1024 * 1024;
	else if (!suffix.empty())
		throw error(errc::invalid_argument,
			    fmt::format("sizes '{}': '{}' is not a size (bytes, or with K/M suffix)", whole, t));
	if (errno || t[0] == '-')
		throw error(errc::invalid_argument, fmt::format("sizes '{}': '{}' is out of range", whole, t));
	return v * mul;
}
} // namespace

std::vector<std::uint64_t> parse_sizes(const std::string &spec)
{
	std::vector<std::uint64_t> out;
	std::size_t pos = 0;
	while (pos <= spec.size()) {
		std::size_t comma = spec.find(',', pos);
		std::string tok = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		const auto dash = tok.find('-');
		if (dash != std::string::npos && dash > 0) {
			std::string step;
			auto colon = tok.find(':');
			if (colon != std::string::npos) {
				step = tok.substr(colon + 1);
				tok = tok.substr(0, colon);
			}
			const std::uint64_t lo = parse_size(tok.substr(0, dash), spec);
			const std::uint64_t hi = parse_size(tok.substr(dash + 1), spec);
			if (lo == 0 || hi < lo)
				throw error(errc::invalid_argument,
					    fmt::format("sizes '{}': range '{}' must be 1 <= low <= high", spec, tok));
			if (!step.empty() && step[0] == '+') {
				const std::uint64_t inc = parse_size(step.substr(1), spec);
				if (!inc)
					throw error(errc::invalid_argument, fmt::format("sizes '{}': step 0", spec));
				for (std::uint64_t s = lo; s <= hi; s += inc)
					out.push_back(s);
			} else {
				for (std::uint64_t s = lo; s <= hi; s *= 2)
					out.push_back(s);
			}
		} else {
			out.push_back(parse_size(tok, spec));
		}
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	if (out.empty())
		throw error(errc::invalid_argument, "sizes: none given");
	return out;
}

} // namespace pioc::pcie_model
