/// @file tree_strided_index.cu
/// @brief Chapter 04: the same tree, its pairs handed to consecutive threads: no modulo, bank conflicts.
///
/// The idea: chapter 03's tree adds the same pairs, but lets threads 0, 2s, 4s, ... do the work.
/// Here thread t takes the t-th pair of the step, at index = 2 * stride * t, so the working
/// threads are 0, 1, 2, ...: they fill whole warps. The compiler still predicates the guarded
/// add, so every warp issues every step (the counters show no divergent branch either here or in
/// chapter 03); what the step removes is the modulo, most of chapter 03's instructions.
///
/// What it teaches: a cheaper step exposes the next cost. The pairs a warp touches are
/// 2 * stride words apart, so its 32 loads fall into few of shared memory's 32 banks and are
/// replayed one bank-full at a time: a 2-way conflict at the first step, growing to 32-way
/// (with 1024 threads). Chapter 05 changes which pairs are added so that a warp reads 32
/// consecutive words again.
///
/// Since chapter 03: only the step of the tree, which computes index = 2 * stride * tid
/// instead of testing tid % (2 * stride).

#include "workbook.cuh"

/// Threads per block by default; any power of two from 32 to 1024 works.
constexpr int kBlock = 256;

// [kernel]
/// Sum one element per thread over the block with a tree in shared memory (`blockDim.x` ints
/// of dynamic shared memory), and write the block's sum to `partials[blockIdx.x]`.
/// blockDim.x must be a power of two, so that every step pairs up all the remaining values.
__global__ void reduce_tree_strided_index(const int* in, int64_t n, int* partials) {
  extern __shared__ int s[];
  const unsigned tid = threadIdx.x;
  // [load]
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0;  // the last block may run past the end: its extra threads add 0
  // [load]
  __syncthreads();
  // [step]
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    // Thread t adds the t-th pair: the working lanes fill the first warps (the others issue the
    // predicated add with no lane on); a warp's pairs lie 2s words apart, so they share banks.
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] += s[index + stride];
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
void launch_tree_strided_index(const int* in, int64_t n, int* sum, int* scratch_a, int* scratch_b, int block) {
  const size_t smem = size_t(block) * sizeof(int);
  const int* src = in;
  int64_t count = n;
  int* dst = scratch_a;
  int* spare = scratch_b;
  for (;;) {
    const int64_t blocks = wb::ceil_div<int64_t>(count, block);
    int* out = blocks == 1 ? sum : dst;
    reduce_tree_strided_index<<<unsigned(blocks), block, smem>>>(src, count, out);
    if (blocks == 1) return;
    src = out;
    count = blocks;
    std::swap(dst, spare);
  }
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "04";
  spec.slug = "tree-strided-index";
  spec.idea = "the same tree with a strided index: no modulo, but shared-memory bank conflicts";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::PowerOfTwo, kBlock, 32, 1024};
  spec.kernels = {"reduce_tree_strided_index"};

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
  wb::Case c{"reduce_tree_strided_index", in.n, opt.block, 1, 0,
             wb::blocks_per_sm(reduce_tree_strided_index, opt.block, smem)};
  bench.run(c, [&] {
    launch_tree_strided_index(in.d, in.n, sum.get(), scratch_a.get(), scratch_b.get(), opt.block);
  }, sum.get(), &want, 1);
  return bench.finish();
}
