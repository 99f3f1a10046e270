# Negative controls: tests/negative_controls.cu runs kernels that are wrong on purpose through
# the harness, exactly as a chapter does. Each wrong variant must exit 1 with a line naming its
# failure; the correct ones must exit 0. They run through gpu.sh (few repetitions, REQUIRE_GPU)
# and expect.sh (the exit code and the message). Without a GPU gpu.sh exits 77, which expect.sh
# reports as "exited 77, expected ..."; SKIP_REGULAR_EXPRESSION turns that into a skip.
add_executable(negative_controls ${WB_TESTS}/negative_controls.cu)
target_include_directories(negative_controls PRIVATE common)
target_compile_options(negative_controls PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${WB_CUDA_OPTIONS}>)
target_link_libraries(negative_controls PRIVATE Threads::Threads)

# variant@@expected exit@@pattern (an extended regular expression; "." stands for ( ) + ^).
set(wb_negative_cases
    "reduce_correct@@0@@all results verified against the CPU reference"
    "reduce_no_launch@@1@@FAIL reduce_no_launch .first run.: got -1515870811, want"
    "reduce_skip_first@@1@@FAIL reduce_skip_first .first run.: got -?[0-9]+, want"
    "reduce_skip_last@@1@@FAIL reduce_skip_last .first run.: got -?[0-9]+, want"
    "reduce_write_past_end@@1@@FAIL reduce_write_past_end wrote past the end of the sum: index n.0 .n = 1."
    "reduce_write_before_start@@1@@FAIL reduce_write_before_start wrote before the start of the sum: index -1$"
    "reduce_read_past_end@@1@@FAIL reduce_read_past_end .first run.: got -?[0-9]+, want -?[0-9]+ .off by 2.24"
    "reduce_read_before_start@@1@@FAIL reduce_read_before_start .first run.: got -?[0-9]+, want -?[0-9]+ .off by 2.24"
    "scan_correct@@0@@all results verified against the CPU reference"
    "scan_no_launch@@1@@FAIL scan_no_launch .first run.: 5003 of 5003 elements wrong, the first at index 0: got -1515870811"
    "scan_skip_first@@1@@FAIL scan_skip_first .first run.: 1 of 5003 elements wrong, the first at index 0: got -1515870811"
    "scan_skip_last@@1@@FAIL scan_skip_last .first run.: 1 of 5003 elements wrong, the first at index 5002: got -1515870811"
    "scan_write_past_end@@1@@FAIL scan_write_past_end wrote past the end of the output: index n.0 .n = 5003."
    "scan_write_before_start@@1@@FAIL scan_write_before_start wrote before the start of the output: index -1$"
    "scan_read_past_end@@1@@FAIL scan_read_past_end .first run.: 1 of 5003 elements wrong, the first at index 5002: .*off by 2.24"
    "scan_read_before_start@@1@@FAIL scan_read_before_start .first run.: 5003 of 5003 elements wrong, the first at index 0: .*off by 2.24"
    "reduce_modifies_input@@1@@FAIL reduce_modifies_input modified its input: index 5002 is 12345, was -?[0-9]$"
    "scan_modifies_input@@1@@FAIL scan_modifies_input modified its input: index 5002 is 12345, was -?[0-9]$"
    "reduce_wrong_later@@1@@FAIL reduce_wrong_later .warm-up run 1, in.0. . 1000.: got -?[0-9]+, want -?[0-9]+$"
    "scan_wrong_later@@1@@FAIL scan_wrong_later .warm-up run 1, in.0. . 1000.: 5003 of 5003 elements wrong, the first at index 0: got -?[0-9]+, want -?[0-9]+$"
    "reduce_stale_result@@1@@FAIL reduce_stale_result .warm-up run 1, in.0. . 1000.: got -?[0-9]+, want -?[0-9]+ .off by -1000, the change to input element 0 between consecutive runs: state left by the previous run..$"
    "scan_stale_result@@1@@FAIL scan_stale_result .warm-up run 1, in.0. . 1000.: 5003 of 5003 elements wrong, the first at index 0: got -?[0-9]+, want -?[0-9]+ .off by -1000, the change to input element 0 between consecutive runs: state left by the previous run..$"
    "no_rows@@1@@FAILED: no kernel ran")
