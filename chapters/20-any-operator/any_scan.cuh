/// @file any_scan.cuh
/// @brief Chapter 20's scan over any monoid M whose values fit in 8 bytes: chapter 17's single
/// pass with decoupled look-back, every combination in the input's order, and a tile status
/// that publishes an 8-byte value.
///
/// Chapter 17's single_pass.cuh is included as it is (in namespace scan17, as chapter 19 does),
/// for what does not depend on the operator: the tile load and store through shared memory, the
/// tile counter and its numbering, the status words' flag and epoch, the look's polling and its
/// delays, the stress build's hooks and the policy's constants. What changes:
/// - every `a + b` is M::combine(earlier, later): the thread's serial scan, the warp's and the
///   block's, the look-back (a window walked further back comes before what was found), the
///   carry added to each element;
/// - a partial tile is padded with M::identity(), not 0;
/// - chapter 17 packs a flag and a 4-byte value into one 64-bit word, written and read in one
///   atomic access. An 8-byte value and its flag do not fit in 64 bits, so each tile has two
///   value slots beside its status word (its aggregate and its inclusive prefix, each written
///   once per launch): a tile writes the slot, then the status with a release store; a reader
///   polls the status with acquire loads, which order its read of the slot after the status
///   that announced it. The page explains why this is enough and why one 16-byte store is not
///   what the PTX memory model promises.
/// - Those release stores cost the storing thread a wait that chapter 17's relaxed ones do not,
///   so the kernel keeps them off the tile's path: the block's last warp looks back while warp
///   0's first thread publishes the aggregate, and the inclusive prefix is published after the
///   carry has been handed to the block, while the other warps store.
#pragma once

#include <cuda/atomic>

#include <cstring>
#include <type_traits>

// any_reduce.cuh (the warp's combinations in order) is included before this file by the program,
// not here: a mutation of it (tests/mutations/) is then the one this file sees too.
#include "workbook.cuh"

/// Chapter 17's tile code, statuses, look-back and policy (chapter 20 uses the parts named in
/// the file's comment; chapter 17's own kernels are never instantiated here).
namespace scan17 {
#include "single_pass.cuh"
}  // namespace scan17

/// Bytes of input per thread per tile: chapter 17's tuned tile (32 ints), so K is
/// 128 / sizeof(In): 32 int32s, 16 affine maps.
constexpr int kScanBytes = 128;
/// Bytes per thread per tile when the tuned tile would give fewer than scan17::kSmallInputTiles
/// tiles (chapter 17's K = 8 for ints).
constexpr int kSmallScanBytes = 32;
/// Threads per tile of the scan when --block is not given: 512, tiles of 64 KB, half as many
/// look-backs as chapter 17's 256 threads for the same bytes. Measured on the H200 at N = 2^30
/// for the affine maps (median of 10): 2732 GB/s with blocks of 256, 2934 with 512 (CUB 2859).
constexpr int kWideScanBlock = 512;

/// Below this many tiles of kWideScanBlock x kScanBytes, and from scan17::kSmallInputTiles of
/// them on, the scan halves its default block: with that few tiles only that many SMs stream,
/// and twice the tiles put twice the SMs to work. Measured on the H200 for the affine maps
/// (median of 30, beside CUB in the same run): at 2^17 9.06 us with 512 threads (16 tiles),
/// 7.52 with 256; at 2^18 9.79 and 8.93; from 2^19 (64 tiles) on, 512 is as fast or faster.
constexpr int64_t kWideMinTiles = 64;

/// K of the scan's tiles for `In` with `bytes` of it per thread.
template <class In>
constexpr int scan_k(int bytes) {
  return bytes / int(sizeof(In));
}

// [wide_status]
/// What one launch of the wide single pass needs: chapter 17's arguments (the tile counter, the
/// status words, which here hold a flag and an epoch and no value, the delays) and each tile's
/// two value slots, which hold a T's bytes.
struct WideLookBackArgs {
  scan17::LookBackArgs base;       ///< counter, status words, epoch, delays (chapter 17's)
  unsigned long long* aggregates;  ///< tile t's aggregate A(t), written before its flag A
  unsigned long long* prefixes;    ///< tile t's inclusive prefix P(t), written before its flag P
};

/// A value's bytes as a slot holds them (a T of up to 8 bytes; the rest 0).
template <class T>
__device__ unsigned long long slot_bits(T value) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "a slot holds 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}

