/// @file any_reduce.cuh
/// @brief Chapter 20's reductions over any monoid M (monoids.cuh): chapter 11's kernel written
/// once over a type and an operator (reduce_best_any), the same shares kept in the input's order
/// (reduce_in_order), and the warp and block combinations in lane order that both use.
///
/// Chapter 11's reduce_best (reduce_best.cuh) stays as it is, an int kernel whose blocks meet in
/// one atomicAdd: a general operator has no atomic, so its blocks leave their totals in an array
/// that the last block folds, in block order. Everything else (the int4 body shared in chunks of
/// 32 vectors among one wave of blocks, the scalar head and tail in block 0, K vectors per thread
/// per tile) is chapter 11's, with a vector of 16 bytes holding 16 / sizeof(In) elements.
///
/// Which order each kernel combines the elements in:
/// - reduce_best_any: thread t of a tile takes vectors t, t + blockDim.x, ..., so its running
///   value mixes elements far apart, and block 0's thread 0 starts from the head and the tail.
///   The result is a combination of all the elements, but not in their order: right for an
///   operator that commutes, wrong for one that does not (the `not_commutative` variant).
/// - reduce_in_order: each warp owns a contiguous run of the input, read 32 elements per load
///   and handed to the lanes K consecutive elements each through shared memory (chapter 16's
///   transpose); lanes, warps and blocks are combined in that order. Right for any associative
///   operator; the `not_associative` variant shows it wrong for one that is not.
#pragma once

#include <cstring>
#include <type_traits>

#include "monoids.cuh"
#include "workbook.cuh"

/// Threads per warp.
constexpr int kWarp = 32;
/// Every lane of the warp takes part in each shuffle.
constexpr unsigned kFullMask = 0xffffffffu;
/// Threads per block unless --block says otherwise (chapters 11 and 17).
constexpr int kBlock = 256;
/// The largest block, for the launch bounds.
constexpr int kMaxBlock = 1024;
/// 16-byte loads per thread per tile of reduce_best_any: chapter 11's K.
constexpr int kVectorsPerThread = 4;
/// The unit in which reduce_best_any shares the body among blocks: 32 vectors, one warp's load
/// (chapter 11's kChunk).
constexpr int64_t kChunk = 32;
/// Bytes each lane of reduce_in_order takes per run it reads: its K is 64 / sizeof(In), 16
/// int32s or 8 int64s, the 64 bytes per thread per tile of chapter 11's tuning.
constexpr int kInOrderBytes = 64;

// ---------------------------------------------------------------------------------------
// Any type across the warp

/// `v` from the lane `lane ^ mask`: a shuffle of each of its 32-bit words.
template <class T>
__device__ T shuffle_xor(T v, int mask) {
  static_assert(sizeof(T) % 4 == 0, "shuffled 32 bits at a time");
  unsigned words[sizeof(T) / 4];
  std::memcpy(words, &v, sizeof v);
#pragma unroll
  for (unsigned& w : words) w = __shfl_xor_sync(kFullMask, w, mask);
  std::memcpy(&v, words, sizeof v);
  return v;
}

/// `v` from the lane `delta` below (a lane below `delta` gets its own back).
template <class T>
__device__ T shuffle_up(T v, unsigned delta) {
  static_assert(sizeof(T) % 4 == 0, "shuffled 32 bits at a time");
  unsigned words[sizeof(T) / 4];
  std::memcpy(words, &v, sizeof v);
#pragma unroll
  for (unsigned& w : words) w = __shfl_up_sync(kFullMask, w, delta);
  std::memcpy(&v, words, sizeof v);
  return v;
}

// [in_order]
/// The combination of the 32 lanes' values in lane order, v_0 . v_1 . ... . v_31, in every lane.
/// A butterfly as chapter 17's warp sum, but each pair is combined with the lower lane's value
/// on the left: at offset d, lanes l and l ^ d hold the combinations of two adjacent runs of d
/// lanes, and the run that starts lower comes first.
template <class M>
__device__ typename M::T warp_reduce_in_order(typename M::T v) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const typename M::T other = shuffle_xor(v, offset);
    const bool upper = lane & offset;  // this lane's run is the later one
    v = M::combine(upper ? other : v, upper ? v : other);
  }
  return v;
}

