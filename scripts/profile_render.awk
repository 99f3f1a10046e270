# scripts/profile_render.awk: turn one counters CSV (from `scripts/profile.sh run`) into the
# all-chapters page and one block per chapter page. Called by `scripts/profile.sh render`;
# POSIX awk (tested with mawk), no GPU needed.
#
# Input: the counters CSV, one row per kernel launch; columns found by their header names:
#   chapter,variant,run,launch,kernel,grid,block,n,duration_ns,dram_pct_of_peak,
#   dram_read_bytes,dram_write_bytes,l2_hit_pct,achieved_occupancy_pct,
#   shared_ld_bank_conflicts,shared_st_bank_conflicts,shared_ld_wavefronts,
#   shared_st_wavefronts,threads_per_warp_inst,pred_on_threads_per_warp_inst,
#   divergent_branch_targets,warp_insts,
#   stall_long_scoreboard_per_inst,stall_barrier_per_inst,stall_membar_per_inst,ncu_id,device
# The tables show each variant's timed run (its first run where the CSV has no timed one); a
# row with launch 0 says that the variant launched no kernel that ncu profiles.
#
# Variables (-v): date (shown), base (file name stem, e.g. h200-counters), outdir (where
# base.md goes), pagerel (outdir as seen from a chapter page, ending in "/"), uprel (the
# repository root as seen from outdir, ending in "/"), frag (directory for the chapter
# blocks, chapterNN.md), slugs (file of "NN slug" lines).

BEGIN { FS = ","; rows = 0; nch = 0; device = "" }

NR == 1 {
  for (i = 1; i <= NF; i++) c[$i] = i
  split("chapter variant run launch kernel grid block n duration_ns dram_pct_of_peak dram_read_bytes dram_write_bytes " \
        "l2_hit_pct achieved_occupancy_pct shared_ld_bank_conflicts shared_st_bank_conflicts shared_ld_wavefronts " \
        "shared_st_wavefronts threads_per_warp_inst pred_on_threads_per_warp_inst divergent_branch_targets warp_insts stall_long_scoreboard_per_inst " \
        "stall_barrier_per_inst stall_membar_per_inst device", need, " ")
  for (i = 1; i in need; i++)
    if (!(need[i] in c)) {
      print "profile_render.awk: " FILENAME " is not a counters CSV (no column " need[i] ")" > "/dev/stderr"
      bad_input = 1
      exit 1
    }
  next
}

$c["chapter"] ~ /^[0-9][0-9]$/ {
  r = ++rows
  for (k in c) v[r, k] = $c[k]
  if (device == "" && $c["device"] != "") device = $c["device"]
  ch = $c["chapter"]
  if (!(ch in seen)) { seen[ch] = 1; chs[++nch] = ch }
  key = ch SUBSEP $c["variant"]
  if (!(key in vseen)) { vseen[key] = 1; nv[ch]++; var[ch, nv[ch]] = $c["variant"] }
  if ($c["run"] == "timed") has_timed[key] = 1
  cnt_n[$c["n"] + 0]++
}

# ---- formatting ----------------------------------------------------------------------------

# "2^k" for a power of two, the number otherwise.
function pow2(n,    k, p) {
  p = 1; k = 0
  while (p < n) { p *= 2; k++ }
  return p == n ? "2^" k : sprintf("%.0f", n)
}

# About three significant digits, never in exponent form; "-" for an empty value.
function sig(x) {
  if (x == "") return "-"
  x += 0
  if (x == 0) return "0"
  if (x < 0) return "-" sig(-x)
  if (x >= 100) return sprintf("%.0f", x)
  if (x >= 10) return sprintf("%.1f", x)
  if (x >= 1) return sprintf("%.2f", x)
  if (x >= 0.1) return sprintf("%.3f", x)
  if (x >= 0.01) return sprintf("%.4f", x)
  if (x >= 0.001) return sprintf("%.5f", x)
  return "<0.001"
}

# Bytes as MB (10^6 bytes).
function mb(x) {
  if (x == "") return "-"
  if (x + 0 > 0 && x + 0 < 1e4) return "<0.01"
  return sig(x / 1e6)
}

# A count: exact below 10000, else with k, M or G and three significant digits.
function count(x,    a) {
  if (x == "") return "-"
  x += 0
  a = x < 0 ? -x : x
  if (a < 10000) return sprintf("%.0f", x)
  if (a < 1e6) return sig(x / 1e3) "k"
  if (a < 1e9) return sig(x / 1e6) "M"
  return sig(x / 1e9) "G"
}

