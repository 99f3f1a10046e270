/// @file scan_coarsened.cu
/// @brief Chapter 16: each thread scans K consecutive elements serially; the block scans the thread totals.
///
/// The idea: thread coarsening. Chapter 15 spent five shuffles, a shared-memory round trip
/// and two barriers on every single element. Here a thread owns K consecutive elements: it
/// scans them one after another in registers (K - 1 adds, nothing shared), and only its
/// total enters chapter 15's block scan. The block's exclusive prefix for that thread is
/// then added to all K results. The segment grows to block x K elements.
///
/// What it teaches: the per-element cost of the block scan falls K-fold, so the kernel
/// becomes a pure stream, and the way it reads and writes memory decides its speed. A
/// thread that loads its own K consecutive elements makes a warp touch 32 places K x 4
/// bytes apart at every load (kernel_4 of Simon Veitner's "Making prefix sum really fast" does
/// this); here each warp instead loads 32 consecutive ints at a time into shared memory, and
/// each thread then picks its K elements from there (a transpose through shared memory); the
/// stores go back the same way. One unused int after every 32 keeps both directions free of
/// bank conflicts.
///
/// Since chapter 15: a template parameter K (--batch, a power of two) and a shared staging
/// tile; the per-thread value becomes a K-element serial scan, and the warp and block
/// scans are unchanged. Segment = block x K.

#include "workbook.cuh"

/// Threads per block unless --block says otherwise.
constexpr int kBlock = 128;

/// Elements per thread (K) unless --batch says otherwise.
constexpr int kBatch = 8;

/// The largest K: the padded layout of load_tile is conflict-free for powers of two up to 32.
constexpr int kMaxBatch = 32;

/// Threads per warp.
constexpr int kWarp = 32;

/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;

/// Shared memory (ints) that one warp needs to stage K elements per lane: K rows of 32
/// ints, each followed by one unused int (see load_tile).
__host__ __device__ constexpr int stage_ints_per_warp(int k) { return (kWarp + 1) * k; }

// [warp]
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
// [warp]

// [transpose]
/// Load the first `count` elements of a tile of blockDim.x x K, giving thread t the K
/// consecutive elements [t K, t K + K) in `items`; past `count` it gets zeros.
///
/// Warp w owns the elements [32 w K, 32 (w + 1) K) of the tile. Its load j reads 32
/// consecutive ints (one 128-byte line) into row j of the warp's part of `stage`. Lane l
/// then reads its K elements, which sit side by side in row l K / 32. Rows are 33 ints
/// long, one more than a bank cycle, so each row starts one bank later than the one above
/// it: the 32 lanes, which read the same column i of K different rows, hit 32 different
/// banks. (With rows of 32, lanes K rows apart would share a bank.) Only the warp's own
/// lanes touch its part of `stage`, so a warp barrier is enough.
template <int K>
__device__ void load_tile(const int* tile, int count, int* stage, int (&items)[K]) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;  // this lane's element in the warp's load 0
  int* const part = stage + warp * stage_ints_per_warp(K);
#pragma unroll
  for (int j = 0; j < K; ++j)
    part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? tile[first + j * kWarp] : 0;
  __syncwarp();
  const int* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine[i];
}

/// The reverse of load_tile: thread t's `items` go to tile[t K, t K + K), through the
/// warp's part of `stage`, and only the first `count` elements are written.
/// The caller must have passed a barrier since this warp's load_tile read `stage`.
template <int K>
__device__ void store_tile(int* tile, int count, int* stage, const int (&items)[K]) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;
  int* const part = stage + warp * stage_ints_per_warp(K);
  int* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) mine[i] = items[i];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (first + j * kWarp < count) tile[first + j * kWarp] = part[j * (kWarp + 1) + lane];
}
// [transpose]

