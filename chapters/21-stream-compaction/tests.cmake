# Chapter 21's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake).

# --keep, the flag of the chapter's harness: refused values exit 2 with the parser's message.
wb_badarg_tests(${target} ${bin}
    "keep_too_big@@--keep 101@@^chapter21: --keep '101' is not allowed: give a whole number from 0 to 100$"
    "keep_negative@@--keep -1@@^chapter21: --keep '-1' is not allowed: give a whole number from 0 to 100$"
    "keep_fraction@@--keep 2.5@@^chapter21: --keep '2.5' is not allowed: give a whole number from 0 to 100$"
    "keep_missing@@--keep@@^chapter21: --keep needs a value$")
# Its negative control: a value the flag takes is not refused (the run gets past the parser and,
# without a GPU, exits 77; the pattern of a refusal is not found, so expect.sh fails).
add_test(NAME ${target}_badarg_keep_control COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 2 "is not allowed" ${bin} --keep 100 --n 1000)
set_tests_properties(${target}_badarg_keep_control PROPERTIES LABELS host WILL_FAIL TRUE)

# Every selectivity of the page, on every variant, at an odd N off 16-byte alignment (GPU).
foreach(keep 0 1 10 50 90 100)
  add_test(NAME ${target}_gpu_keep${keep} COMMAND sh ${WB_TESTS}/gpu.sh ${bin} --variant all --keep ${keep}
           --n 1000003 --offset 1)
  if(keep EQUAL 1 OR keep EQUAL 50)
    set(wb_tier quick)
  else()
    set(wb_tier full)
  endif()
  set_tests_properties(${target}_gpu_keep${keep} PROPERTIES LABELS "gpu;${wb_tier}" SKIP_RETURN_CODE 77
                       RESOURCE_LOCK gpu TIMEOUT 600)
endforeach()
