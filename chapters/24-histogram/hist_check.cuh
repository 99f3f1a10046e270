/// @file hist_check.cuh
/// @brief Chapter 24's harness, which histogram.cu includes after its kernels: --input and
/// --bins, the samples, the CPU's counts, and HistBench, wb::Bench for an output of counts (B
/// bins, or the four digit histograms) instead of N values.
#pragma once

#include <functional>
#include <map>

// ---------------------------------------------------------------------------------------
// The command line beyond the shared flags

/// --bins B when it is not given: one bin per value of a byte.
constexpr int64_t kDefaultBins = 256;
/// The fewest bins --bins accepts.
constexpr int64_t kMinBins = 2;
/// The most bins --bins accepts: one per value of 16 bits.
constexpr int64_t kMaxBins = 65536;

/// --bins B, a flag of this harness.
inline wb::HarnessFlag bins_flag() {
  return {"--bins", "B", kMinBins, kMaxBins,
          "  --bins B      B even bins over the whole uint32 range: sample x goes to bin\n"
          "                floor(x B / 2^32); B from 2 to 65536 (default 256)\n"};
}

/// What the samples look like (--input).
enum class Shape {
  Uniform,  ///< every sample an independent uniform 32-bit value
  Skewed,   ///< Zipf-like: bin r (r = 0, 1, ...) drawn with probability about 1/((r + 1) ln B)
  OneBin,   ///< every sample in bin B / 2, the worst case for contention
  Few       ///< 16 distinct values, in random order
};

/// The names --input takes, in Shape's order.
constexpr const char* kShapeNames[] = {"uniform", "skewed", "one_bin", "few"};

/// Take --input NAME out of argv (exit 2 with a message for an unknown name or a missing value).
inline Shape take_input_flag(int& argc, char** argv) {
  return Shape(wb::take_choice_flag(argc, argv, "chapter24", "--input", {std::begin(kShapeNames), std::end(kShapeNames)}));
}

// ---------------------------------------------------------------------------------------
// The samples and the CPU's counts

/// The smallest sample of bin b of `bins` even bins: ceil(b 2^32 / bins).
inline uint32_t bin_low(EvenBins bins, uint64_t b) {
  return uint32_t(((b << 32) + bins.count - 1) / bins.count);
}

/// A sample of bin b drawn from the 32 bits h: bin_low(b) plus h modulo the bin's width.
inline uint32_t sample_in_bin(EvenBins bins, uint64_t b, uint32_t h) {
  const uint64_t low = bin_low(bins, b);
  const uint64_t high = b + 1 == bins.count ? uint64_t(1) << 32 : bin_low(bins, b + 1);
  return uint32_t(low + h % (high - low));
}

/// Sample i for a seed, a shape and the bins (skewed and one_bin draw bins, then a value in it).
inline uint32_t sample_value(uint64_t seed, uint64_t i, Shape shape, EvenBins bins) {
  const uint64_t h = wb::mix64(wb::mix64(seed) + (i + 1) * 0x9e3779b97f4a7c15ULL);
  switch (shape) {
    case Shape::Uniform: return uint32_t(h >> 32);
    case Shape::OneBin: return sample_in_bin(bins, bins.count / 2, uint32_t(h));
    case Shape::Few: return uint32_t(wb::mix64(seed ^ (h >> 60)) >> 32);  // 16 values: the top 4 bits pick one
    case Shape::Skewed: {
      // r = floor((B + 1)^u) - 1 for u uniform in [0, 1): P(r) = ln((r + 2) / (r + 1)) / ln(B + 1).
      const double u = double(h >> 40) * 0x1p-24;
      const uint64_t r = std::min<uint64_t>(uint64_t(std::pow(double(bins.count) + 1.0, u)) - 1, bins.count - 1);
      return sample_in_bin(bins, r, uint32_t(h));
    }
  }
  return 0;
}

/// The samples for --seed, --offset, --n, --input and --bins, made on the host (the reference
/// reads them there) and copied into a guarded array --offset elements past its leading guard.
inline wb::Input make_samples(const wb::Options& opt, Shape shape, EvenBins bins) {
  wb::Input in;
  in.n = opt.n;
  wb::memory_use().n = in.n;
  in.host.resize(size_t(in.n));
  int32_t* const values = in.host.data();
  const uint64_t seed = opt.seed;
  wb::parallel_for(in.n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) values[i] = int32_t(sample_value(seed, uint64_t(i), shape, bins));
  });
  in.dev = wb::make_array(opt, in.n, "the samples");
  in.d = in.dev.d;
  WB_CHECK(cudaMemcpy(in.dev.d, in.host.data(), size_t(in.n) * 4, cudaMemcpyHostToDevice));
  return in;
}

/// What a row counts: the even bins of --bins, or the four digit histograms (kDigitBins counts:
/// digit d's byte value v at d 256 + v).
enum class Counts {
  Bins,   ///< the B even bins of --bins
  Digits  ///< the four 8-bit digit histograms, kDigitBins counters
};

