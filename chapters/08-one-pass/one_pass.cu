/// @file one_pass.cu
/// @brief Chapter 08: one launch instead of two; the blocks combine their sums themselves.
///
/// The idea: chapter 07's second pass is a whole kernel launch, in which a single block reads
/// the partial sums of pass 1, one per block (about 4M at N = 2^30 with 256 threads). The
/// blocks of the first pass can finish the job themselves, in two ways:
/// - `atomic`: each block adds its sum to `*sum` with one `atomicAdd`. The launcher clears
///   `*sum` first with `cudaMemsetAsync`, inside the timed region: clearing it inside the
///   kernel would race with the other blocks' atomics (see the page).
/// - `last_block`: each block writes its sum to `partials[blockIdx.x]`, makes it visible with
///   `__threadfence()`, and draws a ticket from a counter with `atomicAdd`. The block that draws
///   the last ticket knows that every partial is written; it sums them in a fixed order, writes
///   `*sum` and puts the counter back to 0 for the next launch. No memset, and the same order
///   of additions in every run, whichever block finishes last; but that one block still reads
///   every partial alone, as chapter 07's second pass did.
///
/// What it teaches: blocks cannot wait for each other, but they can count. An atomic counter
/// plus memory fences lets the last block to finish act on everyone's results, within one
/// launch. Mistakes here are races between blocks in global memory, which compute-sanitizer's
/// racecheck cannot see (it watches shared memory only) and which may show once in many runs:
/// the tests run both variants 100 times and check the result after the first and the last.
///
/// Since chapter 07: block_sum() is chapter 07's, with one warp sum (`__reduce_add_sync`,
/// or the shuffle tree on sm_75). The second launch is gone; the kernels end with an
/// atomicAdd, or with the ticket and the last block's sum. Block sizes: multiples of 32
/// from 32 to 1024.

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 from 32 to 1024 works.
constexpr int kBlock = 256;
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

// [atomic]
/// Sum a grid-stride share of `in` per thread, then the block's threads, and add the block's
/// sum to `*sum`, which the launcher has zeroed: one atomicAdd per block.
__global__ void reduce_one_pass_atomic(const int* in, int64_t n, int* sum) {
  const unsigned tid = threadIdx.x;
  const int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;  // a thread past the end keeps 0
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];
  total = block_sum(total);
  if (tid == 0) atomicAdd(sum, total);
}
// [atomic]

// [last_block]
/// Sum a grid-stride share of `in` per thread, then the block's threads, and write the
/// block's sum to `partials[blockIdx.x]`. The last block to finish sums all the partials into
/// `*sum` and resets `*blocks_done`, which must be 0 when the kernel starts.
__global__ void reduce_one_pass_last_block(const int* in, int64_t n, int* partials, unsigned* blocks_done,
                                           int* sum) {
  __shared__ bool is_last;
  const unsigned tid = threadIdx.x;
  const int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;  // a thread past the end keeps 0
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];
  total = block_sum(total);

  // [ticket]
  if (tid == 0) {
    partials[blockIdx.x] = total;
    // Release: the partial must be visible to the whole GPU before the ticket that announces it.
    __threadfence();
    const unsigned ticket = atomicAdd(blocks_done, 1u);
    const bool last = ticket == gridDim.x - 1;
    // Acquire: the last block's reads of the partials must not be served before its ticket.
    if (last) __threadfence();
    is_last = last;
  }
  // Also separates the first block_sum's reads of its shared totals from the second one's writes.
  __syncthreads();
  // [ticket]

  if (is_last) {
    // Every block has written its partial. The whole block adds them up in a fixed tree
    // order, so the result does not depend on which block happened to finish last. There is
    // one partial per blockDim.x elements: at large N this loop is chapter 07's second pass,
    // and it costs as much.
    total = 0;
    for (int64_t i = tid; i < gridDim.x; i += blockDim.x) total += partials[i];
    total = block_sum(total);
    if (tid == 0) {
      *sum = total;
      *blocks_done = 0;  // ready for the next launch, which is ordered after this one
    }
  }
}
// [last_block]

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum` in one launch. It gives every thread
/// one element (ceil(n / block) blocks, capped at `max_blocks`, the most one launch takes;
/// the grid-stride loop covers anything past that) and adds each block's sum to `*sum` with
/// one atomicAdd. Clearing `*sum` is part of the algorithm, so it is done (and timed) here.
void launch_one_pass_atomic(const int* in, int64_t n, int* sum, int block, int64_t max_blocks) {
  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  reduce_one_pass_atomic<<<unsigned(blocks), block>>>(in, n, sum);
}

/// Reduce the `n` >= 1 elements of `in` into `*sum` in one launch whose last block finishes
/// the sum; the grid is the atomic variant's. `scratch` holds `max_blocks` ints; `blocks_done`
/// is 0 before the first launch and left at 0 by every launch, so nothing has to be cleared
/// here. A grid has fewer than 2^31 blocks, so every ticket fits the unsigned counter.
void launch_one_pass_last_block(const int* in, int64_t n, int* sum, int* scratch, unsigned* blocks_done, int block,
                                int64_t max_blocks) {
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  reduce_one_pass_last_block<<<unsigned(blocks), block>>>(in, n, scratch, blocks_done, sum);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "08";
  spec.slug = "one-pass";
  spec.idea = "one launch: blocks combine their sums with an atomicAdd, or the last block to finish adds them";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.variants = {{"atomic", {"reduce_one_pass_atomic"}}, {"last_block", {"reduce_one_pass_last_block"}}};
  spec.variants.push_back(wb::every_variant(spec.variants));

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  if (opt.variant == "atomic" || opt.variant == "all") {
    const int occupancy = wb::blocks_per_sm(reduce_one_pass_atomic, opt.block);
    wb::Case c{"reduce_one_pass_atomic", in.n, opt.block, 0, 0, occupancy};
    bench.run(c, [&] { launch_one_pass_atomic(in.d, in.n, sum.get(), opt.block, max_blocks); }, sum.get(), &want, 1);
  }
  if (opt.variant == "last_block" || opt.variant == "all") {
    const int occupancy = wb::blocks_per_sm(reduce_one_pass_last_block, opt.block);
    wb::DeviceBuffer<int> scratch(size_t(max_blocks), "the partial sums");
    wb::DeviceBuffer<unsigned> blocks_done(1, "the count of finished blocks");
    WB_CHECK(cudaMemset(blocks_done.get(), 0, sizeof(unsigned)));  // once; every launch leaves it at 0
    wb::Case c{"reduce_one_pass_last_block", in.n, opt.block, 0, 0, occupancy};
    auto launch = [&] {
      launch_one_pass_last_block(in.d, in.n, sum.get(), scratch.get(), blocks_done.get(), opt.block, max_blocks);
    };
    bench.run(c, launch, sum.get(), &want, 1);
  }
  return bench.finish();
}
