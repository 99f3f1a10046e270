/// @file tma_ring.cuh
/// @brief A ring of shared-memory stages that Hopper's copy engine fills: the stage pipeline
/// (producer acquire and commit, consumer wait and release) with its phase, the bulk copies, and
/// the one wait that the trap and clock builds hook into. Chapter 22's ring copy runs on it, and
/// so does chapter 23's look-ahead scan, which includes it from here.
///
/// Written with CUDA C++'s own API, not inline PTX: the Programming Guide's one-dimensional bulk
/// copy (`cuda::device::memcpy_async_tx` on a `cuda::barrier`, whose `barrier_arrive_tx` announces
/// the bytes), and libcu++'s `cuda::ptx` functions, one per PTX instruction, for what the guide's
/// API does not say: a wait for a phase by its parity, bulk stores and their groups, and fences.
#pragma once

#include <cuda/barrier>
#include <cuda/ptx>

#include <cstdint>
#include <cstdio>
#include <string>

#include "workbook.cuh"
// The trap and clock builds, and the clock build's counts.
#include "ring_builds.cuh"

/// 1 where device code may use bulk copies and transaction-count barriers (sm_90 and newer).
/// The host pass and older targets see 0; kernels then compile to a stub that traps.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WB_HAS_BULK_COPY 1
#else
#define WB_HAS_BULK_COPY 0
#endif

namespace ring {

/// The alignment of every tile a bulk copy moves: the instruction requires 16 bytes, and the copy
/// engine moves whole 128-byte lines fastest.
constexpr int64_t kBulkAlign = 128;

/// Ints before the first 128-byte line at `in` (0 to 31, at most n): a ring whose tiles start on
/// whole lines moves them apart, with plain loads and stores.
__host__ __device__ inline int64_t head_ints(const int* in, int64_t n) {
  const int64_t past = int64_t(reinterpret_cast<uintptr_t>(in) % uintptr_t(kBulkAlign));
  const int64_t head = (kBulkAlign - past) % kBulkAlign / 4;
  return head < n ? head : n;
}

/// A shared-memory barrier whose phase completes when its expected arrivals have come and, where
/// a bulk copy signals it, the bytes announced have landed.
using Barrier = cuda::barrier<cuda::thread_scope_block>;

// [phase]
/// Where a role stands in a ring of S stages: use k of the ring (the block's k-th tile) takes
/// stage k mod S and waits for the phase of parity (k / S) mod 2 of that stage's barriers. Each
/// role keeps its own Phase and advances it once a tile, so every role sees the tiles in the
/// same order and no role computes a parity itself.
struct Phase {
  int stage = 0;        ///< k mod S
  uint32_t parity = 0;  ///< (k / S) mod 2
  /// The next use: the next stage, or after the last one the first again, with the other parity.
  __device__ __forceinline__ void advance(int stages) {
    if (++stage == stages) {
      stage = 0;
      parity ^= 1;
    }
  }
};
// [phase]


// The device functions below need sm_90; kernels call them only where WB_HAS_BULK_COPY is 1.

/// The mbarrier word of a barrier, which the cuda::ptx functions take.
__device__ __forceinline__ uint64_t* word(Barrier& b) { return cuda::device::barrier_native_handle(b); }

// [wait]
/// Spin until the phase of parity `parity` of `b` has completed. `which` is the chapter's name for
/// this wait (an enumerator), which the test builds of ring_builds.cuh hook into: the trap build
/// turns a wait of over a second into an error that names it, the clock build counts its cycles.
template <class Which>
__device__ __forceinline__ void wait(Barrier& b, uint32_t parity, Which which) {
  const WaitStart start = wait_start();
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, word(b), parity))
    still_waiting(start, which, parity);
  waited(start, which);
}
// [wait]

/// Arrive once on `b`. Release: this thread's earlier reads and writes of the stage come before
/// the phase completes, for whoever waits for it (acquire).
__device__ __forceinline__ void arrive(Barrier& b) {
  (void)cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, word(b));
}

