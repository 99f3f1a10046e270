/// @file float_sum.cu
/// @brief Chapter 19: the order of a float sum. Accuracy, the same bits on every run, grid and
/// GPU, and a correctly rounded sum at memory speed.
///
/// The idea: float addition rounds, so a float sum depends on the order of its additions, and
/// a GPU picks that order from its grid, its atomics and its scheduling. Every variant here
/// sums the same float32 input (made on the device from (seed, i), as the host makes it) and
/// is judged against the truth: the exact sum, computed on the CPU without rounding (ExactSum)
/// and rounded once. Each variant must land within the error bound of its own order of
/// additions, |s - S| <= gamma(depth) * sum |x| (Higham), where depth is the longest chain of
/// additions from an input to the result; the report gives its error in ulps of the exactly
/// rounded sum and relative to sum |x|, and how many bit patterns its runs produced.
/// - `atomic`: chapter 08's one pass with a float atomicAdd per block: the blocks arrive in
///   a different order each run, and so do the bits.
/// - `tree`: chapter 11's tree on floats, the blocks' sums combined by the last block in a
///   fixed order: the same bits on every run of one grid, other bits on another grid (the
///   second row runs the grid another GPU's SM count would give).
/// - `reproducible`: an order fixed by N alone: chunks of 8192 elements, each summed by one
///   warp in a fixed order, chunk sums summed the same way, level after level. Any grid, any
///   GPU, the same bits, which the CPU computes too (reproducible_sum_on_host).
/// - `kahan`: Kahan-Babuska-Neumaier in registers, then a compensated combine.
/// - `pairwise`: the reproducible decomposition with pairwise trees inside each lane: the
///   same speed, a depth of log2(N) instead of N / 128.
/// - `exact`: correctly rounded. Every float is an integer multiple of 2^-149; each thread
///   adds its floats into double bins in shared memory, one per 16 exponents (kDoubleBins),
///   where no addition rounds, and every kFoldEvery float4s moves them into a 320-bit integer;
///   the blocks add their integers into the grid's kBins chunks of 32 bits, and the last block
///   rounds the total once. The bits must equal ExactSum's rounding.
/// - `cub`: cub::DeviceReduce::Sum on floats, and, where the CUB in the build has them
///   (CUB 3.1 on), its three determinism levels.
/// - `scan`: chapter 17's single pass (single_pass.cuh) on floats. In chapter 17's look-back
///   order a tile's carry is the nearest published prefix P(j) plus the aggregates after it,
///   and j depends on timing: other bits on another run. The deterministic row folds forward
///   instead, ((P(j) + A(j+1)) + ...) + A(t-1), which is P(t-1) of the recurrence
///   P(t) = P(t-1) + A(t) whatever j was: the same bits on every run and GPU, which the CPU
///   emulates (folded_scan_on_host).
///
/// What it teaches: reproducibility is a property of the order of additions, not of the
/// hardware; an exact accumulator makes the order irrelevant, and costs little when the sum
/// is bound by memory.
///
/// Since chapter 11: float instead of int32; the input is made on the device. The harness is in
/// float_check.cuh beside this file: a wb::Bench of its own (FloatBench) checks each result
/// against a bound instead of bit equality, counts the bit patterns of the runs, and compares
/// the reproducible, exact and deterministic-scan results bit for bit with the CPU. Inputs with
/// IEEE's special values (`--input subnormal`, `special`, `negzero`) test the edges: where an
/// infinity or NaN leaves no bound, each result must be what IEEE's additions give in any
/// order, and the exact sum of -0.0s is -0.0. `--study` prints, per variant, N and input, the
/// bit patterns over R runs and the error: what the page's figures are drawn from.

#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "wb_float.h"
#include "workbook.cuh"

