// Host tests of the common header: the command line, the CPU references and the CSV.
// Every expected value here was worked out by hand (see the comments), not computed by
// the code under test.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "host_test.h"
#include "wb_checks.h"
#include "wb_options.h"
#include "wb_reference.h"
#include "wb_report.h"

static wb::Spec full_spec() {
  wb::Spec s;
  s.chapter = "99";
  s.slug = "test";
  s.idea = "a chapter with every optional flag";
  s.part = wb::Part::Reduction;
  s.block = {wb::BlockRule::PowerOfTwo, 256, 32, 1024};
  s.batch = {8, 64, false};
  s.variants = {{"warp", {"reduce_warp"}}, {"block", {"reduce_block"}}};
  s.variants.push_back(wb::every_variant(s.variants));
  s.needs_cub = {{"reduce_block", "3.1.0"}};
  s.racy = true;
  return s;
}

static wb::Parse parse(std::vector<const char*> args, const wb::Spec& spec, wb::Options& opt, std::string& err) {
  args.insert(args.begin(), "chapter99");
  return wb::parse_args(int(args.size()), args.data(), spec, opt, err);
}

static void test_counts() {
  int64_t v = -1;
  EXPECT(wb::parse_count("1000", v) && v == 1000);
  EXPECT(wb::parse_count("2^30", v) && v == 1073741824);
  EXPECT(wb::parse_count("1<<20", v) && v == 1048576);
  EXPECT(wb::parse_count("2^0", v) && v == 1);
  EXPECT(wb::parse_count("2^62", v) && v == 4611686018427387904LL);
  EXPECT(!wb::parse_count("2^63", v));
  EXPECT(!wb::parse_count("", v));
  EXPECT(!wb::parse_count("-5", v));
  EXPECT(!wb::parse_count("+5", v));
  EXPECT(!wb::parse_count("12abc", v));
  EXPECT(!wb::parse_count("1e9", v));
  EXPECT(!wb::parse_count("2^", v));
  EXPECT(!wb::parse_count("9999999999999999999", v));  // 19 digits: refused rather than overflowing
}

static void test_parse_valid() {
  wb::Spec spec = full_spec();
  wb::Options o;
  std::string err;
  EXPECT(parse({}, spec, o, err) == wb::Parse::Ok);
  EXPECT(o.n == (int64_t(1) << 30) && !o.n_given && o.block == 256 && o.batch == 8);
  EXPECT(o.variant == "warp" && o.reps == 20 && o.warmup == 3 && o.flush && !o.csv && !o.racy);

  EXPECT(parse({"--n", "2^31", "--offset", "3", "--block", "512", "--batch", "64", "--variant", "all", "--reps",
                "5", "--warmup", "0", "--seed", "7", "--no-flush", "--racy", "--csv", "--device", "1"},
               spec, o, err) == wb::Parse::Ok);
  EXPECT(o.n == 2147483648LL && o.n_given && o.offset == 3 && o.block == 512 && o.batch == 64);
  EXPECT(o.variant == "all" && o.reps == 5 && o.warmup == 0 && o.seed == 7 && !o.flush && o.racy && o.csv &&
         o.device == 1);

  EXPECT(parse({"--n=1<<10", "--block=32"}, spec, o, err) == wb::Parse::Ok);
  EXPECT(o.n == 1024 && o.block == 32);
  EXPECT(parse({"--n", "5", "--help"}, spec, o, err) == wb::Parse::Help);
  EXPECT(parse({"-h"}, spec, o, err) == wb::Parse::Help);
}

static void expect_error(std::vector<const char*> args, const wb::Spec& spec, const std::string& fragment) {
  wb::Options o;
  std::string err;
  bool refused = parse(args, spec, o, err) == wb::Parse::Error;
  EXPECT(refused);
  bool names = err.find(fragment) != std::string::npos;
  EXPECT(names);
  if (!refused || !names) std::printf("  message was: '%s' (wanted '%s')\n", err.c_str(), fragment.c_str());
}

static void test_parse_invalid() {
  wb::Spec spec = full_spec();
  expect_error({"--n", "-5"}, spec, "--n '-5' is not allowed: give a whole number from 1 to");
  expect_error({"--n", "abc"}, spec, "--n 'abc' is not allowed");
  expect_error({"--n", "0"}, spec, "--n '0' is not allowed");
  expect_error({"--n"}, spec, "--n needs a value");
  expect_error({"--n="}, spec, "--n '' is not allowed");
  expect_error({"--n", "2^41"}, spec, "is not allowed");  // over kMaxN
  expect_error({"--offset", "-1"}, spec, "--offset '-1' is not allowed");
  expect_error({"--reps", "0"}, spec, "--reps '0' is not allowed");
  expect_error({"--frobnicate"}, spec, "unknown argument '--frobnicate'");
  expect_error({"extra"}, spec, "unknown argument 'extra'");
  expect_error({"--csv=1"}, spec, "--csv takes no value");
  expect_error({"--block", "48"}, spec, "--block '48' is not allowed: this chapter takes a power of two from 32 to 1024");
  expect_error({"--block", "2048"}, spec, "a power of two from 32 to 1024");
  expect_error({"--block", "16"}, spec, "a power of two from 32 to 1024");
  expect_error({"--batch", "0"}, spec, "--batch '0' is not allowed: this chapter takes a whole number from 1 to 64");
  expect_error({"--batch", "65"}, spec, "from 1 to 64");
  expect_error({"--variant", "grid"}, spec, "--variant 'grid' is not known: this chapter takes warp block all");

  // Flags a chapter does not have are unknown there.
  wb::Spec bare;
  bare.chapter = "98";
  expect_error({"--block", "256"}, bare, "unknown argument '--block'");
  expect_error({"--batch", "4"}, bare, "unknown argument '--batch'");
  expect_error({"--variant", "x"}, bare, "unknown argument '--variant'");
  expect_error({"--racy"}, bare, "unknown argument '--racy'");

  // A harness flag whose values must be multiples of a step: the step is checked and named, and
  // a multiple within the range is taken (the control).
  wb::Spec stepped = bare;
  stepped.harness_flags = {{"--stage-bytes", "B", 128, 1024, "", 128}};
  expect_error({"--stage-bytes", "200"}, stepped,
               "--stage-bytes '200' is not allowed: give a multiple of 128 from 128 to 1024");
  expect_error({"--stage-bytes", "1152"}, stepped, "give a multiple of 128 from 128 to 1024");
  {
    wb::Options o;
    std::string e;
    EXPECT(parse({"--stage-bytes=384"}, stepped, o, e) == wb::Parse::Ok && o.harness_value("--stage-bytes", 0) == 384);
  }

  wb::Spec m32 = bare;
  m32.block = {wb::BlockRule::MultipleOf32, 128, 32, 1024};
  expect_error({"--block", "100"}, m32, "a multiple of 32 from 32 to 1024");
  wb::Options o;
  std::string err;
  EXPECT(parse({"--block", "96"}, m32, o, err) == wb::Parse::Ok && o.block == 96);
}

