// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav event queue: a genuine struct fid_eq (<kav/kav_eq.h>).
 *
 * One FIFO ring holds every event, errors included, so events are read in
 * the order they were posted. The ring starts small and doubles on demand:
 * attr->size limits only fi_eq_write(), never the events kav posts for an
 * AV (those report inserts that already happened and must not be lost).
 * A mutex guards everything; a condition variable wakes fi_eq_sread().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kav_priv.h"
#include "kav_eq_priv.h"
#include <kav/kav_eq.h>

/* Largest event fi_eq_write() accepts. */
#define KAV_EQ_WRITE_MAX	65536
/* Initial ring size (or attr->size if smaller). */
#define KAV_EQ_INITIAL_RING	64

#ifdef KAV_TESTING
int kav_eq_fail_grow;
#endif

struct kav_eq_ev {
	uint32_t event;
	bool is_err;
	void *data;			/* fi_eq_write() copy, or NULL */
	size_t len;			/* bytes at @data */
	union {
		struct fi_eq_entry entry;	/* !is_err && !data */
		struct fi_eq_err_entry err;	/* is_err */
	} u;
};

struct kav_eq {
	struct fid_eq eq_fid;		/* first */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct kav_eq_ev *ring;
	size_t ring_cap;
	size_t head;
	size_t count;
	size_t size;			/* fi_eq_write() capacity */
	uint64_t flags;
	enum fi_wait_obj wait_obj;
	unsigned int av_refs;
	bool overrun;
};

_Static_assert(offsetof(struct kav_eq, eq_fid) == 0, "fid first");

static struct fi_ops kav_eq_fi_ops;

static struct kav_eq *kav_eq_of(struct fid_eq *eq)
{
	return (struct kav_eq *)eq;
}

bool kav_eq_is(const struct fid *fid)
{
	return fid && fid->fclass == FI_CLASS_EQ && fid->ops == &kav_eq_fi_ops;
}

/* ------------------------------------------------------------- the ring */

static struct kav_eq_ev *kav_eq_at(struct kav_eq *eq, size_t i)
{
	return &eq->ring[(eq->head + i) % eq->ring_cap];
}

/* Double the ring. Called with the lock held. 0 or -FI_ENOMEM. */
static int kav_eq_grow(struct kav_eq *eq)
{
	struct kav_eq_ev *ring;
	size_t cap, i;

#ifdef KAV_TESTING
	if (kav_eq_fail_grow)
		return -FI_ENOMEM;
#endif
	if (eq->ring_cap > SIZE_MAX / 2 / sizeof(*ring))
		return -FI_ENOMEM;
	cap = eq->ring_cap * 2;
	ring = calloc(cap, sizeof(*ring));
	if (!ring)
		return -FI_ENOMEM;
	for (i = 0; i < eq->count; i++)
		ring[i] = *kav_eq_at(eq, i);
	free(eq->ring);
	eq->ring = ring;
	eq->ring_cap = cap;
	eq->head = 0;
	return 0;
}

/* Append @ev (lock held), growing the ring if needed. 0 or -FI_ENOMEM. */
static int kav_eq_push(struct kav_eq *eq, const struct kav_eq_ev *ev)
{
	int ret;

	if (eq->count == eq->ring_cap) {
		ret = kav_eq_grow(eq);
		if (ret)
			return ret;
	}
	*kav_eq_at(eq, eq->count) = *ev;
	eq->count++;
	pthread_cond_broadcast(&eq->cond);
	return 0;
}

static void kav_eq_pop(struct kav_eq *eq)
{
	struct kav_eq_ev *ev = kav_eq_at(eq, 0);

	free(ev->data);
	memset(ev, 0, sizeof(*ev));
	eq->head = (eq->head + 1) % eq->ring_cap;
	eq->count--;
}

/* ------------------------------------------------------ internal posts */

int kav_eq_bind_av(struct fid_eq *eq_fid)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);

	if (!eq_fid || !kav_eq_is(&eq_fid->fid))
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	eq->av_refs++;
	pthread_mutex_unlock(&eq->lock);
	return 0;
}

void kav_eq_unbind_av(struct fid_eq *eq_fid)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);

	if (!eq_fid || !kav_eq_is(&eq_fid->fid))
		return;
	pthread_mutex_lock(&eq->lock);
	if (eq->av_refs)
		eq->av_refs--;
	pthread_mutex_unlock(&eq->lock);
}

