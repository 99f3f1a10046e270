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
    "variant_unknown@@--variant nope@@(--variant 'nope' is not known|unknown argument '--variant')"
    "info_extra@@--info extra@@unknown argument 'extra'"
    "list_variants_value@@--list-variants=x@@--list-variants takes no value")
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

# GPU runs. Every GPU test holds the lock "gpu", so that ctest -j runs host tests beside them but
# never two GPU tests at once. Label "quick": the few cases `make test` runs (tiny, odd and
# unaligned); label "full": the rest, which `make test-full` adds (every odd size, the default N,
# the chapter's own cases from tests/extra_cases.txt). A case named big_* (past 2^31 or 2^32
# elements) is also labelled "big" and runs alone.
set(gpu_cases
    "quick|n1|--n 1"
    "quick|odd_offset1|--n 1000003 --offset 1"
    "quick|offset3|--n 3333 --offset 3"
    "full|n31|--n 31"
    "full|n1000|--n 1000"
    "full|n_pow2_plus1|--n 1048577"
    "full|offset2|--n 65539 --offset 2"
    "full|default_n|--offset 0"
    "full|big_n_over_2e31|--n 2147483659 --offset 1")
file(STRINGS ${WB_TESTS}/extra_cases.txt extra REGEX "^${id} ")
foreach(line IN LISTS extra)
  string(REGEX REPLACE "^${id} +([^ ]+) +(.*)$" "full|\\1|\\2" entry "${line}")
  list(APPEND gpu_cases "${entry}")
endforeach()
foreach(case IN LISTS gpu_cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 tier)
  list(GET parts 1 name)
  list(GET parts 2 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME ${target}_gpu_${name} COMMAND sh ${WB_TESTS}/gpu.sh ${bin} ${args})
  if(name MATCHES "^big_")
    set_tests_properties(${target}_gpu_${name} PROPERTIES LABELS "gpu;${tier};big" SKIP_RETURN_CODE 77
                         RESOURCE_LOCK gpu RUN_SERIAL TRUE TIMEOUT 1800)
  else()
    set_tests_properties(${target}_gpu_${name} PROPERTIES LABELS "gpu;${tier}" SKIP_RETURN_CODE 77
                         RESOURCE_LOCK gpu TIMEOUT 600)
  endif()
endforeach()
