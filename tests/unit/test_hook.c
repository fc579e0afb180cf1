// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The hooking provider (prov/) over a mock core provider and libkav on
 * the fake kernel: what the hook hands the core and what it gives back,
 * for the libfabric 2.x features a real core over tcp cannot be made to
 * show on demand.
 *  - completions' sources on an FI_AV_USER_ID AV: FI_ADDR_NOTAVAIL until
 *    fi_av_set_user_id(), then the user id; per-insert user ids;
 *  - fi_cq_err_entry.src_addr (API 1.20+) translated like readfrom's;
 *    not touched for older applications, whose entries are shorter;
 *  - FI_TAGGED_DIRECTED_RECV (tagged receives only) and
 *    FI_EXACT_DIRECTED_RECV (all) translate a receive's source like
 *    FI_DIRECTED_RECV, for API 2.0+ only (bit 48 was FI_VARIABLE_MSG);
 *  - receives and registrations flagged FI_AUTH_KEY never reach the core;
 *  - unnamed AVs of a keyed domain are job AVs (FI_OFI_HOOK_KAV_SHARE):
 *    a second domain's insert of an address is found with no kernel
 *    call; the core AV gets an entry on first use only (at insert with
 *    FI_SOURCE), and a core refusal then fails that data call.
 * The mock core AV numbers its entries from MOCK_CORE_BASE, so a kav
 * fi_addr that reached the core untranslated is seen.
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"
#include "../../prov/hook_av.h"

#define MOCK_CORE_BASE	7

/* ------------------------------------------------------------ the core */

static struct {
	uint64_t next_core;		/* the core AV's next fi_addr */
	fi_addr_t recv_src;		/* the source the last receive got */
	uint64_t recv_flags;
	int recvs;			/* receives that reached the core */
	int regs;			/* registrations that reached the core */
	int refuse;			/* the core AV's inserts fail with it */
	fi_addr_t cq_src[4];		/* what the core's readfrom reports */
	size_t cq_n;
	fi_addr_t err_src;		/* the core's fi_cq_err_entry.src_addr */
	uint64_t removed;		/* bit n: core fi_addr n was removed */
	/* A data-path reader's next load, looked at inside a core insert. */
	const struct kavh_slot *watch;
	int watched;			/* core inserts that looked at it */
} core;

static int mock_close(struct fid *fid)
{
	free(fid);
	return 0;
}

static int mock_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return 0;
}

static struct fi_ops mock_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mock_close,
	.bind = mock_bind,
};

static int mock_av_insert(struct fid_av *av, const void *addr, size_t count,
			  fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	size_t i;

	(void)av; (void)addr; (void)flags; (void)context;
	if (core.refuse)
		return core.refuse;
	/*
	 * A reader that checked the slot's stamp before the entry changed
	 * loads the core fi_addr now: it must still name an address in the
	 * core AV (the old or the new one), never a removed one or none.
	 */
	if (core.watch) {
		fi_addr_t seen = __atomic_load_n(&core.watch->core,
						 __ATOMIC_RELAXED);

		core.watched++;
		assert_true(seen != FI_ADDR_NOTAVAIL);
		assert_true(seen < 64 && !(core.removed & (1ULL << seen)));
	}
	for (i = 0; i < count; i++)
		fi_addr[i] = core.next_core++;
	return (int)count;
}

static int mock_av_remove(struct fid_av *av, fi_addr_t *fi_addr,
			  size_t count, uint64_t flags)
{
	size_t i;

	(void)av; (void)flags;
	for (i = 0; i < count; i++)
		if (fi_addr[i] < 64)
			core.removed |= 1ULL << fi_addr[i];
	return 0;
}

static struct fi_ops_av mock_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = mock_av_insert,
	.remove = mock_av_remove,
};

static ssize_t mock_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
				fi_addr_t *src_addr)
{
	size_t i;

	(void)cq;
	memset(buf, 0, count * sizeof(struct fi_cq_entry));
	for (i = 0; i < core.cq_n && i < count; i++)
		src_addr[i] = core.cq_src[i];
	return (ssize_t)i;
}

