/// @file scan_lookahead.cu
/// @brief Chapter 23: the look-ahead scan on chapter 22's ring, beside chapter 17's and CUB's.
///
/// Chapter 22's ring moves memory at the copy ceiling; this chapter scans on it. Each block is
/// persistent (one per SM, looping over tiles) and splits its warps into roles:
/// - the loader warp takes tile numbers from a counter and fills the stages (chapter 22's loader);
/// - the reduce squad (4 warps) sums each landed tile and publishes the sum at once (an aggregate);
/// - the look-ahead warp keeps a running carry: the carry of the block's next tile is the one it
///   has plus the published sums of the tiles numbered in between. No tile publishes a prefix, so
///   no carry waits for another carry, only for tile sums;
/// - the scan squad (4 warps) scans the tile in registers, adds the carry, writes the results back
///   into the stage and bulk-stores it (chapter 22's store lane, now a squad).
///
/// Why it cannot hang: a tile number is taken only by a running block that has a free stage for
/// it, and a tile's sum needs nothing but its own bytes. A look-ahead warp waits only for the sums
/// of tiles numbered before its own, which running blocks have taken; every other wait is for a
/// role of the same block. No wait depends on a block that is not running, however few are.
///
/// The ints before the input's first 128-byte line form a short tile 0. Below 4 tiles per SM a
/// ring never fills: `scan_lookahead_handover` then runs chapter 17's single pass.

#include <cub/device/device_scan.cuh>

#include "single_pass.cuh"  // chapter 17's: its row; the tile counter, statuses and warp scans
#include "tma_ring.cuh"     // chapter 22's ring

// [scan_shape]
/// Warps that sum the landed tiles, and as many again that scan and store them.
constexpr int kSquadWarps = 4;
/// Ints per thread of those squads. Odd, so that the 32 lanes of a warp, each reading its own
/// 63 consecutive ints, hit 32 different banks of shared memory at every step.
constexpr int kItems = 63;
/// Ints per tile: 4 warps x 32 lanes x 63, 32,256 bytes (CCCL's tile for int on Hopper).
constexpr int kTileInts = kSquadWarps * 32 * kItems;
/// A stage: 128 bytes for a tile's lead (up to 3 ints before its 16-byte-aligned middle, which so
/// starts a 128-byte line), the tile, 128 bytes for its tail (up to 3 ints).
constexpr int kStageLead = 128;
constexpr int kStageBytes = kStageLead + kTileInts * 4 + 128;  ///< bytes per stage
/// The roles, by warp: the loader (warp 0), the look-ahead (1), the reduce squad (2-5), the scan
/// squad (6-9).
enum Role : int { kLoaderWarp /**< 0 */, kLookAheadWarp /**< 1 */, kReduceSquad /**< 2-5 */, kScanSquad /**< 6-9 */ };
constexpr int kScanThreads = 32 * (2 + 2 * kSquadWarps);  ///< threads per block: 10 warps
/// Stages unless --stages says otherwise (the page's sweep shows the knee).
constexpr int kDefaultStages = 6;
constexpr int kMaxStages = 64;  ///< the most --stages takes (what fits is checked on the GPU)
/// The hand-over: below this many tiles per SM a ring never fills; chapter 17's single pass runs.
constexpr int64_t kHandOverTilesPerSm = 4;
constexpr int kLookItems = 4;  ///< statuses each lane of the look-ahead warp reads at once
// [scan_shape]

// [tile_cut]
/// Tiles of the scan of n ints at `in`: the ints before its first 128-byte line (ring::head_ints)
/// form a short tile 0, so that every other tile's bulk copies move whole lines; then kTileInts each.
__host__ __device__ inline int64_t scan_tiles_for(const int* in, int64_t n) {
  const int64_t head = ring::head_ints(in, n);
  return (head > 0 ? 1 : 0) + (n - head + kTileInts - 1) / kTileInts;
}

/// How one tile lies in memory: bulk copies move its 16-byte-aligned middle, plain loads and stores
/// its lead and tail (0 to 3 ints each, only in the head's tile and the last).
struct TileCut {
  int64_t begin = 0;  ///< the tile's first int
  int count = 0;      ///< ints in the tile: kTileInts except in the head's tile and the last
  int lead = 0;       ///< ints of the lead
  int mid_bytes = 0;  ///< bytes of the middle, a multiple of 16 (0 in a tile of a few ints)
  int tail = 0;       ///< ints of the tail
};

