// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The seam between libkav and the kernel's ioctls. Unit tests build the
 * library with KAV_TESTING and put a fake kernel behind the hook; the
 * production build has no hook at all.
 */
#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kav_base.h"

#ifdef KAV_TESTING
int (*kav_sys_ioctl_hook)(int fd, unsigned long req, void *arg);
void (*kav_sys_close_hook)(int fd);
void (*kav_sys_pause_hook)(bool nap);
#endif

void kav_sys_pause(unsigned int nap_us)
{
	struct timespec ts = { .tv_nsec = nap_us * 1000L };

#ifdef KAV_TESTING
	if (kav_sys_pause_hook) {
		kav_sys_pause_hook(nap_us != 0);
		return;
	}
#endif
	if (nap_us)
		nanosleep(&ts, NULL);	/* an early wake-up is a retry */
	else
		sched_yield();
}

void kav_sys_close(int fd)
{
#ifdef KAV_TESTING
	if (kav_sys_close_hook)
		kav_sys_close_hook(fd);
#endif
	/* Linux releases the descriptor even when close() fails. */
	close(fd);
}

int kav_sys_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

#ifdef KAV_TESTING
	if (kav_sys_ioctl_hook)
		return kav_sys_ioctl_hook(fd, req, arg);
#endif
	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}
