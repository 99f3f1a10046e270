# Chapter 20's own tests, beside the ones every chapter gets (tests/chapter_tests.cmake); its scan
# reuses chapter 17's single pass (single_pass.cuh, included from chapter 17's directory).
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide)
