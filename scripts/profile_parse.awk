# scripts/profile_parse.awk: one chapter's `ncu --csv --page raw` output -> rows of the counters
# CSV. Called by `scripts/profile.sh run`; POSIX awk (tested with mawk and gawk), no GPU needed.
#
# Input: what ncu wrote to its --log-file: "==PROF==" and "==WARNING==" lines, then a header of
# quoted column names ("ID","Process ID","Process Name","Host Name","Kernel Name","Context",
# "Stream","Block Size","Grid Size","Device","CC", then one column per metric, ncu's own launch__
# and device__ attributes among them), a row of units ("" for the first eleven), and one row per
# profiled kernel launch. Every field is quoted; numbers carry thousands separators ("1,234.5");
# a size is "(256, 1, 1)"; a kernel name is demangled, with its template arguments and
# parameter list ("void reduce_best<4>(const int *, long, Plan, GridTotal *, int *)").
#
# Variables (-v):
#   chapter   the chapter's two-digit id
#   kernels   its __global__ function names, space separated: launches of these are kept
#   cases     the file holding the chapter's --csv output: its rows (chapter,kernel,n,...) name
#             the variants, in the order they ran, and give N
#   runs      runs of each variant (1 + warm-up + reps; profile.sh uses 2: first, timed)
#   n         N as given on the command line (used when the chapter printed no rows)
#   device    the GPU's name (last column)
#   columns   the CSV's metric column names, comma separated
#   metrics   ncu's metric names, comma separated, in the same order
#
# The harness checks each run with its kernel count_mismatches (namespace wb), launched right
# after the run: those launches split the others into runs, and are dropped. A launch whose
# function is in `kernels`, or is one of CUB's (Device...Kernel), is kept; any other launch is
# dropped and counted on stderr. A variant whose runs launched no kernel that ncu profiles (a
# cudaMemcpy) gets one row with launch 0, kernel "-" and empty metrics, so that readers know.
#
# Output, one line per kept launch (no header; profile.sh writes it):
#   chapter,variant,run,launch,kernel,grid,block,n,<columns...>,ncu_id,device
# Values are in base units (bytes, nanoseconds, percent, counts), without separators.

BEGIN {
  FS = "\n"
  ncols = split(columns, col_name, ",")
  split(metrics, met_name, ",")
  nk = split(kernels, kl, " ")
  for (i = 1; i <= nk; i++) keep[kl[i]] = 1
  # The chapter's rows: variant names and N, in order.
  ncases = 0
  while ((getline line < cases) > 0) {
    m = split(line, f, ",")
    if (m >= 10 && f[1] == chapter && f[3] ~ /^[0-9]+$/) { ncases++; case_name[ncases] = f[2]; case_n[ncases] = f[3] }
  }
  close(cases)
  state = 0      # 0 before the header, 1 header read, 2 units read
  group = 0      # runs finished so far (count_mismatches launches seen)
  launch = 0     # kept launches in the current run
  dropped = 0
}

# Split one CSV line into fields (quoted or not; "" inside quotes is a quote) in arr; return the
# number of fields.
function csv_split(s, arr,    nf, i, c, len, inq, cur) {
  nf = 0; cur = ""; inq = 0; len = length(s)
  sub(/\r$/, "", s); len = length(s)
  for (i = 1; i <= len; i++) {
    c = substr(s, i, 1)
    if (inq) {
      if (c == "\"") {
        if (substr(s, i + 1, 1) == "\"") { cur = cur "\""; i++ } else inq = 0
      } else cur = cur c
    } else if (c == "\"") inq = 1
    else if (c == ",") { arr[++nf] = cur; cur = "" }
    else cur = cur c
  }
  arr[++nf] = cur
  return nf
}

