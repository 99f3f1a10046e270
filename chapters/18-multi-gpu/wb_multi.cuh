/// @file wb_multi.cuh
/// @brief The multi-GPU harness: what wb::Bench is to one GPU, wb::Multi is to several. It owns
/// the devices, their streams and NCCL communicators, the shards of the array, the gate that
/// starts every GPU at once, the timing, the reference check a slice at a time and the rows;
/// a chapter hands it the steps of each operation (as nccl-tests splits one shared harness from
/// one small file per collective). Chapter 18 is its one user.
///
/// The array of N elements is cut into S shards (`--shards`, default one per GPU) over G GPUs
/// (`--gpus`, default every visible GPU from `--device` on): GPU g holds a contiguous run of
/// shards, the first S mod G GPUs one shard more. Each shard makes its part of the input on
/// its GPU from (seed, i), as every chapter does (wb::input_value, callable on both sides), so
/// any G and S give the same answer, and the host checks the results slice by slice without
/// ever holding the array. Several shards on one GPU make the carries between shards, the
/// collectives and uneven shards run on a machine with one GPU.
///
/// Two ways to run: one process drives every GPU (`ncclCommInitAll`; every collective issued
/// for all GPUs between `ncclGroupStart` and `ncclGroupEnd`), or, started by `mpirun -np G`,
/// one process per GPU (rank 0 broadcasts NCCL's unique id over MPI), in a build with
/// WB_WITH_MPI=1.
///
/// Each collective carries `slots()` values per GPU, one per shard of the GPU that holds the
/// most (a GPU with fewer leaves the rest 0): shard s's value goes to position
/// `position(s)` of the gathered array, positions follow the array's order, and the carry into
/// shard s is the sum of the gathered values before its position.
#pragma once

#include <cuda/atomic>
#include <nccl.h>
#if WB_WITH_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "workbook.cuh"

namespace wb {

/// Exit 3 with the failing call, file and line when an NCCL call did not succeed.
inline void nccl_check(ncclResult_t r, const char* call, const char* file, int line) {
  if (r == ncclSuccess) return;
  std::fprintf(stderr, "NCCL error at %s:%d: %s\n  in: %s\n", file, line, ncclGetErrorString(r), call);
  std::exit(3);
}
/// Check an NCCL call; on failure print where and exit 3.
#define WB_NCCL_CHECK(call) ::wb::nccl_check((call), #call, __FILE__, __LINE__)

/// Add the harness's flags to a chapter's Spec: --gpus, --shards and --no-gate.
inline void add_multi_gpu_flags(Spec& spec) {
  spec.harness_flags.push_back(
      {"--gpus", "G", 1, 1024,
       "  --gpus G      GPUs to spread the array over (default: every visible GPU from --device on;\n"
       "                under mpirun: one per process, and G must equal the number of processes)\n"});
  spec.harness_flags.push_back(
      {"--shards", "S", 1, 1024,
       "  --shards S    cut the array into S shards over the G GPUs, several to a GPU where S > G\n"
       "                (default S = G); on one GPU, S > 1 runs the carries and the collectives\n"});
  spec.harness_flags.push_back(
      {"--no-gate", "", 0, 0,
       "  --no-gate     queue each GPU's work without the gate, which cannot open under\n"
       "                compute-sanitizer's tools: the GPUs then start as their work is queued\n"});
}

/// Whether this process was started by mpirun (Open MPI, MPICH, Slurm and PMIx set these).
inline bool started_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"})
    if (std::getenv(name)) return true;
  return false;
}

/// The processes of this run: one that drives every GPU, or one per GPU under MPI.
struct Team {
  bool mpi = false;  ///< one process per GPU, started by mpirun
  int rank = 0;      ///< this process's rank (0 without MPI)
  int size = 1;      ///< processes (1 without MPI)