static void test_fit_tile() {
  // A tile needing block * batch * 4 bytes (ints), as a staging buffer would.
  auto bytes = [](int block, int batch) { return size_t(block) * size_t(batch) * 4; };
  wb::Spec spec = full_spec();  // defaults: block 256, batch 8
  wb::Options o;
  std::string err, msg;
  // Fits: nothing changes, no message.
  EXPECT(parse({}, spec, o, err) == wb::Parse::Ok);
  EXPECT(wb::fit_tile(o, 8192, bytes, msg) && o.block == 256 && o.batch == 8 && msg.empty());
  // Defaults too large: K halves first (256 x 8 = 8 KB -> 256 x 2 = 2 KB fits 2 KB).
  EXPECT(wb::fit_tile(o, 2048, bytes, msg) && o.block == 256 && o.batch == 2);
  EXPECT(msg.find("using --block 256 --batch 2") != std::string::npos);
  // Then the block: 1 KB takes 256 x 1 -> 128 x 1 = 512 B.
  EXPECT(parse({}, spec, o, err) == wb::Parse::Ok);
  EXPECT(wb::fit_tile(o, 512, bytes, msg) && o.block == 128 && o.batch == 1);
  // A given --batch is kept; the default block shrinks instead (4 KB / (16 x 4) = 64 threads).
  EXPECT(parse({"--batch", "16"}, spec, o, err) == wb::Parse::Ok && o.batch_given && !o.block_given);
  EXPECT(wb::fit_tile(o, 4096, bytes, msg) && o.block == 64 && o.batch == 16);
  // Given values that do not fit are refused, naming the limit.
  EXPECT(parse({"--block", "1024", "--batch", "64"}, spec, o, err) == wb::Parse::Ok);
  EXPECT(!wb::fit_tile(o, 65536, bytes, msg) && o.block == 1024 && o.batch == 64);
  EXPECT(msg.find("needs 262144 bytes of shared memory per block; this GPU allows 65536") != std::string::npos);
  // Nothing can fit below 32 threads x 1: refused even for defaults.
  EXPECT(parse({}, spec, o, err) == wb::Parse::Ok);
  EXPECT(!wb::fit_tile(o, 64, bytes, msg) && o.block == 32 && o.batch == 1);
}

static void test_usage() {
  std::string u = wb::usage(full_spec());
  EXPECT(u.find("usage: ./chapter99") != std::string::npos);
  EXPECT(u.find("a chapter with every optional flag") != std::string::npos);
  EXPECT(u.find("(default 256)") != std::string::npos);
  EXPECT(u.find("one of: warp block all (default warp)") != std::string::npos);
  EXPECT(u.find("--racy") != std::string::npos);
}

// Whether `got` is exactly `want`; if not, say where they first differ (unless `quiet`, as in a
// negative control that expects them to differ).
static bool same_text(const std::string& got, const std::string& want, bool quiet = false) {
  if (got == want) return true;
  if (!quiet) {
    size_t at = 0;
    while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
    std::printf("  texts differ at byte %zu:\n  got:  '%s'\n  want: '%s'\n", at, got.substr(at, 40).c_str(),
                want.substr(at, 40).c_str());
  }
  return false;
}

static void test_json() {
  // Quotes, backslashes and control characters, as Python's json module writes them.
  EXPECT(same_text(wb::json_quote("plain"), "\"plain\""));
  EXPECT(same_text(wb::json_quote("a\"b\\c/d"), "\"a\\\"b\\\\c/d\""));
  EXPECT(same_text(wb::json_quote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\""));
  EXPECT(same_text(wb::json_quote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\x7f\""));
  EXPECT(same_text(wb::json_quote(std::string("nul\0x", 5)), "\"nul\\u0000x\""));
  // Numbers as Python's repr() writes floats: the shortest text that reads back the same double.
  EXPECT(same_text(wb::json_number(4814.0), "4814.0"));
  EXPECT(same_text(wb::json_number(4916.736), "4916.736"));  // 2 x 3201 MHz x 768 bytes
  EXPECT(same_text(wb::json_number(0.1), "0.1"));
  EXPECT(same_text(wb::json_number(-0.5), "-0.5"));
  EXPECT(same_text(wb::json_number(1e10), "10000000000.0"));
  EXPECT(same_text(wb::json_number(1e16), "1e+16"));
  EXPECT(same_text(wb::json_number(1.5e-7), "1.5e-07"));
  EXPECT(same_text(wb::json_number(1.0 / 3), "0.3333333333333333"));
  // Empty containers stay on one line, as json.dumps(indent=2) writes them.
  EXPECT(same_text(wb::Json::array().dump(), "[]"));
  EXPECT(same_text(wb::Json::object().dump(), "{}"));
  EXPECT(same_text(wb::Json().dump(), "null"));
}

