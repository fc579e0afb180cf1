// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The files of /etc/kav/grants.d: see conf.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "conf.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE		71
#endif

#define CONF_SUFFIX		".conf"
#define MAX_WORDS		64

void kc_conf_default_tag(const char *file, char *tag, size_t len)
{
	size_t n = strlen(file), s = strlen(CONF_SUFFIX);

	if (n > s && strcmp(file + n - s, CONF_SUFFIX) == 0)
		n -= s;
	snprintf(tag, len, "%s%.*s", KC_CONF_TAG_PREFIX, (int)n, file);
}

bool kc_conf_owns_tag(const char *tag)
{
	return strncmp(tag, KC_CONF_TAG_PREFIX,
		       strlen(KC_CONF_TAG_PREFIX)) == 0;
}

int kc_conf_parse_line(const char *file, char *line,
		       struct kc_conf_grant *g, char *err, size_t errlen)
{
	const struct kc_selector *s = &g->spec.sel;
	char *words[MAX_WORDS], *p, *save = NULL;
	char tag[KC_NAME_MAX + sizeof(KC_CONF_TAG_PREFIX)], why[256];
	int nw = 0;

	memset(g, 0, sizeof(*g));
	for (p = strtok_r(line, " \t\r\n\v\f", &save); p;
	     p = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (p[0] == '#')
			break;
		if (nw == MAX_WORDS)
			return kc_fail(err, errlen, "too many words");
		words[nw++] = p;
	}
	if (!nw)
		return 0;

	/*
	 * grant add's own grammar and checks, its tag's (kc_parse_tag())
	 * included, so that a line is refused here for whatever grant add
	 * would refuse; then what a file must not say.
	 */
	if (kc_parse_grant_spec(nw, words, &g->spec, err, errlen))
		return -1;
	if (s->cgroup_by_id || s->netns_pid)
		return kc_fail(err, errlen,
			    "'%s' does not survive a reboot: use %s",
			    s->cgroup_by_id ? "cgroup-id" : "netns-pid",
			    s->cgroup_by_id ? "cgroup PATH" :
			    "netns NAME (/run/netns/NAME)");
	/* A path could name any namespace: the host's (/proc/1/ns/net). */
	if (s->type == KAV_SEL_NETNS && !s->netns_by_name)
		return kc_fail(err, errlen,
			    "netns '%s' is a path: in a file, netns takes the name of a namespace in /run/netns (netns NAME)",
			    s->netns_path);
	if (g->spec.has_tag) {
		if (!g->spec.tag[0])
			return kc_fail(err, errlen, "empty tag");
		snprintf(g->tag, sizeof(g->tag), "%s", g->spec.tag);
	} else {
		kc_conf_default_tag(file, tag, sizeof(tag));
		if (strlen(tag) > KAV_TAG_MAX)
			return kc_fail(err, errlen,
				    "file name too long for a tag (at most %zu characters before .conf): give the line a tag",
				    (size_t)KAV_TAG_MAX -
				    strlen(KC_CONF_TAG_PREFIX));
		if (kc_parse_tag(tag, g->tag, why, sizeof(why)))
			return kc_fail(err, errlen,
				    "the file's name makes a bad tag: %s: rename the file or give the line a tag",
				    why);
	}
	if (s->type == KAV_SEL_UID || s->type == KAV_SEL_GID)
		g->sel_id = s->id;
	return 1;
}

