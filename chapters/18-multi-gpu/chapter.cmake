# Chapter 18 needs NCCL, and runs one process per GPU under mpirun when MPI is found.
# Included by CMakeLists.txt before the chapter's program is made: it sets WB_CHAPTER_SKIP (why
# the chapter cannot be built here) or what the program needs (WB_CHAPTER_INCLUDES,
# WB_CHAPTER_LIBRARIES, WB_CHAPTER_DEFINITIONS, WB_CHAPTER_TESTS: shard_tests.cmake, and
# mpi_tests.cmake where MPI is found).
#
# NCCL is found as a system install (nccl.h and libnccl), under NCCL_ROOT or NCCL_HOME (CMake
# variable or environment), or in the layout of NVIDIA's Python wheel nvidia-nccl-cu13
# (site-packages/nvidia/nccl/include/nccl.h and lib/libnccl.so.2, with no unversioned
# libnccl.so), for the python3 on the PATH.
set(wb_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} $ENV{NCCL_HOME})
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
                  OUTPUT_VARIABLE wb_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE wb_nccl_wheel_rc)
  if(wb_nccl_wheel_rc EQUAL 0 AND IS_DIRECTORY "${wb_nccl_wheel}/include")
    list(APPEND wb_nccl_hints ${wb_nccl_wheel})
  endif()
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${wb_nccl_hints} PATH_SUFFIXES include
          DOC "directory of nccl.h (chapter 18)")
if(NCCL_INCLUDE_DIR)
  # The library beside the header first, so that the two are of one version.
  get_filename_component(wb_nccl_root ${NCCL_INCLUDE_DIR} DIRECTORY)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${wb_nccl_root} PATH_SUFFIXES lib lib64
               NO_DEFAULT_PATH DOC "libnccl (chapter 18)")
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${wb_nccl_hints} PATH_SUFFIXES lib lib64)
endif()

set(WB_CHAPTER_SKIP "")
if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  set(WB_CHAPTER_SKIP "NCCL was not found (no nccl.h and libnccl). Install it, e.g. `apt-get install libnccl-dev` \
from NVIDIA's CUDA repository or `pip install nvidia-nccl-cu13`, or point -DNCCL_ROOT=DIR at an install, then \
configure again")
  return()
endif()
message(STATUS "chapter 18: NCCL ${NCCL_LIBRARY}")
# Chapters 11's and 17's kernels come from headers in their directories (reduce_best.cuh,
# single_pass.cuh), included, not copied.
set(WB_CHAPTER_INCLUDES ${NCCL_INCLUDE_DIR} ${CMAKE_CURRENT_LIST_DIR}/../11-cub-and-beyond
    ${CMAKE_CURRENT_LIST_DIR}/../17-scan-device-wide)
set(WB_CHAPTER_LIBRARIES ${NCCL_LIBRARY})
set(WB_CHAPTER_DEFINITIONS WB_WITH_MPI=0)
set(WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/shard_tests.cmake)

find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  message(STATUS "chapter 18: MPI found (${MPIEXEC_EXECUTABLE}): mpirun -np G ./chapter18 runs one process per GPU")
  list(APPEND WB_CHAPTER_INCLUDES ${MPI_CXX_INCLUDE_DIRS})
  list(APPEND WB_CHAPTER_LIBRARIES ${MPI_CXX_LIBRARIES})
  # The C interface only: the C++ bindings that some MPIs still ship do not compile cleanly.
  set(WB_CHAPTER_DEFINITIONS WB_WITH_MPI=1 OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
  list(APPEND WB_CHAPTER_TESTS ${CMAKE_CURRENT_LIST_DIR}/mpi_tests.cmake)
else()
  message(STATUS "chapter 18: MPI not found: built for one process driving every GPU only")
endif()
