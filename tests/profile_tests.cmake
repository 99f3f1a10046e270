# Hardware counters (scripts/profile.sh, Nsight Compute). Included from CMakeLists.txt with
#   include(${WB_TESTS}/profile_tests.cmake)

# The parsing and the pages, on the host: profile.sh run with a fake ncu that replays an
# `ncu --nvtx --csv --page raw` output (tests/fixtures/profile/: a hand-made one, and the recording
# that record.sh makes on a GPU), then profile.sh render into a temporary copy of the layout,
# compared with tests/fixtures/profile/expected/. After a new recording:
# bash tests/profile_test.sh --update, and check the differences.
add_test(NAME profile_parse COMMAND bash ${WB_TESTS}/profile_test.sh)
set_tests_properties(profile_parse PROPERTIES LABELS host TIMEOUT 300)

# Every chapter under ncu at N = 2^24, into the build directory (the pages and docs/results are
# left alone). Skipped (exit 77) without a GPU, without ncu or without permission to read the
# counters (ERR_NVGPUCTRPERM); a failure instead under REQUIRE_GPU=1 (the script reads it).
# Alone on the GPU: other tests' kernels would share it with the profiled ones.
add_test(NAME profile_all_chapters
         COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/profile.sh run --bin-dir ${CMAKE_BINARY_DIR}
                 --out ${CMAKE_BINARY_DIR}/profile --logs ${CMAKE_BINARY_DIR}/profile/logs)
set_tests_properties(profile_all_chapters PROPERTIES LABELS profile SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu RUN_SERIAL TRUE
                     TIMEOUT 3600)
