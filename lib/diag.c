// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Diagnostics a tenant can act on: the per-thread detail of the last
 * failure (kav_last_error()), and the messages for kav's denials, which
 * name the real cause with the domain's captured identity and the VNI.
 *
 * kav_strerror() returns one static text per error code, so the detail
 * of a failure (which VNI, which identity, which grant's limit, which
 * named AV) lives in a thread-local buffer that every failing libkav call
 * fills and that kav_last_error() returns. The same text is logged once
 * per failing call: denials at warn (the default level), refused
 * arguments at debug.
 *
 * The identity and the grants come from KAV_IOC_DOMAIN_WHOAMI on the
 * domain fd, asked only once a call has failed: nothing here is on a
 * path that succeeds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

/* ------------------------------------------------------- last error */

static __thread char kav_err_text[KAV_ERR_MAX];

void kav_err_clear(void)
{
	kav_err_text[0] = '\0';
}

void kav_fail(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kav_err_text, sizeof(kav_err_text), fmt, ap);
	va_end(ap);
	kav_log(level, "%s", kav_err_text);
}

KAV_API const char *kav_last_error(void)
{
	return kav_err_text;
}

/* ------------------------------------------------ appending to buffers */

/* snprintf at @*pos of @buf (@len bytes), never past its end. */
static void kav_cat(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void kav_cat(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len || *pos >= len - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*pos = KAV_MIN(*pos + (size_t)n, len - 1);
}

/* ------------------------------------------------------------ WHOAMI */

void kav_ident_free(struct kav_ident *id)
{
	free(id->grants);
	id->grants = NULL;
	id->nr = 0;
}

/* One KAV_IOC_DOMAIN_WHOAMI with room for @max grants at @g. */
static int kav_whoami_call(int fd, struct kav_whoami *w,
			   struct kav_grant_info *g, uint32_t max)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->max_grants = max;
	w->grant_size = sizeof(*g);
	w->grants = (uintptr_t)g;
	return kav_sys_ioctl(fd, KAV_IOC_DOMAIN_WHOAMI, w);
}

int kav_ident_get(int fd, struct kav_ident *id)
{
	struct kav_grant_info *g = NULL;
	uint32_t max = 0;
	int ret, tries;

	memset(id, 0, sizeof(*id));
	/* Size first; grants can come and go between calls: try again. */
	for (tries = 0; tries < 4; tries++) {
		ret = kav_whoami_call(fd, &id->w, g, max);
		if (ret < 0) {
			free(g);
			return ret;
		}
		if (id->w.nr_grants <= max)
			break;
		free(g);
		max = id->w.nr_grants + 4;
		g = calloc(max, sizeof(*g));
		if (!g)
			return -ENOMEM;
	}
	id->known = true;
	id->grants = g;
	id->nr = KAV_MIN(id->w.nr_grants, max);
	return 0;
}

size_t kav_ident_str(const struct kav_ident *id, char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	if (!id->known) {
		kav_cat(buf, len, &pos, "the identity that opened the domain; "
			"this kav module cannot report it (no WHOAMI)");
		return pos;
	}
	kav_cat(buf, len, &pos, "uid %u, gid %u, cgroup %llu, netns cookie "
		"%llu", id->w.uid, id->w.gid,
		(unsigned long long)id->w.cgroup_id,
		(unsigned long long)id->w.netns_cookie);
	return pos;
}

bool kav_ident_granted(const struct kav_ident *id, uint32_t vni)
{
	uint32_t i;

	for (i = 0; i < id->nr; i++)
		if (id->grants[i].vni == vni)
			return true;
	return false;
}

size_t kav_granted_str(const struct kav_ident *id, char *buf, size_t len)
{
	size_t pos = 0;
	uint32_t i, j, shown = 0;

	if (len)
		buf[0] = '\0';
	if (!id->known) {
		kav_cat(buf, len, &pos, "granted: unknown");
		return pos;
	}
	kav_cat(buf, len, &pos, "granted:");
	for (i = 0; i < id->nr; i++) {
		/* Each VNI once, in the order of its first grant. */
		for (j = 0; j < i; j++)
			if (id->grants[j].vni == id->grants[i].vni)
				break;
		if (j < i)
			continue;
		kav_cat(buf, len, &pos, "%s %u", shown ? "," : "",
			id->grants[i].vni);
		shown++;
	}
	if (!shown)
		kav_cat(buf, len, &pos, " none");
	else if (id->w.nr_grants > id->nr)
		kav_cat(buf, len, &pos, ", ...");
	return pos;
}

const struct kav_grant_info *kav_ident_limit(const struct kav_ident *id,
					     uint32_t vni,
					     uint64_t need_entries,
					     uint32_t need_avs)
{
	const struct kav_grant_info *g;
	uint32_t i;

	for (i = 0; i < id->nr; i++) {
		g = &id->grants[i];
		if (g->vni != vni)
			continue;
		if (g->limit_entries && need_entries &&
		    g->nr_entries + need_entries > g->limit_entries)
			return g;
		if (g->limit_avs && need_avs &&
		    (uint64_t)g->nr_avs + need_avs > g->limit_avs)
			return g;
	}
	/* A race or an unknown need: the first limited grant for @vni. */
	for (i = 0; i < id->nr; i++) {
		g = &id->grants[i];
		if (g->vni == vni && (g->limit_entries || g->limit_avs))
			return g;
	}
	return NULL;
}

