#!/usr/bin/env python3
"""make_patches.py -- write the exercises' code edits as patch files (chNN-exK.patch).

Each exercise that changes a chapter's program is one entry of EDITS below: the file and a list
of (text, replacement, times) edits, the text being what the chapter page tells the reader to
find; an edit of another file (the header beside a program, chapter 17's single_pass.cuh) names
it first: (file, text, replacement, times). The script reads the file as it is in the working tree, makes the edits, and writes the
unified diff beside itself, for `git apply` from the repository root (run.sh applies them).
An edit whose text is not found exactly `times` times stops the script with the exercise and
the text: the chapter has changed, and the exercise (and its page) need a look.

  python3 docs/solutions/exercises/make_patches.py [--check] [ID ...]   (default: every entry)

--check writes nothing: it exits 1 naming each committed patch that differs from what the
edits give now (the chapter changed and the patch was not written again), 0 when all agree.

Standard library only; the output depends only on the files it reads.
"""
import difflib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

CH00 = "chapters/00-speed-of-light/speed_of_light.cu"
CH01 = "chapters/01-atomic-naive/atomic_naive.cu"
CH02 = "chapters/02-atomic-privatized/atomic_privatized.cu"
CH03 = "chapters/03-tree-divergent/tree_divergent.cu"
CH05 = "chapters/05-tree-sequential/tree_sequential.cu"
CH06 = "chapters/06-warp-unroll/warp_unroll.cu"
CH07 = "chapters/07-warp-shuffle/warp_shuffle.cu"
CH08 = "chapters/08-one-pass/one_pass.cu"
CH09 = "chapters/09-batching/batching.cu"
CH10 = "chapters/10-vectorized-int4/vectorized_int4.cu"
CH11 = "chapters/11-cub-and-beyond/cub_and_beyond.cu"
CH12 = "chapters/12-scan-naive-global/scan_naive_global.cu"
CH13 = "chapters/13-scan-shared/scan_shared.cu"
CH14 = "chapters/14-scan-double-buffer/scan_double_buffer.cu"
CH15 = "chapters/15-scan-warp-shuffle/scan_warp_shuffle.cu"
CH16 = "chapters/16-scan-coarsened/scan_coarsened.cu"
CH11H = "chapters/11-cub-and-beyond/reduce_best.cuh"
CH17 = "chapters/17-scan-device-wide/scan_device_wide.cu"
CH17H = "chapters/17-scan-device-wide/single_pass.cuh"
CH18 = "chapters/18-multi-gpu/multi_gpu.cu"
CH20 = "chapters/20-any-operator/any_operator.cu"
CH20M = "chapters/20-any-operator/monoids.cuh"
CH20C = "chapters/20-any-operator/any_check.cuh"
CH21 = "chapters/21-stream-compaction/stream_compaction.cu"
CH21H = "chapters/21-stream-compaction/compact_check.cuh"

# Chapter 07, exercise 3: any block size (3a), then a warp sum over the lanes that exist and a
# block sum that counts a partial last warp (3b, the answer the exercise asks the reader to write).
CH07_WARP_SUMS_OLD = """__device__ int warp_sum_shuffle(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}
"""
CH07_WARP_SUMS_NEW = """__device__ int warp_sum_shuffle(int v, unsigned lanes = 32) {
  const unsigned mask = lanes == 32 ? kFullMask : (1u << lanes) - 1;
  const unsigned lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    // Every lane of the mask shuffles; only a value from a lane that exists is added.
    const int other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < lanes) v += other;
  }
  return v;
}
"""
CH07_REDUCE_ADD_OLD = """__device__ int warp_sum_reduce_add(int v) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, v);
#else
  // sm_75 has no warp reduction instruction: a build for it runs the shuffle tree here,
  // so the variant still works there, and times the same as `shuffle`.
  return warp_sum_shuffle(v);
#endif
}
"""
CH07_REDUCE_ADD_NEW = """__device__ int warp_sum_reduce_add(int v, unsigned lanes = 32) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(lanes == 32 ? kFullMask : (1u << lanes) - 1, v);
#else
  // sm_75 has no warp reduction instruction: a build for it runs the shuffle tree here,
  // so the variant still works there, and times the same as `shuffle`.
  return warp_sum_shuffle(v, lanes);
#endif
}
"""
CH07_DISPATCH_OLD = """__device__ int warp_sum(int v) {
  return kHow == WarpSum::ReduceAdd ? warp_sum_reduce_add(v) : warp_sum_shuffle(v);
}
"""
CH07_DISPATCH_NEW = """__device__ int warp_sum(int v, unsigned lanes = 32) {
  return kHow == WarpSum::ReduceAdd ? warp_sum_reduce_add(v, lanes) : warp_sum_shuffle(v, lanes);
}
"""
CH07_BLOCK_OLD = """  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum<kHow>(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  // Warp 0 sums the totals. With fewer than 32 warps its upper lanes add 0: those slots of
  // warp_totals were never written in this block.
  if (warp == 0) v = warp_sum<kHow>(lane < blockDim.x / 32 ? warp_totals[lane] : 0);
"""
CH07_BLOCK_NEW = """  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned warps = (blockDim.x + 31) / 32;  // the last one may be partial
  const unsigned lanes = warp + 1 < warps ? 32 : blockDim.x - 32 * warp;
  v = warp_sum<kHow>(v, lanes);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  // Warp 0 sums the totals of every warp, the partial one included; it is itself partial
  // in a block of fewer than 32 threads.
  if (warp == 0) v = warp_sum<kHow>(lane < warps ? warp_totals[lane] : 0, blockDim.x < 32 ? blockDim.x : 32);
"""