/// The value a slot holds.
template <class T>
__device__ T slot_value(unsigned long long bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// Publish a tile's value and flag: the value into its slot (aggregate or prefix), then the
/// status word (flag and epoch) with a release store at device scope. Release: any thread whose
/// acquire load (observe_wide) reads this status word sees the slot's new value after it. Each
/// slot is written once per launch, so a reader that found flag A can read the aggregate slot
/// even after the tile has gone on to publish P.
template <class T>
__device__ void publish_wide(const WideLookBackArgs& a, int64_t tile, unsigned flag, T value) {
  unsigned long long& slot = (flag == scan17::kPrefix ? a.prefixes : a.aggregates)[tile];
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slot).store(slot_bits(value),
                                                                              cuda::memory_order_relaxed);
  cuda::atomic_ref<scan17::TileStatus, cuda::thread_scope_device> word(a.base.statuses[tile]);
  word.store(scan17::status_word(a.base.epoch, flag, 0), cuda::memory_order_release);
}

/// A tile's status word, read in one acquire load at device scope: the loads after it see what
/// the tile wrote before its release store of this word (publish_wide).
__device__ scan17::TileStatus observe_wide(scan17::TileStatus* status) {
  return cuda::atomic_ref<scan17::TileStatus, cuda::thread_scope_device>(*status).load(cuda::memory_order_acquire);
}

/// The value that status word `s` of `tile` announced, where `s` came from observe_wide().
template <class T>
__device__ T read_published(const WideLookBackArgs& a, int64_t tile, scan17::TileStatus s) {
  unsigned long long& slot = (scan17::flag_of(s) == scan17::kPrefix ? a.prefixes : a.aggregates)[tile];
  return slot_value<T>(
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slot).load(cuda::memory_order_relaxed));
}
// [wide_status]

// [look_back]
/// Chapter 17's decoupled look-back for any monoid, by the 32 lanes of one warp: the combination
/// of all tiles before this one, in their order (the caller publishes the tile's inclusive
/// prefix). The walk is chapter 17's: lane 31 looks at the nearest predecessor, the warp waits
/// until every tile from the nearest P on has published, and a window without a P is taken
/// whole before the warp looks 32 tiles further back. Two changes:
/// the window's values are combined in lane order, from the P (or the window's first tile)
/// to the nearest, and a window walked later comes before everything found so far, on the left.
template <class M>
__device__ typename M::T look_back_wide(const WideLookBackArgs& a, int64_t tile) {
  using T = typename M::T;
  using scan17::TileStatus;
  const int lane = threadIdx.x % kWarp;
  scan17::stress_count(scan17::kStressTiles);
  if (tile == 0) return M::identity();
  if (a.base.first_look_ns > 0) __nanosleep(a.base.first_look_ns);
  T exclusive = M::identity();
  for (int64_t nearest = tile - 1;; nearest -= scan17::kWindow) {
    const int64_t other = nearest - (scan17::kWindow - 1) + lane;
    // Before tile 0 there is nothing: such lanes act as a P of the identity and never load.
    TileStatus s = other < 0 ? scan17::status_word(a.base.epoch, scan17::kPrefix, 0) : 0;
    unsigned prefixes, waiting;
    do {
      if (!scan17::is_current(s, a.base.epoch)) s = observe_wide(&a.base.statuses[other]);
      const bool ready = scan17::is_current(s, a.base.epoch);
      prefixes = __ballot_sync(kFullMask, ready && scan17::flag_of(s) == scan17::kPrefix);
      const unsigned needed = prefixes ? kFullMask << (kWarp - 1 - __clz(int(prefixes))) : kFullMask;
      waiting = __ballot_sync(kFullMask, !ready) & needed;
      if (waiting != 0) {
        scan17::stress_count(scan17::kStressWaits);
        __nanosleep(a.base.poll_ns);
      }
    } while (waiting != 0);
    // Each lane has seen its tile's status of this launch in an acquire load: the slot that
    // status announced is visible to the load below (pairing with publish_wide's release).
    const int from = prefixes ? kWarp - 1 - __clz(int(prefixes)) : 0;
    const T value = lane >= from && other >= 0 ? read_published<T>(a, other, s) : M::identity();
    exclusive = M::combine(warp_reduce_in_order<M>(value), exclusive);  // this window came earlier
    scan17::stress_count(scan17::kStressChained, prefixes ? kWarp - 1 - from : kWarp);
    if (prefixes != 0) break;
    scan17::stress_count(scan17::kStressWalks);
  }
  return exclusive;
}
// [look_back]

