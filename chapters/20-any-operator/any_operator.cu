/// @file any_operator.cu
/// @brief Chapter 20: does it work for my type and my operator? Chapter 11's reduction and
/// chapter 17's single-pass scan written once over a type and an associative operator with its
/// identity (a monoid), each instance beside CUB and checked exactly against the CPU.
///
/// The idea: nothing in a reduction or a scan needs `+` on int32. A reduction needs an operator
/// that is associative, so that the work can be cut into pieces combined in any bracketing, and
/// an identity, to pad a partial tile. Which pieces may be combined in which order is the
/// kernel's choice, and that choice decides what else the operator needs: chapter 11's kernel
/// mixes elements far apart in each thread, so it needs the operator to commute as well; a
/// kernel that keeps every combination in the input's order needs only associativity. A scan
/// must keep the order anyway. The instances (`--variant`):
/// - `sum_int64`: int64 values whose total passes 2^32, beside cub::DeviceReduce::Sum;
/// - `max`, `min`: int32, beside cub::DeviceReduce::Max and Min;
/// - `argmax`: the largest int32 and the first index that holds it, beside
///   cub::DeviceReduce::ArgMax, which has the same tie rule;
/// - `affine`: the maps x -> a x + b modulo 2^32 composed in order (not commutative): the
///   inclusive scan gives every x_t of x_t = a_t x_(t-1) + b_t, beside cub::DeviceScan::
///   InclusiveScan with the same functor; and their reduction in the input's order.
/// Two negative controls, not part of `all`: `not_commutative` runs the affine maps through
/// chapter 11's order (wrong: the maps do not commute) and `not_associative` runs subtraction
/// through the input's order (wrong: it is not associative). Each must exit 1 with a FAIL line.
///
/// Since chapters 11 and 17: the kernels take a monoid M (monoids.cuh) instead of int and `+`
/// (any_reduce.cuh, any_scan.cuh); chapter 11's blocks meet through an array folded by the last
/// block instead of an atomicAdd, which no general operator has; chapter 17's status word, a flag
/// and a 4-byte value in 64 bits, becomes a flag word and two 8-byte value slots, ordered by
/// release and acquire. The harness (any_check.cuh) checks results of any type.

#include <cub/cub.cuh>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "workbook.cuh"
#include "monoids.cuh"
#include "any_reduce.cuh"
#include "any_scan.cuh"
#include "any_check.cuh"

constexpr int64_t kSweepFrom = int64_t(1) << 8;       ///< the smallest N of `--variant sweep`
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;  ///< its largest N when --n is not given
/// The smallest N --emulate accepts: below it some kernels' orders cannot differ from the input's.
constexpr int64_t kEmulateMinN = int64_t(1) << 12;

/// The functor CUB's scan is given for the affine maps: the same composition, `earlier` first.
struct ComposeMaps {
  /// `later` applied after `earlier`.
  __host__ __device__ AffineMap operator()(AffineMap earlier, AffineMap later) const {
    return AffineCompose::combine(earlier, later);
  }
};

// [cub]
/// The CUB call an instance is set against; with `temp` null it only sets `temp_bytes`.
template <class M>
cudaError_t cub_call(void* temp, size_t& temp_bytes, const typename M::In* in, typename M::T* out, int64_t n);

/// cub::DeviceReduce::Sum on int64.
template <>
cudaError_t cub_call<SumInt64>(void* temp, size_t& temp_bytes, const int64_t* in, int64_t* out, int64_t n) {
  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n);
}

/// cub::DeviceReduce::Max on int32.
template <>
cudaError_t cub_call<MaxInt32>(void* temp, size_t& temp_bytes, const int32_t* in, int32_t* out, int64_t n) {
  return cub::DeviceReduce::Max(temp, temp_bytes, in, out, n);
}

