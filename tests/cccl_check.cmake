# tests/cccl_check.cmake: which CUB cmake/cccl.cmake chooses, without a GPU.
#   cmake -DWB_SOURCE=DIR -DWB_WORK=DIR -DWB_NVCC=PATH -P tests/cccl_check.cmake
# 1. The functions, on made-up CCCL trees (cub/version.cuh and nothing else): a newer CCCL is
#    taken, found under any of the layouts a root may have; an older or equal one, one without
#    CUB_VERSION, or any one under WB_CCCL=toolkit is not (the negative controls).
# 2. The real project configured in WB_WORK with WB_CCCL_ROOT at a made-up CUB 99.1.0: the
#    chapters' include path starts with it and they are told to expect it (WB_CUB_VERSION, which
#    common/wb_cuda.cuh static_asserts); with -DWB_CCCL=toolkit neither (negative control).
# 3. That static_assert: a file that includes common/wb_cuda.cuh compiles when told the CUB it
#    finds, and fails when told another (its negative control).
cmake_minimum_required(VERSION 3.24)
include(${WB_SOURCE}/cmake/cccl.cmake)

set(failures 0)
# expect(WHAT CONDITION...): the condition as if() takes it; a failure is counted and named.
function(expect what)
  if(${ARGN})
    message(STATUS "ok: ${what}")
  else()
    message(SEND_ERROR "FAIL: ${what}")
    math(EXPR count "${failures} + 1")
    set(failures ${count} PARENT_SCOPE)
  endif()
endfunction()

# A made-up CCCL: DIR/cub/version.cuh defining CUB_VERSION as `version` ("" defines none).
function(fake_cccl dir version)
  if(version STREQUAL "")
    file(WRITE ${dir}/cub/version.cuh "#pragma once\n// no version here\n")
  else()
    file(WRITE ${dir}/cub/version.cuh "#pragma once\n#define CUB_VERSION ${version} // MMMmmmpp\n")
  endif()
endfunction()

file(REMOVE_RECURSE ${WB_WORK})
set(t ${WB_WORK}/trees)
fake_cccl(${t}/toolkit 300001)
fake_cccl(${t}/newer/nvidia/cu13/include/cccl 300500)   # a wheel unpacked or a site-packages
fake_cccl(${t}/prefix/include/cccl 300600)              # an install prefix
fake_cccl(${t}/older 200800)
fake_cccl(${t}/same 300001)
fake_cccl(${t}/none "")
file(MAKE_DIRECTORY ${t}/empty)

# ---- 1. the functions ----------------------------------------------------------------------
wb_cub_version_text(300500 text)
expect("300500 is 3.5.0" text STREQUAL "3.5.0")
wb_cub_version_text(300001 text)
expect("300001 is 3.0.1" text STREQUAL "3.0.1")
wb_cub_version_text(1001203 text)
expect("1001203 is 10.12.3" text STREQUAL "10.12.3")

wb_choose_cccl(got auto ${t}/toolkit "" ${t}/empty ${t}/newer)
expect("a newer CCCL (wheel layout, after an empty root) is taken"
       got_INCLUDE_DIR STREQUAL "${t}/newer/nvidia/cu13/include/cccl" AND got_VERSION EQUAL 300500 AND got_VERSION_TEXT STREQUAL "3.5.0")
expect("... and the message says so" got_WHY MATCHES "^CUB 3.5.0 .*newer than the toolkit's 3.0.1$")
wb_choose_cccl(got auto ${t}/toolkit ${t}/prefix ${t}/newer)
expect("the first root found wins (prefix layout, CUB 3.6.0)" got_INCLUDE_DIR STREQUAL "${t}/prefix/include/cccl" AND got_VERSION EQUAL 300600)
wb_choose_cccl(got toolkit ${t}/toolkit ${t}/newer)
expect("WB_CCCL=toolkit keeps the toolkit's (negative control)"
       NOT got_INCLUDE_DIR AND got_VERSION EQUAL 300001 AND got_WHY MATCHES "as WB_CCCL=toolkit asks")
