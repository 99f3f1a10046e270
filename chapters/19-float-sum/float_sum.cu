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
///   adds its floats as integers into 9 bins of 32 bits of weight each (in shared memory),
///   folds their carries every 256 elements, the bins are merged exactly and the last block
///   rounds once. The bits must equal ExactSum's rounding.
/// - `cub`: cub::DeviceReduce::Sum on floats, and, where the CUB in the build has them
///   (CUB 3.1 on), its three determinism levels.
/// - `scan`: a single-pass decoupled look-back scan on floats (chapter 17's idea), whose
///   carries depend on how far each look-back walked, and a deterministic single pass whose
///   carries are exact integers: the look-back may take any path, the sum of exact values is
///   the same, and each tile rounds its carry once.
///
/// What it teaches: reproducibility is a property of the order of additions, not of the
/// hardware; an exact accumulator makes the order irrelevant, and costs little when the sum
/// is bound by memory.
///
/// Since chapter 11: float instead of int32; the input is made on the device; a wb::Bench of
/// its own (FloatBench) checks each result against a bound instead of bit equality, counts
/// the bit patterns of the runs, and compares the reproducible and exact variants bit for bit
/// with the CPU. `--study` prints, per variant, N and input, the bit patterns over R runs and
/// the error: what the page's figures are drawn from.

#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "wb_float.h"
#include "workbook.cuh"

/// CUB 3.1 and newer take a determinism requirement (cuda::execution::determinism).
#if CUB_VERSION >= 300100
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
/// Threads and elements per thread of the scans: tiles of 4096 elements.
constexpr int kScanBlock = 256;
/// See kScanBlock: four float4s per thread.
constexpr int kScanItems = 16;
/// Elements of one scan tile.
constexpr int64_t kScanTile = int64_t(kScanBlock) * kScanItems;
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
// The exact sum's integers, shared by the device and the host check

/// What an infinity or NaN adds to the exact sum's flags (0 for a finite float).
WB_HD inline unsigned special_flags(uint32_t bits) {
  if (((bits >> 23) & 0xffu) != 0xffu) return 0;
  return (bits & 0x7fffffu) ? 1u : (bits >> 31) ? 4u : 2u;  // NaN, -inf, +inf
}

/// Add v * 2^shift (v signed, shift from 0 to 319) to a 320-bit two's-complement integer.
WB_HD inline void limbs_add_shifted(uint64_t limb[5], long long v, int shift) {
  const uint64_t fill = v < 0 ? ~0ull : 0ull;
  const int k = shift / 64, r = shift % 64;
  uint64_t t[5];
  for (int j = 0; j < 5; ++j) t[j] = j < k ? 0 : fill;
  t[k] = uint64_t(v) << r;
  if (k + 1 < 5) t[k + 1] = r ? uint64_t(v >> (64 - r)) : fill;  // arithmetic: the sign follows
  uint64_t carry = 0;
  for (int j = 0; j < 5; ++j) {
    const uint64_t sum = limb[j] + t[j];
    uint64_t out = sum < t[j];
    const uint64_t total = sum + carry;
    out |= total < carry;
    limb[j] = total;
    carry = out;
  }
}

/// The bits of a double (host and device).
WB_HD inline uint64_t double_bits(double d) {
#ifdef __CUDA_ARCH__
  return uint64_t(__double_as_longlong(d));
#else
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
#endif
}

/// Add a finite double that is an integer multiple of 2^-149 (a double bin) to a 320-bit
/// integer in units of 2^-149, exactly. Not finite: nothing (the flags carry it).
WB_HD inline void limbs_add_double(uint64_t limb[5], double d) {
  const uint64_t b = double_bits(d);
  const int biased = int((b >> 52) & 0x7ff);
  if (biased == 0x7ff || (b << 1) == 0) return;  // infinity or NaN; or zero
  // d = significand * 2^(biased - 1075); in units of 2^-149 the shift is biased - 926.
  // The bins hold no double below 2^-149, so biased > 0 and a negative shift drops zeros only.
  long long significand = (long long)((b & 0xfffffffffffffull) | 0x10000000000000ull);
  int shift = biased - 926;
  if (shift < 0) significand >>= -shift, shift = 0;
  limbs_add_shifted(limb, (b >> 63) ? -significand : significand, shift);
}

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
  for (int b = 0; b < kBins; ++b) {
    const long long v = bins[b];
    const uint64_t fill = v < 0 ? ~0ull : 0ull;
    const int k = (32 * b) / 64, r = (32 * b) % 64;
    uint64_t t[5];
    for (int j = 0; j < 5; ++j) t[j] = j < k ? 0 : fill;
    t[k] = uint64_t(v) << r;
    if (k + 1 < 5) t[k + 1] = r ? uint64_t(v >> (64 - r)) : fill;
    uint64_t carry = 0;
    for (int j = 0; j < 5; ++j) {
      const uint64_t sum = limb[j] + t[j];
      uint64_t out = sum < t[j];
      const uint64_t total = sum + carry;
      out |= total < carry;
      limb[j] = total;
      carry = out;
    }
  }
}

/// Add a float, exactly, to a 320-bit fixed-point integer (units of 2^-149).
WB_HD inline void limbs_add_float(uint64_t limb[5], float x) { limbs_add_double(limb, double(x)); }

/// Add one 320-bit fixed-point integer to another.
WB_HD inline void limbs_add(uint64_t limb[5], const uint64_t term[5]) {
  uint64_t carry = 0;
  for (int j = 0; j < 5; ++j) {
    const uint64_t sum = limb[j] + term[j];
    uint64_t out = sum < term[j];
    const uint64_t total = sum + carry;
    out |= total < carry;
    limb[j] = total;
    carry = out;
  }
}

/// A 320-bit fixed-point integer (units of 2^-149) correctly rounded to float: nearest, ties
/// to even, infinity from FLT_MAX + half an ulp on; `flags` (special_flags, or-ed) give IEEE's
/// answer when an infinity or NaN was added. Integer arithmetic only, as ExactSum's
/// round_to_float, which the host check compares it with.
WB_HD inline float round_limbs_to_float(const uint64_t limb_in[5], unsigned flags) {
  if (flags & 1u || (flags & 6u) == 6u) return wb::float_from_bits(0x7fc00000u);
  if (flags & 2u) return wb::float_from_bits(0x7f800000u);
  if (flags & 4u) return wb::float_from_bits(0xff800000u);
  uint64_t m[5];
  const bool negative = limb_in[4] >> 63;
  uint64_t borrow = 1;  // two's complement: invert and add one
  for (int j = 0; j < 5; ++j) {
    m[j] = negative ? ~limb_in[j] + borrow : limb_in[j];
    if (negative) borrow = borrow && m[j] == 0;
  }
  int top = 319;
  while (top >= 0 && !((m[top / 64] >> (top % 64)) & 1u)) --top;
  if (top < 0) return 0.0f;
  auto bit = [&](int p) -> uint32_t { return uint32_t((m[p / 64] >> (p % 64)) & 1u); };
  const int shift = top < 24 ? 0 : top - 23;
  uint32_t significand = 0;
  for (int p = shift + 23; p >= shift; --p) significand = significand << 1 | bit(p);
  int exponent_shift = shift;
  if (shift > 0 && bit(shift - 1)) {
    bool above_half = false;
    for (int p = 0; p < shift - 1 && !above_half; ++p) above_half = bit(p);
    if (above_half || (significand & 1u)) ++significand;
    if (significand >> 24) significand >>= 1, ++exponent_shift;
  }
  uint32_t bits;
  if (exponent_shift == 0) bits = significand;
  else if (exponent_shift + 1 >= 255) bits = 0x7f800000u;
  else bits = uint32_t(exponent_shift + 1) << 23 | (significand & 0x7fffffu);
  return wb::float_from_bits(bits | (negative ? 0x80000000u : 0u));
}

// ---------------------------------------------------------------------------------------
// The input

/// Make element i of the float input on the device, with the host's formula.
__global__ void make_float_input(float* x, int64_t n, uint64_t seed, wb::FloatInputSpec spec) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = wb::float_input(seed, uint64_t(i), spec);
}

/// Negate element 0: how the harness makes every other run see another input.
__global__ void negate_first(float* x) { x[0] = wb::float_from_bits(wb::float_bits(x[0]) ^ 0x80000000u); }

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
    limbs_add(limb, other);
  }
}

// [exact]
/// The chunks that the blocks of the exact sum merge into: zero before a launch, left zero.
struct ExactGrid {
  unsigned long long bins[kBins];  ///< the blocks' chunks, added as two's-complement integers
  unsigned flags;                  ///< special_flags of every input, or-ed
  unsigned ticket;                 ///< blocks done
};

