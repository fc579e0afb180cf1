/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav administration: the registry of every domain and AV (for listings,
 * pins and revocation) and the generic netlink family administrators
 * speak (kavctl). The top layer: it calls into objects, policy and core,
 * and learns of objects through the hooks it registers with them.
 */
#ifndef KAV_ADMIN_H
#define KAV_ADMIN_H

#include "kav_objects.h"
#include "kav_wire.h"

/* kav_registry.c */
int kav_registry_add_domain(struct kav_domain *d);
void kav_registry_del_domain(struct kav_domain *d);
int kav_registry_add_av(struct kav_av *av);
void kav_registry_del_av(struct kav_av *av);
struct kav_av *kav_registry_get_av(u32 id);
int kav_registry_walk_avs(int (*fn)(struct kav_av *, void *), void *arg,
			  u32 *pos);
int kav_registry_walk_domains(int (*fn)(struct kav_domain *, void *),
			      void *arg, u32 *pos);
u64 kav_registry_count_domains(void);
unsigned int kav_registry_generation(void);

struct kav_stats {
	u64 domains;
	u64 avs;
	u64 entries;
	u64 bytes;
};

void kav_stats_collect(struct kav_stats *st);

/* kav_genl.c */
int kav_genl_init(void);
void kav_genl_exit(void);
extern const struct kav_object_hooks kav_admin_hooks;
void kav_genl_wire_drop(const struct kav_wire_event *ev);

#endif /* KAV_ADMIN_H */
