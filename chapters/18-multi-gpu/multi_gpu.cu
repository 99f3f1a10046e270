/// @file multi_gpu.cu
/// @brief Chapter 18: the sum and the scan of one array spread over several GPUs, with
/// NVIDIA's collective library NCCL carrying the few numbers that cross between them.
///
/// The idea: chapter 03's tree, one level up. Inside a GPU, blocks combine their partial
/// results; across GPUs, each GPU's result of its own shard is combined by a collective.
/// The array of N elements is cut into G contiguous shards, one per GPU, whose sizes differ
/// by at most one scan tile, and each GPU makes its shard from the same (seed, i) inputs as
/// every chapter, so any G gives the same answer.
/// - Sum: each GPU sums its shard with chapter 11's kernel; `ncclAllReduce` of that one
///   number leaves the total on every GPU.
/// - Scan: each GPU sums its shard (chapter 11's kernel again); `ncclAllGather` gives every
///   GPU the G shard totals; GPU g adds those of the shards before its own (its carry) and
///   scans its shard with chapter 17's single pass, seeded with the carry. Each element is
///   read twice and written once: 12 bytes, where scanning first and adding the carry after
///   would read and write everything twice (16 bytes).
///
/// Two ways to run: one process drives every GPU (`ncclCommInitAll`, and each collective
/// issued for all GPUs between `ncclGroupStart` and `ncclGroupEnd`), the default; or one
/// process per GPU under MPI (`mpirun -np G ./chapter18`), rank 0 broadcasting NCCL's unique
/// id over MPI, which is how the same program spans several machines. The second exists in a
/// build that found MPI.
///
/// Timing: every GPU queues its work behind a gate (a kernel that waits for a flag in host
/// memory), so that all GPUs start together when the host opens it, once everything is
/// queued; a run lasts until the last GPU holds its result. The same program times chapter
/// 11's sum and chapter 17's single pass on one GPU, alone, over one shard: the scaling
/// efficiency compares the G-GPU figure with G times that one.
///
/// Since chapters 11 and 17: their kernels are copied here unchanged, except that chapter
/// 11's block sum is chapter 17's (one contract for one name), and chapter 17's first tile
/// starts from the carry of the shards before it instead of from zero. Every launch takes a
/// stream, since each GPU has its own.

#include <cuda/atomic>
#include <nccl.h>
#if WB_WITH_MPI
#include <mpi.h>
#endif

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "workbook.cuh"

/// Threads per scan tile unless --block says otherwise (chapter 17).
constexpr int kBlock = 256;
/// Elements per thread (K) of a scan tile unless --batch says otherwise (chapter 17).
constexpr int kBatch = 32;
/// The largest K: the padded layout of load_tile is conflict-free for powers of two up to 32.
constexpr int kMaxBatch = 32;
/// Threads per block of the sum (chapter 11's tuning).
constexpr int kSumBlock = 256;
/// int4 loads per thread per tile of the sum (chapter 11's tuning).
constexpr int kSumBatch = 4;
/// The sum shares its int4 body among blocks in chunks of 32 int4s (chapter 11).
constexpr int64_t kChunk = 32;
/// Elements per GPU when --n is not given: the default N is this times G.
constexpr int64_t kDefaultPerGpu = int64_t(1) << 30;

// Chapter 17's look-back tuning (see its page): delays, window, small-input tile.
/// Sleep before the first look back when the grid is larger than one wave of resident blocks.
constexpr unsigned kPatientFirstLookNs = 3000;
/// Sleep between looks in that case.
constexpr unsigned kPatientPollNs = 1000;
/// Sleep before the first look when the whole grid fits in one wave.
constexpr unsigned kEagerFirstLookNs = 0;
/// Sleep between looks in that case.
constexpr unsigned kEagerPollNs = 100;
/// Tiles one look-back step inspects: one per lane of the looking warp.
constexpr int kWindow = 32;
/// Tiles of block x kSmallInputBatch when tiles of block x kBatch would number fewer than this.
constexpr int64_t kSmallInputTiles = 16;
/// See kSmallInputTiles.
constexpr int kSmallInputBatch = 8;

/// Threads per warp.
constexpr int kWarp = 32;
/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;

/// Exit 3 with the failing call, file and line when an NCCL call did not succeed.
inline void nccl_check(ncclResult_t r, const char* call, const char* file, int line) {
  if (r == ncclSuccess) return;
  std::fprintf(stderr, "NCCL error at %s:%d: %s\n  in: %s\n", file, line, ncclGetErrorString(r), call);
  std::exit(3);
}
/// Check an NCCL call; on failure print where and exit 3.
#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)

// [input]
/// splitmix64's finaliser, as wb::mix64 on the host.
__device__ uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Write elements [first, first + count) of the input for `seed` to shard[0, count): the same
/// values as wb::input_value on the host, made where they are used. An array larger than the
/// host's memory never passes through it, and the CPU reference, which recomputes them on the
/// host, would catch any difference.
__global__ void make_shard(int* shard, int64_t first, int64_t count, uint64_t seed) {
  const uint64_t key = mix64(seed);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const uint32_t r = uint32_t(mix64(key + uint64_t(first + i + 1) * 0x9e3779b97f4a7c15ULL) >> 60);
    shard[i] = r < 8 ? int(r) - 8 : int(r) - 7;
  }
}
// [input]

// ---- Chapter 17's warp and block scans, and its tile load and store ----------------------

/// Inclusive scan of one value per lane across a full warp, in registers (chapter 15).
__device__ int warp_inclusive_scan(int value) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const int left = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += left;
  }
  return value;
}

/// Sum of one value per lane across a full warp, every lane receiving it (chapter 17).
__device__ int warp_sum_to_all(int value) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, value);
#else
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(kFullMask, value, offset);
  return value;
#endif
}

/// The sum of one value per thread across the block, returned to every thread; each warp's
/// total stays in `warp_totals` (32 shared ints) for block_exclusive_prefix(). Holds a barrier.
__device__ int block_sum(int value, int* warp_totals) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int warp_total = warp_sum_to_all(value);
  if (lane == 0) warp_totals[warp] = warp_total;
  __syncthreads();
  return warp_sum_to_all(lane < int(blockDim.x) / kWarp ? warp_totals[lane] : 0);
}

/// After block_sum(value, warp_totals): the sum of the values of all threads before this one.
__device__ int block_exclusive_prefix(int value, const int* warp_totals) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int warps_before = warp_sum_to_all(lane < warp ? warp_totals[lane] : 0);
  return warps_before + warp_inclusive_scan(value) - value;
}

/// Shared memory (ints) that one warp needs to stage K elements per lane (chapter 16).
__host__ __device__ constexpr int stage_ints_per_warp(int k) { return (kWarp + 1) * k; }

/// Chapter 16's coalesced load: thread t gets the tile's elements [t K, t K + K), zeros past `count`.
template <int K>
__device__ void load_tile(const int* tile, int count, int* stage, int (&items)[K]) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int first = warp * kWarp * K + lane;
  int* const part = stage + warp * stage_ints_per_warp(K);
