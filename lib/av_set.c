// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * AV sets (fi_av_set(3)): an ordered subset of the fi_addrs of one kav AV,
 * a genuine struct fid_av_set.
 *
 * Members are kept in an array in set order (the order is the rank
 * mapping of a collective: "newly inserted addresses are placed at the
 * end", intersect/diff/remove keep the order of what remains), plus an
 * open-addressing hash of the same fi_addrs for O(1) membership, so union,
 * intersect and diff are linear rather than quadratic. A set stores
 * fi_addrs, not addresses: removing an entry from the AV does not remove
 * it from sets that hold its fi_addr (as in libfabric's util AV sets).
 *
 * Each set has its own mutex; operations on two sets lock both in address
 * order. Behaviour decisions (the man page leaves them open):
 *  - fi_addrs are taken as every kav call takes them (<kav/kav.h>): the
 *    group / rx-context bits 32..63 are dropped, so members are table
 *    indices; FI_ADDR_NOTAVAIL and auth-key handles are -FI_EINVAL.
 *  - fi_av_set_insert() of a member: -FI_EINVAL (libfabric util does so);
 *    of an fi_addr that is not a valid entry of the AV: -FI_EINVAL.
 *  - fi_av_set_remove() of a non-member: -FI_EINVAL.
 *  - union/intersect/diff across two AVs, or with a set that is not a kav
 *    AV set: -FI_EINVAL. A set combined with itself: union and intersect
 *    change nothing, diff empties it.
 *  - Flags: FI_UNIVERSE (every valid entry, in index order; the range
 *    fields are then ignored) and the collective selections
 *    FI_BARRIER_SET .. FI_GATHER_SET, which are accepted and recorded:
 *    kav runs no collectives itself, and they only restrict what a
 *    collective provider importing the set must support. Anything else:
 *    -FI_EINVAL. (FI_PEER, bit 43, is FI_ALLREDUCE_SET here.)
 *  - Range: start and end both FI_ADDR_NOTAVAIL (empty set; stride must
 *    be 0 or 1) or both set with start <= end; stride 0 means 1; the
 *    number of range positions must not exceed a non-zero count; a comm
 *    key excludes a range (fi_av_set(3)). Entries of the range that are
 *    not valid (or beyond the table) are skipped. -FI_EINVAL otherwise.
 *  - comm_key is copied; comm_key_size without comm_key: -FI_EINVAL.
 *  - fi_av_set_addr(): kav performs no collectives; the "collective
 *    address" it returns is the set's own pointer cast to fi_addr_t
 *    ((fi_addr_t)(uintptr_t)set), valid while the set is open. A
 *    collective provider importing the set (fi_peer(3)) gets the members
 *    through the peer AV set instead.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"
#include "kav_set_priv.h"
#include "av_job.h"

/* Flags fi_av_set() accepts: FI_UNIVERSE and the collective selections. */
#define KAV_SET_OP_FLAGS (FI_BARRIER_SET | FI_BROADCAST_SET | FI_ALLTOALL_SET | \
			  FI_ALLREDUCE_SET | FI_ALLGATHER_SET |		     \
			  FI_REDUCE_SCATTER_SET | FI_REDUCE_SET |	     \
			  FI_SCATTER_SET | FI_GATHER_SET)
#define KAV_SET_FLAGS	(FI_UNIVERSE | KAV_SET_OP_FLAGS)
/* Initial member capacity is the count hint, clamped to these. */
#define KAV_SET_MIN_CAP	16
#define KAV_SET_MAX_HINT 65536

#define KAV_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Never a member: marks an empty hash slot. */
#define KAV_SET_EMPTY	FI_ADDR_NOTAVAIL

struct kav_av_set {
	struct fid_av_set set_fid;	/* first */
	struct kav_fid_av *av;
	pthread_mutex_t lock;
	fi_addr_t *members;		/* in set order */
	size_t count;
	size_t cap;
	fi_addr_t *hash;		/* KAV_SET_EMPTY or a member */
	size_t hash_cap;		/* power of two, >= 2 * cap */
	uint8_t *comm_key;
	size_t comm_key_size;
	uint64_t flags;
	unsigned int peer_refs;
};

_Static_assert(offsetof(struct kav_av_set, set_fid) == 0, "fid first");

static struct fi_ops kav_av_set_fi_ops;

static struct kav_av_set *kav_set_of(const struct fid_av_set *set)
{
	return (struct kav_av_set *)set;
}

bool kav_av_set_is(const struct fid *fid)
{
	return fid && fid->fclass == FI_CLASS_AV_SET &&
	       fid->ops == &kav_av_set_fi_ops;
}

struct kav_fid_av *kav_av_set_av(struct fid_av_set *set)
{
	if (!set || !kav_av_set_is(&set->fid))
		return NULL;
	return kav_set_of(set)->av;
}

/* ------------------------------------------------------ membership hash */

static size_t kav_hash_slot(fi_addr_t a, size_t hash_cap)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL;

	/* Multiplicative hashing, high bits folded into the low ones. */
	return (size_t)(h ^ (h >> 29)) & (hash_cap - 1);
}