// The device object of a made-up GPU, built as wb::cuda_device_info builds a real one.
static wb::Json made_up_device() { return wb::device_json(1, "GPU \"X\"", "90", 132, 52428800, 4916.736, 2); }

static void test_info() {
  // Every optional flag, three variants (all's rows are the other two's), a device.
  const std::string full =
      "{\n"
      "  \"chapter\": \"99\",\n"
      "  \"slug\": \"test\",\n"
      "  \"idea\": \"a chapter with every optional flag\",\n"
      "  \"part\": \"reduction\",\n"
      "  \"op\": \"reduce\",\n"
      "  \"bytes_per_element\": 4,\n"
      "  \"bytes\": \"each input element read once (4 bytes)\",\n"
      "  \"flags\": [\n"
      "    \"--n\",\n    \"--offset\",\n    \"--reps\",\n    \"--warmup\",\n    \"--seed\",\n"
      "    \"--no-flush\",\n    \"--csv\",\n    \"--device\",\n    \"--block\",\n    \"--batch\",\n"
      "    \"--variant\",\n    \"--racy\"\n"
      "  ],\n"
      "  \"block\": {\n"
      "    \"rule\": \"power-of-two\",\n"
      "    \"default\": 256,\n"
      "    \"min\": 32,\n"
      "    \"max\": 1024\n"
      "  },\n"
      "  \"batch\": {\n"
      "    \"default\": 8,\n"
      "    \"max\": 64,\n"
      "    \"power_of_two\": false\n"
      "  },\n"
      "  \"variants\": [\n"
      "    {\n"
      "      \"name\": \"warp\",\n"
      "      \"kernels\": [\n"
      "        \"reduce_warp\"\n"
      "      ]\n"
      "    },\n"
      "    {\n"
      "      \"name\": \"block\",\n"
      "      \"kernels\": [\n"
      "        \"reduce_block\"\n"
      "      ]\n"
      "    },\n"
      "    {\n"
      "      \"name\": \"all\",\n"
      "      \"kernels\": [\n"
      "        \"reduce_warp\",\n"
      "        \"reduce_block\"\n"
      "      ]\n"
      "    }\n"
      "  ],\n"
      "  \"default_kernels\": [\n"
      "    \"reduce_warp\"\n"
      "  ],\n"
      "  \"needs_cub\": {\n"
      "    \"reduce_block\": \"3.1.0\"\n"
      "  },\n"
      "  \"cub\": \"3.5.0\",\n"
      "  \"device\": {\n"
      "    \"ordinal\": 1,\n"
      "    \"name\": \"GPU \\\"X\\\"\",\n"
      "    \"sm\": \"90\",\n"
      "    \"sms\": 132,\n"
      "    \"l2_bytes\": 52428800,\n"
      "    \"peak_gbps\": 4916.736,\n"
      "    \"visible\": 2\n"
      "  }\n"
      "}";
  // A program built with CUDA names its CUB (wb_cuda.cuh sets wb::cub_version); this one has none.
  wb::cub_version = "3.5.0";
  const std::string got_full = wb::info_json(full_spec(), made_up_device()).dump();
  wb::cub_version = nullptr;
  EXPECT(same_text(got_full, full));
  // Negative control: the comparison fails on a one-character difference (the min of --block).
  std::string wrong = full;
  wrong.replace(wrong.find("\"min\": 32"), 9, "\"min\": 64");
  EXPECT(!same_text(got_full, wrong, true));

  // No optional flag but one parsed by the chapter itself, no variants, ceilings, its own
  // sentence for the bytes, and no device.
  wb::Spec bare;
  bare.chapter = "98";
  bare.slug = "bare";
  bare.idea = "tab\there, \"quoted\"";
  bare.op = wb::Op::Scan;
  bare.bytes = "a row of its own";
  bare.part = wb::Part::Ceiling;
  bare.kernels = {"copy_a", "read_b"};
  bare.ceilings = {{"copy_a"}, {"read_b"}};
  bare.extra_flags = {"--gpus"};
  const std::string none =
      "{\n"
      "  \"chapter\": \"98\",\n"
      "  \"slug\": \"bare\",\n"
      "  \"idea\": \"tab\\there, \\\"quoted\\\"\",\n"
      "  \"part\": \"ceiling\",\n"
      "  \"op\": \"scan\",\n"
      "  \"bytes_per_element\": 8,\n"
      "  \"bytes\": \"a row of its own\",\n"
      "  \"flags\": [\n"
      "    \"--n\",\n    \"--offset\",\n    \"--reps\",\n    \"--warmup\",\n    \"--seed\",\n"
      "    \"--no-flush\",\n    \"--csv\",\n    \"--device\",\n    \"--gpus\"\n"
      "  ],\n"
      "  \"block\": null,\n"
      "  \"batch\": null,\n"
      "  \"variants\": [],\n"
      "  \"default_kernels\": [\n"
      "    \"copy_a\",\n"
      "    \"read_b\"\n"
      "  ],\n"
      "  \"ceilings\": {\n"
      "    \"copy\": [\n"
      "      \"copy_a\"\n"
      "    ],\n"
      "    \"read\": [\n"
      "      \"read_b\"\n"
      "    ]\n"
      "  },\n"
      "  \"cub\": null,\n"
      "  \"device\": null\n"
      "}";
  EXPECT(same_text(wb::info_json(bare, wb::Json()).dump(), none));
  // A scan without its own sentence gets the op's; a Spec that names no part says so.
  wb::Spec unnamed;
  unnamed.op = wb::Op::Scan;
  const std::string u = wb::info_json(unnamed, wb::Json()).dump();
  EXPECT(u.find("\n  \"part\": \"unset\",\n") != std::string::npos);
  EXPECT(u.find("\n  \"bytes\": \"each element read once and written once (8 bytes)\",\n") != std::string::npos);
  // Without CUDA (this test includes no wb_cuda.cuh) --info's device is null.
  EXPECT(same_text(wb::device_info(0).dump(), "null"));

  // --list-variants: the names in the Spec's order, one a line; nothing without --variant.
  EXPECT(same_text(wb::variant_names(full_spec()), "warp\nblock\nall\n"));
  EXPECT(same_text(wb::variant_names(bare), ""));
  EXPECT(!same_text(wb::variant_names(full_spec()), "warp\nall\nblock\n", true));  // negative control: order counts
}

