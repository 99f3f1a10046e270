/// @file tma_ring.cu
/// @brief Chapter 22: move data with Hopper's copy engine. Bulk copies (TMA) fill a ring of
/// shared-memory stages, barriers that count bytes say when a stage has landed, and bulk stores
/// drain it, beside cudaMemcpyAsync at the copy ceiling.
///
/// Chapter 17's single pass loads a tile only when a block starts it, so while a block waits for
/// its carry nothing new is on its way from memory. The look-ahead scan of chapter 23 keeps
/// loading regardless: one warp of a persistent block (one block per SM, looping over tiles)
/// does nothing but ask the copy engine for whole tiles, into a ring of S shared-memory stages,
/// while the other warps work on the stages that have landed. This chapter is that machinery
/// alone. `ring_copy` sends every element through the ring and back out, and the question is
/// whether it moves memory as fast as a plain copy (`memcpy_d2d`, in the same run). If it cannot,
/// no scan built on it can.
///
/// A block has two lanes: a loader lane fills the stages, a store lane drains them. Each stage
/// has two barriers (tma_ring.cuh's Pipeline): full[s], which completes when the loader has
/// arrived announcing the bytes of its copy and the copy engine has counted them all down as they
/// landed, and empty[s], on which the store lane arrives once its bulk store has read the stage.
/// Tiles are taken from a counter (`ring_copy`), or fixed at launch, block b taking tiles b,
/// b + grid, ... (`ring_copy_strided`).
///
/// Bulk copies need 16-byte aligned addresses and sizes: the body of the array from its first
/// 128-byte boundary goes through the ring in tiles, and the head before that boundary (up to 31
/// ints) and the tail after the last whole 16 bytes (up to 3 ints) by plain loads and stores.
///
/// Needs compute capability 9.0 (Hopper) or newer: elsewhere the program says so and exits 77.
/// Two test builds hook into the ring's one wait (ring::wait): -DWB_RING_TRAP=ON turns a wait
/// longer than a second into an error that names it, -DWB_RING_CLOCKS=ON counts the cycles each
/// role spends in each wait.

#include <cstdio>
#include <string>

#include "tma_ring.cuh"
#include "workbook.cuh"

/// The ring copy's lanes, by warp: one lane of each does the work.
enum CopyWarp : int {
  kCopyLoaderWarp = 0,  ///< fills the stages
  kCopyStoreWarp = 1    ///< drains them (and, in block 0, copies the head and tail)
};
/// Threads per block: the two warps.
constexpr int kRingThreads = 64;
/// Stages in the ring unless --stages says otherwise: two, one landing while the other drains.
constexpr int kDefaultStages = 2;
/// Bytes per stage unless --stage-bytes says otherwise: the tile of chapter 23's scan, 8064 ints
/// (4 warps x 32 lanes x 63 ints), so that this chapter measures the ring that scan runs on.
constexpr int kDefaultStageBytes = 32256;
/// The largest --stages: enough to sweep small stages far past the knee.
constexpr int kMaxStages = 64;
/// Shared memory of each stage beside its bytes: its two barriers and the number of its tile.
constexpr int kStageExtraBytes = 2 * sizeof(ring::Barrier) + sizeof(int64_t);
/// The largest --stage-bytes: the largest multiple of 128 that fits, with what each stage needs
/// beside it, in the 227 KB (232,448 bytes) a block may have on an H100 or an H200.
constexpr int kMaxStageBytes = (232448 - kStageExtraBytes) / 128 * 128;

// [split]
/// How the ring copy cuts n ints at `in`: a head copied by plain loads and stores up to the
/// first 128-byte boundary, a body of whole 16-byte units in tiles of `stage_bytes` (the last
/// one partial), and a tail of the last 0 to 3 ints. The output shares the input's alignment
/// (both lie --offset ints past a 256-byte boundary), so the same cut fits it.
struct RingSplit {
  int64_t head = 0;        ///< ints [0, head) before the body (0 to 31)
  int64_t body_bytes = 0;  ///< bytes of the body, from int head on: a multiple of 16
  int64_t tail_begin = 0;  ///< ints [tail_begin, n) after the body (0 to 3 of them)
  int64_t tiles = 0;       ///< tiles of stage_bytes covering the body
};

/// The cut of n ints at `in` into head, body and tail, and the tiles of `stage_bytes` bytes of the body.
__host__ __device__ inline RingSplit ring_split(const int* in, int64_t n, int64_t stage_bytes) {
  RingSplit s;
  s.head = ring::head_ints(in, n);
  s.body_bytes = (n - s.head) / 4 * 16;
  s.tail_begin = s.head + s.body_bytes / 4;
  s.tiles = wb::ceil_div<int64_t>(s.body_bytes, stage_bytes);
  return s;
}
// [split]

