# Tests of the whole workbook rather than one chapter.

# The pages as Markdown (no raw Doxygen command, no file outside the repository, pasted diff lines
# still true), then the site: zero Doxygen warnings, and tests/html_check.py on the HTML (every link
# and anchor resolves, no raw markup, each chapter page has its code, results and neighbours, no
# figure's caption repeats its alt text, no two pages of the sidebar share a title).
# Skipped (exit 77) where doxygen or python3 is missing.
add_test(NAME docs_site COMMAND sh ${WB_TESTS}/docs_check.sh ${CMAKE_BINARY_DIR}/docs-check)
set_tests_properties(docs_site PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 600
                     FIXTURES_SETUP docs_site_built)

# html_check.py's student checks (no outcome, no sentence of the answer key in the student's site)
# fail on pages made to break them; and every exercise patch of docs/solutions/exercises/ still
# applies to the chapters (run.sh --check, which also shows that a broken patch is refused).
add_test(NAME host_html_check_self_test COMMAND python3 ${WB_TESTS}/html_check.py --self-test)
set_tests_properties(host_html_check_self_test PROPERTIES LABELS host)
add_test(NAME host_exercise_patches_apply
         COMMAND bash ${CMAKE_SOURCE_DIR}/docs/solutions/exercises/run.sh --check)
set_tests_properties(host_exercise_patches_apply PROPERTIES LABELS host)
# ... and with patch where git is missing (GIT names no program), the broken patch refused too;
# skipped (77) where patch is not installed either.
add_test(NAME host_exercise_patches_apply_without_git
         COMMAND sh -c "command -v patch >/dev/null || exit 77; GIT=/nonexistent/git exec bash \"$0\" --check"
                 ${CMAKE_SOURCE_DIR}/docs/solutions/exercises/run.sh)
set_tests_properties(host_exercise_patches_apply_without_git PROPERTIES LABELS host SKIP_RETURN_CODE 77)
# ... and each patch is what the edits of make_patches.py give from the chapters as they are now
# (tests/patches_check.sh, with a negative control).
add_test(NAME host_exercise_patches_current COMMAND sh ${WB_TESTS}/patches_check.sh)
set_tests_properties(host_exercise_patches_current PROPERTIES LABELS host)

# The same site in headless Chromium: the main page shows every section, a chapter page its code,
# results and neighbours. Skipped (exit 77) where no Chromium is installed.
add_test(NAME docs_browser COMMAND sh ${WB_TESTS}/browser_check.sh ${CMAKE_BINARY_DIR}/docs-check/html)
set_tests_properties(docs_browser PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 300
                     FIXTURES_REQUIRED docs_site_built)

# scripts/: summary.sh render on a fixture CSV, and summary.sh run, sanitize.sh and sweep.sh on
# fake chapters and a fake compute-sanitizer, compared with tests/fixtures/scripts/expected/.
add_test(NAME host_scripts COMMAND ${CMAKE_COMMAND} -E env WB_TEST_COMMON=$<TARGET_FILE:test_common>
         bash ${WB_TESTS}/scripts_test.sh)
set_tests_properties(host_scripts PROPERTIES LABELS host TIMEOUT 300)

# scripts/wblib, the Python tooling: CSV reading, the summary's render, SVG text, `wb.py info`
# (tests/test_wblib.py, standard library unittest).
add_test(NAME host_wblib COMMAND python3 ${WB_TESTS}/test_wblib.py)
set_tests_properties(host_wblib PROPERTIES LABELS host TIMEOUT 300)

# The figures in docs/figures are what scripts/wblib/figures.py draws: after changing it, redraw
# them with `python3 scripts/wb.py figures` (the check draws into a temporary folder and names every
# file that differs; tests/test_wblib.py shows it does).
add_test(NAME figures_up_to_date COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/wb.py figures --check)
set_tests_properties(figures_up_to_date PROPERTIES LABELS host)

# Which CUB the chapters compile against (cmake/cccl.cmake): a newer CCCL is taken, an older one or
# any under -DWB_CCCL=toolkit is not, the configured chapters put it first and expect it, and the
# harness refuses to compile against another (tests/cccl_check.cmake, its negative controls in it).
add_test(NAME host_cccl
         COMMAND ${CMAKE_COMMAND} -DWB_SOURCE=${CMAKE_SOURCE_DIR} -DWB_WORK=${CMAKE_BINARY_DIR}/cccl-check
                 -DWB_NVCC=${CMAKE_CUDA_COMPILER} -P ${WB_TESTS}/cccl_check.cmake)