/// Inclusive scan across the warp in lane order: lane l gets v_0 . ... . v_l (chapter 15's
/// Kogge-Stone, with what comes from below on the left).
template <class M>
__device__ typename M::T warp_scan_in_order(typename M::T v) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const typename M::T below = shuffle_up(v, offset);
    if (lane >= offset) v = M::combine(below, v);
  }
  return v;
}

/// The combination, in warp order, of one value per warp (`warp_total`, the same in all its
/// lanes), returned to every thread. It holds a barrier: every thread of the block calls it.
template <class M>
__device__ typename M::T block_reduce_warps(typename M::T warp_total) {
  __shared__ typename M::T warp_totals[kWarp];
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) warp_totals[warp] = warp_total;
  __syncthreads();
  // Lanes past the last warp take the identity: on the right of every real value.
  return warp_reduce_in_order<M>(lane < int(blockDim.x) / kWarp ? warp_totals[lane] : M::identity());
}
// [in_order]

// ---------------------------------------------------------------------------------------
// The grid: blocks' totals folded by the last block

/// What the blocks of one launch share to combine their totals: one slot per block and the
/// count of blocks done, which is zero before every launch and left zero by the last block.
template <class T>
struct GridScratch {
  T* partials;      ///< block b's total in partials[b]
  unsigned* ticket; ///< blocks that have written theirs
};

/// A value read at L2, where the other blocks' writes are, never from this SM's L1.
template <class T>
__device__ T load_from_l2(const T* p) {
  static_assert(sizeof(T) % 4 == 0, "read 32 bits at a time");
  unsigned words[sizeof(T) / 4];
#pragma unroll
  for (int k = 0; k < int(sizeof(T) / 4); ++k) words[k] = __ldcg(reinterpret_cast<const unsigned*>(p) + k);
  T v;
  std::memcpy(&v, words, sizeof v);
  return v;
}

// [grid]
/// After every thread of every block has its block's total: the grid's total in block order,
/// into *out. Chapter 08's last block done: each block writes its total to its own slot and
/// takes a ticket; the block that takes the last one folds the slots, each thread a contiguous
/// run of them, then the runs in thread order. A grid of one block writes its total directly.
template <class M>
__device__ void finish_grid(typename M::T block_total, GridScratch<typename M::T> g, typename M::T* out) {
  using T = typename M::T;
  __shared__ bool is_last;
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = block_total;
    return;
  }
  if (threadIdx.x == 0) {
    g.partials[blockIdx.x] = block_total;
    __threadfence();  // the total is visible GPU-wide before the ticket that announces it
    const bool last = atomicAdd(g.ticket, 1u) == gridDim.x - 1;
    if (last) __threadfence();  // and every other block's, before this block reads them
    is_last = last;
  }
  __syncthreads();
  if (!is_last) return;
  const unsigned per = (gridDim.x + blockDim.x - 1) / blockDim.x;
  const unsigned first = threadIdx.x * per, end = min(first + per, gridDim.x);
  T acc = M::identity();  // stays the identity in threads past the last slot: on the right
  for (unsigned b = first; b < end; ++b) {
    const T slot = load_from_l2(g.partials + b);
    acc = b == first ? slot : M::combine(acc, slot);
  }
  const T total = block_reduce_warps<M>(warp_reduce_in_order<M>(acc));
  if (threadIdx.x == 0) {
    *out = total;
    *g.ticket = 0;  // no block of this launch reads it again
  }
}
// [grid]

// ---------------------------------------------------------------------------------------
// Chapter 11's order

/// 16 bytes of input: 16 / sizeof(In) elements, moved by one vector load.
template <class In>
struct alignas(16) Vector {
  static constexpr int kCount = 16 / int(sizeof(In));  ///< elements per vector
  In e[kCount];                                        ///< the elements, in memory order
};

/// How n elements starting at `in` divide around their 16-byte-aligned middle (chapter 10).
struct AlignedSplit {
  int64_t head;     ///< elements before the first 16-byte boundary
  int64_t vectors;  ///< whole vectors from that boundary on
  int64_t tail;     ///< elements after the last whole vector
};

