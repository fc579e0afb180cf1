// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The provider itself, which every wrapper logs through: its struct
 * fi_provider and the FI_OFI_HOOK_KAV_* parameters. A provider whose
 * getinfo is NULL is a hooking provider to libfabric. Its fabric entry,
 * which names every wrapper above it, is hook_fabric.c's: fi_prov_ini()
 * there fills it in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kav_hook.h"

struct kavh_params kavh_params;

static void kavh_cleanup(void)
{
}

struct fi_provider kavh_prov = {
	.name = KAVH_NAME,
	.version = FI_VERSION(0, 1),
	.fi_version = FI_VERSION(1, 17),
	.getinfo = NULL,		/* what makes it a hooking provider */
	/* .fabric: set by fi_prov_ini() (hook_fabric.c), the top */
	.cleanup = kavh_cleanup,
};

void kavh_read_params(void)
{
	char *vni = NULL;
	int on;

	fi_param_define(&kavh_prov, "vni", FI_PARAM_STRING,
			"The job's auth key (VNI) that every AV binds its addresses to, checked by kav.ko against the administrator's grants. Unset: the domain's auth_key if it is a struct kav_auth_key, else no key (kav then refuses inserts unless keyless mode is on).");
	fi_param_define(&kavh_prov, "require", FI_PARAM_BOOL,
			"Fail fi_domain() when kav cannot serve it (no /dev/kav, unsupported address format) instead of passing the provider through (default: 0).");
	fi_param_define(&kavh_prov, "share", FI_PARAM_BOOL,
			"Keep an unnamed AV in the job's node table, shared with the job's other processes on the node (kav_av_open_job(3)), when the domain has a key and the AV asks nothing a shared table cannot do (default: 1; 0 gives each process its own table).");
	fi_param_define(&kavh_prov, "stats", FI_PARAM_BOOL,
			"Log one stats line per AV at close, at FI_LOG_LEVEL=info or above; at warn when set to 1 (default: 0).");

	if (fi_param_get_str(&kavh_prov, "vni", &vni) == 0 && vni && *vni) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(vni, &end, 0);
		if (errno || *end || v > UINT32_MAX || vni[0] == '-')
			kavh_warn(FI_LOG_CORE,
				  "FI_OFI_HOOK_KAV_VNI=%s is not a 32-bit number: ignored\n",
				  vni);
		else {
			kavh_params.have_vni = true;
			kavh_params.vni = (uint32_t)v;
		}
	}
	if (fi_param_get_bool(&kavh_prov, "require", &on) == 0)
		kavh_params.require = on;
	kavh_params.share = true;
	if (fi_param_get_bool(&kavh_prov, "share", &on) == 0)
		kavh_params.share = on;
	if (fi_param_get_bool(&kavh_prov, "stats", &on) == 0)
		kavh_params.stats = on;
}

