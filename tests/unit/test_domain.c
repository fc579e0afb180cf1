// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav_domain_open(), kav_strerror(), errno mapping, logging, and the
 * domain's libfabric ops, all without a kav kernel module.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rdma/fi_endpoint.h>

#include "test_fixture.h"

struct open_call {
	struct fi_info info;
	struct fid_domain *dom;
	int ret;
};

static void do_open(void *arg)
{
	struct open_call *c = arg;

	c->ret = kav_domain_open(&c->info, &c->dom, NULL);
}

static void test_missing_device(void **state)
{
	struct open_call c;
	char log[1024];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.info.addr_format = FI_SOCKADDR_IN;
	c.dom = (struct fid_domain *)&c;	/* must be cleared */
	setenv("KAV_DEVICE", "/nonexistent/kav-test-device", 1);
	test_capture_stderr(do_open, &c, log, sizeof(log));
	unsetenv("KAV_DEVICE");

	assert_int_equal(c.ret, -FI_ENODEV);
	assert_null(c.dom);
	/* One line, prefixed, naming the path and how to fix it. */
	assert_non_null(strstr(log, "libkav: "));
	assert_non_null(strstr(log, "/nonexistent/kav-test-device"));
	assert_non_null(strstr(log, "modprobe kav"));
	assert_non_null(strstr(kav_strerror(c.ret), "not loaded"));
	assert_non_null(strstr(kav_strerror(c.ret), "modprobe kav"));
	assert_non_null(strstr(kav_strerror(c.ret), "insmod kav.ko"));
	assert_string_equal(kav_strerror(FI_ENODEV), kav_strerror(-FI_ENODEV));
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(kav_strerror(0), "Success");
	assert_non_null(strstr(kav_strerror(-FI_EACCES),
			       "no grant for this auth key: ask the "
			       "administrator (kavctl grant add ...)"));
	assert_string_equal(kav_strerror(-FI_EKEYREJECTED),
			    "auth key revoked by the administrator");
	assert_non_null(strstr(kav_strerror(-FI_ENOSYS), "address vectors"));
	assert_non_null(strstr(kav_strerror(-FI_EBUSY), "close"));
	assert_non_null(strstr(kav_strerror(-FI_EBUSY), "endpoints"));
	assert_non_null(strstr(kav_strerror(-FI_EALREADY), "handle"));
	assert_non_null(strstr(kav_strerror(-FI_ENOKEY), "auth key"));
	assert_non_null(strstr(kav_strerror(-FI_ENOEQ), "fi_av_bind"));
	assert_non_null(strstr(kav_strerror(-FI_ENOSPC), "auth-key"));
	assert_string_equal(kav_strerror(-FI_ETRUNC), "Truncation error");
	assert_string_equal(kav_strerror(-FI_ENOAV),
			    "Missing or unavailable address vector");
	/* Generic fallback for plain errno values, and for nonsense. */
	assert_string_equal(kav_strerror(-EEXIST), "File exists");
	assert_string_equal(kav_strerror(-99999), "Unknown error");
	assert_string_equal(kav_strerror(INT32_MIN + 1), "Unknown error");
	assert_string_equal(kav_strerror(INT32_MIN), "Unknown error");
}

static void test_errno_mapping(void **state)
{
	(void)state;
	assert_int_equal(kav_err_from_open_errno(ENOENT), -FI_ENODEV);
	assert_int_equal(kav_err_from_open_errno(ENXIO), -FI_ENODEV);
	assert_int_equal(kav_err_from_open_errno(ENODEV), -FI_ENODEV);
	assert_int_equal(kav_err_from_open_errno(EACCES), -FI_EACCES);
	assert_int_equal(kav_err_from_open_errno(EPERM), -FI_EACCES);
	assert_int_equal(kav_err_from_open_errno(EMFILE), -FI_EMFILE);
	assert_int_equal(kav_err_from_errno(ENOSPC), -FI_ENOSPC);
	assert_int_equal(kav_err_from_errno(ENOTTY), -FI_ENOSYS);
	assert_int_equal(kav_err_from_errno(EINVAL), -FI_EINVAL);
	assert_int_equal(kav_err_from_errno(0), -FI_EOTHER);
	assert_int_equal(kav_err_from_errno(EACCES), -FI_EACCES);
	assert_int_equal(kav_err_from_errno(EKEYREVOKED), -FI_EKEYREJECTED);
}