/* A core of API 1.20+ writes src_addr only for applications of 1.20+. */
static ssize_t mock_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
			       uint64_t flags)
{
	(void)cq; (void)flags;
	memset(buf, 0, sizeof(*buf));
	buf->err = FI_ETRUNC;
	memcpy((char *)buf + KAVH_CQ_ERR_SRC_OFFSET, &core.err_src,
	       sizeof(core.err_src));
	return 1;
}

static struct fi_ops_cq mock_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.readfrom = mock_cq_readfrom,
	.readerr = mock_cq_readerr,
};

static ssize_t mock_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			 fi_addr_t src, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)context;
	core.recv_src = src;
	core.recvs++;
	return 0;
}

static ssize_t mock_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
			    uint64_t flags)
{
	(void)ep;
	core.recv_src = msg->addr;
	core.recv_flags = flags;
	core.recvs++;
	return 0;
}

static ssize_t mock_trecv(struct fid_ep *ep, void *buf, size_t len,
			  void *desc, fi_addr_t src, uint64_t tag,
			  uint64_t ignore, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)tag; (void)ignore;
	(void)context;
	core.recv_src = src;
	core.recvs++;
	return 0;
}

static ssize_t mock_trecvmsg(struct fid_ep *ep,
			     const struct fi_msg_tagged *msg, uint64_t flags)
{
	(void)ep;
	core.recv_src = msg->addr;
	core.recv_flags = flags;
	core.recvs++;
	return 0;
}

static struct fi_ops_msg mock_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = mock_recv,
	.recvmsg = mock_recvmsg,
};

static struct fi_ops_tagged mock_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = mock_trecv,
	.recvmsg = mock_trecvmsg,
};

static void *mock_fid(size_t size, size_t fclass)
{
	struct fid *fid = calloc(1, size);

	assert_non_null(fid);
	fid->fclass = fclass;
	fid->ops = &mock_fi_ops;
	return fid;
}

static int mock_av_open(struct fid_domain *d, struct fi_av_attr *attr,
			struct fid_av **av, void *context)
{
	(void)d; (void)attr; (void)context;
	*av = mock_fid(sizeof(**av), FI_CLASS_AV);
	(*av)->ops = &mock_av_ops;
	return 0;
}

static int mock_cq_open(struct fid_domain *d, struct fi_cq_attr *attr,
			struct fid_cq **cq, void *context)
{
	(void)d; (void)attr; (void)context;
	*cq = mock_fid(sizeof(**cq), FI_CLASS_CQ);
	(*cq)->ops = &mock_cq_ops;
	return 0;
}

static int mock_endpoint(struct fid_domain *d, struct fi_info *info,
			 struct fid_ep **ep, void *context)
{
	(void)d; (void)info; (void)context;
	*ep = mock_fid(sizeof(**ep), FI_CLASS_EP);
	(*ep)->msg = &mock_msg_ops;
	(*ep)->tagged = &mock_tagged_ops;
	return 0;
}

static struct fi_ops_domain mock_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = mock_av_open,
	.cq_open = mock_cq_open,
	.endpoint = mock_endpoint,
};

static int mock_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			   uint64_t flags, struct fid_mr **mr)
{
	(void)fid; (void)attr; (void)flags;
	core.regs++;
	*mr = NULL;
	return 0;
}

static struct fi_ops_mr mock_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.regattr = mock_mr_regattr,
};

static int mock_domain(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, void *context)
{
	(void)fabric; (void)info; (void)context;
	*dom = mock_fid(sizeof(**dom), FI_CLASS_DOMAIN);
	(*dom)->ops = &mock_domain_ops;
	(*dom)->mr = &mock_mr_ops;
	return 0;
}

static struct fi_ops_fabric mock_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = mock_domain,
};

/* ------------------------------------------------------- the hook on it */

struct hook_fixture {
	struct fid_fabric *fab;
	struct fid_domain *dom;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	fi_addr_t fa;			/* kav's fi_addr of 10.0.0.1:1 */
};

