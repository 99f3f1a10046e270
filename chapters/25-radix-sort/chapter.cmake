# Chapter 25's own tests, beside the ones every chapter gets (tests/chapter_tests.cmake): --input
# and --values refused with exit 2, every input as keys and as pairs on every variant. Its digit
# histograms are chapter 24's kernels (histogram.cuh, included from chapter 24's directory).
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../24-histogram)
