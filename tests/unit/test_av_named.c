// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Named AVs in the library: what fi_av_open() asks the kernel for
 * (name, KAV_AV_RDONLY, $KAV_AV_MODE, $KAV_AV_OWNER), FI_READ's count
 * check and map_addr, against the fake kernel, which scopes names per
 * owner as the kernel does. Sharing between processes and namespaces is
 * the real kernel's and is tested in the VM (kav_named_test).
 */
#include <stdio.h>
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"

static int setup(void **state)
{
	av_fixture_open(state, FI_SOCKADDR_IN, NULL, NULL);
	unsetenv(KAV_AV_MODE_ENV);
	unsetenv(KAV_AV_OWNER_ENV);
	return 0;
}

static int teardown(void **state)
{
	unsetenv(KAV_AV_MODE_ENV);
	unsetenv(KAV_AV_OWNER_ENV);
	return av_teardown(state);
}

/* A domain of the fake kernel with the identity uid/gid. */
static struct fid_domain *open_domain_as(uint32_t uid, uint32_t gid)
{
	struct fid_domain *dom = test_open_domain(FI_SOCKADDR_IN, 0);

	fake_kav_domain_identity(((struct kav_fid_domain *)dom)->fd, uid, gid);
	return dom;
}

static int open_named(struct fid_domain *dom, const char *name,
		      uint64_t flags, struct fid_av **av)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = name,
				   .flags = flags };

	*av = NULL;
	return fi_av_open(dom, &attr, av, NULL);
}

