/// @file any_check.cuh
/// @brief Chapter 20's harness: each instance's input, its CPU reference, MonoidBench (wb::Bench
/// for results of any type) and --emulate, the CPU's check of the operators' algebra and of the
/// two reductions' orders.
///
/// wb::Bench compares int32 outputs and changes input element 0 by adding 1000. Here a result is
/// an int64, an int32, a (value, index) pair or an affine map, so MonoidBench compares with the
/// instance's own equality (same()) and gives every other run an element 0 that the instance
/// chooses (InputOf<M>::changed), one that changes the result. The rest is wb::Bench's contract:
/// the output poisoned before every run, every run checked (first, warm-up and timed), L2
/// flushed before each timed run, the guards and the input checked after the last one.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

// any_reduce.cuh (whose orders --emulate replays) is included before this file by the program, not
// here: a mutation of it (tests/mutations/) is then the one this file sees too.
#include "monoids.cuh"
#include "workbook.cuh"

// ---------------------------------------------------------------------------------------
// Each instance's input

/// The input an instance is run on: element i from (--seed, i) alone (instance_bits), and the
/// element 0 that every other run finds instead of the one made.
template <class M>
struct InputOf;

/// int64 values in [-2^28, 3 x 2^28): mostly positive, so the total passes 2^32 within a few
/// dozen elements and 2^61 at 2^33; the changed element 0 adds 2^40, in bits no int32 holds.
template <>
struct InputOf<SumInt64> {
  /// Element i.
  static int64_t value(uint64_t seed, uint64_t i, int64_t) {
    return int64_t(instance_bits(seed, 0x20a1, i) >> 34) - (int64_t(1) << 28);
  }
  /// Element 0 on every other run.
  static int64_t changed(int64_t x0, int64_t) { return int64_t(uint64_t(x0) + (uint64_t(1) << 40)); }
};

/// int32 values spread over [-2^30, 2^30); every other run's element 0 is 2^30, above them all.
template <>
struct InputOf<MaxInt32> {
  /// Element i.
  static int32_t value(uint64_t seed, uint64_t i, int64_t) {
    return int32_t(int64_t(instance_bits(seed, 0x20a2, i) >> 33) - (int64_t(1) << 30));
  }
  /// Element 0 on every other run.
  static int32_t changed(int32_t, int64_t) { return int32_t(1) << 30; }
};

/// The same values as the maximum's; every other run's element 0 is -2^30 - 1, below them all.
template <>
struct InputOf<MinInt32> {
  /// Element i.
  static int32_t value(uint64_t seed, uint64_t i, int64_t n) { return InputOf<MaxInt32>::value(seed, i, n); }
  /// Element 0 on every other run.
  static int32_t changed(int32_t, int64_t) { return -(int32_t(1) << 30) - 1; }
};

/// int32 values in [0, R) with R = N / 16 (at least 2): the largest value appears about 16 times,
/// so the tie rule decides the index. Every other run's element 0 is R, a new maximum.
template <>
struct InputOf<ArgMaxInt32> {
  /// R for an input of n elements.
  static int64_t range(int64_t n) { return std::min<int64_t>(std::max<int64_t>(n / 16, 2), int64_t(1) << 30); }
  /// Element i of an input of n elements.
  static int32_t value(uint64_t seed, uint64_t i, int64_t n) {
    return int32_t(instance_bits(seed, 0x20a3, i) % uint64_t(range(n)));
  }
  /// Element 0 on every other run.
  static int32_t changed(int32_t, int64_t n) { return int32_t(range(n)); }
};

/// Maps with an odd factor a (a unit modulo 2^32, so no product of them vanishes and every x_t
/// depends on every map before it) and any b; every other run's element 0 adds 1000 to b.
template <>
struct InputOf<AffineCompose> {
  /// Element i.
  static AffineMap value(uint64_t seed, uint64_t i, int64_t) {
    const uint64_t bits = instance_bits(seed, 0x20a4, i);
    return {uint32_t(bits) | 1u, uint32_t(bits >> 32)};
  }
  /// Element 0 on every other run.
  static AffineMap changed(AffineMap x0, int64_t) { return {x0.a, x0.b + 1000u}; }
};

/// The workbook's int32 input (nonzero values in [-8, 8]); every other run adds 1000 to element 0.
template <>
struct InputOf<SubtractInt32> {
  /// Element i.
  static int32_t value(uint64_t seed, uint64_t i, int64_t) { return wb::input_value(seed, i); }
  /// Element 0 on every other run.
  static int32_t changed(int32_t x0, int64_t) { return int32_t(uint32_t(x0) + 1000u); }
};

