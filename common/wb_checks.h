/// @file wb_checks.h
/// @brief The host-side arithmetic of the harness's checks, host-only: the guard regions
/// around every device allocation, the messages a failed check prints, and how much device
/// memory a run needs.
///
/// wb_cuda.cuh does the CUDA half (allocating, copying guards back, the comparison kernel);
/// everything here is plain arithmetic and text, so tests/test_common.cpp can test it
/// without a GPU.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace wb {

/// The value that fills the guard regions: 2^24, which no input element takes (inputs lie in
/// [-8, 8]). A kernel that reads one element past either end of an array adds 2^24 to a sum
/// or to a scan, so its result is visibly wrong instead of luckily right.
constexpr int32_t kGuard = 1 << 24;

/// Bytes of guard on each side of every device allocation (64 ints), besides the --offset
/// elements placed before an array. 256 bytes keep the 256-byte alignment cudaMalloc gives.
constexpr int64_t kGuardBytes = 256;

/// Where the parts of one guarded allocation lie, in bytes from the allocation's start:
/// [guard before | data | guard after].
struct GuardLayout {
  int64_t before = 0;  ///< guard bytes before the data: kGuardBytes plus the lead elements
  int64_t data = 0;    ///< bytes of data the caller asked for
  int64_t after = 0;   ///< guard bytes after the data
  /// Bytes to allocate.
  int64_t total() const { return before + data + after; }
};

/// The layout of `count` elements of `elem` bytes whose first element sits `lead` elements
/// past the leading guard (the --offset of wb::make_array; 0 for every other buffer). The
/// lead elements are guard too.
inline GuardLayout guard_layout(int64_t count, int64_t elem, int64_t lead = 0) {
  GuardLayout g;
  g.before = kGuardBytes + lead * elem;
  g.data = count * elem;
  g.after = kGuardBytes;
  return g;
}

/// The guard byte at byte `pos` of an allocation: kGuard's bytes (little-endian) repeated
/// from the allocation's start, so that every 4-byte-aligned int of a guard reads kGuard.
inline uint8_t guard_byte(int64_t pos) {
  return uint8_t(uint32_t(kGuard) >> (8 * (pos % 4)));
}

/// Fill dst[0, len) with the guard bytes that belong at bytes [from, from + len) of an allocation.
inline void fill_guard(uint8_t* dst, int64_t from, int64_t len) {
  for (int64_t i = 0; i < len; ++i) dst[i] = guard_byte(from + i);
}

/// The damaged byte of a guard that lies nearest the data: `got` holds the bytes
/// [from, from + len) of the allocation as copied back from the device. For the guard before
/// the data (`before_data` true) that is the last damaged byte, for the guard after it the
/// first. @return its position in the allocation, or -1 when the guard is intact
inline int64_t guard_damage(const uint8_t* got, int64_t from, int64_t len, bool before_data) {
  if (before_data) {
    for (int64_t i = len - 1; i >= 0; --i)
      if (got[i] != guard_byte(from + i)) return from + i;
  } else {
    for (int64_t i = 0; i < len; ++i)
      if (got[i] != guard_byte(from + i)) return from + i;
  }
  return -1;
}

/// The element index of byte `pos` of an allocation with layout `g` and elements of `elem`
/// bytes, counted from the first data element: negative before the data, count or more after it.
inline int64_t guard_index(const GuardLayout& g, int64_t elem, int64_t pos) {
  const int64_t rel = pos - g.before;
  return rel >= 0 ? rel / elem : -((-rel + elem - 1) / elem);
}

/// The line printed when a kernel damaged a guard: index < 0 is before the start of `what`,
/// index >= count past its end (written n+k, where n = count).
inline std::string guard_message(const std::string& kernel, const std::string& what, int64_t index, int64_t count) {
  char buf[512];
  if (index < 0)
    std::snprintf(buf, sizeof buf, "FAIL %s wrote before the start of %s: index %lld", kernel.c_str(), what.c_str(),
                  (long long)index);
  else
    std::snprintf(buf, sizeof buf, "FAIL %s wrote past the end of %s: index n+%lld (n = %lld)", kernel.c_str(),
                  what.c_str(), (long long)(index - count), (long long)count);
  return buf;
}

/// What a wrong value says about its cause: when it differs from the expected one by a
/// multiple of 2^24 (the guard value), the kernel most likely read a guard, past one end of
/// an array; the text is empty otherwise.
inline std::string guard_read_hint(int32_t got, int32_t want) {
  const uint32_t diff = uint32_t(got) - uint32_t(want);
  if (diff == 0 || diff % uint32_t(kGuard) != 0) return "";
  // The difference as a signed multiple of 2^24: k in [-128, 127].
  const int k = int(int32_t(diff) / kGuard);
  char buf[160];
  if (k == 1)
    std::snprintf(buf, sizeof buf, " (off by 2^24, the guard value around every array: a read past one of its ends?)");
  else
    std::snprintf(buf, sizeof buf, " (off by %d x 2^24, the guard value around every array: reads past its ends?)", k);
  return buf;
}

/// What wb::Bench adds to input element 0 on every other run (the warm-up runs 1, 3, ... and
/// every other timed run), so that no two consecutive runs have the same input and a kernel
/// that uses state left by the previous run (statuses, partial sums, counters) gets a wrong
/// answer instead of last run's right one. Not a multiple of 2^24, so never read as a guard.
constexpr int32_t kRunDelta = 1000;

