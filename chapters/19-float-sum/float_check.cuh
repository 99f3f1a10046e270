/// @file float_check.cuh
/// @brief Chapter 19's harness: what checks the kernels of float_sum.cu, which includes it after
/// them (its emulations replay their orders with their own helpers).
///
/// The truth (Truth: the exactly rounded sum, sum |x|), the bound of each order of additions
/// (Depths, order_bound, scan_depth), the CPU's emulations of the orders fixed by N (the
/// reproducible and pairwise sums, the exact sum's integers, the deterministic scan), FloatBench
/// (wb::Bench for float results: bounds and bit patterns instead of equality), the kernels that
/// make the input and read the scans' outputs back (a hash, a sample), the launchers,
/// the chapter's own flags, --emulate, --gpu-bits and --study.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <set>

/// CUB 3.1 and newer take a determinism requirement (cuda::execution::determinism): the first
/// CUB_VERSION that has it.
#define WB_CUB_DETERMINISM_SINCE 300100
/// The same CUB as the Spec names it (needs_cub): the rows that use the requirement stay in
/// their variant whatever the CUB, so that --info is the same for every build; an older build
/// skips them and says so.
constexpr const char* kDeterminismCub = "3.1.0";
static_assert(wb::cub_version_number(kDeterminismCub) == WB_CUB_DETERMINISM_SINCE, "the Spec and the #if name one CUB");
/// 1 where this build's CUB takes a determinism requirement, else 0.
#if CUB_VERSION >= WB_CUB_DETERMINISM_SINCE
#define WB_CUB_DETERMINISM 1
#include <cuda/execution>
#else
#define WB_CUB_DETERMINISM 0
#endif

// ---------------------------------------------------------------------------------------
// The input

/// Make element i of the float input on the device, with the host's formula.
__global__ void make_float_input(float* x, int64_t n, uint64_t seed, wb::FloatInputSpec spec) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = wb::float_input(seed, uint64_t(i), spec);
}

/// Negate element 0: how the harness makes every other run see another input.
__global__ void negate_first(float* x) { x[0] = wb::float_from_bits(wb::float_bits(x[0]) ^ 0x80000000u); }

/// x negated as negate_first does it (its sign bit flipped), on the host.
float negated(float x) { return wb::float_from_bits(wb::float_bits(x) ^ 0x80000000u); }

// ---------------------------------------------------------------------------------------
// The outputs: the poison, and the scans' hash and sample

/// The bits the harness fills every output with before a run (bytes of 0xff): a NaN that no
/// addition gives (a GPU's NaN is 0x7fffffff, the CPU's the default 0xffc00000 or an
/// operand's, and the inputs' NaN is positive), so that an output left unwritten is never
/// taken for a NaN that the sum made.
constexpr uint32_t kPoisonBits = 0xffffffffu;

/// An order-free hash of a scan's output bits (a sum of per-element hashes), so that runs can
/// be compared without copying the output back; scan_hash_term() is one element's term. Every
/// NaN but the poison hashes as one: IEEE leaves a NaN's payload to the hardware (a GPU's
/// addition gives 0x7fffffff, the CPU's emulation keeps an operand's): that it is NaN is the
/// scan's result, its payload is not.
WB_HD inline unsigned long long scan_hash_term(int64_t i, float v) {
  const uint32_t bits = wb::float_bits(v);
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u && bits != kPoisonBits;
  return wb::mix64(uint64_t(i) * 0x9e3779b97f4a7c15ull ^ (nan ? 0x7fc00000u : bits));
}

/// Add the scan_hash_term of every element of out[0, n) to *hash.
__global__ void hash_output(const float* out, int64_t n, unsigned long long* hash) {
  unsigned long long h = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) h += scan_hash_term(i, out[i]);
  for (int offset = 16; offset > 0; offset /= 2) h += __shfl_down_sync(kFullMask, h, offset);
  if (threadIdx.x % kWarp == 0) atomicAdd(hash, h);
}

/// Copy out[positions[j]] to picked[j]: the sampled prefix sums, for the check.
__global__ void gather(const float* out, const int64_t* positions, int64_t count, float* picked) {
  const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) picked[j] = out[positions[j]];
}

// ---------------------------------------------------------------------------------------
// The host's side: references and emulations

/// The reproducible (Sequential) or pairwise order of chunked_sum, on the host: the same
/// additions in the same order, so the same bits. Chunks in parallel, levels in turn.
float chunked_sum_on_host(const float* x, int64_t n, ChunkOrder order) {
  std::vector<float> level, next;
  const float* src = x;
  int64_t len = n;
  for (;;) {
    const int64_t chunks = wb::ceil_div<int64_t>(len, kChunk);
    next.assign(size_t(chunks), 0.0f);
    float* dst = next.data();
    wb::parallel_for(chunks, [&](int, int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const int64_t base = c * kChunk;
        float lanes[kWarp];
        for (int lane = 0; lane < kWarp; ++lane) {
          const CheckedLoad load{src, len, base, lane};
          lanes[lane] = order == ChunkOrder::Sequential ? lane_total<ChunkOrder::Sequential>(load)
                                                        : lane_total<ChunkOrder::Pairwise>(load);
        }
        for (int offset = kWarp / 2; offset > 0; offset /= 2) {
          float next_lanes[kWarp];
          for (int lane = 0; lane < kWarp; ++lane) next_lanes[lane] = add_rn(lanes[lane], lanes[lane ^ offset]);
          std::copy(next_lanes, next_lanes + kWarp, lanes);
        }
        dst[c] = lanes[0];
      }
    });
    if (chunks == 1) return next[0];
    level.swap(next);
    src = level.data();
    len = chunks;
  }
}

/// The exact variant's layout, as its row's config and --emulate's second line give it: built
/// from the kernel's constants, so that it says what the kernel does.
std::string exact_layout() {
  return "double_bins=" + std::to_string(kDoubleBins) + " fold_floats=" + std::to_string(4 * kFoldEvery) +
         " grid_chunks=" + std::to_string(kBins);
}

/// The exact variant's arithmetic on the host: per worker, the kernel's kDoubleBins double
/// bins folded into a 320-bit integer every kFoldEvery float4s, the workers' integers added,
/// split into the grid's kBins chunks of 32 bits and put together again, then rounded by the
/// kernel's own function. Must equal ExactSum's rounding (the kernel's helpers checked
/// without a GPU).
float exact_bins_on_host(const float* x, int64_t n) {
  const int64_t workers = wb::worker_count(n);
  std::vector<std::vector<uint64_t>> partial(size_t(workers), std::vector<uint64_t>(5, 0));
  std::vector<unsigned> flags(size_t(workers), 0);
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    uint64_t* total = partial[size_t(w)].data();
    double bins[kDoubleBins] = {};
    int since = 0;
    for (int64_t i = b; i < e; ++i) {
      const uint32_t bits = wb::float_bits(x[i]);
      flags[size_t(w)] |= wb::term_flags(bits);
      bins[((bits >> 23) & 0xffu) >> 4] += double(x[i]);
      if (++since == 4 * kFoldEvery) {
        for (double& d : bins) wb::limbs_add_double(total, d), d = 0.0;
        since = 0;
      }
    }
    for (double& d : bins) wb::limbs_add_double(total, d), d = 0.0;
  });
  uint64_t total[5] = {};
  unsigned all_flags = 0;
  for (int64_t w = 0; w < workers; ++w) {
    wb::limbs_add(total, partial[size_t(w)].data());
    all_flags |= flags[size_t(w)];
  }
  long long chunks[kBins];
  for (int c = 0; c < kBins; ++c) chunks[c] = limbs_chunk(total, c);
  uint64_t limb[5];
  bins_to_limbs(chunks, limb);
  return wb::round_limbs_to_float(limb, all_flags);
}

// [scan_emulation]
/// The butterfly of warp_sum_to_all over 32 lanes' values (`v`, overwritten); every lane
/// ends with the same bits, which it returns.
float butterfly_on_host(float v[kWarp]) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    float next[kWarp];
    for (int lane = 0; lane < kWarp; ++lane) next[lane] = add_rn(v[lane], v[lane ^ offset]);
    std::copy(next, next + kWarp, v);
  }
  return v[0];
}

/// The tile shape the scans take for n elements: chapter 17's tuned tile (choose_policy(),
/// which ScanRunner checks against this), block x K with K = 32, or 8 for fewer than 16 tiles.
int scan_batch(int64_t n) {
  return scan::tiles_for(n, scan::kBlock, scan::kBatch) < scan::kSmallInputTiles ? scan::kSmallInputBatch : scan::kBatch;
}