/* The hook over the mock core for an application of @api, @caps. */
static struct hook_fixture *hook_open(uint32_t api, uint64_t caps,
				      uint64_t av_flags)
{
	struct hook_fixture *h = calloc(1, sizeof(*h));
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = av_flags };
	struct sockaddr_in sin = test_sin("10.0.0.1", 1);
	struct fi_fabric_attr fattr;
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_info info;

	assert_non_null(h);
	memset(&core, 0, sizeof(core));
	core.next_core = MOCK_CORE_BASE;
	fake_kav_install();
	setenv("KAV_DEVICE", "/dev/null", 1);
	memset(&fattr, 0, sizeof(fattr));
	fattr.fabric = mock_fid(sizeof(*fattr.fabric), FI_CLASS_FABRIC);
	fattr.fabric->ops = &mock_fabric_ops;
	fattr.fabric->api_version = api;
	assert_int_equal(kavh_fabric_wrap(&fattr, &h->fab, NULL), 0);
	memset(&info, 0, sizeof(info));
	info.addr_format = FI_SOCKADDR_IN;
	info.caps = caps;
	assert_int_equal(fi_domain(h->fab, &info, &h->dom, NULL), 0);
	assert_int_equal(fi_av_open(h->dom, &attr, &h->av, NULL), 0);
	assert_int_equal(fi_av_insert(h->av, &sin, 1, &h->fa, 0, NULL), 1);
	/* Not mirrored at insert, even with FI_SOURCE (until read). */
	assert_int_equal(core.next_core, MOCK_CORE_BASE);
	assert_int_equal(fi_cq_open(h->dom, &cq_attr, &h->cq, NULL), 0);
	assert_int_equal(fi_endpoint(h->dom, &info, &h->ep, NULL), 0);
	assert_int_equal(fi_ep_bind(h->ep, &h->av->fid, 0), 0);
	assert_int_equal(fi_ep_bind(h->ep, &h->cq->fid, FI_RECV), 0);
	unsetenv("KAV_DEVICE");
	return h;
}

static void hook_close(struct hook_fixture *h)
{
	assert_int_equal(fi_close(&h->ep->fid), 0);
	assert_int_equal(fi_close(&h->cq->fid), 0);
	assert_int_equal(fi_close(&h->av->fid), 0);
	assert_int_equal(fi_close(&h->dom->fid), 0);
	assert_int_equal(fi_close(&h->fab->fid), 0);
	fake_kav_reset();
	free(h);
}

/* The source readfrom reports for the core's @src. */
static fi_addr_t read_src(struct hook_fixture *h, fi_addr_t src)
{
	struct fi_cq_entry entry;
	fi_addr_t out = 0x5a5a;

	core.cq_src[0] = src;
	core.cq_n = 1;
	assert_int_equal(fi_cq_readfrom(h->cq, &entry, 1, &out), 1);
	return out;
}

/* The src_addr readerr reports for the core's @src. */
static fi_addr_t read_err_src(struct hook_fixture *h, fi_addr_t src)
{
	union {
		struct fi_cq_err_entry e;
		char bytes[KAVH_CQ_ERR_SRC_OFFSET + sizeof(fi_addr_t)];
	} buf;
	fi_addr_t out;

	core.err_src = src;
	memset(&buf, 0, sizeof(buf));
	assert_int_equal(fi_cq_readerr(h->cq, &buf.e, 0), 1);
	assert_int_equal(buf.e.err, FI_ETRUNC);
	memcpy(&out, buf.bytes + KAVH_CQ_ERR_SRC_OFFSET, sizeof(out));
	return out;
}

static void test_user_id_completions(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1), FI_SOURCE,
					   FI_AV_USER_ID);

	(void)state;
	/* Before fi_av_set_user_id(): FI_ADDR_NOTAVAIL, not kav's fi_addr. */
	assert_true(read_src(h, MOCK_CORE_BASE) == FI_ADDR_NOTAVAIL);
	assert_true(read_err_src(h, MOCK_CORE_BASE) == FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_av_set_user_id(h->av, h->fa, 0x1234, 0), 0);
	assert_int_equal(read_src(h, MOCK_CORE_BASE), 0x1234);
	assert_int_equal(read_err_src(h, MOCK_CORE_BASE), 0x1234);
	/* A source the core does not know stays unknown. */
	assert_true(read_src(h, MOCK_CORE_BASE + 5) == FI_ADDR_NOTAVAIL);
	assert_true(read_src(h, FI_ADDR_NOTAVAIL) == FI_ADDR_NOTAVAIL);
	/* Cleared again: not available again. */
	assert_int_equal(fi_av_set_user_id(h->av, h->fa, FI_ADDR_NOTAVAIL, 0),
			 0);
	assert_true(read_src(h, MOCK_CORE_BASE) == FI_ADDR_NOTAVAIL);
	hook_close(h);
}

