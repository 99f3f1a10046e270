/// @file wb_reference.h
/// @brief Inputs and exact CPU references, host-only.
///
/// Every chapter draws the same input from the same seed: element i depends only on
/// (seed, i), so a prefix of a long input is the short input, and generation can be
/// split across threads. References use uint32 wrap-around arithmetic, which is exactly
/// what the GPU's 32-bit integer adds do, so they are defined for any N.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

// WB_HD marks a function that host and device code both call (the input below, which chapter 18
// makes on the GPU where it is used): `__host__ __device__` under nvcc, nothing for a host
// compiler. Defined here only if no other header has.
#ifndef WB_HD
#ifdef __CUDACC__
#define WB_HD __host__ __device__
#else
#define WB_HD
#endif
#endif

namespace wb {

/// splitmix64's finaliser: a cheap, well-mixed 64-bit hash.
WB_HD inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Element i of the input for a seed: a nonzero value in [-8, 8].
/// Nonzero, so that a kernel that skips any single element always gets a wrong sum;
/// small and centred on zero, so that sums stay far from int32 overflow in practice.
WB_HD inline int32_t input_value(uint64_t seed, uint64_t i) {
  uint32_t r = uint32_t(mix64(mix64(seed) + (i + 1) * 0x9e3779b97f4a7c15ULL) >> 60);  // 0..15
  return r < 8 ? int32_t(r) - 8 : int32_t(r) - 7;
}

/// The number of host threads the helpers below use for n elements.
inline int worker_count(int64_t n) {
  if (n < (int64_t(1) << 20)) return 1;
  return int(std::max<unsigned>(1, std::min<unsigned>(std::thread::hardware_concurrency(), 32)));
}

/// Run body(worker, begin, end) over [0, n) split into worker_count(n) contiguous ranges.
template <class Body>
inline void parallel_for(int64_t n, Body body) {
  int workers = worker_count(n);
  int64_t chunk = (n + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) {
    int64_t begin = std::min(n, w * chunk), end = std::min(n, begin + chunk);
    pool.emplace_back([=] { body(w, begin, end); });
  }
  for (auto& t : pool) t.join();
}

/// Fill dst[0, n) with the input for a seed.
inline void fill_input(int32_t* dst, int64_t n, uint64_t seed) {
  parallel_for(n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = input_value(seed, uint64_t(i));
  });
}

/// Exact sum of in[0, n) with uint32 wrap-around, as the GPU's int32 adds produce it.
inline int32_t cpu_sum(const int32_t* in, int64_t n) {
  // Wrap-around addition is associative, so per-thread partial sums combine exactly.
  std::vector<uint32_t> partial(size_t(worker_count(n)), 0);
  parallel_for(n, [&](int w, int64_t b, int64_t e) {
    uint32_t s = 0;
    for (int64_t i = b; i < e; ++i) s += uint32_t(in[i]);
    partial[size_t(w)] = s;
  });
  uint32_t s = 0;
  for (uint32_t p : partial) s += p;
  return int32_t(s);
}

/// Inclusive prefix sum of the whole array: out[i] = in[0] + ... + in[i] (uint32 wrap-around).
inline void cpu_scan_inclusive(const int32_t* in, int32_t* out, int64_t n) {
  uint32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += uint32_t(in[i]);
    out[i] = int32_t(s);
  }
}

/// Segmented inclusive scan: each run of `segment` elements (the last may be shorter) is
/// scanned on its own, as the blockwise kernels of chapters 12-16 do.
inline void cpu_scan_segmented(const int32_t* in, int32_t* out, int64_t n, int64_t segment) {
  parallel_for(n, [=](int, int64_t b, int64_t e) {
    // Each worker scans the segments that start inside its range, running past its end
    // only to finish the last of them.
    int64_t first = (b + segment - 1) / segment * segment;
    for (int64_t start = first; start < e; start += segment) {
      uint32_t s = 0;
      for (int64_t i = start; i < std::min(n, start + segment); ++i) {
        s += uint32_t(in[i]);
        out[i] = int32_t(s);
      }
    }
  });
}

/// Where two arrays first differ: index -1 when they are equal.
struct Mismatch {
  int64_t index = -1;  ///< first differing index, -1 when equal
  int32_t got = 0;     ///< the value computed on the GPU
  int32_t want = 0;    ///< the value of the CPU reference
};

/// Compare got[0, n) with want[0, n) exactly.
inline Mismatch first_mismatch(const int32_t* got, const int32_t* want, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return Mismatch{i, got[i], want[i]};
  return Mismatch{};
}

}  // namespace wb