/// The counts of samples[0, n) on the CPU, each worker into its own array, then added.
inline std::vector<uint64_t> cpu_counts(const int32_t* samples, int64_t n, Counts what, EvenBins bins) {
  const size_t size = what == Counts::Bins ? size_t(bins.count) : size_t(kDigitBins);
  std::vector<std::vector<uint64_t>> partial(size_t(wb::worker_count(n)), std::vector<uint64_t>(size, 0));
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    uint64_t* const c = partial[size_t(w)].data();
    for (int64_t i = b; i < e; ++i) {
      const uint32_t x = uint32_t(samples[i]);
      if (what == Counts::Bins) {
        ++c[bins(x)];
      } else {
        for (int d = 0; d < 4; ++d) ++c[d * 256 + ((x >> (8 * d)) & 255u)];
      }
    }
  });
  std::vector<uint64_t> total(size, 0);
  for (const auto& p : partial)
    for (size_t k = 0; k < size; ++k) total[k] += p[k];
  return total;
}

// ---------------------------------------------------------------------------------------
// HistBench

/// Where a row's counts land: B (or kDigitBins) counters of 64 bits, or of 32 (CUB's fastest
/// call, where no count can reach 2^32).
struct CountsOut {
  void* ptr = nullptr;  ///< the device counters
  bool wide = true;     ///< 64-bit counters (else 32-bit)
};

/// Write `value` into sample 0: how HistBench changes it between runs, and back.
__global__ void put_first_sample(int32_t* in, int32_t value) { *in = value; }