static void test_log_levels(void **state)
{
	(void)state;
	assert_int_equal(kav_log_parse_level("none"), KAV_LOG_NONE);
	assert_int_equal(kav_log_parse_level("warn"), KAV_LOG_WARN);
	assert_int_equal(kav_log_parse_level("info"), KAV_LOG_INFO);
	assert_int_equal(kav_log_parse_level("DEBUG"), KAV_LOG_DEBUG);
	assert_int_equal(kav_log_parse_level(NULL), KAV_LOG_WARN);
	assert_int_equal(kav_log_parse_level("verbose"), KAV_LOG_WARN);
}

static void test_bad_arguments(void **state)
{
	struct fi_domain_attr dattr;
	struct fid_domain *dom = NULL;
	struct fi_info info;
	uint8_t key[4] = { 1, 2, 3, 4 };
	uint8_t kkey[8] = { 1, 0, 0, 0, 1, 0, 0, 0 };

	(void)state;
	memset(&info, 0, sizeof(info));
	assert_int_equal(kav_domain_open(NULL, &dom, NULL), -FI_EINVAL);
	assert_int_equal(kav_domain_open(&info, NULL, NULL), -FI_EINVAL);
	info.addr_format = FI_SOCKADDR_IB;
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	info.addr_format = FI_ADDR_PSMX2;
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	assert_null(dom);
	/* A domain key is a struct kav_auth_key, nothing else. */
	memset(&dattr, 0, sizeof(dattr));
	dattr.auth_key = key;
	dattr.auth_key_size = sizeof(key);
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	dattr.auth_key_size = sizeof(struct kav_auth_key) + 1;
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	dattr.auth_key = NULL;		/* a size alone is a key too */
	dattr.auth_key_size = sizeof(struct kav_auth_key);
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	dattr.auth_key = kkey;		/* __reserved must be 0 */
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	dattr.auth_key_size = 0;	/* a key alone too */
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	/* FI_AV_AUTH_KEY: keys come per AV; the domain key must be NULL. */
	dattr.auth_key = key;
	dattr.auth_key_size = FI_AV_AUTH_KEY;
	assert_int_equal(kav_domain_open(&info, &dom, NULL), -FI_EINVAL);
	assert_null(dom);
}

static void do_open_key(void *arg)
{
	struct open_call *c = arg;

	c->ret = kav_domain_open(&c->info, &c->dom, NULL);
}

static void test_av_auth_key_domain(void **state)
{
	struct fi_domain_attr dattr;
	struct open_call c;
	uint8_t key[8] = { 1 };
	char log[1024];

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&dattr, 0, sizeof(dattr));
	c.info.addr_format = FI_SOCKADDR_IN;
	c.info.domain_attr = &dattr;
	dattr.auth_key_size = FI_AV_AUTH_KEY;
	setenv("KAV_DEVICE", "/dev/null", 1);
	assert_int_equal(kav_domain_open(&c.info, &c.dom, NULL), 0);
	assert_true(((struct kav_fid_domain *)c.dom)->av_auth_key);
	assert_int_equal(fi_close(&c.dom->fid), 0);
	c.dom = NULL;
	dattr.auth_key_size = 0;
	assert_int_equal(kav_domain_open(&c.info, &c.dom, NULL), 0);
	assert_false(((struct kav_fid_domain *)c.dom)->av_auth_key);
	assert_int_equal(fi_close(&c.dom->fid), 0);
	c.dom = NULL;
	/*
	 * A domain-wide key goes to the kernel (KAV_IOC_DOMAIN_SET_KEY); a
	 * device without that ioctl (here /dev/null: ENOTTY) makes the open
	 * fail, saying why, rather than run without the key.
	 */
	dattr.auth_key = key;
	dattr.auth_key_size = sizeof(key);
	test_capture_stderr(do_open_key, &c, log, sizeof(log));
	unsetenv("KAV_DEVICE");
	assert_int_equal(c.ret, -FI_ENOSYS);
	assert_null(c.dom);
	assert_non_null(strstr(log, "older than libkav"));
}

