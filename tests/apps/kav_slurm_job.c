// SPDX-License-Identifier: GPL-2.0
/*
 * kav_slurm_job: what a task of a Slurm job does with its key, for the
 * real-Slurm VM test (lanes/slurm/kav-slurm-vm-guest.sh).
 *
 *   kav_slurm_job VNI [ok|denied] [READY_FILE GO_FILE]
 *
 * Opens a libkav domain keyed with VNI, opens an AV and inserts one IPv4
 * address under the key, and checks that the key comes back with it.
 * Prints one line "vni VNI: insert ok" or "vni VNI: denied (error)".
 * With READY_FILE and GO_FILE it then creates READY_FILE (the job runs
 * and used its key) and waits, holding the domain, until GO_FILE exists.
 * Exit status: 0 when the outcome is the expected one (default "ok"), 1
 * otherwise, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kav/kav.h>

static int try_insert(uint32_t vni, struct fid_domain **domp,
		      struct fid_av **avp)
{
	struct kav_auth_key key = { .vni = vni }, got;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct sockaddr_in sin = { 0 };
	size_t len = sizeof(got);
	fi_addr_t fa;
	int ret;

	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	dattr.auth_key = (uint8_t *)&key;
	dattr.auth_key_size = sizeof(key);
	ret = kav_domain_open(&info, domp, NULL);
	if (ret)
		return ret;
	ret = fi_av_open(*domp, &attr, avp, NULL);
	if (ret)
		return ret;
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x0a000001);
	sin.sin_port = htons(7000);
	ret = fi_av_insert(*avp, &sin, 1, &fa, 0, NULL);
	if (ret != 1)
		return ret < 0 ? ret : -FI_EOTHER;
	ret = fi_av_lookup_auth_key(*avp, fa, &got, &len);
	if (ret)
		return ret;
	return got.vni == vni ? 0 : -FI_EOTHER;
}

int main(int argc, char **argv)
{
	struct fid_domain *dom = NULL;
	struct fid_av *av = NULL;
	const char *want = argc > 2 ? argv[2] : "ok";
	unsigned long vni;
	char *end;
	int ret, fd;

	if (argc != 2 && argc != 3 && argc != 5)
		return 2;
	errno = 0;
	vni = strtoul(argv[1], &end, 10);
	if (errno || *end || !vni || vni > 0xffffffffUL)
		return 2;
	ret = try_insert((uint32_t)vni, &dom, &av);
	if (ret)
		printf("vni %lu: denied (%s)\n", vni, strerror(ret < 0 ? -ret : ret));
	else
		printf("vni %lu: insert ok\n", vni);
	fflush(stdout);
	if (argc == 5) {
		fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
		while (access(argv[4], F_OK))
			usleep(100000);
	}
	if (av)
		fi_close(&av->fid);
	if (dom)
		fi_close(&dom->fid);
	if (!strcmp(want, "ok"))
		return ret ? 1 : 0;
	return ret == -FI_EACCES ? 0 : 1;
}
