# Chapter 25's own tests (included by CMakeLists.txt with ${target} and ${bin} set, after
# tests/chapter_tests.cmake).

# --input and --values, the flags of the chapter's harness: refused values exit 2 with a message.
wb_badarg_tests(${target} ${bin}
    "input_unknown@@--input zipf@@^chapter25: --input 'zipf' is not allowed: give uniform, equal, few, sorted, reversed or low_entropy$"
    "input_missing@@--input@@^chapter25: --input needs a value$"
    "values_value@@--values=1@@^chapter25: --values takes no value"
    "values_past_2e32@@--values --n 4294967297@@^chapter25: --values numbers the keys with 32-bit values: give --n up to 2\\^32$")
# Their negative control: what the flags take is not refused (the run gets past the parser and,
# without a GPU, exits 77; the pattern of a refusal is not found, so expect.sh fails).
add_test(NAME ${target}_badarg_values_control COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES=
         sh ${WB_TESTS}/expect.sh 2 "is not allowed|numbers the keys" ${bin} --values --n 4294967296 --input=low_entropy)
set_tests_properties(${target}_badarg_values_control PROPERTIES LABELS host WILL_FAIL TRUE)

# Every input, keys and pairs, every variant, at an odd N off 16-byte alignment (GPU); uniform
# keys and pairs, and equal keys (every pass skipped), in `make test`.
foreach(input uniform equal few sorted reversed low_entropy)
  foreach(what keys pairs)
    if(what STREQUAL "pairs")
      set(wb_flag "--values")
    else()
      set(wb_flag "")
    endif()
    if(input STREQUAL "uniform" OR (input STREQUAL "equal" AND what STREQUAL "keys"))
      set(wb_tier quick)
    else()
      set(wb_tier full)
    endif()
    wb_gpu_cases(${target} ${bin} "${wb_tier}|${what}_${input}|--variant all --input ${input} --n 1000003 --offset 1 ${wb_flag}")
  endforeach()
endforeach()
