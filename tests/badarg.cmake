# wb_badarg_tests(TARGET BIN CASE...): the refused command lines of one program, each a host test
# TARGET_badarg_NAME. A CASE reads "NAME@@ARGS@@PATTERN": BIN run with ARGS must exit 2 with a
# line matching PATTERN (tests/expect.sh). Used by tests/chapter_tests.cmake for every chapter's
# shared flags, and by a chapter's own tests for its flags.
function(wb_badarg_tests target bin)
  foreach(bad IN LISTS ARGN)
    string(REPLACE "@@" ";" parts "${bad}")
    list(GET parts 0 name)
    list(GET parts 1 args)
    list(GET parts 2 pattern)
    separate_arguments(args UNIX_COMMAND "${args}")
    add_test(NAME ${target}_badarg_${name} COMMAND sh ${WB_TESTS}/expect.sh 2 "${pattern}" ${bin} ${args})
    set_tests_properties(${target}_badarg_${name} PROPERTIES LABELS host)
  endforeach()
endfunction()
