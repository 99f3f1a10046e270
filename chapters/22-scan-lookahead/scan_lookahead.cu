/// @file scan_lookahead.cu
/// @brief Chapter 22, step 1 of a look-ahead scan: a copy through a ring of shared-memory
/// stages that bulk copies fill and empty, guarded by mbarriers.
///
/// Chapter 17's single pass loads a tile only when a block starts it, so while a block waits
/// for its carry nothing new is on its way from memory. The look-ahead scan this chapter builds
/// keeps loading regardless: one warp of a persistent block (one block per SM) does nothing but
/// issue bulk copies (`cp.async.bulk`, the Tensor Memory Accelerator, TMA) of whole tiles from
/// global into a ring of S shared-memory stages, and the other warps take each stage as it
/// lands. Before any scan arithmetic, this step asks whether that machinery can move memory at
/// the speed of a copy at all: `ring_copy` sends every element through the ring and back out,
/// beside `cudaMemcpyAsync` (`memcpy_d2d`) in the same run. If it cannot come close to the copy
/// ceiling, no scan built on it can.
///
/// Each stage has two mbarriers (shared-memory barriers with a phase that completes when the
/// expected arrivals, and here bytes, have come):
/// - full[s]: the loader arrives once with the byte count it is about to copy (expect_tx);
///   the copy engine counts the bytes down as they land, and the phase completes when all have;
/// - empty[s]: the store lane arrives once, after the bulk store that drains the stage has
///   read it, and the loader may then refill it.
/// Use k of the ring (the block's k-th tile) takes stage k mod S and waits for the phase of
/// parity (k / S) mod 2 on full[s], the loader on empty[s] for the other parity: a fresh
/// barrier counts the phase of parity 1 as completed, so the loader's first round never waits.
///
/// The bulk copies need 16-byte aligned addresses and sizes; here the body of the array from
/// its first 128-byte boundary goes through the ring in tiles, and the head before that
/// boundary (up to 31 ints) and the tail after the last whole 16 bytes (up to 3 ints) are
/// copied by ordinary loads and stores.
///
/// Needs compute capability 9.0 (Hopper) or newer: on an older GPU, or from a build without
/// sm_90 code, the program says so and exits 77. Build with -DWB_RING_TRAP=ON (CMake) to bound
/// every mbarrier wait: a wait longer than a second prints what it waited for and traps, so a
/// broken phase count fails a test instead of hanging it.

#include <cub/device/device_scan.cuh>

#include <cstdio>
#include <string>

// Chapter 17's single pass (its row beside this chapter's scan), and what the look-ahead scan
// takes from it: the tile counter and the statuses with their epochs (SinglePass), the status
// words (publish, observe), the warp sums and scans, and the stress build's hooks.
#include "single_pass.cuh"

/// 1 where device code may use bulk copies and transaction-count mbarriers (sm_90 and newer).
/// The host pass and the sm_75 build see 0, and the kernel's body is then a stub that traps.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WB_HAS_BULK_COPY 1
#else
#define WB_HAS_BULK_COPY 0
#endif

/// The ring's roles, by warp; one lane of each does the work.
enum RingWarp : int {
  kLoaderWarp = 0,  ///< fills the stages
  kStoreWarp = 1    ///< drains them (and, in block 0, copies the head and tail)
};
/// Threads per block: the two warps.
constexpr int kRingThreads = 64;

/// Stages in the ring, by default: two, one landing while the other drains. Measured on the
/// H200 at 2^30 with tiles taken from the counter (median of 20): 2 stages 4286.8 GB/s, 3
/// 4199.8, 4 4181.8, 6 4176.6 (memcpy_d2d 4282.7 in the same runs); why more stages are slower
/// is not measured here.
constexpr int kDefaultStages = 2;
/// Bytes per stage, by default: the tile of CCCL's look-ahead scan on Hopper, 8064 ints (4 warps
/// x 32 lanes x 63 ints), so that this step measures the ring a scan of that tile will run on.
/// A multiple of 256, so every tile starts on a 128-byte (and, at --offset 0, a 256-byte) boundary.
constexpr int kDefaultStageBytes = 32256;
/// The largest --stages: enough to sweep small stages far past the knee.
constexpr int kMaxStages = 64;
/// The largest --stage-bytes: the largest multiple of 128 that fits, with its two barriers, in
/// the 227 KB (232,448 bytes) a block may have on an H100 or an H200.
constexpr int kMaxStageBytes = 232320;

// [split]
/// The alignment of the body's start and of every tile: cp.async.bulk requires 16 bytes, and
/// Hopper's copy engine prefers whole 128-byte lines. Also what --stage-bytes must be a multiple of.
constexpr int64_t kBulkAlign = 128;

/// How the ring copy cuts n ints at `in`: a head copied by plain loads and stores up to the
/// first 128-byte boundary, a body of whole 16-byte units in tiles of `stage_bytes` (the last
/// one partial), and a tail of the last 0 to 3 ints. The output shares the input's alignment
/// (both lie --offset ints past a 256-byte boundary), so the same cut fits it.
struct RingSplit {
  int64_t head = 0;        ///< ints [0, head) before the body (0 to 31)
  int64_t body_bytes = 0;  ///< bytes of the body, from int head on: a multiple of 16
  int64_t tail_begin = 0;  ///< ints [tail_begin, n) after the body (0 to 3 of them)
  int64_t tiles = 0;       ///< tiles of stage_bytes covering the body
};

/// The cut of n ints at `in` into head, body and tail, and the tiles of `stage_bytes` bytes of the body.
__host__ __device__ inline RingSplit ring_split(const int* in, int64_t n, int64_t stage_bytes) {
  RingSplit s;
  const int64_t past = int64_t(reinterpret_cast<uintptr_t>(in) % uintptr_t(kBulkAlign));
  const int64_t head = (kBulkAlign - past) % kBulkAlign / 4;
  s.head = head < n ? head : n;
  s.body_bytes = (n - s.head) / 4 * 16;
  s.tail_begin = s.head + s.body_bytes / 4;
  s.tiles = wb::ceil_div<int64_t>(s.body_bytes, stage_bytes);
  return s;
}
// [split]

// [roles]
/// Each wait of the two kernels: which role waits, and for which barrier. It names the wait in
/// the trap build's message, and the clock build (-DWB_RING_CLOCKS=ON) counts the cycles spent
/// in each.
enum Wait : int {
  kCopyLoaderEmpty,  ///< the ring copy's loader, for an empty stage
  kCopyStoreFull,    ///< the ring copy's store lane, for a landed stage
  kLoaderEmpty,      ///< the scan's loader warp, for an empty stage
  kLookNumbered,     ///< the look-ahead warp, for the number of the block's next tile
  kReduceFull,       ///< the reduce squad, for a landed tile
  kScanFull,         ///< the scan squad, for a landed tile
  kScanReduced,      ///< the scan squad, for the reduce squad's warp sums
  kScanCarried,      ///< the scan squad, for the tile's carry
  kWaits             ///< how many waits there are
};
/// What each wait is for, in words (for the trap build's message and the clock build's notes).
__host__ __device__ inline const char* wait_name(Wait w) {
  switch (w) {
    case kCopyLoaderEmpty: return "ring copy's loader, for an empty stage";
    case kCopyStoreFull: return "ring copy's store lane, for a landed stage";
    case kLoaderEmpty: return "loader warp, for an empty stage";
    case kLookNumbered: return "look-ahead warp, for its next tile's number";
    case kReduceFull: return "reduce squad, for a landed tile";
    case kScanFull: return "scan squad, for a landed tile";
    case kScanReduced: return "scan squad, for the tile's warp sums";
    case kScanCarried: return "scan squad, for the tile's carry";
    default: return "?";
  }
}
/// The roles whose time the clock build counts; each wait belongs to one.
enum Role : int {
  kCopyLoader,     ///< the ring copy's loader lane
  kCopyStore,      ///< the ring copy's store lane
  kLoaderRole,     ///< the scan's loader warp
  kLookAheadRole,  ///< the scan's look-ahead warp
  kReduceRole,     ///< the scan's reduce squad
  kScanRole,       ///< the scan's scan squad
  kRoles           ///< how many roles there are
};
// [roles]

