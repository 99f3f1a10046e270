# Chapter 22's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake): the ring's flags, refused with the rule they broke.
wb_badarg_tests(${target} ${bin}
    "stages_zero@@--stages 0@@^chapter22: --stages '0' is not allowed: give a whole number from 1 to 64$"
    "stages_too_many@@--stages 65@@^chapter22: --stages '65' is not allowed: give a whole number from 1 to 64$"
    "stages_text@@--stages=four@@^chapter22: --stages 'four' is not allowed: give a whole number from 1 to 64$"
    "stages_missing@@--stages@@^chapter22: --stages needs a value$"
    "stage_bytes_unaligned@@--stage-bytes 1000@@^chapter22: --stage-bytes '1000' is not allowed: give a multiple of 128 from 128 to 232320$"
    "stage_bytes_too_small@@--stage-bytes 0@@^chapter22: --stage-bytes '0' is not allowed: give a multiple of 128 from 128 to 232320$"
    "stage_bytes_too_big@@--stage-bytes 232448@@^chapter22: --stage-bytes '232448' is not allowed: give a multiple of 128 from 128 to 232320$")

# Their controls: the largest values allowed pass the parser (without a GPU the run then stops
# at the device, exit 77), so the refusals above are of the values past the bounds alone.
add_test(NAME ${target}_nogpu_ring_bounds COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 77 "no usable CUDA device" ${bin} --n 1000 --stages 64 --stage-bytes=232320)
add_test(NAME ${target}_nogpu_ring_smallest COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 77 "no usable CUDA device" ${bin} --n 1000 --stages=1 --stage-bytes 128)
set_tests_properties(${target}_nogpu_ring_bounds ${target}_nogpu_ring_smallest PROPERTIES LABELS host)

# --help names the ring's flags.
add_test(NAME ${target}_help_ring_flags COMMAND sh ${WB_TESTS}/expect.sh 0 "--stage-bytes B +bytes per stage" ${bin} --help)
set_tests_properties(${target}_help_ring_flags PROPERTIES LABELS host)

# On a GPU:
# - the largest --stage-bytes, which --help promises, runs in one stage (its barriers and tile
#   number fit beside it);
# - a stage count given on the command line is no reason for the note that the default was
#   lowered (it is printed only when the default does not fit);
# - every --offset from 0 to 31 (each head of 0 to 31 ints before the first 128-byte line);
# - a ring larger than a block's shared memory is refused with what it needs.
wb_gpu_cases(${target} ${bin}
    "quick|largest_stage|--n 1000003 --stages 1 --stage-bytes 232320 --offset 1"
    "quick|stages_given_no_note|--n 100003 --stages 3")
set_tests_properties(${target}_gpu_stages_given_no_note PROPERTIES FAIL_REGULAR_EXPRESSION "need more shared memory")
add_test(NAME ${target}_gpu_every_offset COMMAND sh ${WB_TESTS}/offsets.sh 0 31 ${bin} --n 70001 --reps 1)
set_tests_properties(${target}_gpu_every_offset PROPERTIES LABELS "gpu;quick" SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu
                     TIMEOUT 600)
add_test(NAME ${target}_gpu_ring_too_big
         COMMAND sh ${WB_TESTS}/expect.sh 2
                 "^chapter22: --stages 2 of 232320 bytes need 464688 bytes of shared memory per block, with their barriers and notes; this GPU allows [0-9]+: give fewer or smaller stages$"
                 ${bin} --n 1000 --stages 2 --stage-bytes 232320)
set_tests_properties(${target}_gpu_ring_too_big PROPERTIES LABELS "gpu;full" SKIP_REGULAR_EXPRESSION
                     "expect.sh: .* exited 77, expected" RESOURCE_LOCK gpu TIMEOUT 300)
