/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared fixture of the unit tests that run libkav against the fake
 * kernel of fake_kav.c: a domain, usually an AV in it (test_fixture.c).
 */
#ifndef TEST_FIXTURE_H
#define TEST_FIXTURE_H

#include "test_common.h"

struct kav_fid_av;

struct av_fixture {
	struct fid_domain *dom;
	struct fid_av *av;
	void *table;			/* the fake kernel's view, if wanted */
	struct kav_fid_av *kav;	/* kav_av_from_fid(av), if wanted */
};

/*
 * A domain on the fake kernel (installed by the caller) for @format, its
 * fi_info pointing at @dattr (NULL: no domain attributes).
 */
struct fid_domain *test_open_domain_attr(uint32_t format,
					 struct fi_domain_attr *dattr);
/* The same with zeroed domain attributes but for @key_size. */
struct fid_domain *test_open_domain(uint32_t format, size_t key_size);

/*
 * Installs the fake kernel and opens a domain (as test_open_domain_attr())
 * and, if @attr is not NULL, an AV in it. *@state is the new fixture.
 */
struct av_fixture *av_fixture_open(void **state, uint32_t format,
				     struct fi_domain_attr *dattr,
				     struct fi_av_attr *attr);
/* Closes the fixture's AV (if any) and domain; resets the fake kernel. */
int av_teardown(void **state);

/* Runs @fn with stderr captured into @buf. */
void test_capture_stderr(void (*fn)(void *), void *arg, char *buf,
			 size_t len);

#endif
