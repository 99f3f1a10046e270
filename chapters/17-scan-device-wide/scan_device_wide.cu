/// @file scan_device_wide.cu
/// @brief Chapter 17: one prefix sum over the whole array: reduce-then-scan, a single-pass
/// decoupled look-back scan, and cub::DeviceScan::InclusiveSum beside them.
///
/// The idea: chapter 16 scans tiles of block x K elements, each on its own. A whole-array
/// scan only needs one number more per tile: the sum of everything before it (its carry).
/// Two ways to get it:
/// - reduce-then-scan: a first pass writes each tile's sum, one block scans those sums,
///   and a third pass scans each tile again, seeded with its carry. Simple, but the input
///   is read twice: 12 bytes of traffic per element instead of 8.
/// - single pass with decoupled look-back (Merrill and Garland, 2016): each tile publishes
///   its own sum as soon as it knows it (flag A), then walks back over its predecessors'
///   published values, adding sums until it meets a tile that has already published its
///   inclusive prefix (flag P); then it publishes its own P. Every element is read once
///   and written once, like a copy.
///
/// What it teaches: how blocks can cooperate inside one launch. Tiles are numbered in the
/// order blocks start (a global atomic counter), so a tile only ever waits for tiles whose
/// blocks are already running; and the flag and value of a status are one 64-bit word,
/// written and read atomically at device scope, so a reader can never see a flag without
/// its value or a stale copy from its own SM's L1 cache.
///
/// Since chapter 16: the tile code (load_tile, store_tile, the warp and block scans) is
/// chapter 16's, turned into functions that the kernels share; new are the carries between
/// tiles, the tile counter and statuses, and the CUB baseline. The single-pass kernel also
/// reorders the block's work: it publishes its tile's sum as soon as it has it, then
/// finishes the scan inside its tile while its predecessors finish, and only then waits
/// for its carry.
///
/// Beyond the plain single pass, two steps, each its own variant and each measured alone
/// on the page: `single_pass_no_memset` tags every status with the launch's number (an
/// epoch), so that statuses left by an earlier launch read as "not ready" and no memset is
/// needed before a launch; `single_pass_tuned` also takes its tile size and its look-back
/// delays from a ScanPolicy chosen for the input and the running GPU (choose_policy()).
/// `--variant sweep` runs CUB and the single passes at every power of two from 2^8 to N
/// (default 2^31).

#include <cub/device/device_scan.cuh>

// The tile code, the statuses, the look-back, the single pass and its policy and launcher,
// which chapter 18 shares: read them in single_pass.cuh, beside this file.
#include "single_pass.cuh"

/// The smallest N of `--variant sweep`.
constexpr int64_t kSweepFrom = int64_t(1) << 8;
/// The largest N of `--variant sweep` when --n is not given.
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;

/// Threads of the single block that scans the tile sums (reduce-then-scan's second pass).
constexpr int kSumsBlock = 1024;

/// Tile sums per thread in that second pass. With kSumsBlock, its staging area (33 KB)
/// stays under the 48 KB that every GPU grants without an opt-in.
constexpr int kSumsBatch = 8;

// [reduce_then_scan]
/// Pass 1 of reduce-then-scan: tile_sums[b] = the sum of tile b (blockDim.x x K elements).
/// Order does not matter for a sum, so each thread adds the elements it would load in
/// load_tile straight from global memory, without staging them.
template <int K>
__global__ void __launch_bounds__(1024) reduce_tiles(const int* in, int64_t n, int* tile_sums) {
  __shared__ int warp_sums[kWarp];
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(blockIdx.x, tile_size, n);
  const int* const tile = in + int64_t(blockIdx.x) * tile_size;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;
  int sum = 0;
#pragma unroll
  for (int j = 0; j < K; ++j)
    if (first + j * kWarp < count) sum += tile[first + j * kWarp];
  const int tile_total = block_sum(sum, warp_sums);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = tile_total;
}

/// Pass 2: inclusive scan, in place, of the `count` tile sums, by a single block that walks
/// them in chunks of blockDim.x x K and carries each chunk's total into the next. One block
/// serves any count; with tiles of thousands of elements the sums are a tiny array.
template <int K>
__global__ void __launch_bounds__(1024) scan_tile_sums(int* sums, int64_t count) {
  extern __shared__ int stage[];
  __shared__ int warp_sums[kWarp];
  const int chunk = int(blockDim.x) * K;
  int carry = 0;
  for (int64_t first = 0; first < count; first += chunk) {
    const int valid = count - first < chunk ? int(count - first) : chunk;
    int items[K];
    load_tile<K>(sums + first, valid, stage, items);
    const int thread_total = thread_scan<K>(items);
    const int chunk_total = block_sum(thread_total, warp_sums);
    const int before = carry + block_exclusive_prefix(thread_total, warp_sums);
#pragma unroll
    for (int i = 0; i < K; ++i) items[i] += before;
    store_tile<K>(sums + first, valid, stage, items);
    carry += chunk_total;
    // The next chunk rewrites `stage` and `warp_sums`: every warp must be done with them.
    __syncthreads();
  }
}

