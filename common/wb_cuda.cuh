/// @file wb_cuda.cuh
/// @brief The CUDA half of the harness: error checks, the device, buffers, the L2 flush
/// and wb::Bench, which times, verifies and reports every kernel a chapter runs.
#pragma once

#include <cub/version.cuh>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "wb_checks.h"
#include "wb_options.h"
#include "wb_reference.h"
#include "wb_report.h"

/// 1 where device code may add across a warp with `__reduce_add_sync` (sm_80 and newer), else 0,
/// and the chapters take their shuffle fallback. A build configured with
/// `cmake -DWB_FORCE_FALLBACK=ON` takes the fallback on every GPU, so that the paths an sm_75
/// GPU runs are executed and verified on a newer one too (the full test suite does this).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WB_FORCE_FALLBACK)
#define WB_HAS_REDUCE_ADD 1
#else
#define WB_HAS_REDUCE_ADD 0
#endif

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

/// The theoretical peak bandwidth in GB/s: 2 (double data rate) x memory clock x bus width.
inline double theoretical_peak_gbps(int memory_clock_khz, int bus_width_bits) {
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

/// --info's "device" (see wb::DeviceInfo): wb::device_json of CUDA device `ordinal`, as the
/// driver describes it, or null where the driver finds no usable device or no such ordinal. Unlike open_device it never exits, so --info answers on
/// any machine.
inline Json cuda_device_info(int ordinal) {
  int count = 0, clock_khz = 0, bus_bits = 0;
  cudaDeviceProp p;
  const bool found = cudaGetDeviceCount(&count) == cudaSuccess && ordinal < count &&
                     cudaGetDeviceProperties(&p, ordinal) == cudaSuccess &&
                     cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
                     cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal) == cudaSuccess;
  if (!found) {
    (void)cudaGetLastError();
    return Json();
  }
  return device_json(ordinal, p.name, std::to_string(p.major) + std::to_string(p.minor), p.multiProcessorCount,
                     p.l2CacheSize, theoretical_peak_gbps(clock_khz, bus_bits), count);
}

/// Set before main: a program that includes this header answers --info with its device.
inline const bool cuda_device_info_installed = (device_info = cuda_device_info, true);

// CMake chose a CUB (cmake/cccl.cmake) and put its directory before the toolkit's; should the
// compiler find another one first, the comparisons with CUB would be against the wrong library.
#ifdef WB_CUB_VERSION
static_assert(CUB_VERSION == WB_CUB_VERSION, "the CUB on the include path is not the one CMake chose (cmake/cccl.cmake)");
#endif

/// CUB_VERSION (MMMmmmpp) as "major.minor.subminor": 300500 -> "3.5.0".
inline const char* cub_version_text() {
  static char text[32];
  if (!text[0])
    std::snprintf(text, sizeof text, "%d.%d.%d", int(CUB_VERSION / 100000), int(CUB_VERSION / 100 % 1000),
                  int(CUB_VERSION % 100));
  return text;
}

/// Set before main: --info and the CUB rows name the CUB this program was compiled against.
inline const bool cub_version_installed = (cub_version = cub_version_text(), true);

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
  d.peak_gbps = theoretical_peak_gbps(d.memory_clock_khz, d.bus_width_bits);
  int smem_optin = 0;
  WB_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d.id));
  d.max_smem_per_block = size_t(smem_optin);
  WB_CHECK(cudaMemGetInfo(&d.free_bytes, &d.total_bytes));
  return d;
}

/// Device bytes this program holds through device_alloc, and the N of its run once the
/// input is made (0 before): what the out-of-memory messages report.
struct MemoryUse {
  size_t bytes = 0;  ///< bytes allocated and not yet freed
  int64_t n = 0;     ///< the run's N, set by make_input
};

/// The program's one MemoryUse.
inline MemoryUse& memory_use() {
  static MemoryUse use;
  return use;
}

/// cudaMalloc that, when memory runs out, says what was asked and what is free, then exits 3;
/// under WB_SKIP_IF_NO_MEMORY=1 (the tests) it says what the run needs and exits 77 instead.
inline void* device_alloc(size_t bytes, const char* what) {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (skip_if_no_memory()) {
      const MemoryUse& use = memory_use();
      std::fprintf(stderr, "%s\n",
                   no_memory_message(use.n, double(use.bytes) + double(bytes), double(use.bytes) + double(free_b)).c_str());
      std::exit(77);
    }
    std::fprintf(stderr, "out of device memory allocating %s: asked for %.2f GiB, %.2f GiB free of %.2f GiB\n",
                 what, bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0);
    std::exit(3);
  }
  WB_CHECK(e);
  memory_use().bytes += bytes;
  return p;
}