/// The cut of tile `tile` of the n ints at `in`.
__host__ __device__ inline TileCut tile_cut(const int* in, int64_t n, int64_t tile) {
  TileCut c;
  const int64_t head = ring::head_ints(in, n);
  if (head > 0 && tile == 0) {
    c.count = int(head);
  } else {
    c.begin = head + (head > 0 ? tile - 1 : tile) * kTileInts;
    c.count = int(n - c.begin < kTileInts ? n - c.begin : kTileInts);
  }
  const int past = int(reinterpret_cast<uintptr_t>(in + c.begin) % 16);  // 0, 4, 8 or 12 bytes
  const int lead = (16 - past) % 16 / 4;
  c.lead = lead < c.count ? lead : c.count;
  c.mid_bytes = (c.count - c.lead) / 4 * 16;
  c.tail = c.count - c.lead - c.mid_bytes / 4;
  return c;
}
// [tile_cut]

// [waits]
/// The scan's waits, named for the trap build's message and counted by the clock build.
enum Wait : int { kLoaderEmpty /**< loader */, kLookNumbered /**< look-ahead */, kReduceFull /**< reduce squad */,
                  kScanFull /**< scan squad */, kScanReduced /**< scan */, kScanCarried /**< scan */, kWaits /**< count */ };
/// Each wait in words.
__host__ __device__ inline const char* wait_name(Wait w) {
  const char* const names[] = {"loader warp, for an empty stage", "look-ahead warp, for its next tile's number",
                               "reduce squad, for a landed tile", "scan squad, for a landed tile",
                               "scan squad, for the tile's warp sums", "scan squad, for the tile's carry"};
  return w < kWaits ? names[w] : "?";
}
/// The role of each wait.
inline int role_of(Wait w) { return w <= kReduceFull ? int(w) : kScanSquad; }
/// The roles in words (the clock build's notes).
const char* const kRoleNames[] = {"loader warp", "look-ahead warp", "reduce squad", "scan squad"};
// [waits]

// [ring]
/// What a stage holds beside its tile, each part written by one role before it signals.
struct StageNote {
  int64_t tile;                ///< the tile in the stage (-1: the loader found no more), by the loader
  TileCut cut;                 ///< how it lies in memory, computed once, by the loader
  int carry;                   ///< the sum of every tile before it, by the look-ahead warp
  int warp_sums[kSquadWarps];  ///< its reduce warps' sums, by the reduce squad
};

/// The scan's ring in dynamic shared memory: S stages, five barriers per stage, the notes. Every
/// role walks the stages in the same order (ring::Phase). Arrivals per phase: numbered 1 (the
/// loader's lane 0), full 32 (the loader's lanes; lane 0 announces the bytes), reduced 128 (the
/// reduce squad), carried 1 (the look-ahead's lane 0), empty 128 (the scan squad). Every thread
/// that touched a stage arrives on the barrier that hands it on, plain to see (and to racecheck).
struct ScanRing {
  unsigned char* data;     ///< the stages
  ring::Pipeline pipe;     ///< full and empty
  ring::Signal numbered;   ///< the tile's number and cut are in the note
  ring::Signal reduced;    ///< its sum is published, its warps' sums are in the note, its reads are done
  ring::Signal carried;    ///< its carry is in the note
  StageNote* notes;        ///< one per stage
  /// Where element 0 of the tile in the stage of `at` lies (its middle starts at kStageLead).
  __device__ int* elements(const ring::Phase& at) const {
    return reinterpret_cast<int*>(data + int64_t(at.stage) * kStageBytes + kStageLead) - notes[at.stage].cut.lead;
  }
};

/// Dynamic shared memory for the scan's ring of `stages` stages.
__host__ __device__ constexpr int64_t scan_shared_bytes(int stages) {
  return int64_t(stages) * (kStageBytes + 5 * int64_t(sizeof(ring::Barrier)) + int64_t(sizeof(StageNote)));
}
// [ring]

#if WB_HAS_BULK_COPY
/// Wait at named barrier `id` (1 or 2; 0 is __syncthreads) with the 128 threads of one squad.
__device__ __forceinline__ void squad_sync(int id) { __barrier_sync_count(id, 32 * kSquadWarps); }

