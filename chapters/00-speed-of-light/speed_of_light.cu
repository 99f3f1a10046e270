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

/// Enough blocks to fill every SM once (a persistent grid), fewer when n is small.
int64_t grid_for(int64_t n, int resident_blocks, const wb::Device& dev) {
  const int64_t needed = wb::ceil_div<int64_t>(wb::ceil_div<int64_t>(n, 4), kBlock);
  return std::max<int64_t>(1, std::min<int64_t>(needed, int64_t(resident_blocks) * dev.sms));
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "00";
  spec.slug = "speed-of-light";
  spec.idea = "the theoretical peak, and the measured copy and read-only ceilings of this GPU";
  spec.op = wb::Op::Reduce;

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 8);
  wb::Input in = wb::make_input(opt);
  const int32_t want_sum = wb::cpu_sum(in.host.data(), in.n);
  wb::DeviceArray copy = wb::make_array(opt, in.n, "the copy");
  wb::DeviceBuffer<int> sum(1, "the sum");

  wb::Bench bench(spec, opt, dev, in);
  const double copy_bytes = 8.0 * in.n, read_bytes = 4.0 * in.n;

  bench.run({"memcpy_d2d", in.n, 0, 0, copy_bytes, 0},
            [&] { WB_CHECK(cudaMemcpyAsync(copy.d, in.d, size_t(in.n) * 4, cudaMemcpyDeviceToDevice)); }, copy.d,
            in.host.data(), in.n);

  const int copy_resident = wb::blocks_per_sm(copy_int4, kBlock);
  const int64_t copy_grid = grid_for(in.n, copy_resident, dev);
  bench.run({"copy_int4", in.n, kBlock, 0, copy_bytes, copy_resident},
            [&] { copy_int4<<<unsigned(copy_grid), kBlock>>>(in.d, copy.d, in.n); }, copy.d, in.host.data(), in.n);

  const int read_resident = wb::blocks_per_sm(read_sum_int4, kBlock);
  const int64_t read_grid = grid_for(in.n, read_resident, dev);
  bench.run({"read_sum_int4", in.n, kBlock, 0, read_bytes, read_resident},
            [&] {
              WB_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(int)));
              read_sum_int4<<<unsigned(read_grid), kBlock>>>(in.d, in.n, sum.get());
            },
            sum.get(), &want_sum, 1);

  // The ceilings: the best copy and the read-only sum, as fractions of the theoretical peak.
  const auto& rows = bench.rows();
  const double copy_ceiling = std::max(rows[0].gbps, rows[1].gbps), read_ceiling = rows[2].gbps;
  bench.annotate_last("read ceiling");
  const int status = bench.finish();
  wb::note(opt, "\ntheoretical peak %.0f GB/s; copy ceiling %.0f GB/s (%.1f%%); read-only ceiling %.0f GB/s (%.1f%%)\n",
           dev.peak_gbps, copy_ceiling, 100 * copy_ceiling / dev.peak_gbps, read_ceiling,
           100 * read_ceiling / dev.peak_gbps);
  return status;
}
