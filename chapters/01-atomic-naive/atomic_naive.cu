/// @file atomic_naive.cu
/// @brief Chapter 01: every thread adds its element to one global counter with atomicAdd.
///
/// The idea: the simplest correct parallel sum. Each thread reads one element and adds it
/// to a single int in global memory with `atomicAdd`, which makes the read-modify-write
/// indivisible, so no update is lost.
///
/// What it teaches: every add lands on the same address, so the adds are serialised in
/// the L2 slice that owns it. The kernel is bound by that one address, not by memory
/// bandwidth; chapter 02 combines values before they reach the global atomic.
///
/// Since chapter 00: the first reduction. The sum must start at zero, so the launcher
/// clears it before the kernel, and that clear is part of the timed work.

#include "workbook.cuh"

/// Threads per block. The kernel works for any size; see the page for why it barely matters.
constexpr int kBlock = 256;

// [kernel]
/// One atomicAdd per element into `*sum`, which the caller has zeroed.
/// The grid-stride loop only matters when N exceeds what one launch can cover
/// (2^31 - 1 blocks); below that every thread handles exactly one element.
__global__ void reduce_atomic_naive(const int* in, int64_t n, int* sum) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(sum, in[i]);
  }
}
// [kernel]

// [launcher]
/// Zero the sum, then launch one thread per element.
void launch_atomic_naive(const int* in, int64_t n, int* sum, int block) {
  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));
  const int64_t blocks = std::min<int64_t>(wb::ceil_div<int64_t>(n, block), INT32_MAX);
  reduce_atomic_naive<<<unsigned(blocks), block>>>(in, n, sum);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "01";
  spec.slug = "atomic-naive";
  spec.idea = "one global atomicAdd per element: correct, and limited by contention on one address";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::Any, kBlock, 1, 1024};
  spec.kernels = {"reduce_atomic_naive"};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  wb::Case c{"reduce_atomic_naive", in.n, opt.block, 1, 0,
             wb::blocks_per_sm(reduce_atomic_naive, opt.block)};
  bench.run(c, [&] { launch_atomic_naive(in.d, in.n, sum.get(), opt.block); }, sum.get(), &want, 1);
  return bench.finish();
}