// [kernel]
/// One tile of the single pass over any monoid (chapter 17's scan_one_tile): launch one block
/// per tile of blockDim.x x K elements with wide_stage_bytes<M>(blockDim.x, K) of dynamic shared
/// memory; `a` holds the counter, statuses, slots and this launch's epoch (WideSinglePass).
template <class M, int K>
__global__ void __launch_bounds__(1024)
    scan_single_pass_any(const typename M::In* in, int64_t n, typename M::T* out, WideLookBackArgs a) {
  using In = typename M::In;
  using T = typename M::T;
  extern __shared__ __align__(16) unsigned char stage_memory[];
  __shared__ T warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ T tile_carry;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  // Tiles are numbered in the order blocks start (chapter 17).
  if (threadIdx.x == 0) tile_number = atomicAdd(a.base.counter, 1ull) - a.base.counter_base;
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = scan17::tile_count(tile, tile_size, n);
  const int64_t first = tile * tile_size;

  // Chapter 17's load moves the elements as words of their size (it pads with a word of 0).
  using Word = std::conditional_t<sizeof(In) == 8, unsigned long long, unsigned>;
  static_assert(sizeof(Word) == sizeof(In), "elements of 4 or 8 bytes");
  Word words[K];
  scan17::load_tile<K>(reinterpret_cast<const Word*>(in + first), count, reinterpret_cast<Word*>(stage_memory), words);
  In loaded[K];
  std::memcpy(loaded, words, sizeof loaded);
  // The thread's K consecutive elements, the identity past the tile's end, scanned in order.
  const int mine = int(threadIdx.x) * K;
  T items[K];
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine + i < count ? M::lift(loaded[i], first + mine + i) : M::identity();
#pragma unroll
  for (int i = 1; i < K; ++i) items[i] = M::combine(items[i - 1], items[i]);

  // 1. The tile's aggregate first, since the tiles after this one are waiting for it.
  const T lane_inclusive = warp_scan_in_order<M>(items[K - 1]);
  if (lane == kWarp - 1) warp_totals[warp] = lane_inclusive;
  __syncthreads();
  const int warps = int(blockDim.x) / kWarp;
  const T tile_total = warp_reduce_in_order<M>(lane < warps ? warp_totals[lane] : M::identity());
  if (threadIdx.x == 0) {
    scan17::stress_delay(a.base, tile, scan17::kAggregate);
    publish_wide(a, tile, tile == 0 ? scan17::kPrefix : scan17::kAggregate, tile_total);
  }

  // 2. What comes before this thread inside the tile: the warps before its own, then the lanes
  //    before it in its warp.
  const T warps_before = warp_reduce_in_order<M>(lane < warp ? warp_totals[lane] : M::identity());
  const T lanes_before = shuffle_up(lane_inclusive, 1);
  const T within = lane == 0 ? warps_before : M::combine(warps_before, lanes_before);

  // 3. The carry from all earlier tiles, found by the last warp (warp 0's first thread may still
  //    be waiting on its release store), handed to the block; then the tile's inclusive prefix
  //    is published while the other warps store.
  const bool looks_back = warp == warps - 1;
  if (looks_back) {
    const T carry = look_back_wide<M>(a, tile);
    if (lane == 0) tile_carry = carry;
  }
  __syncthreads();
  if (looks_back && lane == 0 && tile != 0) {
    scan17::stress_delay(a.base, tile, scan17::kPrefix);
    publish_wide(a, tile, scan17::kPrefix, M::combine(tile_carry, tile_total));
  }
  const T before = M::combine(tile_carry, within);
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = M::combine(before, items[i]);
  scan17::store_tile<K>(out + first, count, reinterpret_cast<T*>(stage_memory), items);
}
// [kernel]

/// Dynamic shared memory of a tile of `block` threads with K = `batch`: every warp's part, in
/// the larger of the input's and the output's elements.
template <class M>
size_t wide_stage_bytes(int block, int batch) {
  const size_t element = std::max(sizeof(typename M::In), sizeof(typename M::T));
  return element * size_t(block / kWarp) * size_t(scan17::stage_ints_per_warp(batch));
}

/// The signature of the wide single pass's instances.
template <class M>
using WideScanKernel = void (*)(const typename M::In*, int64_t, typename M::T*, WideLookBackArgs);

/// The instance for K = `batch` (kScanBytes or kSmallScanBytes of In per thread), allowed the
/// dynamic shared memory it needs with `block` threads. Called before any timing.
template <class M>
WideScanKernel<M> wide_scan_kernel(int batch, int block) {
  using In = typename M::In;
  static_assert(sizeof(typename M::In) == sizeof(typename M::T), "the stage holds inputs, then outputs");
  WideScanKernel<M> k = nullptr;
  if (batch == scan_k<In>(kScanBytes)) k = scan_single_pass_any<M, scan_k<In>(kScanBytes)>;
  else if (batch == scan_k<In>(kSmallScanBytes)) k = scan_single_pass_any<M, scan_k<In>(kSmallScanBytes)>;
  if (k == nullptr) {
    std::fprintf(stderr, "internal error: no wide single pass for K = %d\n", batch);
    std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(wide_stage_bytes<M>(block, batch))));
  return k;
}

