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
/// chapter 16's, turned into functions that three kernels share; new are the carries
/// between tiles, the tile counter and statuses, and the CUB baseline. The single-pass
/// kernel also reorders the block's work: it sums its tile first and publishes that sum,
/// then scans the tile while its predecessors finish, and only then waits for its carry.

#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "workbook.cuh"

/// Threads per tile unless --block says otherwise.
constexpr int kBlock = 256;

/// Elements per thread (K) unless --batch says otherwise; a tile is block x K elements.
constexpr int kBatch = 32;

/// The largest K: the padded layout of load_tile is conflict-free for powers of two up to 32.
constexpr int kMaxBatch = 32;

/// Nanoseconds a tile sleeps after publishing its aggregate before its first look at its
/// predecessors, and between looks while one it needs is not ready. Most of the waiting
/// is for predecessors that are still loading their tiles, so looking sooner only finds
/// them unfinished and spends status loads; a sleep lets them publish first. Chosen by
/// timing on an H200 (the page shows the grid, and the cliff above 4000 ns there).
constexpr unsigned kFirstLookDelayNs = 3000;
/// See kFirstLookDelayNs.
constexpr unsigned kPollDelayNs = 1000;

/// Threads of the single block that scans the tile sums (reduce-then-scan's second pass).
constexpr int kSumsBlock = 1024;

/// Tile sums per thread in that second pass. With kSumsBlock, its staging area (33 KB)
/// stays under the 48 KB that every GPU grants without an opt-in.
constexpr int kSumsBatch = 8;

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

/// Sum of one value per lane across a full warp, every lane receiving it.
/// sm_80 and later add in one instruction; older GPUs use a butterfly of shuffles.
__device__ int warp_sum(int value) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, value);
#else
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(kFullMask, value, offset);
  return value;
#endif
}
// [warp]

/// Exclusive scan of one value per thread across the block (chapter 15's two levels),
/// with the block's total in `block_total`. `warp_sums` is a shared array of 32 ints.
/// It holds two barriers, so every thread of the block must call it.
__device__ int block_exclusive_scan(int value, int* warp_sums, int& block_total) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int inclusive = warp_inclusive_scan(value);
  if (lane == kWarp - 1) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int warps = int(blockDim.x) / kWarp;
    const int total = lane < warps ? warp_sums[lane] : 0;
    // Entry w becomes the sum of warps 0 to w. Each lane reads and writes only its own.
    warp_sums[lane] = warp_inclusive_scan(total);
  }
  __syncthreads();
  block_total = warp_sums[int(blockDim.x) / kWarp - 1];
  return (warp > 0 ? warp_sums[warp - 1] : 0) + inclusive - value;
}

// [transpose]
/// Chapter 16's coalesced load: thread t gets the tile's K consecutive elements
/// [t K, t K + K) in `items`, zeros past `count`. Each warp reads 32 consecutive ints at a
/// time into its own part of `stage` (rows of 33 ints: conflict-free both ways), then each
/// lane takes its K from there.
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

/// Serial inclusive scan of a thread's K elements in registers; returns their total.
template <int K>
__device__ int thread_scan(int (&items)[K]) {
#pragma unroll
  for (int i = 1; i < K; ++i) items[i] += items[i - 1];
  return items[K - 1];
}

/// Elements of tile `tile` (of `tile_size`) that lie before n: tile_size except in the last.
__device__ int tile_count(int64_t tile, int tile_size, int64_t n) {
  const int64_t first = tile * tile_size;
  return n - first < tile_size ? int(n - first) : tile_size;
}

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
  int tile_total;
  block_exclusive_scan(sum, warp_sums, tile_total);
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
    int chunk_total;
    const int before = carry + block_exclusive_scan(thread_scan<K>(items), warp_sums, chunk_total);
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
  int tile_total;
  const int before = carry + block_exclusive_scan(thread_scan<K>(items), warp_sums, tile_total);
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [reduce_then_scan]

// [status]
/// A tile's status: the flag in the high 32 bits, a value in the low 32 bits. One 64-bit
/// word, so that one atomic store publishes both and one atomic load reads both.
using TileStatus = unsigned long long;

