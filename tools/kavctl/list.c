// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The listing commands' shared parts: see list.h. */
#include <errno.h>
#include <stdio.h>

#include "attrs.h"
#include "list.h"

int kc_list_run(struct kc_nl *nl, const struct kc_cmd *cmd,
		const struct kc_list_req *req, struct kc_list *l)
{
	int ret, tries;

	l->cmd = cmd;
	l->count = 0;
	ret = kc_out_begin(&l->out, cmd, req->name, req->cols, req->ncols);
	if (ret)
		return ret;
	for (tries = 0; tries <= KC_DUMP_RETRIES; tries++) {
		struct nl_msg *msg;

		msg = kc_nl_msg(nl, req->genl_cmd, req->dump ? NLM_F_DUMP : 0);
		if (msg && req->put && req->put(msg, cmd)) {
			nlmsg_free(msg);
			msg = NULL;
		}
		if (kc_nl_request(nl, msg, req->row, l) == 0) {
			ret = kc_out_end(&l->out, true);
			if (ret == 0 && !req->dump && !l->count) {
				kc_err("%s: the kernel sent no reply", req->what);
				ret = KC_EXIT_FAIL;
			}
			return ret;
		}
		if (nl->nl_error != NLE_DUMP_INTR)
			break;
		/* The list changed while it was read: read it again. */
		kc_out_clear(&l->out);
		l->count = 0;
	}
	/* The kernel's words for it may vary: say it with the id. */
	if (nl->error == ENOENT && req->enoent)
		snprintf(nl->extack, sizeof(nl->extack), "%s %u", req->enoent,
			 cmd->id);
	ret = kc_nl_report(nl);
	kc_out_end(&l->out, false);
	return ret;
}

int kc_list_dump(const struct kc_cmd *cmd, const struct kc_list_req *req)
{
	struct kc_list l = { 0 };
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, req->what);
	if (ret)
		return ret;
	ret = kc_list_run(&nl, cmd, req, &l);
	kc_nl_close(&nl);
	return ret;
}

void kc_list_set_owner(struct kc_out *o, size_t col, struct nlattr **tb,
		       int attr)
{
	char name[256];
	uint32_t id;
	bool named;

	if (!kc_get_u32(tb, attr, &id))
		return;
	if (attr == KAV_A_GID)
		named = kc_group_name(id, name, sizeof(name));
	else
		named = kc_user_name(id, name, sizeof(name));
	if (named)
		kc_out_set(o, col, "%s", name);
	else
		kc_out_set(o, col, "%u", id);
}
