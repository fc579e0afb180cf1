// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The netlink session: see nl.h.
 *
 * libnl 3.7 has no helper for extended acks, so the socket options are set
 * directly and the TLVs after struct nlmsgerr (or after the error code of
 * NLMSG_DONE, for a dump that failed part way) are parsed here.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "attrs.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif

struct kc_req {
	struct kc_nl *nl;
	struct nl_msg *msg;	/* the request, to name an attribute by offset */
	kc_msg_fn fn;
	void *arg;
	bool done;
};

int kc_nl_open(struct kc_nl *nl, const char *what)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->what = what;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		kc_err("%s: out of memory", what);
		return KC_EXIT_FAIL;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		kc_err("%s: cannot open a generic netlink socket: %s", what,
		       nl_geterror(ret));
		goto fail;
	}
	/* Best effort: error strings and no echo of the request. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);

	nl->family = genl_ctrl_resolve(nl->sk, KAV_GENL_NAME);
	if (nl->family == -NLE_OBJ_NOTFOUND) {
		/* The family lives in the initial network namespace only. */
		if (access("/sys/module/kav", F_OK) == 0)
			kc_err("the kav module is loaded but its netlink family is not visible here: run kavctl in the initial network namespace");
		else
			kc_err("kav module not loaded (modprobe kav)");
		kc_nl_close(nl);
		return KC_EXIT_NOMOD;
	}
	if (nl->family < 0) {
		kc_err("%s: cannot look up the generic netlink family \"%s\": %s",
		       what, KAV_GENL_NAME, nl_geterror(nl->family));
		goto fail;
	}
	return 0;
fail:
	kc_nl_close(nl);
	return KC_EXIT_FAIL;
}

void kc_nl_close(struct kc_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *kc_nl_msg(struct kc_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, KAV_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int kc_nl_parse(struct nl_msg *msg, uint8_t *cmd, struct nlattr **tb)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh;
	char bad[64];

	if (!genlmsg_valid_hdr(nlh, 0))
		return -1;
	gnlh = nlmsg_data(nlh);
	if (kc_attrs_validate(genlmsg_attrdata(gnlh, 0),
			      genlmsg_attrlen(gnlh, 0), bad, sizeof(bad))) {
		kc_warn("malformed message from the kernel: %s has the wrong size",
			bad);
		return -1;
	}
	if (nla_parse(tb, KAV_A_MAX, genlmsg_attrdata(gnlh, 0),
		      genlmsg_attrlen(gnlh, 0), NULL) < 0)
		return -1;
	*cmd = gnlh->cmd;
	return 0;
}

/* Names the attribute of the request at byte offset @offs, if any. */
static void name_bad_attr(struct kc_nl *nl, struct nl_msg *req)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	struct nlattr *nla;
	int rem;

	nl->bad_attr[0] = '\0';
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		uint32_t start = (uint32_t)((char *)nla - (char *)nlh);

		if (nl->offs >= start && nl->offs < start + nla->nla_len) {
			char tmp[32];

			snprintf(nl->bad_attr, sizeof(nl->bad_attr), "%s",
				 kc_attr_name(nla_type(nla), tmp, sizeof(tmp)));
			return;
		}
	}
}

/* Extended ack TLVs in [@tlv, @tlv + @len). */
static void parse_ext_ack(struct kc_req *r, const void *tlv, int len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct kc_nl *nl = r->nl;

	if (len <= 0 || nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)tlv,
				  len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0) {
		const char *s = nla_data(tb[NLMSGERR_ATTR_MSG]);
		int n = (int)strnlen(s, nla_len(tb[NLMSGERR_ATTR_MSG]));

		snprintf(nl->extack, sizeof(nl->extack), "%.*s", n, s);
	}
	if (tb[NLMSGERR_ATTR_OFFS] &&
	    nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4) {
		nl->has_offs = true;
		nl->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
		if (r->msg)
			name_bad_attr(nl, r->msg);
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE] &&
	    nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4) {
		nl->has_miss = true;
		nl->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	}
}

/* The TLVs of an NLMSG_ERROR message, whose payload starts at @e. */
static void error_ext_ack(struct kc_req *r, struct nlmsgerr *e)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	off = NLMSG_ALIGN(off);
	if (off >= (size_t)nlmsg_datalen(nlh))
		return;
	parse_ext_ack(r, (char *)e + off, nlmsg_datalen(nlh) - (int)off);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct kc_req *r = arg;

	(void)nla;
	r->nl->error = e->error < 0 ? -e->error : e->error;
	error_ext_ack(r, e);
	r->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct kc_req *r = arg;

	/* A successful ack may carry a warning in its extack. */
	error_ext_ack(r, nlmsg_data(nlmsg_hdr(msg)));
	if (r->nl->extack[0])
		kc_warn("%s: %s", r->nl->what, r->nl->extack);
	r->nl->extack[0] = '\0';
	r->done = true;
	return NL_STOP;
}

