/// @file wb_options.h
/// @brief The command line every chapter shares, host-only (see the command-line contract in
/// docs/pages/measuring.md).
///
/// A chapter describes itself with a wb::Spec (which optional flags it takes and what
/// values they may have); wb::parse_args() turns argv into wb::Options or an error
/// message, and wb::parse_or_exit() is what a chapter's `main` calls. The same Spec answers
/// `--info` (wb::info_json) and `--list-variants`, so that scripts learn what a chapter is and
/// which rows it reports from the program itself.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
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

/// Which part of the course a chapter belongs to (--info's "part"). Every chapter names its
/// own: scripts group and render chapters by it, never by their numbers.
enum class Part {
  Unset,      ///< not named: --info says "unset", which the tests refuse
  Ceiling,    ///< what the GPU allows (chapter 00)
  Reduction,  ///< a sum
  Scan,       ///< a prefix sum
  MultiGpu    ///< several GPUs
};

/// One `--variant` value and what a run of it reports.
struct VariantSpec {
  std::string name;                  ///< the --variant value
  std::vector<std::string> kernels;  ///< the CSV "kernel" names of its rows, in the order it reports them
};

/// The variant (`all`) that runs every variant listed so far, in their order: its rows are theirs.
inline VariantSpec every_variant(const std::vector<VariantSpec>& variants, const char* name = "all") {
  VariantSpec all{name, {}};
  for (const auto& v : variants) all.kernels.insert(all.kernels.end(), v.kernels.begin(), v.kernels.end());
  return all;
}

/// The rows that measure the GPU's ceilings (chapter 00), by their CSV "kernel" names: the
/// scripts take the copy ceiling as the best of `copy` and the read-only ceiling from `read`.
struct Ceilings {
  std::vector<std::string> copy;  ///< rows that read and write every element
  std::vector<std::string> read;  ///< rows that only read every element
};

/// A flag that a harness beyond the shared one adds (chapter 18's --gpus, --shards and
/// --no-gate), parsed, refused, shown by --help and listed by --info as the shared flags are.
struct HarnessFlag {
  std::string name;     ///< e.g. "--gpus"
  std::string value;    ///< what its value is called in --help ("G"); empty: it takes no value
  int64_t min = 0;      ///< the smallest value accepted
  int64_t max = 0;      ///< the largest value accepted
  std::string help;     ///< its --help text, one line or more, each ending in a newline
  int64_t step = 1;     ///< values must be multiples of it (1: any whole number from min to max)
};

/// Everything the shared command line needs to know about one chapter.
struct Spec {
  const char* chapter = "";  ///< two digits, e.g. "05"
  const char* slug = "";     ///< e.g. "tree-sequential"
  const char* idea = "";     ///< the chapter's one-line idea, shown by --help
  Op op = Op::Reduce;        ///< fixes the bytes counted per element
  /// What a row's bytes count, where the rows differ from the op's rule (chapter 00's copies,
  /// chapter 18's sums); "": the op's rule (wb::bytes_rule)
  const char* bytes = "";
  Part part = Part::Unset;   ///< the part of the course, for --info
  BlockFlag block;           ///< the --block flag, if any
  BatchFlag batch;           ///< the --batch flag, if any
  std::vector<VariantSpec> variants;  ///< the --variant values; the first is the default; empty: no flag
  std::vector<std::string> kernels;   ///< without --variant: the CSV "kernel" names a run reports
  Ceilings ceilings;         ///< the rows that measure ceilings (chapter 00); empty elsewhere
  /// Rows of a chapter of sums that also write each element (chapter 19's scans: 8 bytes per
  /// element, judged against the copy ceiling); empty: every row follows `op`
  std::vector<std::string> copy_kernels;
  /// Where a chapter calls CUB for several computations (chapter 20's instances): each workbook
  /// row and the CUB row that computes the same, which the results compare it with; empty: every
  /// row against the chapter's fastest CUB call
  std::vector<std::pair<std::string, std::string>> cub_pairs;
  /// Rows that only a newer CUB than some builds have can run (chapter 19's determinism levels):
  /// each row and the oldest CUB that has it, as "3.1.0". The rows stay in their variants, so
  /// that --info is the same whatever CUB the build has; a program built against an older CUB
  /// runs none of them and says so (wb::rows_without_cub_note); empty: every row runs with any CUB
  std::vector<std::pair<std::string, std::string>> needs_cub;
  bool racy = false;         ///< whether the chapter has a --racy exercise
  /// Help for flags the chapter parses itself, before parse_or_exit (e.g. chapter 18's
  /// --gpus): lines shown by --help after the shared flags; empty: none.
  std::string extra_usage;
  std::vector<std::string> extra_flags;  ///< those flags' names (e.g. "--gpus"), for --info
  std::vector<HarnessFlag> harness_flags;  ///< flags of a harness beyond the shared one (chapter 18's, chapter 22's)
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
  /// The harness flags given (Spec::harness_flags), by name: a value, or 1 for a flag without one
  std::vector<std::pair<std::string, int64_t>> harness;

