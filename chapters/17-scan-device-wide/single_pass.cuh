/// @file single_pass.cuh
/// @brief Chapter 17's single-pass scan with decoupled look-back, with what it is made of: the
/// warp and block scans, the tile load and store, the tile statuses, the stress build's hooks,
/// the tuned policy and the launcher that keeps the statuses between launches.
///
/// Chapter 17's program includes it, and so does chapter 18's, which scans each GPU's shard
/// with the same kernel: that is why it is a header and not part of the chapter's .cu. The
/// kernel takes a carry callback (`Carry`), as CUB's single pass takes a prefix callback: tile
/// 0 starts from what it returns. Chapter 17 scans a whole array and passes NoCarry (0);
/// chapter 18 passes the sum of the shards before its own.
///
/// The element type T is any 4-byte type with `+` (int for chapters 17 and 18, float for
/// chapter 19, unsigned for chapter 21's counts): a status word packs a flag and the value's 32
/// bits. With floats the order of the look-back's additions matters, and LookBackOrder says which
/// one the kernel uses. A kernel that is no scan but needs the carries between its tiles
/// (chapter 21's compaction carries counts) calls look_back() itself and takes its launch's tile
/// counter, statuses and epoch from SinglePass::next_launch().
#pragma once

#include <cuda/atomic>

#include <type_traits>

#include "workbook.cuh"


/// Threads per tile unless --block says otherwise.
constexpr int kBlock = 256;

/// Elements per thread (K) unless --batch says otherwise; a tile is block x K elements.
/// The tuned variant takes kSmallInputBatch instead for small inputs (choose_policy()).
constexpr int kBatch = 32;

/// The largest K: the padded layout of load_tile is conflict-free for powers of two up to 32.
constexpr int kMaxBatch = 32;

/// Nanoseconds a tile sleeps after publishing its aggregate before its first look at its
/// predecessors, and between looks while one it needs is not ready, when the grid is larger
/// than one wave of resident blocks. Then most of the waiting is for predecessors that are
/// still loading their tiles, so looking sooner only finds them unfinished; a sleep lets
/// them publish first. Chosen by timing on an H200 (the page shows the grid, and the cliff
/// above 4000 ns there).
constexpr unsigned kPatientFirstLookNs = 3000;
/// See kPatientFirstLookNs.
constexpr unsigned kPatientPollNs = 1000;
/// The tuned variant's delays when the whole grid fits in one wave: every tile starts at
/// once, the kernel lasts a few microseconds, and a 3 us sleep would be most of it.
constexpr unsigned kEagerFirstLookNs = 0;
/// See kEagerFirstLookNs.
constexpr unsigned kEagerPollNs = 100;
/// Tiles one look-back step inspects: one per lane of the looking warp.
constexpr int kWindow = 32;
/// The tuned variant uses tiles of block x kSmallInputBatch when tiles of block x kBatch
/// would number fewer than this: a small input is all latency, and a short tile has less
/// serial work per thread and spreads over more SMs.
constexpr int64_t kSmallInputTiles = 16;
/// See kSmallInputTiles.
constexpr int kSmallInputBatch = 8;

/// Threads per warp.
constexpr int kWarp = 32;

/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;

/// Shared memory (ints) that one warp needs to stage K elements per lane: K rows of 32
/// ints, each followed by one unused int (see load_tile).
__host__ __device__ constexpr int stage_ints_per_warp(int k) { return (kWarp + 1) * k; }

// [warp]
/// Inclusive scan of one value per lane across a full warp, in registers.
/// `__shfl_up_sync` hands each lane the value of the lane `offset` below it; the lanes
/// below `offset` have no such neighbour and keep their value.
template <class T>
__device__ T warp_inclusive_scan(T value) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const T left = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += left;
  }
  return value;
}

/// Sum of one value per lane across a full warp, every lane receiving it (chapters 07-11's
/// warp_sum leaves it in lane 0 only, hence the different name). sm_80 and later add ints (and
/// unsigned ints) in one instruction; floats, and older GPUs, use a butterfly of shuffles, after
/// which every lane has the sum (for floats the same bits in every lane: each step adds the same
/// two values in both lanes of a pair, and float addition commutes).
template <class T>
__device__ T warp_sum_to_all(T value) {
#if WB_HAS_REDUCE_ADD
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned>) {
    return __reduce_add_sync(kFullMask, value);
  } else