/// cub::DeviceReduce::Min on int32.
template <>
cudaError_t cub_call<MinInt32>(void* temp, size_t& temp_bytes, const int32_t* in, int32_t* out, int64_t n) {
  return cub::DeviceReduce::Min(temp, temp_bytes, in, out, n);
}

/// cub::DeviceReduce::ArgMax on int32: the value and the (64-bit) index go to the pair's fields.
template <>
cudaError_t cub_call<ArgMaxInt32>(void* temp, size_t& temp_bytes, const int32_t* in, ArgMaxPair* out, int64_t n) {
  return cub::DeviceReduce::ArgMax(temp, temp_bytes, in, &out->value, &out->index, n);
}

/// cub::DeviceScan::InclusiveScan with the composition of maps: a 32-bit count where N allows
/// (CUB's fastest path, as chapter 17 gives it), a 64-bit one beyond.
template <>
cudaError_t cub_call<AffineCompose>(void* temp, size_t& temp_bytes, const AffineMap* in, AffineMap* out, int64_t n) {
  if (n <= INT32_MAX) return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, ComposeMaps{}, int(n));
  return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, ComposeMaps{}, n);
}
// [cub]

/// Whether CUB has a call for instance M (every instance but the negative control).
template <class M> constexpr bool kHasCub = !std::is_same_v<M, SubtractInt32>;
/// Whether instance M is scanned (the affine maps: a scan needs its values in 8 bytes or less,
/// and the recurrence is the one the chapter solves).
template <class M> constexpr bool kHasScan = std::is_same_v<M, AffineCompose>;

/// The rows of one instance, by their CSV names; nullptr where the instance has no such row.
struct InstanceRows {
  const char* variant;   ///< its --variant
  const char* cub;       ///< CUB's call
  const char* scan;      ///< the wide single pass (the affine maps only)
  const char* best;      ///< chapter 11's order (instances whose operator commutes)
  const char* in_order;  ///< the input's order
};

/// The rows of instance M.
template <class M>
InstanceRows rows_of();
/// See rows_of().
template <>
InstanceRows rows_of<SumInt64>() {
  return {"sum_int64", "cub_reduce_sum_int64", nullptr, "reduce_best_sum_int64", "reduce_in_order_sum_int64"};
}
/// See rows_of().
template <>
InstanceRows rows_of<MaxInt32>() {
  return {"max", "cub_reduce_max_int32", nullptr, "reduce_best_max_int32", "reduce_in_order_max_int32"};
}
/// See rows_of().
template <>
InstanceRows rows_of<MinInt32>() {
  return {"min", "cub_reduce_min_int32", nullptr, "reduce_best_min_int32", "reduce_in_order_min_int32"};
}
/// See rows_of().
template <>
InstanceRows rows_of<ArgMaxInt32>() {
  return {"argmax", "cub_reduce_argmax_int32", nullptr, "reduce_best_argmax_int32", "reduce_in_order_argmax_int32"};
}
/// See rows_of().
template <>
InstanceRows rows_of<AffineCompose>() {
  return {"affine", "cub_scan_affine", "scan_single_pass_affine", nullptr, "reduce_in_order_affine"};
}

/// The row of the negative control `not_commutative`: the affine maps in chapter 11's order.
const char* const kNotCommutativeRow = "reduce_best_affine";
/// The row of the negative control `not_associative`: subtraction in the input's order.
const char* const kNotAssociativeRow = "reduce_in_order_subtract_int32";

/// One instance's rows in the order it reports them.
std::vector<std::string> row_list(const InstanceRows& r) {
  std::vector<std::string> rows;
  for (const char* name : {r.cub, r.scan, r.best, r.in_order})
    if (name) rows.push_back(name);
  return rows;
}

/// Every instance's rows, in the order the chapter runs them.
std::vector<InstanceRows> instance_rows() {
  return {rows_of<SumInt64>(), rows_of<MaxInt32>(), rows_of<MinInt32>(), rows_of<ArgMaxInt32>(),
          rows_of<AffineCompose>()};
}