  /// The value of harness flag `name` (the last given), or `otherwise` where it was not given.
  int64_t harness_value(const std::string& name, int64_t otherwise) const {
    for (const auto& h : harness)
      if (h.first == name) otherwise = h.second;
    return otherwise;
  }
};

/// The largest N and offset the parser accepts; memory runs out well before.
constexpr int64_t kMaxN = int64_t(1) << 40;
/// The largest --offset accepted.
constexpr int64_t kMaxOffset = int64_t(1) << 20;

/// Take a flag that names one of `names` (`flag NAME` or `flag=NAME`) out of argv before the
/// Spec's parser sees it, for a harness flag such as --input: the last one given wins.
/// @return the index of the name given, 0 when the flag is absent; a missing or unknown name
///         exits 2 with "PROGRAM: FLAG needs a value" or "PROGRAM: FLAG 'x' is not allowed: give
///         a, b or c"
inline int take_choice_flag(int& argc, char** argv, const char* program, const std::string& flag,
                            const std::vector<std::string>& names) {
  int chosen = 0, kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool inline_value = arg.rfind(flag + "=", 0) == 0;
    if (arg != flag && !inline_value) {
      argv[kept++] = argv[i];
      continue;
    }
    std::string value;
    if (inline_value) {
      value = arg.substr(flag.size() + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "%s: %s needs a value\n", program, flag.c_str());
      std::exit(2);
    }
    int found = -1;
    for (size_t k = 0; k < names.size(); ++k)
      if (value == names[k]) found = int(k);
    if (found < 0) {
      std::string choices;
      for (size_t k = 0; k < names.size(); ++k)
        choices += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
      std::fprintf(stderr, "%s: %s '%s' is not allowed: give %s\n", program, flag.c_str(), value.c_str(),
                   choices.c_str());
      std::exit(2);
    }
    chosen = found;
  }
  argc = kept;
  return chosen;
}

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
  for (const auto& h : s.harness_flags) u += " [" + h.name + (h.value.empty() ? "" : " " + h.value) + "]";
  u += " [--help] [--info] [--list-variants]\n\n";
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
    for (const auto& v : s.variants) u += " " + v.name;
    u += " (default " + s.variants.front().name + ")\n";
  }
  if (s.racy) u += "  --racy        run the deliberately racy kernel (the racecheck exercise)\n";
  for (const auto& h : s.harness_flags) u += h.help;
  u += s.extra_usage;
  u += "  --reps R      timed runs, the median is reported (default 20)\n"
       "  --warmup W    untimed runs first (default 3)\n"
       "  --seed S      input seed (default 20240601)\n"
       "  --no-flush    keep L2 warm between timed runs (default: flush before each)\n"
       "  --csv         print CSV rows instead of the table\n"
       "  --device D    CUDA device ordinal (default 0)\n"
       "  --info        print what this program is as JSON (part, flags, variants and the rows\n"
       "                each reports, the device) and exit 0; needs no GPU\n"
       "  --list-variants  print the --variant names, one a line (none: no --variant), and exit 0\n"
       "exit status: 0 verified, 1 a check failed, 2 bad command line, 3 CUDA error, 77 no GPU\n"
       "  (or, with WB_SKIP_IF_NO_MEMORY=1 in the environment, too little device memory: 77, not 3)\n";
  return u;
}

