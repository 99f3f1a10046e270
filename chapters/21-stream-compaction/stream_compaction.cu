/// @file stream_compaction.cu
/// @brief Chapter 21: stream compaction, the first thing a scan is for. Keep the elements that
/// satisfy a predicate, in their order, and count them: three kernels (flags, scan, scatter),
/// then one pass whose decoupled look-back carries counts, and cub::DeviceSelect::If beside them.
///
/// The idea: where a kept element goes in the output is the number of kept elements before it,
/// the exclusive scan of the flags (1: keep, 0: drop). Two ways to get it:
/// - three kernels (PMPP's): one writes a flag per element, chapter 17's single pass scans the
///   flags, one scatters each kept element to its position. Every element is read twice and its
///   flag written, read and written again, and a kept one's position read: 20 bytes of traffic
///   per dropped element, 24 per kept one, besides the output.
/// - one pass: each tile counts what it keeps and publishes the count as chapter 17's tiles
///   publish their sums; while the look-back adds the counts of the tiles before it, the tile
///   gathers its kept elements in shared memory, then writes them in one coalesced run. 4 bytes
///   read per element and 4 written per kept element, as little as compaction can move.
///
/// What it teaches: a scan is a tool; the look-back of chapter 17 carries any sum, here counts,
/// and fusing the three kernels removes the traffic of the flags. The look-back's values are 32
/// bits, so one launch covers at most kSegment elements and a longer input takes several, each
/// starting from the count the one before it left in device memory (64 bits).
///
/// The predicate is a pure function of the value (KeepBelow: a hash of the value below a
/// threshold, `--keep P` percent), so the CPU knows the count and every kept element exactly.
/// `--variant sweep` runs CUB and the one pass at every power of two from 2^8 to N (default
/// 2^31). The harness (compact_check.cuh, beside this file) checks the count and every kept
/// element of every run, and that nothing was written past the count.

#include <cub/device/device_select.cuh>

// Chapter 17's tile statuses, look-back, policy and launcher, and its single-pass scan, which the
// three-kernel version runs on the flags: read them in ../17-scan-device-wide/single_pass.cuh.
#include "single_pass.cuh"

/// The smallest N of `--variant sweep`.
constexpr int64_t kSweepFrom = int64_t(1) << 8;
/// The largest N of `--variant sweep` when --n is not given.
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;

/// Elements one launch covers at most. A launch's counts (and the look-back's values) are 32-bit
/// and 2^31 fits them; an input longer than this takes several launches (Segment).
constexpr int64_t kSegment = int64_t(1) << 31;

// [keep]
/// murmur3's 32-bit finaliser: every bit of the value moves about half of the hash's bits.
WB_HD inline uint32_t mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

/// The predicate: keep x when the hash of its bits falls below `threshold`. A pure function of
/// the value, so the CPU gives the same verdicts, and a hash, so that the kept elements are
/// spread over the input and over every value.
struct KeepBelow {
  uint64_t threshold = 0;  ///< P% of 2^32: 0 keeps nothing, 2^32 everything

  /// The predicate that keeps P percent of all 32-bit values (P from 0 to 100).
  static KeepBelow percent(int64_t p) { return KeepBelow{(uint64_t(p) << 32) / 100}; }
  /// Whether x is kept.
  WB_HD bool operator()(int32_t x) const { return mix32(uint32_t(x)) < threshold; }
};
// [keep]

/// Element i of the input for a seed: 32 bits drawn from (seed, i), any int.
WB_HD inline int32_t compaction_value(uint64_t seed, uint64_t i) {
  return int32_t(uint32_t(wb::mix64(wb::mix64(seed) + (i + 1) * 0x9e3779b97f4a7c15ULL) >> 32));
}

// [segment]
/// One launch's place in the whole compaction: the elements kept before it, and where it leaves
/// its own total. Launch s reads what launch s - 1 wrote; launches on one stream run in order.
struct Segment {
  const unsigned long long* kept_before;  ///< the previous launch's kept_after; null for the first
  unsigned long long* kept_after;         ///< where this launch leaves kept_before + its own count

