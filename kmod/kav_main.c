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
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/miscdevice.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include "kav_admin.h"

/*
 * A fixed misc minor, from the range devices.txt reserves for local use
 * (243-254), so that depmod can list /dev/kav in modules.devname: the node
 * exists from boot (kmod static-nodes) and its first open loads kav. A
 * node that has another local driver on the minor gets a dynamic one.
 */
#define KAV_MISC_MINOR		249

static struct miscdevice kav_miscdev = {
	.minor = KAV_MISC_MINOR,
	.name = KAV_DEVICE_NAME,
	.fops = &kav_dev_fops,
	.mode = 0666,
};

static int __init kav_init(void)
{
	int ret;

	kav_names_init();
	/* Objects report to the registry and notifications from now on. */
	kav_objects_set_hooks(&kav_admin_hooks);
	ret = kav_wire_init(kav_genl_wire_drop);
	if (ret)
		return ret;
	ret = kav_genl_init();
	if (ret)
		goto wire;
	ret = misc_register(&kav_miscdev);
	if (ret == -EBUSY) {
		pr_warn("misc minor %d is taken; /dev/kav gets a dynamic one (no autoload on open)\n",
			KAV_MISC_MINOR);
		kav_miscdev.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&kav_miscdev);
	}
	if (!ret)
		return 0;
	kav_genl_exit();
wire:
	kav_wire_exit();
	return ret;
}

static void __exit kav_exit(void)
{
	misc_deregister(&kav_miscdev);
	kav_genl_exit();	/* waits for commands: no pin comes later */
	kav_avs_unpin_all();
	kav_wire_exit();	/* its hooks read the grants */
	kav_grants_exit();
}

module_init(kav_init);
module_exit(kav_exit);

MODULE_DESCRIPTION("Kernel-assisted address vectors for libfabric");
MODULE_AUTHOR("The kav developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KAV_VERSION);
/* Loaded on demand: by kavctl's first request, and by the first open. */
MODULE_ALIAS_GENL_FAMILY(KAV_GENL_NAME);
MODULE_ALIAS_MISCDEV(KAV_MISC_MINOR);
MODULE_ALIAS("devname:" KAV_DEVICE_NAME);