#ifdef WB_RING_CLOCKS
/// The role of each wait.
constexpr Role kRoleOfWait[kWaits] = {kCopyLoader,  kCopyStore,  kLoaderRole, kLookAheadRole,
                                      kReduceRole, kScanRole, kScanRole,   kScanRole};
/// Each role in words.
constexpr const char* kRoleNames[kRoles] = {"ring copy's loader", "ring copy's store lane", "loader warp",
                                            "look-ahead warp",    "reduce squad",           "scan squad"};
/// The clock build's counts, summed over every block and launch since ring_clocks_begin():
/// for each wait the SM cycles lane 0 of each waiting warp spent in it, for each role the
/// cycles each of its warps spent from the block's start to the end of its loop.
struct RingClocks {
  unsigned long long wait[kWaits];  ///< cycles waited, by wait
  unsigned long long role[kRoles];  ///< cycles in the role, by role
};
__device__ RingClocks g_ring_clocks;
#endif

#if WB_HAS_BULK_COPY
// [ptx]
/// A shared-memory pointer as the 32-bit .shared::cta address the instructions take.
__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return uint32_t(__cvta_generic_to_shared(p));
}

/// Set a barrier's expected arrivals per phase; its current phase is phase 0, of parity 0.
__device__ __forceinline__ void barrier_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}

/// Make the initialized barriers visible to the other threads and to the copy engine before
/// any of them uses one (a __syncthreads() follows).
__device__ __forceinline__ void barrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

/// Arrive once, announcing `bytes` more that must land before the phase can complete.
__device__ __forceinline__ void arrive_expecting(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
}

/// Arrive once. Release: this thread's earlier work (here, a finished read of the stage) is
/// ordered before the phase's completion, which the waiter acquires.
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