/// Free what device_alloc returned (`bytes` as asked for).
inline void device_free(void* p, size_t bytes) {
  cudaFree(p);
  memory_use().bytes -= bytes;
}

/// One guarded allocation, as the harness remembers it to check its guards.
struct Guarded {
  char* data = nullptr;  ///< the first data byte: what the owner's pointer points to
  GuardLayout layout;    ///< where guards and data lie
  int64_t elem = 1;      ///< bytes per element, to turn a damaged byte into an index
  std::string what;      ///< the name given at allocation ("the output")
};

/// Every guarded allocation alive now, oldest first.
inline std::vector<Guarded>& guarded_allocations() {
  static std::vector<Guarded> list;
  return list;
}

/// Write the guard pattern into bytes [from, from + len) of the allocation that starts at `base`.
inline void write_guard(char* base, int64_t from, int64_t len) {
  if (len <= 0) return;
  std::vector<uint8_t> pattern(static_cast<size_t>(len));
  fill_guard(pattern.data(), from, len);
  WB_CHECK(cudaMemcpy(base + from, pattern.data(), size_t(len), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before it lands, and it is ordered only with the
  // legacy default stream: wait for it, so that a kernel on any stream (chapter 18's are
  // non-blocking) meets the guards written.
  WB_CHECK(cudaDeviceSynchronize());
}

/// Allocate `count` elements of `elem` bytes with a guard region on both sides (see
/// wb::guard_layout; `lead` more elements of guard before the data), fill the guards with
/// the guard pattern and remember the allocation, so that wb::check_guards can tell when a
/// kernel wrote past either end. @return the first data element
inline void* guarded_alloc(int64_t count, int64_t elem, int64_t lead, const char* what) {
  const GuardLayout g = guard_layout(count, elem, lead);
  char* base = static_cast<char*>(device_alloc(size_t(g.total()), what));
  write_guard(base, 0, g.before);
  write_guard(base, g.before + g.data, g.after);
  guarded_allocations().push_back(Guarded{base + g.before, g, elem, what});
  return base + g.before;
}

/// Free an allocation made by guarded_alloc, given its first data element.
inline void guarded_free(void* data) {
  auto& list = guarded_allocations();
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].data != data) continue;
    device_free(list[i].data - list[i].layout.before, size_t(list[i].layout.total()));
    list.erase(list.begin() + long(i));
    return;
  }
}

/// Check the guards of every live allocation: print a FAIL line naming `kernel`, the
/// allocation and the index for each guard it damaged (the damage nearest the data), then
/// restore the guard so that the next kernel is judged on its own.
/// @return true when every guard is intact
inline bool check_guards(const std::string& kernel) {
  bool intact = true;
  std::vector<uint8_t> got;
  for (const Guarded& a : guarded_allocations()) {
    char* const base = a.data - a.layout.before;
    const int64_t count = a.layout.data / a.elem;
    const int64_t regions[2][2] = {{0, a.layout.before}, {a.layout.before + a.layout.data, a.layout.after}};
    for (int side = 0; side < 2; ++side) {
      const int64_t from = regions[side][0], len = regions[side][1];
      got.resize(size_t(len));
      WB_CHECK(cudaMemcpy(got.data(), base + from, size_t(len), cudaMemcpyDeviceToHost));
      const int64_t pos = guard_damage(got.data(), from, len, side == 0);
      if (pos < 0) continue;
      std::fprintf(stderr, "%s\n", guard_message(kernel, a.what, guard_index(a.layout, a.elem, pos), count).c_str());
      write_guard(base, from, len);
      intact = false;
    }
  }
  return intact;
}

