// SPDX-License-Identifier: GPL-2.0
/*
 * The timed loops: one per way of reading, each in two forms. Random: the
 * indices come from a precomputed array, so consecutive reads do not wait
 * for each other (throughput, as a provider sending to many peers).
 * Dependent: the index of each read is the address the previous one
 * returned, so the loads serialise (latency). Every form reads the same 4
 * bytes of the address it gets and folds them into a checksum that
 * rb_expect() predicts, so a read that returns the wrong entry shows.
 */
#include <string.h>
#include <arpa/inet.h>
#include <rdma/fi_domain.h>
#include <kav/kav_view.h>

#include "native.h"

const char *const rb_method_name[NR_RB_METHODS] = {
	[RB_LOOKUP] = "kav fi_av_lookup",
	[RB_RESOLVE] = "kav_av_resolve",
	[RB_VIEW] = "kav_view_resolve",
	[RB_FLOOR] = "floor",
	[RB_UDP] = "udp fi_av_lookup",
	[RB_TCP] = "tcp fi_av_lookup",
	[RB_SOCKETS] = "sockets fi_av_lookup",
};

const char *const rb_access_name[NR_RB_ACCESS] = {
	[RB_RANDOM] = "random",
	[RB_DEPENDENT] = "dependent",
};

enum bench_impl rb_method_impl(enum rb_method meth)
{
	static const enum bench_impl impl[NR_RB_METHODS] = {
		[RB_UDP] = IMPL_UDP,
		[RB_TCP] = IMPL_TCP,
		[RB_SOCKETS] = IMPL_SOCKETS,
	};

	return impl[meth];	/* IMPL_KAV is 0: the other four */
}

/* The address's index: 4 bytes at @off, network order, less @base. */
static inline uint32_t rb_decode(const void *addr, uint32_t off,
				 uint32_t base)
{
	uint32_t v;

	memcpy(&v, (const char *)addr + off, sizeof(v));
	return ntohl(v) - base;
}

/*
 * GET reads entry idx and sets x to the index its address names, or
 * returns 0 from the function on an error.
 */
#define RB_LOOP(GET)							\
	do {								\
		if (acc == RB_RANDOM) {					\
			for (i = 0; i < m; i++) {			\
				idx = ridx[i & (RB_RIDX - 1)];		\
				GET;					\
				sum += x;				\
			}						\
		} else {						\
			for (i = 0; i < m; i++) {			\
				GET;					\
				idx = x;				\
			}						\
			sum = idx + 1;					\
		}							\
	} while (0)

#define RB_LOCALS(c)							\
	const uint32_t *ridx = (c)->ridx;				\
	uint32_t off = (c)->off, base = (c)->base;			\
	uint64_t i, x, idx = 0, sum = 0

static uint64_t run_lookup(struct rb_case *c, struct fid_av *av,
			   enum rb_access acc, uint64_t m)
{
	RB_LOCALS(c);
	struct sockaddr_in6 buf;
	size_t len;

	RB_LOOP(len = sizeof(buf);
		if (fi_av_lookup(av, idx, &buf, &len))
			return 0;
		x = rb_decode(&buf, off, base));
	return sum;
}

static uint64_t run_resolve(struct rb_case *c, enum rb_access acc,
			    uint64_t m)
{
	RB_LOCALS(c);
	struct fid_av *av = c->av[IMPL_KAV];
	struct kav_resolved r;

	RB_LOOP(if (kav_av_resolve(av, idx, &r))
			return 0;
		x = rb_decode(r.addr, off, base));
	return sum;
}

static uint64_t run_view(struct rb_case *c, enum rb_access acc, uint64_t m)
{
	RB_LOCALS(c);
	struct kav_view *view = &c->view;
	struct kav_view_entry e;

	RB_LOOP(if (kav_view_resolve(view, idx, &e))
			return 0;
		x = rb_decode(e.addr, off, base));
	return sum;
}

/* What no reader can beat: the address where it lies, nothing checked. */
static uint64_t run_floor(struct rb_case *c, enum rb_access acc, uint64_t m)
{
	RB_LOCALS(c);
	const uint8_t *entries = c->view.entries;
	uint32_t shift = c->view.entry_shift;

	RB_LOOP(x = rb_decode(entries + (idx << shift) + KAV_ENTRY_HDR_SIZE,
			      off, base));
	return sum;
}

uint64_t rb_run(struct rb_case *c, enum rb_method meth, enum rb_access acc,
		uint64_t m)
{
	switch (meth) {
	case RB_RESOLVE:
		return run_resolve(c, acc, m);
	case RB_VIEW:
		return run_view(c, acc, m);
	case RB_FLOOR:
		return run_floor(c, acc, m);
	default:
		return run_lookup(c, c->av[rb_method_impl(meth)], acc, m);
	}
}

uint64_t rb_expect(const struct rb_case *c, enum rb_access acc, uint64_t m)
{
	uint64_t i, idx = 0, sum = 0;

	for (i = 0; i < m; i++) {
		if (acc == RB_RANDOM)
			sum += c->next[c->ridx[i & (RB_RIDX - 1)]];
		else
			idx = c->next[idx];
	}
	return acc == RB_RANDOM ? sum : idx + 1;
}
