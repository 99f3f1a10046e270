/// @file multi_gpu.cu
/// @brief Chapter 18: the sum and the scan of one array spread over several GPUs, with
/// NVIDIA's collective library NCCL carrying the few numbers that cross between them.
///
/// The idea: chapter 03's tree, one level up. Inside a GPU, blocks combine their partial
/// results; across GPUs, each GPU's result of its own shard is combined by a collective.
/// The array is cut into shards, contiguous parts of whole scan tiles, one per GPU (or
/// several, `--shards`), and each GPU makes its shards from the same (seed, i) inputs as every
/// chapter, so any number of GPUs and shards gives the same answer.
/// - Sum: each shard is summed with chapter 11's kernel; `ncclAllReduce` of those sums leaves
///   the total on every GPU.
/// - Scan: each shard is summed (chapter 11's kernel again); `ncclAllGather` gives every GPU
///   every shard's total; each shard is scanned with chapter 17's single pass, whose tile 0
///   starts from the shard's carry, the sum of the totals of the shards before it. Each
///   element is read twice and written once: 12 bytes, where scanning first and adding the
///   carry after would read and write everything twice (16 bytes).
///
/// Since chapters 11 and 17: their kernels are included, not copied (reduce_best.cuh and
/// single_pass.cuh, each in its chapter's directory, each in a namespace here, since both
/// chapters name a block sum `block_sum`); new are the carry handed to chapter 17's kernel,
/// the collectives, and the steps of each operation. Everything else of running on several
/// GPUs (devices, streams, NCCL's communicators, MPI, the gate that starts every GPU at once,
/// the timing and the reference check) is the harness's, wb_multi.cuh beside it, as one GPU's
/// is wb::Bench's. The same program times chapter 11's sum and chapter 17's single pass on
/// one GPU over shard 0 alone: the scaling efficiency compares the G-GPU figure with G times
/// that one.

#include "wb_multi.cuh"

/// Chapter 11's sum, its kernel reduce_best and launcher launch_best.
namespace sum {
#include "reduce_best.cuh"
}  // namespace sum

/// Chapter 17's single pass, its tile code, policy and launcher SinglePass.
namespace scan {
#include "single_pass.cuh"
}  // namespace scan

/// Elements per GPU when --n is not given: the default N is this times G.
constexpr int64_t kDefaultPerGpu = int64_t(1) << 30;

// [carry]
/// What tile 0 of a shard starts from: the sum of the totals of the shards before it, which
/// the all-gather has put on every GPU (`gathered`, in the array's order; see wb::Multi), and
/// which wraps around like every sum. Chapter 17's single pass calls it where a scan of the
/// whole array starts from 0 (scan::NoCarryIn).
struct ShardCarry {
  const int* gathered;  ///< every shard's total, at its position
  int position;         ///< this shard's position: the totals before it are its carry

  /// The carry.
  __device__ int operator()() const {
    unsigned carry = 0;
    for (int s = 0; s < position; ++s) carry += unsigned(gathered[s]);
    return int(carry);
  }
};
// [carry]

/// Add `count` values into `*total`, wrapping around: a GPU that holds several shards adds the
/// all-reduced sums of its slots (see wb::Multi) into the one total.
__global__ void add_values(const int* values, int count, int* total) {
  unsigned sum = 0;
  for (int i = 0; i < count; ++i) sum += unsigned(values[i]);
  *total = int(sum);
}

/// What one GPU keeps: the values its collectives send and receive.
struct GpuBuffers {
  wb::DeviceBuffer<int> sums;      ///< its shards' sums, one per slot (what both collectives send)
  wb::DeviceBuffer<int> reduced;   ///< the all-reduced slots, added into `total` (several shards)
  wb::DeviceBuffer<int> total;     ///< the sum of the whole array
  wb::DeviceBuffer<int> gathered;  ///< every shard's total, G x slots (the all-gather's result)
  wb::DeviceBuffer<sum::GridTotal> grid_total;  ///< chapter 11's running total between blocks
};

