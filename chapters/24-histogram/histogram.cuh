/// @file histogram.cuh
/// @brief Chapter 24's counting kernels: the even bins, the private counters in shared memory
/// (steps 2 to 4), the vectorized kernel (step 5) and what it counts, a bin or the four 8-bit
/// digits of a radix sort (step 6). Chapter 24's program includes it, and so does chapter 25's,
/// whose sort starts from the four digit histograms: that is why it is a header.
#pragma once

#include <cstdint>

constexpr int kWarp = 32;                  ///< lanes in a warp
constexpr unsigned kFullMask = 0xffffffffu;  ///< every lane of the warp takes part
/// The counters of the four digit histograms: digit d's byte value v is counter 256 d + v.
constexpr int kDigitBins = 4 * 256;

// [bins]
/// B even bins over the whole uint32 range: sample x goes to bin floor(x B / 2^32), the high
/// word of the 64-bit product, one multiply.
struct EvenBins {
  uint32_t count = 256;  ///< B
  /// The bin of x.
  WB_HD uint32_t operator()(uint32_t x) const { return uint32_t((uint64_t(x) * count) >> 32); }
};
// [bins]

// [private]
/// Where a block keeps its private counters: `copies` copies of the first `shared_bins` counters
/// in dynamic shared memory, a bin past shared_bins going straight to global memory. Warp w
/// counts into copy w % copies, the copy's counters side by side (steps 2 to 5); or, striped
/// (step 6), lane l counts into copy l, bin b's 32 copies side by side, so that the 32 lanes of
/// an atomic always hit 32 banks.
struct Private {
  int copies = 1;        ///< copies per block: 1 (step 2), up to one per warp, or 32 (striped)
  int shared_bins = 0;   ///< bins counted in shared memory
  bool striped = false;  ///< one copy per lane, copy c of bin b at word 32 b + c
  /// Dynamic shared memory a block needs.
  size_t bytes() const { return size_t(copies) * size_t(shared_bins) * 4; }
  /// The word of copy c's counter of bin b.
  __device__ int word(int c, int b) const { return striped ? b * kWarp + c : c * shared_bins + b; }
};

/// How a lane adds one sample into the counters.
enum class Add {
  Atomic,      ///< an atomicAdd per sample
  Aggregated,  ///< the lanes with samples of one bin add their number once (__match_any_sync)
  Racy         ///< a plain read-modify-write: the racecheck exercise, which loses counts
};

/// Count a sample of bin `bin` (only where `valid`) in `copy`, or in global memory past the
/// shared bins. With Add::Aggregated every lane of the warp must call it together.
template <Add How>
__device__ __forceinline__ void count_sample(unsigned* priv, int copy, const Private& p, unsigned long long* counts,
                                             uint32_t bin, bool valid) {
  unsigned add = 1;
  if (How == Add::Aggregated) {
    const unsigned same = __match_any_sync(kFullMask, valid ? bin : 0xffffffffu);  // no bin is 2^32 - 1
    const unsigned lanes_below = (1u << (threadIdx.x % kWarp)) - 1u;
    if (same & lanes_below) return;  // a lower lane of the group adds for it
    add = __popc(same);
  }
  if (!valid) return;
  if (bin >= unsigned(p.shared_bins)) atomicAdd(&counts[bin], (unsigned long long)add);
  else if (How == Add::Racy) priv[p.word(copy, int(bin))] += add;
  else atomicAdd(&priv[p.word(copy, int(bin))], add);
}

/// Zero the block's copies; returns the copy this thread counts into.
__device__ int open_private(unsigned* priv, const Private& p) {
  for (int k = int(threadIdx.x); k < p.copies * p.shared_bins; k += int(blockDim.x)) priv[k] = 0;
  __syncthreads();
  return p.striped ? int(threadIdx.x % kWarp) : int(threadIdx.x / kWarp) % p.copies;
}

/// Add the block's copies into the global counters: per bin the sum of its copies, one 64-bit
/// atomicAdd where it is not 0. Striped, thread b starts at copy b % 32, so that a warp's 32
/// reads hit 32 banks.
__device__ void merge_private(const unsigned* priv, const Private& p, unsigned long long* counts) {
  __syncthreads();
  for (int b = int(threadIdx.x); b < p.shared_bins; b += int(blockDim.x)) {
    unsigned long long sum = 0;
    for (int c = 0; c < p.copies; ++c) sum += priv[p.word(p.striped ? (c + b) % kWarp : c, b)];
    if (sum != 0) atomicAdd(&counts[b], sum);
  }
}

