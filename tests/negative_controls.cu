// Negative controls for the harness: kernels that are wrong on purpose, run through wb::Bench
// exactly as a chapter runs its kernels. Each --variant breaks one thing the harness claims
// to catch, and tests/negative_tests.cmake checks that the run exits 1 with a line that names
// the failure; the two correct variants must exit 0.
//
//   correct             a right result (exit 0)
//   no_launch           the launch does nothing: the output keeps its poison
//   skip_first          the first element is not added (reduce) or not written (scan)
//   skip_last           the last element is not added or not written
//   write_past_end      a right result, and one int written at out[count]
//   write_before_start  a right result, and one int written at out[-1]
//   read_past_end       in[n] is added to the result (the sum; the last scan element)
//   read_before_start   in[-1] is added to the result (the sum; every scan element)
//   modifies_input      a right result, then in[n - 1] overwritten with 12345
//   wrong_later         right on the first launch; from the second on, a device counter of
//                       launches makes it add 1 to the sum (to every scan element)
//   stale_result        right on the first launch, which keeps its output; every later launch
//                       copies that output back instead of reading the input: the state left
//                       by an earlier run that the harness's change to in[0] between runs exposes
//
// each as reduce_<fault> and scan_<fault>; and no_rows, which runs no kernel at all.

#include "workbook.cuh"

/// Threads per block of the sum.
constexpr int kBlock = 256;

/// What a variant breaks, as indices the kernels take.
struct Fault {
  int64_t skip_first = 0;  ///< 1: leave element 0 out (reduce) or unwritten (scan)
  int64_t skip_last = 0;   ///< 1: leave element n - 1 out or unwritten
  bool read_before = false;  ///< add in[-1] into the result
  bool read_after = false;   ///< add in[n] into the result
  bool wrong_later = false;  ///< add 1 into the result from the second launch on
};

/// Launches so far of a kernel whose Fault has wrong_later: it counts itself, on the device.
__device__ unsigned launches_so_far = 0;

/// 1 from the second launch on (a launch's thread that calls it counts the launch), else 0.
__device__ int later_launch_error() { return atomicAdd(&launches_so_far, 1u) >= 1 ? 1 : 0; }

/// Sum in[lo, hi) into *sum (zeroed by the caller): a grid-stride loop per thread and one
/// atomicAdd per thread. Thread 0 also adds in[-1] and in[n] when the fault says so.
__global__ void sum_kernel(const int* in, int64_t n, int* sum, Fault f) {
  const int64_t lo = f.skip_first, hi = n - f.skip_last;
  int local = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = lo + int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < hi; i += stride) local += in[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    if (f.read_before) local += in[-1];
    if (f.read_after) local += in[n];
    if (f.wrong_later) local += later_launch_error();
  }
  atomicAdd(sum, local);
}

/// Inclusive scan of in[0, n) into out by one thread, in order: slow, and obviously right
/// unless the fault says otherwise.
__global__ void scan_kernel(const int* in, int64_t n, int* out, Fault f) {
  int s = f.read_before ? in[-1] : 0;
  if (f.wrong_later) s += later_launch_error();
  for (int64_t i = 0; i < n; ++i) {
    s += in[i];
    if (i == n - 1 && f.read_after) s += in[n];
    const bool skip = (i == 0 && f.skip_first) || (i == n - 1 && f.skip_last);
    if (!skip) out[i] = s;
  }
}

