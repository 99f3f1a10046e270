# scripts/summary_render.awk: turn one combined results CSV into tables and charts.
# Called by `scripts/summary.sh render`; POSIX awk (tested with mawk), no GPU needed.
#
# Input: the CSV written by `summary.sh run`, one row per kernel run:
#   chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,blocks_per_sm,config,run,device,peak_gbps
# (blocks_per_sm and config are absent from CSVs written before they existed: columns past the tenth are read by name)
# (the first ten columns are a chapter's own --csv output; `run` is "main", or "sweep" for the
# rows of a chapter's sweep variant). A plain chapter CSV (ten columns) is read too: every row
# is then "main" and the peak is recovered from gbps / pct_theoretical.
#
# Variables (-v): steps (scripts/steps.txt), date (shown with the results), base (file name stem, e.g. h200), outdir
# (where the .md and .svg files go), relpath (outdir as seen from the repository root, for the
# README), pagerel (outdir as seen from a chapter page, chapters/NN-slug/), uprel (the root as
# seen from outdir, ending in "/"), frag (directory for the page fragments), slugs (file of
# "NN slug" lines).
#
# Output, in outdir:
#   base.md                   the results page: every table, links to the CSV, charts and pages
#   base.svg                  best GB/s per chapter against the ceilings (README, results page)
#   base-chapterNN.svg        the same bars with chapter NN's marked (its page's results block)
#   base-chapterNN-across-n.svg  CUB's time over ours against N, for a chapter with an across-N
#                             sweep (see below)
# and in frag: summary.md (README block), chapterNN.md (a chapter's results block),
# sweepNN.md (the across-N block of a chapter that has an across-N sweep).
#
# Definitions used throughout:
#   main N      the N of most main rows (every chapter runs at the N given to `summary.sh run`)
#   ceilings    chapter 00 at main N: copy = the faster of memcpy_d2d and copy_int4,
#               read = read_sum_int4; reductions (01-11, 18) are compared with read, scans
#               (12-17) with copy
#   best        a chapter's kernel in the README's table: the one scripts/steps.txt names for it
#               (its step), else its fastest verified kernel at main N whose name does not start
#               "cub_" or "cub::"
#   alone       the rows of scripts/steps.txt's "alone" lines found at main N: one change each,
#               timed against its baseline (the README's and results page's "Each change alone")
#   vs previous best time of the previous chapter in the same part / this chapter's best time
#   vs first    the same against the part's first chapter (01 for reductions, 12 for scans)
#   vs CUB      the chapter's fastest cub_ time / its best time (above 1: faster than CUB)
#   across-N sweep  a chapter's verified rows that are not "main" (its sweep run; a chapter
#               with none: its main rows), when at two or more values of N they hold both a
#               CUB call and a workbook kernel. Any chapter qualifies; none is named here.

BEGIN { FS = ","; rows = 0; nch = 0; peak_col = 0; device = "" }

NR == 1 {
  if ($1 != "chapter" || $10 != "verified") {
    print "summary_render.awk: " FILENAME " does not start with the workbook's CSV header" > "/dev/stderr"
    bad_input = 1
    exit 1
  }
  # The columns after the first ten are found by name (a CSV written before blocks_per_sm
  # existed has run, device and peak_gbps right after verified).
  for (i = 11; i <= NF; i++) col[$i] = i
  next
}

NF >= 10 && $1 ~ /^[0-9][0-9]$/ {
  r = ++rows
  ch[r] = $1; kn[r] = $2; nn[r] = $3 + 0; blk[r] = $4; bat[r] = $5
  med[r] = $6 + 0; mn[r] = $7 + 0; gb[r] = $8 + 0; pc[r] = $9 + 0; ok[r] = ($10 == "PASS")
  run[r] = (("run" in col) && $col["run"] != "") ? $col["run"] : "main"
  if (("device" in col) && device == "") device = $col["device"]
  if (("peak_gbps" in col) && peak_col == 0) peak_col = $col["peak_gbps"] + 0
  if (peak_guess == 0 && pc[r] > 0) peak_guess = gb[r] * 100 / pc[r]
  if (!(ch[r] in seen)) { seen[ch[r]] = 1; chs[++nch] = ch[r] }
}

# ---- small helpers -------------------------------------------------------------------------

function part(c) { c += 0; return c == 0 ? "ceiling" : (c >= 12 && c <= 17 ? "scan" : "reduce") }
function is_cub(k) { return k ~ /^cub(_|::)/ }

# Milliseconds with four significant digits, never in exponent form.
function fmt_ms(x) {
  if (x >= 1000) return sprintf("%.0f", x)
  if (x >= 100) return sprintf("%.1f", x)
  if (x >= 10) return sprintf("%.2f", x)
  if (x >= 1) return sprintf("%.3f", x)
  if (x >= 0.1) return sprintf("%.4f", x)
  if (x >= 0.01) return sprintf("%.5f", x)
  return sprintf("%.6f", x)
}

