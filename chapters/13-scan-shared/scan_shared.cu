/// @file scan_shared.cu
/// @brief Chapter 13: the same Hillis-Steele scan, with the segment held in shared memory.
///
/// The idea: a block loads its segment into shared memory once, runs the log2(B) steps of
/// chapter 12 there, and writes the result once. Global memory sees exactly one read and
/// one write per element; the steps run on chip.
///
/// What it teaches: shared memory as a block's scratch space, and the barrier that a step
/// needs between its reads and its writes. Threads past the end of a partial segment hold
/// a zero in shared memory, so the steps need no bounds checks; only the load and the
/// store do.
///
/// Since chapter 12: the scratch array moved from the output in global memory to
/// `extern __shared__ int sums[]`, sized by the launch (one int per thread).
///
/// Racecheck exercise: `--racy` runs the kernel without the barrier between a step's reads
/// and its writes. Thread t may then read sums[t - d] after thread t - d has already added
/// to it, and compute-sanitizer's racecheck reports the hazard between the two warps:
/// `compute-sanitizer --tool racecheck --racecheck-report all ./chapter13 --racy --n 2^12`.

#include "workbook.cuh"

/// Threads per block, which is also the segment length. Kept the same in chapters 12-15
/// so that their results compare like with like.
constexpr int kBlock = 256;

// [kernel]
/// Inclusive scan of each block's segment in shared memory (one int per thread, dynamic).
/// Block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); a last, partial segment
/// ends at n. With `kRacy` the barrier between a step's reads and its writes is left out:
/// the deliberate bug of the racecheck exercise.
template <bool kRacy>
__global__ void scan_shared(const int* in, int64_t n, int* out) {
  extern __shared__ int sums[];
  const int t = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + t;
  const bool in_range = i < n;
  // A zero past the end is the identity of +: the steps below need no bounds checks.
  sums[t] = in_range ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < int(blockDim.x); offset *= 2) {
    int left = 0;
    if (t >= offset) left = sums[t - offset];
    // Every read of this step must see the previous step's value, before anyone overwrites it.
    if constexpr (!kRacy) __syncthreads();
    if (t >= offset) sums[t] += left;
    // Every write of this step must land before the next step reads it.
    __syncthreads();
  }
  if (in_range) out[i] = sums[t];
}
// [kernel]

// [launcher]
/// Launch one block per segment of `block` elements, with one int of shared memory per
/// thread. N fits in device memory (below 2^36 elements), so with block >= 32 the grid
/// stays under the 2^31 - 1 blocks a launch allows.
void launch_scan_shared(const int* in, int64_t n, int* out, int block, bool racy) {
  const int64_t segments = wb::ceil_div<int64_t>(n, block);
  const size_t smem = size_t(block) * sizeof(int);
  if (racy) {
    scan_shared<true><<<unsigned(segments), block, smem>>>(in, n, out);
  } else {
    scan_shared<false><<<unsigned(segments), block, smem>>>(in, n, out);
  }
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "13";
  spec.slug = "scan-shared";
  spec.idea = "blockwise Hillis-Steele scan in shared memory: one global read and write per element";
  spec.op = wb::Op::Scan;
  spec.block = {wb::BlockRule::Any, kBlock, 32, 1024};
  spec.racy = true;

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 8);
  wb::Input in = wb::make_input(opt);
  const int segment = opt.block;
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_segmented(in.host.data(), want.data(), in.n, segment);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");

  wb::Bench bench(spec, opt, dev, in);
  wb::note(opt, "segment length: %d elements (one block)\n", segment);
  const size_t smem = size_t(opt.block) * sizeof(int);
  wb::Case c{opt.racy ? "scan_shared_racy" : "scan_shared", in.n, opt.block, 1, 0,
             wb::blocks_per_sm(opt.racy ? scan_shared<true> : scan_shared<false>, opt.block, smem)};
  bench.run(c, [&] { launch_scan_shared(in.d, in.n, out.d, opt.block, opt.racy); }, out.d, want.data(), in.n);
  return bench.finish();
}