#pragma unroll
  for (int j = 0; j < K; ++j)
    part[j * (kWarp + 1) + lane] = first + j * kWarp < count ? tile[first + j * kWarp] : 0;
  __syncwarp();
  const int* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine[i];
}

/// The reverse of load_tile; only the first `count` elements are written. The caller must
/// have passed a barrier since this warp's load_tile read `stage`.
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

/// Serial inclusive scan of a thread's K elements in registers; returns their total.
template <int K>
__device__ int thread_scan(int (&items)[K]) {
#pragma unroll
  for (int i = 1; i < K; ++i) items[i] += items[i - 1];
  return items[K - 1];
}

/// Elements of tile `tile` (of `tile_size`) that lie before n.
__device__ int tile_count(int64_t tile, int tile_size, int64_t n) {
  const int64_t first = tile * tile_size;
  return n - first < tile_size ? int(n - first) : tile_size;
}

// ---- Chapter 11's sum -----------------------------------------------------------------------

/// How n ints starting at `in` divide around their 16-byte-aligned middle (chapter 10).
struct AlignedSplit {
  int64_t head;     ///< scalar elements before the first 16-byte boundary (0 to 3)
  int64_t vectors;  ///< whole int4s from that boundary on
  int64_t tail;     ///< scalar elements after the last whole int4 (0 to 3)
};

/// Split n ints at `in` into head, int4 body and tail (chapter 10).
__host__ __device__ inline AlignedSplit split_aligned(const int* in, int64_t n) {
  const int64_t to_boundary = int64_t((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / 4;
  const int64_t head = to_boundary < n ? to_boundary : n;
  const int64_t vectors = (n - head) / 4;
  return {head, vectors, n - head - 4 * vectors};
}

/// How one launch shares the int4 body among its blocks, in chunks of kChunk int4s (chapter 11).
struct Plan {
  int64_t blocks;            ///< the grid
  int64_t chunks_per_block;  ///< chunks every block reads
  int64_t extra_chunks;      ///< blocks that read one chunk more
};

/// The blocks' running total and count of finished blocks (chapter 11): zero between launches.
struct GridTotal {
  int sum;               ///< the totals of the blocks that have added theirs so far
  unsigned blocks_done;  ///< how many blocks have added their total
};

// [sum]
/// Chapter 11's one-launch sum of in[0, n) into `*sum`, with chapter 17's block_sum.
template <int K>
__global__ void __launch_bounds__(1024, 1)
    reduce_best(const int* __restrict__ in, int64_t n, Plan plan, GridTotal* grid_total, int* sum) {
  __shared__ int warp_totals[kWarp];
  const AlignedSplit split = split_aligned(in, n);
  const int4* body = reinterpret_cast<const int4*>(in + split.head);
  const unsigned tid = threadIdx.x;
  const int stride = blockDim.x;
  const int64_t tile = int64_t(stride) * K;
  const int64_t b = blockIdx.x;
  const int64_t first_chunk = b * plan.chunks_per_block + (b < plan.extra_chunks ? b : plan.extra_chunks);
  const int64_t chunks = plan.chunks_per_block + (b < plan.extra_chunks ? 1 : 0);
  const int64_t begin = first_chunk * kChunk;
  const int64_t share_end = (first_chunk + chunks) * kChunk;
  const int64_t end = share_end < split.vectors ? share_end : split.vectors;

  int total = 0;
  if (b == 0) {
    if (tid < split.head) total += in[tid];
    if (tid < split.tail) total += in[n - split.tail + tid];
  }
  const int4* p = body + begin + tid;
  int64_t left = end - begin;
#pragma unroll 1
  for (; left >= tile; left -= tile, p += tile) {
    int4 x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = p[k * stride];
#pragma unroll
    for (int k = 0; k < K; ++k) total += x[k].x + x[k].y + x[k].z + x[k].w;
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (tid + k * stride < left) {
      const int4 x = p[k * stride];
      total += x.x + x.y + x.z + x.w;
    }
  }
  total = block_sum(total, warp_totals);
  if (tid != 0) return;

  if (gridDim.x == 1) {
    *sum = total;
    return;
  }
  atomicAdd(&grid_total->sum, total);
  __threadfence();
  if (atomicAdd(&grid_total->blocks_done, 1u) == gridDim.x - 1) {
    __threadfence();
    *sum = atomicExch(&grid_total->sum, 0);
    grid_total->blocks_done = 0;
  }
}
// [sum]

/// Chapter 11's grid and shares for n ints: one block per tile, at most one resident wave.
Plan plan_best(const int* in, int64_t n, int64_t max_blocks) {
  const int64_t vectors = split_aligned(in, n).vectors;
  const int64_t chunks = wb::ceil_div(vectors, kChunk);
  const int64_t tiles = wb::ceil_div(vectors, int64_t(kSumBlock) * kSumBatch);
  const int64_t blocks = std::max<int64_t>(1, std::min(tiles, max_blocks));
  return {blocks, chunks / blocks, chunks % blocks};
}

// ---- Chapter 17's single pass, seeded with a carry ---------------------------------------

/// A tile's status: epoch and flag in the high 32 bits, the value in the low 32 (chapter 17).
using TileStatus = unsigned long long;
/// Flag: the value is the tile's own sum.
constexpr unsigned kAggregate = 1;
/// Flag: the value is the sum of the tile and everything before it.
constexpr unsigned kPrefix = 2;
/// Epochs run from 1 to this one, then every status word is cleared (chapter 17).
constexpr unsigned kLastEpoch = (1u << 30) - 1;

/// What one launch of the single pass needs besides its input and output.
struct LookBackArgs {
  unsigned long long* counter;      ///< the tile counter: tiles are numbered counter - counter_base
  unsigned long long counter_base;  ///< the counter's value when this launch began
  TileStatus* statuses;             ///< one word per tile
  unsigned epoch;                   ///< this launch's number
  unsigned first_look_ns;           ///< sleep between publishing the aggregate and the first look
  unsigned poll_ns;                 ///< sleep between looks while a needed tile is not ready
  const int* shard_totals;          ///< the sums of all G shards, in order (from the all-gather)
  int shard;                        ///< this GPU's shard: its carry is the sum of the totals before it
};

/// The status word of `flag` and `value` in `epoch`.
__device__ TileStatus status_word(unsigned epoch, unsigned flag, int value) {
  return (TileStatus((epoch << 2) | flag) << 32) | unsigned(value);
}
/// Whether a status word was published in `epoch`.
__device__ bool is_current(TileStatus s, unsigned epoch) { return unsigned(s >> 32) >> 2 == epoch; }
/// The flag of a status word.
__device__ unsigned flag_of(TileStatus s) { return unsigned(s >> 32) & 3u; }
/// The value of a status word.
__device__ int value_of(TileStatus s) { return int(unsigned(s)); }

/// Publish a tile's flag and value in one relaxed atomic store at device scope (chapter 17).
__device__ void publish(TileStatus* status, unsigned epoch, unsigned flag, int value) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  word.store(status_word(epoch, flag, value), cuda::memory_order_relaxed);
}
/// Read a tile's status word in one relaxed atomic load at device scope (chapter 17).
__device__ TileStatus observe(TileStatus* status) {
  cuda::atomic_ref<TileStatus, cuda::thread_scope_device> word(*status);
  return word.load(cuda::memory_order_relaxed);
}

// [carry]
/// The carry into this GPU's shard: the sum of the shards before it, wrapping like every sum.
/// The all-gather has put every shard's total on every GPU before the scan starts.
__device__ int shard_carry(const LookBackArgs& a) {
  unsigned carry = 0;
  for (int s = 0; s < a.shard; ++s) carry += unsigned(a.shard_totals[s]);
  return int(carry);
}
// [carry]

/// Chapter 17's decoupled look-back by warp 0: the sum of all tiles before this one, plus
/// the shard's carry, which tile 0 holds in its prefix.
__device__ int look_back(const LookBackArgs& a, int64_t tile, int aggregate) {
  const int lane = threadIdx.x % kWarp;
  if (tile == 0) return shard_carry(a);
  if (a.first_look_ns > 0) __nanosleep(a.first_look_ns);
  int exclusive = 0;
  for (int64_t nearest = tile - 1;; nearest -= kWindow) {
    const int64_t other = nearest - (kWindow - 1) + lane;
    TileStatus s = other < 0 ? status_word(a.epoch, kPrefix, 0) : 0;
    unsigned prefixes, waiting;
    do {
      if (!is_current(s, a.epoch)) s = observe(&a.statuses[other]);
      const bool ready = is_current(s, a.epoch);
      prefixes = __ballot_sync(kFullMask, ready && flag_of(s) == kPrefix);
      const unsigned needed = prefixes ? kFullMask << (kWarp - 1 - __clz(int(prefixes))) : kFullMask;
      waiting = __ballot_sync(kFullMask, !ready) & needed;
      if (waiting != 0) __nanosleep(a.poll_ns);
    } while (waiting != 0);
    const int from = prefixes ? kWarp - 1 - __clz(int(prefixes)) : 0;
    exclusive += warp_sum_to_all(lane >= from ? value_of(s) : 0);
    if (prefixes != 0) break;
  }
  if (lane == 0) publish(&a.statuses[tile], a.epoch, kPrefix, exclusive + aggregate);
  return exclusive;
}

// [kernel]
/// Chapter 17's single-pass scan of one shard; tile 0 starts from the shard's carry.
template <int K>
__global__ void __launch_bounds__(1024)
    scan_single_pass(const int* in, int64_t n, int* out, LookBackArgs a) {
  extern __shared__ int stage[];
  __shared__ int warp_totals[kWarp];
  __shared__ unsigned long long tile_number;
  __shared__ int tile_carry;
  if (threadIdx.x == 0) tile_number = atomicAdd(a.counter, 1ull) - a.counter_base;
  __syncthreads();
  const int64_t tile = int64_t(tile_number);
  const int tile_size = int(blockDim.x) * K;
  const int count = tile_count(tile, tile_size, n);
  const int64_t first = tile * tile_size;

  int items[K];
  load_tile<K>(in + first, count, stage, items);
  const int thread_total = thread_scan<K>(items);

  const int tile_total = block_sum(thread_total, warp_totals);
  if (threadIdx.x == 0)
    publish(&a.statuses[tile], a.epoch, tile == 0 ? kPrefix : kAggregate,
            tile == 0 ? shard_carry(a) + tile_total : tile_total);

  const int within_tile = block_exclusive_prefix(thread_total, warp_totals);

  if (threadIdx.x < kWarp) {
    const int carry = look_back(a, tile, tile_total);
    if (threadIdx.x == 0) tile_carry = carry;
  }
  __syncthreads();
  const int before = tile_carry + within_tile;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] += before;
  store_tile<K>(out + first, count, stage, items);
}
// [kernel]

