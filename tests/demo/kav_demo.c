// SPDX-License-Identifier: GPL-2.0
/*
 * kav demo (make demo): what kav is for, on a node as it is by default
 * (allow_keyless off: every address must be bound to an auth key, a VNI,
 * that the administrator granted).
 *
 *   1. root grants VNI 42 to user 1001 with kavctl (generic netlink);
 *   2. user 1001 opens a domain under VNI 42, creates the named AV "job42"
 *      and inserts addresses: each is bound to VNI 42;
 *   3. user 1002 asks for VNI 42 and is refused; libkav says why;
 *   4. another process of user 1001 opens "job42" read-only and reads it
 *      from its mapping under a seccomp filter that kills it at its first
 *      system call: it exits normally, so it made none;
 *   5. root revokes the grant: the very next resolve (again with no system
 *      call) reports the key revoked, and user 1001's next insert is
 *      refused.
 *
 * Run as root in the make demo guest: kavctl is found next to this
 * program (/tests/kavctl there), or as $KAVCTL. Each step prints a plain
 * line, then what happened; the exit status is 1 if anything did not
 * behave as printed (it is a smoke test too).
 *
 * Processes: this one (root) runs kavctl and drives the others over UNIX
 * socket pairs, one byte per request and one per answer ('+' as shown,
 * '-' not), so their lines come out in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <kav/kav.h>

#include "../selftests/include/kav_test_seccomp.h"

#define VNI	42
#define TENANT	1001		/* holds the grant */
#define OTHER	1002		/* does not */
#define NAME	"job42"
#define N	4		/* addresses: 10.0.0.1:5000 .. 10.0.0.4:5003 */

static char kavctl[PATH_MAX];

/* ----------------------------------------------------------- printing */

/* TEXT word-wrapped to 78 columns, each line starting with INDENT. */
static void wrap(const char *indent, const char *text)
{
	size_t col = 0, w, ind = strlen(indent);
	const char *p = text, *e;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		e = strchr(p, ' ');
		w = e ? (size_t)(e - p) : strlen(p);
		if (col && col + 1 + w > 78) {
			putchar('\n');
			col = 0;
		}
		if (!col) {
			fputs(indent, stdout);
			col = ind;
		} else {
			putchar(' ');
			col++;
		}
		fwrite(p, 1, w, stdout);
		col += w;
		p += w;
	}
	if (col)
		putchar('\n');
}

/* Why a libkav call failed: its words for this refusal, else the code's. */
static const char *why(int err)
{
	const char *s = kav_last_error();

	return *s ? s : kav_strerror(err);
}

static void sockaddr_of(int i, struct sockaddr_in *s)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(5000 + i);
	s->sin_addr.s_addr = htonl(0x0a000001 + i);	/* 10.0.0.1 + i */
}

/* The name of a fabric errno the demo expects (libfabric.so not needed). */
static const char *errname(int err)
{
	static char buf[32];

	switch (err) {
	case -FI_EACCES:
		return "-FI_EACCES";
	case -FI_EKEYREJECTED:
		return "-FI_EKEYREJECTED";
	default:
		snprintf(buf, sizeof(buf), "error %d", err);
		return buf;
	}
}

static const char *str(struct fid_av *av, const void *addr, char *buf,
		       size_t size)
{
	return fi_av_straddr(av, addr, buf, &size);
}

/* --------------------------------------------------------- the others */

struct peer {
	pid_t pid;
	int sock;
};

/* Root's children become a plain user: no groups of root's left. */
static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		printf("   FAILED: could not become uid %u: %s (run as root)\n",
		       (unsigned int)uid, strerror(errno));
		return -1;
	}
	return 0;
}

/* Start FN(sock) as UID in a child process. */
static int spawn(struct peer *p, uid_t uid, int (*fn)(int sock))
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		printf("   FAILED: socketpair: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	p->pid = fork();
	if (p->pid < 0) {
		printf("   FAILED: fork: %s\n", strerror(errno));
		return -1;
	}
	if (p->pid == 0) {
		close(sv[0]);
		if (become(uid))
			_exit(1);
		_exit(fn(sv[1]));
	}
	close(sv[1]);
	p->sock = sv[0];
	return 0;
}