static void test_per_insert_user_ids(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1), FI_SOURCE, 0);
	struct sockaddr_in sin = test_sin("10.0.0.2", 2);
	fi_addr_t id = 0x77;

	(void)state;
	/* No user ids: kav's fi_addr, for readfrom and readerr alike. */
	assert_int_equal(read_src(h, MOCK_CORE_BASE), h->fa);
	assert_int_equal(read_err_src(h, MOCK_CORE_BASE), h->fa);
	/* fi_addr is the user id on input, kav's fi_addr on output. */
	assert_int_equal(fi_av_insert(h->av, &sin, 1, &id, FI_AV_USER_ID,
				      NULL), 1);
	assert_true(id != 0x77);
	assert_int_equal(read_src(h, MOCK_CORE_BASE + 1), 0x77);
	assert_int_equal(read_err_src(h, MOCK_CORE_BASE + 1), 0x77);
	/* The first entry has none: still its fi_addr. */
	assert_int_equal(read_src(h, MOCK_CORE_BASE), h->fa);
	hook_close(h);
}

static void test_err_src_old_api(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(1, 17), FI_SOURCE, 0);

	(void)state;
	/* Past a 1.17 application's entry: the hook leaves it alone. */
	assert_int_equal(read_err_src(h, MOCK_CORE_BASE), MOCK_CORE_BASE);
	assert_int_equal(read_src(h, MOCK_CORE_BASE), h->fa);
	hook_close(h);
}

/* The source the core got for a message and a tagged receive from fa. */
static void recv_srcs(struct hook_fixture *h, fi_addr_t *msg, fi_addr_t *tag)
{
	char buf[8];

	assert_int_equal(fi_recv(h->ep, buf, sizeof(buf), NULL, h->fa, NULL),
			 0);
	*msg = core.recv_src;
	assert_int_equal(fi_trecv(h->ep, buf, sizeof(buf), NULL, h->fa, 1, 0,
				  NULL), 0);
	*tag = core.recv_src;
}

static void test_directed_variants(void **state)
{
	static const struct {
		uint32_t api;
		uint64_t caps;
		bool msg, tagged;	/* translated */
	} cases[] = {
		{ FI_VERSION(2, 1), 0, false, false },
		{ FI_VERSION(2, 1), FI_DIRECTED_RECV, true, true },
		{ FI_VERSION(2, 1), FI_TAGGED_DIRECTED_RECV, false, true },
		{ FI_VERSION(2, 1), FI_EXACT_DIRECTED_RECV, true, true },
		{ FI_VERSION(2, 1), FI_TAGGED_DIRECTED_RECV |
				    FI_EXACT_DIRECTED_RECV, true, true },
		/* 1.x: bit 48 was FI_VARIABLE_MSG, bit 45 no capability. */
		{ FI_VERSION(1, 17), FI_EXACT_DIRECTED_RECV, false, false },
		{ FI_VERSION(1, 17), FI_TAGGED_DIRECTED_RECV, false, false },
		{ FI_VERSION(1, 17), FI_DIRECTED_RECV, true, true },
	};
	struct hook_fixture *h;
	fi_addr_t msg, tag;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		h = hook_open(cases[i].api, FI_MSG | FI_TAGGED | cases[i].caps,
			      0);
		recv_srcs(h, &msg, &tag);
		assert_int_equal(msg, cases[i].msg ? MOCK_CORE_BASE : h->fa);
		assert_int_equal(tag, cases[i].tagged ? MOCK_CORE_BASE : h->fa);
		hook_close(h);
	}
}