/// The correctly rounded sum: each thread adds its floats into 16 double bins in shared
/// memory, one per range of 16 exponents, where every addition is exact (see kDoubleBins);
/// every 4096 floats, and at the end, it moves them into a 320-bit integer. The block adds
/// its threads' integers, the grid its blocks' with 64-bit atomics on 32-bit chunks, and the
/// last block rounds the total once. Integers and exact additions only: no order matters.
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
      limbs_add_double(total, mine[b * kExactBlock]);
      mine[b * kExactBlock] = 0.0;
    }
  };
  // Infinities and NaN (biased exponent 255) go into bin 15 as they are: `top` notices them,
  // and the rare thread that saw one goes over its elements again for their flags.
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
  unsigned flags = 0;
  if (top == 0xffu) {
    auto flag = [&](float x) { flags |= special_flags(wb::float_bits(x)); };
    if (edges) {
      for (int64_t j = 0; j < split.head; ++j) flag(in[j]);
      for (int64_t j = n - split.tail; j < n; ++j) flag(in[j]);
    }
    for (int64_t j = start; j < split.vectors; j += stride) {
      const float4 v = body[j];
      flag(v.x), flag(v.y), flag(v.z), flag(v.w);
    }
    atomicOr(&grid->flags, flags);  // rare: one atomic per thread that saw one
  }
  // The block's total: the warps' (a butterfly of integers), then warp 0 adds the warps'.
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  warp_sum_limbs(total);
  if (lane == 0)
    for (int j = 0; j < 5; ++j) warp_totals[warp][j] = total[j];
  __syncthreads();
  if (threadIdx.x < kBins) {  // thread c adds chunk c of the block's total to the grid's
    uint64_t block_total[5] = {};
    for (int w = 0; w < kExactBlock / kWarp; ++w) limbs_add(block_total, warp_totals[w]);
    const long long chunk = limbs_chunk(block_total, threadIdx.x);
    if (chunk != 0) atomicAdd(&grid->bins[threadIdx.x], (unsigned long long)chunk);
  }
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
  *sum = round_limbs_to_float(limb, atomicExch(&grid->flags, 0u));
  grid->ticket = 0;
}
// [exact]

// ---------------------------------------------------------------------------------------
// Scans

/// What tile t of a scan has published: nothing yet, its own sum, or its inclusive prefix.
enum TileFlag : unsigned {
  kNotReady = 0,   ///< nothing published yet
  kAggregate = 1,  ///< the tile's own sum
  kPrefix = 2      ///< the inclusive prefix through the tile
};

/// The statuses the tiles of one scan launch publish. The flags and the tile counter are
/// cleared before every launch (inside the timed region).
struct ScanState {
  unsigned* flags = nullptr;       ///< one per tile
  float* aggregate = nullptr;      ///< the tile's sum (the float scan)
  float* prefix = nullptr;         ///< the inclusive prefix through the tile (the float scan)
  uint64_t* aggregate_x = nullptr; ///< the tile's sum as 5 limbs (the deterministic scan)
  uint64_t* prefix_x = nullptr;    ///< the inclusive prefix as 5 limbs (the deterministic scan)
  unsigned* counter = nullptr;     ///< tiles handed out so far
};

/// Read a published word from L2, never from this SM's L1.
__device__ unsigned load_flag(const unsigned* p) { return *reinterpret_cast<const volatile unsigned*>(p); }

// [scan]
/// A single-pass decoupled look-back scan of floats (chapter 17's idea, written for floats).
/// Each tile scans its 4096 elements in a fixed order and publishes its sum; then warp 0
/// looks back over its predecessors, 32 at a time (one per lane), adding what they published
/// up to the nearest one that has published its inclusive prefix. `Exact` false: the carry
/// is a float, summed in windows whose extent depends on which predecessors had finished:
/// other bits on another run. `Exact` true: tile sums and carries are 320-bit integers, so
/// the walk's path cannot change them; the carry is rounded once, and every output is that
/// carry plus the tile's own prefix: the same bits on every run. `vector`: `in` is 16-byte
/// aligned (float4 loads for full tiles).
template <bool Exact>
__global__ void __launch_bounds__(kScanBlock) float_scan(const float* __restrict__ in, float* __restrict__ out,
                                                         int64_t n, bool vector, ScanState st) {
  __shared__ int64_t tile_shared;
  __shared__ float warp_totals[kScanBlock / kWarp];
  __shared__ float carry_shared;
  if (threadIdx.x == 0) tile_shared = atomicAdd(st.counter, 1u);
  __syncthreads();
  const int64_t tile = tile_shared;
  const int64_t first = tile * kScanTile + int64_t(threadIdx.x) * kScanItems;
  const bool full = vector && tile * kScanTile + kScanTile <= n;
  float x[kScanItems];
  if (full) {
#pragma unroll
    for (int k = 0; k < kScanItems / 4; ++k) {
      const float4 v = reinterpret_cast<const float4*>(in + first)[k];
      x[4 * k] = v.x, x[4 * k + 1] = v.y, x[4 * k + 2] = v.z, x[4 * k + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) x[k] = first + k < n ? in[first + k] : 0.0f;
  }
#pragma unroll
  for (int k = 1; k < kScanItems; ++k) x[k] = add_rn(x[k - 1], x[k]);
  // The threads' totals: an inclusive scan across the warp, then across the warps.
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  float inclusive = x[kScanItems - 1];
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const float left = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive = add_rn(left, inclusive);
  }
  const float exclusive = __shfl_up_sync(kFullMask, inclusive, 1);
  if (lane == kWarp - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  float before_warp = 0.0f, tile_sum = 0.0f;
  for (int w = 0; w < kScanBlock / kWarp; ++w) {
    if (w == warp) before_warp = tile_sum;
    tile_sum = w == 0 ? warp_totals[0] : add_rn(tile_sum, warp_totals[w]);
  }
  // This thread's exclusive prefix inside the tile (none for thread 0).
  const bool has_prefix = threadIdx.x != 0;
  const float thread_prefix = lane == 0 ? before_warp : warp == 0 ? exclusive : add_rn(before_warp, exclusive);

  // [lookback]
  if (warp == 0) {
    uint64_t own[5] = {}, before[5] = {};
    if (Exact) limbs_add_float(own, tile_sum);
    if (lane == 0) {  // publish the tile's sum (tile 0: its prefix)
      if (Exact) {
        uint64_t* dst = (tile == 0 ? st.prefix_x : st.aggregate_x) + tile * 5;
        for (int j = 0; j < 5; ++j) dst[j] = own[j];
      } else {
        (tile == 0 ? st.prefix : st.aggregate)[tile] = tile_sum;
      }
      __threadfence();  // the value is visible before the flag that announces it
      atomicExch(st.flags + tile, tile == 0 ? kPrefix : kAggregate);
    }
    float carry = 0.0f;
    if (tile > 0) {
      bool first_window = true;
      for (int64_t window_end = tile - 1;; window_end -= kWarp) {
        const int64_t p = window_end - lane;  // lane 0 looks at the nearest predecessor
        unsigned flag = kPrefix;              // before tile 0: nothing, which ends the walk
        if (p >= 0)
          while ((flag = load_flag(st.flags + p)) == kNotReady) __nanosleep(32);
        const unsigned prefixes = __ballot_sync(kFullMask, flag == kPrefix);
        const int stop = prefixes ? __ffs(prefixes) - 1 : kWarp;  // the nearest prefix
        const bool take = p >= 0 && lane <= stop;
        __threadfence();  // the flags were read before the values they announce
        if (Exact) {
          uint64_t v[5] = {};
          if (take) {
            const uint64_t* src = (flag == kPrefix ? st.prefix_x : st.aggregate_x) + p * 5;
            for (int j = 0; j < 5; ++j) v[j] = __ldcg(reinterpret_cast<const unsigned long long*>(src + j));
          }
          warp_sum_limbs(v);
          limbs_add(before, v);
        } else {
          const float v = take ? __ldcg(flag == kPrefix ? st.prefix + p : st.aggregate + p) : 0.0f;
          const float window = warp_sum(v);
          carry = first_window ? window : add_rn(carry, window);
        }
        first_window = false;
        if (prefixes) break;
      }
      if (Exact) {
        limbs_add(own, before);
        carry = round_limbs_to_float(before, 0);
      }
      if (lane == 0) {
        if (Exact) {
          for (int j = 0; j < 5; ++j) st.prefix_x[tile * 5 + j] = own[j];
        } else {
          st.prefix[tile] = add_rn(carry, tile_sum);
        }
        __threadfence();
        atomicExch(st.flags + tile, kPrefix);
      }
    }
    if (lane == 0) carry_shared = carry;
  }
  // [lookback]
  __syncthreads();
  const float carry = carry_shared;
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    float v = has_prefix ? add_rn(thread_prefix, x[k]) : x[k];
    if (tile > 0) v = add_rn(carry, v);
    x[k] = v;
  }
  if (full) {
#pragma unroll
    for (int k = 0; k < kScanItems / 4; ++k)
      reinterpret_cast<float4*>(out + first)[k] = make_float4(x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]);
  } else {
#pragma unroll
    for (int k = 0; k < kScanItems; ++k)
      if (first + k < n) out[first + k] = x[k];
  }
}
// [scan]

