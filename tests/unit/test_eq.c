// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav event queue (lib/eq.c) through libfabric's own inline calls:
 * ordering, -FI_EAVAIL, FI_PEEK, sread timeouts, user writes, capacity,
 * overrun, close while bound; and an FI_EVENT AV reporting through it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "test_fixture.h"
#include "fake_kav.h"
#include "kav_eq_priv.h"

struct fixture {
	struct fid_domain *dom;
	struct fid av_fid;		/* a stand-in AV fid for posts */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	fake_kav_install();
	f->dom = test_open_domain_attr(FI_SOCKADDR_IN, NULL);
	f->av_fid.fclass = FI_CLASS_AV;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kav_eq_fail_grow = 0;
	assert_int_equal(fi_close(&f->dom->fid), 0);
	fake_kav_reset();
	free(f);
	return 0;
}

static struct fid_eq *open_eq(struct fixture *f, size_t size, uint64_t flags,
			      enum fi_wait_obj wait_obj)
{
	struct fi_eq_attr attr = {
		.size = size, .flags = flags, .wait_obj = wait_obj,
	};
	struct fid_eq *eq = NULL;

	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), 0);
	assert_non_null(eq);
	return eq;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_open_args(void **state)
{
	struct fixture *f = *state;
	struct fi_eq_attr attr = { 0 };
	struct fid_domain fake_dom;
	struct fid_eq *eq;
	int ctx;

	assert_int_equal(kav_eq_open(NULL, &attr, &eq, NULL), -FI_EINVAL);
	assert_int_equal(kav_eq_open(f->dom, &attr, NULL, NULL), -FI_EINVAL);
	/* A domain that is not kav's. */
	memset(&fake_dom, 0, sizeof(fake_dom));
	fake_dom.fid.fclass = FI_CLASS_DOMAIN;
	fake_dom.ops = f->dom->ops;		/* kav's av_open, not kav's fid */
	assert_int_equal(kav_eq_open(&fake_dom, &attr, &eq, NULL), -FI_EINVAL);
	/* An AV-looking fid with kav's domain ops is still not a domain. */
	fake_dom = *f->dom;
	fake_dom.fid.fclass = FI_CLASS_AV;
	assert_int_equal(kav_eq_open(&fake_dom, &attr, &eq, NULL), -FI_EINVAL);

	attr.flags = FI_READ;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), -FI_EINVAL);
	attr.flags = 0;
	attr.wait_obj = FI_WAIT_FD;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), -FI_ENOSYS);
	attr.wait_obj = FI_WAIT_SET;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), -FI_ENOSYS);
	attr.wait_obj = FI_WAIT_MUTEX_COND;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), -FI_ENOSYS);
	attr.wait_obj = (enum fi_wait_obj)77;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), -FI_EINVAL);

	/* NULL attr: defaults; FI_AFFINITY is accepted as a hint. */
	assert_int_equal(kav_eq_open(f->dom, NULL, &eq, &ctx), 0);
	assert_int_equal(eq->fid.fclass, FI_CLASS_EQ);
	assert_ptr_equal(eq->fid.context, &ctx);
	assert_true(kav_eq_is(&eq->fid));
	assert_false(kav_eq_is(&f->dom->fid));
	assert_false(kav_eq_is(NULL));
	assert_int_equal(fi_close(&eq->fid), 0);
	attr.wait_obj = FI_WAIT_UNSPEC;
	attr.flags = FI_AFFINITY | FI_WRITE;
	attr.signaling_vector = 3;
	assert_int_equal(kav_eq_open(f->dom, &attr, &eq, NULL), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_empty(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_NONE);
	struct fi_eq_entry e;
	struct fi_eq_err_entry err;
	uint32_t ev;

	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAGAIN);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), FI_PEEK),
			 -FI_EAGAIN);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);
	/* Argument checks. */
	assert_int_equal(fi_eq_read(eq, &ev, NULL, sizeof(e), 0), -FI_EINVAL);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), FI_WRITE),
			 -FI_EINVAL);
	assert_int_equal(fi_eq_readerr(eq, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_eq_readerr(eq, &err, FI_WRITE), -FI_EINVAL);
	/* No wait object: sread is not available. */
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 0, 0),
			 -FI_ENOSYS);
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* What an insert of 4 addresses with #1 and #3 failing posts. */
static void post_insert(struct fixture *f, struct fid_eq *eq, void *ctx)
{
	assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid, ctx, 1,
					      FI_EINVAL), 0);
	assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid, ctx, 3,
					      FI_EADDRNOTAVAIL), 0);
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, ctx, 2), 0);
}

