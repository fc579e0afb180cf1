// SPDX-License-Identifier: GPL-2.0
/*
 * The size contract of every ioctl in uapi/linux/kav.h, as iommufd's
 * selftest cmd_length does it (tools/testing/selftests/iommu/iommufd.c).
 * Each command's structure starts with a __u32 size (kmod/kav_ucmd.c,
 * Documentation/uapi.rst, "Errors common to every command"):
 *
 *   size below the end of version 1's last field      EINVAL
 *   size above sizeof(), a non-zero byte past it      E2BIG
 *   size above a page                                 E2BIG
 *   size above sizeof(), zero bytes past it           as size == sizeof(),
 *                                                     and nothing is written
 *                                                     past sizeof()
 *   size == end of version 1's last field             as size == sizeof()
 *
 * Each call gets objects of its own (a domain, an AV holding one address,
 * an endpoint), so that the calls compared are the same call. The table
 * below has one SIZE_CASE() per ioctl: lanes/lint/ioctl-table.sh checks
 * that every KAV_IOC_* of the header is in it, with the struct and the
 * version-1 field of the module's ops tables (KAV_IOCTL_OP()).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_grants.h"

#define PAGE	((size_t)sysconf(_SC_PAGESIZE))
#define VNI	0x5a17
#define offsetofend(T, m)	(offsetof(T, m) + sizeof(((T *)0)->m))

enum size_fd { ON_DOMAIN, ON_AV, ON_EP };

/* The objects one call runs against. */
struct size_env {
	int dom;
	int av;
	int ep;
	struct sockaddr_in sin;
	uint64_t fi_addr;
	uint64_t out;
};

FIXTURE(size) {
	struct kav_test_grants g;
	char *buf;
};

FIXTURE_VARIANT(size) {
	const char *ioctl_name;
	unsigned long cmd;
	size_t size;		/* sizeof() of the structure */
	size_t min_size;	/* end of version 1's last field */
	enum size_fd on;
	/* Fill a valid argument (size aside); 0, or -1 if the env failed. */
	int (*fill)(struct size_env *env, void *arg);
	int expect;		/* errno of the call with the exact size */
	/* Close what a successful call returned. */
	void (*done)(void *arg);
};

#define SIZE_CASE(_name, _ioctl, _struct, _last, _on, _fill, _expect, _done) \
	FIXTURE_VARIANT_ADD(size, _name) {				\
		.ioctl_name = #_ioctl,					\
		.cmd = _ioctl,						\
		.size = sizeof(struct _struct),				\
		.min_size = offsetofend(struct _struct, _last),		\
		.on = _on,						\
		.fill = _fill,						\
		.expect = _expect,					\
		.done = _done,						\
	}

static int fill_av_create(struct size_env *env, void *arg)
{
	struct kav_av_create *c = arg;

	c->addr_format = KAV_ADDR_SOCKADDR_IN;
	return 0;
}

static void done_av_create(void *arg)
{
	close(((struct kav_av_create *)arg)->fd);
}

static int fill_av_insert(struct size_env *env, void *arg)
{
	struct kav_av_insert *in = arg;

	env->sin = kav_sin(0x0a000002u, 5001);
	in->count = 1;
	in->addr_stride = sizeof(env->sin);
	in->addrs = (uintptr_t)&env->sin;
	in->fi_addrs = (uintptr_t)&env->out;
	in->err_index = KAV_NO_INDEX;
	return 0;
}

static int fill_av_remove(struct size_env *env, void *arg)
{
	struct kav_av_remove *rm = arg;

	rm->count = 1;
	rm->fi_addrs = (uintptr_t)&env->fi_addr;
	rm->err_index = KAV_NO_INDEX;
	return 0;
}

static int fill_av_key_insert(struct size_env *env, void *arg)
{
	struct kav_av_key *k = arg;

	k->key.vni = VNI;
	return 0;
}

/* Insert the key first (at the exact size), then remove its handle. */
static int fill_av_key_remove(struct size_env *env, void *arg)
{
	struct kav_av_key ins = { .size = sizeof(ins), .key.vni = VNI };
	struct kav_av_key *k = arg;

	if (ioctl(env->av, KAV_IOC_AV_KEY_INSERT, &ins))
		return -1;
	k->handle = ins.handle;
	return 0;
}

