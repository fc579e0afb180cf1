// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Job AVs (av_job.h): one process's private view of the job's node
 * table. The kernel keeps one entry per address for the whole job and
 * never removes it; this file keeps which of them the process holds:
 * the lock-free index search that spares a system call, the MAP bitmap
 * and TABLE positions, remove, lookup and the ops that read through them,
 * and kav_job_kind, through which the base AV reaches them. Its
 * fi_ops_av table and kav_av_open_job() are av_ops.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "av_job.h"

/* ------------------------------------------------------ chunked arrays */

static int kav_jvec_init(struct kav_jvec *v, uint64_t nr, uint32_t fill)
{
	v->nr_chunks = (size_t)((nr + KAV_JVEC_CHUNK - 1) >> KAV_JVEC_SHIFT);
	v->fill = fill;
	v->chunk = calloc(v->nr_chunks ? v->nr_chunks : 1, sizeof(*v->chunk));
	return v->chunk ? 0 : -FI_ENOMEM;
}

static void kav_jvec_free(struct kav_jvec *v)
{
	size_t c;

	if (!v->chunk)
		return;
	for (c = 0; c < v->nr_chunks; c++)
		free(v->chunk[c]);
	free(v->chunk);
	v->chunk = NULL;
}

/* Element @i (lock-free), or NULL when its chunk does not exist. */
static const uint32_t *kav_jvec_get(const struct kav_jvec *v, uint64_t i)
{
	uint64_t c = i >> KAV_JVEC_SHIFT;
	const uint32_t *chunk;

	if (c >= v->nr_chunks)
		return NULL;
	chunk = __atomic_load_n(&v->chunk[c], __ATOMIC_ACQUIRE);
	return chunk ? &chunk[i & (KAV_JVEC_CHUNK - 1)] : NULL;
}

/* Element @i, its chunk made if need be (writers, under the lock). */
static uint32_t *kav_jvec_make(struct kav_jvec *v, uint64_t i)
{
	uint64_t c = i >> KAV_JVEC_SHIFT;
	uint32_t *chunk;
	size_t k;

	if (c >= v->nr_chunks)
		return NULL;
	chunk = v->chunk[c];
	if (!chunk) {
		chunk = malloc(KAV_JVEC_CHUNK * sizeof(*chunk));
		if (!chunk)
			return NULL;
		for (k = 0; k < KAV_JVEC_CHUNK; k++)
			chunk[k] = v->fill;
		/* Filled before readers can see it. */
		__atomic_store_n(&v->chunk[c], chunk, __ATOMIC_RELEASE);
	}
	return &chunk[i & (KAV_JVEC_CHUNK - 1)];
}

/* --------------------------------------------------------- membership */

static bool kav_job_has_index(const struct kav_job *job, uint64_t index)
{
	const uint32_t *w = kav_jvec_get(&job->bits, index >> 5);

	return w && (__atomic_load_n(w, __ATOMIC_ACQUIRE) &
		     (1U << (index & 31)));
}

int kav_job_index(const struct kav_fid_av *av, fi_addr_t fi_addr,
		  uint64_t *index)
{
	const struct kav_job *job = av->job;
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;
	const uint32_t *p;
	uint32_t v;

	if (fi_addr == FI_ADDR_NOTAVAIL || (low & KAV_FI_ADDR_KEY) ||
	    low >= job->max)
		return -FI_EINVAL;
	if (!job->table) {
		if (!kav_job_has_index(job, low))
			return -FI_EINVAL;
		*index = low;
		return 0;
	}
	p = kav_jvec_get(&job->pos, low);
	if (!p)
		return -FI_EINVAL;
	v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	if (v == KAV_JOB_FREE)
		return -FI_EINVAL;
	*index = v;
	return 0;
}

uint64_t kav_job_addr_bound(const struct kav_fid_av *av)
{
	const struct kav_job *job = av->job;

	if (job->table)
		return __atomic_load_n(&job->nr_pos, __ATOMIC_ACQUIRE);
	return kav_table_nr_slots(&av->table);
}

/* TABLE: the lowest free position, or -FI_ENOSPC. Under the lock. */
static int kav_job_take_pos(struct kav_job *job, uint64_t *pos)
{
	const uint32_t *p;
	uint64_t i;

	if (job->nr_used == job->nr_pos) {
		/* No holes: append. */
		i = job->nr_pos;
	} else {
		for (i = job->first_free; i < job->nr_pos; i++) {
			p = kav_jvec_get(&job->pos, i);
			if (!p || *p == KAV_JOB_FREE)
				break;
		}
	}
	if (i >= job->max)
		return -FI_ENOSPC;
	*pos = i;
	return 0;
}