  /// Wait until every process is here.
  void barrier() const {
#if WB_WITH_MPI
    if (mpi) MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  /// The largest of every process's `v`.
  double max(double v) const {
#if WB_WITH_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    return v;
  }
  /// Whether `v` holds in every process.
  bool all(bool v) const { return max(v ? 0.0 : 1.0) == 0.0; }
  /// End this process (and MPI) with `status`; every process calls it with the same status.
  [[noreturn]] void exit(int status) const {
#if WB_WITH_MPI
    if (mpi) MPI_Finalize();
#endif
    std::exit(status);
  }
};

/// How long a gate waits for the host before it opens by itself (see wait_for_gate).
constexpr unsigned long long kGateTimeoutNs = 2000000000ull;

// [gate]
/// Wait until the host sets gate[0] (pinned host memory, mapped into every GPU). Each GPU's
/// work is queued behind this kernel, so that all start together once the host has queued
/// everything and opens the gate with one store. Should the host ever wait for a GPU while
/// queuing (a library call that synchronizes, or a tool that makes every launch wait for its
/// kernel, as compute-sanitizer's tools do, all four of them), the gate would never
/// open: after kGateTimeoutNs it opens by itself and sets gate[1], and the host reports that
/// the run could not be timed (exit 3). Under those tools, run with --no-gate.
__global__ void wait_for_gate(int* gate) {
  cuda::atomic_ref<int, cuda::thread_scope_system> open(gate[0]), timed_out(gate[1]);
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (open.load(cuda::memory_order_relaxed) == 0) {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > kGateTimeoutNs) {
      timed_out.store(1, cuda::memory_order_relaxed);
      return;
    }
  }
}
// [gate]

/// Write elements [first, first + count) of the input for `seed` to shard[0, count): the
/// values of wb::input_value, made on the GPU where they are used, so that an array larger
/// than the host's memory never passes through it.
__global__ void make_input_part(int* shard, int64_t first, int64_t count, uint64_t seed) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    shard[i] = input_value(seed, uint64_t(first + i));
}

/// One GPU of this process.
struct Gpu {
  int index = 0;                  ///< g, 0 to G - 1, over every process
  int local = 0;                  ///< its place among this process's GPUs
  int device = 0;                 ///< CUDA ordinal
  cudaStream_t stream = nullptr;  ///< everything of this GPU is queued here, its shards in turn
  ncclComm_t comm = nullptr;      ///< its rank in the NCCL communicator
  cudaEvent_t start = nullptr;    ///< recorded when its gate opens
  cudaEvent_t stop = nullptr;     ///< recorded after its last step
};

/// One shard: a contiguous part of the array, on one GPU.
struct Shard {
  int index = 0;       ///< s, 0 to S - 1, in the array's order
  int slot = 0;        ///< its place among its GPU's shards: position(s) = G's index x slots() + slot
  int local = 0;       ///< its place among this process's shards (for the chapter's per-shard data)
  int gpu = 0;         ///< its GPU's place among this process's GPUs (Multi::gpu())
  int64_t first = 0;   ///< its first element in the whole array
  int64_t count = 0;   ///< its elements (0 where N is smaller than S tiles)
};

/// Work queued for one shard on its GPU's stream (the current device is its GPU's).
using ShardWork = std::function<void(const Shard&)>;
/// Work queued for one GPU on its stream (the current device is that GPU).
using GpuWork = std::function<void(const Gpu&)>;

/// One run of an operation: each shard's own work before the collective, the collective on
/// each GPU, each GPU's own work after it, then each shard's (any may be empty). Each step is
/// queued for every GPU in turn, because NCCL queues the collectives of a group only at
/// ncclGroupEnd: a kernel queued inside the group would run before the collective it needs.
struct Steps {
  ShardWork before;    ///< e.g. each shard's sum
  GpuWork collective;  ///< an NCCL call
  GpuWork combine;     ///< e.g. add a GPU's slots into one total
  ShardWork after;     ///< e.g. each shard's scan, seeded with its carry
};

/// What a check of one output found: the first wrong element, if any.
struct Finding {
  int64_t index = -1;  ///< in the whole array; -1: all right
  int32_t got = 0;     ///< the GPU's value there
  int32_t want = 0;    ///< the CPU reference's
};

/// Elements the host checks at a time: each worker thread holds one slice.
constexpr int64_t kSlice = int64_t(1) << 22;

