/// @file float_order.cuh
/// @brief Chapter 19's orders of addition as code that the GPU and the CPU both run: the
/// constants that fix each order, float additions that the compiler may not fuse or reorder,
/// the compensated pair, the exact sum's 320-bit chunks, and the pieces of the grid-dependent
/// sums (the aligned split, the warp, block and thread sums). float_sum.cu's kernels include
/// it, and float_check.cuh's emulations on the CPU replay the same functions. Include it after
/// workbook.cuh and wb_float.h, as float_sum.cu does: a mutation test that patches wb_float.h
/// copies it beside the program, and only the program's own include finds that copy.
#pragma once

#include <cmath>
#include <cstdint>

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
