# Which CUB the chapters compile against: the toolkit's, or a newer CCCL when one is found.
#
# The workbook measures itself against cub::DeviceReduce and cub::DeviceScan, so it should do so
# against the newest CUB a reader can install, not only the one their toolkit happens to ship.
# NVIDIA publishes CCCL (CUB, Thrust, libcu++) on PyPI as nvidia-cuda-cccl, headers only, under
# nvidia/cu13/include/cccl. The first CCCL found, in this order,
#   1. WB_CCCL_ROOT (CMake variable or environment): a directory holding cub/version.cuh, or
#      its include/cccl or nvidia/cu13/include/cccl (an unpacked wheel or a site-packages);
#   2. the python3 on the PATH: site-packages/nvidia/cu13/include/cccl (pip install nvidia-cuda-cccl);
#   3. .whl/cccl/nvidia/cu13/include/cccl in the source tree (a wheel unpacked there by hand:
#      how the headers reach a machine without network; .whl/ is not tracked),
# is compared with the toolkit's by CUB_VERSION (cub/version.cuh), and the newer one is used:
# its directory goes before the toolkit's on the include path of every target. -DWB_CCCL=toolkit
# uses the toolkit's whatever is found.
#
# Sets WB_CUB_INCLUDE_DIR (empty: the toolkit's is used), WB_CUB_VERSION (e.g. 300500, as
# CUB_VERSION writes it) and WB_CUB_VERSION_TEXT (e.g. 3.5.0). The harness checks, when it
# compiles, that CUB_VERSION is WB_CUB_VERSION (common/wb_cuda.cuh), so a path that loses to
# another is an error, not a silent fall back.
#
# Also runs as a script (tests/cccl_check.cmake): the functions below need no project.

# CUB_VERSION of the cub/version.cuh in `dir` into `out` (MMMmmmpp, e.g. 300500); "" where there
# is no such file or it defines no CUB_VERSION.
function(wb_cub_version dir out)
  set(version "")
  if(EXISTS "${dir}/cub/version.cuh")
    file(STRINGS "${dir}/cub/version.cuh" lines REGEX "^#[ \t]*define[ \t]+CUB_VERSION[ \t]+[0-9]+")
    if(lines)
      list(GET lines 0 line)
      string(REGEX REPLACE "^#[ \t]*define[ \t]+CUB_VERSION[ \t]+([0-9]+).*" "\\1" version "${line}")
    endif()
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

# CUB_VERSION (MMMmmmpp) written as major.minor.subminor: 300500 -> 3.5.0, 300001 -> 3.0.1.
function(wb_cub_version_text version out)
  math(EXPR major "${version} / 100000")
  math(EXPR minor "${version} / 100 % 1000")
  math(EXPR subminor "${version} % 100")
  set(${out} "${major}.${minor}.${subminor}" PARENT_SCOPE)
endfunction()