/// The chapter's variants: `all` (every instance), each instance, `sweep`, then the two
/// negative controls.
std::vector<wb::VariantSpec> chapter_variants() {
  std::vector<wb::VariantSpec> v;
  for (const InstanceRows& r : instance_rows()) v.push_back({r.variant, row_list(r)});
  const wb::VariantSpec all = wb::every_variant(v);
  v.insert(v.begin(), all);
  v.push_back(wb::every_variant({all}, "sweep"));
  v.push_back({"not_commutative", {kNotCommutativeRow}});
  v.push_back({"not_associative", {kNotAssociativeRow}});
  return v;
}

/// Each row and CUB's call that computes the same (its instance's): the results compare the two.
/// The input's order of the affine maps reduces them, which CUB is not asked to here.
std::vector<std::pair<std::string, std::string>> cub_pairs() {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const InstanceRows& r : instance_rows()) {
    const char* const ours[] = {r.scan, r.scan ? nullptr : r.best, r.scan ? nullptr : r.in_order};
    for (const char* name : ours)
      if (name) pairs.emplace_back(name, r.cub);
  }
  return pairs;
}

/// The sizes to run: N alone, or for the sweep every power of two from 2^8 below N, then N.
std::vector<int64_t> sizes_to_run(int64_t n, bool sweep) {
  std::vector<int64_t> sizes;
  if (sweep) {
    for (int64_t s = kSweepFrom; s < n; s *= 2) sizes.push_back(s);
  }
  sizes.push_back(n);
  return sizes;
}


/// "grid=G": the blocks a reduction launched.
std::string grid_config(int64_t blocks) { return "grid=" + std::to_string(blocks); }

/// The bytes one reduction of n elements moves: each input element read once, one result written.
template <class M>
double reduction_bytes(int64_t n) {
  return double(n) * sizeof(typename M::In) + sizeof(typename M::T);
}

/// CUB's temporary storage for instance M at every size, allocated once (none if not wanted).
template <class M>
struct CubScratch {
  size_t bytes = 0;             ///< what the largest size asks for
  wb::DeviceBuffer<char> temp;  ///< that many bytes

  /// Size it for in[0, s) into `out` at every s of `sizes`.
  CubScratch(bool wanted, const typename M::In* in, typename M::T* out, const std::vector<int64_t>& sizes) {
    if constexpr (kHasCub<M>) {
      for (const int64_t s : wanted ? sizes : std::vector<int64_t>{}) {
        size_t need = 0;
        WB_CHECK(cub_call<M>(nullptr, need, in, out, s));
        bytes = std::max(bytes, need);
      }
    }
    temp = wb::DeviceBuffer<char>(bytes, "CUB's temporary storage");
  }

  /// CUB's call on in[0, s) into `out`.
  void call(const typename M::In* in, typename M::T* out, int64_t s) {
    if constexpr (kHasCub<M>) WB_CHECK(cub_call<M>(temp.get(), bytes, in, out, s));
  }
};