/// One instance's input: the host values (what the references read) and the device copy, with
/// guards on both sides, --offset elements into its allocation.
template <class M>
struct TypedInput {
  using In = typename M::In;  ///< its elements
  int64_t n = 0;              ///< elements
  std::vector<In> host;       ///< the values as made
  wb::DeviceBuffer<In> buffer;  ///< the device copy
  In* d = nullptr;            ///< buffer.get()
  In first[2] = {};           ///< element 0 as made, and as every other run finds it
  int parity = 0;             ///< which of the two the device holds now
};

/// Make M's input of n elements for --seed and --offset, on the host and the device.
template <class M>
void make_typed_input(TypedInput<M>& in, const wb::Options& opt, int64_t n) {
  using In = typename M::In;
  in.n = n;
  in.parity = 0;
  wb::memory_use().n = n;
  in.host.resize(size_t(n));
  In* dst = in.host.data();
  const uint64_t seed = opt.seed;
  wb::parallel_for(n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = InputOf<M>::value(seed, uint64_t(i), n);
  });
  in.first[0] = in.host[0];
  in.first[1] = InputOf<M>::changed(in.host[0], n);
  in.buffer = wb::DeviceBuffer<In>();  // free the last instance's first
  in.buffer = wb::DeviceBuffer<In>(size_t(n), "the input", opt.offset);
  in.d = in.buffer.get();
  WB_CHECK(cudaMemcpy(in.d, in.host.data(), sizeof(In) * size_t(n), cudaMemcpyHostToDevice));
}

// ---------------------------------------------------------------------------------------
// What each run must give

/// The two results one kernel's runs are checked against: for the input as made (0) and with
/// element 0 changed (1). A reduction has one value each; a scan has n, on the host (for the
/// FAIL line) and on the device (where every run is compared), one or more.
template <class M>
struct Expected {
  using T = typename M::T;  ///< a result
  int64_t count = 1;        ///< outputs
  T value[2] = {};          ///< a reduction's results
  const T* host[2] = {};    ///< a scan's outputs (null for a reduction)
  const T* device[2] = {};  ///< their device copies
};

/// The reduction of in[0, s) for both versions of element 0. An associative operator lets the
/// two share the fold of elements 1 to s - 1; the negative control is folded twice, left to right.
template <class M>
Expected<M> expected_reduction(const TypedInput<M>& in, int64_t s) {
  Expected<M> e;
  if (!M::kAssociative || s == 1) {
    std::vector<typename M::In> copy(in.host.begin(), in.host.begin() + s);
    for (int parity = 0; parity < 2; ++parity) {
      copy[0] = in.first[parity];
      e.value[parity] = reduce_on_host<M>(copy.data(), 0, s);
    }
    return e;
  }
  const typename M::T rest = reduce_on_host<M>(in.host.data(), 1, s);
  for (int parity = 0; parity < 2; ++parity) e.value[parity] = M::combine(M::lift(in.first[parity], 0), rest);
  return e;
}

/// Count the indexes i < count where got[i] differs from want[i] (same()) into result[0] and the
/// smallest of them into result[1] (set to all ones first), as wb::count_mismatches does for ints.
template <class T>
__global__ void count_wrong(const T* got, const T* want, int64_t count, unsigned long long* result) {
  unsigned long long wrong = 0, first = ~0ull;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    if (!same(got[i], want[i])) {
      if (wrong == 0) first = (unsigned long long)i;
      ++wrong;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(kFullMask, wrong, offset);
    const unsigned long long other = __shfl_down_sync(kFullMask, first, offset);
    first = other < first ? other : first;
  }
  if (threadIdx.x % kWarp == 0 && wrong > 0) {
    atomicAdd(result, wrong);
    atomicMin(result + 1, first);
  }
}

// ---------------------------------------------------------------------------------------
// Timing and checking results of any type