/// The CPU reference of the whole array without the array: the wrap-around sum of every
/// slice of every shard (slices never cross a shard's end), from which the prefix at any
/// slice's start follows. Computing it reads nothing but (seed, i).
struct Reference {
  std::vector<int64_t> slice_first;    ///< the first element of each slice, shard by shard
  std::vector<uint32_t> slice_before;  ///< the inclusive-scan value just before each slice
  uint32_t total = 0;                  ///< the sum of everything
  int64_t n = 0;                       ///< elements

  /// The sum of the elements before `i`, a shard's first element or n.
  uint32_t before(int64_t i) const {
    const auto at = std::lower_bound(slice_first.begin(), slice_first.end(), i);
    return at == slice_first.end() ? total : slice_before[size_t(at - slice_first.begin())];
  }
};

/// The reference for the shards that start at `starts` (S + 1 boundaries) of the input of `seed`.
inline Reference make_reference(const std::vector<int64_t>& starts, uint64_t seed) {
  Reference r;
  r.n = starts.back();
  for (size_t s = 0; s + 1 < starts.size(); ++s)
    for (int64_t at = starts[s]; at < starts[s + 1]; at += kSlice) r.slice_first.push_back(at);
  const size_t slices = r.slice_first.size();
  std::vector<uint32_t> sums(slices);
  auto end_of = [&](size_t s) {
    const int64_t next = s + 1 < slices ? r.slice_first[s + 1] : r.n;
    return std::min(next, r.slice_first[s] + kSlice);
  };
  parallel_for(int64_t(slices) * kSlice, [&](int, int64_t b, int64_t e) {
    for (size_t s = size_t(ceil_div(b, kSlice)); s < slices && int64_t(s) * kSlice < e; ++s) {
      uint32_t sum = 0;
      for (int64_t i = r.slice_first[s]; i < end_of(s); ++i) sum += uint32_t(input_value(seed, uint64_t(i)));
      sums[s] = sum;
    }
  });
  r.slice_before.resize(slices);
  uint32_t run = 0;
  for (size_t s = 0; s < slices; ++s) {
    r.slice_before[s] = run;
    run += sums[s];
  }
  r.total = run;
  return r;
}

/// Shard boundaries: the array's tiles of `tile` elements shared as evenly as possible among
/// `shards`, the first shards taking one tile more; the last shard ends at n.
inline std::vector<int64_t> shard_starts(int64_t n, int shards, int64_t tile) {
  const int64_t tiles = ceil_div(n, tile);
  std::vector<int64_t> starts(size_t(shards) + 1);
  for (int s = 0; s <= shards; ++s) {
    const int64_t t = s * (tiles / shards) + std::min<int64_t>(s, tiles % shards);
    starts[size_t(s)] = std::min(n, t * tile);
  }
  return starts;
}

