/// @file sort_check.cuh
/// @brief Chapter 25's harness, which radix_sort.cu includes after its kernels: --input and
/// --values, the keys, the checks of a sorted output, SortBench (wb::Bench for a sort), and how
/// the passes are launched: the kernel for a K, the arrays, the order of the buffers.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

// ---------------------------------------------------------------------------------------
// The command line beyond the shared flags

/// --values, a flag of this harness: sort (key, value) pairs, the value of key i being i.
inline wb::HarnessFlag values_flag() {
  return {"--values", "", 0, 1,
          "  --values      sort pairs: each key carries a 32-bit value, its index in the input, so\n"
          "                that the order of equal keys (stability) is checked; N up to 2^32\n"};
}

/// What the keys look like (--input).
enum class Shape {
  Uniform,     ///< independent uniform 32-bit keys
  Equal,       ///< every key the same value: every digit of every pass is one bucket
  Few,         ///< 16 distinct values in random order
  Sorted,      ///< ascending, evenly spread over the uint32 range (runs of equal keys past 2^32)
  Reversed,    ///< descending: Sorted's keys, each bit flipped
  LowEntropy   ///< the AND of four uniform draws: each bit set with probability 1/16
};

/// The names --input takes, in Shape's order.
constexpr const char* kShapeNames[] = {"uniform", "equal", "few", "sorted", "reversed", "low_entropy"};

/// Take --input NAME out of argv (exit 2 with a message for an unknown name or a missing value).
inline Shape take_input_flag(int& argc, char** argv) {
  return Shape(wb::take_choice_flag(argc, argv, "chapter25", "--input", {std::begin(kShapeNames), std::end(kShapeNames)}));
}

/// The harness's flags in `spec`: --values, and --input (which take_input_flag took out of argv
/// before parsing) with its usage lines.
inline void add_sort_flags(wb::Spec& spec) {
  spec.harness_flags = {values_flag()};
  spec.extra_flags = {"--input"};
  spec.extra_usage =
      "  --input NAME  the keys: uniform, equal (all one value), few (16 distinct values), sorted\n"
      "                (ascending), reversed (descending) or low_entropy (the AND of four uniform\n"
      "                draws) (default uniform)\n";
}

/// What --values changes: N past 2^32 is refused with exit 2 (the values are 32-bit numbers of
/// the keys), and K is `batch` unless --batch says otherwise.
inline void take_values_flag(wb::Options& opt, bool pairs, int batch) {
  if (!pairs) return;
  if (opt.n > (int64_t(1) << 32)) {
    std::fprintf(stderr, "chapter25: --values numbers the keys with 32-bit values: give --n up to 2^32\n");
    std::exit(2);
  }
  if (!opt.batch_given) opt.batch = batch;
}

// ---------------------------------------------------------------------------------------
// The keys

/// Key i of n for a seed and a shape.
inline uint32_t key_value(uint64_t seed, uint64_t i, uint64_t n, Shape shape) {
  auto draw = [&](uint64_t k) { return uint32_t(wb::mix64(wb::mix64(seed + k) + (i + 1) * 0x9e3779b97f4a7c15ULL) >> 32); };
  const uint32_t spread = uint32_t((unsigned __int128)i * (uint64_t(1) << 32) / n);  // i 2^32 / n
  switch (shape) {
    case Shape::Uniform: return draw(0);
    case Shape::Equal: return uint32_t(wb::mix64(seed) >> 32);
    case Shape::Few: return uint32_t(wb::mix64(seed ^ (draw(0) >> 28)) >> 32);  // the top 4 bits pick one of 16
    case Shape::Sorted: return spread;
    case Shape::Reversed: return ~spread;
    case Shape::LowEntropy: return draw(0) & draw(1) & draw(2) & draw(3);
  }
  return 0;
}

/// The keys for --seed, --offset, --n and --input, made on the host (the checks read them there)
/// and copied into a guarded array --offset elements past its leading guard.
inline wb::Input make_keys(const wb::Options& opt, Shape shape) {
  wb::Input in;
  in.n = opt.n;
  wb::memory_use().n = in.n;
  in.host.resize(size_t(in.n));
  int32_t* const keys = in.host.data();
  const uint64_t seed = opt.seed, n = uint64_t(in.n);
  wb::parallel_for(in.n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) keys[i] = int32_t(key_value(seed, uint64_t(i), n, shape));
  });
  in.dev = wb::make_array(opt, in.n, "the keys");
  in.d = in.dev.d;
  WB_CHECK(cudaMemcpy(in.dev.d, in.host.data(), size_t(in.n) * 4, cudaMemcpyHostToDevice));
  return in;
}

