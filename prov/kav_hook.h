/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * ofi_hook_kav: a libfabric hooking provider (FI_HOOK=kav) that gives every
 * application kav's address vector, whatever core provider it runs on.
 *
 * libfabric hands the hook each fabric it opens (fi_fabric() ->
 * fi_provider.fabric() with attr->fabric = the core's fabric). The hook
 * wraps the fabric, and below it the domain, AVs, endpoints, CQs and EQs:
 *
 *   application --fi_addr (kav's)--> hook --fi_addr (core's)--> core
 *
 * - The application's AV is kav's (libkav over /dev/kav): inserts are
 *   authorised by the kernel first, lookups, straddr, named AVs, FI_READ
 *   and map_addr are kav's.
 * - A private AV of the core provider (always FI_AV_TABLE) carries the
 *   data path. Each kav entry is mirrored into it, at insert for the
 *   process's own inserts, on first use for entries someone else wrote
 *   (named AVs): struct kavh_slot.
 * - Every call that takes an fi_addr_t translates it (kavh_xlate(), no
 *   lock, no system call); source addresses translate back (kavh_src()):
 *   the translation is hook_av.h's, beside its slow paths in hook_av.c.
 *
 * Only libfabric's installed public headers are used (rdma/, and
 * rdma/providers/ for struct fi_provider, FI_EXT_INI, fi_param_*, fi_log).
 */
#ifndef KAV_HOOK_H
#define KAV_HOOK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <kav/kav.h>
#include <kav/kav_view.h>

#define KAVH_NAME	"ofi_hook_kav"

#define kavh_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define kavh_likely(x)		__builtin_expect(!!(x), 1)
#define kavh_unlikely(x)	__builtin_expect(!!(x), 0)

extern struct fi_provider kavh_prov;

#define kavh_warn(subsys, ...)	FI_WARN(&kavh_prov, subsys, __VA_ARGS__)

/* Why a kav call failed: libkav's words for it, else the code's. */
static inline const char *kavh_why(int err)
{
	const char *s = kav_last_error();

	return *s ? s : kav_strerror(err);
}
#define kavh_info(subsys, ...)	FI_INFO(&kavh_prov, subsys, __VA_ARGS__)

/* The provider's parameters (FI_OFI_HOOK_KAV_*), read once at init. */
struct kavh_params {
	bool have_vni;		/* FI_OFI_HOOK_KAV_VNI was set */
	uint32_t vni;
	bool require;		/* FI_OFI_HOOK_KAV_REQUIRE */
	bool stats;		/* FI_OFI_HOOK_KAV_STATS (default on) */
	bool share;		/* FI_OFI_HOOK_KAV_SHARE (default on) */
};
extern struct kavh_params kavh_params;
void kavh_read_params(void);

/*
 * A growable array that readers index with no lock: chunks never move,
 * and the directory of chunks is replaced (release) when it grows; old
 * directories are kept until the array is freed. Writers hold the
 * owner's lock.
 */
#define KAVH_CHUNK_SHIFT	10
#define KAVH_CHUNK		(1U << KAVH_CHUNK_SHIFT)

struct kavh_dir {
	struct kavh_dir *retired;	/* the directory this one replaced */
	size_t nr_chunks;
	void *chunk[];
};

struct kavh_vec {
	struct kavh_dir *dir;		/* atomic: readers load it (acquire) */
	size_t elem_size;
	uint8_t fill;			/* byte a new chunk is filled with */
};

void kavh_vec_init(struct kavh_vec *v, size_t elem_size, uint8_t fill);
void *kavh_vec_make(struct kavh_vec *v, uint64_t index);
void kavh_vec_free(struct kavh_vec *v);

/* Element @index, or NULL if its chunk was never made. */
static inline void *kavh_vec_get(const struct kavh_vec *v, uint64_t index)
{
	const struct kavh_dir *dir = __atomic_load_n(&v->dir,
						     __ATOMIC_ACQUIRE);
	uint64_t c = index >> KAVH_CHUNK_SHIFT;
	char *chunk;

	if (kavh_unlikely(!dir || c >= dir->nr_chunks))
		return NULL;
	chunk = __atomic_load_n(&dir->chunk[c], __ATOMIC_ACQUIRE);
	if (kavh_unlikely(!chunk))
		return NULL;
	return chunk + (index & (KAVH_CHUNK - 1)) * v->elem_size;
}

