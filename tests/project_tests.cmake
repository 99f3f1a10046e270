# Tests of the whole workbook rather than one chapter.

# The Doxygen site builds with zero warnings (skipped, exit 77, where doxygen is missing).
add_test(NAME docs_zero_warnings
         COMMAND ${CMAKE_COMMAND} -E env WB_DOCS_OUT=${CMAKE_BINARY_DIR}/docs-test sh ${CMAKE_SOURCE_DIR}/docs/build.sh)
set_tests_properties(docs_zero_warnings PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 600)