/// CUB 3.1 and newer take a determinism requirement (cuda::execution::determinism): the first
/// CUB_VERSION that has it.
#define WB_CUB_DETERMINISM_SINCE 300100
/// The same CUB as the Spec names it (needs_cub): the rows that use the requirement stay in
/// their variant whatever the CUB, so that --info is the same for every build; an older build
/// skips them and says so.
constexpr const char* kDeterminismCub = "3.1.0";
static_assert(wb::cub_version_number(kDeterminismCub) == WB_CUB_DETERMINISM_SINCE, "the Spec and the #if name one CUB");
/// 1 where this build's CUB takes a determinism requirement, else 0.
#if CUB_VERSION >= WB_CUB_DETERMINISM_SINCE
#define WB_CUB_DETERMINISM 1
#include <cuda/execution>
#else
#define WB_CUB_DETERMINISM 0
#endif

/// Threads per block of the grid-dependent sums unless --block says otherwise.
constexpr int kBlock = 256;
/// Threads per warp.
constexpr int kWarp = 32;
/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;
/// float4s each lane reads from one chunk of the reproducible and pairwise orders.
constexpr int kLaneVectors = 64;
/// Elements of one chunk: 32 lanes x 64 float4s. Fixed, so the order depends on N alone.
constexpr int64_t kChunk = int64_t(kWarp) * kLaneVectors * 4;
/// Threads per block of the chunked sums (their result does not depend on it).
constexpr int kChunkBlock = 256;
/// Threads per block of the exact sum (its result does not depend on it).
constexpr int kExactBlock = 256;
/// Bins of the exact sum's threads: doubles, bin b for the floats whose biased exponent is
/// 16 b to 16 b + 15. Each such float is a multiple of the bin's unit (2^(16 b - 150), 2^-149
/// for bin 0) below 2^39 units, and a double holds any sum of up to 2^14 of them exactly.
constexpr int kDoubleBins = 16;
/// float4s a thread adds before it moves its double bins into its 320-bit integer: 4096
/// floats, well inside the 2^14 that keep every bin exact.
constexpr int kFoldEvery = 1024;
/// The grid's merge of the exact sum: a 320-bit total as 10 chunks of 32 bits, chunk c worth
/// 2^(32 c) units of 2^-149, each added by the blocks as a 64-bit integer (no carries between
/// chunks needed: 2^31 blocks' chunks of 32 bits stay below 2^63).
constexpr int kBins = 10;
/// The SM count of the "other grid" (an H100 PCIe has 114 SMs, an H100 SXM and an H200 132).
constexpr int kOtherSms = 114;
/// Prefix sums of the scans compared with the exact prefix sums, evenly spaced.
constexpr int64_t kScanSamples = 4096;

// ---------------------------------------------------------------------------------------
// Arithmetic that the host emulates bit for bit

/// a + b rounded to nearest: __fadd_rn on the device, which the compiler never fuses or
/// reorders; the same IEEE addition on the host (SSE, no multiply to contract).
WB_HD inline float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// a - b rounded to nearest (see add_rn).
WB_HD inline float sub_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

/// The reproducible order inside a lane: four running sums, one per float4 component.
WB_HD inline void sequential_step(float acc[4], float4 v) {
  acc[0] = add_rn(acc[0], v.x);
  acc[1] = add_rn(acc[1], v.y);
  acc[2] = add_rn(acc[2], v.z);
  acc[3] = add_rn(acc[3], v.w);
}

/// The four running sums of a lane, combined in a fixed pairing.
WB_HD inline float sequential_finish(const float acc[4]) {
  return add_rn(add_rn(acc[0], acc[1]), add_rn(acc[2], acc[3]));
}

/// A float4 summed pairwise.
WB_HD inline float pairwise4(float4 v) { return add_rn(add_rn(v.x, v.y), add_rn(v.z, v.w)); }

/// Eight values summed pairwise.
WB_HD inline float pairwise8(const float q[8]) {
  return add_rn(add_rn(add_rn(q[0], q[1]), add_rn(q[2], q[3])), add_rn(add_rn(q[4], q[5]), add_rn(q[6], q[7])));
}