/// Split n elements at `in` (aligned to their size, as every pointer to them is) into head,
/// vector body and tail; the body starts at in + head, 16-byte aligned.
template <class In>
__host__ __device__ inline AlignedSplit split_aligned(const In* in, int64_t n) {
  constexpr int64_t per = Vector<In>::kCount;
  const int64_t to_boundary = int64_t((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / int64_t(sizeof(In));
  const int64_t head = to_boundary < n ? to_boundary : n;
  const int64_t vectors = (n - head) / per;
  return {head, vectors, n - head - per * vectors};
}

/// How one launch shares its units (reduce_best_any: chunks of kChunk vectors; reduce_in_order:
/// runs of 32 K elements) among its blocks or warps: every one gets `per` units and the first
/// `extra` one more (chapter 11's Plan).
struct Plan {
  int64_t blocks;  ///< the grid
  int64_t per;     ///< units every block (or warp) takes
  int64_t extra;   ///< blocks (or warps) that take one unit more
};

/// The elements e[0, count) of one vector, whose element 0 is element `index` of the input,
/// combined neighbour with neighbour, ((e0 e1) (e2 e3)), which keeps their order: the same value
/// as a fold from the left for an associative operator, in fewer dependent steps and with the
/// indexes of lifted neighbours known to the compiler relative to each other.
template <class M, int count>
WB_HD typename M::T fold_vector(const typename M::In* e, int64_t index) {
  // (No #pragma unroll: the host compiler sees this function too; with constant trip counts
  // the device compiler unrolls these loops by itself.)
  typename M::T part[count];
  for (int j = 0; j < count; ++j) part[j] = M::lift(e[j], index + j);
  for (int width = 1; width < count; width *= 2)
    for (int j = 0; j + width < count; j += 2 * width) part[j] = M::combine(part[j], part[j + width]);
  return part[0];
}

/// Combine the elements of one vector, whose element 0 is element `index` of the input, into acc.
template <class M>
__device__ void combine_vector(typename M::T& acc, const Vector<typename M::In>& v, int64_t index) {
  acc = M::combine(acc, fold_vector<M, Vector<typename M::In>::kCount>(v.e, index));
}

// [best]
/// Chapter 11's reduce_best over any monoid M (see the file's comment for its order): K vector
/// loads per thread per tile over this block's share of the aligned body, the scalar head and
/// tail in block 0, the block's values combined, then the grid's by the last block (finish_grid).
template <class M, int K>
__global__ void __launch_bounds__(kMaxBlock, 1)
    reduce_best_any(const typename M::In* __restrict__ in, int64_t n, Plan plan, GridScratch<typename M::T> grid,
                    typename M::T* out) {
  using In = typename M::In;
  using T = typename M::T;
  constexpr int64_t per = Vector<In>::kCount;
  const AlignedSplit split = split_aligned(in, n);
  const Vector<In>* body = reinterpret_cast<const Vector<In>*>(in + split.head);
  const unsigned tid = threadIdx.x;
  const int stride = blockDim.x;
  const int64_t tile = int64_t(stride) * K;

  // This block's share of the body, [begin, end) in vectors (chapter 11's).
  const int64_t b = blockIdx.x;
  const int64_t first_chunk = b * plan.per + (b < plan.extra ? b : plan.extra);
  const int64_t chunks = plan.per + (b < plan.extra ? 1 : 0);
  const int64_t begin = first_chunk * kChunk;
  const int64_t share_end = (first_chunk + chunks) * kChunk;
  const int64_t end = share_end < split.vectors ? share_end : split.vectors;

  T acc = M::identity();
  if (b == 0) {
    if (tid < split.head) acc = M::combine(acc, M::lift(in[tid], tid));
    if (tid < split.tail) acc = M::combine(acc, M::lift(in[n - split.tail + tid], n - split.tail + tid));
  }
  int64_t v = begin + tid;   // this thread's first vector of the next tile
  int64_t left = end - begin;  // vectors of the share that no tile has read yet
#pragma unroll 1
  for (; left >= tile; left -= tile, v += tile) {
    Vector<In> x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) x[k] = body[v + k * stride];
#pragma unroll
    for (int k = 0; k < K; ++k) combine_vector<M>(acc, x[k], split.head + (v + k * stride) * per);
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (tid + k * stride < left) {
      const Vector<In> x = body[v + k * stride];
      combine_vector<M>(acc, x, split.head + (v + k * stride) * per);
    }
  }
  finish_grid<M>(block_reduce_warps<M>(warp_reduce_in_order<M>(acc)), grid, out);
}
// [best]

/// The grid and shares of reduce_best_any for n elements: one block per tile of `block` x K
/// vectors, no more than `max_blocks` (one resident wave), shares in chunks of kChunk vectors.
template <class M>
Plan plan_best(const typename M::In* in, int64_t n, int block, int64_t max_blocks) {
  const int64_t vectors = split_aligned(in, n).vectors;
  const int64_t chunks = wb::ceil_div(vectors, kChunk);
  const int64_t tiles = wb::ceil_div(vectors, int64_t(block) * kVectorsPerThread);
  const int64_t blocks = std::max<int64_t>(1, std::min(tiles, max_blocks));
  return {blocks, chunks / blocks, chunks % blocks};
}

// ---------------------------------------------------------------------------------------
// The input's order

/// Elements per lane per run of reduce_in_order: 64 bytes of them.
template <class In>
constexpr int in_order_k() {
  return kInOrderBytes / int(sizeof(In));
}

/// Dynamic shared memory of reduce_in_order with `block` threads: each warp's 32 x K elements in
/// rows of 33 (load_run).
template <class In>
size_t in_order_stage_bytes(int block) {
  return sizeof(In) * size_t(block / kWarp) * (kWarp + 1) * in_order_k<In>();
}

/// Chapter 16's load for one warp: lane l gets the run's elements [l K, l K + K) in `items`,
/// zeros past `count`. The warp reads 32 consecutive elements per load into `part` (rows of
/// 33: conflict-free both ways), then each lane takes its K from there. All K loads go into
/// registers before the first store to shared memory, and a full run (every run but the input's
/// last) loads without a test per element: a store right after each load, or a test per load,
/// makes the compiler wait for each load before it issues the next.
template <int K, class In>
__device__ void load_run(const In* run, int count, In* part, In (&items)[K]) {
  const int lane = threadIdx.x % kWarp;
  In loaded[K];
  if (count == K * kWarp) {
#pragma unroll
    for (int j = 0; j < K; ++j) loaded[j] = run[j * kWarp + lane];
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) loaded[j] = j * kWarp + lane < count ? run[j * kWarp + lane] : In{};
  }
  __syncwarp();  // the previous run's reads of `part` are done
#pragma unroll
  for (int j = 0; j < K; ++j) part[j * (kWarp + 1) + lane] = loaded[j];
  __syncwarp();
  const In* const mine = part + lane * K + lane * K / kWarp;
#pragma unroll
  for (int i = 0; i < K; ++i) items[i] = mine[i];
}

