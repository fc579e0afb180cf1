// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl whoami: what the kernel captured when the caller opened
 * /dev/kav, and the grants that match it (KAV_IOC_DOMAIN_WHOAMI). No
 * netlink and no privilege: any tenant may run it.
 *
 * A table shows the identity as "field value" lines, then the grants
 * (whose columns -o picks, as in grant list). JSON is one document:
 * {"whoami": [{identity}], "grants": [...]}.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "format.h"
#include "grant.h"
#include "output.h"

#define KC_DEVICE	"/dev/kav"

enum { W_UID, W_USER, W_GID, W_GROUP, W_CGROUP_ID, W_CGROUP_PATH,
	W_NETNS, W_IPC_NS, W_KEY_VNI, W_KEY_REVOKED, W_KEYLESS, W_DEVICE,
	W_NR_GRANTS, W_NCOLS };

static const struct kc_column id_cols[] = {
	[W_UID]         = { "UID", "uid", KC_COL_NUM, KC_COL_DEFAULT, "uid" },
	[W_USER]        = { "USER", "user", KC_COL_STR, KC_COL_DEFAULT,
			    "user" },
	[W_GID]         = { "GID", "gid", KC_COL_NUM, KC_COL_DEFAULT, "gid" },
	[W_GROUP]       = { "GROUP", "group", KC_COL_STR, KC_COL_DEFAULT,
			    "group" },
	[W_CGROUP_ID]   = { "CGROUP-ID", "cgroup_id", KC_COL_NUM,
			    KC_COL_DEFAULT, "cgroup id" },
	[W_CGROUP_PATH] = { "CGROUP-PATH", "cgroup_path", KC_COL_STR,
			    KC_COL_DEFAULT, "cgroup" },
	[W_NETNS]       = { "NETNS-COOKIE", "netns_cookie", KC_COL_NUM,
			    KC_COL_DEFAULT, "netns cookie" },
	[W_IPC_NS]      = { "IPC-NS", "ipc_ns", KC_COL_NUM, KC_COL_DEFAULT,
			    "ipc namespace" },
	[W_KEY_VNI]     = { "KEY-VNI", "key_vni", KC_COL_NUM, KC_COL_DEFAULT,
			    "domain key" },
	[W_KEY_REVOKED] = { "KEY-REVOKED", "key_revoked", KC_COL_BOOL,
			    KC_COL_DEFAULT, "key revoked" },
	[W_KEYLESS]     = { "KEYLESS", "keyless_allowed", KC_COL_BOOL,
			    KC_COL_DEFAULT, "keyless inserts" },
	[W_DEVICE]      = { "DEVICE", "device", KC_COL_STR, KC_COL_DEFAULT,
			    "device" },
	[W_NR_GRANTS]   = { "GRANTS", "nr_grants", KC_COL_NUM, KC_COL_DEFAULT,
			    "matching grants" },
};

static const struct kc_column line_cols[] = {
	{ "FIELD", "field", KC_COL_STR, KC_COL_DEFAULT, "field" },
	{ "VALUE", "value", KC_COL_STR, KC_COL_DEFAULT, "value" },
};

/* The caller's cgroup v2 path, from /proc/self/cgroup ("0::/path"). */
static bool self_cgroup(char *buf, size_t len)
{
	char line[KC_PATH_MAX + 16];
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) < len) {
			strcpy(buf, line + 3);
			found = true;
		}
		break;
	}
	fclose(f);
	return found;
}

/* Why open(@path) failed with @err, and the exit code. */
static int open_failed(const char *path, int err)
{
	char who[256] = "", owner[256], group[256];
	struct stat st;

	if (err == ENOENT) {
		if (access("/sys/module/kav", F_OK) == 0)
			kc_err("whoami: %s does not exist, although the kav module is loaded: is udev running, or is KAV_DEVICE wrong?",
			       path);
		else
			kc_err("whoami: %s does not exist: the kav module is not loaded (ask the administrator: modprobe kav)",
			       path);
		return KC_EXIT_NOMOD;
	}
	if ((err == EACCES || err == EPERM) && stat(path, &st) == 0) {
		if (!kc_user_name(st.st_uid, owner, sizeof(owner)))
			snprintf(owner, sizeof(owner), "%u", st.st_uid);
		if (!kc_group_name(st.st_gid, group, sizeof(group)))
			snprintf(group, sizeof(group), "%u", st.st_gid);
		if (!kc_user_name(geteuid(), who, sizeof(who)))
			snprintf(who, sizeof(who), "%u", geteuid());
		kc_err("whoami: cannot open %s: %s: the device's permissions (mode %04o, owner %s, group %s) do not let user %s read and write it; the administrator sets them (udev rule 60-kav.rules)",
		       path, strerror(err), st.st_mode & 07777, owner, group,
		       who);
		return KC_EXIT_PERM;
	}
	kc_err("whoami: cannot open %s: %s", path, strerror(err));
	return err == EACCES || err == EPERM ? KC_EXIT_PERM : KC_EXIT_FAIL;
}