/* Ask a child to do CMD: 0 when it answers that all went as shown. */
static int ask(const struct peer *p, char cmd)
{
	char ans = '-';

	fflush(stdout);
	if (write(p->sock, &cmd, 1) != 1 || read(p->sock, &ans, 1) != 1) {
		printf("   FAILED: the process %d did not answer\n", (int)p->pid);
		return -1;
	}
	return ans == '+' ? 0 : -1;
}

/* Ask a child to finish, and wait for it: 0 when it exited with 0. */
static int finish(struct peer *p)
{
	char cmd = 'q';
	int status;

	if (p->pid <= 0)
		return -1;
	fflush(stdout);
	if (write(p->sock, &cmd, 1) != 1)
		printf("   FAILED: the process %d did not listen\n", (int)p->pid);
	close(p->sock);
	if (waitpid(p->pid, &status, 0) != p->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		printf("   FAILED: the process %d ended badly\n", (int)p->pid);
		return -1;
	}
	return 0;
}

/* The child's side: the next request, or 'q' when the parent is gone. */
static char request(int sock)
{
	char cmd;

	return read(sock, &cmd, 1) == 1 ? cmd : 'q';
}

static void answer(int sock, bool ok)
{
	char ans = ok ? '+' : '-';

	fflush(stdout);
	if (write(sock, &ans, 1) != 1)
		_exit(1);
}

/* A child's last command ('q'): its AV and domain closed; 1 if not. */
static int close_av_domain(struct fid_av *av, struct fid_domain *dom)
{
	int ret = 0;

	if (av)
		ret = fi_close(&av->fid);
	if (!ret && dom)
		ret = fi_close(&dom->fid);
	if (ret)
		printf("   [uid %d] fi_close: FAILED: %s\n", TENANT,
		       kav_strerror(ret));
	return ret ? 1 : 0;
}

/* --------------------------------------------------------- the admin */

/*
 * Run kavctl ARGS as root; print "# kavctl ARGS" and its output
 * (stdout and stderr) indented, unless QUIET. OUT (if not NULL) gets the
 * output. Return kavctl's exit status, or -1 if it did not run.
 */
