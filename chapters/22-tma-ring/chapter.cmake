# Chapter 22's build switches and its own tests (included by CMakeLists.txt before the program is
# made).
include(${CMAKE_CURRENT_LIST_DIR}/ring_builds.cmake)
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
