/// @file speed_of_light.cu
/// @brief Chapter 00: how fast can this GPU move memory? The ceilings every later chapter uses.
///
/// The idea: before optimising a memory-bound kernel, know the limit. The device's
/// attributes give a theoretical peak (memory clock x bus width x 2 for double data rate),
/// which no kernel reaches. Two measurements give the real ceilings:
/// - a device-to-device copy (each byte read once and written once), through
///   `cudaMemcpyAsync` and through a 16-byte copy kernel: the ceiling for scans, which
///   read and write every element;
/// - a read-only streaming sum with 16-byte loads: the ceiling for reductions, which only read.
///
/// Every later chapter reports its bandwidth as a percentage of these (scripts/summary.sh
/// takes them from this chapter's rows of the same run), so no number here is hard-coded.
///
/// Bandwidth is half the story; the other half is latency, how long one load takes to come
/// back. A pointer chase measures it: one thread follows a chain of links through memory,
/// each load's address being the value the previous load returned, so no two loads are ever
/// in flight together and the time per link is the latency. The links lie in a random order,
/// 256 bytes apart, so no cache line holds two of them and no prefetcher can guess the next:
/// - `latency_dram_chase`: over 4 x the L2 size, with L2 emptied before each timed run, so
///   every link comes from DRAM;
/// - `latency_l2_chase`: over a quarter of the L2 size, loaded into L2 just before the chase,
///   so every link comes from L2.
/// Their rows report the chase: n is the number of links followed (dependent loads), median_ms
/// the time of the whole chase, so median_ms x 1e6 / n is nanoseconds per load (printed after
/// the table, and beside each row). The loads bypass L1 (`__ldcg`), so L1 hits do not blur
/// the L2 figure.

#include <numeric>
#include <random>

#include "workbook.cuh"

/// Threads per block for both kernels; 256 keeps eight blocks resident per SM.
constexpr int kBlock = 256;
/// Independent 16-byte loads each thread has in flight per loop trip.
constexpr int kUnroll = 4;

/// Elements before the first 16-byte-aligned address at or after `p` (0 to 3), capped at n.
__device__ __forceinline__ int64_t aligned_head(const int* p, int64_t n) {
  const int64_t head = int64_t((16 - (reinterpret_cast<uintptr_t>(p) & 15)) & 15) / 4;
  return head < n ? head : n;
}

// [copy]
/// Copy n ints with 16-byte loads and stores. `in` and `out` share their misalignment
/// (both are --offset elements into their allocations), so one scalar head brings both to
/// a 16-byte boundary; a scalar tail takes the last 0-3 elements.
__global__ void copy_int4(const int* __restrict__ in, int* __restrict__ out, int64_t n) {
  const int64_t head = aligned_head(in, n);
  const int64_t vectors = (n - head) / 4;
  const int64_t tail = head + vectors * 4;
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  if (tid < head) out[tid] = in[tid];
  if (tid < n - tail) out[tail + tid] = in[tail + tid];

  const int4* src = reinterpret_cast<const int4*>(in + head);
  int4* dst = reinterpret_cast<int4*>(out + head);
  int64_t i = tid;
  for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < vectors; i += stride) dst[i] = src[i];
}
// [copy]

// [read]
/// Sum n ints with 16-byte loads and add the block's total to `*sum` (zeroed by the caller).
/// Only the loads matter for the ceiling; the sum exists so that the compiler cannot drop
/// them and so that the result can be verified.
__global__ void read_sum_int4(const int* __restrict__ in, int64_t n, int* sum) {
  const int64_t head = aligned_head(in, n);
  const int64_t vectors = (n - head) / 4;
  const int64_t tail = head + vectors * 4;
  const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int acc = 0;
  if (tid < head) acc += in[tid];
  if (tid < n - tail) acc += in[tail + tid];

  const int4* src = reinterpret_cast<const int4*>(in + head);
  int64_t i = tid;
  for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < vectors; i += stride) {
    const int4 v = src[i];
    acc += v.x + v.y + v.z + v.w;
  }

  // Combine the block's threads (chapter 07 teaches this step) and add once per block.
  __shared__ int warp_totals[32];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_totals[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < int(blockDim.x / 32) ? warp_totals[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) atomicAdd(sum, acc);
  }
}
// [read]

// [chase]
/// Ints between two links of a pointer chase: 256 bytes, two 128-byte cache lines.
constexpr int kLinkStride = 64;
/// Dependent loads per chase: 2^17, tens of milliseconds at DRAM or L2 latency, long enough
/// that the launch and the L2 warm-up (a few microseconds) do not count.
constexpr int64_t kChaseLoads = int64_t(1) << 17;

