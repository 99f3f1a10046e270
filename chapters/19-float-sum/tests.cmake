# Chapter 19's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake).

# Host tests of its float header, wb_float.h beside this file (the exact sum, its rounding, the
# inputs, the bounds): tests/test_float.cpp, with this directory on its include path.
add_executable(test_float ${WB_TESTS}/test_float.cpp)
target_include_directories(test_float PRIVATE ${CMAKE_SOURCE_DIR}/common ${CMAKE_CURRENT_LIST_DIR})
target_compile_options(test_float PRIVATE -Wall -Wextra -Werror)
target_link_libraries(test_float PRIVATE Threads::Threads)
add_test(NAME host_float COMMAND test_float)
set_tests_properties(host_float PROPERTIES LABELS host)

# The committed bits of tests/fixtures/float_sum_bits.txt: the CPU
# (host, in CI) and the GPU (gpu) must both give them, on any GPU.
set(wb_bits_check ${CMAKE_CURRENT_LIST_DIR}/bits_check.sh)
file(STRINGS ${WB_TESTS}/fixtures/float_sum_bits.txt wb_bits_lines REGEX "^n=")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${WB_TESTS}/fixtures/float_sum_bits.txt)
set(wb_case 0)
foreach(line IN LISTS wb_bits_lines)
  math(EXPR wb_case "${wb_case} + 1")
  add_test(NAME ${target}_bits_cpu_${wb_case} COMMAND sh ${wb_bits_check} emulate "${line}" ${bin})
  set_tests_properties(${target}_bits_cpu_${wb_case} PROPERTIES LABELS host)
  # The first two inputs in make test; the rest in make test-full.
  if(wb_case LESS_EQUAL 2)
    set(wb_tier quick)
  else()
    set(wb_tier full)
  endif()
  add_test(NAME ${target}_bits_gpu_${wb_case} COMMAND sh ${wb_bits_check} gpu "${line}" ${bin})
  set_tests_properties(${target}_bits_gpu_${wb_case} PROPERTIES LABELS "gpu;${wb_tier}" SKIP_RETURN_CODE 77
                       RESOURCE_LOCK gpu TIMEOUT 600)
endforeach()

# The exact sum's layout as its row's config gives it (--emulate's second line; no GPU), which
# the program builds from the kernel's constants: 16 double bins (one per 16 of the 256 biased
# exponents), moved into the 320-bit integer every 1024 float4s (4096 floats), and the grid's
# 10 chunks of 32 bits (320 bits). A description written by hand fails here once it no longer
# says what the kernel does (the config once said "bins=9", from an earlier design).
add_test(NAME ${target}_exact_layout COMMAND sh ${WB_TESTS}/expect.sh 0
         "^float_exact: double_bins=16 fold_floats=4096 grid_chunks=10$" ${bin} --emulate --n 1000)
set_tests_properties(${target}_exact_layout PROPERTIES LABELS host)

# Negative controls. The comparison fails for another seed's input (the CPU, host), and the
# tree's bits at two grids differ, so a check of reproducibility across grids would catch the
# tree (the GPU, on the second fixture's input, 2^22 values of both signs: the two grids
# gave 0x469618bc and 0x469618ba on an H200).
list(GET wb_bits_lines 0 wb_first)
string(REPLACE "seed=20240601" "seed=1" wb_other_seed "${wb_first}")
string(REGEX REPLACE " reproducible=.*$" "" wb_prefix "${wb_other_seed}")
string(REGEX REPLACE "^.* reproducible=" " reproducible=" wb_suffix "${wb_first}")
add_test(NAME ${target}_bits_cpu_other_seed_control COMMAND sh ${wb_bits_check} emulate "${wb_prefix}${wb_suffix}" ${bin})
set_tests_properties(${target}_bits_cpu_other_seed_control PROPERTIES LABELS host WILL_FAIL TRUE)
list(GET wb_bits_lines 1 wb_second)
add_test(NAME ${target}_tree_two_grids_control COMMAND sh ${wb_bits_check} tree "${wb_second}" ${bin})
set_tests_properties(${target}_tree_two_grids_control PROPERTIES LABELS "gpu;quick" WILL_FAIL TRUE SKIP_RETURN_CODE 77
                     RESOURCE_LOCK gpu TIMEOUT 600)

# The input flags: refused values exit 2 with wb::parse_float_input's message.
wb_badarg_tests(${target} ${bin}
    "input_unknown@@--input bogus@@^chapter19: mode 'bogus' is not known: give positive, mixed or cancel$"
    "spread_too_big@@--spread 161@@^chapter19: spread '161' is not allowed: give a whole number from 0 to 160$"
    "spread_sign@@--spread +8@@^chapter19: spread '\\+8' is not allowed: give a whole number from 0 to 160$"
    "runs_zero@@--runs 0@@^chapter19: --runs '0' is not allowed: give a whole number from 1 to 100000$"
    "study_and_emulate@@--study --emulate@@cannot be given together")
