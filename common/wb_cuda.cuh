/// @file wb_cuda.cuh
/// @brief The CUDA half of the harness: error checks, the device, buffers, the L2 flush
/// and wb::Bench, which times, verifies and reports every kernel a chapter runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "wb_options.h"
#include "wb_reference.h"
#include "wb_report.h"

namespace wb {

/// Exit 3 with the failing call, file and line when a CUDA runtime call did not succeed.
inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n  in: %s\n", file, line, cudaGetErrorString(e),
               cudaGetErrorName(e), call);
  std::exit(3);
}

/// Check a CUDA runtime call; on failure print where and exit 3.
#define WB_CHECK(call) ::wb::check((call), #call, __FILE__, __LINE__)

/// Check the launch just made (bad configuration, too many resources) and exit 3 on error.
#define WB_CHECK_LAUNCH() ::wb::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/// Integer division rounded up.
template <class T>
__host__ __device__ constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

/// Facts about the device a chapter runs on.
struct Device {
  int id = 0;                 ///< CUDA ordinal
  std::string name;           ///< e.g. "NVIDIA H200"
  int major = 0;              ///< compute capability, major
  int minor = 0;              ///< compute capability, minor
  int sms = 0;                ///< multiprocessors
  int max_threads_per_sm = 0; ///< resident threads per multiprocessor
  int64_t l2_bytes = 0;       ///< L2 cache size
  int memory_clock_khz = 0;   ///< memory clock from cudaDevAttrMemoryClockRate
  int bus_width_bits = 0;     ///< memory bus width from cudaDevAttrGlobalMemoryBusWidth
  size_t max_smem_per_block = 0;  ///< shared memory one block may use after opting in
  double peak_gbps = 0;       ///< theoretical peak: 2 (double data rate) x clock x bus width
  size_t free_bytes = 0;      ///< free device memory when the chapter started
  size_t total_bytes = 0;     ///< all device memory
};

/// Print a note: to stdout in human mode, to stderr with --csv (stdout then holds CSV only).
inline void note(const Options& opt, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vfprintf(opt.csv ? stderr : stdout, fmt, args);
  va_end(args);
}

/// Open the device named by --device and read its facts.
/// No usable device (no driver, no GPU, CUDA_VISIBLE_DEVICES empty) exits 77;
/// an ordinal past the last device exits 2.
inline Device open_device(const Options& opt) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no usable CUDA device (%s); nothing to run, exiting 77\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none");
    std::exit(77);
  }
  if (opt.device >= count) {
    std::fprintf(stderr, "--device %d is not allowed: this machine has devices 0 to %d\n", opt.device, count - 1);
    std::exit(2);
  }
  Device d;
  d.id = opt.device;
  WB_CHECK(cudaSetDevice(d.id));
  cudaDeviceProp p;
  WB_CHECK(cudaGetDeviceProperties(&p, d.id));
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sms = p.multiProcessorCount;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.l2_bytes = p.l2CacheSize;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  WB_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, d.id));
  WB_CHECK(cudaDeviceGetAttribute(&d.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, d.id));
  d.peak_gbps = 2.0 * d.memory_clock_khz * 1e3 * (d.bus_width_bits / 8.0) / 1e9;
  int smem_optin = 0;
  WB_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d.id));
  d.max_smem_per_block = size_t(smem_optin);
  WB_CHECK(cudaMemGetInfo(&d.free_bytes, &d.total_bytes));
  return d;
}

/// cudaMalloc that, when memory runs out, says what was asked and what is free, then exits 3.
inline void* device_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    std::fprintf(stderr, "out of device memory allocating %s: asked for %.2f GiB, %.2f GiB free of %.2f GiB\n",
                 what, bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0);
    std::exit(3);
  }
  WB_CHECK(e);
  return p;
}

