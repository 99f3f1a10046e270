# scripts/summary_render.awk: turn one combined results CSV into tables and charts.
# Called by `scripts/summary.sh render`; POSIX awk (tested with mawk), no GPU needed.
#
# Input: the CSV written by `summary.sh run`, one row per kernel run:
#   chapter,kernel,n,block,batch,median_ms,min_ms,gbps,pct_theoretical,verified,run,device,peak_gbps
# (the first ten columns are a chapter's own --csv output; `run` is "main" or "sweep"). A plain
# chapter CSV (ten columns) is read too: every row is then "main" and the peak is recovered
# from gbps / pct_theoretical.
#
# Variables (-v): date (shown with the results), base (file name stem, e.g. h200), outdir
# (where base.md, base.svg and base-chapter11.svg go), relpath (outdir as the repository
# README links it), frag (directory for the README fragments), slugs (file of "NN slug" lines).
#
# Output: outdir/base.md, outdir/base.svg, outdir/base-chapter11.svg (only with sweep rows),
# and in frag: summary.md (README block), chapterNN.md (a chapter's results block),
# sweepNN.md (the sweep block of a chapter that has sweep rows).
#
# Definitions used throughout:
#   main N      the N of most main rows (every chapter runs at the N given to `summary.sh run`)
#   ceilings    chapter 00 at main N: copy = the faster of memcpy_d2d and copy_int4,
#               read = read_sum_int4; reductions (01-11, 18) are compared with read, scans
#               (12-17) with copy
#   best        a chapter's fastest verified kernel at main N whose name does not start "cub_" or "cub::"
#   vs previous best time of the previous chapter in the same part / this chapter's best time
#   vs first    the same against the part's first chapter (01 for reductions, 12 for scans)
#   vs CUB      the chapter's fastest cub_ time / its best time (above 1: faster than CUB)

BEGIN { FS = ","; rows = 0; nch = 0; peak_col = 0; device = "" }

NR == 1 {
  if ($1 != "chapter" || $10 != "verified") {
    print "summary_render.awk: " FILENAME " does not start with the workbook's CSV header" > "/dev/stderr"
    bad_input = 1
    exit 1
  }
  next
}

NF >= 10 && $1 ~ /^[0-9][0-9]$/ {
  r = ++rows
  ch[r] = $1; kn[r] = $2; nn[r] = $3 + 0; blk[r] = $4; bat[r] = $5
  med[r] = $6 + 0; mn[r] = $7 + 0; gb[r] = $8 + 0; pc[r] = $9 + 0; ok[r] = ($10 == "PASS")
  run[r] = (NF >= 11 && $11 != "") ? $11 : "main"
  if (NF >= 12 && device == "") device = $12
  if (NF >= 13 && peak_col == 0) peak_col = $13 + 0
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

# ---- analysis ------------------------------------------------------------------------------

function analyse(    r, i, j, t, c, best_n, cnt) {
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
  }
  # Previous chapter and first chapter of the same part, among those with a best kernel.
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (!(c in best)) continue
    if (part(c) in last_of_part) prev_of[c] = last_of_part[part(c)]
    if (!(part(c) in first_of_part)) first_of_part[part(c)] = c
    last_of_part[part(c)] = c
  }
  for (r = 1; r <= rows; r++) if (run[r] == "sweep") { sweep_rows++; has_sweep[ch[r]] = 1 }
}

# ---- tables --------------------------------------------------------------------------------

function chapter_name(c) { return (c in slug) ? c " " slug[c] : c }