function pct(x) { return x == "" ? "-" : sprintf("%.1f", x) }
function ratio(x) { return x == "" ? "-" : sprintf("%.2f", x) }
function pair(a, b, fn) { return (fn == "count" ? count(a) " / " count(b) : a " / " b) }
function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }

# ---- selection -----------------------------------------------------------------------------

# Collect the rows shown for chapter ch, variant name vn into sel[1..nsel]; return nsel
# (0 for a variant whose run launched no profiled kernel: its launch-0 row sets none_row).
function select_rows(ch, vn,    r, want, nsel) {
  want = ((ch SUBSEP vn) in has_timed) ? "timed" : "first"
  nsel = 0; none_row = 0
  for (r = 1; r <= rows; r++) {
    if (v[r, "chapter"] != ch || v[r, "variant"] != vn || v[r, "run"] != want) continue
    if (v[r, "launch"] + 0 == 0) { none_row = r; continue }
    sel[++nsel] = r
  }
  return nsel
}

# The kernel cell: the function, after the variant's name where that differs, and which launch.
function label(r, m, k,    vn, kn, s) {
  vn = v[r, "variant"]; kn = v[r, "kernel"]
  s = (vn == kn) ? "`" kn "`" : vn ": `" kn "`"
  if (m > 1) s = s " (" k " of " m ")"
  return s
}

function total_label(r, m,    vn) {
  vn = v[r, "variant"]
  return (vn == v[r, "kernel"] ? "`" vn "`" : vn) ": " (m == 2 ? "both launches" : "all " m " launches")
}

function grid_block(r) { return v[r, "grid"] " x " v[r, "block"] }

# Sums over sel[1..m] of column k (empty if every value is empty).
function total(k, m,    i, s, any) {
  s = 0; any = 0
  for (i = 1; i <= m; i++) if (v[sel[i], k] != "") { s += v[sel[i], k]; any = 1 }
  return any ? s : ""
}

function per_elem(x, r) { return (x == "" || v[r, "n"] + 0 <= 0) ? "" : x / v[r, "n"] }

# ---- tables --------------------------------------------------------------------------------

# The memory table of chapter ch (a leading chapter column when `link` is given).
function memory_table(out, ch, link,    j, m, i, r, vn, pre, t) {
  pre = link != "" ? link " | " : ""
  for (j = 1; j <= nv[ch]; j++) {
    vn = var[ch, j]
    m = select_rows(ch, vn)
    for (i = 1; i <= m; i++) {
      r = sel[i]
      printf "| %s%s | %s | %s | %s | %s | %s | %s | %s |\n", pre, label(r, m, i), grid_block(r), sig(v[r, "duration_ns"] == "" ? "" : v[r, "duration_ns"] / 1000), \
        pct(v[r, "dram_pct_of_peak"]), mb(v[r, "dram_read_bytes"]), mb(v[r, "dram_write_bytes"]), pct(v[r, "l2_hit_pct"]), \
        pct(v[r, "achieved_occupancy_pct"]) > out
    }
    if (m > 1) {
      t = total("duration_ns", m)
      printf "| %s%s |  | %s |  | %s | %s |  |  |\n", pre, total_label(sel[1], m), sig(t == "" ? "" : t / 1000), \
        mb(total("dram_read_bytes", m)), mb(total("dram_write_bytes", m)) > out
    }
  }
}

function memory_header(out, link) {
  printf "| %skernel | grid x block | time µs | DRAM %% of peak | DRAM read MB | DRAM write MB | L2 hit %% | achieved occupancy %% |\n", link ? "chapter | " : "" > out
  printf "| %s--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", link ? "--- | " : "" > out
}

function inst_table(out, ch, link,    j, m, i, r, vn, pre) {
  pre = link != "" ? link " | " : ""
  for (j = 1; j <= nv[ch]; j++) {
    vn = var[ch, j]
    m = select_rows(ch, vn)
    for (i = 1; i <= m; i++) {
      r = sel[i]
      printf "| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pre, label(r, m, i), sig(per_elem(v[r, "warp_insts"], r)), \
        ratio(v[r, "threads_per_warp_inst"]), ratio(v[r, "pred_on_threads_per_warp_inst"]), count(v[r, "divergent_branch_targets"]), \
        pair(v[r, "shared_ld_bank_conflicts"], v[r, "shared_st_bank_conflicts"], "count"), \
        pair(v[r, "shared_ld_wavefronts"], v[r, "shared_st_wavefronts"], "count"), \
        ratio(v[r, "stall_long_scoreboard_per_inst"]), ratio(v[r, "stall_barrier_per_inst"]), ratio(v[r, "stall_membar_per_inst"]) > out
    }
    if (m > 1)
      printf "| %s%s | %s |  |  | %s | %s | %s |  |  |  |\n", pre, total_label(sel[1], m), sig(per_elem(total("warp_insts", m), sel[1])), \
        count(total("divergent_branch_targets", m)), \
        pair(total("shared_ld_bank_conflicts", m), total("shared_st_bank_conflicts", m), "count"), \
        pair(total("shared_ld_wavefronts", m), total("shared_st_wavefronts", m), "count") > out
  }
}

