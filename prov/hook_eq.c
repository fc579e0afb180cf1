// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The EQ wrapper. Two sources: the hook's own events (FI_AV_COMPLETE of
 * FI_EVENT AVs, raised when an insert returns), read first, and the
 * core's EQ, whose events name core endpoints: those are turned back
 * into the hook's (each core endpoint's context is its wrapper's fid).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kav_hook.h"

static struct kavh_eq *kavh_eq(struct fid_eq *eq)
{
	return kavh_container_of(eq, struct kavh_eq, eq);
}

int kavh_eq_post(struct kavh_eq *eq, uint32_t event, bool err,
		 const void *entry, size_t len)
{
	struct kavh_event *ev;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -FI_ENOMEM;
	ev->event = event;
	ev->err = err;
	memcpy(&ev->u, entry, len < sizeof(ev->u) ? len : sizeof(ev->u));
	pthread_mutex_lock(&eq->lock);
	*eq->tail = ev;
	eq->tail = &ev->next;
	pthread_mutex_unlock(&eq->lock);
	return 0;
}

/* Endpoints the hook opened carry their wrapper's fid as context. */
static void kavh_eq_fix_fid(fid_t *fid)
{
	switch ((*fid) ? (*fid)->fclass : FI_CLASS_UNSPEC) {
	case FI_CLASS_EP:
	case FI_CLASS_PEP:
	case FI_CLASS_SRX_CTX:
		if ((*fid)->context)
			*fid = (*fid)->context;
		break;
	default:
		break;
	}
}

/*
 * One of the hook's events, if any: > 0 its size, 0 none, < 0 an error.
 * @want_err: readerr (an error entry) rather than read.
 */
static ssize_t kavh_eq_take(struct kavh_eq *eq, uint32_t *event, void *buf,
			    size_t len, uint64_t flags, bool want_err)
{
	struct kavh_event *ev;
	size_t size;
	ssize_t ret;

	pthread_mutex_lock(&eq->lock);
	ev = eq->head;
	if (!ev) {
		ret = 0;
		goto out;
	}
	if (ev->err != want_err) {
		/* read() with an error first: fi_eq(3) says -FI_EAVAIL. */
		ret = want_err ? 0 : -FI_EAVAIL;
		goto out;
	}
	size = ev->err ? sizeof(ev->u.err_entry) : sizeof(ev->u.entry);
	if (!want_err && len < size) {
		ret = -FI_ETOOSMALL;
		goto out;
	}
	if (event)
		*event = ev->event;
	memcpy(buf, &ev->u, size);
	ret = (ssize_t)size;
	if (!(flags & FI_PEEK)) {
		eq->head = ev->next;
		if (!eq->head)
			eq->tail = &eq->head;
		free(ev);
	}
out:
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t kavh_eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			    size_t len, uint64_t flags)
{
	struct kavh_eq *eq = kavh_eq(eq_fid);
	ssize_t ret;

	ret = kavh_eq_take(eq, event, buf, len, flags, false);
	if (ret)
		return ret;
	ret = fi_eq_read(eq->core, event, buf, len, flags);
	if (ret >= (ssize_t)sizeof(fid_t))
		kavh_eq_fix_fid(buf);
	return ret;
}

static ssize_t kavh_eq_readerr(struct fid_eq *eq_fid,
			       struct fi_eq_err_entry *buf, uint64_t flags)
{
	struct kavh_eq *eq = kavh_eq(eq_fid);
	ssize_t ret;

	ret = kavh_eq_take(eq, NULL, buf, sizeof(*buf), flags, true);
	if (ret)
		return ret;
	ret = fi_eq_readerr(eq->core, buf, flags);
	if (ret > 0)
		kavh_eq_fix_fid(&buf->fid);
	return ret;
}

static ssize_t kavh_eq_write(struct fid_eq *eq_fid, uint32_t event,
			     const void *buf, size_t len, uint64_t flags)
{
	return fi_eq_write(kavh_eq(eq_fid)->core, event, buf, len, flags);
}

