// SPDX-License-Identifier: GPL-2.0
/*
 * kav_ompi: the Open MPI 5 job of lanes/ompi, built with the trixie root's
 * mpicc and run with FI_HOOK=kav over the ofi MTL.
 *
 *   kav_ompi                         rank 0 ping-pongs with every other
 *                                    rank, then all ranks allreduce;
 *                                    rank 0 prints
 *     kav_ompi: N ranks, MPI_Init max S s, pingpong ok, allreduce ok
 *                                    and the exit status is 0 only if
 *                                    both results are right.
 *   kav_ompi --loop FILE SECONDS     ranks 2k and 2k+1 ping-pong until
 *                                    SECONDS have passed; rank 0 creates
 *                                    FILE after its first 10 round trips
 *                                    (the caller then revokes the key).
 *                                    Reaching the end is a failure (exit
 *                                    3): a revocation must stop a send
 *                                    first, which MPI reports (errors are
 *                                    fatal: MPI_ERRORS_ARE_FATAL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Rank 0 sends i to PEER, which answers i + 1: COUNT round trips. */
static int pingpong(int rank, int peer, int count)
{
	int i, msg, ok = 1;

	for (i = 0; i < count; i++) {
		if (rank == 0) {
			msg = i;
			MPI_Send(&msg, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
			MPI_Recv(&msg, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			ok &= msg == i + 1;
		} else {
			MPI_Recv(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			msg++;
			MPI_Send(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
		}
	}
	return ok;
}

/*
 * The even rank of a pair decides when to stop (its message carries the
 * flag), so both ranks of a pair leave the loop after the same exchange.
 */
static int loop(int rank, int size, const char *file, double seconds)
{
	int peer = rank ^ 1, msg[2] = { 0, 1 }, n, marked = 0;
	double t0 = now();
	FILE *f;

	if (peer >= size)
		return 0;
	for (n = 0; msg[1]; n++) {
		if (!(rank & 1)) {
			msg[0] = n;
			msg[1] = now() - t0 < seconds;
			MPI_Send(msg, 2, MPI_INT, peer, 9, MPI_COMM_WORLD);
			MPI_Recv(msg, 2, MPI_INT, peer, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (msg[0] != n + 1) {
				fprintf(stderr, "kav_ompi: rank %d: wrong answer\n",
					rank);
				return 1;
			}
			msg[1] = now() - t0 < seconds;
		} else {
			MPI_Recv(msg, 2, MPI_INT, peer, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			msg[0]++;
			MPI_Send(msg, 2, MPI_INT, peer, 9, MPI_COMM_WORLD);
		}
		if (rank == 0 && n == 10 && !marked) {
			f = fopen(file, "w");
			if (f) {
				fprintf(f, "%d\n", n);
				fclose(f);
			}
			marked = 1;
		}
	}
	if (rank == 0)
		printf("kav_ompi: loop: no send failed in %.0f s (%d round trips)\n",
		       seconds, n);
	return 3;
}

int main(int argc, char **argv)
{
	double t0 = now(), init, max_init;
	int rank, size, sum = 0, ping_ok = 1, peer, ret;

	MPI_Init(&argc, &argv);
	init = now() - t0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc == 4 && !strcmp(argv[1], "--loop")) {
		ret = loop(rank, size, argv[2], atof(argv[3]));
		MPI_Finalize();
		return ret;
	}
	if (argc != 1) {
		if (rank == 0)
			fprintf(stderr, "usage: kav_ompi [--loop FILE SECONDS]\n");
		MPI_Finalize();
		return 2;
	}
	for (peer = 1; peer < size; peer++)
		if (rank == 0 || rank == peer)
			ping_ok &= pingpong(rank, peer, 10);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce(&init, &max_init, 1, MPI_DOUBLE, MPI_MAX, 0,
		   MPI_COMM_WORLD);
	/* Rank 0 speaks for all: gather the ping-pong results there. */
	MPI_Allreduce(MPI_IN_PLACE, &ping_ok, 1, MPI_INT, MPI_LAND,
		      MPI_COMM_WORLD);
	if (rank == 0)
		printf("kav_ompi: %d ranks, MPI_Init max %.3f s, pingpong %s, allreduce %s\n",
		       size, max_init, ping_ok ? "ok" : "FAILED",
		       sum == size * (size - 1) / 2 ? "ok" : "FAILED");
	MPI_Finalize();
	return ping_ok && sum == size * (size - 1) / 2 ? 0 : 1;
}