/// Which order a chunk is summed in, inside each lane.
enum class ChunkOrder {
  Sequential,  ///< four running sums per lane, one per float4 component (the reproducible variant)
  Pairwise     ///< a pairwise tree per lane (the pairwise variant)
};

/// Additions on the longest path of one level of a chunked sum (lane, then the warp's 5).
constexpr int chunk_level_depth(ChunkOrder order) {
  return order == ChunkOrder::Sequential ? kLaneVectors + 2 + 5 : 2 + 3 + 3 + 5;
}

/// A running compensated sum (Kahan-Babuska-Neumaier): s plus the rounding errors in c.
struct Compensated {
  float s = 0.0f;  ///< the rounded running sum
  float c = 0.0f;  ///< the sum of the errors s's additions made
};

/// Add x to a compensated sum: the error of s + x is recovered exactly (Fast2Sum with the
/// larger operand first) and added to c.
WB_HD inline void neumaier_add(Compensated& a, float x) {
  const float t = add_rn(a.s, x);
  const float e = fabsf(a.s) >= fabsf(x) ? add_rn(sub_rn(a.s, t), x) : add_rn(sub_rn(x, t), a.s);
  a.c = add_rn(a.c, e);
  a.s = t;
}

/// Two compensated sums combined: the same on both sides of a shuffle (it is symmetric).
WB_HD inline Compensated neumaier_combine(Compensated a, Compensated b) {
  const float t = add_rn(a.s, b.s);
  const float e = fabsf(a.s) >= fabsf(b.s) ? add_rn(sub_rn(a.s, t), b.s) : add_rn(sub_rn(b.s, t), a.s);
  return {t, add_rn(add_rn(a.c, b.c), e)};
}

// ---------------------------------------------------------------------------------------
// The exact sum's integers (wb_float.h's 320-bit fixed point), as the grid merges them

/// Chunk c (0-9) of a 320-bit two's-complement integer: bits 32 c to 32 c + 31, unsigned,
/// except the top chunk, which carries the sign.
WB_HD inline long long limbs_chunk(const uint64_t limb[5], int c) {
  const uint32_t bits = uint32_t(limb[c / 2] >> (32 * (c % 2)));
  return c == kBins - 1 ? (long long)int32_t(bits) : (long long)bits;
}

/// The exact value of the grid's chunks (bins[c] worth 2^(32 c) units of 2^-149) as a 320-bit
/// two's-complement integer, least significant limb first (ExactSum's layout).
WB_HD inline void bins_to_limbs(const long long* bins, uint64_t limb[5]) {
  for (int k = 0; k < 5; ++k) limb[k] = 0;
  for (int b = 0; b < kBins; ++b) wb::limbs_add_shifted(limb, bins[b], 32 * b);
}

// ---------------------------------------------------------------------------------------
// Sums whose order depends on the grid

/// How n floats starting at `in` divide around their 16-byte-aligned middle (chapter 10).
struct AlignedSplit {
  int64_t head;     ///< scalar elements before the first 16-byte boundary (0 to 3)
  int64_t vectors;  ///< whole float4s from that boundary on
  int64_t tail;     ///< scalar elements after the last whole float4 (0 to 3)
};

