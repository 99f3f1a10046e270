/// @file ring_builds.cuh
/// @brief The two test builds of the ring's one wait (ring::wait in tma_ring.cuh), and the clock
/// build's counts. In the normal build every function here is empty and reads no clock.
///
/// - -DWB_RING_TRAP=ON: a wait longer than a second is a hang (a phase count that can never be
///   met, a block waiting on work nobody will do), not a slow tile. The waiting thread prints
///   which block waited in which wait (the chapter's wait_name()) for which parity, and traps:
///   the launch fails with an error instead of hanging.
/// - -DWB_RING_CLOCKS=ON: the SM's cycle counter measures how long each role's warps spend in
///   each wait, and how long they run; the chapter prints each role's shares as notes.
#pragma once

#include <cuda/ptx>

#include <cstdint>
#include <cstdio>
#include <string>

#include "workbook.cuh"

namespace ring {

#ifdef WB_RING_CLOCKS
/// The clock build's counters: waits and roles of a chapter, at most this many of each.
constexpr int kMaxCounts = 8;
/// Cycles counted over every block and launch since clocks_zero(): for each wait the cycles lane 0
/// of each waiting warp spent in it, for each role the cycles each of its warps ran.
struct Clocks {
  unsigned long long wait[kMaxCounts];  ///< by the chapter's wait number
  unsigned long long role[kMaxCounts];  ///< by the chapter's role number
};
__device__ Clocks g_clocks;
/// The block's counts, added to g_clocks when its warps end.
__device__ __forceinline__ Clocks& block_clocks() {
  __shared__ Clocks c;
  return c;
}
#endif

/// When a wait started: the SM's cycle counter (clock build), the GPU's nanosecond clock (trap build).
struct WaitStart {
  long long cycles = 0;  ///< clock64() at the start
  uint64_t ns = 0;       ///< %globaltimer at the start
};

/// The start of a wait.
__device__ __forceinline__ WaitStart wait_start() {
  WaitStart s;
#ifdef WB_RING_CLOCKS
  s.cycles = clock64();
#endif
#ifdef WB_RING_TRAP
  s.ns = cuda::ptx::get_sreg_globaltimer();
#endif
  return s;
}

/// Called each time a wait finds its phase not completed yet. The trap build gives up after a second.
template <class Which>
__device__ __forceinline__ void still_waiting(const WaitStart& s, Which which, uint32_t parity) {
#ifdef WB_RING_TRAP
  if (cuda::ptx::get_sreg_globaltimer() - s.ns > 1000000000ull) {
    printf("ring (WB_RING_TRAP): block %d, the %s, waited over 1 s for the phase of parity %u\n", int(blockIdx.x),
           wait_name(which), parity);
    __trap();
  }
#else
  (void)s, (void)which, (void)parity;
#endif
}

/// Called once the wait is over. The clock build adds its cycles to the wait's count (lane 0 of each warp).
template <class Which>
__device__ __forceinline__ void waited(const WaitStart& s, Which which) {
#ifdef WB_RING_CLOCKS
  if (threadIdx.x % 32 == 0) atomicAdd(&block_clocks().wait[int(which)], (unsigned long long)(clock64() - s.cycles));
#else
  (void)s, (void)which;
#endif
}

// ---- The clock build's counts of each role --------------------------------------------------

/// The block's barrier after thread 0 set up the ring's barriers (every thread calls it, before
/// its role), which the clock build also uses to zero the block's counts; returns the SM's cycle
/// counter there in the clock build, 0 otherwise.
__device__ __forceinline__ long long clocks_start() {
#ifdef WB_RING_CLOCKS
  if (threadIdx.x < kMaxCounts) block_clocks().wait[threadIdx.x] = block_clocks().role[threadIdx.x] = 0;
  __syncthreads();
  return clock64();
#else
  __syncthreads();
  return 0;
#endif
}

/// Every thread of the block calls it at the end: then the block's barrier, and in the clock
/// build the cycles since `started` counted for `role` (lane 0 of each warp), and the block's
/// counts added to the program's.
__device__ __forceinline__ void clocks_end(int role, long long started) {
#ifdef WB_RING_CLOCKS
  if (threadIdx.x % 32 == 0) atomicAdd(&block_clocks().role[role], (unsigned long long)(clock64() - started));
  __syncthreads();
  if (threadIdx.x < kMaxCounts) {
    atomicAdd(&g_clocks.wait[threadIdx.x], block_clocks().wait[threadIdx.x]);
    atomicAdd(&g_clocks.role[threadIdx.x], block_clocks().role[threadIdx.x]);
  }
#else
  (void)role, (void)started;
#endif
}

/// The clock build: zero the counts before a row's runs. Otherwise nothing.
inline void clocks_zero() {
#ifdef WB_RING_CLOCKS
  const Clocks zero{};
  WB_CHECK(cudaMemcpyToSymbol(g_clocks, &zero, sizeof zero));
#endif
}

/// The clock build: after a row's runs, one note per role that ran, with the share of its time
/// spent in each of its waits. `roles` names the roles; role_of(w) and wait_name(w) are the
/// chapter's, for each of its `waits` waits. Otherwise nothing.
template <class Wait, class RoleOf>
void clocks_report(const wb::Options& opt, const char* row, const char* const* roles, int role_count, int waits,
                   RoleOf role_of) {
#ifdef WB_RING_CLOCKS
  Clocks c{};
  WB_CHECK(cudaMemcpyFromSymbol(&c, g_clocks, sizeof c));
  for (int role = 0; role < role_count; ++role) {
    if (c.role[role] == 0) continue;
    std::string line;
    for (int w = 0; w < waits; ++w) {
      if (role_of(Wait(w)) != role) continue;
      char part[128];
      std::snprintf(part, sizeof part, "%s%.1f%% waiting (%s)", line.empty() ? "" : ", ",
                    100.0 * double(c.wait[w]) / double(c.role[role]), wait_name(Wait(w)));
      line += part;
    }
    wb::note(opt, "clocks %s: %s: %s\n", row, roles[role], line.c_str());
  }
#else
  (void)opt, (void)row, (void)roles, (void)role_count, (void)waits, (void)role_of;
#endif
}

}  // namespace ring