/// Whether the phase of parity `parity` has completed (the barrier's current phase has the
/// other parity). The instruction may suspend the thread a while before it answers no.
__device__ __forceinline__ bool phase_completed(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  asm volatile(
      "{\n\t.reg .pred complete;\n\t"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 complete, [%1], %2;\n\t"
      "selp.b32 %0, 1, 0, complete;\n\t}"
      : "=r"(done)
      : "r"(shared_address(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

/// Copy `bytes` from global memory into a stage; the copy engine counts them down on `bar`.
__device__ __forceinline__ void bulk_load(void* stage, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(stage)),
               "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

/// Order this thread's ordinary writes to shared memory before the bulk copies it issues next,
/// which read shared memory through the copy engine (the async proxy).
__device__ __forceinline__ void fence_before_bulk_store() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/// Copy `bytes` from a stage to global memory, as a bulk group of its own.
__device__ __forceinline__ void bulk_store(void* dst, const void* stage, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(__cvta_generic_to_global(dst)),
               "r"(shared_address(stage)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/// Wait until every bulk store this thread issued has read its stage: the stages may be refilled.
__device__ __forceinline__ void bulk_stores_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

/// Wait until every bulk store this thread issued has written global memory.
__device__ __forceinline__ void bulk_stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
// [ptx]

#ifdef WB_RING_TRAP
/// A wait longer than this is a hang (a phase count that can never be met), not a slow tile.
constexpr uint64_t kRingTrapNs = 1000000000ull;

/// The GPU's nanosecond clock.
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

#ifdef WB_RING_CLOCKS
/// The block's counts, added to g_ring_clocks when the block ends.
__device__ __forceinline__ RingClocks& block_clocks() {
  __shared__ RingClocks c;
  return c;
}
/// The SM's cycle counter.
__device__ __forceinline__ long long clocks_now() { return clock64(); }
/// Zero the block's counts (before the barrier that follows the barriers' initialization).
__device__ __forceinline__ void clocks_begin() {
  if (threadIdx.x < kWaits) block_clocks().wait[threadIdx.x] = 0;
  if (threadIdx.x < kRoles) block_clocks().role[threadIdx.x] = 0;
}
/// Count the cycles since `from` as waited in `which` (lane 0 of the warp).
__device__ __forceinline__ void clocks_add_wait(Wait which, long long from) {
  if (threadIdx.x % 32 == 0) atomicAdd(&block_clocks().wait[which], (unsigned long long)(clock64() - from));
}
/// Count the cycles since `from` as spent in `role` (lane 0 of the warp), then, once every warp
/// of the block is here, add the block's counts to g_ring_clocks. Every thread calls it.
__device__ __forceinline__ void clocks_end(Role role, long long from) {
  if (threadIdx.x % 32 == 0) atomicAdd(&block_clocks().role[role], (unsigned long long)(clock64() - from));
  __syncthreads();
  if (threadIdx.x < kWaits) atomicAdd(&g_ring_clocks.wait[threadIdx.x], block_clocks().wait[threadIdx.x]);
  if (threadIdx.x < kRoles) atomicAdd(&g_ring_clocks.role[threadIdx.x], block_clocks().role[threadIdx.x]);
}
#else
/// The normal build reads no clock.
__device__ __forceinline__ long long clocks_now() { return 0; }
/// The normal build counts nothing.
__device__ __forceinline__ void clocks_begin() {}
/// See clocks_begin().
__device__ __forceinline__ void clocks_add_wait(Wait, long long) {}
/// See clocks_begin().
__device__ __forceinline__ void clocks_end(Role, long long) {}
#endif

// [wait]
/// Where a role stands in the ring: use k of it (the block's k-th tile) takes stage k mod S
/// and waits for the phase of parity (k / S) mod 2, counted here rather than divided out.
struct RingCursor {
  int stage = 0;        ///< k mod S
  uint32_t parity = 0;  ///< (k / S) mod 2
  /// Move to the next use: the next stage, or after the last one the first with the other parity.
  __device__ __forceinline__ void advance(int stages) {
    if (++stage == stages) {
      stage = 0;
      parity ^= 1;
    }
  }
};

/// Spin until the phase of parity `parity` of `bar` has completed. With WB_RING_TRAP, give up
/// after kRingTrapNs: print who waited for what, then trap (the launch fails with an error).
/// With WB_RING_CLOCKS, add the cycles waited to the wait's count (lane 0 of each warp).
__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity, Wait which, int64_t use, int stage) {
  const long long waited_from = clocks_now();
#ifdef WB_RING_TRAP
  const uint64_t start = global_ns();
  while (!phase_completed(bar, parity)) {
    if (global_ns() - start > kRingTrapNs) {
      printf("chapter22 (WB_RING_TRAP): block %d, the %s, waited over 1 s for the phase of parity %u of "
             "stage %d (its use %lld of the ring)\n",
             int(blockIdx.x), wait_name(which), parity, stage, (long long)use);
      __trap();
    }
  }
#else
  (void)use, (void)stage;
  while (!phase_completed(bar, parity)) {
  }
#endif
  clocks_add_wait(which, waited_from);
}
// [wait]
#endif  // WB_HAS_BULK_COPY

// [kernel]
/// How the blocks of the ring share the tiles.
enum class TileOrder : int {
  kStrided = 0,  ///< block b takes tiles b, b + gridDim.x, b + 2 gridDim.x, ...: fixed at launch
  kTaken = 1     ///< each loader takes the next tile number from a counter in global memory
};

/// Copy n ints from `in` to `out` through a ring of `stages` stages of `stage_bytes` bytes in
/// dynamic shared memory, followed by the ring's 2 x `stages` barriers. One block per SM. With
/// TileOrder::kTaken the loader takes each tile as atomicAdd(counter) - counter_base (the
/// counter is never reset: every launch moves it by tiles + gridDim.x, since each loader also
/// takes one number past the last tile, which tells it to stop). The loader writes the tile's
/// number beside its stage, and the store lane reads it there once the stage has landed, so the
/// store lane follows the loader whatever the order. `in` and `out` share their alignment
/// modulo 128 bytes (the host checks).
__global__ void __launch_bounds__(kRingThreads, 1)
    ring_copy(const int* __restrict__ in, int* __restrict__ out, int64_t n, int stages, int stage_bytes,
              TileOrder order, unsigned long long* counter, unsigned long long counter_base) {
#if WB_HAS_BULK_COPY
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ int64_t tile_of[kMaxStages];  // the tile in each stage; -1: no more tiles
  uint64_t* full = reinterpret_cast<uint64_t*>(ring + int64_t(stages) * stage_bytes);
  uint64_t* empty = full + stages;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const RingSplit split = ring_split(in, n, stage_bytes);
  const unsigned char* body_in = reinterpret_cast<const unsigned char*>(in + split.head);
  unsigned char* body_out = reinterpret_cast<unsigned char*>(out + split.head);

  if (threadIdx.x == 0) {
    // One arrival completes a phase: the loader's (with its bytes) on full, the store lane's on empty.
    for (int s = 0; s < stages; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], 1);
    }
    barrier_init_fence();
  }
  clocks_begin();
  __syncthreads();
  const long long started = clocks_now();

  // The head and tail, at most 31 and 3 ints, by plain loads and stores (block 0's store warp).
  if (blockIdx.x == 0 && warp == kStoreWarp) {
    if (lane < split.head) out[lane] = in[lane];
    if (split.tail_begin + lane < n) out[split.tail_begin + lane] = in[split.tail_begin + lane];
  }

  if (warp == kLoaderWarp && lane == 0) {
    // The loader: refill each stage as soon as it is empty, whatever the store lane is doing.
    // Its first round waits for the phase of parity 1 of each empty barrier, which a fresh
    // barrier counts as completed: every stage starts empty. The tile's number goes beside
    // the stage before the arrival, whose release orders it before the phase completes.
    RingCursor at;
    for (int64_t k = 0;; ++k, at.advance(stages)) {
      wait_phase(&empty[at.stage], at.parity ^ 1, kCopyLoaderEmpty, k, at.stage);
      const int64_t tile = order == TileOrder::kTaken ? int64_t(atomicAdd(counter, 1ull) - counter_base)
                                                      : int64_t(blockIdx.x) + k * gridDim.x;
      if (tile >= split.tiles) {
        tile_of[at.stage] = -1;
        arrive(&full[at.stage]);  // no bytes: the phase completes at once, and the store lane stops
        break;
      }
      tile_of[at.stage] = tile;
      const int64_t offset = tile * stage_bytes;
      const uint32_t bytes = uint32_t(min(int64_t(stage_bytes), split.body_bytes - offset));
      arrive_expecting(&full[at.stage], bytes);
      bulk_load(ring + int64_t(at.stage) * stage_bytes, body_in + offset, bytes, &full[at.stage]);
    }
  } else if (warp == kStoreWarp && lane == 0) {
    // The store lane: drain each stage once it has landed, then hand it back to the loader.
    RingCursor at;
    for (int64_t k = 0;; ++k, at.advance(stages)) {
      wait_phase(&full[at.stage], at.parity, kCopyStoreFull, k, at.stage);
      const int64_t tile = tile_of[at.stage];
      if (tile < 0) break;
      const int64_t offset = tile * stage_bytes;
      const uint32_t bytes = uint32_t(min(int64_t(stage_bytes), split.body_bytes - offset));
      // No ordinary write touched this stage (the copy engine wrote it and will read it), so
      // the fence orders nothing here; the scan writes its results into the stage with
      // ordinary stores before storing it, and then it is required. One instruction a tile.
      fence_before_bulk_store();
      bulk_store(body_out + offset, ring + int64_t(at.stage) * stage_bytes, bytes);
      bulk_stores_read();
      arrive(&empty[at.stage]);
    }
    bulk_stores_done();
  }
  clocks_end(warp == kLoaderWarp ? kCopyLoader : kCopyStore, started);
#else
  (void)in, (void)out, (void)n, (void)stages, (void)stage_bytes, (void)order, (void)counter, (void)counter_base;
  __trap();  // never launched: the host refuses GPUs and builds without sm_90 code
#endif
}
// [kernel]

// ---- Step 2: the look-ahead scan on the ring ------------------------------------------------

// [scan_shape]
/// Warps that sum the landed tiles, and as many again that scan and store them.
constexpr int kSquadWarps = 4;
/// Ints per thread of those squads. Odd, so that the 32 lanes of a warp, each reading its own
/// 63 consecutive ints, hit 32 different banks of shared memory at every step.
constexpr int kItems = 63;
/// Ints per tile: 4 warps x 32 lanes x 63, 32,256 bytes (CCCL's tile for int on Hopper).
constexpr int kTileInts = kSquadWarps * 32 * kItems;
/// Bytes of a stage before its tile's 16-byte-aligned middle, which therefore lands on a
/// 128-byte boundary; the up to 3 ints of a misaligned tile's head go just before it.
constexpr int kStageLead = 128;
/// Bytes per stage of the scan's ring: the lead, a tile, and room after it for the tile's
/// tail (up to 3 ints past its last whole 16 bytes), rounded up to keep stages 128-byte aligned.
constexpr int kScanStageBytes = kStageLead + kTileInts * 4 + 128;

/// The scan's warps, by role.
enum ScanWarp : int {
  kTileLoaderWarp = 0,  ///< takes tile numbers and fills the stages
  kLookAheadWarp = 1,   ///< finds each tile's carry from the published tile sums
  kFirstReduceWarp = 2, ///< warps 2 to 5 sum each landed tile and publish its sum
  kFirstScanWarp = 2 + kSquadWarps  ///< warps 6 to 9 scan each tile and store it
};
/// Threads per block of the scan: 2 + 2 x 4 warps.
constexpr int kScanThreads = 32 * (2 + 2 * kSquadWarps);
/// Barriers per stage: numbered, full, reduced, carried, empty.
constexpr int kScanBarriersPerStage = 5;
/// Stages of the scan's ring unless --stages says otherwise. Measured on the H200 at 2^30
/// (median of 20, memcpy_d2d 4258.5 GB/s in the same session): 1 stage 1957.5 GB/s, 2 2577.2,
/// 3 3231.7, 4 3975.8, 5 4135.2, 6 4168.5, 7 4157.5 (7 is the most that fit).
constexpr int kDefaultScanStages = 6;
/// The hand-over: the look-ahead scan from this many tiles per SM up, chapter 17's tuned single
/// pass below, where a block's ring never fills. Measured on the H200 (median of 20, same run):
/// at 2^22 (3.9 tiles per SM) the look-ahead took 17.97 us and chapter 17 16.46; at 2^23 (7.9
/// per SM) 25.52 and 28.70; below 2^21 chapter 17 was faster at every power of two.
constexpr int64_t kHandOverTilesPerSm = 4;
/// Statuses each lane of the look-ahead warp reads at once: 4 x 32 tiles per round.
constexpr int kLookItems = 4;
// [scan_shape]

// [tile_cut]
/// Ints before the first 128-byte boundary at `in` (0 to 31, at most n). Where there are any,
/// they form a short tile 0 of their own, so that every other tile starts on a 128-byte line
/// and its bulk copies move whole lines (input and output alike: they share their alignment).
__host__ __device__ inline int64_t scan_head(const int* in, int64_t n) {
  const int64_t past = int64_t(reinterpret_cast<uintptr_t>(in) % uintptr_t(kBulkAlign));
  const int64_t head = (kBulkAlign - past) % kBulkAlign / 4;
  return head < n ? head : n;
}

/// Tiles of the scan of the n ints at `in`: the short tile 0 of the head, if any, then tiles of
/// kTileInts (the last one partial).
__host__ __device__ inline int64_t scan_tiles_for(const int* in, int64_t n) {
  const int64_t head = scan_head(in, n);
  return (head > 0 ? 1 : 0) + (n - head + kTileInts - 1) / kTileInts;
}

/// How one tile lies in memory. Every tile but the head's starts on a 128-byte boundary, so only
/// the head's tile and the last one can need plain loads and stores: bulk copies take a tile's
/// 16-byte-aligned middle, and its lead (ints before the first 16-byte boundary, 0 to 3) and
/// tail (after the last whole 16 bytes, 0 to 3) go by plain loads and stores.
struct TileCut {
  int64_t begin = 0;  ///< the tile's first int
  int count = 0;      ///< ints in the tile: kTileInts except in the head's tile and the last
  int lead = 0;       ///< ints of the lead
  int mid_bytes = 0;  ///< bytes of the middle, a multiple of 16 (0 in a tile of a few ints)
  int tail = 0;       ///< ints of the tail
};

/// The cut of tile `tile` of the n ints at `in`.
__host__ __device__ inline TileCut tile_cut(const int* in, int64_t n, int64_t tile) {
  TileCut c;
  const int64_t head = scan_head(in, n);
  if (head > 0 && tile == 0) {
    c.count = int(head);
  } else {
    c.begin = head + (head > 0 ? tile - 1 : tile) * kTileInts;
    c.count = int(n - c.begin < kTileInts ? n - c.begin : kTileInts);
  }
  const int past = int(reinterpret_cast<uintptr_t>(in + c.begin) % 16);  // 0, 4, 8 or 12 bytes
  const int lead = (16 - past) % 16 / 4;
  c.lead = lead < c.count ? lead : c.count;
  c.mid_bytes = (c.count - c.lead) / 4 * 16;
  c.tail = c.count - c.lead - c.mid_bytes / 4;
  return c;
}
// [tile_cut]

#if WB_HAS_BULK_COPY
/// Named barriers (bar.sync ids; 0 is __syncthreads) of the reduce and the scan squads.
constexpr int kReduceSquadBarrier = 1;
/// See kReduceSquadBarrier.
constexpr int kScanSquadBarrier = 2;

/// Wait at named barrier `id` with the 128 threads of one squad (the other warps go on).
__device__ __forceinline__ void squad_sync(int id) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(32 * kSquadWarps) : "memory");
}

// [ring]
/// The scan's ring in shared memory: S stages, and per stage five barriers and three small
/// slots. Every role walks the stages in the same order (RingCursor), so use k of the ring is
/// the block's k-th tile in every role. Per stage, in the order a tile passes them:
/// - numbered: the loader has put the tile's number in tile_of (1 arrival);
/// - full: the tile has landed (the loader's 32 lanes arrive, lane 0 announcing the bytes);
/// - reduced: the tile's sum is published, its warps' sums are in warp_sums, and the reduce
///   squad is done reading the stage (its 128 threads arrive);
/// - carried: the sum of all tiles before it is in carry_of (1 arrival);
/// - empty: the tile's results are stored and the stage may be refilled (the scan squad's 128
///   threads arrive).
/// Every thread that touched a stage arrives on the barrier that hands it on, rather than one
/// thread after a squad barrier: the order is then plain to see, and to compute-sanitizer's
/// racecheck, which reported the reduce squad's reads and the scan squad's writes as races when
/// one arrival after a bar.sync spoke for the squad.
struct ScanRing {
  unsigned char* data;  ///< the stages, kScanStageBytes each
  uint64_t* bars;       ///< kScanBarriersPerStage x S barriers
  int stages;           ///< S
  int64_t* tile_of;     ///< per stage: the tile in it; -1 once the loader found no more
  int* carry_of;        ///< per stage: the sum of every tile before its tile
  int* warp_sums;       ///< per stage: the reduce warps' 4 sums
  __device__ uint64_t* numbered(int s) const { return bars + s; }
  __device__ uint64_t* full(int s) const { return bars + stages + s; }
  __device__ uint64_t* reduced(int s) const { return bars + 2 * stages + s; }
  __device__ uint64_t* carried(int s) const { return bars + 3 * stages + s; }
  __device__ uint64_t* empty(int s) const { return bars + 4 * stages + s; }
  /// Where element 0 of the tile with cut `c` lies in stage s (its middle starts at kStageLead).
  __device__ int* elements(int s, const TileCut& c) const {
    return reinterpret_cast<int*>(data + int64_t(s) * kScanStageBytes + kStageLead) - c.lead;
  }
};
// [ring]

// [loader]
/// The loader warp: for each stage in turn, wait until it is empty, take the next tile number
/// (lane 0, from the counter), announce it, and fill the stage: lane 0 bulk-copies the middle,
/// lanes 1-3 and 4-6 load the head and the tail. A number past the last tile is announced as
/// -1, which stops every role.
__device__ void load_tiles(const ScanRing& r, const int* in, int64_t n, int64_t tiles, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32;
  RingCursor at;
  for (int64_t k = 0;; ++k, at.advance(r.stages)) {
    const int s = at.stage;
    wait_phase(r.empty(s), at.parity ^ 1, kLoaderEmpty, k, s);
    int64_t tile = 0;
    if (lane == 0) {
      tile = int64_t(atomicAdd(a.counter, 1ull) - a.counter_base);
      r.tile_of[s] = tile < tiles ? tile : -1;
      arrive(r.numbered(s));
    }
    tile = __shfl_sync(kFullMask, tile, 0);
    if (tile >= tiles) {
      arrive(r.full(s));  // no bytes: the phase completes once all 32 lanes are here
      break;
    }
    const TileCut c = tile_cut(in, n, tile);
    const int* src = in + c.begin;
    int* dst = r.elements(s, c);
    if (lane == 0) {
      if (c.mid_bytes > 0) {
        arrive_expecting(r.full(s), uint32_t(c.mid_bytes));
        bulk_load(dst + c.lead, src + c.lead, uint32_t(c.mid_bytes), r.full(s));
      } else {
        arrive(r.full(s));
      }
    } else {
      if (lane - 1 < c.lead) dst[lane - 1] = src[lane - 1];
      const int t = c.count - c.tail + (lane - 4);
      if (lane >= 4 && lane - 4 < c.tail) dst[t] = src[t];
      arrive(r.full(s));  // release: this lane's plain stores come before the phase completes
    }
  }
}
// [loader]

// [look_ahead]
/// The look-ahead warp: the carry of each of the block's tiles, the sum of all tiles before it.
/// It keeps the carry of the block's previous tile in a register, so that the carry of the next
/// one is that plus the published sums of the tiles in between: tiles numbered since, by other
/// blocks, and the previous tile itself. No tile ever publishes a prefix, so no carry waits on
/// another carry: only on tile sums, each of which needs only its own tile to have landed. It
/// starts as soon as the tile has a number, while the tile is still loading.
__device__ void look_ahead(const ScanRing& r, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32;
  int64_t next = 0;  // tiles [0, next) are summed in `carry`
  int carry = 0;
  RingCursor at;
  for (int64_t k = 0;; ++k, at.advance(r.stages)) {
    const int s = at.stage;
    wait_phase(r.numbered(s), at.parity, kLookNumbered, k, s);
    const int64_t tile = r.tile_of[s];
    if (tile < 0) break;
    stress_count(kStressTiles);
    while (next < tile) {
      // Up to 4 x 32 statuses at once, lane i reading tiles next + i, next + 32 + i, ...
      TileStatus st[kLookItems];
#pragma unroll
      for (int j = 0; j < kLookItems; ++j) {
        const int64_t other = next + j * 32 + lane;
        st[j] = other < tile ? observe(&a.statuses[other]) : status_word(a.epoch, kAggregate, 0);
      }
      // Each group of 32 adds its leading run of published sums; a gap ends the round.
#pragma unroll
      for (int j = 0; j < kLookItems; ++j) {
        const unsigned ready = __ballot_sync(kFullMask, is_current(st[j], a.epoch));
        const int run = ready == kFullMask ? 32 : __ffs(~ready) - 1;
        carry += warp_sum_to_all(lane < run ? value_of<int>(st[j]) : 0);
        const int64_t before = next;
        next = next + run < tile ? next + run : tile;
        stress_count(kStressChained, unsigned(next - before));
        if (run < 32) break;
        if (next < tile) stress_count(kStressWalks);  // on to the next 32 tiles
      }
      if (next < tile) stress_count(kStressWaits);
    }
    if (lane == 0) {
      r.carry_of[s] = carry;
      arrive(r.carried(s));
    }
  }
}
// [look_ahead]

// [reduce]
/// A reduce warp (0 to 3 of its squad): for each landed tile, the sum of its 32 lanes' 63 ints
/// each; the squad's first lane then publishes the tile's sum, as soon as it is known, and
/// leaves the four warps' sums for the scan squad.
__device__ void reduce_tiles(const ScanRing& r, const int* in, int64_t n, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32, w = int(threadIdx.x) / 32 - kFirstReduceWarp;
  const int first = (w * 32 + lane) * kItems;
  RingCursor at;
  for (int64_t k = 0;; ++k, at.advance(r.stages)) {
    const int s = at.stage;
    wait_phase(r.full(s), at.parity, kReduceFull, k, s);
    const int64_t tile = r.tile_of[s];
    if (tile < 0) break;
    const TileCut c = tile_cut(in, n, tile);
    const int* mine = r.elements(s, c) + first;
    int sum = 0;
    if (c.count == kTileInts) {
#pragma unroll
      for (int j = 0; j < kItems; ++j) sum += mine[j];
    } else {
      for (int j = 0; j < kItems; ++j)
        if (first + j < c.count) sum += mine[j];
    }
    sum = warp_sum_to_all(sum);
    if (lane == 0) r.warp_sums[s * kSquadWarps + w] = sum;
    squad_sync(kReduceSquadBarrier);
    if (w == 0 && lane == 0) {
      int total = 0;
#pragma unroll
      for (int i = 0; i < kSquadWarps; ++i) total += r.warp_sums[s * kSquadWarps + i];
      stress_delay(a, tile, kAggregate);
      publish(&a.statuses[tile], a.epoch, kAggregate, total);
    }
    // Every thread of the squad arrives, after its last read of the stage: the scan squad
    // overwrites the stage with its results once the phase completes.
    arrive(r.reduced(s));
  }
}
// [reduce]

// [scan_store]
/// A scan warp (0 to 3 of its squad): for each landed tile, scan its lane's 63 ints in
/// registers, add what comes before them (the carry, the squad's earlier warps, the warp's
/// earlier lanes), write them back into the stage and, once the squad is done, store the
/// stage: its first lane bulk-stores the middle, lanes 1-6 store the head and the tail; then
/// the stage is empty.
__device__ void scan_tiles(const ScanRing& r, const int* in, int64_t n, int* out) {
  const int lane = int(threadIdx.x) % 32, w = int(threadIdx.x) / 32 - kFirstScanWarp;
  const int first = (w * 32 + lane) * kItems;
  RingCursor at;
  for (int64_t k = 0;; ++k, at.advance(r.stages)) {
    const int s = at.stage;
    wait_phase(r.full(s), at.parity, kScanFull, k, s);
    const int64_t tile = r.tile_of[s];
    if (tile < 0) break;
    const TileCut c = tile_cut(in, n, tile);
    int* elems = r.elements(s, c);
    int* mine = elems + first;
    int items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) items[j] = first + j < c.count ? mine[j] : 0;
#pragma unroll
    for (int j = 1; j < kItems; ++j) items[j] += items[j - 1];
    const int lanes_before = warp_inclusive_scan(items[kItems - 1]) - items[kItems - 1];
    wait_phase(r.reduced(s), at.parity, kScanReduced, k, s);
    int warps_before = 0;
    for (int i = 0; i < w; ++i) warps_before += r.warp_sums[s * kSquadWarps + i];
    wait_phase(r.carried(s), at.parity, kScanCarried, k, s);
    const int before = r.carry_of[s] + warps_before + lanes_before;
#pragma unroll
    for (int j = 0; j < kItems; ++j) mine[j] = items[j] + before;
    // The results must reach the copy engine (the async proxy) before the bulk store reads them.
    fence_before_bulk_store();
    squad_sync(kScanSquadBarrier);
    if (w == 0) {
      int* dst = out + c.begin;
      if (lane == 0 && c.mid_bytes > 0) {
        bulk_store(dst + c.lead, elems + c.lead, uint32_t(c.mid_bytes));
        bulk_stores_read();
      }
      if (lane >= 1 && lane - 1 < c.lead) dst[lane - 1] = elems[lane - 1];
      const int t = c.count - c.tail + (lane - 4);
      if (lane >= 4 && lane - 4 < c.tail) dst[t] = elems[t];
    }
    // Every thread of the squad arrives, after its last use of the stage; lane 0 of the first
    // warp only once its bulk store has read the stage, so the phase cannot complete before.
    arrive(r.empty(s));
  }
  if (w == 0 && lane == 0) bulk_stores_done();
}
// [scan_store]
#endif  // WB_HAS_BULK_COPY