#endif
  {
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(kFullMask, value, offset);
    return value;
  }
}
// [warp]

// [block]
/// The sum of one value per thread across the block, returned to every thread. Each warp
/// leaves its total in `warp_totals` (a shared array of 32 ints), which block_exclusive_prefix()
/// then reads. It holds a barrier, so every thread of the block must call it.
template <class T>
__device__ T block_sum(T value, T* warp_totals) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const T warp_total = warp_sum_to_all(value);
  if (lane == 0) warp_totals[warp] = warp_total;
  __syncthreads();
  return warp_sum_to_all(lane < int(blockDim.x) / kWarp ? warp_totals[lane] : T(0));
}

/// After block_sum(value, warp_totals): the sum of the values of all threads before this one
/// (chapter 15's two levels: the lanes before it in its warp, then the warps before its own).
/// Integers take the inclusive scan minus the value, which is exact for them; a float minus
/// what was added to it is not the float before, so floats take the lane below's inclusive
/// scan instead.
template <class T>
__device__ T block_exclusive_prefix(T value, const T* warp_totals) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const T warps_before = warp_sum_to_all(lane < warp ? warp_totals[lane] : T(0));
  if constexpr (std::is_integral_v<T>) {
    return warps_before + warp_inclusive_scan(value) - value;
  } else {
    const T lanes_before = __shfl_up_sync(kFullMask, warp_inclusive_scan(value), 1);
    return lane == 0 ? warps_before : warps_before + lanes_before;
  }
}
// [block]

// [transpose]
/// Chapter 16's coalesced load: thread t gets the tile's K consecutive elements
/// [t K, t K + K) in `items`, zeros past `count`. Each warp reads 32 consecutive ints at a
/// time into its own part of `stage` (rows of 33 ints: conflict-free both ways), then each
/// lane takes its K from there.
template <int K, class T>
__device__ void load_tile(const T* tile, int count, T* stage, T (&items)[K]) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;  // this lane's element in the warp's load 0
  T* const part = stage + warp * stage_ints_per_warp(K);
#pragma unroll
  for (int j = 0; j < K; ++j)
    part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? tile[first + j * kWarp] : T(0);
  __syncwarp();
  const T* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine[i];
}

/// The reverse of load_tile: thread t's `items` go to tile[t K, t K + K), through the
/// warp's part of `stage`, and only the first `count` elements are written.
/// The caller must have passed a barrier since this warp's load_tile read `stage`.
template <int K, class T>
__device__ void store_tile(T* tile, int count, T* stage, const T (&items)[K]) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;
  T* const part = stage + warp * stage_ints_per_warp(K);
  T* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) mine[i] = items[i];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (first + j * kWarp < count) tile[first + j * kWarp] = part[j * (kWarp + 1) + lane];
}
// [transpose]

/// Serial inclusive scan of a thread's K elements in registers; returns their total.
template <int K, class T>
__device__ T thread_scan(T (&items)[K]) {
#pragma unroll
  for (int i = 1; i < K; ++i) items[i] += items[i - 1];
  return items[K - 1];
}

/// Elements of tile `tile` (of `tile_size`) that lie before n: tile_size except in the last.
__device__ int tile_count(int64_t tile, int tile_size, int64_t n) {
  const int64_t first = tile * tile_size;
  return n - first < tile_size ? int(n - first) : tile_size;
}

/// A value's 32 bits, for its status word (an int's as they are, a float's bit pattern).
__device__ unsigned value_bits(int value) { return unsigned(value); }
/// See value_bits(int).
__device__ unsigned value_bits(float value) { return __float_as_uint(value); }
/// See value_bits(int): a count as it is.
__device__ unsigned value_bits(unsigned value) { return value; }

// [status]
/// A tile's status: one 64-bit word, so that one atomic store publishes all of it and one
/// atomic load reads all of it. The high 32 bits hold the launch's epoch (bits 2 to 31) and
/// the flag (bits 0 and 1); the low 32 bits hold the value.
using TileStatus = unsigned long long;

/// Flag: the value is the tile's own sum (its aggregate).
constexpr unsigned kAggregate = 1;
/// Flag: the value is the sum of the tile and every tile before it (its inclusive prefix).
constexpr unsigned kPrefix = 2;
/// Epochs run from 1 to this one; then every status word is cleared and they start again
/// at 1. So a word of epoch 0 (what a clear leaves) is never current, and neither is a word
/// left by an earlier launch: its epoch is an earlier one.
constexpr unsigned kLastEpoch = (1u << 30) - 1;