/// Times, checks and reports the kernels of every instance (wb::Bench's contract, see the file's
/// comment). Each instance brings its own input (TypedInput) and expected results (Expected).
class MonoidBench {
 public:
  /// Print the chapter, device and input lines (human mode) and allocate the L2 flush buffer.
  MonoidBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev)
      : spec_(spec), opt_(opt), dev_(dev), runs_(opt, dev) {
    result_ = wb::DeviceBuffer<unsigned long long>(2, "the result of the output check");
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs, %.0f MiB L2; theoretical peak %.0f GB/s; CUB %s\n", dev.id,
             dev.name.c_str(), dev.major, dev.minor, dev.sms, dev.l2_bytes / 1048576.0, dev.peak_gbps, wb::cub_version);
    wb::note(opt, "input: N = %s, offset %lld, each instance's own (seed %llu); median of %d runs after %d warm-up; %s\n\n",
             wb::describe_n(opt.n).c_str(), (long long)opt.offset, (unsigned long long)opt.seed, opt.reps, opt.warmup,
             opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)");
  }
  MonoidBench(const MonoidBench&) = delete;
  MonoidBench& operator=(const MonoidBench&) = delete;

  /// Time `launch`, which leaves want.count results at `out`, and check every run against
  /// `want` (run r against want's version r % 2, element 0 of `in` set to match). c.bytes must
  /// count what one run moves.
  template <class M>
  wb::Row run(const wb::Case& c, const std::function<void()>& launch, TypedInput<M>& in, typename M::T* out,
              const Expected<M>& want) {
    using T = typename M::T;
    wb::Row r = wb::open_row(spec_, c);
    int wrong = 0;
    const std::vector<float> times = runs_.run(
        c.kernel,
        [&](int run) {
          set_parity(in, run % 2);
          WB_CHECK(cudaMemsetAsync(out, 0xA5, sizeof(T) * size_t(want.count)));  // poison
        },
        launch,
        [&](int, const std::string& when) {
          const std::string why = check_run(want, out, in.parity);
          if (!why.empty() && wrong++ == 0)
            std::fprintf(stderr, "FAIL %s (%s%s): %s\n", c.kernel.c_str(), when.c_str(),
                         in.parity ? ", in[0] changed" : "", why.c_str());
        });
    set_parity(in, 0);  // element 0 as made, for the input check and the next kernel
    if (wrong > 1)
      std::fprintf(stderr, "FAIL %s: %d of %d runs were wrong (the first is shown above)\n", c.kernel.c_str(), wrong,
                   runs_.total());
    r.verified = wrong == 0;
    r.verified &= wb::check_guards(c.kernel);
    // The kernel was given the first c.n elements, compared here as 32-bit words.
    const int64_t words = std::min(c.n, in.n) * int64_t(sizeof(typename M::In)) / 4;
    const wb::Mismatch m = wb::compare_device(reinterpret_cast<const int32_t*>(in.d),
                                              reinterpret_cast<const int32_t*>(in.host.data()), words);
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input: element %lld\n", c.kernel.c_str(),
                   (long long)(m.index * 4 / int64_t(sizeof(typename M::In))));
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

  /// Print the table (or CSV) and return the exit status (wb::finish_status).
  int finish() const { return wb::report_rows(opt_.csv, rows_); }

 private:
  /// Put element 0's version `parity` on the device (ordered before the next launch: both go
  /// to the legacy default stream), if it is not there already.
  template <class M>
  void set_parity(TypedInput<M>& in, int parity) {
    if (in.parity == parity) return;
    WB_CHECK(cudaMemcpy(in.d, &in.first[parity], sizeof(typename M::In), cudaMemcpyHostToDevice));
    in.parity = parity;
  }

  /// "" when the run's outputs at `out` equal want's version `parity`; else what differs.
  template <class M>
  std::string check_run(const Expected<M>& want, const typename M::T* out, int parity) {
    using T = typename M::T;
    if (want.host[parity] == nullptr) {  // a reduction
      T got;
      WB_CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
      return same(got, want.value[parity]) ? "" : "got " + text(got) + ", want " + text(want.value[parity]);
    }
    WB_CHECK(cudaMemset(result_.get(), 0, sizeof(unsigned long long)));
    WB_CHECK(cudaMemset(result_.get() + 1, 0xff, sizeof(unsigned long long)));
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(wb::ceil_div<int64_t>(want.count, 256), int64_t(dev_.sms) * 8));
    count_wrong<T><<<unsigned(blocks), 256>>>(out, want.device[parity], want.count, result_.get());
    WB_CHECK_LAUNCH();
    unsigned long long result[2] = {0, 0};
    WB_CHECK(cudaMemcpy(result, result_.get(), sizeof result, cudaMemcpyDeviceToHost));
    if (result[0] == 0) return "";
    const int64_t index = int64_t(result[1]);
    T got;
    WB_CHECK(cudaMemcpy(&got, out + index, sizeof got, cudaMemcpyDeviceToHost));
    return std::to_string(result[0]) + " of " + std::to_string(want.count) + " elements wrong, the first at index " +
           std::to_string(index) + ": got " + text(got) + ", want " + text(want.host[parity][index]);
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  wb::RunLoop runs_;                             // the L2 flush, the events and the runs
  wb::DeviceBuffer<unsigned long long> result_;  // count_wrong's count and first index
  std::vector<wb::Row> rows_;
};

