// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the AVs under test. The peers are opened the way an application
 * picks a provider: fi_getinfo() with the provider's name, endpoint type
 * and address format as hints, then its first answer.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_errno.h>
#include <kav/kav.h>

#include "bench.h"

const char *const bench_impl_name[NR_IMPLS] = {
	[IMPL_KAV] = "kav",
	[IMPL_UDP] = "udp",
	[IMPL_TCP] = "tcp",
	[IMPL_SOCKETS] = "sockets",
};

/* The endpoint type under which each provider offers a plain AV. */
static const enum fi_ep_type peer_ep_type[NR_IMPLS] = {
	[IMPL_UDP] = FI_EP_DGRAM,
	[IMPL_TCP] = FI_EP_MSG,
	[IMPL_SOCKETS] = FI_EP_RDM,
};

static uint32_t addr_format(int family)
{
	return family == AF_INET6 ? FI_SOCKADDR_IN6 : FI_SOCKADDR_IN;
}

static int kav_open(struct bench_domain *d)
{
	struct kav_auth_key key = { .vni = BENCH_VNI };
	struct fi_domain_attr dattr = {
		.auth_key = (uint8_t *)&key,
		.auth_key_size = sizeof(key),
	};
	struct fi_info info = {
		.addr_format = addr_format(d->family),
		.domain_attr = &dattr,
	};

	return kav_domain_open(&info, &d->domain, NULL);
}

static int peer_open(struct bench_domain *d)
{
	struct fi_info *hints = fi_allocinfo();
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	hints->fabric_attr->prov_name = strdup(bench_impl_name[d->impl]);
	hints->ep_attr->type = peer_ep_type[d->impl];
	hints->addr_format = addr_format(d->family);
	hints->caps = FI_MSG;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &d->info);
	fi_freeinfo(hints);
	if (ret)
		return ret;
	ret = fi_fabric(d->info->fabric_attr, &d->fabric, NULL);
	if (ret)
		return ret;
	return fi_domain(d->fabric, d->info, &d->domain, NULL);
}

int bench_domain_open(enum bench_impl impl, int family,
		      struct bench_domain *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->impl = impl;
	d->family = family;
	ret = impl == IMPL_KAV ? kav_open(d) : peer_open(d);
	if (ret) {
		fprintf(stderr, "kav_bench: %s %s domain: %s\n",
			bench_impl_name[impl],
			family == AF_INET6 ? "IPv6" : "IPv4",
			impl == IMPL_KAV ? kav_strerror(ret) : fi_strerror(-ret));
		bench_domain_close(d);
	}
	return ret;
}

void bench_domain_close(struct bench_domain *d)
{
	if (d->domain)
		fi_close(&d->domain->fid);
	if (d->fabric)
		fi_close(&d->fabric->fid);
	if (d->info)
		fi_freeinfo(d->info);
	d->domain = NULL;
	d->fabric = NULL;
	d->info = NULL;
}

int bench_av_open(struct bench_domain *d, size_t count, const char *name,
		  uint64_t flags, struct fid_av **av, void **map_addr)
{
	struct fi_av_attr attr = {
		.type = FI_AV_TABLE,
		.count = count,
		.name = name,
		.flags = flags,
	};
	int ret = fi_av_open(d->domain, &attr, av, NULL);

	if (map_addr)
		*map_addr = ret ? NULL : attr.map_addr;
	return ret;
}