// [ordered]
/// Any associative operator in the input's order: the input is cut into runs of 32 x K
/// elements, each warp of the grid takes a contiguous range of runs (plan: `per` each, the
/// first `extra` warps one more), and combines each run lane by lane: lane l's K consecutive
/// elements, then the lanes in order, then the run after what the warp had. Warps are combined
/// in order within the block, blocks in order by the last block (finish_grid). Every
/// combination has the earlier part on the left, and a value made of no element (the identity)
/// only ever on the right, after the last element.
template <class M, int K>
__global__ void __launch_bounds__(kMaxBlock)
    reduce_in_order(const typename M::In* __restrict__ in, int64_t n, Plan plan, GridScratch<typename M::T> grid,
                    typename M::T* out) {
  using In = typename M::In;
  using T = typename M::T;
  extern __shared__ __align__(16) unsigned char stage_memory[];
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  In* const part = reinterpret_cast<In*>(stage_memory) + warp * (kWarp + 1) * K;
  constexpr int run_size = kWarp * K;
  const int64_t w = int64_t(blockIdx.x) * (blockDim.x / kWarp) + warp;  // this warp in the grid
  const int64_t first_run = w * plan.per + (w < plan.extra ? w : plan.extra);
  const int64_t runs = plan.per + (w < plan.extra ? 1 : 0);
  T warp_total = M::identity();
  for (int64_t r = 0; r < runs; ++r) {
    const int64_t first = (first_run + r) * run_size;  // the run's first element
    const int count = n - first < run_size ? int(n - first) : run_size;
    In items[K];
    load_run<K>(in + first, count, part, items);
    const int64_t mine = first + lane * K;  // this lane's first element
    T acc = lane * K < count ? M::lift(items[0], mine) : M::identity();
#pragma unroll
    for (int i = 1; i < K; ++i) acc = M::combine(acc, lane * K + i < count ? M::lift(items[i], mine + i) : M::identity());
    const T run_total = warp_reduce_in_order<M>(acc);
    warp_total = r == 0 ? run_total : M::combine(warp_total, run_total);
  }
  finish_grid<M>(block_reduce_warps<M>(warp_total), grid, out);
}
// [ordered]

