# Chapter 20's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake, which gives it the GPU cases of every chapter and its lines of
# tests/extra_cases.txt).

# --emulate needs no GPU (host, in CI): each operator's algebra on 4096 triples of its input, and
# both reductions' orders replayed on the CPU, against what the page says of each. At the default
# N, at an odd N with an unaligned input and a block of 96 (a head before the first 16-byte
# boundary, a tail, partial runs), and with blocks of 1024 over 2^20 + 1 elements.
set(wb_emulate_ok "^emulate: every operator's algebra and both orders are as the page says$")
add_test(NAME ${target}_emulate COMMAND sh ${WB_TESTS}/expect.sh 0 "${wb_emulate_ok}" ${bin} --emulate)
add_test(NAME ${target}_emulate_odd
         COMMAND sh ${WB_TESTS}/expect.sh 0 "${wb_emulate_ok}" ${bin} --emulate --n 100003 --offset 1 --block 96)
add_test(NAME ${target}_emulate_block1024
         COMMAND sh ${WB_TESTS}/expect.sh 0 "${wb_emulate_ok}" ${bin} --emulate --n 1048577 --offset 3 --block 1024)
# The checks can fail: on the controls they must find what the monoids do not have. Subtraction is
# not associative, 0 is its identity on the right only, and no order but the left fold's gives the
# left fold; the affine maps do not commute, so chapter 11's order (which permutes them) is wrong
# and the input's order right.
add_test(NAME ${target}_emulate_finds_subtraction_not_associative
         COMMAND sh ${WB_TESTS}/expect.sh 0
                 "^subtract_int32: associative no, identity on the right only, commutative no; chapter 11's order gives the left fold: no; the input's order: no "
                 ${bin} --emulate)
add_test(NAME ${target}_emulate_finds_maps_not_commutative
         COMMAND sh ${WB_TESTS}/expect.sh 0
                 "^affine: associative yes, identity on both sides, commutative no; chapter 11's order gives the left fold: no; the input's order: yes "
                 ${bin} --emulate)
set_tests_properties(${target}_emulate ${target}_emulate_odd ${target}_emulate_block1024
                     ${target}_emulate_finds_subtraction_not_associative ${target}_emulate_finds_maps_not_commutative
                     PROPERTIES LABELS host)

# The chapter's own flag: refused values exit 2.
wb_badarg_tests(${target} ${bin}
    "emulate_value@@--emulate=1@@^chapter20: --emulate takes no value$"
    "emulate_small_n@@--emulate --n 100@@^chapter20: --emulate needs --n of at least 4096$")

# The negative controls on the GPU (not part of --variant all): each must exit 1 with a FAIL line
# naming its row. The affine maps through chapter 11's order: every thread mixes maps far apart,
# and the maps do not commute. Subtraction through the input's order: the order is right, but
# the kernel brackets it as a tree, and subtraction is not associative.
set(wb_map "\\(a [0-9]+, b [0-9]+\\)")
add_test(NAME ${target}_not_commutative_control
         COMMAND sh ${WB_TESTS}/expect.sh 1 "^FAIL reduce_best_affine \\(first run\\): got ${wb_map}, want ${wb_map}$"
                 sh ${WB_TESTS}/gpu.sh ${bin} --n 1000003 --offset 1 --variant not_commutative)
add_test(NAME ${target}_not_associative_control
         COMMAND sh ${WB_TESTS}/expect.sh 1 "^FAIL reduce_in_order_subtract_int32 \\(first run\\): got -?[0-9]+, want -?[0-9]+$"
                 sh ${WB_TESTS}/gpu.sh ${bin} --n 1000003 --offset 1 --variant not_associative)
set_tests_properties(${target}_not_commutative_control ${target}_not_associative_control PROPERTIES
                     LABELS "gpu;quick" SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected"
                     RESOURCE_LOCK gpu TIMEOUT 600)

# The wide look-back with every path taken (chapter 20 built with -DWB_STRESS=ON) is the test
# stress_lookback_chapter20, beside chapters 17's and 21's in tests/project_tests.cmake.