int kav_job_adopt(struct kav_fid_av *av, uint64_t index, fi_addr_t *fi_addr)
{
	struct kav_job *job = av->job;
	uint32_t *w;
	uint64_t pos;
	int ret = 0;

	if (index >= job->max || index > KAV_FI_ADDR_INDEX_MAX)
		return -FI_ENOSPC;
	pthread_mutex_lock(&job->lock);
	if (!job->table) {
		/* Inserting an address twice gives the same fi_addr. */
		w = kav_jvec_make(&job->bits, index >> 5);
		if (!w) {
			ret = -FI_ENOMEM;
			goto out;
		}
		__atomic_or_fetch(w, 1U << (index & 31), __ATOMIC_RELEASE);
		*fi_addr = index;
		goto out;
	}
	ret = kav_job_take_pos(job, &pos);
	if (ret)
		goto out;
	w = kav_jvec_make(&job->pos, pos);
	if (!w) {
		ret = -FI_ENOMEM;
		goto out;
	}
	__atomic_store_n(w, (uint32_t)index, __ATOMIC_RELEASE);
	job->nr_used++;
	job->first_free = pos + 1;
	if (pos >= job->nr_pos)
		__atomic_store_n(&job->nr_pos, pos + 1, __ATOMIC_RELEASE);
	*fi_addr = pos;
out:
	pthread_mutex_unlock(&job->lock);
	return ret;
}

void kav_job_count(struct kav_fid_av *av, uint64_t found, uint64_t sent)
{
	struct kav_av_job_stats *st = &av->job->stats;

	if (found)
		__atomic_add_fetch(&st->found, found, __ATOMIC_RELAXED);
	if (sent) {
		__atomic_add_fetch(&st->sent, sent, __ATOMIC_RELAXED);
		__atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
	}
}

/* ------------------------------------------------------- index search */

/* Does entry @index hold @slot's @len bytes under the domain key? */
static bool kav_job_match(const struct kav_fid_av *av, uint64_t index,
			  const uint8_t *slot, size_t len)
{
	uint8_t buf[KAV_ADDR_MAX_LEN];
	struct kav_entry_meta m;

	if (kav_table_read(&av->table, index, &m, buf, sizeof(buf), true))
		return false;
	return (m.flags & KAV_ENTRY_VALID) && m.addr_len == len &&
	       m.auth_key == av->job->key_slot && !memcmp(buf, slot, len);
}

int kav_job_find(struct kav_fid_av *av, const uint8_t *slot, uint64_t *index)
{
	const struct kav_job *job = av->job;
	struct kav_key_snap key;
	uint64_t steps, limit;
	uint32_t link;
	size_t len;

	/* A revoked key refuses inserts, found or not. */
	if (!kav_table_read_key_part(&av->table, job->key_slot, &key, false) &&
	    (key.flags & KAV_KEY_VALID) && (key.flags & KAV_KEY_REVOKED))
		return -FI_EKEYREJECTED;
	if (!job->buckets ||
	    kav_addr_check(av->addr_format, slot, av->slot_size, &len))
		return -FI_ENOENT;
	link = __atomic_load_n(&job->buckets[kav_index_hash(slot, (__u32)len,
							    job->key_slot,
							    job->seed) &
					     job->mask], __ATOMIC_ACQUIRE);
	/* A chain has at most nr_slots links: a cycle cannot hold us. */
	limit = kav_table_nr_slots(&av->table);
	for (steps = 0; link && steps < limit; steps++) {
		if (!kav_table_has(&av->table, link - 1))
			break;
		if (kav_job_match(av, link - 1, slot, len)) {
			*index = link - 1;
			return 0;
		}
		link = __atomic_load_n(&job->next[link - 1], __ATOMIC_ACQUIRE);
	}
	return -FI_ENOENT;
}

/* ------------------------------------------------------------ attach */

/* The slot holding the domain's key: 0 in a job table, else searched. */
static int kav_job_key_slot(const struct kav_fid_av *av, uint32_t *slot)
{
	struct kav_key_snap key;
	uint32_t s;

	for (s = 0; s < av->table.max_keys; s++) {
		if (kav_table_read_key_part(&av->table, s, &key, false) ||
		    !(key.flags & KAV_KEY_VALID) ||
		    key.vni != av->domain->key.vni)
			continue;
		*slot = s;
		return 0;
	}
	return -FI_EIO;
}