/// Write `value` at p[index]: one stray store, past the end or before the start.
__global__ void poke(int* p, int64_t index, int value) { p[index] = value; }

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "nc";
  spec.slug = "negative-controls";
  spec.idea = "kernels that are wrong on purpose: the harness must catch each of them";
  spec.op = wb::Op::Reduce;
  const char* faults[] = {"correct",        "no_launch",          "skip_first",    "skip_last",
                          "write_past_end", "write_before_start", "read_past_end", "read_before_start",
                          "modifies_input", "wrong_later",        "stale_result"};
  for (const char* op : {"reduce_", "scan_"})
    for (const char* fault : faults) {
      const std::string name = std::string(op) + fault;
      spec.variants.push_back({name, {name}});  // each variant's one row is named for it
    }
  spec.variants.push_back({"no_rows", {}});

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool scan = opt.variant.rfind("scan_", 0) == 0;
  const std::string fault = opt.variant.substr(opt.variant.find('_') + 1);
  spec.op = scan ? wb::Op::Scan : wb::Op::Reduce;
  if (!opt.n_given) opt.n = 5003;  // the one-thread scan is slow: keep the default small
  wb::Device dev = wb::open_device(opt);
  wb::Input in = wb::make_input(opt);

  Fault f;
  f.skip_first = fault == "skip_first";
  f.skip_last = fault == "skip_last";
  f.read_before = fault == "read_before_start";
  f.read_after = fault == "read_past_end";
  f.wrong_later = fault == "wrong_later";
  const bool launch = fault != "no_launch";
  // The stray write, if any: an index relative to the output's first element.
  const bool stray = fault == "write_past_end" || fault == "write_before_start";
  const bool modifies_input = fault == "modifies_input";
  // stale_result: after the first launch the output is kept here, and every later launch
  // copies it back instead of computing.
  const bool stale = fault == "stale_result";
  bool computed_once = false;
  wb::DeviceBuffer<int> kept(size_t(scan ? in.n : 1), "the output kept from the first launch");
  // Run `compute` (which writes `count` ints at `out`), or under stale_result replay its first output.
  auto compute_or_replay = [&](int* out, int64_t count, const std::function<void()>& compute) {
    const size_t bytes = size_t(count) * sizeof(int);
    if (stale && computed_once) {
      WB_CHECK(cudaMemcpyAsync(out, kept.get(), bytes, cudaMemcpyDeviceToDevice));
      return;
    }
    compute();
    if (modifies_input) poke<<<1, 1>>>(in.dev.d, in.n - 1, 12345);
    if (stale) WB_CHECK(cudaMemcpyAsync(kept.get(), out, bytes, cudaMemcpyDeviceToDevice));
    computed_once = true;
  };

  wb::Bench bench(spec, opt, dev, in);
  if (opt.variant == "no_rows") return bench.finish();
  if (!scan) {
    const int32_t want = wb::cpu_sum(in.host.data(), in.n);
    wb::DeviceBuffer<int> sum(1, "the sum");
    const int64_t blocks = std::min<int64_t>(wb::ceil_div<int64_t>(in.n, kBlock), 1024);
    const int64_t stray_at = fault == "write_past_end" ? 1 : -1;
    wb::Case c{opt.variant, in.n, kBlock, 0, 0, 0};
    bench.run(c,
              [&] {
                if (!launch) return;
                compute_or_replay(sum.get(), 1, [&] {
                  WB_CHECK(cudaMemsetAsync(sum.get(), 0, sizeof(int)));
                  sum_kernel<<<unsigned(blocks), kBlock>>>(in.d, in.n, sum.get(), f);
                  if (stray) poke<<<1, 1>>>(sum.get(), stray_at, 12345);
                });
              },
              sum.get(), &want, 1);
  } else {
    std::vector<int32_t> want(size_t(in.n));
    wb::cpu_scan_inclusive(in.host.data(), want.data(), in.n);
    wb::DeviceArray out = wb::make_array(opt, in.n, "the output");
    const int64_t stray_at = fault == "write_past_end" ? in.n : -1;
    wb::Case c{opt.variant, in.n, 1, 0, 0, 0};
    bench.run(c,
              [&] {
                if (!launch) return;
                compute_or_replay(out.d, in.n, [&] {
                  scan_kernel<<<1, 1>>>(in.d, in.n, out.d, f);
                  if (stray) poke<<<1, 1>>>(out.d, stray_at, 12345);
                });
              },
              out.d, want.data(), in.n);
  }
  return bench.finish();
}