/// One tile of the single pass's block scan on the host, addition for addition: each of the
/// 256 threads' K elements scanned in turn (zeros past the tile's count), the threads' totals
/// combined across each warp and across the warps by the kernel's butterflies and shuffles.
struct HostTile {
  std::vector<float> items;                   ///< thread t's scanned elements at [t K, t K + K)
  float thread_total[scan::kBlock] = {};      ///< each thread's last scanned element
  float warp_total[scan::kBlock / kWarp] = {};  ///< each warp's butterfly of its threads' totals
  float total = 0.0f;                         ///< the tile's aggregate A(t), as block_sum makes it

  /// Load and scan the tile's `count` elements from x with K = `k`.
  HostTile(const float* x, int count, int k) : items(size_t(scan::kBlock) * k, 0.0f) {
    for (int t = 0; t < scan::kBlock; ++t) {
      float* mine = items.data() + size_t(t) * k;
      for (int i = 0; i < k; ++i) mine[i] = t * k + i < count ? x[t * k + i] : 0.0f;
      for (int i = 1; i < k; ++i) mine[i] = add_rn(mine[i], mine[i - 1]);
      thread_total[t] = mine[k - 1];
    }
    float lanes[kWarp];
    for (int w = 0; w < scan::kBlock / kWarp; ++w) {
      std::copy(thread_total + w * kWarp, thread_total + (w + 1) * kWarp, lanes);
      warp_total[w] = butterfly_on_host(lanes);
    }
    for (int lane = 0; lane < kWarp; ++lane) lanes[lane] = lane < scan::kBlock / kWarp ? warp_total[lane] : 0.0f;
    total = butterfly_on_host(lanes);
  }

  /// The tile's outputs given its carry (tile_carry), as the hash of elements first + j; also
  /// written to dst[0, count) unless dst is null.
  unsigned long long hash_outputs(float carry, int64_t first, int count, int k, float* dst) const {
    unsigned long long h = 0;
    for (int w = 0; w < scan::kBlock / kWarp; ++w) {
      float lanes[kWarp], inclusive[kWarp];
      for (int lane = 0; lane < kWarp; ++lane) lanes[lane] = lane < w ? warp_total[lane] : 0.0f;
      const float warps_before = butterfly_on_host(lanes);
      std::copy(thread_total + w * kWarp, thread_total + (w + 1) * kWarp, inclusive);
      for (int offset = 1; offset < kWarp; offset *= 2)  // warp_inclusive_scan
        for (int lane = kWarp - 1; lane >= offset; --lane) inclusive[lane] = add_rn(inclusive[lane], inclusive[lane - offset]);
      for (int lane = 0; lane < kWarp; ++lane) {
        const int t = w * kWarp + lane;
        const float within = lane == 0 ? warps_before : add_rn(warps_before, inclusive[lane - 1]);
        const float before = add_rn(carry, within);
        for (int i = 0; i < k && t * k + i < count; ++i) {
          const float v = add_rn(items[size_t(t) * k + i], before);
          h += scan_hash_term(first + t * k + i, v);
          if (dst) dst[t * k + i] = v;
        }
      }
    }
    return h;
  }
};

/// The deterministic scan on the host, as the hash of its output (hash_output's): every tile
/// scanned as HostTile does, its carry the recurrence P(t) = P(t-1) + A(t) from P(-1) = 0
/// (NoCarryIn), which the forward fold reproduces on the GPU whatever path each look took.
/// Tiles in parallel, then the carries in turn, then the tiles' outputs in parallel (also
/// written to out[0, n) unless out is null).
unsigned long long folded_scan_on_host(const float* x, int64_t n, float* out = nullptr) {
  const int k = scan_batch(n);
  const int64_t tile_size = int64_t(scan::kBlock) * k, tiles = wb::ceil_div<int64_t>(n, tile_size);
  auto count_of = [&](int64_t t) { return int(std::min<int64_t>(tile_size, n - t * tile_size)); };
  std::vector<float> carry(static_cast<size_t>(tiles));
  wb::parallel_for(tiles, [&](int, int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) carry[size_t(t)] = HostTile(x + t * tile_size, count_of(t), k).total;
  });
  float prefix = 0.0f;  // P(t - 1)
  for (int64_t t = 0; t < tiles; ++t) {
    const float aggregate = carry[size_t(t)];
    carry[size_t(t)] = prefix;
    prefix = add_rn(prefix, aggregate);
  }
  std::vector<unsigned long long> partial(size_t(wb::worker_count(tiles)), 0);
  wb::parallel_for(tiles, [&](int w, int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t)
      partial[size_t(w)] += HostTile(x + t * tile_size, count_of(t), k).hash_outputs(carry[size_t(t)], t * tile_size,
                                                                                        count_of(t), k,
                                                                                        out ? out + t * tile_size : nullptr);
  });
  unsigned long long h = 0;
  for (unsigned long long p : partial) h += p;
  return h;
}
// [scan_emulation]

/// The bound of each order, as a depth of additions, given the grid that ran it.
struct Depths {
  /// The longest chain in a grid-stride loop of `threads` threads over n floats (body in
  /// float4s, head and tail in one thread), then the block's tree (at most 10 levels).
  static int64_t per_thread(int64_t n, int64_t threads) { return 4 * wb::ceil_div<int64_t>(n / 4 + 1, threads) + 6 + 10; }
  /// Levels of the chunked sums over n floats.
  static int levels(int64_t n) {
    int count = 1;
    for (int64_t len = n; len > kChunk; len = wb::ceil_div<int64_t>(len, kChunk)) ++count;
    return count;
  }
};

/// `bits` of a float as text, "0x3f800000".
std::string hex_bits(float f) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", wb::float_bits(f));
  return text;
}

/// `h` as 16 hex digits.
std::string hex64(uint64_t h) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", (unsigned long long)h);
  return text;
}

/// The input of one run: its spec, and its host copy where a check needs it.
struct FloatInput {
  wb::FloatInputSpec spec;         ///< how it was made
  int64_t n = 0;                   ///< elements
  std::vector<float> host;         ///< the values, as made on the host
  wb::DeviceBuffer<float> buffer;  ///< the device copy, --offset into its allocation
  float* d = nullptr;              ///< buffer.get()
};

/// The truth for one input and its variant with element 0 negated (index 1).
struct Truth {
  wb::ExactSum exact[2];  ///< the exact sums
  float rounded[2] = {};  ///< their correct rounding
  double abs_sum = 0;     ///< sum |x| (the same for both)
};

/// Element 0 of the input on a run of this parity (1: negated, as the harness makes it).
float first_of(const FloatInput& in, int parity) { return parity ? negated(in.host[0]) : in.host[0]; }

/// The exact sums of the input and of the input with element 0 negated: the sum of the other
/// elements, and element 0 added as each run has it (an infinity negated is the other one, and
/// -0.0 negated is +0.0, which no arithmetic on the first sum could give).
Truth make_truth(const FloatInput& in) {
  Truth t;
  const wb::ExactSum rest = wb::exact_total(in.host.data() + 1, in.n - 1);
  for (int k = 0; k < 2; ++k) {
    t.exact[k] = rest;
    t.exact[k].add(first_of(in, k));
    t.rounded[k] = t.exact[k].round_to_float();
  }
  t.abs_sum = wb::sum_abs(in.host.data(), in.n);
  return t;
}

/// The result of one run as the check saw it.
struct RunResult {
  bool ok = true;        ///< within its bound (and equal to the bits it must have)
  uint64_t bits = 0;     ///< the result's bits (a scan: the hash of its output)
  double ulps = 0;       ///< |s - S| in ulps of the correctly rounded S
  double rel = 0;        ///< |s - S| / sum |x|
  std::string why;       ///< what was wrong, for the FAIL line
};

/// Whether a and b are the same float, any NaN being the same as any other but the poison
/// (kPoisonBits, what an unwritten result holds): IEEE leaves a NaN's payload to the hardware
/// (a GPU's additions give 0x7fffffff, the CPU's keep an operand's).
bool same_value(float a, float b) {
  const uint32_t x = wb::float_bits(a), y = wb::float_bits(b);
  return x == y || (std::isnan(a) && std::isnan(b) && x != kPoisonBits && y != kPoisonBits);
}

/// What an order of additions must give when the input holds an infinity or NaN, where no
/// bound applies (the exact sum is not finite).
enum class NonFinite {
  Ieee,         ///< IEEE's sum, in any order: NaN with a NaN or both infinities, else the infinity
  Compensated,  ///< NaN: the error term of an addition that reaches an infinity is inf - inf
};

/// What `rule` says of a sum whose exact value rounds to the non-finite `want`, and why.
float nonfinite_expected(NonFinite rule, float want, const char*& why) {
  if (rule == NonFinite::Compensated) {
    why = "a compensated sum of an input with an infinity or NaN is NaN (its error term is inf - inf)";
    return std::numeric_limits<float>::quiet_NaN();
  }
  why = std::isnan(want) ? "an input with a NaN, or with both infinities, sums to NaN in any order"
                         : "an input with infinities of one sign and no NaN sums to that infinity in any order";
  return want;
}