/// Flag: the tile has published nothing yet (what the memset before each run leaves).
constexpr unsigned kNotReady = 0;
/// Flag: the value is the tile's own sum (its aggregate).
constexpr unsigned kAggregate = 1;
/// Flag: the value is the sum of the tile and every tile before it (its inclusive prefix).
constexpr unsigned kPrefix = 2;

/// The flag of a status word.
__device__ unsigned flag_of(TileStatus s) { return unsigned(s >> 32); }

/// The value of a status word.
__device__ int value_of(TileStatus s) { return int(unsigned(s)); }

/// Publish a tile's flag and value in one relaxed atomic store at device scope.
///
/// Why relaxed is enough: a reader uses nothing that the writer wrote except this word,
/// and the word carries its own value, so there is no other data whose visibility the
/// store would have to order (which is what release/acquire are for). Why atomic and
/// device scope: the store and the loads in observe() are then performed at L2, the point
/// where all SMs agree, and a load polled in a loop cannot be served from a stale L1 line
/// or hoisted out of the loop by the compiler, as a plain load could.
__device__ void publish(TileStatus* status, unsigned flag, int value) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  word.store((TileStatus(flag) << 32) | unsigned(value), cuda::memory_order_relaxed);
}

/// Read a tile's status word in one relaxed atomic load at device scope (see publish()).
__device__ TileStatus observe(TileStatus* status) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  return word.load(cuda::memory_order_relaxed);
}
// [status]

// [look_back]
/// Step 1 of the decoupled look-back, by lane 0: make the tile's sum visible to the tiles
/// after it: as A (its aggregate), or as P for tile 0, which has nothing before it.
__device__ void publish_aggregate(TileStatus* statuses, int64_t tile, int aggregate) {
  if (threadIdx.x % kWarp == 0) publish(&statuses[tile], tile == 0 ? kPrefix : kAggregate, aggregate);
}

/// Step 2, by the 32 lanes of warp 0 after publish_aggregate: find the sum of all tiles
/// before this one, publish the tile's inclusive prefix (P), return that sum.
///
/// The warp inspects 32 predecessors at a time, lane 31 the nearest. It waits until every
/// tile between itself and the nearest one that has published P has published at least A;
/// then it adds the P and the As after it. Without a P in the window it adds all 32 As
/// and looks 32 tiles further back. Tile 0 publishes P at once, so the walk always ends,
/// and a tile waits only for tiles numbered before it, whose blocks are already running.
__device__ int look_back(TileStatus* statuses, int64_t tile, int aggregate) {
  const int lane = threadIdx.x % kWarp;
  if (tile == 0) return 0;
  __nanosleep(kFirstLookDelayNs);
  int exclusive = 0;
  for (int64_t nearest = tile - 1;; nearest -= kWarp) {
    const int64_t other = nearest - (kWarp - 1) + lane;
    // Before tile 0 there is nothing: such lanes act as a P of 0 and never load.
    TileStatus s = other < 0 ? TileStatus(kPrefix) << 32 : TileStatus(kNotReady);
    unsigned prefixes, waiting;
    do {
      if (flag_of(s) == kNotReady) s = observe(&statuses[other]);
      prefixes = __ballot_sync(kFullMask, flag_of(s) == kPrefix);
      // Lanes from the nearest P up to lane 31 count; all 32 when there is no P yet.
      const unsigned needed = prefixes ? kFullMask << (kWarp - 1 - __clz(int(prefixes))) : kFullMask;
      waiting = __ballot_sync(kFullMask, flag_of(s) == kNotReady) & needed;
      if (waiting != 0) __nanosleep(kPollDelayNs);
    } while (waiting != 0);
    const int from = prefixes ? kWarp - 1 - __clz(int(prefixes)) : 0;
    exclusive += warp_sum(lane >= from ? value_of(s) : 0);
    if (prefixes != 0) break;
  }
  if (lane == 0) publish(&statuses[tile], kPrefix, exclusive + aggregate);
  return exclusive;
}
// [look_back]