/// An owned device allocation of `count` elements of T.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocate count elements; `what` names the buffer in an out-of-memory message.
  DeviceBuffer(size_t count, const char* what)
      : ptr_(static_cast<T*>(device_alloc(count * sizeof(T), what))), count_(count) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Take over another buffer's allocation.
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  /// Swap allocations with another buffer (its destructor frees ours).
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  T* get() const { return ptr_; }          ///< the device pointer
  size_t size() const { return count_; }   ///< elements allocated

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

/// Lower the default N (2^30) until `bytes_per_element` x N plus `extra_bytes` and the L2
/// flush buffer fit in free device memory, and say so. An N given with --n is left as it
/// is: if it does not fit, the allocation reports how much was asked and how much is free.
inline void fit_default_n(Options& opt, const Device& dev, double bytes_per_element, double extra_bytes = 0) {
  if (opt.n_given) return;
  const double reserve = 2.0 * dev.l2_bytes + extra_bytes + (256 << 20);
  const int64_t wanted = opt.n;
  while (opt.n > 1024 && opt.n * bytes_per_element + reserve > 0.9 * dev.free_bytes) opt.n /= 2;
  if (opt.n != wanted)
    note(opt, "note: default N lowered from %s to %s to fit %.1f GiB of free device memory\n",
         describe_n(wanted).c_str(), describe_n(opt.n).c_str(), dev.free_bytes / 1073741824.0);
}

/// Make the chapter's tile fit the device's shared memory per block (see wb::fit_tile):
/// lower default --block/--batch values with a note, or refuse given ones with exit 2.
/// `bytes` gives the dynamic shared memory; 1 KB is kept for the kernels' static arrays.
template <class Bytes>
inline void fit_shared_memory(Options& opt, const Device& dev, Bytes bytes) {
  std::string message;
  if (!fit_tile(opt, dev.max_smem_per_block - 1024, bytes, message)) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::exit(2);
  }
  if (!message.empty()) note(opt, "%s\n", message.c_str());
}

/// An int32 array on the device that starts `offset` elements past its allocation.
struct DeviceArray {
  DeviceBuffer<int32_t> storage;  ///< offset + n elements
  int32_t* d = nullptr;           ///< storage + offset: what kernels see
  int64_t n = 0;                  ///< elements from d on
};

/// Allocate an array of n elements placed --offset elements into its allocation, so that
/// kernels meet inputs and outputs that are not 16-byte aligned when offset % 4 != 0.
inline DeviceArray make_array(const Options& opt, int64_t n, const char* what) {
  DeviceArray a;
  a.storage = DeviceBuffer<int32_t>(size_t(opt.offset + n), what);
  a.d = a.storage.get() + opt.offset;
  a.n = n;
  return a;
}

/// The input: its host copy (the CPU reference reads it) and its device copy.
struct Input {
  std::vector<int32_t> host;  ///< the n input values
  DeviceArray dev;            ///< the same values on the device, --offset into the allocation
  const int32_t* d = nullptr; ///< dev.d, read-only
  int64_t n = 0;              ///< elements
};

/// A value no input element takes; placed before the input so a kernel that reads before
/// its start gets a visibly wrong answer rather than a lucky one.
constexpr int32_t kGuard = 1 << 24;

/// Make the input for --seed and --offset with n elements (opt.n unless given).
inline Input make_input(const Options& opt, int64_t n = -1) {
  Input in;
  in.n = n < 0 ? opt.n : n;
  in.host.resize(size_t(in.n));
  fill_input(in.host.data(), in.n, opt.seed);
  in.dev = make_array(opt, in.n, "the input");
  in.d = in.dev.d;
  if (opt.offset > 0) {
    std::vector<int32_t> guard(size_t(opt.offset), kGuard);
    WB_CHECK(cudaMemcpy(in.dev.storage.get(), guard.data(), guard.size() * 4, cudaMemcpyHostToDevice));
  }
  WB_CHECK(cudaMemcpy(in.dev.d, in.host.data(), size_t(in.n) * 4, cudaMemcpyHostToDevice));
  return in;
}

