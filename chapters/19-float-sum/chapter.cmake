# Chapter 19's own tests, beside the ones every chapter gets (tests/chapter_tests.cmake).
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