set_tests_properties(host_cccl PROPERTIES LABELS host TIMEOUT 300)

# docs/results/chapters.json (what the render stages know of each chapter) is what the built
# programs say with --info: regenerate with `python3 scripts/wb.py info --write`. A chapter not
# built is reported as skipped; with none built the test is skipped (77).
add_test(NAME chapters_info_up_to_date
         COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/wb.py info --check --bin-dir ${CMAKE_BINARY_DIR})
set_tests_properties(chapters_info_up_to_date PROPERTIES LABELS host SKIP_RETURN_CODE 77)

# Every chapter under compute-sanitizer (racecheck, memcheck, synccheck, initcheck), clean in its
# normal mode, its --racy run reported. Slow (minutes): run it alone with `ctest -L sanitizer`
# (`ctest -LE sanitizer` leaves it out). Skipped without a GPU or compute-sanitizer; a failure
# instead under REQUIRE_GPU=1 (the script reads it).
add_test(NAME sanitize_all_chapters
         COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/sanitize.sh --bin-dir ${CMAKE_BINARY_DIR} --logs ${CMAKE_BINARY_DIR}/sanitize)
set_tests_properties(sanitize_all_chapters PROPERTIES LABELS sanitizer SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu
                     RUN_SERIAL TRUE TIMEOUT 5400)

# What every built chapter says about itself (--info, --list-variants), without a GPU: the JSON
# and its layout, chapter and slug against the directory, part, the bytes of its op, the variants
# against --list-variants, and every row name a string literal of the chapter's source; "device"
# null with CUDA_VISIBLE_DEVICES empty; and negative controls (tests/info_check.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
set(wb_info_python python3)
if(Python3_Interpreter_FOUND)
  set(wb_info_python ${Python3_EXECUTABLE})
endif()
set(wb_info_programs "")
foreach(t IN LISTS WB_CHAPTERS)
  list(APPEND wb_info_programs $<TARGET_FILE:${t}>)
endforeach()
add_test(NAME host_chapter_info
         COMMAND ${wb_info_python} ${WB_TESTS}/info_check.py --root ${CMAKE_SOURCE_DIR} ${wb_info_programs})
set_tests_properties(host_chapter_info PROPERTIES LABELS host TIMEOUT 300)

# Rows that need a newer CUB than the build's (--info's needs_cub: chapter 19's determinism levels
# need CUB 3.1.0) are listed by --info whatever the CUB, and run exactly where the build's CUB has
# them: each chapter with needs_cub runs the smallest variant holding them at a small N, its CSV
# must hold exactly the rows its CUB can run and its standard error one note for the others
# (tests/needs_cub_check.py). Its self-test judges canned outputs of both CUBs (host).
add_test(NAME needs_cub_rows COMMAND ${wb_info_python} ${WB_TESTS}/needs_cub_check.py ${wb_info_programs})
set_tests_properties(needs_cub_rows PROPERTIES LABELS "gpu;quick" SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu TIMEOUT 600)
add_test(NAME host_needs_cub_rows_self_test COMMAND ${wb_info_python} ${WB_TESTS}/needs_cub_check.py --self-test)
set_tests_properties(host_needs_cub_rows_self_test PROPERTIES LABELS host)

# The generated parts of every page (navigation, code excerpts, the diff from the previous
# chapter) match the programs: regenerate with `sh scripts/pages.sh` after changing a chapter.
add_test(NAME docs_pages_up_to_date COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/pages.sh --check)
set_tests_properties(docs_pages_up_to_date PROPERTIES LABELS host)

# Chapter 18's scaling table and chart are what scripts/scaling.sh renders from the committed CSV.
add_test(NAME scaling_block_up_to_date COMMAND sh ${WB_TESTS}/scaling_check.sh)
set_tests_properties(scaling_block_up_to_date PROPERTIES LABELS host)

# The pre-sm_80 fallback paths (no __reduce_add_sync), built with -DWB_FORCE_FALLBACK=ON and run on
# this GPU, so that code written for older GPUs is executed and verified, not only compiled.
add_test(NAME portable_fallbacks
         COMMAND sh ${WB_TESTS}/fallback_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/fallback)
set_tests_properties(portable_fallbacks PROPERTIES LABELS "gpu;full" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)

# Chapter 17's look-back with every path taken: built with -DWB_STRESS=ON (publications delayed by a
# seeded random time, the paths counted on the device), each single pass must verify and count
# waits, window walks and chained aggregates above zero; then racecheck and synccheck on it.
add_test(NAME stress_lookback
         COMMAND sh ${WB_TESTS}/stress_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/stress)
