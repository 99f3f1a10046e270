/// @file scan_naive_global.cu
/// @brief Chapter 12: each block scans its own segment in place in global memory (Hillis-Steele).
///
/// The idea: an inclusive scan of a segment of B elements in log2(B) steps. In the step with
/// offset d every element adds the element d places to its left, so after the steps
/// d = 1, 2, 4, ... each element holds the sum of itself and everything before it in its
/// segment (ceil(log2 B) steps when B is not a power of two).
/// Each block scans one segment of blockDim.x elements, copied into the output and updated
/// there; barriers keep a step's reads apart from its writes.
///
/// What it teaches: the scan algorithm itself, and why it needs two barriers per step. It
/// also shows the cost of using global memory as scratch space: every step reads and
/// writes through the caches, so each element makes log2(B) round trips to L1/L2 on top of
/// its one read from and one write to DRAM. Chapter 13 moves the scratch space on chip.
///
/// Since chapter 11: the first scan. The result is an array, not a number: N values are
/// read and N written (8N bytes), and every one of them is checked. Segments are independent
/// here; chapter 17 joins them into a scan of the whole array.

#include "workbook.cuh"

/// Threads per block, which is also the segment length. Kept the same in chapters 12-15
/// so that their results compare like with like.
constexpr int kBlock = 256;

// [kernel]
/// Inclusive scan of each block's segment, done in place in `out`.
/// Block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); a last, partial segment
/// ends at n. After the step with offset d, out[i] holds the sum of the (at most) 2d
/// elements of its segment that end at i.
__global__ void scan_naive_global(const int* in, int64_t n, int* out) {
  const int t = threadIdx.x;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + t;
  // Threads past the end of a partial segment touch no memory, yet still reach every barrier.
  const bool in_range = i < n;
  if (in_range) out[i] = in[i];
  __syncthreads();
  for (int offset = 1; offset < int(blockDim.x); offset *= 2) {
    int left = 0;
    if (in_range && t >= offset) left = out[i - offset];
    // Every read of this step must see the previous step's value, before anyone overwrites it.
    __syncthreads();
    if (in_range && t >= offset) out[i] += left;
    // Every write of this step must land before the next step reads it.
    __syncthreads();
  }
}
// [kernel]

// [launcher]
/// Launch one block per segment of `block` elements.
/// N fits in device memory (below 2^36 elements), so with block >= 32 the grid stays
/// under the 2^31 - 1 blocks a launch allows.
void launch_scan_naive_global(const int* in, int64_t n, int* out, int block) {
  const int64_t segments = wb::ceil_div<int64_t>(n, block);
  scan_naive_global<<<unsigned(segments), block>>>(in, n, out);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "12";
  spec.slug = "scan-naive-global";
  spec.idea = "blockwise Hillis-Steele scan in global memory, two barriers per step";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::Any, kBlock, 32, 1024};
  spec.kernels = {"scan_naive_global"};

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
  wb::Case c{"scan_naive_global", in.n, opt.block, 1, 0, wb::blocks_per_sm(scan_naive_global, opt.block)};
  c.outputs_with_first = segment;  // only the first segment's sums include element 0
  bench.run(c, [&] { launch_scan_naive_global(in.d, in.n, out.d, opt.block); }, out.d, want.data(), in.n);
  return bench.finish();
}