// [scan_kernel]
/// The look-ahead scan of n ints: out[i] = in[0] + ... + in[i]. One block per SM, of
/// kScanThreads threads in four roles, with a ring of `stages` stages of kScanStageBytes in
/// dynamic shared memory followed by their barriers. Tiles are numbered by the counter in `a`
/// (chapter 17's, counting from a.counter_base; every launch moves it by tiles + gridDim.x,
/// since each loader takes one number past the last tile), and each tile's sum is published in
/// a.statuses as chapter 17's aggregates, with its epoch.
__global__ void __launch_bounds__(kScanThreads, 1)
    scan_lookahead(const int* __restrict__ in, int64_t n, int* __restrict__ out, int stages, LookBackArgs a) {
#if WB_HAS_BULK_COPY
  extern __shared__ __align__(128) unsigned char scan_ring[];
  __shared__ int64_t tile_of[kMaxStages];
  __shared__ int carry_of[kMaxStages];
  __shared__ int warp_sums[kMaxStages * kSquadWarps];
  const ScanRing r{scan_ring, reinterpret_cast<uint64_t*>(scan_ring + int64_t(stages) * kScanStageBytes), stages,
                   tile_of, carry_of, warp_sums};
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      barrier_init(r.numbered(s), 1);
      barrier_init(r.full(s), 32);
      barrier_init(r.reduced(s), 32 * kSquadWarps);
      barrier_init(r.carried(s), 1);
      barrier_init(r.empty(s), 32 * kSquadWarps);
    }
    barrier_init_fence();
  }
  clocks_begin();
  __syncthreads();
  const long long started = clocks_now();
  const int warp = int(threadIdx.x) / 32;
  if (warp == kTileLoaderWarp) load_tiles(r, in, n, scan_tiles_for(in, n), a);
  else if (warp == kLookAheadWarp) look_ahead(r, a);
  else if (warp < kFirstScanWarp) reduce_tiles(r, in, n, a);
  else scan_tiles(r, in, n, out);
  clocks_end(warp == kTileLoaderWarp  ? kLoaderRole
             : warp == kLookAheadWarp ? kLookAheadRole
             : warp < kFirstScanWarp  ? kReduceRole
                                      : kScanRole,
             started);