set_tests_properties(stress_lookback PROPERTIES LABELS "gpu;full;stress" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)
# The same for chapter 20's wide single pass (the affine maps' scan), which calls chapter 17's
# stress hooks, and for chapter 21, whose one pass looks back over counts and whose three kernels
# scan their flags with chapter 17's single pass.
add_test(NAME stress_lookback_chapter20
         COMMAND sh ${WB_TESTS}/stress_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/stress20 20)
set_tests_properties(stress_lookback_chapter20 PROPERTIES LABELS "gpu;full;stress" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)
add_test(NAME stress_lookback_chapter21
         COMMAND sh ${WB_TESTS}/stress_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/stress21 21)
set_tests_properties(stress_lookback_chapter21 PROPERTIES LABELS "gpu;full;stress" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)
# Chapter 23's look-ahead scan publishes tile sums through chapter 17's stress hooks, and its
# look-ahead warp counts its waits, its moves to the next 32 tiles and the sums it adds.
add_test(NAME stress_lookback_chapter23
         COMMAND sh ${WB_TESTS}/stress_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/stress23 23)
set_tests_properties(stress_lookback_chapter23 PROPERTIES LABELS "gpu;full;stress" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)
# Chapter 25's one-sweep sort looks back over 256 digit counts, one thread per digit, with hooks of
# its own (lookback_stress.cuh): its digit threads count their waits, walks and chained counts.
add_test(NAME stress_lookback_chapter25
         COMMAND sh ${WB_TESTS}/stress_check.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/stress25 25)
set_tests_properties(stress_lookback_chapter25 PROPERTIES LABELS "gpu;full;stress" SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 1800)

# Every chapter page reads in one sitting (tests/page_check.py): what a student reads open (outside
# <details>) is at most 2,000 prose words (outside code and tables) and 120 lines of code; the page
# opens with the lesson ("## The idea") and the chapter's figure; at most 250 lines before the first
# folded block (400 for chapters 17 and up); the diff and the counters folded; no "Expected" outcome
# on a chapter page. It prints each page's words, code lines and figures. Its self-test shows each
# rule failing on a page made to break it.
add_test(NAME docs_page_budget COMMAND python3 ${WB_TESTS}/page_check.py ${CMAKE_SOURCE_DIR})
set_tests_properties(docs_page_budget PROPERTIES LABELS "host;docs")
add_test(NAME docs_page_budget_self_test COMMAND python3 ${WB_TESTS}/page_check.py --self-test)
set_tests_properties(docs_page_budget_self_test PROPERTIES LABELS "host;docs")

# The headline numbers that the pages' prose quotes, each tagged where it stands with the CSV, kernel,
# N and quantity it comes from (<!-- num CSV KERNEL N QUANTITY -->), equal what the CSV gives, computed
# as scripts/summary.sh render computes its tables: `python3 scripts/wb.py numbers` writes them. Its
# self-test shows a number changed by one digit failing and written back, and a tag naming an unknown
# CSV, kernel or quantity, an ambiguous kernel or no number failing (tests/numbers_check.py).
add_test(NAME docs_numbers_match_csvs COMMAND python3 ${WB_TESTS}/numbers_check.py)
set_tests_properties(docs_numbers_match_csvs PROPERTIES LABELS "host;docs")
add_test(NAME docs_numbers_self_test COMMAND python3 ${WB_TESTS}/numbers_check.py --self-test)
set_tests_properties(docs_numbers_self_test PROPERTIES LABELS "host;docs" TIMEOUT 300)

# Code copied between chapters on purpose (warp and block sums, tile load and store, launchers,
# chapter 18's copies of chapters 11 and 17) is equal, or differs only where the table in
# tests/copies_check.py says, for the reason the chapter gives; known drifts are warnings that fail
# once fixed. Its self-test shows an altered copy, a missing region and a fixed drift failing.
add_test(NAME copies_equal COMMAND python3 ${WB_TESTS}/copies_check.py ${CMAKE_SOURCE_DIR})
set_tests_properties(copies_equal PROPERTIES LABELS host)
add_test(NAME copies_equal_self_test COMMAND python3 ${WB_TESTS}/copies_check.py --self-test)
set_tests_properties(copies_equal_self_test PROPERTIES LABELS host)