/* KAV_IOC_DOMAIN_WHOAMI, size first: the identity and its grants. */
static int query(int fd, const char *path, struct kav_whoami *w,
		 struct kav_grant_info **grants, uint32_t *n)
{
	struct kav_grant_info *g = NULL;
	uint32_t room = 0;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		memset(w, 0, sizeof(*w));
		w->size = sizeof(*w);
		w->max_grants = room;
		w->grant_size = sizeof(*g);
		w->grants = (uintptr_t)g;
		if (ioctl(fd, KAV_IOC_DOMAIN_WHOAMI, w) < 0) {
			int err = errno;

			free(g);
			if (err == ENOTTY)
				kc_err("whoami: the loaded kav module has no KAV_IOC_DOMAIN_WHOAMI (it is older than this kavctl)");
			else
				kc_err("whoami: KAV_IOC_DOMAIN_WHOAMI on %s: %s",
				       path, strerror(err));
			return KC_EXIT_FAIL;
		}
		if (w->nr_grants <= room) {
			*grants = g;
			*n = w->nr_grants;
			return KC_EXIT_OK;
		}
		/* Sized (or grants were added since): room for them all. */
		room = w->nr_grants + 4;
		free(g);
		g = calloc(room, sizeof(*g));
		if (!g) {
			kc_err("out of memory");
			return KC_EXIT_FAIL;
		}
	}
	free(g);
	kc_err("whoami: the grants kept changing; try again");
	return KC_EXIT_FAIL;
}

static void grant_row(struct kc_out *o, const struct kav_grant_info *g)
{
	struct kc_sel_view v = { .type = g->sel_type };

	if (kc_out_row(o))
		return;
	kc_out_u64(o, G_ID, g->id);
	kc_out_u64(o, G_VNI, g->vni);
	switch (g->sel_type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID:
		v.has_id = true;
		v.id = g->sel_id;
		break;
	case KAV_SEL_CGROUP:
		v.has_cgroup_id = true;
		v.cgroup_id = g->sel_cookie;
		if (kc_cgroup_path_by_id(g->sel_cookie, v.path_buf,
					 sizeof(v.path_buf)) == 0)
			v.cgroup_path = v.path_buf;
		break;
	case KAV_SEL_NETNS:
		v.has_cookie = true;
		v.netns_cookie = g->sel_cookie;
		break;
	default:
		break;
	}
	kc_out_grant_selector(o, &v);
	kc_out_limit(o, G_MAXE, g->limit_entries);
	kc_out_limit(o, G_MAXA, g->limit_avs);
	kc_out_u64(o, G_ENTRIES, g->nr_entries);
	kc_out_u64(o, G_AVS, g->nr_avs);
	if (g->tag[0])
		kc_out_set(o, G_TAG, "%.*s", KAV_TAG_MAX, g->tag);
}

/* The identity as a one-row table (JSON) or as "field value" lines. */
static void identity(struct kc_out *o, bool lines, const struct kav_whoami *w,
		     const char *path)
{
	char name[256], cg[KC_PATH_MAX];
	bool has_cg = self_cgroup(cg, sizeof(cg));
	bool keyed = w->status & KAV_WHOAMI_KEYED;
	bool keyless = w->status & KAV_WHOAMI_KEYLESS_OK;

	if (!lines) {
		if (kc_out_row(o))
			return;
		kc_out_u64(o, W_UID, w->uid);
		if (kc_user_name(w->uid, name, sizeof(name)))
			kc_out_set(o, W_USER, "%s", name);
		kc_out_u64(o, W_GID, w->gid);
		if (kc_group_name(w->gid, name, sizeof(name)))
			kc_out_set(o, W_GROUP, "%s", name);
		kc_out_u64(o, W_CGROUP_ID, w->cgroup_id);
		if (has_cg)
			kc_out_set(o, W_CGROUP_PATH, "%s", cg);
		kc_out_u64(o, W_NETNS, w->netns_cookie);
		kc_out_u64(o, W_IPC_NS, w->ipc_ns);
		if (keyed) {
			kc_out_u64(o, W_KEY_VNI, w->key_vni);
			kc_out_bool(o, W_KEY_REVOKED,
				    w->status & KAV_WHOAMI_KEY_REVOKED);
		}
		kc_out_bool(o, W_KEYLESS, keyless);
		kc_out_set(o, W_DEVICE, "%s", path);
		kc_out_u64(o, W_NR_GRANTS, w->nr_grants);
		return;
	}

#define LINE(label, ...) do {					\
		if (kc_out_row(o) == 0) {			\
			kc_out_set(o, 0, "%s", label);		\
			kc_out_set(o, 1, __VA_ARGS__);		\
		}						\
	} while (0)
	if (kc_user_name(w->uid, name, sizeof(name)))
		LINE("uid", "%u (%s)", w->uid, name);
	else
		LINE("uid", "%u", w->uid);
	if (kc_group_name(w->gid, name, sizeof(name)))
		LINE("gid", "%u (%s)", w->gid, name);
	else
		LINE("gid", "%u", w->gid);
	if (has_cg)
		LINE("cgroup", "%" PRIu64 " (%s)", (uint64_t)w->cgroup_id, cg);
	else
		LINE("cgroup", "%" PRIu64, (uint64_t)w->cgroup_id);
	LINE("netns cookie", "%" PRIu64, (uint64_t)w->netns_cookie);
	LINE("ipc namespace", "%u (AV names live here)", w->ipc_ns);
	if (keyed)
		LINE("domain key", "vni %u%s", w->key_vni,
		     w->status & KAV_WHOAMI_KEY_REVOKED ? " (revoked)" : "");
	LINE("keyless inserts", "%s", keyless ?
	     "allowed (allow_keyless=1): an AV without a key takes any address" :
	     "refused: every insert needs a granted key");
	LINE("device", "%s", path);
	LINE("grants", "%u match this identity%s", w->nr_grants,
	     w->nr_grants ? ":" : " (ask the administrator for one)");
