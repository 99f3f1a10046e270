/// @file radix_sort.cu
/// @brief Chapter 25: radix sort, what a scan is for. Sort N uint32 keys (or key-value pairs)
/// stably, one digit at a time from the lowest, CUB's DeviceRadixSort beside. A pass moves each
/// key to a prefix sum: the keys of smaller digits (where its digit's bucket starts), plus those
/// of its digit in earlier tiles, plus its rank among them in its tile. The steps, each a variant:
/// 1. radix_1bit_splits: 32 passes of 1-bit digits, each a split of the keys into zeros and ones
///    (chapter 21's compaction of both halves at once), with three kernels per pass: count each
///    tile's digits, scan the counts (CUB's DeviceScan), scatter;
/// 2. radix_three_kernels: the same kernels with 8-bit digits, 4 passes;
/// 3. radix_onesweep: the four digit histograms up front in one pass (chapter 24's kernel), then
///    one kernel per digit that ranks, looks back over the 256 digit counts of the tiles before
///    it (chapter 17's look-back, 256 wide) and scatters; no counts array, no scan;
/// 4. radix_onesweep_skip: step 3, skipping a pass whose digit every key shares (the histograms).
///
/// A tile ranks its keys by digit with 8 ballots per key (which lanes of the warp share a digit),
/// gathers them in shared memory in digit order, and writes each digit's keys as one run.
/// --values sorts pairs; --input picks the keys; --variant sweep runs CUB and step 3 at every
/// power of two from 2^16 to N.

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "workbook.cuh"
#include "histogram.cuh"  // chapter 24's kernels (its directory is on the include path): the digit histograms
#include "lookback_stress.cuh"  // the stress build's delays and counts; empty in the normal build

constexpr int kBlock = 512;      ///< threads per tile by default (any multiple of 32 from 32 to 1024 works)
constexpr int kBatch = 32;       ///< keys per thread (K) by default: a tile is block x K keys
constexpr int kPairsBatch = 16;  ///< K by default with --values (pairs spill at K = 32)
/// The largest K accepted (each power of two from 1 to this one has a compiled kernel).
constexpr int kMaxBatch = 32;
constexpr int kRadixBits = 8;                  ///< bits of a digit in steps 2 to 4
constexpr int kRadix = 1 << kRadixBits;        ///< values of such a digit
constexpr int kPasses = 32 / kRadixBits;       ///< its passes over 32-bit keys
constexpr int64_t kSweepFrom = int64_t(1) << 16;      ///< the smallest N of --variant sweep
constexpr int64_t kSweepDefaultN = int64_t(1) << 30;  ///< its largest N when --n is not given
constexpr int kLookBackWindow = 4;  ///< earlier tiles one look of step 3's look-back reads at once

/// The keys and values one pass reads and writes.
struct PassIo {
  const uint32_t* keys_in;  ///< the keys in the order of the pass before
  uint32_t* keys_out;       ///< the keys ordered by this pass's digit
  const uint32_t* vals_in;  ///< their values, or null
  uint32_t* vals_out;       ///< the values, moved as their keys
  int64_t n;                ///< keys
  int shift;                ///< the digit is (key >> shift) & (2^BITS - 1)
};

// [rank]
/// The lanes whose bit `bit` of `digit` is this lane's: a ballot of the bit, inverted where it is
/// 0. In PTX (libcu++ has no vote) so that one predicate serves both, and a bit takes 3
/// instructions (ptxas sets 7 predicates with one R2P); from __ballot_sync the compiler made 5.
__device__ __forceinline__ unsigned same_bit(unsigned digit, unsigned bit) {
  unsigned lanes;
  asm("{\n\t.reg .pred on;\n\t.reg .b32 b;\n\tand.b32 b, %1, %2;\n\tsetp.ne.u32 on, b, 0;\n\t"
      "vote.sync.ballot.b32 %0, on, 0xffffffff;\n\t@!on not.b32 %0, %0;\n\t}"
      : "=r"(lanes) : "r"(digit), "r"(bit));
  return lanes;
}

/// The lanes of the warp whose BITS-bit digit equals this lane's, among the lanes of `valid`.
template <int BITS>
__device__ __forceinline__ unsigned same_digit(unsigned digit, unsigned valid) {
  unsigned peers = valid;
#pragma unroll
  for (int b = 0; b < BITS; ++b) peers &= same_bit(digit, 1u << b);
  return peers;
}

