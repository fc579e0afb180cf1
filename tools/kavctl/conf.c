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

static bool valid_tag(const char *t)
{
	const unsigned char *p;

	if (!*t || strlen(t) > KAV_TAG_MAX)
		return false;
	for (p = (const unsigned char *)t; *p; p++)
		if (*p < 0x21 || *p == 0x7f)
			return false;
	return true;
}

int kc_conf_parse_line(const char *file, char *line,
		       struct kc_conf_grant *g, char *err, size_t errlen)
{
	char *words[MAX_WORDS], *rest[MAX_WORDS], *p, *save = NULL;
	const char *tag = NULL;
	int nw = 0, nr = 0, i;

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

	/* "tag T" is taken out here; the rest is grant add's grammar. */
	for (i = 0; i < nw; i++) {
		const char *w = words[i];

		if (strcmp(w, "tag") == 0) {
			if (tag)
				return kc_fail(err, errlen, "tag given twice");
			if (i + 1 >= nw)
				return kc_fail(err, errlen, "'tag' needs a value");
			tag = words[++i];
			if (!valid_tag(tag))
				return kc_fail(err, errlen,
					    "invalid tag '%s' (1 to %d printable characters)",
					    tag, KAV_TAG_MAX);
			continue;
		}
		if (strcmp(w, "cgroup-id") == 0 || strcmp(w, "netns-pid") == 0)
			return kc_fail(err, errlen,
				    "'%s' does not survive a reboot: use %s",
				    w, w[0] == 'c' ? "cgroup PATH" :
				    "netns NAME (/run/netns/NAME)");
		/* Only the values of keywords may be anything. */
		rest[nr++] = words[i];
		if (i + 1 < nw)
			rest[nr++] = words[++i];
	}
	if (kc_parse_grant_spec(nr, rest, &g->spec, err, errlen))
		return -1;
	if (tag) {
		snprintf(g->tag, sizeof(g->tag), "%s", tag);
	} else {
		kc_conf_default_tag(file, g->tag, sizeof(g->tag));
		if (strlen(KC_CONF_TAG_PREFIX) + strlen(file) -
		    strlen(CONF_SUFFIX) > KAV_TAG_MAX)
			return kc_fail(err, errlen,
				    "file name too long for a tag (at most %zu characters before .conf): give the line a tag",
				    (size_t)KAV_TAG_MAX -
				    strlen(KC_CONF_TAG_PREFIX));
	}
	if (g->spec.sel.type == KAV_SEL_UID || g->spec.sel.type == KAV_SEL_GID)
		g->sel_id = g->spec.sel.id;
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

static int load_file(struct kc_conf *c, int dirfd, const char *dir,
		     const char *name)
{
	struct kc_conf_grant *g;
	char *line = NULL, err[KC_PATH_MAX + 256];
	unsigned int lineno = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd, ret = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		snprintf(err, sizeof(err), "cannot read %s/%s: %s", dir, name,
			 strerror(errno));
		conf_error(c, name, 0, err);
		if (fd >= 0)
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

int kc_conf_load(const char *dir, struct kc_conf *c)
{
	struct dirent **names = NULL;
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
	n = scandir(dir, &names, conf_name, by_name);
	if (n < 0) {
		kc_err("cannot read %s: %s", dir, strerror(errno));
		close(dirfd);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		/* Regular files only (symbolic links to them too). */
		if (ret == 0 &&
		    fstatat(dirfd, names[i]->d_name, &st, 0) == 0 &&
		    S_ISREG(st.st_mode) &&
		    load_file(c, dirfd, dir, names[i]->d_name)) {
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
#undef ADD
	if (o >= len && len > 4)
		strcpy(buf + len - 4, "...");
}