static bool kav_set_has(const struct kav_av_set *s, fi_addr_t a)
{
	size_t i = kav_hash_slot(a, s->hash_cap);

	while (s->hash[i] != KAV_SET_EMPTY) {
		if (s->hash[i] == a)
			return true;
		i = (i + 1) & (s->hash_cap - 1);
	}
	return false;
}

static void kav_hash_add(fi_addr_t *hash, size_t hash_cap, fi_addr_t a)
{
	size_t i = kav_hash_slot(a, hash_cap);

	while (hash[i] != KAV_SET_EMPTY)
		i = (i + 1) & (hash_cap - 1);
	hash[i] = a;
}

static void kav_hash_fill(fi_addr_t *hash, size_t hash_cap,
			  const fi_addr_t *members, size_t count)
{
	size_t i;

	for (i = 0; i < hash_cap; i++)
		hash[i] = KAV_SET_EMPTY;
	for (i = 0; i < count; i++)
		kav_hash_add(hash, hash_cap, members[i]);
}

/* Rebuild the hash after members were dropped from the array. */
static void kav_set_rehash(struct kav_av_set *s)
{
	kav_hash_fill(s->hash, s->hash_cap, s->members, s->count);
}

/*
 * Make room for @n members in all (array and hash), or change nothing
 * and return -FI_ENOMEM.
 */
static int kav_set_reserve(struct kav_av_set *s, size_t n)
{
	size_t cap = s->cap ? s->cap : KAV_SET_MIN_CAP, hash_cap;
	fi_addr_t *members, *hash;

	if (n <= s->cap)
		return 0;
	while (cap < n) {
		if (cap > SIZE_MAX / 4 / sizeof(*hash))
			return -FI_ENOMEM;
		cap *= 2;
	}
	for (hash_cap = 1; hash_cap < 2 * cap; hash_cap *= 2)
		;
	members = malloc(cap * sizeof(*members));
	hash = malloc(hash_cap * sizeof(*hash));
	if (!members || !hash) {
		free(members);
		free(hash);
		return -FI_ENOMEM;
	}
	if (s->count)
		memcpy(members, s->members, s->count * sizeof(*members));
	kav_hash_fill(hash, hash_cap, members, s->count);
	free(s->members);
	free(s->hash);
	s->members = members;
	s->hash = hash;
	s->cap = cap;
	s->hash_cap = hash_cap;
	return 0;
}

/* Append a non-member; capacity must have been reserved. */
static void kav_set_append(struct kav_av_set *s, fi_addr_t a)
{
	s->members[s->count++] = a;
	kav_hash_add(s->hash, s->hash_cap, a);
}

/* Append a non-member, growing as needed. 0 or -FI_ENOMEM. */
static int kav_set_add(struct kav_av_set *s, fi_addr_t a)
{
	int ret;

	if (s->count == s->cap) {
		ret = kav_set_reserve(s, s->count + 1);
		if (ret)
			return ret;
	}
	kav_set_append(s, a);
	return 0;
}

/* Index @i is a valid address entry of the AV right now. */
static bool kav_set_valid_index(const struct kav_av_set *s, uint64_t i)
{
	struct kav_entry_meta meta;
	uint64_t index;

	/* A job AV's: an fi_addr of the process's own view. */
	if (s->av->job)
		return !kav_job_index(s->av, i, &index);
	return !kav_av_read_valid(s->av, i, &meta);
}

/* ------------------------------------------------------ two-set locking */

/* Check @src and lock both sets (once when they are the same set). */
static int kav_set_lock2(struct kav_av_set *dst, const struct fid_av_set *src_fid,
			 struct kav_av_set **src_out)
{
	struct kav_av_set *src;

