# scripts/sweep_render.awk: the tables of a sweep CSV written by scripts/sweep.sh.
# POSIX awk (tested with mawk). Variables (-v): mode ("text" for the terminal, "md" for a
# chapter page), date (md only).
#
# Input columns: chapter,kernel,n,flush,reps,block,batch,median_ms,gbps,blk_per_sm,check,device
# One table per (N, flush, kernel): rows are block sizes, columns are K (--batch), cells GB/s.
# A cell reads "-" when the chapter refused that block or K (exit 2), FAIL when the result was
# wrong, ERR when the run failed otherwise. The best verified cell is starred (text) or bold (md).

BEGIN { FS = ","; ncfg = 0 }

NR == 1 { next }

NF >= 12 {
  cfg = $3 SUBSEP $4
  if (!(cfg in cfg_seen)) { cfg_seen[cfg] = 1; cfgs[++ncfg] = cfg; cfg_n[cfg] = $3; cfg_flush[cfg] = $4; cfg_reps[cfg] = $5 }
  if (!((cfg, $6) in b_seen)) { b_seen[cfg, $6] = 1; blocks[cfg, ++nb[cfg]] = $6 }
  if (!((cfg, $7) in k_seen)) { k_seen[cfg, $7] = 1; batches[cfg, ++nk[cfg]] = $7 }
  if (device == "" && $12 != "") device = $12
  chapter = $1
  key = cfg SUBSEP $6 SUBSEP $7
  if ($2 == "-") { failed[key] = $11; next }   # a run that printed no row
  if (!((cfg, $2) in kn_seen)) { kn_seen[cfg, $2] = 1; kernels[cfg, ++nkn[cfg]] = $2 }
  cell_gb[key, $2] = $9 + 0; cell_ms[key, $2] = $8 + 0; cell_ok[key, $2] = ($11 == "PASS")
  cell_blk[key, $2] = $10 + 0
}

function pow2(n,    k, p) {
  p = 1; k = 0
  while (p < n) { p *= 2; k++ }
  return p == n ? "2^" k : n
}

# What a cell shows.
function cell(cfg, b, k, kernel,    key) {
  key = cfg SUBSEP b SUBSEP k
  if ((key, kernel) in cell_gb) return cell_ok[key, kernel] ? sprintf("%.1f", cell_gb[key, kernel]) : "FAIL"
  if (key in failed) return failed[key] == "refused" ? "-" : "ERR"
  return "-"
}

# Resident blocks per SM over a row, "a" or "a-b" when K changes it.
function occupancy(cfg, b, kernel,    i, key, v, lo, hi) {
  lo = -1; hi = -1
  for (i = 1; i <= nk[cfg]; i++) {
    key = cfg SUBSEP b SUBSEP batches[cfg, i]
    if (!((key, kernel) in cell_blk)) continue
    v = cell_blk[key, kernel]
    if (lo < 0 || v < lo) lo = v
    if (hi < 0 || v > hi) hi = v
  }
  if (lo < 0) return "-"
  return lo == hi ? lo "" : lo "-" hi
}

# The conditions of a grid; flags in code spans on a page, where Doxygen would turn "--" into a dash.
function where(cfg, md,    q) {
  q = md ? "`" : ""
  return "N = " pow2(cfg_n[cfg]) ", " (cfg_flush[cfg] == "flush" ? "L2 flushed before each run" : "L2 not flushed (" q "--no-flush" q ")") \
    ", median of " cfg_reps[cfg] " runs"
}

# The flags of a cell, e.g. "--block 256 --batch 8", for the line naming the best one.
function flags(b, k,    s) {
  s = (b == "-" ? "" : "--block " b) (k == "-" ? "" : (b == "-" ? "" : " ") "--batch " k)
  return s == "" ? "the only cell" : s
}

END {
  if (ncfg == 0) { print "sweep_render.awk: no sweep rows in " FILENAME > "/dev/stderr"; exit 1 }
  for (c = 1; c <= ncfg; c++) {
    cfg = cfgs[c]
    for (q = 1; q <= nkn[cfg]; q++) {
      kernel = kernels[cfg, q]
      # The best verified cell.
      best_b = ""; best_k = ""; best = -1
      for (i = 1; i <= nb[cfg]; i++) for (j = 1; j <= nk[cfg]; j++) {
        key = cfg SUBSEP blocks[cfg, i] SUBSEP batches[cfg, j]
        if ((key, kernel) in cell_gb && cell_ok[key, kernel] && cell_gb[key, kernel] > best) {
          best = cell_gb[key, kernel]; best_b = blocks[cfg, i]; best_k = batches[cfg, j]; best_ms = cell_ms[key, kernel]
        }
      }
      if (mode == "md") {
        if (c > 1 || q > 1) print ""
        printf "GB/s of `%s` on the %s at %s; rows `--block`, columns `--batch` (K), the best cell in bold (%s, `scripts/sweep.sh %s`).\n\n", \
          kernel, device, where(cfg, 1), date, chapter
        line = "| block / K |"; rule = "| ---: |"
        for (j = 1; j <= nk[cfg]; j++) { line = line " " batches[cfg, j] " |"; rule = rule " ---: |" }
        print line " blk/SM |"
        print rule " ---: |"
        for (i = 1; i <= nb[cfg]; i++) {
          line = "| " blocks[cfg, i] " |"
          for (j = 1; j <= nk[cfg]; j++) {
            v = cell(cfg, blocks[cfg, i], batches[cfg, j], kernel)
            if (blocks[cfg, i] == best_b && batches[cfg, j] == best_k) v = "**" v "**"
            line = line " " v " |"
          }
          print line " " occupancy(cfg, blocks[cfg, i], kernel) " |"
        }
        continue
      }
      if (c > 1 || q > 1) print ""
      printf "%s on the %s: GB/s at %s\n", kernel, device, where(cfg, 0)
      line = sprintf("%10s", "block\\K")
      for (j = 1; j <= nk[cfg]; j++) line = line sprintf(" %8s", batches[cfg, j])
      print line
      for (i = 1; i <= nb[cfg]; i++) {
        line = sprintf("%10s", blocks[cfg, i])
        for (j = 1; j <= nk[cfg]; j++) {
          v = cell(cfg, blocks[cfg, i], batches[cfg, j], kernel)
          if (blocks[cfg, i] == best_b && batches[cfg, j] == best_k) v = v "*"
          line = line sprintf(" %8s", v)
        }
        print line
      }
      if (best >= 0) printf "best (*): %s: %.1f GB/s, %.4f ms\n", flags(best_b, best_k), best, best_ms
      else print "best: no verified cell"
      print "occupancy (resident blocks per SM from the occupancy API, x block = threads per SM):"
      for (i = 1; i <= nb[cfg]; i++) {
        v = occupancy(cfg, blocks[cfg, i], kernel)
        if (v == "-") printf "  block %5s: - (no run of this kernel)\n", blocks[cfg, i]
        else if (blocks[cfg, i] == "-") printf "  block %5s: %s blocks per SM\n", blocks[cfg, i], v
        else if (v ~ /-/) printf "  block %5s: %s blocks per SM (varies with K)\n", blocks[cfg, i], v
        else printf "  block %5s: %s blocks per SM = %d threads per SM\n", blocks[cfg, i], v, v * blocks[cfg, i]
      }
    }
  }
}