  /// Elements kept by the launches before this one.
  __device__ unsigned long long before() const { return kept_before ? *kept_before : 0ull; }
};
// [segment]

// [one_pass]
/// One tile of the one-pass compaction (blockDim.x x K elements), chapter 17's single pass with
/// counts for sums: launch one block per tile with stage_bytes(blockDim.x, K) of dynamic shared
/// memory and the LookBackArgs of SinglePass::next_launch(). The tile's kept elements go to
/// out[segment.before() + (kept in earlier tiles) ...]; the last tile writes the launch's total.
///
/// Warp w holds the tile's elements [32 K w, 32 K (w + 1)) as K rows of 32: lane l's element j
/// is 32 j + l of them. A row is one coalesced load, and its kept elements, found with one
/// ballot, take consecutive words in shared memory (no bank conflicts), in order.
template <int K>
__global__ void __launch_bounds__(1024)
    compact_one_pass(const int* in, int64_t n, int* out, KeepBelow keep, Segment segment, LookBackArgs a) {
  static_assert(K <= 32, "one bit per element in a 32-bit mask");
  extern __shared__ int kept_stage[];  // the tile's kept elements, in order
  __shared__ unsigned warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ unsigned long long tile_start;  // where the tile's first kept element goes
  // Tiles are numbered in the order blocks start (chapter 17): a tile never waits for one
  // that has not started.
  if (threadIdx.x == 0) tile_number = atomicAdd(a.counter, 1ull) - a.counter_base;
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(tile, tile_size, n);
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;  // this lane's element in row 0 of its warp
  const int* const src = in + tile * tile_size;

  // 1. Load, then judge: bit j of `kept` says whether element j of this lane is kept. A full
  //    tile (every tile but the last) loads without a test, so that all K loads are in flight
  //    before any value is used; a test per load, or judging each value as it arrives, makes
  //    the compiler wait for each load before it issues the next (see the page).
  int items[K];
  if (count == tile_size) {
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = src[first + j * kWarp];
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) items[j] = first + j * kWarp < count ? src[first + j * kWarp] : 0;
  }
  unsigned kept = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) kept |= unsigned((first + j * kWarp < count) & keep(items[j])) << j;
  const unsigned thread_kept = __popc(kept);

  // 2. The tile's count first, since the tiles after this one are waiting for it.
  const unsigned tile_kept = block_sum(thread_kept, warp_totals);
  if (threadIdx.x == 0) {
    stress_delay(a, tile, kAggregate);
    publish(&a.statuses[tile], a.epoch, tile == 0 ? kPrefix : kAggregate, tile_kept);
  }

  // 3. While the tiles before it finish: the tile's kept elements into shared memory, row by
  //    row, after those of the warps before this one (lane 0's exclusive prefix).
  unsigned at = __shfl_sync(kFullMask, block_exclusive_prefix(thread_kept, warp_totals), 0);
  const unsigned lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const bool mine = (kept >> j) & 1u;
    const unsigned row = __ballot_sync(kFullMask, mine);
    if (mine) kept_stage[at + __popc(row & lanes_below)] = items[j];
    at += __popc(row);
  }

  // 4. The count of kept elements in every earlier tile of this launch, found by warp 0.
  if (threadIdx.x < kWarp) {
    const unsigned before = look_back(a, tile, tile_kept, NoCarryIn());
    if (threadIdx.x == 0) tile_start = segment.before() + before;
  }
  __syncthreads();

  // 5. The kept elements, in order, with coalesced stores; the last tile knows the total.
  int* const dst = out + tile_start;
  for (int j = int(threadIdx.x); j < int(tile_kept); j += int(blockDim.x)) dst[j] = kept_stage[j];
  if (threadIdx.x == 0 && (tile + 1) * tile_size >= n) *segment.kept_after = tile_start + tile_kept;
}
// [one_pass]