static int run_kavctl(bool quiet, char *out, size_t out_size,
		      const char *const *args)
{
	char buf[8192], *line, *end;
	const char *argv[16] = { "kavctl" };
	size_t len = 0;
	int pfd[2], status, i;
	ssize_t n;
	pid_t pid;

	for (i = 0; i < 14 && args[i]; i++)
		argv[i + 1] = args[i];
	if (!quiet) {
		printf("   #");
		for (i = 0; argv[i]; i++)
			printf(" %s", argv[i]);
		printf("\n");
	}
	fflush(stdout);
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(kavctl, (char *const *)argv);
		printf("cannot run %s: %s (make tools; or set $KAVCTL)\n",
		       kavctl, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(pfd[0]);
	buf[len] = '\0';
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	if (!quiet || WEXITSTATUS(status))
		for (line = buf; *line; line = end) {
			end = strchrnul(line, '\n');
			printf("     %.*s\n", (int)(end - line), line);
			if (*end)
				end++;
		}
	if (out)
		snprintf(out, out_size, "%s", buf);
	return WEXITSTATUS(status);
}

/* The first line of kavctl's output that is a number alone (an id). */
static long number_line(const char *out)
{
	const char *p = out;
	char *end;
	long v;

	while (*p) {
		v = strtol(p, &end, 10);
		if (end != p && (*end == '\n' || !*end) && v > 0)
			return v;
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	return -1;
}

/* kavctl next to this program, or $KAVCTL. */
static void find_kavctl(void)
{
	const char *env = getenv("KAVCTL");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(kavctl, sizeof(kavctl), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", kavctl, sizeof(kavctl) - 8);
	if (n < 0)
		n = 0;
	kavctl[n] = '\0';
	slash = strrchr(kavctl, '/');
	strcpy(slash ? slash + 1 : kavctl, "kavctl");
}

/* ---------------------------------------------- user 1001: the tenant */

static int tenant(int sock)
{
	struct kav_auth_key key = { .vni = VNI };
	struct fi_domain_attr dattr = { .auth_key = (uint8_t *)&key,
					.auth_key_size = sizeof(key) };
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
				.domain_attr = &dattr };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = NAME,
				   .count = N };
	struct sockaddr_in s[N + 1];
	fi_addr_t fi[N + 1];
	int errs[N + 1] = { 0 }, ret, i;
	struct fid_domain *dom = NULL;
	struct fid_av *av = NULL;
	struct kav_resolved r;
	char buf[64];
	bool ok;

	for (;;) {
		switch (request(sock)) {
		case 'o':	/* open, create, insert */
			ok = false;
			ret = kav_domain_open(&info, &dom, NULL);
			if (ret) {
				printf("   [uid %d] kav_domain_open(vni %d): FAILED:\n",
				       TENANT, VNI);
				wrap("     ", why(ret));
				answer(sock, false);
				break;
			}
			printf("   [uid %d, pid %d] kav_domain_open(vni %d): ok, granted\n",
			       TENANT, (int)getpid(), VNI);
			ret = fi_av_open(dom, &attr, &av, NULL);
			if (ret) {
				printf("   [uid %d] fi_av_open(\"%s\"): FAILED:\n",
				       TENANT, NAME);
				wrap("     ", why(ret));
				answer(sock, false);
				break;
			}
			printf("   [uid %d] fi_av_open(\"%s\"): created the named AV, mode 0600\n",
			       TENANT, NAME);
			for (i = 0; i < N; i++)
				sockaddr_of(i, &s[i]);
			ret = fi_av_insert(av, s, N, fi, FI_SYNC_ERR, errs);
			if (ret != N) {
				printf("   [uid %d] fi_av_insert: FAILED (%d of %d):\n",
				       TENANT, ret < 0 ? 0 : ret, N);
				wrap("     ", why(ret < 0 ? ret : -errs[0]));
				answer(sock, false);
				break;
			}
			printf("   [uid %d] fi_av_insert(): %d addresses in one call:\n",
			       TENANT, N);
			ok = true;
			for (i = 0; i < N; i++) {
				ret = kav_av_resolve(av, fi[i], &r);
				printf("     fi_addr %llu -> %s, vni %u\n",
				       (unsigned long long)fi[i],
				       str(av, &s[i], buf, sizeof(buf)),
				       r.vni);
				if (ret || r.vni != VNI || fi[i] != (fi_addr_t)i)
					ok = false;
			}
			answer(sock, ok);
			break;
		case 'i':	/* one more insert, after the revocation */
			sockaddr_of(N, &s[N]);
			ret = fi_av_insert(av, &s[N], 1, &fi[N], FI_SYNC_ERR,
					   &errs[N]);
			if (ret == 1) {
				printf("   [uid %d] fi_av_insert(10.0.0.%d:%d): accepted (wrong!)\n",
				       TENANT, N + 1, 5000 + N);
				answer(sock, false);
				break;
			}
			ret = ret < 0 ? ret : -errs[N];
			printf("   [uid %d] fi_av_insert(10.0.0.%d:%d): %s; libkav says:\n",
			       TENANT, N + 1, 5000 + N, errname(ret));
			wrap("     ", why(ret));
			answer(sock, ret == -FI_EKEYREJECTED);
			break;
		case 'q':
			return close_av_domain(av, dom);
		default:
			answer(sock, false);
		}
	}
}

/* ---------------------------------------------- user 1002: the other */

static int other(int sock)
{
	struct kav_auth_key key = { .vni = VNI };
	struct fi_domain_attr dattr = { .auth_key = (uint8_t *)&key,
					.auth_key_size = sizeof(key) };
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
				.domain_attr = &dattr };
	struct fid_domain *dom;
	int ret;

	while (request(sock) == 't') {
		ret = kav_domain_open(&info, &dom, NULL);
		if (!ret) {
			printf("   [uid %d] kav_domain_open(vni %d): ok (wrong!)\n",
			       OTHER, VNI);
			fi_close(&dom->fid);
			answer(sock, false);
			continue;
		}
		printf("   [uid %d, pid %d] kav_domain_open(vni %d): %s; libkav says:\n",
		       OTHER, (int)getpid(), VNI, errname(ret));
		wrap("     ", why(ret));
		answer(sock, ret == -FI_EACCES);
	}
	return 0;
}

/* ------------------------------- user 1001 again: a reader, no syscall */

/* What a sealed reader found, in memory shared with its parent. */
struct reads {
	pid_t pid;
	int done;
	fi_addr_t fi[N];
	int ret[N];
	uint32_t vni[N];
	bool revoked[N];
	struct sockaddr_in addr[N];
};