// [waits]
/// The ring copy's waits (for the trap build's message and the clock build's counts).
enum CopyWait : int {
  kCopyLoaderEmpty,  ///< the loader lane, for an empty stage
  kCopyStoreFull,    ///< the store lane, for a landed stage
  kCopyWaits         ///< how many waits there are
};
/// Each wait in words.
__host__ __device__ inline const char* wait_name(CopyWait w) {
  return w == kCopyLoaderEmpty ? "ring copy's loader lane, for an empty stage"
                               : "ring copy's store lane, for a landed stage";
}
/// The role of each wait, for the clock build: the warp that waits in it.
inline int role_of(CopyWait w) { return w == kCopyLoaderEmpty ? kCopyLoaderWarp : kCopyStoreWarp; }
/// The roles in words.
const char* const kCopyRoleNames[] = {"loader lane", "store lane"};
// [waits]

// [kernel]
/// How the blocks of the ring share the tiles.
enum class TileOrder : int {
  kStrided = 0,  ///< block b takes tiles b, b + gridDim.x, b + 2 gridDim.x, ...: fixed at launch
  kTaken = 1     ///< each loader takes the next tile number from a counter in global memory
};

/// Copy n ints from `in` to `out` through a ring of `stages` stages of `stage_bytes` bytes in
/// dynamic shared memory, followed by the stages' barriers and tile numbers. One block per SM.
/// With TileOrder::kTaken the loader takes each tile as atomicAdd(counter) - counter_base (the
/// counter is never reset: every launch moves it by tiles + gridDim.x, since each loader also
/// takes one number past the last tile, which tells it to stop). The loader writes the tile's
/// number beside its stage, and the store lane reads it there once the stage has landed, so
/// the store lane follows the loader whatever the order. `in` and `out` share their alignment
/// modulo 128 bytes (the host checks).
__global__ void __launch_bounds__(kRingThreads, 1)
    ring_copy(const int* __restrict__ in, int* __restrict__ out, int64_t n, int stages, int stage_bytes,
              TileOrder order, unsigned long long* counter, unsigned long long counter_base) {
#if WB_HAS_BULK_COPY
  extern __shared__ __align__(128) unsigned char ring_bytes[];
  ring::Barrier* bars = reinterpret_cast<ring::Barrier*>(ring_bytes + int64_t(stages) * stage_bytes);
  const ring::Pipeline pipe{{bars}, {bars + stages}, stages};
  int64_t* tile_of = reinterpret_cast<int64_t*>(bars + 2 * stages);  // the tile in each stage; -1: no more
  auto stage = [&](const ring::Phase& at) { return ring_bytes + int64_t(at.stage) * stage_bytes; };
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const RingSplit split = ring_split(in, n, stage_bytes);
  const unsigned char* body_in = reinterpret_cast<const unsigned char*>(in + split.head);
  unsigned char* body_out = reinterpret_cast<unsigned char*>(out + split.head);
  // One arrival completes a phase: the loader's (with its bytes) on full, the store lane's on empty.
  if (threadIdx.x == 0) ring::init_barriers(bars, 2 * stages, 1);
  const long long started = ring::clocks_start();

  // The head and tail, at most 31 and 3 ints, by plain loads and stores (block 0's store warp).
  if (blockIdx.x == 0 && warp == kCopyStoreWarp) {
    if (lane < split.head) out[lane] = in[lane];
    if (split.tail_begin + lane < n) out[split.tail_begin + lane] = in[split.tail_begin + lane];
  }

  // [loop]
  if (warp == kCopyLoaderWarp && lane == 0) {
    // The loader: refill each stage as soon as it is empty, whatever the store lane is doing.
    // The tile's number goes beside the stage before the arrival, whose release orders it
    // before the phase completes.
    ring::Phase at;
    for (int64_t k = 0;; ++k, at.advance(stages)) {
      pipe.producer_acquire(at, kCopyLoaderEmpty);
      const int64_t tile = order == TileOrder::kTaken ? int64_t(atomicAdd(counter, 1ull) - counter_base)
                                                      : int64_t(blockIdx.x) + k * gridDim.x;
      if (tile >= split.tiles) {
        tile_of[at.stage] = -1;
        pipe.producer_commit(at);  // no bytes: the phase completes at once, and the store lane stops
        break;
      }
      tile_of[at.stage] = tile;
      const int64_t offset = tile * stage_bytes;
      const uint32_t bytes = uint32_t(min(int64_t(stage_bytes), split.body_bytes - offset));
      pipe.producer_commit(at, stage(at), body_in + offset, bytes);
    }
  } else if (warp == kCopyStoreWarp && lane == 0) {
    // The store lane: drain each stage once it has landed, then hand it back to the loader.
    for (ring::Phase at;; at.advance(stages)) {
      pipe.consumer_wait(at, kCopyStoreFull);
      const int64_t tile = tile_of[at.stage];
      if (tile < 0) break;
      const int64_t offset = tile * stage_bytes;
      const uint32_t bytes = uint32_t(min(int64_t(stage_bytes), split.body_bytes - offset));
      ring::bulk_store(body_out + offset, stage(at), bytes);
      ring::bulk_stores_read();  // the copy engine has read the stage: it may be refilled
      pipe.consumer_release(at);
    }
    ring::bulk_stores_done();
  }
  // [loop]
  ring::clocks_end(warp, started);
#else
  (void)in, (void)out, (void)n, (void)stages, (void)stage_bytes, (void)order, (void)counter, (void)counter_base;
  __trap();  // never launched: the host refuses GPUs and builds without sm_90 code
#endif
}
// [kernel]

