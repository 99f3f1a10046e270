#!/bin/sh
# mpi_run.sh ARGS... -- run $WB_MPI_PROGRAM with ARGS under $WB_MPIEXEC as $WB_MPI_PROCESSES
# processes (chapter 18's MPI tests hand this script to tests/gpu.sh in place of a chapter).
exec "${WB_MPIEXEC:-mpirun}" --bind-to none -np "${WB_MPI_PROCESSES:-2}" "${WB_MPI_PROGRAM:?WB_MPI_PROGRAM is not set}" "$@"