/// What one shard keeps: its arrays, and chapter 17's statuses and policy for its size.
struct ShardBuffers {
  wb::DeviceArray in;   ///< the shard's input (--offset into its allocation)
  wb::DeviceArray out;  ///< its scan (empty when the scan runs in place)
  std::unique_ptr<scan::SinglePass> single_pass;  ///< its tile counter and statuses
  scan::ScanPolicy policy;                        ///< chapter 17's tuned policy for its size
  scan::SinglePassKernel<ShardCarry> kernel = nullptr;  ///< the single pass for that policy
};

int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "18";
  spec.slug = "multi-gpu";
  spec.idea = "the sum and the scan over several GPUs: each GPU its shard (chapters 11 and 17), NCCL's "
              "all-reduce and all-gather between them";
  spec.op = wb::Op::Scan;
  spec.bytes = "the sums count each element read (4 bytes), the scans each element read and written (8 bytes)";
  spec.part = wb::Part::MultiGpu;
  spec.block = {wb::BlockRule::MultipleOf32, scan::kBlock, 32, 1024};
  spec.batch = {scan::kBatch, scan::kMaxBatch, true};
  spec.variants = {{"all", {"sum_one_gpu", "sum_allreduce", "scan_one_gpu", "scan_allgather"}},
                   {"sum", {"sum_one_gpu", "sum_allreduce"}},
                   {"scan", {"scan_one_gpu", "scan_allgather"}},
                   {"scan_in_place", {"scan_one_gpu_in_place", "scan_allgather_in_place"}}};
  wb::add_multi_gpu_flags(spec);
  spec.extra_usage =
      "  The array of N elements (default 2^30 per GPU) is cut into S shards. Run one process per\n"
      "  GPU with `mpirun -np G ./chapter18` in a build that found MPI.\n";
  wb::Options opt = wb::parse_or_exit(argc, argv, spec);

  wb::Multi m(spec, opt);
  wb::fit_shared_memory(opt, m.device(), scan::stage_bytes);
  const bool in_place = opt.variant == "scan_in_place";
  if (!opt.n_given) {
    // Chapter 17's bytes per element on each GPU (input, output, statuses) decide the default.
    opt.n = kDefaultPerGpu;
    wb::fit_default_n(opt, m.device(), (in_place ? 4.0 : 8.0) + 12.0 / (opt.block * scan::kSmallInputBatch));
    opt.n *= m.gpus();
  }
  m.split(opt.n, int64_t(opt.block) * opt.batch);
  if (m.shards() == 1)
    wb::note(opt, "note: one GPU and one shard: the collectives have one member and the shard is the whole array "
                  "(--shards 2 or more runs the carries on one GPU)\n");

  std::vector<GpuBuffers> gpu(m.gpus_here().size());
  m.each_gpu([&](const wb::Gpu& g) {
    GpuBuffers& b = gpu[size_t(g.local)];
    b.sums = wb::DeviceBuffer<int>(size_t(m.slots()), "the shards' sums");
    b.reduced = wb::DeviceBuffer<int>(size_t(m.slots()), "the all-reduced sums");
    b.total = wb::DeviceBuffer<int>(1, "the total");
    b.gathered = wb::DeviceBuffer<int>(size_t(m.slots() * m.gpus()), "the gathered totals");
    b.grid_total = wb::DeviceBuffer<sum::GridTotal>(1, "the sum's grid total");
    // Slots without a shard send 0; the grid total starts at zero (chapter 11).
    WB_CHECK(cudaMemsetAsync(b.sums.get(), 0, sizeof(int) * b.sums.size(), g.stream));
    WB_CHECK(cudaMemsetAsync(b.grid_total.get(), 0, sizeof(sum::GridTotal), g.stream));
  });
  std::vector<ShardBuffers> shard(m.shards_here().size());
  for (const wb::Shard& sh : m.shards_here()) {
    ShardBuffers& b = shard[size_t(sh.local)];
    const wb::Gpu& g = m.gpu(sh);
    WB_CHECK(cudaSetDevice(g.device));
    const int64_t count = std::max<int64_t>(sh.count, 1);
    b.in = wb::make_array(opt, count, "the shard's input");
    // A separate output only where a scan writes one (the sum writes one number; scan_in_place overwrites its input).
    if (opt.variant == "all" || opt.variant == "scan") b.out = wb::make_array(opt, count, "the shard's output");
    b.policy = scan::choose_policy<ShardCarry>(opt, m.device(), sh.count);
    b.kernel = scan::single_pass_kernel<ShardCarry>(b.policy.batch, b.policy.block);
    b.single_pass = std::make_unique<scan::SinglePass>(
        scan::tiles_for(count, opt.block, std::min(opt.batch, scan::kSmallInputBatch)), g.stream);
    m.make_input(sh, b.in.d);
  }
  m.each_gpu([](const wb::Gpu& g) { WB_CHECK(cudaStreamSynchronize(g.stream)); });
  const int64_t max_sum_blocks = int64_t(m.device().sms) * wb::blocks_per_sm(sum::kernel_for(sum::kBatch), sum::kBlock);
  m.describe();

  // The work of each row.
  // [steps]
  const wb::ShardWork shard_sum = [&](const wb::Shard& sh) {
    sum::launch_best(shard[size_t(sh.local)].in.d, sh.count, gpu[size_t(sh.gpu)].sums.get() + sh.slot,
                     gpu[size_t(sh.gpu)].grid_total.get(), sum::kBlock, sum::kBatch, max_sum_blocks, m.gpu(sh).stream);
  };
  // uint32: NCCL's sum then wraps around as the GPU's int32 adds do (signed overflow is undefined in C++).
  const wb::GpuWork all_reduce = [&](const wb::Gpu& g) {
    GpuBuffers& b = gpu[size_t(g.local)];
    int* into = m.slots() == 1 ? b.total.get() : b.reduced.get();
    WB_NCCL_CHECK(ncclAllReduce(b.sums.get(), into, size_t(m.slots()), ncclUint32, ncclSum, g.comm, g.stream));
  };
  const wb::GpuWork add_slots = [&](const wb::Gpu& g) {
    if (m.slots() > 1) add_values<<<1, 1, 0, g.stream>>>(gpu[size_t(g.local)].reduced.get(), m.slots(), gpu[size_t(g.local)].total.get());
  };
  const wb::GpuWork all_gather = [&](const wb::Gpu& g) {
    GpuBuffers& b = gpu[size_t(g.local)];
    WB_NCCL_CHECK(ncclAllGather(b.sums.get(), b.gathered.get(), size_t(m.slots()), ncclInt32, g.comm, g.stream));
  };
  auto scan_out = [&](const wb::Shard& sh) -> int* {
    ShardBuffers& b = shard[size_t(sh.local)];
    return in_place ? b.in.d : b.out.d;
  };
  const wb::ShardWork seeded_scan = [&](const wb::Shard& sh) {
    ShardBuffers& b = shard[size_t(sh.local)];
    const ShardCarry carry{gpu[size_t(sh.gpu)].gathered.get(), m.position(sh)};
    b.single_pass->launch(b.policy, b.kernel, b.in.d, sh.count, scan_out(sh), carry);
  };
  const wb::Steps sum_one{shard_sum, nullptr, nullptr, nullptr};
  const wb::Steps sum_all{shard_sum, all_reduce, add_slots, nullptr};
  const wb::Steps scan_one{nullptr, nullptr, nullptr, seeded_scan};  // shard 0: its carry is 0
  const wb::Steps scan_all{shard_sum, all_gather, nullptr, seeded_scan};
  // [steps]

  // Untimed steps before a run: poison what the run must write; remake an input overwritten in place.
  const wb::ShardWork poison_sum = [&](const wb::Shard& sh) {
    const GpuBuffers& b = gpu[size_t(sh.gpu)];
    WB_CHECK(cudaMemsetAsync(b.sums.get() + sh.slot, 0xA5, sizeof(int), m.gpu(sh).stream));
    WB_CHECK(cudaMemsetAsync(b.total.get(), 0xA5, sizeof(int), m.gpu(sh).stream));
  };
  const wb::ShardWork poison_scan = [&](const wb::Shard& sh) {
    const GpuBuffers& b = gpu[size_t(sh.gpu)];
    if (in_place)
      m.make_input(sh, shard[size_t(sh.local)].in.d);
    else
      WB_CHECK(cudaMemsetAsync(scan_out(sh), 0xA5, size_t(sh.count) * 4, m.gpu(sh).stream));
    WB_CHECK(cudaMemsetAsync(b.gathered.get(), 0xA5, sizeof(int) * b.gathered.size(), m.gpu(sh).stream));
  };

  // Checks after a run. The sum of shard 0 alone is the scan's value at shard 1's start.
  auto check_sum = [&](bool only_first, const std::string& kernel, const std::string& when) {
    bool ok = true;
    for (const wb::Shard& sh : m.shards_here()) {
      if (sh.slot != 0 || (only_first && sh.index != 0)) continue;  // one value per GPU
      int got = 0;
      const GpuBuffers& b = gpu[size_t(sh.gpu)];
      WB_CHECK(cudaMemcpy(&got, only_first ? b.sums.get() : b.total.get(), sizeof got, cudaMemcpyDeviceToHost));
      const uint32_t want = only_first ? m.reference().before(sh.first + sh.count) : m.reference().total;
      if (uint32_t(got) != want) {
        std::fprintf(stderr, "FAIL %s (%s): GPU %d holds %d, expected %d\n", kernel.c_str(), when.c_str(),
                     m.gpu(sh).index, got, int32_t(want));
        ok = false;
      }
    }
    return ok;
  };
  const wb::Multi::InputOf input = [&](const wb::Shard& sh) -> const int* {
    return in_place ? nullptr : shard[size_t(sh.local)].in.d;
  };

  std::vector<wb::Row> rows;
  const std::string policy = shard[0].policy.describe();
  // One row: the runs of `steps`, each checked, with the tile's shape for a scan.
  auto measure = [&](const std::string& kernel, bool only_first, const wb::Steps& steps, bool is_scan,
                     const std::string& config) {
    const wb::Multi::Check check = [&](const std::string& when) {
      return is_scan ? m.check_scan(kernel, when, only_first, scan_out) : check_sum(only_first, kernel, when);
    };
    wb::Row r = m.measure(kernel, only_first, steps, is_scan ? poison_scan : poison_sum, check, input,
                          is_scan ? 8.0 : 4.0, config);
    r.block = is_scan ? shard[0].policy.block : sum::kBlock;
    r.batch = is_scan ? shard[0].policy.batch : sum::kBatch;
    rows.push_back(r);
    return r;
  };
  auto efficiency_note = [&](const wb::Row& multi, const wb::Row& one) {
    char text[96];
    std::snprintf(text, sizeof text, "%.1f GB/s per GPU, %.3f of %d x one GPU", multi.gbps / m.gpus(),
                  one.gbps > 0 ? multi.gbps / (m.gpus() * one.gbps) : 0.0, m.gpus());
    rows.back().note = text;
  };

  const bool all = opt.variant == "all";
  if (all || opt.variant == "sum") {
    const wb::Row one = measure("sum_one_gpu", true, sum_one, false, "gpus=1 (shard 0 alone)");
    const wb::Row multi = measure("sum_allreduce", false, sum_all, false, m.launch_mode());
    efficiency_note(multi, one);
  }
  if (all || opt.variant == "scan" || in_place) {
    const wb::Row one = measure(in_place ? "scan_one_gpu_in_place" : "scan_one_gpu", true, scan_one, true,
                                "gpus=1 (shard 0 alone) " + policy);
    const wb::Row multi = measure(in_place ? "scan_allgather_in_place" : "scan_allgather", false, scan_all, true,
                                  m.launch_mode() + " " + policy);
    efficiency_note(multi, one);
  }
  m.finish(rows);
}
