// See positioned_io_recorder.cpp: pread/pwrite on one watched file, recorded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pioc_test {

struct io_call {
	bool write;
	std::uint64_t offset;
	std::size_t len;
};

/** Records every pread/pwrite on the file at @p path from now on (clears the record). */
bool watch_file(const std::string &path);
void unwatch();
/** Each watched call sleeps this long first (to see calls overlap). */
void set_call_delay_us(unsigned us);
std::vector<io_call> recorded_calls();
/** Most watched calls in progress at once. */
unsigned peak_concurrency();

} // namespace pioc_test