/// Follow the chain from link 0 (at chain[0]) for `loads` links and write the index of the
/// last one reached to `*end`. One thread: each load waits for the one before it.
__global__ void pointer_chase(const int* __restrict__ chain, int64_t loads, int* end) {
  int at = 0;
  for (int64_t k = 0; k < loads; ++k) at = __ldcg(chain + at);  // .cg: cached in L2, not in L1
  *end = at;
}

/// Load each of the chain's `links` links once, in parallel, so that they sit in L2 when the
/// chase starts. No link is negative: the store is never made, but the compiler cannot drop
/// the loads.
__global__ void touch_links(const int* __restrict__ chain, int64_t links, int* end) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < links; j += stride)
    if (__ldcg(chain + j * kLinkStride) < 0) *end = -1;
}
// [chase]

/// A chain for pointer_chase on the device, and where a chase of kChaseLoads loads ends.
struct Chain {
  wb::DeviceBuffer<int> ints;  ///< link j at ints[j * kLinkStride]: the index of the next link's int
  int64_t links = 0;           ///< links in the cycle
  int32_t end = 0;             ///< the index pointer_chase must reach after kChaseLoads loads
};

/// Build a chain of links kLinkStride ints apart over about `bytes` bytes. Sattolo's shuffle
/// orders them in one random cycle through all of them, so a chase shorter than the cycle
/// never loads a link twice. The host follows the same chain to know where the chase ends.
Chain make_chain(int64_t bytes, uint64_t seed, const char* what) {
  Chain c;
  c.links = std::min<int64_t>(std::max<int64_t>(2, bytes / (4 * kLinkStride)), INT32_MAX / kLinkStride);
  std::vector<int32_t> next(size_t(c.links));
  std::iota(next.begin(), next.end(), 0);
  std::mt19937_64 rng(seed);
  for (int64_t j = c.links - 1; j > 0; --j) {
    std::uniform_int_distribution<int64_t> pick(0, j - 1);  // Sattolo: never j itself
    std::swap(next[size_t(j)], next[size_t(pick(rng))]);
  }
  std::vector<int32_t> host(size_t(c.links * kLinkStride), 0);
  for (int64_t j = 0; j < c.links; ++j) host[size_t(j * kLinkStride)] = next[size_t(j)] * kLinkStride;
  c.ints = wb::DeviceBuffer<int>(host.size(), what);
  WB_CHECK(cudaMemcpy(c.ints.get(), host.data(), host.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
  int32_t at = 0;
  for (int64_t k = 0; k < kChaseLoads; ++k) at = host[size_t(at)];
  c.end = at;
  return c;
}

/// "612 ns per load": a chase row's note in the table.
std::string per_load(double ns) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f ns per load", ns);
  return text;
}

/// Enough blocks to fill every SM once (a persistent grid), fewer when n is small.
int64_t grid_for(int64_t n, int resident_blocks, const wb::Device& dev) {
  const int64_t needed = wb::ceil_div<int64_t>(wb::ceil_div<int64_t>(n, 4), kBlock);
  return std::max<int64_t>(1, std::min<int64_t>(needed, int64_t(resident_blocks) * dev.sms));
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "00";
  spec.slug = "speed-of-light";
  spec.idea = "the theoretical peak, the measured copy and read-only ceilings, and the DRAM and L2 load latency of this GPU";
  spec.op = wb::Op::Reduce;
  spec.bytes = "the copies count each element read and written (8 bytes), the read-only sum each element read "
               "(4 bytes), the latency chases the 4 bytes of each load";
  spec.part = wb::Part::Ceiling;
  spec.kernels = {"memcpy_d2d", "copy_int4", "read_sum_int4", "latency_dram_chase", "latency_l2_chase"};
  spec.ceilings = {{"memcpy_d2d", "copy_int4"}, {"read_sum_int4"}};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  // The two chains (4 x L2 and L2 / 4) and, with --no-flush, a buffer that empties L2.
  const double chase_bytes = (4.25 + (opt.flush ? 0 : 2)) * double(dev.l2_bytes);
  wb::fit_default_n(opt, dev, 8, chase_bytes);
  wb::Input in = wb::make_input(opt);
  const int32_t want_sum = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceArray copy = wb::make_array(opt, in.n, "the copy");
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  const double copy_bytes = 8.0 * in.n, read_bytes = 4.0 * in.n;

  // A copy's element 0 alone holds input element 0, which the harness changes between runs.
  wb::Case memcpy_case{"memcpy_d2d", in.n, 0, 0, copy_bytes, 0};
  memcpy_case.outputs_with_first = 1;
  bench.run(memcpy_case,
            [&] { WB_CHECK(cudaMemcpyAsync(copy.d, in.d, size_t(in.n) * 4, cudaMemcpyDeviceToDevice)); }, copy.d,
            in.host.data(), in.n);

  const int copy_resident = wb::blocks_per_sm(copy_int4, kBlock);
  const int64_t copy_grid = grid_for(in.n, copy_resident, dev);
  wb::Case copy_case{"copy_int4", in.n, kBlock, 0, copy_bytes, copy_resident};
  copy_case.outputs_with_first = 1;
  bench.run(copy_case, [&] { copy_int4<<<unsigned(copy_grid), kBlock>>>(in.d, copy.d, in.n); }, copy.d,
            in.host.data(), in.n);

  const int read_resident = wb::blocks_per_sm(read_sum_int4, kBlock);
  const int64_t read_grid = grid_for(in.n, read_resident, dev);
  bench.run({"read_sum_int4", in.n, kBlock, 0, read_bytes, read_resident},
            [&] {
              WB_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(int)));
              read_sum_int4<<<unsigned(read_grid), kBlock>>>(in.d, in.n, sum.get());
            },
            sum.get(), &want_sum, 1);
  bench.annotate_last("read ceiling");

  // The latencies. Each row's n is the number of loads, its bytes the 4 each load returns.
  wb::DeviceBuffer<int> end(1, "the end of the chase");
  const int64_t l2 = std::max<int64_t>(dev.l2_bytes, 1 << 20);
  Chain dram = make_chain(4 * l2, opt.seed, "the DRAM chain");
  Chain cached = make_chain(l2 / 4, opt.seed + 1, "the L2 chain");
  // The chases never read the input: where they end does not change with it.
  wb::Case dram_case{"latency_dram_chase", kChaseLoads, 1, 0, 4.0 * kChaseLoads, 0};
  wb::Case l2_case{"latency_l2_chase", kChaseLoads, 1, 0, 4.0 * kChaseLoads, 0};
  dram_case.outputs_with_first = l2_case.outputs_with_first = 0;
  // The harness empties L2 before each timed run; with --no-flush it does not, and the DRAM
  // chase empties it itself (inside the timed region: under 0.1% of the chase's time).
  wb::DeviceBuffer<char> evict;
  if (!opt.flush) evict = wb::DeviceBuffer<char>(size_t(2 * l2), "the buffer that empties L2");
  int evictions = 0;
  const wb::Row dram_row = bench.run(dram_case, [&] {
    if (!opt.flush) WB_CHECK(cudaMemsetAsync(evict.get(), ++evictions & 0xff, evict.size()));
    pointer_chase<<<1, 1>>>(dram.ints.get(), kChaseLoads, end.get());
  }, end.get(), &dram.end, 1);
  const double dram_ns = dram_row.median_ms * 1e6 / kChaseLoads;
  bench.annotate_last(per_load(dram_ns));
  // The L2 chain is loaded into L2 first, in parallel, whether or not the harness flushed it.
  const int64_t touch_blocks = std::min<int64_t>(wb::ceil_div<int64_t>(cached.links, kBlock), int64_t(8) * dev.sms);
  const wb::Row l2_row = bench.run(l2_case, [&] {
    touch_links<<<unsigned(touch_blocks), kBlock>>>(cached.ints.get(), cached.links, end.get());
    pointer_chase<<<1, 1>>>(cached.ints.get(), kChaseLoads, end.get());
  }, end.get(), &cached.end, 1);
  const double l2_ns = l2_row.median_ms * 1e6 / kChaseLoads;
  bench.annotate_last(per_load(l2_ns));

  // The ceilings: the best copy and the read-only sum, as fractions of the theoretical peak.
  const auto& rows = bench.rows();
  const double copy_ceiling = std::max(rows[0].gbps, rows[1].gbps), read_ceiling = rows[2].gbps;
  const int status = bench.finish();
  wb::note(opt, "\ntheoretical peak %.0f GB/s; copy ceiling %.0f GB/s (%.1f%%); read-only ceiling %.0f GB/s (%.1f%%)\n",
           dev.peak_gbps, copy_ceiling, 100 * copy_ceiling / dev.peak_gbps, read_ceiling,
           100 * read_ceiling / dev.peak_gbps);
  wb::note(opt, "load latency (one thread, %lld dependent loads): DRAM %.0f ns over %.0f MiB (4 x L2), "
                "L2 %.0f ns over %.1f MiB (L2 / 4); in the CSV, median_ms x 1e6 / n\n",
           (long long)kChaseLoads, dram_ns, dram.links * kLinkStride * 4 / 1048576.0, l2_ns,
           cached.links * kLinkStride * 4 / 1048576.0);
  return status;
}