/// Dynamic shared memory of a scan block of `block` threads with K = `batch`.
size_t stage_bytes(int block, int batch) {
  return sizeof(int) * size_t(block / kWarp) * stage_ints_per_warp(batch);
}

/// The single pass for K = `batch`, allowed the shared memory it needs with `block` threads.
/// parse_or_exit() has already refused every K without a case here.
using ScanKernel = void (*)(const int*, int64_t, int*, LookBackArgs);
/// The single pass for K = `batch`, allowed its shared memory with `block` threads on the
/// current device (see above).
ScanKernel scan_kernel(int batch, int block) {
  ScanKernel k = nullptr;
  switch (batch) {
    case 1: k = scan_single_pass<1>; break;
    case 2: k = scan_single_pass<2>; break;
    case 4: k = scan_single_pass<4>; break;
    case 8: k = scan_single_pass<8>; break;
    case 16: k = scan_single_pass<16>; break;
    case 32: k = scan_single_pass<32>; break;
    default:
      std::fprintf(stderr, "internal error: no single pass for K = %d\n", batch);
      std::exit(3);
  }
  WB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(stage_bytes(block, batch))));
  return k;
}

/// Tiles of `block` x `batch` elements covering n.
int64_t tiles_for(int64_t n, int block, int batch) { return wb::ceil_div<int64_t>(n, int64_t(block) * batch); }

/// Chapter 17's tuned policy: the tile, the delays, epochs instead of a memset.
struct ScanPolicy {
  int block = kBlock;                            ///< threads per tile
  int batch = kBatch;                            ///< elements per thread (K)
  unsigned first_look_ns = kPatientFirstLookNs;  ///< sleep before the first look back
  unsigned poll_ns = kPatientPollNs;             ///< sleep between looks

  /// "tile=256x32 window=32 first_look_ns=3000 poll_ns=1000"
  std::string describe() const {
    char text[128];
    std::snprintf(text, sizeof text, "tile=%dx%d window=%d first_look_ns=%u poll_ns=%u", block, batch, kWindow,
                  first_look_ns, poll_ns);
    return text;
  }
};

/// Chapter 17's choose_policy() for a shard of n elements on `dev`.
ScanPolicy choose_policy(const wb::Options& opt, const wb::Device& dev, int64_t n) {
  ScanPolicy p;
  p.block = opt.block;
  p.batch = opt.batch;
  if (!opt.batch_given && tiles_for(n, p.block, kBatch) < kSmallInputTiles) p.batch = kSmallInputBatch;
  const int per_sm = wb::blocks_per_sm(scan_kernel(p.batch, p.block), p.block, stage_bytes(p.block, p.batch));
  const bool one_wave = tiles_for(n, p.block, p.batch) <= int64_t(dev.sms) * per_sm;
  p.first_look_ns = one_wave ? kEagerFirstLookNs : kPatientFirstLookNs;
  p.poll_ns = one_wave ? kEagerPollNs : kPatientPollNs;
  return p;
}

