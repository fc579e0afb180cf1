// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kernel under a production libkav (no KAV_TESTING seam): libkav
 * calls libc's ioctl() and close(); the program (or a preloaded object)
 * that links this file defines both, and the dynamic linker binds
 * libkav's calls to these first. kav's ioctls (type KAV_IOCTL_TYPE) go to
 * the fake kernel (fake_kav.c), everything else to libc. The domain fd
 * is /dev/null (KAV_DEVICE); AV fds are the fake's memfds, which libkav
 * maps as it would map /dev/kav's.
 *
 * Users: the native read benchmark (bench/native), and the hook's host
 * test double, libkav-fake-kernel.so (lanes/hook), preloaded under
 * unmodified libfabric programs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fake_kav.h"

/* Called around each fake ioctl (the benchmark stops counting mallocs). */
void (*fake_ioctl_enter)(bool entering);

static int (*libc_ioctl)(int fd, unsigned long req, ...);
static int (*libc_close)(int fd);
/* The fake kernel closes its own memfds: those are not libkav's. */
static bool in_fake;

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (_IOC_TYPE(req) != KAV_IOCTL_TYPE || in_fake) {
		if (!libc_ioctl)
			libc_ioctl = (int (*)(int, unsigned long, ...))
				     dlsym(RTLD_NEXT, "ioctl");
		return libc_ioctl(fd, req, arg);
	}
	in_fake = true;
	if (fake_ioctl_enter)
		fake_ioctl_enter(true);
	ret = fake_kav_ioctl(fd, req, arg);
	if (fake_ioctl_enter)
		fake_ioctl_enter(false);
	in_fake = false;
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

int close(int fd)
{
	if (!libc_close)
		libc_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	if (!in_fake) {
		in_fake = true;
		fake_kav_close(fd);
		in_fake = false;
	}
	return libc_close(fd);
}

void fake_ioctl_install(void)
{
	fake_kav_install();
	/* kav.ko's default, so that the tables are the module's. */
	fake_kav_max_entries = FAKE_KAV_KERNEL_MAX_ENTRIES;
	/* Never a real /dev/kav: libkav's domain is the fake's. */
	setenv("KAV_DEVICE", "/dev/null", 1);
}