/// Load a tile's keys and rank each key among the keys of its digit that come
/// before it in its warp. Warp w holds the tile's keys [32 K w, 32 K (w + 1)), lane l keys l,
/// l + 32, ... of them (coalesced loads), so handling key j of every lane in lane order, j by j,
/// is input order. Per digit the warp keeps a count in `count` (2^BITS words): key j's rank is
/// the count before this round plus its peers in lower lanes, and the highest of them writes the
/// new count. Keys past `size` are not counted; a FULL tile has none.
template <int BITS, int K, bool FULL>
__device__ __forceinline__ void rank_in_warp(const PassIo& io, int64_t begin, int size, uint32_t (&key)[K],
                                             unsigned (&rank)[K], unsigned* count) {
  constexpr int R = 1 << BITS;
  const int lane = int(threadIdx.x % kWarp);
  const int first = int(threadIdx.x / kWarp) * kWarp * K + lane;
  for (int d = lane; d < R; d += kWarp) count[d] = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int at = first + kWarp * j;
    key[j] = FULL || at < size ? io.keys_in[begin + at] : 0u;
  }
  __syncwarp();
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const unsigned digit = (key[j] >> io.shift) & (R - 1);
    const unsigned valid = FULL ? kFullMask : __ballot_sync(kFullMask, first + kWarp * j < size);
    const unsigned peers = same_digit<BITS>(digit, valid);
    const unsigned before = count[digit];
    __syncwarp();
    rank[j] = before + __popc(peers & below);
    if ((peers >> lane) == 1u) count[digit] = rank[j] + 1;  // the highest lane of the digit
    __syncwarp();
  }
}
// [rank]

/// Exclusive prefix sums of the R values v[0, R) in place, by one warp (each lane sums R/32
/// consecutive values, the lanes then scan those sums with shuffles); returns the total to lane 0.
template <int R, class T>
__device__ T warp_exclusive_scan(T* v) {
  constexpr int per_lane = (R + kWarp - 1) / kWarp;
  const int lane = int(threadIdx.x % kWarp), from = lane * per_lane;
  T sum = 0;
  for (int k = from; k < from + per_lane && k < R; ++k) sum += v[k];
  T inclusive = sum;
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const T up = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += up;
  }
  T running = inclusive - sum;
  for (int k = from; k < from + per_lane && k < R; ++k) {
    const T x = v[k];
    v[k] = running;
    running += x;
  }
  return __shfl_sync(kFullMask, inclusive, kWarp - 1);
}

// [carry]
/// Where steps 1 and 2 find a tile's place per digit: the exclusive scan of every tile's digit
/// counts, digit-major (count_tiles, then CUB's DeviceScan).
struct FromScannedCounts {
  const unsigned long long* starts;  ///< starts[d tiles + t]: where tile t's keys of digit d go
  int64_t tiles;                     ///< tiles of the pass
  /// This block's tile.
  __device__ int64_t take_tile() const { return blockIdx.x; }
  __device__ void publish(int64_t, int, unsigned) const {}  ///< nothing: the counts are scanned already
  /// The place of the tile's first key of digit d.
  __device__ unsigned long long start(int64_t tile, int d, unsigned) const { return starts[int64_t(d) * tiles + tile]; }
};

