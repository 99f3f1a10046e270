# wb_gpu_cases(TARGET BIN CASE...): GPU runs of one program through tests/gpu.sh, each a test
# TARGET_gpu_NAME. A CASE reads "TIER|NAME|ARGS": TIER is quick (`make test`) or full (`make
# test-full`); a NAME that starts with big_ (past 2^31 or 2^32 elements) is also labelled big and
# runs alone. Every case holds the lock "gpu", so that ctest -j never runs two GPU tests at once.
# Used by tests/chapter_tests.cmake for every chapter's cases, and by a chapter's own tests.
function(wb_gpu_cases target bin)
  foreach(case IN LISTS ARGN)
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
endfunction()