# Chapter 11, exercise 2: one 64-bit atomic instead of the running sum, the count and the fences.
CH11_TOTAL_OLD = """struct GridTotal {
  int sum;               ///< the totals of the blocks that have added theirs so far
  unsigned blocks_done;  ///< how many blocks have added their total
};
"""
CH11_TOTAL_NEW = """struct GridTotal {
  /// Bits 44 and up: how many blocks have added their total; bits 0-31: the sum of those
  /// totals modulo 2^32, whose carries collect in bits 32-43 (fewer than 4096 blocks).
  unsigned long long word;
};
"""
CH11_COMBINE_OLD = """  atomicAdd(&grid_total->sum, total);
  __threadfence();  // our add is visible to every block before we count ourselves done
  if (atomicAdd(&grid_total->blocks_done, 1u) == gridDim.x - 1) {
    // The last block: every other block added its total before it counted itself done.
    __threadfence();  // so their adds are visible to the exchange below
    *sum = atomicExch(&grid_total->sum, 0);
    grid_total->blocks_done = 0;  // no block of this launch touches it again
  }
"""
CH11_COMBINE_NEW = """  // One atomic adds the total and counts the block: it is ordered with itself, so no fence.
  const unsigned long long before = atomicAdd(&grid_total->word, (1ull << 44) + uint32_t(total));
  if ((before >> 44) == gridDim.x - 1) {
    *sum = int(uint32_t(before) + uint32_t(total));  // every other block has added its total
    grid_total->word = 0;  // no block of this launch touches it again
  }
"""

# Chapter 15, exercise 3: the warp totals scanned by thread 0 alone.
CH15_OLD = """  if (warp == 0) {
    const int warps = int(blockDim.x) / kWarp;
    const int total = lane < warps ? warp_offsets[lane] : 0;
    // Each lane reads and writes only its own entry, so the warp needs no barrier here.
    warp_offsets[lane] = warp_inclusive_scan(total) - total;
  }
"""
CH15_NEW = """  if (t == 0) { int running = 0; for (int w = 0; w < int(blockDim.x) / kWarp; ++w) { const int total = warp_offsets[w]; warp_offsets[w] = running; running += total; } }
"""

# Chapter 16, exercise 1: each thread loads its own K consecutive elements.
CH16_LOAD_OLD = """  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;  // this lane's element in the warp's load 0
  int* const part = stage + warp * stage_ints_per_warp(K);
#pragma unroll
  for (int j = 0; j < K; ++j)
    part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? tile[first + j * kWarp] : 0;
  __syncwarp();
  const int* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine[i];
"""
CH16_LOAD_NEW = """  const int t = threadIdx.x; for (int i = 0; i < K; ++i) items[i] = t * K + i < count ? tile[t * K + i] : 0;
"""

# Chapter 17, exercise 2: two counters of the look-back's work, printed per tile after the runs.
CH17_COUNTERS = """/// Exercise 2: windows inspected and polls made by every look-back of the run.
__device__ unsigned long long look_back_windows = 0;
__device__ unsigned long long look_back_looks = 0;

"""
CH17_REPORT = """  {
    // Exercise 2: the look-back's work per tile, over every launch of the run.
    unsigned long long windows = 0, looks = 0;
    WB_CHECK(cudaMemcpyFromSymbol(&windows, look_back_windows, sizeof windows));
    WB_CHECK(cudaMemcpyFromSymbol(&looks, look_back_looks, sizeof looks));
    const double tiles = double(tiles_for(in.n, opt.block, opt.batch)) * (1 + opt.warmup + opt.reps);
    std::fprintf(stderr, "look-back at K = %d: %.2f windows and %.2f looks per tile (%.0f tiles in %d launches)\\n",
                 opt.batch, double(windows) / tiles, double(looks) / tiles, tiles, 1 + opt.warmup + opt.reps);
  }
  return bench.finish();
"""