/// Judge one sum: within `bound` (its order's, gamma(depth) * sum |x|) and, when `must` holds
/// a value, bit-identical to it (the CPU's emulation of its order). When the input holds an
/// infinity or NaN, no bound applies: the result must be what `rule` says, and equal `must`.
/// The sign of an exact zero is judged by `must` alone: the bound holds for either zero (the
/// kernels' running sums start from +0.0, which makes a sum of -0.0s +0.0; only the exact
/// variant promises IEEE's -0.0, and its `must` is ExactSum's rounding).
RunResult judge_sum(float got, const Truth& t, int parity, double bound, const float* must,
                    NonFinite rule = NonFinite::Ieee) {
  RunResult r;
  r.bits = wb::float_bits(got);
  char text[320];
  if (!std::isfinite(t.rounded[parity])) {
    const char* why = nullptr;
    const float want = nonfinite_expected(rule, t.rounded[parity], why);
    if (!same_value(got, want)) {
      r.ok = false;
      std::snprintf(text, sizeof text, "got %.9g (%s), but %s: %.9g", double(got), hex_bits(got).c_str(), why,
                    double(want));
      r.why = text;
    } else if (must && !same_value(got, *must)) {
      r.ok = false;
      std::snprintf(text, sizeof text, "got %s, its order computed on the CPU gives %s", hex_bits(got).c_str(),
                    hex_bits(*must).c_str());
      r.why = text;
    }
    r.ulps = r.rel = r.ok ? 0.0 : INFINITY;
    return r;
  }
  r.ulps = t.exact[parity].ulps(got);
  wb::ExactSum difference = t.exact[parity];
  difference.negate();
  difference.add(got);
  const double error = std::isfinite(got) ? std::fabs(difference.to_double_rounded()) : INFINITY;
  r.rel = t.abs_sum > 0 ? error / t.abs_sum : error;
  if (!(error <= bound)) {
    r.ok = false;
    std::snprintf(text, sizeof text, "got %.9g (%s), exact sum rounds to %.9g (%s): error %.3g above its bound %.3g",
                  double(got), hex_bits(got).c_str(), double(t.rounded[parity]), hex_bits(t.rounded[parity]).c_str(),
                  error, bound);
    r.why = text;
  } else if (must && wb::float_bits(got) != wb::float_bits(*must)) {
    r.ok = false;
    std::snprintf(text, sizeof text, "got %s, its order computed on the CPU gives %s", hex_bits(got).c_str(),
                  hex_bits(*must).c_str());
    r.why = text;
  }
  return r;
}

/// The bound of an order whose longest chain has `depth` additions: gamma(depth) * sum |x|;
/// depth 0 means rounded once (the exact variant): u |S|.
double order_bound(const Truth& t, int parity, int64_t depth) {
  return depth > 0 ? wb::gamma(depth) * t.abs_sum : wb::kFloatUnitRoundoff * std::fabs(t.exact[parity].to_double_rounded());
}

/// What float atomics may lose beyond rounding: "atom.add.f32 rounds to nearest even and
/// flushes subnormal inputs and results to sign-preserving zero" (NVIDIA, PTX ISA, atom), so
/// each of `atomics` additions may drop up to 2^-126 twice (its operand and its result).
/// Nothing is lost while the partial sums stay normal or zero, as with every input but
/// subnormal's and special's.
double atomic_flush_slack(int64_t atomics) { return 2.0 * double(atomics) * 0x1p-126; }

/// The compensated sum's bound for a tree of depth d: each addition's error is recovered
/// exactly and summed into c along the same tree, so |s - S| <= u |S| (the final s + c) +
/// gamma(2 d) * u * d * sum |x| (the errors' sum: each error at most u times a partial sum,
/// each x in at most d partial sums), doubled for the second-order terms.
double compensated_bound(const Truth& t, int parity, int64_t d) {
  const double u = wb::kFloatUnitRoundoff;
  return 2 * u * std::fabs(t.exact[parity].to_double_rounded()) + 2 * wb::gamma(2 * d) * u * double(d) * t.abs_sum;
}

// ---------------------------------------------------------------------------------------
// Timing and checking float results

/// What a row is allowed: a known defect of a library is reported (verified=FAIL) without
/// counting in the exit status, and only for the bound, never for damage to memory.
enum class Excuse {
  None,          ///< every failure counts
  LibraryDefect  ///< a library's wrong result: reported, not counted in the exit status
};

/// Times, checks and reports the float variants, as wb::Bench does for int32: a first run,
/// warm-up runs and timed runs (L2 flushed before each), the output poisoned before every run
/// and checked after it, element 0 negated on every odd run, the guards and the input checked
/// after the last run. A result must lie within its order's bound; a variant that claims one
/// order must produce one bit pattern per input (`deterministic`).
class FloatBench {
 public:
  /// Print the device and input lines (human mode) and allocate the L2 flush buffer.
  FloatBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev, FloatInput& in)
      : spec_(spec), opt_(opt), dev_(dev), in_(in), runs_(opt, dev) {
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs; theoretical peak %.0f GB/s; CUB %s\n", dev.id, dev.name.c_str(),
             dev.major, dev.minor, dev.sms, dev.peak_gbps, wb::cub_version);
    wb::note(opt, "input: N = %s floats, %s, spread %d, offset %lld; median of %d runs after %d warm-up; %s\n\n",
             wb::describe_n(in.n).c_str(), wb::float_mode_name(in.spec.mode), in.spec.spread, (long long)opt.offset,
             opt.reps, opt.warmup, opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)");
  }
  FloatBench(const FloatBench&) = delete;
  FloatBench& operator=(const FloatBench&) = delete;

  /// Time `launch`, which leaves its result in `out` (`out_bytes` poisoned before each run),
  /// and judge each run with `check(parity)` (parity 1: element 0 negated).
  wb::Row run(const wb::Case& c, const std::function<void()>& launch, void* out, size_t out_bytes,
              const std::function<RunResult(int)>& check, bool deterministic, Excuse excuse = Excuse::None) {
    wb::Row r = wb::open_row(spec_, c, "");  // its config, below, says what the runs gave
    if (c.bytes <= 0) r.bytes = 4.0 * double(c.n);
    std::set<uint64_t> patterns[2];
    double max_ulps = 0, max_rel = 0;
    int wrong = 0;
    std::string first_why;
    uint64_t first_bits = 0;
    const std::vector<float> times = runs_.run(
        c.kernel,
        [&](int run) {
          set_parity(run % 2);
          WB_CHECK(cudaMemsetAsync(out, 0xff, out_bytes));  // poison: kPoisonBits in every float
        },
        launch,
        [&](int run, const std::string&) {
          const RunResult res = check(parity_);
          if (run == 0) first_bits = res.bits;
          patterns[parity_].insert(res.bits);
          max_ulps = std::max(max_ulps, res.ulps);
          max_rel = std::max(max_rel, res.rel);
          if (!res.ok && wrong++ == 0)
            first_why = "run " + std::to_string(run) + (parity_ ? " (in[0] negated)" : "") + ": " + res.why;
        });
    set_parity(0);
    bool memory_ok = wb::check_guards(c.kernel);
    const wb::Mismatch m = wb::compare_device(reinterpret_cast<const int32_t*>(in_.d),
                                              reinterpret_cast<const int32_t*>(in_.host.data()), in_.n);
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input at index %lld\n", c.kernel.c_str(), (long long)m.index);
      memory_ok = false;
    }
    const size_t most_patterns = std::max(patterns[0].size(), patterns[1].size());
    const bool one_order = !deterministic || most_patterns == 1;
    if (wrong)
      std::fprintf(stderr, "FAIL %s: %d of %d runs outside their bound or bits; the first, %s\n", c.kernel.c_str(),
                   wrong, runs_.total(), first_why.c_str());
    if (!one_order)
      std::fprintf(stderr, "FAIL %s: claims one order of additions but gave %zu bit patterns for one input\n",
                   c.kernel.c_str(), most_patterns);
    r.verified = wrong == 0 && memory_ok && one_order;
    wb::close_row(r, times, dev_.peak_gbps);
    char config[320];
    std::snprintf(config, sizeof config, "input=%s spread=%d ulps=%.3g rel=%.3g patterns=%zu bits=%s%s",
                  wb::float_mode_name(in_.spec.mode), in_.spec.spread, max_ulps, max_rel, most_patterns,
                  c.kernel.find("scan") != std::string::npos ? hex64(first_bits).c_str() : hex_bits(wb::float_from_bits(uint32_t(first_bits))).c_str(),
                  c.config.empty() ? "" : (" " + c.config).c_str());
    r.config = config;
    char note[160];
    std::snprintf(note, sizeof note, "%.3g ulps, %zu bit pattern%s", max_ulps, most_patterns, most_patterns == 1 ? "" : "s");
    r.note = note;
    if (!r.verified && memory_ok && excuse == Excuse::LibraryDefect) {
      r.note += "; KNOWN LIBRARY DEFECT, not counted in the exit status";
      std::fprintf(stderr, "KNOWN DEFECT %s: the library's result fails its bound; reported as FAIL, not counted in "
                           "the exit status\n", c.kernel.c_str());
      excused_.push_back(rows_.size());
    }
    rows_.push_back(r);
    return r;
  }

  /// Attach a note to the last row (the human table only).
  void annotate_last(const std::string& text) {
    if (!rows_.empty()) rows_.back().note += "; " + text;
  }

  /// Print the table or the CSV; 0 when every row not excused verified, else 1.
  int finish() const {
    size_t failed = 0;
    for (size_t i = 0; i < rows_.size(); ++i)
      if (!rows_[i].verified && std::find(excused_.begin(), excused_.end(), i) == excused_.end()) ++failed;
    std::string line = rows_.empty() ? "FAILED: no kernel ran"
                       : failed ? "FAILED: " + std::to_string(failed) + " of " + std::to_string(rows_.size()) +
                                      " kernel run(s) failed a check (see the FAIL lines above)"
                                : "all results within their bounds; the reproducible and exact bits equal the CPU's";
    if (!excused_.empty() && !failed) line += " (" + std::to_string(excused_.size()) + " known library defect(s) reported as FAIL)";
    const int status = rows_.empty() || failed ? 1 : 0;
    wb::print_rows(opt_.csv, rows_, status, line);
    return status;
  }

 private:
  void set_parity(int parity) {
    if (parity == parity_) return;
    negate_first<<<1, 1>>>(in_.d);
    WB_CHECK_LAUNCH();
    parity_ = parity;
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  FloatInput& in_;
  wb::RunLoop runs_;  // the L2 flush, the events and the runs
  int parity_ = 0;
  std::vector<wb::Row> rows_;
  std::vector<size_t> excused_;
};

