/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Grants over netlink, for kavctl grant and kavctl apply: add (or update,
 * GRANT_ADD is idempotent on key + selector + tag), set, revoke, and a
 * dump into an array. Each prints what went wrong ("grant add: ...") and
 * returns an exit code (KC_EXIT_*), 0 on success.
 */
#ifndef KAVCTL_GRANT_H
#define KAVCTL_GRANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kavctl.h"
#include "nl.h"

/*
 * The columns of kc_grant_cols (grant list/show, whoami's grants). The
 * wire's come last: whoami's grants (struct kav_grant_info) have none,
 * so whoami shows the first G_NCOLS_WHOAMI.
 */
enum { G_ID, G_VNI, G_SEL, G_SEL_TYPE, G_SEL_ID, G_SEL_NAME, G_CGROUP_ID,
	G_CGROUP_PATH, G_NETNS, G_MAXE, G_MAXA, G_ENTRIES, G_AVS, G_TAG,
	G_NCOLS_WHOAMI, G_WIRE = G_NCOLS_WHOAMI, G_WIRE_DROPS, G_NCOLS };

/* A grant as the kernel reports it (GRANT_GET). */
struct kc_grant {
	uint32_t id;
	uint32_t vni;
	uint32_t sel_type;		/* enum kav_grant_selector */
	bool has_sel_id;
	uint32_t sel_id;		/* uid, gid */
	bool has_cgroup_id;
	uint64_t cgroup_id;
	bool has_netns_cookie;
	uint64_t netns_cookie;
	uint64_t limit_entries;		/* 0: no limit */
	uint32_t limit_avs;		/* 0: no limit */
	uint64_t nr_entries;
	uint32_t nr_avs;
	char tag[KAV_TAG_MAX + 1];	/* "" when none */
	bool wire;			/* KAV_A_GRANT_WIRE */
	bool has_wire_drops;
	uint64_t wire_drops;		/* KAV_A_WIRE_DROPS */
};

/*
 * Opens a network namespace file (/proc/PID/ns/net, /run/netns/NAME) for
 * KAV_A_SEL_NETNS_FD. Returns the fd, or -1 after saying why.
 */
int kc_open_netns(const char *path);

/*
 * GRANT_ADD of @spec (its selector, limits, KAV_A_GRANT_WIRE if
 * @spec->wire and, if @spec->has_tag and not empty, its tag). A netns
 * selector's path is opened here. On success
 * *@id is the grant's id and *@updated says whether an existing grant
 * with the same key, selector and tag was updated instead of added.
 */
int kc_grant_put(struct kc_nl *nl, const struct kc_grant_spec *spec,
		 uint32_t *id, bool *updated);

/*
 * GRANT_SET of grant @id: the limits and tag @spec has (has_max_entries,
 * has_max_avs, has_tag; an empty tag removes it).
 */
int kc_grant_change(struct kc_nl *nl, uint32_t id,
		    const struct kc_grant_spec *spec);

/*
 * GRANT_DEL of grant @id: "no grant ID" when there is none, or success
 * when @missing_ok (apply --prune: revoked meanwhile is what was wanted).
 */
int kc_grant_revoke(struct kc_nl *nl, uint32_t id, bool missing_ok);

/*
 * The grants (only those with key *@vni and tag @tag, when given), in a
 * malloc'd array of *@n, started again if the list changed under the
 * dump. Free with free().
 */
int kc_grants_dump(struct kc_nl *nl, const uint32_t *vni, const char *tag,
		   struct kc_grant **grants, size_t *n);

struct kc_out;
struct kc_sel_view;

/*
 * A grant's selector in the current row of kc_grant_cols: G_SEL (as
 * text), G_SEL_TYPE, G_SEL_ID and G_SEL_NAME, G_CGROUP_ID, G_CGROUP_PATH,
 * G_NETNS (grant list/show, whoami's grants).
 */
void kc_out_grant_selector(struct kc_out *o, const struct kc_sel_view *sel);

#endif /* KAVCTL_GRANT_H */
