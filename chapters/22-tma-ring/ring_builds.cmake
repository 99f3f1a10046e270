# The ring's two test builds (ring_builds.cuh), for the chapters on the ring (22 and 23, whose
# chapter.cmake includes this file).
# -DWB_RING_TRAP=ON bounds every wait of the ring (ring::wait in tma_ring.cuh): a wait longer than
# about a second prints which role waited for what, then traps, so that a broken phase count
# makes a run fail (exit 3) instead of hang. The normal build's waits are unbounded.
option(WB_RING_TRAP "chapters 22 and 23: trap on a barrier wait longer than a second instead of hanging" OFF)
if(WB_RING_TRAP)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_TRAP)
endif()
# -DWB_RING_CLOCKS=ON counts, with the SM's cycle counter, how long each role spends in each of its
# waits, and prints each role's shares as notes ("clocks ..."). The normal build reads no clock.
option(WB_RING_CLOCKS "chapters 22 and 23: count the cycles each role spends waiting on each barrier" OFF)
if(WB_RING_CLOCKS)
  list(APPEND WB_CHAPTER_DEFINITIONS WB_RING_CLOCKS)
endif()