/// The grid and each warp's runs for n elements: one warp per run, no more than `max_blocks`
/// blocks (one resident wave); runs shared evenly among the grid's warps.
template <class M>
Plan plan_in_order(int64_t n, int block, int64_t max_blocks) {
  const int64_t runs = wb::ceil_div<int64_t>(n, int64_t(kWarp) * in_order_k<typename M::In>());
  const int64_t warps_per_block = block / kWarp;
  const int64_t blocks = std::max<int64_t>(1, std::min(wb::ceil_div(runs, warps_per_block), max_blocks));
  const int64_t warps = blocks * warps_per_block;
  return {blocks, runs / warps, runs % warps};
}

/// The two reductions of one monoid, their grids for this GPU and block, and their scratch.
template <class M>
struct Reductions {
  using In = typename M::In;  ///< the input's elements
  using T = typename M::T;    ///< the result
  int block = kBlock;              ///< threads per block
  int64_t best_wave = 0;           ///< reduce_best_any's largest grid: one wave
  int64_t in_order_wave = 0;       ///< reduce_in_order's
  wb::DeviceBuffer<T> partials;    ///< one slot per block
  wb::DeviceBuffer<unsigned> ticket;  ///< blocks done (0 between launches)

  /// K of reduce_in_order for this element.
  static constexpr int kInOrderK = in_order_k<In>();

  /// Occupancy, grids and scratch for `block` threads on `dev`; allows reduce_in_order the
  /// shared memory it needs (above 48 KB a kernel must opt in).
  Reductions(const wb::Device& dev, int block_) : block(block_) {
    WB_CHECK(cudaFuncSetAttribute(reduce_in_order<M, kInOrderK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  int(in_order_stage_bytes<In>(block))));
    best_wave = int64_t(dev.sms) * best_occupancy();
    in_order_wave = int64_t(dev.sms) * in_order_occupancy();
    partials = wb::DeviceBuffer<T>(size_t(std::max(best_wave, in_order_wave)), "the blocks' totals");
    ticket = wb::DeviceBuffer<unsigned>(1, "the count of blocks done");
    WB_CHECK(cudaMemset(ticket.get(), 0, sizeof(unsigned)));
  }

  /// Resident blocks per SM of reduce_best_any at this block size.
  int best_occupancy() const { return wb::blocks_per_sm(reduce_best_any<M, kVectorsPerThread>, block); }
  /// Resident blocks per SM of reduce_in_order at this block size.
  int in_order_occupancy() const {
    return wb::blocks_per_sm(reduce_in_order<M, kInOrderK>, block, in_order_stage_bytes<In>(block));
  }

  /// reduce_best_any over in[0, n) into *out.
  void best(const In* in, int64_t n, T* out) {
    const Plan p = plan_best<M>(in, n, block, best_wave);
    reduce_best_any<M, kVectorsPerThread><<<unsigned(p.blocks), block>>>(in, n, p, {partials.get(), ticket.get()}, out);
  }

  /// reduce_in_order over in[0, n) into *out.
  void in_order(const In* in, int64_t n, T* out) {
    const Plan p = plan_in_order<M>(n, block, in_order_wave);
    reduce_in_order<M, kInOrderK><<<unsigned(p.blocks), block, in_order_stage_bytes<In>(block)>>>(
        in, n, p, {partials.get(), ticket.get()}, out);
  }
};