// ---------------------------------------------------------------------------------------
// --emulate: the algebra and the orders, on the CPU

/// The combination of v[lo, hi) (hi - lo a power of two) as warp_reduce_in_order brackets it:
/// each half the same way, the lower half on the left.
template <class M>
typename M::T tree_on_host(const typename M::T* v, int lo, int hi) {
  if (hi - lo == 1) return v[lo];
  const int mid = (lo + hi) / 2;
  return M::combine(tree_on_host<M>(v, lo, mid), tree_on_host<M>(v, mid, hi));
}

/// block_reduce_warps on the host: slots 0 .. warps - 1 hold the warps' totals, the rest the
/// identity, combined as one warp's lanes.
template <class M>
typename M::T block_on_host(const std::vector<typename M::T>& warp_totals) {
  std::vector<typename M::T> slots(kWarp, M::identity());
  std::copy(warp_totals.begin(), warp_totals.end(), slots.begin());
  return tree_on_host<M>(slots.data(), 0, kWarp);
}

/// One block's threads' values combined as the kernels do: each warp's lanes, then the warps.
template <class M>
typename M::T threads_on_host(const std::vector<typename M::T>& threads) {
  std::vector<typename M::T> warps;
  for (size_t w = 0; w < threads.size(); w += kWarp) warps.push_back(tree_on_host<M>(threads.data() + w, 0, kWarp));
  return block_on_host<M>(warps);
}

/// finish_grid on the host: the blocks' totals as the last block of `block` threads folds them.
template <class M>
typename M::T grid_on_host(const std::vector<typename M::T>& totals, int block) {
  if (totals.size() == 1) return totals[0];
  const size_t per = (totals.size() + size_t(block) - 1) / size_t(block);
  std::vector<typename M::T> threads(size_t(block), M::identity());
  for (size_t t = 0; t < size_t(block); ++t)
    for (size_t b = t * per; b < std::min(totals.size(), t * per + per); ++b)
      threads[t] = b == t * per ? totals[b] : M::combine(threads[t], totals[b]);
  return threads_on_host<M>(threads);
}

/// The result reduce_best_any gives for x[0, n) with `head` elements before the first 16-byte
/// boundary, `block` threads and a wave of `wave` blocks: the kernel's order, replayed.
template <class M>
typename M::T best_order_on_host(const typename M::In* x, int64_t n, int64_t head, int block, int64_t wave) {
  using T = typename M::T;
  constexpr int64_t per = Vector<typename M::In>::kCount;
  head = std::min(head, n);
  const int64_t vectors = (n - head) / per, tail = n - head - per * vectors;
  const int64_t chunks = wb::ceil_div(vectors, kChunk);
  const int64_t tiles = wb::ceil_div(vectors, int64_t(block) * kVectorsPerThread);
  const int64_t blocks = std::max<int64_t>(1, std::min(tiles, wave));
  const Plan plan{blocks, chunks / blocks, chunks % blocks};
  const int64_t tile = int64_t(block) * kVectorsPerThread;
  auto add_vector = [&](T& acc, int64_t v) {
    acc = M::combine(acc, fold_vector<M, int(per)>(x + head + v * per, head + v * per));
  };
  std::vector<T> totals;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first_chunk = b * plan.per + std::min(b, plan.extra);
    const int64_t begin = first_chunk * kChunk;
    const int64_t end = std::min((first_chunk + plan.per + (b < plan.extra ? 1 : 0)) * kChunk, vectors);
    std::vector<T> threads(size_t(block), M::identity());
    for (int64_t t = 0; t < block; ++t) {
      T& acc = threads[size_t(t)];
      if (b == 0 && t < head) acc = M::combine(acc, M::lift(x[t], t));
      if (b == 0 && t < tail) acc = M::combine(acc, M::lift(x[n - tail + t], n - tail + t));
      int64_t v = begin + t, left = end - begin;
      for (; left >= tile; left -= tile, v += tile)
        for (int k = 0; k < kVectorsPerThread; ++k) add_vector(acc, v + k * block);
      for (int k = 0; k < kVectorsPerThread; ++k)
        if (t + k * block < left) add_vector(acc, v + k * block);
    }
    totals.push_back(threads_on_host<M>(threads));
  }
  return grid_on_host<M>(totals, block);
}