	if (!src_fid || !kav_av_set_is(&src_fid->fid)) {
		kav_refuse("fi_av_set: the source is not a kav AV set");
		return -FI_EINVAL;
	}
	src = kav_set_of(src_fid);
	if (src->av != dst->av) {
		kav_refuse("fi_av_set: the two AV sets are of different AVs");
		return -FI_EINVAL;
	}
	if (src == dst) {
		pthread_mutex_lock(&dst->lock);
	} else if (src < dst) {
		pthread_mutex_lock(&src->lock);
		pthread_mutex_lock(&dst->lock);
	} else {
		pthread_mutex_lock(&dst->lock);
		pthread_mutex_lock(&src->lock);
	}
	*src_out = src;
	return 0;
}

static void kav_set_unlock2(struct kav_av_set *dst, struct kav_av_set *src)
{
	pthread_mutex_unlock(&dst->lock);
	if (src != dst)
		pthread_mutex_unlock(&src->lock);
}

/* ------------------------------------------------------- fi_ops_av_set */

static int kav_av_set_union(struct fid_av_set *dst_fid,
			    const struct fid_av_set *src_fid)
{
	struct kav_av_set *dst = kav_set_of(dst_fid), *src;
	size_t i;
	int ret;

	ret = kav_set_lock2(dst, src_fid, &src);
	if (ret)
		return ret;
	if (src == dst)
		goto out;
	/* Room for the worst case first: all or nothing. */
	if (src->count > SIZE_MAX - dst->count) {
		ret = -FI_ENOMEM;
		goto out;
	}
	ret = kav_set_reserve(dst, dst->count + src->count);
	if (ret)
		goto out;
	for (i = 0; i < src->count; i++)
		if (!kav_set_has(dst, src->members[i]))
			kav_set_append(dst, src->members[i]);
out:
	kav_set_unlock2(dst, src);
	return ret;
}

/* Keep the members of @dst whose membership in @src equals @keep_if_in. */
static int kav_av_set_filter(struct fid_av_set *dst_fid,
			     const struct fid_av_set *src_fid, bool keep_if_in)
{
	struct kav_av_set *dst = kav_set_of(dst_fid), *src;
	size_t i, n = 0;
	int ret;

	ret = kav_set_lock2(dst, src_fid, &src);
	if (ret)
		return ret;
	if (src == dst) {
		if (!keep_if_in)
			dst->count = 0;	/* diff with itself */
	} else {
		for (i = 0; i < dst->count; i++)
			if (kav_set_has(src, dst->members[i]) == keep_if_in)
				dst->members[n++] = dst->members[i];
		dst->count = n;
	}
	kav_set_rehash(dst);
	kav_set_unlock2(dst, src);
	return 0;
}

static int kav_av_set_intersect(struct fid_av_set *dst,
				const struct fid_av_set *src)
{
	return kav_av_set_filter(dst, src, true);
}

static int kav_av_set_diff(struct fid_av_set *dst,
			   const struct fid_av_set *src)
{
	return kav_av_set_filter(dst, src, false);
}

static int kav_av_set_insert(struct fid_av_set *set_fid, fi_addr_t addr)
{
	struct kav_av_set *s = kav_set_of(set_fid);
	uint64_t index;
	int ret;

	/* Group / rx bits dropped; auth-key handles are not addresses. */
	if (kav_fi_addr_index(addr, &index)) {
		kav_refuse("fi_av_set_insert: %#llx is not an address",
			   (unsigned long long)addr);
		return -FI_EINVAL;
	}
	pthread_mutex_lock(&s->lock);
	if (!kav_set_valid_index(s, index) || kav_set_has(s, index))
		ret = -FI_EINVAL;
	else
		ret = kav_set_add(s, index);
	pthread_mutex_unlock(&s->lock);
	if (ret == -FI_EINVAL)
		kav_refuse("fi_av_set_insert: %#llx is not an entry of the AV, "
			   "or already a member", (unsigned long long)addr);
	return ret;
}

