/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For tests that prove a read path makes no system call: after
 * forbid_syscalls(), anything but exit kills the process, so a child that
 * exits normally made none.
 */
#ifndef KAV_TEST_SECCOMP_H
#define KAV_TEST_SECCOMP_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* Install filter @f (@n instructions) for this process, for good. */
static inline int kav_seccomp_install(struct sock_filter *f, unsigned short n)
{
	struct sock_fprog prog = { .len = n, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* The system call table the numbers below are from: the build's. */
#if defined(__x86_64__)
#define KAV_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KAV_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "kav_test_seccomp.h: no AUDIT_ARCH_* for this architecture"
#endif

/* Not the build's system call table (e.g. x32, compat): kill. */
#define KAV_SECCOMP_ARCH_NATIVE						\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS,				\
		 offsetof(struct seccomp_data, arch)),			\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KAV_AUDIT_ARCH, 1, 0),	\
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),		\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS,				\
		 offsetof(struct seccomp_data, nr))

/* Allow only exit and exit_group; any other system call kills. */
static inline int forbid_syscalls(void)
{
	struct sock_filter f[] = {
		KAV_SECCOMP_ARCH_NATIVE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return kav_seccomp_install(f, sizeof(f) / sizeof(f[0]));
}

/* Kill on ioctl(@cmd) (any fd); every other call is allowed. */
static inline int forbid_ioctl(unsigned int cmd)
{
	struct sock_filter f[] = {
		KAV_SECCOMP_ARCH_NATIVE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, cmd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return kav_seccomp_install(f, sizeof(f) / sizeof(f[0]));
}

#endif /* KAV_TEST_SECCOMP_H */
