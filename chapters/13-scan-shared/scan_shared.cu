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
/// The exercise is the Kogge-Stone kernel's: `--racy` with another `--variant` is refused.
///
/// Variants (`--variant`), on the same segments (one block each):
/// - `kogge_stone` (the default, `scan_shared`): the Hillis-Steele scan above, which Hwu, Kirk
///   and El Hajj's "Programming Massively Parallel Processors" calls the Kogge-Stone scan,
///   after the adder circuit of the same shape.
/// - `brent_kung` (`scan_brent_kung`): the work-efficient Brent-Kung scan, an up-sweep that
///   builds partial sums in a tree and a down-sweep that hands them back down.
/// - `all` runs both.
///
/// What the two cost for a block of B threads, B a power of two (otherwise log2(B) rounds up,
/// and Brent-Kung's counts are those of B rounded up to a power of two):
/// - Kogge-Stone: log2(B) steps; the step with offset d makes B - d adds, so
///   B log2(B) - (B - 1) adds in all, about log2(B) per element. Two barriers per step here,
///   since a step's reads and writes touch the same slots.
/// - Brent-Kung: log2(B) up-sweep steps (B/2, B/4, ..., 1 adds) and log2(B) - 1 down-sweep
///   steps (1, 3, ..., B/2 - 1 adds): 2 log2(B) - 1 steps and 2(B - 1) - log2(B) adds, about
///   two per element. One barrier per step, since a step never reads a slot another thread of
///   the same step writes; but in the late steps few threads work, and at stride d a warp's
///   slots lie 2d words apart, so they share shared-memory banks.

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

// [brent_kung]
/// The smallest power of two that is >= b, for b >= 1: the width of the Brent-Kung tree.
__host__ __device__ constexpr int next_pow2(int b) {
  int p = 1;
  while (p < b) p *= 2;
  return p;
}

/// Inclusive scan of each block's segment with the Brent-Kung tree, in next_pow2(blockDim.x)
/// ints of dynamic shared memory. Block b owns elements [b * blockDim.x, (b + 1) * blockDim.x),
/// as in scan_shared; a last, partial segment ends at n. Any blockDim.x works: the tree is
/// p = next_pow2(blockDim.x) slots wide, and the slots past the block hold zeros. They come
/// after every element of the segment, so they change no prefix sum. A step needs at most
/// p / 2 threads, fewer than blockDim.x.
__global__ void scan_brent_kung(const int* in, int64_t n, int* out) {
  extern __shared__ int sums[];
  const int t = threadIdx.x;
  const int b = blockDim.x;
  const int p = next_pow2(b);
  const int64_t i = int64_t(blockIdx.x) * b + t;
  const bool in_range = i < n;
  sums[t] = in_range ? in[i] : 0;
  if (b + t < p) sums[b + t] = 0;  // the padding: p - b < b slots, one per thread at most
  // [up_sweep]
  // After the step with stride d, slot k = (j + 1) * 2d - 1 holds the sum of the 2d slots that
  // end at k. Thread t updates the t-th such slot; the slots it reads (k - d) are none that
  // this step writes, so one barrier per step is enough.
  for (int d = 1; d < p; d *= 2) {
    __syncthreads();  // the previous step's writes (or the loads) land before this step reads
    const int k = (t + 1) * 2 * d - 1;
    if (k < p) sums[k] += sums[k - d];
  }
  // [up_sweep]
  // [down_sweep]
  // Slots k = (j + 1) * 2d - 1 now hold complete prefix sums. Each passes its sum on to the slot
  // d places to its right, which held only the sum of the d slots ending there.
  for (int d = p / 4; d > 0; d /= 2) {
    __syncthreads();
    const int k = (t + 1) * 2 * d - 1;
    if (k + d < p) sums[k + d] += sums[k];
  }
  // [down_sweep]
  __syncthreads();  // the last step's writes land before the store reads them
  if (in_range) out[i] = sums[t];
}
// [brent_kung]

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

/// Launch scan_brent_kung on the segments of launch_scan_shared, with next_pow2(block) ints of
/// shared memory per block.
void launch_scan_brent_kung(const int* in, int64_t n, int* out, int block) {
  const int64_t segments = wb::ceil_div<int64_t>(n, block);
  const size_t smem = size_t(next_pow2(block)) * sizeof(int);
  scan_brent_kung<<<unsigned(segments), block, smem>>>(in, n, out);
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "13";
  spec.slug = "scan-shared";
  spec.idea = "blockwise Hillis-Steele scan in shared memory: one global read and write per element";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::Any, kBlock, 32, 1024};
  spec.variants = {{"kogge_stone", {"scan_shared"}}, {"brent_kung", {"scan_brent_kung"}}};
  spec.variants.push_back(wb::every_variant(spec.variants));
  spec.racy = true;

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  if (opt.racy && opt.variant != "kogge_stone") {
    std::fprintf(stderr, "chapter13: --racy is the Kogge-Stone kernel's exercise: give it without --variant "
                         "(or with --variant kogge_stone), not with --variant %s\n", opt.variant.c_str());
    return 2;
  }
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 8);
  wb::Input in = wb::make_input(opt);
  const int segment = opt.block;
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_segmented(in.host.data(), want.data(), in.n, segment);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");

  wb::Bench bench(spec, opt, dev, in);
  wb::note(opt, "segment length: %d elements (one block)\n", segment);
  if (opt.variant == "kogge_stone" || opt.variant == "all") {
    const size_t smem = size_t(opt.block) * sizeof(int);
    wb::Case c{opt.racy ? "scan_shared_racy" : "scan_shared", in.n, opt.block, 1, 0,
               wb::blocks_per_sm(opt.racy ? scan_shared<true> : scan_shared<false>, opt.block, smem)};
    c.outputs_with_first = segment;  // only the first segment's sums include element 0
    bench.run(c, [&] { launch_scan_shared(in.d, in.n, out.d, opt.block, opt.racy); }, out.d, want.data(), in.n);
  }
  if (opt.variant == "brent_kung" || opt.variant == "all") {
    const size_t smem = size_t(next_pow2(opt.block)) * sizeof(int);
    wb::Case c{"scan_brent_kung", in.n, opt.block, 1, 0, wb::blocks_per_sm(scan_brent_kung, opt.block, smem)};
    c.outputs_with_first = segment;
    bench.run(c, [&] { launch_scan_brent_kung(in.d, in.n, out.d, opt.block); }, out.d, want.data(), in.n);
  }
  return bench.finish();
}