# Chapter 18, exercise 3: scan-then-add instead of reduce-then-scan across the GPUs.
CH18_KERNELS = """/// Exercise 3 (scan-then-add): the last element of a shard's scan from zero, which is the
/// shard's total, to `last` (0 for an empty shard), for the all-gather.
__global__ void copy_last(const int* scan, int64_t n, int* last) { *last = n > 0 ? scan[n - 1] : 0; }

/// Elements per thread of add_carry: eight loads in flight before the first store.
constexpr int kAddBatch = 8;

/// Exercise 3: add the carry of the shard at `position` (the gathered totals before it) to
/// out[0, n). Block b adds tile b of blockDim.x x kAddBatch elements, each load coalesced.
__global__ void add_carry(int* out, int64_t n, const int* gathered, int position) {
  unsigned carry = 0;
  for (int s = 0; s < position; ++s) carry += unsigned(gathered[s]);
  const int64_t first = int64_t(blockIdx.x) * blockDim.x * kAddBatch + threadIdx.x;
  int v[kAddBatch];
#pragma unroll
  for (int k = 0; k < kAddBatch; ++k) {
    const int64_t i = first + int64_t(k) * blockDim.x;
    v[k] = i < n ? out[i] : 0;
  }
#pragma unroll
  for (int k = 0; k < kAddBatch; ++k) {
    const int64_t i = first + int64_t(k) * blockDim.x;
    if (i < n) out[i] = int(unsigned(v[k]) + carry);
  }
}

int main(int argc, char** argv) {
"""
CH18_STEPS = """  // Exercise 3: scan each shard from zero, all-gather the shards' last elements, add the carry.
  const wb::ShardWork scan_from_zero = [&](const wb::Shard& sh) {
    ShardBuffers& b = shard[size_t(sh.local)];
    b.single_pass->launch(b.policy, b.kernel, b.in.d, sh.count, scan_out(sh), ShardCarry{nullptr, 0});
    copy_last<<<1, 1, 0, m.gpu(sh).stream>>>(scan_out(sh), sh.count, gpu[size_t(sh.gpu)].sums.get() + sh.slot);
  };
  const wb::ShardWork add_the_carry = [&](const wb::Shard& sh) {
    if (sh.count == 0 || sh.index == 0) return;  // shard 0's carry is 0
    const int64_t blocks = wb::ceil_div<int64_t>(sh.count, int64_t(256) * kAddBatch);
    add_carry<<<unsigned(blocks), 256, 0, m.gpu(sh).stream>>>(scan_out(sh), sh.count, gpu[size_t(sh.gpu)].gathered.get(),
                                                             m.position(sh));
  };
  const wb::Steps scan_all{scan_from_zero, all_gather, nullptr, add_the_carry};
"""

# Chapter 20, exercise 4: int32 values summed into an int64 total, an instance of its own
# (--variant sum_int32_to_int64: CUB's sum and both orders, each checked, and in --emulate).
CH20_WIDE_SUM = """
/// Exercise 4: int32 values summed into an int64 total, modulo 2^64. The input is half the bytes
/// of SumInt64's; each element is widened to 64 bits as it is lifted.
struct SumInt32ToInt64 {
  using In = int32_t;  ///< the input's elements
  using T = int64_t;   ///< what the reduction carries
  static constexpr bool kAssociative = true;  ///< as SumInt64's
  static constexpr bool kCommutative = true;  ///< likewise
  /// 0: x + 0 = 0 + x = x.
  WB_HD static T identity() { return 0; }
  /// Element i widened to 64 bits.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// earlier + later, modulo 2^64.
  WB_HD static T combine(T earlier, T later) { return SumInt64::combine(earlier, later); }
};
"""
CH20_WIDE_INPUT = """
/// int32 values in [-2^28, 3 x 2^28), as SumInt64's: the total passes 2^32 within a few dozen
/// elements, where an int32 total would wrap; the changed element 0 adds 2^30.
template <>
struct InputOf<SumInt32ToInt64> {
  /// Element i.
  static int32_t value(uint64_t seed, uint64_t i, int64_t) {
    return int32_t(int64_t(instance_bits(seed, 0x20a5, i) >> 34) - (int64_t(1) << 28));
  }
  /// Element 0 on every other run.
  static int32_t changed(int32_t x0, int64_t) { return x0 + (int32_t(1) << 30); }
};
"""
CH20_WIDE_CUB = """
/// cub::DeviceReduce::Sum of int32 into an int64: CUB adds in the output's type.
template <>
cudaError_t cub_call<SumInt32ToInt64>(void* temp, size_t& temp_bytes, const int32_t* in, int64_t* out, int64_t n) {
  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);
}
"""
CH20_WIDE_ROWS = """/// See rows_of().
template <>
InstanceRows rows_of<SumInt32ToInt64>() {
  return {"sum_int32_to_int64", "cub_reduce_sum_int32_to_int64", nullptr, "reduce_best_sum_int32_to_int64",
          "reduce_in_order_sum_int32_to_int64"};
}
"""

