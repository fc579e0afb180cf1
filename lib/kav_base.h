/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The ground floor of libkav: logging (log.c), errno translation
 * (errno.c) and the system-call seams (sys.c). Needs nothing else of
 * libkav, so the table reader (table.c) and kav_priv.h stand on it
 * without a loop.
 */
#ifndef KAV_BASE_H
#define KAV_BASE_H

#include <stdbool.h>

#define KAV_API __attribute__((visibility("default")))

/* ------------------------------------------------------------------ log.c */

/* Bytes of a log line and of kav_last_error()'s text, with the NUL. */
#define KAV_ERR_MAX	1024

enum kav_log_level {
	KAV_LOG_NONE,
	KAV_LOG_WARN,
	KAV_LOG_INFO,
	KAV_LOG_DEBUG,
};

/* Level named by a KAV_LOG value; NULL or unknown text gives the default. */
int kav_log_parse_level(const char *s);
/*
 * Level named by an FI_LOG_LEVEL value, libfabric's names (warn, trace,
 * info, debug; any case): -1 for NULL, "" or another word.
 */
int kav_log_parse_fi_level(const char *s);
/*
 * The level for $KAV_LOG @kav_log and $FI_LOG_LEVEL @fi_level: KAV_LOG
 * when set and not empty, else FI_LOG_LEVEL when it names a level, else
 * the default (warn).
 */
int kav_log_env_level(const char *kav_log, const char *fi_level);
/* Current level: $KAV_LOG (else $FI_LOG_LEVEL), read once. */
int kav_log_level(void);
void kav_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define kav_warn(...)	kav_log(KAV_LOG_WARN, __VA_ARGS__)
#define kav_info(...)	kav_log(KAV_LOG_INFO, __VA_ARGS__)
#define kav_debug(...)	kav_log(KAV_LOG_DEBUG, __VA_ARGS__)

/* ---------------------------------------------------------------- errno.c */

/* Negative fabric errno for a (positive) errno from the kernel. */
int kav_err_from_errno(int err);
/* Negative fabric errno for a failed open() of the device. */
int kav_err_from_open_errno(int err);

/* ------------------------------------------------------------------ sys.c */

/*
 * The only path to the kernel's ioctls, so unit tests can put a fake kernel
 * behind it. Returns the ioctl's non-negative result or -errno; EINTR is
 * retried (every kav ioctl is all-or-nothing, so a retry is safe).
 */
int kav_sys_ioctl(int fd, unsigned long req, void *arg);
/* close() of a kernel object fd (domain, AV, endpoint); a seam like the
 * ioctl. */
void kav_sys_close(int fd);
/*
 * Give the CPU away while a table writer finishes (table.h's bounded
 * spinning): sched_yield() when @nap_us is 0, else a sleep of @nap_us
 * microseconds (below a second).
 */
void kav_sys_pause(unsigned int nap_us);
#ifdef KAV_TESTING
extern int (*kav_sys_ioctl_hook)(int fd, unsigned long req, void *arg);
/* Told about every kav_sys_close() before the fd is closed. */
extern void (*kav_sys_close_hook)(int fd);
/* Called instead of kav_sys_pause()'s yield (false) or sleep (true). */
extern void (*kav_sys_pause_hook)(bool nap);
#endif

#endif /* KAV_BASE_H */