# "2^k" for a power of two, the number otherwise.
function pow2(n,    k, p) {
  p = 1; k = 0
  while (p < n) { p *= 2; k++ }
  return p == n ? "2^" k : sprintf("%.0f", n)
}

# log2 of n (exact for powers of two).
function log2(n,    k, p) {
  p = 1; k = 0
  while (p < n) { p *= 2; k++ }
  return p == n ? k : log(n) / log(2)
}

# Block and batch: 0 means "does not apply" (a library call, a copy), shown as "-".
function dash0(v) { return v + 0 == 0 ? "-" : v }

function pct_of(g, c) { return c > 0 ? sprintf("%.1f%%", 100 * g / c) : "-" }
function times(a, b) { return (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "-" }
function xml(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }

# The ceiling a row is judged against.
function ceiling_of(r) {
  if (part(ch[r]) == "ceiling") return kn[r] == "read_sum_int4" ? read_ceil : copy_ceil
  return part(ch[r]) == "scan" ? copy_ceil : read_ceil
}

# A round axis step for values up to v: 1, 2, 2.5 or 5 times a power of ten, about 5 steps.
function nice_step(v,    p, s) {
  if (v <= 0) return 1
  p = 1
  while (p * 10 <= v / 5) p *= 10
  while (p > v / 5) p /= 10
  s = p
  if (v / s > 6) s = 2 * p
  if (v / s > 6) s = 2.5 * p
  if (v / s > 6) s = 5 * p
  if (v / s > 6) s = 10 * p
  return s
}

# Whole multiples of a step below and above a value (with a little slack for rounding).
function floor_to(v, step) { return step * int(v / step + 1e-9) }
function ceil_to(v, step,    q) { q = int(v / step - 1e-9); if (q * step < v - step * 1e-9) q++; return step * q }

# ---- analysis ------------------------------------------------------------------------------

function analyse(    r, i, j, t, c, best_n, cnt, line, w) {
  # Chapters in numeric order.
  for (i = 2; i <= nch; i++) {
    t = chs[i]
    for (j = i - 1; j >= 1 && chs[j] + 0 > t + 0; j--) chs[j + 1] = chs[j]
    chs[j + 1] = t
  }
  # The main N: the most common N among main rows (the larger on a tie).
  best_n = 0
  for (r = 1; r <= rows; r++) if (run[r] == "main") cnt[nn[r]]++
  for (r = 1; r <= rows; r++)
    if (run[r] == "main" && (cnt[nn[r]] > cnt[best_n] || (cnt[nn[r]] == cnt[best_n] && nn[r] > best_n))) best_n = nn[r]
  main_n = best_n
  peak = peak_col > 0 ? peak_col : peak_guess
  if (device == "") device = "unnamed GPU of " base ".csv"
  # Ceilings from chapter 00 at main N.
  for (r = 1; r <= rows; r++) {
    if (ch[r] != "00" || run[r] != "main" || nn[r] != main_n || !ok[r]) continue
    if ((kn[r] == "memcpy_d2d" || kn[r] == "copy_int4") && gb[r] > copy_ceil) copy_ceil = gb[r]
    if (kn[r] == "read_sum_int4") read_ceil = gb[r]
  }
  # Each chapter's best kernel and fastest CUB call at main N.
  for (r = 1; r <= rows; r++) {
    if (run[r] != "main" || nn[r] != main_n || !ok[r] || ch[r] == "00") continue
    c = ch[r]
    if (is_cub(kn[r])) { if (!(c in cub) || med[r] < med[cub[c]]) cub[c] = r }
    else if (!(c in best) || med[r] < med[best[c]]) best[c] = r
    at_main[kn[r]] = r
  }
  # The chapters whose step scripts/steps.txt names, and its one-change comparisons.
  n_alone = 0
  while (steps != "" && (getline line < steps) > 0) {
    if (line ~ /^step / && split(line, w, " ") == 3 && (w[3] in at_main) && ch[at_main[w[3]]] == w[2]) best[w[2]] = at_main[w[3]]
    if (line ~ /^alone / && split(line, w, " ") >= 4 && (w[2] in at_main) && (w[3] in at_main)) {
      alone_row[++n_alone] = at_main[w[2]]; alone_base[n_alone] = at_main[w[3]]
      t = line; sub(/^alone +[^ ]+ +[^ ]+ +/, "", t); alone_text[n_alone] = t
    }
  }
  if (steps != "") close(steps)
  # Previous chapter and first chapter of the same part, among those with a best kernel.
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (!(c in best)) continue
    if (part(c) in last_of_part) prev_of[c] = last_of_part[part(c)]
    if (!(part(c) in first_of_part)) first_of_part[part(c)] = c
    last_of_part[part(c)] = c
  }
  # Across-N sweeps: which chapters have rows outside the main run, then which hold both a
  # CUB call and a workbook kernel at two or more values of N.
  for (r = 1; r <= rows; r++) if (run[r] != "main") has_extra[ch[r]] = 1
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    sweep_collect(c)
    if (sw_both >= 2) has_across[c] = 1
  }
}

