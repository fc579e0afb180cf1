// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The top of the AV: its two fi_ops_av tables, a private AV's and a job
 * AV's, and the two opens that hand them out, fi_av_open() and
 * kav_av_open_job(). The one file that names every concern's entries
 * (av_insert.c, av_remove.c, av_lookup.c, av_auth.c, av_job.c, av_set.c),
 * so that none of them, nor the base AV (av.c), has to name another
 * above it.
 */
#include <stddef.h>

#include "kav_priv.h"
#include "kav_set_priv.h"
#include "av_job.h"

/*
 * kav's table (<kav/kav.h>) against the installed headers' struct
 * fi_ops_av, both ways: 1.17's members at the same offsets; with 1.17
 * headers the three 2.x members follow av_set; with 1.20+ headers they
 * sit where the headers put them, and with 1.20 to 2.1 (whose table ends
 * at set_user_id) the two tables are the same size.
 */
#define KAV_SAME_OFFSET(m) \
	_Static_assert(offsetof(struct kav_fi_ops_av, m) == \
		       offsetof(struct fi_ops_av, m), "fi_ops_av." #m)
KAV_SAME_OFFSET(size);
KAV_SAME_OFFSET(insert);
KAV_SAME_OFFSET(insertsvc);
KAV_SAME_OFFSET(insertsym);
KAV_SAME_OFFSET(remove);
KAV_SAME_OFFSET(lookup);
KAV_SAME_OFFSET(straddr);
KAV_SAME_OFFSET(av_set);
_Static_assert(sizeof(struct kav_fi_ops_av) ==
	       offsetof(struct kav_fi_ops_av, set_user_id) +
	       sizeof(void (*)(void)), "kav's table ends at set_user_id");
#if KAV_FI_HAVE_AV_AUTH_KEY
KAV_SAME_OFFSET(insert_auth_key);
KAV_SAME_OFFSET(lookup_auth_key);
KAV_SAME_OFFSET(set_user_id);
#if KAV_FI_HEADERS_VERSION <= FI_VERSION(2, 1)
_Static_assert(sizeof(struct kav_fi_ops_av) == sizeof(struct fi_ops_av),
	       "kav's table is the headers' whole fi_ops_av");
#else
/* Later tables grow (lookup2): FI_CHECK_OP finds them past kav's .size. */
_Static_assert(sizeof(struct kav_fi_ops_av) <= sizeof(struct fi_ops_av),
	       "kav's table is a prefix of the headers' fi_ops_av");
#endif
#else
_Static_assert(offsetof(struct kav_fi_ops_av, insert_auth_key) ==
	       sizeof(struct fi_ops_av), "2.x members follow av_set");
#endif

/* ---------------------------------------------------------------- tables */

static struct kav_fi_ops_av kav_av_ops = {
	.size = sizeof(struct kav_fi_ops_av),
	.insert = kav_av_insert,
	.insertsvc = kav_av_insertsvc,
	.insertsym = kav_av_insertsym,
	.remove = kav_av_remove,
	.lookup = kav_av_lookup,
	.straddr = kav_av_straddr,
	.av_set = kav_av_set_open,	/* av_set.c */
	.insert_auth_key = kav_av_insert_auth_key,
	.lookup_auth_key = kav_av_lookup_auth_key,
	.set_user_id = kav_av_set_user_id,
};

static struct kav_fi_ops_av kav_job_av_ops = {
	.size = sizeof(struct kav_fi_ops_av),
	.insert = kav_av_insert,	/* av_insert.c asks kav_job_find() */
	.insertsvc = kav_av_insertsvc,
	.insertsym = kav_av_insertsym,
	.remove = kav_job_remove,
	.lookup = kav_job_lookup,
	.straddr = kav_av_straddr,
	.av_set = kav_av_set_open,	/* members checked by kav_job_index() */
	.insert_auth_key = kav_job_insert_auth_key,
	.lookup_auth_key = kav_job_lookup_auth_key,
	.set_user_id = kav_job_set_user_id,
};

/* ------------------------------------------------------------------ open */

int kav_av_open(struct fid_domain *domain_fid, struct fi_av_attr *attr,
		struct fid_av **av_out, void *context)
{
	return kav_av_open_as(domain_fid, attr, av_out, context, &kav_av_ops,
			      NULL);
}

KAV_API int kav_av_open_job(struct fid_domain *domain, struct fi_av_attr *attr,
			    struct fid_av **av, void *context)
{
	const struct kav_fid_domain *d = (const struct kav_fid_domain *)domain;

	kav_err_clear();
	if (!domain || !kav_domain_is(&domain->fid) || !attr || !av) {
		kav_refuse("kav_av_open_job: a kav domain, attr and av are "
			   "needed");
		return -FI_EINVAL;
	}
	if (attr->name || (attr->flags & ~(FI_EVENT | FI_SYMMETRIC))) {
		kav_refuse("kav_av_open_job: a job AV has no name and takes "
			   "FI_EVENT and FI_SYMMETRIC only (flags %#llx)",
			   (unsigned long long)attr->flags);
		return -FI_EINVAL;
	}
	if (d->av_auth_key) {
		kav_refuse("kav_av_open_job: the domain asks FI_AV_AUTH_KEY; a "
			   "job AV holds the domain's key only");
		return -FI_EINVAL;
	}
	if (!d->has_key) {
		kav_refuse("kav_av_open_job: the domain has no auth key: a "
			   "job is a key's grant");
		return -FI_ENOKEY;
	}
	return kav_av_open_as(domain, attr, av, context, &kav_job_av_ops,
			      &kav_job_kind);
}
