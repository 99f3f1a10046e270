/// @file warp_unroll.cu
/// @brief Chapter 06: the last warp finishes the tree without block barriers, and the block
/// size becomes a template parameter so the whole tree unrolls.
///
/// The idea: in chapter 05's tree, every step ends with `__syncthreads()`, even the last five,
/// where only the threads of warp 0 still work. A warp needs no block-wide barrier to
/// coordinate its own 32 lanes, only a warp barrier: `__syncwarp()`. So the block-wide
/// steps stop when 64 values remain, and warp 0 adds them down to one through a `volatile`
/// pointer (every access really goes to shared memory) with a `__syncwarp()` after each
/// step. With the block size known at compile time, every loop has a constant trip count
/// and is unrolled completely.
///
/// What it teaches: what a warp may and may not assume about its own lanes. Since Volta,
/// lanes are scheduled independently; `__syncwarp()` is what orders one lane's shared
/// memory write before another lane's read.
///
/// Since chapter 05: the kernel is a template on the block size (a `switch` maps --block to
/// an instance), the shared array has a fixed size, the block-wide loop stops at 64 values,
/// and the last six steps run in warp 0 alone. Block sizes: powers of two from 64 to 1024.
///
/// Racecheck exercise: `--racy` runs the same kernel without the `__syncwarp()` calls.
/// `compute-sanitizer --tool racecheck --racecheck-report all ./chapter06 --racy --n 2^12`
/// reports the shared-memory hazards between the lanes of warp 0, although the sum is
/// usually still right; without `--racy` racecheck reports none.

#include "workbook.cuh"

/// Threads per block by default; any power of two from 64 to 1024 works.
constexpr int kBlock = 256;

// [kernel]
/// Sum a grid-stride share of `in` per thread, then the block's threads with a tree in shared
/// memory whose last six steps warp 0 takes alone, and write the block's sum to
/// `partials[blockIdx.x]`. Launch with exactly kThreads threads. kRacy leaves out the warp
/// barriers of those last steps: it is the racecheck exercise, not something to copy.
template <int kThreads, bool kRacy>
__global__ void reduce_warp_unroll(const int* in, int64_t n, int* partials) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0,
                "the tree halves a power of two and hands warp 0 exactly 64 values");
  __shared__ int s[kThreads];
  const unsigned tid = threadIdx.x;
  // [load]
  const int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;  // a thread past the end keeps 0
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];
  s[tid] = total;
  // [load]
  __syncthreads();
  // [step]
#pragma unroll
  for (unsigned stride = kThreads / 2; stride >= 64; stride /= 2) {
    // While 64 or more values remain, the two halves span several warps: every step needs
    // the block-wide barrier. kThreads is a constant, so this loop unrolls completely.
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  // [step]
  // [warp]
  // Warp 0 adds the last 64 values down to one. All 32 lanes run every step, so that each
  // __syncwarp() has the whole warp; only the adds are guarded.
  if (tid < 32) {
    volatile int* v = s;  // every access goes to shared memory, none stays in a register
#pragma unroll
    for (unsigned stride = 32; stride > 0; stride /= 2) {
      if (tid < stride) v[tid] += v[tid + stride];
      // A lane's write in this step must be visible to the lane that reads it in the next.
      if constexpr (!kRacy) __syncwarp();
    }
    if (tid == 0) partials[blockIdx.x] = v[0];
  }
  // [warp]
}
// [kernel]

/// A pass of the reduction: (input, its length, one partial sum per block).
using ReduceKernel = void (*)(const int*, int64_t, int*);

// [dispatch]
/// The instance of reduce_warp_unroll for a block size chosen at run time.
/// parse_or_exit() has already refused every size without a case here.
template <bool kRacy>
ReduceKernel warp_unroll_instance(int block) {
  switch (block) {
    case 64: return reduce_warp_unroll<64, kRacy>;
    case 128: return reduce_warp_unroll<128, kRacy>;
    case 256: return reduce_warp_unroll<256, kRacy>;
    case 512: return reduce_warp_unroll<512, kRacy>;
    case 1024: return reduce_warp_unroll<1024, kRacy>;
    default: return nullptr;
  }
}

/// The kernel for --block and --racy.
ReduceKernel warp_unroll_kernel(int block, bool racy) {
  return racy ? warp_unroll_instance<true>(block) : warp_unroll_instance<false>(block);
}
// [dispatch]

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum` in two passes. Pass 1 gives every thread
/// one element (ceil(n / block) blocks, capped at `max_blocks`, the most one launch takes;
/// the grid-stride loop covers anything past that) and writes one partial sum per block to
/// `scratch` (which holds `max_blocks` ints). Pass 2 is a single block that grid-strides over
/// those partials and writes `*sum`. The input is never written.
void launch_warp_unroll(const int* in, int64_t n, int* sum, int* scratch, int block, int64_t max_blocks, bool racy) {
  const ReduceKernel kernel = warp_unroll_kernel(block, racy);
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  kernel<<<unsigned(blocks), block>>>(in, n, scratch);
  kernel<<<1, block>>>(scratch, blocks, sum);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "06";
  spec.slug = "warp-unroll";
  spec.idea = "warp 0 finishes the tree with __syncwarp, and a template block size unrolls it completely";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::PowerOfTwo, kBlock, 64, 1024};
  spec.kernels = {"reduce_warp_unroll"};
  spec.racy = true;

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const ReduceKernel kernel = warp_unroll_kernel(opt.block, opt.racy);
  const int occupancy = wb::blocks_per_sm(kernel, opt.block);
  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);
  wb::DeviceBuffer<int> sum(1, "the sum");
  wb::DeviceBuffer<int> scratch(size_t(max_blocks), "the partial sums of pass 1");

  wb::Bench bench(spec, opt, dev, in);
  wb::Case c{opt.racy ? "reduce_warp_unroll_racy" : "reduce_warp_unroll", in.n, opt.block, 0, 0, occupancy};
  bench.run(c, [&] { launch_warp_unroll(in.d, in.n, sum.get(), scratch.get(), opt.block, max_blocks, opt.racy); },
            sum.get(), &want, 1);
  return bench.finish();
}
