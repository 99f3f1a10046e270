/// @file reduce_best.cuh
/// @brief Chapter 11's sum: the workbook's best reduction kernel (one launch, no memset, an
/// int4 body shared evenly among one wave of blocks) with its plan and launcher.
///
/// Chapter 11's program includes it, and so does chapter 18's, which sums each GPU's shard
/// with the same kernel: that is why it is a header and not part of the chapter's .cu.
#pragma once

#include "workbook.cuh"


/// Threads per block unless --block says otherwise (tuned for N = 2^30 on the H200).
constexpr int kBlock = 256;
/// int4 loads per thread per tile (K) unless --batch says otherwise: 16 elements per thread,
/// a 4096-element tile per block, as CUB's own tuning for int32 on this GPU.
constexpr int kBatch = 4;
/// The largest K accepted (powers of two from 1 to this one have a compiled kernel).
constexpr int kMaxBatch = 16;
/// The largest block accepted, for the launch bounds.
constexpr int kMaxBlock = 1024;
/// The unit in which the body is shared among blocks: 32 int4s (512 bytes), one warp-wide
/// load. Shares start on chunk boundaries, so no warp load straddles two shares.
constexpr int64_t kChunk = 32;
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

/// How n ints starting at `in` divide around their 16-byte-aligned middle (chapter 10).
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

/// How one launch shares the int4 body among its blocks, in chunks of kChunk int4s: every
/// block gets `chunks_per_block` chunks and the first `extra_chunks` blocks one more. The
/// host works it out once per launch, so the kernel needs no 64-bit division.
struct Plan {
  int64_t blocks;            ///< the grid
  int64_t chunks_per_block;  ///< chunks every block reads
  int64_t extra_chunks;      ///< blocks that read one chunk more
};

/// What the blocks of a launch share to combine their totals without a second kernel. It is
/// zero before every launch: zeroed once when allocated, then left zero by the last block.
struct GridTotal {
  int sum;               ///< the totals of the blocks that have added theirs so far
  unsigned blocks_done;  ///< how many blocks have added their total
};

// [kernel]
/// Sum in[0, n) into `*sum` in one launch, with nothing to prepare: K int4 loads per thread
/// per tile over this block's share of the aligned body, the scalar head and tail in block 0,
/// one block reduction, then the last block to arrive writes the grid's total.
template <int K>
__global__ void __launch_bounds__(kMaxBlock, 1)
    reduce_best(const int* __restrict__ in, int64_t n, Plan plan, GridTotal* grid_total, int* sum) {
  const AlignedSplit split = split_aligned(in, n);
  const int4* body = reinterpret_cast<const int4*>(in + split.head);
  const unsigned tid = threadIdx.x;
  const int stride = blockDim.x;  // between a thread's consecutive int4s in a tile
  const int64_t tile = int64_t(stride) * K;

  // [share]
  // This block's share: [begin, end) in int4s. Only the share holding the end of the body
  // is cut short, at the body's last int4.
  const int64_t b = blockIdx.x;
  const int64_t first_chunk = b * plan.chunks_per_block + (b < plan.extra_chunks ? b : plan.extra_chunks);
  const int64_t chunks = plan.chunks_per_block + (b < plan.extra_chunks ? 1 : 0);
  const int64_t begin = first_chunk * kChunk;
  const int64_t share_end = (first_chunk + chunks) * kChunk;
  const int64_t end = share_end < split.vectors ? share_end : split.vectors;
  // [share]

  int total = 0;
  if (b == 0) {
    if (tid < split.head) total += in[tid];
    if (tid < split.tail) total += in[n - split.tail + tid];
  }
  const int4* p = body + begin + tid;  // this thread's first int4 of the next tile
  int64_t left = end - begin;           // int4s of the share that no tile has read yet
  // One tile per trip: K sets how much is in flight, not the compiler's unrolling.
#pragma unroll 1
  for (; left >= tile; left -= tile, p += tile) {
    int4 x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = p[k * stride];
#pragma unroll
    for (int k = 0; k < K; ++k) total += x[k].x + x[k].y + x[k].z + x[k].w;
  }
  // What is left of the share is less than a tile: the same loads, each checked against it.
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (tid + k * stride < left) {
      const int4 x = p[k * stride];
      total += x.x + x.y + x.z + x.w;
    }
  }
  total = block_sum(total);
  if (tid != 0) return;  // past the last barrier: thread 0 alone combines

  // [combine]
  if (gridDim.x == 1) {
    *sum = total;  // nobody to combine with
    return;
  }
  atomicAdd(&grid_total->sum, total);
  __threadfence();  // our add is visible to every block before we count ourselves done
  if (atomicAdd(&grid_total->blocks_done, 1u) == gridDim.x - 1) {
    // The last block: every other block added its total before it counted itself done.
    __threadfence();  // so their adds are visible to the exchange below
    *sum = atomicExch(&grid_total->sum, 0);
    grid_total->blocks_done = 0;  // no block of this launch touches it again
  }
  // [combine]
}
// [kernel]

/// The signature every instance of the kernel shares.
using ReduceKernel = void (*)(const int* in, int64_t n, Plan plan, GridTotal* grid_total, int* sum);

/// The compiled instance for K = batch (a power of two from 1 to kMaxBatch, which the
/// command line has already checked).
ReduceKernel kernel_for(int batch) {
  static_assert(kMaxBatch == 16, "one case per power of two up to kMaxBatch");
  switch (batch) {
    case 1: return reduce_best<1>;
    case 2: return reduce_best<2>;
    case 4: return reduce_best<4>;
    case 8: return reduce_best<8>;
    default: return reduce_best<16>;
  }
}

// [launcher]
/// The grid and the shares for n ints: one block per tile of `block` x `batch` int4s, so a
/// small input is one small launch, but no more than `max_blocks` (one resident wave).
Plan plan_best(const int* in, int64_t n, int block, int batch, int64_t max_blocks) {
  const int64_t vectors = split_aligned(in, n).vectors;
  const int64_t chunks = wb::ceil_div(vectors, kChunk);
  const int64_t tiles = wb::ceil_div(vectors, int64_t(block) * batch);
  // A tile holds at least one chunk (block >= 32), so every block gets at least one chunk.
  const int64_t blocks = std::max<int64_t>(1, std::min(tiles, max_blocks));
  return {blocks, chunks / blocks, chunks % blocks};
}

/// One launch of the workbook's best kernel; `grid_total` must be zero, and is left zero.
/// It goes to `stream` (chapter 11: the legacy default stream; chapter 18: each GPU's own).
void launch_best(const int* in, int64_t n, int* sum, GridTotal* grid_total, int block, int batch,
                 int64_t max_blocks, cudaStream_t stream = 0) {
  const Plan plan = plan_best(in, n, block, batch, max_blocks);
  kernel_for(batch)<<<unsigned(plan.blocks), block, 0, stream>>>(in, n, plan, grid_total, sum);
}

// [launcher]