/// --stages S and --stage-bytes B, flags of this chapter's harness: the shared parser refuses a
/// value that breaks their rules, and lists them in --help and --info.
std::vector<wb::HarnessFlag> ring_flag_specs() {
  return {{"--stages", "S", 1, kMaxStages,
           "  --stages S    shared-memory stages in the ring, from 1 to 64 (default 2; fewer where they do\n"
           "                not fit)\n"},
          {"--stage-bytes", "B", ring::kBulkAlign, kMaxStageBytes,
           "  --stage-bytes B  bytes per stage: a multiple of 128 from 128 to " + std::to_string(kMaxStageBytes) +
               "\n                (default 32256, one tile of chapter 23's scan); S x B must fit in a block's shared memory\n",
           ring::kBulkAlign}};
}

/// Dynamic shared memory for a ring of `stages` stages of `stage_bytes`: the stages, then their
/// barriers and tile numbers.
int64_t ring_shared_bytes(int stages, int stage_bytes) { return int64_t(stages) * (stage_bytes + kStageExtraBytes); }

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "22";
  spec.slug = "tma-ring";
  spec.idea = "move data with the copy engine: bulk copies (TMA) into a ring of shared-memory stages, barriers "
              "that count bytes, bulk stores out, beside a device-to-device copy";
  spec.op = wb::Op::Scan;
  spec.bytes = "each element read once and written once (8 bytes): a copy";
  spec.part = wb::Part::Scan;
  spec.kernels = {"memcpy_d2d", "ring_copy_strided", "ring_copy"};
  spec.harness_flags = ring_flag_specs();

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  ring::require_bulk_copies(dev, "22", ring_copy);
  const int stage_bytes = int(opt.harness_value("--stage-bytes", kDefaultStageBytes));
  const int stages = ring::fit_stages(opt, dev, "22", ring_copy, kDefaultStages, stage_bytes,
                                      [&](int s) { return ring_shared_bytes(s, stage_bytes); });
  const int64_t shared_bytes = ring_shared_bytes(stages, stage_bytes);

  wb::fit_default_n(opt, dev, 8.0);
  wb::Input in = wb::make_input(opt);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  ring::require_same_alignment(in.d, out.d, "22");
  wb::Bench bench(spec, opt, dev, in);
  const double copy_bytes = 8.0 * in.n;

  // A copy's element 0 alone holds input element 0, which the harness changes between runs.
  wb::Case memcpy_case{"memcpy_d2d", in.n, 0, 0, copy_bytes, 0};
  memcpy_case.outputs_with_first = 1;
  bench.run(memcpy_case, [&] { WB_CHECK(cudaMemcpyAsync(out.d, in.d, size_t(in.n) * 4, cudaMemcpyDeviceToDevice)); },
            out.d, in.host.data(), in.n);

  // [launch]
  const RingSplit split = ring_split(in.d, in.n, stage_bytes);
  // One block per SM; at least one block for the head and tail.
  const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(split.tiles, dev.sms));
  const int resident = wb::blocks_per_sm(ring_copy, kRingThreads, size_t(shared_bytes));
  wb::DeviceBuffer<unsigned long long> counter(1, "the tile counter");
  WB_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
  unsigned long long counter_base = 0;  // where the counter stands before the next launch
  for (const TileOrder order : {TileOrder::kStrided, TileOrder::kTaken}) {
    const bool taken = order == TileOrder::kTaken;
    wb::Case c{taken ? "ring_copy" : "ring_copy_strided", in.n, kRingThreads, 0, copy_bytes, resident};
    c.outputs_with_first = 1;
    c.config = "stages=" + std::to_string(stages) + " stage_bytes=" + std::to_string(stage_bytes) +
               (taken ? " tiles=taken" : " tiles=strided");
    ring::clocks_zero();
    bench.run(c,
              [&] {
                ring_copy<<<unsigned(grid), kRingThreads, size_t(shared_bytes)>>>(in.d, out.d, in.n, stages, stage_bytes,
                                                                                  order, counter.get(), counter_base);
                if (taken) counter_base += static_cast<unsigned long long>(split.tiles + grid);
              },
              out.d, in.host.data(), in.n);
    ring::clocks_report<CopyWait>(opt, c.kernel.c_str(), kCopyRoleNames, 2, kCopyWaits, role_of);
    char note[160];
    std::snprintf(note, sizeof note, "%d stages x %d B, %lld tiles on %lld blocks, %s", stages, stage_bytes,
                  (long long)split.tiles, (long long)grid, taken ? "each taken from a counter" : "block b takes b, b + grid, ...");
    bench.annotate_last(note);
  }
  // [launch]
  return bench.finish();
}