/* The header's index, checked against the mapping once. */
static void kav_job_attach_index(struct kav_fid_av *av, struct kav_job *job)
{
	const struct kav_table_header *h = kav_table_header(&av->table);
	uint32_t nb = h->index_buckets;
	uint64_t off = h->index_offset, next = h->index_next_offset;
	uint64_t size = av->table.map_size, max = av->table.max_entries;

	/* A hash this library does not know: the kernel decides alone. */
	if (nb && h->index_hash != KAV_INDEX_HASH_FNV1A) {
		kav_warn("job AV: the table's address index uses hash %u, "
			 "unknown to this libkav: every insert asks the kernel",
			 h->index_hash);
		return;
	}
	if (!nb || (nb & (nb - 1)) || (off & 3) || (next & 3) ||
	    off > size || (size - off) / 4 < nb ||
	    next > size || (size - next) / 4 < max) {
		if (nb)
			kav_warn("job AV: the table's address index is not "
				 "inside its mapping: every insert asks the "
				 "kernel");
		return;
	}
	job->mask = nb - 1;
	job->seed = h->index_seed;
	job->buckets = (const uint32_t *)(av->table.base + off);
	job->next = (const uint32_t *)(av->table.base + next);
}

static int kav_job_attach(struct kav_fid_av *av, const struct fi_av_attr *attr)
{
	struct kav_job *job;
	int ret;

	job = calloc(1, sizeof(*job));
	if (!job)
		return -FI_ENOMEM;
	job->table = attr->type != FI_AV_MAP;
	job->max = KAV_MIN(av->table.max_entries,
			   (uint64_t)KAV_FI_ADDR_INDEX_MAX + 1);
	ret = kav_job_key_slot(av, &job->key_slot);
	if (ret) {
		kav_fail_warn("job AV: the table holds no slot for the "
			      "domain's key (VNI %u)", av->domain->key.vni);
		free(job);
		return ret;
	}
	kav_job_attach_index(av, job);
	ret = kav_jvec_init(&job->bits, job->table ? 0 : (job->max + 31) / 32,
			    0);
	if (!ret)
		ret = kav_jvec_init(&job->pos, job->table ? job->max : 0,
				    KAV_JOB_FREE);
	if (ret) {
		kav_jvec_free(&job->bits);
		kav_jvec_free(&job->pos);
		free(job);
		return ret;
	}
	pthread_mutex_init(&job->lock, NULL);
	av->job = job;
	return 0;
}

static void kav_job_detach(struct kav_fid_av *av)
{
	struct kav_job *job = av->job;

	if (!job)
		return;
	kav_jvec_free(&job->bits);
	kav_jvec_free(&job->pos);
	pthread_mutex_destroy(&job->lock);
	free(job);
	av->job = NULL;
}

/* ---------------------------------------------------------------- ops */

static int kav_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every fi_addr the process's, none twice: else nothing is removed. */
static int kav_job_remove_check(struct kav_fid_av *av, const fi_addr_t *fi_addr,
				size_t count)
{
	uint64_t *low, index;
	size_t i;
	int ret = 0;

	low = malloc(count * sizeof(*low));
	if (!low)
		return -FI_ENOMEM;
	for (i = 0; i < count && !ret; i++) {
		low[i] = fi_addr[i] & KAV_FI_ADDR_LOW_MASK;
		if (kav_job_index(av, fi_addr[i], &index)) {
			kav_refuse("remove: fi_addr[%zu] = %#llx is not an "
				   "address this process holds", i,
				   (unsigned long long)fi_addr[i]);
			ret = -FI_EINVAL;
		}
	}
	if (!ret && count > 1) {
		qsort(low, count, sizeof(*low), kav_cmp_u64);
		for (i = 1; i < count; i++)
			if (low[i] == low[i - 1])
				ret = -FI_EINVAL;
		if (ret)
			kav_refuse("remove: an fi_addr is given twice");
	}
	free(low);
	return ret;
}