/// A tile's lead and tail (0 to 3 ints each), which bulk copies cannot move: lanes 1-3 and 4-6.
__device__ __forceinline__ void copy_edges(const TileCut& c, int* dst, const int* src, int lane) {
  if (lane >= 1 && lane - 1 < c.lead) dst[lane - 1] = src[lane - 1];
  if (lane >= 4 && lane - 4 < c.tail) dst[c.count - c.tail + lane - 4] = src[c.count - c.tail + lane - 4];
}

// [loader]
/// The loader warp: for each stage, once empty, take a tile number (lane 0), note the tile and its
/// cut and signal numbered, then fill the stage: lane 0 bulk-copies the middle, lanes 1-6 load the
/// lead and the tail (copy_edges). A number past the last tile is noted as -1: every role stops.
__device__ void load_tiles(const ScanRing& r, const int* in, int64_t n, int64_t tiles, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32;
  for (ring::Phase at;; at.advance(r.pipe.stages)) {
    r.pipe.producer_acquire(at, kLoaderEmpty);
    int64_t tile = lane == 0 ? int64_t(atomicAdd(a.counter, 1ull) - a.counter_base) : 0;
    tile = __shfl_sync(kFullMask, tile, 0);
    StageNote& note = r.notes[at.stage];
    const TileCut c = tile < tiles ? tile_cut(in, n, tile) : TileCut{};
    if (lane == 0) {
      note.tile = tile < tiles ? tile : -1;
      note.cut = c;
      r.numbered.arrive(at);
    }
    if (tile >= tiles) {
      r.pipe.producer_commit(at);  // no bytes: the phase completes once all 32 lanes are here
      break;
    }
    const int* src = in + c.begin;
    int* dst = reinterpret_cast<int*>(r.data + int64_t(at.stage) * kStageBytes + kStageLead) - c.lead;
    if (lane == 0 && c.mid_bytes > 0) {
      r.pipe.producer_commit(at, dst + c.lead, src + c.lead, uint32_t(c.mid_bytes));
    } else {
      copy_edges(c, dst, src, lane);
      r.pipe.producer_commit(at);  // release: this lane's plain stores come before the phase completes
    }
  }
}
// [loader]

// [look_ahead]
/// The look-ahead warp: the carry of each of the block's tiles, the sum of all tiles before it. It
/// keeps the last carry in a register; the next is that plus the published sums of the tiles in
/// between (numbered since by other blocks, and the block's previous tile). It starts as soon as
/// the tile has a number, while the tile is still loading.
__device__ void look_ahead(const ScanRing& r, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32;
  int64_t next = 0;  // tiles [0, next) are summed in `carry`
  int carry = 0;
  for (ring::Phase at;; at.advance(r.pipe.stages)) {
    r.numbered.wait(at, kLookNumbered);
    const int64_t tile = r.notes[at.stage].tile;
    if (tile < 0) break;
    stress_count(kStressTiles);
    while (next < tile) {
      // Up to 4 x 32 statuses at once, lane i reading tiles next + i, next + 32 + i, ...
      TileStatus st[kLookItems];
#pragma unroll
      for (int j = 0; j < kLookItems; ++j) {
        const int64_t other = next + j * 32 + lane;
        st[j] = other < tile ? observe(&a.statuses[other]) : status_word(a.epoch, kAggregate, 0);
      }
      // Each group of 32 adds its leading run of published sums; a gap ends the round.
#pragma unroll
      for (int j = 0; j < kLookItems; ++j) {
        const unsigned ready = __ballot_sync(kFullMask, is_current(st[j], a.epoch));
        const int run = ready == kFullMask ? 32 : __ffs(~ready) - 1;
        carry += warp_sum_to_all(lane < run ? value_of<int>(st[j]) : 0);
        const int64_t before = next;
        next = next + run < tile ? next + run : tile;
        stress_count(kStressChained, unsigned(next - before));
        if (run < 32) break;
        if (next < tile) stress_count(kStressWalks);  // on to the next 32 tiles
      }
      if (next < tile) stress_count(kStressWaits);
    }
    if (lane == 0) {
      r.notes[at.stage].carry = carry;
      r.carried.arrive(at);
    }
  }
}
// [look_ahead]