/*
 * Resolve map_addr[0..n) in a child that may make no system call at all
 * (seccomp kills it at the first one): 0 if it ended normally.
 */
static int sealed_reads(struct fid_av *av, const fi_addr_t *map, int n,
			struct reads *rd)
{
	struct kav_resolved r;
	int status, i;
	pid_t pid;

	memset(rd, 0, sizeof(*rd));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (forbid_syscalls())
			_exit(2);
		/* From here on, any system call kills this process. */
		for (i = 0; i < n; i++) {
			rd->fi[i] = map[i];
			rd->ret[i] = kav_av_resolve(av, map[i], &r);
			if (rd->ret[i] && rd->ret[i] != -FI_EKEYREJECTED)
				continue;
			rd->vni[i] = r.vni;
			rd->revoked[i] = r.revoked;
			if (r.addr_len <= sizeof(rd->addr[i]))
				memcpy(&rd->addr[i], r.addr, r.addr_len);
		}
		rd->done = 1;
		syscall(SYS_exit, 0);
	}
	rd->pid = pid;
	printf("   [pid %d, forked by %d] seccomp: any system call but exit kills it;\n"
	       "     it reads map_addr[r] and kav_av_resolve() for ",
	       (int)pid, (int)getpid());
	if (n == 1)
		printf("rank 0:\n");
	else
		printf("ranks 0 to %d:\n", n - 1);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		printf("     pid %d was killed by signal %d: it made a system call (wrong!)\n",
		       (int)pid, WTERMSIG(status));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !rd->done) {
		printf("     pid %d did not finish its reads\n", (int)pid);
		return -1;
	}
	return 0;
}

static void show_read(struct fid_av *av, const struct reads *rd, int i)
{
	char buf[64];

	printf("     rank %d: fi_addr %llu -> %s, vni %u\n", i,
	       (unsigned long long)rd->fi[i],
	       str(av, &rd->addr[i], buf, sizeof(buf)), rd->vni[i]);
}

static int reader(int sock)
{
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = NAME,
				   .flags = FI_READ, .count = N };
	struct fid_domain *dom = NULL;
	struct fid_av *av = NULL;
	const fi_addr_t *map = NULL;
	struct reads *rd;
	int ret, i;
	bool ok;

	rd = mmap(NULL, sizeof(*rd), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rd == MAP_FAILED)
		return 1;
	for (;;) {
		switch (request(sock)) {
		case 'r':	/* open read-only, read with no syscall */
			ret = kav_domain_open(&info, &dom, NULL);
			if (!ret)
				ret = fi_av_open(dom, &attr, &av, NULL);
			if (ret) {
				printf("   [uid %d] fi_av_open(\"%s\", FI_READ): FAILED:\n",
				       TENANT, NAME);
				wrap("     ", why(ret));
				answer(sock, false);
				break;
			}
			map = attr.map_addr;
			printf("   [uid %d, pid %d] fi_av_open(\"%s\", FI_READ): mapped read-only\n",
			       TENANT, (int)getpid(), NAME);
			ok = !sealed_reads(av, map, N, rd);
			for (i = 0; ok && i < N; i++) {
				show_read(av, rd, i);
				if (rd->ret[i] || rd->vni[i] != VNI ||
				    ntohs(rd->addr[i].sin_port) != 5000 + i)
					ok = false;
			}
			if (ok)
				printf("     pid %d exited normally: %d reads, no system call\n",
				       (int)rd->pid, N);
			answer(sock, ok);
			break;
		case 'v':	/* the next resolve, after the revocation */
			ok = !sealed_reads(av, map, 1, rd);
			if (ok) {
				show_read(av, rd, 0);
				printf("     kav_av_resolve() = %s: %s\n",
				       errname(rd->ret[0]),
				       kav_strerror(rd->ret[0]));
				printf("     pid %d exited normally: 1 read, no system call\n",
				       (int)rd->pid);
				ok = rd->ret[0] == -FI_EKEYREJECTED &&
				     rd->revoked[0];
			}
			answer(sock, ok);
			break;
		case 'q':
			return close_av_domain(av, dom);
		default:
			answer(sock, false);
		}
	}
}

/* ------------------------------------------------------------- root */

static int failures;

static void check(bool ok, const char *step)
{
	if (!ok) {
		printf("   FAILED: step %s did not behave as shown\n", step);
		failures++;
	}
}