/// The tile counter and statuses of one GPU's single pass (chapter 17's SinglePass, with
/// a stream and without the memset option).
class SinglePass {
 public:
  /// Room for up to `max_tiles` tiles on the current device; the words start cleared.
  explicit SinglePass(int64_t max_tiles)
      : words_(size_t(max_tiles) + 1, "the tile counter and statuses"), max_tiles_(max_tiles) {
    WB_CHECK(cudaMemset(words_.get(), 0, sizeof(TileStatus) * size_t(max_tiles + 1)));
    WB_CHECK(cudaDeviceSynchronize());
  }

  /// One scan of in[0, n) into out with `policy` on `stream`, seeded with the carry of
  /// `shard` from `shard_totals` (device memory, written earlier on the same stream).
  void launch(const ScanPolicy& policy, ScanKernel kernel, const int* in, int64_t n, int* out,
              const int* shard_totals, int shard, cudaStream_t stream) {
    const int64_t tiles = tiles_for(n, policy.block, policy.batch);
    if (tiles == 0) return;  // an empty shard (N smaller than G tiles): nothing to scan
    if (tiles > max_tiles_) {
      std::fprintf(stderr, "internal error: %lld tiles, but statuses for %lld\n", (long long)tiles, (long long)max_tiles_);
      std::exit(3);
    }
    if (epoch_ == kLastEpoch) {
      WB_CHECK(cudaMemsetAsync(words_.get(), 0, sizeof(TileStatus) * size_t(max_tiles_ + 1), stream));
      counter_ = 0;
      epoch_ = 0;
    }
    epoch_ += 1;
    const LookBackArgs a{words_.get(), counter_, words_.get() + 1, epoch_, policy.first_look_ns,
                         policy.poll_ns, shard_totals, shard};
    kernel<<<unsigned(tiles), policy.block, stage_bytes(policy.block, policy.batch), stream>>>(in, n, out, a);
    counter_ += static_cast<unsigned long long>(tiles);
  }

 private:
  wb::DeviceBuffer<TileStatus> words_;  // [0] the tile counter, [1 + t] the status of tile t
  int64_t max_tiles_;
  unsigned long long counter_ = 0;
  unsigned epoch_ = 0;
};

// ---- Several GPUs ---------------------------------------------------------------------------

/// How long a gate waits for the host before it opens by itself (see wait_for_gate).
constexpr unsigned long long kGateTimeoutNs = 2000000000ull;

// [gate]
/// Wait until the host sets gate[0] (pinned host memory, mapped into every GPU). Each GPU's
/// work is queued behind this kernel, so that all start together once the host has queued
/// everything and opens the gate with one store. Should the host ever wait for this GPU
/// while queuing (a library call that synchronizes), the gate would never open: after
/// kGateTimeoutNs it opens by itself and sets gate[1], and the host reports that the run
/// could not be timed (exit 3).
__global__ void wait_for_gate(int* gate) {
  cuda::atomic_ref<int, cuda::thread_scope_system> open(gate[0]), timed_out(gate[1]);
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (open.load(cuda::memory_order_relaxed) == 0) {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > kGateTimeoutNs) {
      timed_out.store(1, cuda::memory_order_relaxed);
      return;
    }
  }
}
// [gate]

/// The processes of this run: one that drives every GPU, or one per GPU under MPI.
struct Team {
  bool mpi = false;  ///< one process per GPU, started by mpirun
  int rank = 0;      ///< this process's rank (0 without MPI)
  int size = 1;      ///< processes (1 without MPI)

  /// Wait until every process is here.
  void barrier() const {
#if WB_WITH_MPI
    if (mpi) MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  /// The largest of every process's `v`.
  double max(double v) const {
#if WB_WITH_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    return v;
  }
  /// Whether `v` holds in every process.
  bool all(bool v) const { return max(v ? 0.0 : 1.0) == 0.0; }
  /// End this process (and MPI) with `status`; every process calls it with the same status.
  [[noreturn]] void exit(int status) const {
#if WB_WITH_MPI
    if (mpi) MPI_Finalize();
#endif
    std::exit(status);
  }
};

/// Whether this process was started by mpirun (Open MPI, MPICH, Slurm and PMIx set these).
bool started_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"})
    if (std::getenv(name)) return true;
  return false;
}

/// One GPU, its shard and everything it keeps.
struct Gpu {
  int index = 0;          ///< g: the shard it holds, 0 to G - 1
  int device = 0;         ///< CUDA ordinal
  int64_t first = 0;      ///< the shard's first element in the whole array
  int64_t count = 0;      ///< the shard's elements
  cudaStream_t stream = nullptr;  ///< everything of this GPU is queued here
  ncclComm_t comm = nullptr;      ///< its rank in the NCCL communicator
  cudaEvent_t start = nullptr;    ///< recorded when its gate opens
  cudaEvent_t stop = nullptr;     ///< recorded after its result
  wb::DeviceArray in;     ///< the shard's input (--offset into its allocation)
  wb::DeviceArray out;    ///< the shard's scan (empty when the scan runs in place)
  wb::DeviceBuffer<int> shard_sum;     ///< this shard's total (the sum's and the scan's first step)
  wb::DeviceBuffer<int> total;         ///< the all-reduced total
  wb::DeviceBuffer<int> shard_totals;  ///< the all-gathered totals of every shard
  wb::DeviceBuffer<GridTotal> grid_total;  ///< chapter 11's running total between blocks
  wb::DeviceBuffer<char> flush;        ///< written before each timed run to flush L2
  std::unique_ptr<SinglePass> single_pass;  ///< its tile counter and statuses
  ScanPolicy policy;                        ///< chapter 17's policy for its shard
  ScanKernel kernel = nullptr;              ///< the single pass for that policy
  int64_t max_sum_blocks = 0;               ///< the sum's grid: one wave of resident blocks
};

/// Make GPU g's shard of the input for `seed` on its stream.
void remake_input(const Gpu& g, uint64_t seed) {
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(wb::ceil_div<int64_t>(g.count, 256), 65536));
  make_shard<<<unsigned(blocks), 256, 0, g.stream>>>(g.in.d, g.first, g.count, seed);
  WB_CHECK_LAUNCH();
}

/// Something queued on one GPU's stream.
using Work = std::function<void(Gpu&)>;

/// One run of an operation on one GPU, in three steps: its own work before the collective,
/// the collective, and its own work after it (any may be empty). The steps are queued for
/// every GPU in turn, because NCCL queues the collectives of a group only at ncclGroupEnd:
/// a kernel queued inside the group would run before the collective it needs.
struct Steps {
  Work before;      ///< e.g. the shard's sum
  Work collective;  ///< an NCCL call
  Work after;       ///< e.g. the scan seeded with the carry
};