// [reduce]
/// A reduce warp (0 to 3 of its squad): the sum of its lanes' 63 ints of each landed tile; the
/// squad's first lane publishes the tile's sum at once, and the warps' sums stay in the note.
__device__ void reduce_tiles(const ScanRing& r, const LookBackArgs& a) {
  const int lane = int(threadIdx.x) % 32, w = int(threadIdx.x) / 32 - 2;
  const int first = (w * 32 + lane) * kItems;
  for (ring::Phase at;; at.advance(r.pipe.stages)) {
    r.pipe.consumer_wait(at, kReduceFull);
    StageNote& note = r.notes[at.stage];
    if (note.tile < 0) break;
    const int* mine = r.elements(at) + first;
    int sum = 0;
    if (note.cut.count == kTileInts) {
#pragma unroll
      for (int j = 0; j < kItems; ++j) sum += mine[j];
    } else {
      for (int j = 0; j < kItems; ++j)
        if (first + j < note.cut.count) sum += mine[j];
    }
    sum = warp_sum_to_all(sum);
    if (lane == 0) note.warp_sums[w] = sum;
    squad_sync(1);
    if (w == 0 && lane == 0) {
      int total = 0;
#pragma unroll
      for (int i = 0; i < kSquadWarps; ++i) total += note.warp_sums[i];
      stress_delay(a, note.tile, kAggregate);
      publish(&a.statuses[note.tile], a.epoch, kAggregate, total);
    }
    // Every thread of the squad arrives, after its last read of the stage: the scan squad
    // overwrites the stage with its results once the phase completes.
    r.reduced.arrive(at);
  }
}
// [reduce]

// [scan_store]
/// A scan warp (0 to 3 of its squad): scan its lane's 63 ints of each landed tile in registers,
/// add what comes before them (carry, earlier warps, earlier lanes), write them back into the
/// stage; once the squad is done, store it (lane 0 the middle, lanes 1-6 the edges) and release it.
__device__ void scan_tiles(const ScanRing& r, int* out) {
  const int lane = int(threadIdx.x) % 32, w = int(threadIdx.x) / 32 - 2 - kSquadWarps;
  const int first = (w * 32 + lane) * kItems;
  for (ring::Phase at;; at.advance(r.pipe.stages)) {
    r.pipe.consumer_wait(at, kScanFull);
    const StageNote& note = r.notes[at.stage];
    if (note.tile < 0) break;
    const TileCut c = note.cut;
    int* elems = r.elements(at);
    int* mine = elems + first;
    int items[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) items[j] = first + j < c.count ? mine[j] : 0;
#pragma unroll
    for (int j = 1; j < kItems; ++j) items[j] += items[j - 1];
    const int lanes_before = warp_inclusive_scan(items[kItems - 1]) - items[kItems - 1];
    r.reduced.wait(at, kScanReduced);
    int warps_before = 0;
    for (int i = 0; i < w; ++i) warps_before += note.warp_sums[i];
    r.carried.wait(at, kScanCarried);
    const int before = note.carry + warps_before + lanes_before;
#pragma unroll
    for (int j = 0; j < kItems; ++j) mine[j] = items[j] + before;
    // The results must reach the copy engine (the async proxy) before the bulk store reads them.
    ring::fence_for_bulk_store();
    squad_sync(2);
    if (w == 0) {
      int* dst = out + c.begin;
      if (lane == 0 && c.mid_bytes > 0) {
        ring::bulk_store(dst + c.lead, elems + c.lead, uint32_t(c.mid_bytes));
        ring::bulk_stores_read();
      }
      copy_edges(c, dst, elems, lane);
    }
    // Every thread of the squad arrives, after its last use of the stage; lane 0 of the first
    // warp only once its bulk store has read the stage, so the phase cannot complete before.
    r.pipe.consumer_release(at);
  }
  if (w == 0 && lane == 0) ring::bulk_stores_done();
}
// [scan_store]
#endif  // WB_HAS_BULK_COPY