static uint64_t kavh_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Blocking read: the core's EQ in slices of at most 10 ms, looking at
 * the hook's own events between them (another thread's insert may raise
 * one while this one waits on the core).
 */
static ssize_t kavh_eq_sread(struct fid_eq *eq_fid, uint32_t *event,
			     void *buf, size_t len, int timeout,
			     uint64_t flags)
{
	struct kavh_eq *eq = kavh_eq(eq_fid);
	uint64_t end = timeout < 0 ? UINT64_MAX :
				     kavh_now_ms() + (uint64_t)timeout;
	uint64_t now;
	ssize_t ret;
	int slice;

	for (;;) {
		ret = kavh_eq_take(eq, event, buf, len, flags, false);
		if (ret)
			return ret;
		now = kavh_now_ms();
		if (now >= end && timeout >= 0)
			slice = 0;
		else
			slice = end - now < 10 ? (int)(end - now) : 10;
		ret = fi_eq_sread(eq->core, event, buf, len, slice, flags);
		if (ret >= (ssize_t)sizeof(fid_t)) {
			kavh_eq_fix_fid(buf);
			return ret;
		}
		if (ret != -FI_EAGAIN && ret != -FI_ETIMEDOUT)
			return ret;
		if (timeout >= 0 && kavh_now_ms() >= end)
			return -FI_EAGAIN;
	}
}

static const char *kavh_eq_strerror(struct fid_eq *eq_fid, int prov_errno,
				    const void *err_data, char *buf,
				    size_t len)
{
	return fi_eq_strerror(kavh_eq(eq_fid)->core, prov_errno, err_data,
			      buf, len);
}

static struct fi_ops_eq kavh_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = kavh_eq_read,
	.readerr = kavh_eq_readerr,
	.write = kavh_eq_write,
	.sread = kavh_eq_sread,
	.strerror = kavh_eq_strerror,
};

static int kavh_eq_close(struct fid *fid)
{
	struct kavh_eq *eq = kavh_container_of(fid, struct kavh_eq, eq.fid);
	struct kavh_event *ev, *next;
	int ret;

	ret = fi_close(&eq->core->fid);
	if (ret)
		return ret;
	for (ev = eq->head; ev; ev = next) {
		next = ev->next;
		free(ev);
	}
	pthread_mutex_destroy(&eq->lock);
	free(eq);
	return 0;
}

static int kavh_eq_control(struct fid *fid, int command, void *arg)
{
	struct kavh_eq *eq = kavh_container_of(fid, struct kavh_eq, eq.fid);

	return kavh_fid_control(&eq->core->fid, command, arg);
}

static struct fi_ops kavh_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kavh_eq_close,
	.bind = kavh_no_bind,
	.control = kavh_eq_control,
	.ops_open = kavh_fid_ops_open,
};

int kavh_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eq_fid, void *context)
{
	struct kavh_fabric *fab = kavh_container_of(fabric, struct kavh_fabric,
						    fabric);
	struct kavh_eq *eq;
	int ret;

	if (!eq_fid)
		return -FI_EINVAL;
	if (kavh_nesting)	/* a layered provider's: the core's own */
		return fi_eq_open(fab->core, attr, eq_fid, context);
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	ret = KAVH_CORE_CALL(fi_eq_open(fab->core, attr, &eq->core, context));
	if (ret) {
		free(eq);
		return ret;
	}
	pthread_mutex_init(&eq->lock, NULL);
	eq->tail = &eq->head;
	eq->fab = fab;
	eq->eq.fid.fclass = FI_CLASS_EQ;
	eq->eq.fid.context = context;
	eq->eq.fid.ops = &kavh_eq_fi_ops;
	eq->eq.ops = &kavh_eq_ops;
	*eq_fid = &eq->eq;
	return 0;
}