/// The scan rows of instance M at each of `sizes` (the last is N): CUB's, then the wide single
/// pass. The expected outputs are made once, for N and both versions of element 0: a prefix of
/// them is what a smaller size must give.
template <class M>
void run_scan_rows(MonoidBench& bench, const wb::Options& opt, const wb::Device& dev, const std::vector<int64_t>& sizes,
                   const InstanceRows& names, TypedInput<M>& in) {
  using In = typename M::In;
  using T = typename M::T;
  const int64_t n = sizes.back();
  scan17::stress_begin(opt);  // the stress build's delays and counts (chapter 17's); else nothing
  WideSinglePass pass(scan17::tiles_for(n, opt.block, scan_k<In>(kSmallScanBytes)));
  wb::DeviceBuffer<T> out(size_t(n), "the scan's output");
  std::vector<T> host[2];
  wb::DeviceBuffer<T> device[2];
  for (int parity = 0; parity < 2; ++parity) {
    host[parity].resize(size_t(n));
    in.host[0] = in.first[parity];
    scan_on_host<M>(in.host.data(), host[parity].data(), n);
    device[parity] = wb::DeviceBuffer<T>(size_t(n), "the device copy of the expected output");
    WB_CHECK(cudaMemcpy(device[parity].get(), host[parity].data(), sizeof(T) * size_t(n), cudaMemcpyHostToDevice));
  }
  in.host[0] = in.first[0];
  CubScratch<M> cub_scratch(names.cub != nullptr, in.d, out.get(), sizes);
  for (const int64_t s : sizes) {
    Expected<M> want;
    want.count = s;
    for (int parity = 0; parity < 2; ++parity) {
      want.host[parity] = host[parity].data();
      want.device[parity] = device[parity].get();
    }
    const double bytes = double(s) * double(sizeof(In) + sizeof(T));
    wb::Row cub;
    if (names.cub)
      cub = bench.run<M>({names.cub, s, 0, 0, bytes, 0, ""}, [&] { cub_scratch.call(in.d, out.get(), s); }, in,
                         out.get(), want);
    const scan17::ScanPolicy p = choose_wide_policy<M>(opt.block_given ? opt.block : default_wide_block<M>(s), dev, s);
    const WideScanKernel<M> kernel = wide_scan_kernel<M>(p.batch, p.block);
    const wb::Row r = bench.run<M>(
        {names.scan, s, p.block, p.batch, bytes, wb::blocks_per_sm(kernel, p.block, wide_stage_bytes<M>(p.block, p.batch)),
         p.describe() + " slots=2x8B"},
        [&] { pass.launch<M>(p, kernel, in.d, s, out.get()); }, in, out.get(), want);
    if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
  }
  scan17::stress_report(opt);
}