// [scan_kernel]
/// The look-ahead scan of n ints: out[i] = in[0] + ... + in[i]. One block per SM in four roles on a
/// ring of `stages` stages. Tiles are numbered by chapter 17's counter in `a` (a launch moves it by
/// tiles + gridDim.x), and each tile's sum is published in a.statuses as an aggregate.
__global__ void __launch_bounds__(kScanThreads, 1)
    scan_lookahead(const int* __restrict__ in, int64_t n, int* __restrict__ out, int stages, LookBackArgs a) {
#if WB_HAS_BULK_COPY
  extern __shared__ __align__(128) unsigned char ring_bytes[];
  ring::Barrier* bars = reinterpret_cast<ring::Barrier*>(ring_bytes + int64_t(stages) * kStageBytes);
  const ScanRing r{ring_bytes,           {{bars}, {bars + stages}, stages}, {bars + 2 * stages},
                   {bars + 3 * stages},  {bars + 4 * stages},               reinterpret_cast<StageNote*>(bars + 5 * stages)};
  if (threadIdx.x == 0) {
    ring::init_barriers(r.pipe.full.bars, stages, 32);
    ring::init_barriers(r.pipe.empty.bars, stages, 32 * kSquadWarps);
    ring::init_barriers(r.numbered.bars, stages, 1);
    ring::init_barriers(r.reduced.bars, stages, 32 * kSquadWarps);
    ring::init_barriers(r.carried.bars, stages, 1);
  }
  const long long started = ring::clocks_start();
  const int warp = int(threadIdx.x) / 32;
  const Role role = warp < 2 ? Role(warp) : warp < 2 + kSquadWarps ? kReduceSquad : kScanSquad;
  if (role == kLoaderWarp) load_tiles(r, in, n, scan_tiles_for(in, n), a);
  else if (role == kLookAheadWarp) look_ahead(r, a);
  else if (role == kReduceSquad) reduce_tiles(r, a);
  else scan_tiles(r, out);
  ring::clocks_end(role, started);
#else
  (void)in, (void)n, (void)out, (void)stages, (void)a;
  __trap();  // never launched: the host refuses GPUs and builds without sm_90 code
#endif
}
// [scan_kernel]

// [cub]
/// cub::DeviceScan::InclusiveSum, as chapter 17 calls it: a 32-bit item count where N allows
/// (CUB's fastest path), a 64-bit one beyond. With `temp` null it only sets `temp_bytes`.
cudaError_t cub_inclusive_sum(void* temp, size_t& temp_bytes, const int* in, int* out, int64_t n) {
  if (n <= INT32_MAX) return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, int(n));
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n);
}
// [cub]
const char* const kCubRow = "cub::DeviceScan::InclusiveSum";  ///< CUB's row in the report