# Whether row r belongs to chapter c's across-N rows.
function in_across(r, c) {
  if (ch[r] != c || !ok[r]) return 0
  return (c in has_extra) ? run[r] != "main" : run[r] == "main"
}

# Whether chapter c has something to mark on the bar chart: its bars, or for chapter 00 the
# ceilings it measures.
function has_mark(c) { return c == "00" ? (read_ceil > 0 || copy_ceil > 0) : ((c in best) || (c in cub)) }

# ---- tables --------------------------------------------------------------------------------

function chapter_name(c) { return (c in slug) ? c " " slug[c] : c }

# A chapter's name as a link to its page, from a file whose way to the root is `up`.
function chapter_link(c, up) {
  return (c in slug) ? "[" c " " slug[c] "](" up "chapters/" c "-" slug[c] "/README.md)" : c
}

# "Each change alone": one row per steps.txt "alone" line found in the CSV.
function alone_table(out, up,    i, r, b) {
  if (n_alone == 0) return
  print "| chapter | kernel | the one change | against | median ms | against ms | speedup |" > out
  print "| --- | --- | --- | --- | ---: | ---: | ---: |" > out
  for (i = 1; i <= n_alone; i++) {
    r = alone_row[i]; b = alone_base[i]
    printf "| %s | %s | %s | %s %s | %s | %s | %s |\n", chapter_link(ch[r], up), kn[r], alone_text[i], ch[b], kn[b], \
      fmt_ms(med[r]), fmt_ms(med[b]), times(med[b], med[r]) > out
  }
}

# The best-kernel-per-chapter table (the README's and base.md's); chapter pages linked with `up`.
function best_table(out, up,    i, c, r, first) {
  print "| chapter | kernel | median ms | GB/s | % of peak | % of ceiling | vs previous | vs 01 / 12 | vs CUB |" > out
  print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" > out
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (c == "00") {
      for (r = 1; r <= rows; r++)
        if (ch[r] == "00" && run[r] == "main" && nn[r] == main_n && ok[r])
          printf "| %s | %s | %s | %.1f | %.1f%% | %s |  |  |  |\n", chapter_link(c, up), kn[r], fmt_ms(med[r]), gb[r], pc[r], pct_of(gb[r], ceiling_of(r)) > out
      continue
    }
    if (!(c in best)) {
      printf "| %s | no verified kernel at N = %s |  |  |  |  |  |  |  |\n", chapter_link(c, up), pow2(main_n) > out
      continue
    }
    r = best[c]
    first = first_of_part[part(c)]
    printf "| %s | %s | %s | %.1f | %.1f%% | %s | %s | %s | %s |\n", chapter_link(c, up), kn[r], fmt_ms(med[r]), gb[r], pc[r], \
      pct_of(gb[r], ceiling_of(r)), (c in prev_of) ? times(med[best[prev_of[c]]], med[r]) : "", \
      times(med[best[first]], med[r]), (c in cub) ? times(med[cub[c]], med[r]) : "" > out
    if (c in cub) {
      r = cub[c]
      printf "| %s | %s | %s | %.1f | %.1f%% | %s |  |  |  |\n", chapter_link(c, up), kn[r], fmt_ms(med[r]), gb[r], pc[r], pct_of(gb[r], ceiling_of(r)) > out
    }
  }
}

# Every main row, in the order of the CSV.
function all_table(out,    r) {
  print "| chapter | kernel | n | block | batch | median ms | min ms | GB/s | % of peak | % of ceiling | check |" > out
  print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |" > out
  for (r = 1; r <= rows; r++)
    if (run[r] == "main")
      printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f%% | %s | %s |\n", ch[r], kn[r], pow2(nn[r]), dash0(blk[r]), dash0(bat[r]), \
        fmt_ms(med[r]), fmt_ms(mn[r]), gb[r], pc[r], pct_of(gb[r], ceiling_of(r)), ok[r] ? "PASS" : "FAIL" > out
}

