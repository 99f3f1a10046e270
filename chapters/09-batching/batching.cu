/// @file batching.cu
/// @brief Chapter 09: thread coarsening: each thread adds K elements of a tile, several loads
/// in flight at once, before its block combines the totals.
///
/// The idea: in chapter 08 each trip of a thread's grid-stride loop loads one element and
/// adds it, so the next load waits for the add, which waits for memory: one thread has
/// about one 4-byte load in flight. Here the input is cut into tiles of `block` x K elements
/// (K = --batch), one tile per block per trip, and a thread issues kLoadsInFlight independent
/// loads before it adds any of them. The bytes on their way from memory multiply, and with
/// them the bandwidth, until the memory system, not the latency, is the limit.
///
/// What it teaches: coarsening without losing coalescing. Thread t reads elements t,
/// t + block, t + 2 block, ... of its block's tile, so on every load the 32 lanes of a warp
/// touch 32 neighbouring ints: one 128-byte request, as in chapter 08. (Giving each thread K
/// neighbouring elements instead, as Simon Veitner's and comeradealexi's kernels do, spreads
/// every warp load over 32 places K x 4 bytes apart.) And how many blocks a GPU needs: with K
/// large enough, there are fewer tiles than one wave of blocks, and SMs sit idle.
///
/// Since chapter 08: the `atomic` variant (one atomicAdd per block into a sum the launcher
/// zeroes), whose one-element grid-stride loop becomes a loop over tiles with a batch of
/// loads per trip. The grid is one block per tile, capped at one resident wave (chapter 08's
/// had one block per blockDim.x elements, capped only by the launch limit). The input is
/// declared `__restrict__`: it is only read, so its loads may take the read-only path.
///
/// So the default changes two things at once, K elements per thread and a grid capped at one
/// wave. `--variant` measures each alone, all three with the same kernel, reduce_batched:
/// - `both` (the default, `reduce_batched`): K = --batch on the one-wave grid.
/// - `full_grid` (`reduce_batched_full_grid`): batching alone: K = --batch on chapter 08's grid
///   shape, one block per tile, so that every element is visited once with no block taking a
///   second tile (capped at the launch limit, past which the grid-stride loop takes over).
/// - `one_wave` (`reduce_one_wave_unbatched`): the one-wave grid alone: K = 1, whatever --batch
///   says, so each thread loads one element per trip of its grid-stride loop.
/// - `all` runs the three in that order.

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 from 32 to 1024 works.
constexpr int kBlock = 32;
/// Elements per thread per tile (K) by default; any K from 1 to kMaxBatch works.
constexpr int kBatch = 16;
/// The largest K accepted: a tile of 1024 x 65536 elements keeps offsets inside it in an int.
constexpr int kMaxBatch = 1 << 16;
/// Loads a thread issues before it adds the first of them: with 2048 threads per SM, eight
/// 4-byte loads each keep 64 KB per SM on their way from memory.
constexpr int kLoadsInFlight = 8;
/// Every lane of the warp takes part in each warp-level operation.
constexpr unsigned kFullMask = 0xffffffffu;

/// The sum of `v` over the 32 lanes of a full warp (chapter 07), in lane 0 at least:
/// one `__reduce_add_sync` on sm_80 and newer, the shuffle tree on sm_75, which lacks it.
__device__ int warp_sum(int v) {
#if WB_HAS_REDUCE_ADD
  return __reduce_add_sync(kFullMask, v);
#else
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
#endif
}

/// The sum of `v` over the whole block, returned in thread 0 (chapter 07). blockDim.x must be
/// a multiple of 32; every thread of the block must call it, since it contains a barrier.
__device__ int block_sum(int v) {
  __shared__ int warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  // Warp 0 sums the totals. With fewer than 32 warps its upper lanes add 0: those slots of
  // warp_totals were never written in this block.
  if (warp == 0) v = warp_sum(lane < blockDim.x / 32 ? warp_totals[lane] : 0);
  return v;
}