// [three_kernels]
/// Kernel 1 of 3: flags[i] = 1 where in[i] is kept, else 0.
__global__ void compact_flags(const int* in, int64_t n, KeepBelow keep, unsigned* flags) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = keep(in[i]) ? 1u : 0u;
}

// Kernel 2 of 3 is chapter 17's single pass, which scans the flags in place: positions[i] is
// then flags[0] + ... + flags[i], the 1-based position of a kept in[i].

/// Kernel 3 of 3: each kept in[i] goes to out[kept before this launch + positions[i] - 1]; the
/// thread of the last element writes the launch's total.
__global__ void compact_scatter(const int* in, int64_t n, const unsigned* positions, KeepBelow keep, int* out,
                                Segment segment) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long before = segment.before();
  const int x = in[i];
  if (keep(x)) out[before + positions[i] - 1] = x;
  if (i == n - 1) *segment.kept_after = before + positions[i];
}
// [three_kernels]

/// The one pass's instances.
using CompactKernel = void (*)(const int*, int64_t, int*, KeepBelow, Segment, LookBackArgs);

/// The one pass for K = `batch`, allowed the dynamic shared memory it needs with `block` threads
/// (above 48 KB a kernel must opt in). parse_or_exit() has already refused every other K.
CompactKernel compact_kernel(int batch, int block) {
  CompactKernel k = nullptr;
  switch (batch) {
    case 1: k = compact_one_pass<1>; break;
    case 2: k = compact_one_pass<2>; break;
    case 4: k = compact_one_pass<4>; break;
    case 8: k = compact_one_pass<8>; break;
    case 16: k = compact_one_pass<16>; break;
    case 32: k = compact_one_pass<32>; break;
    default:
      std::fprintf(stderr, "internal error: no compaction for K = %d\n", batch);
      std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(stage_bytes(block, batch))));
  return k;
}

// [policy]
/// The one pass's delays when its grid takes more than one wave (chapter 17's tuned policy
/// otherwise): its first look after 1 us instead of 3, then every 0.5 us instead of 1. A tile of
/// the compaction has less to do between publishing its count and looking back than a tile of
/// the scan, which scans its elements there, so chapter 17's patient first look is mostly time
/// the tile holds its SM for nothing. Measured on the H200 at N = 2^30 (ms, median of 10):
/// --keep 0: 1.928 with 3000/1000 ns, 1.587 with 1000/500, 1.598 with 500/250, 1.679 with 0/100;
/// --keep 100: 2.565, 2.564, 2.628, 2.726.
constexpr unsigned kCompactFirstLookNs = 1000;
/// See kCompactFirstLookNs.
constexpr unsigned kCompactPollNs = 500;

/// Chapter 17's tuned policy for the one pass over n elements, with the compaction's delays
/// where that policy would be patient.
ScanPolicy compaction_policy(const wb::Options& opt, const wb::Device& dev, int64_t n) {
  ScanPolicy p = choose_policy_for(opt, dev, n, compact_kernel);
  if (p.first_look_ns == kPatientFirstLookNs) {
    p.first_look_ns = kCompactFirstLookNs;
    p.poll_ns = kCompactPollNs;
  }
  return p;
}
// [policy]

/// Launches a compaction of n elements takes: one per kSegment elements.
int64_t segments_for(int64_t n) { return wb::ceil_div<int64_t>(n, kSegment); }

/// Launch s of `segments`: the first starts from nothing, each later one from the total the one
/// before it left in totals[s - 1]; the last leaves the whole count in *count.
Segment segment_of(int64_t s, int64_t segments, unsigned long long* totals, unsigned long long* count) {
  return Segment{s == 0 ? nullptr : totals + (s - 1), s + 1 == segments ? count : totals + s};
}