static void test_auth_key_refused(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1),
					   FI_MSG | FI_TAGGED |
					   FI_DIRECTED_RECV, 0);
	struct fi_msg_tagged tmsg;
	struct fi_mr_attr mattr;
	struct fid_mr *mr;
	struct fi_msg msg;

	(void)state;
	memset(&msg, 0, sizeof(msg));
	memset(&tmsg, 0, sizeof(tmsg));
	/* kav's key handle (the domain key's slot) never reaches the core. */
	msg.addr = tmsg.addr = KAV_FI_ADDR_KEY | 0;
	assert_int_equal(fi_recvmsg(h->ep, &msg, FI_AUTH_KEY), -FI_ENOSYS);
	assert_int_equal(fi_trecvmsg(h->ep, &tmsg, FI_AUTH_KEY), -FI_ENOSYS);
	assert_int_equal(core.recvs, 0);
	/* Any sender: nothing to restrict, the flag is dropped. */
	msg.addr = tmsg.addr = FI_ADDR_UNSPEC;
	assert_int_equal(fi_recvmsg(h->ep, &msg, FI_AUTH_KEY), 0);
	assert_true(core.recv_src == FI_ADDR_UNSPEC);
	assert_int_equal(core.recv_flags & FI_AUTH_KEY, 0);
	assert_int_equal(fi_trecvmsg(h->ep, &tmsg, FI_AUTH_KEY), 0);
	assert_int_equal(core.recv_flags & FI_AUTH_KEY, 0);
	assert_int_equal(core.recvs, 2);
	/* Without the flag an address is translated as ever. */
	msg.addr = h->fa;
	assert_int_equal(fi_recvmsg(h->ep, &msg, 0), 0);
	assert_int_equal(core.recv_src, MOCK_CORE_BASE);

	memset(&mattr, 0, sizeof(mattr));
	assert_int_equal(fi_mr_regattr(h->dom, &mattr, FI_AUTH_KEY, &mr),
			 -FI_ENOSYS);
	assert_int_equal(core.regs, 0);
	assert_int_equal(fi_mr_regattr(h->dom, &mattr, 0, &mr), 0);
	assert_int_equal(core.regs, 1);
	hook_close(h);
}

/* ------------------------------------------------------ job AVs, lazily */

struct share_fixture {
	struct fid_fabric *fab;
	struct fid_domain *dom[2];
	struct fid_av *av[2];
	struct fid_ep *ep;
};

/* Two keyed domains of one process (one job) and a MAP AV in each. */
static struct share_fixture *share_open(bool share)
{
	struct share_fixture *f = calloc(1, sizeof(*f));
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct fi_fabric_attr fattr;
	struct fi_info info;
	int i;

	assert_non_null(f);
	memset(&core, 0, sizeof(core));
	core.next_core = MOCK_CORE_BASE;
	fake_kav_install();
	kavh_params.have_vni = true;
	kavh_params.vni = 77;
	kavh_params.share = share;
	setenv("KAV_DEVICE", "/dev/null", 1);
	memset(&fattr, 0, sizeof(fattr));
	fattr.fabric = mock_fid(sizeof(*fattr.fabric), FI_CLASS_FABRIC);
	fattr.fabric->ops = &mock_fabric_ops;
	fattr.fabric->api_version = FI_VERSION(2, 1);
	assert_int_equal(kavh_fabric_wrap(&fattr, &f->fab, NULL), 0);
	memset(&info, 0, sizeof(info));
	info.addr_format = FI_SOCKADDR_IN;
	info.caps = FI_MSG | FI_DIRECTED_RECV;
	for (i = 0; i < 2; i++) {
		assert_int_equal(fi_domain(f->fab, &info, &f->dom[i], NULL), 0);
		assert_int_equal(fi_av_open(f->dom[i], &attr, &f->av[i], NULL),
				 0);
	}
	assert_int_equal(fi_endpoint(f->dom[1], &info, &f->ep, NULL), 0);
	assert_int_equal(fi_ep_bind(f->ep, &f->av[1]->fid, 0), 0);
	unsetenv("KAV_DEVICE");
	return f;
}

static void share_close(struct share_fixture *f)
{
	int i;

	assert_int_equal(fi_close(&f->ep->fid), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(fi_close(&f->av[i]->fid), 0);
		assert_int_equal(fi_close(&f->dom[i]->fid), 0);
	}
	assert_int_equal(fi_close(&f->fab->fid), 0);
	kavh_params.have_vni = false;
	kavh_params.vni = 0;
	kavh_params.share = false;
	fake_kav_reset();
	free(f);
}

