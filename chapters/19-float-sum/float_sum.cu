/// @file float_sum.cu
/// @brief Chapter 19: the order of a float sum. Accuracy, the same bits on every run, grid and
/// GPU, and a correctly rounded sum at memory speed.
///
/// Float addition rounds, so a float sum depends on the order of its additions, and a GPU picks
/// that order from its grid, its atomics and its scheduling. Every variant sums the same float32
/// input (made on the device from (seed, i), as the host makes it) and must land within the
/// error bound of its own order, |s - S| <= gamma(depth) * sum |x| (Higham), where S is the exact
/// sum that the CPU computes without rounding (ExactSum) and depth the longest chain of additions;
/// the report gives the error in ulps and counts the bit patterns of the runs.
/// - `atomic`: chapter 08's one pass with a float atomicAdd per block: other bits on each run.
/// - `tree`: chapter 11's tree, the blocks' sums combined in a fixed order: the same bits on
///   every run of one grid, other bits on another grid (its second row).
/// - `reproducible`: an order fixed by N alone (chunks of 8192 elements summed warp by warp,
///   level after level): the same bits on any grid and GPU, and on the CPU.
/// - `kahan`: Kahan-Babuska-Neumaier in registers, then a compensated combine.
/// - `pairwise`: the reproducible order with a pairwise tree in each lane: depth log2(N).
/// - `exact`: correctly rounded. Each thread adds its floats into double bins where no addition
///   rounds and folds them into a 320-bit integer; the blocks add theirs into the grid's 32-bit
///   chunks, and the last block rounds the total once: the bits of ExactSum's rounding.
/// - `cub`: cub::DeviceReduce::Sum, and CUB's three determinism levels where the build has them.
/// - `scan`: chapter 17's single pass on floats, in its look-back order (other bits on each run)
///   and folding forward, ((P(j) + A(j+1)) + ...) + A(t-1), which is P(t-1) whatever tile j the
///   look-back found: the same bits on every run and GPU, which the CPU emulates.
///
/// The harness is float_check.cuh: FloatBench checks each result against its bound and counts
/// bit patterns, compares the orders fixed by N with the CPU bit for bit, tests IEEE's special
/// values (`--input subnormal`, `special`, `negzero`) and prints the page's data (`--study`).
/// The orders' constants and the arithmetic that the CPU replays are in float_order.cuh.

#include <cub/cub.cuh>

#include "wb_float.h"
#include "workbook.cuh"
#include "float_order.cuh"  // the constants of each order and the arithmetic the CPU replays

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