/// Times, checks and reports the histograms, as wb::Bench does for outputs of N values: a first
/// run, warm-up runs and timed runs (L2 flushed before each timed one unless --no-flush), inside
/// NVTX ranges named as wb::Bench names them. Before every run the counters are poisoned (bytes
/// 0xA5), so a launch must zero them itself, and it is timed doing so; after it every counter
/// must be the CPU's. On every odd run sample 0 moves to the next bin and to another value of
/// each byte, so that consecutive runs have other counts and a kernel that keeps counts from the
/// run before fails instead of repeating a right answer. After the runs sample 0 is restored,
/// the guards of every device array are checked and so is the input.
class HistBench {
 public:
  /// The CPU's counts of the whole input come lazily (run); prints the device and input lines.
  HistBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev, wb::Input& in, Shape shape,
            EvenBins bins)
      : spec_(spec), opt_(opt), dev_(dev), in_(in), shape_(shape), bins_(bins), runs_(opt, dev) {
    first_ = uint32_t(in.host[0]);
    // Another bin, and another value of every byte: add one bin's width, then 0x01010101 more.
    const uint32_t step = uint32_t(std::min<uint64_t>((uint64_t(1) << 32) / bins.count + 1, 0xffffffffu));
    flipped_ = first_ + step + 0x01010101u;
    if (bins(flipped_) == bins(first_)) flipped_ = bin_low(bins, (bins(first_) + 1) % bins.count) | 0x01010101u;
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB (%.1f free); theoretical peak %.0f GB/s\n",
             dev.id, dev.name.c_str(), dev.major, dev.minor, dev.sms, dev.l2_bytes / 1048576.0,
             dev.total_bytes / 1073741824.0, dev.free_bytes / 1073741824.0, dev.peak_gbps);
    wb::note(opt, "input: N = %s, offset %lld, --input %s, --bins %u; sample 0 in another bin on every other run; "
             "%s; median of %d runs after %d warm-up\n\n",
             wb::describe_n(in.n).c_str(), (long long)opt.offset, kShapeNames[int(shape)], bins.count,
             opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)", opt.reps, opt.warmup);
  }
  HistBench(const HistBench&) = delete;
  HistBench& operator=(const HistBench&) = delete;

  /// Time `launch`, which must count samples[0, c.n) into `out` (zeroing it first), and check
  /// every run. Everything the algorithm needs belongs inside `launch` and is timed.
  /// @return the row, also kept for finish()
  wb::Row run(const wb::Case& c, Counts what, CountsOut out, const std::function<void()>& launch) {
    const std::vector<uint64_t>& want = counts_of(what, c.n);
    wb::Row r = wb::open_row(spec_, c, std::string("input=") + kShapeNames[int(shape_)] + " bins=" +
                                           std::to_string(what == Counts::Bins ? int64_t(bins_.count) : int64_t(kDigitBins)) +
                                           (out.wide ? "" : " counters=32bit") + (c.config.empty() ? "" : " " + c.config));
    if (c.bytes <= 0) r.bytes = 4.0 * double(c.n) + (out.wide ? 8.0 : 4.0) * double(want.size());

    const size_t bytes = want.size() * (out.wide ? 8 : 4);
    int wrong_runs = 0;
    const std::vector<float> times = runs_.run(
        c.kernel,
        [&](int run) {
          set_parity(run % 2);
          WB_CHECK(cudaMemsetAsync(out.ptr, 0xA5, bytes));  // poison: the launch must zero the counters
        },
        launch,
        [&](int, const std::string& when) {
          check_run(wrong_runs, c.kernel, parity_ ? when + ", sample 0 moved" : when, what, want, out);
        });
    set_parity(0);  // sample 0 as made, for the input check below and the next kernel
    if (wrong_runs > 1)
      std::fprintf(stderr, "FAIL %s: %d of %d runs were wrong (the first is shown above)\n", c.kernel.c_str(), wrong_runs,
                   runs_.total());
    r.verified = wrong_runs == 0;
    r.verified &= wb::check_guards(c.kernel);
    const wb::Mismatch m = wb::compare_device(in_.d, in_.host.data(), std::min(c.n, in_.n));
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input: index %lld is %d, was %d\n", c.kernel.c_str(),
                   (long long)m.index, m.got, m.want);
      r.verified = false;
    }
    wb::close_row(r, times, dev_.peak_gbps);
    rows_.push_back(r);
    return r;
  }

  /// Attach a note (shown in the human table only) to the last row.
  void annotate_last(const std::string& text) {
    if (!rows_.empty()) rows_.back().note = text;
  }

  /// Print the table (or CSV) and return the exit status, as wb::Bench::finish does.
  int finish() const { return wb::report_rows(opt_.csv, rows_); }

 private:
  /// The CPU's counts of samples[0, n) as made, computed once per (what, n).
  const std::vector<uint64_t>& counts_of(Counts what, int64_t n) {
    const auto key = std::make_pair(int(what), n);
    auto it = known_.find(key);
    if (it == known_.end()) it = known_.emplace(key, cpu_counts(in_.host.data(), n, what, bins_)).first;
    return it->second;
  }

  /// Make sample 0 what a run of `parity` finds (1: moved), on the device, in the stream the
  /// runs use, only when the last run found it otherwise.
  void set_parity(int parity) {
    if (parity == parity_) return;
    put_first_sample<<<1, 1>>>(in_.dev.d, int32_t(parity ? flipped_ : first_));
    WB_CHECK_LAUNCH();
    parity_ = parity;
  }

  /// The counters of sample x (one bin, or one per digit), each changed by `delta`.
  void shift(std::vector<uint64_t>& c, Counts what, uint32_t x, int64_t delta) const {
    if (what == Counts::Bins) {
      c[bins_(x)] += uint64_t(delta);
    } else {
      for (int d = 0; d < 4; ++d) c[d * 256 + ((x >> (8 * d)) & 255u)] += uint64_t(delta);
    }
  }

  /// Check the run just made: every counter against the CPU's (with sample 0 moved on odd runs).
  /// For the first wrong run of a kernel print the first wrong counter; count wrong runs.
  void check_run(int& wrong_runs, const std::string& kernel, const std::string& when, Counts what,
                 const std::vector<uint64_t>& want, CountsOut out) {
    std::vector<uint64_t> expect = want;
    if (parity_) {
      shift(expect, what, first_, -1);
      shift(expect, what, flipped_, +1);
    }
    std::vector<uint64_t> got(want.size());
    if (out.wide) {
      WB_CHECK(cudaMemcpy(got.data(), out.ptr, got.size() * 8, cudaMemcpyDeviceToHost));
    } else {
      std::vector<uint32_t> narrow(want.size());
      WB_CHECK(cudaMemcpy(narrow.data(), out.ptr, narrow.size() * 4, cudaMemcpyDeviceToHost));
      for (size_t k = 0; k < narrow.size(); ++k) got[k] = narrow[k];
    }
    int64_t wrong = 0, first = -1;
    for (size_t k = 0; k < got.size(); ++k)
      if (got[k] != expect[k]) {
        if (first < 0) first = int64_t(k);
        ++wrong;
      }
    if (wrong == 0 || ++wrong_runs > 1) return;
    const uint64_t g = got[size_t(first)], w = expect[size_t(first)];
    const bool stale = parity_ ? (g == want[size_t(first)]) : (g + 1 == w || g == w + 1);
    std::fprintf(stderr, "FAIL %s (%s): %lld of %zu counters wrong, the first is %s %lld: got %llu, want %llu%s\n",
                 kernel.c_str(), when.c_str(), (long long)wrong, got.size(), what == Counts::Bins ? "bin" : "digit counter",
                 (long long)first, (unsigned long long)g, (unsigned long long)w,
                 stale && wrong <= 8 ? " (the previous run's count: counters not zeroed, or state kept between runs?)" : "");
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  wb::Input& in_;
  Shape shape_;
  EvenBins bins_;
  std::map<std::pair<int, int64_t>, std::vector<uint64_t>> known_;  // the CPU's counts per (what, n)
  uint32_t first_ = 0, flipped_ = 0;  // sample 0 as made, and on odd runs
  int parity_ = 0;                    // 1 while sample 0 is moved
  wb::RunLoop runs_;  // the L2 flush, the events and the runs
  std::vector<wb::Row> rows_;
};