/* "4 (4 in use)" or "none (3 in use)". */
static void kav_cat_limit(char *buf, size_t len, size_t *pos, uint64_t limit,
			  uint64_t used)
{
	if (limit)
		kav_cat(buf, len, pos, "%llu (%llu in use)",
			(unsigned long long)limit, (unsigned long long)used);
	else
		kav_cat(buf, len, pos, "none (%llu in use)",
			(unsigned long long)used);
}

void kav_deny_format(char *buf, size_t len, const struct kav_ident *id,
		     const struct kav_denial *d)
{
	const struct kav_grant_info *g;
	char who[160], granted[256];
	size_t pos = 0;

	kav_ident_str(id, who, sizeof(who));
	kav_granted_str(id, granted, sizeof(granted));
	if (len)
		buf[0] = '\0';
	switch (d->err) {
	case -FI_EACCES:
		if (!d->keyed) {
			kav_cat(buf, len, &pos, "%s: keyless insert refused: "
				"%s; open the domain with an auth key (VNI): "
				"fi_info.domain_attr->auth_key = struct "
				"kav_auth_key, or auth_key_size = "
				"FI_AV_AUTH_KEY and fi_av_insert_auth_key(); "
				"identity %s; %s", d->what,
				id->known &&
				(id->w.status & KAV_WHOAMI_KEYLESS_OK) ?
				"this entry may not be keyless" :
				"keyless inserts are off on this node (kav "
				"module parameter allow_keyless)",
				who, granted);
			break;
		}
		if (id->known && kav_ident_granted(id, d->vni) &&
		    d->if_granted) {
			kav_cat(buf, len, &pos, "%s refused: vni %u is granted "
				"to this identity (%s), but %s", d->what,
				d->vni, who, d->if_granted);
			break;
		}
		kav_cat(buf, len, &pos, "%s refused: no grant for this auth "
			"key (vni %u) matches the domain's identity (%s); %s; "
			"ask the administrator (kavctl grant add vni %u uid "
			"%u, or gid, cgroup, netns)", d->what, d->vni, who,
			granted, d->vni, id->known ? id->w.uid : 0U);
		break;
	case -FI_EKEYREJECTED:
		kav_cat(buf, len, &pos, "%s refused: auth key vni %u was "
			"revoked by the administrator (identity %s; %s)",
			d->what, d->vni, who, granted);
		break;
	case -EDQUOT:
		g = kav_ident_limit(id, d->vni, d->need_entries, d->need_avs);
		if (!g) {
			kav_cat(buf, len, &pos, "%s refused: a grant limit "
				"(max-entries or max-avs) for vni %u was "
				"reached (identity %s; %s)", d->what, d->vni,
				who, granted);
			break;
		}
		kav_cat(buf, len, &pos, "%s refused: grant %u (vni %u%s%s%s) "
			"limit reached: max-entries ", d->what, g->id, g->vni,
			g->tag[0] ? ", tag '" : "", g->tag,
			g->tag[0] ? "'" : "");
		kav_cat_limit(buf, len, &pos, g->limit_entries, g->nr_entries);
		kav_cat(buf, len, &pos, " / max-avs ");
		kav_cat_limit(buf, len, &pos, g->limit_avs, g->nr_avs);
		kav_cat(buf, len, &pos, "; this one needed %llu more %s; "
			"identity %s; ask the administrator to raise it "
			"(kavctl grant set %u ...)",
			(unsigned long long)(d->need_avs ? d->need_avs :
					     d->need_entries),
			d->need_avs ? "AV(s)" : "entries", who, g->id);
		break;
	default:
		kav_cat(buf, len, &pos, "%s failed: %s (vni %u, identity %s)",
			d->what, kav_strerror(d->err), d->vni, who);
		break;
	}
}

void kav_denial_warn(int domain_fd, const struct kav_denial *d)
{
	struct kav_ident id;
	char msg[KAV_ERR_MAX];

	struct kav_denial dd = *d;
	size_t i;

	/* Without WHOAMI (an older module) the message says so. */
	if (kav_ident_get(domain_fd, &id))
		memset(&id, 0, sizeof(id));
	for (i = 0; id.known && i < d->nr_vnis; i++) {
		if (d->err == -EDQUOT ?
		    kav_ident_limit(&id, d->vnis[i], d->need_entries,
				    d->need_avs) != NULL :
		    !kav_ident_granted(&id, d->vnis[i])) {
			dd.vni = d->vnis[i];
			break;
		}
	}
	kav_deny_format(msg, sizeof(msg), &id, &dd);
	kav_ident_free(&id);
	kav_fail(KAV_LOG_WARN, "%s", msg);
}