int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "23";
  spec.slug = "scan-lookahead";
  spec.idea = "the look-ahead scan on chapter 22's ring: warps in roles (load, look ahead, reduce, scan and "
              "store), tiles that publish sums only, a running carry, beside chapter 17's single pass and CUB";
  spec.op = wb::Op::Scan;
  spec.part = wb::Part::Scan;
  const std::vector<std::string> rows = {kCubRow, "scan_single_pass_tuned", "scan_lookahead", "scan_lookahead_handover"};
  spec.variants = {{"all", rows}, {"lookahead", {"scan_lookahead"}}, {"sweep", rows}};
  spec.harness_flags = {{"--stages", "S", 1, kMaxStages,
                         "  --stages S    shared-memory stages in each block's ring, from 1 to 64 (default 6; fewer\n"
                         "                where they do not fit)\n"}};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool sweep = opt.variant == "sweep", all_rows = opt.variant != "lookahead";
  if (sweep && !opt.n_given) opt.n = int64_t(1) << 31;
  wb::Device dev = wb::open_device(opt);
  ring::require_bulk_copies(dev, "23", scan_lookahead);
  const int stages = ring::fit_stages(opt, dev, "23", scan_lookahead, kDefaultStages, kStageBytes, scan_shared_bytes);
  const int64_t shared_bytes = scan_shared_bytes(stages);

  wb::fit_default_n(opt, dev, 8.0 + 0.05);  // input, output, and 8 bytes of status per tile
  wb::Input in = wb::make_input(opt);
  wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
  ring::require_same_alignment(in.d, out.d, "23");
  std::vector<int64_t> sizes;  // the sweep: every power of two from 2^8 below N, then N
  for (int64_t s = int64_t(1) << 8; sweep && s < in.n; s *= 2) sizes.push_back(s);
  sizes.push_back(in.n);
  std::vector<int32_t> want(size_t(in.n));
  wb::cpu_scan_inclusive(in.host.data(), want.data(), in.n);
  size_t cub_bytes = 0;
  for (const int64_t s : sizes) {
    size_t bytes = 0;
    WB_CHECK(cub_inclusive_sum(nullptr, bytes, in.d, out.d, s));
    cub_bytes = std::max(cub_bytes, bytes);
  }
  wb::DeviceBuffer<char> cub_temp(std::max<size_t>(cub_bytes, 1), "CUB's temporary storage");
  // Chapter 17's counter and statuses, and another pair for the look-ahead (one number more per block).
  SinglePass chapter17(tiles_for(in.n, kBlock, kSmallInputBatch));
  SinglePass lookahead(scan_tiles_for(in.d, in.n) + dev.sms);
  wb::Options chapter17_opt = opt;  // chapter 17's tuned policy, from chapter 17's own defaults
  chapter17_opt.block = kBlock, chapter17_opt.batch = kBatch, chapter17_opt.batch_given = false;
  wb::Bench bench(spec, opt, dev, in);
  stress_begin(opt);

  // [scan_launch]
  ScanPolicy epochs;  // the look-ahead's statuses are told apart by epoch, never cleared
  epochs.clear_statuses = false;
  auto launch_lookahead = [&](int64_t s) {
    const int64_t tiles = scan_tiles_for(in.d, s);
    const int64_t grid = std::min<int64_t>(tiles, dev.sms);  // one persistent block per SM
    const LookBackArgs a = lookahead.next_launch(epochs, tiles + grid);
    scan_lookahead<<<unsigned(grid), kScanThreads, size_t(shared_bytes)>>>(in.d, s, out.d, stages, a);
  };
  // [scan_launch]
  const std::string config = "stages=" + std::to_string(stages) + " tile=" + std::to_string(kSquadWarps) + "x32x" +
                             std::to_string(kItems) + " look_items=" + std::to_string(kLookItems);
  const int per_sm = wb::blocks_per_sm(scan_lookahead, kScanThreads, size_t(shared_bytes));
  for (const int64_t s : sizes) {
    // Chapter 17's tuned single pass for this N: its row, and the hand-over's small inputs.
    const ScanPolicy p = choose_policy(chapter17_opt, dev, s);
    const SinglePassKernel<NoCarryIn> k = single_pass_kernel(p.batch, p.block);
    const int k_per_sm = wb::blocks_per_sm(k, p.block, stage_bytes(p.block, p.batch));
    wb::Row cub;
    if (all_rows) {
      cub = bench.run({kCubRow, s, 0, 0, 0, 0}, [&] { WB_CHECK(cub_inclusive_sum(cub_temp.get(), cub_bytes, in.d, out.d, s)); },
                      out.d, want.data(), s);
      wb::Case c{"scan_single_pass_tuned", s, p.block, p.batch, 0, k_per_sm};
      c.config = p.describe();
      const wb::Row r = bench.run(c, [&] { chapter17.launch(p, k, in.d, s, out.d); }, out.d, want.data(), s);
      bench.annotate_last(wb::versus_cub(cub, r));
    }
    wb::Case c{"scan_lookahead", s, kScanThreads, kItems, 0, per_sm};
    c.config = config;
    ring::clocks_zero();
    const wb::Row r = bench.run(c, [&] { launch_lookahead(s); }, out.d, want.data(), s);
    if (s == in.n) ring::clocks_report<Wait>(opt, "scan_lookahead", kRoleNames, 4, kWaits, role_of);
    if (!all_rows) continue;
    bench.annotate_last(wb::versus_cub(cub, r));
    // [handover]
    const bool ring_fills = scan_tiles_for(in.d, s) >= kHandOverTilesPerSm * int64_t(dev.sms);
    wb::Case h = ring_fills ? c : wb::Case{"", s, p.block, p.batch, 0, k_per_sm};
    h.kernel = "scan_lookahead_handover";
    h.config = ring_fills ? config : "handed over to chapter 17: " + p.describe();
    const wb::Row hr = bench.run(
        h, [&] { ring_fills ? launch_lookahead(s) : chapter17.launch(p, k, in.d, s, out.d); }, out.d, want.data(), s);
    // [handover]
    bench.annotate_last(wb::versus_cub(cub, hr) + (ring_fills ? "" : ", chapter 17's kernel"));
  }
  stress_report(opt);
  return bench.finish();
}
