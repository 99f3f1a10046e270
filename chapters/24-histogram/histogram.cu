/// @file histogram.cu
/// @brief Chapter 24: the histogram, a reduction into many sums. Count N uint32 samples into B
/// even bins, from one global atomic per sample to private counters in shared memory at the
/// read ceiling, and the four digit histograms of a radix sort in one pass; CUB's
/// DeviceHistogram::HistogramEven beside them.
///
/// The idea: chapter 01 added every element into one address and waited on it; chapter 02 gave
/// each block its own sum. A histogram is B sums at once, and contention on one address becomes
/// contention on B of them, as many as the input puts there. The steps, each a variant:
/// 1. hist_global_atomic: one 64-bit atomicAdd per sample into the global counters (L2);
/// 2. hist_block_shared: each block counts into its own copy of the counters in shared memory
///    (32-bit), then adds each bin into the global counters once;
/// 3. hist_warp_private: a copy per warp, as many as fit, so that fewer warps hit one counter;
/// 4. hist_warp_aggregated: the lanes of a warp that hold samples of one bin find each other
///    (__match_any_sync) and the lowest adds their number, one atomic per bin per warp round;
///    the cure for skew on older GPUs, a loss on the H200 (see the page), so step 5 builds on 3;
/// 5. hist_vectorized: step 3 with 16-byte loads, K per thread per round (chapter 10);
/// 6. the four 8-bit digit histograms of a radix sort in one pass (where a radix sort starts):
///    digit_histograms_warp_copies counts each sample's four bytes as step 5 counts bins,
///    digit_histograms also stripes the counters, one copy per lane, so no atomic meets a bank
///    conflict.
///
/// Sample x goes to bin floor(x B / 2^32), as HistogramEven puts it with the levels 0 and 2^32.
/// Past what shared memory holds (about 56,000 32-bit counters a block on a 227 KB GPU) the
/// first bins are counted in shared memory and the rest straight in global memory. --input
/// picks the samples (hist_check.cuh); --racy runs step 2 with plain increments, the racecheck
/// exercise; --variant sweep runs CUB and step 5 at every power of two from 2^16 to N.

#include <cub/device/device_histogram.cuh>

#include "workbook.cuh"

/// Threads per block by default; any multiple of 32 from 32 to 1024 works.
constexpr int kBlock = 1024;
/// uint4 loads per thread per round of steps 5 and 6 (K) by default.
constexpr int kBatch = 4;
/// The largest K accepted (each power of two from 1 to this one has a compiled kernel).
constexpr int kMaxBatch = 8;
constexpr int64_t kSweepFrom = int64_t(1) << 16;      ///< the smallest N of --variant sweep
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;  ///< its largest N when --n is not given

#include "histogram.cuh"

// [global]
/// Step 1: one 64-bit atomicAdd per sample into the global counters, grid-stride.
__global__ void hist_global_atomic(const uint32_t* in, int64_t n, EvenBins bin_of, unsigned long long* counts) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&counts[bin_of(in[i])], 1ull);
}
// [global]

// [cub]
/// cub::DeviceHistogram::HistogramEven over the same bins: B + 1 levels from 0 to 2^32 (64-bit
/// levels, since 2^32 is no uint32), counters of `Counter`. With `temp` null it only sets `bytes`.
template <class Counter>
cudaError_t cub_histogram(void* temp, size_t& bytes, const uint32_t* in, Counter* counts, EvenBins bins, int64_t n,
                          cudaStream_t stream = 0) {
  return cub::DeviceHistogram::HistogramEven(temp, bytes, in, counts, int(bins.count) + 1, 0ull, 1ull << 32, n, stream);
}
// [cub]

// ---------------------------------------------------------------------------------------
// The harness: --input, --bins, the samples, the CPU's counts and HistBench, beside this file.

#include "hist_check.cuh"

/// The name of CUB's row in the report.
const char* const kCubRow = "cub::DeviceHistogram::HistogramEven";

/// Steps 5 and 6 for K = `batch`: what they count (`Count`), each sample added by an atomic.
template <class Count>
auto vectorized_kernel(int batch) {
  using Kernel = void (*)(const uint32_t*, int64_t, Count, Private, unsigned long long*);
  Kernel k = nullptr;
  switch (batch) {
    case 1: k = hist_vectorized<1, Add::Atomic, Count>; break;
    case 2: k = hist_vectorized<2, Add::Atomic, Count>; break;
    case 4: k = hist_vectorized<4, Add::Atomic, Count>; break;
    case 8: k = hist_vectorized<8, Add::Atomic, Count>; break;
    default:
      std::fprintf(stderr, "internal error: no vectorized histogram for K = %d\n", batch);
      std::exit(3);
  }
  return k;
}


