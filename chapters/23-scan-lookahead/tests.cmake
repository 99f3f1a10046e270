# Chapter 23's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake): the ring's flag, refused with the rule it broke.
wb_badarg_tests(${target} ${bin}
    "stages_zero@@--stages 0@@^chapter23: --stages '0' is not allowed: give a whole number from 1 to 64$"
    "stages_too_many@@--stages 65@@^chapter23: --stages '65' is not allowed: give a whole number from 1 to 64$"
    "stages_missing@@--stages@@^chapter23: --stages needs a value$"
    "stage_bytes@@--stage-bytes 4096@@^chapter23: unknown argument '--stage-bytes'")
# Its control: the largest value allowed passes the parser (without a GPU the run then stops at
# the device, exit 77).
add_test(NAME ${target}_nogpu_stages_bound COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 77 "no usable CUDA device" ${bin} --n 1000 --stages 64)
set_tests_properties(${target}_nogpu_stages_bound PROPERTIES LABELS host)

# On a GPU:
# - every --offset from 0 to 31: each head tile of 0 to 31 ints, and the lead and tail it leaves
#   the tiles after it, at a small N (3 tiles past the head: the hand-over's own rows stay with
#   chapter 17's kernel, the look-ahead's row cuts every tile);
# - a stage count given on the command line is no reason for the note that the default was
#   lowered (printed only when the default does not fit);
# - a ring larger than a block's shared memory is refused with what it needs.
add_test(NAME ${target}_gpu_every_offset COMMAND sh ${WB_TESTS}/offsets.sh 0 31 ${bin} --n 24211 --reps 1)
set_tests_properties(${target}_gpu_every_offset PROPERTIES LABELS "gpu;quick" SKIP_RETURN_CODE 77 RESOURCE_LOCK gpu
                     TIMEOUT 600)
wb_gpu_cases(${target} ${bin} "quick|stages_given_no_note|--n 100003 --stages 3")
set_tests_properties(${target}_gpu_stages_given_no_note PROPERTIES FAIL_REGULAR_EXPRESSION "need more shared memory")
add_test(NAME ${target}_gpu_ring_too_big
         COMMAND sh ${WB_TESTS}/expect.sh 2
                 "^chapter23: --stages 8 of 32512 bytes need [0-9]+ bytes of shared memory per block, with their barriers and notes; this GPU allows [0-9]+: give fewer or smaller stages$"
                 ${bin} --n 1000 --stages 8)
set_tests_properties(${target}_gpu_ring_too_big PROPERTIES LABELS "gpu;full" SKIP_REGULAR_EXPRESSION
                     "expect.sh: .* exited 77, expected" RESOURCE_LOCK gpu TIMEOUT 300)