// [kernel]
/// Single-pass scan of the whole array: state[0] is the tile counter, state[1 + t] the
/// status of tile t, all zero at launch. Launch one block per tile of blockDim.x x K
/// elements with stage_bytes(blockDim.x, K) of dynamic shared memory.
template <int K>
__global__ void __launch_bounds__(1024)
    scan_single_pass(const int* in, int64_t n, int* out, TileStatus* state) {
  extern __shared__ int stage[];
  __shared__ int warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ int tile_carry;
  // Tiles are numbered in the order blocks start, not by blockIdx.x: the hardware may
  // start blocks in any order, and a tile must never wait for one that has not started.
  if (threadIdx.x == 0) tile_number = atomicAdd(&state[0], 1ull);
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(tile, tile_size, n);
  const int64_t first = tile * tile_size;

  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  int items[K];
  load_tile<K>(in + first, count, stage, items);

  // 1. The tile's sum first, since the tiles after this one are waiting for it: a sum of
  //    sums, cheaper than the scan.
  int thread_total = 0;
#pragma unroll
  for (int i = 0; i < K; ++i) thread_total += items[i];
  const int warp_total = warp_sum(thread_total);
  if (lane == 0) warp_totals[warp] = warp_total;
  __syncthreads();
  int tile_total = 0;  // known to warp 0 only
  if (warp == 0) {
    tile_total = warp_sum(lane < int(blockDim.x) / kWarp ? warp_totals[lane] : 0);
    publish_aggregate(state + 1, tile, tile_total);
  }

  // 2. The scan inside the tile, while the tiles before it finish: this thread's items,
  //    then across the warp, then the warps before this one.
  thread_scan<K>(items);
  const int within_warp = warp_inclusive_scan(thread_total) - thread_total;
  const int warps_before = warp_sum(lane < warp ? warp_totals[lane] : 0);

  // 3. The carry from all earlier tiles, found by warp 0, handed to the block.
  if (warp == 0) {
    const int carry = look_back(state + 1, tile, tile_total);
    if (lane == 0) tile_carry = carry;
  }
  __syncthreads();
  const int before = tile_carry + warps_before + within_warp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [kernel]

/// Dynamic shared memory of a block of `block` threads with K = `batch`: every warp's part.
size_t stage_bytes(int block, int batch) {
  return sizeof(int) * size_t(block / kWarp) * stage_ints_per_warp(batch);
}

/// The instances of the three tile kernels for one K.
struct TileKernels {
  void (*reduce)(const int*, int64_t, int*);                 ///< reduce_tiles<K>
  void (*scan_seeded)(const int*, int64_t, int*, const int*); ///< scan_tiles_seeded<K>
  void (*single_pass)(const int*, int64_t, int*, TileStatus*); ///< scan_single_pass<K>
};

/// The tile kernels instantiated for K.
template <int K>
TileKernels tile_kernels_of() {
  return {reduce_tiles<K>, scan_tiles_seeded<K>, scan_single_pass<K>};
}

// [dispatch]
/// The tile kernels for K = `batch`, allowed the dynamic shared memory they need with
/// `block` threads (above 48 KB a kernel must opt in). parse_or_exit() has already
/// refused every K that has no case here.
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

/// Tiles of `block` x `batch` elements covering n. N fits in device memory (below 2^36
/// elements), so with tiles of at least 32 elements a grid of one block per tile stays
/// under the 2^31 - 1 blocks a launch allows.
int64_t tiles_for(int64_t n, int block, int batch) {
  return wb::ceil_div<int64_t>(n, int64_t(block) * batch);
}

// [launcher]
/// Reduce-then-scan: three launches. `tile_sums` holds one int per tile.
void launch_reduce_then_scan(const int* in, int64_t n, int* out, int* tile_sums, int block, int batch) {
  const TileKernels k = tile_kernels(batch, block);
  const int64_t tiles = tiles_for(n, block, batch);
  k.reduce<<<unsigned(tiles), block>>>(in, n, tile_sums);
  scan_tile_sums<kSumsBatch><<<1, kSumsBlock, stage_bytes(kSumsBlock, kSumsBatch)>>>(tile_sums, tiles);
  k.scan_seeded<<<unsigned(tiles), block, stage_bytes(block, batch)>>>(in, n, out, tile_sums);
}

/// Single pass: clear the tile counter and the statuses (`state`, tiles + 1 words), then
/// one launch. The clear is part of the algorithm, so it is timed; it writes 8 bytes per
/// tile, about 0.05% of the bytes the scan moves with the default tile.
void launch_single_pass(const int* in, int64_t n, int* out, TileStatus* state, int block, int batch) {
  const TileKernels k = tile_kernels(batch, block);
  const int64_t tiles = tiles_for(n, block, batch);
  WB_CHECK(cudaMemsetAsync(state, 0, sizeof(TileStatus) * size_t(tiles + 1)));
  k.single_pass<<<unsigned(tiles), block, stage_bytes(block, batch)>>>(in, n, out, state);
}
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

/// "1.12x CUB": CUB's median time over the last row's, or nothing if CUB has not run.
std::string versus_cub(const wb::Bench& bench) {
  const auto& rows = bench.rows();
  for (const auto& r : rows) {
    if (r.kernel != kCubRow || rows.back().median_ms <= 0) continue;
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx CUB", r.median_ms / rows.back().median_ms);
    return text;
  }
  return "";
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "17";
  spec.slug = "scan-device-wide";
  spec.idea = "whole-array scan: reduce-then-scan, single pass with decoupled look-back, and CUB";
  spec.op = wb::Op::Scan;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true};
  spec.variants = {"all", "reduce_then_scan", "single_pass", "cub"};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_shared_memory(opt, dev, stage_bytes);
  // Besides input and output: 12 bytes per tile, and CUB's few bytes per CUB tile.
  wb::fit_default_n(opt, dev, 8.0 + 12.0 / (opt.block * opt.batch) + 0.05);
  wb::Input in = wb::make_input(opt);
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_inclusive(in.host.data(), want.data(), in.n);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  const int64_t tiles = tiles_for(in.n, opt.block, opt.batch);
  wb::DeviceBuffer<int> tile_sums(size_t(tiles), "the tile sums");
  wb::DeviceBuffer<TileStatus> state(size_t(tiles) + 1, "the tile counter and statuses");
  size_t cub_bytes = 0;
  WB_CHECK(cub_inclusive_sum(nullptr, cub_bytes, in.d, out.d, in.n));
  wb::DeviceBuffer<char> cub_temp(cub_bytes, "CUB's temporary storage");

  wb::Bench bench(spec, opt, dev, in);
  wb::note(opt, "%lld tiles of %d elements (block %d x K %d)\n", (long long)tiles, opt.block * opt.batch,
           opt.block, opt.batch);
  const TileKernels k = tile_kernels(opt.batch, opt.block);
  const size_t smem = stage_bytes(opt.block, opt.batch);
  const bool all = opt.variant == "all";
  if (all || opt.variant == "cub") {
    wb::Case c{kCubRow, in.n, 0, 0, 0, 0};
    bench.run(c, [&] { WB_CHECK(cub_inclusive_sum(cub_temp.get(), cub_bytes, in.d, out.d, in.n)); }, out.d,
              want.data(), in.n);
  }
  if (all || opt.variant == "reduce_then_scan") {
    wb::Case c{"scan_reduce_then_scan", in.n, opt.block, opt.batch, 0,
               wb::blocks_per_sm(k.scan_seeded, opt.block, smem)};
    bench.run(c, [&] { launch_reduce_then_scan(in.d, in.n, out.d, tile_sums.get(), opt.block, opt.batch); },
              out.d, want.data(), in.n);
    bench.annotate_last(versus_cub(bench));
  }
  if (all || opt.variant == "single_pass") {
    wb::Case c{"scan_single_pass", in.n, opt.block, opt.batch, 0,
               wb::blocks_per_sm(k.single_pass, opt.block, smem)};
    bench.run(c, [&] { launch_single_pass(in.d, in.n, out.d, state.get(), opt.block, opt.batch); }, out.d,
              want.data(), in.n);
    bench.annotate_last(versus_cub(bench));
  }
  return bench.finish();
}
