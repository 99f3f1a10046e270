/// @file atomic_privatized.cu
/// @brief Chapter 02: combine values privately (in a thread, a warp or a block) before one global atomicAdd.
///
/// The idea: chapter 01 sent every element to the global counter. Here each thread first sums
/// its share of the input in a register, through a grid-stride loop over a grid of one resident
/// wave; five kernels then differ only in how far they combine before touching the global counter:
/// one atomicAdd per thread, per warp, or per block (three ways to combine inside a block).
///
/// What it teaches: chapter 01 was slow because of contention on one address, not because of
/// the bytes it read. Once the global atomics fall from N to a few thousand, the five ways of
/// combining cost about the same on an input that streams from DRAM, and differ only when the
/// input sits in L2 and the atomics are all that is left (the comparison in comeradealexi's
/// "CUDA Parallel Sum Benchmarks").
///
/// Since chapter 01: a grid-stride loop over a grid capped at one wave (so each thread reads many
/// elements), and the atomic moves from the element to the thread, warp or block. `--variant`
/// picks the kernel; `--variant all` runs all five into one table.

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 up to kMaxBlock works.
constexpr int kBlock = 256;
/// The largest block a kernel accepts; it sizes the static shared arrays.
constexpr int kMaxBlock = 1024;
/// Threads per warp: the group that __reduce_add_sync and the shuffles combine.
constexpr int kWarp = 32;
/// Every lane of the warp: blocks are whole warps, so all 32 lanes always take part.
constexpr unsigned kFullMask = 0xffffffffu;

// [thread]
/// This thread's share of the sum: elements i, i + S, i + 2S, ... where i is the thread's index
/// in the grid and S the number of threads in the grid. Neighbouring threads read neighbouring
/// elements, so each load of a warp is one coalesced request. A thread past the end returns 0,
/// and still takes part in the warp and block steps that follow.
__device__ int thread_sum(const int* in, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int total = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    total += in[i];
  }
  return total;
}
// [thread]

// [warp_sum]
/// The sum of `value` over the 32 lanes of the calling warp, valid in lane 0.
/// Every lane of the warp must call it.
__device__ int warp_sum(int value) {
#if WB_HAS_REDUCE_ADD
  // sm_80 and newer add across the warp in one instruction (REDUX); every lane gets the sum.
  return __reduce_add_sync(kFullMask, value);
#else
  // Older GPUs: five shuffles, each folding the upper half of the remaining lanes onto the lower.
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_down_sync(kFullMask, value, offset);
  }
  return value;
#endif
}
// [warp_sum]

// [per_thread]
/// One global atomicAdd per thread, carrying the thread's register total.
__global__ void reduce_atomic_per_thread(const int* in, int64_t n, int* sum) {
  atomicAdd(sum, thread_sum(in, n));
}
// [per_thread]

// [per_warp]
/// One global atomicAdd per warp: the warp's 32 totals are added together first.
__global__ void reduce_atomic_per_warp(const int* in, int64_t n, int* sum) {
  const int total = warp_sum(thread_sum(in, n));
  if (threadIdx.x % kWarp == 0) atomicAdd(sum, total);
}
// [per_warp]

// [block_shared_atomic]
/// One global atomicAdd per block: each thread adds its total to one shared-memory counter
/// with a shared atomic, and thread 0 forwards the block's total.
__global__ void reduce_block_shared_atomic(const int* in, int64_t n, int* sum) {
  __shared__ int block_total;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();  // the zero must be in place before any thread adds to it
  atomicAdd(&block_total, thread_sum(in, n));
  __syncthreads();  // every add must have landed before thread 0 reads the total
  if (threadIdx.x == 0) atomicAdd(sum, block_total);
}
// [block_shared_atomic]

// [block_shared_serial]
/// One global atomicAdd per block: each thread stores its total in its own shared slot (no
/// atomic needed), and thread 0 adds up all the slots alone while the rest of the block waits.
__global__ void reduce_block_shared_serial(const int* in, int64_t n, int* sum) {
  __shared__ int thread_totals[kMaxBlock];
  thread_totals[threadIdx.x] = thread_sum(in, n);
  __syncthreads();  // thread 0 reads every other thread's slot
  if (threadIdx.x == 0) {
    int total = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) total += thread_totals[t];
    atomicAdd(sum, total);
  }
}
// [block_shared_serial]

// [block_shared_warp]
/// One global atomicAdd per block: each warp's total goes to a shared slot, and the first
/// warp adds the slots with one more warp sum.
__global__ void reduce_block_shared_warp(const int* in, int64_t n, int* sum) {
  __shared__ int warp_totals[kMaxBlock / kWarp];
  const unsigned lane = threadIdx.x % kWarp;
  const unsigned warp = threadIdx.x / kWarp;
  const int total = warp_sum(thread_sum(in, n));
  if (lane == 0) warp_totals[warp] = total;
  __syncthreads();  // the first warp reads the other warps' slots
  if (warp == 0) {
    // A block may have fewer than 32 warps: the lanes without a slot add 0 instead of
    // reading one that nobody wrote.
    const int block_total = warp_sum(lane < blockDim.x / kWarp ? warp_totals[lane] : 0);
    if (lane == 0) atomicAdd(sum, block_total);
  }
}
// [block_shared_warp]

// [launcher]
/// The signature the five kernels share, so that one launcher serves them all.
using ReduceKernel = void (*)(const int* in, int64_t n, int* sum);

/// Zero the sum, then launch `kernel` on one resident wave (`max_blocks`), or on fewer blocks
/// when that is all it takes to give every thread an element.
void launch_privatized(ReduceKernel kernel, const int* in, int64_t n, int* sum, int block,
                       int64_t max_blocks) {
  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, block), max_blocks);
  kernel<<<unsigned(blocks), block>>>(in, n, sum);
}
// [launcher]

/// One `--variant`: its name on the command line and the kernel it runs.
struct Variant {
  const char* name;         ///< the --variant value
  const char* kernel_name;  ///< the kernel's name in the report
  ReduceKernel kernel;      ///< the kernel
};

/// The variants, from the least combining to the most; `all` runs each in this order.
const Variant kVariants[] = {
    {"per_thread", "reduce_atomic_per_thread", reduce_atomic_per_thread},
    {"per_warp", "reduce_atomic_per_warp", reduce_atomic_per_warp},
    {"block_shared_atomic", "reduce_block_shared_atomic", reduce_block_shared_atomic},
    {"block_shared_serial", "reduce_block_shared_serial", reduce_block_shared_serial},
    {"block_shared_warp", "reduce_block_shared_warp", reduce_block_shared_warp},
};

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "02";
  spec.slug = "atomic-privatized";
  spec.idea = "sum in registers, then one global atomicAdd per thread, per warp or per block";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, kWarp, kMaxBlock};
  for (const Variant& v : kVariants) spec.variants.push_back({v.name, {v.kernel_name}});
  spec.variants.push_back(wb::every_variant(spec.variants));

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  for (const Variant& v : kVariants) {
    if (opt.variant != v.name && opt.variant != "all") continue;
    const int occupancy = wb::blocks_per_sm(v.kernel, opt.block);
    const int64_t max_blocks = int64_t(dev.sms) * occupancy;
    wb::Case c{v.kernel_name, in.n, opt.block, 0, 0, occupancy};
    bench.run(c, [&] { launch_privatized(v.kernel, in.d, in.n, sum.get(), opt.block, max_blocks); },
              sum.get(), &want, 1);
  }
  return bench.finish();
}
