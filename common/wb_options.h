/// @file wb_options.h
/// @brief The command line every chapter shares, host-only (see the command-line contract in
/// docs/pages/measuring.md).
///
/// A chapter describes itself with a wb::Spec (which optional flags it takes and what
/// values they may have); wb::parse_args() turns argv into wb::Options or an error
/// message, and wb::parse_or_exit() is what a chapter's `main` calls.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace wb {

/// What a chapter computes. It fixes the bytes counted per element (the command-line contract
/// in docs/pages/measuring.md):
/// a reduction reads each input once (4 bytes); a scan reads and writes once (8 bytes).
enum class Op {
  Reduce,  ///< a sum: 4 bytes per element
  Scan     ///< an inclusive prefix sum: 8 bytes per element
};

/// Bytes moved per input element for an operation.
inline double bytes_per_element(Op op) { return op == Op::Reduce ? 4.0 : 8.0; }

/// Which block sizes a chapter's kernels accept.
enum class BlockRule {
  None,          ///< the chapter has no --block flag
  Any,           ///< any size from min to max
  MultipleOf32,  ///< whole warps only
  PowerOfTwo     ///< tree reductions that halve the active threads each step
};

/// The `--block` flag of a chapter: its rule, default and range.
struct BlockFlag {
  BlockRule rule = BlockRule::None;  ///< BlockRule::None: no --block flag
  int default_value = 0;             ///< used when --block is not given
  int min = 32;                      ///< smallest accepted block size
  int max = 1024;                    ///< largest accepted block size
};

/// The `--batch` flag (elements per thread, K): 0 as the default means "no such flag".
struct BatchFlag {
  int default_value = 0;  ///< 0: the chapter has no --batch flag
  int max = 1 << 16;      ///< largest accepted K
  bool power_of_two = false;  ///< whether K must be a power of two
  const char* unit = "elements per thread";  ///< what K counts, for --help
};

/// Everything the shared command line needs to know about one chapter.
struct Spec {
  const char* chapter = "";  ///< two digits, e.g. "05"
  const char* slug = "";     ///< e.g. "tree-sequential"
  const char* idea = "";     ///< the chapter's one-line idea, shown by --help
  Op op = Op::Reduce;        ///< fixes the bytes counted per element
  BlockFlag block;           ///< the --block flag, if any
  BatchFlag batch;           ///< the --batch flag, if any
  std::vector<std::string> variants;  ///< --variant names; the first is the default; empty: no flag
  bool racy = false;         ///< whether the chapter has a --racy exercise
  /// Help for flags the chapter parses itself, before parse_or_exit (e.g. chapter 18's
  /// --gpus): lines shown by --help after the shared flags; empty: none.
  std::string extra_usage;
};

/// The parsed command line. The defaults are those of the command-line contract in
/// docs/pages/measuring.md.
struct Options {
  int64_t n = int64_t(1) << 30;  ///< elements (--n)
  bool n_given = false;          ///< whether --n was on the command line
  int64_t offset = 0;            ///< elements between the allocation's start and the input's (--offset)
  int block = 0;                 ///< threads per block (--block), 0 where the chapter has none
  bool block_given = false;      ///< whether --block was on the command line
  int batch = 0;                 ///< elements per thread (--batch), 0 where the chapter has none
  bool batch_given = false;      ///< whether --batch was on the command line
  std::string variant;           ///< --variant, empty where the chapter has none
  int reps = 20;                 ///< timed runs (--reps)
  int warmup = 3;                ///< untimed runs before them (--warmup)
  uint64_t seed = 20240601;      ///< input seed (--seed)
  bool flush = true;             ///< flush L2 before each timed run (cleared by --no-flush)
  bool racy = false;             ///< run the deliberately broken kernel (--racy)
  bool csv = false;              ///< machine-readable output (--csv)
  int device = 0;                ///< CUDA device ordinal (--device)
};

/// The largest N and offset the parser accepts; memory runs out well before.
constexpr int64_t kMaxN = int64_t(1) << 40;
/// The largest --offset accepted.
constexpr int64_t kMaxOffset = int64_t(1) << 20;

/// Parse an element count: decimal digits (at most 18), `2^k` or `1<<k` (k from 0 to 62).
/// @return false for anything else (signs, letters, empty text, overflow).
inline bool parse_count(const std::string& text, int64_t& value) {
  auto digits = [](const std::string& s, int64_t& v) {
    if (s.empty() || s.size() > 18) return false;
    v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return true;
  };
  auto power = [&](const std::string& prefix, int base_shift) {
    if (text.compare(0, prefix.size(), prefix) != 0) return false;
    int64_t k = 0;
    if (!digits(text.substr(prefix.size()), k) || k > 62) return false;
    value = int64_t(1) << (k * base_shift);
    return true;
  };
  if (power("2^", 1) || power("1<<", 1)) return true;
  return digits(text, value);
}