# One chapter's rows for its page, with the bar chart that marks it.
function chapter_block(c, out,    r, k, with_cub, what) {
  with_cub = (c in cub)
  if (c == "00")
    what = sprintf("The ceilings are this chapter's fastest copy (%.1f GB/s) and its read-only sum (%.1f GB/s); %% of ceiling compares each row with the ceiling of its kind.", copy_ceil, read_ceil)
  else if ((part(c) == "scan" ? copy_ceil : read_ceil) <= 0)
    what = "% of ceiling needs chapter 00's rows, which this run lacks."
  else if (part(c) == "scan")
    what = sprintf("%% of ceiling is against chapter 00's copy ceiling, %.1f GB/s, measured in the same run.", copy_ceil)
  else
    what = sprintf("%% of ceiling is against chapter 00's read-only ceiling, %.1f GB/s, measured in the same run.", read_ceil)
  printf "Measured on the %s on %s at N = %s by `scripts/summary.sh`. %s\n\n", xml(device), date, pow2(main_n), what > out
  printf "| kernel | n | block | batch | median ms | GB/s | %% of peak | %% of ceiling |%s\n", with_cub ? " vs CUB |" : "" > out
  printf "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |%s\n", with_cub ? " ---: |" : "" > out
  for (r = 1; r <= rows; r++) {
    if (ch[r] != c || run[r] != "main") continue
    k = ok[r] ? kn[r] : kn[r] " (FAIL)"
    printf "| %s | %s | %s | %s | %s | %.1f | %.1f%% | %s |", k, pow2(nn[r]), dash0(blk[r]), dash0(bat[r]), fmt_ms(med[r]), gb[r], pc[r], \
      pct_of(gb[r], ceiling_of(r)) > out
    if (with_cub) printf " %s |", (is_cub(kn[r]) || !ok[r] || nn[r] != main_n) ? "" : times(med[cub[c]], med[r]) > out
    printf "\n" > out
  }
  if (has_mark(c))
    printf "\n![Best GB/s per chapter on the %s, chapter %s marked](%s%s-chapter%s.svg)\n", xml(device), c, pagerel, base, c > out
  else
    printf "\n![Best GB/s per chapter on the %s](%s%s.svg)\n", xml(device), pagerel, base > out
  printf "\nEvery chapter's kernels, the charts and the CSV: [Results on the %s](%s%s.md).\n", xml(device), pagerel, base > out
}

# Chapter c's across-N rows: per N, the fastest CUB call (sw_cub) and the fastest workbook
# kernel (sw_our); per workbook kernel and N its fastest row (sw_krow); the Ns sorted (sw_n,
# ns of them); the workbook kernels in first-seen order (sw_k, nour of them); sw_both, the
# number of Ns with both a CUB call and a workbook kernel.
function sweep_collect(c,    r, i, j, t) {
  ns = 0; nour = 0; sw_both = 0
  delete sw_cub; delete sw_our; delete sw_seen_n; delete sw_kseen; delete sw_krow
  ours_names = ""
  for (r = 1; r <= rows; r++) {
    if (!in_across(r, c)) continue
    if (!(nn[r] in sw_seen_n)) { sw_seen_n[nn[r]] = 1; sw_n[++ns] = nn[r] }
    if (is_cub(kn[r])) { if (!(nn[r] in sw_cub) || med[r] < med[sw_cub[nn[r]]]) sw_cub[nn[r]] = r; continue }
    if (!(nn[r] in sw_our) || med[r] < med[sw_our[nn[r]]]) sw_our[nn[r]] = r
    if (!((kn[r], nn[r]) in sw_krow) || med[r] < med[sw_krow[kn[r], nn[r]]]) sw_krow[kn[r], nn[r]] = r
    if (!(kn[r] in sw_kseen)) {
      sw_kseen[kn[r]] = 1; sw_k[++nour] = kn[r]
      ours_names = ours_names (ours_names == "" ? "" : ", ") "`" kn[r] "`"
    }
  }
  for (i = 2; i <= ns; i++) {
    t = sw_n[i]
    for (j = i - 1; j >= 1 && sw_n[j] > t; j--) sw_n[j + 1] = sw_n[j]
    sw_n[j + 1] = t
  }
  for (i = 1; i <= ns; i++) if ((sw_n[i] in sw_cub) && (sw_n[i] in sw_our)) sw_both++
}

function sweep_table(out,    i, x, a, b) {
  print "| N | CUB ms | ours ms | CUB ms / ours ms |" > out
  print "| ---: | ---: | ---: | ---: |" > out
  for (i = 1; i <= ns; i++) {
    x = sw_n[i]
    a = (x in sw_cub) ? med[sw_cub[x]] : 0
    b = (x in sw_our) ? med[sw_our[x]] : 0
    printf "| %s | %s | %s | %s |\n", pow2(x), (a > 0 ? fmt_ms(a) : "-"), (b > 0 ? fmt_ms(b) : "-"), times(a, b) > out
  }
}

# ---- charts --------------------------------------------------------------------------------

# A horizontal reference line across the plot, its label placed later by place_labels();
# `strong` draws it thicker with a bold label (the lines a marked chapter measured).
function ref_line(out, v, color, dash, label, x1, x2, y, strong) {
  printf "  <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"%s/>\n", x1, y, x2, y, color, \
    strong ? "3.5" : "1.5", dash ? " stroke-dasharray=\"6 4\"" : "" > out
  nl++; lab_y[nl] = y + 4; lab_t[nl] = label; lab_c[nl] = color; lab_b[nl] = strong
}