/// Steps 2 to 4 (and --racy): private counters in shared memory, one sample per lane per round,
/// each warp taking 32 consecutive samples (one coalesced load). Launch with p.bytes() of
/// dynamic shared memory; step 2 has one copy, step 3 one per warp.
template <Add How>
__global__ void hist_shared(const uint32_t* in, int64_t n, EvenBins bin_of, Private p, unsigned long long* counts) {
  extern __shared__ unsigned priv[];
  const int copy = open_private(priv, p);
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / kWarp);
  const int64_t warp = int64_t(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  // The loop's bound is the warp's, so its lanes stay together for __match_any_sync.
  for (int64_t base = warp * kWarp; base < n; base += warps * kWarp) {
    const int64_t i = base + threadIdx.x % kWarp;
    const bool valid = i < n;
    count_sample<How>(priv, copy, p, counts, valid ? bin_of(in[i]) : 0u, valid);
  }
  merge_private(priv, p, counts);
}
// [private]

// [vectorized]
/// How n samples starting at `in` divide around their 16-byte-aligned middle (chapter 10).
struct AlignedSplit {
  int64_t head;     ///< samples before the first 16-byte boundary (0 to 3)
  int64_t vectors;  ///< whole uint4s from that boundary on
  int64_t tail;     ///< samples after the last whole uint4 (0 to 3)
};