#else
  (void)in, (void)n, (void)out, (void)stages, (void)a;
  __trap();  // never launched: the host refuses GPUs and builds without sm_90 code
#endif
}
// [scan_kernel]

/// --stages S and --stage-bytes B, flags of this chapter's harness: the shared parser refuses a
/// value that breaks their rules, and lists them in --help and --info.
std::vector<wb::HarnessFlag> ring_flag_specs() {
  return {{"--stages", "S", 1, kMaxStages,
           "  --stages S    shared-memory stages in each ring, from 1 to 64 (default: the scan 6, the ring\n"
           "                copy 2; fewer where they do not fit)\n"},
          {"--stage-bytes", "B", kBulkAlign, kMaxStageBytes,
           "  --stage-bytes B  bytes per stage of the ring copy: a multiple of 128 from 128 to 232320\n"
           "                (default 32256, one tile of the scan); S x B must fit in a block's shared memory\n",
           kBulkAlign}};
}

/// The ring's shape from the command line, and whether each flag was given.
struct RingFlags {
  int stages = 0;                        ///< --stages S (0 where it was not given)
  int stage_bytes = kDefaultStageBytes;  ///< --stage-bytes B
  bool stages_given = false;             ///< whether --stages was on the command line
  bool stage_bytes_given = false;        ///< whether --stage-bytes was on the command line
};