// ---- --info and --list-variants --------------------------------------------------------------

/// `text` as a JSON string: quoted, with `"` and `\` escaped and every control character written
/// as Python's json module writes it (`\n`, `\t`, ... or `\u00XX`); other bytes pass unchanged.
inline std::string json_quote(const std::string& text) {
  std::string q = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\b': q += "\\b"; break;
      case '\f': q += "\\f"; break;
      case '\n': q += "\\n"; break;
      case '\r': q += "\\r"; break;
      case '\t': q += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          q += code;
        } else {
          q += c;
        }
    }
  }
  return q + "\"";
}

/// A number as Python's repr() writes a float: the fewest digits that read back to the same
/// double, and a whole number with ".0" (4814.0), so that a script reads back exactly the value
/// the program computed. Not a number or an infinity, which JSON cannot hold, is null.
inline std::string json_number(double v) {
  char text[40];
  if (!std::isfinite(v)) return "null";
  if (v == std::floor(v) && std::fabs(v) < 1e16) {
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

/// A JSON value as --info builds it: null, a scalar, an array, or an object whose keys keep the
/// order they were set in. dump() lays it out as Python's `json.dumps(value, indent=2)` does, so
/// that scripts may compare it, or write it again, byte for byte.
class Json {
 public:
  Json() = default;  ///< null
  /// A string.
  static Json text(const std::string& s) { return scalar(json_quote(s)); }
  /// A whole number.
  static Json integer(int64_t v) { return scalar(std::to_string(v)); }
  /// A number that may have a fraction (see wb::json_number).
  static Json number(double v) { return scalar(json_number(v)); }
  /// true or false.
  static Json boolean(bool v) { return scalar(v ? "true" : "false"); }
  /// An empty array: fill it with push().
  static Json array() { return composite(Kind::Array); }
  /// An empty object: fill it with set().
  static Json object() { return composite(Kind::Object); }
  /// An array of strings.
  static Json texts(const std::vector<std::string>& list) {
    Json a = array();
    for (const auto& s : list) a.push(text(s));
    return a;
  }
  /// Append a value to an array.
  Json& push(Json value) {
    values_.push_back(std::move(value));
    return *this;
  }
  /// Add a key to an object (after the keys set before it).
  Json& set(const std::string& key, Json value) {
    keys_.push_back(key);
    values_.push_back(std::move(value));
    return *this;
  }
  /// The value as text, its inner lines indented by two spaces per level below `depth`.
  std::string dump(int depth = 0) const {
    if (kind_ == Kind::Scalar) return scalar_;
    const char* brackets = kind_ == Kind::Array ? "[]" : "{}";
    if (values_.empty()) return brackets;
    const std::string inner(size_t(2 * (depth + 1)), ' ');
    std::string out(1, brackets[0]);
    for (size_t i = 0; i < values_.size(); ++i) {
      out += (i ? ",\n" : "\n") + inner;
      if (kind_ == Kind::Object) out += json_quote(keys_[i]) + ": ";
      out += values_[i].dump(depth + 1);
    }
    return out + "\n" + std::string(size_t(2 * depth), ' ') + brackets[1];
  }

 private:
  enum class Kind { Scalar, Array, Object };
  static Json scalar(std::string text) {
    Json j;
    j.scalar_ = std::move(text);
    return j;
  }
  static Json composite(Kind kind) {
    Json j;
    j.kind_ = kind;
    return j;
  }
  Kind kind_ = Kind::Scalar;
  std::string scalar_ = "null";    // a scalar already written as JSON
  std::vector<std::string> keys_;  // an object's keys, one per value
  std::vector<Json> values_;       // an array's or an object's values
};

/// What --info reports as "device": the facts of CUDA device `ordinal` as a JSON object, or
/// null where there is no usable device. This header knows no CUDA, so its own answer is null;
/// wb_cuda.cuh installs one that asks the driver (wb::cuda_device_info).
using DeviceInfo = Json (*)(int ordinal);

/// --info's "device" for a GPU, built here, without CUDA, so that the host tests see its layout:
/// the CUDA ordinal, the name, the compute capability ("90"), the SMs, the L2 in bytes, the
/// theoretical peak in GB/s and how many CUDA devices the process sees ("visible", what chapter
/// 18 spreads over by default). tests/info_check.py reads the keys from the calls below.
inline Json device_json(int ordinal, const std::string& name, const std::string& sm, int sms, int64_t l2_bytes,
                        double peak_gbps, int visible) {
  return Json::object()
      .set("ordinal", Json::integer(ordinal))
      .set("name", Json::text(name))
      .set("sm", Json::text(sm))
      .set("sms", Json::integer(sms))
      .set("l2_bytes", Json::integer(l2_bytes))
      .set("peak_gbps", Json::number(peak_gbps))
      .set("visible", Json::integer(visible));
}

/// The answer without CUDA: no device.
inline Json no_device_info(int) { return Json(); }

/// The function --info asks for "device" (see wb::DeviceInfo).
inline DeviceInfo device_info = no_device_info;

/// The CUB the program was compiled against, as "major.minor.subminor" (e.g. "3.5.0"), for
/// --info's "cub" and the rows of CUB calls (wb::with_cub_version); null in a program that knows
/// no CUDA. wb_cuda.cuh sets it from CUB_VERSION.
inline const char* cub_version = nullptr;

/// A CUB version written "major.minor.subminor" ("3.1.0") as CUB_VERSION writes it (MMMmmmpp:
/// 300100), or -1 for text that is no such version. constexpr, so that a chapter can check when
/// it compiles that the version its Spec names is the one its `#if CUB_VERSION` tests.
constexpr long cub_version_number(const char* text) {
  if (text == nullptr) return -1;
  long part[3] = {0, 0, 0};
  int i = 0, digits = 0;
  for (; *text; ++text) {
    if (*text >= '0' && *text <= '9' && digits < 3) {
      part[i] = part[i] * 10 + (*text - '0');
      ++digits;
    } else if (*text == '.' && digits > 0 && i < 2) {
      ++i;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (i != 2 || digits == 0 || part[2] > 99) return -1;
  return part[0] * 100000 + part[1] * 100 + part[2];
}

/// Whether CUB version `have` ("3.0.1") is `need` ("3.1.0") or newer; false where `have` is null
/// (a program that knows no CUB) or either is no version.
inline bool cub_at_least(const char* have, const std::string& need) {
  const long h = cub_version_number(have), n = cub_version_number(need.c_str());
  return h >= 0 && n >= 0 && h >= n;
}

/// The rows of `variant` that the build's CUB (wb::cub_version) cannot run: those Spec::needs_cub
/// names with a CUB newer than it, in the variant's order.
inline std::vector<std::string> rows_without_cub(const Spec& s, const std::string& variant) {
  std::vector<std::string> rows;
  for (const auto& v : s.variants)
    if (v.name == variant)
      for (const auto& k : v.kernels)
        for (const auto& need : s.needs_cub)
          if (need.first == k && !cub_at_least(cub_version, need.second)) rows.push_back(k);
  return rows;
}

/// The note a run of `variant` prints once when rows_without_cub() leaves rows out: which rows,
/// which CUB they need, which one the program has and how to get a newer one; "" when every row
/// runs.
inline std::string rows_without_cub_note(const Spec& s, const std::string& variant) {
  const std::vector<std::string> rows = rows_without_cub(s, variant);
  if (rows.empty()) return "";
  std::string note = "note: ", need;
  for (size_t i = 0; i < rows.size(); ++i) {
    note += (i == 0 ? "" : i + 1 == rows.size() ? " and " : ", ") + rows[i];
    for (const auto& n : s.needs_cub)
      if (n.first == rows[i] && (need.empty() || cub_at_least(n.second.c_str(), need))) need = n.second;
  }
  const bool one = rows.size() == 1;
  return note + (one ? " needs" : " need") + " CUB " + need + " or newer; this program was built with CUB " +
         (cub_version ? cub_version : "(none)") + ", so " + (one ? "it is" : "they are") +
         " not run. To run " + (one ? "it" : "them") +
         ": pip install nvidia-cuda-cccl and configure again (cmake -S . -B build -DWB_CCCL=auto), "
         "or give CMake -DWB_CCCL_ROOT=DIR, a newer CCCL";
}

/// --info's name for a part of the course.
inline const char* part_name(Part p) {
  switch (p) {
    case Part::Ceiling: return "ceiling";
    case Part::Reduction: return "reduction";
    case Part::Scan: return "scan";
    case Part::MultiGpu: return "multi-gpu";
    case Part::Unset: break;
  }
  return "unset";
}

/// --info's name for a block rule.
inline const char* block_rule_name(BlockRule r) {
  switch (r) {
    case BlockRule::Any: return "any";
    case BlockRule::MultipleOf32: return "multiple-of-32";
    case BlockRule::PowerOfTwo: return "power-of-two";
    case BlockRule::None: break;
  }
  return "none";
}

/// What a row's bytes count under an op's rule (docs/pages/measuring.md, "Bytes counted").
inline const char* bytes_rule(Op op) {
  return op == Op::Reduce ? "each input element read once (4 bytes)"
                          : "each element read once and written once (8 bytes)";
}

/// The flags a chapter takes, in --help's order: the shared ones, its optional ones, then those
/// it parses itself. --help, --info and --list-variants, which every program answers, are not
/// listed.
inline std::vector<std::string> chapter_flags(const Spec& s) {
  std::vector<std::string> f = {"--n", "--offset", "--reps", "--warmup", "--seed", "--no-flush", "--csv", "--device"};
  if (s.block.rule != BlockRule::None) f.push_back("--block");
  if (s.batch.default_value) f.push_back("--batch");
  if (!s.variants.empty()) f.push_back("--variant");
  if (s.racy) f.push_back("--racy");
  for (const auto& h : s.harness_flags) f.push_back(h.name);
  f.insert(f.end(), s.extra_flags.begin(), s.extra_flags.end());
  return f;
}

/// The rows a run without --variant reports: the default variant's, or the chapter's own list.
inline const std::vector<std::string>& default_kernels(const Spec& s) {
  return s.variants.empty() ? s.kernels : s.variants.front().kernels;
}

/// What --info prints: the chapter as the scripts need it (see docs/pages/measuring.md), with
/// `device` (wb::DeviceInfo's answer) last.
inline Json info_json(const Spec& s, const Json& device) {
  Json info = Json::object();
  info.set("chapter", Json::text(s.chapter))
      .set("slug", Json::text(s.slug))
      .set("idea", Json::text(s.idea))
      .set("part", Json::text(part_name(s.part)))
      .set("op", Json::text(s.op == Op::Reduce ? "reduce" : "scan"))
      .set("bytes_per_element", Json::integer(int64_t(bytes_per_element(s.op))))
      .set("bytes", Json::text(*s.bytes ? s.bytes : bytes_rule(s.op)))
      .set("flags", Json::texts(chapter_flags(s)));
  Json block, batch;  // null where the chapter has no such flag
  if (s.block.rule != BlockRule::None)
    block = Json::object()
                .set("rule", Json::text(block_rule_name(s.block.rule)))
                .set("default", Json::integer(s.block.default_value))
                .set("min", Json::integer(s.block.min))
                .set("max", Json::integer(s.block.max));
  if (s.batch.default_value)
    batch = Json::object()
                .set("default", Json::integer(s.batch.default_value))
                .set("max", Json::integer(s.batch.max))
                .set("power_of_two", Json::boolean(s.batch.power_of_two));
  Json variants = Json::array();
  for (const auto& v : s.variants)
    variants.push(Json::object().set("name", Json::text(v.name)).set("kernels", Json::texts(v.kernels)));
  info.set("block", block).set("batch", batch).set("variants", variants);
  info.set("default_kernels", Json::texts(default_kernels(s)));
  if (!s.ceilings.copy.empty() || !s.ceilings.read.empty())
    info.set("ceilings", Json::object().set("copy", Json::texts(s.ceilings.copy)).set("read", Json::texts(s.ceilings.read)));
  if (!s.copy_kernels.empty()) info.set("copy_kernels", Json::texts(s.copy_kernels));
  if (!s.cub_pairs.empty()) {
    Json pairs = Json::object();
    for (const auto& p : s.cub_pairs) pairs.set(p.first, Json::text(p.second));
    info.set("cub_pairs", pairs);
  }
  if (!s.needs_cub.empty()) {
    Json needs = Json::object();
    for (const auto& n : s.needs_cub) needs.set(n.first, Json::text(n.second));
    info.set("needs_cub", needs);
  }
  info.set("cub", cub_version ? Json::text(cub_version) : Json());
  info.set("device", device);
  return info;
}

/// What --list-variants prints: the --variant names, one a line, in the Spec's order; nothing
/// for a chapter without --variant.
inline std::string variant_names(const Spec& s) {
  std::string out;
  for (const auto& v : s.variants) out += v.name + "\n";
  return out;
}

/// What parse_args() found.
enum class Parse {
  Ok,            ///< run with the options
  Help,          ///< --help: print the usage and exit 0
  Info,          ///< --info: print wb::info_json and exit 0
  ListVariants,  ///< --list-variants: print wb::variant_names and exit 0
  Error          ///< a bad command line: print the message and exit 2
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
  if (!spec.variants.empty()) opt.variant = spec.variants.front().name;
  // --info and --list-variants answer after the whole line is read: a bad flag still exits 2,
  // and --device, wherever it stands, names the device --info describes.
  Parse answer = Parse::Ok;

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
    // A count in [lo, hi], a multiple of `step`; the message names the flag and the rule.
    auto count = [&](int64_t lo, int64_t hi, int64_t& out, int64_t step = 1) {
      std::string text;
      if (!next(text)) return false;
      if (!parse_count(text, out) || out < lo || out > hi || out % step != 0) {
        error = arg + " '" + text + "' is not allowed: give a " +
                (step > 1 ? "multiple of " + std::to_string(step) : std::string("whole number")) + " from " +
                std::to_string(lo) + " to " + std::to_string(hi);
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
    } else if (arg == "--info" || arg == "--list-variants") {
      if (!flag_only()) return Parse::Error;
      const Parse asked = arg == "--info" ? Parse::Info : Parse::ListVariants;
      if (answer != Parse::Ok && answer != asked) {
        error = "--info and --list-variants cannot be given together";
        return Parse::Error;
      }
      answer = asked;
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
      for (const auto& v : spec.variants) known = known || v.name == text;
      if (!known) {
        error = "--variant '" + text + "' is not known: this chapter takes";
        for (const auto& v : spec.variants) error += " " + v.name;
        return Parse::Error;
      }
      opt.variant = text;
    } else {
      const HarnessFlag* harness = nullptr;
      for (const auto& h : spec.harness_flags) harness = h.name == arg ? &h : harness;
      if (harness == nullptr) {
        error = "unknown argument '" + std::string(argv[i]) + "' (see --help)";
        return Parse::Error;
      }
      if (harness->value.empty() ? !flag_only() : !count(harness->min, harness->max, v, harness->step))
        return Parse::Error;
      opt.harness.emplace_back(arg, harness->value.empty() ? 1 : v);
    }
  }
  return answer;
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
    case Parse::Info:
      std::fputs((info_json(spec, device_info(opt.device)).dump() + "\n").c_str(), stdout);
      std::exit(0);
    case Parse::ListVariants:
      std::fputs(variant_names(spec).c_str(), stdout);
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