static int kav_eq_post(struct fid_eq *eq_fid, const struct kav_eq_ev *ev)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);
	int ret = 0;

	if (!eq_fid || !kav_eq_is(&eq_fid->fid))
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	if (eq->overrun || kav_eq_push(eq, ev)) {
		if (!eq->overrun)
			kav_warn("EQ %p overrun: out of memory queueing an "
				 "AV event", (void *)eq);
		eq->overrun = true;
		/* A reader must learn about the overrun. */
		pthread_cond_broadcast(&eq->cond);
		ret = -FI_EOVERRUN;
	}
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

int kav_eq_post_av_complete(struct fid_eq *eq, struct fid *av_fid,
			    void *context, uint64_t count)
{
	struct kav_eq_ev ev = {
		.event = FI_AV_COMPLETE,
		.u.entry = {
			.fid = av_fid,
			.context = context,
			.data = count,
		},
	};

	return kav_eq_post(eq, &ev);
}

int kav_eq_post_av_error(struct fid_eq *eq, struct fid *av_fid,
			 void *context, uint64_t index, int err)
{
	struct kav_eq_ev ev = {
		.event = FI_AV_COMPLETE,
		.is_err = true,
		.u.err = {
			.fid = av_fid,
			.context = context,
			.data = index,
			.err = err,
			.prov_errno = 0,
		},
	};

	if (err <= 0)
		return -FI_EINVAL;
	return kav_eq_post(eq, &ev);
}

/* ----------------------------------------------------------- fi_ops_eq */

/* fi_eq_read() with the lock held. */
static ssize_t kav_eq_read_locked(struct kav_eq *eq, uint32_t *event,
				  void *buf, size_t len, uint64_t flags)
{
	struct kav_eq_ev *ev;
	const void *src;
	size_t n;

	if (!eq->count)
		return eq->overrun ? -FI_EAVAIL : -FI_EAGAIN;
	ev = kav_eq_at(eq, 0);
	if (ev->is_err)
		return -FI_EAVAIL;
	if (ev->data) {
		src = ev->data;
		n = ev->len;
	} else {
		src = &ev->u.entry;
		n = sizeof(ev->u.entry);
	}
	if (len < n)
		return -FI_ETOOSMALL;
	memcpy(buf, src, n);
	if (event)
		*event = ev->event;
	if (!(flags & FI_PEEK))
		kav_eq_pop(eq);
	return (ssize_t)n;
}

static int kav_eq_check_read(const void *buf, uint64_t flags)
{
	if (flags & ~FI_PEEK)
		return -FI_EINVAL;
	if (!buf)
		return -FI_EINVAL;
	return 0;
}

static ssize_t kav_eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);
	ssize_t ret;

	ret = kav_eq_check_read(buf, flags);
	if (ret)
		return ret;
	pthread_mutex_lock(&eq->lock);
	ret = kav_eq_read_locked(eq, event, buf, len, flags);
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t kav_eq_readerr(struct fid_eq *eq_fid,
			      struct fi_eq_err_entry *buf, uint64_t flags)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);
	const struct fi_eq_err_entry *src;
	struct fi_eq_err_entry overrun = {
		.fid = &eq_fid->fid,
		.err = FI_EOVERRUN,
	};
	struct kav_eq_ev *ev = NULL;
	ssize_t ret = sizeof(*buf);

	if (flags & ~FI_PEEK)
		return -FI_EINVAL;
	if (!buf)
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	if (eq->count) {
		ev = kav_eq_at(eq, 0);
		if (!ev->is_err) {
			ret = -FI_EAGAIN;
			goto out;
		}
		src = &ev->u.err;
	} else if (eq->overrun) {
		src = &overrun;		/* reported for good, never consumed */
	} else {
		ret = -FI_EAGAIN;
		goto out;
	}
	buf->fid = src->fid;
	buf->context = src->context;
	buf->data = src->data;
	buf->err = src->err;
	buf->prov_errno = src->prov_errno;
	/* No err_data: NULL replaces a provider-buffer request (size 0). */
	if (!buf->err_data_size)
		buf->err_data = NULL;
	buf->err_data_size = 0;
	if (ev && !(flags & FI_PEEK))
		kav_eq_pop(eq);
out:
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t kav_eq_write(struct fid_eq *eq_fid, uint32_t event,
			    const void *buf, size_t len, uint64_t flags)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);
	struct kav_eq_ev ev = { .event = event };
	ssize_t ret = (ssize_t)len;

	if (!(eq->flags & FI_WRITE))
		return -FI_ENOSYS;
	if (flags || !buf || !len || len > KAV_EQ_WRITE_MAX)
		return -FI_EINVAL;
	ev.data = malloc(len);
	if (!ev.data)
		return -FI_ENOMEM;
	memcpy(ev.data, buf, len);
	ev.len = len;

	pthread_mutex_lock(&eq->lock);
	if (eq->overrun)
		ret = -FI_EOVERRUN;
	else if (eq->count >= eq->size)
		ret = -FI_EAGAIN;
	else if (kav_eq_push(eq, &ev))
		ret = -FI_ENOMEM;	/* the caller still has its event */
	pthread_mutex_unlock(&eq->lock);
	if (ret < 0)
		free(ev.data);
	return ret;
}