static void test_errors_before_completion(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_NONE);
	struct fi_eq_err_entry err;
	struct fi_eq_entry e;
	uint32_t ev = 0;
	int ctx;

	post_insert(f, eq, &ctx);

	/* The head is an error: read refuses, with or without peek. */
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAVAIL);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), FI_PEEK),
			 -FI_EAVAIL);

	/* Peek leaves the error in place. */
	memset(&err, 0xa5, sizeof(err));
	err.err_data_size = 0;
	assert_int_equal(fi_eq_readerr(eq, &err, FI_PEEK), sizeof(err));
	assert_int_equal(err.data, 1);
	memset(&err, 0xa5, sizeof(err));
	err.err_data_size = 0;
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_ptr_equal(err.fid, &f->av_fid);
	assert_ptr_equal(err.context, &ctx);
	assert_int_equal(err.data, 1);
	assert_int_equal(err.err, FI_EINVAL);
	assert_int_equal(err.prov_errno, 0);
	assert_null(err.err_data);		/* size 0 in: NULL out */
	assert_int_equal(err.err_data_size, 0);

	/* Still an error at the head: the second one. */
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAVAIL);
	err.err_data = &ev;			/* a caller's buffer */
	err.err_data_size = sizeof(ev);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.data, 3);
	assert_int_equal(err.err, FI_EADDRNOTAVAIL);
	assert_ptr_equal(err.err_data, &ev);	/* left alone */
	assert_int_equal(err.err_data_size, 0);	/* nothing copied */

	/* Now the completion; readerr does not take it. */
	assert_int_equal(fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);
	memset(&e, 0, sizeof(e));
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), sizeof(e));
	assert_int_equal(ev, FI_AV_COMPLETE);
	assert_ptr_equal(e.fid, &f->av_fid);
	assert_ptr_equal(e.context, &ctx);
	assert_int_equal(e.data, 2);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAGAIN);

	/* Bad posts. */
	assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid, NULL, 0, 0),
			 -FI_EINVAL);
	assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid, NULL, 0,
					      -FI_EINVAL), -FI_EINVAL);
	assert_int_equal(kav_eq_post_av_complete((struct fid_eq *)&f->av_fid,
						 &f->av_fid, NULL, 0),
			 -FI_EINVAL);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_peek_and_small_buffer(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_NONE);
	struct fi_eq_entry e;
	uint8_t small[8];
	uint32_t ev;
	int i;

	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 10), 0);
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 20), 0);
	for (i = 0; i < 3; i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), FI_PEEK),
				 sizeof(e));
		assert_int_equal(e.data, 10);
	}
	/* Too small: refused and kept. */
	assert_int_equal(fi_eq_read(eq, &ev, small, sizeof(small), 0),
			 -FI_ETOOSMALL);
	/* NULL event pointer is fine. */
	assert_int_equal(fi_eq_read(eq, NULL, &e, sizeof(e), 0), sizeof(e));
	assert_int_equal(e.data, 10);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e) + 100, 0),
			 sizeof(e));
	assert_int_equal(e.data, 20);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAGAIN);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_write(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *ro = open_eq(f, 0, 0, FI_WAIT_NONE);
	struct fid_eq *eq = open_eq(f, 2, FI_WRITE, FI_WAIT_NONE);
	struct fi_eq_entry in = { .fid = &f->av_fid, .data = 42 }, out;
	uint8_t big[100], got[100];
	uint32_t ev;

	assert_int_equal(fi_eq_write(ro, FI_NOTIFY, &in, sizeof(in), 0),
			 -FI_ENOSYS);
	assert_int_equal(fi_close(&ro->fid), 0);

	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), FI_PEEK),
			 -FI_EINVAL);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, NULL, sizeof(in), 0),
			 -FI_EINVAL);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, 0, 0), -FI_EINVAL);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, 65537, 0),
			 -FI_EINVAL);

	memset(big, 0x5c, sizeof(big));
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0),
			 sizeof(in));
	assert_int_equal(fi_eq_write(eq, 1234, big, sizeof(big), 0),
			 sizeof(big));
	/* Size 2: a third user event does not fit... */
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0),
			 -FI_EAGAIN);
	/* ...but kav's own events are never refused. */
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 7), 0);

	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out));
	assert_int_equal(ev, FI_NOTIFY);
	assert_int_equal(out.data, 42);
	assert_ptr_equal(out.fid, &f->av_fid);
	/* The 100-byte event needs 100 bytes. */
	assert_int_equal(fi_eq_read(eq, &ev, got, 99, 0), -FI_ETOOSMALL);
	assert_int_equal(fi_eq_read(eq, &ev, got, sizeof(got), 0),
			 sizeof(got));
	assert_int_equal(ev, 1234);
	assert_memory_equal(got, big, sizeof(big));
	/* Room again (2 queued at most, one is left). */
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0),
			 sizeof(in));
	assert_int_equal(fi_eq_read(eq, &ev, &out, sizeof(out), 0),
			 sizeof(out));
	assert_int_equal(ev, FI_AV_COMPLETE);
	assert_int_equal(out.data, 7);
	/* Closing with a queued user event frees it (ASan would tell). */
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_grows_past_size(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 3, 0, FI_WAIT_NONE);
	struct fi_eq_err_entry err = { 0 };
	struct fi_eq_entry e;
	uint32_t ev;
	uint64_t i;

	/* Wrap the ring first, then grow it while wrapped. */
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 0), 0);
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 1), 0);
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), sizeof(e));
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), sizeof(e));
	for (i = 0; i < 1000; i++) {
		if (i % 3 == 2)
			assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid,
							      NULL, i,
							      FI_EINVAL), 0);
		else
			assert_int_equal(kav_eq_post_av_complete(eq,
						&f->av_fid, NULL, i), 0);
	}
	for (i = 0; i < 1000; i++) {
		if (i % 3 == 2) {
			assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0),
					 -FI_EAVAIL);
			assert_int_equal(fi_eq_readerr(eq, &err, 0),
					 sizeof(err));
			assert_int_equal(err.data, i);
		} else {
			assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0),
					 sizeof(e));
			assert_int_equal(e.data, i);
		}
	}
	assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0), -FI_EAGAIN);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_overrun(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 4, FI_WRITE, FI_WAIT_NONE);
	struct fi_eq_err_entry err;
	struct fi_eq_entry e;
	uint32_t ev;
	int i;

	/* The initial ring holds 4 (= size); growth fails. */
	kav_eq_fail_grow = 1;
	for (i = 0; i < 4; i++)
		assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL,
							 i), 0);
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 4),
			 -FI_EOVERRUN);
	kav_eq_fail_grow = 0;
	/* Overrun is for good, even with memory again. */
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 5),
			 -FI_EOVERRUN);
	assert_int_equal(fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0),
			 -FI_EOVERRUN);
	/* The valid events first... */
	for (i = 0; i < 4; i++) {
		assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0),
				 sizeof(e));
		assert_int_equal(e.data, i);
	}
	/* ...then an FI_EOVERRUN error event, reported every time. */
	for (i = 0; i < 2; i++) {
		assert_int_equal(fi_eq_read(eq, &ev, &e, sizeof(e), 0),
				 -FI_EAVAIL);
		memset(&err, 0, sizeof(err));
		assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
		assert_int_equal(err.err, FI_EOVERRUN);
		assert_ptr_equal(err.fid, &eq->fid);
	}
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_sread_timeout(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_UNSPEC);
	struct fi_eq_err_entry err;
	struct fi_eq_entry e;
	uint32_t ev;
	double t0, dt;

	t0 = now_ms();
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 0, 0),
			 -FI_EAGAIN);
	assert_true(now_ms() - t0 < 50);
	t0 = now_ms();
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 60, 0),
			 -FI_EAGAIN);
	dt = now_ms() - t0;
	assert_true(dt >= 55);
	assert_true(dt < 5000);
	assert_int_equal(fi_eq_sread(eq, &ev, NULL, sizeof(e), 10, 0),
			 -FI_EINVAL);
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 10, FI_WRITE),
			 -FI_EINVAL);

	/* Something queued: no wait at all; an error head gives EAVAIL. */
	assert_int_equal(kav_eq_post_av_error(eq, &f->av_fid, NULL, 0,
					      FI_EINVAL), 0);
	t0 = now_ms();
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 5000, 0),
			 -FI_EAVAIL);
	assert_true(now_ms() - t0 < 1000);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(kav_eq_post_av_complete(eq, &f->av_fid, NULL, 9), 0);
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), -1, FI_PEEK),
			 sizeof(e));
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), -1, 0),
			 sizeof(e));
	assert_int_equal(e.data, 9);
	assert_int_equal(fi_close(&eq->fid), 0);
}