# id -> (file, [(text, replacement, times)]). The ids follow the chapter pages' exercise
# numbers; a letter tells two edits of one exercise apart.
# Chapter 21, exercise 4: the split of a radix sort (the elements whose key bit is 0, then those
# whose bit is 1, each in order) as two launches of the one pass, the second starting from the
# first's count; CompactBench checks every run against std::stable_partition of its input.
CH21_KEY_BIT = """/// The predicate of a radix sort's split (exercise 4): the key is mix32 of the value, and the
/// elements whose key has bit `bit` equal to `value` are kept.
struct KeyBit {
  int bit = 0;         ///< the key's bit the split sorts by
  unsigned value = 0;  ///< 0: keep the elements whose bit is 0; 1: those whose bit is 1
  /// Whether x is kept.
  WB_HD bool operator()(int32_t x) const { return ((mix32(uint32_t(x)) >> bit) & 1u) == value; }
};

/// The bit the split sorts by: the first pass of a least-significant-digit radix sort.
constexpr int kSplitBit = 0;

"""
CH21_SPLIT = """/// The one pass with the split's predicate.
using SplitKernel = void (*)(const int*, int64_t, int*, KeyBit, Segment, LookBackArgs);

/// The one pass for the split, for K = `batch` (as compact_kernel()).
SplitKernel split_kernel(int batch, int block) {
  SplitKernel k = nullptr;
  switch (batch) {
    case 1: k = compact_one_pass<1, KeyBit>; break;
    case 2: k = compact_one_pass<2, KeyBit>; break;
    case 4: k = compact_one_pass<4, KeyBit>; break;
    case 8: k = compact_one_pass<8, KeyBit>; break;
    case 16: k = compact_one_pass<16, KeyBit>; break;
    case 32: k = compact_one_pass<32, KeyBit>; break;
    default:
      std::fprintf(stderr, "internal error: no split for K = %d\\n", batch);
      std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(stage_bytes(block, batch))));
  return k;
}

/// The split of in[0, n) by the key's bit `bit`: the one pass keeping the zeros, which leaves
/// their count in *zeros, then the one pass keeping the ones, whose first launch starts from
/// *zeros instead of from nothing, so that the ones follow the zeros; its total, n, goes to
/// *count. The second pass reuses `totals` once the first is done with them (one stream).
void launch_split(SinglePass& single_pass, const ScanPolicy& policy, SplitKernel kernel, const int* in, int64_t n,
                  int* out, int bit, unsigned long long* zeros, unsigned long long* count,
                  unsigned long long* totals) {
  const int64_t segments = segments_for(n);
  for (unsigned value = 0; value < 2; ++value) {
    for (int64_t s = 0; s < segments; ++s) {
      const int64_t first = s * kSegment, len = std::min(kSegment, n - first);
      Segment segment = segment_of(s, segments, totals, value == 0 ? zeros : count);
      if (value == 1 && s == 0) segment.kept_before = zeros;
      const int64_t tiles = tiles_for(len, policy.block, policy.batch);
      const LookBackArgs a = single_pass.next_launch(policy, tiles);
      kernel<<<unsigned(tiles), policy.block, stage_bytes(policy.block, policy.batch), single_pass.stream()>>>(
          in + first, len, out, KeyBit{bit, value}, segment, a);
    }
  }
}

"""
CH21_SPLIT_ROW = """    if (opt.variant == "split") {
      const ScanPolicy p = choose_policy_for(opt, dev, part, split_kernel);
      const SplitKernel k = split_kernel(p.batch, p.block);
      bench.expect_partition(KeyBit{kSplitBit, 0});
      // The bytes a split must move: every element read once and written once, and the counts.
      wb::Case c{"split_one_bit", s, p.block, p.batch, 8.0 * double(s) + 16.0,
                 wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch))};
      c.config = "bit=" + std::to_string(kSplitBit) + " " + p.describe();
      bench.run(c, [&] {
        launch_split(single_pass, p, k, in.d, s, out.d, kSplitBit, zeros.get(), count.get(), totals.get());
      });
    }
"""
CH21_EXPECT_PARTITION = """
  /// The split exercise: from now on every run's output, all n elements, must be the stable
  /// partition of its input by `zero` (the elements it holds true, then the others, each in their
  /// order), and the count n.
  template <class Zero>
  void expect_partition(Zero zero) {
    for (int parity = 0; parity < 2; ++parity) {
      whole_[parity] = in_.host;
      whole_[parity][0] = parity ? flipped_ : first_;
      std::stable_partition(whole_[parity].begin(), whole_[parity].end(), zero);
      whole_d_[parity] = wb::DeviceBuffer<int32_t>(whole_[parity].size(), "the expected split");
      WB_CHECK(cudaMemcpy(whole_d_[parity].get(), whole_[parity].data(), whole_[parity].size() * 4,
                          cudaMemcpyHostToDevice));
    }
    partition_ = true;
  }
"""

