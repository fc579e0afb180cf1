// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Named AVs: fi_av_attr.name, FI_READ and map_addr over the kernel's
 * KAV_AV_NAMED. A name is scoped to the IPC namespace of the process that
 * opened the domain; every process that opens it maps the same kernel
 * pages, so a node holds one copy of a job's table.
 *
 * MPI "instant-on": a launcher creates the AV and inserts every rank's
 * address in rank order; each rank opens it with FI_READ and count = the
 * world size and reads ((fi_addr_t *)attr.map_addr)[rank], which is the
 * kernel's fi_addr array in the read-only mapping (no system call).
 *
 * Names belong to users (the kernel keeps one set of names per owner's
 * uid in each IPC namespace), so a name opens the caller's own AV unless
 * $KAV_AV_OWNER names the user whose AV to open (KAV_AV_OWNER). A keyed
 * domain that joins an existing named AV to write adds its own key to it
 * (kav_av_named_join_key()): the kernel binds the domain's handle-less
 * inserts to the slot holding the writer's own key, never the creator's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

int kav_av_mode_parse(const char *s, uint32_t *mode)
{
	uint32_t m = 0;
	const char *p;

	*mode = 0;			/* the kernel's default, 0600 */
	if (!s || !*s)
		return 0;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '7' || p - s >= 4)
			return -FI_EINVAL;
		m = m * 8 + (uint32_t)(*p - '0');
	}
	/* Read and write bits only: an AV has nothing to execute. */
	if (m & ~0666U)
		return -FI_EINVAL;
	*mode = m;
	return 0;
}

int kav_av_owner_parse(const char *s, bool *set, uint32_t *uid)
{
	uint64_t v = 0;
	const char *p;

	*set = false;
	*uid = 0;
	if (!s || !*s)
		return 0;
	/* Decimal digits only: no sign, space, base prefix or name. */
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' || p - s >= 10)
			return -FI_EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	/* (uid_t)-1 is no user (setresuid()'s "unchanged"). */
	if (v >= UINT32_MAX)
		return -FI_EINVAL;
	*set = true;
	*uid = (uint32_t)v;
	return 0;
}

int kav_av_named_request(const struct fi_av_attr *attr,
			 struct kav_av_create *req)
{
	size_t len = strlen(attr->name);
	const char *env;
	bool owner;
	int ret;

	if (!len || len > KAV_NAME_MAX) {
		kav_refuse("fi_av_open: a name is 1..%d bytes, not %zu",
			   KAV_NAME_MAX, len);
		return -FI_EINVAL;
	}
	req->flags = KAV_AV_NAMED;
	req->name = (uintptr_t)attr->name;
	req->name_len = (uint32_t)len;
	env = secure_getenv(KAV_AV_OWNER_ENV);
	ret = kav_av_owner_parse(env, &owner, &req->owner_uid);
	if (ret) {
		kav_fail_warn("%s=%s: give the numeric uid of the user whose "
			      "named AVs to open, such as 1000 (unset: your "
			      "own)", KAV_AV_OWNER_ENV, env);
		return ret;
	}
	if (owner)
		req->flags |= KAV_AV_OWNER;
	if (attr->flags & FI_READ) {
		req->flags |= KAV_AV_RDONLY;
		return 0;
	}
	env = secure_getenv(KAV_AV_MODE_ENV);
	ret = kav_av_mode_parse(env, &req->mode);
	if (ret)
		kav_fail_warn("%s=%s: give octal read/write bits such as "
			      "0640", KAV_AV_MODE_ENV, env);
	return ret;
}

void kav_av_create_denied(const struct kav_fid_domain *d, const char *what,
			  int err)
{
	struct kav_denial deny = {
		.what = what,
		.err = err,
		.keyed = d->has_key,
		.vni = d->key.vni,
		.need_avs = 1,
	};

	if (!d->has_key && err == -FI_EACCES) {
		kav_fail_warn("%s refused: %s", what, kav_strerror(err));
		return;
	}
	kav_denial_warn(d->fd, &deny);
}

/* "owner uid 1000" of the named AV @req looks for (@id: the caller). */
static void kav_named_owner(const struct kav_av_create *req,
			    const struct kav_ident *id, char *buf, size_t len)
{
	if (req->flags & KAV_AV_OWNER)
		snprintf(buf, len, "owner uid %u, from %s", req->owner_uid,
			 KAV_AV_OWNER_ENV);
	else if (id->known)
		snprintf(buf, len, "owner uid %u: your own names", id->w.uid);
	else
		snprintf(buf, len, "owner: you, the domain's opener");
}

