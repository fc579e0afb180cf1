// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The listing commands' shared parts: see list.h. */
#include "attrs.h"
#include "list.h"

int kc_list_dump(const struct kc_cmd *cmd, const char *what,
		 uint8_t genl_cmd, kc_msg_fn fn, const struct kc_column *cols,
		 size_t ncols)
{
	struct kc_out out;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, what);
	if (ret)
		return ret;
	ret = kc_out_begin(&out, cmd, true, cols, ncols);
	if (ret)
		goto close;
	if (kc_nl_request(&nl, kc_nl_msg(&nl, genl_cmd, NLM_F_DUMP), fn,
			  &out)) {
		ret = kc_nl_report(&nl);
		kc_out_end(&out, false);
		goto close;
	}
	ret = kc_out_end(&out, true);
close:
	kc_nl_close(&nl);
	return ret;
}

int kc_list_row(struct kc_out *o, struct nlattr **tb, uint32_t format,
		unsigned int flags)
{
	if (o->json) {
		kc_json_open_object(&o->j);
		kc_json_attrs(&o->j, tb, format, flags);
		kc_json_close_object(&o->j);
		return 0;
	}
	if (kc_table_add_row(&o->t)) {
		kc_err("out of memory");
		return -1;
	}
	return 1;
}

void kc_list_set_owner(struct kc_table *t, size_t col, struct nlattr **tb,
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
		kc_table_set(t, col, "%s", name);
	else
		kc_table_set(t, col, "%u", id);
}
