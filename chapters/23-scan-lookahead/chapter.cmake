# Chapter 23 builds on chapter 17's single pass (single_pass.cuh: the row beside this chapter's
# scan, and the tile counter, statuses and stress hooks the look-ahead takes) and on chapter 22's
# ring (tma_ring.cuh), both included from their chapters' directories, with the ring's test builds.
include(${CMAKE_CURRENT_LIST_DIR}/../22-tma-ring/ring_builds.cmake)
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide ${CMAKE_CURRENT_LIST_DIR}/../22-tma-ring)
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
