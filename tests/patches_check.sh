#!/bin/sh
# patches_check.sh -- every exercise patch of the instructor's kit is what make_patches.py's
# edits give from the chapters as they are now (make_patches.py --check). Then a negative
# control: in a copy of the kit, one patch changed by a line must be named.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.." || exit 1
. "$here/test_lib.sh"
kit=docs/solutions/exercises
python3 "$kit/make_patches.py" --check >/dev/null
expect_status 0 $? "make_patches.py --check: every patch as its edits give it"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wb-patches-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The copy reads the chapters through the same relative root: chapters/ and the kit, nothing else.
mkdir -p "$tmp/$kit"
cp -R chapters "$tmp/"
cp "$kit"/make_patches.py "$kit"/*.patch "$tmp/$kit/"
echo " " >>"$tmp/$kit/ch17-ex3.patch"
python3 "$tmp/$kit/make_patches.py" --check >/dev/null 2>"$tmp/err"
expect_status 1 $? "make_patches.py --check with a changed patch"
expect_grep "ch17-ex3.patch is not what its edits give now" "$tmp/err" "make_patches.py --check names the changed patch"
test_summary patches_check