/*
 * Depth of the hook's own control calls into the core on this thread.
 * A layered provider (ofi_rxm, ofi_rxd) opens its core's domain, EQ and
 * passive endpoints through the same hook, from inside the application's
 * fi_domain(), fi_endpoint(), fi_enable() ...: those calls reach the hook
 * with kavh_nesting > 0 and get the core's objects unwrapped, so the
 * inner provider's own traffic pays nothing for the hook and its AVs
 * stay the core's. Data-path calls do not count (none opens objects
 * through a fabric).
 */
extern __thread unsigned int kavh_nesting;

#define KAVH_CORE_CALL(expr)						\
	({								\
		__typeof__(expr) _r;					\
		kavh_nesting++;						\
		_r = (expr);						\
		kavh_nesting--;						\
		_r;							\
	})

/* Counters for the stats line at close (relaxed atomics). */
struct kavh_stats {
	uint64_t inserted;		/* addresses kav accepted */
	uint64_t refused;		/* addresses kav refused */
	uint64_t mirrored;		/* entries copied into the core AV */
	uint64_t lazy;			/* ... of which on first use */
	uint64_t core_refused;		/* entries the core AV refused */
	uint64_t revalidated;		/* slot checks after a table change */
	uint64_t denied;		/* data-path calls refused */
};

static inline void kavh_count(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

struct kavh_fabric {
	struct fid_fabric fabric;
	struct fid_fabric *core;
	const struct fi_provider *core_prov;
};

struct kavh_domain {
	struct fid_domain domain;
	struct fid_domain *core;
	struct fid_domain *kav;		/* NULL: no kav, AVs are the core's */
	struct kavh_fabric *fab;
	uint32_t addr_format;
	size_t addr_stride;		/* bytes per element of insert arrays */
	/* The domain's key: the only one its data path sends under. */
	bool keyed;
	uint32_t vni;
	/*
	 * FI_SOURCE possible (the core's caps say so; most grant it unasked):
	 * completions may name their source, and a peer first heard from
	 * must then have a core fi_addr to translate back from. Entries are
	 * still mirrored on first use until the application reads a source
	 * (kavh_av_sources_read()), and at insert from then on.
	 */
	bool source;
};

/*
 * One kav entry's mirror in the core AV. @stamp is the table's
 * kavh_table_stamp() at which the entry was last seen to be @seq, valid
 * and under a usable key; KAVH_STALE when the slot must be checked again.
 * The writer (under kavh_av.lock) stores KAVH_STALE, then the fields,
 * then the stamp with release; readers load the stamp with acquire.
 */
struct kavh_slot {
	uint64_t stamp;
	uint64_t core;			/* fi_addr in the core AV, or NOTAVAIL */
	uint64_t seq;			/* the kav entry's seq when mirrored */
	uint64_t __pad;
};

#define KAVH_STALE	(~0ULL)

struct kavh_eq;

struct kavh_av {
	struct fid_av av;
	struct fid_av *kav;		/* the application's AV (NULL: none) */
	struct fid_av *core;		/* the data path's */
	struct kavh_domain *dom;
	const struct kav_table_header *hdr;
	struct kavh_vec slots;		/* kav index -> struct kavh_slot */
	struct kavh_vec kav_of;		/* core index -> kav fi_addr */
	struct kavh_eq *eq;		/* FI_EVENT: where completions go */
	uint64_t flags;			/* fi_av_attr.flags */
	/*
	 * Entries may carry user ids (FI_AV_USER_ID on the AV or an insert,
	 * or a named AV that others write): completions then read them.
	 */
	bool user_ids;			/* atomic */
	bool shared;			/* a job AV (kav_av_open_job()) */
	/* The application reads sources: mirror at insert (atomic). */
	bool eager;
	uint64_t nr_fi_addrs;		/* 1 + highest inserted, under lock */
	pthread_mutex_t lock;		/* writers of slots/kav_of, view */
	struct kav_view view;		/* used under lock only */
	char *name;			/* named AV (for the stats line) */
	struct kavh_stats stats;
};

/*
 * The source address of fi_cq_err_entry (FI_SOURCE_ERR and other receive
 * errors). libfabric 1.20 appended src_addr after err_data_size, and the
 * core writes it only for applications of API 1.20 or later. 1.17's
 * headers lack the member, so the hook finds it by offset: one build of
 * the hook serves 2.x applications too. hook_cq.c checks the offset
 * against 1.20+ headers.
 */
#define KAVH_CQ_ERR_SRC_OFFSET	(offsetof(struct fi_cq_err_entry,	\
					  err_data_size) + sizeof(size_t))