// [launchers]
/// The one pass over in[0, n): one launch per segment, each with its own epoch and tile numbers
/// from `single_pass` (chapter 17's launcher), tiles and delays from `policy`. The count goes to
/// *count; `totals` holds segments_for(n) - 1 words between the launches.
void launch_one_pass(SinglePass& single_pass, const ScanPolicy& policy, CompactKernel kernel, const int* in,
                     int64_t n, int* out, KeepBelow keep, unsigned long long* count, unsigned long long* totals) {
  const int64_t segments = segments_for(n);
  for (int64_t s = 0; s < segments; ++s) {
    const int64_t first = s * kSegment, len = std::min(kSegment, n - first);
    const int64_t tiles = tiles_for(len, policy.block, policy.batch);
    const LookBackArgs a = single_pass.next_launch(policy, tiles);
    kernel<<<unsigned(tiles), policy.block, stage_bytes(policy.block, policy.batch), single_pass.stream()>>>(
        in + first, len, out, keep, segment_of(s, segments, totals, count), a);
  }
}

/// The three kernels over in[0, n), per segment: flags (blocks of `block` threads), chapter 17's
/// single pass on them in place with `scan_policy`, scatter. `flags` holds min(n, kSegment) words.
void launch_three_kernels(SinglePass& single_pass, const ScanPolicy& scan_policy,
                          SinglePassKernel<NoCarryIn, unsigned> scan, int block, const int* in, int64_t n, int* out,
                          KeepBelow keep, unsigned* flags, unsigned long long* count, unsigned long long* totals) {
  const int64_t segments = segments_for(n);
  for (int64_t s = 0; s < segments; ++s) {
    const int64_t first = s * kSegment, len = std::min(kSegment, n - first);
    const unsigned grid = unsigned(wb::ceil_div<int64_t>(len, block));
    compact_flags<<<grid, block, 0, single_pass.stream()>>>(in + first, len, keep, flags);
    single_pass.launch(scan_policy, scan, flags, len, flags);
    compact_scatter<<<grid, block, 0, single_pass.stream()>>>(in + first, len, flags, keep, out,
                                                              segment_of(s, segments, totals, count));
  }
}
// [launchers]

// [cub]
/// cub::DeviceSelect::If with the same predicate. With `temp` null it only sets `temp_bytes`.
cudaError_t cub_select_if(void* temp, size_t& temp_bytes, const int* in, int* out, unsigned long long* count,
                          int64_t n, KeepBelow keep) {
  return cub::DeviceSelect::If(temp, temp_bytes, in, out, count, n, keep);
}
// [cub]

// ---------------------------------------------------------------------------------------
// The harness: the input, the CPU's compaction, --keep and CompactBench, beside this file.

#include "compact_check.cuh"

/// The name of CUB's row in the report.
const char* const kCubRow = "cub::DeviceSelect::If";