/// An order-free hash of a scan's output bits (a sum of per-element hashes), so that runs can
/// be compared without copying the output back.
__global__ void hash_output(const float* out, int64_t n, unsigned long long* hash) {
  unsigned long long h = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    h += wb::mix64(uint64_t(i) * 0x9e3779b97f4a7c15ull ^ wb::float_bits(out[i]));
  for (int offset = 16; offset > 0; offset /= 2) h += __shfl_down_sync(kFullMask, h, offset);
  if (threadIdx.x % kWarp == 0) atomicAdd(hash, h);
}

/// Copy out[positions[j]] to picked[j]: the sampled prefix sums, for the check.
__global__ void gather(const float* out, const int64_t* positions, int64_t count, float* picked) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) picked[j] = out[positions[j]];
}

// ---------------------------------------------------------------------------------------
// The host's side: references and emulations

/// The reproducible (Sequential) or pairwise order of chunked_sum, on the host: the same
/// additions in the same order, so the same bits. Chunks in parallel, levels in turn.
float chunked_sum_on_host(const float* x, int64_t n, ChunkOrder order) {
  std::vector<float> level, next;
  const float* src = x;
  int64_t len = n;
  for (;;) {
    const int64_t chunks = wb::ceil_div<int64_t>(len, kChunk);
    next.assign(size_t(chunks), 0.0f);
    float* dst = next.data();
    wb::parallel_for(chunks, [&](int, int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t base = c * kChunk;
        float lanes[kWarp];
        for (int lane = 0; lane < kWarp; ++lane) {
          const CheckedLoad load{src, len, base, lane};
          lanes[lane] = order == ChunkOrder::Sequential ? lane_total<ChunkOrder::Sequential>(load)
                                                        : lane_total<ChunkOrder::Pairwise>(load);
        }
        for (int offset = kWarp / 2; offset > 0; offset /= 2) {
          float next_lanes[kWarp];
          for (int lane = 0; lane < kWarp; ++lane) next_lanes[lane] = add_rn(lanes[lane], lanes[lane ^ offset]);
          std::copy(next_lanes, next_lanes + kWarp, lanes);
        }
        dst[c] = lanes[0];
      }
    });
    if (chunks == 1) return next[0];
    level.swap(next);
    src = level.data();
    len = chunks;
  }
}

/// The exact variant's arithmetic on the host: per worker, the same 16 double bins folded
/// into a 320-bit integer every 4096 floats, the workers' integers added, split into the
/// grid's 32-bit chunks and put together again, then rounded by the kernel's own function.
/// Must equal ExactSum's rounding (the kernel's helpers checked without a GPU).
float exact_bins_on_host(const float* x, int64_t n) {
  const int64_t workers = wb::worker_count(n);
  std::vector<std::vector<uint64_t>> partial(size_t(workers), std::vector<uint64_t>(5, 0));
  std::vector<unsigned> flags(size_t(workers), 0);
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    uint64_t* total = partial[size_t(w)].data();
    double bins[kDoubleBins] = {};
    int since = 0;
    for (int64_t i = b; i < e; ++i) {
      const uint32_t bits = wb::float_bits(x[i]);
      flags[size_t(w)] |= special_flags(bits);
      bins[((bits >> 23) & 0xffu) >> 4] += double(x[i]);
      if (++since == 4 * kFoldEvery) {
        for (double& d : bins) limbs_add_double(total, d), d = 0.0;
        since = 0;
      }
    }
    for (double& d : bins) limbs_add_double(total, d), d = 0.0;
  });
  uint64_t total[5] = {};
  unsigned all_flags = 0;
  for (int64_t w = 0; w < workers; ++w) {
    limbs_add(total, partial[size_t(w)].data());
    all_flags |= flags[size_t(w)];
  }
  long long chunks[kBins];
  for (int c = 0; c < kBins; ++c) chunks[c] = limbs_chunk(total, c);
  uint64_t limb[5];
  bins_to_limbs(chunks, limb);
  return round_limbs_to_float(limb, all_flags);
}

/// The bound of each order, as a depth of additions, given the grid that ran it.
struct Depths {
  /// The longest chain in a grid-stride loop of `threads` threads over n floats (body in
  /// float4s, head and tail in one thread), then the block's tree (at most 10 levels).
  static int64_t per_thread(int64_t n, int64_t threads) { return 4 * wb::ceil_div<int64_t>(n / 4 + 1, threads) + 6 + 10; }
  /// Levels of the chunked sums over n floats.
  static int levels(int64_t n) {
    int count = 1;
    for (int64_t len = n; len > kChunk; len = wb::ceil_div<int64_t>(len, kChunk)) ++count;
    return count;
  }
};

/// `bits` of a float as text, "0x3f800000".
std::string hex_bits(float f) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", wb::float_bits(f));
  return text;
}

/// `h` as 16 hex digits.
std::string hex64(uint64_t h) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", (unsigned long long)h);
  return text;
}

/// The input of one run: its spec, and its host copy where a check needs it.
struct FloatInput {
  wb::FloatInputSpec spec;         ///< how it was made
  int64_t n = 0;                   ///< elements
  std::vector<float> host;         ///< the values, as made on the host
  wb::DeviceBuffer<float> buffer;  ///< the device copy, --offset into its allocation
  float* d = nullptr;              ///< buffer.get()
};

/// The truth for one input and its variant with element 0 negated (index 1).
struct Truth {
  wb::ExactSum exact[2];  ///< the exact sums
  float rounded[2] = {};  ///< their correct rounding
  double abs_sum = 0;     ///< sum |x| (the same for both)
};

/// The exact sums of the input and of the input with element 0 negated.
Truth make_truth(const FloatInput& in) {
  Truth t;
  t.exact[0] = wb::exact_total(in.host.data(), in.n);
  t.exact[1] = t.exact[0];
  const float x0 = in.host[0];
  t.exact[1].add(-x0);
  t.exact[1].add(-x0);
  for (int k = 0; k < 2; ++k) t.rounded[k] = t.exact[k].round_to_float();
  t.abs_sum = wb::sum_abs(in.host.data(), in.n);
  return t;
}

/// The result of one run as the check saw it.
struct RunResult {
  bool ok = true;        ///< within its bound (and equal to the bits it must have)
  uint64_t bits = 0;     ///< the result's bits (a scan: the hash of its output)
  double ulps = 0;       ///< |s - S| in ulps of the correctly rounded S
  double rel = 0;        ///< |s - S| / sum |x|
  std::string why;       ///< what was wrong, for the FAIL line
};

/// Judge one sum: within gamma(depth) * sum |x| (or `bound` when given), and, when `must`
/// holds a value, bit-identical to it.
RunResult judge_sum(float got, const Truth& t, int parity, double bound, const float* must) {
  RunResult r;
  r.bits = wb::float_bits(got);
  r.ulps = t.exact[parity].ulps(got);
  wb::ExactSum difference = t.exact[parity];
  difference.negate();
  difference.add(got);
  const double error = std::isfinite(got) ? std::fabs(difference.to_double_rounded()) : INFINITY;
  r.rel = t.abs_sum > 0 ? error / t.abs_sum : error;
  char text[256];
  if (!(error <= bound)) {
    r.ok = false;
    std::snprintf(text, sizeof text, "got %.9g (%s), exact sum rounds to %.9g (%s): error %.3g above its bound %.3g",
                  double(got), hex_bits(got).c_str(), double(t.rounded[parity]), hex_bits(t.rounded[parity]).c_str(),
                  error, bound);
    r.why = text;
  } else if (must && wb::float_bits(got) != wb::float_bits(*must)) {
    r.ok = false;
    std::snprintf(text, sizeof text, "got %s, its order computed on the CPU gives %s", hex_bits(got).c_str(),
                  hex_bits(*must).c_str());
    r.why = text;
  }
  return r;
}

/// The bound of an order whose longest chain has `depth` additions: gamma(depth) * sum |x|;
/// depth 0 means rounded once (the exact variant): u |S|.
double order_bound(const Truth& t, int parity, int64_t depth) {
  return depth > 0 ? wb::gamma(depth) * t.abs_sum : wb::kFloatUnitRoundoff * std::fabs(t.exact[parity].to_double_rounded());
}

/// The compensated sum's bound for a tree of depth d: each addition's error is recovered
/// exactly and summed into c along the same tree, so |s - S| <= u |S| (the final s + c) +
/// gamma(2 d) * u * d * sum |x| (the errors' sum: each error at most u times a partial sum,
/// each x in at most d partial sums), doubled for the second-order terms.
double compensated_bound(const Truth& t, int parity, int64_t d) {
  const double u = wb::kFloatUnitRoundoff;
  return 2 * u * std::fabs(t.exact[parity].to_double_rounded()) + 2 * wb::gamma(2 * d) * u * double(d) * t.abs_sum;
}

// ---------------------------------------------------------------------------------------
// Timing and checking float results

/// What a row is allowed: a known defect of a library is reported (verified=FAIL) without
/// counting in the exit status, and only for the bound, never for damage to memory.
enum class Excuse {
  None,          ///< every failure counts
  LibraryDefect  ///< a library's wrong result: reported, not counted in the exit status
};