// ---------------------------------------------------------------------------------------
// The checks

/// The largest N whose expected output the CPU makes (std::stable_sort) and compares element by
/// element; above it the device checks order and contents (check_sorted).
constexpr int64_t kExactCheckMax = int64_t(1) << 24;

/// Two 64-bit hashes of a key, summed over a multiset of keys: equal sums for the input and the
/// output say they hold the same keys, whatever their order.
WB_HD inline uint64_t key_hash1(uint32_t k) { return wb::mix64(uint64_t(k) + 0x632be59bd9b4e019ULL); }
/// See key_hash1.
WB_HD inline uint64_t key_hash2(uint32_t k) { return wb::mix64(uint64_t(k) * 0x9e3779b97f4a7c15ULL + 1); }

/// What check_sorted finds in an output of n keys (and values).
struct SortFindings {
  unsigned long long descents;      ///< i with key[i] > key[i + 1]
  unsigned long long first_descent; ///< the smallest such i
  unsigned long long hash1;         ///< the output's key_hash1 sum
  unsigned long long hash2;         ///< the output's key_hash2 sum
  unsigned long long wrong_values;  ///< i whose value is no index of key[i] in the input
  unsigned long long first_wrong;   ///< the smallest such i
  unsigned long long unstable;      ///< i with key[i] == key[i + 1] and value[i] >= value[i + 1]
  unsigned long long first_unstable;  ///< the smallest such i
};

/// Check an output of n keys (and, where `vals` is not null, values: indexes into `in`): its
/// descents, the hash sums of its keys, and for pairs that each value names an input key equal
/// to its own and that equal keys keep their values ascending. Sorted, with ascending values per
/// key and each value naming its key, a pair output is a stable sort of the input (the values
/// are then n distinct indexes); a key output needs the hashes besides. `f` starts zeroed, its
/// first_ fields at all ones.
__global__ void check_sorted(const uint32_t* keys, const uint32_t* vals, const uint32_t* in, int64_t n, SortFindings* f) {
  unsigned long long h1 = 0, h2 = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t k = keys[i];
    h1 += key_hash1(k);
    h2 += key_hash2(k);
    const bool has_next = i + 1 < n;
    const uint32_t next = has_next ? keys[i + 1] : k;
    if (has_next && k > next) {
      atomicAdd(&f->descents, 1ull);
      atomicMin(&f->first_descent, (unsigned long long)i);
    }
    if (vals == nullptr) continue;
    const uint32_t v = vals[i];
    if (int64_t(v) >= n || in[v] != k) {
      atomicAdd(&f->wrong_values, 1ull);
      atomicMin(&f->first_wrong, (unsigned long long)i);
    }
    if (has_next && next == k && vals[i + 1] <= v) {
      atomicAdd(&f->unstable, 1ull);
      atomicMin(&f->first_unstable, (unsigned long long)i);
    }
  }
  atomicAdd(&f->hash1, h1);
  atomicAdd(&f->hash2, h2);
}

/// Write `value` into key 0: how SortBench changes it between runs, and back.
__global__ void put_first_key(int32_t* in, int32_t value) { *in = value; }

/// Fill v[0, n) with 0, 1, 2, ...: the values of the pairs, each key's input index.
__global__ void fill_indices(uint32_t* v, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) v[i] = uint32_t(i);
}

// ---------------------------------------------------------------------------------------
// SortBench

/// Where a sort writes: n keys, and n values for pairs (null for keys alone).
struct SortOut {
  uint32_t* keys = nullptr;  ///< the sorted keys
  uint32_t* vals = nullptr;  ///< their values (pairs), or null
};