/// The host's view of this process: its GPUs, the pinned gate and the command line.
struct Multi {
  Team team;     ///< the processes
  int gpus = 1;  ///< G
  std::vector<Gpu> local;  ///< the GPUs this process drives (all G, or its one under MPI)
  int* gate = nullptr;     ///< pinned, mapped host memory: [0] open, [1] a gate opened by itself
  const wb::Options* opt = nullptr;  ///< the command line
  wb::Device dev;          ///< the first local GPU's facts (every GPU of a run is alike here)
};

/// Shard boundaries: the array's tiles of `tile` elements shared as evenly as possible, the
/// first shards taking one tile more; the last shard ends at n.
std::vector<int64_t> shard_starts(int64_t n, int gpus, int64_t tile) {
  const int64_t tiles = wb::ceil_div(n, tile);
  std::vector<int64_t> starts(size_t(gpus) + 1);
  for (int g = 0; g <= gpus; ++g) {
    const int64_t t = g * (tiles / gpus) + std::min<int64_t>(g, tiles % gpus);
    starts[size_t(g)] = std::min(n, t * tile);
  }
  return starts;
}

// [timing]
/// Run `steps` once on every GPU of this process (or on shard 0's alone, `only_shard0`), all
/// starting together behind the gate; `prepare` runs first, untimed (poison the output, or
/// remake an input that the last run overwrote), then, for a `timed` run, L2 is flushed.
/// Returns the milliseconds from the gate's opening to the last GPU's end, over every process.
double run_once(Multi& m, const Steps& steps, const Work& prepare, bool only_shard0, bool timed) {
  reinterpret_cast<volatile int*>(m.gate)[0] = 0;
  for (Gpu& g : m.local) {
    if (only_shard0 && g.index != 0) continue;
    WB_CHECK(cudaSetDevice(g.device));
    prepare(g);
    if (timed && m.opt->flush) WB_CHECK(cudaMemsetAsync(g.flush.get(), 0x5a, g.flush.size(), g.stream));
    wait_for_gate<<<1, 1, 0, g.stream>>>(m.gate);
    WB_CHECK(cudaEventRecord(g.start, g.stream));
  }
  auto each = [&](const Work& w) {
    for (Gpu& g : m.local) {
      if (only_shard0 && g.index != 0) continue;
      WB_CHECK(cudaSetDevice(g.device));
      if (w) w(g);
    }
  };
  each(steps.before);
  if (steps.collective) {
    // One process that drives several GPUs issues their collectives as one group, so that
    // NCCL launches them together instead of blocking on the first GPU's before the second's.
    const bool group = !m.team.mpi;
    if (group) NCCL_CHECK(ncclGroupStart());
    each(steps.collective);
    if (group) NCCL_CHECK(ncclGroupEnd());
  }
  each(steps.after);
  each([](Gpu& g) {
    WB_CHECK(cudaEventRecord(g.stop, g.stream));
    WB_CHECK_LAUNCH();
  });
  m.team.barrier();  // every process has queued its work
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile int*>(m.gate)[0] = 1;
  float last = 0;
  for (Gpu& g : m.local) {
    if (only_shard0 && g.index != 0) continue;
    WB_CHECK(cudaSetDevice(g.device));
    WB_CHECK(cudaEventSynchronize(g.stop));
    float ms = 0;
    WB_CHECK(cudaEventElapsedTime(&ms, g.start, g.stop));
    last = std::max(last, ms);
  }
  if (!m.team.all(m.gate[1] == 0)) {
    // Not a wrong result (exit 1): the run could not be timed as it was meant to be.
    std::fprintf(stderr, "error: a gate opened by itself after %.0f s: the host waited for a GPU while queuing a run\n",
                 kGateTimeoutNs / 1e9);
    m.team.exit(3);
  }
  return m.team.max(last);
}
// [timing]

// ---- The CPU reference, a slice at a time ----------------------------------------------------

/// Elements the host checks at a time: each worker thread holds one slice.
constexpr int64_t kSlice = int64_t(1) << 22;

/// The CPU reference of the whole array without the array: the wrap-around sum of every
/// slice of every shard (slices never cross a shard's end), from which the prefix at any
/// slice's start follows. Computing it reads nothing but (seed, i).
struct Reference {
  std::vector<int64_t> starts;         ///< shard boundaries (G + 1)
  std::vector<int64_t> slice_first;    ///< the first element of each slice, shard by shard
  std::vector<uint32_t> slice_before;  ///< the inclusive-scan value just before each slice
  uint32_t total = 0;                  ///< the sum of everything
};

/// Build the reference for the shards `starts` of the input of `seed`.
Reference make_reference(const std::vector<int64_t>& starts, uint64_t seed) {
  Reference r;
  r.starts = starts;
  for (size_t g = 0; g + 1 < starts.size(); ++g)
    for (int64_t at = starts[g]; at < starts[g + 1]; at += kSlice) r.slice_first.push_back(at);
  const size_t slices = r.slice_first.size();
  std::vector<uint32_t> sums(slices);
  auto end_of = [&](size_t s) {
    const int64_t next = s + 1 < slices ? r.slice_first[s + 1] : starts.back();
    return std::min(next, r.slice_first[s] + kSlice);
  };
  wb::parallel_for(int64_t(slices) * kSlice, [&](int, int64_t b, int64_t e) {
    for (size_t s = size_t(wb::ceil_div(b, kSlice)); s < slices && int64_t(s) * kSlice < e; ++s) {
      uint32_t sum = 0;
      for (int64_t i = r.slice_first[s]; i < end_of(s); ++i) sum += uint32_t(wb::input_value(seed, uint64_t(i)));
      sums[s] = sum;
    }
  });
  r.slice_before.resize(slices);
  uint32_t run = 0;
  for (size_t s = 0; s < slices; ++s) {
    r.slice_before[s] = run;
    run += sums[s];
  }
  r.total = run;
  return r;
}

/// What a check of one output found: the first wrong element, if any.
struct Finding {
  int64_t index = -1;  ///< in the whole array; -1: all right
  int32_t got = 0;     ///< the GPU's value there
  int32_t want = 0;    ///< the CPU reference's
};