int main(void)
{
	struct peer ten = { .pid = -1 }, oth = { .pid = -1 },
		    rdr = { .pid = -1 };
	char out[8192], grant[24], avid[24], vni[24];
	char keyless = '?';
	long id;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The demo prints libkav's reasons itself (kav_last_error()). */
	setenv("KAV_LOG", "none", 1);
	find_kavctl();

	printf("kav demo: address vectors kept by the kernel, each address bound to an\n"
	       "auth key (a VNI) that the administrator granted.\n\n");

	f = fopen("/sys/module/kav/parameters/allow_keyless", "r");
	if (f) {
		keyless = (char)fgetc(f);
		fclose(f);
	}
	if (keyless == 'N')
		printf("0. This node is keyed, as by default: allow_keyless=N, so an address\n"
		       "   without a granted VNI is refused.\n");
	else
		printf("0. allow_keyless=%c: this node is not keyed as by default.\n",
		       keyless);
	check(keyless == 'N', "0 (allow_keyless must be off)");
	printf("\n");

	/* 1 */
	printf("1. The administrator (root) grants VNI %d to user %d.\n",
	       VNI, TENANT);
	snprintf(vni, sizeof(vni), "%d", VNI);
	snprintf(grant, sizeof(grant), "%d", TENANT);
	id = -1;
	if (run_kavctl(false, out, sizeof(out), (const char *[]){
		"grant", "add", "vni", vni, "uid", grant, NULL }) == 0)
		id = number_line(out);
	check(id > 0, "1");
	if (id <= 0)
		goto out;
	snprintf(grant, sizeof(grant), "%ld", id);
	check(run_kavctl(false, NULL, 0, (const char *[]){
		"grant", "list", NULL }) == 0, "1");
	printf("\n");

	/* 2 */
	printf("2. User %d opens a domain under VNI %d and fills the named AV \"%s\".\n",
	       TENANT, VNI, NAME);
	check(!spawn(&ten, TENANT, tenant) && !ask(&ten, 'o'), "2");
	avid[0] = '\0';
	/* Under its heading, the AV's id: the first word of the next line. */
	if (run_kavctl(false, out, sizeof(out), (const char *[]){
		"-o", "ID,USER,MODE,ENTRIES,OPEN,NAME", "av", "list",
		NULL }) == 0 && strchr(out, '\n') &&
	    (id = strtol(strchr(out, '\n') + 1, NULL, 10)) > 0)
		snprintf(avid, sizeof(avid), "%ld", id);
	printf("\n");

	/* 3 */
	printf("3. User %d asks for VNI %d too, and is refused.\n", OTHER, VNI);
	check(!spawn(&oth, OTHER, other) && !ask(&oth, 't'), "3");
	check(!finish(&oth), "3");
	printf("\n");

	/* 4 */
	printf("4. Another process of user %d (an MPI rank, say) opens \"%s\" read-only\n"
	       "   and reads it from its mapping, with no system call.\n",
	       TENANT, NAME);
	check(!spawn(&rdr, TENANT, reader) && !ask(&rdr, 'r'), "4");
	printf("\n");

	/* 5 */
	printf("5. The administrator revokes the grant; the very next resolve is refused.\n");
	check(run_kavctl(false, NULL, 0, (const char *[]){
		"grant", "del", grant, NULL }) == 0, "5");
	check(rdr.pid > 0 && !ask(&rdr, 'v'), "5");
	check(ten.pid > 0 && !ask(&ten, 'i'), "5");
	if (avid[0]) {
		printf("   The administrator sees the entries still there, marked revoked:\n");
		check(run_kavctl(false, out, sizeof(out), (const char *[]){
			"av", "show", avid, NULL }) == 0 &&
		      strstr(out, "revoked"), "5");
	} else {
		check(false, "2 (kavctl av list: no AV id)");
	}
	printf("\n");

out:
	if (rdr.pid > 0)
		check(!finish(&rdr), "4 (closing)");
	if (ten.pid > 0)
		check(!finish(&ten), "2 (closing)");
	if (failures) {
		printf("The demo FAILED: %d step%s did not behave as shown.\n",
		       failures, failures == 1 ? "" : "s");
		return 1;
	}
	printf("The demo worked: each step behaved as shown.\n");
	return 0;
}