/// The harness: see the file's description. Construct it after parse_or_exit (it reads the
/// harness flags), then split() the array, then allocate the chapter's buffers and measure().
class Multi {
 public:
  /// Start MPI when started by mpirun, choose the GPUs and open them, create their streams,
  /// events and NCCL communicators. Exits 77 without a GPU, 2 for GPUs or shards that this
  /// machine cannot give, 3 on a CUDA or NCCL error.
  Multi(const Spec& spec, Options& opt) : spec_(spec), opt_(opt) {
    use_gate_ = opt.harness_value("--no-gate", 0) == 0;
    if (started_by_mpirun()) start_mpi();
    speak_ = team_.rank == 0;
    if (!speak_) opt.csv = true;  // notes of other ranks go to stderr, and their table is not printed
    choose_gpus(int(opt.harness_value("--gpus", 0)));
    shards_ = int(opt.harness_value("--shards", gpus_));
    if (shards_ < gpus_) refuse("--shards " + std::to_string(shards_) + " is not allowed with " +
                                std::to_string(gpus_) + " GPUs: give at least one shard per GPU");
    slots_ = int(ceil_div(shards_, gpus_));
    Options first = opt;
    first.device = gpus_here_.front().device;
    dev_ = open_device(first);
    connect();
    WB_CHECK(cudaHostAlloc(&gate_, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    gate_[0] = gate_[1] = 0;
    for (Gpu& g : gpus_here_) {
      WB_CHECK(cudaSetDevice(g.device));
      WB_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
      WB_CHECK(cudaEventCreate(&g.start));
      WB_CHECK(cudaEventCreate(&g.stop));
      if (opt.flush)
        flush_.emplace_back(size_t(2 * std::max<int64_t>(dev_.l2_bytes, 1 << 20)), "the L2 flush buffer");
    }
  }

  /// Cut the array of `n` elements into the shards, in tiles of `tile` elements (so that only
  /// the last shard's last tile is partial), and compute the CPU reference. Then make a first
  /// all-reduce and all-gather, untimed: NCCL connects the GPUs of a communicator at their
  /// first collective, and that first call waits for the GPUs: made behind a closed gate, it
  /// would never return.
  void split(int64_t n, int64_t tile) {
    starts_ = shard_starts(n, shards_, tile);
    memory_use().n = n;
    for (int s = 0; s < shards_; ++s) {
      const int g = gpu_of(s);
      for (size_t k = 0; k < gpus_here_.size(); ++k) {
        if (gpus_here_[k].index != g) continue;
        Shard sh;
        sh.index = s;
        sh.slot = s - first_shard_of(g);
        sh.local = int(shards_here_.size());
        sh.gpu = int(k);
        sh.first = starts_[size_t(s)];
        sh.count = starts_[size_t(s) + 1] - sh.first;
        shards_here_.push_back(sh);
      }
    }
    reference_ = make_reference(starts_, opt_.seed);
    // Each GPU's values: what it sends (slots), what the all-gather and the all-reduce receive.
    const size_t sent = size_t(slots_), gathered = size_t(slots_ * gpus_);
    std::vector<DeviceBuffer<int>> scratch;
    for (Gpu& g : gpus_here_) {
      WB_CHECK(cudaSetDevice(g.device));
      scratch.emplace_back(sent + gathered + sent, "the first collectives' values");
      WB_CHECK(cudaMemsetAsync(scratch.back().get(), 0, sizeof(int) * scratch.back().size(), g.stream));
    }
    group([&](const Gpu& g) {
      int* values = scratch[size_t(g.local)].get();
      WB_NCCL_CHECK(ncclAllGather(values, values + sent, sent, ncclInt32, g.comm, g.stream));
      WB_NCCL_CHECK(ncclAllReduce(values, values + sent + gathered, sent, ncclUint32, ncclSum, g.comm, g.stream));
    });
    each_gpu([](const Gpu& g) { WB_CHECK(cudaStreamSynchronize(g.stream)); });
  }

  /// Print the run's lines (GPUs, launch mode, shards, input), as wb::Bench does for one GPU.
  void describe() const {
    if (!speak_) return;
    note(opt_, "chapter %s %s: %s\n", spec_.chapter, spec_.slug, spec_.idea);
    note(opt_, "%d GPU(s), %s; GPU 0: %s, %d SMs, %.1f GiB; theoretical peak %.0f GB/s each\n", gpus_,
         team_.mpi ? "one process per GPU (MPI)" : "one process drives all (ncclCommInitAll)", dev_.name.c_str(),
         dev_.sms, dev_.total_bytes / 1073741824.0, dev_.peak_gbps);
    int64_t smallest = starts_[1] - starts_[0], largest = smallest;
    for (size_t s = 1; s + 1 < starts_.size(); ++s) {
      smallest = std::min(smallest, starts_[s + 1] - starts_[s]);
      largest = std::max(largest, starts_[s + 1] - starts_[s]);
    }
    note(opt_, "input: N = %s in %d shard(s) of %lld to %lld elements, offset %lld; %s; median of %d runs after %d warm-up\n",
         describe_n(reference_.n).c_str(), shards_, (long long)smallest, (long long)largest, (long long)opt_.offset,
         opt_.flush ? "L2 flushed on every GPU before each timed run" : "L2 NOT flushed (--no-flush)", opt_.reps,
         opt_.warmup);
    if (!use_gate_) note(opt_, "--no-gate: each GPU starts as its work is queued, and a run lasts as long as the slowest GPU's\n");
    note(opt_, "\n");
  }

  // [timing]
  /// Run `steps` once on every shard of this process (or on shard 0 alone: `only_first`), all
  /// GPUs starting together behind the gate; `prepare` runs first for each shard, untimed
  /// (poison the output, or remake an input that the last run overwrote), then, for a `timed`
  /// run, L2 is flushed. Returns the milliseconds from the gate's opening to the last GPU's
  /// end, over every process.
  double run_once(const Steps& steps, const ShardWork& prepare, bool only_first, bool timed) {
    only_first_ = only_first;
    reinterpret_cast<volatile int*>(gate_)[0] = 0;
    each_gpu([&](const Gpu& g) {
      each_shard_of(g, prepare);
      if (timed && opt_.flush) {
        DeviceBuffer<char>& f = flush_[size_t(g.local)];
        WB_CHECK(cudaMemsetAsync(f.get(), 0x5a, f.size(), g.stream));
      }
      if (use_gate_) wait_for_gate<<<1, 1, 0, g.stream>>>(gate_);
      WB_CHECK(cudaEventRecord(g.start, g.stream));
    });
    each_gpu([&](const Gpu& g) { each_shard_of(g, steps.before); });
    if (steps.collective) group(steps.collective);
    if (steps.combine) each_gpu(steps.combine);
    each_gpu([&](const Gpu& g) {
      each_shard_of(g, steps.after);
      WB_CHECK(cudaEventRecord(g.stop, g.stream));
      WB_CHECK_LAUNCH();
    });
    team_.barrier();  // every process has queued its work
    std::atomic_thread_fence(std::memory_order_seq_cst);
    reinterpret_cast<volatile int*>(gate_)[0] = 1;
    float last = 0;
    each_gpu([&](const Gpu& g) {
      WB_CHECK(cudaEventSynchronize(g.stop));
      float ms = 0;
      WB_CHECK(cudaEventElapsedTime(&ms, g.start, g.stop));
      last = std::max(last, ms);
    });
    only_first_ = false;
    if (!team_.all(gate_[1] == 0)) {
      // Not a wrong result (exit 1): the run could not be timed as it was meant to be.
      std::fprintf(stderr, "error: a gate opened by itself after %.0f s: the host waited for a GPU while queuing a run "
                           "(under compute-sanitizer, run with --no-gate)\n",
                   kGateTimeoutNs / 1e9);
      team_.exit(3);
    }
    return team_.max(last);
  }
  // [timing]

  /// A check of one run, given what the run was ("first run", "timed run 3"): true if right.
  using Check = std::function<bool(const std::string& when)>;
  /// The input a shard's step read (nullptr: the step overwrites it, nothing to compare).
  using InputOf = std::function<const int*(const Shard&)>;

  /// One row: the first run, the warm-up and the timed runs of `steps` (over shard 0 alone
  /// with `only_first`), each checked by `check`; then the guards of every allocation and the
  /// input. `bytes_per_element` counts the row's bytes; `gpus` and `config` describe it.
  Row measure(const std::string& kernel, bool only_first, const Steps& steps, const ShardWork& prepare,
              const Check& check, const InputOf& input, double bytes_per_element, const std::string& config) {
    bool ok = true;
    int wrong = 0;
    std::vector<float> times;
    for (int i = 0; i < 1 + opt_.warmup + opt_.reps; ++i) {
      const bool timed = i > opt_.warmup;
      const double ms = run_once(steps, prepare, only_first, timed);
      const std::string when = i == 0 ? "first run" : timed ? "timed run " + std::to_string(i - opt_.warmup) : "warm-up run";
      if (timed) times.push_back(float(ms));
      if (!team_.all(check(when))) {
        ok = false;
        if (++wrong > 3) break;  // the first wrong runs say enough at large N
      }
    }
    if (times.empty()) times.push_back(0);
    ok &= team_.all(check_guards(kernel));  // every allocation of this process, on every GPU
    ok &= team_.all(input_unchanged(kernel, input));
    const int64_t count = only_first ? starts_[1] : reference_.n;
    Row r;
    r.chapter = spec_.chapter;
    r.kernel = kernel;
    r.n = count;
    r.bytes = bytes_per_element * double(count);
    r.median_ms = median(times);
    r.min_ms = *std::min_element(times.begin(), times.end());
    r.verified = ok;
    r.config = config;
    set_bandwidth(r, (only_first ? 1 : gpus_) * dev_.peak_gbps);
    return r;
  }

  /// Check every element of a shard's output at `d` exactly against the CPU reference: the
  /// input itself (`scan` false) or its inclusive scan (`scan` true). Worker threads each copy
  /// one slice at a time to the host and recompute it, so the host never holds the array.
  /// Which elements are the shard's comes from the boundaries, not from the Shard the steps
  /// were given, so that a shard placed wrongly is read where it should be, and fails.
  Finding check_shard(const Shard& sh, const int* d, bool scan) const {
    const int64_t begin = starts_[size_t(sh.index)], end = starts_[size_t(sh.index) + 1];
    std::vector<size_t> mine;
    for (size_t s = 0; s < reference_.slice_first.size(); ++s)
      if (reference_.slice_first[s] >= begin && reference_.slice_first[s] < end) mine.push_back(s);
    std::mutex lock;
    Finding found;
    const int workers = std::max(1, std::min<int>(int(mine.size()), worker_count(int64_t(1) << 30)));
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    const int device = gpus_here_[size_t(sh.gpu)].device;
    // A worker that exited on a CUDA error would end the process under the others' feet: each
    // keeps the first error instead, and the caller's thread reports it after the join.
    cudaError_t failed = cudaSuccess;
    auto failing = [&](cudaError_t e) {
      if (e == cudaSuccess) return false;
      std::lock_guard<std::mutex> hold(lock);
      if (failed == cudaSuccess) failed = e;
      return true;
    };
    for (int w = 0; w < workers; ++w) {
      pool.emplace_back([&] {
        if (failing(cudaSetDevice(device))) return;
        std::vector<int32_t> got(static_cast<size_t>(kSlice));
        for (size_t k = next++; k < mine.size(); k = next++) {
          const size_t s = mine[k];
          const int64_t from = reference_.slice_first[s];
          const int64_t to = std::min(end, from + kSlice);
          if (failing(cudaMemcpy(got.data(), d + (from - sh.first), size_t(to - from) * 4, cudaMemcpyDeviceToHost)))
            return;
          uint32_t run = reference_.slice_before[s];
          for (int64_t i = from; i < to; ++i) {
            const int32_t x = input_value(opt_.seed, uint64_t(i));
            run += uint32_t(x);
            const int32_t want = scan ? int32_t(run) : x;
            if (got[size_t(i - from)] != want) {
              std::lock_guard<std::mutex> hold(lock);
              if (found.index < 0 || i < found.index) found = Finding{i, got[size_t(i - from)], want};
              break;
            }
          }
        }
      });
    }
    for (auto& t : pool) t.join();
    check(failed, "cudaMemcpy of a shard's slice to the host (check_shard)", __FILE__, __LINE__);
    return found;
  }

  /// Check each shard's scan at `out_of(shard)` (of shard 0 alone with `only_first`), printing
  /// the first wrong element of each wrong shard; true if all are right.
  bool check_scan(const std::string& kernel, const std::string& when, bool only_first, const InputOf& out_of) const {
    bool ok = true;
    for (const Shard& sh : shards_here_) {
      if (only_first && sh.index != 0) continue;
      const Finding f = check_shard(sh, out_of(sh), true);
      if (f.index >= 0) {
        std::fprintf(stderr, "FAIL %s (%s): element %lld (in shard %d, on GPU %d) is %d, expected %d\n", kernel.c_str(),
                     when.c_str(), (long long)f.index, sh.index, gpus_here_[size_t(sh.gpu)].index, f.got, f.want);
        ok = false;
      }
    }
    return ok;
  }

  /// Make a shard's part of the input at `d` on its GPU's stream.
  void make_input(const Shard& sh, int* d) const {
    if (sh.count == 0) return;
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(ceil_div<int64_t>(sh.count, 256), 65536));
    make_input_part<<<unsigned(blocks), 256, 0, gpus_here_[size_t(sh.gpu)].stream>>>(d, sh.first, sh.count, opt_.seed);
    WB_CHECK_LAUNCH();
  }

  /// Print the rows (table or CSV, by rank 0), release NCCL, and exit with wb::finish_status's
  /// status in every process.
  [[noreturn]] void finish(const std::vector<Row>& rows) {
    std::string line;
    const int status = finish_status(rows, line);
    if (speak_) print_rows(opt_.csv, rows, status, line);
    each_gpu([](const Gpu& g) { WB_NCCL_CHECK(ncclCommDestroy(g.comm)); });
    team_.exit(status);
  }

  /// Call `work` on every GPU of this process (of shard 0 alone during an only_first run),
  /// with the GPU current.
  void each_gpu(const GpuWork& work) const {
    for (const Gpu& g : gpus_here_) {
      if (only_first_ && g.index != 0) continue;
      WB_CHECK(cudaSetDevice(g.device));
      work(g);
    }
  }

  const Team& team() const { return team_; }                    ///< the processes
  int gpus() const { return gpus_; }                             ///< G
  int shards() const { return shards_; }                         ///< S
  int slots() const { return slots_; }                           ///< values per GPU in a collective
  const Device& device() const { return dev_; }                  ///< the first local GPU's facts
  const Reference& reference() const { return reference_; }      ///< the CPU reference
  const std::vector<Shard>& shards_here() const { return shards_here_; }  ///< this process's shards
  const std::vector<Gpu>& gpus_here() const { return gpus_here_; }        ///< this process's GPUs
  const Gpu& gpu(const Shard& sh) const { return gpus_here_[size_t(sh.gpu)]; }  ///< a shard's GPU
  /// Where shard `sh`'s value lies in a gathered array (see the file's description).
  int position(const Shard& sh) const { return gpu(sh).index * slots_ + sh.slot; }
  /// "gpus=2 shards=2 launch=one_process": the CSV's config for a row over every GPU.
  std::string launch_mode() const {
    std::string mode = "gpus=" + std::to_string(gpus_);
    if (shards_ != gpus_) mode += " shards=" + std::to_string(shards_);
    return mode + (team_.mpi ? " launch=mpi" : " launch=one_process");
  }

 private:
  /// Exit 2 with `why` (rank 0 says it).
  [[noreturn]] void refuse(const std::string& why) const {
    if (speak_) std::fprintf(stderr, "chapter%s: %s\n", spec_.chapter, why.c_str());
    team_.exit(2);
  }

  /// Join MPI. The command line stays the program's: parse_or_exit has read it, and MPI needs
  /// none of it (MPI_Init takes null for both).
  void start_mpi() {
#if WB_WITH_MPI
    MPI_Init(nullptr, nullptr);
    team_.mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &team_.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &team_.size);
#else
    std::fprintf(stderr, "chapter%s: started by mpirun, but this build has no MPI (CMake did not find it); "
                         "install MPI (e.g. libopenmpi-dev) and rebuild, or run ./chapter%s alone\n",
                 spec_.chapter, spec_.chapter);
    std::exit(2);
#endif
  }