/// Where step 3 finds it: the bucket of digit d starts at the count of the smaller digits (the
/// histograms, scanned), and the tile's keys of digit d follow those of every earlier tile,
/// which a look-back over tile statuses adds up, one thread per digit. A status word holds a
/// tag (bits 60 to 63: 2 pass + 1 for the tile's own count, 2 pass + 2 for its inclusive
/// prefix; smaller tags are from before this pass) and a count (bits 0 to 59). Tiles are
/// numbered in the order blocks start (an atomic counter), so a tile only waits on running ones.
struct FromLookBack {
  const unsigned long long* bucket;  ///< bucket[d]: keys of digits below d
  unsigned long long* status;        ///< status[256 t + d]: tile t's word for digit d
  unsigned* next_tile;               ///< the tile counter of this pass, zero before it
  unsigned long long pass;           ///< this pass's number in the sort (0 to 3)
  static constexpr unsigned long long kCount = (1ull << 60) - 1;  ///< the count's bits
  /// Take the next tile number.
  __device__ int64_t take_tile() const { return atomicAdd(next_tile, 1u); }
  /// The status word of tile t for digit d.
  __device__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(int64_t t, int d) const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(status[t * kRadix + d]);
  }
  /// Publish the tile's count of digit d (tile 0's is already its inclusive prefix).
  __device__ void publish(int64_t tile, int d, unsigned count) const {
    stress_delay(pass, tile, d, tile == 0);
    word(tile, d).store(((2 * pass + (tile == 0 ? 2 : 1)) << 60) | count, cuda::memory_order_relaxed);
  }
  /// Add the counts of digit d of the tiles before this one, walking back to the first
  /// inclusive prefix, kLookBackWindow tiles per look (their loads in flight together); publish
  /// this tile's; return where its first key of digit d goes.
  __device__ unsigned long long start(int64_t tile, int d, unsigned count) const {
    unsigned long long before = 0;
    if (d == 0) stress_count(kStressTiles);
    for (int64_t t = tile - 1; t >= 0;) {
      unsigned long long s[kLookBackWindow];
#pragma unroll
      for (int w = 0; w < kLookBackWindow; ++w) s[w] = t - w >= 0 ? word(t - w, d).load(cuda::memory_order_relaxed) : 0;
      int w = 0;
      for (; w < kLookBackWindow && t - w >= 0; ++w) {
        const unsigned long long tag = s[w] >> 60;
        if (tag <= 2 * pass) break;  // not published in this pass yet: look again from there
        before += s[w] & kCount;
        stress_count(kStressChained, tag == 2 * pass + 1);
        if (tag == 2 * pass + 2) {   // an inclusive prefix: done
          t = -1;
          break;
        }
      }
      if (t < 0) break;
      stress_count(w == kLookBackWindow ? kStressWalks : kStressWaits);  // walk back, or look again
      t -= w;
    }
    if (tile > 0) stress_delay(pass, tile, d, true);
    if (tile > 0) word(tile, d).store(((2 * pass + 2) << 60) | (before + count), cuda::memory_order_relaxed);
    return bucket[d] + before;
  }
};
// [carry]

// [pass]
/// One tile of a pass: rank its keys by digit, find where each digit's keys go (`Carry`), gather
/// the tile in shared memory in digit order, and write each digit's keys as one run. Shared
/// memory (see pass_bytes): per digit where its keys (and values) go, the tile (block K words),
/// the warps' digit counts (2^BITS per warp), and each digit's first place in the tile.
template <int BITS, int K, bool PAIRS, bool FULL, class Carry>
__device__ __forceinline__ void pass_tile(const PassIo& io, const Carry& carry, int64_t t, int size,
                                          unsigned long long* smem64) {
  constexpr int R = 1 << BITS;
  const int tile_keys = int(blockDim.x) * K, warps = int(blockDim.x) / kWarp, warp = int(threadIdx.x) / kWarp;
  uint32_t** const key_to = reinterpret_cast<uint32_t**>(smem64);       // R: keys_out + start - first
  uint32_t** const val_to = key_to + R;                                  // R: the same in vals_out (pairs)
  unsigned* const tile = reinterpret_cast<unsigned*>(smem64 + (PAIRS ? 2 : 1) * R);  // the tile
  unsigned* const counts = tile + tile_keys;                             // warps x R
  unsigned* const first = counts + warps * R;                            // R: a digit's first place
  const int64_t begin = t * tile_keys;
  unsigned key[K], rank[K];
  rank_in_warp<BITS, K, FULL>(io, begin, size, key, rank, counts + warp * R);
  __syncthreads();
  for (int d = int(threadIdx.x); d < R; d += int(blockDim.x)) {  // per digit, the tile's count
    unsigned total = 0;
    for (int w = 0; w < warps; ++w) total += counts[w * R + d];
    first[d] = total;
    carry.publish(t, d, total);
  }
  __syncthreads();
  if (warp == 0) warp_exclusive_scan<R>(first);
  __syncthreads();
  for (int d = int(threadIdx.x); d < R; d += int(blockDim.x)) {  // per digit, each warp's count
    unsigned place = first[d];                                      // becomes its first key's place
    for (int w = 0; w < warps; ++w) {
      const unsigned c = counts[w * R + d];
      counts[w * R + d] = place;
      place += c;
    }
  }
  __syncthreads();
  const int mine = warp * kWarp * K + int(threadIdx.x % kWarp);
#pragma unroll
  for (int j = 0; j < K; ++j) {  // gather the tile in digit order
    rank[j] += counts[warp * R + ((key[j] >> io.shift) & (R - 1))];
    if (FULL || mine + kWarp * j < size) tile[rank[j]] = key[j];
  }
  for (int d = int(threadIdx.x); d < R; d += int(blockDim.x)) {
    const unsigned next = d + 1 < R ? first[d + 1] : unsigned(size);
    // Never negative: the first[d] keys of smaller digits in this tile also precede the bucket.
    const long long to = (long long)carry.start(t, d, next - first[d]) - first[d];
    key_to[d] = io.keys_out + to;
    if (PAIRS) val_to[d] = io.vals_out + to;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < K; ++j) {  // write: consecutive threads, consecutive places of one digit
    const int i = int(threadIdx.x) + j * int(blockDim.x);
    if (!FULL && i >= size) break;
    const uint32_t k = tile[i];
    key_to[(k >> io.shift) & (R - 1)][i] = k;
    if (PAIRS) key[j] = (k >> io.shift) & (R - 1);  // its digit, for its value below
  }
  if (!PAIRS) return;
  __syncthreads();  // the values take their keys' places, loaded now (held through ranking, they spilled)
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (FULL || mine + kWarp * j < size) tile[rank[j]] = io.vals_in[begin + mine + kWarp * j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int i = int(threadIdx.x) + j * int(blockDim.x);
    if (!FULL && i >= size) break;
    val_to[key[j]][i] = tile[i];
  }
}