foreach(entry IN LISTS wb_negative_cases)
  string(REPLACE "@@" ";" parts "${entry}")
  list(GET parts 0 variant)
  list(GET parts 1 code)
  list(GET parts 2 pattern)
  # Twice: at offset 0 the stray accesses land in the 64-int guards, at offset 1 those before
  # the start land in the --offset element.
  foreach(offset 0 1)
    set(name negative_${variant}_offset${offset})
    add_test(NAME ${name}
             COMMAND sh ${WB_TESTS}/expect.sh ${code} "${pattern}"
                     sh ${WB_TESTS}/gpu.sh $<TARGET_FILE:negative_controls> --n 5003 --offset ${offset} --variant ${variant})
    set_tests_properties(${name} PROPERTIES LABELS "gpu;negative" SKIP_RETURN_CODE 77
                         SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected" RESOURCE_LOCK gpu TIMEOUT 300)
  endforeach()
endforeach()

# Mutations: each tests/mutations/NAME.patch is a small change to one chapter that makes a
# kernel go wrong in a way only some runs show (typically: it uses state left by the previous
# launch). The patch is applied by tests/apply_patch.py to a copy of the chapter in the build
# tree (the chapter itself is never touched), built as mutant_NAME (not part of `all`: the test
# mutants_build builds every mutant first), and run through gpu.sh with the arguments of the
# patch's "run:" line; it passes when the program exits 1 with a line matching the patch's
# "expect:" pattern; an optional "define:" line names a compile definition for the mutant (the
# stress build, WB_STRESS). A patch of a header (chapter 17's single_pass.cuh, which chapter 18
# includes too) names on a "program:" line the chapter program built with it; the patched file and
# that program are copied side by side into build/mutations/NAME/, where the program's quoted
# #include finds the patched header first, and the mutant is compiled and linked as that chapter
# is (its include directories, libraries and definitions: chapter 18's NCCL). Its description
# says which run catches the mutation and why. Labels
# gpu;full;mutation: `make test-full` runs them, `ctest -L mutation` runs them alone.
# host_mutation_<name>_applies checks, without a GPU, that each patch still applies to its
# chapter as it is now: a chapter edited under a mutation needs the mutation brought up to date.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(wb_mutation_python python3)
if(Python3_Interpreter_FOUND)
  set(wb_mutation_python ${Python3_EXECUTABLE})
endif()
file(GLOB wb_mutations CONFIGURE_DEPENDS ${WB_TESTS}/mutations/*.patch)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/mutations)
set(wb_mutants "")
foreach(patch IN LISTS wb_mutations)
  get_filename_component(name ${patch} NAME_WE)
  file(STRINGS ${patch} wb_line REGEX "^\\+\\+\\+ b/(chapters|common)/" LIMIT_COUNT 1)
  string(REGEX REPLACE "^\\+\\+\\+ b/" "" wb_source "${wb_line}")
  file(STRINGS ${patch} wb_run REGEX "^run: " LIMIT_COUNT 1)
  file(STRINGS ${patch} wb_expect REGEX "^expect: " LIMIT_COUNT 1)
  file(STRINGS ${patch} wb_define REGEX "^define: " LIMIT_COUNT 1)
  file(STRINGS ${patch} wb_program REGEX "^program: " LIMIT_COUNT 1)
  file(STRINGS ${patch} wb_env REGEX "^env: " LIMIT_COUNT 1)
  file(STRINGS ${patch} wb_timeout REGEX "^timeout: " LIMIT_COUNT 1)
  if(wb_source STREQUAL "" OR wb_run STREQUAL "" OR wb_expect STREQUAL "")
    message(FATAL_ERROR "${patch} needs a '+++ b/chapters/...' (or b/common/ with a 'program: ') line, a 'run: ' line "
                        "and an 'expect: ' line")
  endif()
  string(REGEX REPLACE "^run: " "" wb_run "${wb_run}")
  string(REGEX REPLACE "^expect: " "" wb_expect "${wb_expect}")
  string(REGEX REPLACE "^program: " "" wb_program "${wb_program}")
  if(wb_program STREQUAL "")
    set(wb_program ${wb_source})
  endif()
  # The chapter whose program the mutant is: it is built as that chapter is, or not at all.
  string(REGEX REPLACE "^chapters/([0-9][0-9])-.*" "\\1" wb_chapter_id "${wb_program}")
  set(wb_chapter chapter${wb_chapter_id})
  if(NOT TARGET ${wb_chapter})
    message(FATAL_ERROR "${patch}: its program ${wb_program} is no chapter's")
  endif()
  get_target_property(wb_chapter_type ${wb_chapter} TYPE)
  if(NOT wb_chapter_type STREQUAL "EXECUTABLE")
    message(STATUS "mutation ${name} left out: ${wb_chapter} is not built here")
    continue()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/mutations/${name})
  file(MAKE_DIRECTORY ${dir})
  get_filename_component(wb_source_name ${wb_source} NAME)
  get_filename_component(wb_program_name ${wb_program} NAME)
  get_filename_component(wb_program_dir ${CMAKE_SOURCE_DIR}/${wb_program} DIRECTORY)
  set(copies ${dir}/${wb_source_name})
  add_custom_command(OUTPUT ${dir}/${wb_source_name}
    COMMAND ${wb_mutation_python} ${WB_TESTS}/apply_patch.py ${patch} ${CMAKE_SOURCE_DIR}/${wb_source} ${dir}/${wb_source_name}
    DEPENDS ${patch} ${CMAKE_SOURCE_DIR}/${wb_source} ${WB_TESTS}/apply_patch.py
    COMMENT "Mutation ${name}: ${wb_source} with ${patch} applied"
    VERBATIM)
  if(NOT wb_program STREQUAL wb_source)
    add_custom_command(OUTPUT ${dir}/${wb_program_name}
      COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/${wb_program} ${dir}/${wb_program_name}
      DEPENDS ${CMAKE_SOURCE_DIR}/${wb_program}
      VERBATIM)
    list(APPEND copies ${dir}/${wb_program_name})
  endif()
  add_executable(mutant_${name} EXCLUDE_FROM_ALL ${copies})
  # The chapter's own directory after the copies' (its headers that the patch leaves alone).
  target_include_directories(mutant_${name} PRIVATE common ${wb_program_dir}
                             $<TARGET_PROPERTY:${wb_chapter},INCLUDE_DIRECTORIES>)
  target_compile_options(mutant_${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${WB_CUDA_OPTIONS}>)
  target_compile_definitions(mutant_${name} PRIVATE $<TARGET_PROPERTY:${wb_chapter},COMPILE_DEFINITIONS>)
  target_link_libraries(mutant_${name} PRIVATE $<TARGET_PROPERTY:${wb_chapter},LINK_LIBRARIES>)
  if(wb_define)
    string(REGEX REPLACE "^define: " "" wb_define "${wb_define}")
    target_compile_definitions(mutant_${name} PRIVATE ${wb_define})
  endif()
  list(APPEND wb_mutants mutant_${name})
  separate_arguments(args UNIX_COMMAND "${wb_run}")
  # "env: VAR=VALUE ...": the run's environment (a test hook such as WB_CROWD_FREE_SMS);
  # "timeout: S": a mutant that hangs is stopped after S seconds (tests/hang.sh), which the
  # "expect: " line then names, so that a hang is caught without a trap build.
  set(wb_prefix "")
  if(wb_env)
    string(REGEX REPLACE "^env: " "" wb_env "${wb_env}")
    separate_arguments(wb_env UNIX_COMMAND "${wb_env}")
    set(wb_prefix ${CMAKE_COMMAND} -E env ${wb_env})
  endif()
  if(wb_timeout)
    string(REGEX REPLACE "^timeout: " "" wb_timeout "${wb_timeout}")
    list(APPEND wb_prefix sh ${WB_TESTS}/hang.sh ${wb_timeout})
  endif()
  add_test(NAME mutation_${name}
           COMMAND sh ${WB_TESTS}/expect.sh 1 "${wb_expect}" ${wb_prefix} sh ${WB_TESTS}/gpu.sh $<TARGET_FILE:mutant_${name}> ${args})
  set_tests_properties(mutation_${name} PROPERTIES LABELS "gpu;full;mutation" SKIP_RETURN_CODE 77
                       SKIP_REGULAR_EXPRESSION "expect.sh: .* exited 77, expected" RESOURCE_LOCK gpu TIMEOUT 300
                       FIXTURES_REQUIRED wb_mutants_built)
  add_test(NAME host_mutation_${name}_applies
           COMMAND ${wb_mutation_python} ${WB_TESTS}/apply_patch.py --check ${patch} ${CMAKE_SOURCE_DIR}/${wb_source})
  set_tests_properties(host_mutation_${name}_applies PROPERTIES LABELS host)
endforeach()
if(wb_mutants)
  add_test(NAME mutants_build COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${wb_mutants})
  # A build step: no GPU, so no gpu label and no lock (ctest -L gpu still runs it first, as the
  # mutation tests' fixture).
  set_tests_properties(mutants_build PROPERTIES LABELS "full;mutation;build" FIXTURES_SETUP wb_mutants_built TIMEOUT 1800)
  # Negative control of the applies checks: a patch refuses a file whose lines it does not find.
  list(GET wb_mutations 0 wb_first_mutation)
  add_test(NAME host_mutation_refuses_other_file
           COMMAND sh ${WB_TESTS}/expect.sh 1 "apply_patch: .* does not apply: its lines are not in the source"
                   ${wb_mutation_python} ${WB_TESTS}/apply_patch.py --check ${wb_first_mutation} ${WB_TESTS}/apply_patch.py)
  set_tests_properties(host_mutation_refuses_other_file PROPERTIES LABELS host)
endif()
