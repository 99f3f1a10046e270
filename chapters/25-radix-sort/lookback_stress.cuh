/// @file lookback_stress.cuh
/// @brief Chapter 25's stress build (`cmake -DWB_STRESS=ON`, run by `tests/stress_check.sh ... 25`).
///
/// On a quiet GPU a tile's predecessors have usually published their counts by the time its
/// digit threads look back, so the look-back's slow paths may never run in a test. This build
/// delays every publication of a digit's count by a pseudo-random time drawn from (--seed, the
/// pass, the tile, the digit, which of the two words), so that digit threads find predecessors
/// not ready, walk their window back and chain through counts; and it counts on the device how
/// often each path is taken, printed after the runs as one note: "stress: T tiles, W waits,
/// K window walks, C aggregates chained" (the words chapter 17's stress build prints, which the
/// test reads). In the normal build the helpers are empty and the kernels do not change.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "workbook.cuh"

/// What the stress build counts, in the order its note names them.
enum StressPath {
  kStressTiles,    ///< tiles of every pass (tile 0 included)
  kStressWaits,    ///< looks of a digit thread that found a predecessor's word not yet published
  kStressWalks,    ///< whole windows of counts without an inclusive prefix: the look moves back
  kStressChained,  ///< tile counts (not inclusive prefixes) added to a digit's place
  kStressPaths     ///< the number of paths counted (the counts array's size)
};

#ifdef WB_STRESS
/// Each path's count over every launch of the program (stress_begin() zeroes them).
__device__ unsigned long long g_stress_counts[kStressPaths];
/// The longest delay in ns; 0 leaves the delays out (the counts alone).
__device__ unsigned g_stress_max_ns;
/// --seed, so that a run's delays can be replayed.
__device__ unsigned long long g_stress_seed;

/// Add `amount` to a path's count (every digit thread counts its own paths).
__device__ void stress_count(StressPath path, unsigned amount = 1) {
  if (amount > 0) atomicAdd(&g_stress_counts[path], (unsigned long long)amount);
}

/// splitmix64's finaliser: scatters nearby tiles' and digits' delays.
__device__ unsigned long long stress_hash(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Sleep before tile `tile` of pass `pass` publishes digit d's count (up to half the longest
/// delay, so that successors find it not ready) or its inclusive prefix (`inclusive`: at least
/// that half, so that successors that have all the counts they need still find no prefix among
/// them and walk back).
__device__ void stress_delay(unsigned long long pass, int64_t tile, int d, bool inclusive) {
  if (g_stress_max_ns == 0) return;
  using u64 = unsigned long long;
  const u64 key = (pass << 42) ^ (u64(tile) << 9) ^ (u64(d) << 1) ^ u64(inclusive);  // tiles < 2^33
  const unsigned half = g_stress_max_ns / 2;
  const unsigned drawn = unsigned(stress_hash(g_stress_seed ^ stress_hash(key)) % (half + 1ull));
  __nanosleep(inclusive ? g_stress_max_ns - drawn : drawn);
}

/// The longest delay unless WB_STRESS_MAX_DELAY_NS says otherwise.
constexpr unsigned kStressMaxDelayNs = 20000;

// [stress_host]
/// Before the first launch: zero the counts, take the seed from --seed and the longest delay
/// from the environment variable WB_STRESS_MAX_DELAY_NS (0: no delays, the counts alone).
void stress_begin(const wb::Options& opt) {
  unsigned max_ns = kStressMaxDelayNs;
  if (const char* text = std::getenv("WB_STRESS_MAX_DELAY_NS")) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(text, &end, 10);
    if (*text < '0' || *text > '9' || *end != '\0' || v > 1000000) {
      std::fprintf(stderr, "WB_STRESS_MAX_DELAY_NS '%s' is not allowed (0 to 1000000)\n", text);
      std::exit(2);
    }
    max_ns = unsigned(v);
  }
  const unsigned long long zero[kStressPaths] = {};
  const unsigned long long seed = opt.seed;
  WB_CHECK(cudaMemcpyToSymbol(g_stress_counts, zero, sizeof zero));
  WB_CHECK(cudaMemcpyToSymbol(g_stress_max_ns, &max_ns, sizeof max_ns));
  WB_CHECK(cudaMemcpyToSymbol(g_stress_seed, &seed, sizeof seed));
  wb::note(opt, "stress build: aggregates published after 0 to %u ns, prefixes after %u to %u ns (seed %llu)\n",
           max_ns / 2, max_ns - max_ns / 2, max_ns, seed);
}

/// After the runs: the counts as one note line.
void stress_report(const wb::Options& opt) {
  unsigned long long c[kStressPaths] = {};
  WB_CHECK(cudaMemcpyFromSymbol(c, g_stress_counts, sizeof c));
  wb::note(opt, "stress: %llu tiles, %llu waits, %llu window walks, %llu aggregates chained\n", c[kStressTiles],
           c[kStressWaits], c[kStressWalks], c[kStressChained]);
}
// [stress_host]
#else
/// The normal build counts nothing.
__device__ void stress_count(StressPath, unsigned = 1) {}
/// The normal build publishes without delay.
__device__ void stress_delay(unsigned long long, int64_t, int, bool) {}
/// The normal build has nothing to set up.
void stress_begin(const wb::Options&) {}
/// The normal build has no counts to report.
void stress_report(const wb::Options&) {}
#endif
