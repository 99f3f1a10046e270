/// @file wb_report.h
/// @brief Timing statistics and the two output formats (human table, CSV), host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace wb {

/// One timed kernel: a row of the table and of the CSV.
struct Row {
  std::string chapter;        ///< two digits
  std::string kernel;         ///< the kernel's (or library call's) name
  int64_t n = 0;              ///< elements
  int block = 0;              ///< threads per block, 0 where it does not apply
  int batch = 0;              ///< elements per thread, 0 where it does not apply
  double median_ms = 0;       ///< median of the timed runs
  double min_ms = 0;          ///< fastest timed run
  double bytes = 0;           ///< bytes moved by one run
  double gbps = 0;            ///< bytes / 1e9 / median seconds
  double pct_theoretical = 0; ///< gbps as a percentage of the device's theoretical peak
  int blocks_per_sm = 0;      ///< resident blocks per SM from the occupancy API, 0 if unknown
  std::string config;         ///< the tuning that produced the row ("key=value ..."; a CUB row's
                              ///< ends with cub=VERSION, see with_cub_version), or empty
  bool verified = false;      ///< every check of this kernel's output passed
  std::string note;           ///< free text for the human table only (e.g. "1.04x CUB")
};

/// Whether a row is a call of CUB's rather than a workbook kernel: its name starts with "cub_"
/// or "cub::" (the rule the scripts share, scripts/wblib/summary.py's is_cub).
inline bool is_cub_row(const std::string& kernel) {
  return kernel.rfind("cub_", 0) == 0 || kernel.rfind("cub::", 0) == 0;
}

/// A CUB row's config with the CUB it called recorded ("cub=3.5.0", after any tuning it
/// already names), so that a CSV says which CUB the workbook was compared against.
inline std::string with_cub_version(const std::string& config, const std::string& version) {
  return (config.empty() ? "" : config + " ") + "cub=" + version;
}

/// Median of a list of times (the mean of the two middle values for an even count).
inline double median(std::vector<float> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (double(v[m - 1]) + double(v[m]));
}

/// Fill a row's bandwidth fields from its bytes and median time and a peak in GB/s.
inline void set_bandwidth(Row& r, double peak_gbps) {
  r.gbps = r.median_ms > 0 ? r.bytes / 1e9 / (r.median_ms / 1e3) : 0;
  r.pct_theoretical = peak_gbps > 0 ? 100.0 * r.gbps / peak_gbps : 0;
}

/// The CSV header of the command-line contract in docs/pages/measuring.md.
inline const char* csv_header() {
  return "chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config";
}

/// One CSV line (no newline), its columns in the order of csv_header(). A comma in `config`
/// would split the column, so it is written as a semicolon.
inline std::string csv_row(const Row& r) {
  std::string config = r.config;
  std::replace(config.begin(), config.end(), ',', ';');
  char buf[768];
  std::snprintf(buf, sizeof buf, "%s,%s,%lld,%d,%d,%.6f,%.6f,%.1f,%.1f,%s,%d,%s", r.chapter.c_str(),
                r.kernel.c_str(), (long long)r.n, r.block, r.batch, r.median_ms, r.min_ms, r.gbps,
                r.pct_theoretical, r.verified ? "PASS" : "FAIL", r.blocks_per_sm, config.c_str());
  return buf;
}

/// N written for people: "1073741824 (2^30)" when it is a power of two.
inline std::string describe_n(int64_t n) {
  std::string s = std::to_string(n);
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((int64_t(1) << k) != n) ++k;
    s += " (2^" + std::to_string(k) + ")";
  }
  return s;
}

/// The human table: one line per row, then nothing else.
inline std::string human_table(const std::vector<Row>& rows) {
  size_t width = 6;
  for (const auto& r : rows) width = std::max(width, r.kernel.size());
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-*s %11s %5s %5s %10s %10s %9s %7s %6s  %s\n", int(width), "kernel", "n",
                "block", "batch", "median ms", "min ms", "GB/s", "% peak", "blk/SM", "check");
  std::string out = buf;
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-*s %11lld %5d %5d %10.4f %10.4f %9.1f %6.1f%% %6d  %s%s%s\n", int(width),
                  r.kernel.c_str(), (long long)r.n, r.block, r.batch, r.median_ms, r.min_ms, r.gbps,
                  r.pct_theoretical, r.blocks_per_sm, r.verified ? "PASS" : "FAIL",
                  r.note.empty() ? "" : "  ", r.note.c_str());
    out += buf;
  }
  return out;
}

/// The exit status of a run and its closing line: 0 ("all results verified ...") when at
/// least one kernel ran and every row passed every check; 1 otherwise, with a line that says
/// why. A run with no rows fails: a chapter that ran nothing has verified nothing.
inline int finish_status(const std::vector<Row>& rows, std::string& line) {
  if (rows.empty()) {
    line = "FAILED: no kernel ran";
    return 1;
  }
  size_t failed = 0;
  for (const auto& r : rows) failed += r.verified ? 0 : 1;
  if (failed == 0) {
    line = "all results verified against the CPU reference";
    return 0;
  }
  line = "FAILED: " + std::to_string(failed) + " of " + std::to_string(rows.size()) +
         " kernel run(s) failed a check (see the FAIL lines above)";
  return 1;
}

/// The note beside a row in the human table: CUB's time over the row's, e.g. "1.36x CUB" (above
/// 1: the row is faster).
inline std::string versus_cub(const Row& cub, const Row& ours) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx CUB", ours.median_ms > 0 ? cub.median_ms / ours.median_ms : 0.0);
  return text;
}

/// Print the rows, then the closing line: as CSV (the line on standard error, and only when
/// `status` is not 0) or as the human table. What every bench's finish() prints.
inline void print_rows(bool csv, const std::vector<Row>& rows, int status, const std::string& line) {
  if (csv) {
    std::printf("%s\n", csv_header());
    for (const auto& r : rows) std::printf("%s\n", csv_row(r).c_str());
    if (status != 0) std::fprintf(stderr, "%s\n", line.c_str());
  } else {
    std::fputs(human_table(rows).c_str(), stdout);
    std::printf("\n%s\n", line.c_str());
  }
}

/// Print the rows with finish_status's closing line (print_rows); return that status.
inline int report_rows(bool csv, const std::vector<Row>& rows) {
  std::string line;
  const int status = finish_status(rows, line);
  print_rows(csv, rows, status, line);
  return status;
}

}  // namespace wb
