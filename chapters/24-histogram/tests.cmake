# Chapter 24's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake).

# --bins and --input, the flags of the chapter's harness: refused values exit 2 with a message.
wb_badarg_tests(${target} ${bin}
    "bins_too_few@@--bins 1@@^chapter24: --bins '1' is not allowed: give a whole number from 2 to 65536$"
    "bins_too_many@@--bins 65537@@^chapter24: --bins '65537' is not allowed: give a whole number from 2 to 65536$"
    "bins_missing@@--bins@@^chapter24: --bins needs a value$"
    "input_unknown@@--input zipf@@^chapter24: --input 'zipf' is not allowed: give uniform, skewed, one_bin or few$"
    "input_missing@@--input@@^chapter24: --input needs a value$"
    "racy_other_variant@@--racy --variant vectorized@@^chapter24: --racy is step 2's exercise")
# Their negative control: values the flags take are not refused (the run gets past the parser
# and, without a GPU, exits 77; the pattern of a refusal is not found, so expect.sh fails).
add_test(NAME ${target}_badarg_bins_control COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 2 "is not allowed" ${bin} --bins 65536 --input=one_bin --n 1000)
set_tests_properties(${target}_badarg_bins_control PROPERTIES LABELS host WILL_FAIL TRUE)

# Every input on every variant at an odd N off 16-byte alignment (GPU); uniform and one_bin,
# the two ends of contention, in `make test`.
foreach(input uniform skewed one_bin few)
  if(input STREQUAL "uniform" OR input STREQUAL "one_bin")
    set(wb_tier quick)
  else()
    set(wb_tier full)
  endif()
  wb_gpu_cases(${target} ${bin} "${wb_tier}|input_${input}|--variant all --input ${input} --n 1000003 --offset 1")
endforeach()

# The racecheck exercise's negative control: without the sanitizer, step 2's plain increments
# lose counts, and the check says so (exit 1). One bin makes the lost updates certain.
add_test(NAME ${target}_gpu_racy_loses_counts
         COMMAND sh ${WB_TESTS}/expect.sh 1 "^FAIL hist_block_shared_racy .first run.: [0-9]+ of 256 counters wrong"
         sh ${WB_TESTS}/gpu.sh ${bin} --racy --input one_bin --n 1000003)
set_tests_properties(${target}_gpu_racy_loses_counts PROPERTIES LABELS "gpu;quick" RESOURCE_LOCK gpu TIMEOUT 600
                     SKIP_REGULAR_EXPRESSION "exited 77")