/// Check every element of GPU g's shard at `d` exactly against the CPU reference: the
/// input itself (`scan` false) or its inclusive scan (`scan` true). Worker threads each
/// copy one slice at a time to the host and recompute it, so the host never holds the array.
Finding check_shard(const Reference& r, const Gpu& g, const int* d, bool scan, uint64_t seed) {
  std::vector<size_t> mine;
  for (size_t s = 0; s < r.slice_first.size(); ++s)
    if (r.slice_first[s] >= g.first && r.slice_first[s] < g.first + g.count) mine.push_back(s);
  std::mutex lock;
  Finding found;
  const int workers = std::max(1, std::min<int>(int(mine.size()), wb::worker_count(int64_t(1) << 30)));
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      WB_CHECK(cudaSetDevice(g.device));
      std::vector<int32_t> got(static_cast<size_t>(kSlice));
      for (size_t k = next++; k < mine.size(); k = next++) {
        const size_t s = mine[k];
        const int64_t from = r.slice_first[s];
        const int64_t to = std::min(g.first + g.count, from + kSlice);
        WB_CHECK(cudaMemcpy(got.data(), d + (from - g.first), size_t(to - from) * 4, cudaMemcpyDeviceToHost));
        uint32_t run = r.slice_before[s];
        for (int64_t i = from; i < to; ++i) {
          const int32_t x = wb::input_value(seed, uint64_t(i));
          run += uint32_t(x);
          const int32_t want = scan ? int32_t(run) : x;
          if (got[size_t(i - from)] != want) {
            std::lock_guard<std::mutex> hold(lock);
            if (found.index < 0 || i < found.index) found = Finding{i, got[size_t(i - from)], want};
            break;
          }
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  return found;
}

// ---- main -------------------------------------------------------------------------------------

/// One row of the report for `kernel` over n elements moving `bytes`, from run times.
wb::Row make_row(const std::string& kernel, int64_t n, double bytes, const std::vector<float>& times, double peak,
                 bool verified, const std::string& config) {
  wb::Row r;
  r.chapter = "18";
  r.kernel = kernel;
  r.n = n;
  r.bytes = bytes;
  r.median_ms = wb::median(times);
  r.min_ms = *std::min_element(times.begin(), times.end());
  r.verified = verified;
  r.config = config;
  wb::set_bandwidth(r, peak);
  return r;
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "18";
  spec.slug = "multi-gpu";
  spec.idea = "the sum and the scan over several GPUs: each GPU its shard (chapters 11 and 17), NCCL's "
              "all-reduce and all-gather between them";
  spec.op = wb::Op::Scan;
  spec.bytes = "the sums count each element read (4 bytes), the scans each element read and written (8 bytes)";
  spec.part = wb::Part::MultiGpu;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true};
  spec.variants = {{"all", {"sum_one_gpu", "sum_allreduce", "scan_one_gpu", "scan_allgather"}},
                   {"sum", {"sum_one_gpu", "sum_allreduce"}},
                   {"scan", {"scan_one_gpu", "scan_allgather"}},
                   {"scan_in_place", {"scan_one_gpu_in_place", "scan_allgather_in_place"}}};
  spec.extra_usage =
      "  --gpus G      GPUs to spread the array over (default: every visible GPU from --device on;\n"
      "                under mpirun: one per process, and G must equal the number of processes)\n"
      "  The array of N elements (default 2^30 per GPU) is cut into G shards. Run one process per\n"
      "  GPU with `mpirun -np G ./chapter18` in a build that found MPI.\n";
  spec.extra_flags = {"--gpus"};

  // --gpus is this chapter's own flag: take it out before the shared parser sees argv.
  int gpus_asked = 0;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && (a == "--gpus" || a.rfind("--gpus=", 0) == 0)) {
      std::string text = a == "--gpus" ? (i + 1 < argc ? argv[++i] : "") : a.substr(7);
      int64_t v = 0;
      if (!wb::parse_count(text, v) || v < 1 || v > 1024) {
        std::fprintf(stderr, "chapter18: --gpus '%s' is not allowed: give a whole number from 1 to 1024\n", text.c_str());
        return 2;
      }
      gpus_asked = int(v);
      continue;
    }
    args.push_back(argv[i]);
  }
  wb::Options opt = wb::parse_or_exit(int(args.size()), args.data(), spec);

  Multi m;
  m.opt = &opt;
  if (started_by_mpirun()) {
#if WB_WITH_MPI
    MPI_Init(&argc, &argv);
    m.team.mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &m.team.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m.team.size);
#else
    std::fprintf(stderr, "chapter18: started by mpirun, but this build has no MPI (CMake did not find it); "
                         "install MPI (e.g. libopenmpi-dev) and rebuild, or run ./chapter18 alone\n");
    return 2;