// Rows that need a newer CUB (Spec::needs_cub): which a build leaves out, and the note it prints.
static void test_needs_cub() {
  // Versions as CUB_VERSION writes them (MMMmmmpp), worked out by hand; -1 for what is no version.
  static_assert(wb::cub_version_number("3.1.0") == 300100, "known at compile time");
  EXPECT(wb::cub_version_number("3.0.1") == 300001);
  EXPECT(wb::cub_version_number("10.20.3") == 1002003);
  for (const char* bad : {"3.5", "3.5.0.1", "", "3..0", "3.5.100", "a.b.c", "3.5.0 ", "-3.5.0"})
    EXPECT(wb::cub_version_number(bad) == -1);
  EXPECT(wb::cub_version_number(nullptr) == -1);
  // Compared as numbers (3.10.0 is newer than 3.9.0, which a comparison of text would deny).
  EXPECT(wb::cub_at_least("3.1.0", "3.1.0"));
  EXPECT(wb::cub_at_least("3.5.0", "3.1.0"));
  EXPECT(wb::cub_at_least("3.10.0", "3.9.0"));
  EXPECT(!wb::cub_at_least("3.0.1", "3.1.0"));
  EXPECT(!wb::cub_at_least(nullptr, "3.1.0"));
  EXPECT(!wb::cub_at_least("3.5.0", "3.1"));

  const wb::Spec s = full_spec();  // reduce_block needs CUB 3.1.0
  using Rows = std::vector<std::string>;
  wb::cub_version = "3.0.1";
  EXPECT(wb::rows_without_cub(s, "block") == Rows{"reduce_block"});
  EXPECT(wb::rows_without_cub(s, "all") == Rows{"reduce_block"});
  EXPECT(wb::rows_without_cub(s, "warp").empty());
  EXPECT(same_text(wb::rows_without_cub_note(s, "all"),
                   "note: reduce_block needs CUB 3.1.0 or newer; this program was built with CUB 3.0.1, so it is "
                   "not run. To run it: pip install nvidia-cuda-cccl and configure again (cmake -S . -B build "
                   "-DWB_CCCL=auto), or give CMake -DWB_CCCL_ROOT=DIR, a newer CCCL"));
  EXPECT(same_text(wb::rows_without_cub_note(s, "warp"), ""));
  // Three rows, the newest version they need named.
  wb::Spec three = s;
  three.variants = {{"cub", {"cub_a", "cub_b", "cub_c", "cub_d"}}};
  three.needs_cub = {{"cub_b", "3.1.0"}, {"cub_c", "3.2.0"}, {"cub_d", "3.1.0"}};
  EXPECT(same_text(wb::rows_without_cub_note(three, "cub"),
                   "note: cub_b, cub_c and cub_d need CUB 3.2.0 or newer; this program was built with CUB 3.0.1, so "
                   "they are not run. To run them: pip install nvidia-cuda-cccl and configure again (cmake -S . -B "
                   "build -DWB_CCCL=auto), or give CMake -DWB_CCCL_ROOT=DIR, a newer CCCL"));
  wb::cub_version = "3.1.5";
  EXPECT(wb::rows_without_cub(three, "cub") == Rows{"cub_c"});
  wb::cub_version = "3.5.0";
  EXPECT(wb::rows_without_cub(s, "all").empty());
  EXPECT(same_text(wb::rows_without_cub_note(s, "all"), ""));
  // Negative control: the comparison of notes sees the version.
  wb::cub_version = "3.0.1";
  EXPECT(!same_text(wb::rows_without_cub_note(s, "all"), wb::rows_without_cub_note(three, "cub"), true));
  wb::cub_version = nullptr;
  // A program that knows no CUB runs none of the rows.
  EXPECT(wb::rows_without_cub(s, "block") == Rows{"reduce_block"});
}