# The best-kernel-per-chapter table (the README's and base.md's).
function best_table(out,    i, c, r, first) {
  print "| chapter | kernel | median ms | GB/s | % of peak | % of ceiling | vs previous | vs 01 / 12 | vs CUB |" > out
  print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" > out
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (c == "00") {
      for (r = 1; r <= rows; r++)
        if (ch[r] == "00" && run[r] == "main" && nn[r] == main_n && ok[r])
          printf "| %s | %s | %s | %.1f | %.1f%% | %s |  |  |  |\n", chapter_name(c), kn[r], fmt_ms(med[r]), gb[r], pc[r], pct_of(gb[r], ceiling_of(r)) > out
      continue
    }
    if (!(c in best)) {
      printf "| %s | no verified kernel at N = %s |  |  |  |  |  |  |  |\n", chapter_name(c), pow2(main_n) > out
      continue
    }
    r = best[c]
    first = first_of_part[part(c)]
    printf "| %s | %s | %s | %.1f | %.1f%% | %s | %s | %s | %s |\n", chapter_name(c), kn[r], fmt_ms(med[r]), gb[r], pc[r], \
      pct_of(gb[r], ceiling_of(r)), (c in prev_of) ? times(med[best[prev_of[c]]], med[r]) : "", \
      times(med[best[first]], med[r]), (c in cub) ? times(med[cub[c]], med[r]) : "" > out
    if (c in cub) {
      r = cub[c]
      printf "| %s | %s | %s | %.1f | %.1f%% | %s |  |  |  |\n", chapter_name(c), kn[r], fmt_ms(med[r]), gb[r], pc[r], pct_of(gb[r], ceiling_of(r)) > out
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

# One chapter's rows for its page.
function chapter_block(c, out,    r, k, with_cub, what) {
  with_cub = (c in cub)
  if (c == "00")
    what = sprintf("The ceilings are this chapter's fastest copy (%.1f GB/s) and its read-only sum (%.1f GB/s); %% of ceiling compares each row with the ceiling of its kind.", copy_ceil, read_ceil)
  else if ((part(c) == "scan" ? copy_ceil : read_ceil) <= 0)
    what = "% of ceiling needs chapter 00's rows, which this run lacks."
  else if (part(c) == "scan")
    what = sprintf("%% of ceiling is against chapter 00's copy ceiling, %.1f GB/s, measured in the same session.", copy_ceil)
  else
    what = sprintf("%% of ceiling is against chapter 00's read-only ceiling, %.1f GB/s, measured in the same session.", read_ceil)
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
  # The chart of every chapter's best kernel, found by name through the site's IMAGE_PATH.
  printf "\n![Best GB/s per chapter on the %s](%s.svg)\n", xml(device), base > out
}

# The sweep rows of a chapter: per N, the fastest CUB call and the fastest other kernel.
function sweep_collect(c,    r, i, j, t) {
  ns = 0
  delete sw_cub; delete sw_our; delete sw_seen_n; delete sw_ours_names
  ours_names = ""
  for (r = 1; r <= rows; r++) {
    if (ch[r] != c || run[r] != "sweep" || !ok[r]) continue
    if (!(nn[r] in sw_seen_n)) { sw_seen_n[nn[r]] = 1; sw_n[++ns] = nn[r] }
    if (is_cub(kn[r])) { if (!(nn[r] in sw_cub) || med[r] < med[sw_cub[nn[r]]]) sw_cub[nn[r]] = r }
    else {
      if (!(nn[r] in sw_our) || med[r] < med[sw_our[nn[r]]]) sw_our[nn[r]] = r
      if (!(kn[r] in sw_ours_names)) { sw_ours_names[kn[r]] = 1; ours_names = ours_names (ours_names == "" ? "" : ", ") "`" kn[r] "`" }
    }
  }
  for (i = 2; i <= ns; i++) {
    t = sw_n[i]
    for (j = i - 1; j >= 1 && sw_n[j] > t; j--) sw_n[j + 1] = sw_n[j]
    sw_n[j + 1] = t
  }
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

# A horizontal reference line across the plot, its label placed later by place_labels().
function ref_line(out, v, color, dash, label, x1, x2, y) {
  printf "  <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"%s/>\n", x1, y, x2, y, color, \
    dash ? " stroke-dasharray=\"6 4\"" : "" > out
  nl++; lab_y[nl] = y + 4; lab_t[nl] = label; lab_c[nl] = color
}

# Labels of the reference lines at the right of the plot, pushed apart so they never overlap.
function place_labels(out, x,    i, j, t, u, v) {
  for (i = 2; i <= nl; i++) {
    t = lab_y[i]; u = lab_t[i]; v = lab_c[i]
    for (j = i - 1; j >= 1 && lab_y[j] > t; j--) { lab_y[j + 1] = lab_y[j]; lab_t[j + 1] = lab_t[j]; lab_c[j + 1] = lab_c[j] }
    lab_y[j + 1] = t; lab_t[j + 1] = u; lab_c[j + 1] = v
  }
  for (i = 2; i <= nl; i++) if (lab_y[i] < lab_y[i - 1] + 14) lab_y[i] = lab_y[i - 1] + 14
  for (i = 1; i <= nl; i++) printf "  <text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s</text>\n", x, lab_y[i], lab_c[i], lab_t[i] > out
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

function svg_open(out, w, h, title, subtitle) {
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n", w, h, w, h > out
  printf "  <title>%s</title>\n", title > out
  printf "  <rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h > out
  printf "  <text x=\"20\" y=\"26\" font-size=\"16\" font-weight=\"bold\" fill=\"#222222\">%s</text>\n", title > out
  printf "  <text x=\"20\" y=\"46\" fill=\"#555555\">%s</text>\n", subtitle > out
}

# The bar chart: each chapter's best GB/s (and CUB's, in grey), with the ceilings and the peak.
function bar_chart(out,    i, c, nb, bc, bv, bl, left, top, ph, slot, bw, right, w, h, vmax, step, ymax, x, y, col) {
  nb = 0
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (c in best) { nb++; bc[nb] = part(c); bv[nb] = gb[best[c]]; bl[nb] = c }
    if (c in cub) { nb++; bc[nb] = "cub"; bv[nb] = gb[cub[c]]; bl[nb] = "CUB" }
  }
  left = 70; top = 64; ph = 300; slot = 40; bw = 26
  right = left + 10 + nb * slot
  w = right + 200; h = top + ph + 78
  if (w < 580) w = 580
  vmax = peak
  if (read_ceil > vmax) vmax = read_ceil
  if (copy_ceil > vmax) vmax = copy_ceil
  for (i = 1; i <= nb; i++) if (bv[i] > vmax) vmax = bv[i]
  if (vmax <= 0) vmax = 1
  step = nice_step(vmax * 1.05)
  ymax = step / 2 * int((vmax * 1.05) / (step / 2) + 0.999999)
  svg_open(out, w, h, "Best GB/s per chapter: " xml(device) ", N = " pow2(main_n), \
    "measured " date "; fastest verified kernel of each chapter; reductions move 4N bytes, scans 8N")
  y_axis(out, left, right, top, ph, ymax, step)
  for (i = 1; i <= nb; i++) {
    col = bc[i] == "scan" ? "#f28e2b" : (bc[i] == "cub" ? "#9d9d9d" : "#4e79a7")
    x = left + 10 + (i - 1) * slot + (slot - bw) / 2
    y = top + ph - bv[i] / ymax * ph
    printf "  <rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, bw, top + ph - y, col > out
    printf "  <text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\">%.0f</text>\n", x + bw / 2, y - 4, bv[i] > out
    printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">%s</text>\n", x + bw / 2, top + ph + 16, bl[i] > out
  }
  printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, top + ph, right, top + ph > out
  nl = 0
  if (peak > 0) ref_line(out, peak, "#d62728", 0, sprintf("theoretical peak %.0f GB/s", peak), left, right, top + ph - peak / ymax * ph)
  if (read_ceil > 0) ref_line(out, read_ceil, "#2ca02c", 1, sprintf("read ceiling %.0f GB/s", read_ceil), left, right, top + ph - read_ceil / ymax * ph)
  if (copy_ceil > 0) ref_line(out, copy_ceil, "#9467bd", 1, sprintf("copy ceiling %.0f GB/s", copy_ceil), left, right, top + ph - copy_ceil / ymax * ph)
  place_labels(out, right + 8)
  printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">chapter</text>\n", (left + right) / 2, top + ph + 34 > out
  y = top + ph + 58
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#4e79a7\"/><text x=\"%d\" y=\"%d\">reduction (vs read ceiling)</text>\n", left, y - 10, left + 18, y > out
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#f28e2b\"/><text x=\"%d\" y=\"%d\">scan (vs copy ceiling)</text>\n", left + 200, y - 10, left + 218, y > out
  printf "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#9d9d9d\"/><text x=\"%d\" y=\"%d\">CUB</text>\n", left + 370, y - 10, left + 388, y > out
  print "</svg>" > out
  close(out)
}

# GB/s against N for every kernel of a chapter's sweep rows, on a log2 N axis.
function sweep_chart(out, c,    r, i, j, k, t, kmin, kmax, left, top, ph, pw, right, w, h, vmax, step, ymax, ns2, names, nk, col, pts, x, y, palette, j2, px, py) {
  kmin = 1e9; kmax = -1; vmax = 0; nk = 0
  for (r = 1; r <= rows; r++) {
    if (ch[r] != c || run[r] != "sweep" || !ok[r]) continue
    k = log2(nn[r])
    if (k < kmin) kmin = k
    if (k > kmax) kmax = k
    if (gb[r] > vmax) vmax = gb[r]
    if (!(kn[r] in names)) { names[kn[r]] = ++nk; order[nk] = kn[r] }
  }
  if (nk == 0) return
  # CUB first, then the workbook's kernels, each keeping its first-seen order.
  for (i = 2; i <= nk; i++) {
    t = order[i]
    for (j = i - 1; j >= 1 && !is_cub(order[j]) && is_cub(t); j--) order[j + 1] = order[j]
    order[j + 1] = t
  }
  if (peak > vmax) vmax = peak
  if (read_ceil > vmax) vmax = read_ceil
  if (vmax <= 0) vmax = 1
  step = nice_step(vmax * 1.05)
  ymax = step / 2 * int((vmax * 1.05) / (step / 2) + 0.999999)
  left = 70; top = 64; ph = 300
  pw = (kmax - kmin) * 30
  if (pw < 360) pw = 360
  right = left + pw
  w = right + 200; h = top + ph + 78 + 18 * nk
  svg_open(out, w, h, "Chapter " c ": GB/s against N, " xml(device), "measured " date "; L2 flushed before each timed run; N on a log2 axis")
  y_axis(out, left, right, top, ph, ymax, step)
  for (k = int(kmin); k <= kmax; k++) {
    x = (kmax > kmin) ? left + (k - kmin) / (kmax - kmin) * pw : left + pw / 2
    printf "  <line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333333\"/>\n", x, top + ph, x, top + ph + 4 > out
    printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">2<tspan dy=\"-6\" font-size=\"9\">%d</tspan></text>\n", x, top + ph + 20, k > out
  }
  printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, top + ph, right, top + ph > out
  printf "  <text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333333\">N (elements)</text>\n", left + pw / 2, top + ph + 40 > out
  nl = 0
  if (peak > 0) ref_line(out, peak, "#d62728", 0, sprintf("theoretical peak %.0f GB/s", peak), left, right, top + ph - peak / ymax * ph)
  if (read_ceil > 0) ref_line(out, read_ceil, "#2ca02c", 1, sprintf("read ceiling %.0f GB/s", read_ceil), left, right, top + ph - read_ceil / ymax * ph)
  place_labels(out, right + 8)
  split("#4e79a7 #e15759 #59a14f #b07aa1 #76b7b2", palette, " ")
  j = 0
  for (i = 1; i <= nk; i++) {
    col = is_cub(order[i]) ? "#555555" : palette[(j++ % 5) + 1]
    # The points of this kernel, sorted by N.
    ns2 = 0
    for (r = 1; r <= rows; r++) if (ch[r] == c && run[r] == "sweep" && ok[r] && kn[r] == order[i]) pts[++ns2] = r
    for (j2 = 2; j2 <= ns2; j2++) {
      t = pts[j2]
      for (k = j2 - 1; k >= 1 && nn[pts[k]] > nn[t]; k--) pts[k + 1] = pts[k]
      pts[k + 1] = t
    }
    printf "  <polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col > out
    for (k = 1; k <= ns2; k++) {
      x = (kmax > kmin) ? left + (log2(nn[pts[k]]) - kmin) / (kmax - kmin) * pw : left + pw / 2
      y = top + ph - gb[pts[k]] / ymax * ph
      px[k] = x; py[k] = y
      printf "%s%.1f,%.1f", (k > 1 ? " " : ""), x, y > out
    }
    print "\"/>" > out
    for (k = 1; k <= ns2; k++) printf "  <circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px[k], py[k], col > out
    y = top + ph + 62 + 18 * (i - 1)
    printf "  <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>\n", \
      left, y - 4, left + 24, y - 4, col, left + 32, y, xml(order[i]) > out
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

  # base.md: everything, for people browsing docs/results/.
  md = outdir "/" base ".md"
  printf "# Results on the %s\n\n", xml(device) > md
  printf "Measured on %s at N = %s (%.0f elements) by `scripts/summary.sh run`; source: `%s.csv`.\n", date, pow2(main_n), main_n, base > md
  if (read_ceil > 0 && copy_ceil > 0)
    printf "Theoretical peak %.0f GB/s; ceilings measured by chapter 00 in the same session: read-only %.1f GB/s, copy %.1f GB/s.\n", \
      peak, read_ceil, copy_ceil > md
  else
    printf "Theoretical peak %.0f GB/s; no ceilings: this CSV lacks chapter 00's rows.\n", peak > md
  print "Reductions (4N bytes) are compared with the read-only ceiling, scans (8N bytes) with the copy ceiling." > md
  print "Each chapter's line is its fastest verified kernel (CUB not counted); \"vs previous\" and \"vs 01 / 12\" are" > md
  print "speedups over the previous chapter of the same part and over its first chapter (01 for reductions," > md
  print "12 for scans); \"vs CUB\" is CUB's time over ours, so above 1 means faster than CUB." > md
  printf "\n![Best GB/s per chapter](%s.svg)\n\n## Best kernel per chapter\n\n", base > md
  best_table(md)
  print "\n## Every kernel\n" > md
  all_table(md)
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    if (!(c in has_sweep)) continue
    sweep_collect(c)
    printf "\n## Chapter %s: CUB against the workbook across N\n\n![GB/s against N](%s-chapter%s.svg)\n\n", c, base, c > md
    sweep_table(md)
  }
  close(md)

  bar_chart(outdir "/" base ".svg")

  # The README block.
  out = frag "/summary.md"
  printf "Measured on the %s on %s at N = %s; every row, and the charts: `%s%s.md`.\n\n", xml(device), date, pow2(main_n), img, base > out
  printf "![Best GB/s per chapter on the %s](%s%s.svg)\n\n", xml(device), img, base > out
  best_table(out)
  print "\nvs previous, vs 01 / 12: speedup of the chapter's fastest verified kernel over the previous chapter of the same" > out
  print "part and over the part's first chapter; vs CUB: CUB's time over ours (above 1: faster than CUB)." > out
  close(out)

  # Each chapter's block, and the sweep block where there are sweep rows.
  for (i = 1; i <= nch; i++) {
    c = chs[i]
    out = frag "/chapter" c ".md"
    chapter_block(c, out)
    close(out)
    if (!(c in has_sweep)) continue
    sweep_collect(c)
    sweep_chart(outdir "/" base "-chapter" c ".svg", c)
    out = frag "/sweep" c ".md"
    printf "CUB against the workbook across N on the %s, measured on %s with L2 flushed before each timed run:\n", xml(device), date > out
    printf "the fastest verified CUB call and the fastest verified workbook kernel (%s) at each N.\n\n", ours_names > out
    sweep_table(out)
    printf "\nAbove 1 in the last column: the workbook's kernel is faster. Chart: `%s%s-chapter%s.svg`.\n", img, base, c > out
    close(out)
  }
}
