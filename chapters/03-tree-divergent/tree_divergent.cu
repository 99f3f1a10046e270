/// @file tree_divergent.cu
/// @brief Chapter 03: a shared-memory tree per block, relaunched on the block sums until one value is left.
///
/// The idea: no atomics at all. Each block loads one element per thread into shared memory
/// and adds pairs in log2(block) steps, like the rounds of a knockout tournament: at the step
/// with stride s, every thread whose index is a multiple of 2s adds the value s places to its
/// right. Thread 0 writes the block's sum to an array of partial sums; the launcher runs the
/// same kernel on those partials, and again on theirs, until one block is left, and that
/// block writes the answer.
///
/// What it teaches: `tid % (2 * stride) == 0` chooses threads spread across every warp, so every
/// step keeps every warp of the block busy although most of their lanes sit idle. The source
/// branches per thread, but the compiler turns the guarded add into predicated instructions: the
/// warps do not diverge (the counters show no divergent branch); they issue every step with most
/// lanes masked off, and the modulo costs more than the add it guards. Chapter 04 drops the modulo
/// and packs the working threads into as few warps as possible.
///
/// Since chapter 02: the atomics are gone, and with them the zeroed counter; instead the
/// launcher makes several passes, ping-ponging between two scratch buffers. The order of the
/// adds is now fixed, so the result would be the same on every run even for floating point.

#include "workbook.cuh"

/// Threads per block by default; any power of two from 32 to 1024 works.
constexpr int kBlock = 256;

// [kernel]
/// Sum one element per thread over the block with a tree in shared memory (`blockDim.x` ints
/// of dynamic shared memory), and write the block's sum to `partials[blockIdx.x]`.
/// blockDim.x must be a power of two, so that every step pairs up all the remaining values.
__global__ void reduce_tree_divergent(const int* in, int64_t n, int* partials) {
  extern __shared__ int s[];
  const unsigned tid = threadIdx.x;
  // [load]
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0;  // the last block may run past the end: its extra threads add 0
  // [load]
  __syncthreads();
  // [step]
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    // Threads 0, 2s, 4s, ... each add the value s places away: the working lanes are spread
    // over every warp, so every warp executes the step (predicated) while most of its lanes wait.
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  // [step]
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [kernel]

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum`. Each pass turns `count` values into
/// ceil(count / block) partial sums, one per block, until a pass needs a single block; that
/// pass writes straight into `*sum`. The passes alternate between two scratch buffers (of
/// ceil(n / block) and ceil(ceil(n / block) / block) ints), so no pass writes what it reads and
/// the input is never written. The first pass has the most blocks: at most 2^30 for an N that
/// fits in memory (2^35) at the smallest block (32), well under the 2^31 - 1 limit.
void launch_tree_divergent(const int* in, int64_t n, int* sum, int* scratch_a, int* scratch_b, int block) {
  const size_t smem = size_t(block) * sizeof(int);
  const int* src = in;
  int64_t count = n;
  int* dst = scratch_a;
  int* spare = scratch_b;
  for (;;) {
    const int64_t blocks = wb::ceil_div<int64_t>(count, block);
    int* out = blocks == 1 ? sum : dst;
    reduce_tree_divergent<<<unsigned(blocks), block, smem>>>(src, count, out);
    if (blocks == 1) return;
    src = out;
    count = blocks;
    std::swap(dst, spare);
  }
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "03";
  spec.slug = "tree-divergent";
  spec.idea = "a shared-memory tree per block (interleaved, divergent), relaunched until one value remains";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::PowerOfTwo, kBlock, 32, 1024};
  spec.kernels = {"reduce_tree_divergent"};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4 + 4.0 / opt.block);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const size_t smem = size_t(opt.block) * sizeof(int);
  const int64_t partials = wb::ceil_div<int64_t>(in.n, opt.block);
  wb::DeviceBuffer<int> sum(1, "the sum");
  wb::DeviceBuffer<int> scratch_a(size_t(partials), "the partial sums of passes 1, 3, 5, ...");
  wb::DeviceBuffer<int> scratch_b(size_t(wb::ceil_div<int64_t>(partials, opt.block)),
                                  "the partial sums of passes 2, 4, 6, ...");

  wb::Bench bench(spec, opt, dev, in);
  wb::Case c{"reduce_tree_divergent", in.n, opt.block, 1, 0,
             wb::blocks_per_sm(reduce_tree_divergent, opt.block, smem)};
  bench.run(c, [&] {
    launch_tree_divergent(in.d, in.n, sum.get(), scratch_a.get(), scratch_b.get(), opt.block);
  }, sum.get(), &want, 1);
  return bench.finish();
}