# Every generated results block (tables, charts, counters, sweeps, chapter 18's scaling, the README's
# summary) is what the scripts render from the committed CSVs: a hand edit inside the markers, or a
# renderer changed without re-rendering, fails. The self-test alters one cell and must be caught.
add_test(NAME results_blocks_up_to_date COMMAND python3 ${WB_TESTS}/results_check.py)
set_tests_properties(results_blocks_up_to_date PROPERTIES LABELS host)
add_test(NAME results_blocks_self_test COMMAND python3 ${WB_TESTS}/results_check.py --self-test)
set_tests_properties(results_blocks_self_test PROPERTIES LABELS host)

# Blocks that wait on each other (the look-back of chapters 17 and 19 to 21, the look-ahead of
# chapter 23, and chapter 22's ring, whose blocks take tiles from one counter), where a quiet GPU
# never takes them:
# - few blocks resident: with WB_CROWD_FREE_SMS=2 the harness runs every launch while a kernel
#   holds all SMs but 2 (wb::Crowd), so the grid runs a few blocks at a time; the run must verify,
#   and say it ran crowded. Every kernel is loaded at the start (CUDA_MODULE_LOADING=EAGER): a
#   kernel loaded at its first launch would wait for the crowd, which waits for it. Negative control: mutation ch23-tiles-fixed-share, which passes on a
#   quiet GPU and hangs in the crowd.
# - the epochs' wrap-around: with WB_FIRST_EPOCH=2^30 - 2 every launcher of statuses (chapter 17's
#   SinglePass, chapter 20's WideSinglePass) starts two launches before its last epoch, so that
#   the largest epochs and the wrap (statuses cleared, epochs from 1 again) run within the test.
#   Negative controls: mutations ch17-epoch-wraps-late and ch20-epoch-wraps-late.
foreach(wb_nn 17 19 20 21 22 23)
  if(NOT TARGET chapter${wb_nn})
    continue()
  endif()
  get_target_property(wb_type chapter${wb_nn} TYPE)
  if(NOT wb_type STREQUAL "EXECUTABLE")
    continue()
  endif()
  add_test(NAME lookback_few_resident_chapter${wb_nn}
           COMMAND ${CMAKE_COMMAND} -E env WB_CROWD_FREE_SMS=2 CUDA_MODULE_LOADING=EAGER
                   sh ${WB_TESTS}/expect.sh 0 "^WB_CROWD_FREE_SMS=2: every launch runs while a kernel holds the other"
                   sh ${WB_TESTS}/gpu.sh $<TARGET_FILE:chapter${wb_nn}> --n 3000017 --offset 1)
  set_tests_properties(lookback_few_resident_chapter${wb_nn} PROPERTIES LABELS "gpu;full" RESOURCE_LOCK gpu TIMEOUT 900
                       SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected")
  if(NOT wb_nn STREQUAL "22")
    add_test(NAME lookback_epoch_wrap_chapter${wb_nn}
             COMMAND ${CMAKE_COMMAND} -E env WB_FIRST_EPOCH=1073741822
                     sh ${WB_TESTS}/gpu.sh $<TARGET_FILE:chapter${wb_nn}> --n 1000003 --offset 3)
    set_tests_properties(lookback_epoch_wrap_chapter${wb_nn} PROPERTIES LABELS "gpu;full" RESOURCE_LOCK gpu TIMEOUT 600
                         SKIP_RETURN_CODE 77)
  endif()
endforeach()
# The hooks refuse a value they cannot take, as a flag would (exit 2, naming the variable).
if(TARGET chapter17)
  add_test(NAME lookback_hooks_refuse_bad_values
           COMMAND ${CMAKE_COMMAND} -E env WB_FIRST_EPOCH=0
                   sh ${WB_TESTS}/expect.sh 2 "^WB_FIRST_EPOCH='0' is not allowed: give a whole number from 1 to 1073741823$"
                   $<TARGET_FILE:chapter17> --n 1000)
  add_test(NAME lookback_crowd_refuses_bad_values
           COMMAND ${CMAKE_COMMAND} -E env WB_CROWD_FREE_SMS=0 CUDA_MODULE_LOADING=EAGER
                   sh ${WB_TESTS}/expect.sh 2 "^WB_CROWD_FREE_SMS='0' is not allowed: give a whole number from 1 to [0-9]+$"
                   $<TARGET_FILE:chapter17> --n 1000)
  set_tests_properties(lookback_hooks_refuse_bad_values lookback_crowd_refuses_bad_values PROPERTIES LABELS "gpu;quick"
                       RESOURCE_LOCK gpu SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected")
endif()
