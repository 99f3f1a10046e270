# Chapter 22's build switch and its own tests (included by CMakeLists.txt before the program is
# made). -DWB_RING_TRAP=ON bounds every mbarrier wait of the ring: a wait longer than about a
# second prints which role waited for which stage and phase, then traps, so that a broken phase
# count makes a run fail (exit 3) instead of hang. The normal build's waits are unbounded.
option(WB_RING_TRAP "chapter 22: trap on an mbarrier wait longer than a second instead of hanging" OFF)
if(WB_RING_TRAP)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_TRAP)
endif()
# -DWB_RING_CLOCKS=ON counts, with the SM's cycle counter, how long each role of the ring copy
# and of the scan spends in each of its waits, and prints each role's shares as notes
# ("clocks ..."). The normal build reads no clock.
option(WB_RING_CLOCKS "chapter 22: count the cycles each role spends waiting on each barrier" OFF)
if(WB_RING_CLOCKS)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_CLOCKS)
endif()
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/tests.cmake)
# Chapter 17's single pass runs beside the look-ahead scan, which also takes its tile counter,
# statuses and stress hooks (single_pass.cuh, included from chapter 17's directory).
set(WB_CHAPTER_INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide)