  /// G and this process's GPUs: --gpus of the visible ones from --device on, or under MPI
  /// one per process, the rank's among the processes of its machine.
  void choose_gpus(int asked) {
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
      (void)cudaGetLastError();
      if (speak_) std::fprintf(stderr, "no usable CUDA device; nothing to run, exiting 77\n");
      team_.exit(77);
    }
    if (team_.mpi) {
      if (asked != 0 && asked != team_.size)
        refuse("--gpus " + std::to_string(asked) + " is not allowed under mpirun -np " + std::to_string(team_.size) +
               ": one GPU per process");
      gpus_ = team_.size;
      int local_rank = 0;
#if WB_WITH_MPI
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, team_.rank, MPI_INFO_NULL, &node);
      MPI_Comm_rank(node, &local_rank);
      MPI_Comm_free(&node);
#endif
      if (!team_.all(opt_.device + local_rank < visible)) {
        if (speak_)
          std::printf("skipped: mpirun -np %d needs %d GPUs on each machine, from --device %d; this one has %d\n",
                      team_.size, team_.size, opt_.device, visible);
        team_.exit(77);
      }
      Gpu g;
      g.index = team_.rank;
      g.device = opt_.device + local_rank;
      gpus_here_.push_back(g);
      return;
    }
    if (opt_.device >= visible) refuse("--device " + std::to_string(opt_.device) + " is not allowed: this machine has devices 0 to " + std::to_string(visible - 1));
    const int available = visible - opt_.device;
    if (asked > available)
      refuse("--gpus " + std::to_string(asked) + " is not allowed: this machine has " + std::to_string(available) +
             " GPU(s) from --device " + std::to_string(opt_.device));
    gpus_ = asked ? asked : available;
    for (int g = 0; g < gpus_; ++g) {
      Gpu gpu;
      gpu.index = g;
      gpu.local = g;
      gpu.device = opt_.device + g;
      gpus_here_.push_back(gpu);
    }
  }

  /// One NCCL communicator for the G GPUs: this process's ranks.
  void connect() {
    if (team_.mpi) {
#if WB_WITH_MPI
      ncclUniqueId id;
      if (team_.rank == 0) WB_NCCL_CHECK(ncclGetUniqueId(&id));
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
      WB_CHECK(cudaSetDevice(gpus_here_[0].device));
      WB_NCCL_CHECK(ncclCommInitRank(&gpus_here_[0].comm, team_.size, id, team_.rank));
#endif
      return;
    }
    std::vector<ncclComm_t> comms(gpus_here_.size());
    std::vector<int> devices;
    for (const Gpu& g : gpus_here_) devices.push_back(g.device);
    WB_NCCL_CHECK(ncclCommInitAll(comms.data(), gpus_, devices.data()));
    for (size_t k = 0; k < comms.size(); ++k) gpus_here_[k].comm = comms[k];
  }

  /// The first shard of GPU g: the first S mod G GPUs hold one shard more than the others.
  int first_shard_of(int g) const { return g * (shards_ / gpus_) + std::min(g, shards_ % gpus_); }
  /// The GPU of shard s.
  int gpu_of(int s) const {
    int g = 0;
    while (g + 1 < gpus_ && first_shard_of(g + 1) <= s) ++g;
    return g;
  }

  /// Call `work` on each shard of GPU g in turn (of shard 0 alone during an only_first run).
  void each_shard_of(const Gpu& g, const ShardWork& work) const {
    if (!work) return;
    for (const Shard& sh : shards_here_)
      if (sh.gpu == g.local && (!only_first_ || sh.index == 0)) work(sh);
  }

  /// Queue `work` on every GPU as one NCCL group where one process drives several, so that
  /// NCCL launches their collectives together instead of blocking on the first GPU's.
  void group(const GpuWork& work) const {
    if (!team_.mpi) WB_NCCL_CHECK(ncclGroupStart());
    each_gpu(work);
    if (!team_.mpi) WB_NCCL_CHECK(ncclGroupEnd());
  }

  /// Whether every shard's input (at `input(shard)`) is as made; FAIL lines for those that are not.
  bool input_unchanged(const std::string& kernel, const InputOf& input) const {
    if (!input) return true;
    bool ok = true;
    for (const Shard& sh : shards_here_) {
      const int* d = input(sh);
      if (d == nullptr) continue;  // the step overwrote its input (scan_in_place)
      const Finding f = check_shard(sh, d, false);
      if (f.index >= 0) {
        std::fprintf(stderr, "FAIL %s modified its input: element %lld is %d, was %d\n", kernel.c_str(),
                     (long long)f.index, f.got, f.want);
        ok = false;
      }
    }
    return ok;
  }

  const Spec& spec_;
  Options& opt_;
  Team team_;
  bool speak_ = true;       // rank 0: prints the notes and the table
  bool use_gate_ = true;   // whether runs queue behind the gate (not --no-gate)
  bool only_first_ = false; // during a run of shard 0 alone
  int gpus_ = 1, shards_ = 1, slots_ = 1;
  Device dev_;
  std::vector<Gpu> gpus_here_;
  std::vector<Shard> shards_here_;
  std::vector<int64_t> starts_;
  std::vector<DeviceBuffer<char>> flush_;  // one per local GPU: written before each timed run to flush L2
  Reference reference_;
  int* gate_ = nullptr;  // pinned, mapped host memory: [0] open, [1] a gate opened by itself
};

}  // namespace wb