void kav_av_named_open_failed(const struct kav_fid_domain *d,
			      const struct fi_av_attr *attr,
			      const struct kav_av_create *req, int err)
{
	const char *rw = (req->flags & KAV_AV_RDONLY) ? "read" : "read/write";
	char owner[80], who[160], ipc[48] = "";
	struct kav_ident id;

	if (err != -FI_EACCES && err != -FI_ENOENT) {
		kav_fail_info("named AV '%s': %s%s", attr->name,
			      kav_strerror(err), err == -FI_EINVAL ?
			      " (it exists with another address format?)" :
			      "");
		return;
	}
	if (kav_ident_get(d->fd, &id))
		memset(&id, 0, sizeof(id));
	kav_named_owner(req, &id, owner, sizeof(owner));
	kav_ident_str(&id, who, sizeof(who));
	if (id.known)
		snprintf(ipc, sizeof(ipc), "ipc ns %u; ", id.w.ipc_ns);
	kav_ident_free(&id);
	if (err == -FI_EACCES) {
		char mode[48] = "its mode bits";

		/* The kernel reports the AV's mode and owner (KAV_AV_DENIED_MODE). */
		if (req->result & KAV_AV_DENIED_MODE) {
			snprintf(owner, sizeof(owner), "owner uid %u",
				 req->owner_uid);
			snprintf(mode, sizeof(mode), "its mode bits %04o",
				 req->mode);
		}
		/* A denial: the default level shows it. */
		kav_fail_warn("named AV '%s' (%s) does not allow %s for %s: "
			      "%s, set by its creator (%s, default "
			      "0600), refuse this; ask its owner to create it "
			      "with %s=0640 (group read) or 0660 (group "
			      "read/write)%s", attr->name, owner, rw, who, mode,
			      KAV_AV_MODE_ENV, KAV_AV_MODE_ENV,
			      (req->flags & KAV_AV_RDONLY) ? "" :
			      ", or open it with FI_READ to only read it");
		return;
	}
	/* ENOENT: also how FI_READ probes for an AV (info, not warn). */
	kav_fail_info("no named AV '%s' in this IPC namespace (%s%s)%s",
		      attr->name, ipc, owner,
		      (req->flags & KAV_AV_OWNER) ?
		      "; another user's AV is opened, never created" :
		      "; FI_READ opens, never creates; another user's AV "
		      "needs " KAV_AV_OWNER_ENV "=<uid>");
}

int kav_av_named_attach(struct kav_fid_av *av, struct fi_av_attr *attr)
{
	uint64_t slots = kav_table_nr_slots(&av->table);

	/*
	 * A reader of map_addr[0..count) must find pages there: slots never
	 * shrink, so once count are readable they stay readable.
	 */
	if ((attr->flags & FI_READ) && attr->count > slots) {
		kav_fail_info("named AV %s holds %llu entries, fewer than "
			      "count %zu: not filled yet", attr->name,
			      (unsigned long long)slots, attr->count);
		return -FI_EAGAIN;
	}
	/*
	 * fi_addr_t values never depend on map_addr: a given one is kept.
	 * Named AVs always have the array (only job tables, never named,
	 * lack one: then map_addr stays NULL).
	 */
	if (!attr->map_addr)
		attr->map_addr = (void *)kav_table_fi_addrs(&av->table);
	return 0;
}

int kav_av_named_join_key(struct kav_fid_av *av, const char *name)
{
	const struct kav_fid_domain *d = av->domain;
	struct kav_av_key req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.key = d->key;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_KEY_INSERT, &req);
	if (ret >= 0 || ret == -EEXIST) {
		kav_debug("named AV %s: the domain's key vni %u is handle %llu",
			  name, d->key.vni, (unsigned long long)req.handle);
		return 0;
	}
	ret = kav_err_from_errno(-ret);
	if (ret == -FI_EACCES || ret == -FI_EKEYREJECTED || ret == -EDQUOT) {
		char what[KAV_NAME_MAX + 128];
		struct kav_denial deny = {
			.what = what,
			.err = ret,
			.keyed = true,
			.vni = d->key.vni,
			.need_avs = 1,
		};

		snprintf(what, sizeof(what), "named AV %s exists: adding the "
			 "domain's auth key vni %u to it, so that inserts are "
			 "bound to that key,", name, d->key.vni);
		kav_denial_warn(d->fd, &deny);
		return ret;
	}
	kav_fail_warn("named AV %s exists: adding the domain's auth key vni "
		      "%u to it, so that inserts are bound to that key, "
		      "failed: %s", name, d->key.vni, kav_strerror(ret));
	return ret;
}