/* NLMSG_DONE: a negative int is the error of a dump that failed. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct kc_req *r = arg;
	int err;

	r->done = true;
	if (nlmsg_datalen(nlh) < (int)sizeof(int))
		return NL_STOP;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		r->nl->error = -err;
		if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
			parse_ext_ack(r, (char *)nlmsg_data(nlh) +
				      NLMSG_ALIGN(sizeof(int)),
				      nlmsg_datalen(nlh) -
				      (int)NLMSG_ALIGN(sizeof(int)));
	}
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[KAV_A_MAX + 1];
	struct kc_req *r = arg;
	uint8_t cmd;

	/*
	 * After a failure the rest of the reply is read and dropped, up to
	 * its ack or NLMSG_DONE, so that the socket stays in step for the
	 * next request.
	 */
	if (r->nl->nl_error || r->nl->cb_failed)
		return NL_SKIP;
	if (kc_nl_parse(msg, &cmd, tb)) {
		r->nl->nl_error = NLE_MSG_TRUNC;
		return NL_SKIP;
	}
	if (r->fn) {
		struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));
		int ret;

		r->nl->msg_attrs = genlmsg_attrdata(g, 0);
		r->nl->msg_attrs_len = genlmsg_attrlen(g, 0);
		ret = r->fn(cmd, tb, r->arg);
		r->nl->msg_attrs = NULL;
		r->nl->msg_attrs_len = 0;
		if (ret) {
			r->nl->cb_failed = true;
			return NL_SKIP;
		}
	}
	return NL_OK;
}

int kc_nl_request(struct kc_nl *nl, struct nl_msg *msg, kc_msg_fn fn,
		  void *arg)
{
	struct kc_req r = { .nl = nl, .msg = msg, .fn = fn, .arg = arg };
	struct nlmsghdr *nlh;
	struct nl_cb *cb;
	int ret;

	nl->error = nl->nl_error = 0;
	nl->cb_failed = nl->has_offs = nl->has_miss = false;
	nl->extack[0] = nl->bad_attr[0] = '\0';
	if (!msg) {
		nl->nl_error = NLE_NOMEM;
		return -1;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		nl->nl_error = NLE_NOMEM;
		return -1;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &r);

	/* Dumps end with NLMSG_DONE; only other requests ask for an ack. */
	nl_complete_msg(nl->sk, msg);
	nlh = nlmsg_hdr(msg);
	if ((nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP)
		nlh->nlmsg_flags &= ~NLM_F_ACK;
	else
		nlh->nlmsg_flags |= NLM_F_ACK;

	ret = nl_send(nl->sk, msg);
	while (ret >= 0 && !r.done)
		ret = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	nlmsg_free(msg);

	if (nl->error || nl->nl_error || nl->cb_failed)
		return -1;
	if (ret < 0) {
		nl->nl_error = -ret;
		return -1;
	}
	return 0;
}

int kc_nl_report(struct kc_nl *nl)
{
	char detail[sizeof(nl->extack) + 128] = "";
	char tmp[32];
	size_t o = 0;

	if (nl->cb_failed)	/* the callback printed why */
		return KC_EXIT_FAIL;
	if (nl->nl_error == NLE_DUMP_INTR) {
		kc_err("%s: the list kept changing while it was read (NLM_F_DUMP_INTR %d times): try again",
		       nl->what, KC_DUMP_RETRIES + 1);
		return KC_EXIT_FAIL;
	}
	if (nl->nl_error) {
		if (nl->nl_error == NLE_MSG_TRUNC)
			kc_err("%s: malformed reply from the kernel", nl->what);
		else
			kc_err("%s: netlink: %s", nl->what,
			       nl_geterror(-nl->nl_error));
		return nl->nl_error == NLE_PERM ? KC_EXIT_PERM : KC_EXIT_FAIL;
	}

	/* "what: extack (strerror)", or "what: strerror" without extack. */
	if (nl->extack[0])
		o += snprintf(detail + o, sizeof(detail) - o, ": %s (%s)",
			      nl->extack, strerror(nl->error));
	else
		o += snprintf(detail + o, sizeof(detail) - o, ": %s",
			      strerror(nl->error));
	if (nl->bad_attr[0] && o < sizeof(detail))
		o += snprintf(detail + o, sizeof(detail) - o,
			      " (%s)", nl->bad_attr);
	if (nl->has_miss && o < sizeof(detail))
		snprintf(detail + o, sizeof(detail) - o,
			 " (missing %s)",
			 kc_attr_name((int)nl->miss_type, tmp, sizeof(tmp)));

	switch (nl->error) {
	case EPERM:
		kc_err("%s: needs CAP_NET_ADMIN in the initial user namespace%s",
		       nl->what, detail);
		return KC_EXIT_PERM;
	case EOPNOTSUPP:
		kc_err("%s: not supported by the loaded kav module%s",
		       nl->what, detail);
		return KC_EXIT_FAIL;
	default:
		kc_err("%s%s", nl->what, detail);
		return KC_EXIT_FAIL;
	}
}

int kc_nl_join_admin(struct kc_nl *nl)
{
	int grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, KAV_GENL_NAME,
				    KAV_GENL_MCGRP_ADMIN);
	if (grp == -NLE_OBJ_NOTFOUND) {
		kc_err("%s: the kav module has no \"%s\" multicast group",
		       nl->what, KAV_GENL_MCGRP_ADMIN);
		return KC_EXIT_FAIL;
	}
	if (grp < 0) {
		kc_err("%s: cannot look up the \"%s\" multicast group: %s",
		       nl->what, KAV_GENL_MCGRP_ADMIN, nl_geterror(grp));
		return KC_EXIT_FAIL;
	}
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret == -NLE_PERM) {
		kc_err("%s: needs CAP_NET_ADMIN in the initial user namespace to join the \"%s\" group",
		       nl->what, KAV_GENL_MCGRP_ADMIN);
		return KC_EXIT_PERM;
	}
	if (ret < 0) {
		kc_err("%s: cannot join the \"%s\" multicast group: %s",
		       nl->what, KAV_GENL_MCGRP_ADMIN, nl_geterror(ret));
		return KC_EXIT_FAIL;
	}
	return 0;
}