/// Times, checks and reports the float variants, as wb::Bench does for int32: a first run,
/// warm-up runs and timed runs (L2 flushed before each), the output poisoned before every run
/// and checked after it, element 0 negated on every odd run, the guards and the input checked
/// after the last run. A result must lie within its order's bound; a variant that claims one
/// order must produce one bit pattern per input (`deterministic`).
class FloatBench {
 public:
  /// Print the device and input lines (human mode) and allocate the L2 flush buffer.
  FloatBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev, FloatInput& in)
      : spec_(spec), opt_(opt), dev_(dev), in_(in) {
    if (opt.flush) flush_ = wb::DeviceBuffer<char>(size_t(2 * std::max<int64_t>(dev.l2_bytes, 1 << 20)), "the L2 flush buffer");
    WB_CHECK(cudaEventCreate(&start_));
    WB_CHECK(cudaEventCreate(&stop_));
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs; theoretical peak %.0f GB/s; CUB %s\n", dev.id, dev.name.c_str(),
             dev.major, dev.minor, dev.sms, dev.peak_gbps, wb::cub_version);
    wb::note(opt, "input: N = %s floats, %s, spread %d, offset %lld; median of %d runs after %d warm-up; %s\n\n",
             wb::describe_n(in.n).c_str(), wb::float_mode_name(in.spec.mode), in.spec.spread, (long long)opt.offset,
             opt.reps, opt.warmup, opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)");
  }
  ~FloatBench() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  FloatBench(const FloatBench&) = delete;
  FloatBench& operator=(const FloatBench&) = delete;

  /// Time `launch`, which leaves its result in `out` (`out_bytes` poisoned before each run),
  /// and judge each run with `check(parity)` (parity 1: element 0 negated).
  wb::Row run(const wb::Case& c, const std::function<void()>& launch, void* out, size_t out_bytes,
              const std::function<RunResult(int)>& check, bool deterministic, Excuse excuse = Excuse::None) {
    wb::Row r;
    r.chapter = spec_.chapter;
    r.kernel = c.kernel;
    r.n = c.n;
    r.block = c.block;
    r.batch = c.batch;
    r.bytes = c.bytes > 0 ? c.bytes : 4.0 * double(c.n);
    r.blocks_per_sm = c.blocks_per_sm;
    std::set<uint64_t> patterns[2];
    double max_ulps = 0, max_rel = 0;
    int wrong = 0, total_runs = 1 + opt_.warmup + opt_.reps;
    std::string first_why;
    uint64_t first_bits = 0;
    std::vector<float> times;
    for (int run = 0; run < total_runs; ++run) {
      set_parity(run % 2);
      WB_CHECK(cudaMemsetAsync(out, 0xff, out_bytes));  // poison: a NaN
      const bool timed = run > opt_.warmup;
      if (timed && opt_.flush) WB_CHECK(cudaMemsetAsync(flush_.get(), run & 0xff, flush_.size()));
      if (timed) WB_CHECK(cudaEventRecord(start_));
      nvtxRangePushA(("wb/" + c.kernel + (run == 0 ? "/first" : timed ? "/timed" : "/warmup")).c_str());
      launch();
      nvtxRangePop();
      WB_CHECK_LAUNCH();
      if (timed) {
        WB_CHECK(cudaEventRecord(stop_));
        WB_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        WB_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        times.push_back(ms);
      }
      WB_CHECK(cudaDeviceSynchronize());
      const RunResult res = check(parity_);
      if (run == 0) first_bits = res.bits;
      patterns[parity_].insert(res.bits);
      max_ulps = std::max(max_ulps, res.ulps);
      max_rel = std::max(max_rel, res.rel);
      if (!res.ok && wrong++ == 0) first_why = "run " + std::to_string(run) + (parity_ ? " (in[0] negated)" : "") + ": " + res.why;
    }
    set_parity(0);
    bool memory_ok = wb::check_guards(c.kernel);
    const wb::Mismatch m = wb::compare_device(reinterpret_cast<const int32_t*>(in_.d),
                                              reinterpret_cast<const int32_t*>(in_.host.data()), in_.n);
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input at index %lld\n", c.kernel.c_str(), (long long)m.index);
      memory_ok = false;
    }
    const size_t most_patterns = std::max(patterns[0].size(), patterns[1].size());
    const bool one_order = !deterministic || most_patterns == 1;
    if (wrong)
      std::fprintf(stderr, "FAIL %s: %d of %d runs outside their bound or bits; the first, %s\n", c.kernel.c_str(),
                   wrong, total_runs, first_why.c_str());
    if (!one_order)
      std::fprintf(stderr, "FAIL %s: claims one order of additions but gave %zu bit patterns for one input\n",
                   c.kernel.c_str(), most_patterns);
    r.verified = wrong == 0 && memory_ok && one_order;
    r.median_ms = wb::median(times);
    r.min_ms = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
    wb::set_bandwidth(r, dev_.peak_gbps);
    char config[320];
    std::snprintf(config, sizeof config, "input=%s spread=%d ulps=%.3g rel=%.3g patterns=%zu bits=%s%s",
                  wb::float_mode_name(in_.spec.mode), in_.spec.spread, max_ulps, max_rel, most_patterns,
                  c.kernel.find("scan") != std::string::npos ? hex64(first_bits).c_str() : hex_bits(wb::float_from_bits(uint32_t(first_bits))).c_str(),
                  c.config.empty() ? "" : (" " + c.config).c_str());
    r.config = config;
    char note[160];
    std::snprintf(note, sizeof note, "%.3g ulps, %zu bit pattern%s", max_ulps, most_patterns, most_patterns == 1 ? "" : "s");
    r.note = note;
    if (!r.verified && memory_ok && excuse == Excuse::LibraryDefect) {
      r.note += "; KNOWN LIBRARY DEFECT, not counted in the exit status";
      std::fprintf(stderr, "KNOWN DEFECT %s: the library's result fails its bound; reported as FAIL, not counted in "
                           "the exit status\n", c.kernel.c_str());
      excused_.push_back(rows_.size());
    }
    rows_.push_back(r);
    return r;
  }

  /// Attach a note to the last row (the human table only).
  void annotate_last(const std::string& text) {
    if (!rows_.empty()) rows_.back().note += "; " + text;
  }

  /// Print the table or the CSV; 0 when every row not excused verified, else 1.
  int finish() const {
    size_t failed = 0;
    for (size_t i = 0; i < rows_.size(); ++i)
      if (!rows_[i].verified && std::find(excused_.begin(), excused_.end(), i) == excused_.end()) ++failed;
    std::string line = rows_.empty() ? "FAILED: no kernel ran"
                       : failed ? "FAILED: " + std::to_string(failed) + " of " + std::to_string(rows_.size()) +
                                      " kernel run(s) failed a check (see the FAIL lines above)"
                                : "all results within their bounds; the reproducible and exact bits equal the CPU's";
    if (!excused_.empty() && !failed) line += " (" + std::to_string(excused_.size()) + " known library defect(s) reported as FAIL)";
    const int status = rows_.empty() || failed ? 1 : 0;
    if (opt_.csv) {
      std::printf("%s\n", wb::csv_header());
      for (const auto& r : rows_) std::printf("%s\n", wb::csv_row(r).c_str());
      if (status) std::fprintf(stderr, "%s\n", line.c_str());
    } else {
      std::fputs(wb::human_table(rows_).c_str(), stdout);
      std::printf("\n%s\n", line.c_str());
    }
    return status;
  }

 private:
  void set_parity(int parity) {
    if (parity == parity_) return;
    negate_first<<<1, 1>>>(in_.d);
    WB_CHECK_LAUNCH();
    parity_ = parity;
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  FloatInput& in_;
  wb::DeviceBuffer<char> flush_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int parity_ = 0;
  std::vector<wb::Row> rows_;
  std::vector<size_t> excused_;
};

// ---------------------------------------------------------------------------------------
// The launchers

/// Everything the variants launch with, allocated once.
struct Sums {
  int64_t n = 0;                              ///< elements summed
  int block = kBlock;                         ///< threads per block of the grid-dependent sums
  int64_t max_blocks = 0;                     ///< the tree's grid: one wave of resident blocks
  wb::DeviceBuffer<float> sum;                ///< every variant's result
  wb::DeviceBuffer<float> partials;           ///< the tree's blocks' sums
  wb::DeviceBuffer<Compensated> compensated;  ///< the compensated sum's blocks' pairs
  wb::DeviceBuffer<unsigned> ticket;          ///< finished blocks (0 between launches)
  wb::DeviceBuffer<ExactGrid> exact_grid;     ///< the exact sum's chunks (0 between launches)
  wb::DeviceBuffer<float> level[2];           ///< the chunked sums' levels
  int64_t chunk_grid = 0;                     ///< the chunked sums' largest grid
  int64_t exact_grid_blocks = 0;              ///< the exact sum's largest grid
};