/// Set `count` barriers at `b` to complete a phase on `arrivals` arrivals each, then make them
/// visible to the other threads and to the copy engine (a __syncthreads() must follow).
__device__ __forceinline__ void init_barriers(Barrier* b, int count, int arrivals) {
  for (int i = 0; i < count; ++i) init(&b[i], arrivals);  // cuda::barrier's own init
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

// [pipeline]
/// A one-way signal per stage: the roles that do one part of a stage's work arrive on its barrier
/// when their part is done, and the role that needs that part waits for the barrier's phase.
struct Signal {
  Barrier* bars;  ///< one barrier per stage
  /// This thread's part of the tile in the stage of `at` is done.
  __device__ void arrive(const Phase& at) const { ring::arrive(bars[at.stage]); }
  /// Wait until every part of the tile in the stage of `at` is done.
  template <class Which>
  __device__ void wait(const Phase& at, Which which) const {
    ring::wait(bars[at.stage], at.parity, which);
  }
};

/// A ring of S stages between a producer, which fills them, and consumers, which empty them: a
/// signal per direction, `full` (the stage has landed) and `empty` (its consumers are done with
/// it). The four moves are named as in CUTLASS's PipelineTmaAsync.
struct Pipeline {
  Signal full;   ///< the stage has landed: the producer's arrivals, and the bytes it announced
  Signal empty;  ///< the stage may be refilled: the consumers' arrivals
  int stages;    ///< S

  /// The producer waits until the stage of `at` is empty. Its first round waits for the phase of
  /// parity 1, which a fresh barrier counts as completed: every stage starts empty.
  template <class Which>
  __device__ void producer_acquire(const Phase& at, Which which) const {
    wait(empty.bars[at.stage], at.parity ^ 1, which);
  }
  /// The producer copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global
  /// memory into the stage and arrives on full, announcing the bytes: the phase completes once
  /// the copy engine has counted them all down, and the producer's other arrivals have come.
  __device__ void producer_commit(const Phase& at, void* stage, const void* src, uint32_t bytes) const {
    cuda::device::memcpy_async_tx(static_cast<char*>(stage), static_cast<const char*>(src),
                                  cuda::aligned_size_t<16>(bytes), full.bars[at.stage]);
    (void)cuda::device::barrier_arrive_tx(full.bars[at.stage], 1, bytes);
  }
  /// A producer thread that copied nothing, or wrote its part with plain stores, arrives on full.
  __device__ void producer_commit(const Phase& at) const { full.arrive(at); }
  /// A consumer waits until the stage of `at` has landed.
  template <class Which>
  __device__ void consumer_wait(const Phase& at, Which which) const {
    full.wait(at, which);
  }
  /// A consumer is done with the stage of `at`: once all have arrived, it may be refilled.
  __device__ void consumer_release(const Phase& at) const { empty.arrive(at); }
};
// [pipeline]

// [bulk_store]
/// Order this thread's plain writes to shared memory before the bulk copies that read it next:
/// the copy engine reads through the async proxy, which does not see plain stores without it.
__device__ __forceinline__ void fence_for_bulk_store() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

/// Copy `bytes` (a multiple of 16) from a stage to global memory, as a bulk group of its own.
__device__ __forceinline__ void bulk_store(void* dst, const void* stage, uint32_t bytes) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst, stage, bytes);
  cuda::ptx::cp_async_bulk_commit_group();
}

/// Wait until this thread's bulk stores have read their stages: the stages may be refilled.
__device__ __forceinline__ void bulk_stores_read() { cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>()); }

/// Wait until this thread's bulk stores have written global memory.
__device__ __forceinline__ void bulk_stores_done() { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>()); }
// [bulk_store]

// ---- The host's side --------------------------------------------------------------------------

/// Exit 77 where this GPU or this build cannot run `kernel`: a GPU older than sm_90 has no bulk
/// copies, and a build without sm_90 code runs the kernels' stubs (the driver compiles the PTX of
/// an older target for a Hopper GPU, so a check of the GPU alone would pass).
template <class Kernel>
void require_bulk_copies(const wb::Device& dev, const char* chapter, Kernel kernel) {
  if (dev.major < 9) {
    std::fprintf(stderr,
                 "skipped: chapter %s needs compute capability 9.0 or newer (bulk copies and transaction-count "
                 "barriers); device %d, %s, is sm_%d%d: nothing to run, exiting 77\n",
                 chapter, dev.id, dev.name.c_str(), dev.major, dev.minor);
    std::exit(77);
  }
  cudaFuncAttributes attributes;
  WB_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  if (attributes.ptxVersion < 90) {  // not "skipped": on a Hopper GPU this build is a mistake
    std::fprintf(stderr,
                 "chapter%s was built without sm_90 code (its kernel comes from compute_%d), so it cannot use bulk "
                 "copies on this sm_%d%d GPU: build it for this GPU (make chapter%s, or CMAKE_CUDA_ARCHITECTURES "
                 "with 90); exiting 77\n",
                 chapter, attributes.ptxVersion, dev.major, dev.minor, chapter);
    std::exit(77);
  }
}

/// Bulk copies move data between two addresses of the same alignment modulo 128 bytes; the harness
/// places the input and the output alike, for every --offset. Exit 1 where it did not.
inline void require_same_alignment(const int* in, const int* out, const char* chapter) {
  if ((reinterpret_cast<uintptr_t>(in) ^ reinterpret_cast<uintptr_t>(out)) % uintptr_t(kBulkAlign) != 0) {
    std::fprintf(stderr, "FAIL chapter%s: the input and the output are not aligned alike modulo %d bytes\n", chapter,
                 int(kBulkAlign));
    std::exit(1);
  }
}

/// The stages of `kernel`'s ring: --stages if given, else `preferred`, lowered with a note until
/// `bytes(S)`, its dynamic shared memory with S stages of `stage_bytes`, fits in what a block may
/// have on this GPU. Where the stages given do not fit, exit 2 saying what they need. The stages
/// are then set as the kernel's dynamic shared memory.
template <class Kernel, class Bytes>
int fit_stages(const wb::Options& opt, const wb::Device& dev, const char* chapter, Kernel kernel, int preferred,
               int stage_bytes, Bytes bytes) {
  cudaFuncAttributes attributes;
  WB_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int64_t limit = int64_t(dev.max_smem_per_block) - int64_t(attributes.sharedSizeBytes);
  const int given = int(opt.harness_value("--stages", 0));
  int stages = given > 0 ? given : preferred;
  while (given == 0 && stages > 1 && bytes(stages) > limit) --stages;
  if (bytes(stages) > limit) {
    std::fprintf(stderr,
                 "chapter%s: --stages %d of %d bytes need %lld bytes of shared memory per block, with their barriers "
                 "and notes; this GPU allows %lld: give fewer or smaller stages\n",
                 chapter, stages, stage_bytes, (long long)bytes(stages), (long long)limit);
    std::exit(2);
  }
  if (given == 0 && stages != preferred)
    wb::note(opt, "note: %d stages of %d bytes need more shared memory per block than this GPU allows (%lld bytes); "
                  "using %d stages\n",
             preferred, stage_bytes, (long long)limit, stages);
  WB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes(stages))));
  return stages;
}

}  // namespace ring
