/// @file vectorized_int4.cu
/// @brief Chapter 10: 16-byte loads (int4) over the aligned body of the input, with a scalar
/// head and tail around it, so any N and any alignment are right.
///
/// The idea: chapter 09 moved 4 bytes per load instruction. An `int4` load moves 16, so the
/// same bytes take a quarter of the load instructions, and every register of a batch in
/// flight carries four elements' worth of them. A 16-byte load must start at a 16-byte-aligned
/// address, and the input is only guaranteed 4-byte alignment (--offset 1..3 moves it off the
/// boundary), so the array is read in three parts: a head of 0-3 elements up to the first
/// 16-byte boundary, a body of whole int4s, and a tail of the 0-3 elements after the last
/// whole int4. No load ever reaches past the last element.
///
/// What it teaches: how to vectorise a stream safely for any length and any alignment, and
/// what it takes to reach the memory's bandwidth: enough independent bytes in flight on every
/// SM, at little cost in instructions.
///
/// Since chapter 09: the tile is `block` x K int4s instead of `block` x K ints, and K
/// (--batch) counts int4 loads per thread. It is a template parameter, so the K loads are
/// unrolled into registers and all issued before the first add; --batch picks the compiled
/// instance (a power of two from 1 to 16). Block 0 adds the head and the tail. The grid, the
/// block sum and the atomicAdd per block are chapter 09's.

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 from 32 to 1024 works.
constexpr int kBlock = 256;
/// int4 loads per thread per tile (K) by default: 64 bytes per thread, so a full SM (2048
/// threads) has 128 KB on its way from memory.
constexpr int kBatch = 4;
/// The largest K accepted (each power of two from 1 to this one has a compiled kernel).
constexpr int kMaxBatch = 16;
/// The largest block accepted, for the launch bounds.
constexpr int kMaxBlock = 1024;
/// Every lane of the warp takes part in each warp-level operation.
constexpr unsigned kFullMask = 0xffffffffu;

/// The sum of `v` over the 32 lanes of a full warp (chapter 07), in lane 0 at least:
/// one `__reduce_add_sync` on sm_80 and newer, the shuffle tree on sm_75, which lacks it.
__device__ int warp_sum(int v) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, v);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
#endif
}

/// The sum of `v` over the whole block, returned in thread 0 (chapter 07). blockDim.x must be
/// a multiple of 32; every thread of the block must call it, since it contains a barrier.
__device__ int block_sum(int v) {
  __shared__ int warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  // Warp 0 sums the totals. With fewer than 32 warps its upper lanes add 0: those slots of
  // warp_totals were never written in this block.
  if (warp == 0) v = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0);
  return v;
}

// [split]
/// How n ints starting at `in` divide around their 16-byte-aligned middle.
struct AlignedSplit {
  int64_t head;     ///< scalar elements before the first 16-byte boundary (0 to 3)
  int64_t vectors;  ///< whole int4s from that boundary on
  int64_t tail;     ///< scalar elements after the last whole int4 (0 to 3)
};

/// Split n ints at `in` (4-byte aligned, as every int pointer is) into head, int4 body and
/// tail. The body starts at in + head, which is 16-byte aligned.
__host__ __device__ inline AlignedSplit split_aligned(const int* in, int64_t n) {
  const int64_t to_boundary = int64_t((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / 4;
  const int64_t head = to_boundary < n ? to_boundary : n;
  const int64_t vectors = (n - head) / 4;
  return {head, vectors, n - head - 4 * vectors};
}
// [split]

// [kernel]
/// Sum tiles of blockDim.x x K int4s of the aligned body, tiles b, b + grid, ... for block b,
/// plus the scalar head and tail in block 0, then the block's threads, and add the block's
/// sum to `*sum`, which the launcher has zeroed.
template <int K>
__global__ void __launch_bounds__(kMaxBlock, 1) reduce_vectorized(const int* __restrict__ in, int64_t n, int* sum) {
  const AlignedSplit split = split_aligned(in, n);
  const int4* body = reinterpret_cast<const int4*>(in + split.head);
  const unsigned tid = threadIdx.x;
  const int stride = blockDim.x;  // between a thread's consecutive int4s in a tile
  const int64_t tile = int64_t(stride) * K;
  const int64_t grid_stride = int64_t(gridDim.x) * tile;
  int total = 0;
  if (blockIdx.x == 0) {
    if (tid < split.head) total += in[tid];
    if (tid < split.tail) total += in[n - split.tail + tid];
  }
  // One tile per trip: K, not the compiler's unrolling, sets how much is in flight.
#pragma unroll 1
  for (int64_t start = int64_t(blockIdx.x) * tile; start < split.vectors; start += grid_stride) {
    if (start + tile <= split.vectors) {
      // [batch]
      // A whole tile: all K loads are issued before the first add.
      const int4* p = body + start + tid;
      int4 x[K];
#pragma unroll
      for (int k = 0; k < K; ++k) x[k] = p[k * stride];
#pragma unroll
      for (int k = 0; k < K; ++k) total += x[k].x + x[k].y + x[k].z + x[k].w;
      // [batch]
    } else {
      // The last tile stops at the end of the body.
      for (int64_t i = start + tid; i < split.vectors; i += stride) {
        const int4 x = body[i];
        total += x.x + x.y + x.z + x.w;
      }
    }
  }
  total = block_sum(total);
  if (tid == 0) atomicAdd(sum, total);
}
// [kernel]

/// The signature every instance of the kernel shares.
using ReduceKernel = void (*)(const int* in, int64_t n, int* sum);

/// The compiled instance for K = batch (a power of two from 1 to kMaxBatch, which the
/// command line has already checked).
ReduceKernel kernel_for(int batch) {
  static_assert(kMaxBatch == 16, "one case per power of two up to kMaxBatch");
  switch (batch) {
    case 1: return reduce_vectorized<1>;
    case 2: return reduce_vectorized<2>;
    case 4: return reduce_vectorized<4>;
    case 8: return reduce_vectorized<8>;
    default: return reduce_vectorized<16>;
  }
}

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum`: zero it, then launch one block per tile
/// of `block` x `batch` int4s, but no more than `max_blocks` (one resident wave); past that,
/// blocks take several tiles in turn. A body too short for one tile still gets one block, for
/// the head and tail.
void launch_vectorized(const int* in, int64_t n, int* sum, int block, int batch, int64_t max_blocks) {
  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));
  const int64_t tiles = wb::ceil_div<int64_t>(split_aligned(in, n).vectors, int64_t(block) * batch);
  const int64_t blocks = std::max<int64_t>(1, std::min(tiles, max_blocks));
  kernel_for(batch)<<<unsigned(blocks), block>>>(in, n, sum);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "10";
  spec.slug = "vectorized-int4";
  spec.idea = "16-byte int4 loads over the aligned body, scalar head and tail (--batch K = int4 loads per thread)";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, kMaxBlock};
  spec.batch = {kBatch, kMaxBatch, true, "16-byte int4 loads (4 elements each) per thread"};
  spec.kernels = {"reduce_vectorized"};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  const int occupancy = wb::blocks_per_sm(kernel_for(opt.batch), opt.block);
  const int64_t max_blocks = int64_t(dev.sms) * occupancy;
  wb::Case c{"reduce_vectorized", in.n, opt.block, opt.batch, 0, occupancy};
  bench.run(c, [&] { launch_vectorized(in.d, in.n, sum.get(), opt.block, opt.batch, max_blocks); }, sum.get(),
            &want, 1);
  return bench.finish();
}