/// The run's expected value at output `index`, for a run whose input element 0 was changed by
/// `delta` (0 on the runs that use the input as made): the outputs [0, `shifted`), those whose
/// value includes element 0, change by `delta`, modulo 2^32 like every sum here; the others do not.
inline int32_t expected_for_run(int32_t want, int64_t index, int64_t shifted, int32_t delta) {
  return index < shifted ? int32_t(uint32_t(want) + uint32_t(delta)) : want;
}

/// How a run names itself in a FAIL line: `run` ("warm-up run 1"), followed by the change made to
/// element 0 on the runs that have one ("warm-up run 1, in[0] + 1000").
inline std::string run_label(const std::string& run, int32_t delta) {
  return delta == 0 ? run : run + ", in[0] + " + std::to_string(delta);
}

/// What a wrong value says about its cause: when it differs from the expected one by exactly
/// kRunDelta, either way, the kernel most likely used a value left by the previous run, whose
/// input element 0 differed from this run's by that much; the text is empty otherwise.
inline std::string stale_state_hint(int32_t got, int32_t want) {
  const int32_t diff = int32_t(uint32_t(got) - uint32_t(want));
  if (diff != kRunDelta && diff != -kRunDelta) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf,
                " (off by %+d, the change to input element 0 between consecutive runs: state left by the previous "
                "run?)",
                diff);
  return buf;
}

/// The line printed for the first wrong run of a kernel: `wrong` of `count` output elements
/// differ from the CPU reference, the first at `index`, where the kernel left `got` and the
/// reference has `want` (the value for that run, wb::expected_for_run). `when` names the run
/// ("first run", "timed run 3 of 20", wb::run_label).
inline std::string mismatch_message(const std::string& kernel, const std::string& when, int64_t wrong, int64_t count,
                                    int64_t index, int32_t got, int32_t want) {
  char buf[512];
  if (count == 1)
    std::snprintf(buf, sizeof buf, "FAIL %s (%s): got %d, want %d", kernel.c_str(), when.c_str(), got, want);
  else
    std::snprintf(buf, sizeof buf, "FAIL %s (%s): %lld of %lld elements wrong, the first at index %lld: got %d, want %d",
                  kernel.c_str(), when.c_str(), (long long)wrong, (long long)count, (long long)index, got, want);
  return buf + guard_read_hint(got, want) + stale_state_hint(got, want);
}

/// The bytes per element of N that the harness adds to a chapter's own count when fitting N
/// (wb::fit_default_n): a device copy of the expected output, against which every run is
/// checked. A chapter that counts an N-element output besides its input (8 bytes per element
/// or more) needs 4 more; a reduction's expected output is a single value.
inline double check_bytes_per_element(double chapter_bytes_per_element) {
  return chapter_bytes_per_element >= 8 ? 4.0 : 0.0;
}

/// Device bytes the guards of a run take: every allocation has 2 x kGuardBytes, and the
/// input, the output and the harness's copy of the expected output also have --offset ints
/// (a run has a dozen allocations at most).
inline double guard_bytes(int64_t offset) { return 16.0 * 2 * kGuardBytes + 3.0 * 4 * offset; }

/// Halve `n` (not below 1024) until n x `bytes_per_element` + `reserve` bytes fit in 90% of
/// `free_bytes`. @return the N that fits (n itself when it already does)
inline int64_t fit_n(int64_t n, double bytes_per_element, double reserve, double free_bytes) {
  while (n > 1024 && double(n) * bytes_per_element + reserve > 0.9 * free_bytes) n /= 2;
  return n;
}

/// Whether WB_SKIP_IF_NO_MEMORY=1 is set: then an allocation that finds too little device
/// memory skips the run (exit 77, which ctest reports as skipped) instead of failing (exit 3).
/// tests/gpu.sh sets it, so that a test whose N does not fit a smaller GPU is skipped there.
inline bool skip_if_no_memory() {
  const char* v = std::getenv("WB_SKIP_IF_NO_MEMORY");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

/// The whole number in environment variable `name` (a test hook, see wb::Crowd and chapter 17's
/// SinglePass), from `lo` to `hi`; `otherwise` where it is not set or empty. A value that is no such
/// number exits 2 with a message naming the variable and the range.
inline int64_t env_whole_number(const char* name, int64_t lo, int64_t hi, int64_t otherwise) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return otherwise;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) {
    std::fprintf(stderr, "%s='%s' is not allowed: give a whole number from %lld to %lld\n", name, v, (long long)lo,
                 (long long)hi);
    std::exit(2);
  }
  return x;
}

/// The line printed when a run is skipped for want of memory: N (0 when not yet known),
/// the bytes the run needs at least (what it holds plus what it asked for) and the bytes the
/// GPU had free for it.
inline std::string no_memory_message(int64_t n, double need_bytes, double free_bytes) {
  char buf[256];
  if (n > 0)
    std::snprintf(buf, sizeof buf, "skipped: N = %lld needs %.2f GiB, the GPU has %.2f GiB free (WB_SKIP_IF_NO_MEMORY=1)",
                  (long long)n, need_bytes / 1073741824.0, free_bytes / 1073741824.0);
  else
    std::snprintf(buf, sizeof buf, "skipped: this run needs %.2f GiB, the GPU has %.2f GiB free (WB_SKIP_IF_NO_MEMORY=1)",
                  need_bytes / 1073741824.0, free_bytes / 1073741824.0);
  return buf;
}

}  // namespace wb