#undef LINE
}

/* A JSON document's members: what is between its outer braces. */
static bool json_members(const char *doc, size_t len, const char **p,
			 size_t *n)
{
	const char *open = memchr(doc, '\n', len);
	const char *close = doc + len;

	if (!open || len < 4 || doc[0] != '{')
		return false;
	while (close > open && (close[-1] == '\n' || close[-1] == '}'))
		close--;
	*p = open + 1;
	*n = (size_t)(close - *p);
	return true;
}

static int print_json(struct kc_out *id, struct kc_out *gr)
{
	char *b1 = NULL, *b2 = NULL;
	size_t l1 = 0, l2 = 0, n1, n2;
	const char *p1, *p2;
	FILE *m1 = open_memstream(&b1, &l1);
	FILE *m2 = open_memstream(&b2, &l2);
	int ret = KC_EXIT_FAIL;

	if (!m1 || !m2) {
		if (m1)
			fclose(m1);
		if (m2)
			fclose(m2);
		kc_err("out of memory");
		return KC_EXIT_FAIL;
	}
	kc_out_print_to(id, m1);
	kc_out_print_to(gr, m2);
	fclose(m1);
	fclose(m2);
	if (json_members(b1, l1, &p1, &n1) && json_members(b2, l2, &p2, &n2)) {
		printf("{\n%.*s,\n%.*s\n}\n", (int)n1, p1, (int)n2, p2);
		ret = KC_EXIT_OK;
	} else {
		kc_err("whoami: cannot write the JSON document");
	}
	free(b1);
	free(b2);
	return ret;
}

int kc_whoami(const struct kc_cmd *cmd)
{
	const char *path = getenv("KAV_DEVICE");
	struct kav_grant_info *grants = NULL;
	struct kc_out id, gr;
	struct kc_cmd idcmd;
	struct kav_whoami w;
	uint32_t n = 0, i;
	bool lines = !cmd->json;
	int fd, ret;

	if (!path || !*path)
		path = KC_DEVICE;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return open_failed(path, errno);
	ret = query(fd, path, &w, &grants, &n);
	close(fd);
	if (ret)
		return ret;

	idcmd = *cmd;
	idcmd.columns = NULL;
	idcmd.noheadings = lines;
	idcmd.raw = false;
	ret = lines ? kc_out_begin(&id, &idcmd, "whoami", line_cols, 2) :
	      kc_out_begin(&id, &idcmd, "whoami", id_cols, W_NCOLS);
	if (ret)
		goto out;
	ret = kc_out_begin(&gr, cmd, "grants", kc_grant_cols,
			   kc_whoami_grant_ncols);
	if (ret) {
		kc_out_end(&id, false);
		goto out;
	}
	identity(&id, lines, &w, path);
	for (i = 0; i < n && i < w.max_grants; i++)
		grant_row(&gr, &grants[i]);
	if (cmd->json) {
		ret = print_json(&id, &gr);
		kc_out_end(&id, false);
		kc_out_end(&gr, false);
	} else {
		ret = kc_out_end(&id, true);
		if (n && !ret) {
			putchar('\n');
			ret = kc_out_end(&gr, true);
		} else {
			kc_out_end(&gr, false);
		}
	}
out:
	free(grants);
	return ret;
}
