// SPDX-License-Identifier: GPL-2.0
/*
 * kav-av-fill: MPI instant-on across nodes (kav-av-fill(1),
 * Documentation/slurm.rst "Instant-on across nodes").
 *
 * Run as the job's user, in the job's cgroup (which holds the job's VNI
 * grant), once per node. It creates the named AV MPICH's ranks open
 * ("FI_NAMED_AV_<appnum>\n", FI_AV_TABLE, mode 0600), fills it in rank
 * order with (IPv4 address of rank r's host, port P + r), and holds it
 * until the ranks have it: until SIGTERM (--hold) or until COMMAND ends.
 * A named AV lives while anyone holds it, so the ranks' FI_READ opens
 * keep it after the holder is gone: no root and no pin.
 *
 *   kav-av-fill [--vni V] --hosts H,... --tasks-per-node T --port-base P
 *               [--appnum A] [--mode M] --hold [--ready-file F]
 *   kav-av-fill ... (the same) -- COMMAND [ARG...]
 *   kav-av-fill --wait --ranks N [--appnum A] [--timeout S] [--vni V]
 *   kav-av-fill --rank-exec --port-base P -- COMMAND [ARG...]
 *
 * Every failure is one line on stderr naming its cause, and a non-zero
 * exit status: 2 for a bad command line, 1 otherwise (COMMAND's own
 * status once it ran; 127 or 126 when it cannot be run).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <kav/kav.h>

#include "fill_args.h"

#ifndef KAV_AV_FILL_VERSION
#define KAV_AV_FILL_VERSION "unknown"
#endif

#define PROG		"kav-av-fill"
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define WAIT_DEFAULT	60		/* --timeout, seconds */
#define WAIT_MAX	86400
#define POLL_NS		50000000L	/* --wait retries every 50 ms */

static const char usage_text[] =
"Usage:\n"
"  kav-av-fill [--vni V] --hosts H1,H2,... --tasks-per-node T --port-base P\n"
"              [--appnum A] [--mode M] --hold [--ready-file F]\n"
"  kav-av-fill [--vni V] --hosts H1,H2,... --tasks-per-node T --port-base P\n"
"              [--appnum A] [--mode M] -- COMMAND [ARG...]\n"
"  kav-av-fill --wait --ranks N [--appnum A] [--timeout S] [--vni V]\n"
"  kav-av-fill --rank-exec --port-base P -- COMMAND [ARG...]\n"
"\n"
"Fill (once per node, as the job's user, in the job's cgroup): create the\n"
"named AV \"FI_NAMED_AV_<A>\\n\" under VNI V and insert every rank's\n"
"address in rank order, rank r = (IPv4 address of its host, port P + r),\n"
"ranks placed in blocks (the first host's first); then hold it until\n"
"SIGTERM or SIGINT (--hold: prints one \"ready\" line, creates F), or\n"
"until COMMAND ends (exit status: COMMAND's).\n"
"  --vni V            the job's auth key (granted to the job's cgroup);\n"
"                     default $FI_OFI_HOOK_KAV_VNI (kav-slurm-taskprolog)\n"
"  --hosts H1,...     the job's hosts in rank order: names or IPv4 addresses\n"
"  --tasks-per-node T ranks per host: one number, or SLURM_TASKS_PER_NODE\n"
"                     such as 2(x3),1\n"
"  --port-base P      rank r listens on port P + r (P + ranks - 1 <= 65535)\n"
"  --appnum A         MPICH's appnum: 0 under mpiexec, -1 under srun's\n"
"                     PMI (default 0)\n"
"  --mode M           the AV's mode bits (default 0600: only you)\n"
"--wait: until this node's AV holds N ranks (default timeout 60 s).\n"
"--rank-exec: run COMMAND with FI_TCP_PORT_LOW_RANGE and\n"
"  FI_TCP_PORT_HIGH_RANGE set to P + the rank (PMI_RANK, PMIX_RANK,\n"
"  OMPI_COMM_WORLD_RANK or SLURM_PROCID, the first that is set).\n"
"  -h, --help  -V, --version\n"
"See kav-av-fill(1).\n";

/* The options, as bits: which were given, which each use allows. */
enum {
	O_VNI = 1 << 0, O_HOSTS = 1 << 1, O_TASKS = 1 << 2, O_PORT = 1 << 3,
	O_APPNUM = 1 << 4, O_MODE = 1 << 5, O_HOLD = 1 << 6, O_READY = 1 << 7,
	O_WAIT = 1 << 8, O_RANKS = 1 << 9, O_TIMEOUT = 1 << 10,
	O_RANK_EXEC = 1 << 11,
};