static int fill_av_set_user_id(struct size_env *env, void *arg)
{
	struct kav_av_user_id *u = arg;

	u->index = env->fi_addr;
	u->user_id = 7;
	return 0;
}

static int fill_zero(struct size_env *env, void *arg)
{
	return 0;
}

static void done_av_ep_open(void *arg)
{
	close(((struct kav_av_ep_open *)arg)->fd);
}

static int fill_domain_set_key(struct size_env *env, void *arg)
{
	struct kav_domain_key *k = arg;

	k->key.vni = VNI;
	return 0;
}

/*
 * One SIZE_CASE() per KAV_IOC_* of uapi/linux/kav.h: variant name, ioctl,
 * structure, its version-1 last field (as in kmod's KAV_IOCTL_OP()), the
 * fd it runs on, how to fill it, the exact-size call's errno, clean-up.
 */
SIZE_CASE(av_create, KAV_IOC_AV_CREATE, kav_av_create, map_size,
	  ON_DOMAIN, fill_av_create, 0, done_av_create);
SIZE_CASE(av_insert, KAV_IOC_AV_INSERT, kav_av_insert, __reserved,
	  ON_AV, fill_av_insert, 0, NULL);
SIZE_CASE(av_remove, KAV_IOC_AV_REMOVE, kav_av_remove, fi_addrs,
	  ON_AV, fill_av_remove, 0, NULL);
SIZE_CASE(av_key_insert, KAV_IOC_AV_KEY_INSERT, kav_av_key, handle,
	  ON_AV, fill_av_key_insert, 0, NULL);
SIZE_CASE(av_key_remove, KAV_IOC_AV_KEY_REMOVE, kav_av_key, handle,
	  ON_AV, fill_av_key_remove, 0, NULL);
SIZE_CASE(av_set_user_id, KAV_IOC_AV_SET_USER_ID, kav_av_user_id, user_id,
	  ON_AV, fill_av_set_user_id, 0, NULL);
SIZE_CASE(av_ep_open, KAV_IOC_AV_EP_OPEN, kav_av_ep_open, __reserved,
	  ON_AV, fill_zero, 0, done_av_ep_open);
SIZE_CASE(ep_enable, KAV_IOC_EP_ENABLE, kav_ep_enable, keys,
	  ON_EP, fill_zero, 0, NULL);
SIZE_CASE(domain_set_key, KAV_IOC_DOMAIN_SET_KEY, kav_domain_key, key,
	  ON_DOMAIN, fill_domain_set_key, 0, NULL);
SIZE_CASE(domain_whoami, KAV_IOC_DOMAIN_WHOAMI, kav_whoami, __reserved,
	  ON_DOMAIN, fill_zero, 0, NULL);

