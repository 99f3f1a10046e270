/// @file scan_double_buffer.cu
/// @brief Chapter 14: Hillis-Steele in shared memory with two buffers, one barrier per step.
///
/// The idea: each step reads one shared buffer and writes the other, then the two swap
/// roles. A step never writes what it reads, so the barrier between its reads and its
/// writes is gone; the one barrier left per step both publishes the step's writes and
/// closes its reads before the next step overwrites that buffer.
///
/// What it teaches: that barriers cost time, and that a little more shared memory (two
/// ints per thread instead of one) can buy half of them back: log2(B) + 1 barriers per
/// block instead of 2 log2(B) + 1.
///
/// Since chapter 13: `sums` became two halves, `from` and `to`; each step writes every
/// element of `to` (copying the ones it does not add to) and ends with a single barrier.

#include "workbook.cuh"

/// Threads per block, which is also the segment length. Kept the same in chapters 12-15
/// so that their results compare like with like.
constexpr int kBlock = 256;

// [kernel]
/// Inclusive scan of each block's segment in two shared buffers (two ints per thread, dynamic).
/// Block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); a last, partial segment
/// ends at n.
__global__ void scan_double_buffer(const int* in, int64_t n, int* out) {
  extern __shared__ int buffers[];
  int* from = buffers;
  int* to = buffers + blockDim.x;
  const int t = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + t;
  const bool in_range = i < n;
  // A zero past the end is the identity of +: the steps below need no bounds checks.
  from[t] = in_range ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < int(blockDim.x); offset *= 2) {
    to[t] = t >= offset ? from[t - offset] + from[t] : from[t];
    // Publishes this step's `to`, and keeps the next step from writing into `from`
    // (its `to`) while a slower thread of this step may still be reading it.
    __syncthreads();
    int* const previous = from;
    from = to;
    to = previous;
  }
  if (in_range) out[i] = from[t];
}
// [kernel]

// [launcher]
/// Launch one block per segment of `block` elements, with two ints of shared memory per
/// thread. N fits in device memory (below 2^36 elements), so with block >= 32 the grid
/// stays under the 2^31 - 1 blocks a launch allows.
void launch_scan_double_buffer(const int* in, int64_t n, int* out, int block) {
  const int64_t segments = wb::ceil_div<int64_t>(n, block);
  const size_t smem = 2 * size_t(block) * sizeof(int);
  scan_double_buffer<<<unsigned(segments), block, smem>>>(in, n, out);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "14";
  spec.slug = "scan-double-buffer";
  spec.idea = "blockwise Hillis-Steele scan with two shared buffers: one barrier per step";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::Any, kBlock, 32, 1024};
  spec.kernels = {"scan_double_buffer"};

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
  const size_t smem = 2 * size_t(opt.block) * sizeof(int);
  wb::Case c{"scan_double_buffer", in.n, opt.block, 1, 0,
             wb::blocks_per_sm(scan_double_buffer, opt.block, smem)};
  c.outputs_with_first = segment;  // only the first segment's sums include element 0
  bench.run(c, [&] { launch_scan_double_buffer(in.d, in.n, out.d, opt.block); }, out.d, want.data(), in.n);
  return bench.finish();
}
