/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the listing commands (grant / domain / av list, grant show, av
 * show) share: the request, started again when the kernel flags the dump
 * as interrupted (NLM_F_DUMP_INTR), and the owner columns.
 */
#ifndef KAVCTL_LIST_H
#define KAVCTL_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "nl.h"
#include "output.h"

/* A listing in progress: what each reply's callback gets as its arg. */
struct kc_list {
	struct kc_out out;
	const struct kc_cmd *cmd;
	uint32_t format;	/* av show: the AV's address format */
	uint64_t count;		/* replies seen */
};

struct kc_list_req {
	const char *what;	/* "grant list", for messages */
	const char *name;	/* the JSON document's member: "grants" */
	uint8_t genl_cmd;
	bool dump;		/* NLM_F_DUMP, else one reply (doit) */
	/* Adds the request's attributes (filters, ids); 0 or -1. */
	int (*put)(struct nl_msg *msg, const struct kc_cmd *cmd);
	kc_msg_fn row;		/* fills a row; arg is the struct kc_list */
	const struct kc_column *cols;
	size_t ncols;
	/* ENOENT without an extack: "no grant" (and cmd->id). */
	const char *enoent;
};

/*
 * Runs @req on @nl (opened by the caller) into a table or JSON document
 * and prints it. @l->format is kept. Returns 0 or an exit code.
 */
int kc_list_run(struct kc_nl *nl, const struct kc_cmd *cmd,
		const struct kc_list_req *req, struct kc_list *l);

/* kc_list_run() on a session of its own. */
int kc_list_dump(const struct kc_cmd *cmd, const struct kc_list_req *req);

/*
 * Column @col of the current row: the user (KAV_A_UID) or group
 * (KAV_A_GID) @attr of the message, by name or else by number; left
 * empty when the message does not carry it.
 */
void kc_list_set_owner(struct kc_out *o, size_t col, struct nlattr **tb,
		       int attr);

#endif /* KAVCTL_LIST_H */
