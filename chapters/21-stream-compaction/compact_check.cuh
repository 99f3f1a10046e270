/// @file compact_check.cuh
/// @brief Chapter 21's harness, which stream_compaction.cu includes after its kernels: --keep,
/// the input, the CPU's compaction, and CompactBench, wb::Bench for an output whose length is
/// a result too (a count and the kept elements, instead of N values).
#pragma once

#include <functional>

// ---------------------------------------------------------------------------------------
// The command line beyond the shared flags

/// The percentage of all 32-bit values the predicate keeps when --keep is not given.
constexpr int64_t kDefaultKeep = 50;

/// --keep P: which predicate the run compacts with (KeepBelow::percent), a flag of this harness.
inline wb::HarnessFlag keep_flag() {
  return {"--keep", "P", 0, 100,
          "  --keep P      keep an element when the hash of its value lies in the lowest P% of all\n"
          "                32-bit values: P from 0 to 100 (default 50)\n"};
}

/// The predicate of --keep.
inline KeepBelow keep_of(const wb::Options& opt) {
  return KeepBelow::percent(opt.harness_value("--keep", kDefaultKeep));
}

// ---------------------------------------------------------------------------------------
// The input and the CPU's compaction

/// The input for --seed and --offset with --n elements: compaction_value(seed, i), made on the
/// host (the reference reads it there) and copied into a guarded array --offset elements past
/// its leading guard, as wb::make_input places the other chapters' inputs.
inline wb::Input make_compaction_input(const wb::Options& opt) {
  wb::Input in;
  in.n = opt.n;
  wb::memory_use().n = in.n;
  in.host.resize(size_t(in.n));
  int32_t* const values = in.host.data();
  const uint64_t seed = opt.seed;
  wb::parallel_for(in.n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) values[i] = compaction_value(seed, uint64_t(i));
  });
  in.dev = wb::make_array(opt, in.n, "the input");
  in.d = in.dev.d;
  WB_CHECK(cudaMemcpy(in.dev.d, in.host.data(), size_t(in.n) * 4, cudaMemcpyHostToDevice));
  return in;
}

/// How many of in[0, n) `keep` keeps.
inline int64_t cpu_count(const int32_t* in, int64_t n, KeepBelow keep) {
  std::vector<int64_t> partial(size_t(wb::worker_count(n)), 0);
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    int64_t c = 0;
    for (int64_t i = b; i < e; ++i) c += keep(in[i]) ? 1 : 0;
    partial[size_t(w)] = c;
  });
  int64_t total = 0;
  for (const int64_t c : partial) total += c;
  return total;
}

/// The compaction of in[0, n) on the CPU: the kept elements, in order. Each worker counts its
/// range, the counts give each worker's first position, and each worker copies its kept elements.
inline std::vector<int32_t> cpu_compact(const int32_t* in, int64_t n, KeepBelow keep) {
  std::vector<int64_t> start(size_t(wb::worker_count(n)) + 1, 0);
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    int64_t c = 0;
    for (int64_t i = b; i < e; ++i) c += keep(in[i]) ? 1 : 0;
    start[size_t(w) + 1] = c;
  });
  for (size_t w = 1; w < start.size(); ++w) start[w] += start[w - 1];
  std::vector<int32_t> kept(size_t(start.back()));
  int32_t* const dst = kept.data();
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    int64_t at = start[size_t(w)];
    for (int64_t i = b; i < e; ++i)
      if (keep(in[i])) dst[at++] = in[i];
  });
  return kept;
}

/// What input element 0 (`x`) becomes on every other run: the nearest value above it that `keep`
/// judges the other way, so that the count and every position after element 0 change between
/// consecutive runs and a kernel that reuses the previous run's counts is caught. mix32 is a
/// bijection, so such a value exists unless every value is judged alike (--keep 0 or 100); then x
/// + wb::kRunDelta, which changes only the value of a kept element 0.
inline int32_t flipped_first(int32_t x, KeepBelow keep) {
  if (keep.threshold > 0 && keep.threshold < (uint64_t(1) << 32)) {
    for (uint32_t d = 1; d != 0; ++d)
      if (keep(int32_t(uint32_t(x) + d)) != keep(x)) return int32_t(uint32_t(x) + d);
  }
  return int32_t(uint32_t(x) + uint32_t(wb::kRunDelta));
}

