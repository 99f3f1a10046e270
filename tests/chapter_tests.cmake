# The tests every chapter gets; included by CMakeLists.txt once per chapter with
# ${target} (chapterNN) and ${id} (NN) set. Extra cases for one chapter live in
# tests/extra_cases.txt.
set(bin $<TARGET_FILE:${target}>)

add_test(NAME ${target}_help COMMAND sh ${WB_TESTS}/expect.sh 0 "usage: \\./${target}" ${bin} --help)
set_tests_properties(${target}_help PROPERTIES LABELS host)

# Refused command lines exit 2 with a message naming the problem, with or without a GPU.
wb_badarg_tests(${target} ${bin}
    "n_negative@@--n -5@@--n '-5' is not allowed"
    "n_text@@--n abc@@--n 'abc' is not allowed"
    "n_zero@@--n 0@@--n '0' is not allowed"
    "n_overflow@@--n 2^99@@is not allowed"
    "n_missing@@--n@@--n needs a value"
    "n_empty@@--n=@@--n '' is not allowed"
    "unknown_flag@@--bogus@@unknown argument '--bogus'"
    "reps_zero@@--reps 0@@--reps '0' is not allowed"
    "offset_text@@--offset x@@--offset 'x' is not allowed"
    "info_extra@@--info extra@@unknown argument 'extra'"
    "list_variants_value@@--list-variants=x@@--list-variants takes no value")

# --block 2000, --batch 0 and --variant nope are refused with the exact line the parser gives
# for this chapter's flag (wb::parse_args): the rule, range or list of values of a chapter that
# has the flag, "unknown argument" for one that has not. Which flags a chapter has, and their
# rules, come from docs/results/chapters.json, which the test chapters_info_up_to_date keeps
# equal to what the programs say (--info); so a chapter that loses one of these flags, or
# changes its rule, fails here until that file is regenerated too.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/results/chapters.json)
file(READ ${CMAKE_SOURCE_DIR}/docs/results/chapters.json wb_chapters_json)
string(JSON wb_chapter_count LENGTH "${wb_chapters_json}")
math(EXPR wb_chapter_last "${wb_chapter_count} - 1")
set(wb_info "")
foreach(i RANGE ${wb_chapter_last})
  string(JSON wb_number GET "${wb_chapters_json}" ${i} chapter)
  if(wb_number STREQUAL id)
    string(JSON wb_info GET "${wb_chapters_json}" ${i})
    break()
  endif()
endforeach()
set(wb_unknown "^${target}: unknown argument '--@FLAG@' \\(see --help\\)$")
if(wb_info STREQUAL "")
  # A chapter the file does not know yet: every case below fails, saying why.
  set(wb_block_line "chapter ${id} is missing from docs/results/chapters.json")
  set(wb_batch_line "${wb_block_line}")
  set(wb_variant_line "${wb_block_line}")
else()
  string(JSON wb_type TYPE "${wb_info}" block)
  if(wb_type STREQUAL "NULL")
    string(REPLACE "@FLAG@" "block" wb_block_line "${wb_unknown}")
  else()
    string(JSON wb_rule GET "${wb_info}" block rule)
    string(JSON wb_min GET "${wb_info}" block min)
    string(JSON wb_max GET "${wb_info}" block max)
    set(wb_rule_text_any "any size")
    set(wb_rule_text_multiple-of-32 "a multiple of 32")
    set(wb_rule_text_power-of-two "a power of two")
    set(wb_block_line
        "^${target}: --block '2000' is not allowed: this chapter takes ${wb_rule_text_${wb_rule}} from ${wb_min} to ${wb_max}$")
  endif()
  string(JSON wb_type TYPE "${wb_info}" batch)
  if(wb_type STREQUAL "NULL")
    string(REPLACE "@FLAG@" "batch" wb_batch_line "${wb_unknown}")
  else()
    string(JSON wb_max GET "${wb_info}" batch max)
    string(JSON wb_pow2 GET "${wb_info}" batch power_of_two)
    if(wb_pow2)
      set(wb_kind "a power of two")
    else()
      set(wb_kind "a whole number")
    endif()
    set(wb_batch_line "^${target}: --batch '0' is not allowed: this chapter takes ${wb_kind} from 1 to ${wb_max}$")
  endif()
  string(JSON wb_variant_count LENGTH "${wb_info}" variants)
  if(wb_variant_count EQUAL 0)
    string(REPLACE "@FLAG@" "variant" wb_variant_line "${wb_unknown}")
  else()
    set(wb_variant_line "^${target}: --variant 'nope' is not known: this chapter takes")
    math(EXPR wb_variant_last "${wb_variant_count} - 1")
    foreach(i RANGE ${wb_variant_last})
      string(JSON wb_name GET "${wb_info}" variants ${i} name)
      string(APPEND wb_variant_line " ${wb_name}")
    endforeach()
    string(APPEND wb_variant_line "$")
  endif()
endif()
add_test(NAME ${target}_badarg_block_too_big COMMAND sh ${WB_TESTS}/expect.sh 2 "${wb_block_line}" ${bin} --block 2000)
add_test(NAME ${target}_badarg_batch_zero COMMAND sh ${WB_TESTS}/expect.sh 2 "${wb_batch_line}" ${bin} --batch 0)
add_test(NAME ${target}_badarg_variant_unknown COMMAND sh ${WB_TESTS}/expect.sh 2 "${wb_variant_line}" ${bin} --variant nope)
set_tests_properties(${target}_badarg_block_too_big ${target}_badarg_batch_zero ${target}_badarg_variant_unknown
                     PROPERTIES LABELS host)
# Their negative controls: the line a chapter would print with the flag's presence reversed
# (the refusal of a value where the chapter has no such flag, "unknown argument" where it has
# one) must not be accepted: each of these fails (WILL_FAIL), as the test above would if the
# chapter lost or gained the flag.
foreach(flag block batch variant)
  if(wb_${flag}_line MATCHES "unknown argument")
    set(wb_opposite "^${target}: --${flag} '[^']*' is not")
  else()
    string(REPLACE "@FLAG@" "${flag}" wb_opposite "${wb_unknown}")
  endif()
  set(wb_value_block 2000)
  set(wb_value_batch 0)
  set(wb_value_variant nope)
  add_test(NAME ${target}_badarg_${flag}_control
           COMMAND sh ${WB_TESTS}/expect.sh 2 "${wb_opposite}" ${bin} --${flag} ${wb_value_${flag}})
  set_tests_properties(${target}_badarg_${flag}_control PROPERTIES LABELS host WILL_FAIL TRUE)
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
wb_gpu_cases(${target} ${bin} ${gpu_cases})