/// Pass 3: chapter 16's tile scan, seeded with the sum of all earlier tiles, which pass 2
/// left in tile_sums[b - 1] (the inclusive scan of the tile sums).
template <int K>
__global__ void __launch_bounds__(1024)
    scan_tiles_seeded(const int* in, int64_t n, int* out, const int* tile_sums) {
  extern __shared__ int stage[];
  __shared__ int warp_sums[kWarp];
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(blockIdx.x, tile_size, n);
  const int64_t first = int64_t(blockIdx.x) * tile_size;
  const int carry = blockIdx.x > 0 ? tile_sums[blockIdx.x - 1] : 0;
  int items[K];
  load_tile<K>(in + first, count, stage, items);
  const int thread_total = thread_scan<K>(items);
  block_sum(thread_total, warp_sums);
  const int before = carry + block_exclusive_prefix(thread_total, warp_sums);
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [reduce_then_scan]

/// The instances of the three tile kernels for one K.
struct TileKernels {
  void (*reduce)(const int*, int64_t, int*);                    ///< reduce_tiles<K>
  void (*scan_seeded)(const int*, int64_t, int*, const int*);   ///< scan_tiles_seeded<K>
  SinglePassKernel<NoCarryIn> single_pass;                      ///< scan_single_pass<K>
};

/// The tile kernels instantiated for K.
template <int K>
TileKernels tile_kernels_of() {
  return {reduce_tiles<K>, scan_tiles_seeded<K>, scan_single_pass<K>};
}

// [dispatch]
/// The tile kernels for K = `batch`, allowed the dynamic shared memory they need with
/// `block` threads (above 48 KB a kernel must opt in). Called once per configuration,
/// before any timing. parse_or_exit() has already refused every K that has no case here.
TileKernels tile_kernels(int batch, int block) {
  TileKernels k{};
  switch (batch) {
    case 1: k = tile_kernels_of<1>(); break;
    case 2: k = tile_kernels_of<2>(); break;
    case 4: k = tile_kernels_of<4>(); break;
    case 8: k = tile_kernels_of<8>(); break;
    case 16: k = tile_kernels_of<16>(); break;
    case 32: k = tile_kernels_of<32>(); break;
    default: return k;
  }
  const int smem = int(stage_bytes(block, batch));
  WB_CHECK(cudaFuncSetAttribute(k.scan_seeded, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  WB_CHECK(cudaFuncSetAttribute(k.single_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return k;
}
// [dispatch]

// [launcher]
/// Reduce-then-scan: three launches. `tile_sums` holds one int per tile; `k` is
/// tile_kernels(batch, block).
void launch_reduce_then_scan(const TileKernels& k, const int* in, int64_t n, int* out, int* tile_sums, int block,
                             int batch) {
  const int64_t tiles = tiles_for(n, block, batch);
  k.reduce<<<unsigned(tiles), block>>>(in, n, tile_sums);
  scan_tile_sums<kSumsBatch><<<1, kSumsBlock, stage_bytes(kSumsBlock, kSumsBatch)>>>(tile_sums, tiles);
  k.scan_seeded<<<unsigned(tiles), block, stage_bytes(block, batch)>>>(in, n, out, tile_sums);
}

/// What the single pass keeps between launches: the tile counter and the statuses on the
// [launcher]
// [cub]
/// cub::DeviceScan::InclusiveSum. A 32-bit item count where N allows (CUB then uses 32-bit
/// offsets, its fastest path), a 64-bit one beyond. With `temp` null it only sets `temp_bytes`.
cudaError_t cub_inclusive_sum(void* temp, size_t& temp_bytes, const int* in, int* out, int64_t n) {
  if (n <= INT32_MAX) return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, int(n));
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n);
}
// [cub]

/// The name of CUB's row in the report.
const char* const kCubRow = "cub::DeviceScan::InclusiveSum";


/// The sizes to run: N alone, or for the sweep every power of two from 2^8 below N, then N.
std::vector<int64_t> sizes_to_run(int64_t n, bool sweep) {
  std::vector<int64_t> sizes;
  if (sweep) {
    for (int64_t s = kSweepFrom; s < n; s *= 2) sizes.push_back(s);
  }
  sizes.push_back(n);
  return sizes;
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "17";
  spec.slug = "scan-device-wide";
  spec.idea = "whole-array scan: reduce-then-scan, single pass with decoupled look-back (plain, without a memset, "
              "tuned), and CUB";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true};
  spec.variants = {
      {"all",
       {kCubRow, "scan_reduce_then_scan", "scan_single_pass", "scan_single_pass_no_memset", "scan_single_pass_tuned"}},
      {"reduce_then_scan", {"scan_reduce_then_scan"}},
      {"single_pass", {"scan_single_pass"}},
      {"single_pass_no_memset", {"scan_single_pass_no_memset"}},
      {"single_pass_tuned", {"scan_single_pass_tuned"}},
      {"cub", {kCubRow}},
      {"sweep", {kCubRow, "scan_single_pass", "scan_single_pass_no_memset", "scan_single_pass_tuned"}}};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool sweep = opt.variant == "sweep";
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  wb::Device dev = wb::open_device(opt);
  wb::fit_shared_memory(opt, dev, stage_bytes);
  // Besides input and output: 12 bytes per tile, and CUB's few bytes per CUB tile.
  wb::fit_default_n(opt, dev, 8.0 + 12.0 / (opt.block * std::min(opt.batch, kSmallInputBatch)) + 0.05);
  wb::Input in = wb::make_input(opt);
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_inclusive(in.host.data(), want.data(), in.n);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  const std::vector<int64_t> sizes = sizes_to_run(in.n, sweep);
  wb::DeviceBuffer<int> tile_sums(size_t(tiles_for(in.n, opt.block, opt.batch)), "the tile sums");
  SinglePass single_pass(tiles_for(in.n, opt.block, std::min(opt.batch, kSmallInputBatch)));
  size_t cub_bytes = 0;
  for (const int64_t s : sizes) {
    size_t bytes = 0;
    WB_CHECK(cub_inclusive_sum(nullptr, bytes, in.d, out.d, s));
    cub_bytes = std::max(cub_bytes, bytes);
  }
  wb::DeviceBuffer<char> cub_temp(cub_bytes, "CUB's temporary storage");

  wb::Bench bench(spec, opt, dev, in);
  wb::note(opt, "%lld tiles of %d elements (block %d x K %d)\n", (long long)tiles_for(in.n, opt.block, opt.batch),
           opt.block * opt.batch, opt.block, opt.batch);
  stress_begin(opt);
  const bool all = opt.variant == "all";
  auto wanted = [&](const char* variant) { return all || sweep || opt.variant == variant; };
  for (const int64_t s : sizes) {
    wb::Row cub;
    if (wanted("cub")) {
      cub = bench.run({kCubRow, s, 0, 0, 0, 0},
                      [&] { WB_CHECK(cub_inclusive_sum(cub_temp.get(), cub_bytes, in.d, out.d, s)); }, out.d,
                      want.data(), s);
    }
    if ((all || opt.variant == "reduce_then_scan") && !sweep) {
      // Kernels are looked up (and allowed their shared memory) here, before the timing.
      const TileKernels k = tile_kernels(opt.batch, opt.block);
      wb::Case c{"scan_reduce_then_scan", s, opt.block, opt.batch, 0,
                 wb::blocks_per_sm(k.scan_seeded, opt.block, stage_bytes(opt.block, opt.batch))};
      c.config = "tile=" + std::to_string(opt.block) + "x" + std::to_string(opt.batch);
      const wb::Row r = bench.run(
          c, [&] { launch_reduce_then_scan(k, in.d, s, out.d, tile_sums.get(), opt.block, opt.batch); }, out.d,
          want.data(), s);
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
    // The single pass three ways: plain, without the memset, and tuned for this N and GPU.
    const struct {
      const char* variant;
      const char* kernel;
      ScanPolicy policy;
    } single_passes[] = {
        {"single_pass", "scan_single_pass", plain_policy(opt)},
        {"single_pass_no_memset", "scan_single_pass_no_memset", [&] {
           ScanPolicy p = plain_policy(opt);
           p.clear_statuses = false;
           return p;
         }()},
        {"single_pass_tuned", "scan_single_pass_tuned", choose_policy(opt, dev, s)},
    };
    for (const auto& v : single_passes) {
      if (!wanted(v.variant)) continue;
      const ScanPolicy& p = v.policy;
      const TileKernels k = tile_kernels(p.batch, p.block);
      wb::Case c{v.kernel, s, p.block, p.batch, 0,
                 wb::blocks_per_sm(k.single_pass, p.block, stage_bytes(p.block, p.batch))};
      c.config = p.describe();
      const wb::Row r =
          bench.run(c, [&] { single_pass.launch(p, k.single_pass, in.d, s, out.d); }, out.d, want.data(), s);
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
  }
  stress_report(opt);
  return bench.finish();
}