// [kernel]
/// Sum tiles of blockDim.x x `batch` elements, tiles b, b + grid, ... for block b, then the
/// block's threads, and add the block's sum to `*sum`, which the launcher has zeroed.
__global__ void reduce_batched(const int* __restrict__ in, int64_t n, int batch, int* sum) {
  const unsigned tid = threadIdx.x;
  const int stride = blockDim.x;  // between a thread's consecutive elements in a tile
  const int64_t tile = int64_t(stride) * batch;
  const int64_t grid_stride = int64_t(gridDim.x) * tile;
  int total = 0;
  for (int64_t start = int64_t(blockIdx.x) * tile; start < n; start += grid_stride) {
    if (start + tile <= n) {
      // [batch]
      // A whole tile: no bounds checks, and offsets inside it fit in an int.
      const int* p = in + start + tid;
      int k = 0;
      for (; k + kLoadsInFlight <= batch; k += kLoadsInFlight) {
        int x[kLoadsInFlight];
#pragma unroll
        for (int u = 0; u < kLoadsInFlight; ++u) x[u] = p[(k + u) * stride];  // all issued first...
#pragma unroll
        for (int u = 0; u < kLoadsInFlight; ++u) total += x[u];  // ...then added as they arrive
      }
      for (; k < batch; ++k) total += p[k * stride];
      // [batch]
    } else {
      // The last tile stops at n: a thread reads its elements until it passes the end.
      for (int64_t i = start + tid; i < n; i += stride) total += in[i];
    }
  }
  total = block_sum(total);
  if (tid == 0) atomicAdd(sum, total);
}
// [kernel]

// [grid]
/// The one-wave grid: as many blocks as the GPU holds resident at once, `blocks_per_sm` (from
/// the occupancy API) on each SM. A larger grid only queues blocks behind the first wave.
int64_t one_wave_blocks(const wb::Device& dev, int blocks_per_sm) { return int64_t(dev.sms) * blocks_per_sm; }

/// The most blocks one launch takes (gridDim.x < 2^31): the cap of the `full_grid` variant.
constexpr int64_t kLaunchLimit = INT32_MAX;
// [grid]

// [launcher]
/// Reduce the `n` >= 1 elements of `in` into `*sum`: zero it, then launch one block per tile
/// of `block` x `batch` elements, but no more than `max_blocks` (one resident wave, or the
/// launch limit for `full_grid`); past that, blocks take several tiles in turn.
void launch_batched(const int* in, int64_t n, int* sum, int block, int batch, int64_t max_blocks) {
  WB_CHECK(cudaMemsetAsync(sum, 0, sizeof(int)));
  const int64_t blocks = std::min(wb::ceil_div<int64_t>(n, int64_t(block) * batch), max_blocks);
  reduce_batched<<<unsigned(blocks), block>>>(in, n, batch, sum);
}
// [launcher]

/// One `--variant`: which of the chapter's two changes it keeps.
struct Variant {
  const char* name;         ///< the --variant value
  const char* kernel_name;  ///< the name in the report
  bool batched;             ///< K = --batch; else K = 1
  bool one_wave;            ///< the one-wave grid; else one block per tile, up to the launch limit
};

/// The variants; the first is the default, and `all` runs them in this order.
const Variant kVariants[] = {
    {"both", "reduce_batched", true, true},
    {"full_grid", "reduce_batched_full_grid", true, false},
    {"one_wave", "reduce_one_wave_unbatched", false, true},
};

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "09";
  spec.slug = "batching";
  spec.idea = "each thread adds K elements of a coalesced tile, several loads in flight, before the block sum";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, false};
  for (const Variant& v : kVariants) spec.variants.push_back({v.name, {v.kernel_name}});
  spec.variants.push_back(wb::every_variant(spec.variants));

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const int32_t want = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  if (opt.batch_given && opt.batch != 1 && (opt.variant == "one_wave" || opt.variant == "all"))
    wb::note(opt, "note: the one_wave variant runs K = 1, whatever --batch says\n");
  // The three variants launch the same kernel, so they share its occupancy.
  const int occupancy = wb::blocks_per_sm(reduce_batched, opt.block);
  for (const Variant& v : kVariants) {
    if (opt.variant != v.name && opt.variant != "all") continue;
    const int batch = v.batched ? opt.batch : 1;
    const int64_t max_blocks = v.one_wave ? one_wave_blocks(dev, occupancy) : kLaunchLimit;
    wb::Case c{v.kernel_name, in.n, opt.block, batch, 0, occupancy};
    bench.run(c, [&] { launch_batched(in.d, in.n, sum.get(), opt.block, batch, max_blocks); }, sum.get(), &want, 1);
  }
  return bench.finish();
}