static const char *const opt_names[] = {
	"--vni", "--hosts", "--tasks-per-node", "--port-base", "--appnum",
	"--mode", "--hold", "--ready-file", "--wait", "--ranks", "--timeout",
	"--rank-exec",
};

struct opts {
	unsigned int given;
	uint32_t vni;
	unsigned int port_base;
	int appnum;
	unsigned int mode;
	char *hosts;
	const char *tasks;
	const char *ready_file;
	unsigned int ranks;
	unsigned int timeout;
	char **cmd;
};

/* KAV_LOG as kav-av-fill found it: restored for COMMAND. */
static bool log_set_here;

/* "kav-av-fill: " FMT TAIL on stderr: every message's one shape. */
static void vsay(const char *tail, const char *fmt, va_list ap)
{
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("\n", fmt, ap);
	va_end(ap);
}

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(" (" PROG " --help)\n", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

/*
 * Why a libkav call failed: its own words for this refusal, else the
 * code's; on one line (libkav quotes MPICH's names, which end in a
 * newline, as they are).
 */
static const char *why(int err)
{
	static char buf[2048];
	const char *s = kav_last_error();
	size_t n = 0;

	if (!*s)
		s = kav_strerror(err);
	for (; *s && n < sizeof(buf) - 3; s++) {
		if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = (unsigned char)*s < ' ' ? '?' : *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void node_name(char *buf, size_t len)
{
	if (gethostname(buf, len))
		snprintf(buf, len, "this node");
	buf[len - 1] = '\0';
}

/* ------------------------------------------------------------ options */

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "vni", required_argument, NULL, 'v' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "tasks-per-node", required_argument, NULL, 't' },
		{ "port-base", required_argument, NULL, 'p' },
		{ "appnum", required_argument, NULL, 'a' },
		{ "mode", required_argument, NULL, 'm' },
		{ "hold", no_argument, NULL, 'k' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "rank-exec", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static const char letters[] = "vHtpamkrwnTx";
	char err[512];
	uint64_t v;
	unsigned int bit;
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout = WAIT_DEFAULT;
	opterr = 0;
	/* "+": the first word that is not an option starts COMMAND. */
	while ((c = getopt_long(argc, argv, "+hV", lopts, NULL)) != -1) {
		const char *l = c > 0 ? strchr(letters, c) : NULL;

		if (c == 'h') {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (c == 'V') {
			printf(PROG " " KAV_AV_FILL_VERSION "\n");
			exit(0);
		}
		if (!l) {
			if (optopt && strchr(letters, optopt))
				usage_error("option %s needs a value",
					    argv[optind - 1]);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
		bit = 1U << (l - letters);
		if (o->given & bit)
			usage_error("%s given twice",
				    opt_names[l - letters]);
		o->given |= bit;
		switch (c) {
		case 'v':
			if (kaf_parse_u64(optarg, 0, UINT32_MAX, 1, &v, "VNI",
					  err, sizeof(err)))
				usage_error("%s", err);
			o->vni = (uint32_t)v;
			break;
		case 'H':
			o->hosts = optarg;
			break;
		case 't':
			o->tasks = optarg;
			break;
		case 'p':
			if (kaf_parse_u64(optarg, 1, 65535, 0, &v,
					  "--port-base", err, sizeof(err)))
				usage_error("%s", err);
			o->port_base = (unsigned int)v;
			break;
		case 'a':
			if (kaf_parse_appnum(optarg, &o->appnum, err,
					     sizeof(err)))
				usage_error("%s", err);
			break;
		case 'm':
			if (kaf_parse_mode(optarg, &o->mode, err, sizeof(err)))
				usage_error("%s", err);
			break;
		case 'r':
			if (!*optarg)
				usage_error("--ready-file needs a file name");
			o->ready_file = optarg;
			break;
		case 'n':
			if (kaf_parse_u64(optarg, 1, KAF_RANKS_MAX, 0, &v,
					  "--ranks", err, sizeof(err)))
				usage_error("%s", err);
			o->ranks = (unsigned int)v;
			break;
		case 'T':
			if (kaf_parse_u64(optarg, 0, WAIT_MAX, 0, &v,
					  "--timeout (seconds)", err,
					  sizeof(err)))
				usage_error("%s", err);
			o->timeout = (unsigned int)v;
			break;
		default:	/* --hold, --wait, --rank-exec: the bit */
			break;
		}
	}
	o->cmd = optind < argc ? &argv[optind] : NULL;
}

/* Options of @given outside @allowed: the first one's name, or NULL. */
static const char *stray(unsigned int given, unsigned int allowed)
{
	unsigned int i;

	for (i = 0; i < sizeof(opt_names) / sizeof(opt_names[0]); i++)
		if ((given & ~allowed) & (1U << i))
			return opt_names[i];
	return NULL;
}

/* Options @need that @given lacks: the first one's name, or NULL. */
static const char *missing(unsigned int given, unsigned int need)
{
	return stray(need, given);
}

/* ---------------------------------------------------------------- fill */

/* @host's IPv4 address: a dotted quad as it is, a name through NSS. */
static int resolve(const char *host, struct in_addr *a)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int ret;

	if (inet_pton(AF_INET, host, a) == 1)
		return 0;
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret) {
		say("host '%s' has no IPv4 address: %s", host,
		    ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret));
		return -1;
	}
	*a = ((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

/* Every rank's address, in rank order: blocks of counts[h] on host h. */
static struct sockaddr_in *rank_addrs(const struct opts *o,
				      unsigned int *nranks,
				      unsigned int *nhosts_out)
{
	unsigned int *counts = NULL, total, r = 0, k;
	struct in_addr *addr = NULL;
	struct sockaddr_in *sin = NULL;
	bool loopback = false, same = true;
	char err[512], **hosts, *p;
	size_t n, h, max = 1;

	for (p = o->hosts; p && *p; p++)
		max += *p == ',';
	hosts = calloc(max, sizeof(*hosts));
	if (!hosts) {
		say("out of memory");
		return NULL;
	}
	if (kaf_split_hosts(o->hosts, hosts, max, &n, err, sizeof(err)))
		usage_error("%s", err);
	counts = calloc(n, sizeof(*counts));
	addr = calloc(n, sizeof(*addr));
	if (!counts || !addr) {
		say("out of memory");
		goto out;
	}
	if (kaf_parse_tasks(o->tasks, n, counts, &total, err, sizeof(err)))
		usage_error("%s", err);
	if ((unsigned long)o->port_base + total - 1 > 65535)
		usage_error("--port-base %u + %u ranks - 1 is past port 65535",
			    o->port_base, total);
	for (h = 0; h < n; h++) {
		if (resolve(hosts[h], &addr[h]))
			goto out;
		loopback |= (ntohl(addr[h].s_addr) >> 24) == 127;
		same &= addr[h].s_addr == addr[0].s_addr;
	}
	/* Ranks on other hosts could never reach a loopback address. */
	if (loopback && !same) {
		for (h = 0; (ntohl(addr[h].s_addr) >> 24) != 127; h++)
			;
		say("host '%s' resolves to %s, a loopback address, but the job spans other hosts: give its address on the job's network (or fix /etc/hosts)",
		    hosts[h], inet_ntoa(addr[h]));
		goto out;
	}
	sin = calloc(total, sizeof(*sin));
	if (!sin) {
		say("out of memory");
		goto out;
	}
	for (h = 0; h < n; h++) {
		for (k = 0; k < counts[h]; k++, r++) {
			sin[r].sin_family = AF_INET;
			sin[r].sin_port = htons((uint16_t)(o->port_base + r));
			sin[r].sin_addr = addr[h];
		}
	}
	*nranks = total;
	*nhosts_out = (unsigned int)n;
out:
	free(hosts);
	free(counts);
	free(addr);
	return sin;
}

/* Set @name to @value (NULL: unset) and return the old value (strdup'd,
 * NULL when unset) for restore_env(). */
static char *swap_env(const char *name, const char *value)
{
	const char *old = getenv(name);
	char *copy = old ? strdup(old) : NULL;

	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	return copy;
}

static void restore_env(const char *name, char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

/* The domain under @vni (keyless when !@keyed). */
static int open_domain(bool keyed, uint32_t vni, struct fid_domain **dom)
{
	struct kav_auth_key key = { .vni = vni };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = FI_SOCKADDR_IN;
	if (keyed) {
		dattr.auth_key = (uint8_t *)&key;
		dattr.auth_key_size = sizeof(key);
		info.domain_attr = &dattr;
	}
	return kav_domain_open(&info, dom, NULL);
}

/* The AV's name as MPICH spells it, and as printed (newline as \n). */
static void av_names(int appnum, char *name, size_t len, char *shown,
		     size_t slen)
{
	snprintf(name, len, "FI_NAMED_AV_%d\n", appnum);
	snprintf(shown, slen, "FI_NAMED_AV_%d\\n", appnum);
}

struct filled {
	struct fid_domain *dom;
	struct fid_av *av;
	unsigned int nranks, nhosts;
	char shown[48];
};

static int fill(const struct opts *o, struct filled *f)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in *sin;
	struct kav_view view;
	fi_addr_t *fa = NULL;
	uint64_t held;
	char name[48], mode[8], *old_mode, *old_owner;
	unsigned int r;
	int ret;

	memset(f, 0, sizeof(*f));
	sin = rank_addrs(o, &f->nranks, &f->nhosts);
	if (!sin)
		return -1;
	av_names(o->appnum, name, sizeof(name), f->shown, sizeof(f->shown));
	ret = open_domain(true, o->vni, &f->dom);
	if (ret) {
		say("kav domain under vni %u: %s", o->vni, why(ret));
		f->dom = NULL;
		goto fail;
	}
	/* Our own user's name (never another's), with our mode bits. */
	snprintf(mode, sizeof(mode), "%04o", o->given & O_MODE ? o->mode :
		 0600U);
	old_mode = swap_env("KAV_AV_MODE", mode);
	old_owner = swap_env("KAV_AV_OWNER", NULL);
	attr.name = name;
	attr.count = f->nranks;
	ret = fi_av_open(f->dom, &attr, &f->av, NULL);
	restore_env("KAV_AV_MODE", old_mode);
	restore_env("KAV_AV_OWNER", old_owner);
	if (ret) {
		say("named AV %s under vni %u: %s", f->shown, o->vni,
		    why(ret));
		f->av = NULL;
		goto fail;
	}
	/* Ours alone: the ranks read index r as rank r. */
	ret = kav_view_init(f->av, &view);
	held = ret ? 0 : __atomic_load_n(&view.hdr->nr_valid,
					 __ATOMIC_ACQUIRE);
	if (ret || held) {
		if (ret)
			say("named AV %s: cannot read its table: %s", f->shown,
			    why(ret));
		else
			say("named AV %s already holds %llu entries: another job of this user on this node uses appnum %d (named AVs belong to a user and an IPC namespace); give this job another --appnum, or end the other filler",
			    f->shown, (unsigned long long)held, o->appnum);
		goto fail;
	}
	fa = calloc(f->nranks, sizeof(*fa));
	if (!fa) {
		say("out of memory");
		goto fail;
	}
	ret = fi_av_insert(f->av, sin, f->nranks, fa, 0, NULL);
	for (r = 0; ret >= 0 && r < f->nranks; r++) {
		if (fa[r] == r)
			continue;
		say("named AV %s: rank %u (%s:%u) %s: %s", f->shown, r,
		    inet_ntoa(sin[r].sin_addr), ntohs(sin[r].sin_port),
		    fa[r] == FI_ADDR_NOTAVAIL ? "was refused" :
		    "did not get its own index", fa[r] == FI_ADDR_NOTAVAIL ?
		    why(-FI_EINVAL) : "the AV changed under the filler");
		goto fail;
	}
	if (ret < 0) {
		say("named AV %s: inserting %u ranks: %s", f->shown,
		    f->nranks, why(ret));
		goto fail;
	}
	free(fa);
	free(sin);
	return 0;
fail:
	free(fa);
	free(sin);
	if (f->av)
		fi_close(&f->av->fid);
	if (f->dom)
		fi_close(&f->dom->fid);
	return -1;
}

static void release(struct filled *f)
{
	fi_close(&f->av->fid);
	fi_close(&f->dom->fid);
}

static void ready_line(char *buf, size_t len, const struct opts *o,
		       const struct filled *f)
{
	char host[256];

	node_name(host, sizeof(host));
	snprintf(buf, len,
		 PROG ": ready: %s holds %u ranks of %u hosts (vni %u, ports %u-%u) on %s\n",
		 f->shown, f->nranks, f->nhosts, o->vni, o->port_base,
		 o->port_base + f->nranks - 1, host);
}

static int write_ready_file(const char *path, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err;

	if (fd < 0) {
		say("--ready-file %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, line, len);
	err = n < 0 ? errno : 0;
	if (close(fd) && !err)
		err = errno;
	if (n == (ssize_t)len && !err)
		return 0;
	say("--ready-file %s: %s", path, err ? strerror(err) : "short write");
	unlink(path);
	return -1;
}

/* --hold: until SIGTERM, SIGINT or SIGHUP (blocked since main()). */
static int hold(const struct opts *o, struct filled *f,
		const sigset_t *stop)
{
	char line[512];
	int sig;

	/* A reader of the ready line that goes away must not end the hold
	 * (nothing is exec'd here: no one inherits this). */
	signal(SIGPIPE, SIG_IGN);
	ready_line(line, sizeof(line), o, f);
	if (o->ready_file && write_ready_file(o->ready_file, line)) {
		release(f);
		return EXIT_FAIL;
	}
	fputs(line, stdout);
	fflush(stdout);
	while (sigwait(stop, &sig))
		;
	if (o->ready_file)
		unlink(o->ready_file);
	release(f);
	return 0;
}

/* Exit status of COMMAND as a shell gives it. */
static int status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_FAIL;
}

static void exec_cmd(char **cmd) __attribute__((noreturn));
static void exec_cmd(char **cmd)
{
	int err;

	execvp(cmd[0], cmd);
	err = errno;
	say("cannot run '%s': %s", cmd[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* -- COMMAND: run it, hold the AV until it ends, pass signals on. */
static int run_holding(const struct opts *o, struct filled *f,
		       const sigset_t *stop, const sigset_t *old_mask)
{
	sigset_t set = *stop;
	char line[512];
	int sig, status;
	pid_t pid, r;

	ready_line(line, sizeof(line), o, f);
	fputs(line, stderr);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		say("cannot start '%s': fork: %s", o->cmd[0], strerror(errno));
		release(f);
		return EXIT_FAIL;
	}
	if (!pid) {
		sigprocmask(SIG_SETMASK, old_mask, NULL);
		if (log_set_here)
			unsetenv("KAV_LOG");
		exec_cmd(o->cmd);
	}
	for (;;) {
		if (sigwait(&set, &sig))
			continue;
		if (sig != SIGCHLD) {
			kill(pid, sig);
			continue;
		}
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			say("waiting for '%s': %s", o->cmd[0], strerror(errno));
			status = EXIT_FAIL << 8;
			break;
		}
	}
	release(f);
	return status_of(status);
}

/* ---------------------------------------------------------------- wait */

/* One try: 0 when the AV holds @o->ranks valid entries, else -errno. */
static int try_wait(const struct opts *o, struct fid_domain *dom,
		    const char *name, const char *shown, char *reason,
		    size_t len)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_READ,
				   .count = o->ranks, .name = name };
	const fi_addr_t *map;
	struct fid_av *av;
	unsigned int r;
	int ret;

	ret = fi_av_open(dom, &attr, &av, NULL);
	if (ret) {
		snprintf(reason, len, "%s", why(ret));
		return ret;
	}
	map = attr.map_addr;
	for (r = 0; r < o->ranks; r++)
		if (__atomic_load_n(&map[r], __ATOMIC_ACQUIRE) != r)
			break;
	fi_close(&av->fid);
	if (r == o->ranks)
		return 0;
	snprintf(reason, len, "named AV %s: rank %u's entry is not there yet",
		 shown, r);
	return -FI_EAGAIN;
}

static int wait_filled(const struct opts *o)
{
	struct timespec now, end, nap = { 0, POLL_NS };
	struct fid_domain *dom;
	char name[48], shown[48], host[256], reason[1024] = "";
	int ret;

	av_names(o->appnum, name, sizeof(name), shown, sizeof(shown));
	node_name(host, sizeof(host));
	ret = open_domain(o->given & O_VNI, o->vni, &dom);
	if (ret) {
		say("kav domain%s: %s", o->given & O_VNI ? " under the VNI" :
		    "", why(ret));
		return EXIT_FAIL;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += o->timeout;
	for (;;) {
		ret = try_wait(o, dom, name, shown, reason, sizeof(reason));
		if (!ret || (ret != -FI_ENOENT && ret != -FI_EAGAIN))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		nanosleep(&nap, NULL);
	}
	fi_close(&dom->fid);
	if (!ret) {
		printf(PROG ": ready: %s holds %u ranks on %s\n", shown,
		       o->ranks, host);
		return 0;
	}
	if (ret == -FI_ENOENT || ret == -FI_EAGAIN)
		say("%s on %s: not filled with %u ranks after %u s: %s", shown,
		    host, o->ranks, o->timeout, reason);
	else
		say("%s on %s: %s", shown, host, reason);
	return EXIT_FAIL;
}

/* ----------------------------------------------------------- rank-exec */

static int rank_exec(const struct opts *o)
{
	unsigned int rank;
	const char *var;
	char err[512], port[8];

	if (kaf_rank_from_env(getenv, &rank, &var, err, sizeof(err))) {
		say("%s", err);
		return EXIT_FAIL;
	}
	if ((unsigned long)o->port_base + rank > 65535) {
		say("--port-base %u + rank %u (%s) is past port 65535",
		    o->port_base, rank, var);
		return EXIT_FAIL;
	}
	snprintf(port, sizeof(port), "%u", o->port_base + rank);
	if (setenv("FI_TCP_PORT_LOW_RANGE", port, 1) ||
	    setenv("FI_TCP_PORT_HIGH_RANGE", port, 1)) {
		say("setenv: %s", strerror(errno));
		return EXIT_FAIL;
	}
	exec_cmd(o->cmd);
}

/* ---------------------------------------------------------------- main */

/*
 * A fill without --vni takes the key the hook uses, FI_OFI_HOOK_KAV_VNI,
 * which kav-slurm-taskprolog exports into every task of a granted job.
 */
static void vni_from_env(struct opts *o)
{
	const char *env = getenv("FI_OFI_HOOK_KAV_VNI");
	char err[512];
	uint64_t v;

	if ((o->given & O_VNI) || !env)
		return;
	if (kaf_parse_u64(env, 0, UINT32_MAX, 1, &v,
			  "FI_OFI_HOOK_KAV_VNI (no --vni)", err, sizeof(err)))
		usage_error("%s", err);
	o->vni = (uint32_t)v;
	o->given |= O_VNI;
}

int main(int argc, char **argv)
{
	const unsigned int fill_need = O_VNI | O_HOSTS | O_TASKS | O_PORT;
	const unsigned int fill_ok = fill_need | O_APPNUM | O_MODE | O_HOLD |
				     O_READY;
	const unsigned int wait_ok = O_WAIT | O_RANKS | O_APPNUM | O_TIMEOUT |
				     O_VNI;
	struct filled f;
	sigset_t stop, old_mask;
	struct opts o;
	const char *name;

	parse(argc, argv, &o);
	if (o.given & O_RANK_EXEC) {
		name = stray(o.given, O_RANK_EXEC | O_PORT);
		if (name)
			usage_error("%s does not go with --rank-exec", name);
		if (!(o.given & O_PORT) || !o.cmd)
			usage_error("--rank-exec needs --port-base P -- COMMAND");
		return rank_exec(&o);
	}
	if (!getenv("KAV_LOG")) {
		/* The one line printed says what libkav would log. */
		setenv("KAV_LOG", "none", 1);
		log_set_here = true;
	}
	if (o.given & O_WAIT) {
		name = stray(o.given, wait_ok);
		if (name)
			usage_error("%s does not go with --wait", name);
		if (!(o.given & O_RANKS))
			usage_error("--wait needs --ranks N");
		if (o.cmd)
			usage_error("--wait runs no COMMAND ('%s')", o.cmd[0]);
		return wait_filled(&o);
	}
	if (!o.given && !o.cmd)
		usage_error("nothing to do: fill (--vni ... --hold or -- COMMAND), --wait or --rank-exec");
	name = stray(o.given, fill_ok);
	if (name)
		usage_error("%s is not an option of filling", name);
	vni_from_env(&o);
	name = missing(o.given, fill_need);
	if (name)
		usage_error("filling needs %s (a fill takes --vni or FI_OFI_HOOK_KAV_VNI, --hosts, --tasks-per-node and --port-base)",
			    name);
	if ((o.given & O_HOLD) && o.cmd)
		usage_error("--hold and a COMMAND ('%s') exclude each other",
			    o.cmd[0]);
	if (!(o.given & O_HOLD) && !o.cmd)
		usage_error("give --hold or -- COMMAND: what holds the AV until the ranks open it");
	if ((o.given & O_READY) && !(o.given & O_HOLD))
		usage_error("--ready-file goes with --hold");

	/* A stop signal during the fill is taken once it is done. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old_mask);
	signal(SIGCHLD, SIG_DFL);
	if (fill(&o, &f))
		return EXIT_FAIL;
	if (o.given & O_HOLD)
		return hold(&o, &f, &stop);
	return run_holding(&o, &f, &stop, &old_mask);
}