/// The tree's grid for n floats: one block per `block` float4s, at most `max_blocks`.
int64_t tree_grid(int64_t n, int block, int64_t max_blocks) {
  return std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(n / 4 + 1, block), max_blocks));
}

/// The float atomics' sum of in[0, s.n) with `grid` blocks; clearing the sum is part of it.
void launch_atomic(const float* in, Sums& s, int64_t grid) {
  WB_CHECK(cudaMemsetAsync(s.sum.get(), 0, sizeof(float)));
  float_atomic<<<unsigned(grid), s.block>>>(in, s.n, s.sum.get());
}

/// The tree's sum of in[0, s.n) with `grid` blocks.
void launch_tree(const float* in, Sums& s, int64_t grid) {
  float_tree<<<unsigned(grid), s.block>>>(in, s.n, s.partials.get(), s.ticket.get(), s.sum.get());
}

/// The compensated sum of in[0, s.n) with `grid` blocks.
void launch_kahan(const float* in, Sums& s, int64_t grid) {
  float_kahan<<<unsigned(grid), s.block>>>(in, s.n, s.compensated.get(), s.ticket.get(), s.sum.get());
}

/// The correctly rounded sum of in[0, s.n): one block per 256 float4s, at most one wave.
void launch_exact(const float* in, Sums& s) {
  const int64_t grid = std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(s.n / 4 + 1, kExactBlock), s.exact_grid_blocks));
  float_exact<<<unsigned(grid), kExactBlock>>>(in, s.n, s.exact_grid.get(), s.sum.get());
}

/// The chunked sum (reproducible or pairwise): one launch per level, the last into *sum.
template <ChunkOrder Order>
void launch_chunked(const float* in, Sums& s, int64_t max_grid) {
  const float* src = in;
  int64_t len = s.n;
  int which = 0;
  const int warps_per_block = kChunkBlock / kWarp;
  for (;;) {
    const int64_t chunks = wb::ceil_div<int64_t>(len, kChunk);
    float* dst = chunks == 1 ? s.sum.get() : s.level[which].get();
    const int64_t grid = std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(chunks, warps_per_block), max_grid));
    if ((reinterpret_cast<uintptr_t>(src) & 15) == 0)
      chunk_sums<Order, true><<<unsigned(grid), kChunkBlock>>>(src, len, dst);
    else
      chunk_sums<Order, false><<<unsigned(grid), kChunkBlock>>>(src, len, dst);
    if (chunks == 1) return;
    src = dst;
    len = chunks;
    which ^= 1;
  }
}

/// The SM count the "other grid" imitates: 114, or 132 when this GPU has 114.
int other_sms(int sms) { return sms == kOtherSms ? 132 : kOtherSms; }

/// The scans' output and tile statuses for up to `capacity` elements.
struct ScanBuffers {
  int64_t capacity = 0;                              ///< the most elements a scan may have
  wb::DeviceBuffer<float> out;                       ///< the prefix sums
  wb::DeviceBuffer<unsigned> flags;                  ///< one TileFlag per tile
  wb::DeviceBuffer<float> aggregate;                 ///< the float scan's tile sums
  wb::DeviceBuffer<float> prefix;                    ///< the float scan's tile prefixes
  wb::DeviceBuffer<uint64_t> aggregate_x;            ///< the deterministic scan's tile sums (5 limbs)
  wb::DeviceBuffer<uint64_t> prefix_x;               ///< the deterministic scan's prefixes (5 limbs)
  wb::DeviceBuffer<unsigned> counter;                ///< tiles handed out
  wb::DeviceBuffer<unsigned long long> hash;         ///< hash_output's sum
  /// Allocate everything for scans of up to n elements.
  explicit ScanBuffers(int64_t n) : capacity(n) {
    const int64_t tiles = wb::ceil_div<int64_t>(n, kScanTile);
    out = wb::DeviceBuffer<float>(size_t(n), "the scan's output");
    flags = wb::DeviceBuffer<unsigned>(size_t(tiles), "the tiles' flags");
    aggregate = wb::DeviceBuffer<float>(size_t(tiles), "the tiles' sums");
    prefix = wb::DeviceBuffer<float>(size_t(tiles), "the tiles' prefixes");
    aggregate_x = wb::DeviceBuffer<uint64_t>(size_t(tiles) * 5, "the tiles' exact sums");
    prefix_x = wb::DeviceBuffer<uint64_t>(size_t(tiles) * 5, "the tiles' exact prefixes");
    counter = wb::DeviceBuffer<unsigned>(1, "the tile counter");
    hash = wb::DeviceBuffer<unsigned long long>(1, "the output hash");
  }
  /// One scan of in[0, n): the flags and the tile counter cleared, then one launch.
  void launch(bool exact, const float* in, int64_t n) {
    const int64_t tiles = wb::ceil_div<int64_t>(n, kScanTile);
    const ScanState st{flags.get(), aggregate.get(), prefix.get(), aggregate_x.get(), prefix_x.get(), counter.get()};
    WB_CHECK(cudaMemsetAsync(flags.get(), 0, size_t(tiles) * 4));
    WB_CHECK(cudaMemsetAsync(counter.get(), 0, 4));
    const bool vector = (reinterpret_cast<uintptr_t>(in) & 15) == 0;
    if (exact) float_scan<true><<<unsigned(tiles), kScanBlock>>>(in, out.get(), n, vector, st);
    else float_scan<false><<<unsigned(tiles), kScanBlock>>>(in, out.get(), n, vector, st);
  }
};

/// The additions on the longest path into output p of the float scan: in its tile 15
/// sequential, 5 across the warp, 7 across the warps, one for the thread's prefix and one
/// for the element; each tile before may add 7 on the carry's way (5 in a window's
/// butterfly, one adding the window to the carry, one making its prefix), and one add puts
/// the carry in.
int64_t float_scan_depth(int64_t p) { return 7 * (p / kScanTile) + 32; }

/// The same for the deterministic scan: its carry is exact, rounded once (u |carry|, which
/// gamma's first term covers), then one add.
int64_t exact_scan_depth(int64_t) { return 32; }

/// The depth of CUB's tree over n floats: a loop per thread over its tiles, a block tree, a
/// second pass over the blocks' sums. Its grid has at least one block of at least 64 threads
/// per SM, hence this bound on the loop.
int64_t cub_depth(int64_t n, int sms) { return Depths::per_thread(n, int64_t(sms) * 64) + 64; }

#if WB_CUB_DETERMINISM
/// CUB's determinism requirement, an environment for DeviceReduce::Sum: Level 0
/// not_guaranteed, 1 run_to_run, 2 gpu_to_gpu.
template <int Level>
auto require_determinism() {
  namespace det = cuda::execution::determinism;
  if constexpr (Level == 0) return cuda::execution::require(det::not_guaranteed);
  else if constexpr (Level == 1) return cuda::execution::require(det::run_to_run);
  else return cuda::execution::require(det::gpu_to_gpu);
}
#endif

// ---------------------------------------------------------------------------------------
// The command line beyond the shared flags

/// This chapter's own flags, read (and removed) before wb::parse_or_exit.
struct FloatFlags {
  wb::FloatInputSpec input;  ///< --input and --spread
  bool study = false;      ///< --study: the bit-pattern and error table
  int runs = 200;          ///< --runs R: runs per study cell
  bool emulate = false;    ///< --emulate: the CPU's bits of the reproducible, pairwise and exact orders
  bool gpu_bits = false;   ///< --gpu-bits: the same line from the GPU (and the tree at two grids)
};

/// Take --input, --spread, --study, --runs, --emulate and --gpu-bits out of argv (exit 2
/// with the parser's message for a bad value).
FloatFlags take_float_flags(int& argc, char** argv) {
  FloatFlags f;
  std::string spread_text = std::to_string(f.input.spread), mode_text = wb::float_mode_name(f.input.mode);
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) value = arg.substr(eq + 1), arg = arg.substr(0, eq);
    auto take = [&](std::string& out) {
      if (inline_value) return out = value, true;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "chapter19: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      out = argv[++i];
      return true;
    };
    auto flag_only = [&] {
      if (inline_value) {
        std::fprintf(stderr, "chapter19: %s takes no value\n", arg.c_str());
        std::exit(2);
      }
    };
    if (arg == "--input") take(mode_text);
    else if (arg == "--spread") take(spread_text);
    else if (arg == "--study") flag_only(), f.study = true;
    else if (arg == "--emulate") flag_only(), f.emulate = true;
    else if (arg == "--gpu-bits") flag_only(), f.gpu_bits = true;
    else if (arg == "--runs") {
      std::string text;
      take(text);
      int64_t v = 0;
      if (!wb::parse_count(text, v) || v < 1 || v > 100000) {
        std::fprintf(stderr, "chapter19: --runs '%s' is not allowed: give a whole number from 1 to 100000\n", text.c_str());
        std::exit(2);
      }
      f.runs = int(v);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  const std::string error = wb::parse_float_input(spread_text, mode_text, f.input);
  if (!error.empty()) {
    std::fprintf(stderr, "chapter19: %s\n", error.c_str());
    std::exit(2);
  }
  if (int(f.study) + int(f.emulate) + int(f.gpu_bits) > 1) {
    std::fprintf(stderr, "chapter19: --study, --emulate and --gpu-bits cannot be given together\n");
    std::exit(2);
  }
  return f;
}

