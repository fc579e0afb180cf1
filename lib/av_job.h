/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Job AVs (kav_av_open_job(3)): a private AV of this process whose
 * entries live in the job's node table (KAV_AV_JOB), shared with the
 * job's other processes on the node. The table is a set of addresses; the
 * process keeps its own view of which of them it inserted and did not
 * remove, so fi_av(3) holds for it as if its AV were private:
 *
 *  - FI_AV_MAP: fi_addr = the table index; a bitmap says which indices
 *    are the process's.
 *  - FI_AV_TABLE: fi_addr = a position, assigned at the lowest free one
 *    in insertion order; an array maps positions to table indices.
 *
 * Both are chunked arrays whose chunks never move, so readers (lookup,
 * resolve) need no lock; writers (insert, remove) take the job's mutex.
 * A forked child copies them with the rest of the heap.
 */
#ifndef KAV_AV_JOB_H
#define KAV_AV_JOB_H

#include <pthread.h>

#include "kav_priv.h"

/* Elements per chunk of a struct kav_jvec. */
#define KAV_JVEC_SHIFT	12
#define KAV_JVEC_CHUNK	(1U << KAV_JVEC_SHIFT)

/* A lock-free readable array of u32 (see above). */
struct kav_jvec {
	uint32_t **chunk;		/* directory; chunks published (release) */
	size_t nr_chunks;
	uint32_t fill;			/* value of elements never written */
};

/* A TABLE position that holds no address. */
#define KAV_JOB_FREE	UINT32_MAX

struct kav_job {
	bool table;			/* FI_AV_TABLE: positions */
	uint32_t key_slot;		/* the domain key's slot in the table */
	/* The table's address index (0 buckets: none, the kernel decides). */
	uint32_t mask;			/* index_buckets - 1 */
	uint64_t seed;			/* index_seed */
	const uint32_t *buckets;
	const uint32_t *next;
	uint64_t max;			/* fi_addrs the view can hold */
	struct kav_jvec bits;		/* MAP: bit per table index */
	struct kav_jvec pos;		/* TABLE: position -> table index */
	uint64_t nr_pos;		/* TABLE: positions ever used */
	uint64_t first_free;		/* TABLE: no free position below */
	uint64_t nr_used;		/* TABLE: positions in use */
	pthread_mutex_t lock;		/* writers of the view */
	struct kav_av_job_stats stats;	/* relaxed atomics */
};

/* The base AV's way into a job AV (struct kav_av_kind, kav_priv.h). */
extern const struct kav_av_kind kav_job_kind;

/*
 * Look staged address @slot up in the table's index, without a system
 * call: 0 and *@index when a valid entry under the domain key holds it,
 * -FI_ENOENT when none was found (insert it: the kernel decides),
 * -FI_EKEYREJECTED when the domain key was revoked.
 */
int kav_job_find(struct kav_fid_av *av, const uint8_t *slot, uint64_t *index);
/*
 * Make table index @index the process's: *@fi_addr is the fi_addr it
 * gets. Under the job's lock. 0, -FI_ENOSPC (no free position) or
 * -FI_ENOMEM.
 */
int kav_job_adopt(struct kav_fid_av *av, uint64_t index, fi_addr_t *fi_addr);
/* The table index of the process's @fi_addr: 0 or -FI_EINVAL. */
int kav_job_index(const struct kav_fid_av *av, fi_addr_t fi_addr,
		  uint64_t *index);
/* fi_addrs of the view are below this (AV sets' universe). */
uint64_t kav_job_addr_bound(const struct kav_fid_av *av);
/* Count @n addresses found, or sent in one system call. */
void kav_job_count(struct kav_fid_av *av, uint64_t found, uint64_t sent);

/*
 * The fi_ops_av entries a job AV has of its own (av_ops.c's job table;
 * insert, straddr and av_set are the private AV's).
 */
/* fi_av_remove(): the process's view only; the table keeps the entry. */
int kav_job_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
		   uint64_t flags);
/* fi_av_lookup() of the process's fi_addr (translated to the index). */
int kav_job_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
		   size_t *addrlen);
/* Refused: a job AV holds the domain's key only. */
int kav_job_insert_auth_key(struct fid_av *av, const void *key,
			    size_t key_size, fi_addr_t *fi_addr,
			    uint64_t flags);
/* An address is translated first; a key handle is the table's. */
int kav_job_lookup_auth_key(struct fid_av *av, fi_addr_t fi_addr,
			    void *auth_key, size_t *auth_key_size);
/* Refused: the table's entries are shared, so they carry no user ids. */
int kav_job_set_user_id(struct fid_av *av, fi_addr_t fi_addr,
			fi_addr_t user_id, uint64_t flags);

#endif /* KAV_AV_JOB_H */
