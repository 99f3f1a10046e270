/// @file warp_shuffle.cu
/// @brief Chapter 07: each warp sums its 32 values in registers; shared memory only carries
/// one total per warp.
///
/// The idea: the lanes of a warp can read each other's registers. `__shfl_down_sync(mask, v,
/// d)` gives every lane the value of `v` held by the lane d places above it, so five
/// shuffle-and-add steps (d = 16, 8, 4, 2, 1) leave the warp's total in lane 0, with no shared
/// memory and no barrier. On sm_80 and newer one instruction does the whole warp sum:
/// `__reduce_add_sync(mask, v)`. A block sums in two levels: every warp reduces its own values,
/// lane 0 of each warp puts the total in a 32-int shared array, one `__syncthreads()`, then
/// warp 0 reduces those totals the same way.
///
/// What it teaches: warp-level primitives. They replace the shared-memory tree and its
/// barriers with register exchanges, and they state in their mask which lanes take part, so
/// the ordering that chapter 06 had to add with `__syncwarp()` is built in.
///
/// Since chapter 06: the shared tree, the `volatile` tail and the template dispatch are gone;
/// block_sum() is two warp sums around one barrier. Nothing depends on the block size at
/// compile time any more, and any whole number of warps works: block sizes are multiples of
/// 32 from 32 to 1024. `--variant` picks the warp sum, `shuffle` (the default) or
/// `reduce_add`; `--variant all` runs both into one table. The two passes are chapter 06's.

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 from 32 to 1024 works.
constexpr int kBlock = 256;
/// Every lane of the warp takes part in each warp-level operation.
constexpr unsigned kFullMask = 0xffffffffu;

/// How a warp sums its 32 values: the two --variant choices.
enum class WarpSum {
  Shuffle,   ///< five __shfl_down_sync steps
  ReduceAdd  ///< one __reduce_add_sync (sm_80 and newer)
};

// [warp_sum]
/// The sum of `v` over the 32 lanes of a full warp, by a shuffle tree. At each step lane i
/// adds the value of lane i + offset; after five steps lane 0 holds the total. A lane whose
/// source would be past lane 31 gets its own value back; it only feeds lanes whose sums are
/// never used.
__device__ int warp_sum_shuffle(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

/// The sum of `v` over the 32 lanes of a full warp with the warp reduction instruction of
/// sm_80 and newer; every lane receives the total.
__device__ int warp_sum_reduce_add(int v) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, v);
#else
  // sm_75 has no warp reduction instruction: a build for it runs the shuffle tree here,
  // so the variant still works there, and times the same as `shuffle`.
  return warp_sum_shuffle(v);
#endif
}
// [warp_sum]

/// The warp sum a variant names.
template <WarpSum kHow>
__device__ int warp_sum(int v) {
  return kHow == WarpSum::ReduceAdd ? warp_sum_reduce_add(v) : warp_sum_shuffle(v);
}

// [block]
/// The sum of `v` over the whole block, returned in thread 0 (other threads get partial
/// sums). blockDim.x must be a multiple of 32, so that every warp is full and the full mask
/// is right; every thread of the block must call it, since it contains a barrier.
template <WarpSum kHow>
__device__ int block_sum(int v) {
  __shared__ int warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum<kHow>(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  // Warp 0 sums the totals. With fewer than 32 warps its upper lanes add 0: those slots of
  // warp_totals were never written in this block.
  if (warp == 0) v = warp_sum<kHow>(lane < blockDim.x / 32 ? warp_totals[lane] : 0);
  return v;
}
// [block]

// [kernel]
/// Sum a grid-stride share of `in` per thread, then the block's threads with warp sums,
/// and write the block's sum to `partials[blockIdx.x]`. blockDim.x must be a multiple of 32.
template <WarpSum kHow>
__global__ void reduce_warp_shuffle(const int* in, int64_t n, int* partials) {
  const unsigned tid = threadIdx.x;
  // [load]
  const int64_t grid_stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;  // a thread past the end keeps 0
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + tid; i < n; i += grid_stride) total += in[i];
  // [load]
  total = block_sum<kHow>(total);
  if (tid == 0) partials[blockIdx.x] = total;
}
// [kernel]

/// A pass of the reduction: (input, its length, one partial sum per block).
using ReduceKernel = void (*)(const int*, int64_t, int*);

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum` in two passes. Pass 1 gives every thread
/// one element (ceil(n / block) blocks, capped at `max_blocks`, the most one launch takes;
/// the grid-stride loop covers anything past that) and writes one partial sum per block to
/// `scratch` (which holds `max_blocks` ints). Pass 2 is a single block that grid-strides over
/// those partials and writes `*sum`. Both passes run `kernel`; the input is never written.
void launch_warp_shuffle(ReduceKernel kernel, const int* in, int64_t n, int* sum, int* scratch, int block,
                         int64_t max_blocks) {
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  kernel<<<unsigned(blocks), block>>>(in, n, scratch);
  kernel<<<1, block>>>(scratch, blocks, sum);
}
// [launcher]

/// One `--variant`: its name on the command line and the kernel it runs.
struct Variant {
  const char* name;         ///< the --variant value
  const char* kernel_name;  ///< the kernel's name in the report
  ReduceKernel kernel;      ///< the kernel
};

/// The variants; `all` runs each in this order.
const Variant kVariants[] = {
    {"shuffle", "reduce_warp_shuffle", reduce_warp_shuffle<WarpSum::Shuffle>},
    {"reduce_add", "reduce_warp_reduce_add", reduce_warp_shuffle<WarpSum::ReduceAdd>},
};

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "07";
  spec.slug = "warp-shuffle";
  spec.idea = "each warp sums in registers (shuffles or __reduce_add_sync); one shared int per warp";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  for (const Variant& v : kVariants) spec.variants.push_back({v.name, {v.kernel_name}});
  spec.variants.push_back(wb::every_variant(spec.variants));

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  const int64_t max_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, opt.block), INT32_MAX);
  wb::DeviceBuffer<int> sum(1, "the sum");
  wb::DeviceBuffer<int> scratch(size_t(max_blocks), "the partial sums of pass 1");

  wb::Bench bench(spec, opt, dev, in);
  for (const Variant& v : kVariants) {
    if (opt.variant != v.name && opt.variant != "all") continue;
    const int occupancy = wb::blocks_per_sm(v.kernel, opt.block);
    wb::Case c{v.kernel_name, in.n, opt.block, 0, 0, occupancy};
    bench.run(c, [&] { launch_warp_shuffle(v.kernel, in.d, in.n, sum.get(), scratch.get(), opt.block, max_blocks); },
              sum.get(), &want, 1);
  }
  return bench.finish();
}