/// The sizes to run: N alone, or for the sweep every power of two from 2^8 below N, then N.
std::vector<int64_t> sizes_to_run(int64_t n, bool sweep) {
  std::vector<int64_t> sizes;
  if (sweep) {
    for (int64_t s = kSweepFrom; s < n; s *= 2) sizes.push_back(s);
  }
  sizes.push_back(n);
  return sizes;
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "21";
  spec.slug = "stream-compaction";
  spec.idea = "stream compaction: keep the elements a predicate keeps, in order, and count them; three kernels "
              "(flags, scan, scatter), one pass whose look-back carries counts, and CUB";
  spec.op = wb::Op::Scan;
  spec.bytes = "each input element read (4 bytes), each kept element written (4 bytes), and the 8-byte count: "
               "4N + 4k + 8";
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true};
  spec.variants = {{"all", {kCubRow, "compact_three_kernels", "compact_one_pass"}},
                   {"three_kernels", {"compact_three_kernels"}},
                   {"one_pass", {"compact_one_pass"}},
                   {"cub", {kCubRow}},
                   {"sweep", {kCubRow, "compact_one_pass"}}};
  spec.harness_flags = {keep_flag()};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool sweep = opt.variant == "sweep";
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  const bool all = opt.variant == "all";
  auto wanted = [&](const char* variant) { return all || sweep || opt.variant == variant; };
  const bool three = all || opt.variant == "three_kernels";
  wb::Device dev = wb::open_device(opt);
  wb::fit_shared_memory(opt, dev, stage_bytes);
  // Besides input and output: the flags of the three kernels (one segment's), 8 bytes per tile.
  wb::fit_default_n(opt, dev, 8.0 + (three ? 4.0 : 0.0) + 8.0 / (opt.block * std::min(opt.batch, kSmallInputBatch)) + 0.05);
  const KeepBelow keep = keep_of(opt);
  wb::Input in = make_compaction_input(opt);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  wb::DeviceBuffer<unsigned long long> count(1, "the count");
  const int64_t segments = segments_for(in.n);
  wb::DeviceBuffer<unsigned long long> totals(size_t(std::max<int64_t>(1, segments - 1)), "the launches' totals");
  wb::DeviceBuffer<unsigned> flags(three ? size_t(std::min(in.n, kSegment)) : 1, "the flags");
  SinglePass single_pass(tiles_for(std::min(in.n, kSegment), opt.block, std::min(opt.batch, kSmallInputBatch)));
  const std::vector<int64_t> sizes = sizes_to_run(in.n, sweep);
  size_t cub_bytes = 0;
  if (wanted("cub")) {
    for (const int64_t s : sizes) {
      size_t bytes = 0;
      WB_CHECK(cub_select_if(nullptr, bytes, in.d, out.d, count.get(), s, keep));
      cub_bytes = std::max(cub_bytes, bytes);
    }
  }
  wb::DeviceBuffer<char> cub_temp(cub_bytes, "CUB's temporary storage");

  CompactBench bench(spec, opt, dev, in, keep, out.d, count.get());
  wb::note(opt, "%lld launch(es) of at most 2^31 elements; tiles of %d elements (block %d x K %d)\n",
           (long long)segments, opt.block * opt.batch, opt.block, opt.batch);
  stress_begin(opt);
  for (const int64_t s : sizes) {
    const int64_t part = std::min(s, kSegment);  // the longest launch: what the policies are for
    wb::Row cub;
    if (wanted("cub")) {
      cub = bench.run({kCubRow, s, 0, 0, 0, 0},
                      [&] { WB_CHECK(cub_select_if(cub_temp.get(), cub_bytes, in.d, out.d, count.get(), s, keep)); });
    }
    if (three && !sweep) {
      // Kernels are looked up (and allowed their shared memory) here, before the timing.
      const ScanPolicy p = choose_policy<NoCarryIn, unsigned>(opt, dev, part);
      const SinglePassKernel<NoCarryIn, unsigned> scan = single_pass_kernel<NoCarryIn, unsigned>(p.batch, p.block);
      wb::Case c{"compact_three_kernels", s, p.block, p.batch, 0,
                 wb::blocks_per_sm(scan, p.block, stage_bytes(p.block, p.batch))};
      c.config = "scan " + p.describe();
      const wb::Row r = bench.run(c, [&] {
        launch_three_kernels(single_pass, p, scan, opt.block, in.d, s, out.d, keep, flags.get(), count.get(),
                             totals.get());
      });
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
    if (wanted("one_pass")) {
      const ScanPolicy p = compaction_policy(opt, dev, part);
      const CompactKernel k = compact_kernel(p.batch, p.block);
      wb::Case c{"compact_one_pass", s, p.block, p.batch, 0, wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch))};
      c.config = p.describe();
      const wb::Row r = bench.run(c, [&] {
        launch_one_pass(single_pass, p, k, in.d, s, out.d, keep, count.get(), totals.get());
      });
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
  }
  stress_report(opt);
  return bench.finish();
}