/*
 * /dev/null opens like a device but answers every ioctl with ENOTTY: the
 * domain works, AV creation reports "not a kav device".
 */
static void test_domain_ops(void **state)
{
	struct fi_av_attr attr;
	struct kav_fid_domain *kd;
	struct fid_domain *dom;
	struct fi_info info;
	struct fid_av *av = NULL;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	int ctx;

	(void)state;
	memset(&info, 0, sizeof(info));
	info.addr_format = FI_FORMAT_UNSPEC;
	setenv("KAV_DEVICE", "/dev/null", 1);
	assert_int_equal(kav_domain_open(&info, &dom, &ctx), 0);
	unsetenv("KAV_DEVICE");

	assert_int_equal(dom->fid.fclass, FI_CLASS_DOMAIN);
	assert_ptr_equal(dom->fid.context, &ctx);
	kd = (struct kav_fid_domain *)dom;
	assert_int_equal(kd->addr_format, FI_SOCKADDR);	/* UNSPEC default */
	assert_true(kd->fd >= 0);

	/* libfabric's inlines dispatch into our stubs. */
	assert_int_equal(fi_cq_open(dom, NULL, &cq, NULL), -FI_ENOSYS);
	assert_int_equal(fi_endpoint(dom, NULL, &ep, NULL), -FI_ENOSYS);
	assert_int_equal(fi_scalable_ep(dom, NULL, &ep, NULL), -FI_ENOSYS);
	assert_int_equal(fi_mr_reg(dom, &ctx, 1, 0, 0, 0, 0, &mr, NULL),
			 -FI_ENOSYS);
	assert_int_equal(fi_domain_bind(dom, NULL, 0), -FI_ENOSYS);
	assert_int_equal(fi_control(&dom->fid, FI_GETWAIT, NULL), -FI_ENOSYS);
	assert_int_equal(fi_set_ops(&dom->fid, "x", 0, NULL, NULL),
			 -FI_ENOSYS);

	/* fi_av_open argument checks come before the kernel. */
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(fi_av_open(dom, NULL, &av, NULL), -FI_EINVAL);
	attr.type = (enum fi_av_type)7;
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.type = FI_AV_TABLE;
	attr.name = "job42";
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_ENOSYS);
	attr.flags = FI_READ;
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_ENOSYS);
	attr.name = NULL;		/* FI_READ needs a name */
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = FI_WRITE;		/* not an AV flag */
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = 0;
	attr.rx_ctx_bits = -1;
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.rx_ctx_bits = KAV_RX_CTX_BITS_MAX + 1;
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.rx_ctx_bits = 0;
	attr.type = FI_AV_UNSPEC;
	/* Not a kav device: ENOTTY becomes -FI_ENOSYS. */
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), -FI_ENOSYS);
	assert_null(av);
	assert_int_equal(attr.type, FI_AV_UNSPEC);	/* untouched on error */

	assert_int_equal(fi_close(&dom->fid), 0);
}

int main(void)
{
	/* test_missing_device reads the warning; KAV_LOG=none would hide it. */
	if (kav_log_parse_level(getenv("KAV_LOG")) < KAV_LOG_WARN)
		setenv("KAV_LOG", "warn", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_device),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_errno_mapping),
		cmocka_unit_test(test_log_levels),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_av_auth_key_domain),
		cmocka_unit_test(test_domain_ops),
	};

	return cmocka_run_group_tests_name("domain", tests, NULL, NULL);
}
