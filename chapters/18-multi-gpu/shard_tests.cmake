# Chapter 18's own tests, included by CMakeLists.txt with ${target} and ${bin} set.
#
# The harness flags (wb_multi.cuh) are refused with the exact line of the shared parser,
# and --help shows them (host tests, no GPU needed).
wb_badarg_tests(${target} ${bin}
    "gpus_zero@@--gpus 0@@^${target}: --gpus '0' is not allowed: give a whole number from 1 to 1024$"
    "shards_text@@--shards x@@^${target}: --shards 'x' is not allowed: give a whole number from 1 to 1024$"
    "shards_missing@@--shards@@^${target}: --shards needs a value$"
    "no_gate_value@@--no-gate=1@@^${target}: --no-gate takes no value$")
add_test(NAME ${target}_help_harness_flags
         COMMAND sh ${WB_TESTS}/expect.sh 0 "^  --shards S    cut the array into S shards" ${bin} --help)
set_tests_properties(${target}_help_harness_flags PROPERTIES LABELS host)

# Several shards on one GPU (`make test`, labels gpu;quick): the carries between shards, the
# collectives over several values per GPU and uneven shards run on any machine with a GPU.
# N = 1000003 is 123 tiles of 256 x 32 (the last partial): 2, 3 and 7 shards divide neither N
# nor the tiles evenly. Without --variant, gpu.sh runs every variant (all, then scan_in_place:
# the sum, the scan and the scan in place); --no-gate runs the same steps without the gate.
foreach(case
    "shards2|--shards 2 --n 1000003 --offset 1"
    "shards3|--shards 3 --n 1000003"
    "shards7|--shards 7 --n 1000003 --offset 3"
    "shards3_no_gate|--shards 3 --n 1000003 --no-gate")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME ${target}_gpu_${name} COMMAND sh ${WB_TESTS}/gpu.sh ${bin} ${args})
  set_tests_properties(${target}_gpu_${name} PROPERTIES LABELS "gpu;quick" SKIP_RETURN_CODE 77
                       RESOURCE_LOCK gpu TIMEOUT 600)
endforeach()