// ---------------------------------------------------------------------------------------
// The launchers

/// Everything the variants launch with, allocated once.
struct Sums {
  int64_t n = 0;                              ///< elements summed
  int block = kBlock;                         ///< threads per block of the grid-dependent sums
  int64_t max_blocks = 0;                     ///< the tree's grid: one wave of resident blocks
  wb::DeviceBuffer<float> sum;                ///< every variant's result
  wb::DeviceBuffer<float> partials;           ///< the tree's blocks' sums
  wb::DeviceBuffer<Compensated> compensated;  ///< the compensated sum's blocks' pairs
  wb::DeviceBuffer<unsigned> ticket;          ///< finished blocks (0 between launches)
  wb::DeviceBuffer<ExactGrid> exact_grid;     ///< the exact sum's chunks (0 between launches)
  wb::DeviceBuffer<float> level[2];           ///< the chunked sums' levels
  int64_t chunk_grid = 0;                     ///< the chunked sums' largest grid
  int64_t exact_grid_blocks = 0;              ///< the exact sum's largest grid
};

/// The tree's grid for n floats: one block per `block` float4s, at most `max_blocks`.
int64_t tree_grid(int64_t n, int block, int64_t max_blocks) {
  return std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(n / 4 + 1, block), max_blocks));
}

/// The float atomics' sum of in[0, s.n) with `grid` blocks; clearing the sum is part of it.
void launch_atomic(const float* in, Sums& s, int64_t grid) {
  WB_CHECK(cudaMemsetAsync(s.sum.get(), 0, sizeof(float)));
  float_atomic<<<unsigned(grid), s.block>>>(in, s.n, s.sum.get());
}

/// The tree's sum of in[0, s.n) with `grid` blocks.
void launch_tree(const float* in, Sums& s, int64_t grid) {
  float_tree<<<unsigned(grid), s.block>>>(in, s.n, s.partials.get(), s.ticket.get(), s.sum.get());
}

/// The compensated sum of in[0, s.n) with `grid` blocks.
void launch_kahan(const float* in, Sums& s, int64_t grid) {
  float_kahan<<<unsigned(grid), s.block>>>(in, s.n, s.compensated.get(), s.ticket.get(), s.sum.get());
}

/// The correctly rounded sum of in[0, s.n): one block per 256 float4s, at most one wave.
void launch_exact(const float* in, Sums& s) {
  const int64_t grid = std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(s.n / 4 + 1, kExactBlock), s.exact_grid_blocks));
  float_exact<<<unsigned(grid), kExactBlock>>>(in, s.n, s.exact_grid.get(), s.sum.get());
}

/// The chunked sum (reproducible or pairwise): one launch per level, the last into *sum.
template <ChunkOrder Order>
void launch_chunked(const float* in, Sums& s, int64_t max_grid) {
  const float* src = in;
  int64_t len = s.n;
  int which = 0;
  const int warps_per_block = kChunkBlock / kWarp;
  for (;;) {
    const int64_t chunks = wb::ceil_div<int64_t>(len, kChunk);
    float* dst = chunks == 1 ? s.sum.get() : s.level[which].get();
    const int64_t grid = std::max<int64_t>(1, std::min(wb::ceil_div<int64_t>(chunks, warps_per_block), max_grid));
    if ((reinterpret_cast<uintptr_t>(src) & 15) == 0)
      chunk_sums<Order, true><<<unsigned(grid), kChunkBlock>>>(src, len, dst);
    else
      chunk_sums<Order, false><<<unsigned(grid), kChunkBlock>>>(src, len, dst);
    if (chunks == 1) return;
    src = dst;
    len = chunks;
    which ^= 1;
  }
}

/// The SM count the "other grid" imitates: 114, or 132 when this GPU has 114.
int other_sms(int sms) { return sms == kOtherSms ? 132 : kOtherSms; }

/// The scans' output, tile statuses and policies, for inputs of up to `capacity` elements.
/// Each order's kernel takes chapter 17's tuned policy for n on this GPU (epochs instead of a
/// memset, so a launch is one kernel and nothing else).
struct ScanRunner {
  wb::DeviceBuffer<float> out;                ///< the prefix sums
  wb::DeviceBuffer<unsigned long long> hash;  ///< hash_output's sum
  scan::SinglePass pass;                      ///< the tile counter and statuses
  scan::ScanPolicy policy[2];                 ///< AsFound's and kDeterministicOrder's, for policy_n
  scan::SinglePassKernel<scan::NoCarryIn, float> kernel[2];  ///< their kernels
  int64_t policy_n = -1;                      ///< the N the policies are for

  /// Allocate for up to `capacity` elements on `dev`.
  ScanRunner(const wb::Options& opt, const wb::Device& dev, int64_t capacity)
      : out(size_t(capacity), "the scan's output"),
        hash(1, "the output hash"),
        pass(scan::tiles_for(capacity, scan::kBlock, scan::kSmallInputBatch)),
        opt_(opt),
        dev_(dev) {
    opt_.block = scan::kBlock;  // chapter 17's tile, whatever --block says for the sums
    opt_.batch = scan::kBatch;
    opt_.batch_given = false;
  }

  /// The policy of `order` for n elements (chosen again when n changes).
  /// The scan of a row: `deterministic` false for float_scan_single_pass (AsFound), true for
  /// float_scan_deterministic (kDeterministicOrder).
  static LookBackOrder order_of(bool deterministic) { return deterministic ? kDeterministicOrder : LookBackOrder::AsFound; }

  /// The policy of the row's scan for n elements (chosen again when n changes).
  const scan::ScanPolicy& policy_for(bool deterministic, int64_t n) {
    if (n != policy_n) {
      policy[0] = scan::choose_policy<scan::NoCarryIn, float, LookBackOrder::AsFound>(opt_, dev_, n);
      kernel[0] = scan::single_pass_kernel<scan::NoCarryIn, float, LookBackOrder::AsFound>(policy[0].batch, scan::kBlock);
      policy[1] = scan::choose_policy<scan::NoCarryIn, float, kDeterministicOrder>(opt_, dev_, n);
      kernel[1] = scan::single_pass_kernel<scan::NoCarryIn, float, kDeterministicOrder>(policy[1].batch, scan::kBlock);
      if (policy[0].batch != scan_batch(n) || policy[1].batch != scan_batch(n)) {
        std::fprintf(stderr, "internal error: the scan's tile for N = %lld is not scan_batch's\n", (long long)n);
        std::exit(3);
      }
      policy_n = n;
    }
    return policy[deterministic];
  }

  /// One scan of in[0, n) in `order`.
  void launch(bool deterministic, const float* in, int64_t n) {
    const scan::ScanPolicy& p = policy_for(deterministic, n);
    pass.launch(p, kernel[deterministic], in, n, out.get());
  }

  /// Blocks per SM of `order`'s kernel (for the row).
  int occupancy(bool deterministic, int64_t n) {
    const scan::ScanPolicy& p = policy_for(deterministic, n);
    return wb::blocks_per_sm(kernel[deterministic], p.block, scan::stage_bytes(p.block, p.batch));
  }

 private:
  wb::Options opt_;
  const wb::Device& dev_;
};