/// Resident blocks per SM for a kernel at a block size (the occupancy API).
template <class Kernel>
int blocks_per_sm(Kernel kernel, int block, size_t dynamic_smem = 0) {
  int blocks = 0;
  WB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dynamic_smem));
  return blocks;
}

/// Compare count device values with host values in chunks, without a second full-size host copy.
inline Mismatch compare_device(const int32_t* d, const int32_t* want, int64_t count) {
  const int64_t chunk = int64_t(1) << 24;
  std::vector<int32_t> got(size_t(std::min(count, chunk)));
  for (int64_t at = 0; at < count; at += chunk) {
    int64_t len = std::min(chunk, count - at);
    WB_CHECK(cudaMemcpy(got.data(), d + at, size_t(len) * 4, cudaMemcpyDeviceToHost));
    Mismatch m = first_mismatch(got.data(), want + at, len);
    if (m.index >= 0) {
      m.index += at;
      return m;
    }
  }
  return Mismatch{};
}

/// Outputs up to this many elements are verified after every timed run, not only the first and last.
constexpr int64_t kCheckEachRunMax = int64_t(1) << 25;

/// What one timed kernel is: its name and configuration, for the report.
struct Case {
  std::string kernel;      ///< name in the report
  int64_t n = 0;           ///< elements processed
  int block = 0;           ///< threads per block (0: not applicable)
  int batch = 0;           ///< elements per thread (0: not applicable)
  double bytes = 0;        ///< bytes moved per run; 0 means the Spec's op x n
  int blocks_per_sm = 0;   ///< occupancy to report (0: unknown)
};

