/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For tests of the auth-key mechanics: grant the keys a test uses to its
 * own uid, as an administrator would with kavctl, and revoke them again.
 * Authorisation itself is tested in kav_attack_test.c.
 */
#ifndef KAV_TEST_GRANTS_H
#define KAV_TEST_GRANTS_H

#include "kav_nl_util.h"

struct kav_test_grants {
	struct kav_nl nl;
	uint32_t ids[128];
	int n;
};

/* Grant vni @first .. @first + @count - 1 to the caller's euid. */
static inline int kav_test_grant(struct kav_test_grants *g, uint32_t first,
				 uint32_t count)
{
	uint32_t v;
	int ret;

	if (!g->nl.fd && kav_nl_open(&g->nl))
		return -1;
	for (v = first; v < first + count; v++) {
		if (g->n == (int)(sizeof(g->ids) / sizeof(g->ids[0])))
			return -1;
		ret = kav_nl_grant_uid(&g->nl, v, geteuid(), &g->ids[g->n]);
		if (ret)
			return ret;
		g->n++;
	}
	return 0;
}

static inline void kav_test_revoke_all(struct kav_test_grants *g)
{
	while (g->n > 0)
		kav_nl_grant_del(&g->nl, g->ids[--g->n]);
	if (g->nl.fd)
		kav_nl_close(&g->nl);
	g->nl.fd = 0;
}

/* Grant @s on a netlink socket of its own; its id, 0 on failure. */
static inline uint32_t kav_test_grant_spec(const struct kav_grant_spec *s)
{
	struct kav_nl_grant gr = { 0 };
	struct kav_nl nl;

	if (kav_nl_open(&nl))
		return 0;
	if (kav_nl_grant_add(&nl, s, &gr))
		gr.id = 0;
	kav_nl_close(&nl);
	return gr.id;
}

/* One grant of @vni to @uid, with an entry limit (0: none); as above. */
static inline uint32_t kav_test_grant_one(uint32_t vni, uint32_t uid,
					  uint64_t limit_entries)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = uid,
				    .limit_entries = limit_entries };

	return kav_test_grant_spec(&s);
}

/* Delete grant @id (kav_test_grant_one()): 0 or a negative errno. */
static inline int kav_test_grant_del(uint32_t id)
{
	struct kav_nl nl;
	int ret;

	if (kav_nl_open(&nl))
		return -ENOSYS;
	ret = kav_nl_grant_del(&nl, id);
	kav_nl_close(&nl);
	return ret;
}

#endif /* KAV_TEST_GRANTS_H */