// [policy]
/// Threads per tile when --block does not say: kWideScanBlock, or half of it where that would
/// give from scan17::kSmallInputTiles to kWideMinTiles - 1 tiles of kScanBytes per thread.
template <class M>
int default_wide_block(int64_t n) {
  const int64_t tiles = scan17::tiles_for(n, kWideScanBlock, scan_k<typename M::In>(kScanBytes));
  return tiles >= scan17::kSmallInputTiles && tiles < kWideMinTiles ? kWideScanBlock / 2 : kWideScanBlock;
}

/// The policy of chapter 17's tuned single pass, for M's element: epochs instead of a memset;
/// kScanBytes per thread, or kSmallScanBytes when that gives fewer than kSmallInputTiles tiles;
/// eager delays when the grid fits in one wave of resident blocks, patient ones otherwise.
template <class M>
scan17::ScanPolicy choose_wide_policy(int block, const wb::Device& dev, int64_t n) {
  using In = typename M::In;
  scan17::ScanPolicy p;
  p.block = block;
  p.clear_statuses = false;
  p.batch = scan17::tiles_for(n, block, scan_k<In>(kScanBytes)) < scan17::kSmallInputTiles ? scan_k<In>(kSmallScanBytes)
                                                                                            : scan_k<In>(kScanBytes);
  const int per_sm = wb::blocks_per_sm(wide_scan_kernel<M>(p.batch, block), block, wide_stage_bytes<M>(block, p.batch));
  const bool one_wave = scan17::tiles_for(n, block, p.batch) <= int64_t(dev.sms) * per_sm;
  p.first_look_ns = one_wave ? scan17::kEagerFirstLookNs : scan17::kPatientFirstLookNs;
  p.poll_ns = one_wave ? scan17::kEagerPollNs : scan17::kPatientPollNs;
  return p;
}
// [policy]

/// What the wide single pass keeps between launches (chapter 17's SinglePass, with two value
/// slots per tile): the tile counter and status words, cleared once, then told apart by epochs;
/// the slots need no clearing, since a slot is read only after a status of the same launch.
class WideSinglePass {
 public:
  /// Room for up to `max_tiles` tiles; the counter and statuses start cleared.
  explicit WideSinglePass(int64_t max_tiles)
      : words_(size_t(max_tiles) + 1, "the tile counter and status words"),
        aggregates_(size_t(max_tiles), "the tiles' aggregates"),
        prefixes_(size_t(max_tiles), "the tiles' inclusive prefixes"),
        max_tiles_(max_tiles) {
    clear(max_tiles);
    WB_CHECK(cudaDeviceSynchronize());
  }

  /// One scan of in[0, n) into out with `policy`, whose kernel is `kernel` (wide_scan_kernel()):
  /// the next epoch, tiles numbered from where the counter stands.
  template <class M>
  void launch(const scan17::ScanPolicy& policy, WideScanKernel<M> kernel, const typename M::In* in, int64_t n,
              typename M::T* out) {
    const int64_t tiles = scan17::tiles_for(n, policy.block, policy.batch);
    if (tiles > max_tiles_) {
      std::fprintf(stderr, "internal error: %lld tiles, but statuses for %lld\n", (long long)tiles, (long long)max_tiles_);
      std::exit(3);
    }
    if (epoch_ == scan17::kLastEpoch) {  // once in 2^30 launches: every word, so that epochs can repeat
      clear(max_tiles_);
      epoch_ = 0;
    }
    epoch_ += 1;
    const WideLookBackArgs a{{words_.get(), counter_, words_.get() + 1, epoch_, policy.first_look_ns, policy.poll_ns},
                             aggregates_.get(),
                             prefixes_.get()};
    kernel<<<unsigned(tiles), policy.block, wide_stage_bytes<M>(policy.block, policy.batch)>>>(in, n, out, a);
    counter_ += static_cast<unsigned long long>(tiles);
  }

 private:
  /// Zero the counter and the status words of the first `tiles` tiles.
  void clear(int64_t tiles) {
    WB_CHECK(cudaMemset(words_.get(), 0, sizeof(scan17::TileStatus) * size_t(tiles + 1)));
    counter_ = 0;
  }

  wb::DeviceBuffer<unsigned long long> words_;       // [0] the tile counter, [1 + t] tile t's status
  wb::DeviceBuffer<unsigned long long> aggregates_;  // tile t's aggregate
  wb::DeviceBuffer<unsigned long long> prefixes_;    // tile t's inclusive prefix
  int64_t max_tiles_;
  unsigned long long counter_ = 0;  // the counter's value after the launches so far
  unsigned epoch_ = scan17::first_epoch() - 1;  // the last launch's epoch (first_epoch() - 1: none yet)
};
