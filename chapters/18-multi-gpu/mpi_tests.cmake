# Chapter 18 under mpirun, one process per GPU: included by CMakeLists.txt when MPI was found,
# with ${target} and ${bin} set. Each case runs on 2 processes through tests/gpu.sh; with fewer
# than 2 GPUs the chapter says "skipped:" and exits 77 (a skip, also under REQUIRE_GPU=1).
set(wb_mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 WB_MPIEXEC=${MPIEXEC_EXECUTABLE}
    WB_MPI_PROCESSES=2 WB_MPI_PROGRAM=${bin})
foreach(case
    "quick|mpi_odd|--variant all --n 1000003 --offset 1"
    "quick|mpi_shards3|--variant all --n 1000003 --shards 3"
    "full|mpi_default_n|--variant all"
    "full|mpi_in_place|--variant scan_in_place --n 100000007")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 tier)
  list(GET parts 1 name)
  list(GET parts 2 args)
  separate_arguments(args UNIX_COMMAND "${args}")
  add_test(NAME ${target}_gpu_${name}
           COMMAND ${CMAKE_COMMAND} -E env ${wb_mpi_env} sh ${WB_TESTS}/gpu.sh ${WB_TESTS}/mpi_run.sh ${args})
  set_tests_properties(${target}_gpu_${name} PROPERTIES LABELS "gpu;${tier};mpi" SKIP_RETURN_CODE 77
                       RESOURCE_LOCK gpu TIMEOUT 900)
endforeach()