static int kav_av_set_remove(struct fid_av_set *set_fid, fi_addr_t addr)
{
	struct kav_av_set *s = kav_set_of(set_fid);
	uint64_t index;
	size_t i;
	int ret = -FI_EINVAL;

	if (kav_fi_addr_index(addr, &index)) {
		kav_refuse("fi_av_set_remove: %#llx is not an address",
			   (unsigned long long)addr);
		return -FI_EINVAL;
	}
	pthread_mutex_lock(&s->lock);
	if (kav_set_has(s, index)) {
		for (i = 0; s->members[i] != index; i++)
			;
		memmove(&s->members[i], &s->members[i + 1],
			(s->count - i - 1) * sizeof(*s->members));
		s->count--;
		kav_set_rehash(s);
		ret = 0;
	}
	pthread_mutex_unlock(&s->lock);
	if (ret)
		kav_refuse("fi_av_set_remove: %#llx is not a member",
			   (unsigned long long)addr);
	return ret;
}

static int kav_av_set_addr(struct fid_av_set *set_fid, fi_addr_t *coll_addr)
{
	if (!coll_addr) {
		kav_refuse("fi_av_set_addr: coll_addr is NULL");
		return -FI_EINVAL;
	}
	*coll_addr = (fi_addr_t)(uintptr_t)set_fid;
	return 0;
}

/* --------------------------------------------------- peer.c accessors */