# Chapter 21, exercise 3: the flags kernel fused into the scan (--variant two_kernels, row
# compact_two_kernels): chapter 17's single pass, its tile loading the input and scanning keep(x),
# then the scatter as before.
CH21_SCAN_KEPT = """/// Exercise 3: kernels 1 and 2 fused. Chapter 17's single pass (scan_one_tile) whose tile loads
/// the input and scans keep(x), 1 or 0, instead of x: positions[i] is then the number of kept
/// elements in in[0, i], and no flags are written or read again. Launch it as compact_one_pass.
template <int K>
__global__ void __launch_bounds__(1024)
    compact_scan_kept(const int* in, int64_t n, KeepBelow keep, unsigned* positions, LookBackArgs a) {
  extern __shared__ int stage_words[];
  __shared__ unsigned warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ unsigned tile_carry;
  if (threadIdx.x == 0) tile_number = atomicAdd(a.counter, 1ull) - a.counter_base;
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(tile, tile_size, n);
  const int64_t first = tile * tile_size;

  // This thread's K consecutive elements, judged: the padding past `count` is never kept.
  int values[K];
  load_tile<K>(in + first, count, stage_words, values);
  unsigned items[K];
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = (int(threadIdx.x) * K + i < count && keep(values[i])) ? 1u : 0u;
  const unsigned thread_total = thread_scan<K>(items);

  // The rest is scan_one_tile's: the tile's count published, the scan inside the tile, the carry.
  const unsigned tile_total = block_sum(thread_total, warp_totals);
  if (threadIdx.x == 0) {
    stress_delay(a, tile, kAggregate);
    publish(&a.statuses[tile], a.epoch, tile == 0 ? kPrefix : kAggregate, tile_total);
  }
  const unsigned within_tile = block_exclusive_prefix(thread_total, warp_totals);
  if (threadIdx.x < kWarp) {
    const unsigned carry = look_back(a, tile, tile_total, NoCarryIn());
    if (threadIdx.x == 0) tile_carry = carry;
  }
  __syncthreads();
  const unsigned before = tile_carry + within_tile;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(positions + first, count, reinterpret_cast<unsigned*>(stage_words), items);
}

"""
CH21_TWO_KERNELS = """/// compact_scan_kept's instances.
using ScanKeptKernel = void (*)(const int*, int64_t, KeepBelow, unsigned*, LookBackArgs);

/// compact_scan_kept for K = `batch` (as compact_kernel()).
ScanKeptKernel scan_kept_kernel(int batch, int block) {
  ScanKeptKernel k = nullptr;
  switch (batch) {
    case 1: k = compact_scan_kept<1>; break;
    case 2: k = compact_scan_kept<2>; break;
    case 4: k = compact_scan_kept<4>; break;
    case 8: k = compact_scan_kept<8>; break;
    case 16: k = compact_scan_kept<16>; break;
    case 32: k = compact_scan_kept<32>; break;
    default:
      std::fprintf(stderr, "internal error: no fused scan for K = %d\\n", batch);
      std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(stage_bytes(block, batch))));
  return k;
}

/// The two kernels over in[0, n), per segment: compact_scan_kept with `policy` (one block per
/// tile, as the one pass), then the scatter (blocks of `block` threads) on its positions.
void launch_two_kernels(SinglePass& single_pass, const ScanPolicy& policy, ScanKeptKernel scan, int block,
                        const int* in, int64_t n, int* out, KeepBelow keep, unsigned* positions,
                        unsigned long long* count, unsigned long long* totals) {
  const int64_t segments = segments_for(n);
  for (int64_t s = 0; s < segments; ++s) {
    const int64_t first = s * kSegment, len = std::min(kSegment, n - first);
    const int64_t tiles = tiles_for(len, policy.block, policy.batch);
    const LookBackArgs a = single_pass.next_launch(policy, tiles);
    scan<<<unsigned(tiles), policy.block, stage_bytes(policy.block, policy.batch), single_pass.stream()>>>(
        in + first, len, keep, positions, a);
    const unsigned grid = unsigned(wb::ceil_div<int64_t>(len, block));
    compact_scatter<<<grid, block, 0, single_pass.stream()>>>(in + first, len, positions, keep, out,
                                                              segment_of(s, segments, totals, count));
  }
}

"""
CH21_TWO_KERNELS_ROW = """    if (two) {
      const ScanPolicy p = choose_policy_for(opt, dev, part, scan_kept_kernel);
      const ScanKeptKernel k = scan_kept_kernel(p.batch, p.block);
      wb::Case c{"compact_two_kernels", s, p.block, p.batch, 0,
                 wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch))};
      c.config = "scan " + p.describe();
      bench.run(c, [&] {
        launch_two_kernels(single_pass, p, k, opt.block, in.d, s, out.d, keep, flags.get(), count.get(), totals.get());
      });
    }
"""