/// The additions on the longest path into output p of a scan with tiles of 256 x K, in its
/// tile: K - 1 in its thread, 5 and 5 more to a warp's and the tile's sum, so A(t) has depth
/// K + 9, and the thread's prefix inside the tile K + 10; then one for the carry and one for
/// the element. The carry of tile t: FoldForward adds one per tile (P(t) = P(t-1) + A(t)), so
/// depth K + 9 + t; AsFound adds per tile walked at most 7 (a window's butterfly, the sum of
/// windows, the prefix), so at most 7 t + K + 20 (with a window's butterfly over the As).
int64_t scan_depth(LookBackOrder order, int64_t p, int64_t n) {
  const int64_t k = scan_batch(n), tile = p / (int64_t(scan::kBlock) * k);
  return order == LookBackOrder::FoldForward ? tile + k + 12 : 7 * tile + k + 24;
}

/// The depth of CUB's tree over n floats: a loop per thread over its tiles, a block tree, a
/// second pass over the blocks' sums. Its grid has at least one block of at least 64 threads
/// per SM, hence this bound on the loop.
int64_t cub_depth(int64_t n, int sms) { return Depths::per_thread(n, int64_t(sms) * 64) + 64; }

#if WB_CUB_DETERMINISM
/// CUB's determinism requirement, an environment for DeviceReduce::Sum: Level 0
/// not_guaranteed, 1 run_to_run, 2 gpu_to_gpu.
template <int Level>
auto require_determinism() {
  namespace det = cuda::execution::determinism;
  if constexpr (Level == 0) return cuda::execution::require(det::not_guaranteed);
  else if constexpr (Level == 1) return cuda::execution::require(det::run_to_run);
  else return cuda::execution::require(det::gpu_to_gpu);
}
#endif

// ---------------------------------------------------------------------------------------
// The command line beyond the shared flags

/// This chapter's own flags, read (and removed) before wb::parse_or_exit.
struct FloatFlags {
  wb::FloatInputSpec input;  ///< --input and --spread
  bool study = false;      ///< --study: the bit-pattern and error table
  int runs = 200;          ///< --runs R: runs per study cell
  bool emulate = false;    ///< --emulate: the CPU's bits of the reproducible, pairwise and exact orders
  bool gpu_bits = false;   ///< --gpu-bits: the same line from the GPU (and the tree at two grids)
};

/// Take --input, --spread, --study, --runs, --emulate and --gpu-bits out of argv (exit 2
/// with the parser's message for a bad value).
FloatFlags take_float_flags(int& argc, char** argv) {
  FloatFlags f;
  std::string spread_text = std::to_string(f.input.spread), mode_text = wb::float_mode_name(f.input.mode);
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const size_t eq = arg.find('=');
    const bool inline_value = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) value = arg.substr(eq + 1), arg = arg.substr(0, eq);
    auto take = [&](std::string& out) {
      if (inline_value) return out = value, true;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "chapter19: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      out = argv[++i];
      return true;
    };
    auto flag_only = [&] {
      if (inline_value) {
        std::fprintf(stderr, "chapter19: %s takes no value\n", arg.c_str());
        std::exit(2);
      }
    };
    if (arg == "--input") take(mode_text);
    else if (arg == "--spread") take(spread_text);
    else if (arg == "--study") flag_only(), f.study = true;
    else if (arg == "--emulate") flag_only(), f.emulate = true;
    else if (arg == "--gpu-bits") flag_only(), f.gpu_bits = true;
    else if (arg == "--runs") {
      std::string text;
      take(text);
      int64_t v = 0;
      if (!wb::parse_count(text, v) || v < 1 || v > 100000) {
        std::fprintf(stderr, "chapter19: --runs '%s' is not allowed: give a whole number from 1 to 100000\n", text.c_str());
        std::exit(2);
      }
      f.runs = int(v);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  const std::string error = wb::parse_float_input(spread_text, mode_text, f.input);
  if (!error.empty()) {
    std::fprintf(stderr, "chapter19: %s\n", error.c_str());
    std::exit(2);
  }
  if (int(f.study) + int(f.emulate) + int(f.gpu_bits) > 1) {
    std::fprintf(stderr, "chapter19: --study, --emulate and --gpu-bits cannot be given together\n");
    std::exit(2);
  }
  return f;
}

/// The line --emulate and --gpu-bits print (the fixture's format).
std::string bits_line(const wb::Options& opt, const FloatFlags& f, float reproducible, float pairwise, float exact,
                      unsigned long long scan_hash) {
  char text[360];
  std::snprintf(text, sizeof text, "n=%lld seed=%llu input=%s spread=%d reproducible=%s pairwise=%s exact=%s scan=%s",
                (long long)opt.n, (unsigned long long)opt.seed, wb::float_mode_name(f.input.mode), f.input.spread,
                hex_bits(reproducible).c_str(), hex_bits(pairwise).c_str(), hex_bits(exact).c_str(),
                hex64(scan_hash).c_str());
  return text;
}

/// --emulate: no GPU. The three orders' bits on the CPU, then the exact variant's layout (its
/// row's config); exit 1 if the exact variant's integers round differently from ExactSum.
int emulate(const wb::Options& opt, const FloatFlags& f) {
  // First the hard cases of rounding, which generated inputs never reach: ties both ways,
  // subnormals, the largest float and the first sum that overflows, infinities and NaN, and
  // the sign of an exact zero (-0 only when every term is -0).
  const float max = std::numeric_limits<float>::max(), inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<std::vector<float>> hard = {
      {0x1p24f, 1.0f},  {0x1p24f, 1.0f, 0x1p-30f}, {0x1p24f, 3.0f}, {0x1p24f, -1.0f, -0x1p-40f}, {tiny, tiny, -tiny},
      {0x1p-126f, -tiny}, {max, 0x1p103f}, {max, 0x1p103f, -tiny}, {max, 0x1p102f}, {-max, -max, max},
      {1e30f, 1.0f, -1e30f}, {inf, 1.0f}, {-inf, inf}, {std::numeric_limits<float>::quiet_NaN(), 1.0f}, {0.0f, -0.0f},
      {-0.0f}, {-0.0f, -0.0f, -0.0f}, {-0.0f, 0.0f, -0.0f}, {0.0f}, {tiny, -tiny}, {-tiny, -0.0f, tiny}, {-1.0f, 1.0f}};
  for (const auto& h : hard) {
    wb::ExactSum e;
    for (float v : h) e.add(v);
    const float want = e.round_to_float(), got = exact_bins_on_host(h.data(), int64_t(h.size()));
    if (wb::float_bits(got) != wb::float_bits(want) && !(std::isnan(got) && std::isnan(want))) {
      std::fprintf(stderr, "FAIL: a hard case of %zu floats: the exact variant's integers round to %s, ExactSum to %s\n",
                   h.size(), hex_bits(got).c_str(), hex_bits(want).c_str());
      return 1;
    }
  }
  std::vector<float> x(size_t(opt.n));
  wb::fill_float_input(x.data(), opt.n, opt.seed, f.input);
  const float exact = wb::exact_sum(x.data(), opt.n);
  const float bins = exact_bins_on_host(x.data(), opt.n);
  std::vector<float> scanned(size_t(opt.n));
  const unsigned long long folded = folded_scan_on_host(x.data(), opt.n, scanned.data());
  std::printf("%s\n", bits_line(opt, f, chunked_sum_on_host(x.data(), opt.n, ChunkOrder::Sequential),
                                chunked_sum_on_host(x.data(), opt.n, ChunkOrder::Pairwise), exact, folded).c_str());
  std::printf("float_exact: %s\n", exact_layout().c_str());
  // The emulated fold is a scan: the last output of every tile (where the carries meet) and
  // the last of all within the fold's bound of the exact prefix sum, or IEEE's sum where the
  // prefix holds an infinity or NaN.
  const int64_t tile_size = int64_t(scan::kBlock) * scan_batch(opt.n);
  wb::ExactSum running, running_abs;
  for (int64_t i = 0; i < opt.n; ++i) {
    running.add(x[size_t(i)]);
    running_abs.add(std::fabs(x[size_t(i)]));
    if ((i + 1) % tile_size != 0 && i + 1 != opt.n) continue;
    const float rounded = running.round_to_float();
    if (!std::isfinite(rounded)) {
      const char* why = nullptr;
      const float expected = nonfinite_expected(NonFinite::Ieee, rounded, why);
      if (same_value(scanned[size_t(i)], expected)) continue;
      std::fprintf(stderr, "FAIL: the emulated fold's prefix %lld is %.9g, but %s: %.9g\n", (long long)i,
                   double(scanned[size_t(i)]), why, double(expected));
      return 1;
    }
    wb::ExactSum difference = running;
    difference.negate();
    difference.add(scanned[size_t(i)]);
    const double error = std::fabs(difference.to_double_rounded());
    const double bound = wb::gamma(scan_depth(LookBackOrder::FoldForward, i, opt.n)) * running_abs.to_double_rounded();
    if (!(error <= bound)) {
      std::fprintf(stderr, "FAIL: the emulated fold's prefix %lld is %.9g, exact %.9g: error %.3g above its bound %.3g\n",
                   (long long)i, double(scanned[size_t(i)]), double(running.round_to_float()), error, bound);
      return 1;
    }
  }
  if (wb::float_bits(bins) != wb::float_bits(exact)) {
    std::fprintf(stderr, "FAIL: the exact variant's bins round to %s, ExactSum to %s\n", hex_bits(bins).c_str(),
                 hex_bits(exact).c_str());
    return 1;
  }
  return 0;
}