int kav_av_set_hold(struct fid_av_set *set_fid)
{
	struct kav_av_set *s = kav_set_of(set_fid);

	if (!set_fid || !kav_av_set_is(&set_fid->fid))
		return -FI_EINVAL;
	pthread_mutex_lock(&s->lock);
	s->peer_refs++;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

void kav_av_set_release(struct fid_av_set *set_fid)
{
	struct kav_av_set *s = kav_set_of(set_fid);

	if (!set_fid || !kav_av_set_is(&set_fid->fid))
		return;
	pthread_mutex_lock(&s->lock);
	if (s->peer_refs)
		s->peer_refs--;
	pthread_mutex_unlock(&s->lock);
}

int kav_av_set_members(struct fid_av_set *set_fid, fi_addr_t *addr,
		       size_t *count)
{
	struct kav_av_set *s = kav_set_of(set_fid);
	int ret = 0;

	if (!set_fid || !kav_av_set_is(&set_fid->fid) || !count)
		return -FI_EINVAL;
	pthread_mutex_lock(&s->lock);
	if (*count < s->count) {
		ret = -FI_ETOOSMALL;
	} else if (s->count && !addr) {
		ret = -FI_EINVAL;
	} else if (s->count) {
		memcpy(addr, s->members, s->count * sizeof(*addr));
	}
	if (ret != -FI_EINVAL)
		*count = s->count;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* --------------------------------------------------------- open / close */

static void kav_set_free(struct kav_av_set *s)
{
	pthread_mutex_destroy(&s->lock);
	free(s->members);
	free(s->hash);
	free(s->comm_key);
	free(s);
}

static int kav_av_set_close(struct fid *fid)
{
	struct kav_av_set *s = (struct kav_av_set *)fid;

	pthread_mutex_lock(&s->lock);
	if (s->peer_refs) {
		pthread_mutex_unlock(&s->lock);
		return -FI_EBUSY;
	}
	pthread_mutex_unlock(&s->lock);
	kav_av_child_put(s->av);
	kav_set_free(s);
	return 0;
}

static struct fi_ops kav_av_set_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_av_set_close,
	.bind = kav_no_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct fi_ops_av_set kav_av_set_ops = {
	.size = sizeof(struct fi_ops_av_set),
	.set_union = kav_av_set_union,
	.intersect = kav_av_set_intersect,
	.diff = kav_av_set_diff,
	.insert = kav_av_set_insert,
	.remove = kav_av_set_remove,
	.addr = kav_av_set_addr,
};

/* The initial members an attr asks for. */
struct kav_set_range {
	bool universe;
	bool empty;
	fi_addr_t start;
	fi_addr_t end;
	uint64_t stride;
};

static int kav_set_check_attr(const struct fi_av_set_attr *attr,
			      struct kav_set_range *r)
{
	bool has_start = attr->start_addr != FI_ADDR_NOTAVAIL;
	bool has_end = attr->end_addr != FI_ADDR_NOTAVAIL;
	uint64_t positions;

	memset(r, 0, sizeof(*r));
	/*
	 * FI_PEER is not refused: it is bit 43, the same as
	 * FI_ALLREDUCE_SET, so it is taken as that (kav only ever owns
	 * AV sets; it never imports a peer's).
	 */
	if (attr->flags & ~KAV_SET_FLAGS) {
		kav_refuse("fi_av_set: flags %#llx are not supported",
			   (unsigned long long)(attr->flags & ~KAV_SET_FLAGS));
		return -FI_EINVAL;
	}
	if (attr->comm_key_size && !attr->comm_key) {
		kav_refuse("fi_av_set: comm_key_size %zu without comm_key",
			   attr->comm_key_size);
		return -FI_EINVAL;
	}
	if (attr->flags & FI_UNIVERSE) {
		/* Every valid entry; the range fields are ignored. */
		r->universe = true;
		return 0;
	}
	if (has_start != has_end) {
		kav_refuse("fi_av_set: start_addr and end_addr must both be "
			   "FI_ADDR_NOTAVAIL or both addresses");
		return -FI_EINVAL;
	}
	if (!has_start) {
		if (attr->stride > 1) {
			kav_refuse("fi_av_set: stride %zu without a range",
				   attr->stride);
			return -FI_EINVAL;
		}
		r->empty = true;
		return 0;
	}
	/* A range: "must be FI_ADDR_NOTAVAIL if ... a comm key is given". */
	if (attr->comm_key_size || attr->start_addr > attr->end_addr) {
		kav_refuse("fi_av_set: a range needs no comm key and "
			   "start_addr <= end_addr");
		return -FI_EINVAL;
	}
	r->start = attr->start_addr;
	r->end = attr->end_addr;
	r->stride = attr->stride ? attr->stride : 1;
	positions = (r->end - r->start) / r->stride + 1;
	/* "must be less than or equal to the specified count value" */
	if (attr->count && positions > attr->count) {
		kav_refuse("fi_av_set: the range has %llu positions, more "
			   "than count %zu", (unsigned long long)positions,
			   attr->count);
		return -FI_EINVAL;
	}
	return 0;
}

/* Add the valid entries of @r, in index order. */
static int kav_set_fill(struct kav_av_set *s, const struct kav_set_range *r)
{
	uint64_t nr = s->av->job ? kav_job_addr_bound(s->av) :
				   kav_table_nr_slots(&s->av->table);
	uint64_t idx, last;
	uint64_t stride = r->universe ? 1 : r->stride;
	int ret;

	if (r->empty || !nr)
		return 0;
	idx = r->universe ? 0 : r->start;
	last = r->universe ? nr - 1 : KAV_MIN(r->end, nr - 1);
	while (idx <= last) {
		if (kav_set_valid_index(s, idx)) {
			ret = kav_set_add(s, idx);
			if (ret)
				return ret;
		}
		if (last - idx < stride)
			break;
		idx += stride;
	}
	return 0;
}

int kav_av_set_open(struct fid_av *av_fid, struct fi_av_set_attr *attr,
		    struct fid_av_set **set_out, void *context)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);
	struct kav_set_range range;
	struct kav_av_set *s;
	int ret;

	if (!av || !attr || !set_out) {
		kav_refuse("fi_av_set: av (a kav AV), attr and av_set must not "
			   "be NULL");
		return -FI_EINVAL;
	}
	ret = kav_set_check_attr(attr, &range);
	if (ret)
		return ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -FI_ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->av = av;
	s->flags = attr->flags;
	ret = kav_set_reserve(s, KAV_MIN(KAV_MAX((size_t)KAV_SET_MIN_CAP,
						 attr->count),
					 (size_t)KAV_SET_MAX_HINT));
	if (ret)
		goto err;
	if (attr->comm_key_size) {
		s->comm_key = malloc(attr->comm_key_size);
		if (!s->comm_key) {
			ret = -FI_ENOMEM;
			goto err;
		}
		memcpy(s->comm_key, attr->comm_key, attr->comm_key_size);
		s->comm_key_size = attr->comm_key_size;
	}
	ret = kav_set_fill(s, &range);
	if (ret)
		goto err;
	ret = kav_av_child_get(av);
	if (ret)
		goto err;

	s->set_fid.fid.fclass = FI_CLASS_AV_SET;
	s->set_fid.fid.context = context;
	s->set_fid.fid.ops = &kav_av_set_fi_ops;
	s->set_fid.ops = &kav_av_set_ops;
	*set_out = &s->set_fid;
	return 0;
err:
	kav_set_free(s);
	return ret;
}
