// SPDX-License-Identifier: GPL-2.0
/*
 * libkav-fake-kernel.so: the hook's host test double. Preloaded under an
 * unmodified libfabric program (LD_PRELOAD) on a machine without kav.ko,
 * it puts the fake kernel (tests/doubles/kernel/fake_kav.c, the module's exact
 * table layout) behind libkav's ioctls (tests/doubles/kernel/fake_ioctl.c), so that
 * FI_HOOK=kav runs its real code over tcp or udp on the host: for the
 * native hook benchmark and for debugging. The fake grants every key and
 * allows keyless entries; it enforces nothing across processes (each has
 * its own fake kernel), so it is never a substitute for the VM tests.
 */
#include "fake_kav.h"

__attribute__((constructor)) static void fake_kernel_preload_init(void)
{
	fake_ioctl_install();
}