// [kernel]
/// Inclusive scan of each block's segment of blockDim.x x K elements (blockDim.x a multiple
/// of 32); a last, partial segment ends at n. Launch with stage_bytes(blockDim.x, K) of
/// dynamic shared memory. The bound of 1024 threads caps registers at 64 per thread, so
/// that every block size can launch.
template <int K>
__global__ void __launch_bounds__(1024) scan_coarsened(const int* in, int64_t n, int* out) {
  extern __shared__ int stage[];
  // Entry w: the sum of the warps before warp w (an exclusive scan of the warp totals).
  __shared__ int warp_offsets[kWarp];
  const int t = threadIdx.x;
  const int lane = t % kWarp, warp = t / kWarp;
  const int segment = int(blockDim.x) * K;
  const int64_t first = int64_t(blockIdx.x) * segment;
  const int count = n - first < segment ? int(n - first) : segment;

  int items[K];
  load_tile<K>(in + first, count, stage, items);
  // The serial part: this thread's K elements, in registers. Zeros past n change nothing.
#pragma unroll
  for (int i = 1; i < K; ++i) items[i] += items[i - 1];
  const int thread_total = items[K - 1];

  // Chapter 15's block scan, on one total per thread instead of one element.
  int value = warp_inclusive_scan(thread_total);
  if (lane == kWarp - 1) warp_offsets[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int warps = int(blockDim.x) / kWarp;
    const int total = lane < warps ? warp_offsets[lane] : 0;
    // Each lane reads and writes only its own entry, so the warp needs no barrier here.
    warp_offsets[lane] = warp_inclusive_scan(total) - total;
  }
  // Also the barrier store_tile needs: every warp has finished reading its part of `stage`.
  __syncthreads();
  // What the elements of the threads before this one add up to.
  const int before = warp_offsets[warp] + value - thread_total;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [kernel]

/// A blockwise scan kernel: (input, its length, output).
using ScanKernel = void (*)(const int*, int64_t, int*);

/// Dynamic shared memory of a block of `block` threads with K = `batch`: every warp's part.
size_t stage_bytes(int block, int batch) {
  return sizeof(int) * size_t(block / kWarp) * stage_ints_per_warp(batch);
}

// [dispatch]
/// The instance of scan_coarsened for K = `batch`, allowed the dynamic shared memory it
/// needs with `block` threads (above 48 KB a kernel must opt in). parse_or_exit() has
/// already refused every K that has no case here.
ScanKernel scan_coarsened_kernel(int batch, int block) {
  ScanKernel kernel = nullptr;
  switch (batch) {
    case 1: kernel = scan_coarsened<1>; break;
    case 2: kernel = scan_coarsened<2>; break;
    case 4: kernel = scan_coarsened<4>; break;
    case 8: kernel = scan_coarsened<8>; break;
    case 16: kernel = scan_coarsened<16>; break;
    case 32: kernel = scan_coarsened<32>; break;
    default: return nullptr;
  }
  WB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(stage_bytes(block, batch))));
  return kernel;
}
// [dispatch]

// [launcher]
/// Launch `kernel` (scan_coarsened_kernel(batch, block), looked up once before timing) with
/// one block per segment of `block` x `batch` elements, the staging area in dynamic shared
/// memory. N fits in device memory (below 2^36 elements), so with segments of at least 32
/// elements the grid stays under the 2^31 - 1 blocks a launch allows.
void launch_scan_coarsened(ScanKernel kernel, const int* in, int64_t n, int* out, int block, int batch) {
  const int64_t segments = wb::ceil_div<int64_t>(n, int64_t(block) * batch);
  kernel<<<unsigned(segments), block, stage_bytes(block, batch)>>>(in, n, out);
}
// [launcher]

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "16";
  spec.slug = "scan-coarsened";
  spec.idea = "blockwise scan: each thread scans K elements serially, the block scans the thread totals";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true};
  spec.kernels = {"scan_coarsened"};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_shared_memory(opt, dev, stage_bytes);
  wb::fit_default_n(opt, dev, 8);
  wb::Input in = wb::make_input(opt);
  const int64_t segment = int64_t(opt.block) * opt.batch;
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_segmented(in.host.data(), want.data(), in.n, segment);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");

  wb::Bench bench(spec, opt, dev, in);
  wb::note(opt, "segment length: %lld elements (block %d x K %d)\n", (long long)segment, opt.block, opt.batch);
  // The kernel is looked up (and allowed its shared memory) here, once: not inside the timing.
  const ScanKernel kernel = scan_coarsened_kernel(opt.batch, opt.block);
  wb::Case c{"scan_coarsened", in.n, opt.block, opt.batch, 0,
             wb::blocks_per_sm(kernel, opt.block, stage_bytes(opt.block, opt.batch))};
  c.outputs_with_first = segment;  // only the first segment's sums include element 0
  bench.run(c, [&] { launch_scan_coarsened(kernel, in.d, in.n, out.d, opt.block, opt.batch); }, out.d, want.data(),
            in.n);
  return bench.finish();
}
