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
# 10 chunks of 32 bits (320 bits). A description written by hand (such as "bins=9") fails here
# once it no longer says what the kernel does.
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

# IEEE's special values (--input subnormal, special and negzero; wb::FloatMode), on the GPU
# through gpu.sh: every variant, a first run, one warm-up and two timed runs, the second and the
# fourth with element 0 negated (FloatBench), each run checked. The exact sum must have
# ExactSum's bits, the reproducible and pairwise sums their order's bits as the CPU computes
# them; every other row must lie within its order's bound or, with an infinity or NaN in the
# input, be what IEEE's additions give in any order (NaN for a NaN or both infinities, else the
# infinity; the compensated sum NaN), and so must each sampled prefix of the scans. A row that
# breaks this prints a FAIL line and the run exits 1.
set(wb_special_cases
    # Subnormals, +0 and -0 among normal values of the lowest binades: every sum finite. The
    # float atomics flush subnormals (float_atomic's bound allows for it).
    "quick|subnormal|--input subnormal --n 1000003 --offset 2"
    # Spread 0: every normal value in [2^-126, 2^-125), so that the subnormals move the last bits.
    "full|subnormal_spread0|--input subnormal --spread 0 --n 65539 --offset 1 --block 96"
    # All of them: +inf at element 0 (-inf on the odd runs), -inf at 4096, a NaN at 65536. Every
    # sum is NaN; the scans' prefixes are +inf (-inf), then NaN (-inf), then NaN.
    "quick|special|--input special --n 1000003 --offset 1"
    # The flags' reset between launches: element 0 is the only infinity, so the runs give +inf,
    # -inf, +inf, -inf. Flags left by one launch would make the next one NaN, and the exact row
    # print (mutation ch19-flags-never-reset): FAIL float_exact: 3 of 4 runs outside their bound
    # or bits; the first, run 1 (in[0] negated): got nan (0x7fc00000), but ...: -inf
    "quick|special_one_infinity|--input special --n 4096 --offset 3"
    # Both infinities on the even runs (NaN), two -inf on the odd ones (-inf): a +inf flag left by
    # run 0 would make run 1 NaN.
    "full|special_two_infinities|--input special --n 65536"
    # Every element -0.0: the exact sum is -0.0 on the even runs and +0.0 on the odd ones (element 0
    # negated is +0.0). A kSumNotMinusZero left by run 1 would make run 2 +0.0, and the exact row
    # print: FAIL float_exact: 1 of 4 runs outside their bound or bits; the first, run 2: got
    # 0x00000000, its order computed on the CPU gives 0x80000000
    "quick|negzero|--input negzero --n 1000003 --offset 1")
wb_gpu_cases(${target} ${bin} ${wb_special_cases})
# -0.0 itself, which the checks above take from ExactSum: the exact row's first run on -0.0s
# must give 0x80000000 (its bits= in the row's config). A rounding that makes every exact zero
# +0.0 prints bits=0x00000000 here (and mutation ch19-minus-zero-rounds-plus shows the run
# failing).
add_test(NAME ${target}_gpu_negzero_exact_bits
         COMMAND sh ${WB_TESTS}/expect.sh 0 "^19,float_exact,1000003,.* bits=0x80000000 "
                 sh ${WB_TESTS}/gpu.sh ${bin} --variant exact --input negzero --n 1000003 --csv)
set_tests_properties(${target}_gpu_negzero_exact_bits PROPERTIES LABELS "gpu;quick" RESOURCE_LOCK gpu TIMEOUT 600
                     SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected")

# The same inputs on the CPU (host): --emulate's checks of the exact variant's integers against
# ExactSum and of the emulated scan against the exact prefixes (IEEE's answer where a prefix
# holds an infinity or NaN); its first line gives the sums (the committed bits of the finite
# ones are in the fixture above).
add_test(NAME ${target}_emulate_special COMMAND sh ${WB_TESTS}/expect.sh 0 " exact=0x7fc00000 "
         ${bin} --emulate --input special --n 70000)
add_test(NAME ${target}_emulate_special_one_infinity COMMAND sh ${WB_TESTS}/expect.sh 0
         " reproducible=0x7f800000 pairwise=0x7f800000 exact=0x7f800000 " ${bin} --emulate --input special --n 4096)
set_tests_properties(${target}_emulate_special ${target}_emulate_special_one_infinity PROPERTIES LABELS host)

# The input flags: refused values exit 2 with wb::parse_float_input's message.
wb_badarg_tests(${target} ${bin}
    "input_unknown@@--input bogus@@^chapter19: mode 'bogus' is not known: give positive, mixed, cancel, subnormal, special or negzero$"
    "spread_too_big@@--spread 161@@^chapter19: spread '161' is not allowed: give a whole number from 0 to 160$"
    "spread_sign@@--spread +8@@^chapter19: spread '\\+8' is not allowed: give a whole number from 0 to 160$"
    "runs_zero@@--runs 0@@^chapter19: --runs '0' is not allowed: give a whole number from 1 to 100000$"
    "study_and_emulate@@--study --emulate@@cannot be given together")