/// Split n floats at `in` into head, float4 body and tail.
__host__ __device__ inline AlignedSplit split_aligned(const float* in, int64_t n) {
  const int64_t to_boundary = int64_t((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / 4;
  const int64_t head = to_boundary < n ? to_boundary : n;
  const int64_t vectors = (n - head) / 4;
  return {head, vectors, n - head - 4 * vectors};
}

/// The sum of a full warp's values, every lane receiving it, in a fixed butterfly.
__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v = add_rn(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

/// The sum of v over the block in a fixed tree, returned in thread 0. blockDim.x: a multiple
/// of 32; every thread calls it (it has a barrier). Lanes past the warps add 0 (exact).
__device__ float block_sum(float v) {
  __shared__ float warp_totals[32];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < blockDim.x / kWarp ? warp_totals[lane] : 0.0f);
  return v;
}

/// One thread's share of in[0, n) summed in order: a grid-stride loop over the float4 body,
/// and the scalar head and tail in thread 0 of block 0.
__device__ float thread_sum(const float* __restrict__ in, int64_t n) {
  const AlignedSplit split = split_aligned(in, n);
  const float4* body = reinterpret_cast<const float4*>(in + split.head);
  float acc = 0.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int64_t i = 0; i < split.head; ++i) acc = add_rn(acc, in[i]);
    for (int64_t i = n - split.tail; i < n; ++i) acc = add_rn(acc, in[i]);
  }
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < split.vectors; i += stride) {
    const float4 v = body[i];
    acc = add_rn(add_rn(add_rn(add_rn(acc, v.x), v.y), v.z), v.w);
  }
  return acc;
}

// [atomic]
/// Chapter 08's one pass on floats: each block's sum goes to *sum with one atomicAdd, in the
/// order the blocks happen to finish.
__global__ void float_atomic(const float* __restrict__ in, int64_t n, float* sum) {
  const float total = block_sum(thread_sum(in, n));
  if (threadIdx.x == 0) atomicAdd(sum, total);
}
// [atomic]

// [tree]
/// Chapter 11's tree on floats: the blocks' sums go to `partials`, and the last block to
/// finish sums them in a fixed order. `*ticket` is 0 before a launch and left 0.
__global__ void float_tree(const float* __restrict__ in, int64_t n, float* partials, unsigned* ticket, float* sum) {
  __shared__ bool is_last;
  float total = block_sum(thread_sum(in, n));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence();  // the partial is visible before the ticket that announces it
    const bool last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (last) __threadfence();
    is_last = last;
  }
  __syncthreads();
  if (!is_last) return;
  total = 0.0f;
  for (int64_t i = threadIdx.x; i < gridDim.x; i += blockDim.x) total = add_rn(total, __ldcg(partials + i));
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *sum = total;
    *ticket = 0;
  }
}
// [tree]

// [kahan]
/// A compensated sum over the whole warp, every lane receiving it.
__device__ Compensated warp_compensated(Compensated v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const Compensated other{__shfl_xor_sync(kFullMask, v.s, offset), __shfl_xor_sync(kFullMask, v.c, offset)};
    v = neumaier_combine(v, other);
  }
  return v;
}

/// A compensated sum over the block, in thread 0 (see block_sum).
__device__ Compensated block_compensated(Compensated v) {
  __shared__ Compensated warp_totals[32];
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_compensated(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_compensated(lane < blockDim.x / kWarp ? warp_totals[lane] : Compensated{});
  return v;
}

/// Kahan-Babuska-Neumaier in registers over each thread's share (the tree's grid-stride
/// loop), compensated combines in the block, then the last block combines the blocks' pairs
/// and rounds s + c once.
__global__ void float_kahan(const float* __restrict__ in, int64_t n, Compensated* partials, unsigned* ticket,
                            float* sum) {
  __shared__ bool is_last;
  const AlignedSplit split = split_aligned(in, n);
  const float4* body = reinterpret_cast<const float4*>(in + split.head);
  Compensated acc;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int64_t i = 0; i < split.head; ++i) neumaier_add(acc, in[i]);
    for (int64_t i = n - split.tail; i < n; ++i) neumaier_add(acc, in[i]);
  }
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < split.vectors; i += stride) {
    const float4 v = body[i];
    neumaier_add(acc, v.x);
    neumaier_add(acc, v.y);
    neumaier_add(acc, v.z);
    neumaier_add(acc, v.w);
  }
  acc = block_compensated(acc);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    __threadfence();
    const bool last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (last) __threadfence();
    is_last = last;
  }
  __syncthreads();
  if (!is_last) return;
  acc = Compensated{};
  for (int64_t i = threadIdx.x; i < gridDim.x; i += blockDim.x) {
    const Compensated p{__ldcg(&partials[i].s), __ldcg(&partials[i].c)};
    acc = neumaier_combine(acc, p);
  }
  acc = block_compensated(acc);
  if (threadIdx.x == 0) {
    *sum = add_rn(acc.s, acc.c);
    *ticket = 0;
  }
}
// [kahan]

