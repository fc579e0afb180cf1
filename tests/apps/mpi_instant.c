// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_instant: the smallest real MPI job that proves instant-on, built
 * with MPICH's mpicc (lanes/hook/build-mpich.sh). Each rank times
 * MPI_Init, then rank 0 and rank 1 ping-pong, and all ranks allreduce
 * their ranks. Rank 0 prints one line:
 *
 *   mpi_instant: N ranks, MPI_Init max S s, pingpong ok, allreduce ok
 *
 * and the exit status is 0 only if both checks passed. Whether MPI_Init
 * found its peers through a named AV (instant-on) is for the caller to
 * see, in the hook's stats line.
 */
#include <stdio.h>
#include <time.h>
#include <mpi.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0 = now(), init, max_init;
	int rank, size, msg = 0, sum = 0, ping_ok = 1, i;

	MPI_Init(&argc, &argv);
	init = now() - t0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 1 && rank < 2) {
		for (i = 0; i < 10; i++) {
			if (rank == 0) {
				msg = i;
				MPI_Send(&msg, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
				MPI_Recv(&msg, 1, MPI_INT, 1, 7, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				ping_ok &= msg == i + 1;
			} else {
				MPI_Recv(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				msg++;
				MPI_Send(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
			}
		}
	}
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce(&init, &max_init, 1, MPI_DOUBLE, MPI_MAX, 0,
		   MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_instant: %d ranks, MPI_Init max %.3f s, pingpong %s, allreduce %s\n",
		       size, max_init, ping_ok ? "ok" : "FAILED",
		       sum == size * (size - 1) / 2 ? "ok" : "FAILED");
	MPI_Finalize();
	return ping_ok && sum == size * (size - 1) / 2 ? 0 : 1;
}