# Labels of the reference lines at the right of the plot, pushed apart so they never overlap.
function place_labels(out, x,    i, j, t, u, v, b) {
  for (i = 2; i <= nl; i++) {
    t = lab_y[i]; u = lab_t[i]; v = lab_c[i]; b = lab_b[i]
    for (j = i - 1; j >= 1 && lab_y[j] > t; j--) { lab_y[j + 1] = lab_y[j]; lab_t[j + 1] = lab_t[j]; lab_c[j + 1] = lab_c[j]; lab_b[j + 1] = lab_b[j] }
    lab_y[j + 1] = t; lab_t[j + 1] = u; lab_c[j + 1] = v; lab_b[j + 1] = b
  }
  for (i = 2; i <= nl; i++) if (lab_y[i] < lab_y[i - 1] + 14) lab_y[i] = lab_y[i - 1] + 14
  for (i = 1; i <= nl; i++)
    printf "  <text x=\"%d\" y=\"%.1f\" fill=\"%s\"%s>%s</text>\n", x, lab_y[i], lab_c[i], lab_b[i] ? " font-weight=\"bold\"" : "", lab_t[i] > out
  nl = 0
}

# Gridlines and labels of a GB/s axis from 0 to ymax.
function y_axis(out, left, right, top, ph, ymax, step,    v, y) {
  for (v = 0; v <= ymax + step / 1000; v += step) {
    y = top + ph - v / ymax * ph
    printf "  <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", left, y, right, y > out
    printf "  <text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555555\">%g</text>\n", left - 6, y + 4, v > out
  }
  printf "  <text transform=\"rotate(-90)\" x=\"%d\" y=\"18\" text-anchor=\"middle\" fill=\"#333333\">GB/s</text>\n", -(top + ph / 2) > out
}

# Ticks 2^kmin .. 2^kmax of a log2 N axis under a plot, and its title.
function n_axis(out, left, pw, top, ph, kmin, kmax,    k, x) {
  for (k = int(kmin); k <= kmax; k++) {
    x = (kmax > kmin) ? left + (k - kmin) / (kmax - kmin) * pw : left + pw / 2
    printf "  <line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333333\"/>\n", x, top + ph, x, top + ph + 4 > out
    printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">2<tspan dy=\"-6\" font-size=\"9\">%d</tspan></text>\n", x, top + ph + 20, k > out
  }
  printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, top + ph, left + pw, top + ph > out
  printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">N (elements, log2 axis)</text>\n", left + pw / 2, top + ph + 40 > out
}

function svg_open(out, w, h, title, subtitle) {
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n", w, h, w, h > out
  printf "  <title>%s</title>\n", title > out
  printf "  <rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h > out
  printf "  <text x=\"20\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#222222\">%s</text>\n", title > out
  printf "  <text x=\"20\" y=\"46\" fill=\"#555555\">%s</text>\n", subtitle > out
}

