# tests/test_lib.sh: the assertions the shell tests share. Sourced, not run.
#
# The sourcing test sets `verbose` (1: show differences in full) and may set `update` and
# `expected_dir` (expect_file then compares with, or with update=1 replaces,
# $expected_dir/NAME). Counters: `passed`, `failed`; finish with test_summary.
passed=${passed:-0} failed=${failed:-0} updated=${updated:-0}
verbose=${verbose:-0} update=${update:-0}

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# Show how two files differ: in full with verbose=1, else the first 20 lines.
show_diff() {
  if [ "$verbose" = 1 ]; then diff "$1" "$2"; else diff "$1" "$2" | head -20; fi
}

# expect_status WANT GOT WHAT
expect_status() {
  if [ "$1" = "$2" ]; then ok; else bad "$3: exit $2, expected $1"; fi
}

# expect_same EXPECTED ACTUAL WHAT: the two files are identical.
expect_same() {
  if [ -f "$2" ] && cmp -s "$1" "$2"; then ok; return; fi
  bad "$3: $2 differs from $1"
  show_diff "$1" "$2"
}

# expect_file NAME ACTUAL WHAT: ACTUAL equals $expected_dir/NAME, or with update=1 replaces it.
expect_file() {
  local want=$expected_dir/$1
  if [ "$update" = 1 ] && [ -f "$2" ]; then
    mkdir -p "$expected_dir"
    if ! cmp -s "$2" "$want"; then cp "$2" "$want"; updated=$((updated + 1)); fi
    ok
    return
  fi
  expect_same "$want" "$2" "$3"
}

# expect_grep PATTERN FILE WHAT: the file has a line matching the extended regex.
expect_grep() {
  if grep -Eq -- "$1" "$2"; then ok; else bad "$3: no line of $2 matches /$1/"; fi
}

# expect_no_grep PATTERN FILE WHAT: no line of the file matches the extended regex.
expect_no_grep() {
  if grep -Eq -- "$1" "$2"; then bad "$3: a line of $2 matches /$1/"; else ok; fi
}

# expect_count N PATTERN FILE WHAT: exactly N matches of the extended regex.
expect_count() {
  local got
  got=$(grep -Eo -- "$2" "$3" | wc -l)
  if [ "$got" -eq "$1" ]; then ok; else bad "$4: $got matches of /$2/ in $3, expected $1"; fi
}

# Print "NAME: P passed, F failed" and exit 0 when nothing failed, else 1.
test_summary() {
  echo "$1: $passed passed, $failed failed"
  [ "$failed" = 0 ]
}