/// Times, checks and reports the sorts, as wb::Bench does for sums and scans: a first run,
/// warm-up runs and timed runs (L2 flushed before each timed one unless --no-flush), inside NVTX
/// ranges named as wb::Bench names them. Before every run the outputs are poisoned (bytes 0xA5).
/// After it the output must be the input sorted, stably for pairs: up to kExactCheckMax keys
/// compared with std::stable_sort's, element by element, and above it checked on the device
/// (check_sorted). On every odd run key 0 changes in every byte, so that consecutive runs have
/// other digit counts and another output, and a sort that keeps state from the run before fails
/// instead of repeating a right answer. After the runs key 0 is restored, the guards of every
/// device array are checked and so is the input.
class SortBench {
 public:
  /// Prints the device and input lines (human mode). The runs write to `out`.
  SortBench(const wb::Spec& spec, const wb::Options& opt, const wb::Device& dev, wb::Input& in, Shape shape,
            bool pairs, SortOut out)
      : spec_(spec), opt_(opt), dev_(dev), in_(in), shape_(shape), pairs_(pairs), out_(out), runs_(opt, dev) {
    findings_ = wb::DeviceBuffer<SortFindings>(1, "the findings of the output check");
    first_ = uint32_t(in.host[0]);
    flipped_ = first_ ^ 0x5a5a5a5au;  // another value of every byte
    wb::note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    wb::note(opt, "device %d: %s, sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB (%.1f free); theoretical peak %.0f GB/s\n",
             dev.id, dev.name.c_str(), dev.major, dev.minor, dev.sms, dev.l2_bytes / 1048576.0,
             dev.total_bytes / 1073741824.0, dev.free_bytes / 1073741824.0, dev.peak_gbps);
    wb::note(opt, "input: N = %s %s, offset %lld, --input %s; key 0 changed on every other run; %s; %s; median of "
             "%d runs after %d warm-up\n\n",
             wb::describe_n(in.n).c_str(), pairs ? "pairs (uint32 key, its index)" : "uint32 keys",
             (long long)opt.offset, kShapeNames[int(shape)],
             in.n <= kExactCheckMax ? "checked against std::stable_sort" : "checked on the device (order, hashes)",
             opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)", opt.reps, opt.warmup);
  }
  SortBench(const SortBench&) = delete;
  SortBench& operator=(const SortBench&) = delete;