int main(int argc, char** argv) {
  const Shape shape = take_input_flag(argc, argv);
  wb::Spec spec;
  spec.chapter = "24";
  spec.slug = "histogram";
  spec.idea = "the histogram, a reduction into many sums: one global atomic per sample, private counters per block "
              "and per warp in shared memory, equal samples of a warp added once, 16-byte loads, the four digit "
              "histograms of a radix sort, and CUB";
  spec.op = wb::Op::Reduce;
  spec.bytes = "each sample read (4 bytes) and each 64-bit counter written: 4N + 8B (CUB's 32-bit counters: 4N + 4B)";
  spec.part = wb::Part::Reduction;
  spec.racy = true;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, 1024};
  spec.batch = {kBatch, kMaxBatch, true, "16-byte uint4 loads (4 samples each) per thread per round, steps 5 and 6"};
  spec.variants = {{"all", {kCubRow, "hist_global_atomic", "hist_block_shared", "hist_warp_private",
                            "hist_warp_aggregated", "hist_vectorized", "digit_histograms_warp_copies",
                            "digit_histograms"}},
                   {"global_atomic", {"hist_global_atomic"}},
                   {"block_shared", {"hist_block_shared"}},
                   {"warp_private", {"hist_warp_private"}},
                   {"aggregated", {"hist_warp_aggregated"}},
                   {"vectorized", {"hist_vectorized"}},
                   {"digits_warp_copies", {"digit_histograms_warp_copies"}},
                   {"digits", {"digit_histograms"}},
                   {"cub", {kCubRow}},
                   {"sweep", {kCubRow, "hist_vectorized"}}};
  spec.cub_pairs = {{"hist_global_atomic", kCubRow}, {"hist_block_shared", kCubRow}, {"hist_warp_private", kCubRow},
                    {"hist_warp_aggregated", kCubRow}, {"hist_vectorized", kCubRow}};
  spec.harness_flags = {bins_flag()};
  spec.extra_flags = {"--input"};
  spec.extra_usage =
      "  --input NAME  the samples: uniform (independent uniform 32-bit values), skewed (Zipf-like:\n"
      "                bin r with probability about 1/((r + 1) ln B)), one_bin (every sample in bin\n"
      "                B/2) or few (16 distinct values) (default uniform)\n";

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool sweep = opt.variant == "sweep";
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  if (opt.racy && opt.variant != "all" && opt.variant != "block_shared") {
    std::fprintf(stderr, "chapter24: --racy is step 2's exercise: give it without --variant or with block_shared\n");
    std::exit(2);
  }
  const bool all = opt.variant == "all" && !opt.racy;
  auto wanted = [&](const std::string& v) { return all || opt.variant == v || (sweep && (v == "vectorized" || v == "cub")); };
  const EvenBins bins{uint32_t(opt.harness_value("--bins", kDefaultBins))};
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4.0);
  wb::Input in = make_samples(opt, shape, bins);
  const uint32_t* const samples = reinterpret_cast<const uint32_t*>(in.d);
  wb::DeviceBuffer<unsigned long long> counts(size_t(std::max<uint32_t>(bins.count, kDigitBins)), "the counters");
  wb::DeviceBuffer<unsigned> narrow(bins.count, "CUB's 32-bit counters");
  const size_t bin_bytes = size_t(bins.count) * 8;
  std::vector<int64_t> sizes;
  if (sweep)
    for (int64_t s = kSweepFrom; s < in.n; s *= 2) sizes.push_back(s);
  sizes.push_back(in.n);
  // CUB's fastest exact call: 32-bit counters while no count can reach 2^32, else 64-bit.
  size_t cub_bytes = 0;
  if (wanted("cub")) {
    for (const int64_t s : sizes) {
      size_t bytes = 0;
      WB_CHECK(s < (int64_t(1) << 32) ? cub_histogram(nullptr, bytes, samples, narrow.get(), bins, s)
                                      : cub_histogram(nullptr, bytes, samples, counts.get(), bins, s));
      cub_bytes = std::max(cub_bytes, bytes);
    }
  }
  wb::DeviceBuffer<char> cub_temp(cub_bytes, "CUB's temporary storage");

  HistBench bench(spec, opt, dev, in, shape, bins);
  const Private one = plan_private(dev, opt.block, int(bins.count), false);
  const Private per_warp = plan_private(dev, opt.block, int(bins.count), true);
  const Private digit_copies = plan_private(dev, opt.block, kDigitBins, true);
  const Private digit_stripes = plan_striped(dev, opt.block, kDigitBins);
  wb::note(opt, "private counters: %d of %u bins in shared memory; a copy per block (step 2), %d per block (steps 3-5, "
           "%d warps); digits: %d copies of %d per block, striped: %d\n", one.shared_bins, bins.count, per_warp.copies,
           opt.block / kWarp, digit_copies.copies, kDigitBins, digit_stripes.striped ? kWarp : 0);
  // One private-step row: zero the counters and launch, both timed.
  auto run_private = [&](const char* name, const Launch& l, int64_t s, int batch, Counts what,
                         const std::function<void()>& kernel) {
    wb::Case c{name, s, opt.block, batch, 0, l.blocks_per_sm};
    c.config = "grid=" + std::to_string(l.grid) + " copies=" + std::to_string(l.p.copies) +
               (l.p.striped ? " striped" : "") + " shared_bins=" + std::to_string(l.p.shared_bins);
    return bench.run(c, what, {counts.get(), true}, [&] {
      WB_CHECK(cudaMemsetAsync(counts.get(), 0, what == Counts::Bins ? bin_bytes : size_t(kDigitBins) * 8));
      kernel();
    });
  };
  for (const int64_t s : sizes) {
    wb::Row cub;
    if (wanted("cub")) {
      const bool wide = s >= (int64_t(1) << 32);
      cub = bench.run({kCubRow, s, 0, 0, 0, 0}, Counts::Bins, {wide ? (void*)counts.get() : (void*)narrow.get(), wide}, [&] {
        WB_CHECK(wide ? cub_histogram(cub_temp.get(), cub_bytes, samples, counts.get(), bins, s)
                      : cub_histogram(cub_temp.get(), cub_bytes, samples, narrow.get(), bins, s));
      });
    }
    auto versus = [&](const wb::Row& r) { if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r)); };
    if (wanted("global_atomic") && !sweep) {
      const unsigned grid = unsigned(std::min<int64_t>(wb::ceil_div<int64_t>(s, opt.block), int64_t(dev.sms) * 32));
      wb::Case c{"hist_global_atomic", s, opt.block, 1, 0, wb::blocks_per_sm(hist_global_atomic, opt.block)};
      c.config = "grid=" + std::to_string(grid);
      versus(bench.run(c, Counts::Bins, {counts.get(), true}, [&] {
        WB_CHECK(cudaMemsetAsync(counts.get(), 0, bin_bytes));
        hist_global_atomic<<<grid, opt.block>>>(samples, s, bins, counts.get());
      }));
    }
    // Steps 2 to 4, and --racy: hist_shared with one copy, a copy per warp, and aggregation.
    struct Step { const char* variant; const char* name; const Private& p; void (*k)(const uint32_t*, int64_t, EvenBins, Private, unsigned long long*); };
    const Step steps[] = {{"block_shared", opt.racy ? "hist_block_shared_racy" : "hist_block_shared", one,
                           opt.racy ? hist_shared<Add::Racy> : hist_shared<Add::Atomic>},
                          {"warp_private", "hist_warp_private", per_warp, hist_shared<Add::Atomic>},
                          {"aggregated", "hist_warp_aggregated", per_warp, hist_shared<Add::Aggregated>}};
    for (const Step& st : steps) {
      // --racy runs step 2's exercise alone.
      if (opt.racy ? st.variant != steps[0].variant : sweep || !wanted(st.variant)) continue;
      const Launch l = plan_launch(dev, st.k, st.p, opt.block, s, 4);
      versus(run_private(st.name, l, s, 1, Counts::Bins, [&] {
        st.k<<<l.grid, opt.block, l.p.bytes()>>>(samples, s, bins, l.p, counts.get());
      }));
    }
    if (wanted("vectorized")) {
      const auto k = vectorized_kernel<CountBins>(opt.batch);
      const Launch l = plan_launch(dev, k, per_warp, opt.block, s, 4 * opt.batch);
      versus(run_private("hist_vectorized", l, s, opt.batch, Counts::Bins, [&] {
        k<<<l.grid, opt.block, l.p.bytes()>>>(samples, s, CountBins{bins}, l.p, counts.get());
      }));
    }
    // Step 6 with step 5's copies, then striped: each change alone.
    struct Digits { const char* variant; const char* name; const Private& p; };
    const Digits digit_rows[] = {{"digits_warp_copies", "digit_histograms_warp_copies", digit_copies},
                                 {"digits", "digit_histograms", digit_stripes}};
    for (const Digits& d : digit_rows) {
      if (sweep || !wanted(d.variant)) continue;
      auto launch = [&](auto count) {
        const auto k = vectorized_kernel<decltype(count)>(opt.batch);
        const Launch l = plan_launch(dev, k, d.p, opt.block, s, 4 * opt.batch);
        run_private(d.name, l, s, opt.batch, Counts::Digits,
                    [&] { k<<<l.grid, opt.block, l.p.bytes()>>>(samples, s, count, l.p, counts.get()); });
      };
      with_digit_counter(d.p, launch);
    }
  }
  return bench.finish();
}