static void test_info_flags() {
  wb::Spec spec = full_spec();
  wb::Options o;
  std::string err;
  EXPECT(parse({"--info"}, spec, o, err) == wb::Parse::Info);
  EXPECT(parse({"--list-variants"}, spec, o, err) == wb::Parse::ListVariants);
  // The whole line is read first: --device names the device --info describes, before or after it.
  EXPECT(parse({"--device", "3", "--info"}, spec, o, err) == wb::Parse::Info && o.device == 3);
  EXPECT(parse({"--info", "--device", "2"}, spec, o, err) == wb::Parse::Info && o.device == 2);
  EXPECT(parse({"--list-variants", "--list-variants"}, spec, o, err) == wb::Parse::ListVariants);
  EXPECT(parse({"--info", "--help"}, spec, o, err) == wb::Parse::Help);
  // Bad lines are still refused.
  expect_error({"--info", "extra"}, spec, "unknown argument 'extra'");
  expect_error({"--info=1"}, spec, "--info takes no value");
  expect_error({"--list-variants=x"}, spec, "--list-variants takes no value");
  expect_error({"--info", "--list-variants"}, spec, "--info and --list-variants cannot be given together");
  expect_error({"--block", "48", "--info"}, spec, "--block '48' is not allowed");
  // --help names both.
  const std::string u = wb::usage(spec);
  EXPECT(u.find("[--help] [--info] [--list-variants]") != std::string::npos);
  EXPECT(u.find("\n  --info ") != std::string::npos && u.find("\n  --list-variants ") != std::string::npos);
}

static void test_input() {
  // Same (seed, i) gives the same value; values are nonzero in [-8, 8]; both signs occur.
  std::vector<int32_t> a(100000), b(1000);
  wb::fill_input(a.data(), int64_t(a.size()), 42);
  wb::fill_input(b.data(), int64_t(b.size()), 42);
  bool prefix = true, range = true, neg = false, pos = false;
  for (size_t i = 0; i < b.size(); ++i) prefix = prefix && a[i] == b[i];
  for (int32_t v : a) {
    range = range && v != 0 && v >= -8 && v <= 8;
    neg = neg || v < 0;
    pos = pos || v > 0;
  }
  EXPECT(prefix && range && neg && pos);
  std::vector<int32_t> c(1000);
  wb::fill_input(c.data(), 1000, 43);
  EXPECT(c != b);  // another seed, another input
  // Large enough to be split across threads: still identical to element-wise generation.
  std::vector<int32_t> big(3000017);
  wb::fill_input(big.data(), int64_t(big.size()), 9);
  bool same = true;
  for (size_t i = 0; i < big.size(); i += 9973) same = same && big[i] == wb::input_value(9, i);
  EXPECT(same && big.back() == wb::input_value(9, big.size() - 1));
}

static void test_sum() {
  int32_t x[] = {3, -1, 4, -1, 5};
  EXPECT(wb::cpu_sum(x, 5) == 10);
  EXPECT(wb::cpu_sum(x, 0) == 0);
  // Wrap-around: INT32_MAX + 1 = INT32_MIN; INT32_MIN + (-1) = INT32_MAX.
  int32_t w[] = {2147483647, 1};
  EXPECT(wb::cpu_sum(w, 2) == -2147483647 - 1);
  int32_t u[] = {-2147483647 - 1, -1};
  EXPECT(wb::cpu_sum(u, 2) == 2147483647);
  // Four copies of 2^30 wrap to 0; a multi-threaded sum must agree (2^21 elements of 1024 = 2^31 -> INT32_MIN).
  int32_t q[] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  EXPECT(wb::cpu_sum(q, 4) == 0);
  std::vector<int32_t> big(size_t(1) << 21, 1024);
  EXPECT(wb::cpu_sum(big.data(), int64_t(big.size())) == -2147483647 - 1);
  std::vector<int32_t> ones(3000001, 1);
  EXPECT(wb::cpu_sum(ones.data(), int64_t(ones.size())) == 3000001);
}

static void test_scans() {
  int32_t in[] = {1, 2, 3, 4, 5, 6, 7};
  int32_t out[7];
  wb::cpu_scan_inclusive(in, out, 7);
  int32_t want_full[] = {1, 3, 6, 10, 15, 21, 28};
  EXPECT(std::equal(out, out + 7, want_full));
  // Segments of 3: [1 2 3] [4 5 6] [7] -> 1 3 6 | 4 9 15 | 7
  wb::cpu_scan_segmented(in, out, 7, 3);
  int32_t want_seg[] = {1, 3, 6, 4, 9, 15, 7};
  EXPECT(std::equal(out, out + 7, want_seg));
  // A segment longer than the array is a full scan; a segment of 1 copies.
  wb::cpu_scan_segmented(in, out, 7, 100);
  EXPECT(std::equal(out, out + 7, want_full));
  wb::cpu_scan_segmented(in, out, 7, 1);
  EXPECT(std::equal(out, out + 7, in));
  // Wrap-around inside a scan.
  int32_t w[] = {2147483647, 1, 1};
  int32_t wo[3];
  wb::cpu_scan_inclusive(w, wo, 3);
  EXPECT(wo[0] == 2147483647 && wo[1] == -2147483647 - 1 && wo[2] == -2147483647);
  // Multi-threaded segmented scan of ones with segment 1000: element i is i % 1000 + 1.
  std::vector<int32_t> ones(2500003, 1), seg(ones.size());
  wb::cpu_scan_segmented(ones.data(), seg.data(), int64_t(ones.size()), 1000);
  bool ok = true;
  for (size_t i = 0; i < seg.size(); ++i) ok = ok && seg[i] == int32_t(i % 1000 + 1);
  EXPECT(ok);
  // Segment length not dividing the per-thread ranges: 4099.
  wb::cpu_scan_segmented(ones.data(), seg.data(), int64_t(ones.size()), 4099);
  ok = true;
  for (size_t i = 0; i < seg.size(); ++i) ok = ok && seg[i] == int32_t(i % 4099 + 1);
  EXPECT(ok);
}

