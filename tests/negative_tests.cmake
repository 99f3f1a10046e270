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
