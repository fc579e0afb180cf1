// SPDX-License-Identifier: GPL-2.0
/*
 * Every live domain and AV, by id, for administrators (netlink listings
 * and commands). Objects leave the registry before they are freed; AVs are freed
 * after an RCU grace period so that a walk can take a reference safely.
 */
#include <linux/xarray.h>
#include "kav_admin.h"

static DEFINE_XARRAY_ALLOC1(kav_domains);
static DEFINE_XARRAY_ALLOC1(kav_avs);
/*
 * Ids are handed out cyclically, so that an administrator's command for
 * an id that just went away (kavctl av pin) does not reach a new object.
 */
static u32 kav_next_domain_id, kav_next_av_id;
/* Bumped by every add and removal: dumps flag NLM_F_DUMP_INTR. */
static atomic_t kav_registry_gen = ATOMIC_INIT(1);

static void kav_registry_changed(void)
{
	/* Never 0, which netlink reads as "not set". */
	if (atomic_inc_return(&kav_registry_gen) == 0)
		atomic_inc(&kav_registry_gen);
}

unsigned int kav_registry_generation(void)
{
	return atomic_read(&kav_registry_gen);
}

/*
 * xa_alloc_cyclic() returns 1 when it wrapped: still a success. It may
 * write *@id before it fails: 0 (not registered) is put back, so that
 * the object's teardown does not erase someone else's id.
 */
static int kav_registry_alloc(struct xarray *xa, u32 *id, void *obj, u32 *next)
{
	int ret = xa_alloc_cyclic(xa, id, obj, xa_limit_31b, next,
				  KAV_TENANT_GFP);

	if (ret < 0) {
		*id = 0;
		return ret;
	}
	kav_registry_changed();
	return 0;
}

int kav_registry_add_domain(struct kav_domain *d)
{
	return kav_registry_alloc(&kav_domains, &d->reg_id, d,
				  &kav_next_domain_id);
}

void kav_registry_del_domain(struct kav_domain *d)
{
	xa_erase(&kav_domains, d->reg_id);
	kav_registry_changed();
}

int kav_registry_add_av(struct kav_av *av)
{
	return kav_registry_alloc(&kav_avs, &av->reg_id, av, &kav_next_av_id);
}

void kav_registry_del_av(struct kav_av *av)
{
	xa_erase(&kav_avs, av->reg_id);
	kav_registry_changed();
}

/* A reference on AV @id, or NULL if there is none (any more). */
struct kav_av *kav_registry_get_av(u32 id)
{
	struct kav_av *av;

	rcu_read_lock();
	av = xa_load(&kav_avs, id);
	if (av && !kav_av_tryget(av))
		av = NULL;
	rcu_read_unlock();
	return av;
}

/*
 * Walk the AVs from id *@pos, taking a reference on each for @fn (which may
 * sleep). Stops when @fn returns non-zero; *@pos is where to resume.
 */
int kav_registry_walk_avs(int (*fn)(struct kav_av *, void *), void *arg, u32 *pos)
{
	unsigned long id = *pos;
	struct kav_av *av;
	bool got;
	int ret = 0;

	for (;;) {
		rcu_read_lock();
		av = xa_find(&kav_avs, &id, ULONG_MAX, XA_PRESENT);
		got = av && kav_av_tryget(av);
		rcu_read_unlock();
		if (!av)
			break;
		if (got) {	/* else it is being freed: skip it */
			ret = fn(av, arg);
			kav_av_put(av);
			if (ret)
				break;
		}
		*pos = ++id;
	}
	return ret;
}

/* The same for domains; @fn must not sleep (runs under the xa lock). */
int kav_registry_walk_domains(int (*fn)(struct kav_domain *, void *), void *arg,
			      u32 *pos)
{
	struct kav_domain *d;
	unsigned long id;
	int ret = 0;

	xa_lock(&kav_domains);
	xa_for_each_start(&kav_domains, id, d, *pos) {
		ret = fn(d, arg);
		if (ret)
			break;
		*pos = id + 1;
	}
	xa_unlock(&kav_domains);
	return ret;
}

u64 kav_registry_count_domains(void)
{
	struct kav_domain *d;
	unsigned long id;
	u64 n = 0;

	xa_for_each(&kav_domains, id, d)
		n++;
	return n;
}

static int kav_stats_av(struct kav_av *av, void *arg)
{
	struct kav_stats *st = arg;

	st->avs++;
	st->entries += READ_ONCE(av->table.nr_valid);
	st->bytes += kav_table_bytes(&av->table) + sizeof(*av);
	return 0;
}

/* Totals over every domain and AV, for administrators. */
void kav_stats_collect(struct kav_stats *st)
{
	u32 pos = 0;

	memset(st, 0, sizeof(*st));
	st->domains = kav_registry_count_domains();
	kav_registry_walk_avs(kav_stats_av, st, &pos);
}