/// Make the first n elements of the input on the device (and on the host, `host`), and check
/// that the two agree.
void make_input(FloatInput& in, const wb::Options& opt, int64_t n, const wb::FloatInputSpec& spec, bool host) {
  in.spec = spec;
  in.n = n;
  wb::memory_use().n = n;
  if (!in.d) {  // room for the largest N of the run
    in.buffer = wb::DeviceBuffer<float>(size_t(opt.n), "the input", opt.offset);
    in.d = in.buffer.get();
  }
  make_float_input<<<1024, 256>>>(in.d, n, opt.seed, spec);
  WB_CHECK_LAUNCH();
  if (!host) return;
  in.host.resize(size_t(n));
  wb::fill_float_input(in.host.data(), n, opt.seed, spec);
  const wb::Mismatch m = wb::compare_device(reinterpret_cast<const int32_t*>(in.d),
                                            reinterpret_cast<const int32_t*>(in.host.data()), n);
  if (m.index >= 0) {
    std::fprintf(stderr, "FAIL: the device made input element %lld as %08x, the host as %08x\n", (long long)m.index,
                 unsigned(m.got), unsigned(m.want));
    std::exit(1);
  }
}

// ---------------------------------------------------------------------------------------
// The scan's check

/// The sampled positions of a scan's check and the exact prefix sums there.
struct ScanTruth {
  std::vector<int64_t> positions;   ///< the outputs checked
  std::vector<wb::ExactSum> exact;  ///< the exact sum of elements 1 to each position (element 0: first_of)
  std::vector<double> abs_prefix;   ///< sum |x| through each position
  wb::DeviceBuffer<int64_t> positions_d;  ///< the positions on the device
  wb::DeviceBuffer<float> picked_d;       ///< the outputs there, gathered for one copy back
};

/// Evenly spaced positions (the last element always among them) and their exact prefixes,
/// but for element 0, which each run's check adds as that run has it (see make_truth).
void make_scan_truth(ScanTruth& t, const FloatInput& in) {
  const int64_t count = std::min<int64_t>(in.n, kScanSamples);
  t.positions.resize(size_t(count));
  for (int64_t j = 0; j < count; ++j) t.positions[size_t(j)] = (j + 1) * in.n / count - 1;
  std::vector<wb::ExactSum> segment(static_cast<size_t>(count)), segment_abs(static_cast<size_t>(count));
  wb::parallel_for(count, [&](int, int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const int64_t from = j == 0 ? 0 : t.positions[size_t(j - 1)] + 1;
      for (int64_t i = from; i <= t.positions[size_t(j)]; ++i) {
        if (i > 0) segment[size_t(j)].add(in.host[size_t(i)]);
        segment_abs[size_t(j)].add(std::fabs(in.host[size_t(i)]));
      }
    }
  });
  wb::ExactSum running, running_abs;
  t.exact.resize(size_t(count));
  t.abs_prefix.resize(size_t(count));
  for (int64_t j = 0; j < count; ++j) {
    running.merge(segment[size_t(j)]);
    running_abs.merge(segment_abs[size_t(j)]);
    t.exact[size_t(j)] = running;
    t.abs_prefix[size_t(j)] = running_abs.to_double_rounded();
  }
  t.positions_d = wb::DeviceBuffer<int64_t>(size_t(count), "the sampled positions");
  t.picked_d = wb::DeviceBuffer<float>(size_t(count), "the sampled prefix sums");
  WB_CHECK(cudaMemcpy(t.positions_d.get(), t.positions.data(), size_t(count) * 8, cudaMemcpyHostToDevice));
}

/// Judge one scan run in `order`: every sampled prefix within its bound, or, where the prefix
/// holds an infinity or NaN, IEEE's sum (NonFinite::Ieee: a scan only adds); the bits are the
/// output's hash, which must equal `must` where given (the CPU's fold of this parity's input).
RunResult judge_scan(const float* out, int64_t n, ScanTruth& t, const FloatInput& in, int parity, LookBackOrder order,
                     unsigned long long* hash_d, const unsigned long long* must) {
  RunResult r;
  const int64_t count = int64_t(t.positions.size());
  gather<<<unsigned(wb::ceil_div<int64_t>(count, 256)), 256>>>(out, t.positions_d.get(), count, t.picked_d.get());
  WB_CHECK_LAUNCH();
  std::vector<float> picked(static_cast<size_t>(count));
  WB_CHECK(cudaMemcpy(picked.data(), t.picked_d.get(), size_t(count) * 4, cudaMemcpyDeviceToHost));
  WB_CHECK(cudaMemset(hash_d, 0, 8));
  hash_output<<<1024, 256>>>(out, n, hash_d);
  WB_CHECK_LAUNCH();
  unsigned long long h = 0;
  WB_CHECK(cudaMemcpy(&h, hash_d, 8, cudaMemcpyDeviceToHost));
  r.bits = h;
  if (must && h != *must) {
    r.ok = false;
    r.why = "the output's hash is " + hex64(h) + ", the CPU's fold gives " + hex64(*must);
  }
  for (int64_t j = 0; j < count; ++j) {
    wb::ExactSum want = t.exact[size_t(j)];
    want.add(first_of(in, parity));
    const float got = picked[size_t(j)], rounded = want.round_to_float();
    char text[320];
    text[0] = 0;
    if (!std::isfinite(rounded)) {
      const char* why = nullptr;
      const float expected = nonfinite_expected(NonFinite::Ieee, rounded, why);
      if (!same_value(got, expected))
        std::snprintf(text, sizeof text, "prefix %lld is %.9g (%s), but %s: %.9g", (long long)t.positions[size_t(j)],
                      double(got), hex_bits(got).c_str(), why, double(expected));
      if (j + 1 == count) r.ulps = r.rel = text[0] ? INFINITY : 0.0;
    } else {
      wb::ExactSum difference = want;
      difference.negate();
      difference.add(got);
      const double error = std::isfinite(got) ? std::fabs(difference.to_double_rounded()) : INFINITY;
      const double bound = wb::gamma(scan_depth(order, t.positions[size_t(j)], n)) * t.abs_prefix[size_t(j)];
      if (j + 1 == count) {
        r.ulps = want.ulps(got);
        r.rel = t.abs_prefix[size_t(j)] > 0 ? error / t.abs_prefix[size_t(j)] : error;
      }
      if (!(error <= bound))
        std::snprintf(text, sizeof text, "prefix %lld is %.9g, exact %.9g: error %.3g above its bound %.3g",
                      (long long)t.positions[size_t(j)], double(got), double(rounded), error, bound);
    }
    if (text[0] && r.ok) {
      r.ok = false;
      r.why = text;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------
/// Whether a run of --variant `chosen` includes variant `name`.
bool runs(const std::string& chosen, const char* name) { return chosen == "all" || chosen == name; }

/// --gpu-bits: the reproducible, pairwise and exact sums' bits and the deterministic scan's hash
/// on the GPU, in the fixture's format, then the tree's bits at this GPU's grid and the other.
int gpu_bits(const wb::Options& opt, const FloatFlags& f, const wb::Device& dev, Sums& s, FloatInput& in,
             int64_t tree_blocks, int64_t other_blocks) {
  const int64_t n = opt.n;
  make_input(in, opt, n, f.input, false);
  auto result = [&](const std::function<void()>& launch) {
    launch();
    WB_CHECK_LAUNCH();
    float v = 0;
    WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
    return v;
  };
  const float repro = result([&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); });
  const float pair = result([&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); });
  const float exact = result([&] { launch_exact(in.d, s); });
  ScanRunner scan(opt, dev, n);
  scan.launch(true, in.d, n);
  WB_CHECK_LAUNCH();
  WB_CHECK(cudaMemset(scan.hash.get(), 0, 8));
  hash_output<<<1024, 256>>>(scan.out.get(), n, scan.hash.get());
  WB_CHECK_LAUNCH();
  unsigned long long scan_hash = 0;
  WB_CHECK(cudaMemcpy(&scan_hash, scan.hash.get(), 8, cudaMemcpyDeviceToHost));
  std::printf("%s\n", bits_line(opt, f, repro, pair, exact, scan_hash).c_str());
  const float tree = result([&] { launch_tree(in.d, s, tree_blocks); });
  const float other = result([&] { launch_tree(in.d, s, other_blocks); });
  std::printf("tree=%s tree_other_grid=%s\n", hex_bits(tree).c_str(), hex_bits(other).c_str());
  return 0;
}

// [study]
/// The scans' study stops at this N: each run's whole output is checked on the CPU, which takes
/// about a second per run at 2^30.
constexpr int64_t kStudyScanMax = int64_t(1) << 22;

/// --study: per variant, N from 2^10 up to --n and input mode, the bit patterns of --runs runs,
/// the largest error in ulps and relative to sum |x|, as CSV (what the page's figures show).
int study(const wb::Options& opt, const FloatFlags& f, const wb::Device& dev, Sums& s, FloatInput& in,
          int64_t other_grid_blocks) {
  const int64_t n = opt.n;
  std::printf("chapter,kernel,n,input,spread,runs,patterns,bits,exact_bits,ulps_max,rel_err_max,verified\n");
  std::vector<int64_t> sizes;
  for (int64_t size = int64_t(1) << 10; size < n; size *= 16) sizes.push_back(size);
  sizes.push_back(n);
  size_t temp_bytes = 0;
  WB_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.d, s.sum.get(), n));
  wb::DeviceBuffer<char> temp(temp_bytes, "CUB's temporary storage");
  std::unique_ptr<ScanRunner> scan;
  if (runs(opt.variant, "scan")) scan.reset(new ScanRunner(opt, dev, n));
  for (const int64_t size : sizes) {
    for (wb::FloatMode mode : {wb::FloatMode::Positive, wb::FloatMode::Mixed, wb::FloatMode::Cancel}) {
      make_input(in, opt, size, wb::FloatInputSpec{f.input.spread, mode}, true);
      s.n = size;
      const Truth truth = make_truth(in);
      const int64_t tb = tree_grid(size, opt.block, s.max_blocks), ob = tree_grid(size, opt.block, other_grid_blocks);
      const int64_t tree_depth = Depths::per_thread(size, tb * opt.block) + wb::ceil_div<int64_t>(tb, opt.block) + 10;
      const float repro = chunked_sum_on_host(in.host.data(), size, ChunkOrder::Sequential);
      const float pair = chunked_sum_on_host(in.host.data(), size, ChunkOrder::Pairwise);
      // One cell: a variant's row name, which --variant runs it, and one run's result.
      struct Cell {
        const char* kernel;
        const char* variant;
        std::function<RunResult()> run;
      };
      auto sum_cell = [&](const char* kernel, const char* variant, std::function<void()> launch,
                          std::function<double()> bound, const float* must) {
        return Cell{kernel, variant, [&s, &truth, launch, bound, must] {
                      launch();
                      WB_CHECK_LAUNCH();
                      float v = 0;
                      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
                      return judge_sum(v, truth, 0, bound(), must);
                    }};
      };
      auto depth_bound = [&truth](int64_t depth) { return [&truth, depth] { return order_bound(truth, 0, depth); }; };
      std::vector<Cell> cells = {
          sum_cell("float_atomic", "atomic", [&] { launch_atomic(in.d, s, tb); },
                   depth_bound(Depths::per_thread(size, tb * opt.block) + tb), nullptr),
          sum_cell("float_tree", "tree", [&] { launch_tree(in.d, s, tb); }, depth_bound(tree_depth), nullptr),
          sum_cell("float_tree_other_grid", "tree", [&] { launch_tree(in.d, s, ob); },
                   depth_bound(Depths::per_thread(size, ob * opt.block) + wb::ceil_div<int64_t>(ob, opt.block) + 10),
                   nullptr),
          sum_cell("float_reproducible", "reproducible",
                   [&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); },
                   depth_bound(Depths::levels(size) * chunk_level_depth(ChunkOrder::Sequential)), &repro),
          sum_cell("float_kahan", "kahan", [&] { launch_kahan(in.d, s, tb); },
                   [&truth, tree_depth] { return compensated_bound(truth, 0, tree_depth); }, nullptr),
          sum_cell("float_pairwise", "pairwise", [&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); },
                   depth_bound(Depths::levels(size) * chunk_level_depth(ChunkOrder::Pairwise)), &pair),
          sum_cell("float_exact", "exact", [&] { launch_exact(in.d, s); }, depth_bound(0), &truth.rounded[0]),
          sum_cell("cub_device_reduce_sum", "cub",
                   [&] { WB_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, in.d, s.sum.get(), size)); },
                   depth_bound(cub_depth(size, dev.sms)), nullptr),