static void test_mismatch() {
  int32_t a[] = {1, 2, 3, 4}, b[] = {1, 2, 9, 4};
  wb::Mismatch m = wb::first_mismatch(a, b, 4);
  EXPECT(m.index == 2 && m.got == 3 && m.want == 9);
  EXPECT(wb::first_mismatch(a, a, 4).index == -1);
}

static void test_report() {
  EXPECT(std::string(wb::csv_header()) ==
         "chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config");
  wb::Row r;
  r.chapter = "05";
  r.kernel = "reduce_tree_sequential";
  r.n = 1073741824;
  r.block = 256;
  r.batch = 1;
  r.median_ms = 2.0;
  r.min_ms = 1.5;
  r.bytes = 4.0 * r.n;  // 4294967296 bytes in 2 ms = 2147.483648 GB/s
  r.verified = true;
  r.blocks_per_sm = 8;
  wb::set_bandwidth(r, 4294.967296);  // exactly half the peak
  EXPECT(csv_row(r) == "05,reduce_tree_sequential,1073741824,256,1,2.000000,1.500000,2147.5,50.0,PASS,8,");
  r.verified = false;
  EXPECT(csv_row(r).substr(csv_row(r).size() - 8) == ",FAIL,8,");
  r.config = "tile=256x32 a,b";  // a comma cannot split the column
  EXPECT(csv_row(r).substr(csv_row(r).size() - 23) == ",FAIL,8,tile=256x32 a;b");
  // A CUB row records the CUB it called after its own tuning; the scripts read it back from there.
  EXPECT(wb::is_cub_row("cub_device_reduce_sum") && wb::is_cub_row("cub::DeviceScan::InclusiveSum"));
  EXPECT(!wb::is_cub_row("reduce_best") && !wb::is_cub_row("scan_cub_like") && !wb::is_cub_row("cubic"));
  EXPECT(wb::with_cub_version("", "3.5.0") == "cub=3.5.0");
  EXPECT(wb::with_cub_version("tile=256x32", "3.0.1") == "tile=256x32 cub=3.0.1");
  wb::Row c = r;
  c.kernel = "cub::DeviceScan::InclusiveSum";
  c.config = wb::with_cub_version("", "3.5.0");
  EXPECT(csv_row(c) == "05,cub::DeviceScan::InclusiveSum,1073741824,256,1,2.000000,1.500000,2147.5,50.0,FAIL,8,cub=3.5.0");
  EXPECT(csv_row(c) != csv_row(r));  // negative control: the version is in the line
  EXPECT(wb::median({3, 1, 2}) == 2.0);
  EXPECT(wb::median({4, 1, 3, 2}) == 2.5);
  EXPECT(wb::describe_n(1024) == "1024 (2^10)");
  EXPECT(wb::describe_n(1000) == "1000");
  std::string table = wb::human_table({r});
  EXPECT(table.find("reduce_tree_sequential") != std::string::npos && table.find("FAIL") != std::string::npos);
}

static void test_guard_layout() {
  // 1000 ints at offset 0: 256 guard bytes, 4000 data bytes, 256 guard bytes.
  wb::GuardLayout g = wb::guard_layout(1000, 4);
  EXPECT(g.before == 256 && g.data == 4000 && g.after == 256 && g.total() == 4512);
  // --offset 3 puts 3 more guard ints before the data: 256 + 12 = 268 bytes, so the data
  // starts 12 bytes past a 256-byte boundary (not 16-byte aligned), as --offset promises.
  g = wb::guard_layout(1000, 4, 3);
  EXPECT(g.before == 268 && g.data == 4000 && g.after == 256 && g.total() == 4524);
  EXPECT(g.before % 256 == 12);
  // --offset 4: 16 bytes past the boundary, aligned for int4 again.
  EXPECT(wb::guard_layout(10, 4, 4).before % 16 == 0);
  // Other element sizes: 3 chars, 5 eight-byte structs, and zero elements (CUB may ask for 0).
  g = wb::guard_layout(3, 1);
  EXPECT(g.before == 256 && g.data == 3 && g.after == 256 && g.total() == 515);
  EXPECT(wb::guard_layout(5, 8).total() == 256 + 40 + 256);
  EXPECT(wb::guard_layout(0, 4).total() == 512);
  // The pattern: kGuard = 0x01000000, little-endian bytes 00 00 00 01 from the allocation's
  // start, so an aligned int of any guard reads 2^24.
  EXPECT(wb::kGuard == 16777216);
  EXPECT(wb::guard_byte(0) == 0 && wb::guard_byte(1) == 0 && wb::guard_byte(2) == 0 && wb::guard_byte(3) == 1);
  EXPECT(wb::guard_byte(4099) == 1 && wb::guard_byte(4100) == 0);
  uint8_t bytes[8];
  wb::fill_guard(bytes, 6, 8);  // positions 6..13: 6%4=2 -> 0, 7 -> 1, 8 -> 0, 0, 0, 1, 0, 0
  const uint8_t want[8] = {0, 1, 0, 0, 0, 1, 0, 0};
  EXPECT(std::equal(bytes, bytes + 8, want));
  int32_t word = 0;
  uint8_t aligned[4];
  wb::fill_guard(aligned, 256, 4);
  std::memcpy(&word, aligned, 4);
  EXPECT(word == wb::kGuard);
}