// ---------------------------------------------------------------------------------------
// Sums whose order depends on N alone

// [chunk]
/// `#pragma` text for the device compiler only (the host's would warn of an unknown pragma).
#ifdef __CUDA_ARCH__
#define UNROLL_ON_DEVICE(text) _Pragma(text)
#else
#define UNROLL_ON_DEVICE(text)
#endif

/// The sum of one lane's share of a chunk in the lane order `Order`: `load(j)` gives the
/// lane's float4 j (j = 0..63), in the order the additions take them.
template <ChunkOrder Order, class Load>
WB_HD inline float lane_total(const Load& load) {
  if constexpr (Order == ChunkOrder::Sequential) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    UNROLL_ON_DEVICE("unroll 8")
    for (int j = 0; j < kLaneVectors; ++j) sequential_step(acc, load(j));
    return sequential_finish(acc);
  } else {
    // Eight batches of 8 float4s, each summed pairwise, then the batches in the tree
    // ((b0 + b1) + (b2 + b3)) + ((b4 + b5) + (b6 + b7)), kept as a binary counter: a loop
    // that is not unrolled (64 float4s in flight would not fit in registers) and holds the
    // pending pair, quad and half in registers.
    float pair = 0.0f, quad = 0.0f, half = 0.0f;
    UNROLL_ON_DEVICE("unroll 1")
    for (int b = 0; b < 8; ++b) {
      float q[8];
      UNROLL_ON_DEVICE("unroll")
      for (int v = 0; v < 8; ++v) q[v] = pairwise4(load(8 * b + v));
      float sum = pairwise8(q);
      if (!(b & 1)) {
        pair = sum;
        continue;
      }
      sum = add_rn(pair, sum);
      if (!(b & 2)) {
        quad = sum;
        continue;
      }
      sum = add_rn(quad, sum);
      if (!(b & 4)) {
        half = sum;
        continue;
      }
      return add_rn(half, sum);
    }
    return 0.0f;  // not reached: batch 7 returns
  }
}

/// Lane `lane`'s float4 j of the chunk at `base` of x[0, len): elements 4 (32 j + lane) to
/// 4 (32 j + lane) + 3 of the chunk, zeros past len, loaded one by one.
WB_HD inline float4 chunk_vector_checked(const float* x, int64_t len, int64_t base, int lane, int j) {
  const int64_t first = base + 4 * (int64_t(kWarp) * j + lane);
  float v[4];
  for (int k = 0; k < 4; ++k) v[k] = first + k < len ? x[first + k] : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

/// A lane's float4s of a chunk, loaded one element at a time (see chunk_vector_checked).
struct CheckedLoad {
  const float* x;  ///< the level's input
  int64_t len;     ///< its length
  int64_t base;    ///< the chunk's first element
  int lane;        ///< the lane
  /// The lane's float4 j.
  WB_HD float4 operator()(int j) const { return chunk_vector_checked(x, len, base, lane, j); }
};

/// A lane's float4s of a full, aligned chunk: `vec` points at its float4 `lane`.
struct VectorLoad {
  const float4* vec;  ///< the chunk's float4 `lane`
  /// The lane's float4 j: 32 j float4s on.
  WB_HD float4 operator()(int j) const { return vec[kWarp * j]; }
};

/// One level of the chunked sums: chunk c of in[0, n) (kChunk elements, zeros past n) is
/// summed by one warp, lane l taking the float4s 32 j + l, j = 0..63, in the lane order
/// `Order`, then the warp's butterfly; its sum goes to out[c]. Warps take chunks in a
/// grid-stride loop, so the grid does not change a bit. `Vector`: `in` is 16-byte aligned,
/// and full chunks are read with float4 loads; otherwise the same elements one by one.
template <ChunkOrder Order, bool Vector>
__global__ void __launch_bounds__(kChunkBlock) chunk_sums(const float* __restrict__ in, int64_t n, float* out) {
  const int lane = threadIdx.x % kWarp;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / kWarp);
  const int64_t chunks = wb::ceil_div<int64_t>(n, kChunk);
  for (int64_t c = int64_t(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp; c < chunks; c += warps) {
    const int64_t base = c * kChunk;
    float total;
    if (Vector && base + kChunk <= n) {
      total = lane_total<Order>(VectorLoad{reinterpret_cast<const float4*>(in + base) + lane});
    } else {
      total = lane_total<Order>(CheckedLoad{in, n, base, lane});
    }
    total = warp_sum(total);
    if (lane == 0) out[c] = total;
  }
}
// [chunk]

/// The sum of a warp's 320-bit integers, every lane receiving it (exact: any order).
__device__ void warp_sum_limbs(uint64_t limb[5]) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    uint64_t other[5];
#pragma unroll
    for (int j = 0; j < 5; ++j) other[j] = __shfl_xor_sync(kFullMask, (unsigned long long)limb[j], offset);
    wb::limbs_add(limb, other);
  }
}