wb_choose_cccl(got auto ${t}/toolkit ${t}/older ${t}/newer)
expect("an older CCCL found first is not taken (negative control)"
       NOT got_INCLUDE_DIR AND got_VERSION EQUAL 300001 AND got_WHY MATCHES "CUB 2.8.0 in .* is not newer")
wb_choose_cccl(got auto ${t}/toolkit ${t}/same)
expect("the same version is not taken (negative control)" NOT got_INCLUDE_DIR AND got_VERSION EQUAL 300001)
wb_choose_cccl(got auto ${t}/toolkit ${t}/none)
expect("a cub/version.cuh without CUB_VERSION is not taken (negative control)"
       NOT got_INCLUDE_DIR AND got_WHY MATCHES "has no CUB_VERSION")
wb_choose_cccl(got auto ${t}/toolkit ${t}/empty)
expect("nothing found: the toolkit's" NOT got_INCLUDE_DIR AND got_VERSION EQUAL 300001)

# ---- 2. the project, configured ------------------------------------------------------------
fake_cccl(${t}/far/nvidia/cu13/include/cccl 9900100)
# Configure the project into WB_WORK/name with WB_CCCL_ROOT at the made-up CUB 99.1.0 and the
# further arguments: chapter 01's CUDA flags (its definitions among them) and include list.
function(configure name out_defines out_includes)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WB_SOURCE} -B ${WB_WORK}/${name} -DCMAKE_CUDA_COMPILER=${WB_NVCC}
                          -DCMAKE_CUDA_ARCHITECTURES=90 -DWB_CCCL_ROOT=${t}/far ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "configuring ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(dir ${WB_WORK}/${name}/CMakeFiles/chapter01.dir)
  set(defines "")
  set(includes "")
  if(EXISTS ${dir}/flags.make)
    file(READ ${dir}/flags.make defines)
  endif()
  if(EXISTS ${dir}/includes_CUDA.rsp)
    file(READ ${dir}/includes_CUDA.rsp includes)
  elseif(EXISTS ${dir}/flags.make)
    set(includes "${defines}")
  endif()
  string(REPLACE "\"" "" includes "${includes}")  # CMake may quote a path
  set(${out_defines} "${defines}" PARENT_SCOPE)
  set(${out_includes} "${includes}" PARENT_SCOPE)
endfunction()

configure(auto defines includes)
string(FIND "${includes}" "-I${t}/far/nvidia/cu13/include/cccl" at)
expect("configured: WB_CCCL_ROOT's CUB 99.1.0 heads chapter 01's include path" at EQUAL 0)
expect("configured: chapter 01 expects CUB_VERSION 9900100" defines MATCHES "-DWB_CUB_VERSION=9900100")
configure(toolkit defines includes -DWB_CCCL=toolkit)
string(FIND "${includes}" "${t}/far" at)
expect("configured with WB_CCCL=toolkit: not on the include path (negative control)" at EQUAL -1)
expect("configured with WB_CCCL=toolkit: the toolkit's version expected"
       defines MATCHES "-DWB_CUB_VERSION=[0-9]+" AND NOT defines MATCHES "-DWB_CUB_VERSION=9900100")

# ---- 3. the harness's static_assert ----------------------------------------------------------
string(REGEX MATCH "-DWB_CUB_VERSION=([0-9]+)" _ "${defines}")
set(toolkit_version ${CMAKE_MATCH_1})
file(WRITE ${WB_WORK}/uses_harness.cu "#include \"wb_cuda.cuh\"\nint main() { return wb::cub_version == nullptr; }\n")
foreach(told ${toolkit_version} 9900100)
  execute_process(COMMAND ${WB_NVCC} -std=c++17 -arch=sm_90 -I${WB_SOURCE}/common -DWB_CUB_VERSION=${told}
                          -c ${WB_WORK}/uses_harness.cu -o ${WB_WORK}/uses_harness.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(told EQUAL 9900100)
    expect("the harness refuses a CUB it was not told (negative control)"
           NOT rc EQUAL 0 AND err MATCHES "not the one CMake chose")
  else()
    expect("the harness compiles with the CUB it was told (${told})" rc EQUAL 0)
  endif()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "cccl_check: ${failures} check(s) failed")
endif()
message(STATUS "cccl_check: every check passed")