/// The result reduce_in_order gives for x[0, n) with `block` threads and a wave of `wave` blocks.
template <class M>
typename M::T in_order_on_host(const typename M::In* x, int64_t n, int block, int64_t wave) {
  using T = typename M::T;
  constexpr int k = in_order_k<typename M::In>();
  const Plan plan = plan_in_order<M>(n, block, wave);
  const int warps_per_block = block / kWarp;
  std::vector<T> totals;
  for (int64_t b = 0; b < plan.blocks; ++b) {
    std::vector<T> warp_totals;
    for (int64_t w = b * warps_per_block; w < (b + 1) * warps_per_block; ++w) {
      const int64_t first_run = w * plan.per + std::min(w, plan.extra);
      const int64_t runs = plan.per + (w < plan.extra ? 1 : 0);
      T warp_total = M::identity();
      for (int64_t r = 0; r < runs; ++r) {
        const int64_t first = (first_run + r) * kWarp * k;
        T lanes[kWarp];
        for (int lane = 0; lane < kWarp; ++lane) {
          auto item = [&](int i) {
            const int64_t at = first + lane * k + i;
            return at < n ? M::lift(x[at], at) : M::identity();
          };
          lanes[lane] = item(0);
          for (int i = 1; i < k; ++i) lanes[lane] = M::combine(lanes[lane], item(i));
        }
        const T run_total = tree_on_host<M>(lanes, 0, kWarp);
        warp_total = r == 0 ? run_total : M::combine(warp_total, run_total);
      }
      warp_totals.push_back(warp_total);
    }
    totals.push_back(block_on_host<M>(warp_totals));
  }
  return grid_on_host<M>(totals, block);
}

/// The blocks a wave has in --emulate: few enough to replay quickly, enough that the grid's
/// combination (finish_grid) runs.
constexpr int64_t kEmulatedWave = 16;
/// Triples of elements on which --emulate tests associativity, and pairs for the rest.
constexpr int kAlgebraSamples = 4096;

/// What --emulate found for one instance.
struct AlgebraFacts {
  bool associative = true;      ///< (a . b) . c = a . (b . c) on every triple tried
  bool left_identity = true;    ///< e . a = a on every element tried
  bool right_identity = true;   ///< a . e = a likewise
  bool commutative = true;      ///< a . b = b . a on every pair tried
  bool best_is_fold = false;    ///< reduce_best_any's order gives the left fold's result
  bool in_order_is_fold = false;  ///< reduce_in_order's does
};

/// The facts of instance M on an input of n elements for `opt` (its seed, block and offset).
template <class M>
AlgebraFacts algebra_of(const wb::Options& opt, int64_t n, std::string& values) {
  using In = typename M::In;
  using T = typename M::T;
  std::vector<In> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = InputOf<M>::value(opt.seed, uint64_t(i), n);
  AlgebraFacts f;
  // Elements at indexes drawn from the seed, each lifted with its own index (distinct indexes
  // for the argmax, whose ties are decided by them).
  auto element = [&](int s, int which) {
    const int64_t i = int64_t(instance_bits(opt.seed, 0x20e0 + uint64_t(which), uint64_t(s)) % uint64_t(n));
    return M::lift(x[size_t(i)], i);
  };
  for (int s = 0; s < kAlgebraSamples; ++s) {
    const T a = element(s, 0), b = element(s, 1), c = element(s, 2);
    f.associative &= same(M::combine(M::combine(a, b), c), M::combine(a, M::combine(b, c)));
    f.left_identity &= same(M::combine(M::identity(), a), a);
    f.right_identity &= same(M::combine(a, M::identity()), a);
    // Equal elements commute with themselves whatever the operator: only distinct ones count.
    if (!same(a, b)) f.commutative &= same(M::combine(a, b), M::combine(b, a));
  }
  // Where the input starts past its 16-byte boundary: --offset elements into an allocation that
  // is 16-byte aligned at the first element (256 bytes of guard before it).
  const int64_t misalign = (opt.offset * int64_t(sizeof(In))) % 16;
  const int64_t head = misalign == 0 ? 0 : (16 - misalign) / int64_t(sizeof(In));
  const T fold = reduce_on_host<M>(x.data(), 0, n);
  const T best = best_order_on_host<M>(x.data(), n, head, opt.block, kEmulatedWave);
  const T ordered = in_order_on_host<M>(x.data(), n, opt.block, kEmulatedWave);
  f.best_is_fold = same(best, fold);
  f.in_order_is_fold = same(ordered, fold);
  values = "left fold " + text(fold) + ", chapter 11's order " + text(best) + ", the input's order " + text(ordered);
  return f;
}