struct poster {
	struct fixture *f;
	struct fid_eq *eq;
	int delay_ms;
	int ret;
};

/* No cmocka asserts off the main thread: the result is checked later. */
static void *post_later(void *arg)
{
	struct poster *p = arg;

	usleep((useconds_t)p->delay_ms * 1000);
	p->ret = kav_eq_post_av_complete(p->eq, &p->f->av_fid, NULL, 77);
	return NULL;
}

static void test_sread_wakes(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_UNSPEC);
	struct poster p = { .f = f, .eq = eq, .delay_ms = 50 };
	struct fi_eq_entry e;
	pthread_t th;
	uint32_t ev;
	double t0;

	/* Forever: returns once the other thread posts. */
	assert_int_equal(pthread_create(&th, NULL, post_later, &p), 0);
	t0 = now_ms();
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), -1, 0),
			 sizeof(e));
	assert_true(now_ms() - t0 >= 40);
	assert_int_equal(e.data, 77);
	assert_int_equal(ev, FI_AV_COMPLETE);
	pthread_join(th, NULL);
	assert_int_equal(p.ret, 0);

	/* A long timeout that an event cuts short. */
	assert_int_equal(pthread_create(&th, NULL, post_later, &p), 0);
	t0 = now_ms();
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 10000, 0),
			 sizeof(e));
	assert_true(now_ms() - t0 < 5000);
	pthread_join(th, NULL);
	assert_int_equal(p.ret, 0);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_close_busy(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_NONE);

	assert_int_equal(kav_eq_bind_av(eq), 0);
	assert_int_equal(kav_eq_bind_av(eq), 0);
	assert_int_equal(kav_eq_bind_av((struct fid_eq *)&f->av_fid),
			 -FI_EINVAL);
	assert_int_equal(fi_close(&eq->fid), -FI_EBUSY);
	kav_eq_unbind_av(eq);
	assert_int_equal(fi_close(&eq->fid), -FI_EBUSY);
	kav_eq_unbind_av(eq);
	/* Queued events do not keep it open. */
	post_insert(f, eq, NULL);
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_strerror(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_NONE);
	char buf[8];
	const char *s;

	s = fi_eq_strerror(eq, FI_EINVAL, NULL, NULL, 0);
	assert_non_null(s);
	assert_string_equal(s, kav_strerror(-FI_EINVAL));
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(fi_eq_strerror(eq, FI_EINVAL, NULL, buf, sizeof(buf)),
			 buf);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);	/* truncated */
	assert_memory_equal(buf, s, sizeof(buf) - 1);
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* The real thing: an FI_EVENT AV reporting an insert through the EQ. */
static void test_av_event_insert(void **state)
{
	struct fixture *f = *state;
	struct fid_eq *eq = open_eq(f, 0, 0, FI_WAIT_UNSPEC);
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_EVENT };
	struct sockaddr_in in[4];
	struct fi_eq_err_entry err;
	struct fi_eq_entry e;
	fi_addr_t fa[4];
	struct fid_av *av;
	uint32_t ev;
	int ctx;

	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[1].sin_family = AF_INET6;		/* fails */
	in[2] = test_sin("10.0.0.3", 3);
	in[3] = test_sin("10.0.0.4", 4);
	in[3].sin_family = AF_UNIX;		/* fails */
	/* No EQ yet. */
	assert_int_equal(fi_av_insert(av, in, 4, fa, 0, &ctx), -FI_ENOEQ);
	assert_int_equal(kav_test_av_bind(av, &eq->fid, 0), 0);
	assert_int_equal(fi_close(&eq->fid), -FI_EBUSY);

	assert_int_equal(fi_av_insert(av, in, 4, fa, 0, &ctx), 0);
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 1000, 0),
			 -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_ptr_equal(err.fid, &av->fid);
	assert_ptr_equal(err.context, &ctx);
	assert_int_equal(err.data, 1);
	assert_int_equal(err.err, FI_EINVAL);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.data, 3);
	assert_int_equal(fi_eq_sread(eq, &ev, &e, sizeof(e), 1000, 0),
			 sizeof(e));
	assert_int_equal(ev, FI_AV_COMPLETE);
	assert_ptr_equal(e.fid, &av->fid);
	assert_ptr_equal(e.context, &ctx);
	assert_int_equal(e.data, 2);
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);

	/* Closing the AV unbinds it; then the EQ may close. */
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&eq->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_args, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_before_completion,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_peek_and_small_buffer,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grows_past_size, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_overrun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sread_timeout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sread_wakes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_close_busy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_strerror, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_av_event_insert, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
