# Chapter 21's own tests, beside the ones every chapter gets (tests/chapter_tests.cmake); its one
# pass and the scan of its three kernels are chapter 17's (single_pass.cuh, included from chapter
# 17's directory).
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide)