/// The line --emulate and --gpu-bits print (the fixture's format).
std::string bits_line(const wb::Options& opt, const FloatFlags& f, float reproducible, float pairwise, float exact) {
  char text[320];
  std::snprintf(text, sizeof text, "n=%lld seed=%llu input=%s spread=%d reproducible=%s pairwise=%s exact=%s",
                (long long)opt.n, (unsigned long long)opt.seed, wb::float_mode_name(f.input.mode), f.input.spread,
                hex_bits(reproducible).c_str(), hex_bits(pairwise).c_str(), hex_bits(exact).c_str());
  return text;
}

/// --emulate: no GPU. The three orders' bits on the CPU; exit 1 if the exact variant's
/// integers round differently from ExactSum.
int emulate(const wb::Options& opt, const FloatFlags& f) {
  // First the hard cases of rounding, which generated inputs never reach: ties both ways,
  // subnormals, the largest float and the first sum that overflows, infinities and NaN.
  const float max = std::numeric_limits<float>::max(), inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<std::vector<float>> hard = {
      {0x1p24f, 1.0f},  {0x1p24f, 1.0f, 0x1p-30f}, {0x1p24f, 3.0f}, {0x1p24f, -1.0f, -0x1p-40f}, {tiny, tiny, -tiny},
      {0x1p-126f, -tiny}, {max, 0x1p103f}, {max, 0x1p103f, -tiny}, {max, 0x1p102f}, {-max, -max, max},
      {1e30f, 1.0f, -1e30f}, {inf, 1.0f}, {-inf, inf}, {std::numeric_limits<float>::quiet_NaN(), 1.0f}, {0.0f, -0.0f}};
  for (const auto& h : hard) {
    wb::ExactSum e;
    for (float v : h) e.add(v);
    const float want = e.round_to_float(), got = exact_bins_on_host(h.data(), int64_t(h.size()));
    if (wb::float_bits(got) != wb::float_bits(want) && !(std::isnan(got) && std::isnan(want))) {
      std::fprintf(stderr, "FAIL: a hard case of %zu floats: the exact variant's integers round to %s, ExactSum to %s\n",
                   h.size(), hex_bits(got).c_str(), hex_bits(want).c_str());
      return 1;
    }
  }
  std::vector<float> x(size_t(opt.n));
  wb::fill_float_input(x.data(), opt.n, opt.seed, f.input);
  const float exact = wb::exact_sum(x.data(), opt.n);
  const float bins = exact_bins_on_host(x.data(), opt.n);
  std::printf("%s\n", bits_line(opt, f, chunked_sum_on_host(x.data(), opt.n, ChunkOrder::Sequential),
                                chunked_sum_on_host(x.data(), opt.n, ChunkOrder::Pairwise), exact).c_str());
  if (wb::float_bits(bins) != wb::float_bits(exact)) {
    std::fprintf(stderr, "FAIL: the exact variant's bins round to %s, ExactSum to %s\n", hex_bits(bins).c_str(),
                 hex_bits(exact).c_str());
    return 1;
  }
  return 0;
}

/// Make the first n elements of the input on the device (and on the host, `host`), and check
/// that the two agree.
void make_input(FloatInput& in, const wb::Options& opt, int64_t n, const wb::FloatInputSpec& spec, bool host) {
  in.spec = spec;
  in.n = n;
  wb::memory_use().n = n;
  if (!in.d) {  // room for the largest N of the run
    in.buffer = wb::DeviceBuffer<float>(size_t(opt.n), "the input", opt.offset);
    in.d = in.buffer.get();
  }
  make_float_input<<<1024, 256>>>(in.d, n, opt.seed, spec);
  WB_CHECK_LAUNCH();
  if (!host) return;
  in.host.resize(size_t(n));
  wb::fill_float_input(in.host.data(), n, opt.seed, spec);
  const wb::Mismatch m = wb::compare_device(reinterpret_cast<const int32_t*>(in.d),
                                            reinterpret_cast<const int32_t*>(in.host.data()), n);
  if (m.index >= 0) {
    std::fprintf(stderr, "FAIL: the device made input element %lld as %08x, the host as %08x\n", (long long)m.index,
                 unsigned(m.got), unsigned(m.want));
    std::exit(1);
  }
}

// ---------------------------------------------------------------------------------------
// The scan's check

/// The sampled positions of a scan's check and the exact prefix sums there.
struct ScanTruth {
  std::vector<int64_t> positions;   ///< the outputs checked
  std::vector<wb::ExactSum> exact;  ///< the exact inclusive prefix at each position
  std::vector<double> abs_prefix;   ///< sum |x| through each position
  wb::DeviceBuffer<int64_t> positions_d;  ///< the positions on the device
  wb::DeviceBuffer<float> picked_d;       ///< the outputs there, gathered for one copy back
};

/// Evenly spaced positions (the last element always among them) and their exact prefixes.
void make_scan_truth(ScanTruth& t, const FloatInput& in) {
  const int64_t count = std::min<int64_t>(in.n, kScanSamples);
  t.positions.resize(size_t(count));
  for (int64_t j = 0; j < count; ++j) t.positions[size_t(j)] = (j + 1) * in.n / count - 1;
  std::vector<wb::ExactSum> segment(static_cast<size_t>(count)), segment_abs(static_cast<size_t>(count));
  wb::parallel_for(count, [&](int, int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const int64_t from = j == 0 ? 0 : t.positions[size_t(j - 1)] + 1;
      for (int64_t i = from; i <= t.positions[size_t(j)]; ++i) {
        segment[size_t(j)].add(in.host[size_t(i)]);
        segment_abs[size_t(j)].add(std::fabs(in.host[size_t(i)]));
      }
    }
  });
  wb::ExactSum running, running_abs;
  t.exact.resize(size_t(count));
  t.abs_prefix.resize(size_t(count));
  for (int64_t j = 0; j < count; ++j) {
    running.merge(segment[size_t(j)]);
    running_abs.merge(segment_abs[size_t(j)]);
    t.exact[size_t(j)] = running;
    t.abs_prefix[size_t(j)] = running_abs.to_double_rounded();
  }
  t.positions_d = wb::DeviceBuffer<int64_t>(size_t(count), "the sampled positions");
  t.picked_d = wb::DeviceBuffer<float>(size_t(count), "the sampled prefix sums");
  WB_CHECK(cudaMemcpy(t.positions_d.get(), t.positions.data(), size_t(count) * 8, cudaMemcpyHostToDevice));
}