#endif
  }
  const Team& team = m.team;
  const bool speak = team.rank == 0;
  if (!speak) opt.csv = true;  // notes of other ranks go to stderr, and their table is not printed

  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
    (void)cudaGetLastError();
    if (speak) std::fprintf(stderr, "no usable CUDA device; nothing to run, exiting 77\n");
    team.exit(77);
  }
  if (team.mpi) {
    if (gpus_asked != 0 && gpus_asked != team.size) {
      if (speak) std::fprintf(stderr, "chapter18: --gpus %d is not allowed under mpirun -np %d: one GPU per process\n",
                              gpus_asked, team.size);
      team.exit(2);
    }
    m.gpus = team.size;
    // This process's GPU: its rank among the processes of its machine.
    int local_rank = 0;
#if WB_WITH_MPI
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, team.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
#endif
    if (!team.all(opt.device + local_rank < visible)) {
      if (speak) std::printf("skipped: mpirun -np %d needs %d GPUs on each machine, from --device %d; this one has %d\n",
                             team.size, team.size, opt.device, visible);
      team.exit(77);
    }
    m.local.resize(1);
    m.local[0].index = team.rank;
    m.local[0].device = opt.device + local_rank;
  } else {
    if (opt.device >= visible) {
      std::fprintf(stderr, "--device %d is not allowed: this machine has devices 0 to %d\n", opt.device, visible - 1);
      return 2;
    }
    const int available = visible - opt.device;
    if (gpus_asked > available) {
      std::fprintf(stderr, "chapter18: --gpus %d is not allowed: this machine has %d GPU(s) from --device %d\n",
                   gpus_asked, available, opt.device);
      return 2;
    }
    m.gpus = gpus_asked ? gpus_asked : available;
    m.local.resize(size_t(m.gpus));
    for (int g = 0; g < m.gpus; ++g) {
      m.local[size_t(g)].index = g;
      m.local[size_t(g)].device = opt.device + g;
    }
  }
  wb::Options dev_opt = opt;
  dev_opt.device = m.local[0].device;
  m.dev = wb::open_device(dev_opt);
  wb::fit_shared_memory(opt, m.dev, stage_bytes);
  const bool in_place = opt.variant == "scan_in_place";
  if (!opt.n_given) {
    // Chapter 17's bytes per element on each GPU (input, output, statuses) decide the default.
    opt.n = kDefaultPerGpu;
    wb::fit_default_n(opt, m.dev, (in_place ? 4.0 : 8.0) + 12.0 / (opt.block * kSmallInputBatch));
    opt.n *= m.gpus;
  }
  const int64_t n = opt.n;
  if (m.gpus == 1) wb::note(opt, "note: one GPU, so G = 1: the collectives have one member and the shard is the whole array\n");

  // The shards, in tiles of the scan's default tile, so that only the last tile of the last shard is partial.
  const std::vector<int64_t> starts = shard_starts(n, m.gpus, int64_t(opt.block) * opt.batch);

  // NCCL: one communicator per GPU.
  std::vector<ncclComm_t> comms(size_t(m.local.size()));
  if (team.mpi) {
#if WB_WITH_MPI
    ncclUniqueId id;
    if (team.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    WB_CHECK(cudaSetDevice(m.local[0].device));
    NCCL_CHECK(ncclCommInitRank(&comms[0], team.size, id, team.rank));
#endif
  } else {
    std::vector<int> devices;
    for (const Gpu& g : m.local) devices.push_back(g.device);
    NCCL_CHECK(ncclCommInitAll(comms.data(), m.gpus, devices.data()));
  }
  WB_CHECK(cudaHostAlloc(&m.gate, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  m.gate[0] = m.gate[1] = 0;

  wb::memory_use().n = n;
  for (size_t k = 0; k < m.local.size(); ++k) {
    Gpu& g = m.local[k];
    WB_CHECK(cudaSetDevice(g.device));
    g.comm = comms[k];
    g.first = starts[size_t(g.index)];
    g.count = starts[size_t(g.index) + 1] - g.first;
    WB_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    WB_CHECK(cudaEventCreate(&g.start));
    WB_CHECK(cudaEventCreate(&g.stop));
    g.in = wb::make_array(opt, std::max<int64_t>(g.count, 1), "the shard's input");
    // A separate output only where a scan writes one (the sum writes one number; scan_in_place overwrites its input).
    if (opt.variant == "all" || opt.variant == "scan")
      g.out = wb::make_array(opt, std::max<int64_t>(g.count, 1), "the shard's output");
    g.shard_sum = wb::DeviceBuffer<int>(1, "the shard's sum");
    g.total = wb::DeviceBuffer<int>(1, "the total");
    g.shard_totals = wb::DeviceBuffer<int>(size_t(m.gpus), "the shard totals");
    g.grid_total = wb::DeviceBuffer<GridTotal>(1, "the sum's grid total");
    // On the GPU's own stream, which is non-blocking: a plain cudaMemset goes to the legacy
    // default stream, which nothing orders before the work queued on g.stream.
    WB_CHECK(cudaMemsetAsync(g.grid_total.get(), 0, sizeof(GridTotal), g.stream));
    // The untimed collectives below read these before any kernel has written them.
    WB_CHECK(cudaMemsetAsync(g.shard_sum.get(), 0, sizeof(int), g.stream));
    WB_CHECK(cudaMemsetAsync(g.shard_totals.get(), 0, sizeof(int) * size_t(m.gpus), g.stream));
    if (opt.flush) g.flush = wb::DeviceBuffer<char>(size_t(2 * std::max<int64_t>(m.dev.l2_bytes, 1 << 20)), "the L2 flush buffer");
    g.policy = choose_policy(opt, m.dev, g.count);
    g.kernel = scan_kernel(g.policy.batch, g.policy.block);
    g.single_pass = std::make_unique<SinglePass>(tiles_for(std::max<int64_t>(g.count, 1), opt.block, std::min(opt.batch, kSmallInputBatch)));
    g.max_sum_blocks = int64_t(m.dev.sms) * wb::blocks_per_sm(reduce_best<kSumBatch>, kSumBlock);
    remake_input(g, opt.seed);
    WB_CHECK(cudaStreamSynchronize(g.stream));
  }

  // NCCL connects the GPUs of a communicator at their first collective, and that first call
  // waits for the GPUs: made behind a closed gate, it would never return. So one all-reduce
  // and one all-gather run now, untimed.
  if (!team.mpi) NCCL_CHECK(ncclGroupStart());
  for (Gpu& g : m.local) {
    WB_CHECK(cudaSetDevice(g.device));
    NCCL_CHECK(ncclAllReduce(g.shard_sum.get(), g.total.get(), 1, ncclUint32, ncclSum, g.comm, g.stream));
    NCCL_CHECK(ncclAllGather(g.shard_sum.get(), g.shard_totals.get(), 1, ncclInt32, g.comm, g.stream));
  }
  if (!team.mpi) NCCL_CHECK(ncclGroupEnd());
  for (Gpu& g : m.local) {
    WB_CHECK(cudaSetDevice(g.device));
    WB_CHECK(cudaStreamSynchronize(g.stream));
  }

  if (speak) {
    wb::note(opt, "chapter 18 multi-gpu: %s\n", spec.idea);
    wb::note(opt, "%d GPU(s), %s; GPU 0: %s, %d SMs, %.1f GiB; theoretical peak %.0f GB/s each\n", m.gpus,
             team.mpi ? "one process per GPU (MPI)" : "one process drives all (ncclCommInitAll)", m.dev.name.c_str(),
             m.dev.sms, m.dev.total_bytes / 1073741824.0, m.dev.peak_gbps);
    wb::note(opt, "input: N = %s in %d shard(s) of %lld to %lld elements, offset %lld; %s; median of %d runs after %d warm-up\n\n",
             wb::describe_n(n).c_str(), m.gpus, (long long)(starts[size_t(m.gpus)] - starts[size_t(m.gpus) - 1]),
             (long long)(starts[1] - starts[0]), (long long)opt.offset,
             opt.flush ? "L2 flushed on every GPU before each timed run" : "L2 NOT flushed (--no-flush)", opt.reps, opt.warmup);
  }
  const Reference ref = make_reference(starts, opt.seed);

  // The work of each row, on one GPU.
  // [steps]
  const Work shard_sum = [&](Gpu& g) {
    const Plan plan = plan_best(g.in.d, g.count, g.max_sum_blocks);
    reduce_best<kSumBatch><<<unsigned(plan.blocks), kSumBlock, 0, g.stream>>>(g.in.d, g.count, plan, g.grid_total.get(),
                                                                              g.shard_sum.get());
  };
  // uint32: NCCL's sum then wraps around as the GPU's int32 adds do (signed overflow is undefined in C++).
  const Work all_reduce = [&](Gpu& g) {
    NCCL_CHECK(ncclAllReduce(g.shard_sum.get(), g.total.get(), 1, ncclUint32, ncclSum, g.comm, g.stream));
  };
  const Work all_gather = [&](Gpu& g) {
    NCCL_CHECK(ncclAllGather(g.shard_sum.get(), g.shard_totals.get(), 1, ncclInt32, g.comm, g.stream));
  };
  auto scan_out = [&](Gpu& g) { return in_place ? g.in.d : g.out.d; };
  const Work seeded_scan = [&](Gpu& g) {
    g.single_pass->launch(g.policy, g.kernel, g.in.d, g.count, scan_out(g), g.shard_totals.get(), g.index, g.stream);
  };
  const Steps sum_one{shard_sum, nullptr, nullptr};
  const Steps sum_all{shard_sum, all_reduce, nullptr};
  const Steps scan_one{nullptr, nullptr, seeded_scan};  // shard 0: its carry is 0
  const Steps scan_all{shard_sum, all_gather, seeded_scan};
  // [steps]
  // Untimed steps before a run: poison what the run must write; remake an input overwritten in place.
  const Work poison_sum = [&](Gpu& g) {
    WB_CHECK(cudaMemsetAsync(g.shard_sum.get(), 0xA5, sizeof(int), g.stream));
    WB_CHECK(cudaMemsetAsync(g.total.get(), 0xA5, sizeof(int), g.stream));
  };
  const Work poison_scan = [&](Gpu& g) {
    if (in_place) {
      remake_input(g, opt.seed);
    } else {
      WB_CHECK(cudaMemsetAsync(g.out.d, 0xA5, size_t(g.count) * 4, g.stream));
    }
    WB_CHECK(cudaMemsetAsync(g.shard_totals.get(), 0xA5, sizeof(int) * size_t(m.gpus), g.stream));
  };

  // Checks after a run, on every GPU of this process; the verdict is every process's.
  // Shard 0's total, for its sum alone: the scan's value just before shard 1 (the total when G = 1).
  uint32_t shard0_total = ref.total;
  for (size_t s = 0; s < ref.slice_first.size(); ++s) {
    if (ref.slice_first[s] >= starts[1]) {
      shard0_total = ref.slice_before[s];
      break;
    }
  }
  auto check_sum = [&](bool only_shard0, const std::string& kernel, const std::string& when) {
    bool ok = true;
    for (Gpu& g : m.local) {
      if (only_shard0 && g.index != 0) continue;
      int got = 0;
      WB_CHECK(cudaMemcpy(&got, only_shard0 ? g.shard_sum.get() : g.total.get(), sizeof got, cudaMemcpyDeviceToHost));
      const uint32_t want = only_shard0 ? shard0_total : ref.total;
      if (uint32_t(got) != want) {
        std::fprintf(stderr, "FAIL %s (%s): GPU %d holds %d, expected %d\n", kernel.c_str(), when.c_str(), g.index, got,
                     int32_t(want));
        ok = false;
      }
    }
    return team.all(ok);
  };
  auto check_scan = [&](bool only_shard0, const std::string& kernel, const std::string& when) {
    bool ok = true;
    for (Gpu& g : m.local) {
      if (only_shard0 && g.index != 0) continue;
      const Finding f = check_shard(ref, g, scan_out(g), true, opt.seed);
      if (f.index >= 0) {
        std::fprintf(stderr, "FAIL %s (%s): element %lld (on GPU %d) is %d, expected %d\n", kernel.c_str(), when.c_str(),
                     (long long)f.index, g.index, f.got, f.want);
        ok = false;
      }
    }
    return team.all(ok);
  };
  auto check_input = [&](const std::string& kernel) {
    if (in_place) return true;
    bool ok = true;
    for (Gpu& g : m.local) {
      const Finding f = check_shard(ref, g, g.in.d, false, opt.seed);
      if (f.index >= 0) {
        std::fprintf(stderr, "FAIL %s modified its input: element %lld is %d, was %d\n", kernel.c_str(),
                     (long long)f.index, f.got, f.want);
        ok = false;
      }
    }
    return team.all(ok);
  };

  std::vector<wb::Row> rows;
  const std::string launch_mode = std::string("gpus=") + std::to_string(m.gpus) +
                                  (team.mpi ? " launch=mpi" : " launch=one_process");
  // One row: first run, warm-up and timed runs, each checked; then the guards and the input.
  auto measure = [&](const std::string& kernel, bool only_shard0, const Steps& steps, const Work& prepare,
                     bool is_scan, const std::string& config) {
    const int64_t count = only_shard0 ? starts[1] : n;
    auto check = [&](const std::string& when) {
      return is_scan ? check_scan(only_shard0, kernel, when) : check_sum(only_shard0, kernel, when);
    };
    bool ok = true;
    int wrong = 0;
    std::vector<float> times;
    for (int i = 0; i < 1 + opt.warmup + opt.reps; ++i) {
      const bool timed = i > opt.warmup;
      const double ms = run_once(m, steps, prepare, only_shard0, timed);
      const std::string when = i == 0 ? "first run" : timed ? "timed run " + std::to_string(i - opt.warmup) : "warm-up run";
      if (timed) times.push_back(float(ms));
      if (!check(when)) {
        ok = false;
        if (++wrong > 3) break;  // the first wrong runs say enough at large N
      }
    }
    if (times.empty()) times.push_back(0);
    ok &= team.all(wb::check_guards(kernel));  // every allocation of this process, on every GPU
    ok &= check_input(kernel);
    const int gpus = only_shard0 ? 1 : m.gpus;
    wb::Row r = make_row(kernel, count, (is_scan ? 8.0 : 4.0) * double(count), times, gpus * m.dev.peak_gbps, ok,
                         config);
    r.block = is_scan ? m.local[0].policy.block : kSumBlock;
    r.batch = is_scan ? m.local[0].policy.batch : kSumBatch;
    rows.push_back(r);
    return r;
  };
  auto efficiency_note = [&](const wb::Row& multi, const wb::Row& one) {
    char text[96];
    std::snprintf(text, sizeof text, "%.1f GB/s per GPU, %.3f of %d x one GPU", multi.gbps / m.gpus,
                  one.gbps > 0 ? multi.gbps / (m.gpus * one.gbps) : 0.0, m.gpus);
    rows.back().note = text;
  };

  const bool all = opt.variant == "all";
  if (all || opt.variant == "sum") {
    const wb::Row one = measure("sum_one_gpu", true, sum_one, poison_sum, false, "gpus=1 (shard 0 alone)");
    const wb::Row multi = measure("sum_allreduce", false, sum_all, poison_sum, false, launch_mode);
    efficiency_note(multi, one);
  }
  if (all || opt.variant == "scan" || in_place) {
    const wb::Row one = measure(in_place ? "scan_one_gpu_in_place" : "scan_one_gpu", true, scan_one, poison_scan,
                                true, "gpus=1 (shard 0 alone) " + m.local[0].policy.describe());
    const wb::Row multi = measure(in_place ? "scan_allgather_in_place" : "scan_allgather", false, scan_all,
                                  poison_scan, true, launch_mode + " " + m.local[0].policy.describe());
    efficiency_note(multi, one);
  }

  std::string line;
  int status = wb::finish_status(rows, line);
  if (speak) {
    if (opt.csv) {
      std::printf("%s\n", wb::csv_header());
      for (const auto& r : rows) std::printf("%s\n", wb::csv_row(r).c_str());
      if (status != 0) std::fprintf(stderr, "%s\n", line.c_str());
    } else {
      std::fputs(wb::human_table(rows).c_str(), stdout);
      std::printf("\n%s\n", line.c_str());
    }
  }
  for (Gpu& g : m.local) {
    WB_CHECK(cudaSetDevice(g.device));
    NCCL_CHECK(ncclCommDestroy(g.comm));
  }
  team.exit(status);
}