static void test_shared_and_lazy(void **state)
{
	struct share_fixture *f = share_open(true);
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct sockaddr_in b = test_sin("10.0.0.2", 2);
	struct kav_av_job_stats st;
	struct kavh_av *hav = kavh_av_of(&f->av[1]->fid);
	fi_addr_t fa0, fa1, fb;
	unsigned int inserts;
	char buf[8];

	(void)state;
	assert_non_null(hav);
	assert_true(hav->shared);
	assert_int_equal(fi_av_insert(f->av[0], &a, 1, &fa0, 0, NULL), 1);
	/* The other domain finds it: no kernel call, the same fi_addr. */
	inserts = fake_kav_stats.inserts;
	assert_int_equal(fi_av_insert(f->av[1], &a, 1, &fa1, 0, NULL), 1);
	assert_int_equal(fake_kav_stats.inserts, inserts);
	assert_int_equal(fa1, fa0);
	assert_int_equal(kav_av_job_stats(hav->kav, &st), 0);
	assert_int_equal(st.found, 1);
	/* Lazy: nothing in the core yet; the first receive from it mirrors. */
	assert_int_equal(core.next_core, MOCK_CORE_BASE);
	assert_int_equal(fi_recv(f->ep, buf, sizeof(buf), NULL, fa1, NULL),
			 0);
	assert_int_equal(core.recv_src, MOCK_CORE_BASE);
	assert_int_equal(core.next_core, MOCK_CORE_BASE + 1);
	assert_int_equal(hav->stats.mirrored, 1);
	assert_int_equal(hav->stats.lazy, 1);
	/* Removed from this view: refused here, still the other's. */
	assert_int_equal(fi_av_remove(f->av[1], &fa1, 1, 0), 0);
	assert_int_equal(fi_recv(f->ep, buf, sizeof(buf), NULL, fa1, NULL),
			 -FI_EINVAL);
	assert_int_equal(core.recvs, 1);

	/* A core refusal surfaces at first use: the call fails with it. */
	core.refuse = -FI_ENOMEM;
	assert_int_equal(fi_av_insert(f->av[1], &b, 1, &fb, 0, NULL), 1);
	assert_int_equal(fi_recv(f->ep, buf, sizeof(buf), NULL, fb, NULL),
			 -FI_ENOMEM);
	assert_int_equal(core.recvs, 1);
	assert_int_equal(hav->stats.core_refused, 1);
	/* The entry stays kav's: the next call tries the core again. */
	core.refuse = 0;
	assert_int_equal(fi_recv(f->ep, buf, sizeof(buf), NULL, fb, NULL), 0);
	assert_int_equal(core.recvs, 2);
	share_close(f);
}

static void test_share_opt_out(void **state)
{
	struct share_fixture *f = share_open(false);
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct kav_av_job_stats st;
	struct kavh_av *hav = kavh_av_of(&f->av[1]->fid);
	unsigned int inserts;

	(void)state;
	assert_false(hav->shared);
	assert_int_equal(kav_av_job_stats(hav->kav, &st), -FI_EINVAL);
	assert_int_equal(fi_av_insert(f->av[0], &a, 1, NULL, 0, NULL), 1);
	inserts = fake_kav_stats.inserts;
	assert_int_equal(fi_av_insert(f->av[1], &a, 1, NULL, 0, NULL), 1);
	assert_int_equal(fake_kav_stats.inserts, inserts + 1);
	share_close(f);
}

/*
 * FI_SOURCE: lazy until the application reads a source; the first
 * fi_cq_readfrom() mirrors what was inserted (so the core can name it),
 * and inserts after it are mirrored at once.
 */