/// An owned device allocation of `count` elements of T, with a guard region on both sides
/// that wb::Bench checks after every kernel (see wb::guarded_alloc).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocate count elements; `what` names the buffer in an out-of-memory or guard message;
  /// `lead` elements of guard more go before the first element (wb::make_array's --offset).
  DeviceBuffer(size_t count, const char* what, int64_t lead = 0)
      : ptr_(static_cast<T*>(guarded_alloc(int64_t(count), int64_t(sizeof(T)), lead, what))), count_(count) {}
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
    if (ptr_) guarded_free(ptr_);
  }
  T* get() const { return ptr_; }          ///< the device pointer to the first element
  size_t size() const { return count_; }   ///< elements allocated

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

/// Lower the default N (2^30) until N x `bytes_per_element` plus `extra_bytes` fit in free
/// device memory, and say so. `bytes_per_element` counts the chapter's own arrays (input,
/// outputs, scratch); the harness adds what its checks need (wb::check_bytes_per_element,
/// wb::guard_bytes), the L2 flush buffer and a margin. An N given with --n is left as it is:
/// if it does not fit, the allocation reports how much was asked and how much is free.
inline void fit_default_n(Options& opt, const Device& dev, double bytes_per_element, double extra_bytes = 0) {
  if (opt.n_given) return;
  const double reserve = 2.0 * dev.l2_bytes + extra_bytes + guard_bytes(opt.offset) + (256 << 20);
  const int64_t wanted = opt.n;
  opt.n = fit_n(opt.n, bytes_per_element + check_bytes_per_element(bytes_per_element), reserve,
                double(dev.free_bytes));
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

/// An int32 array on the device, with guards on both sides; it starts --offset elements
/// past the leading guard.
struct DeviceArray {
  DeviceBuffer<int32_t> storage;  ///< the n elements, --offset + 64 guard ints before them, 64 after
  int32_t* d = nullptr;           ///< storage.get(): what kernels see
  int64_t n = 0;                  ///< elements from d on
};

/// Allocate an array of n elements placed --offset elements past its leading guard, so that
/// kernels meet inputs and outputs that are not 16-byte aligned when offset % 4 != 0. The
/// offset elements are part of the guard: they hold wb::kGuard and are checked like it.
inline DeviceArray make_array(const Options& opt, int64_t n, const char* what) {
  DeviceArray a;
  a.storage = DeviceBuffer<int32_t>(size_t(n), what, opt.offset);
  a.d = a.storage.get();
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

/// Make the input for --seed and --offset with n elements (opt.n unless given). Like every
/// device array it has guards holding wb::kGuard on both sides, so a kernel that reads
/// before its start or past its end gets a visibly wrong answer rather than a lucky one.
inline Input make_input(const Options& opt, int64_t n = -1) {
  Input in;
  in.n = n < 0 ? opt.n : n;
  memory_use().n = in.n;
  in.host.resize(size_t(in.n));
  fill_input(in.host.data(), in.n, opt.seed);
  in.dev = make_array(opt, in.n, "the input");
  in.d = in.dev.d;
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

/// Count the indexes i < count where got[i] differs from the run's expected value into
/// result[0], and the smallest of them into result[1] (which the caller sets to all ones
/// first). The expected value is want[i], plus `delta` (modulo 2^32) for i < `shifted`: the
/// outputs that include input element 0 on a run where the harness changed it by `delta`
/// (wb::expected_for_run). Each thread counts over a grid-stride loop and keeps the first
/// index it met; a warp combines its 32 threads with shuffles, and one lane of each warp that
/// found any adds them in with two atomics, so a wholly wrong output costs no more than a right
/// one. blockDim.x: a multiple of 32.
__global__ void count_mismatches(const int32_t* got, const int32_t* want, int64_t count, int64_t shifted,
                                 int32_t delta, unsigned long long* result) {
  unsigned long long wrong = 0, first = ~0ull;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int32_t expected = i < shifted ? int32_t(uint32_t(want[i]) + uint32_t(delta)) : want[i];
    if (got[i] != expected) {
      if (wrong == 0) first = (unsigned long long)i;
      ++wrong;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if (threadIdx.x % 32 == 0 && wrong > 0) {
    atomicAdd(result, wrong);
    atomicMin(result + 1, first);
  }
}

/// Add `delta` to *p, modulo 2^32: how wb::Bench changes input element 0 between runs and
/// changes it back. One thread; the value is read and written on the device, so a change the
/// kernel itself made to element 0 survives for the final input check.
__global__ void add_to_first(int32_t* p, int32_t delta) { *p = int32_t(uint32_t(*p) + uint32_t(delta)); }

// ---- Few blocks resident: the crowd (WB_CROWD_FREE_SMS) -------------------------------------

/// The crowd's kernel: one block per SM (it takes all the shared memory a block may have, and no
/// other block fits beside it), each counting itself in at `arrived` and holding its SM until
/// `*released` reaches `generation`. A crowd held for over a minute means the launch it ran beside
/// waited for the whole device (a cudaDeviceSynchronize or cudaFree inside it): it traps, so that
/// the run fails instead of hanging.
__global__ void crowd_hold(unsigned* arrived, const volatile unsigned* released, unsigned generation) {
  if (threadIdx.x != 0) return;
  atomicAdd(arrived, 1u);
  const long long start = clock64();
  while (*released < generation) {
    __nanosleep(1000);
    if (clock64() - start > 120000000000ll) {  // about a minute at 2 GHz
      printf("wb: the crowd (WB_CROWD_FREE_SMS) was held for over a minute: did a launch wait for the device?\n");
      __trap();
    }
  }
}

/// The gate before a launch: wait until every block of the crowd holds its SM (`want` arrivals),
/// so that the launch finds only the SMs the crowd left free.
__global__ void crowd_gate(const volatile unsigned* arrived, unsigned want) {
  const long long start = clock64();
  while (*arrived < want) {
    __nanosleep(100);
    if (clock64() - start > 20000000000ll) {  // about 10 s at 2 GHz
      printf("wb: the crowd (WB_CROWD_FREE_SMS) did not get its SMs (%u of %u blocks resident)\n", *arrived, want);
      __trap();
    }
  }
}

/// The crowd's release, queued after the launch: it runs once the launch's kernels are done.
__global__ void crowd_release(unsigned* released, unsigned generation) { atomicMax(released, generation); }

/// A test mode for kernels whose blocks wait on each other (the look-back and look-ahead scans of
/// chapters 17 and 19-23): with WB_CROWD_FREE_SMS=k in the environment, each launch of a row runs
/// while a kernel on a stream of its own holds every SM but k, so that only k SMs run the row's
/// blocks, a few at a time, in an order the hardware picks. A kernel that waits for a block the
/// GPU has not started yet hangs there (and, built with a trap, fails), while on an idle GPU,
/// whose SMs hold every block at once, it would pass. Timings in this mode are not the kernel's.
/// Every harness launches through wb::launch_in_range(), which takes the process's one Crowd.
class Crowd {
 public:
  /// Read WB_CROWD_FREE_SMS (from 1 to the current device's SMs less one; unset: no crowd) and,
  /// where it is set, say so on standard error.
  Crowd() {
    int device = 0, sms = 0, smem = 0;
    WB_CHECK(cudaGetDevice(&device));
    WB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WB_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    free_sms_ = int(env_whole_number("WB_CROWD_FREE_SMS", 1, std::max(1, sms - 1), 0));
    if (free_sms_ == 0) return;
    // A kernel loaded lazily (CUDA's default) is loaded at its first launch, and loading waits for
    // the kernels already running: for the crowd, which waits for the launch. Every kernel must be
    // loaded when the program starts.
    const char* loading = std::getenv("CUDA_MODULE_LOADING");
    if (loading == nullptr || std::strcmp(loading, "EAGER") != 0) {
      std::fprintf(stderr, "WB_CROWD_FREE_SMS needs CUDA_MODULE_LOADING=EAGER: a kernel loaded at its first launch "
                           "would wait for the crowd, which waits for it\n");
      std::exit(2);
    }
    blocks_ = unsigned(sms - free_sms_);
    smem_ = size_t(smem);
    WB_CHECK(cudaFuncSetAttribute(crowd_hold, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    WB_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WB_CHECK(cudaMalloc(&words_, 2 * sizeof(unsigned)));
    WB_CHECK(cudaMemset(words_, 0, 2 * sizeof(unsigned)));
    std::fprintf(stderr, "WB_CROWD_FREE_SMS=%d: every launch runs while a kernel holds the other %u SMs (timings are "
                         "not the kernel's)\n", free_sms_, blocks_);
  }
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;

  /// Before a launch: the crowd takes its SMs, and the default stream waits until it has them.
  void enter() {
    if (free_sms_ == 0) return;
    ++generation_;
    crowd_hold<<<blocks_, 32, smem_, stream_>>>(words_, words_ + 1, generation_);
    WB_CHECK_LAUNCH();
    crowd_gate<<<1, 1>>>(words_, generation_ * blocks_);
    WB_CHECK_LAUNCH();
  }
  /// After a launch: the crowd lets go once the launch's kernels are done.
  void leave() {
    if (free_sms_ == 0) return;
    crowd_release<<<1, 1>>>(words_ + 1, generation_);
    WB_CHECK_LAUNCH();
  }

 private:
  int free_sms_ = 0;
  unsigned blocks_ = 0;
  size_t smem_ = 0;
  cudaStream_t stream_ = nullptr;
  unsigned* words_ = nullptr;  // [0] blocks arrived, every generation; [1] the last generation released
  unsigned generation_ = 0;
};

/// Call `launch` between a push and a pop of the NVTX range `range` on this thread, so that the
/// kernels it launches, and nothing else, are attributed to the range (how scripts/profile tells
/// runs apart); with WB_CROWD_FREE_SMS, while the process's crowd holds all SMs but a few.
/// Every harness's runs go through it.
inline void launch_in_range(const std::string& range, const std::function<void()>& launch) {
  static Crowd crowd;  // made at the first launch, on the device the program opened
  nvtxRangePushA(range.c_str());
  crowd.enter();
  launch();
  crowd.leave();
  nvtxRangePop();
}

/// What one timed kernel is: its name and configuration, for the report.
struct Case {
  std::string kernel;      ///< name in the report
  int64_t n = 0;           ///< elements processed
  int block = 0;           ///< threads per block (0: not applicable)
  int batch = 0;           ///< elements per thread (0: not applicable)
  double bytes = 0;        ///< bytes moved per run; 0 means the Spec's op x n
  int blocks_per_sm = 0;   ///< occupancy to report (0: unknown)
  std::string config = "";  ///< the tuning that produced the row, for the CSV ("" where there is none)
  /// How many outputs, from output 0 on, include input element 0, which wb::Bench changes on
  /// every other run: their expected values change with it. -1 (the default) takes it from
  /// the Spec's op: 1 for a sum, every output for a whole-array scan. A chapter that computes
  /// something else says so: a segmented scan, its first segment; a copy, 1; a kernel that
  /// does not read the input, 0.
  int64_t outputs_with_first = -1;
};

/// A report row for case `c` of `spec`'s chapter: the case's name, sizes and bytes, and `config`
/// (the case's own by default) with CUB's version added on a CUB row. The bench fills in the
/// bytes where the case left 0, the times (close_row) and the verdict.
inline Row open_row(const Spec& spec, const Case& c, const std::string& config) {
  Row r;
  r.chapter = spec.chapter;
  r.kernel = c.kernel;
  r.n = c.n;
  r.block = c.block;
  r.batch = c.batch;
  r.bytes = c.bytes;
  r.blocks_per_sm = c.blocks_per_sm;
  r.config = is_cub_row(c.kernel) && cub_version ? with_cub_version(config, cub_version) : config;
  return r;
}
/// open_row with the case's own config.
inline Row open_row(const Spec& spec, const Case& c) { return open_row(spec, c, c.config); }

/// Put the timed runs' median and minimum into `r`, and the bandwidth they give against `peak_gbps`.
inline void close_row(Row& r, const std::vector<float>& times, double peak_gbps) {
  r.median_ms = median(times);
  r.min_ms = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  set_bandwidth(r, peak_gbps);
}

/// What each run of one kernel is checked against (wb::Bench): the CPU reference on the host
/// and its device copy, of which the first `shifted` outputs include input element 0.
struct ExpectedOutput {
  const int32_t* host = nullptr;    ///< the reference, `count` values
  const int32_t* device = nullptr;  ///< its copy on the device
  int64_t count = 0;                ///< outputs
  int64_t shifted = 0;              ///< outputs [0, shifted) move with input element 0
};

/// Times, verifies and reports the kernels of one chapter run (the command-line contract in
/// docs/pages/measuring.md):
/// each kernel's output is poisoned before every run and, after every run (first, warm-up
/// and timed, outside the timed region), compared exactly on the device with a device copy
/// of the CPU reference; after its runs the guards of every device allocation are checked
/// for writes past either end, and the input it was given is checked to be unmodified. L2 is
/// flushed before each timed run unless --no-flush.
///
/// No two consecutive runs see the same input, so that a kernel cannot pass by reusing state
/// left by the previous run (tile statuses that were never cleared, an epoch that does not
/// advance, a partial sum or a counter from the last launch): counting the first run as run 0,
/// every odd run (warm-up 1, 3, ..., and every other timed run, so the timings mix both) finds
/// input element 0 increased by wb::kRunDelta, and every even run finds it as made. The change
/// is made on the device before the run (add_to_first, outside the timed region and before the
/// L2 flush) and undone before the next one; the run's expected values are the reference's,
/// with wb::kRunDelta added (modulo 2^32) to the outputs that include element 0 (the Case's
/// outputs_with_first), and a FAIL line names the run and the change ("warm-up run 1, in[0] +
/// 1000") and prints that run's expected value. After the last run element 0 is restored, and
/// the input is compared with the input as made.
///
/// Every call of the chapter's `launch` runs inside an NVTX range (the header-only NVTX 3 API)
/// named for the row and the run: `wb/<kernel>/first` for the untimed first run,
/// `wb/<kernel>/warmup` for each warm-up run and `wb/<kernel>/timed` for each timed one, where
/// `<kernel>` is the row's name (its CSV "kernel" column). Only `launch` is inside: the poisoning
/// memsets, the L2 flush and the harness's own kernels (count_mismatches, add_to_first) are
/// outside every range. So a profiler that reads NVTX (`ncu --nvtx`, Nsight Systems) attributes to each row and
/// run exactly the kernels the chapter launched for it (CUB's included), which is how
/// scripts/profile tells launches apart.
class Bench {
 public:
  /// Print the device and input lines (human mode) and allocate the L2 flush buffer.
  Bench(const Spec& spec, const Options& opt, const Device& dev, const Input& in)
      : spec_(spec), opt_(opt), dev_(dev), in_(in) {
    if (opt.flush) flush_ = DeviceBuffer<char>(size_t(2 * std::max<int64_t>(dev.l2_bytes, 1 << 20)), "the L2 flush buffer");
    result_ = DeviceBuffer<unsigned long long>(2, "the result of the output check");
    WB_CHECK(cudaEventCreate(&start_));
    WB_CHECK(cudaEventCreate(&stop_));
    note(opt, "chapter %s %s: %s\n", spec.chapter, spec.slug, spec.idea);
#ifdef WB_FORCE_FALLBACK
    note(opt, "built with WB_FORCE_FALLBACK: warp sums take the shuffle path of GPUs older than sm_80\n");
#endif
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
  /// them against `want` (host, `count` values) after every run. Everything the algorithm
  /// needs (zeroing an accumulator, a second pass) belongs inside `launch` and is timed;
  /// the checks are not.
  /// @return the row, also kept for finish()
  Row run(const Case& c, const std::function<void()>& launch, int32_t* out, const int32_t* want, int64_t count) {
    Row r = open_row(spec_, c);
    if (c.bytes <= 0) r.bytes = bytes_per_element(spec_.op) * double(c.n);

    // The expected output goes to the device once; every run is compared with it there, so
    // that a race that strikes once in a hundred runs is caught at any N.
    const int32_t* want_d = expected_on_device(want, count);
    const ExpectedOutput expected{want, want_d, count, outputs_with_first(c, count)};
    const std::string range = "wb/" + c.kernel + "/";
    int wrong_runs = 0, run_index = 0;
    alternate_input(run_index++);
    once(launch, out, count, range + "first");
    check_output(wrong_runs, c.kernel, "first run", out, expected);
    for (int i = 0; i < opt_.warmup; ++i) {
      alternate_input(run_index++);
      once(launch, out, count, range + "warmup");
      check_output(wrong_runs, c.kernel, "warm-up run " + std::to_string(i + 1), out, expected);
    }
    std::vector<float> times;
    for (int i = 0; i < opt_.reps; ++i) {
      alternate_input(run_index++);
      WB_CHECK(cudaMemsetAsync(out, 0xA5, size_t(count) * 4));  // poison
      if (opt_.flush) WB_CHECK(cudaMemsetAsync(flush_.get(), i & 0xff, flush_.size()));
      WB_CHECK(cudaEventRecord(start_));
      launch_in_range(range + "timed", launch);
      WB_CHECK_LAUNCH();
      WB_CHECK(cudaEventRecord(stop_));
      WB_CHECK(cudaEventSynchronize(stop_));
      float ms = 0;
      WB_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      times.push_back(ms);
      check_output(wrong_runs, c.kernel, "timed run " + std::to_string(i + 1) + " of " + std::to_string(opt_.reps), out,
                   expected);
    }
    alternate_input(0);  // element 0 as made, for the input check below and the next kernel
    if (wrong_runs > 1)
      std::fprintf(stderr, "FAIL %s: %d of %d runs were wrong (the first is shown above)\n", c.kernel.c_str(), wrong_runs,
                   1 + opt_.warmup + opt_.reps);
    r.verified = wrong_runs == 0;
    // A write past either end of any device array, in any of this kernel's runs.
    r.verified &= check_guards(c.kernel);
    // The kernel was given the first c.n elements; those are the ones it could have written.
    Mismatch m = compare_device(in_.d, in_.host.data(), std::min(c.n, in_.n));
    if (m.index >= 0) {
      std::fprintf(stderr, "FAIL %s modified its input: index %lld is %d, was %d\n", c.kernel.c_str(),
                   (long long)m.index, m.got, m.want);
      r.verified = false;
    }
    close_row(r, times, dev_.peak_gbps);
    rows_.push_back(r);
    return r;
  }

  /// Attach a note (shown in the human table only) to the last row.
  void annotate_last(const std::string& text) {
    if (!rows_.empty()) rows_.back().note = text;
  }

  /// The rows so far.
  const std::vector<Row>& rows() const { return rows_; }

  /// Print the table (or CSV) and return the exit status (wb::finish_status): 0 if at least
  /// one kernel ran and every row verified, else 1 with a FAILED line (on standard error
  /// with --csv).
  int finish() const { return report_rows(opt_.csv, rows_); }

 private:
  /// The Case's outputs_with_first, or the Spec's op's where the Case leaves it at -1,
  /// capped at `count`.
  int64_t outputs_with_first(const Case& c, int64_t count) const {
    const int64_t given = c.outputs_with_first >= 0 ? c.outputs_with_first : spec_.op == Op::Reduce ? 1 : count;
    return std::min(given, count);
  }

  /// Make input element 0 what run `run_index` (0: the first run) finds: increased by
  /// wb::kRunDelta on odd runs, as made on even ones. Changes it on the device, in the
  /// stream the runs use, only when the last run found it otherwise.
  void alternate_input(int run_index) {
    const int32_t delta = run_index % 2 == 1 ? kRunDelta : 0;
    if (delta == input_delta_) return;
    add_to_first<<<1, 1>>>(in_.dev.d, int32_t(uint32_t(delta) - uint32_t(input_delta_)));
    WB_CHECK_LAUNCH();
    input_delta_ = delta;
  }

  /// One untimed run: poison the output, then `launch` inside the NVTX range `range`.
  void once(const std::function<void()>& launch, int32_t* out, int64_t count, const std::string& range) {
    WB_CHECK(cudaMemsetAsync(out, 0xA5, size_t(count) * 4));
    launch_in_range(range, launch);
    WB_CHECK_LAUNCH();
    WB_CHECK(cudaDeviceSynchronize());
  }


  /// Copy the `count` expected values to the device (growing the buffer when needed).
  const int32_t* expected_on_device(const int32_t* want, int64_t count) {
    if (want_d_.size() < size_t(count)) {
      want_d_ = DeviceBuffer<int32_t>();  // free the smaller copy first
      want_d_ = DeviceBuffer<int32_t>(size_t(count), "the device copy of the expected output");
    }
    WB_CHECK(cudaMemcpy(want_d_.get(), want, size_t(count) * 4, cudaMemcpyHostToDevice));
    return want_d_.get();
  }

  /// Compare the run's `count` outputs with the values expected for this run, the device copy
  /// of the reference adjusted for input element 0 (wb::count_mismatches); for the first wrong
  /// run of a kernel print how many elements are wrong and the first of them, with the run's
  /// expected value; count wrong runs in `wrong_runs`.
  void check_output(int& wrong_runs, const std::string& kernel, const std::string& when, const int32_t* out,
                    const ExpectedOutput& e) {
    WB_CHECK(cudaMemset(result_.get(), 0, sizeof(unsigned long long)));
    WB_CHECK(cudaMemset(result_.get() + 1, 0xff, sizeof(unsigned long long)));
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(ceil_div<int64_t>(e.count, 256), int64_t(dev_.sms) * 8));
    count_mismatches<<<unsigned(blocks), 256>>>(out, e.device, e.count, e.shifted, input_delta_, result_.get());
    WB_CHECK_LAUNCH();
    unsigned long long result[2] = {0, 0};
    WB_CHECK(cudaMemcpy(result, result_.get(), sizeof result, cudaMemcpyDeviceToHost));
    if (result[0] == 0 || ++wrong_runs > 1) return;
    const int64_t index = int64_t(result[1]);
    int32_t got = 0;
    WB_CHECK(cudaMemcpy(&got, out + index, sizeof got, cudaMemcpyDeviceToHost));
    const int32_t want = expected_for_run(e.host[index], index, e.shifted, input_delta_);
    std::fprintf(stderr, "%s\n",
                 mismatch_message(kernel, run_label(when, input_delta_), int64_t(result[0]), e.count, index, got, want)
                     .c_str());
  }

  const Spec& spec_;
  const Options& opt_;
  const Device& dev_;
  const Input& in_;
  DeviceBuffer<char> flush_;
  DeviceBuffer<unsigned long long> result_;  // wb::count_mismatches's count and first index
  DeviceBuffer<int32_t> want_d_;              // the expected output of the current kernel
  int32_t input_delta_ = 0;                   // what input element 0 holds beyond its value as made
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<Row> rows_;
};

/// The runs of a bench whose output wb::Bench cannot check (counts, a sorted array), timed as
/// wb::Bench times its own: a first run, --warmup untimed runs, then --reps timed runs with the
/// L2 flushed before each one unless --no-flush, each `launch` inside the NVTX range
/// `wb/KERNEL/first`, `/warmup` or `/timed`. The bench says what happens around each run.
class RunLoop {
 public:
  /// Allocate the L2 flush buffer (unless --no-flush) and the events.
  RunLoop(const Options& opt, const Device& dev) : opt_(opt) {
    if (opt.flush) flush_ = DeviceBuffer<char>(size_t(2 * std::max<int64_t>(dev.l2_bytes, 1 << 20)), "the L2 flush buffer");
    WB_CHECK(cudaEventCreate(&start_));
    WB_CHECK(cudaEventCreate(&stop_));
  }
  ~RunLoop() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  RunLoop(const RunLoop&) = delete;
  RunLoop& operator=(const RunLoop&) = delete;

  /// Every run of `launch`: `before(run)` first (run 0 is the first run; untimed: change the
  /// input, poison the output), then the launch, then, the GPU idle, `after(run, when)`, where
  /// `when` names the run for a FAIL line ("first run", "warm-up run 2", "timed run 3 of 20").
  /// @return the timed runs' times in ms
  std::vector<float> run(const std::string& kernel, const std::function<void(int)>& before,
                         const std::function<void()>& launch, const std::function<void(int, const std::string&)>& after) {
    std::vector<float> times;
    for (int run = 0; run < total(); ++run) {
      before(run);
      const bool timed = run > opt_.warmup;
      if (timed && opt_.flush) WB_CHECK(cudaMemsetAsync(flush_.get(), run & 0xff, flush_.size()));
      if (timed) WB_CHECK(cudaEventRecord(start_));
      launch_in_range("wb/" + kernel + (run == 0 ? "/first" : timed ? "/timed" : "/warmup"), launch);
      WB_CHECK_LAUNCH();
      if (timed) {
        WB_CHECK(cudaEventRecord(stop_));
        WB_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        WB_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        times.push_back(ms);
      }
      WB_CHECK(cudaDeviceSynchronize());
      after(run, run == 0 ? "first run"
                 : timed  ? "timed run " + std::to_string(run - opt_.warmup) + " of " + std::to_string(opt_.reps)
                          : "warm-up run " + std::to_string(run));
    }
    return times;
  }

  /// How many runs run() makes: the first, the warm-up and the timed ones.
  int total() const { return 1 + opt_.warmup + opt_.reps; }

 private:
  const Options& opt_;
  DeviceBuffer<char> flush_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace wb