/// A human name for the block sizes a rule accepts, used in refusals and --help.
inline std::string describe_block_rule(const BlockFlag& b) {
  std::string range = std::to_string(b.min) + " to " + std::to_string(b.max);
  switch (b.rule) {
    case BlockRule::Any: return "any size from " + range;
    case BlockRule::MultipleOf32: return "a multiple of 32 from " + range;
    case BlockRule::PowerOfTwo: return "a power of two from " + range;
    case BlockRule::None: break;
  }
  return "none (this chapter has no --block)";
}

/// Whether a block size is allowed by a chapter's rule.
inline bool block_allowed(const BlockFlag& b, int64_t v) {
  if (b.rule == BlockRule::None || v < b.min || v > b.max) return false;
  if (b.rule == BlockRule::MultipleOf32) return v % 32 == 0;
  if (b.rule == BlockRule::PowerOfTwo) return (v & (v - 1)) == 0;
  return true;
}

/// The --help text: usage, the chapter's idea, and its defaults.
inline std::string usage(const Spec& s) {
  std::string u = "chapter" + std::string(s.chapter) + " (" + s.slug + "): " + s.idea + "\n\n";
  u += "usage: ./chapter" + std::string(s.chapter) +
       " [--n N] [--offset E] [--reps R] [--warmup W] [--seed S] [--no-flush] [--csv] [--device D]";
  if (s.block.rule != BlockRule::None) u += " [--block B]";
  if (s.batch.default_value) u += " [--batch K]";
  if (!s.variants.empty()) u += " [--variant NAME]";
  if (s.racy) u += " [--racy]";
  u += " [--help]\n\n";
  u += "  --n N         elements (default 2^30, lowered when the device lacks memory);\n"
       "                forms: 1000, 2^20, 1<<20\n"
       "  --offset E    start the input E elements past its allocation (default 0, at most 1048576)\n";
  if (s.block.rule != BlockRule::None)
    u += "  --block B     threads per block: " + describe_block_rule(s.block) + " (default " +
         std::to_string(s.block.default_value) + ")\n";
  if (s.batch.default_value)
    u += "  --batch K     " + std::string(s.batch.unit) + ", " + (s.batch.power_of_two ? "a power of two " : "") +
         "from 1 to " + std::to_string(s.batch.max) + " (default " + std::to_string(s.batch.default_value) + ")\n";
  if (!s.variants.empty()) {
    u += "  --variant V   one of:";
    for (const auto& v : s.variants) u += " " + v;
    u += " (default " + s.variants.front() + ")\n";
  }
  if (s.racy) u += "  --racy        run the deliberately racy kernel (the racecheck exercise)\n";
  u += s.extra_usage;
  u += "  --reps R      timed runs, the median is reported (default 20)\n"
       "  --warmup W    untimed runs first (default 3)\n"
       "  --seed S      input seed (default 20240601)\n"
       "  --no-flush    keep L2 warm between timed runs (default: flush before each)\n"
       "  --csv         print CSV rows instead of the table\n"
       "  --device D    CUDA device ordinal (default 0)\n"
       "exit status: 0 verified, 1 a check failed, 2 bad command line, 3 CUDA error, 77 no GPU\n"
       "  (or, with WB_SKIP_IF_NO_MEMORY=1 in the environment, too little device memory: 77, not 3)\n";
  return u;
}

/// What parse_args() found.
enum class Parse {
  Ok,    ///< run with the options
  Help,  ///< --help: print the usage and exit 0
  Error  ///< a bad command line: print the message and exit 2
};

