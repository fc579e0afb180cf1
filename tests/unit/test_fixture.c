// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The shared unit-test fixture: see test_fixture.h. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_fixture.h"
#include "fake_kav.h"

struct fid_domain *test_open_domain_attr(uint32_t format,
					 struct fi_domain_attr *dattr)
{
	struct fid_domain *dom;
	struct fi_info info;

	memset(&info, 0, sizeof(info));
	info.addr_format = format;
	info.domain_attr = dattr;
	setenv("KAV_DEVICE", "/dev/null", 1);
	assert_int_equal(kav_domain_open(&info, &dom, NULL), 0);
	unsetenv("KAV_DEVICE");
	return dom;
}

struct fid_domain *test_open_domain(uint32_t format, size_t key_size)
{
	struct fi_domain_attr dattr;

	memset(&dattr, 0, sizeof(dattr));
	dattr.auth_key_size = key_size;
	return test_open_domain_attr(format, &dattr);
}

struct av_fixture *av_fixture_open(void **state, uint32_t format,
				     struct fi_domain_attr *dattr,
				     struct fi_av_attr *attr)
{
	struct av_fixture *f = calloc(1, sizeof(*f));

	fake_kav_install();
	f->dom = test_open_domain_attr(format, dattr);
	if (attr)
		assert_int_equal(fi_av_open(f->dom, attr, &f->av, NULL), 0);
	*state = f;
	return f;
}

int av_teardown(void **state)
{
	struct av_fixture *f = *state;

	if (f->av)
		assert_int_equal(fi_close(&f->av->fid), 0);
	assert_int_equal(fi_close(&f->dom->fid), 0);
	fake_kav_reset();
	free(f);
	return 0;
}

void test_capture_stderr(void (*fn)(void *), void *arg, char *buf,
			 size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}