/// The epoch of a SinglePass's first launch: 1, or the test hook WB_FIRST_EPOCH (1 to
/// kLastEpoch), with which a test starts near the last epoch so that the wrap-around (every
/// status cleared, epochs from 1 again) and the largest epochs' status words run within a few
/// launches.
inline unsigned first_epoch() { return unsigned(wb::env_whole_number("WB_FIRST_EPOCH", 1, kLastEpoch, 1)); }

/// What one launch of the single pass needs besides its input and output.
struct LookBackArgs {
  unsigned long long* counter;  ///< the tile counter: tiles are numbered counter - counter_base
  unsigned long long counter_base;  ///< the counter's value when this launch began
  TileStatus* statuses;         ///< one word per tile
  unsigned epoch;               ///< this launch's number: a status of another epoch is "not ready"
  unsigned first_look_ns;       ///< sleep between publishing the aggregate and the first look
  unsigned poll_ns;             ///< sleep between looks while a needed tile is not ready
};

/// The status word of `flag` and `value` in `epoch`.
template <class T>
__device__ TileStatus status_word(unsigned epoch, unsigned flag, T value) {
  return (TileStatus((epoch << 2) | flag) << 32) | value_bits(value);
}

/// Whether a status word was published in `epoch`: anything else (a word of an earlier
/// launch, or a cleared one) means the tile has published nothing yet in this launch.
__device__ bool is_current(TileStatus s, unsigned epoch) { return unsigned(s >> 32) >> 2 == epoch; }

/// The flag of a status word.
__device__ unsigned flag_of(TileStatus s) { return unsigned(s >> 32) & 3u; }

/// Publish a tile's flag and value in one relaxed atomic store at device scope.
///
/// Why relaxed is enough: a reader uses nothing that the writer wrote except this word,
/// and the word carries its own value, so there is no other data whose visibility the
/// store would have to order (which is what release/acquire are for). Why atomic and
/// device scope: the store and the loads in observe() are then performed at L2, the point
/// where all SMs agree, and a load polled in a loop cannot be served from a stale L1 line
/// or hoisted out of the loop by the compiler, as a plain load could.
template <class T>
__device__ void publish(TileStatus* status, unsigned epoch, unsigned flag, T value) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  word.store(status_word(epoch, flag, value), cuda::memory_order_relaxed);
}

/// Read a tile's status word in one relaxed atomic load at device scope (see publish()).
__device__ TileStatus observe(TileStatus* status) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  return word.load(cuda::memory_order_relaxed);
}
// [status]

/// The value of a status word, as a T.
template <class T>
__device__ T value_of(TileStatus s) {
  if constexpr (std::is_same_v<T, float>) return __uint_as_float(unsigned(s));
  else return T(unsigned(s));
}

// The stress build (`cmake -DWB_STRESS=ON`, run by tests/stress_check.sh). On a quiet GPU a
// tile's predecessors have usually published by the time it first looks back, so the
// look-back's slow paths may never run in a test. This build delays every publication by a
// pseudo-random time drawn from (--seed, the launch's epoch, the tile, the flag), so that
// tiles find predecessors not ready, walk their window back and chain through aggregates;
// and it counts on the device how often each path is taken, printed after the runs as one
// note: "stress: T tiles, W waits, K window walks, C aggregates chained". In the normal build
// the helpers below are empty, and the kernels compile to the same machine code as without
// them.

/// What the stress build counts, in the order its note names them.
enum StressPath {
  kStressTiles,    ///< tiles that ran the look-back (tile 0 included)
  kStressWaits,    ///< looks that found a needed predecessor not ready
  kStressWalks,    ///< windows of 32 aggregates without a prefix: the look moves 32 tiles back
  kStressChained,  ///< aggregates added to a tile's carry (all but the prefix that ends a look)
  kStressPaths     ///< the number of paths counted (the counts array's size)
};

#ifdef WB_STRESS
/// Each path's count over every launch of the program (stress_begin() zeroes them).
__device__ unsigned long long g_stress_counts[kStressPaths];
/// The longest delay in ns; 0 leaves the delays out (the counts alone).
__device__ unsigned g_stress_max_ns;
/// --seed, so that a run's delays can be replayed.
__device__ unsigned long long g_stress_seed;

