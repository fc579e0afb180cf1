// SPDX-License-Identifier: GPL-2.0
/*
 * kav: kernel-assisted address vectors for libfabric.
 *
 * Module entry points. The device is world-accessible:
 * what a domain may do is decided by the identity it was opened with and
 * the grants administrators give (kav_policy.h). Layers, bottom up, each
 * calling only those below it: core (kav_core.h: the table), policy
 * (kav_policy.h: identities, grants, the authorisation rule), objects
 * (kav_objects.h: domain, AV and endpoint files) and administration
 * (kav_admin.h: registry, generic netlink, this file).
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include "kav_admin.h"

static struct miscdevice kav_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = KAV_DEVICE_NAME,
	.fops = &kav_dev_fops,
	.mode = 0666,
};

static int __init kav_init(void)
{
	int ret;

	/* Objects report to the registry and notifications from now on. */
	kav_objects_set_hooks(&kav_admin_hooks);
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
	kav_avs_unpin_all();
	kav_grants_exit();
}

module_init(kav_init);
module_exit(kav_exit);

MODULE_DESCRIPTION("Kernel-assisted address vectors for libfabric");
MODULE_AUTHOR("The kav developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KAV_VERSION);
