/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Declarative grants: the files of /etc/kav/grants.d (kavctl apply).
 *
 * Every file DIR/NAME.conf is read, in lexical (C locale) order of NAME;
 * other names, hidden files and directories are ignored. A file holds one
 * grant per line, in the words of `kavctl grant add`:
 *
 *   vni VNI SELECTOR [max-entries N] [max-avs N] [tag TAG] [wire]
 *   SELECTOR := uid UID | user NAME | gid GID | group NAME |
 *               cgroup PATH | netns NAME-OR-PATH
 *
 * "wire" makes the key the identity's wire key too (kavctl wire), so
 * that a standing wire grant is back after a reboot; grant add refuses
 * it with a gid or group, and with a VNI of 2^20 or more.
 *
 * Words are separated by blanks; '#' at the start of a word starts a
 * comment to the end of the line; blank lines are ignored. The selectors
 * that name something that does not survive a reboot (cgroup-id,
 * netns-pid) are refused, and so is a netns given as a path: in a file,
 * "netns NAME" is /run/netns/NAME and nothing else. Names, cgroups and
 * network namespaces are resolved when the files are loaded, so a missing
 * one is an error of its line. A grant without "tag" gets the file's tag,
 * "grants.d/NAME"; every tag is checked by kc_parse_tag(), the kernel's
 * rule.
 *
 * Whoever can write a file there grants keys, so root trusts only what
 * only root can write, as sudo and sshd (StrictModes) do: the directory
 * and each file must be owned by root and not writable by group or
 * others, and a file must be a regular file, not a symbolic link (not
 * followed), FIFO or device. A file that is not is skipped, with the
 * reason, and counted as an error. Directories named *.conf are ignored.
 */
#ifndef KAVCTL_CONF_H
#define KAVCTL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/kav.h>

#include "kavctl.h"

/* The default directory, and the environment variable that overrides it. */
#define KC_GRANTS_DIR		"/etc/kav/grants.d"
#define KC_GRANTS_DIR_ENV	"KAV_GRANTS_DIR"
/* Tags of the grants that the files own (and apply --prune may revoke). */
#define KC_CONF_TAG_PREFIX	"grants.d/"
/* Who must own the directory and its files (kavctl apply). */
#define KC_CONF_OWNER		((uid_t)0)

/* One grant line, resolved. */
struct kc_conf_grant {
	char file[KC_NAME_MAX];		/* base name, for messages */
	unsigned int line;
	struct kc_grant_spec spec;	/* vni, selector, limits */
	char tag[KAV_TAG_MAX + 1];
	/* The selector as the kernel reports it in a dump. */
	uint32_t sel_id;		/* KAV_SEL_UID, KAV_SEL_GID */
	uint64_t cgroup_id;		/* KAV_SEL_CGROUP */
	uint64_t netns_cookie;		/* KAV_SEL_NETNS */
};

struct kc_conf {
	struct kc_conf_grant *g;
	size_t n, cap;
	unsigned int nr_files;		/* read */
	unsigned int nr_skipped;	/* not trusted, so not read */
	unsigned int nr_errors;		/* the skipped files included */
	bool dir_missing;
	bool dir_untrusted;		/* not read at all */
};

/*
 * Reads every file of @dir into @c, trusting only a directory and files
 * owned by @owner (KC_CONF_OWNER; a parameter for the unit tests) and not
 * writable by group or others. Each error is printed on stderr as
 * "FILE:LINE: reason" (a skipped file: "FILE: skipped: reason") and
 * counted in @c->nr_errors; an untrusted @dir is one error, and none of
 * its files is read. A missing @dir is no error (@c->dir_missing); one
 * that cannot be opened or listed is (returns -1). Returns 0 otherwise,
 * even with errors.
 */
int kc_conf_load(const char *dir, uid_t owner, struct kc_conf *c);
void kc_conf_free(struct kc_conf *c);

/*
 * May the directory open as @dirfd hold grants: owned by @owner, not
 * writable by group or others? 0, or -1 with the reason in @err.
 */
int kc_conf_check_dir(int dirfd, uid_t owner, char *err, size_t errlen);

/*
 * Opens @name of directory @dirfd for reading if it may hold grants: a
 * regular file (O_NOFOLLOW: a symbolic link is refused, not followed;
 * O_NONBLOCK: a FIFO cannot hang it), owned by @owner and not writable by
 * group or others, checked with fstat() on what was opened. Returns the
 * descriptor, or -1 with the reason in @err.
 */
int kc_conf_open_file(int dirfd, const char *name, uid_t owner, char *err,
		      size_t errlen);

/*
 * Parses one line (modified in place) of file @file (for default tags),
 * with the grammar and checks of grant add (kc_parse_grant_spec()) and
 * those of a file. Returns 1 and fills @g (selector not yet resolved: see
 * kc_conf_resolve()), 0 for a blank or comment line, or -1 with a reason
 * in @err. Unit tested; no system look-ups but user and group names.
 */
int kc_conf_parse_line(const char *file, char *line,
		       struct kc_conf_grant *g, char *err, size_t errlen);

/*
 * Resolves @g's cgroup (its id) or network namespace (its cookie).
 * Returns 0, or -1 with a reason in @err.
 */
int kc_conf_resolve(struct kc_conf_grant *g, char *err, size_t errlen);

/* The tag a file's lines get by default: "grants.d/" and the stem. */
void kc_conf_default_tag(const char *file, char *tag, size_t len);

/* Does @tag belong to the files (KC_CONF_TAG_PREFIX)? */
bool kc_conf_owns_tag(const char *tag);

/* "vni 50 user alice (uid 1000) max-entries 10 tag T", for messages. */
void kc_conf_describe(const struct kc_conf_grant *g, char *buf, size_t len);

/*
 * `kavctl apply ...` (apply.c): @argv[0] is "apply". Parses its own
 * options and returns an enum kc_exit.
 */
int kc_apply_main(int argc, char **argv);

#endif /* KAVCTL_CONF_H */
