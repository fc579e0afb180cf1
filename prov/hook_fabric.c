// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The top of the hook: fi_prov_ini() and the fabric wrapper, whose ops
 * open every other wrapper (domain, passive endpoint, EQ). With
 * FI_HOOK=kav, every fi_fabric() calls kavh_fabric_wrap() with
 * attr->fabric set to the core's fabric and the core's struct
 * fi_provider as context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kav_hook.h"

static int kavh_fabric_close(struct fid *fid)
{
	struct kavh_fabric *fab = kavh_container_of(fid, struct kavh_fabric,
						    fabric.fid);
	int ret;

	ret = fi_close(&fab->core->fid);
	if (ret)
		return ret;
	free(fab);
	return 0;
}

static int kavh_fabric_control(struct fid *fid, int command, void *arg)
{
	struct kavh_fabric *fab = kavh_container_of(fid, struct kavh_fabric,
						    fabric.fid);

	return kavh_fid_control(&fab->core->fid, command, arg);
}

static struct fi_ops kavh_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kavh_fabric_close,
	.bind = kavh_no_bind,
	.control = kavh_fabric_control,
	.ops_open = kavh_fid_ops_open,
};

static int kavh_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			  struct fid_wait **waitset)
{
	struct kavh_fabric *fab = kavh_container_of(fabric, struct kavh_fabric,
						    fabric);

	/*
	 * Wait sets are deprecated in libfabric 2.x but still part of its
	 * API, so the hook still passes them through to the core; only this
	 * call is exempt from the deprecation warning.
	 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return fi_wait_open(fab->core, attr, waitset);
#pragma GCC diagnostic pop
}

/* The fids are ours (CQs, EQs): the core waits on its own objects. */
static int kavh_trywait(struct fid_fabric *fabric, struct fid **fids,
			int count)
{
	struct kavh_fabric *fab = kavh_container_of(fabric, struct kavh_fabric,
						    fabric);
	struct fid *core[64];
	int i;

	if (count < 0 || count > (int)(sizeof(core) / sizeof(core[0])))
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		core[i] = kavh_core_fid(fids[i]);
	return fi_trywait(fab->core, core, count);
}

static struct fi_ops_fabric kavh_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = kavh_domain_open,
	.passive_ep = kavh_pep_open,
	.eq_open = kavh_eq_open,
	.wait_open = kavh_wait_open,
	.trywait = kavh_trywait,
};

/* Is there a kav device to talk to? */
static bool kavh_device_present(void)
{
	const char *dev = getenv("KAV_DEVICE");

	if (!dev || !*dev)
		dev = "/dev/kav";
	return access(dev, F_OK) == 0;
}

int kavh_fabric_wrap(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		     void *context)
{
	const struct fi_provider *core_prov = context;
	struct kavh_fabric *fab;

	if (!attr || !attr->fabric || !fabric)
		return -FI_EINVAL;
	/*
	 * Pass-through: returning an error leaves the core's fabric
	 * unwrapped, so an application on a node without kav pays nothing.
	 * With FI_OFI_HOOK_KAV_REQUIRE=1 the fabric is wrapped anyway and
	 * fi_domain() fails, saying why.
	 */
	if (!kavh_device_present() && !kavh_params.require) {
		kavh_warn(FI_LOG_FABRIC,
			  "no kav device (%s): FI_HOOK=kav passes %s through; set FI_OFI_HOOK_KAV_REQUIRE=1 to fail instead\n",
			  getenv("KAV_DEVICE") ? getenv("KAV_DEVICE") :
			  "/dev/kav",
			  core_prov && core_prov->name ? core_prov->name :
			  "the provider");
		return -FI_ENODEV;
	}
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	fab->core = attr->fabric;
	fab->core_prov = core_prov;
	fab->fabric.fid.fclass = FI_CLASS_FABRIC;
	fab->fabric.fid.context = attr->fabric->fid.context;
	fab->fabric.fid.ops = &kavh_fabric_fi_ops;
	fab->fabric.ops = &kavh_fabric_ops;
	fab->fabric.api_version = attr->fabric->api_version;
	*fabric = &fab->fabric;
	kavh_info(FI_LOG_FABRIC, "hooked a fabric of %s\n",
		  core_prov && core_prov->name ? core_prov->name : "?");
	return 0;
}

FI_EXT_INI
{
	kavh_read_params();
	kavh_prov.fabric = kavh_fabric_wrap;
	return &kavh_prov;
}