/// The reduction rows of instance M at each of `sizes`: CUB's (where `names` has one and the
/// instance is not scanned), chapter 11's order, the input's order (where `names` has them).
template <class M>
void run_reduction_rows(MonoidBench& bench, const wb::Options& opt, const wb::Device& dev,
                        const std::vector<int64_t>& sizes, const InstanceRows& names, bool with_cub,
                        TypedInput<M>& in) {
  using T = typename M::T;
  Reductions<M> reduce(dev, opt.block);
  wb::DeviceBuffer<T> result(1, "the result");
  CubScratch<M> cub_scratch(with_cub, in.d, result.get(), sizes);
  for (const int64_t s : sizes) {
    const Expected<M> want = expected_reduction(in, s);
    wb::Row cub;
    if (with_cub)
      cub = bench.run<M>({names.cub, s, 0, 0, reduction_bytes<M>(s), 0, ""},
                         [&] { cub_scratch.call(in.d, result.get(), s); }, in, result.get(), want);
    if (names.best) {
      const Plan p = plan_best<M>(in.d, s, opt.block, reduce.best_wave);
      const wb::Row r = bench.run<M>({names.best, s, opt.block, kVectorsPerThread, reduction_bytes<M>(s),
                                      reduce.best_occupancy(), grid_config(p.blocks) + " order=chapter11"},
                                     [&] { reduce.best(in.d, s, result.get()); }, in, result.get(), want);
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
    if (names.in_order) {
      const Plan p = plan_in_order<M>(s, opt.block, reduce.in_order_wave);
      const wb::Row r = bench.run<M>({names.in_order, s, opt.block, Reductions<M>::kInOrderK, reduction_bytes<M>(s),
                                      reduce.in_order_occupancy(), grid_config(p.blocks) + " order=input"},
                                     [&] { reduce.in_order(in.d, s, result.get()); }, in, result.get(), want);
      if (cub.median_ms > 0) bench.annotate_last(wb::versus_cub(cub, r));
    }
  }
}

/// Run instance M's rows named in `names` at each of `sizes` (the last is N) on one input made
/// for N: the scan's first where M is scanned (CUB's call is then the scan's), then the
/// reductions'.
template <class M>
void run_instance(MonoidBench& bench, const wb::Options& opt, const wb::Device& dev, const std::vector<int64_t>& sizes,
                  const InstanceRows& names) {
  TypedInput<M> in;
  make_typed_input(in, opt, sizes.back());
  if constexpr (kHasScan<M>) {
    if (names.scan) run_scan_rows<M>(bench, opt, dev, sizes, names, in);
  }
  if (names.best || names.in_order || (names.cub && !names.scan))
    run_reduction_rows<M>(bench, opt, dev, sizes, names, names.cub != nullptr && names.scan == nullptr, in);
}

/// What one instance takes of device memory per element: its input, and for the scan its
/// output and the two expected outputs (the harness adds its own, wb::fit_default_n).
template <class M>
double bytes_per_element(bool scan) {
  return double(sizeof(typename M::In)) + (scan ? 3.0 * sizeof(typename M::T) : 0.0);
}

/// --emulate: the operators' algebra and the two reductions' orders on the CPU (no GPU), for
/// every instance and the control; exit 1 where a fact is not what the page says.
int emulate(const wb::Options& opt) {
  const int64_t n = opt.n_given ? opt.n : int64_t(1) << 16;
  if (n < kEmulateMinN) {
    std::fprintf(stderr, "chapter20: --emulate needs --n of at least %lld\n", (long long)kEmulateMinN);
    return 2;
  }
  std::printf("emulate: N = %s, block %d, offset %lld, a wave of %lld blocks; the kernels' orders replayed on the CPU\n",
              wb::describe_n(n).c_str(), opt.block, (long long)opt.offset, (long long)kEmulatedWave);
  int failures = 0;
  auto one = [&](const char* name, const AlgebraFacts& f, const std::string& values, bool associative,
                 bool commutative) {
    auto yes = [](bool b) { return b ? "yes" : "no"; };
    std::printf("%s: associative %s, identity %s, commutative %s; chapter 11's order gives the left fold: %s; "
                "the input's order: %s (%s)\n",
                name, yes(f.associative), f.left_identity ? "on both sides" : f.right_identity ? "on the right only" : "no",
                yes(f.commutative), yes(f.best_is_fold), yes(f.in_order_is_fold), values.c_str());
    const struct {
      const char* what;
      bool found, expected;
    } facts[] = {{"associative", f.associative, associative},
                 {"commutative", f.commutative, commutative},
                 {"an identity on the left", f.left_identity, associative},  // every monoid; not the control
                 {"an identity on the right", f.right_identity, true},
                 {"chapter 11's order gives the left fold", f.best_is_fold, associative && commutative},
                 {"the input's order gives the left fold", f.in_order_is_fold, associative}};
    for (const auto& fact : facts) {
      if (fact.found == fact.expected) continue;
      std::printf("FAIL %s: %s is %s, the page says %s\n", name, fact.what, yes(fact.found), yes(fact.expected));
      ++failures;
    }
  };
  std::string values;
  AlgebraFacts f = algebra_of<SumInt64>(opt, n, values);
  one("sum_int64", f, values, SumInt64::kAssociative, SumInt64::kCommutative);
  f = algebra_of<MaxInt32>(opt, n, values);
  one("max_int32", f, values, MaxInt32::kAssociative, MaxInt32::kCommutative);
  f = algebra_of<MinInt32>(opt, n, values);
  one("min_int32", f, values, MinInt32::kAssociative, MinInt32::kCommutative);
  f = algebra_of<ArgMaxInt32>(opt, n, values);
  one("argmax_int32", f, values, ArgMaxInt32::kAssociative, ArgMaxInt32::kCommutative);
  f = algebra_of<AffineCompose>(opt, n, values);
  one("affine", f, values, AffineCompose::kAssociative, AffineCompose::kCommutative);
  f = algebra_of<SubtractInt32>(opt, n, values);
  one("subtract_int32", f, values, SubtractInt32::kAssociative, SubtractInt32::kCommutative);
  if (failures) {
    std::printf("FAILED: %d fact(s) differ from the page\n", failures);
    return 1;
  }
  std::printf("emulate: every operator's algebra and both orders are as the page says\n");
  return 0;
}

/// Take --emulate out of argv (exit 2 if it is given a value).
bool take_emulate(int& argc, char** argv) {
  bool found = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--emulate=", 0) == 0) {
      std::fprintf(stderr, "chapter20: --emulate takes no value\n");
      std::exit(2);
    }
    if (arg == "--emulate") found = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  return found;
}

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "20";
  spec.slug = "any-operator";
  spec.idea = "any type, any associative operator: chapter 11's reduction and chapter 17's single pass over a "
              "monoid (int64 sum, max, min, argmax, affine maps), each beside CUB";
  spec.op = wb::Op::Reduce;
  spec.bytes = "each input element read once (8 bytes of int64, 4 of int32) plus the result; the affine scan "
               "each 8-byte map read and its 8-byte prefix written (16 bytes)";
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, kMaxBlock};
  spec.variants = chapter_variants();
  spec.copy_kernels = {"cub_scan_affine", "scan_single_pass_affine"};
  spec.cub_pairs = cub_pairs();
  spec.extra_flags = {"--emulate"};
  spec.extra_usage =
      "  --emulate     no GPU: test each operator's algebra (associative, identity, commutative) and\n"
      "                replay both reductions' orders on the CPU for --n (default 2^16), exit 1 where\n"
      "                a fact is not what the page says\n";

  const bool emulating = take_emulate(argc, argv);
  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  if (emulating) return emulate(opt);
  const bool sweep = opt.variant == "sweep";
  const bool all = opt.variant == "all" || sweep;
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  const wb::Device dev = wb::open_device(opt);
  // The largest tile any kernel stages: the scan's (8-byte elements) or the in-order reduction's.
  wb::fit_shared_memory(opt, dev, [](int block, int) {
    return std::max(wide_stage_bytes<AffineCompose>(block, scan_k<AffineMap>(kScanBytes)),
                    in_order_stage_bytes<int64_t>(block));
  });
  const bool with_scan = all || opt.variant == "affine";
  wb::fit_default_n(opt, dev, with_scan ? bytes_per_element<AffineCompose>(true) : bytes_per_element<SumInt64>(false));
  const std::vector<int64_t> sizes = sizes_to_run(opt.n, sweep);

  MonoidBench bench(spec, opt, dev);
  if (all || opt.variant == "sum_int64") run_instance<SumInt64>(bench, opt, dev, sizes, rows_of<SumInt64>());
  if (all || opt.variant == "max") run_instance<MaxInt32>(bench, opt, dev, sizes, rows_of<MaxInt32>());
  if (all || opt.variant == "min") run_instance<MinInt32>(bench, opt, dev, sizes, rows_of<MinInt32>());
  if (all || opt.variant == "argmax") run_instance<ArgMaxInt32>(bench, opt, dev, sizes, rows_of<ArgMaxInt32>());
  if (with_scan) run_instance<AffineCompose>(bench, opt, dev, sizes, rows_of<AffineCompose>());
  if (opt.variant == "not_commutative") {
    const InstanceRows names{"not_commutative", nullptr, nullptr, kNotCommutativeRow, nullptr};
    run_instance<AffineCompose>(bench, opt, dev, sizes, names);
  }
  if (opt.variant == "not_associative") {
    const InstanceRows names{"not_associative", nullptr, nullptr, nullptr, kNotAssociativeRow};
    run_instance<SubtractInt32>(bench, opt, dev, sizes, names);
  }
  return bench.finish();
}
