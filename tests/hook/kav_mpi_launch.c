// SPDX-License-Identifier: GPL-2.0
/*
 * kav_mpi_launch: what an MPI launcher does for instant-on through kav.
 *
 *   kav_mpi_launch --vni V --port P --ranks N [--appnum A] [--no-av]
 *                  -- COMMAND [ARG...]
 *
 * Opens a kav domain under VNI V (granted to the launcher's identity),
 * creates the named AV "FI_NAMED_AV_<A>\n" (A = 0 by default: MPICH's
 * name for application number A) and fills it with each rank's address,
 * 127.0.0.1:P+r for rank r, in rank order; then runs COMMAND (mpiexec)
 * and holds the AV open until it ends, so that the ranks find it. Each
 * rank must listen on its port (FI_TCP_PORT_LOW_RANGE/HIGH_RANGE =
 * P+PMI_RANK). --no-av runs COMMAND with no named AV: MPICH then
 * exchanges addresses itself. The exit status is COMMAND's (or 100+ on a
 * launcher failure).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <kav/kav.h>

static unsigned long arg_num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s) {
		fprintf(stderr, "kav_mpi_launch: bad %s '%s'\n", what, s);
		exit(100);
	}
	return v;
}

/* The named AV of the job, filled; NULL with --no-av. */
static int fill_av(uint32_t vni, unsigned int port, unsigned int ranks,
		   unsigned int appnum, struct fid_domain **dom,
		   struct fid_av **av)
{
	struct kav_auth_key key = { .vni = vni };
	struct fi_domain_attr dattr = {
		.auth_key = (uint8_t *)&key,
		.auth_key_size = sizeof(key),
	};
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
				.domain_attr = &dattr };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = ranks };
	struct sockaddr_in *sin;
	char name[64];
	unsigned int r;
	int ret;

	snprintf(name, sizeof(name), "FI_NAMED_AV_%u\n", appnum);
	attr.name = name;
	ret = kav_domain_open(&info, dom, NULL);
	if (ret)
		return ret;
	ret = fi_av_open(*dom, &attr, av, NULL);
	if (ret)
		return ret;
	sin = calloc(ranks, sizeof(*sin));
	if (!sin)
		return -FI_ENOMEM;
	for (r = 0; r < ranks; r++) {
		sin[r].sin_family = AF_INET;
		sin[r].sin_port = htons((uint16_t)(port + r));
		sin[r].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	ret = fi_av_insert(*av, sin, ranks, NULL, 0, NULL);
	free(sin);
	if (ret != (int)ranks)
		return ret < 0 ? ret : -FI_EIO;
	fprintf(stderr, "kav_mpi_launch: FI_NAMED_AV_%u holds %u ranks (VNI %u)\n",
		appnum, ranks, vni);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vni", required_argument, NULL, 'v' },
		{ "port", required_argument, NULL, 'p' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "appnum", required_argument, NULL, 'a' },
		{ "no-av", no_argument, NULL, 'x' },
		{ 0 }
	};
	unsigned long vni = 0, port = 0, ranks = 0, appnum = 0;
	struct fid_domain *dom = NULL;
	struct fid_av *av = NULL;
	bool no_av = false;
	int c, ret, status;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'v': vni = arg_num(optarg, "VNI"); break;
		case 'p': port = arg_num(optarg, "port"); break;
		case 'n': ranks = arg_num(optarg, "rank count"); break;
		case 'a': appnum = arg_num(optarg, "appnum"); break;
		case 'x': no_av = true; break;
		default: return 100;
		}
	}
	if (optind >= argc || !ranks || vni > UINT32_MAX ||
	    port + ranks > 65536 || !port) {
		fprintf(stderr, "usage: kav_mpi_launch --vni V --port P --ranks N [--appnum A] [--no-av] -- COMMAND...\n");
		return 100;
	}
	if (!no_av) {
		ret = fill_av((uint32_t)vni, (unsigned int)port,
			      (unsigned int)ranks, (unsigned int)appnum, &dom,
			      &av);
		if (ret) {
			fprintf(stderr, "kav_mpi_launch: %s\n",
				kav_strerror(ret));
			return 101;
		}
	}
	pid = fork();
	if (pid < 0)
		return 102;
	if (!pid) {
		execvp(argv[optind], &argv[optind]);
		perror(argv[optind]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 103;
	if (av)
		fi_close(&av->fid);
	if (dom)
		fi_close(&dom->fid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