/// The ring's flags as parsed (0 stands for "not given": neither flag takes 0).
RingFlags ring_flags_of(const wb::Options& opt) {
  RingFlags f;
  f.stages = int(opt.harness_value("--stages", 0));
  f.stages_given = f.stages != 0;
  const int64_t bytes = opt.harness_value("--stage-bytes", 0);
  f.stage_bytes_given = bytes != 0;
  if (f.stage_bytes_given) f.stage_bytes = int(bytes);
  return f;
}

/// Dynamic shared memory for a ring: the stages, then a full and an empty barrier per stage.
int64_t ring_shared_bytes(int stages, int stage_bytes) {
  return int64_t(stages) * stage_bytes + 2 * int64_t(stages) * int64_t(sizeof(uint64_t));
}

/// Dynamic shared memory for the scan's ring: the stages, then five barriers per stage.
int64_t scan_shared_bytes(int stages) {
  return int64_t(stages) * kScanStageBytes + kScanBarriersPerStage * int64_t(stages) * int64_t(sizeof(uint64_t));
}

#ifdef WB_RING_CLOCKS
/// The clock build: zero the counts before the runs of one row.
void ring_clocks_begin() {
  const RingClocks zero{};
  WB_CHECK(cudaMemcpyToSymbol(g_ring_clocks, &zero, sizeof zero));
}
/// The clock build: after the runs of `row`, each role's share of its time spent in each of its
/// waits, one note line per role that ran.
void ring_clocks_report(const wb::Options& opt, const char* row) {
  RingClocks c{};
  WB_CHECK(cudaMemcpyFromSymbol(&c, g_ring_clocks, sizeof c));
  for (int role = 0; role < kRoles; ++role) {
    if (c.role[role] == 0) continue;
    std::string line;
    for (int w = 0; w < kWaits; ++w) {
      if (kRoleOfWait[w] != role) continue;
      char part[120];
      std::snprintf(part, sizeof part, "%s%.1f%% waiting (%s)", line.empty() ? "" : ", ",
                    100.0 * double(c.wait[w]) / double(c.role[role]), wait_name(Wait(w)));
      line += part;
    }
    wb::note(opt, "clocks %s: %s: %s\n", row, kRoleNames[role], line.c_str());
  }
}
#else
/// The normal build reads no clocks.
void ring_clocks_begin() {}
/// See ring_clocks_begin().
void ring_clocks_report(const wb::Options&, const char*) {}
#endif