/* Absolute CLOCK_MONOTONIC time @ms milliseconds from now. */
static struct timespec kav_deadline(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static ssize_t kav_eq_sread(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			    size_t len, int timeout, uint64_t flags)
{
	struct kav_eq *eq = kav_eq_of(eq_fid);
	struct timespec deadline = { 0 };
	ssize_t ret;
	int rc;

	if (eq->wait_obj == FI_WAIT_NONE)
		return -FI_ENOSYS;	/* as libfabric's util EQ */
	ret = kav_eq_check_read(buf, flags);
	if (ret)
		return ret;
	if (timeout > 0)
		deadline = kav_deadline(timeout);
	pthread_mutex_lock(&eq->lock);
	for (;;) {
		ret = kav_eq_read_locked(eq, event, buf, len, flags);
		if (ret != -FI_EAGAIN || !timeout)
			break;
		if (timeout < 0) {
			pthread_cond_wait(&eq->cond, &eq->lock);
			continue;
		}
		rc = pthread_cond_timedwait(&eq->cond, &eq->lock, &deadline);
		if (rc == ETIMEDOUT) {
			ret = kav_eq_read_locked(eq, event, buf, len, flags);
			break;
		}
	}
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static const char *kav_eq_strerror(struct fid_eq *eq, int prov_errno,
				   const void *err_data, char *buf,
				   size_t len)
{
	const char *s = kav_strerror(prov_errno);

	(void)eq; (void)err_data;
	if (buf && len) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	return s;
}

/* --------------------------------------------------------- open / close */

static int kav_eq_close(struct fid *fid)
{
	struct kav_eq *eq = (struct kav_eq *)fid;

	pthread_mutex_lock(&eq->lock);
	if (eq->av_refs) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EBUSY;
	}
	while (eq->count)
		kav_eq_pop(eq);
	pthread_mutex_unlock(&eq->lock);
	pthread_cond_destroy(&eq->cond);
	pthread_mutex_destroy(&eq->lock);
	free(eq->ring);
	free(eq);
	return 0;
}

static struct fi_ops kav_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_eq_close,
	.bind = kav_no_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct fi_ops_eq kav_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = kav_eq_read,
	.readerr = kav_eq_readerr,
	.write = kav_eq_write,
	.sread = kav_eq_sread,
	.strerror = kav_eq_strerror,
};

static int kav_eq_check_attr(const struct fi_eq_attr *attr)
{
	if (attr->flags & ~(FI_WRITE | FI_AFFINITY))
		return -FI_EINVAL;
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
		return 0;
	case FI_WAIT_SET:
	case FI_WAIT_FD:
	case FI_WAIT_MUTEX_COND:
	case FI_WAIT_YIELD:
	case FI_WAIT_POLLFD:
		kav_info("EQ wait object %d is not supported",
			 (int)attr->wait_obj);
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;
	}
}

KAV_API int kav_eq_open(struct fid_domain *domain, struct fi_eq_attr *attr,
			struct fid_eq **eq_out, void *context)
{
	struct fi_eq_attr defaults = { 0 };
	pthread_condattr_t cattr;
	struct kav_eq *eq;
	int ret;

	if (!eq_out || !domain || !kav_domain_is(&domain->fid))
		return -FI_EINVAL;
	if (!attr)
		attr = &defaults;
	ret = kav_eq_check_attr(attr);
	if (ret)
		return ret;

	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->size = attr->size ? attr->size : KAV_EQ_DEFAULT_SIZE;
	eq->ring_cap = KAV_MIN(eq->size, (size_t)KAV_EQ_INITIAL_RING);
	eq->ring = calloc(eq->ring_cap, sizeof(*eq->ring));
	if (!eq->ring) {
		free(eq);
		return -FI_ENOMEM;
	}
	eq->flags = attr->flags;
	eq->wait_obj = attr->wait_obj;

	pthread_mutex_init(&eq->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&eq->cond, &cattr);
	pthread_condattr_destroy(&cattr);

	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &kav_eq_fi_ops;
	eq->eq_fid.ops = &kav_eq_ops;
	*eq_out = &eq->eq_fid;
	return 0;
}