# The CCCL include directory under `root` (root itself, root/include/cccl or
# root/nvidia/cu13/include/cccl, the first that holds cub/version.cuh) into `out`, else "".
function(wb_cccl_under root out)
  set(found "")
  foreach(suffix "" "/include/cccl" "/nvidia/cu13/include/cccl")
    if(NOT found AND EXISTS "${root}${suffix}/cub/version.cuh")
      get_filename_component(found "${root}${suffix}" ABSOLUTE)
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Choose between the toolkit's CCCL (`toolkit_dir`, the directory of its cub/) and the first of
# the `candidates` roots that holds one (wb_cccl_under): the candidate when its CUB_VERSION is
# higher and `mode` is not "toolkit". Sets, in the caller, <prefix>_INCLUDE_DIR (the candidate's
# directory, or "" for the toolkit's), <prefix>_VERSION, <prefix>_VERSION_TEXT and
# <prefix>_WHY (one sentence: what was found and which was taken).
function(wb_choose_cccl prefix mode toolkit_dir)
  wb_cub_version("${toolkit_dir}" toolkit_version)
  if(NOT toolkit_version)
    message(FATAL_ERROR "no CUB_VERSION in ${toolkit_dir}/cub/version.cuh: cannot tell which CUB the toolkit has")
  endif()
  wb_cub_version_text(${toolkit_version} toolkit_text)
  set(dir "")
  set(version ${toolkit_version})
  set(why "the toolkit's CUB ${toolkit_text} (${toolkit_dir})")
  set(found "")
  foreach(root IN LISTS ARGN)
    if(NOT found AND root)
      wb_cccl_under("${root}" found)
    endif()
  endforeach()
  if(found)
    wb_cub_version("${found}" found_version)
    if(NOT found_version)
      set(why "${why}; ${found} has no CUB_VERSION, so it is not used")
    else()
      wb_cub_version_text(${found_version} found_text)
      if(mode STREQUAL "toolkit")
        set(why "${why}, as WB_CCCL=toolkit asks; CUB ${found_text} in ${found} is not used")
      elseif(found_version GREATER toolkit_version)
        set(dir "${found}")
        set(version ${found_version})
        set(why "CUB ${found_text} (${found}), newer than the toolkit's ${toolkit_text}")
      else()
        set(why "${why}; CUB ${found_text} in ${found} is not newer")
      endif()
    endif()
  endif()
  wb_cub_version_text(${version} text)
  set(${prefix}_INCLUDE_DIR "${dir}" PARENT_SCOPE)
  set(${prefix}_VERSION "${version}" PARENT_SCOPE)
  set(${prefix}_VERSION_TEXT "${text}" PARENT_SCOPE)
  set(${prefix}_WHY "${why}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  return()  # a script that wants the functions only
endif()

set(WB_CCCL "auto" CACHE STRING "which CUB to compile against: auto (the newer of the toolkit's and one found) or toolkit")
set_property(CACHE WB_CCCL PROPERTY STRINGS auto toolkit)
if(NOT WB_CCCL MATCHES "^(auto|toolkit)$")
  message(FATAL_ERROR "WB_CCCL is '${WB_CCCL}': say auto or toolkit")
endif()

# The toolkit's CCCL: the directory of nvcc's own cub/version.cuh.
set(wb_toolkit_cccl "")
foreach(dir IN LISTS CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES)
  foreach(candidate "${dir}/cccl" "${dir}")
    if(NOT wb_toolkit_cccl AND EXISTS "${candidate}/cub/version.cuh")
      set(wb_toolkit_cccl "${candidate}")
    endif()
  endforeach()
endforeach()
if(NOT wb_toolkit_cccl)
  message(FATAL_ERROR "the CUDA toolkit's CUB was not found under ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}")
endif()

set(wb_cccl_roots "${WB_CCCL_ROOT}" "$ENV{WB_CCCL_ROOT}")
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  # Every directory of the `nvidia` namespace package: site-packages, and the user's own where
  # pip installed there (pip install --user).
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia; print(';'.join(nvidia.__path__))"
                  OUTPUT_VARIABLE wb_nvidia_dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE wb_nvidia_rc)
  if(wb_nvidia_rc EQUAL 0)
    foreach(dir IN LISTS wb_nvidia_dirs)
      list(APPEND wb_cccl_roots "${dir}/cu13/include/cccl")
    endforeach()
  endif()
endif()
list(APPEND wb_cccl_roots "${CMAKE_SOURCE_DIR}/.whl/cccl/nvidia/cu13/include/cccl")

wb_choose_cccl(WB_CUB "${WB_CCCL}" "${wb_toolkit_cccl}" ${wb_cccl_roots})
message(STATUS "CUB: ${WB_CUB_WHY}")
if(WB_CUB_INCLUDE_DIR)
  # With -I, not -isystem: nvcc adds the toolkit's include/ with -I after the command line's,
  # and that directory holds a copy of CCCL's nv/ headers, which a compiler searches before any
  # -isystem directory; CUB 3.5 then meets the toolkit's nv/target and fails to compile. The
  # CCCL headers mark themselves as system headers, so their warnings stay theirs.
  include_directories(BEFORE "${WB_CUB_INCLUDE_DIR}")
endif()
add_compile_definitions($<$<COMPILE_LANGUAGE:CUDA>:WB_CUB_VERSION=${WB_CUB_VERSION}>)