# The bar chart: each chapter's best GB/s (and CUB's, in grey), with the ceilings and the peak.
# With `mark` (a chapter id) that chapter's bars are outlined in black and labelled "this
# chapter" under the axis, and the other bars faded (lighter in grey-scale too); for chapter 00,
# which has no bar, its two ceiling lines are drawn thick and labelled.
function bar_chart(out, mark,    i, c, nb, bc, bv, bl, bm, left, top, ph, slot, bw, right, w, h, vmax, step, ymax, x, y, col, title, subt, \
                   mx1, mx2, nmark, attr, cx) {
  nb = 0
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (c in best) { nb++; bc[nb] = part(c); bv[nb] = gb[best[c]]; bl[nb] = c; bm[nb] = (c == mark) }
    if (c in cub) { nb++; bc[nb] = "cub"; bv[nb] = gb[cub[c]]; bl[nb] = "CUB"; bm[nb] = (c == mark) }
  }
  left = 70; top = 64; ph = 300; slot = 40; bw = 26
  right = left + 10 + nb * slot
  w = right + (mark == "00" ? 250 : 200); h = top + ph + 78
  if (w < 580) w = 580
  if (mark != "" && w < left + 690) w = left + 690
  vmax = peak
  if (read_ceil > vmax) vmax = read_ceil
  if (copy_ceil > vmax) vmax = copy_ceil
  for (i = 1; i <= nb; i++) if (bv[i] > vmax) vmax = bv[i]
  if (vmax <= 0) vmax = 1
  step = nice_step(vmax * 1.05)
  ymax = step / 2 * int((vmax * 1.05) / (step / 2) + 0.999999)
  title = "Best GB/s per chapter: " xml(device) ", N = " pow2(main_n)
  subt = "measured " date "; fastest verified kernel of each chapter; reductions move 4N bytes, scans 8N"
  if (mark == "00") { title = title ", chapter 00 marked"; subt = subt "; chapter 00 measured the two thick ceiling lines" }
  else if (mark != "") { title = title ", chapter " mark " marked"; subt = subt "; chapter " mark "'s bars outlined, the others faded" }
  svg_open(out, w, h, title, subt)
  y_axis(out, left, right, top, ph, ymax, step)
  nmark = 0
  for (i = 1; i <= nb; i++) {
    col = bc[i] == "scan" ? "#f28e2b" : (bc[i] == "cub" ? "#9d9d9d" : "#4e79a7")
    x = left + 10 + (i - 1) * slot + (slot - bw) / 2
    y = top + ph - bv[i] / ymax * ph
    attr = bm[i] ? " stroke=\"#000000\" stroke-width=\"2.5\"" : (mark != "" ? " fill-opacity=\"0.35\"" : "")
    printf "  <rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"%s/>\n", x, y, bw, top + ph - y, col, attr > out
    printf "  <text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\"%s>%.0f</text>\n", x + bw / 2, y - 4, \
      bm[i] ? " font-weight=\"bold\"" : "", bv[i] > out
    printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\"%s>%s</text>\n", x + bw / 2, top + ph + 16, \
      bm[i] ? " font-weight=\"bold\"" : "", bl[i] > out
    if (bm[i]) { if (nmark++ == 0) mx1 = x; mx2 = x + bw }
  }
  printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, top + ph, right, top + ph > out
  printf "  <text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#333333\">chapter</text>\n", left - 6, top + ph + 16 > out
  # "this chapter" under the marked bars: a bracket, an arrow head and the words.
  if (nmark > 0) {
    cx = (mx1 + mx2) / 2
    printf "  <path d=\"M%.1f %d V%d H%.1f V%d\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n", mx1, top + ph + 21, top + ph + 25, mx2, top + ph + 21 > out
    printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"#000000\">this chapter</text>\n", cx, top + ph + 39 > out
  }
  nl = 0
  if (peak > 0) ref_line(out, peak, "#d62728", 0, sprintf("theoretical peak %.0f GB/s", peak), left, right, top + ph - peak / ymax * ph, 0)
  if (read_ceil > 0) ref_line(out, read_ceil, "#2ca02c", 1, sprintf("read ceiling %.0f GB/s%s", read_ceil, mark == "00" ? ": this chapter" : ""), \
    left, right, top + ph - read_ceil / ymax * ph, mark == "00")
  if (copy_ceil > 0) ref_line(out, copy_ceil, "#9467bd", 1, sprintf("copy ceiling %.0f GB/s%s", copy_ceil, mark == "00" ? ": this chapter" : ""), \
    left, right, top + ph - copy_ceil / ymax * ph, mark == "00")
  place_labels(out, right + 8)
  y = top + ph + 64
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#4e79a7\"/><text x=\"%d\" y=\"%d\">reduction (vs read ceiling)</text>\n", left, y - 10, left + 18, y > out
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#f28e2b\"/><text x=\"%d\" y=\"%d\">scan (vs copy ceiling)</text>\n", left + 200, y - 10, left + 218, y > out
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#9d9d9d\"/><text x=\"%d\" y=\"%d\">CUB</text>\n", left + 370, y - 10, left + 388, y > out
  if (mark == "00")
    printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\" stroke-width=\"3.5\" stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%d\">this chapter: the two ceilings (the bars faded)</text>\n", \
      left + 440, y - 4, left + 470, y - 4, left + 476, y > out
  else if (mark != "")
    printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\">this chapter (the others faded)</text>\n", \
      left + 440, y - 10, left + 458, y > out
  print "</svg>" > out
  close(out)
}

# A point marker for series i (circle, square, diamond, triangle), different in grey-scale too.
function marker(out, i, x, y, col, tip,    s) {
  s = (i - 1) % 4
  if (s == 0) printf "  <circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s</title></circle>\n", x, y, col, tip > out
  else if (s == 1) printf "  <rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"><title>%s</title></rect>\n", x - 3.5, y - 3.5, col, tip > out
  else if (s == 2) printf "  <path d=\"M%.1f %.1fl4.5 4.5l-4.5 4.5l-4.5 -4.5z\" fill=\"%s\"><title>%s</title></path>\n", x, y - 4.5, col, tip > out
  else printf "  <path d=\"M%.1f %.1fl4.5 8l-9 0z\" fill=\"%s\"><title>%s</title></path>\n", x, y - 4.5, col, tip > out
}

