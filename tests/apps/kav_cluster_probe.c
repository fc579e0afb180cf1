// SPDX-License-Identifier: GPL-2.0
/*
 * kav_cluster_probe: what a task of another tenant's job (job C of the
 * cluster test, lanes/cluster) tries against the jobs it shares the node
 * with, through libkav as an application would.
 *
 *   kav_cluster_probe OWN_VNI [OTHER_VNI OTHER_UID]
 *
 * Prints one TAP line per attempt, each refusal with kav_last_error()'s
 * words, which must name the cause:
 *
 *   - a domain under OWN_VNI opens and inserts an address under it;
 *   - a domain under OTHER_VNI (the other job's) is refused (EACCES);
 *   - binding OTHER_VNI in an AV of a domain opened for per-AV keys
 *     (auth_key_size FI_AV_AUTH_KEY; fi_av_insert_auth_key) is refused;
 *   - the other user's FI_NAMED_AV_0 (MPICH's instant-on AV, mode 0600)
 *     cannot be opened, neither read-only (FI_READ) nor read-write.
 *
 * With OWN_VNI alone, only the first attempt. Exit status: 0 when every
 * attempt ended as above, 1 otherwise, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <kav/kav.h>

#define MPICH_AV_NAME "FI_NAMED_AV_0\n"

static int failed, nr;

static void result(int ok, const char *what, int ret)
{
	nr++;
	if (!ok)
		failed = 1;
	if (ret)
		printf("%s %d - %s: refused: %s\n", ok ? "ok" : "not ok", nr,
		       what, kav_last_error());
	else
		printf("%s %d - %s: done\n", ok ? "ok" : "not ok", nr, what);
	fflush(stdout);
}

/* A domain keyed with @vni; 0: keys per AV (FI_AV_AUTH_KEY). */
static int open_domain(uint32_t vni, struct fid_domain **dom)
{
	static struct kav_auth_key key;
	static struct fi_domain_attr dattr;
	static struct fi_info info;

	key.vni = vni;
	dattr.auth_key = vni ? (uint8_t *)&key : NULL;
	dattr.auth_key_size = vni ? sizeof(key) : FI_AV_AUTH_KEY;
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	return kav_domain_open(&info, dom, NULL);
}

static unsigned long arg(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || v > 0xffffffffUL) {
		fprintf(stderr, "kav_cluster_probe: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct fid_domain *dom = NULL, *other = NULL, *perav = NULL;
	struct fid_av *av = NULL, *named = NULL, *keyed = NULL;
	struct kav_auth_key okey = { 0 };
	uint32_t own, vni;
	fi_addr_t fa;
	int ret;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: kav_cluster_probe OWN_VNI [OTHER_VNI OTHER_UID]\n");
		return 2;
	}
	own = (uint32_t)arg(argv[1]);
	vni = argc == 4 ? (uint32_t)arg(argv[2]) : 0;
	if (argc == 4)
		arg(argv[3]);
	okey.vni = vni;
	printf("1..%d\n", argc == 4 ? 5 : 1);

	ret = open_domain(own, &dom);
	if (!ret)
		ret = fi_av_open(dom, &attr, &av, NULL);
	if (!ret) {
		sin.sin_addr.s_addr = htonl(0x0a4d0001);
		sin.sin_port = htons(7000);
		ret = fi_av_insert(av, &sin, 1, &fa, 0, NULL) == 1 ? 0 : -FI_EOTHER;
	}
	result(!ret, "own VNI: domain, AV and an insert", ret);
	if (argc == 2)
		goto out;

	ret = open_domain(vni, &other);
	result(ret == -FI_EACCES, "the other job's VNI: domain", ret);
	if (!ret)
		fi_close(&other->fid);

	ret = open_domain(0, &perav);
	if (!ret)
		ret = fi_av_open(perav, &attr, &keyed, NULL);
	if (!ret)
		ret = fi_av_insert_auth_key(keyed, &okey, sizeof(okey), &fa, 0);
	result(ret == -FI_EACCES, "the other job's VNI: binding it in an AV of its own (per-AV keys)", ret);

	/* The other user's instant-on AV: libkav looks it up by owner. */
	setenv("KAV_AV_OWNER", argv[3], 1);
	attr.name = MPICH_AV_NAME;
	attr.flags = FI_READ;
	ret = dom ? fi_av_open(dom, &attr, &named, NULL) : -FI_EOTHER;
	result(ret == -FI_EACCES, "the other user's FI_NAMED_AV_0, read-only", ret);
	if (!ret)
		fi_close(&named->fid);
	attr.flags = 0;
	ret = dom ? fi_av_open(dom, &attr, &named, NULL) : -FI_EOTHER;
	result(ret == -FI_EACCES, "the other user's FI_NAMED_AV_0, read-write", ret);
	if (!ret)
		fi_close(&named->fid);

out:
	if (keyed)
		fi_close(&keyed->fid);
	if (perav)
		fi_close(&perav->fid);
	if (av)
		fi_close(&av->fid);
	if (dom)
		fi_close(&dom->fid);
	return failed;
}