/// Split n samples at `in` into head, uint4 body and tail; the body starts 16-byte aligned.
__host__ __device__ inline AlignedSplit split_aligned(const uint32_t* in, int64_t n) {
  const int64_t to_boundary = int64_t((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / 4;
  const int64_t head = to_boundary < n ? to_boundary : n;
  const int64_t vectors = (n - head) / 4;
  return {head, vectors, n - head - 4 * vectors};
}

/// What step 5 counts: a sample's bin.
struct CountBins {
  EvenBins bin_of;  ///< the bins
  /// Count sample x.
  template <Add How>
  __device__ void operator()(unsigned* priv, int copy, const Private& p, unsigned long long* counts, uint32_t x,
                             bool valid) const {
    count_sample<How>(priv, copy, p, counts, bin_of(x), valid);
  }
};

/// What step 6 counts: a sample's four bytes, byte d into counter 256 d + its value.
struct CountDigits {
  /// Count sample x.
  template <Add How>
  __device__ void operator()(unsigned* priv, int copy, const Private& p, unsigned long long* counts, uint32_t x,
                             bool valid) const {
#pragma unroll
    for (int d = 0; d < 4; ++d) count_sample<How>(priv, copy, p, counts, 256u * d + ((x >> (8 * d)) & 255u), valid);
  }
};

/// Steps 5 and 6: step 4 with K uint4 loads per lane per round. Each warp takes 32 K
/// consecutive uint4s a round, lane l the uint4s l, l + 32, ...; warp 0 of block 0 also counts
/// the head and the tail, one sample per lane. A full round loads without tests, so all K
/// loads are in flight before any sample is counted.
template <int K, Add How, class Count>
__global__ void hist_vectorized(const uint32_t* in, int64_t n, Count count, Private p, unsigned long long* counts) {
  extern __shared__ unsigned priv[];
  const int copy = open_private(priv, p);
  const AlignedSplit split = split_aligned(in, n);
  const int lane = int(threadIdx.x % kWarp);
  if (blockIdx.x == 0 && threadIdx.x < kWarp) {  // lanes 0-3 the head, lanes 4-7 the tail
    const bool head = lane < split.head, tail = lane >= 4 && lane - 4 < split.tail;
    const int64_t i = head ? lane : split.head + 4 * split.vectors + (lane - 4);
    count.template operator()<How>(priv, copy, p, counts, head || tail ? in[i] : 0u, head || tail);
  }
  const uint4* const body = reinterpret_cast<const uint4*>(in + split.head);
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / kWarp);
  const int64_t warp = int64_t(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  for (int64_t base = warp * kWarp * K; base < split.vectors; base += warps * kWarp * K) {
    const bool full = base + kWarp * K <= split.vectors;
    uint4 v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int64_t at = base + lane + kWarp * j;
      v[j] = full || at < split.vectors ? body[at] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const bool valid = full || base + lane + kWarp * j < split.vectors;
      count.template operator()<How>(priv, copy, p, counts, v[j].x, valid);
      count.template operator()<How>(priv, copy, p, counts, v[j].y, valid);
      count.template operator()<How>(priv, copy, p, counts, v[j].z, valid);
      count.template operator()<How>(priv, copy, p, counts, v[j].w, valid);
    }
  }
  merge_private(priv, p, counts);
}
// [vectorized]

// [digits]
/// What step 6 counts with striped counters (plan_striped's): a sample's four bytes, each in the
/// lane's own copy. Every one of the kDigitBins counters is in shared memory and the copy is the
/// lane's, so a byte needs no test and no path to global memory: four instructions (take it out
/// of x, two for its address, the atomic) where count_sample takes 14.
struct CountDigitsStriped {
  /// Count sample x.
  template <Add How>
  __device__ void operator()(unsigned* priv, int copy, const Private&, unsigned long long*, uint32_t x,
                             bool valid) const {
    unsigned* const column = priv + copy;  // the lane's copy: counter b at word 32 b
#pragma unroll
    for (int d = 0; d < 4; ++d)  // byte d of x, with zeros above it
      if (valid) atomicAdd(column + 256 * kWarp * d + __byte_perm(x, 0, 0x4440 + d) * kWarp, 1u);
  }
};

/// Call f with what counts the four digits into counters planned as p: CountDigitsStriped where p
/// is striped, else CountDigits.
template <class F>
void with_digit_counter(const Private& p, F&& f) {
  if (p.striped) f(CountDigitsStriped{});
  else f(CountDigits{});
}
// [digits]

// ---------------------------------------------------------------------------------------
// How the kernels are launched

/// The private counters a block of `block` threads keeps for `bins` bins: one copy (step 2) or
/// one per warp (`per_warp`), as many as fit in the shared memory of one block when
/// max_threads_per_sm / block blocks share an SM, at least one copy of as many bins as fit in a
/// block that has the SM alone.
inline Private plan_private(const wb::Device& dev, int block, int bins, bool per_warp) {
  const size_t whole = dev.max_smem_per_block - 1024;  // 1 KB for the kernels' static arrays
  const size_t shared = whole / size_t(std::max(1, dev.max_threads_per_sm / block));
  Private p;
  p.shared_bins = int(std::min<size_t>(size_t(bins), whole / 4));
  const size_t fit = shared / (size_t(p.shared_bins) * 4);
  p.copies = per_warp ? int(std::max<size_t>(1, std::min<size_t>(size_t(block / kWarp), fit))) : 1;
  return p;
}

/// Step 6's striped counters for `bins` bins: one copy per lane, where 32 copies fit in one
/// block's shared memory (kDigitBins do: 128 KB); else, as step 5, one per warp.
inline Private plan_striped(const wb::Device& dev, int block, int bins) {
  if (size_t(bins) * kWarp * 4 > dev.max_smem_per_block - 1024) return plan_private(dev, block, bins, true);
  Private p;
  p.copies = kWarp;
  p.shared_bins = bins;
  p.striped = true;
  return p;
}

/// How a kernel of the private steps is launched.
struct Launch {
  Private p;              ///< its private counters
  unsigned grid = 0;      ///< blocks
  int blocks_per_sm = 0;  ///< resident blocks per SM
};

/// Allow `kernel` p.bytes() of dynamic shared memory and size its grid: one resident wave, but
/// no more blocks than give each thread `per_thread` samples, and enough that no block counts
/// 2^32 samples into its 32-bit counters.
template <class Kernel>
Launch plan_launch(const wb::Device& dev, Kernel kernel, Private p, int block, int64_t n, int64_t per_thread) {
  WB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(p.bytes())));
  Launch l;
  l.p = p;
  l.blocks_per_sm = wb::blocks_per_sm(kernel, block, p.bytes());
  const int64_t wave = int64_t(std::max(1, l.blocks_per_sm)) * dev.sms;
  const int64_t wanted = std::max<int64_t>(1, wb::ceil_div<int64_t>(n, int64_t(block) * per_thread));
  l.grid = unsigned(std::max(std::min(wave, wanted), wb::ceil_div<int64_t>(n, int64_t(1) << 31)));
  return l;
}

/// Step 6 as chapter 25 runs it: add the four digit histograms of the n keys at `in` into counts,
/// with K uint4s per lane a round and counters striped where they fit.
template <int K>
void count_digits(const wb::Device& dev, int block, const uint32_t* in, int64_t n, unsigned long long* counts) {
  const Private p = plan_striped(dev, block, kDigitBins);
  with_digit_counter(p, [&](auto count) {
    const auto k = hist_vectorized<K, Add::Atomic, decltype(count)>;
    const Launch l = plan_launch(dev, k, p, block, n, 4 * K);
    k<<<l.grid, block, l.p.bytes()>>>(in, n, count, l.p, counts);
  });
}