# The function's own name: no "void ", template arguments, parameters or namespaces.
function base_name(k,    prev) {
  sub(/^[ \t]*void[ \t]+/, "", k)
  prev = ""
  while (prev != k) { prev = k; gsub(/<[^<>]*>/, "", k) }
  sub(/\(.*$/, "", k)
  sub(/.*::/, "", k)
  gsub(/[ \t]/, "", k)
  return k
}

# "(65536, 1, 1)" -> "65536"; "(32, 4, 1)" -> "32x4x1".
function dims(s,    d, m) {
  gsub(/[() \t]/, "", s)
  m = split(s, d, ",")
  if (m == 3 && d[2] == 1 && d[3] == 1) return d[1]
  gsub(/,/, "x", s)
  return s
}

# A value in base units: separators removed; bytes, seconds and hertz with an SI prefix scaled.
function value(v, unit,    x, p, scale) {
  gsub(/,/, "", v)
  gsub(/[ \t]/, "", v)
  if (v == "" || v == "n/a" || v !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) return ""
  scale = 1
  if (unit ~ /^[KMGT]?byte$/ || unit ~ /^[KMGT]?hz$/) {
    p = substr(unit, 1, 1)
    scale = p == "K" ? 1e3 : p == "M" ? 1e6 : p == "G" ? 1e9 : p == "T" ? 1e12 : 1
  } else if (unit ~ /^(n|u|m)?second$/ || unit ~ /^(n|u|m)?s$/) {
    p = substr(unit, 1, 1)
    scale = p == "u" ? 1e3 : p == "m" ? 1e6 : (unit == "second" || unit == "s") ? 1e9 : 1
  }
  if (scale == 1) return v
  x = v * scale
  return (x == int(x)) ? sprintf("%.0f", x) : sprintf("%.10g", x)
}

function is_check(full, base) { return base == "count_mismatches" || base ~ /^wb_/ || full ~ /(^|[ :])wb::/ }
function is_cub(full, base) { return base ~ /^Device[A-Za-z0-9]*Kernel$/ || full ~ /(^|[ <(])cub::/ }

# Close run `g`: a variant's last run that kept no launch gets its "no kernel" row.
function end_run(g,    ci, r, i, line) {
  if (launch > 0) { had_launch[int(g / runs) + 1] = 1; return }
  ci = int(g / runs) + 1
  r = g % runs
  if (r != runs - 1 || (ci in had_launch)) return
  line = chapter "," (ci <= ncases ? case_name[ci] : "?") "," run_name(r) ",0,-,,," (ci <= ncases ? case_n[ci] : n)
  for (i = 1; i <= ncols; i++) line = line ","
  print line ",," device
}

function run_name(r) { return r == runs - 1 ? "timed" : (r == 0 ? "first" : "warmup" r) }

/^==/ { next }
/^[ \t\r]*$/ { next }

{
  nf = csv_split($0, fld)
  if (state == 0) {
    if (fld[1] != "ID") next
    for (i = 1; i <= nf; i++) at[fld[i]] = i
    if (!("Kernel Name" in at) || !("Grid Size" in at) || !("Block Size" in at)) {
      print "profile_parse.awk: " FILENAME ": the header lacks Kernel Name, Grid Size or Block Size" > "/dev/stderr"
      bad = 1
      exit 1
    }
    for (i = 1; i <= ncols; i++)
      if (!(met_name[i] in at)) print "profile_parse.awk: chapter " chapter ": ncu reported no " met_name[i] " (column " col_name[i] " left empty)" > "/dev/stderr"
    state = 1
    next
  }
  if (state == 1 && fld[1] !~ /^[0-9]+$/) {
    for (i = 1; i <= nf; i++) unit[i] = fld[i]
    state = 2
    next
  }
  if (fld[1] !~ /^[0-9]+$/) next
  full = fld[at["Kernel Name"]]
  base = base_name(full)
  if (is_check(full, base)) { end_run(group); group++; launch = 0; next }
  if (!((base in keep) || is_cub(full, base))) { dropped++; next }
  launch++
  ci = int(group / runs) + 1
  line = chapter "," (ci <= ncases ? case_name[ci] : "?") "," run_name(group % runs) "," launch "," base "," \
    dims(fld[at["Grid Size"]]) "," dims(fld[at["Block Size"]]) "," (ci <= ncases ? case_n[ci] : n)
  for (i = 1; i <= ncols; i++) line = line "," ((met_name[i] in at) ? value(fld[at[met_name[i]]], unit[at[met_name[i]]]) : "")
  print line "," fld[1] "," device
  kept++
}

END {
  if (bad) exit 1
  if (state == 0) {
    print "profile_parse.awk: chapter " chapter ": no ncu CSV header in " FILENAME " (did ncu run?)" > "/dev/stderr"
    exit 1
  }
  if (launch > 0) { end_run(group); group++ }
  if (dropped > 0)
    print "profile_parse.awk: chapter " chapter ": dropped " dropped " launch(es) of kernels that are neither the chapter's nor CUB's" > "/dev/stderr"
  if (group != ncases * runs)
    print "profile_parse.awk: chapter " chapter ": " group " checked run(s) for " ncases " variant(s) of " runs " run(s) each; the variant names may be off" > "/dev/stderr"
  if (kept == 0) print "profile_parse.awk: chapter " chapter ": no launch kept" > "/dev/stderr"
}