static void test_source_mirrors_from_first_read(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1), FI_SOURCE, 0);
	struct sockaddr_in sin = test_sin("10.0.0.3", 3);
	struct kavh_av *hav = kavh_av_of(&h->av->fid);
	fi_addr_t fb;

	(void)state;
	assert_false(hav->eager);
	/* The first source read: the inserted entry is there to name. */
	assert_int_equal(read_src(h, MOCK_CORE_BASE), h->fa);
	assert_true(hav->eager);
	assert_int_equal(core.next_core, MOCK_CORE_BASE + 1);
	assert_int_equal(hav->stats.mirrored, 1);
	assert_int_equal(hav->stats.lazy, 0);
	/* From now on at insert. */
	assert_int_equal(fi_av_insert(h->av, &sin, 1, &fb, 0, NULL), 1);
	assert_int_equal(core.next_core, MOCK_CORE_BASE + 2);
	assert_int_equal(read_src(h, MOCK_CORE_BASE + 1), fb);
	hook_close(h);
}

/* Without FI_SOURCE a source read mirrors nothing. */
static void test_no_source_stays_lazy(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1), 0, 0);
	fi_addr_t out;

	(void)state;
	out = read_src(h, FI_ADDR_NOTAVAIL);
	assert_true(out == FI_ADDR_NOTAVAIL);
	assert_false(kavh_av_of(&h->av->fid)->eager);
	assert_int_equal(core.next_core, MOCK_CORE_BASE);
	hook_close(h);
}

/*
 * Another process rewrites an entry this one has mirrored (here: libkav
 * under the hook, which the hook's own remove never sees). While the hook
 * mirrors the new address, a reader that passed the stamp check before
 * the change still finds a core fi_addr that is in the core AV; the old
 * mirror stays there (it names the old address, which that reader was
 * entitled to) until the AV closes, and no source maps back to it.
 */
static void test_rewrite_keeps_old_mirror(void **state)
{
	struct hook_fixture *h = hook_open(FI_VERSION(2, 1), 0, 0);
	struct kavh_av *hav = kavh_av_of(&h->av->fid);
	struct sockaddr_in other = test_sin("10.0.0.9", 9);
	fi_addr_t fa = h->fa, again, out;

	(void)state;
	assert_int_equal(kavh_xlate(hav, fa, &out), 0);
	assert_int_equal(out, MOCK_CORE_BASE);
	/* The rewrite: the same index, a new address and seq. */
	assert_int_equal(fi_av_remove(hav->kav, &fa, 1, 0), 0);
	assert_int_equal(fi_av_insert(hav->kav, &other, 1, &again, 0, NULL),
			 1);
	assert_int_equal(again, fa);
	core.watch = kavh_vec_get(&hav->slots, fa);
	assert_non_null(core.watch);
	assert_int_equal(kavh_xlate(hav, fa, &out), 0);
	core.watch = NULL;
	assert_int_equal(core.watched, 1);
	assert_int_equal(out, MOCK_CORE_BASE + 1);
	assert_int_equal(core.removed, 0);
	assert_true(kavh_src(hav, MOCK_CORE_BASE) == FI_ADDR_NOTAVAIL);
	assert_int_equal(kavh_src(hav, MOCK_CORE_BASE + 1), fa);
	hook_close(h);
}

/* FI_AV_USER_ID asks what a job table cannot give: private. */
static void test_user_id_av_not_shared(void **state)
{
	struct hook_fixture *h;

	(void)state;
	kavh_params.share = true;
	kavh_params.have_vni = true;
	kavh_params.vni = 77;
	h = hook_open(FI_VERSION(2, 1), FI_SOURCE, FI_AV_USER_ID);
	assert_false(kavh_av_of(&h->av->fid)->shared);
	assert_int_equal(fi_av_set_user_id(h->av, h->fa, 0x1234, 0), 0);
	hook_close(h);
	kavh_params.share = false;
	kavh_params.have_vni = false;
	kavh_params.vni = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_id_completions),
		cmocka_unit_test(test_per_insert_user_ids),
		cmocka_unit_test(test_err_src_old_api),
		cmocka_unit_test(test_directed_variants),
		cmocka_unit_test(test_auth_key_refused),
		cmocka_unit_test(test_shared_and_lazy),
		cmocka_unit_test(test_share_opt_out),
		cmocka_unit_test(test_user_id_av_not_shared),
		cmocka_unit_test(test_rewrite_keeps_old_mirror),
		cmocka_unit_test(test_source_mirrors_from_first_read),
		cmocka_unit_test(test_no_source_stays_lazy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