/// Add `amount` to a path's count. The looking warp calls it with the same arguments in every
/// lane; lane 0 counts.
__device__ void stress_count(StressPath path, unsigned amount = 1) {
  if (threadIdx.x % kWarp == 0 && amount > 0) atomicAdd(&g_stress_counts[path], (unsigned long long)amount);
}

/// splitmix64's finaliser (wb::mix64 is host code): scatters nearby tiles' delays.
__device__ unsigned long long stress_hash(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Sleep before `tile` publishes `flag`, for a time that depends only on the seed, the
/// launch's epoch, the tile and the flag, so that a failing run can be replayed. A tile's
/// aggregate (kAggregate, tile 0's first publication too) waits up to half the longest delay,
/// so that successors find it not ready; its prefix (kPrefix) waits at least that half, so that
/// successors that have all their aggregates still find no prefix among them and walk back.
__device__ void stress_delay(const LookBackArgs& a, int64_t tile, unsigned flag) {
  if (g_stress_max_ns == 0) return;
  using u64 = unsigned long long;
  const u64 key = (u64(a.epoch) << 34) ^ (u64(tile) << 2) ^ flag;  // epochs < 2^30, tiles < 2^32
  const unsigned half = g_stress_max_ns / 2;
  const unsigned drawn = unsigned(stress_hash(g_stress_seed ^ stress_hash(key)) % (half + 1ull));
  __nanosleep(flag == kPrefix ? g_stress_max_ns - drawn : drawn);
}

/// The longest delay unless WB_STRESS_MAX_DELAY_NS says otherwise: an aggregate's delay (up to
/// half of it) is several times the patient first look (3 us), so that many predecessors are
/// still unpublished when a tile looks.
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
__device__ void stress_delay(const LookBackArgs&, int64_t, unsigned) {}
/// The normal build has nothing to set up.
void stress_begin(const wb::Options&) {}
/// The normal build has no counts to report.
void stress_report(const wb::Options&) {}
#endif

/// The carry into tile 0 of a scan of the whole array: nothing comes before it. A scan of one
/// part of a longer array passes a callable of its own instead (chapter 18: the sum of the
/// shards before its own), as CUB's single pass takes a prefix callback.
struct NoCarryIn {
  /// What tile 0 starts from.
  __device__ int operator()() const { return 0; }
};

/// The order in which a look-back adds what it found. For integers every order gives the same
/// sum; for floats it sets the bits.
enum class LookBackOrder {
  /// Chapter 17's: each window's values summed across the warp, the windows' sums added as
  /// they are walked (nearest first). Which predecessor holds the prefix that ends the walk
  /// depends on timing, so with floats the bits change from run to run.
  AsFound,
  /// Chapter 19's deterministic order: the prefix found, then each aggregate after it, one
  /// addition at a time from the oldest tile to the newest (look_back_folding()).
  FoldForward
};

/// Windows of aggregates that look_back_folding() keeps before it folds them; past that many
/// it waits at the farthest window for a prefix to appear there instead of walking further.
constexpr int kFoldWindows = 4;

// [look_back]
/// The decoupled look-back, by the 32 lanes of warp 0 after the tile has published its
/// aggregate: find the sum of all tiles before this one, publish the tile's inclusive
/// prefix (P), return that sum.
///
/// The warp inspects kWindow = 32 predecessors at a time, lane 31 the nearest. It waits until
/// every tile between itself and the nearest one that has published P has published at
/// least its aggregate (A); then it adds the P and the As after it. Without a P in the
/// window it adds all 32 As and looks 32 tiles further back. Tile 0 publishes P at once, so
/// the walk always ends, and a tile waits only for tiles numbered before it, whose blocks
/// are already running. Tile 0 has nothing to look at: its carry is `carry_in`'s.
template <class T, class CarryIn>
__device__ T look_back(const LookBackArgs& a, int64_t tile, T aggregate, const CarryIn& carry_in) {
  const int lane = threadIdx.x % kWarp;
  stress_count(kStressTiles);
  if (tile == 0) return carry_in();
  if (a.first_look_ns > 0) __nanosleep(a.first_look_ns);
  T exclusive = 0;
  for (int64_t nearest = tile - 1;; nearest -= kWindow) {
    const int64_t other = nearest - (kWindow - 1) + lane;
    // Before tile 0 there is nothing: such lanes act as a P of 0 and never load.
    TileStatus s = other < 0 ? status_word(a.epoch, kPrefix, T(0)) : 0;
    unsigned prefixes, waiting;
    do {
      if (!is_current(s, a.epoch)) s = observe(&a.statuses[other]);
      const bool ready = is_current(s, a.epoch);
      prefixes = __ballot_sync(kFullMask, ready && flag_of(s) == kPrefix);
      // Lanes from the nearest P up to lane 31 count; all 32 when there is no P yet.
      const unsigned needed = prefixes ? kFullMask << (kWarp - 1 - __clz(int(prefixes))) : kFullMask;
      waiting = __ballot_sync(kFullMask, !ready) & needed;
      if (waiting != 0) {
        stress_count(kStressWaits);
        __nanosleep(a.poll_ns);
      }
    } while (waiting != 0);
    const int from = prefixes ? kWarp - 1 - __clz(int(prefixes)) : 0;
    exclusive += warp_sum_to_all(lane >= from ? value_of<T>(s) : T(0));
    stress_count(kStressChained, prefixes ? kWarp - 1 - from : kWarp);
    if (prefixes != 0) break;
    stress_count(kStressWalks);
  }
  if (lane == 0) {
    stress_delay(a, tile, kPrefix);
    publish(&a.statuses[tile], a.epoch, kPrefix, exclusive + aggregate);
  }
  return exclusive;
}
// [look_back]

// [fold]
/// The look-back in the order FoldForward: the P found, then each A after it, oldest first,
/// ((P(j) + A(j+1)) + A(j+2)) + ... + A(t-1), which is P(t-1) of the recurrence
/// P(t) = P(t-1) + A(t) whatever j was (chapter 19's page proves it). The walk is look_back's,
/// but a window without a P keeps its As in shared memory, for up to kFoldWindows windows;
/// then the warp looks at the farthest window again until one of its tiles publishes P.
template <class T, class CarryIn>
__device__ T look_back_folding(const LookBackArgs& a, int64_t tile, T aggregate, const CarryIn& carry_in) {
  __shared__ T kept[kFoldWindows][kWindow];  // the walked windows' aggregates, nearest window first
  const int lane = threadIdx.x % kWarp;
  stress_count(kStressTiles);
  if (tile == 0) return carry_in();
  if (a.first_look_ns > 0) __nanosleep(a.first_look_ns);
  int windows_kept = 0;
  int64_t nearest = tile - 1;
  for (;;) {
    const int64_t other = nearest - (kWindow - 1) + lane;
    TileStatus s = other < 0 ? status_word(a.epoch, kPrefix, T(0)) : 0;
    unsigned prefixes, waiting;
    do {
      if (!is_current(s, a.epoch)) s = observe(&a.statuses[other]);
      const bool ready = is_current(s, a.epoch);
      prefixes = __ballot_sync(kFullMask, ready && flag_of(s) == kPrefix);
      const unsigned needed = prefixes ? kFullMask << (kWarp - 1 - __clz(int(prefixes))) : kFullMask;
      waiting = __ballot_sync(kFullMask, !ready) & needed;
      if (waiting != 0) {
        stress_count(kStressWaits);
        __nanosleep(a.poll_ns);
      }
    } while (waiting != 0);
    if (prefixes != 0) {
      // The P, then the aggregates after it in this window, then the kept windows, oldest first.
      const int from = kWarp - 1 - __clz(int(prefixes));
      const T value = value_of<T>(s);
      T exclusive = __shfl_sync(kFullMask, value, from);
      for (int l = from + 1; l < kWarp; ++l) exclusive = exclusive + __shfl_sync(kFullMask, value, l);
      for (int w = windows_kept - 1; w >= 0; --w)
        for (int l = 0; l < kWindow; ++l) exclusive = exclusive + kept[w][l];
      stress_count(kStressChained, kWarp - 1 - from + windows_kept * kWindow);
      if (lane == 0) {
        stress_delay(a, tile, kPrefix);
        publish(&a.statuses[tile], a.epoch, kPrefix, exclusive + aggregate);
      }
      return exclusive;
    }
    if (windows_kept < kFoldWindows) {  // keep this window's aggregates, walk 32 tiles back
      kept[windows_kept][lane] = value_of<T>(s);
      __syncwarp();
      windows_kept += 1;
      nearest -= kWindow;
      stress_count(kStressWalks);
    } else {  // room for no more: look at this window again
      __nanosleep(a.poll_ns);
    }
  }
}
// [fold]

/// The look-back in `Order`: look_back() or look_back_folding().
template <LookBackOrder Order, class T, class CarryIn>
__device__ __forceinline__ T look_back_in(const LookBackArgs& a, int64_t tile, T aggregate, const CarryIn& carry_in) {
  static_assert(sizeof(T) == 4, "a status word holds 32 bits of value");
  if constexpr (Order == LookBackOrder::FoldForward) return look_back_folding(a, tile, aggregate, carry_in);
  else return look_back(a, tile, aggregate, carry_in);
}

// [kernel]
/// One tile of the single pass (the kernels below are this): launch one block per tile of
/// blockDim.x x K elements with stage_bytes(blockDim.x, K) of dynamic shared memory; `a` says
/// where the tile counter and the statuses are and which epoch this launch is
/// (SinglePass::launch()), `carry_in()` what tile 0 starts from (NoCarryIn: 0).
template <class T, LookBackOrder Order, int K, class CarryIn>
__device__ __forceinline__ void scan_one_tile(const T* in, int64_t n, T* out, const LookBackArgs& a,
                                              const CarryIn& carry_in) {
  extern __shared__ int stage_words[];
  T* const stage = reinterpret_cast<T*>(stage_words);
  __shared__ T warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ T tile_carry;
  // Tiles are numbered in the order blocks start, not by blockIdx.x: the hardware may
  // start blocks in any order, and a tile must never wait for one that has not started.
  if (threadIdx.x == 0) tile_number = atomicAdd(a.counter, 1ull) - a.counter_base;
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(tile, tile_size, n);
  const int64_t first = tile * tile_size;

  T items[K];
  load_tile<K>(in + first, count, stage, items);
  const T thread_total = thread_scan<K>(items);

  // 1. The tile's sum first, since the tiles after this one are waiting for it.
  const T tile_total = block_sum(thread_total, warp_totals);
  if (threadIdx.x == 0) {
    stress_delay(a, tile, kAggregate);
    publish(&a.statuses[tile], a.epoch, tile == 0 ? kPrefix : kAggregate,
            tile == 0 ? carry_in() + tile_total : tile_total);
  }

  // 2. The scan inside the tile, while the tiles before it finish.
  const T within_tile = block_exclusive_prefix(thread_total, warp_totals);

  // 3. The carry from all earlier tiles, found by warp 0, handed to the block.
  if (threadIdx.x < kWarp) {
    const T carry = look_back_in<Order>(a, tile, tile_total, carry_in);
    if (threadIdx.x == 0) tile_carry = carry;
  }
  __syncthreads();
  const T before = tile_carry + within_tile;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [kernel]

/// Single-pass scan of the whole array of ints in chapter 17's order (see scan_one_tile).
template <int K, class CarryIn = NoCarryIn>
__global__ void __launch_bounds__(1024)
    scan_single_pass(const int* in, int64_t n, int* out, LookBackArgs a, CarryIn carry_in) {
  scan_one_tile<int, LookBackOrder::AsFound, K>(in, n, out, a, carry_in);
}

/// The same single pass for elements of type T, whose look-back adds in the order `Order`.
template <class T, LookBackOrder Order, int K, class CarryIn = NoCarryIn>
__global__ void __launch_bounds__(1024)
    scan_single_pass_of(const T* in, int64_t n, T* out, LookBackArgs a, CarryIn carry_in) {
  scan_one_tile<T, Order, K>(in, n, out, a, carry_in);
}

/// Dynamic shared memory of a block of `block` threads with K = `batch`: every warp's part.
size_t stage_bytes(int block, int batch) {
  return sizeof(int) * size_t(block / kWarp) * stage_ints_per_warp(batch);
}

/// The single pass's instances for one carry-in and element type.
template <class CarryIn, class T = int>
using SinglePassKernel = void (*)(const T*, int64_t, T*, LookBackArgs, CarryIn);

/// The kernel for K: chapter 17's scan_single_pass for ints in its own order (the kernel that
/// chapters 17 and 18 have always launched), scan_single_pass_of otherwise.
template <int K, class CarryIn, class T, LookBackOrder Order>
SinglePassKernel<CarryIn, T> single_pass_instance() {
  if constexpr (std::is_same_v<T, int> && Order == LookBackOrder::AsFound) return scan_single_pass<K, CarryIn>;
  else return scan_single_pass_of<T, Order, K, CarryIn>;
}

/// The single pass for K = `batch`, allowed the dynamic shared memory it needs with `block`
/// threads (above 48 KB a kernel must opt in). Called once per configuration, before any
/// timing. parse_or_exit() has already refused every K that has no case here.
template <class CarryIn = NoCarryIn, class T = int, LookBackOrder Order = LookBackOrder::AsFound>
SinglePassKernel<CarryIn, T> single_pass_kernel(int batch, int block) {
  SinglePassKernel<CarryIn, T> k = nullptr;
  switch (batch) {
    case 1: k = single_pass_instance<1, CarryIn, T, Order>(); break;
    case 2: k = single_pass_instance<2, CarryIn, T, Order>(); break;
    case 4: k = single_pass_instance<4, CarryIn, T, Order>(); break;
    case 8: k = single_pass_instance<8, CarryIn, T, Order>(); break;
    case 16: k = single_pass_instance<16, CarryIn, T, Order>(); break;
    case 32: k = single_pass_instance<32, CarryIn, T, Order>(); break;
    default:
      std::fprintf(stderr, "internal error: no single pass for K = %d\n", batch);
      std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(stage_bytes(block, batch))));
  return k;
}

/// Tiles of `block` x `batch` elements covering n. N fits in device memory (below 2^36
/// elements), so with tiles of at least 32 elements a grid of one block per tile stays
/// under the 2^31 - 1 blocks a launch allows.
int64_t tiles_for(int64_t n, int block, int batch) {
  return wb::ceil_div<int64_t>(n, int64_t(block) * batch);
}

// [policy]
/// The single pass's tuning, named once: the tile shape, the look-back window and delays,
/// and whether the statuses are cleared before each launch. Every row of the report
/// carries it (describe()), so that a result says which configuration produced it.
struct ScanPolicy {
  int block = kBlock;                        ///< threads per tile
  int batch = kBatch;                        ///< elements per thread (K)
  unsigned first_look_ns = kPatientFirstLookNs;  ///< sleep before the first look back
  unsigned poll_ns = kPatientPollNs;         ///< sleep between looks
  bool clear_statuses = true;                ///< memset before each launch, or epochs instead

  /// "tile=256x32 window=32 first_look_ns=3000 poll_ns=1000 statuses=cleared"
  std::string describe() const {
    char text[160];
    std::snprintf(text, sizeof text, "tile=%dx%d window=%d first_look_ns=%u poll_ns=%u statuses=%s", block, batch,
                  kWindow, first_look_ns, poll_ns, clear_statuses ? "cleared" : "epochs");
    return text;
  }
};

/// The plain single pass: the tile of --block and --batch, patient delays, statuses cleared
/// before each launch.
ScanPolicy plain_policy(const wb::Options& opt) {
  ScanPolicy p;
  p.block = opt.block;
  p.batch = opt.batch;
  return p;
}

/// The tuned single pass for n elements on this GPU: epochs instead of a memset; tiles of
/// K = kSmallInputBatch when tiles of kBatch would number fewer than kSmallInputTiles (unless
/// --batch fixes K); and eager delays when the whole grid fits in one wave, that is when
/// there are no more tiles than the GPU holds blocks at once (SMs x blocks per SM, from the
/// occupancy calculator for this kernel, tile and GPU), patient ones otherwise. Nothing
/// here names a GPU: two GPUs with the same SMs, shared memory and registers get the same
/// policy. `kernel_for(batch, block)` is the kernel the policy is for (its instances may differ
/// in registers, and so in occupancy): choose_policy() passes the scan's, chapter 21 its
/// compaction's, which stages its tiles as the scan does (stage_bytes()).
template <class KernelFor>
ScanPolicy choose_policy_for(const wb::Options& opt, const wb::Device& dev, int64_t n, KernelFor kernel_for) {
  ScanPolicy p = plain_policy(opt);
  p.clear_statuses = false;
  if (!opt.batch_given && tiles_for(n, p.block, kBatch) < kSmallInputTiles) p.batch = kSmallInputBatch;
  const int per_sm = wb::blocks_per_sm(kernel_for(p.batch, p.block), p.block, stage_bytes(p.block, p.batch));
  const bool one_wave = tiles_for(n, p.block, p.batch) <= int64_t(dev.sms) * per_sm;
  p.first_look_ns = one_wave ? kEagerFirstLookNs : kPatientFirstLookNs;
  p.poll_ns = one_wave ? kEagerPollNs : kPatientPollNs;
  return p;
}

/// choose_policy_for() the single pass of `CarryIn`, `T` and `Order` (single_pass_kernel()).
template <class CarryIn = NoCarryIn, class T = int, LookBackOrder Order = LookBackOrder::AsFound>
ScanPolicy choose_policy(const wb::Options& opt, const wb::Device& dev, int64_t n) {
  return choose_policy_for(opt, dev, n, single_pass_kernel<CarryIn, T, Order>);
}
// [policy]

// [launcher]
/// device, and on the host the counter's value and the last epoch. Everything it queues goes to
/// `stream` (chapter 17: the legacy default stream; chapter 18: each GPU's own).
class SinglePass {
 public:
  /// Room for up to `max_tiles` tiles on the current device; the words start cleared.
  explicit SinglePass(int64_t max_tiles, cudaStream_t stream = 0)
      : words_(size_t(max_tiles) + 1, "the tile counter and statuses"), max_tiles_(max_tiles), stream_(stream) {
    clear(max_tiles);
    WB_CHECK(cudaDeviceSynchronize());
  }

  /// One scan of n elements with `policy`, whose kernel is `kernel` (single_pass_kernel()),
  /// tile 0 starting from `carry_in()`.
  /// With clear_statuses the counter and this launch's statuses are zeroed first (8 bytes
  /// per tile, about 0.05% of the bytes the scan moves with the default tile), and the
  /// memset is timed as part of the algorithm. Either way the launch gets the next epoch and
  /// numbers its tiles from where the counter stands.
  template <class CarryIn, class T>
  void launch(const ScanPolicy& policy, SinglePassKernel<CarryIn, T> kernel, const T* in, int64_t n, T* out,
              CarryIn carry_in = CarryIn()) {
    const int64_t tiles = tiles_for(n, policy.block, policy.batch);
    if (tiles == 0) return;  // nothing to scan (chapter 18's shards may be empty)
    const LookBackArgs a = next_launch(policy, tiles);
    kernel<<<unsigned(tiles), policy.block, stage_bytes(policy.block, policy.batch), stream_>>>(in, n, out, a, carry_in);
  }

  /// What the next launch of `tiles` tiles with `policy` looks back with: the counter and the
  /// statuses, cleared first where the policy says so, and the next epoch; its tiles are
  /// numbered from where the counter stands. launch() takes it for the scan; a kernel that is no
  /// scan but looks back (chapter 21's compaction) takes it and is launched right after, one
  /// block per tile, on stream().
  LookBackArgs next_launch(const ScanPolicy& policy, int64_t tiles) {
    if (tiles > max_tiles_) {
      std::fprintf(stderr, "internal error: %lld tiles, but statuses for %lld\n", (long long)tiles, (long long)max_tiles_);
      std::exit(3);
    }
    if (epoch_ == kLastEpoch) {  // once in 2^30 launches: every word, so that epochs can repeat
      clear(max_tiles_);
      epoch_ = 0;
    }
    if (policy.clear_statuses) clear(tiles);
    epoch_ += 1;
    const LookBackArgs a{counter(), counter_, statuses(), epoch_, policy.first_look_ns, policy.poll_ns};
    counter_ += static_cast<unsigned long long>(tiles);
    return a;
  }

  /// Where clears and launches go.
  cudaStream_t stream() const { return stream_; }

 private:
  /// Zero the counter and the statuses of the first `tiles` tiles.
  void clear(int64_t tiles) {
    WB_CHECK(cudaMemsetAsync(words_.get(), 0, sizeof(TileStatus) * size_t(tiles + 1), stream_));
    counter_ = 0;
  }
  unsigned long long* counter() { return words_.get(); }
  TileStatus* statuses() { return words_.get() + 1; }

  wb::DeviceBuffer<TileStatus> words_;  // [0] the tile counter, [1 + t] the status of tile t
  int64_t max_tiles_;
  cudaStream_t stream_;             // where clears and launches go
  unsigned long long counter_ = 0;  // the counter's value after the launches so far
  unsigned epoch_ = first_epoch() - 1;  // the last launch's epoch (first_epoch() - 1: none yet)
};
// [launcher]