/* fi_av_remove(): the process's view only; the table keeps the entry. */
int kav_job_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
		   size_t count, uint64_t flags)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_job *job = av->job;
	uint64_t low;
	uint32_t *w;
	size_t i;
	int ret;

	kav_err_clear();
	if (flags) {
		/* FI_AUTH_KEY: a job AV has no keys of its own to remove. */
		kav_refuse("fi_av_remove: flags %#llx on a job AV: none is "
			   "supported", (unsigned long long)flags);
		return -FI_EINVAL;
	}
	if (!count)
		return 0;
	if (!fi_addr) {
		kav_refuse("fi_av_remove: fi_addr is NULL with count %zu",
			   count);
		return -FI_EINVAL;
	}
	pthread_mutex_lock(&job->lock);
	ret = kav_job_remove_check(av, fi_addr, count);
	for (i = 0; i < count && !ret; i++) {
		low = fi_addr[i] & KAV_FI_ADDR_LOW_MASK;
		if (!job->table) {
			w = kav_jvec_make(&job->bits, low >> 5);
			__atomic_and_fetch(w, ~(1U << (low & 31)),
					   __ATOMIC_RELEASE);
			continue;
		}
		w = kav_jvec_make(&job->pos, low);
		__atomic_store_n(w, KAV_JOB_FREE, __ATOMIC_RELEASE);
		job->nr_used--;
		if (low < job->first_free)
			job->first_free = low;
	}
	pthread_mutex_unlock(&job->lock);
	return ret;
}

int kav_job_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
		   void *addr, size_t *addrlen)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	uint64_t index;

	if (!addrlen || (!addr && *addrlen)) {
		kav_refuse("fi_av_lookup: addrlen is NULL, or addr NULL with "
			   "a length");
		return -FI_EINVAL;
	}
	if (kav_job_index(av, fi_addr, &index)) {
		kav_refuse("fi_av_lookup: fi_addr %#llx is not an address of "
			   "this process's AV", (unsigned long long)fi_addr);
		return -FI_EINVAL;
	}
	return kav_table_lookup(&av->table, index, addr, addrlen);
}

/* No per-entry keys or user ids: the table is shared (uapi kav.h). */
int kav_job_insert_auth_key(struct fid_av *av_fid, const void *key,
			    size_t key_size, fi_addr_t *fi_addr,
			    uint64_t flags)
{
	(void)av_fid;
	(void)key;
	(void)key_size;
	(void)fi_addr;
	(void)flags;
	kav_err_clear();
	kav_refuse("fi_av_insert_auth_key: a job AV holds the domain's key "
		   "only");
	return -FI_EOPNOTSUPP;
}

int kav_job_set_user_id(struct fid_av *av_fid, fi_addr_t fi_addr,
			fi_addr_t user_id, uint64_t flags)
{
	(void)av_fid;
	(void)fi_addr;
	(void)user_id;
	(void)flags;
	kav_err_clear();
	kav_refuse("fi_av_set_user_id: a job AV's entries are shared: no "
		   "user ids");
	return -FI_EOPNOTSUPP;
}

int kav_job_lookup_auth_key(struct fid_av *av_fid, fi_addr_t fi_addr,
			    void *auth_key, size_t *auth_key_size)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	uint64_t index;

	/* A key handle is the table's; an address is translated first. */
	if (fi_addr != FI_ADDR_NOTAVAIL && !(fi_addr & KAV_FI_ADDR_KEY)) {
		if (kav_job_index(av, fi_addr, &index)) {
			kav_err_clear();
			kav_refuse("fi_av_lookup_auth_key: fi_addr %#llx is "
				   "not an address of this process's AV",
				   (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
		fi_addr = index;
	}
	return kav_av_lookup_auth_key(av_fid, fi_addr, auth_key,
				      auth_key_size);
}

/* The base AV's way into this file (kav_priv.h). */
const struct kav_av_kind kav_job_kind = {
	.create_flags = KAV_AV_JOB,
	.attach = kav_job_attach,
	.detach = kav_job_detach,
	.index = kav_job_index,
};

/* ------------------------------------------------------------- public */

KAV_API int kav_av_job_stats(struct fid_av *av_fid,
			     struct kav_av_job_stats *stats)
{
	const struct kav_fid_av *av = kav_av_from_fid(av_fid);

	if (!av || av->kind != &kav_job_kind || !stats)
		return -FI_EINVAL;
	stats->found = __atomic_load_n(&av->job->stats.found,
				       __ATOMIC_RELAXED);
	stats->sent = __atomic_load_n(&av->job->stats.sent, __ATOMIC_RELAXED);
	stats->calls = __atomic_load_n(&av->job->stats.calls,
				       __ATOMIC_RELAXED);
	return 0;
}
