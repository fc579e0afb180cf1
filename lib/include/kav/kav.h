/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * <kav/kav.h> - libkav, libfabric address vectors kept by the kav kernel
 * module.
 *
 * libkav is an address-vector provider, not a fabric provider: there is no
 * fi_getinfo()/fi_fabric() step. An application (or a fabric provider that
 * wants kernel-enforced AVs) fills a struct fi_info with the address format
 * it uses and calls kav_domain_open(). The returned object is a genuine
 * struct fid_domain, so libfabric's own inline calls work on it:
 *
 *	struct fi_info *info = fi_allocinfo();     (or a zeroed struct fi_info)
 *	info->addr_format = FI_SOCKADDR_IN;
 *	struct fid_domain *dom;
 *	int ret = kav_domain_open(info, &dom, NULL);
 *	if (ret)
 *		fprintf(stderr, "%s\n", kav_strerror(ret));
 *	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 1024 };
 *	struct fid_av *av;
 *	ret = fi_av_open(dom, &attr, &av, NULL);
 *	... fi_av_insert(av, ...), fi_av_lookup(av, ...) ...
 *	fi_close(&av->fid);
 *	fi_close(&dom->fid);
 *
 * libkav needs only libfabric's headers, never libfabric.so: every fi_*
 * call used above is an inline that dispatches into libkav's ops tables.
 * Call kav_strerror(), not fi_strerror(), to explain an error from a kav
 * object: it knows kav's reasons (module not loaded, no grant, ...).
 *
 * Objects are thread-safe: lookups read a read-only shared mapping without
 * locks or system calls; mutations are serialised by the kernel.
 */
#ifndef KAV_KAV_H
#define KAV_KAV_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * kav_domain_open() - open a kav domain (one open of /dev/kav)
 * @info: required; info->addr_format selects the address format of every
 *	AV opened on the domain: FI_SOCKADDR (struct sockaddr_in or
 *	sockaddr_in6, by family; insert arrays use 28-byte slots),
 *	FI_SOCKADDR_IN, FI_SOCKADDR_IN6 or FI_ADDR_STR (insert takes an array
 *	of char *). FI_FORMAT_UNSPEC means FI_SOCKADDR.
 * @domain: out: the domain; release it with fi_close(&(*domain)->fid)
 *	after closing its AVs (closing it earlier fails with -FI_EBUSY)
 * @context: stored in (*domain)->fid.context
 *
 * The device is $KAV_DEVICE if set, else /dev/kav. The kernel snapshots
 * the caller's identity (credentials, cgroup, network namespace) at this
 * call; every later mutation is authorised against it.
 *
 * Only av_open is implemented among the domain operations; the others
 * (cq_open, endpoint, mr_reg, ...) return -FI_ENOSYS.
 *
 * Return: 0, or a negative fabric errno: -FI_EINVAL (bad argument or
 * address format), -FI_ENODEV (kav module not loaded), -FI_EACCES (no
 * permission to open the device), -FI_ENOMEM, or another -errno from
 * open(2). kav_strerror() explains each.
 */
int kav_domain_open(const struct fi_info *info, struct fid_domain **domain,
		    void *context);

/**
 * kav_av_fd() - the kernel file descriptor behind a kav AV
 * @av: an AV opened with fi_av_open() on a kav domain
 *
 * The descriptor is what another process needs to read the same table:
 * pass it over a UNIX socket (SCM_RIGHTS) and the receiver can mmap() it
 * read-only (see uapi/linux/kav.h). Passing it also delegates the right to
 * mutate the AV with the opener's identity, like any capability. The AV
 * keeps owning the descriptor: do not close it; dup() it to keep it past
 * fi_close().
 *
 * Return: the descriptor, or -FI_EINVAL when @av is not a kav AV.
 */
int kav_av_fd(struct fid_av *av);

/**
 * kav_strerror() - explain an error returned by libkav
 * @err: a fabric errno, negative (as returned) or positive
 *
 * Return: a static string; kav-specific where kav has a reason of its own
 * (e.g. -FI_ENODEV: the module is not loaded), otherwise the generic text
 * for the error. Never NULL.
 */
const char *kav_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* KAV_KAV_H */