FIXTURE_SETUP(size)
{
	memset(&self->g, 0, sizeof(self->g));
	ASSERT_EQ(0, kav_test_grant(&self->g, VNI, 1));
	/* Room for a page and more: the over-a-page case reads it all. */
	self->buf = aligned_alloc(PAGE, 2 * PAGE);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(size)
{
	free(self->buf);
	kav_test_revoke_all(&self->g);
}

static void env_close(struct size_env *env)
{
	if (env->ep >= 0)
		close(env->ep);
	if (env->av >= 0)
		close(env->av);
	if (env->dom >= 0)
		close(env->dom);
}

static int env_open(struct size_env *env, enum size_fd on)
{
	struct kav_av_ep_open eo = { .size = sizeof(eo) };

	memset(env, 0, sizeof(*env));
	env->dom = env->av = env->ep = -1;
	env->dom = kav_open_domain();
	if (env->dom < 0 || on == ON_DOMAIN)
		return env->dom < 0 ? -1 : env->dom;
	env->av = kav_create_av(env->dom, KAV_ADDR_SOCKADDR_IN, NULL);
	if (env->av < 0)
		return -1;
	env->sin = kav_sin(0x0a000001u, 5000);
	if (kav_insert_in(env->av, &env->sin, 1, &env->fi_addr, NULL))
		return -1;
	if (on == ON_AV)
		return env->av;
	if (ioctl(env->av, KAV_IOC_AV_EP_OPEN, &eo))
		return -1;
	env->ep = eo.fd;
	return env->ep;
}

/*
 * One call on objects of its own: the argument filled for the command,
 * its size field set to @size, and the @tail bytes from sizeof() on set
 * to @fill. Returns 0 or the errno; -1 if the objects could not be made.
 * @after (may be NULL) receives the @tail bytes after the call.
 */
static int size_call(const FIXTURE_VARIANT(size) *v, char *buf,
		     uint32_t size, size_t tail, int fill, unsigned char *after)
{
	struct size_env env;
	int fd, ret;

	memset(buf, 0, 2 * PAGE);
	fd = env_open(&env, v->on);
	if (fd < 0 || v->fill(&env, buf)) {
		env_close(&env);
		return -1;
	}
	memset(buf + v->size, fill, tail);
	memcpy(buf, &size, sizeof(size));
	ret = ioctl(fd, v->cmd, buf) ? errno : 0;
	if (after)
		memcpy(after, buf + v->size, tail);
	if (!ret && v->done)
		v->done(buf);
	env_close(&env);
	return ret;
}

/* Below version 1's end, down to 0: EINVAL, whatever follows. */
TEST_F(size, too_small)
{
	uint32_t sizes[] = { 0, 1, 4, variant->min_size - 1 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		EXPECT_EQ(EINVAL, size_call(variant, self->buf, sizes[i], 0, 0,
					    NULL)) {
			TH_LOG("%s size %u", variant->ioctl_name, sizes[i]);
		}
	}
}

/* A byte past sizeof() that the kernel does not know: E2BIG. */
TEST_F(size, trailing_nonzero)
{
	static const size_t tails[] = { 1, 8, 64 };
	size_t i;

	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		EXPECT_EQ(E2BIG, size_call(variant, self->buf,
					   variant->size + tails[i], tails[i],
					   0xff, NULL)) {
			TH_LOG("%s size sizeof + %zu, bytes 0xff",
			       variant->ioctl_name, tails[i]);
		}
	}
	/* Only the last byte set. */
	memset(self->buf, 0, 2 * PAGE);
	{
		struct size_env env;
		uint32_t sz = variant->size + 16;
		int fd = env_open(&env, variant->on);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, variant->fill(&env, self->buf));
		memcpy(self->buf, &sz, sizeof(sz));
		self->buf[sz - 1] = 1;
		EXPECT_EQ(-1, ioctl(fd, variant->cmd, self->buf));
		EXPECT_EQ(E2BIG, errno);
		env_close(&env);
	}
}

/* Larger than a page, even all zero past sizeof(): E2BIG. */
TEST_F(size, over_page)
{
	EXPECT_EQ(E2BIG, size_call(variant, self->buf, PAGE + 1,
				   PAGE + 1 - variant->size, 0, NULL));
}

/* Zero bytes past sizeof(): the exact-size call, and none written. */
TEST_F(size, trailing_zero)
{
	static const size_t tails[] = { 1, 8, 256 };
	unsigned char after[256];
	size_t i, j;

	ASSERT_EQ(variant->expect, size_call(variant, self->buf, variant->size,
					     0, 0, NULL));
	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		EXPECT_EQ(variant->expect,
			  size_call(variant, self->buf, variant->size + tails[i],
				    tails[i], 0, after)) {
			TH_LOG("%s size sizeof + %zu, bytes 0",
			       variant->ioctl_name, tails[i]);
		}
		for (j = 0; j < tails[i]; j++)
			EXPECT_EQ(0, after[j]) {
				TH_LOG("%s: byte sizeof + %zu written",
				       variant->ioctl_name, j);
			}
	}
}

/* The oldest accepted structure, version 1: as the exact size. */
TEST_F(size, version_1)
{
	ASSERT_LE(variant->min_size, variant->size);
	EXPECT_EQ(variant->expect, size_call(variant, self->buf,
					     variant->min_size, 0, 0, NULL));
}

TEST_HARNESS_MAIN