#define KAVH_CQ_ERR_SRC_API	FI_VERSION(1, 20)

/*
 * FI_TAGGED_DIRECTED_RECV and FI_EXACT_DIRECTED_RECV came with API 2.0;
 * before it their bits were other capabilities (bit 48 was
 * FI_VARIABLE_MSG), so they count only for applications of API >= 2.0.
 */
#define KAVH_DIRECTED_RECV_2X_API	FI_VERSION(2, 0)

/* Events the hook raises itself (AV completions), ahead of the core's. */
struct kavh_event {
	struct kavh_event *next;
	uint32_t event;
	bool err;
	union {
		struct fi_eq_entry entry;
		struct fi_eq_err_entry err_entry;
	} u;
};

struct kavh_eq {
	struct fid_eq eq;
	struct fid_eq *core;
	struct kavh_fabric *fab;
	pthread_mutex_t lock;
	struct kavh_event *head, **tail;
};

int kavh_eq_post(struct kavh_eq *eq, uint32_t event, bool err,
		 const void *entry, size_t len);

struct kavh_cq {
	struct fid_cq cq;
	struct fid_cq *core;
	struct kavh_av *av;		/* of the endpoints bound to it */
	uint32_t api_version;		/* the application's (fi_fabric()) */
};

struct kavh_ep {
	struct fid_ep ep;
	struct fid_ep *core;
	struct kavh_av *av;		/* NULL: nothing to translate */
	struct kavh_domain *dom;
	struct kavh_cq *cq[2];		/* transmit, receive */
	struct kavh_ep *srx;		/* its shared receive context */
	/*
	 * Directed receives: only then is a receive's source address an
	 * address; otherwise fi_endpoint(3) says it is ignored (fabtests
	 * passes 0), so it is passed on untranslated. FI_DIRECTED_RECV and
	 * FI_EXACT_DIRECTED_RECV direct every receive,
	 * FI_TAGGED_DIRECTED_RECV the tagged ones only.
	 */
	bool directed_msg;
	bool directed_tagged;
};

void kavh_ep_set_directed(struct kavh_ep *ep, uint64_t caps);

/* Passive endpoints: only their EQ binding needs the hook. */
struct kavh_pep {
	struct fid_pep pep;
	struct fid_pep *core;
};

/*
 * The fid map (hook_fid.c): the core object behind one of ours, or the
 * fid itself; the wrapper a fid is, or NULL when it is none of ours.
 */
int kavh_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
struct fid *kavh_core_fid(struct fid *fid);
struct kavh_av *kavh_av_of(struct fid *fid);
struct kavh_cq *kavh_cq_of(struct fid *fid);
struct kavh_ep *kavh_ep_of(struct fid *fid);
struct kavh_eq *kavh_eq_of(struct fid *fid);

/* Openers, one per file. */
int kavh_fabric_wrap(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		     void *context);
int kavh_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain, void *context);
int kavh_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **av, void *context);
int kavh_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cq, void *context);
int kavh_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eq, void *context);
int kavh_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep, void *context);
int kavh_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context);
int kavh_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		  struct fid_pep **pep, void *context);

/* The data-path ops tables (hook_data.c). */
extern struct fi_ops_msg kavh_msg_ops;
extern struct fi_ops_tagged kavh_tagged_ops;
extern struct fi_ops_rma kavh_rma_ops;
extern struct fi_ops_atomic kavh_atomic_ops;

/* Pass-through helpers shared by every wrapper (hook_fid.c). */
int kavh_fid_control(struct fid *core, int command, void *arg);
int kavh_fid_ops_open(struct fid *fid, const char *name, uint64_t flags,
		      void **ops, void *context);

#endif /* KAV_HOOK_H */