EDITS = {
    "ch00-ex2a": (CH00, [("constexpr int kUnroll = 4;", "constexpr int kUnroll = 1;", 1)]),
    "ch00-ex2b": (CH00, [("constexpr int kUnroll = 4;", "constexpr int kUnroll = 8;", 1)]),
    "ch01-ex2a": (CH01, [("    atomicAdd(sum, in[i]);\n", "    *sum += in[i];\n", 1)]),
    "ch01-ex2b": (CH01, [("    atomicAdd(sum, in[i]);\n", "    *sum += 1;\n", 1)]),
    "ch02-ex2": (CH02, [("const int64_t max_blocks = int64_t(dev.sms) * occupancy;",
                         "const int64_t max_blocks = wb::ceil_div<int64_t>(in.n, opt.block);", 1)]),
    "ch03-ex1": (CH03, [("if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];",
                         "if ((tid & (2 * stride - 1)) == 0) s[tid] += s[tid + stride];", 1)]),
    "ch03-ex3": (CH03, [("    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];\n    __syncthreads();\n",
                         "    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];\n", 1)]),
    "ch05-ex1": (CH05, [("const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);",
                         "const int64_t max_blocks = int64_t(dev.sms) * wb::blocks_per_sm(reduce_tree_sequential, opt.block, smem);",
                         1)]),
    "ch05-ex4": (CH05, [("  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];\n",
                         "#pragma unroll 1\n"
                         "  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];\n",
                         1)]),
    "ch06-ex2": (CH06, [("volatile int* v = s;", "int* v = s;", 1)]),
    "ch06-ex5": (CH06, [("for (unsigned stride = kThreads / 2; stride >= 64; stride /= 2) {",
                         "for (unsigned stride = kThreads / 2; stride > 0; stride /= 2) {", 1),
                        ("""  if (tid < 32) {
    volatile int* v = s;  // every access goes to shared memory, none stays in a register
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride /= 2) {
      if (tid < stride) v[tid] += v[tid + stride];
      // A lane's write in this step must be visible to the lane that reads it in the next.
      if constexpr (!kRacy) __syncwarp();
    }
    if (tid == 0) partials[blockIdx.x] = v[0];
  }
""", "  if (tid == 0) partials[blockIdx.x] = s[0];\n", 1)]),
    "ch07-ex2": (CH07, [("__shfl_down_sync(kFullMask, v, offset)", "__shfl_xor_sync(kFullMask, v, offset)", 1)]),
    "ch07-ex3a": (CH07, [("spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};",
                          "spec.block = {wb::BlockRule::Any, kBlock, 1, 1024};", 1)]),
    "ch07-ex3b": (CH07, [(CH07_WARP_SUMS_OLD, CH07_WARP_SUMS_NEW, 1),
                        (CH07_REDUCE_ADD_OLD, CH07_REDUCE_ADD_NEW, 1),
                        (CH07_DISPATCH_OLD, CH07_DISPATCH_NEW, 1),
                        (CH07_BLOCK_OLD, CH07_BLOCK_NEW, 1),
                        ("spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};",
                         "spec.block = {wb::BlockRule::Any, kBlock, 1, 1024};", 1)]),
    "ch08-ex1": (CH08, [("  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));\n", "", 1),
                        ("__global__ void reduce_one_pass_atomic(const int* in, int64_t n, int* sum) {\n",
                         "__global__ void reduce_one_pass_atomic(const int* in, int64_t n, int* sum) {\n"
                         "  if (blockIdx.x == 0 && threadIdx.x == 0) *sum = 0;\n", 1)]),
    "ch08-ex2": (CH08, [("      *blocks_done = 0;  // ready for the next launch, which is ordered after this one\n", "", 1)]),
    "ch08-ex5": (CH08, [("  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);\n",
                         "", 1),
                        ("    const int occupancy = wb::blocks_per_sm(reduce_one_pass_atomic, opt.block);\n",
                         "    const int occupancy = wb::blocks_per_sm(reduce_one_pass_atomic, opt.block);\n"
                         "    const int64_t max_blocks = int64_t(dev.sms) * occupancy;\n", 1),
                        ("    const int occupancy = wb::blocks_per_sm(reduce_one_pass_last_block, opt.block);\n",
                         "    const int occupancy = wb::blocks_per_sm(reduce_one_pass_last_block, opt.block);\n"
                         "    const int64_t max_blocks = int64_t(dev.sms) * occupancy;\n", 1)]),
    "ch09-ex1": (CH09, [("constexpr int kLoadsInFlight = 8;", "constexpr int kLoadsInFlight = 1;", 1),
                        ("      for (; k + kLoadsInFlight <= batch; k += kLoadsInFlight) {\n",
                         "#pragma unroll 1\n      for (; k + kLoadsInFlight <= batch; k += kLoadsInFlight) {\n", 1)]),
    "ch09-ex2": (CH09, [("p[(k + u) * stride]", "in[start + tid * batch + k + u]", 1),
                        ("p[k * stride]", "in[start + tid * batch + k]", 1),
                        ("      const int* p = in + start + tid;\n", "", 1)]),
    "ch10-ex1": (CH10, [("const int64_t head = to_boundary < n ? to_boundary : n;",
                         "const int64_t head = 0 * to_boundary;", 1)]),
    "ch10-ex2": (CH10, [("const int64_t vectors = (n - head) / 4;", "const int64_t vectors = (n - head + 3) / 4;", 1),
                        ("return {head, vectors, n - head - 4 * vectors};", "return {head, vectors, 0};", 1)]),
    "ch11-ex2": (CH11H, [(CH11_TOTAL_OLD, CH11_TOTAL_NEW, 1), (CH11_COMBINE_OLD, CH11_COMBINE_NEW, 1)]),
    "ch11-ex3": (CH11, [("const int64_t max_blocks = int64_t(dev.sms) * occupancy;",
                         "const int64_t max_blocks = 5 * int64_t(dev.sms) * occupancy;", 1)]),
    "ch12-ex2": (CH12, [("    if (in_range && t >= offset) left = out[i - offset];\n"
                         "    // Every read of this step must see the previous step's value, before anyone overwrites it.\n"
                         "    __syncthreads();\n",
                         "    if (in_range && t >= offset) left = out[i - offset];\n"
                         "    // Every read of this step must see the previous step's value, before anyone overwrites it.\n",
                         1)]),
    "ch13-ex2": (CH13, [("    if (t >= offset) sums[t] += left;\n"
                         "    // Every write of this step must land before the next step reads it.\n"
                         "    __syncthreads();\n",
                         "    if (t >= offset) sums[t] += left;\n"
                         "    // Every write of this step must land before the next step reads it.\n", 1)]),
    "ch14-ex1": (CH14, [("int* to = buffers + blockDim.x;", "int* to = from;", 1),
                        ("    int* const previous = from;\n    from = to;\n    to = previous;\n", "", 1)]),
    "ch15-ex3": (CH15, [(CH15_OLD, CH15_NEW, 1)]),
    "ch16-ex1": (CH16, [(CH16_LOAD_OLD, CH16_LOAD_NEW, 1)]),
    "ch16-ex2": (CH16, [("return (kWarp + 1) * k;", "return kWarp * k;", 1),
                        ("part[j * (kWarp + 1) + lane]", "part[j * kWarp + lane]", 2),
                        ("part + lane * K + lane * K / kWarp", "part + lane * K", 2)]),
    "ch17-ex1": (CH17H, [("  __shared__ unsigned long long tile_number;\n", "", 1),
                        ("  if (threadIdx.x == 0) tile_number = atomicAdd(a.counter, 1ull) - a.counter_base;\n"
                         "  __syncthreads();\n"
                         "  const int64_t tile = int64_t(tile_number);\n",
                         "  const int64_t tile = blockIdx.x;\n", 1)]),
    "ch17-ex2": (CH17, [(CH17H, "// [look_back]\n/// The decoupled look-back,", "// [look_back]\n" + CH17_COUNTERS
                         + "/// The decoupled look-back,", 1),
                        (CH17H, "  for (int64_t nearest = tile - 1;; nearest -= kWindow) {\n",
                         "  for (int64_t nearest = tile - 1;; nearest -= kWindow) {\n"
                         "    if (lane == 0) atomicAdd(&look_back_windows, 1ull);\n", 1),
                        # The look-back's own wait (look_back_folding, chapter 19's, has one of the same text).
                        (CH17H, "never load.\n    TileStatus s = other < 0 ? status_word(a.epoch, kPrefix, T(0)) : 0;\n"
                         "    unsigned prefixes, waiting;\n    do {\n      if (!is_current(s, a.epoch)) s = observe(&a.statuses[other]);\n",
                         "never load.\n    TileStatus s = other < 0 ? status_word(a.epoch, kPrefix, T(0)) : 0;\n"
                         "    unsigned prefixes, waiting;\n    do {\n      if (lane == 0) atomicAdd(&look_back_looks, 1ull);\n"
                         "      if (!is_current(s, a.epoch)) s = observe(&a.statuses[other]);\n", 1),
                        ("  return bench.finish();\n", CH17_REPORT, 1)]),
    "ch17-ex3": (CH17H, [("const bool one_wave = tiles_for(n, p.block, p.batch) <= int64_t(dev.sms) * per_sm;",
                         "const bool one_wave = tiles_for(n, p.block, p.batch) <= 2 * int64_t(dev.sms) * per_sm;", 1)]),
    "ch18-ex3": (CH18, [("int main(int argc, char** argv) {\n", CH18_KERNELS, 1),
                        ("  const wb::Steps scan_all{shard_sum, all_gather, nullptr, seeded_scan};\n", CH18_STEPS, 1)]),
    "ch20-ex3": (CH20M, [("  /// The larger value; of equal values, the smaller index.\n",
                          "  /// The larger value; of equal values, the larger index (exercise 3).\n", 1),
                         ("(later.value == earlier.value && later.index < earlier.index)",
                          "(later.value == earlier.value && later.index > earlier.index)", 1)]),
    "ch20-ex4": (CH20, [(CH20M, "};\n// [sum_int64]\n", "};\n// [sum_int64]\n" + CH20_WIDE_SUM, 1),
                        (CH20C, "(uint64_t(1) << 40)); }\n};\n", "(uint64_t(1) << 40)); }\n};\n" + CH20_WIDE_INPUT, 1),
                        ("  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);\n}\n",
                         "  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);\n}\n" + CH20_WIDE_CUB, 1),
                        ('"reduce_in_order_sum_int64"};\n}\n', '"reduce_in_order_sum_int64"};\n}\n' + CH20_WIDE_ROWS, 1),
                        ("  return {rows_of<SumInt64>(), rows_of<MaxInt32>(), rows_of<MinInt32>(), rows_of<ArgMaxInt32>(),\n"
                         "          rows_of<AffineCompose>()};",
                         "  return {rows_of<SumInt64>(), rows_of<SumInt32ToInt64>(), rows_of<MaxInt32>(), rows_of<MinInt32>(),\n"
                         "          rows_of<ArgMaxInt32>(), rows_of<AffineCompose>()};", 1),
                        ('  one("sum_int64", f, values, SumInt64::kAssociative, SumInt64::kCommutative);\n',
                         '  one("sum_int64", f, values, SumInt64::kAssociative, SumInt64::kCommutative);\n'
                         "  f = algebra_of<SumInt32ToInt64>(opt, n, values);\n"
                         '  one("sum_int32_to_int64", f, values, SumInt32ToInt64::kAssociative,\n'
                         "      SumInt32ToInt64::kCommutative);\n", 1),
                        ('run_instance<SumInt64>(bench, opt, dev, sizes, rows_of<SumInt64>());\n',
                         'run_instance<SumInt64>(bench, opt, dev, sizes, rows_of<SumInt64>());\n'
                         '  if (all || opt.variant == "sum_int32_to_int64")\n'
                         "    run_instance<SumInt32ToInt64>(bench, opt, dev, sizes, rows_of<SumInt32ToInt64>());\n", 1)]),
    "ch21-ex3": (CH21, [("// [three_kernels]\n\n/// The one pass's instances.",
                         "// [three_kernels]\n\n" + CH21_SCAN_KEPT + "/// The one pass's instances.", 1),
                        ("// [launchers]\n\n// [cub]", "// [launchers]\n\n" + CH21_TWO_KERNELS + "// [cub]", 1),
                        ('                   {"three_kernels", {"compact_three_kernels"}},\n',
                         '                   {"three_kernels", {"compact_three_kernels"}},\n'
                         '                   {"two_kernels", {"compact_two_kernels"}},\n', 1),
                        ('  const bool three = all || opt.variant == "three_kernels";\n',
                         '  const bool three = all || opt.variant == "three_kernels";\n'
                         '  const bool two = opt.variant == "two_kernels";  // its positions take the flags\' place\n', 1),
                        ("  wb::fit_default_n(opt, dev, 8.0 + (three ? 4.0 : 0.0) + ",
                         "  wb::fit_default_n(opt, dev,\n                    8.0 + (three || two ? 4.0 : 0.0) + ", 1),
                        ('flags(three ? size_t(', 'flags(three || two ? size_t(', 1),
                        ('    if (wanted("one_pass")) {\n', CH21_TWO_KERNELS_ROW + '    if (wanted("one_pass")) {\n', 1)]),
    "ch21-ex4": (CH21, [("// [keep]\n\n/// Element i of the input", "// [keep]\n\n" + CH21_KEY_BIT + "/// Element i of the input", 1),
                        ("template <int K>\n__global__ void __launch_bounds__(1024)\n"
                         "    compact_one_pass(const int* in, int64_t n, int* out, KeepBelow keep, Segment segment, LookBackArgs a) {",
                         "template <int K, class Keep = KeepBelow>\n__global__ void __launch_bounds__(1024)\n"
                         "    compact_one_pass(const int* in, int64_t n, int* out, Keep keep, Segment segment, LookBackArgs a) {", 1),
                        ("// [launchers]\n\n// [cub]", "// [launchers]\n\n" + CH21_SPLIT + "// [cub]", 1),
                        ('{"sweep", {kCubRow, "compact_one_pass"}}};',
                         '{"sweep", {kCubRow, "compact_one_pass"}},\n                   {"split", {"split_one_bit"}}};', 1),
                        ('  wb::DeviceBuffer<unsigned long long> count(1, "the count");\n',
                         '  wb::DeviceBuffer<unsigned long long> count(1, "the count");\n'
                         '  wb::DeviceBuffer<unsigned long long> zeros(1, "the split\'s count of zeros");\n', 1),
                        ("    }\n  }\n  stress_report(opt);", "    }\n" + CH21_SPLIT_ROW + "  }\n  stress_report(opt);", 1),
                        (CH21H, "  void annotate_last(const std::string& text) {\n    if (!rows_.empty()) rows_.back().note = text;\n  }\n",
                         "  void annotate_last(const std::string& text) {\n    if (!rows_.empty()) rows_.back().note = text;\n  }\n"
                         + CH21_EXPECT_PARTITION, 1),
                        (CH21H, "    const int64_t k = kept_in(c.n);\n", "    const int64_t k = partition_ ? c.n : kept_in(c.n);\n", 1),
                        (CH21H, "    const Expected e = expected_for(k, parity_);\n",
                         "    const Expected e = partition_ ? Expected{n, 0, false, 0} : expected_for(k, parity_);\n"
                         "    const int32_t* want_d = partition_ ? whole_d_[parity_].get() : want_d_.get();\n"
                         "    const int32_t* want_h = partition_ ? whole_[parity_].data() : want_.data();\n", 1),
                        (CH21H, "(out_, n, want_d_.get(), e, result_.get());", "(out_, n, want_d, e, result_.get());", 1),
                        (CH21H, "expected_at(want_.data(), e, index));", "expected_at(want_h, e, index));", 1),
                        (CH21H, "  std::vector<std::pair<int64_t, int64_t>> prefix_counts_;  // (n, kept) of the shorter runs\n",
                         "  std::vector<std::pair<int64_t, int64_t>> prefix_counts_;  // (n, kept) of the shorter runs\n"
                         "  bool partition_ = false;                    // the split exercise: whole_ replaces want_\n"
                         "  std::vector<int32_t> whole_[2];             // its expected output for each parity\n"
                         "  wb::DeviceBuffer<int32_t> whole_d_[2];      // and their device copies\n", 1)]),
}