  /// Time `launch`, which must sort keys[0, c.n) (with their values) into the outputs, and check
  /// every run. Everything the algorithm needs belongs inside `launch` and is timed.
  /// @return the row, also kept for finish()
  wb::Row run(const wb::Case& c, const std::function<void()>& launch) {
    wb::Row r = wb::open_row(spec_, c, std::string("input=") + kShapeNames[int(shape_)] + (pairs_ ? " pairs" : " keys") +
                                           (c.config.empty() ? "" : " " + c.config));

    int wrong_runs = 0;
    const std::vector<float> times = runs_.run(
        c.kernel,
        [&](int run) {
          set_parity(run % 2);
          WB_CHECK(cudaMemsetAsync(out_.keys, 0xA5, size_t(c.n) * 4));  // poison
          if (pairs_) WB_CHECK(cudaMemsetAsync(out_.vals, 0xA5, size_t(c.n) * 4));
        },
        launch,
        [&](int, const std::string& when) { check_run(wrong_runs, c.kernel, parity_ ? when + ", key 0 changed" : when, c.n); });
    set_parity(0);  // key 0 as made, for the input check below and the next sort
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
  /// Key i of the input as a run of the current parity finds it.
  uint32_t key_now(int64_t i) const { return i == 0 && parity_ ? flipped_ : uint32_t(in_.host[size_t(i)]); }

  /// The hash sums of the first n keys of the input as made, computed once per n.
  std::pair<uint64_t, uint64_t> hashes_of(int64_t n) {
    auto it = hashes_.find(n);
    if (it != hashes_.end()) return it->second;
    std::vector<std::pair<uint64_t, uint64_t>> part(size_t(wb::worker_count(n)), {0, 0});
    const int32_t* keys = in_.host.data();
    wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
      uint64_t a = 0, c = 0;
      for (int64_t i = b; i < e; ++i) a += key_hash1(uint32_t(keys[i])), c += key_hash2(uint32_t(keys[i]));
      part[size_t(w)] = {a, c};
    });
    std::pair<uint64_t, uint64_t> sum{0, 0};
    for (const auto& p : part) sum.first += p.first, sum.second += p.second;
    return hashes_[n] = sum;
  }

  /// The input indexes of the first n keys in stably sorted order (as a run of the current
  /// parity finds the keys), made once per (n, parity).
  const std::vector<uint32_t>& order_of(int64_t n) {
    const auto key = std::make_pair(n, parity_);
    auto it = orders_.find(key);
    if (it != orders_.end()) return it->second;
    std::vector<uint32_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key_now(a) < key_now(b); });
    return orders_[key] = std::move(order);
  }

  /// Make key 0 what a run of `parity` finds (1: changed), on the device, in the stream the runs
  /// use, only when the last run found it otherwise.
  void set_parity(int parity) {
    if (parity == parity_) return;
    put_first_key<<<1, 1>>>(in_.dev.d, int32_t(parity ? flipped_ : first_));
    WB_CHECK_LAUNCH();
    parity_ = parity;
  }

  /// Check the run just made over n keys. For the first wrong run of a kernel print what is
  /// wrong; count wrong runs in `wrong_runs`.
  void check_run(int& wrong_runs, const std::string& kernel, const std::string& when, int64_t n) {
    std::string what;
    if (n <= kExactCheckMax) {
      what = compare_exact(n);
    } else {
      SortFindings f{};
      f.first_descent = f.first_wrong = f.first_unstable = ~0ull;
      WB_CHECK(cudaMemcpy(findings_.get(), &f, sizeof f, cudaMemcpyHostToDevice));
      const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(wb::ceil_div<int64_t>(n, 256), int64_t(dev_.sms) * 8));
      check_sorted<<<unsigned(blocks), 256>>>(out_.keys, out_.vals, reinterpret_cast<const uint32_t*>(in_.d), n,
                                               findings_.get());
      WB_CHECK_LAUNCH();
      WB_CHECK(cudaMemcpy(&f, findings_.get(), sizeof f, cudaMemcpyDeviceToHost));
      std::pair<uint64_t, uint64_t> h = hashes_of(n);
      if (parity_) {
        h.first += key_hash1(flipped_) - key_hash1(first_);
        h.second += key_hash2(flipped_) - key_hash2(first_);
      }
      char text[256] = "";
      if (f.descents > 0)
        std::snprintf(text, sizeof text, "%llu keys greater than the next, the first at index %llu", f.descents,
                      f.first_descent);
      else if (f.wrong_values > 0)
        std::snprintf(text, sizeof text, "%llu values name no input key equal to theirs, the first at index %llu",
                      f.wrong_values, f.first_wrong);
      else if (f.unstable > 0)
        std::snprintf(text, sizeof text, "%llu equal keys out of input order (not stable), the first at index %llu",
                      f.unstable, f.first_unstable);
      else if (f.hash1 != h.first || f.hash2 != h.second)
        std::snprintf(text, sizeof text, "sorted, but not the input's keys (their hash sums differ)");
      what = text;
    }
    if (what.empty() || ++wrong_runs > 1) return;
    std::fprintf(stderr, "FAIL %s (%s): %s\n", kernel.c_str(), when.c_str(), what.c_str());
  }

  /// Compare the output of a run over n keys with the stable sort on the CPU, element by
  /// element: an empty string when equal, else what the first difference is.
  std::string compare_exact(int64_t n) {
    const std::vector<uint32_t>& order = order_of(n);
    std::vector<uint32_t> keys(static_cast<size_t>(n)), vals(pairs_ ? static_cast<size_t>(n) : 0);
    WB_CHECK(cudaMemcpy(keys.data(), out_.keys, size_t(n) * 4, cudaMemcpyDeviceToHost));
    if (pairs_) WB_CHECK(cudaMemcpy(vals.data(), out_.vals, size_t(n) * 4, cudaMemcpyDeviceToHost));
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t want = key_now(order[size_t(i)]);
      if (keys[size_t(i)] != want || (pairs_ && vals[size_t(i)] != order[size_t(i)])) {
        if (first < 0) first = i;
        ++wrong;
      }
    }
    if (first < 0) return "";
    const size_t f = size_t(first);
    char text[256];
    if (keys[f] != key_now(order[f]))
      std::snprintf(text, sizeof text, "%lld of %lld outputs wrong, the first at index %lld: key %u, want %u",
                    (long long)wrong, (long long)n, (long long)first, keys[f], key_now(order[f]));
    else
      std::snprintf(text, sizeof text,
                    "%lld of %lld outputs wrong, the first at index %lld: value %u, want %u (key %u: equal keys out of "
                    "input order?)",
                    (long long)wrong, (long long)n, (long long)first, vals[f], order[f], keys[f]);
    return text;
  }

  const wb::Spec& spec_;
  const wb::Options& opt_;
  const wb::Device& dev_;
  wb::Input& in_;
  Shape shape_;
  bool pairs_;
  SortOut out_;
  std::map<int64_t, std::pair<uint64_t, uint64_t>> hashes_;             // the input's hash sums per n
  std::map<std::pair<int64_t, int>, std::vector<uint32_t>> orders_;      // stable orders per (n, parity)
  uint32_t first_ = 0, flipped_ = 0;  // key 0 as made, and on odd runs
  int parity_ = 0;                    // 1 while key 0 is changed
  wb::RunLoop runs_;  // the L2 flush, the events and the runs
  wb::DeviceBuffer<SortFindings> findings_;
  std::vector<wb::Row> rows_;
};

