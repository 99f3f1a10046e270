# Tests of the whole workbook rather than one chapter.

# The Doxygen site builds with zero warnings (skipped, exit 77, where doxygen is missing).
add_test(NAME docs_zero_warnings
         COMMAND ${CMAKE_COMMAND} -E env WB_DOCS_OUT=${CMAKE_BINARY_DIR}/docs-test sh ${CMAKE_SOURCE_DIR}/docs/build.sh)
set_tests_properties(docs_zero_warnings PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 600)

# Every chapter has a labelled page with previous/next links, every \snippet names a region that
# exists in the code, and the built site has a page per chapter.
add_test(NAME docs_pages_and_snippets COMMAND sh ${WB_TESTS}/docs_check.sh ${CMAKE_BINARY_DIR}/docs-check)
set_tests_properties(docs_pages_and_snippets PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 600)

# scripts/: summary.sh render on a fixture CSV, and summary.sh run, sanitize.sh and sweep.sh on
# fake chapters and a fake compute-sanitizer, compared with tests/fixtures/scripts/expected/.
add_test(NAME host_scripts COMMAND bash ${WB_TESTS}/scripts_test.sh)
set_tests_properties(host_scripts PROPERTIES LABELS host TIMEOUT 300)

# Every chapter under compute-sanitizer (racecheck, memcheck, synccheck, initcheck), clean in its
# normal mode, its --racy run reported. Slow (minutes): run it alone with `ctest -L sanitizer`
# (`ctest -LE sanitizer` leaves it out). Skipped without a GPU or compute-sanitizer; a failure
# instead under REQUIRE_GPU=1 (the script reads it).
add_test(NAME sanitize_all_chapters
         COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/sanitize.sh --bin-dir ${CMAKE_BINARY_DIR} --logs ${CMAKE_BINARY_DIR}/sanitize)
set_tests_properties(sanitize_all_chapters PROPERTIES LABELS sanitizer SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 5400)

# docs/diffs/chapterNN.diff (shown on each page) matches the programs: regenerate with
# `sh scripts/diffs.sh` after changing a chapter.
add_test(NAME docs_diffs_up_to_date COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/diffs.sh --check)
set_tests_properties(docs_diffs_up_to_date PROPERTIES LABELS host)