// ---------------------------------------------------------------------------------------
// Checking a run on the device

/// What the poisoning memset (bytes 0xA5) leaves in every element of the output.
constexpr int32_t kPoison = int32_t(0xA5A5A5A5u);

/// What one run's output must be, from `want` (the kept elements of the input as made): its first
/// `kept` elements are `head` at index 0 where has_head, else want[i + shift]; every element
/// after them still holds the poison.
struct Expected {
  int64_t kept = 0;       ///< the run's count
  int64_t shift = 0;      ///< element i is want[i + shift] (but a head)
  bool has_head = false;  ///< element 0 is `head`, a flipped element 0 that is kept
  int32_t head = 0;       ///< see has_head
};

/// Element i of the run's output as `e` and the reference `want` say it must be.
__host__ __device__ inline int32_t expected_at(const int32_t* want, const Expected& e, int64_t i) {
  return e.has_head && i == 0 ? e.head : want[i + e.shift];
}

/// Compare got[0, capacity) with the run's expected output: result[0] counts the kept elements
/// that differ and result[1] is the first of them; result[2] counts the elements past the count
/// that lost their poison and result[3] is the first (the caller sets [1] and [3] to all ones).
/// Grid-stride, each warp combining its lanes with shuffles before its atomics (as
/// wb::count_mismatches does). blockDim.x: a multiple of 32.
__global__ void check_compaction(const int32_t* got, int64_t capacity, const int32_t* want, Expected e,
                                 unsigned long long* result) {
  unsigned long long wrong = 0, first = ~0ull, spilled = 0, first_spill = ~0ull;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < capacity; i += stride) {
    if (i < e.kept) {
      if (got[i] != expected_at(want, e, i)) {
        if (wrong == 0) first = (unsigned long long)i;
        ++wrong;
      }
    } else if (got[i] != kPoison) {
      if (spilled == 0) first_spill = (unsigned long long)i;
      ++spilled;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    spilled += __shfl_down_sync(0xffffffffu, spilled, offset);
    const unsigned long long a = __shfl_down_sync(0xffffffffu, first, offset);
    const unsigned long long b = __shfl_down_sync(0xffffffffu, first_spill, offset);
    first = a < first ? a : first;
    first_spill = b < first_spill ? b : first_spill;
  }
  if (threadIdx.x % 32 == 0) {
    if (wrong > 0) atomicAdd(result, wrong), atomicMin(result + 1, first);
    if (spilled > 0) atomicAdd(result + 2, spilled), atomicMin(result + 3, first_spill);
  }
}

/// Write `value` into input element 0: how CompactBench flips it between runs, and back.
__global__ void put_first(int32_t* in, int32_t value) { *in = value; }

// ---------------------------------------------------------------------------------------
// CompactBench

