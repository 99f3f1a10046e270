# Chapter 23 builds on chapter 17's single pass (single_pass.cuh: the row beside this chapter's
# scan, and the tile counter, statuses and stress hooks the look-ahead takes) and on chapter 22's
# ring (tma_ring.cuh), both included from their chapters' directories; chapter 22's build
# switches (WB_RING_TRAP, WB_RING_CLOCKS) apply here too.
option(WB_RING_TRAP "chapters 22 and 23: trap on a barrier wait longer than a second instead of hanging" OFF)
if(WB_RING_TRAP)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_TRAP)
endif()
option(WB_RING_CLOCKS "chapters 22 and 23: count the cycles each role spends waiting on each barrier" OFF)
if(WB_RING_CLOCKS)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_CLOCKS)
endif()
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide ${CMAKE_CURRENT_LIST_DIR}/../22-tma-ring)
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