function inst_header(out, link) {
  printf "| %skernel | warp inst / element | active threads / warp inst | predicated-on threads / warp inst | divergent branch targets | shared bank conflicts ld / st | shared wavefronts ld / st | stall long scoreboard | stall barrier | stall membar |\n", link ? "chapter | " : "" > out
  printf "| %s--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", link ? "--- | " : "" > out
}

# The variants of chapter ch that launched no profiled kernel, as "`a`, `b`".
function not_profiled(ch,    j, s) {
  s = ""
  for (j = 1; j <= nv[ch]; j++)
    if (select_rows(ch, var[ch, j]) == 0 && none_row > 0) s = s (s == "" ? "" : ", ") "`" var[ch, j] "`"
  return s
}

# The variants of chapter ch run at another N than main_n, as "`a` (N = 2^17), `b` (N = 2^17)".
function own_n(ch,    j, m, s) {
  s = ""
  for (j = 1; j <= nv[ch]; j++) {
    m = select_rows(ch, var[ch, j])
    if (m == 0 && none_row > 0) sel[++m] = none_row
    if (m > 0 && v[sel[1], "n"] + 0 != main_n + 0) s = s (s == "" ? "" : ", ") "`" var[ch, j] "` (N = " pow2(v[sel[1], "n"] + 0) ")"
  }
  return s
}

function chapter_link(ch, up) {
  return (ch in slug) ? "[" ch " " slug[ch] "](" up "chapters/" ch "-" slug[ch] "/README.md)" : ch
}

# ---- output --------------------------------------------------------------------------------

