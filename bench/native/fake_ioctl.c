// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kernel under the production libkav. libkav.so.0 calls libc's
 * ioctl() and close(); this executable defines both, and the dynamic
 * linker binds libkav's calls to the executable's definitions first. kav's
 * ioctls (type KAV_IOCTL_TYPE) go to the fake kernel (tests/unit/fake_kav.c),
 * everything else to libc. The domain fd is /dev/null (KAV_DEVICE); AV fds
 * are the fake's memfds, which libkav maps as it would map /dev/kav's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fake_kav.h"
#include "native.h"

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
	/* What the kernel does is not libkav's cost. */
	in_fake = true;
	rb_malloc_pause(true);
	ret = fake_kav_ioctl(fd, req, arg);
	rb_malloc_pause(false);
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

void rb_fake_kernel_init(void)
{
	fake_kav_install();
	/* kav.ko's default, so that the tables are the module's. */
	fake_kav_max_entries = FAKE_KAV_KERNEL_MAX_ENTRIES;
	/* Never a real /dev/kav: libkav's domain is the fake's. */
	setenv("KAV_DEVICE", "/dev/null", 1);
}
