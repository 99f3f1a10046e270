/// @file tree_sequential.cu
/// @brief Chapter 05: a conflict-free halving tree, and a grid-stride load that makes two passes enough.
///
/// The idea: add the upper half of the block's values onto the lower half, then the upper half
/// of what is left, and so on: at the step with stride s, threads 0 .. s-1 add s[tid + s] into
/// s[tid]. A warp reads 32 consecutive words, one per bank, so there are no conflicts, and the
/// working threads still fill whole warps. The load becomes a grid-stride loop: pass 1 still
/// launches one thread per element (the loop runs once), but the same kernel launched as a
/// single block in pass 2 loops over any number of partial sums.
///
/// What it teaches: sequential addressing (Harris's kernel 3), and that a grid-stride loop
/// decouples the grid from N: the multi-pass loop of chapters 03-04 becomes exactly two launches.
///
/// Since chapter 04: the step of the tree (sequential addressing), the grid-stride load, and a
/// launcher with exactly two passes (one scratch buffer).

#include "workbook.cuh"

/// Threads per block by default; any power of two from 32 to 1024 works.
constexpr int kBlock = 256;

// [kernel]
/// Sum a grid-stride share of `in` per thread, then the block's threads with a tree in shared
/// memory (`blockDim.x` ints of dynamic shared memory), and write the block's sum to
/// `partials[blockIdx.x]`. blockDim.x must be a power of two, so that every step halves exactly.
__global__ void reduce_tree_sequential(const int* in, int64_t n, int* partials) {
  extern __shared__ int s[];
  const unsigned tid = threadIdx.x;
  // [load]
  const int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;  // a thread past the end keeps 0
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];
  s[tid] = total;
  // [load]
  __syncthreads();
  // [step]
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    // The first s threads fold the upper half onto the lower: the working lanes fill the first
    // warps, and a warp reads 32 consecutive words, one in each shared-memory bank.
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  // [step]
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [kernel]

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum` in two passes. Pass 1 gives every thread
/// one element (ceil(n / block) blocks, capped at `max_blocks`, the most one launch takes;
/// the grid-stride loop covers anything past that) and writes one partial sum per block to
/// `scratch` (which holds `max_blocks` ints). Pass 2 is a single block that grid-strides over
/// those partials and writes `*sum`. The input is never written.
void launch_tree_sequential(const int* in, int64_t n, int* sum, int* scratch, int block, int64_t max_blocks) {
  const size_t smem = size_t(block) * sizeof(int);
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  reduce_tree_sequential<<<unsigned(blocks), block, smem>>>(in, n, scratch);
  reduce_tree_sequential<<<1, block, smem>>>(scratch, blocks, sum);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "05";
  spec.slug = "tree-sequential";
  spec.idea = "a conflict-free halving tree per block, and a grid-stride load that makes two passes enough";
  spec.op = wb::Op::Reduce;
  spec.block = {wb::BlockRule::PowerOfTwo, kBlock, 32, 1024};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const size_t smem = size_t(opt.block) * sizeof(int);
  const int occupancy = wb::blocks_per_sm(reduce_tree_sequential, opt.block, smem);
  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);
  wb::DeviceBuffer<int> sum(1, "the sum");
  wb::DeviceBuffer<int> scratch(size_t(max_blocks), "the partial sums of pass 1");

  wb::Bench bench(spec, opt, dev, in);
  wb::Case c{"reduce_tree_sequential", in.n, opt.block, 0, 0, occupancy};
  bench.run(c, [&] { launch_tree_sequential(in.d, in.n, sum.get(), scratch.get(), opt.block, max_blocks); },
            sum.get(), &want, 1);
  return bench.finish();
}
