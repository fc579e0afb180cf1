/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The netlink session with the kav generic netlink family (libnl-3).
 *
 * A request is sent with kc_nl_request(); every reply message is parsed
 * against the family's policy and handed to a callback; the call returns
 * when the kernel acknowledged the request, ended the dump, or reported
 * an error. Errors keep the kernel's errno and its extack message, and
 * kc_nl_report() prints them and gives the exit code.
 */
#ifndef KAVCTL_NL_H
#define KAVCTL_NL_H

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/kav.h>

#include "kavctl.h"

/* Called for each reply message; @tb is indexed by KAV_A_*. 0 or -1. */
typedef int (*kc_msg_fn)(uint8_t cmd, struct nlattr **tb, void *arg);

struct kc_nl {
	struct nl_sock *sk;
	int family;
	const char *what;	/* the operation, for messages: "grant add" */

	/* The outcome of the last request. */
	int error;		/* kernel errno (positive), 0 if none */
	int nl_error;		/* libnl error (NLE_*), 0 if none */
	bool cb_failed;		/* a callback returned -1 */
	char extack[512];	/* NLMSGERR_ATTR_MSG, "" if none */
	bool has_offs;
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS */
	bool has_miss;
	uint32_t miss_type;	/* NLMSGERR_ATTR_MISS_TYPE */
	char bad_attr[64];	/* the request attribute at @offs, if any */

	/*
	 * While a kc_msg_fn runs: every attribute of the reply, for those
	 * that repeat (KAV_A_WIRE_NET), which @tb holds only the last of.
	 */
	struct nlattr *msg_attrs;
	int msg_attrs_len;
};

/*
 * Connects and looks the family up. On failure prints why and returns the
 * exit code (KC_EXIT_NOMOD when the family is not registered), else 0.
 */
int kc_nl_open(struct kc_nl *nl, const char *what);
void kc_nl_close(struct kc_nl *nl);

/* A new request for @cmd; @flags adds to NLM_F_REQUEST (NLM_F_DUMP). */
struct nl_msg *kc_nl_msg(struct kc_nl *nl, uint8_t cmd, int flags);

/*
 * Sends @msg (always freed) and receives until the request is complete.
 * Returns 0, or -1 with the error recorded in @nl. A dump whose messages
 * carried NLM_F_DUMP_INTR (the list changed under it) is read to its end
 * and fails with @nl->nl_error NLE_DUMP_INTR (libnl's own handling):
 * the caller starts it again.
 */
int kc_nl_request(struct kc_nl *nl, struct nl_msg *msg, kc_msg_fn fn,
		  void *arg);

/* Times a listing is started again after NLM_F_DUMP_INTR. */
#define KC_DUMP_RETRIES		5

/* Prints the recorded error of the last request; returns the exit code. */
int kc_nl_report(struct kc_nl *nl);

/* Parses a received message of the family (for monitor). 0 or -1. */
int kc_nl_parse(struct nl_msg *msg, uint8_t *cmd, struct nlattr **tb);

/*
 * Joins the "admin" multicast group. On failure prints why and returns
 * the exit code (KC_EXIT_PERM without CAP_NET_ADMIN), else 0.
 */
int kc_nl_join_admin(struct kc_nl *nl);

#endif /* KAVCTL_NL_H */