/// Parse argv against a chapter's Spec. Accepts `--flag value` and `--flag=value`.
/// @param argc, argv  the command line as `main` received it (argv[0] is skipped)
/// @param spec  which optional flags the chapter has and which values they take
/// @param[out] opt  the options (defaults from the Spec where a flag is absent)
/// @param[out] error  the message for Parse::Error
inline Parse parse_args(int argc, const char* const* argv, const Spec& spec, Options& opt,
                        std::string& error) {
  opt = Options{};
  opt.block = spec.block.default_value;
  opt.batch = spec.batch.default_value;
  if (!spec.variants.empty()) opt.variant = spec.variants.front();

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_inline = true;
    }
    auto next = [&](std::string& out) {
      if (has_inline) { out = value; return true; }
      if (i + 1 >= argc) { error = arg + " needs a value"; return false; }
      out = argv[++i];
      return true;
    };
    // A count in [lo, hi]; the message names the flag and the allowed range.
    auto count = [&](int64_t lo, int64_t hi, int64_t& out) {
      std::string text;
      if (!next(text)) return false;
      if (!parse_count(text, out) || out < lo || out > hi) {
        error = arg + " '" + text + "' is not allowed: give a whole number from " + std::to_string(lo) +
                " to " + std::to_string(hi);
        return false;
      }
      return true;
    };
    auto flag_only = [&]() {
      if (has_inline) { error = arg + " takes no value"; return false; }
      return true;
    };
    int64_t v = 0;
    if (arg == "--help" || arg == "-h") {
      return Parse::Help;
    } else if (arg == "--n") {
      if (!count(1, kMaxN, v)) return Parse::Error;
      opt.n = v;
      opt.n_given = true;
    } else if (arg == "--offset") {
      if (!count(0, kMaxOffset, v)) return Parse::Error;
      opt.offset = v;
    } else if (arg == "--reps") {
      if (!count(1, 100000, v)) return Parse::Error;
      opt.reps = int(v);
    } else if (arg == "--warmup") {
      if (!count(0, 100000, v)) return Parse::Error;
      opt.warmup = int(v);
    } else if (arg == "--seed") {
      if (!count(0, 999999999999999999LL, v)) return Parse::Error;
      opt.seed = uint64_t(v);
    } else if (arg == "--device") {
      if (!count(0, 1023, v)) return Parse::Error;
      opt.device = int(v);
    } else if (arg == "--no-flush") {
      if (!flag_only()) return Parse::Error;
      opt.flush = false;
    } else if (arg == "--csv") {
      if (!flag_only()) return Parse::Error;
      opt.csv = true;
    } else if (arg == "--racy" && spec.racy) {
      if (!flag_only()) return Parse::Error;
      opt.racy = true;
    } else if (arg == "--block" && spec.block.rule != BlockRule::None) {
      std::string text;
      if (!next(text)) return Parse::Error;
      if (!parse_count(text, v) || !block_allowed(spec.block, v)) {
        error = "--block '" + text + "' is not allowed: this chapter takes " + describe_block_rule(spec.block);
        return Parse::Error;
      }
      opt.block = int(v);
      opt.block_given = true;
    } else if (arg == "--batch" && spec.batch.default_value) {
      std::string text;
      if (!next(text)) return Parse::Error;
      bool ok = parse_count(text, v) && v >= 1 && v <= spec.batch.max &&
                (!spec.batch.power_of_two || (v & (v - 1)) == 0);
      if (!ok) {
        error = "--batch '" + text + "' is not allowed: this chapter takes " +
                (spec.batch.power_of_two ? "a power of two" : "a whole number") + " from 1 to " +
                std::to_string(spec.batch.max);
        return Parse::Error;
      }
      opt.batch = int(v);
      opt.batch_given = true;
    } else if (arg == "--variant" && !spec.variants.empty()) {
      std::string text;
      if (!next(text)) return Parse::Error;
      bool known = false;
      for (const auto& name : spec.variants) known = known || name == text;
      if (!known) {
        error = "--variant '" + text + "' is not known: this chapter takes";
        for (const auto& name : spec.variants) error += " " + name;
        return Parse::Error;
      }
      opt.variant = text;
    } else {
      error = "unknown argument '" + std::string(argv[i]) + "' (see --help)";
      return Parse::Error;
    }
  }
  return Parse::Ok;
}

/// Make a tile (--block x --batch) fit `limit` bytes of shared memory per block, where
/// `bytes(block, batch)` is what the chapter's kernel needs. Default values are halved (K first,
/// then the block, never below 32 threads) until the tile fits, and `message` says so; a value
/// given on the command line is never changed.
/// @return false, with the refusal in `message`, when the tile cannot be made to fit
template <class Bytes>
inline bool fit_tile(Options& opt, size_t limit, Bytes bytes, std::string& message) {
  message.clear();
  const int block = opt.block, batch = opt.batch;
  auto fits = [&] { return size_t(bytes(opt.block, opt.batch)) <= limit; };
  while (!fits() && !opt.batch_given && opt.batch > 1) opt.batch /= 2;
  while (!fits() && !opt.block_given && opt.block > 32) opt.block /= 2;
  if (!fits()) {
    message = "--block " + std::to_string(opt.block) + " --batch " + std::to_string(opt.batch) + " needs " +
              std::to_string(size_t(bytes(opt.block, opt.batch))) + " bytes of shared memory per block; this GPU allows " +
              std::to_string(limit) + ": choose a smaller --block or --batch";
    return false;
  }
  if (opt.block != block || opt.batch != batch)
    message = "note: the default tile --block " + std::to_string(block) + " --batch " + std::to_string(batch) +
              " needs more shared memory per block than this GPU allows (" + std::to_string(limit) +
              " bytes); using --block " + std::to_string(opt.block) + " --batch " + std::to_string(opt.batch);
  return true;
}

/// What a chapter's `main` calls: parse, or print help (exit 0) or the error (exit 2).
inline Options parse_or_exit(int argc, char** argv, const Spec& spec) {
  Options opt;
  std::string error;
  switch (parse_args(argc, argv, spec, opt, error)) {
    case Parse::Help:
      std::fputs(usage(spec).c_str(), stdout);
      std::exit(0);
    case Parse::Error:
      std::fprintf(stderr, "chapter%s: %s\n", spec.chapter, error.c_str());
      std::exit(2);
    case Parse::Ok:
      break;
  }
  return opt;
}

}  // namespace wb