/// One pass over the keys, a tile per block: full tiles without bounds checks, the last one with.
template <int BITS, int K, bool PAIRS, class Carry>
__global__ void __launch_bounds__(1024) sort_pass(PassIo io, Carry carry) {
  extern __shared__ unsigned long long smem64[];
  __shared__ int64_t tile_sh;
  if (threadIdx.x == 0) tile_sh = carry.take_tile();
  __syncthreads();
  const int64_t t = tile_sh, tile_keys = int64_t(blockDim.x) * K;
  const int size = int(min(tile_keys, io.n - t * tile_keys));
  if (size == tile_keys) pass_tile<BITS, K, PAIRS, true>(io, carry, t, size, smem64);
  else pass_tile<BITS, K, PAIRS, false>(io, carry, t, size, smem64);
}
// [pass]

// [count]
/// Steps 1 and 2's first kernel of a pass: count tile blockIdx.x's keys per digit (the lanes of
/// a digit add their number once) into counts[d tiles + t], digit-major, so that one exclusive
/// scan of the whole array gives every tile's place per digit.
template <int BITS, int K>
__global__ void __launch_bounds__(1024) count_tiles(PassIo io, unsigned long long* counts, int64_t tiles) {
  constexpr int R = 1 << BITS;
  __shared__ unsigned hist[R];
  for (int d = int(threadIdx.x); d < R; d += int(blockDim.x)) hist[d] = 0;
  __syncthreads();
  const int64_t begin = int64_t(blockIdx.x) * blockDim.x * K;
  const int size = int(min(int64_t(blockDim.x) * K, io.n - begin));
  const int lane = int(threadIdx.x % kWarp), first = int(threadIdx.x / kWarp) * kWarp * K + lane;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const int at = first + kWarp * j;
    const unsigned digit = at < size ? (io.keys_in[begin + at] >> io.shift) & (R - 1) : 0u;
    const unsigned peers = same_digit<BITS>(digit, __ballot_sync(kFullMask, at < size));
    if (at < size && (peers & ((1u << lane) - 1u)) == 0) atomicAdd(&hist[digit], unsigned(__popc(peers)));
  }
  __syncthreads();
  for (int d = int(threadIdx.x); d < R; d += int(blockDim.x)) counts[int64_t(d) * tiles + blockIdx.x] = hist[d];
}
// [count]

// [buckets]
/// Step 3, after the histograms: block p scans digit p's 256 counts into where each bucket
/// starts, and notes whether one bucket holds every key (then pass p moves nothing: step 4).
__global__ void bucket_starts(const unsigned long long* histograms, int64_t n, unsigned long long* bucket,
                              unsigned* trivial) {
  __shared__ unsigned long long v[kRadix];
  const unsigned long long* h = histograms + blockIdx.x * kRadix;
  bool all = false;
  for (int d = int(threadIdx.x); d < kRadix; d += int(blockDim.x)) v[d] = h[d], all |= h[d] == (unsigned long long)n;
  all = __syncthreads_or(all);
  if (threadIdx.x < kWarp) warp_exclusive_scan<kRadix>(v);
  __syncthreads();
  for (int d = int(threadIdx.x); d < kRadix; d += int(blockDim.x)) bucket[blockIdx.x * kRadix + d] = v[d];
  if (threadIdx.x == 0) trivial[blockIdx.x] = all;
}
// [buckets]