// [exact]
/// The chunks that the blocks of the exact sum merge into: zero before a launch, left zero.
struct ExactGrid {
  unsigned long long bins[kBins];  ///< the blocks' chunks, added as two's-complement integers
  unsigned flags;                  ///< wb::term_flags of every input, or-ed
  unsigned ticket;                 ///< blocks done
};

/// The correctly rounded sum: each thread adds its floats into kDoubleBins double bins in
/// shared memory, one per range of 16 exponents, where every addition is exact; every
/// kFoldEvery float4s, and at the end, it moves them into a 320-bit integer. The block adds
/// its threads' integers, the grid its blocks' with 64-bit atomics on kBins chunks of 32 bits,
/// and the last block rounds the total once. Integers and exact additions only: no order matters.
__global__ void __launch_bounds__(kExactBlock) float_exact(const float* __restrict__ in, int64_t n, ExactGrid* grid,
                                                           float* sum) {
  __shared__ double bins[kDoubleBins * kExactBlock];  // bin b of thread t at b * kExactBlock + t
  __shared__ uint64_t warp_totals[kExactBlock / kWarp][5];
  __shared__ bool is_last;
  double* mine = bins + threadIdx.x;
  for (int b = 0; b < kDoubleBins; ++b) mine[b * kExactBlock] = 0.0;
  uint64_t total[5] = {};
  auto fold = [&] {
    for (int b = 0; b < kDoubleBins; ++b) {
      wb::limbs_add_double(total, mine[b * kExactBlock]);
      mine[b * kExactBlock] = 0.0;
    }
  };
  // Infinities and NaN (biased exponent 255) go into bin 15 as they are, and zeros into bin 0,
  // where they add nothing: `top`, the largest biased exponent a thread saw, tells which
  // threads need the flags that give IEEE's answer (see below).
  uint32_t top = 0;
  auto add = [&](float x) {
    const uint32_t e = (wb::float_bits(x) >> 23) & 0xffu;
    top = max(top, e);
    double& bin = mine[(e >> 4) * kExactBlock];
    bin = __dadd_rn(bin, double(x));  // exact (kDoubleBins)
  };
  const AlignedSplit split = split_aligned(in, n);
  const float4* body = reinterpret_cast<const float4*>(in + split.head);
  const bool edges = blockIdx.x == 0 && threadIdx.x == 0;  // the scalar head and tail
  if (edges) {
    for (int64_t i = 0; i < split.head; ++i) add(in[i]);
    for (int64_t i = n - split.tail; i < n; ++i) add(in[i]);
  }
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t start = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t i = start;
  int since_fold = 0;
  // Four float4s loaded before any is added, so that loads are in flight during the adds.
  for (; i + 3 * stride < split.vectors; i += 4 * stride) {
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = body[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) add(v[k].x), add(v[k].y), add(v[k].z), add(v[k].w);
    if ((since_fold += 4) == kFoldEvery) {
      fold();
      since_fold = 0;
    }
  }
  for (; i < split.vectors; i += stride) {
    const float4 v = body[i];
    add(v.x), add(v.y), add(v.z), add(v.w);
  }
  fold();
  // The flags (wb::term_flags) cost the loop nothing. A thread whose `top` is above 0 surely
  // added a term other than -0.0; only the rare thread that saw an infinity or NaN (top 255),
  // or nothing but zeros and subnormals (top 0, or no elements), goes over its elements again.
  unsigned flags = top > 0 ? wb::kSumNotMinusZero : 0u;
  if (top == 0u || top == 0xffu) {
    auto flag = [&](float x) { flags |= wb::term_flags(wb::float_bits(x)); };
    if (edges) {
      for (int64_t j = 0; j < split.head; ++j) flag(in[j]);
      for (int64_t j = n - split.tail; j < n; ++j) flag(in[j]);
    }
    for (int64_t j = start; j < split.vectors; j += stride) {
      const float4 v = body[j];
      flag(v.x), flag(v.y), flag(v.z), flag(v.w);
    }
    if (flags & ~wb::kSumNotMinusZero) atomicOr(&grid->flags, flags);  // rare: a thread that saw an inf or NaN
  }
  // The block's total: the warps' (a butterfly of integers), then warp 0 adds the warps'.
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  warp_sum_limbs(total);
  if (lane == 0)
    for (int j = 0; j < 5; ++j) warp_totals[warp][j] = total[j];
  // The barrier also ors the threads' kSumNotMinusZero: one atomic per block passes it on.
  const bool not_minus_zero = __syncthreads_or(flags & wb::kSumNotMinusZero);
  if (threadIdx.x < kBins) {  // thread c adds chunk c of the block's total to the grid's
    uint64_t block_total[5] = {};
    for (int w = 0; w < kExactBlock / kWarp; ++w) wb::limbs_add(block_total, warp_totals[w]);
    const long long chunk = limbs_chunk(block_total, threadIdx.x);
    if (chunk != 0) atomicAdd(&grid->bins[threadIdx.x], (unsigned long long)chunk);
  }
  if (threadIdx.x == 0 && not_minus_zero) atomicOr(&grid->flags, wb::kSumNotMinusZero);
  __threadfence();  // every thread's adds are done, GPU-wide, before thread 0 takes the ticket
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool last = atomicAdd(&grid->ticket, 1u) == gridDim.x - 1;
    if (last) __threadfence();
    is_last = last;
  }
  __syncthreads();
  if (!is_last || threadIdx.x != 0) return;
  long long chunks[kBins];
  for (int c = 0; c < kBins; ++c) chunks[c] = (long long)atomicExch(&grid->bins[c], 0ull);
  uint64_t limb[5];
  bins_to_limbs(chunks, limb);
  *sum = wb::round_limbs_to_float(limb, atomicExch(&grid->flags, 0u));
  grid->ticket = 0;
}
// [exact]