#if WB_CUB_DETERMINISM
          sum_cell("cub_sum_not_guaranteed", "cub",
                   [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<0>())); },
                   depth_bound(cub_depth(size, dev.sms) + size / 256), nullptr),
          sum_cell("cub_sum_run_to_run", "cub",
                   [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<1>())); },
                   depth_bound(cub_depth(size, dev.sms)), nullptr),
          sum_cell("cub_sum_gpu_to_gpu", "cub",
                   [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), size, require_determinism<2>())); },
                   depth_bound(cub_depth(size, dev.sms)), nullptr),
#endif
      };
      std::unique_ptr<ScanTruth> scan_truth;
      unsigned long long folded = 0;
      if (scan && size <= kStudyScanMax) {
        scan_truth.reset(new ScanTruth);
        make_scan_truth(*scan_truth, in);
        folded = folded_scan_on_host(in.host.data(), size);
        for (const bool fold : {false, true}) {
          cells.push_back({fold ? "float_scan_deterministic" : "float_scan_single_pass", "scan", [&, fold] {
                             scan->launch(fold, in.d, size);
                             WB_CHECK_LAUNCH();
                             WB_CHECK(cudaDeviceSynchronize());
                             return judge_scan(scan->out.get(), size, *scan_truth, in, 0, ScanRunner::order_of(fold),
                                               scan->hash.get(), fold ? &folded : nullptr);
                           }});
        }
      }
      for (const Cell& cell : cells) {
        if (!runs(opt.variant, cell.variant)) continue;
        std::set<uint64_t> seen;
        double max_ulps = 0, max_rel = 0;
        bool ok = true;
        uint64_t first_bits = 0;
        for (int r = 0; r < f.runs; ++r) {
          const RunResult res = cell.run();
          if (r == 0) first_bits = res.bits;
          seen.insert(res.bits);
          max_ulps = std::max(max_ulps, res.ulps);
          max_rel = std::max(max_rel, res.rel);
          if (!res.ok && ok) std::fprintf(stderr, "FAIL %s at N = %lld, %s: %s\n", cell.kernel, (long long)size,
                                          wb::float_mode_name(mode), res.why.c_str());
          ok = ok && res.ok;
        }
        const bool is_scan = std::string(cell.variant) == "scan";
        std::printf("19,%s,%lld,%s,%d,%d,%zu,%s,%s,%.4g,%.4g,%s\n", cell.kernel, (long long)size,
                    wb::float_mode_name(mode), f.input.spread, f.runs, seen.size(),
                    is_scan ? hex64(first_bits).c_str() : hex_bits(wb::float_from_bits(uint32_t(first_bits))).c_str(),
                    hex_bits(truth.rounded[0]).c_str(), max_ulps, max_rel, ok ? "PASS" : "FAIL");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
// [study]

/// Everything but --emulate: the scratch for every variant, then --gpu-bits, --study, or the
/// variants of --variant timed and checked by FloatBench, their rows printed; the exit status.
int run_variants(const wb::Spec& spec, wb::Options& opt, const FloatFlags& f, const wb::Device& dev) {
  const bool with_scan = runs(opt.variant, "scan") && !f.gpu_bits;
  wb::fit_default_n(opt, dev, with_scan ? 8.0 + 4.0 / 1024 : 4.0);
  const int64_t n = opt.n;

  // Scratch for every variant, sized for N.
  Sums s;
  s.n = n;
  s.block = opt.block;
  const int tree_occupancy = wb::blocks_per_sm(float_tree, opt.block);
  s.max_blocks = int64_t(dev.sms) * tree_occupancy;
  const int64_t other_grid_blocks = int64_t(other_sms(dev.sms)) * tree_occupancy;
  const int64_t most_blocks = std::max(s.max_blocks, other_grid_blocks);
  s.sum = wb::DeviceBuffer<float>(1, "the sum");
  s.partials = wb::DeviceBuffer<float>(size_t(most_blocks), "the blocks' sums");
  s.compensated = wb::DeviceBuffer<Compensated>(size_t(most_blocks), "the blocks' compensated sums");
  s.ticket = wb::DeviceBuffer<unsigned>(1, "the count of finished blocks");
  WB_CHECK(cudaMemset(s.ticket.get(), 0, sizeof(unsigned)));
  s.exact_grid = wb::DeviceBuffer<ExactGrid>(1, "the exact sum's bins");
  WB_CHECK(cudaMemset(s.exact_grid.get(), 0, sizeof(ExactGrid)));
  s.exact_grid_blocks = int64_t(dev.sms) * wb::blocks_per_sm(float_exact, kExactBlock);
  const int64_t level0 = wb::ceil_div<int64_t>(n, kChunk);
  s.level[0] = wb::DeviceBuffer<float>(size_t(level0), "the chunk sums");
  s.level[1] = wb::DeviceBuffer<float>(size_t(wb::ceil_div<int64_t>(level0, kChunk)), "the chunk sums' sums");
  s.chunk_grid = int64_t(dev.sms) * wb::blocks_per_sm(chunk_sums<ChunkOrder::Sequential, true>, kChunkBlock);
  const int64_t tree_blocks = tree_grid(n, opt.block, s.max_blocks);
  const int64_t other_blocks = tree_grid(n, opt.block, other_grid_blocks);

  FloatInput in;
  if (f.gpu_bits) return gpu_bits(opt, f, dev, s, in, tree_blocks, other_blocks);
  if (f.study) return study(opt, f, dev, s, in, other_grid_blocks);


  make_input(in, opt, n, f.input, true);
  const Truth truth = make_truth(in);
  // The CPU's bits of the two chunked orders, for the input as made and with element 0 negated.
  float repro_bits[2], pair_bits[2];
  if (runs(opt.variant, "reproducible") || runs(opt.variant, "pairwise")) {
    for (int parity = 0; parity < 2; ++parity) {
      if (parity) in.host[0] = -in.host[0];
      repro_bits[parity] = chunked_sum_on_host(in.host.data(), n, ChunkOrder::Sequential);
      pair_bits[parity] = chunked_sum_on_host(in.host.data(), n, ChunkOrder::Pairwise);
      if (parity) in.host[0] = -in.host[0];
    }
  }

  FloatBench bench(spec, opt, dev, in);
  // A sum's check: its order's bound (and `slack` beyond it), the CPU's bits of its order
  // where `must` holds them (per parity), IEEE's answer when the input is not finite.
  auto sum_check = [&](double depth, const float* must, double slack = 0.0) {
    return [&truth, &s, depth, must, slack](int parity) {
      float v = 0;
      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
      return judge_sum(v, truth, parity, order_bound(truth, parity, int64_t(depth)) + slack,
                       must ? must + parity : nullptr);
    };
  };
  const int occupancy = tree_occupancy;
  auto grid_config = [](int64_t grid) { return "grid=" + std::to_string(grid); };

  if (runs(opt.variant, "atomic")) {
    const double depth = double(Depths::per_thread(n, tree_blocks * opt.block) + tree_blocks);
    bench.run({"float_atomic", n, opt.block, 0, 0, occupancy, grid_config(tree_blocks)},
              [&] { launch_atomic(in.d, s, tree_blocks); }, s.sum.get(), 4,
              sum_check(depth, nullptr, atomic_flush_slack(tree_blocks)), false);
  }
  if (runs(opt.variant, "tree")) {
    const double depth = double(Depths::per_thread(n, tree_blocks * opt.block) + wb::ceil_div<int64_t>(tree_blocks, opt.block) + 10);
    bench.run({"float_tree", n, opt.block, 0, 0, occupancy, grid_config(tree_blocks)},
              [&] { launch_tree(in.d, s, tree_blocks); }, s.sum.get(), 4, sum_check(depth, nullptr), true);
    const double other_depth =
        double(Depths::per_thread(n, other_blocks * opt.block) + wb::ceil_div<int64_t>(other_blocks, opt.block) + 10);
    bench.run({"float_tree_other_grid", n, opt.block, 0, 0, occupancy,
               grid_config(other_blocks) + " sms=" + std::to_string(other_sms(dev.sms))},
              [&] { launch_tree(in.d, s, other_blocks); }, s.sum.get(), 4, sum_check(other_depth, nullptr), true);
  }
  if (runs(opt.variant, "reproducible")) {
    const double depth = Depths::levels(n) * chunk_level_depth(ChunkOrder::Sequential);
    bench.run({"float_reproducible", n, kChunkBlock, 0, 0, 0, "chunk=" + std::to_string(kChunk)},
              [&] { launch_chunked<ChunkOrder::Sequential>(in.d, s, s.chunk_grid); }, s.sum.get(), 4,
              sum_check(depth, repro_bits), true);
  }
  if (runs(opt.variant, "kahan")) {
    const int64_t d = Depths::per_thread(n, tree_blocks * opt.block) + wb::ceil_div<int64_t>(tree_blocks, opt.block) + 10;
    auto check = [&truth, &s, d](int parity) {
      float v = 0;
      WB_CHECK(cudaMemcpy(&v, s.sum.get(), 4, cudaMemcpyDeviceToHost));
      return judge_sum(v, truth, parity, compensated_bound(truth, parity, d), nullptr, NonFinite::Compensated);
    };
    bench.run({"float_kahan", n, opt.block, 0, 0, wb::blocks_per_sm(float_kahan, opt.block), grid_config(tree_blocks)},
              [&] { launch_kahan(in.d, s, tree_blocks); }, s.sum.get(), 4, check, true);
  }
  if (runs(opt.variant, "pairwise")) {
    const double depth = Depths::levels(n) * chunk_level_depth(ChunkOrder::Pairwise);
    bench.run({"float_pairwise", n, kChunkBlock, 0, 0, 0, "chunk=" + std::to_string(kChunk)},
              [&] { launch_chunked<ChunkOrder::Pairwise>(in.d, s, s.chunk_grid); }, s.sum.get(), 4,
              sum_check(depth, pair_bits), true);
  }
  if (runs(opt.variant, "exact")) {
    bench.run({"float_exact", n, kExactBlock, 0, 0, wb::blocks_per_sm(float_exact, kExactBlock), exact_layout()},
              [&] { launch_exact(in.d, s); }, s.sum.get(), 4, sum_check(0, truth.rounded), true);
  }
  if (runs(opt.variant, "cub")) {
    const std::string cub_config = wb::with_cub_version("", wb::cub_version);  // "cub=3.5.0"
    size_t temp_bytes = 0;
    WB_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.d, s.sum.get(), n));
    wb::DeviceBuffer<char> temp(temp_bytes, "CUB's temporary storage");
    const double depth = double(cub_depth(n, dev.sms));
    bench.run({"cub_device_reduce_sum", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, in.d, s.sum.get(), n)); }, s.sum.get(), 4,
              sum_check(depth, nullptr), true);