static void test_mode_parse(void **state)
{
	uint32_t mode = 1;

	(void)state;
	assert_int_equal(kav_av_mode_parse(NULL, &mode), 0);
	assert_int_equal(mode, 0);
	assert_int_equal(kav_av_mode_parse("", &mode), 0);
	assert_int_equal(mode, 0);
	assert_int_equal(kav_av_mode_parse("0640", &mode), 0);
	assert_int_equal(mode, 0640);
	assert_int_equal(kav_av_mode_parse("666", &mode), 0);
	assert_int_equal(mode, 0666);
	assert_int_equal(kav_av_mode_parse("4", &mode), 0);
	assert_int_equal(mode, 04);
	/* Execute bits, non-octal digits, signs, too long. */
	assert_int_equal(kav_av_mode_parse("0700", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("0601", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("0680", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("rw", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("-600", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("00600", &mode), -FI_EINVAL);
	assert_int_equal(kav_av_mode_parse("4000", &mode), -FI_EINVAL);
}

static void test_create_request(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE,
				   .name = "FI_NAMED_AV_0\n" };
	const struct kav_av_create *req = &fake_kav_stats.last_create;
	struct fid_av *av;

	setenv(KAV_AV_MODE_ENV, "0640", 1);
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(req->flags, KAV_AV_NAMED);
	assert_int_equal(req->name_len, 14);	/* the newline is the name's */
	assert_string_equal(fake_kav_stats.last_name, "FI_NAMED_AV_0\n");
	assert_int_equal(req->mode, 0640);
	/* map_addr: the fi_addr array of the mapping. */
	assert_ptr_equal(attr.map_addr,
			 kav_table_fi_addrs(&kav_av_from_fid(av)->table));
	assert_int_equal(fi_close(&av->fid), 0);

	/* No $KAV_AV_MODE: 0 asks for the kernel's default (0600). */
	unsetenv(KAV_AV_MODE_ENV);
	attr.map_addr = NULL;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(req->mode, 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_bad_requests(void **state)
{
	struct av_fixture *f = *state;
	char longname[KAV_NAME_MAX + 2];
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "" };
	unsigned int creates = fake_kav_stats.creates;
	struct fid_av *av;

	/* Empty and too-long names, and a bad mode, never reach the kernel. */
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	attr.name = longname;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	longname[KAV_NAME_MAX] = '\0';		/* exactly the limit */
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(fi_close(&av->fid), 0);
	creates++;
	attr.name = "job";
	assert_int_equal(fi_av_open(f->dom, &attr, &f->av, NULL), 0);
	creates++;
	setenv(KAV_AV_MODE_ENV, "0755", 1);
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.creates, creates);
	/* FI_READ does not create, so it takes no mode. */
	attr.flags = FI_READ;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_read_only_count(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "job",
				   .flags = FI_READ };
	const struct kav_av_create *req = &fake_kav_stats.last_create;
	int map_addr_given;
	struct fid_av *av;

	/* FI_READ never creates. */
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_ENOENT);
	assert_int_equal(req->flags, KAV_AV_NAMED | KAV_AV_RDONLY);
	assert_int_equal(open_named(f->dom, "job", 0, &f->av), 0);
	/* The new AV is empty: count 0 is fine, 1 is not filled. */
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(req->flags, KAV_AV_NAMED | KAV_AV_RDONLY);
	assert_int_equal(req->mode, 0);
	assert_non_null(attr.map_addr);
	assert_int_equal(fi_close(&av->fid), 0);
	attr.count = 1;
	attr.map_addr = NULL;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EAGAIN);
	assert_null(attr.map_addr);
	/* A map_addr given is kept: fi_addr_t values never depend on it. */
	attr.count = 0;
	attr.map_addr = &map_addr_given;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_ptr_equal(attr.map_addr, &map_addr_given);
	assert_int_equal(fi_close(&av->fid), 0);
}

/* The fi_addr array follows inserts and removes. */
static void test_fi_addr_array(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "job" };
	struct sockaddr_in in[3];
	const fi_addr_t *map;
	fi_addr_t fa[3];
	struct fid_av *av;
	int i;

	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	map = attr.map_addr;
	for (i = 0; i < 3; i++)
		in[i] = test_sin("10.0.0.1", (uint16_t)(100 + i));
	assert_int_equal(fi_av_insert(av, in, 3, fa, 0, NULL), 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(map[i], fa[i]);
	assert_int_equal(fi_av_remove(av, &fa[1], 1, 0), 0);
	assert_int_equal(map[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(map[2], fa[2]);
	assert_int_equal(fi_close(&av->fid), 0);
}

static void test_owner_parse(void **state)
{
	static const char *const bad[] = {
		"-1", "+5", " 1", "1 ", "0x10", "abc", "1e3", "4294967295",
		"4294967296", "99999999999", "00000000001", "root",
	};
	uint32_t uid = 7;
	bool set = true;
	size_t i;

	(void)state;
	assert_int_equal(kav_av_owner_parse(NULL, &set, &uid), 0);
	assert_false(set);
	assert_int_equal(kav_av_owner_parse("", &set, &uid), 0);
	assert_false(set);
	assert_int_equal(kav_av_owner_parse("0", &set, &uid), 0);
	assert_true(set);
	assert_int_equal(uid, 0);
	assert_int_equal(kav_av_owner_parse("1000", &set, &uid), 0);
	assert_int_equal(uid, 1000);
	assert_int_equal(kav_av_owner_parse("4294967294", &set, &uid), 0);
	assert_int_equal(uid, 4294967294u);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set = true;
		assert_int_equal(kav_av_owner_parse(bad[i], &set, &uid),
				 -FI_EINVAL);
		assert_false(set);
	}
}

struct open_args {
	struct fid_domain *dom;
	uint64_t flags;
	int ret;
};

static void do_open_job(void *arg)
{
	struct open_args *a = arg;
	struct fid_av *av;

	a->ret = open_named(a->dom, "job", a->flags, &av);
}

/* $KAV_AV_OWNER: KAV_AV_OWNER and owner_uid; a bad value never reaches
 * the kernel and says why. */
static void test_owner_request(void **state)
{
	struct av_fixture *f = *state;
	const struct kav_av_create *req = &fake_kav_stats.last_create;
	struct open_args a = { .dom = f->dom };
	unsigned int creates;
	char log[1024];
	struct fid_av *av;

	setenv(KAV_AV_OWNER_ENV, "4321", 1);
	assert_int_equal(open_named(f->dom, "job", 0, &av), -FI_ENOENT);
	assert_int_equal(req->flags, KAV_AV_NAMED | KAV_AV_OWNER);
	assert_int_equal(req->owner_uid, 4321);
	assert_int_equal(open_named(f->dom, "job", FI_READ, &av), -FI_ENOENT);
	assert_int_equal(req->flags,
			 KAV_AV_NAMED | KAV_AV_OWNER | KAV_AV_RDONLY);
	assert_int_equal(req->owner_uid, 4321);
	/* Not a named AV: no owner. */
	assert_int_equal(fi_av_open(f->dom, &(struct fi_av_attr){
					.type = FI_AV_TABLE }, &av, NULL), 0);
	assert_int_equal(req->flags, 0);
	assert_int_equal(req->owner_uid, 0);
	assert_int_equal(fi_close(&av->fid), 0);

	creates = fake_kav_stats.creates;
	setenv(KAV_AV_OWNER_ENV, "alice", 1);
	test_capture_stderr(do_open_job, &a, log, sizeof(log));
	assert_int_equal(a.ret, -FI_EINVAL);
	assert_non_null(strstr(log, "KAV_AV_OWNER=alice"));
	assert_non_null(strstr(log, "numeric uid"));
	setenv(KAV_AV_OWNER_ENV, "-1", 1);
	a.flags = FI_READ;
	test_capture_stderr(do_open_job, &a, log, sizeof(log));
	assert_int_equal(a.ret, -FI_EINVAL);
	assert_non_null(strstr(log, "KAV_AV_OWNER=-1"));
	assert_int_equal(fake_kav_stats.creates, creates);
	/* Empty is unset: the caller's own names. */
	setenv(KAV_AV_OWNER_ENV, "", 1);
	assert_int_equal(open_named(f->dom, "job", 0, &av), 0);
	assert_int_equal(req->flags, KAV_AV_NAMED);
	assert_int_equal(req->result, KAV_AV_CREATED);
	assert_int_equal(fi_close(&av->fid), 0);
}

/*
 * Names per owner: a squatter's name is not the victim's; another user's
 * AV opens only with $KAV_AV_OWNER, never creates, and its mode decides.
 */
static void test_owner_scoping(void **state)
{
	struct av_fixture *f = *state;
	const struct kav_av_create *req = &fake_kav_stats.last_create;
	struct fid_domain *victim, *squatter, *peer, *stranger;
	struct fid_av *sq_av, *v_av, *p_av, *av;
	struct sockaddr_in in = test_sin("10.0.0.9", 9);
	const fi_addr_t *map;
	fi_addr_t fa;

	(void)f;
	victim = open_domain_as(1000, 100);
	squatter = open_domain_as(3000, 300);
	peer = open_domain_as(2000, 100);	/* the victim's group */
	stranger = open_domain_as(4000, 400);

	/* The squatter takes the job's name first, mode 0666 ... */
	setenv(KAV_AV_MODE_ENV, "0666", 1);
	assert_int_equal(open_named(squatter, "FI_NAMED_AV_7\n", 0, &sq_av),
			 0);
	assert_int_equal(req->result, KAV_AV_CREATED);
	/* ... and the victim still creates its own, fresh AV. */
	setenv(KAV_AV_MODE_ENV, "0640", 1);
	assert_int_equal(open_named(victim, "FI_NAMED_AV_7\n", 0, &v_av), 0);
	assert_int_equal(req->result, KAV_AV_CREATED);
	assert_ptr_not_equal(fake_kav_table(kav_av_fd(v_av)),
			     fake_kav_table(kav_av_fd(sq_av)));
	assert_int_equal(fi_av_insert(v_av, &in, 1, &fa, 0, NULL), 1);
	unsetenv(KAV_AV_MODE_ENV);

	/* Without $KAV_AV_OWNER the peer looks in its own names. */
	assert_int_equal(open_named(peer, "FI_NAMED_AV_7\n", FI_READ, &av),
			 -FI_ENOENT);
	/* With it: the victim's AV, read-only through the group bits. */
	setenv(KAV_AV_OWNER_ENV, "1000", 1);
	assert_int_equal(open_named(peer, "FI_NAMED_AV_7\n", FI_READ, &p_av),
			 0);
	assert_int_equal(req->result, 0);
	assert_ptr_equal(fake_kav_table(kav_av_fd(p_av)),
			 fake_kav_table(kav_av_fd(v_av)));
	map = kav_table_fi_addrs(&kav_av_from_fid(p_av)->table);
	assert_int_equal(map[fa], fa);
	/* 0640: no group write; a stranger is "other", with nothing. */
	assert_int_equal(open_named(peer, "FI_NAMED_AV_7\n", 0, &av),
			 -FI_EACCES);
	assert_int_equal(open_named(stranger, "FI_NAMED_AV_7\n", FI_READ,
				    &av), -FI_EACCES);
	/* Another user's names are never created in. */
	assert_int_equal(open_named(peer, "other", 0, &av), -FI_ENOENT);
	assert_int_equal(req->flags, KAV_AV_NAMED | KAV_AV_OWNER);
	/* The owner's own uid in $KAV_AV_OWNER is the default scope ... */
	assert_int_equal(open_named(victim, "FI_NAMED_AV_7\n", 0, &av), 0);
	assert_int_equal(req->result, 0);
	assert_int_equal(fi_close(&av->fid), 0);
	/* ... where it creates. */
	assert_int_equal(open_named(victim, "fresh", 0, &av), 0);
	assert_int_equal(req->flags, KAV_AV_NAMED | KAV_AV_OWNER);
	assert_int_equal(req->result, KAV_AV_CREATED);
	assert_int_equal(fi_close(&av->fid), 0);
	unsetenv(KAV_AV_OWNER_ENV);

	/* Once the last fd is gone, so is the name. */
	assert_int_equal(fi_close(&p_av->fid), 0);
	assert_int_equal(fi_close(&v_av->fid), 0);
	assert_int_equal(open_named(victim, "FI_NAMED_AV_7\n", FI_READ, &av),
			 -FI_ENOENT);
	assert_int_equal(fi_close(&sq_av->fid), 0);
	assert_int_equal(fi_close(&victim->fid), 0);
	assert_int_equal(fi_close(&squatter->fid), 0);
	assert_int_equal(fi_close(&peer->fid), 0);
	assert_int_equal(fi_close(&stranger->fid), 0);
}

/* A read-only AV only maps: no changes, and no endpoint objects. */
static void test_read_only_no_ep(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	struct kav_ep *ep = NULL;
	fi_addr_t fa = 0;
	struct fid_av *ro;

	assert_int_equal(open_named(f->dom, "job", 0, &f->av), 0);
	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(open_named(f->dom, "job", FI_READ, &ro), 0);
	assert_int_equal(kav_ep_open(ro, &ep), -FI_EPERM);
	assert_null(ep);
	assert_int_equal(fi_av_remove(ro, &fa, 1, 0), -FI_EPERM);
	assert_int_equal(fi_av_insert(ro, &in, 1, NULL, 0, NULL), 0);
	/* Through the writable fd, all of it works. */
	assert_int_equal(kav_ep_open(f->av, &ep), 0);
	assert_int_equal(kav_ep_close(ep), 0);
	assert_int_equal(fi_close(&ro->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_parse),
		cmocka_unit_test_setup_teardown(test_create_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_only_count, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fi_addr_array, setup,
						teardown),
		cmocka_unit_test(test_owner_parse),
		cmocka_unit_test_setup_teardown(test_owner_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_owner_scoping, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_only_no_ep, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
