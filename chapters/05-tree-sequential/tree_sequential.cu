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
///
/// Variants (`--variant`), so that each change is measured on its own:
/// - `two_pass` (the default, `reduce_tree_sequential`): the new tree and the two-pass launcher.
/// - `multipass` (`reduce_tree_sequential_multipass`): the new tree with chapter 04's launcher,
///   a loop of passes with one element per thread: it differs from chapter 04 only in the tree,
///   and from `two_pass` only in the launcher.
/// - `first_add` (`reduce_tree_first_add`): Harris's "first add during load" on `multipass`:
///   each thread adds two elements, blockDim.x apart, before the tree, so every pass launches
///   half the blocks. It builds on `multipass`, not `two_pass`, because that is the setting
///   Harris measured it in (kernel 3's launches, one element per thread), and because in
///   `two_pass` the grid-stride loop can already hand a thread several elements: there the
///   change would be a smaller grid, not a new idea.
/// - `all` runs the three in that order.

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

// [multipass_kernel]
/// The `multipass` variant: chapter 04's kernel with this chapter's tree. Sum one element per
/// thread over the block (`blockDim.x` ints of dynamic shared memory) and write the block's sum
/// to `partials[blockIdx.x]`. blockDim.x must be a power of two.
__global__ void reduce_tree_sequential_multipass(const int* in, int64_t n, int* partials) {
  extern __shared__ int s[];
  const unsigned tid = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : 0;  // the last block may run past the end: its extra threads add 0
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [multipass_kernel]

// [first_add_kernel]
/// The `first_add` variant: block b owns a tile of 2 x blockDim.x elements, starting at
/// 2 x blockDim.x x b. Thread t adds elements t and t + blockDim.x of the tile as it loads them
/// (each load of a warp is still 32 neighbouring ints), then the block runs the same tree as
/// `multipass` and writes its sum to `partials[blockIdx.x]`. blockDim.x must be a power of two.
__global__ void reduce_tree_first_add(const int* in, int64_t n, int* partials) {
  extern __shared__ int s[];
  const unsigned tid = threadIdx.x;
  // [first_add]
  const int64_t i = int64_t(blockIdx.x) * (2 * blockDim.x) + tid;
  int pair = i < n ? in[i] : 0;                        // from the tile's first half...
  if (i + blockDim.x < n) pair += in[i + blockDim.x];  // ...plus one from its second: the first add
  s[tid] = pair;
  // [first_add]
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s[0];
}
// [first_add_kernel]

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

// [multipass_launcher]
/// The signature of every kernel here: one pass, from `n` values to one partial sum per block.
using PassKernel = void (*)(const int* in, int64_t n, int* partials);

/// Chapter 04's launcher, for a pass kernel whose blocks each reduce `per_block` elements
/// (`block` for `multipass`, 2 x `block` for `first_add`). Reduce the `n` >= 1 elements of `in`
/// into `*sum`: each pass turns `count` values into ceil(count / per_block) partial sums, one
/// per block, until a pass needs a single block; that pass writes straight into `*sum`. The
/// passes alternate between two scratch buffers (of ceil(n / per_block) and
/// ceil(ceil(n / per_block) / per_block) ints at least), so no pass writes what it reads. The
/// first pass has the most blocks: at most 2^30 for an N that fits in memory (2^35) at the
/// smallest block (32), well under the 2^31 - 1 limit.
void launch_multipass(PassKernel kernel, int per_block, const int* in, int64_t n, int* sum, int* scratch_a,
                      int* scratch_b, int block) {
  const size_t smem = size_t(block) * sizeof(int);
  const int* src = in;
  int64_t count = n;
  int* dst = scratch_a;
  int* spare = scratch_b;
  for (;;) {
    const int64_t blocks = wb::ceil_div<int64_t>(count, per_block);
    int* out = blocks == 1 ? sum : dst;
    kernel<<<unsigned(blocks), block, smem>>>(src, count, out);
    if (blocks == 1) return;
    src = out;
    count = blocks;
    std::swap(dst, spare);
  }
}
// [multipass_launcher]

/// One `--variant`: its name on the command line, its kernel and its launcher.
struct Variant {
  const char* name;         ///< the --variant value
  const char* kernel_name;  ///< the kernel's name in the report
  PassKernel kernel;        ///< the kernel (every pass launches it)
  int per_thread;           ///< elements a thread adds before the tree: 2 for first_add, else 1
  bool two_pass;            ///< launch_tree_sequential's two passes, else launch_multipass's loop
  int batch;                ///< the report's batch column
};

/// The variants; the first is the default, and `all` runs them in this order.
const Variant kVariants[] = {
    {"two_pass", "reduce_tree_sequential", reduce_tree_sequential, 1, true, 0},
    {"multipass", "reduce_tree_sequential_multipass", reduce_tree_sequential_multipass, 1, false, 1},
    {"first_add", "reduce_tree_first_add", reduce_tree_first_add, 2, false, 2},
};

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "05";
  spec.slug = "tree-sequential";
  spec.idea = "a conflict-free halving tree per block, and a grid-stride load that makes two passes enough";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::PowerOfTwo, kBlock, 32, 1024};
  for (const Variant& v : kVariants) spec.variants.push_back({v.name, {v.kernel_name}});
  spec.variants.push_back(wb::every_variant(spec.variants));

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4 + 4.0 / opt.block);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const size_t smem = size_t(opt.block) * sizeof(int);
  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);
  const int64_t partials = wb::ceil_div<int64_t>(in.n, opt.block);
  wb::DeviceBuffer<int> sum(1, "the sum");
  // Pass 1's partial sums (two_pass: max_blocks <= partials of them); the multi-pass variants
  // also keep passes 3, 5, ... here, and passes 2, 4, ... in scratch_b.
  wb::DeviceBuffer<int> scratch_a(size_t(partials), "the partial sums of passes 1, 3, 5, ...");
  wb::DeviceBuffer<int> scratch_b(size_t(wb::ceil_div<int64_t>(partials, opt.block)),
                                  "the partial sums of passes 2, 4, 6, ...");

  wb::Bench bench(spec, opt, dev, in);
  for (const Variant& v : kVariants) {
    if (opt.variant != v.name && opt.variant != "all") continue;
    const int occupancy = wb::blocks_per_sm(v.kernel, opt.block, smem);
    wb::Case c{v.kernel_name, in.n, opt.block, v.batch, 0, occupancy};
    bench.run(c, [&] {
      if (v.two_pass)
        launch_tree_sequential(in.d, in.n, sum.get(), scratch_a.get(), opt.block, max_blocks);
      else
        launch_multipass(v.kernel, v.per_thread * opt.block, in.d, in.n, sum.get(), scratch_a.get(), scratch_b.get(),
                         opt.block);
    }, sum.get(), &want, 1);
  }
  return bench.finish();
}
