# The tests every chapter gets; included by CMakeLists.txt once per chapter with
# ${target} (chapterNN) and ${id} (NN) set. Extra cases for one chapter live in
# tests/extra_cases.txt.
set(bin $<TARGET_FILE:${target}>)

add_test(NAME ${target}_help COMMAND sh ${WB_TESTS}/expect.sh 0 "usage: \\./${target}" ${bin} --help)
set_tests_properties(${target}_help PROPERTIES LABELS host)

# Refused command lines exit 2 with a message naming the problem, with or without a GPU.
foreach(bad
    "n_negative@@--n -5@@--n '-5' is not allowed"
    "n_text@@--n abc@@--n 'abc' is not allowed"
    "n_zero@@--n 0@@--n '0' is not allowed"
    "n_overflow@@--n 2^99@@is not allowed"
    "n_missing@@--n@@--n needs a value"
    "n_empty@@--n=@@--n '' is not allowed"
    "unknown_flag@@--bogus@@unknown argument '--bogus'"
    "reps_zero@@--reps 0@@--reps '0' is not allowed"
    "offset_text@@--offset x@@--offset 'x' is not allowed"
    "block_too_big@@--block 2000@@(--block '2000' is not allowed|unknown argument '--block')"
    "batch_zero@@--batch 0@@(--batch '0' is not allowed|unknown argument '--batch')"
    "variant_unknown@@--variant nope@@(--variant 'nope' is not known|unknown argument '--variant')")
  string(REPLACE "@@" ";" parts "${bad}")
  list(GET parts 0 name)
  list(GET parts 1 args)
  list(GET parts 2 pattern)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME ${target}_badarg_${name} COMMAND sh ${WB_TESTS}/expect.sh 2 "${pattern}" ${bin} ${args})
  set_tests_properties(${target}_badarg_${name} PROPERTIES LABELS host)
endforeach()

# With no usable device the chapter says so and exits 77 (hidden with CUDA_VISIBLE_DEVICES).
add_test(NAME ${target}_nogpu COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 77 "no usable CUDA device" ${bin} --n 1000)
set_tests_properties(${target}_nogpu PROPERTIES LABELS host)

# GPU runs: tiny, odd, just past a power of two, unaligned, the default N, and past 2^31.
set(gpu_cases
    "n1|--n 1"
    "n31|--n 31"
    "n1000|--n 1000"
    "n_pow2_plus1|--n 1048577"
    "odd_offset1|--n 1000003 --offset 1"
    "offset2|--n 65539 --offset 2"
    "offset3|--n 3333 --offset 3"
    "default_n|--offset 0")
file(STRINGS ${WB_TESTS}/extra_cases.txt extra REGEX "^${id} ")
foreach(line IN LISTS extra)
  string(REGEX REPLACE "^${id} +([^ ]+) +(.*)$" "\\1|\\2" entry "${line}")
  list(APPEND gpu_cases "${entry}")
endforeach()
foreach(case IN LISTS gpu_cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 name)
  list(GET parts 1 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME ${target}_gpu_${name} COMMAND sh ${WB_TESTS}/gpu.sh ${bin} ${args})
  set_tests_properties(${target}_gpu_${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()

add_test(NAME ${target}_gpu_n_over_2e31 COMMAND sh ${WB_TESTS}/gpu.sh ${bin} --n 2147483659 --offset 1)
set_tests_properties(${target}_gpu_n_over_2e31 PROPERTIES LABELS "gpu;big" SKIP_RETURN_CODE 77
                     RUN_SERIAL TRUE TIMEOUT 900)