END {
  if (bad_input) exit 1
  if (rows == 0) { print "profile_render.awk: " FILENAME " holds no rows" > "/dev/stderr"; exit 1 }
  while ((getline line < slugs) > 0) { split(line, sl, " "); slug[sl[1]] = sl[2] }
  # Chapters in numeric order; N the most common one.
  for (i = 2; i <= nch; i++) {
    t = chs[i]
    for (j = i - 1; j >= 1 && chs[j] + 0 > t + 0; j--) chs[j + 1] = chs[j]
    chs[j + 1] = t
  }
  main_n = 0
  for (x in cnt_n) if (cnt_n[x] > cnt_n[main_n] || (cnt_n[x] == cnt_n[main_n] && x + 0 > main_n + 0)) main_n = x + 0
  if (device == "") device = "unnamed GPU of " base ".csv"
  title = "Hardware counters on the " xml(device)
  how = "one run of each kernel under Nsight Compute (`ncu --clock-control none`, which also flushes the caches before each kernel)"

  # The all-chapters page.
  md = outdir "/" base ".md"
  printf "# %s\n\n", title > md
  printf "Every chapter's kernels at N = %s (%.0f elements), %s, by `scripts/profile.sh run` on %s.\n", pow2(main_n), main_n, how, date > md
  printf "Every number below comes from [%s.csv](%s.csv), which also holds the untimed first run of each kernel;\n", base, base > md
  print "the tables show the timed run. A kernel launched several times per run (a multi-pass reduction, a scan's" > md
  print "three passes) has a row per launch and a row of totals. Each chapter's page shows its own rows under its" > md
  print "measured results. The times here are one profiled run each: the chapters' own medians are the timings to quote." > md
  print "\n## Memory\n" > md
  memory_header(md, 1)
  for (i = 1; i <= nch; i++) memory_table(md, chs[i], chapter_link(chs[i], uprel))
  print "\n## Instructions, shared memory and stalls\n" > md
  inst_header(md, 1)
  for (i = 1; i <= nch; i++) inst_table(md, chs[i], chapter_link(chs[i], uprel))
  s = ""
  for (i = 1; i <= nch; i++) {
    t = not_profiled(chs[i])
    if (t != "") s = s (s == "" ? "" : "; ") "chapter " chs[i] ": " t
  }
  if (s != "") printf "\nNot in the tables, because they launch no kernel that ncu profiles (a `cudaMemcpy`, say): %s.\n", s > md
  s = ""
  for (i = 1; i <= nch; i++) {
    t = own_n(chs[i])
    if (t != "") s = s (s == "" ? "" : "; ") "chapter " chs[i] ": " t
  }
  if (s != "") printf "\nRun at their own N, which their warp inst / element uses: %s.\n", s > md
  print "\n## What the columns are\n" > md
  print "Each column is one Nsight Compute metric (the names are those of its Kernel Profiling Guide), for one launch:\n" > md
  print "- **time µs**: `gpu__time_duration.sum`, how long the kernel ran while it was profiled." > md
  print "- **DRAM % of peak**: `dram__throughput.avg.pct_of_peak_sustained_elapsed`, how busy device memory was over" > md
  print "  the kernel's run, against the most it can sustain." > md
  print "- **DRAM read MB** and **DRAM write MB**: `dram__bytes_read.sum` and `dram__bytes_write.sum`, in 10^6 bytes." > md
  printf "  Reading N ints once is %.1f MB at this N. Data still in the L2 cache when a kernel ends has not reached\n", main_n * 4 / 1e6 > md
  print "  DRAM yet, so a kernel that writes N ints can show fewer bytes written." > md
  print "- **L2 hit %**: `lts__t_sector_hit_rate.pct`, the share of the L2 cache's sector lookups that hit." > md
  print "- **achieved occupancy %**: `sm__warps_active.avg.pct_of_peak_sustained_active`, the warps resident on an SM" > md
  print "  on average while it was active, against the most it can hold." > md
  print "- **warp inst / element**: `smsp__inst_executed.sum` (warp instructions executed) divided by N." > md
  print "- **active threads / warp inst**: `smsp__average_thread_inst_executed_per_inst_executed.ratio`, how many of a" > md
  print "  warp's 32 threads took part in an instruction, on average; below 32 when warps diverge or run part-empty." > md
  print "- **predicated-on threads / warp inst**: `smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio`," > md
  print "  the same count of those threads whose guard predicate was true, the ones that did the work. The compiler" > md
  print "  often turns a short `if` into predicated instructions rather than a branch: its divergence shows here, not" > md
  print "  in the column before or in the divergent branches." > md
  print "- **divergent branch targets**: `smsp__sass_branch_targets_threads_divergent.sum`, branches at which the active" > md
  print "  threads of a warp went more than one way." > md
  print "- **shared bank conflicts ld / st**: `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` and `..._op_st.sum`," > md
  print "  bank conflicts of shared-memory loads and stores." > md
  print "- **shared wavefronts ld / st**: `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum` and `..._op_st.sum`, the" > md
  print "  passes shared-memory loads and stores took; a conflict-free warp access takes one, a k-way conflict k." > md
  print "- **stall long scoreboard**, **stall barrier**, **stall membar**:" > md
  print "  `smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio` and its `_barrier_` and `_membar_`" > md
  print "  siblings: how many warps were waiting for that reason, on average over the cycles in which an instruction" > md
  print "  was issued (roughly, cycles of waiting per instruction). Long scoreboard: for data from global memory" > md
  print "  (through L1TEX); barrier: at a `__syncthreads()` for the block's other warps; membar: at a memory fence." > md
  close(md)

  # Each chapter's block.
  for (i = 1; i <= nch; i++) {
    ch = chs[i]
    out = frag "/chapter" ch ".md"
    printf "Hardware counters of this chapter's kernels on the %s at N = %s: %s, by `scripts/profile.sh` on %s.\n", \
      xml(device), pow2(main_n), how, date > out
    print "Each variant's timed run; a kernel launched more than once per run has a row per launch and a row of totals." > out
    printf "Every launch and metric: [%s.csv](%s%s.csv); every chapter, and what each column measures: [%s](%s%s.md).\n\n", \
      base, pagerel, base, title, pagerel, base > out
    memory_header(out, 0)
    memory_table(out, ch, "")
    print "" > out
    inst_header(out, 0)
    inst_table(out, ch, "")
    t = not_profiled(ch)
    if (t != "") printf "\nNot in the tables, because they launch no kernel that ncu profiles: %s.\n", t > out
    t = own_n(ch)
    if (t != "") printf "\nRun at their own N, which their warp inst / element uses: %s.\n", t > out
    close(out)
  }
}
