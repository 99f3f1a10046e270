/// @file cub_and_beyond.cu
/// @brief Chapter 11: the workbook's best reduction beside `cub::DeviceReduce::Sum`, in one
/// table, from 2^8 to 2^31 elements.
///
/// The idea: CUB is NVIDIA's library of tuned device-wide primitives; its sum of int32 is the
/// vendor's answer to this whole workbook. Above one tile (4096 elements on this GPU) it runs
/// two kernels: the first writes one partial sum per block, the second adds the partials.
/// The workbook's best kernel does the same work in a single launch with nothing before it:
/// chapter 10's int4 body with its scalar head and tail, each block given one contiguous,
/// equal share of the body, and the blocks' totals combined by the last block to finish
/// (chapter 08's idea) through a sum and a counter that reset themselves, so no memset is
/// needed between launches.
///
/// What it teaches: at large N both are bound by the same memory bandwidth, and what is left
/// to win is the fixed cost around the stream: the second launch, the work given to the last
/// blocks, the memset. At small N the fixed cost is all there is.
///
/// Since chapter 10: no memset. Each block adds its total to a running sum that lives beside
/// a count of finished blocks; the block that finishes last moves the sum into `*sum` and
/// leaves both at zero. Blocks get contiguous shares that differ by at most 512 bytes instead
/// of whole tiles in turn, so they all finish together; a grid of one block writes `*sum`
/// directly. CUB runs beside it, its temporary storage allocated once outside the timing.
/// `--variant sweep` runs both at every power of two from 2^8 up to N (default N 2^31).

#include <cub/cub.cuh>

// The kernel, its plan and its launcher, which chapter 18 shares: read them in
// reduce_best.cuh, beside this file.
#include "reduce_best.cuh"

/// The smallest N of `--variant sweep`.
constexpr int64_t kSweepFrom = int64_t(1) << 8;
/// The largest N of `--variant sweep` when --n is not given.
constexpr int64_t kSweepDefaultN = int64_t(1) << 31;

/// The bytes of temporary storage CUB asks for to sum n ints (its first, sizing call).
size_t cub_temp_bytes(const int* in, int64_t n, int* sum) {
  size_t bytes = 0;
  WB_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, sum, n));
  return bytes;
}

/// One call of `cub::DeviceReduce::Sum` with temporary storage allocated beforehand.
void launch_cub(void* temp, size_t temp_bytes, const int* in, int64_t n, int* sum) {
  WB_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n));
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


int main(int argc, char** argv) {
  wb::Spec spec;
  spec.chapter = "11";
  spec.slug = "cub-and-beyond";
  spec.idea = "one launch, no memset, int4 body: the workbook's best sum beside cub::DeviceReduce::Sum "
              "(--batch K = int4 loads per thread)";
  spec.op = wb::Op::Reduce;
  spec.part = wb::Part::Reduction;
  spec.block = {wb::BlockRule::MultipleOf32, kBlock, 32, kMaxBlock};
  spec.batch = {kBatch, kMaxBatch, true, "16-byte int4 loads (4 elements each) per thread"};
  spec.variants = {{"single", {"cub_device_reduce_sum", "reduce_best"}},
                   {"sweep", {"cub_device_reduce_sum", "reduce_best"}}};

  wb::Options opt = wb::parse_or_exit(argc, argv, spec);
  const bool sweep = opt.variant == "sweep";
  if (sweep && !opt.n_given) opt.n = kSweepDefaultN;
  wb::Device dev = wb::open_device(opt);
  wb::fit_default_n(opt, dev, 4);
  wb::Input in = wb::make_input(opt);
  const std::vector<int64_t> sizes = sizes_to_run(in.n, sweep);
  wb::DeviceBuffer<int> sum(1, "the sum");
  size_t temp_bytes = 0;
  for (const int64_t s : sizes) temp_bytes = std::max(temp_bytes, cub_temp_bytes(in.d, s, sum.get()));
  wb::DeviceBuffer<char> temp(temp_bytes, "CUB's temporary storage");
  wb::DeviceBuffer<GridTotal> grid_total(1, "the grid total");
  WB_CHECK(cudaMemset(grid_total.get(), 0, sizeof(GridTotal)));
  const int occupancy = wb::blocks_per_sm(kernel_for(opt.batch), opt.block);
  const int64_t max_blocks = int64_t(dev.sms) * occupancy;

  wb::Bench bench(spec, opt, dev, in);
  for (const int64_t s : sizes) {
    const int32_t want = wb::cpu_sum(in.host.data(), s);
    const wb::Row cub = bench.run({"cub_device_reduce_sum", s, 0, 0, 0, 0},
                                  [&] { launch_cub(temp.get(), temp_bytes, in.d, s, sum.get()); }, sum.get(), &want, 1);
    const wb::Row ours = bench.run({"reduce_best", s, opt.block, opt.batch, 0, occupancy},
                                   [&] { launch_best(in.d, s, sum.get(), grid_total.get(), opt.block, opt.batch, max_blocks); },
                                   sum.get(), &want, 1);
    bench.annotate_last(wb::versus_cub(cub, ours));
  }
  return bench.finish();
}
