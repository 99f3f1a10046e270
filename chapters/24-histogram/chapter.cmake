# Chapter 24's own tests, beside the ones every chapter gets (tests/chapter_tests.cmake): --bins
# and --input refused with exit 2, every input on every variant, the racecheck exercise's negative
# control.
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