/// Judge one scan run: every sampled prefix within its bound; the bits are the output's hash.
/// `depth(p)`: the additions on the longest path into output p.
RunResult judge_scan(const float* out, int64_t n, ScanTruth& t, const FloatInput& in, int parity,
                     const std::function<int64_t(int64_t)>& depth, unsigned long long* hash_d) {
  RunResult r;
  const int64_t count = int64_t(t.positions.size());
  gather<<<unsigned(wb::ceil_div<int64_t>(count, 256)), 256>>>(out, t.positions_d.get(), count, t.picked_d.get());
  WB_CHECK_LAUNCH();
  std::vector<float> picked(static_cast<size_t>(count));
  WB_CHECK(cudaMemcpy(picked.data(), t.picked_d.get(), size_t(count) * 4, cudaMemcpyDeviceToHost));
  WB_CHECK(cudaMemset(hash_d, 0, 8));
  hash_output<<<1024, 256>>>(out, n, hash_d);
  WB_CHECK_LAUNCH();
  unsigned long long h = 0;
  WB_CHECK(cudaMemcpy(&h, hash_d, 8, cudaMemcpyDeviceToHost));
  r.bits = h;
  for (int64_t j = 0; j < count; ++j) {
    wb::ExactSum want = t.exact[size_t(j)];
    if (parity) want.add(-in.host[0]), want.add(-in.host[0]);
    wb::ExactSum difference = want;
    difference.negate();
    const float got = picked[size_t(j)];
    difference.add(got);
    const double error = std::isfinite(got) ? std::fabs(difference.to_double_rounded()) : INFINITY;
    const double bound = wb::gamma(depth(t.positions[size_t(j)])) * t.abs_prefix[size_t(j)];
    if (j + 1 == count) {
      r.ulps = want.ulps(got);
      r.rel = t.abs_prefix[size_t(j)] > 0 ? error / t.abs_prefix[size_t(j)] : error;
    }
    if (!(error <= bound) && r.ok) {
      r.ok = false;
      char text[256];
      std::snprintf(text, sizeof text, "prefix %lld is %.9g, exact %.9g: error %.3g above its bound %.3g",
                    (long long)t.positions[size_t(j)], double(got), double(want.round_to_float()), error, bound);
      r.why = text;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------

/// The chapter's variants and their rows.
std::vector<wb::VariantSpec> chapter_variants() {
  std::vector<wb::VariantSpec> v = {
      {"atomic", {"float_atomic"}},
      {"tree", {"float_tree", "float_tree_other_grid"}},
      {"reproducible", {"float_reproducible"}},
      {"kahan", {"float_kahan"}},
      {"pairwise", {"float_pairwise"}},
      {"exact", {"float_exact"}},
#if WB_CUB_DETERMINISM
      {"cub", {"cub_device_reduce_sum", "cub_sum_not_guaranteed", "cub_sum_run_to_run", "cub_sum_gpu_to_gpu"}},
#else
      {"cub", {"cub_device_reduce_sum"}},
#endif
      {"scan", {"float_scan_single_pass", "float_scan_deterministic"}},
  };
  v.insert(v.begin(), wb::every_variant(v));
  return v;
}

/// Whether a run of --variant `chosen` includes variant `name`.
bool runs(const std::string& chosen, const char* name) { return chosen == "all" || chosen == name; }

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
  spec.extra_flags = {"--input", "--spread", "--study", "--runs", "--emulate", "--gpu-bits"};
  spec.extra_usage =
      "  --input MODE  the signs of the input: positive, mixed or cancel (pairs x, -x one ulp apart)\n"
      "                (default positive)\n"
      "  --spread E    values m * 2^e, e spread over E + 1 exponents around 0, from 0 to 160 (default 8)\n"
      "  --study       print, per variant, N (2^10 up to --n) and input mode, the bit patterns of R runs,\n"
      "                the largest error in ulps and relative to sum |x|, and the bits (CSV)\n"
      "  --runs R      runs per --study cell (default 200)\n"
      "  --emulate     no GPU: the CPU's bits of the reproducible, pairwise and exact orders for --n\n"
      "  --gpu-bits    the same line from the GPU, then the tree's bits at two grids\n";

  FloatFlags f = take_float_flags(argc, argv);
  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  if (f.emulate) {
    if (!opt.n_given) opt.n = int64_t(1) << 20;
    return emulate(opt, f);
  }
  wb::Device dev = wb::open_device(opt);
  const bool with_scan = runs(opt.variant, "scan") && !f.gpu_bits;
  wb::fit_default_n(opt, dev, with_scan ? 8.0 + 4.0 / 1024 : 4.0);
  const int64_t n = opt.n;

  // Scratch for every variant, sized for N.
  Sums s;
  s.n = n;
  s.block = opt.block;
  const int tree_occupancy = wb::blocks_per_sm(float_tree, opt.block);
  s.max_blocks = int64_t(dev.sms) * tree_occupancy;
  const int64_t other_grid_blocks = int64_t(other_sms(dev.sms)) * tree_occupancy;
  const int64_t most_blocks = std::max(s.max_blocks, other_grid_blocks);
  s.sum = wb::DeviceBuffer<float>(1, "the sum");
  s.partials = wb::DeviceBuffer<float>(size_t(most_blocks), "the blocks' sums");
  s.compensated = wb::DeviceBuffer<Compensated>(size_t(most_blocks), "the blocks' compensated sums");
  s.ticket = wb::DeviceBuffer<unsigned>(1, "the count of finished blocks");
  WB_CHECK(cudaMemset(s.ticket.get(), 0, sizeof(unsigned)));
  s.exact_grid = wb::DeviceBuffer<ExactGrid>(1, "the exact sum's bins");
  WB_CHECK(cudaMemset(s.exact_grid.get(), 0, sizeof(ExactGrid)));
  s.exact_grid_blocks = int64_t(dev.sms) * wb::blocks_per_sm(float_exact, kExactBlock);
  const int64_t level0 = wb::ceil_div<int64_t>(n, kChunk);
  s.level[0] = wb::DeviceBuffer<float>(size_t(level0), "the chunk sums");
  s.level[1] = wb::DeviceBuffer<float>(size_t(wb::ceil_div<int64_t>(level0, kChunk)), "the chunk sums' sums");
  s.chunk_grid = int64_t(dev.sms) * wb::blocks_per_sm(chunk_sums<ChunkOrder::Sequential, true>, kChunkBlock);
  const int64_t tree_blocks = tree_grid(n, opt.block, s.max_blocks);
  const int64_t other_blocks = tree_grid(n, opt.block, other_grid_blocks);

  FloatInput in;
  if (f.gpu_bits) {
    make_input(in, opt, n, f.input, false);
    auto result = [&](const std::function<void()>& launch) {
      launch();
      WB_CHECK_LAUNCH();
      float v = 0;
      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
      return v;
    };
    const float repro = result([&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); });
    const float pair = result([&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); });
    const float exact = result([&] { launch_exact(in.d, s); });
    std::printf("%s\n", bits_line(opt, f, repro, pair, exact).c_str());
    const float tree = result([&] { launch_tree(in.d, s, tree_blocks); });
    const float other = result([&] { launch_tree(in.d, s, other_blocks); });
    std::printf("tree=%s tree_other_grid=%s\n", hex_bits(tree).c_str(), hex_bits(other).c_str());
    return 0;
  }

  // [study]
  if (f.study) {
    std::printf("chapter,kernel,n,input,spread,runs,patterns,bits,exact_bits,ulps_max,rel_err_max,verified\n");
    std::vector<int64_t> sizes;
    for (int64_t size = int64_t(1) << 10; size < n; size *= 16) sizes.push_back(size);
    sizes.push_back(n);
    size_t temp_bytes = 0;
    WB_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.d, s.sum.get(), n));
    wb::DeviceBuffer<char> temp(temp_bytes, "CUB's temporary storage");
    std::unique_ptr<ScanBuffers> scan;
    if (runs(opt.variant, "scan")) scan.reset(new ScanBuffers(n));
    for (const int64_t size : sizes) {
      for (wb::FloatMode mode : {wb::FloatMode::Positive, wb::FloatMode::Mixed, wb::FloatMode::Cancel}) {
        make_input(in, opt, size, wb::FloatInputSpec{f.input.spread, mode}, true);
        s.n = size;
        const Truth truth = make_truth(in);
        const int64_t tb = tree_grid(size, opt.block, s.max_blocks), ob = tree_grid(size, opt.block, other_grid_blocks);
        const int64_t tree_depth = Depths::per_thread(size, tb * opt.block) + wb::ceil_div<int64_t>(tb, opt.block) + 10;
        const float repro = chunked_sum_on_host(in.host.data(), size, ChunkOrder::Sequential);
        const float pair = chunked_sum_on_host(in.host.data(), size, ChunkOrder::Pairwise);
        // One cell: a variant's row name, which --variant runs it, and one run's result.
        struct Cell {
          const char* kernel;
          const char* variant;
          std::function<RunResult()> run;
        };
        auto sum_cell = [&](const char* kernel, const char* variant, std::function<void()> launch,
                            std::function<double()> bound, const float* must) {
          return Cell{kernel, variant, [&s, &truth, launch, bound, must] {
                        launch();
                        WB_CHECK_LAUNCH();
                        float v = 0;
                        WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
                        return judge_sum(v, truth, 0, bound(), must);
                      }};
        };
        auto depth_bound = [&truth](int64_t depth) { return [&truth, depth] { return order_bound(truth, 0, depth); }; };
        std::vector<Cell> cells = {
            sum_cell("float_atomic", "atomic", [&] { launch_atomic(in.d, s, tb); },
                     depth_bound(Depths::per_thread(size, tb * opt.block) + tb), nullptr),
            sum_cell("float_tree", "tree", [&] { launch_tree(in.d, s, tb); }, depth_bound(tree_depth), nullptr),
            sum_cell("float_tree_other_grid", "tree", [&] { launch_tree(in.d, s, ob); },
                     depth_bound(Depths::per_thread(size, ob * opt.block) + wb::ceil_div<int64_t>(ob, opt.block) + 10),
                     nullptr),
            sum_cell("float_reproducible", "reproducible",
                     [&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); },
                     depth_bound(Depths::levels(size) * chunk_level_depth(ChunkOrder::Sequential)), &repro),
            sum_cell("float_kahan", "kahan", [&] { launch_kahan(in.d, s, tb); },
                     [&truth, tree_depth] { return compensated_bound(truth, 0, tree_depth); }, nullptr),
            sum_cell("float_pairwise", "pairwise", [&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); },
                     depth_bound(Depths::levels(size) * chunk_level_depth(ChunkOrder::Pairwise)), &pair),
            sum_cell("float_exact", "exact", [&] { launch_exact(in.d, s); }, depth_bound(0), &truth.rounded[0]),
            sum_cell("cub_device_reduce_sum", "cub",
                     [&] { WB_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, in.d, s.sum.get(), size)); },
                     depth_bound(cub_depth(size, dev.sms)), nullptr),
#if WB_CUB_DETERMINISM
            sum_cell("cub_sum_not_guaranteed", "cub",
                     [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<0>())); },
                     depth_bound(cub_depth(size, dev.sms) + size / 256), nullptr),
            sum_cell("cub_sum_run_to_run", "cub",
                     [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<1>())); },
                     depth_bound(cub_depth(size, dev.sms)), nullptr),
            sum_cell("cub_sum_gpu_to_gpu", "cub",
                     [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<2>())); },
                     depth_bound(cub_depth(size, dev.sms)), nullptr),
