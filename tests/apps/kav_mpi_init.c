// SPDX-License-Identifier: GPL-2.0
/*
 * kav_mpi_init: how long MPI_Init takes, for make bench's "MPI_Init"
 * table (bench/ompi). Built with the trixie root's mpicc (Open MPI 5) and
 * run in the guest with and without FI_HOOK=kav.
 *
 * Each rank times its MPI_Init (CLOCK_MONOTONIC around the call); rank 0
 * prints the maximum and the mean over the ranks:
 *
 *   kav_mpi_init: N ranks, MPI_Init max S s, mean S s
 *
 * The exit status is 0 only if the reduction itself gave a sane answer
 * (every rank took part), so a job that started but cannot talk fails.
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
	double t0 = now(), init, in[2], max[2], sum[2];
	int rank, size;

	MPI_Init(&argc, &argv);
	init = now() - t0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* in[1] counts the ranks: the sum must be the job's size. */
	in[0] = init;
	in[1] = 1;
	MPI_Reduce(in, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(in, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("kav_mpi_init: %d ranks, MPI_Init max %.3f s, mean %.3f s%s\n",
		       size, max[0], sum[0] / size,
		       sum[1] == size ? "" : ", reduction FAILED");
	MPI_Finalize();
	return rank == 0 && sum[1] != size ? 1 : 0;
}