static void test_guard_damage() {
  // An after-guard of 1000 ints (4000 data bytes from byte 256): bytes [4256, 4512).
  const wb::GuardLayout g = wb::guard_layout(1000, 4);
  std::vector<uint8_t> after(256), before(256);
  wb::fill_guard(after.data(), 4256, 256);
  wb::fill_guard(before.data(), 0, 256);
  EXPECT(wb::guard_damage(after.data(), 4256, 256, false) == -1);
  EXPECT(wb::guard_damage(before.data(), 0, 256, true) == -1);
  // out[1000] = 7 (first int after the data) and out[1003] damaged too: the first is reported.
  after[0] = 7;
  after[13] = 9;
  const int64_t pos = wb::guard_damage(after.data(), 4256, 256, false);
  EXPECT(pos == 4256 && wb::guard_index(g, 4, pos) == 1000);
  // Only the top byte of out[1001] changed: still index 1001.
  after[0] = 0;   // both restored: bytes 4256 and 4269 of the pattern are 0
  after[13] = 0;
  after[7] = 5;   // byte 4263, the top byte of out[1001], should be 1
  EXPECT(wb::guard_index(g, 4, wb::guard_damage(after.data(), 4256, 256, false)) == 1001);
  // Before the data: out[-1] is bytes 252..255 and out[-64] bytes 0..3; the one nearest the
  // data is reported.
  before[0] = 42;
  before[253] = 42;
  const int64_t bpos = wb::guard_damage(before.data(), 0, 256, true);
  EXPECT(bpos == 253 && wb::guard_index(g, 4, bpos) == -1);
  before[253] = 0;
  EXPECT(wb::guard_index(g, 4, wb::guard_damage(before.data(), 0, 256, true)) == -64);
  // With --offset 2 the data starts at byte 264; byte 260 is in[-1], byte 256 in[-2].
  const wb::GuardLayout o = wb::guard_layout(10, 4, 2);
  EXPECT(wb::guard_index(o, 4, 263) == -1 && wb::guard_index(o, 4, 260) == -1 && wb::guard_index(o, 4, 259) == -2);
  EXPECT(wb::guard_index(o, 4, 264) == 0 && wb::guard_index(o, 4, 264 + 40) == 10);
  // Messages.
  EXPECT(wb::guard_message("k", "the output", 1000, 1000) == "FAIL k wrote past the end of the output: index n+0 (n = 1000)");
  EXPECT(wb::guard_message("k", "the sum", 3, 1) == "FAIL k wrote past the end of the sum: index n+2 (n = 1)");
  EXPECT(wb::guard_message("k", "the input", -1, 5) == "FAIL k wrote before the start of the input: index -1");
}

static void test_check_messages() {
  // A sum: no element count.
  EXPECT(wb::mismatch_message("r", "first run", 1, 1, 0, 5, 6) == "FAIL r (first run): got 5, want 6");
  // A scan: how many are wrong and the first.
  EXPECT(wb::mismatch_message("s", "timed run 3 of 20", 2, 1000, 17, -1515870811, 4) ==
         "FAIL s (timed run 3 of 20): 2 of 1000 elements wrong, the first at index 17: got -1515870811, want 4");
  // Off by the guard value: the hint; by 3 x 2^24 and -2^24 too; otherwise none.
  EXPECT(wb::guard_read_hint(16777216 + 5, 5).find("off by 2^24") != std::string::npos);
  EXPECT(wb::guard_read_hint(-3, -3 + 3 * 16777216).find("off by -3 x 2^24") != std::string::npos);
  EXPECT(wb::guard_read_hint(7 - 16777216, 7).find("off by -1 x 2^24") != std::string::npos);
  EXPECT(wb::guard_read_hint(5, 5).empty() && wb::guard_read_hint(6, 5).empty());
  EXPECT(wb::guard_read_hint(-1515870811, 12).empty());  // the poison is no guard read
  // Wrap-around: 2147483647 + 2^24 wraps to -2130706433, still off by exactly 2^24.
  EXPECT(wb::guard_read_hint(-2130706433, 2147483647).find("off by 2^24") != std::string::npos);
  EXPECT(wb::mismatch_message("r", "first run", 1, 1, 0, 16777226, 10) ==
         "FAIL r (first run): got 16777226, want 10 (off by 2^24, the guard value around every array: a read past one "
         "of its ends?)");
}

static void test_alternating_runs() {
  // A run with element 0 changed: the outputs that include it expect the change, modulo 2^32.
  EXPECT(wb::expected_for_run(5, 0, 1, 1000) == 1005);
  EXPECT(wb::expected_for_run(5, 1, 1, 1000) == 5);         // past the shifted outputs: unchanged
  EXPECT(wb::expected_for_run(5, 0, 0, 1000) == 5);         // a kernel that does not read the input
  EXPECT(wb::expected_for_run(5, 99, 100, 0) == 5);         // a run with the input as made
  EXPECT(wb::expected_for_run(2147483000, 3, 4, 1000) == -2147483296);  // wraps like the kernels' sums
  // The run's name says what it changed; a run that changed nothing keeps its plain name.
  EXPECT(wb::run_label("warm-up run 1", wb::kRunDelta) == "warm-up run 1, in[0] + 1000");
  EXPECT(wb::run_label("first run", 0) == "first run");
  // Off by the change, either way: the hint; by anything else, none (nor a guard hint).
  EXPECT(wb::stale_state_hint(5, 1005).find("off by -1000") != std::string::npos);
  EXPECT(wb::stale_state_hint(1005, 5).find("off by +1000") != std::string::npos);
  EXPECT(wb::stale_state_hint(-2147483296, 2147483000).find("off by +1000") != std::string::npos);
  EXPECT(wb::stale_state_hint(5, 5).empty() && wb::stale_state_hint(6, 5).empty() &&
         wb::stale_state_hint(5 + 2000, 5).empty() && wb::stale_state_hint(5 + 16777216, 5).empty());
  EXPECT(wb::guard_read_hint(1005, 5).empty());
  EXPECT(wb::mismatch_message("s", wb::run_label("timed run 2 of 20", 1000), 3, 4096, 256, 7, 1007) ==
         "FAIL s (timed run 2 of 20, in[0] + 1000): 3 of 4096 elements wrong, the first at index 256: got 7, want 1007 "
         "(off by -1000, the change to input element 0 between consecutive runs: state left by the previous run?)");
}