#if WB_CUB_DETERMINISM
    // not_guaranteed: atomics across blocks, so up to one addition per block more (and what
    // float atomics flush).
    bench.run({"cub_sum_not_guaranteed", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<0>())); },
              s.sum.get(), 4, sum_check(depth + double(n / 256), nullptr, atomic_flush_slack(n / 256 + 1)), false);
    bench.run({"cub_sum_run_to_run", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<1>())); },
              s.sum.get(), 4, sum_check(depth, nullptr), true);
    // gpu_to_gpu: a reproducible accumulator (binned, Demmel and Nguyen's); its documented error
    // is far below the recursive bound, which is what it is held to here.
    bench.run({"cub_sum_gpu_to_gpu", n, 0, 0, 0, 0, cub_config},
              [&] { WB_CHECK(cub::DeviceReduce::Sum(in.d, s.sum.get(), n, require_determinism<2>())); },
              s.sum.get(), 4, sum_check(depth, nullptr), true, Excuse::LibraryDefect);
#endif
  }
  if (with_scan) {
    scan::stress_begin(opt);  // the stress build's delays and counts (chapter 17's); else nothing
    ScanRunner scan(opt, dev, n);
    ScanTruth scan_truth;
    make_scan_truth(scan_truth, in);
    // The CPU's fold of the input as made and with element 0 negated.
    unsigned long long folded[2];
    for (int parity = 0; parity < 2; ++parity) {
      if (parity) in.host[0] = -in.host[0];
      folded[parity] = folded_scan_on_host(in.host.data(), n);
      if (parity) in.host[0] = -in.host[0];
    }
    for (const bool fold : {false, true}) {
      const LookBackOrder order = ScanRunner::order_of(fold);
      const scan::ScanPolicy& p = scan.policy_for(fold, n);
      bench.run({fold ? "float_scan_deterministic" : "float_scan_single_pass", n, p.block, p.batch, 8.0 * double(n),
                 scan.occupancy(fold, n),
                 p.describe() + (order == LookBackOrder::FoldForward ? " order=fold_forward" : " order=as_found")},
                [&] { scan.launch(fold, in.d, n); }, scan.out.get(), size_t(n) * 4,
                [&](int parity) {
                  return judge_scan(scan.out.get(), n, scan_truth, in, parity, order, scan.hash.get(),
                                    fold ? &folded[parity] : nullptr);
                },
                fold);
    }
    scan::stress_report(opt);
  }
  return bench.finish();
}