/// Times, checks and reports the compactions, as wb::Bench does for outputs of N values: a first
/// run, warm-up runs and timed runs (L2 flushed before each timed one unless --no-flush), inside
/// NVTX ranges named as wb::Bench names them. Before every run the output and the count are
/// poisoned (bytes 0xA5); after it the count must be the CPU's, every kept element the CPU's, in
/// order, and every element past the count still poisoned. On every odd run input element 0 is
/// flipped to a value the predicate judges the other way (flipped_first), so that consecutive runs
/// have other counts and positions, and a kernel that uses state left by the previous run (tile
/// statuses, a count) fails instead of repeating a right answer. After the runs element 0 is
/// restored, the guards of every device array are checked and so is the input.
class CompactBench {
 public:
  /// The CPU's compaction of the whole input, its device copy and the flipped element 0; prints
  /// the device and input lines (human mode). The runs write to `out` and `count`.
  CompactBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev, wb::Input& in, KeepBelow keep,
               int32_t* out, unsigned long long* count)
      : spec_(spec), opt_(opt), dev_(dev), in_(in), keep_(keep), out_(out), count_(count), runs_(opt, dev) {
    result_ = wb::DeviceBuffer<unsigned long long>(4, "the result of the output check");
    want_ = cpu_compact(in.host.data(), in.n, keep);
    want_d_ = wb::DeviceBuffer<int32_t>(std::max<size_t>(1, want_.size()), "the device copy of the expected output");
    WB_CHECK(cudaMemcpy(want_d_.get(), want_.data(), want_.size() * 4, cudaMemcpyHostToDevice));
    first_ = in.host[0];
    flipped_ = flipped_first(first_, keep);
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB (%.1f free); theoretical peak %.0f GB/s\n",
             dev.id, dev.name.c_str(), dev.major, dev.minor, dev.sms, dev.l2_bytes / 1048576.0,
             dev.total_bytes / 1073741824.0, dev.free_bytes / 1073741824.0, dev.peak_gbps);
    wb::note(opt, "input: N = %s, offset %lld, --keep %lld: %lld kept, %.3f GB moved per run (4N + 4k + 8); "
             "in[0] %s on every other run; %s; median of %d runs after %d warm-up\n\n",
             wb::describe_n(in.n).c_str(), (long long)opt.offset, (long long)opt.harness_value("--keep", kDefaultKeep),
             (long long)want_.size(), moved_bytes(in.n, int64_t(want_.size())) / 1e9,
             keep(first_) != keep(flipped_) ? "judged the other way" : "changed by 1000",
             opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)", opt.reps, opt.warmup);
  }
  CompactBench(const CompactBench&) = delete;
  CompactBench& operator=(const CompactBench&) = delete;

  /// The bytes a compaction of n elements that keeps k of them must move: each element read, each
  /// kept one written, and the count.
  static double moved_bytes(int64_t n, int64_t k) { return 4.0 * double(n) + 4.0 * double(k) + 8.0; }

  /// Time `launch`, which must compact in[0, c.n) into the output and the count, and check every
  /// run. Everything the algorithm needs belongs inside `launch` and is timed; the checks are not.
  /// @return the row, also kept for finish()
  wb::Row run(const wb::Case& c, const std::function<void()>& launch) {
    const int64_t k = kept_in(c.n);
    wb::Row r = wb::open_row(spec_, c, "keep=" + std::to_string(opt_.harness_value("--keep", kDefaultKeep)) + " kept=" +
                                           std::to_string(k) + (c.config.empty() ? "" : " " + c.config));
    if (c.bytes <= 0) r.bytes = moved_bytes(c.n, k);

    int wrong_runs = 0;
    const std::vector<float> times = runs_.run(
        c.kernel,
        [&](int run) {
          set_parity(run % 2);
          WB_CHECK(cudaMemsetAsync(out_, 0xA5, size_t(c.n) * 4));  // poison
          WB_CHECK(cudaMemsetAsync(count_, 0xA5, sizeof(unsigned long long)));
        },
        launch,
        [&](int, const std::string& when) { check_run(wrong_runs, c.kernel, parity_ ? when + ", in[0] flipped" : when, c.n, k); });
    set_parity(0);  // element 0 as made, for the input check below and the next kernel
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
  /// How many of the first n elements of the input as made are kept (the whole input's count
  /// from the reference, a prefix's counted once).
  int64_t kept_in(int64_t n) {
    if (n == in_.n) return int64_t(want_.size());
    for (const auto& known : prefix_counts_)
      if (known.first == n) return known.second;
    prefix_counts_.emplace_back(n, cpu_count(in_.host.data(), n, keep_));
    return prefix_counts_.back().second;
  }

  /// The expected output of a run over n elements, k of them kept as made, with element 0 as
  /// made (parity 0) or flipped (parity 1). The kept elements of a prefix of the input are a
  /// prefix of the whole input's, so `want` serves every n.
  Expected expected_for(int64_t k, int parity) const {
    Expected e;
    e.kept = k;
    if (parity == 0) return e;
    const bool was_kept = keep_(first_), is_kept = keep_(flipped_);
    e.has_head = is_kept;
    e.head = flipped_;
    e.shift = (was_kept ? 1 : 0) - (is_kept ? 1 : 0);
    e.kept = k - (was_kept ? 1 : 0) + (is_kept ? 1 : 0);
    return e;
  }

  /// Make input element 0 what a run of `parity` finds (1: flipped), on the device, in the stream
  /// the runs use, only when the last run found it otherwise.
  void set_parity(int parity) {
    if (parity == parity_) return;
    put_first<<<1, 1>>>(in_.dev.d, parity ? flipped_ : first_);
    WB_CHECK_LAUNCH();
    parity_ = parity;
  }

  /// Check the run just made over n elements (k kept as made): the count, the kept elements and
  /// the poison after them. For the first wrong run of a kernel print what is wrong; count wrong
  /// runs in `wrong_runs`.
  void check_run(int& wrong_runs, const std::string& kernel, const std::string& when, int64_t n, int64_t k) {
    const Expected e = expected_for(k, parity_);
    WB_CHECK(cudaMemset(result_.get(), 0, 4 * sizeof(unsigned long long)));
    WB_CHECK(cudaMemset(result_.get() + 1, 0xff, sizeof(unsigned long long)));
    WB_CHECK(cudaMemset(result_.get() + 3, 0xff, sizeof(unsigned long long)));
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(wb::ceil_div<int64_t>(n, 256), int64_t(dev_.sms) * 8));
    check_compaction<<<unsigned(blocks), 256>>>(out_, n, want_d_.get(), e, result_.get());
    WB_CHECK_LAUNCH();
    unsigned long long result[4] = {}, got_count = 0;
    WB_CHECK(cudaMemcpy(result, result_.get(), sizeof result, cudaMemcpyDeviceToHost));
    WB_CHECK(cudaMemcpy(&got_count, count_, sizeof got_count, cudaMemcpyDeviceToHost));
    const bool count_ok = got_count == (unsigned long long)e.kept;
    if ((count_ok && result[0] == 0 && result[2] == 0) || ++wrong_runs > 1) return;
    if (!count_ok) {
      const long long off = (long long)got_count - (long long)e.kept;
      const bool flips = keep_(first_) != keep_(flipped_);
      std::fprintf(stderr, "FAIL %s (%s): count %llu, want %lld%s\n", kernel.c_str(), when.c_str(), got_count,
                   (long long)e.kept,
                   flips && (off == 1 || off == -1)
                       ? " (off by one, as element 0's verdict changes between consecutive runs: state left by the "
                         "previous run?)"
                       : "");
    }
    if (result[0] > 0) {
      const int64_t index = int64_t(result[1]);
      int32_t got = 0;
      WB_CHECK(cudaMemcpy(&got, out_ + index, sizeof got, cudaMemcpyDeviceToHost));
      std::fprintf(stderr, "FAIL %s (%s): %llu of %lld kept elements wrong, the first at index %lld: got %d, want %d\n",
                   kernel.c_str(), when.c_str(), result[0], (long long)e.kept, (long long)index, got,
                   expected_at(want_.data(), e, index));
    }
    if (result[2] > 0) {
      const int64_t index = int64_t(result[3]);
      int32_t got = 0;
      WB_CHECK(cudaMemcpy(&got, out_ + index, sizeof got, cudaMemcpyDeviceToHost));
      std::fprintf(stderr, "FAIL %s (%s): %llu elements written past the count (%lld), the first at index %lld: %d\n",
                   kernel.c_str(), when.c_str(), result[2], (long long)e.kept, (long long)index, got);
    }
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  wb::Input& in_;
  KeepBelow keep_;
  int32_t* out_;                              // every run's kept elements
  unsigned long long* count_;                 // every run's count
  std::vector<int32_t> want_;                 // the kept elements of the whole input as made
  wb::DeviceBuffer<int32_t> want_d_;          // their copy on the device
  std::vector<std::pair<int64_t, int64_t>> prefix_counts_;  // (n, kept) of the shorter runs
  int32_t first_ = 0, flipped_ = 0;           // input element 0 as made, and on odd runs
  int parity_ = 0;                            // 1 while element 0 is flipped
  wb::RunLoop runs_;                          // the L2 flush, the events and the runs
  wb::DeviceBuffer<unsigned long long> result_;  // check_compaction's counts and first indexes
  std::vector<wb::Row> rows_;
};