// ---------------------------------------------------------------------------------------
// Scans

// [scan]
/// Chapter 17's single pass (its tile code, look-back, policy and launcher), instantiated here
/// for floats in two look-back orders (LookBackOrder): AsFound, chapter 17's own, whose bits
/// change from run to run, and FoldForward, which gives the same bits on every run.
namespace scan {
#include "single_pass.cuh"
}  // namespace scan
using scan::LookBackOrder;

/// The order of the deterministic scan's look-back (float_scan_deterministic).
constexpr LookBackOrder kDeterministicOrder = LookBackOrder::FoldForward;
// [scan]

// ---------------------------------------------------------------------------------------
// The harness: after the kernels, since its CPU emulations replay their orders with their
// own helpers (lane_total, the exact sum's integers, chapter 17's tile shape).

#include "float_check.cuh"

/// The chapter's variants and their rows.
std::vector<wb::VariantSpec> chapter_variants() {
  std::vector<wb::VariantSpec> v = {
      {"atomic", {"float_atomic"}},
      {"tree", {"float_tree", "float_tree_other_grid"}},
      {"reproducible", {"float_reproducible"}},
      {"kahan", {"float_kahan"}},
      {"pairwise", {"float_pairwise"}},
      {"exact", {"float_exact"}},
      {"cub", {"cub_device_reduce_sum", "cub_sum_not_guaranteed", "cub_sum_run_to_run", "cub_sum_gpu_to_gpu"}},
      {"scan", {"float_scan_single_pass", "float_scan_deterministic"}},
  };
  v.insert(v.begin(), wb::every_variant(v));
  return v;
}