// ---------------------------------------------------------------------------------------
// How the passes are launched: the kernels for a K, the arrays, the order of the buffers

constexpr int kHistBlock = 1024;  ///< chapter 24's block for the digit histograms
constexpr int kHistBatch = 4;     ///< and its uint4 loads per thread per round

/// Dynamic shared memory of sort_pass for 2^BITS digits and a tile of block x batch keys.
inline size_t pass_bytes(int bits, int block, int batch, bool pairs = true) {
  const size_t r = size_t(1) << bits;
  return r * 8 * (pairs ? 2 : 1) + size_t(block) * size_t(batch) * 4 + size_t(block / kWarp) * r * 4 + r * 4;
}

/// K for a sort of n keys when --batch is not given: `batch`, halved (not below 4) while the
/// tiles would number fewer than half the SMs, so that a small sort still spreads over the GPU.
/// (On the H200, the sweep from 2^16 to 2^23 at K = 4, 8, 16 and 32 found the best K there.)
inline int small_sort_batch(int64_t n, int block, int batch, int sms) {
  while (batch > 4 && 2 * wb::ceil_div<int64_t>(n, int64_t(block) * batch) < sms) batch /= 2;
  return batch;
}

/// sort_pass for K = batch, keys alone or pairs.
template <int BITS, bool PAIRS, class Carry>
auto pass_kernel(int batch) {
  void (*k)(PassIo, Carry) = nullptr;
  switch (batch) {
    case 1: k = sort_pass<BITS, 1, PAIRS, Carry>; break;
    case 2: k = sort_pass<BITS, 2, PAIRS, Carry>; break;
    case 4: k = sort_pass<BITS, 4, PAIRS, Carry>; break;
    case 8: k = sort_pass<BITS, 8, PAIRS, Carry>; break;
    case 16: k = sort_pass<BITS, 16, PAIRS, Carry>; break;
    case 32: k = sort_pass<BITS, 32, PAIRS, Carry>; break;
    default: std::fprintf(stderr, "internal error: no sort pass for K = %d\n", batch); std::exit(3);
  }
  return k;
}

/// count_tiles for K = batch (the same K as pass_kernel's).
template <int BITS>
auto count_kernel(int batch) {
  void (*k)(PassIo, unsigned long long*, int64_t) = nullptr;
  switch (batch) {
    case 1: k = count_tiles<BITS, 1>; break;
    case 2: k = count_tiles<BITS, 2>; break;
    case 4: k = count_tiles<BITS, 4>; break;
    case 8: k = count_tiles<BITS, 8>; break;
    case 16: k = count_tiles<BITS, 16>; break;
    case 32: k = count_tiles<BITS, 32>; break;
    default: std::fprintf(stderr, "internal error: no count kernel for K = %d\n", batch); std::exit(3);
  }
  return k;
}

/// Every array a sort uses, allocated once for the largest N.
struct Buffers {
  const uint32_t* keys = nullptr;              ///< the input keys
  SortOut out;                                 ///< where the sorted keys (and values) go
  wb::DeviceBuffer<uint32_t> keys_tmp;         ///< the other buffer of the passes
  wb::DeviceBuffer<uint32_t> indices;          ///< pairs: the input values, each key's index
  wb::DeviceBuffer<uint32_t> vals_tmp;         ///< pairs: the values between passes
  wb::DeviceBuffer<unsigned long long> counts;  ///< steps 1 and 2: each tile's digit counts
  wb::DeviceBuffer<unsigned long long> starts;  ///< steps 1 and 2: the counts scanned
  wb::DeviceBuffer<char> scan_temp;            ///< CUB's scan's temporary storage
  size_t scan_bytes = 0;                       ///< its size
  wb::DeviceBuffer<unsigned long long> histograms;  ///< step 3: the four digit histograms
  wb::DeviceBuffer<unsigned long long> bucket;      ///< step 3: where each digit's bucket starts
  wb::DeviceBuffer<unsigned long long> status;      ///< step 3: the tiles' status words
  wb::DeviceBuffer<unsigned> next_tile;        ///< step 3: a tile counter per pass
  wb::DeviceBuffer<unsigned> trivial;          ///< step 4: the passes that move nothing
  bool pairs = false;                          ///< sort values with the keys
  wb::DeviceArray out_keys;                    ///< owns out.keys (guarded, --offset past its guard)
  wb::DeviceBuffer<uint32_t> out_vals;         ///< owns out.vals
};