/// Exit 77 where this GPU or this build cannot run the ring: a GPU older than sm_90 has no bulk
/// copies, and a build without sm_90 code runs the kernels' stubs (the driver compiles the
/// compute_75 PTX of such a build for a Hopper GPU, so a check of the GPU alone would pass).
void require_bulk_copies(const wb::Device& dev) {
  if (dev.major < 9) {
    std::fprintf(stderr,
                 "skipped: chapter 22 needs compute capability 9.0 or newer (bulk copies and transaction-count "
                 "mbarriers); device %d, %s, is sm_%d%d: nothing to run, exiting 77\n",
                 dev.id, dev.name.c_str(), dev.major, dev.minor);
    std::exit(77);
  }
  cudaFuncAttributes attributes;
  WB_CHECK(cudaFuncGetAttributes(&attributes, ring_copy));
  if (attributes.ptxVersion < 90) {
    std::fprintf(stderr,
                 "chapter22 was built without sm_90 code (its ring kernel comes from compute_%d), so it cannot run the "
                 "ring on this sm_%d%d GPU: build it for this GPU (make chapter22, or CMAKE_CUDA_ARCHITECTURES with 90); "
                 "exiting 77\n",
                 attributes.ptxVersion, dev.major, dev.minor);
    std::exit(77);
  }
}

/// What a block of `kernel` may have in dynamic shared memory on this GPU: the opt-in limit less
/// the kernel's static shared memory.
template <class Kernel>
int64_t dynamic_shared_limit(Kernel kernel, const wb::Device& dev) {
  cudaFuncAttributes attributes;
  WB_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return int64_t(dev.max_smem_per_block) - int64_t(attributes.sharedSizeBytes);
}

/// The stages a ring gets: --stages if given, else `preferred`, lowered with a note until they
/// fit in `limit` bytes. Where even those do not fit, exit 2 with `refusal(S, limit)`, which
/// says what S stages need. `bytes(S)` is the ring's shared memory with S stages.
template <class Bytes, class Refusal>
int fit_stages(const RingFlags& f, int preferred, int64_t limit, Bytes bytes, Refusal refusal, const char* ring,
               const wb::Options& opt) {
  int stages = f.stages_given ? f.stages : preferred;
  while (!f.stages_given && stages > 1 && bytes(stages) > limit) --stages;
  if (bytes(stages) > limit) {
    std::fprintf(stderr, "chapter22: %s\n", refusal(stages, limit).c_str());
    std::exit(2);
  }
  if (stages != preferred)
    wb::note(opt, "note: the %s's %d stages need more shared memory per block than this GPU allows (%lld bytes); "
                  "using %d stages\n",
             ring, preferred, (long long)limit, stages);
  return stages;
}

// [cub]
/// cub::DeviceScan::InclusiveSum, as chapter 17 calls it: a 32-bit item count where N allows
/// (CUB's fastest path), a 64-bit one beyond. With `temp` null it only sets `temp_bytes`.
cudaError_t cub_inclusive_sum(void* temp, size_t& temp_bytes, const int* in, int* out, int64_t n) {
  if (n <= INT32_MAX) return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, int(n));
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n);
}
// [cub]

/// The name of CUB's row in the report.
const char* const kCubRow = "cub::DeviceScan::InclusiveSum";

/// The note beside a scan's row in the human table: CUB's time over the row's (above 1: ours is faster).
std::string versus_cub(const wb::Row& cub, const wb::Row& ours) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx CUB", ours.median_ms > 0 ? cub.median_ms / ours.median_ms : 0.0);
  return text;
}