# CUB's time over each workbook kernel's time against N (log2 axis) for chapter c's across-N
# sweep (sweep_collect(c) first), with a dashed line at 1.0, the tie: above it the workbook's
# kernel is faster, below it CUB is.
function across_chart(out, c,    i, j, k, x, y, v, kmin, kmax, lo, hi, span, step, ylo, yhi, left, top, ph, pw, right, w, h, \
                      col, palette, dashes, da, np, px, py, pv, pn, ty) {
  kmin = 1e9; kmax = -1; lo = 1; hi = 1
  for (i = 1; i <= nour; i++) for (j = 1; j <= ns; j++) {
    if (!((sw_k[i], sw_n[j]) in sw_krow) || !(sw_n[j] in sw_cub)) continue
    v = med[sw_cub[sw_n[j]]] / med[sw_krow[sw_k[i], sw_n[j]]]
    k = log2(sw_n[j])
    if (k < kmin) kmin = k
    if (k > kmax) kmax = k
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  if (kmax < 0) return
  span = hi - lo
  if (span < 0.2) { lo -= (0.2 - span) / 2; hi += (0.2 - span) / 2; span = 0.2 }
  step = nice_step(span)
  ylo = floor_to(lo, step); yhi = ceil_to(hi, step)
  if (ylo < 0) ylo = 0
  left = 70; top = 64; ph = 300
  pw = (kmax - kmin) * 30
  if (pw < 360) pw = 360
  right = left + pw
  w = right + 130; h = top + ph + 66 + 18 * nour
  if (w < 580) w = 580
  svg_open(out, w, h, "Chapter " c ": CUB's time over ours against N, " xml(device), \
    "measured " date "; L2 flushed before each timed run; above the tie line the workbook's kernel is faster")
  # The ratio axis.
  for (v = ylo; v <= yhi + step / 1000; v += step) {
    y = top + ph - (v - ylo) / (yhi - ylo) * ph
    printf "  <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n", left, y, right, y > out
    printf "  <text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555555\">%.2f</text>\n", left - 6, y + 4, v > out
  }
  printf "  <text transform=\"rotate(-90)\" x=\"%d\" y=\"18\" text-anchor=\"middle\" fill=\"#333333\">CUB time / our time</text>\n", -(top + ph / 2) > out
  n_axis(out, left, pw, top, ph, kmin, kmax)
  # The tie, and which side is whose.
  ty = top + ph - (1 - ylo) / (yhi - ylo) * ph
  printf "  <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#222222\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n", left, ty, right, ty > out
  printf "  <text x=\"%d\" y=\"%.1f\" font-weight=\"bold\" fill=\"#222222\">tie (1.0)</text>\n", right + 8, ty + 4 > out
  printf "  <text x=\"%d\" y=\"%.1f\" fill=\"#555555\">ours faster</text>\n", right + 8, ty - 12 > out
  printf "  <text x=\"%d\" y=\"%.1f\" fill=\"#555555\">CUB faster</text>\n", right + 8, ty + 22 > out
  split("#4e79a7 #e15759 #59a14f #b07aa1", palette, " ")
  split("none|7 3|2 3|9 3 2 3", dashes, "|")
  for (i = 1; i <= nour; i++) {
    col = palette[(i - 1) % 4 + 1]
    np = 0
    for (j = 1; j <= ns; j++) {
      if (!((sw_k[i], sw_n[j]) in sw_krow) || !(sw_n[j] in sw_cub)) continue
      np++
      pv[np] = med[sw_cub[sw_n[j]]] / med[sw_krow[sw_k[i], sw_n[j]]]
      pn[np] = sw_n[j]
      px[np] = (kmax > kmin) ? left + (log2(sw_n[j]) - kmin) / (kmax - kmin) * pw : left + pw / 2
      py[np] = top + ph - (pv[np] - ylo) / (yhi - ylo) * ph
    }
    da = (i > 1) ? " stroke-dasharray=\"" dashes[(i - 1) % 4 + 1] "\"" : ""
    printf "  <polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col, da > out
    for (k = 1; k <= np; k++) printf "%s%.1f,%.1f", (k > 1 ? " " : ""), px[k], py[k] > out
    print "\"/>" > out
    for (k = 1; k <= np; k++) marker(out, i, px[k], py[k], col, pow2(pn[k]) ": " sprintf("%.2fx", pv[k]))
    y = top + ph + 66 + 18 * (i - 1)
    printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", left, y - 4, left + 28, y - 4, col, da > out
    marker(out, i, left + 14, y - 4, col, xml(sw_k[i]))
    printf "  <text x=\"%d\" y=\"%d\">fastest CUB call's time / time of %s</text>\n", left + 36, y, xml(sw_k[i]) > out
  }
  print "</svg>" > out
  close(out)
}

# ---- output --------------------------------------------------------------------------------

END {
  if (bad_input) exit 1
  if (rows == 0) { print "summary_render.awk: " FILENAME " holds no result rows" > "/dev/stderr"; exit 1 }
  while ((getline line < slugs) > 0) { split(line, sl, " "); slug[sl[1]] = sl[2] }
  analyse()
  img = (relpath == "" ? "" : relpath "/")

  # base.md: everything, for people browsing docs/results/ (links relative to outdir).
  md = outdir "/" base ".md"
  printf "# Results on the %s\n\n", xml(device) > md
  printf "Measured on %s at N = %s (%.0f elements) by `scripts/summary.sh run`; every number below comes from [%s.csv](%s.csv).\n", \
    date, pow2(main_n), main_n, base, base > md
  if (read_ceil > 0 && copy_ceil > 0)
    printf "Theoretical peak %.0f GB/s; ceilings measured by chapter 00 in the same run: read-only %.1f GB/s, copy %.1f GB/s.\n", \
      peak, read_ceil, copy_ceil > md
  else
    printf "Theoretical peak %.0f GB/s; no ceilings: this CSV lacks chapter 00's rows.\n", peak > md
  print "Reductions (4N bytes) are compared with the read-only ceiling, scans (8N bytes) with the copy ceiling." > md
  print "Each chapter's line is the step it teaches where scripts/steps.txt names one, else its fastest verified kernel (CUB" > md
  print "not counted); \"vs previous\" and \"vs 01 / 12\" are" > md
  print "speedups over the previous chapter of the same part and over its first chapter (01 for reductions," > md
  print "12 for scans); \"vs CUB\" is CUB's time over ours, so above 1 means faster than CUB." > md
  printf "\n![Best GB/s per chapter on the %s](%s.svg)\n\n## Best kernel per chapter\n\n", xml(device), base > md
  best_table(md, uprel)
  if (n_alone > 0) {
    print "\n## Each change alone\n" > md
    alone_table(md, uprel)
  }
  print "\n## Every kernel\n" > md
  all_table(md)
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (!(c in has_across)) continue
    sweep_collect(c)
    printf "\n## Chapter %s: CUB against the workbook across N\n\n", c > md
    printf "From the sweep of %s: the fastest verified CUB call and the fastest verified workbook kernel (%s) at each N.\n\n", \
      chapter_link(c, uprel), ours_names > md
    printf "![CUB's time over ours against N, chapter %s](%s-chapter%s-across-n.svg)\n\n", c, base, c > md
    sweep_table(md)
  }
  # The marked charts, by chapter.
  list = ""
  for (i = 1; i <= nch; i++) if (has_mark(chs[i])) list = list (list == "" ? "" : ", ") "[" chs[i] "](" base "-chapter" chs[i] ".svg)"
  if (list != "") {
    print "\n## Charts of each chapter\n" > md
    print "Each chapter's page shows the chart above with its own bars outlined and the others faded (chapter 00's:" > md
    printf "its two ceiling lines drawn thick): %s.\n", list > md
  }
  close(md)

  bar_chart(outdir "/" base ".svg", "")

  # The README block (links relative to the repository root).
  out = frag "/summary.md"
  printf "Measured on the %s on %s at N = %s. Every kernel, the charts and the CSV: [Results on the %s](%s%s.md).\n\n", \
    xml(device), date, pow2(main_n), xml(device), img, base > out
  printf "![Best GB/s per chapter on the %s](%s%s.svg)\n\n", xml(device), img, base > out
  best_table(out, "")
  print "\nvs previous, vs 01 / 12: speedup of the chapter's kernel (the step it teaches, else its fastest) over the" > out
  print "previous chapter's, in the same part, and over the part's first chapter; vs CUB: CUB's time over ours (above 1:" > out
  print "faster than CUB)." > out
  if (n_alone > 0) {
    print "\nEach change alone, where a chapter times the changes of its step one at a time (speedup: the time against over the kernel's):\n" > out
    alone_table(out, "")
  }
  close(out)

  # Each chapter's block and marked chart; the across-N block and chart where there is a sweep.
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (has_mark(c)) bar_chart(outdir "/" base "-chapter" c ".svg", c)
    out = frag "/chapter" c ".md"
    chapter_block(c, out)
    close(out)
    if (!(c in has_across)) continue
    sweep_collect(c)
    across_chart(outdir "/" base "-chapter" c "-across-n.svg", c)
    out = frag "/sweep" c ".md"
    printf "CUB against the workbook across N on the %s, measured on %s with L2 flushed before each timed run:\n", xml(device), date > out
    printf "the fastest verified CUB call and the fastest verified workbook kernel (%s) at each N.\n\n", ours_names > out
    printf "![CUB's time over ours against N on the %s](%s%s-chapter%s-across-n.svg)\n\n", xml(device), pagerel, base, c > out
    sweep_table(out)
    print "\nAbove 1 in the last column, and above the line marked \"tie\" in the chart, the workbook's kernel is faster." > out
    close(out)
  }
}