#endif
        };
        std::unique_ptr<ScanTruth> scan_truth;
        if (scan) {
          scan_truth.reset(new ScanTruth);
          make_scan_truth(*scan_truth, in);
          for (bool exact : {false, true})
            cells.push_back({exact ? "float_scan_deterministic" : "float_scan_single_pass", "scan", [&, exact] {
                               scan->launch(exact, in.d, size);
                               WB_CHECK_LAUNCH();
                               WB_CHECK(cudaDeviceSynchronize());
                               return judge_scan(scan->out.get(), size, *scan_truth, in, 0,
                                                 exact ? exact_scan_depth : float_scan_depth, scan->hash.get());
                             }});
        }
        for (const Cell& cell : cells) {
          if (!runs(opt.variant, cell.variant)) continue;
          std::set<uint64_t> seen;
          double max_ulps = 0, max_rel = 0;
          bool ok = true;
          uint64_t first_bits = 0;
          for (int r = 0; r < f.runs; ++r) {
            const RunResult res = cell.run();
            if (r == 0) first_bits = res.bits;
            seen.insert(res.bits);
            max_ulps = std::max(max_ulps, res.ulps);
            max_rel = std::max(max_rel, res.rel);
            if (!res.ok && ok) std::fprintf(stderr, "FAIL %s at N = %lld, %s: %s\n", cell.kernel, (long long)size,
                                            wb::float_mode_name(mode), res.why.c_str());
            ok = ok && res.ok;
          }
          const bool is_scan = std::string(cell.variant) == "scan";
          std::printf("19,%s,%lld,%s,%d,%d,%zu,%s,%s,%.4g,%.4g,%s\n", cell.kernel, (long long)size,
                      wb::float_mode_name(mode), f.input.spread, f.runs, seen.size(),
                      is_scan ? hex64(first_bits).c_str() : hex_bits(wb::float_from_bits(uint32_t(first_bits))).c_str(),
                      hex_bits(truth.rounded[0]).c_str(), max_ulps, max_rel, ok ? "PASS" : "FAIL");
          std::fflush(stdout);
        }
      }
    }
    return 0;
  }
  // [study]

  make_input(in, opt, n, f.input, true);
  const Truth truth = make_truth(in);
  // The CPU's bits of the two chunked orders, for the input as made and with element 0 negated.
  float repro_bits[2], pair_bits[2];
  if (runs(opt.variant, "reproducible") || runs(opt.variant, "pairwise")) {
    for (int parity = 0; parity < 2; ++parity) {
      if (parity) in.host[0] = -in.host[0];
      repro_bits[parity] = chunked_sum_on_host(in.host.data(), n, ChunkOrder::Sequential);
      pair_bits[parity] = chunked_sum_on_host(in.host.data(), n, ChunkOrder::Pairwise);
      if (parity) in.host[0] = -in.host[0];
    }
  }

  FloatBench bench(spec, opt, dev, in);
  auto sum_check = [&](double depth, const float* must) {
    return [&truth, &s, depth, must](int parity) {
      float v = 0;
      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
      return judge_sum(v, truth, parity, order_bound(truth, parity, int64_t(depth)), must ? must + parity : nullptr);
    };
  };
  const int occupancy = tree_occupancy;
  auto grid_config = [](int64_t grid) { return "grid=" + std::to_string(grid); };

  if (runs(opt.variant, "atomic")) {
    const double depth = double(Depths::per_thread(n, tree_blocks * opt.block) + tree_blocks);
    bench.run({"float_atomic", n, opt.block, 0, 0, occupancy, grid_config(tree_blocks)},
              [&] { launch_atomic(in.d, s, tree_blocks); }, s.sum.get(), 4, sum_check(depth, nullptr), false);
  }
  if (runs(opt.variant, "tree")) {
    const double depth = double(Depths::per_thread(n, tree_blocks * opt.block) + wb::ceil_div<int64_t>(tree_blocks, opt.block) + 10);
    bench.run({"float_tree", n, opt.block, 0, 0, occupancy, grid_config(tree_blocks)},
              [&] { launch_tree(in.d, s, tree_blocks); }, s.sum.get(), 4, sum_check(depth, nullptr), true);
    const double other_depth =
        double(Depths::per_thread(n, other_blocks * opt.block) + wb::ceil_div<int64_t>(other_blocks, opt.block) + 10);
    bench.run({"float_tree_other_grid", n, opt.block, 0, 0, occupancy,
               grid_config(other_blocks) + " sms=" + std::to_string(other_sms(dev.sms))},
              [&] { launch_tree(in.d, s, other_blocks); }, s.sum.get(), 4, sum_check(other_depth, nullptr), true);
  }
  if (runs(opt.variant, "reproducible")) {
    const double depth = Depths::levels(n) * chunk_level_depth(ChunkOrder::Sequential);
    bench.run({"float_reproducible", n, kChunkBlock, 0, 0, 0, "chunk=" + std::to_string(kChunk)},
              [&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); }, s.sum.get(), 4,
              sum_check(depth, repro_bits), true);
  }
  if (runs(opt.variant, "kahan")) {
    const int64_t d = Depths::per_thread(n, tree_blocks * opt.block) + wb::ceil_div<int64_t>(tree_blocks, opt.block) + 10;
    auto check = [&truth, &s, d](int parity) {
      float v = 0;
      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
      return judge_sum(v, truth, parity, compensated_bound(truth, parity, d), nullptr);
    };
    bench.run({"float_kahan", n, opt.block, 0, 0, wb::blocks_per_sm(float_kahan, opt.block), grid_config(tree_blocks)},
              [&] { launch_kahan(in.d, s, tree_blocks); }, s.sum.get(), 4, check, true);
  }
  if (runs(opt.variant, "pairwise")) {
    const double depth = Depths::levels(n) * chunk_level_depth(ChunkOrder::Pairwise);
    bench.run({"float_pairwise", n, kChunkBlock, 0, 0, 0, "chunk=" + std::to_string(kChunk)},
              [&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); }, s.sum.get(), 4,
              sum_check(depth, pair_bits), true);
  }
  if (runs(opt.variant, "exact")) {
    bench.run({"float_exact", n, kExactBlock, 0, 0, wb::blocks_per_sm(float_exact, kExactBlock), "bins=9"},
              [&] { launch_exact(in.d, s); }, s.sum.get(), 4, sum_check(0, truth.rounded), true);
  }
  if (runs(opt.variant, "cub")) {
    const std::string cub_config = wb::with_cub_version("", wb::cub_version);  // "cub=3.5.0"
    size_t temp_bytes = 0;
    WB_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.d, s.sum.get(), n));
    wb::DeviceBuffer<char> temp(temp_bytes, "CUB's temporary storage");
    const double depth = double(cub_depth(n, dev.sms));
    bench.run({"cub_device_reduce_sum", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, in.d, s.sum.get(), n)); }, s.sum.get(), 4,
              sum_check(depth, nullptr), true);
#if WB_CUB_DETERMINISM
    // not_guaranteed: atomics across blocks, so up to one addition per block more.
    bench.run({"cub_sum_not_guaranteed", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<0>())); },
              s.sum.get(), 4, sum_check(depth + double(n / 256), nullptr), false);
    bench.run({"cub_sum_run_to_run", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<1>())); },
              s.sum.get(), 4, sum_check(depth, nullptr), true);
    // gpu_to_gpu: a reproducible accumulator (binned, Demmel and Nguyen's); its documented error
    // is far below the recursive bound, which is what it is held to here.
    bench.run({"cub_sum_gpu_to_gpu", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<2>())); },
              s.sum.get(), 4, sum_check(depth, nullptr), true, Excuse::LibraryDefect);
#endif
  }
  if (with_scan) {
    ScanBuffers scan(n);
    ScanTruth scan_truth;
    make_scan_truth(scan_truth, in);
    const std::string tile_config = "tile=" + std::to_string(kScanTile);
    bench.run({"float_scan_single_pass", n, kScanBlock, kScanItems, 8.0 * double(n),
               wb::blocks_per_sm(float_scan<false>, kScanBlock), tile_config},
              [&] { scan.launch(false, in.d, n); }, scan.out.get(), size_t(n) * 4,
              [&](int parity) {
                return judge_scan(scan.out.get(), n, scan_truth, in, parity, float_scan_depth, scan.hash.get());
              },
              false);
    bench.run({"float_scan_deterministic", n, kScanBlock, kScanItems, 8.0 * double(n),
               wb::blocks_per_sm(float_scan<true>, kScanBlock), tile_config},
              [&] { scan.launch(true, in.d, n); }, scan.out.get(), size_t(n) * 4,
              [&](int parity) {
                return judge_scan(scan.out.get(), n, scan_truth, in, parity, exact_scan_depth, scan.hash.get());
              },
              true);
  }
  return bench.finish();
}