/// The smallest N of `--variant sweep`.
constexpr int64_t kSweepFrom = int64_t(1) << 8;
/// The largest N of `--variant sweep` when --n is not given.
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "22";
  spec.slug = "scan-lookahead";
  spec.idea = "the look-ahead scan: a ring of shared-memory stages that bulk copies (TMA) fill and drain, "
              "guarded by mbarriers, and warps in roles (load, look ahead, reduce, scan and store), beside "
              "chapter 17's single pass and CUB";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  const std::vector<std::string> scan_rows = {kCubRow, "scan_single_pass_tuned", "scan_lookahead",
                                              "scan_lookahead_handover"};
  const std::vector<std::string> copy_rows = {"memcpy_d2d", "ring_copy_strided", "ring_copy"};
  const wb::VariantSpec scan{"scan", scan_rows}, ring{"ring_copy", copy_rows};
  spec.variants = {wb::every_variant({scan, ring}), scan, ring, {"lookahead", {"scan_lookahead"}}, {"sweep", scan_rows}};
  spec.harness_flags = ring_flag_specs();

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const RingFlags ring_flags = ring_flags_of(opt);
  const bool sweep = opt.variant == "sweep";
  const bool copies = opt.variant == "ring_copy" || opt.variant == "all";
  const bool scans = opt.variant != "ring_copy";
  if (ring_flags.stage_bytes_given && !copies) {
    std::fprintf(stderr,
                 "chapter22: --stage-bytes sets the ring copy's stages, which --variant %s does not run (a stage of "
                 "the scan holds one tile of %d ints)\n",
                 opt.variant.c_str(), kTileInts);
    return 2;
  }
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  wb::Device dev = wb::open_device(opt);
  require_bulk_copies(dev);
  const int copy_stage_bytes = ring_flags.stage_bytes;
  int copy_stages = 0, scan_stages = 0;
  if (copies) {
    copy_stages = fit_stages(
        ring_flags, kDefaultStages, dynamic_shared_limit(ring_copy, dev),
        [&](int stages) { return ring_shared_bytes(stages, copy_stage_bytes); },
        [&](int stages, int64_t limit) {
          return "--stages " + std::to_string(stages) + " --stage-bytes " + std::to_string(copy_stage_bytes) + " need " +
                 std::to_string(ring_shared_bytes(stages, copy_stage_bytes)) +
                 " bytes of shared memory per block (the stages and their " + std::to_string(2 * stages) +
                 " barriers); this GPU allows " + std::to_string(limit) + ": give fewer or smaller stages";
        },
        "ring copy", opt);
    WB_CHECK(cudaFuncSetAttribute(ring_copy, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(ring_shared_bytes(copy_stages, copy_stage_bytes))));
  }
  if (scans) {
    scan_stages = fit_stages(
        ring_flags, kDefaultScanStages, dynamic_shared_limit(scan_lookahead, dev), scan_shared_bytes,
        [&](int stages, int64_t limit) {
          return "--stages " + std::to_string(stages) + " need " + std::to_string(scan_shared_bytes(stages)) +
                 " bytes of shared memory per block for the scan (stages of " + std::to_string(kScanStageBytes) +
                 " bytes and their " + std::to_string(kScanBarriersPerStage * stages) + " barriers); this GPU allows " +
                 std::to_string(limit) + ": give fewer stages";
        },
        "scan", opt);
    WB_CHECK(cudaFuncSetAttribute(scan_lookahead, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(scan_shared_bytes(scan_stages))));
  }

  // Input, output and the device copy of the expected output; 8 bytes of status per tile.
  wb::fit_default_n(opt, dev, 8.0 + 0.05);
  wb::Input in = wb::make_input(opt);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  // Bulk copies move data between two addresses of the same alignment; the harness places the
  // input and the output alike, so this holds for every --offset.
  if ((reinterpret_cast<uintptr_t>(in.d) ^ reinterpret_cast<uintptr_t>(out.d)) % uintptr_t(kBulkAlign) != 0) {
    std::fprintf(stderr, "FAIL chapter22: the input and the output are not aligned alike modulo %d bytes\n",
                 int(kBulkAlign));
    return 1;
  }
  std::vector<int64_t> sizes;
  if (sweep)
    for (int64_t s = kSweepFrom; s < in.n; s *= 2) sizes.push_back(s);
  sizes.push_back(in.n);

  std::vector<int32_t> want;
  size_t cub_bytes = 0;
  if (scans) {
    want.resize(size_t(in.n));
    wb::cpu_scan_inclusive(in.host.data(), want.data(), in.n);
    for (const int64_t s : sizes) {
      size_t bytes = 0;
      WB_CHECK(cub_inclusive_sum(nullptr, bytes, in.d, out.d, s));
      cub_bytes = std::max(cub_bytes, bytes);
    }
  }
  wb::DeviceBuffer<char> cub_temp(std::max<size_t>(cub_bytes, 1), "CUB's temporary storage");
  // Chapter 17's counter and statuses for its single pass, and another pair for the look-ahead
  // scan, whose loaders take one number each past the last tile.
  SinglePass chapter17(scans ? tiles_for(in.n, kBlock, kSmallInputBatch) : 1);
  SinglePass lookahead(scans ? scan_tiles_for(in.d, in.n) + dev.sms : 1);
  wb::Options chapter17_opt = opt;  // chapter 17's tuned policy, from chapter 17's own defaults
  chapter17_opt.block = kBlock;
  chapter17_opt.batch = kBatch;
  chapter17_opt.batch_given = false;

  wb::Bench bench(spec, opt, dev, in);
  const double copy_bytes = 8.0 * in.n;
  stress_begin(opt);

  if (copies) {
    // A copy's element 0 alone holds input element 0, which the harness changes between runs.
    wb::Case memcpy_case{"memcpy_d2d", in.n, 0, 0, copy_bytes, 0};
    memcpy_case.outputs_with_first = 1;
    bench.run(memcpy_case,
              [&] { WB_CHECK(cudaMemcpyAsync(out.d, in.d, size_t(in.n) * 4, cudaMemcpyDeviceToDevice)); }, out.d,
              in.host.data(), in.n);

    // [launch]
    const RingSplit split = ring_split(in.d, in.n, copy_stage_bytes);
    // One block per SM; at least one block for the head and tail.
    const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(split.tiles, dev.sms));
    const int64_t shared_bytes = ring_shared_bytes(copy_stages, copy_stage_bytes);
    const int resident = wb::blocks_per_sm(ring_copy, kRingThreads, size_t(shared_bytes));
    wb::DeviceBuffer<unsigned long long> counter(1, "the tile counter");
    WB_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
    unsigned long long counter_base = 0;  // where the counter stands before the next launch
    for (const TileOrder order : {TileOrder::kStrided, TileOrder::kTaken}) {
      const bool taken = order == TileOrder::kTaken;
      wb::Case ring_case{taken ? "ring_copy" : "ring_copy_strided", in.n, kRingThreads, 0, copy_bytes, resident};
      ring_case.outputs_with_first = 1;
      ring_case.config = "stages=" + std::to_string(copy_stages) + " stage_bytes=" + std::to_string(copy_stage_bytes) +
                         (taken ? " tiles=taken" : " tiles=strided");
      ring_clocks_begin();
      bench.run(ring_case,
                [&] {
                  ring_copy<<<unsigned(grid), kRingThreads, size_t(shared_bytes)>>>(
                      in.d, out.d, in.n, copy_stages, copy_stage_bytes, order, counter.get(), counter_base);
                  if (taken) counter_base += static_cast<unsigned long long>(split.tiles + grid);
                },
                out.d, in.host.data(), in.n);
      ring_clocks_report(opt, ring_case.kernel.c_str());
      char ring_note[160];
      std::snprintf(ring_note, sizeof ring_note, "%d stages x %d B, %lld tiles on %lld blocks, %s", copy_stages,
                    copy_stage_bytes, (long long)split.tiles, (long long)grid,
                    taken ? "each taken from a counter" : "block b takes b, b + grid, ...");
      bench.annotate_last(ring_note);
    }
    // [launch]
  }

  // [scan_launch]
  ScanPolicy epochs;  // the look-ahead's statuses are told apart by epoch, never cleared
  epochs.clear_statuses = false;
  const int64_t scan_smem = scan_shared_bytes(scan_stages);
  auto launch_lookahead = [&](int64_t s) {
    const int64_t tiles = scan_tiles_for(in.d, s);
    const int64_t grid = std::min<int64_t>(tiles, dev.sms);  // one persistent block per SM
    const LookBackArgs a = lookahead.next_launch(epochs, tiles + grid);
    scan_lookahead<<<unsigned(grid), kScanThreads, size_t(scan_smem)>>>(in.d, s, out.d, scan_stages, a);
  };
  // [scan_launch]
  const std::string lookahead_config = "stages=" + std::to_string(scan_stages) + " tile=" +
                                       std::to_string(kSquadWarps) + "x32x" + std::to_string(kItems) +
                                       " look_items=" + std::to_string(kLookItems);
  const int lookahead_per_sm = wb::blocks_per_sm(scan_lookahead, kScanThreads, size_t(scan_smem));
  for (const int64_t s : scans ? sizes : std::vector<int64_t>{}) {
    const bool all_scans = opt.variant != "lookahead";
    // Chapter 17's tuned single pass for this N, its row and the hand-over's small inputs.
    const ScanPolicy p = choose_policy(chapter17_opt, dev, s);
    const SinglePassKernel<NoCarryIn> k = single_pass_kernel(p.batch, p.block);
    wb::Row cub;
    if (all_scans) {
      cub = bench.run({kCubRow, s, 0, 0, 0, 0},
                      [&] { WB_CHECK(cub_inclusive_sum(cub_temp.get(), cub_bytes, in.d, out.d, s)); }, out.d,
                      want.data(), s);
      wb::Case c{"scan_single_pass_tuned", s, p.block, p.batch, 0,
                 wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch))};
      c.config = p.describe();
      const wb::Row r = bench.run(c, [&] { chapter17.launch(p, k, in.d, s, out.d); }, out.d, want.data(), s);
      bench.annotate_last(versus_cub(cub, r));
    }
    wb::Case c{"scan_lookahead", s, kScanThreads, kItems, 0, lookahead_per_sm};
    c.config = lookahead_config;
    ring_clocks_begin();
    const wb::Row r = bench.run(c, [&] { launch_lookahead(s); }, out.d, want.data(), s);
    if (s == in.n) ring_clocks_report(opt, "scan_lookahead");
    if (all_scans) bench.annotate_last(versus_cub(cub, r));
    if (!all_scans) continue;
    // [handover]
    // Below kHandOverTilesPerSm tiles per SM the ring never fills, and chapter 17's single pass is faster.
    const bool ring_fills = scan_tiles_for(in.d, s) >= kHandOverTilesPerSm * int64_t(dev.sms);
    wb::Case h = ring_fills ? c : wb::Case{"", s, p.block, p.batch, 0, wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch))};
    h.kernel = "scan_lookahead_handover";
    h.config = ring_fills ? lookahead_config : "handed over to chapter 17: " + p.describe();
    const wb::Row hr = bench.run(
        h, [&] { ring_fills ? launch_lookahead(s) : chapter17.launch(p, k, in.d, s, out.d); }, out.d, want.data(), s);
    // [handover]
    bench.annotate_last(versus_cub(cub, hr) + (ring_fills ? "" : ", chapter 17's kernel"));
  }
  stress_report(opt);
  return bench.finish();
}