/// Times, verifies and reports the kernels of one chapter run (CONTRACT.md):
/// each kernel's output is poisoned before every run and checked exactly against the CPU
/// reference after the first run and again after the timed runs (after every timed run when
/// it has at most kCheckEachRunMax elements); the input it was given is checked to be unmodified; L2 is
/// flushed before each timed run unless --no-flush.
class Bench {
 public:
  /// Print the device and input lines (human mode) and allocate the L2 flush buffer.
  Bench(const Spec& spec, const Options& opt, const Device& dev, const Input& in)
      : spec_(spec), opt_(opt), dev_(dev), in_(in) {
    if (opt.flush) flush_ = DeviceBuffer<char>(size_t(2 * std::max<int64_t>(dev.l2_bytes, 1 << 20)), "the L2 flush buffer");
    WB_CHECK(cudaEventCreate(&start_));
    WB_CHECK(cudaEventCreate(&stop_));
    note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
    note(opt, "device %d: %s, sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB (%.1f free); theoretical peak %.0f GB/s (%d MHz x %d bit x 2)\n",
         dev.id, dev.name.c_str(), dev.major, dev.minor, dev.sms, dev.l2_bytes / 1048576.0,
         dev.total_bytes / 1073741824.0, dev.free_bytes / 1073741824.0, dev.peak_gbps, dev.memory_clock_khz / 1000,
         dev.bus_width_bits);
    note(opt, "input: N = %s, offset %lld, %.3f GB moved per run; %s; median of %d runs after %d warm-up\n\n",
         describe_n(in.n).c_str(), (long long)opt.offset, bytes_per_element(spec.op) * in.n / 1e9,
         opt.flush ? "L2 flushed before each timed run" : "L2 NOT flushed (--no-flush)", opt.reps, opt.warmup);
  }
  ~Bench() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// Time `launch`, which must leave `count` results at device pointer `out`, and check
  /// them against `want` (host, `count` values). Everything the algorithm needs (zeroing
  /// an accumulator, a second pass) belongs inside `launch` and is timed.
  /// @return the row, also kept for finish()
  Row run(const Case& c, const std::function<void()>& launch, int32_t* out, const int32_t* want, int64_t count) {
    Row r;
    r.chapter = spec_.chapter;
    r.kernel = c.kernel;
    r.n = c.n;
    r.block = c.block;
    r.batch = c.batch;
    r.bytes = c.bytes > 0 ? c.bytes : bytes_per_element(spec_.op) * double(c.n);
    r.blocks_per_sm = c.blocks_per_sm;
    r.verified = true;

    once(launch, out, count);
    r.verified &= verify(c.kernel, "first run", out, want, count);
    for (int i = 0; i < opt_.warmup; ++i) once(launch, out, count);

    // Small outputs are checked after every timed run (outside the timed region), so that a
    // race that strikes once in a hundred runs is caught; large ones after the first and last.
    const bool check_each = count <= kCheckEachRunMax;
    std::vector<float> times;
    for (int i = 0; i < opt_.reps; ++i) {
      WB_CHECK(cudaMemsetAsync(out, 0xA5, size_t(count) * 4));  // poison
      if (opt_.flush) WB_CHECK(cudaMemsetAsync(flush_.get(), i & 0xff, flush_.size()));
      WB_CHECK(cudaEventRecord(start_));
      launch();
      WB_CHECK_LAUNCH();
      WB_CHECK(cudaEventRecord(stop_));
      WB_CHECK(cudaEventSynchronize(stop_));
      float ms = 0;
      WB_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      times.push_back(ms);
      if (check_each && i + 1 < opt_.reps) r.verified &= verify(c.kernel, "a timed run", out, want, count);
    }
    r.verified &= verify(c.kernel, "after the timed runs", out, want, count);
    // The kernel was given the first c.n elements; those are the ones it could have written.
    Mismatch m = compare_device(in_.d, in_.host.data(), std::min(c.n, in_.n));
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input: index %lld is %d, was %d\n", c.kernel.c_str(),
                   (long long)m.index, m.got, m.want);
      r.verified = false;
    }
    r.median_ms = median(times);
    r.min_ms = *std::min_element(times.begin(), times.end());
    set_bandwidth(r, dev_.peak_gbps);
    rows_.push_back(r);
    return r;
  }

  /// Attach a note (shown in the human table only) to the last row.
  void annotate_last(const std::string& text) {
    if (!rows_.empty()) rows_.back().note = text;
  }

  /// The rows so far.
  const std::vector<Row>& rows() const { return rows_; }

  /// Print the table (or CSV) and return the exit status: 0 if every row verified, else 1.
  int finish() const {
    bool ok = true;
    for (const auto& r : rows_) ok = ok && r.verified;
    if (opt_.csv) {
      std::printf("%s\n", csv_header());
      for (const auto& r : rows_) std::printf("%s\n", csv_row(r).c_str());
    } else {
      std::fputs(human_table(rows_).c_str(), stdout);
      std::printf("\n%s\n", ok ? "all results verified against the CPU reference"
                                : "FAILED: a result differed from the CPU reference (see above)");
    }
    return ok ? 0 : 1;
  }

 private:
  void once(const std::function<void()>& launch, int32_t* out, int64_t count) {
    WB_CHECK(cudaMemsetAsync(out, 0xA5, size_t(count) * 4));
    launch();
    WB_CHECK_LAUNCH();
    WB_CHECK(cudaDeviceSynchronize());
  }

  bool verify(const std::string& kernel, const char* when, const int32_t* out, const int32_t* want, int64_t count) {
    WB_CHECK(cudaDeviceSynchronize());
    Mismatch m = compare_device(out, want, count);
    if (m.index < 0) return true;
    std::fprintf(stderr, "FAIL %s (%s): first bad index %lld: got %d, want %d\n", kernel.c_str(), when,
                 (long long)m.index, m.got, m.want);
    return false;
  }

  const Spec& spec_;
  const Options& opt_;
  const Device& dev_;
  const Input& in_;
  DeviceBuffer<char> flush_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<Row> rows_;
};

}  // namespace wb