/// Allocate every array of `b` for the keys `in` (pairs: with the values 0, 1, 2, ... and their
/// buffers), statuses for `tiles` tiles, `scan_entries` tile counts for steps 1 and 2 (0: neither
/// runs).
inline void allocate_buffers(Buffers& b, const wb::Options& opt, const wb::Device& dev, const wb::Input& in, bool pairs,
                             int64_t tiles, int64_t scan_entries) {
  const int64_t n = in.n;
  b.keys = reinterpret_cast<const uint32_t*>(in.d);
  b.pairs = pairs;
  b.out_keys = wb::make_array(opt, n, "the sorted keys");
  b.keys_tmp = wb::DeviceBuffer<uint32_t>(size_t(n), "the keys between passes");
  if (pairs) {
    b.out_vals = wb::DeviceBuffer<uint32_t>(size_t(n), "the sorted values");
    b.indices = wb::DeviceBuffer<uint32_t>(size_t(n), "the values (input indices)");
    b.vals_tmp = wb::DeviceBuffer<uint32_t>(size_t(n), "the values between passes");
    fill_indices<<<unsigned(std::min<int64_t>(wb::ceil_div<int64_t>(n, 256), dev.sms * 16)), 256>>>(b.indices.get(), n);
    WB_CHECK_LAUNCH();
  }
  b.out = {reinterpret_cast<uint32_t*>(b.out_keys.d), pairs ? b.out_vals.get() : nullptr};
  if (scan_entries > 0) {
    b.counts = wb::DeviceBuffer<unsigned long long>(size_t(scan_entries), "the tile counts");
    b.starts = wb::DeviceBuffer<unsigned long long>(size_t(scan_entries), "the scanned tile counts");
    WB_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b.scan_bytes, b.counts.get(), b.starts.get(), scan_entries));
    b.scan_temp = wb::DeviceBuffer<char>(b.scan_bytes, "CUB's scan's temporary storage");
  }
  b.histograms = wb::DeviceBuffer<unsigned long long>(kDigitBins, "the digit histograms");
  b.bucket = wb::DeviceBuffer<unsigned long long>(kDigitBins, "the bucket starts");
  b.status = wb::DeviceBuffer<unsigned long long>(size_t(tiles) * kRadix, "the tile statuses");
  b.next_tile = wb::DeviceBuffer<unsigned>(kPasses, "the tile counters");
  b.trivial = wb::DeviceBuffer<unsigned>(kPasses, "the passes that move nothing");
}

/// Run the passes of `shifts` in order, each reading what the one before wrote, the first the
/// input, and the last writing the output: they alternate between the output and the other
/// buffer, starting where an odd or even count ends in the output. No pass: copy.
void ping_pong(const Buffers& b, int64_t n, const std::vector<int>& shifts,
               const std::function<void(const PassIo&, int)>& pass) {
  const int passes = int(shifts.size());
  if (passes == 0) {
    WB_CHECK(cudaMemcpyAsync(b.out.keys, b.keys, size_t(n) * 4, cudaMemcpyDeviceToDevice));
    if (b.pairs) WB_CHECK(cudaMemcpyAsync(b.out.vals, b.indices.get(), size_t(n) * 4, cudaMemcpyDeviceToDevice));
    return;
  }
  PassIo io{b.keys, nullptr, b.pairs ? b.indices.get() : nullptr, nullptr, n, 0};
  for (int k = 0; k < passes; ++k) {
    const bool last_parity = (passes - 1 - k) % 2 == 0;
    io.keys_out = last_parity ? b.out.keys : b.keys_tmp.get();
    io.vals_out = last_parity ? b.out.vals : b.vals_tmp.get();
    io.shift = shifts[size_t(k)];
    pass(io, k);
    WB_CHECK_LAUNCH();
    io.keys_in = io.keys_out;
    if (b.pairs) io.vals_in = io.vals_out;
  }
}