def edited(exercise):
    """The (path, old text, new text) of each file one exercise edits, in the order of their first
    edit; exits naming any text not found."""
    main_path, edits = EDITS[exercise]
    files = {}  # path -> [old, new]
    for edit in edits:
        path, (text, replacement, times) = (edit[0], edit[1:]) if len(edit) == 4 else (main_path, edit)
        if path not in files:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                files[path] = [f.read()] * 2
        found = files[path][1].count(text)
        if found != times:
            sys.exit(f"make_patches: {exercise}: {path} holds {found} (not {times}) of:\n{text}")
        files[path][1] = files[path][1].replace(text, replacement)
    return [(path, old, new) for path, (old, new) in files.items()]


def patch_text(path, old, new):
    """A unified diff that `git apply` takes from the repository root."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile="a/" + path, tofile="b/" + path, n=3)
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if a != "--check"] or sorted(EDITS)
    unknown = [w for w in wanted if w not in EDITS]
    if unknown:
        print("make_patches: no such exercise: " + " ".join(unknown), file=sys.stderr)
        return 2
    stale = []
    for exercise in wanted:
        # The whole patch first: an edit whose text is gone stops here, leaving the file as it was.
        text = "".join(patch_text(path, old, new) for path, old, new in edited(exercise))
        path = os.path.join(HERE, exercise + ".patch")
        if check:
            with open(path, encoding="utf-8", newline="") as f:
                if f.read() != text:
                    stale.append(exercise)
            continue
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    if check:
        for exercise in stale:
            print(f"make_patches: {exercise}.patch is not what its edits give now (run make_patches.py {exercise})",
                  file=sys.stderr)
        print(f"make_patches: {len(wanted) - len(stale)} of {len(wanted)} patch(es) as their edits give them")
        return 1 if stale else 0
    print(f"make_patches: {len(wanted)} patch(es) written to {os.path.relpath(HERE, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
