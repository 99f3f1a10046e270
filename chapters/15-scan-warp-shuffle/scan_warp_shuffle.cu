/// @file scan_warp_shuffle.cu
/// @brief Chapter 15: scan each warp in registers with __shfl_up_sync, then scan the warp totals.
///
/// The idea: the 32 threads of a warp run the Hillis-Steele steps on values held in
/// registers, passing them along with `__shfl_up_sync`: no shared memory and no barrier
/// inside a warp. Then the block needs only the warp totals: the last lane of each warp
/// writes its warp's total to a 32-int shared array, the first warp scans those totals the
/// same way, and every thread adds the total of the warps before its own.
///
/// What it teaches: the two-level (hierarchical) scan that every fast scan is built on,
/// and how few barriers it needs: two per block, whatever the block size.
///
/// Since chapter 14: the per-thread shared buffers and the log2(B) barriers are gone.
/// Five shuffles per thread (ten in the first warp), one 32-int shared array and two
/// barriers replace them. The block must now be whole warps (a multiple of 32), because
/// every lane of a warp takes part in each shuffle.

#include "workbook.cuh"

/// Threads per block, which is also the segment length. Kept the same in chapters 12-15
/// so that their results compare like with like.
constexpr int kBlock = 256;

/// Threads per warp.
constexpr int kWarp = 32;

/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;

// [warp_scan]
/// Inclusive scan of one value per lane across a full warp, in registers.
/// `__shfl_up_sync` hands each lane the value of the lane `offset` below it; the lanes
/// below `offset` have no such neighbour and keep their value.
__device__ int warp_inclusive_scan(int value) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const int left = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += left;
  }
  return value;
}
// [warp_scan]

// [kernel]
/// Inclusive scan of each block's segment: a warp scan in registers, then a scan of the
/// warp totals by the first warp. blockDim.x must be a multiple of 32.
/// Block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); a last, partial segment
/// ends at n.
__global__ void scan_warp_shuffle(const int* in, int64_t n, int* out) {
  // Entry w: the sum of the warps before warp w (an exclusive scan of the warp totals).
  __shared__ int warp_offsets[kWarp];
  const int t = threadIdx.x;
  const int lane = t % kWarp, warp = t / kWarp;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + t;
  const bool in_range = i < n;
  // A zero past the end is the identity of +, and keeps every lane in the shuffles.
  int value = warp_inclusive_scan(in_range ? in[i] : 0);
  if (lane == kWarp - 1) warp_offsets[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int warps = int(blockDim.x) / kWarp;
    const int total = lane < warps ? warp_offsets[lane] : 0;
    // Each lane reads and writes only its own entry, so the warp needs no barrier here.
    warp_offsets[lane] = warp_inclusive_scan(total) - total;
  }
  __syncthreads();
  value += warp_offsets[warp];
  if (in_range) out[i] = value;
}
// [kernel]

// [launcher]
/// Launch one block per segment of `block` elements (a multiple of 32).
/// N fits in device memory (below 2^36 elements), so with block >= 32 the grid stays
/// under the 2^31 - 1 blocks a launch allows.
void launch_scan_warp_shuffle(const int* in, int64_t n, int* out, int block) {
  const int64_t segments = wb::ceil_div<int64_t>(n, block);
  scan_warp_shuffle<<<unsigned(segments), block>>>(in, n, out);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "15";
  spec.slug = "scan-warp-shuffle";
  spec.idea = "blockwise scan: warp scans in registers with __shfl_up_sync, then a scan of the warp totals";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.kernels = {"scan_warp_shuffle"};

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
  wb::Case c{"scan_warp_shuffle", in.n, opt.block, 1, 0, wb::blocks_per_sm(scan_warp_shuffle, opt.block)};
  c.outputs_with_first = segment;  // only the first segment's sums include element 0
  bench.run(c, [&] { launch_scan_warp_shuffle(in.d, in.n, out.d, opt.block); }, out.d, want.data(), in.n);
  return bench.finish();
}