/* The cookie of the network namespace file @path, found in a child. */
static int netns_cookie(const char *path, uint64_t *cookie, char *err,
			size_t errlen)
{
	int fd, pfd[2], status, e = 0;
	uint64_t c = 0;
	ssize_t n;
	pid_t pid;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kc_fail(err, errlen, "netns %s: %s", path,
			    strerror(errno));
	if (pipe2(pfd, O_CLOEXEC)) {
		close(fd);
		return kc_fail(err, errlen, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		socklen_t len = sizeof(c);
		int s, r[2] = { 0, 0 };

		close(pfd[0]);
		if (setns(fd, CLONE_NEWNET))
			r[0] = errno, r[1] = 1;
		else if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC,
				      0)) < 0)
			r[0] = errno, r[1] = 2;
		else if (getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len))
			r[0] = errno, r[1] = 3;
		if (write(pfd[1], r, sizeof(r)) != sizeof(r) ||
		    write(pfd[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	close(fd);
	if (pid < 0) {
		close(pfd[0]);
		return kc_fail(err, errlen, "fork: %s", strerror(errno));
	}
	{
		int r[2] = { EIO, 0 };

		n = read(pfd[0], r, sizeof(r));
		if (n == sizeof(r) && !r[1])
			n = read(pfd[0], &c, sizeof(c)) == sizeof(c) ? 0 : -1;
		else
			e = n == sizeof(r) ? r[0] : EIO, n = -1;
		if (n == -1 && !e)
			e = EIO;
		close(pfd[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (n) {
			const char *what = r[1] == 1 ? "cannot enter it" :
					   r[1] == 2 ? "socket" :
					   "cannot read its cookie";

			return kc_fail(err, errlen, "netns %s: %s: %s", path,
				    what, strerror(e));
		}
	}
	*cookie = c;
	return 0;
}

int kc_conf_resolve(struct kc_conf_grant *g, char *err, size_t errlen)
{
	struct kc_selector *s = &g->spec.sel;
	char mount[KC_PATH_MAX], path[2 * KC_PATH_MAX];
	struct stat st;

	switch (s->type) {
	case KAV_SEL_CGROUP:
		if (kc_find_cgroup2_mount("/proc/self/mounts", mount,
					  sizeof(mount)))
			return kc_fail(err, errlen,
				    "cgroup %s: no cgroup2 file system is mounted",
				    s->cgroup_path);
		snprintf(path, sizeof(path), "%s%s", mount,
			 strcmp(s->cgroup_path, "/") ? s->cgroup_path : "");
		if (stat(path, &st))
			return kc_fail(err, errlen, "cgroup %s: %s", s->cgroup_path,
				    strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return kc_fail(err, errlen, "cgroup %s: not a cgroup",
				    s->cgroup_path);
		/* In cgroup2 the id is the directory's inode number. */
		g->cgroup_id = (uint64_t)st.st_ino;
		return 0;
	case KAV_SEL_NETNS:
		return netns_cookie(s->netns_path, &g->netns_cookie, err,
				    errlen);
	default:
		return 0;
	}
}

static bool same_selector(const struct kc_conf_grant *a,
			  const struct kc_conf_grant *b)
{
	if (a->spec.sel.type != b->spec.sel.type)
		return false;
	switch (a->spec.sel.type) {
	case KAV_SEL_CGROUP:
		return a->cgroup_id == b->cgroup_id;
	case KAV_SEL_NETNS:
		return a->netns_cookie == b->netns_cookie;
	default:
		return a->sel_id == b->sel_id;
	}
}

static int push(struct kc_conf *c, const struct kc_conf_grant *g)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct kc_conf_grant *v = realloc(c->g, cap * sizeof(*v));

		if (!v)
			return -1;
		c->g = v;
		c->cap = cap;
	}
	c->g[c->n++] = *g;
	return 0;
}

static void conf_error(struct kc_conf *c, const char *file,
		       unsigned int line, const char *msg)
{
	if (line)
		fprintf(stderr, "kavctl: %s:%u: %s\n", file, line, msg);
	else
		fprintf(stderr, "kavctl: %s: %s\n", file, msg);
	c->nr_errors++;
}

static const char *file_type(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link (not followed)" :
	       S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : "of an unknown type";
}

/* Only @owner may write what @st describes: 0, or -1 with the reason. */
static int owner_only(const struct stat *st, uid_t owner, char *err,
		      size_t errlen)
{
	unsigned int mode = (unsigned int)(st->st_mode & 07777);

	if (st->st_uid != owner) {
		if (owner == 0)
			return kc_fail(err, errlen, "owned by uid %u, not root",
				    (unsigned int)st->st_uid);
		return kc_fail(err, errlen, "owned by uid %u, not uid %u",
			    (unsigned int)st->st_uid, (unsigned int)owner);
	}
	if (st->st_mode & S_IWOTH)
		return kc_fail(err, errlen, "writable by others (mode %04o)",
			    mode);
	if (st->st_mode & S_IWGRP)
		return kc_fail(err, errlen,
			    "writable by its group (gid %u, mode %04o)",
			    (unsigned int)st->st_gid, mode);
	return 0;
}

int kc_conf_check_dir(int dirfd, uid_t owner, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(dirfd, &st))
		return kc_fail(err, errlen, "%s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return kc_fail(err, errlen, "not a directory");
	return owner_only(&st, owner, err, errlen);
}

int kc_conf_open_file(int dirfd, const char *name, uid_t owner, char *err,
		      size_t errlen)
{
	struct stat st;
	int fd, fl;

	/* Nothing but a regular file is opened: opening a device acts on it. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return kc_fail(err, errlen, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kc_fail(err, errlen, "%s, not a regular file",
			    file_type(st.st_mode));
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
		    O_NONBLOCK);
	if (fd < 0)
		return kc_fail(err, errlen, "%s", errno == ELOOP ?
			    "a symbolic link (not followed), not a regular file" :
			    strerror(errno));
	/* What is checked is what was opened, whatever replaced the name. */
	if (fstat(fd, &st)) {
		kc_fail(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		kc_fail(err, errlen, "%s, not a regular file",
			file_type(st.st_mode));
		goto fail;
	}
	if (owner_only(&st, owner, err, errlen))
		goto fail;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		kc_fail(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

static int load_file(struct kc_conf *c, int dirfd, const char *name,
		     uid_t owner)
{
	struct kc_conf_grant *g;
	char *line = NULL, err[KC_PATH_MAX + 256], why[256];
	unsigned int lineno = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd, ret = 0;

	fd = kc_conf_open_file(dirfd, name, owner, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, sizeof(err), "skipped: %s", why);
		conf_error(c, name, 0, err);
		c->nr_skipped++;
		return 0;
	}
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, sizeof(err), "cannot read it: %s",
			 strerror(errno));
		conf_error(c, name, 0, err);
		close(fd);
		return 0;
	}
	g = malloc(sizeof(*g));
	if (!g) {
		fclose(f);
		return -1;
	}
	c->nr_files++;
	while ((len = getline(&line, &cap, f)) >= 0) {
		size_t i;
		int r;

		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			conf_error(c, name, lineno, "NUL byte in the line");
			continue;
		}
		r = kc_conf_parse_line(name, line, g, err, sizeof(err));
		if (r < 0) {
			conf_error(c, name, lineno, err);
			continue;
		}
		if (r == 0)
			continue;
		snprintf(g->file, sizeof(g->file), "%s", name);
		g->line = lineno;
		if (kc_conf_resolve(g, err, sizeof(err))) {
			conf_error(c, name, lineno, err);
			continue;
		}
		for (i = 0; i < c->n; i++) {
			const struct kc_conf_grant *o = &c->g[i];

			if (o->spec.vni == g->spec.vni &&
			    strcmp(o->tag, g->tag) == 0 && same_selector(o, g))
				break;
		}
		if (i < c->n) {
			snprintf(err, sizeof(err),
				 "same vni, selector and tag as %s:%u",
				 c->g[i].file, c->g[i].line);
			conf_error(c, name, lineno, err);
			continue;
		}
		if (push(c, g)) {
			ret = -1;
			break;
		}
	}
	if (ferror(f)) {
		snprintf(err, sizeof(err), "read error: %s", strerror(errno));
		conf_error(c, name, 0, err);
	}
	free(line);
	free(g);
	fclose(f);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int conf_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name), s = strlen(CONF_SUFFIX);

	return d->d_name[0] != '.' && n > s &&
	       strcmp(d->d_name + n - s, CONF_SUFFIX) == 0;
}

int kc_conf_load(const char *dir, uid_t owner, struct kc_conf *c)
{
	struct dirent **names = NULL;
	char why[256];
	int dirfd, n, i, ret = 0;

	memset(c, 0, sizeof(*c));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		if (errno == ENOENT) {
			c->dir_missing = true;
			return 0;
		}
		kc_err("cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	/* Whoever may add, rename or remove its files is trusted too. */
	if (kc_conf_check_dir(dirfd, owner, why, sizeof(why))) {
		char err[512];

		snprintf(err, sizeof(err), "not read: %s", why);
		conf_error(c, dir, 0, err);
		c->dir_untrusted = true;
		close(dirfd);
		return 0;
	}
	/* The directory just checked, not whatever has its name now. */
	n = scandirat(dirfd, ".", &names, conf_name, by_name);
	if (n < 0) {
		kc_err("cannot read %s: %s", dir, strerror(errno));
		close(dirfd);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		/* A directory is no file; anything else is checked, said. */
		if (ret == 0 &&
		    !(fstatat(dirfd, names[i]->d_name, &st,
			      AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISDIR(st.st_mode)) &&
		    load_file(c, dirfd, names[i]->d_name, owner)) {
			kc_err("out of memory");
			ret = -1;
		}
		free(names[i]);
	}
	free(names);
	close(dirfd);
	return ret;
}

void kc_conf_free(struct kc_conf *c)
{
	free(c->g);
	memset(c, 0, sizeof(*c));
}

void kc_conf_describe(const struct kc_conf_grant *g, char *buf, size_t len)
{
	const struct kc_selector *s = &g->spec.sel;
	size_t o = 0;

#define ADD(...) do { \
		int _n = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
		if (_n > 0) \
			o += (size_t)_n; \
	} while (0)

	if (!len)
		return;
	buf[0] = '\0';
	ADD("vni %u ", g->spec.vni);
	switch (s->type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID:
		if (s->name[0])
			ADD("%s %s (%s %u)",
			    s->type == KAV_SEL_UID ? "user" : "group", s->name,
			    s->type == KAV_SEL_UID ? "uid" : "gid", s->id);
		else
			ADD("%s %u", s->type == KAV_SEL_UID ? "uid" : "gid",
			    s->id);
		break;
	case KAV_SEL_CGROUP:
		ADD("cgroup %s", s->cgroup_path);
		break;
	case KAV_SEL_NETNS:
		ADD("netns %s", s->netns_path);
		break;
	}
	if (g->spec.has_max_entries && g->spec.max_entries)
		ADD(" max-entries %llu",
		    (unsigned long long)g->spec.max_entries);
	if (g->spec.has_max_avs && g->spec.max_avs)
		ADD(" max-avs %u", g->spec.max_avs);
	ADD(" tag %s", g->tag);
	if (g->spec.wire)
		ADD(" wire");
#undef ADD
	if (o >= len && len > 4)
		strcpy(buf + len - 4, "...");
}