int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "19";
  spec.slug = "float-sum";
  spec.idea = "float32 sums: the order of additions sets the bits; a reproducible order, a compensated sum and "
              "a correctly rounded one at memory speed, beside float atomics, the tree and CUB";
  spec.op = wb::Op::Reduce;
  spec.bytes = "the sums count each input element read once (4 bytes), the scans each element read and written (8 bytes)";
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.variants = chapter_variants();
  spec.copy_kernels = {"float_scan_single_pass", "float_scan_deterministic"};
  spec.needs_cub = {{"cub_sum_not_guaranteed", kDeterminismCub},
                    {"cub_sum_run_to_run", kDeterminismCub},
                    {"cub_sum_gpu_to_gpu", kDeterminismCub}};
  spec.extra_flags = {"--input", "--spread", "--study", "--runs", "--emulate", "--gpu-bits"};
  spec.extra_usage =
      "  --input MODE  the input: positive, mixed (both signs), cancel (pairs x, -x one ulp apart),\n"
      "                subnormal (the lowest binades, with subnormals, +0 and -0 mixed in), special\n"
      "                (subnormal's, with +inf at element 0, -inf at " + std::to_string(wb::kSpecialMinusInf) +
      ", a NaN at " + std::to_string(wb::kSpecialNaN) + ") or\n"
      "                negzero (every element -0.0) (default positive)\n"
      "  --spread E    values m * 2^e, e spread over E + 1 exponents around 0 (subnormal and special:\n"
      "                from -126 up), from 0 to 160 (default 8)\n"
      "  --study       print, per variant, N (2^10 up to --n) and input mode, the bit patterns of R runs,\n"
      "                the largest error in ulps and relative to sum |x|, and the bits (CSV); the scans\n"
      "                up to N = 2^22, as each run's whole output is checked on the CPU\n"
      "  --runs R      runs per --study cell (default 200)\n"
      "  --emulate     no GPU: the CPU's bits of the reproducible, pairwise and exact orders and the hash\n"
      "                of the deterministic scan's output for --n, then the exact sum's layout\n"
      "  --gpu-bits    the same first line from the GPU, then the tree's bits at two grids\n";

  FloatFlags f = take_float_flags(argc, argv);
  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  if (f.emulate) {
    if (!opt.n_given) opt.n = int64_t(1) << 20;
    return emulate(opt, f);
  }
  const wb::Device dev = wb::open_device(opt);
  // Once, on stderr where stdout holds CSV (--csv, --study); --gpu-bits runs no CUB row.
  const std::string without_cub = wb::rows_without_cub_note(spec, opt.variant);
  if (!without_cub.empty() && !f.gpu_bits)
    std::fprintf(opt.csv || f.study ? stderr : stdout, "%s\n", without_cub.c_str());
  return run_variants(spec, opt, f, dev);
}
