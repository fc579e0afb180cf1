// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions per read, counted by callgrind: the parent runs itself
 * again under valgrind --tool=callgrind with instrumentation and
 * collection off; the child turns collection on around each loop of M
 * reads only and dumps the count with a label naming the (case, access,
 * method). The parent reads the dumps back and divides by M. The loop's
 * own few instructions (index, decode, checksum) are in every figure;
 * "floor" is what they cost around a bare load.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <valgrind/callgrind.h>

#include "native.h"

void rb_instr_switch(bool on)
{
	if (on)
		CALLGRIND_START_INSTRUMENTATION;
	else
		CALLGRIND_STOP_INSTRUMENTATION;
}

void rb_instr_region(int ci, enum rb_access acc, enum rb_method meth,
		     struct rb_case *c, uint64_t m)
{
	char label[48];

	rb_run(c, meth, acc, 1024);	/* the same path, once through */
	CALLGRIND_TOGGLE_COLLECT;
	rb_run(c, meth, acc, m);
	CALLGRIND_TOGGLE_COLLECT;
	snprintf(label, sizeof(label), "rb:%d:%d:%d", ci, (int)acc,
		 (int)meth);
	CALLGRIND_DUMP_STATS_AT(label);
}

/* One dump file: its label and instruction total into @ipr. */
static void read_dump(const char *path, int nr_cases, uint64_t m,
		      double ipr[][NR_RB_ACCESS][NR_RB_METHODS])
{
	FILE *f = fopen(path, "r");
	int ci = -1, acc = -1, meth = -1;
	unsigned long long total = 0;
	bool have_total = false;
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "desc: Trigger: Client Request: rb:%d:%d:%d",
			   &ci, &acc, &meth) == 3)
			continue;
		if (sscanf(line, "totals: %llu", &total) == 1)
			have_total = true;
	}
	fclose(f);
	if (have_total && ci >= 0 && ci < nr_cases && acc >= 0 &&
	    acc < NR_RB_ACCESS && meth >= 0 && meth < NR_RB_METHODS)
		ipr[ci][acc][meth] = (double)total / (double)m;
}

int rb_instr_collect(const char *self, char *const *args, int nr_cases,
		     uint64_t m, double ipr[][NR_RB_ACCESS][NR_RB_METHODS])
{
	char dir[] = "/tmp/kav-read-bench-XXXXXX", out[96], log[96];
	char path[PATH_MAX];
	char *argv[32];
	int argc = 0, status, fd, i, j, k;
	struct dirent *de;
	pid_t pid;
	DIR *d;

	for (i = 0; i < nr_cases; i++)
		for (j = 0; j < NR_RB_ACCESS; j++)
			for (k = 0; k < NR_RB_METHODS; k++)
				ipr[i][j][k] = -1;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.out", dir);
	snprintf(log, sizeof(log), "%s/valgrind.log", dir);
	argv[argc++] = "valgrind";
	argv[argc++] = "--tool=callgrind";
	argv[argc++] = "--instr-atstart=no";
	argv[argc++] = "--collect-atstart=no";
	argv[argc++] = out;
	argv[argc++] = (char *)self;
	for (i = 0; args[i] && argc < 31; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!strncmp(de->d_name, "cg.out.", 7))
			read_dump(path, nr_cases, m, ipr);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			if (!strcmp(de->d_name, "valgrind.log"))
				fprintf(stderr, "kav_read_bench: callgrind run failed; see %s\n",
					path);
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			unlink(path);
	}
	if (d)
		closedir(d);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		rmdir(dir);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}