static void test_fit_n() {
  // The harness adds 4 bytes per element (its device copy of the expected output) when the
  // chapter counted an N-element output: 8 for a scan, 8 + a little for chapter 17.
  EXPECT(wb::check_bytes_per_element(4) == 0);
  EXPECT(wb::check_bytes_per_element(4 + 4.0 / 32) == 0);  // chapters 03-04: input + partial sums
  EXPECT(wb::check_bytes_per_element(8) == 4);
  EXPECT(wb::check_bytes_per_element(8.05) == 4);
  // Guards: 16 allocations x 512 bytes, plus 3 arrays x --offset ints.
  EXPECT(wb::guard_bytes(0) == 8192 && wb::guard_bytes(1000) == 8192 + 12000);
  // 2^30 ints of a scan (12 bytes each with the copy) need 12 GiB: on 16 GiB free (90%:
  // 14.4 GiB) with 1 GiB reserved they fit; on 12 GiB free (10.8 GiB) N halves to 2^29 (6 GiB).
  const double gib = 1073741824.0;
  EXPECT(wb::fit_n(int64_t(1) << 30, 12, gib, 16 * gib) == int64_t(1) << 30);
  EXPECT(wb::fit_n(int64_t(1) << 30, 12, gib, 12 * gib) == int64_t(1) << 29);
  // Without the copy (8 bytes: 8 GiB) the same 12 GiB would have kept 2^30: the copy counts.
  EXPECT(wb::fit_n(int64_t(1) << 30, 8, gib, 12 * gib) == int64_t(1) << 30);
  // Never below 1024, even when nothing fits.
  EXPECT(wb::fit_n(int64_t(1) << 30, 12, 100 * gib, gib) == 1024);
  EXPECT(wb::fit_n(1000, 12, 100 * gib, gib) == 1000);
}

static void test_no_memory() {
  unsetenv("WB_SKIP_IF_NO_MEMORY");
  EXPECT(!wb::skip_if_no_memory());
  setenv("WB_SKIP_IF_NO_MEMORY", "0", 1);
  EXPECT(!wb::skip_if_no_memory());
  setenv("WB_SKIP_IF_NO_MEMORY", "1", 1);
  EXPECT(wb::skip_if_no_memory());
  unsetenv("WB_SKIP_IF_NO_MEMORY");
  // 24 GiB needed, 20.5 GiB free.
  EXPECT(wb::no_memory_message(2147483659LL, 24.0 * 1073741824, 20.5 * 1073741824) ==
         "skipped: N = 2147483659 needs 24.00 GiB, the GPU has 20.50 GiB free (WB_SKIP_IF_NO_MEMORY=1)");
  EXPECT(wb::no_memory_message(0, 1073741824, 0).rfind("skipped: this run needs 1.00 GiB", 0) == 0);
}

static void test_finish_status() {
  std::string line;
  // No kernel ran: that is a failure, not a vacuous pass.
  EXPECT(wb::finish_status({}, line) == 1 && line == "FAILED: no kernel ran");
  wb::Row good, bad;
  good.verified = true;
  bad.verified = false;
  EXPECT(wb::finish_status({good, good}, line) == 0 && line == "all results verified against the CPU reference");
  EXPECT(wb::finish_status({good, bad, bad}, line) == 1 &&
         line == "FAILED: 2 of 3 kernel run(s) failed a check (see the FAIL lines above)");
}

// test_common --csv-row CHAPTER KERNEL N BLOCK BATCH MEDIAN_MS MIN_MS GBPS PCT PASS|FAIL BLOCKS_PER_SM CONFIG: print the
// CSV header and the row as the harness formats them, so that the scripts' stand-in chapter
// (tests/fixtures/scripts/fake_chapter.sh) can be checked against the real formatter.
static int print_csv_row(char** a) {
  wb::Row r;
  r.chapter = a[0];
  r.kernel = a[1];
  r.n = std::atoll(a[2]);
  r.block = std::atoi(a[3]);
  r.batch = std::atoi(a[4]);
  r.median_ms = std::atof(a[5]);
  r.min_ms = std::atof(a[6]);
  r.gbps = std::atof(a[7]);
  r.pct_theoretical = std::atof(a[8]);
  r.verified = std::string(a[9]) == "PASS";
  r.blocks_per_sm = std::atoi(a[10]);
  r.config = a[11];
  std::printf("%s\n%s\n", wb::csv_header(), wb::csv_row(r).c_str());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 14 && std::string(argv[1]) == "--csv-row") return print_csv_row(argv + 2);
  test_counts();
  test_parse_valid();
  test_parse_invalid();
  test_usage();
  test_json();
  test_info();
  test_needs_cub();
  test_info_flags();
  test_fit_tile();
  test_input();
  test_sum();
  test_scans();
  test_mismatch();
  test_report();
  test_guard_layout();
  test_guard_damage();
  test_check_messages();
  test_alternating_runs();
  test_fit_n();
  test_no_memory();
  test_finish_status();
  return host_test_summary();
}
