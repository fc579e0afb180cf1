// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Named AVs in the library: what fi_av_open() asks the kernel for
 * (name, KAV_AV_RDONLY, $KAV_AV_MODE), FI_READ's count check and
 * map_addr, against the fake kernel. Sharing between processes, modes and
 * namespaces are the real kernel's and are tested in the VM
 * (kav_named_test).
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"

static int setup(void **state)
{
	av_fixture_open(state, FI_SOCKADDR_IN, NULL, NULL);
	unsetenv(KAV_AV_MODE_ENV);
	return 0;
}

static int teardown(void **state)
{
	unsetenv(KAV_AV_MODE_ENV);
	return av_teardown(state);
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

	/* The fake's new AV is empty: count 0 is fine, 1 is not filled. */
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