#include "sort_check.cuh"  // the harness: --input, --values, the keys, the checks, SortBench, the launches

/// Steps 1 and 2: per pass of BITS bits, count each tile's digits, scan the counts, scatter.
template <int BITS, bool PAIRS>
void three_kernel_sort(Buffers& b, int64_t n, int block, int batch) {
  constexpr int R = 1 << BITS;
  const int64_t tiles = wb::ceil_div<int64_t>(n, int64_t(block) * batch);
  const auto count = count_kernel<BITS>(batch);
  const auto scatter = pass_kernel<BITS, PAIRS, FromScannedCounts>(batch);
  const size_t smem = pass_bytes(BITS, block, batch, PAIRS);
  WB_CHECK(cudaFuncSetAttribute(scatter, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  std::vector<int> shifts;
  for (int s = 0; s < 32; s += BITS) shifts.push_back(s);
  ping_pong(b, n, shifts, [&](const PassIo& io, int) {
    count<<<unsigned(tiles), block>>>(io, b.counts.get(), tiles);
    WB_CHECK(cub::DeviceScan::ExclusiveSum(b.scan_temp.get(), b.scan_bytes, b.counts.get(), b.starts.get(), tiles * R));
    scatter<<<unsigned(tiles), block, smem>>>(io, FromScannedCounts{b.starts.get(), tiles});
  });
}

/// Steps 3 and 4: the four histograms in one pass, where each bucket starts, then one kernel per
/// digit; with `skip`, only the digits that differ between keys (the host reads which).
template <bool PAIRS>
void onesweep_sort(Buffers& b, const wb::Device& dev, int64_t n, int block, int batch, bool skip) {
  const int64_t tiles = wb::ceil_div<int64_t>(n, int64_t(block) * batch);
  const auto pass = pass_kernel<kRadixBits, PAIRS, FromLookBack>(batch);
  const size_t smem = pass_bytes(kRadixBits, block, batch, PAIRS);
  WB_CHECK(cudaFuncSetAttribute(pass, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  WB_CHECK(cudaMemsetAsync(b.status.get(), 0, size_t(tiles) * kRadix * 8));
  WB_CHECK(cudaMemsetAsync(b.next_tile.get(), 0, kPasses * 4));
  WB_CHECK(cudaMemsetAsync(b.histograms.get(), 0, kDigitBins * 8));
  count_digits<kHistBatch>(dev, kHistBlock, b.keys, n, b.histograms.get());
  bucket_starts<<<kPasses, kRadix>>>(b.histograms.get(), n, b.bucket.get(), b.trivial.get());
  unsigned trivial[kPasses] = {};
  if (skip) WB_CHECK(cudaMemcpy(trivial, b.trivial.get(), sizeof trivial, cudaMemcpyDeviceToHost));
  std::vector<int> shifts, digits;
  for (int p = 0; p < kPasses; ++p)
    if (!trivial[p]) shifts.push_back(kRadixBits * p), digits.push_back(p);
  ping_pong(b, n, shifts, [&](const PassIo& io, int k) {
    const FromLookBack carry{b.bucket.get() + digits[size_t(k)] * kRadix, b.status.get(), b.next_tile.get() + k,
                             (unsigned long long)k};
    pass<<<unsigned(tiles), block, smem>>>(io, carry);
  });
}

const char* const kCubKeys = "cub::DeviceRadixSort::SortKeys";    ///< CUB's row, keys alone
const char* const kCubPairs = "cub::DeviceRadixSort::SortPairs";  ///< CUB's row, pairs

int main(int argc, char** argv) {
  const Shape shape = take_input_flag(argc, argv);
  wb::Spec spec;
  spec.chapter = "25";
  spec.slug = "radix-sort";
  spec.idea = "radix sort, what a scan is for: 1-bit splits, 8-bit digits with three kernels per pass, one sweep "
              "per digit with a look-back over 256 digit counts, passes skipped when every key shares a digit, "
              "and CUB";
  spec.op = wb::Op::Scan;
  spec.bytes = "a one-sweep sort's traffic: the keys read once for the histograms, then read and written by each of "
               "the 4 passes: 36N (pairs: 68N)";
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true, "keys per thread (a tile is block x K keys; pairs: 16 by default)"};
  spec.variants = {{"all", {kCubKeys, "radix_1bit_splits", "radix_three_kernels", "radix_onesweep",
                            "radix_onesweep_skip"}},
                   {"split", {"radix_1bit_splits"}},
                   {"three_kernels", {"radix_three_kernels"}},
                   {"onesweep", {"radix_onesweep"}},
                   {"skip", {"radix_onesweep_skip"}},
                   {"cub", {kCubKeys}},
                   {"sweep", {kCubKeys, "radix_onesweep"}}};
  spec.cub_pairs = {{"radix_1bit_splits", kCubKeys}, {"radix_three_kernels", kCubKeys},
                    {"radix_onesweep", kCubKeys}, {"radix_onesweep_skip", kCubKeys}};
  add_sort_flags(spec);  // --values and --input

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool pairs = opt.harness_value("--values", 0) != 0, sweep = opt.variant == "sweep";
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  take_values_flag(opt, pairs, kPairsBatch);
  auto wanted = [&](const std::string& v) { return opt.variant == "all" || opt.variant == v || (sweep && (v == "onesweep" || v == "cub")); };
  wb::Device dev = wb::open_device(opt);
  wb::fit_shared_memory(opt, dev, [](int block, int batch) { return pass_bytes(kRadixBits, block, batch); });
  wb::fit_default_n(opt, dev, pairs ? 40.0 : 20.0);
  wb::Input in = make_keys(opt, shape);
  stress_begin(opt);
  const int64_t n = in.n;
  std::vector<int64_t> sizes;  // --variant sweep: each power of two from kSweepFrom below n; then n
  for (int64_t s = kSweepFrom; sweep && s < n; s *= 2) sizes.push_back(s);
  sizes.push_back(n);
  auto batch_of = [&](int64_t s) { return opt.batch_given ? opt.batch : small_sort_batch(s, opt.block, opt.batch, dev.sms); };
  int64_t tiles = 0;  // the most tiles of any size
  for (const int64_t s : sizes) tiles = std::max(tiles, wb::ceil_div<int64_t>(s, int64_t(opt.block) * batch_of(s)));
  Buffers b;
  allocate_buffers(b, opt, dev, in, pairs, tiles, wanted("three_kernels") ? tiles * kRadix : wanted("split") ? tiles * 2 : 0);
  size_t cub_bytes = 0;
  if (wanted("cub"))
    WB_CHECK(pairs ? cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, b.keys, b.out.keys, b.indices.get(), b.out.vals, n)
                   : cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, b.keys, b.out.keys, n));
  wb::DeviceBuffer<char> cub_temp(cub_bytes, "CUB's temporary storage");

  SortBench bench(spec, opt, dev, in, shape, pairs, b.out);
  const double per_key = pairs ? 68.0 : 36.0;
  for (const int64_t s : sizes) {
    wb::Row cub;
    if (wanted("cub")) {
      wb::Case c{pairs ? kCubPairs : kCubKeys, s, 0, 0, per_key * double(s), 0};
      cub = bench.run(c, [&] {
        WB_CHECK(pairs ? cub::DeviceRadixSort::SortPairs(cub_temp.get(), cub_bytes, b.keys, b.out.keys, b.indices.get(),
                                                          b.out.vals, s)
                       : cub::DeviceRadixSort::SortKeys(cub_temp.get(), cub_bytes, b.keys, b.out.keys, s));
      });
    }
    const int block = opt.block, batch = batch_of(s);
    auto run = [&](const char* variant, const char* name, const std::function<void()>& sort) {
      if (!wanted(variant) || (sweep && std::string(variant) != "onesweep")) return;
      wb::Case c{name, s, block, batch, per_key * double(s), 0};
      c.config = "tiles=" + std::to_string(wb::ceil_div<int64_t>(s, int64_t(block) * batch));
      const wb::Row r = bench.run(c, sort);
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    };
    run("split", "radix_1bit_splits", [&] { pairs ? three_kernel_sort<1, true>(b, s, block, batch) : three_kernel_sort<1, false>(b, s, block, batch); });
    run("three_kernels", "radix_three_kernels", [&] { pairs ? three_kernel_sort<8, true>(b, s, block, batch) : three_kernel_sort<8, false>(b, s, block, batch); });
    run("onesweep", "radix_onesweep", [&] { pairs ? onesweep_sort<true>(b, dev, s, block, batch, false) : onesweep_sort<false>(b, dev, s, block, batch, false); });
    run("skip", "radix_onesweep_skip", [&] { pairs ? onesweep_sort<true>(b, dev, s, block, batch, true) : onesweep_sort<false>(b, dev, s, block, batch, true); });
  }
  stress_report(opt);
  return bench.finish();
}
