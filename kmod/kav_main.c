// SPDX-License-Identifier: GPL-2.0
/*
 * kav: kernel-assisted address vectors for libfabric.
 *
 * Module entry points and parameters. The device is world-accessible:
 * what a domain may do is decided by the identity it was opened with and
 * the grants administrators give (kav_grants.c, kav_genl.c).
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include "kav.h"

unsigned long kav_max_entries = 1UL << 24;
module_param_named(max_entries, kav_max_entries, ulong, 0644);
MODULE_PARM_DESC(max_entries,
		 "Entries an AV can ever hold (applies to AVs created later)");

bool kav_allow_keyless;
module_param_named(allow_keyless, kav_allow_keyless, bool, 0644);
MODULE_PARM_DESC(allow_keyless,
		 "Allow entries bound to no auth key (default: off)");

static struct miscdevice kav_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = KAV_DEVICE_NAME,
	.fops = &kav_domain_fops,
	.mode = 0666,
};

static int __init kav_init(void)
{
	int ret;

	ret = kav_genl_init();
	if (ret)
		return ret;
	ret = misc_register(&kav_miscdev);
	if (ret)
		kav_genl_exit();
	return ret;
}

static void __exit kav_exit(void)
{
	misc_deregister(&kav_miscdev);
	kav_genl_exit();	/* waits for commands: no pin comes later */
	kav_names_exit();
	kav_grants_exit();
}

module_init(kav_init);
module_exit(kav_exit);

MODULE_DESCRIPTION("Kernel-assisted address vectors for libfabric");
MODULE_AUTHOR("The kav developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KAV_VERSION);
