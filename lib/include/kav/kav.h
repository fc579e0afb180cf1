/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * <kav/kav.h> - libkav, libfabric address vectors kept by the kav kernel
 * module.
 *
 * libkav is an address-vector provider, not a fabric provider: there is no
 * fi_getinfo()/fi_fabric() step. An application (or a fabric provider that
 * wants kernel-enforced AVs) fills a struct fi_info with the address format
 * it uses and calls kav_domain_open(). The returned object is a genuine
 * struct fid_domain, so libfabric's own inline calls work on it:
 *
 *	struct fi_info *info = fi_allocinfo();     (or a zeroed struct fi_info)
 *	info->addr_format = FI_SOCKADDR_IN;
 *	struct fid_domain *dom;
 *	int ret = kav_domain_open(info, &dom, NULL);
 *	if (ret)
 *		fprintf(stderr, "%s\n", kav_strerror(ret));
 *	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 1024 };
 *	struct fid_av *av;
 *	ret = fi_av_open(dom, &attr, &av, NULL);
 *	... fi_av_insert(av, ...), fi_av_lookup(av, ...) ...
 *	fi_close(&av->fid);
 *	fi_close(&dom->fid);
 *
 * libkav needs only libfabric's headers, never libfabric.so: every fi_*
 * call used above is an inline that dispatches into libkav's ops tables.
 * Call kav_strerror(), not fi_strerror(), to explain an error from a kav
 * object: it knows kav's reasons (module not loaded, no grant, ...).
 *
 * Objects are thread-safe: lookups read a read-only shared mapping without
 * locks or system calls; mutations are serialised by the kernel.
 */
#ifndef KAV_KAV_H
#define KAV_KAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <linux/kav.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Which libfabric headers this is built against: a probe on the headers'
 * own version, not on the library found at run time. The auth-key AV API
 * (fi_av_insert_auth_key, fi_av_lookup_auth_key, fi_av_set_user_id, the
 * three fi_ops_av members behind them, FI_AUTH_KEY, FI_AV_AUTH_KEY) came
 * with libfabric 1.20 and is the 2.x target's; Debian bookworm's 1.17
 * lacks it, trixie's 2.1 has it. KAV_FI_HAVE_AV_AUTH_KEY is 1 when the
 * installed headers define it all, so kav defines none of it and a
 * program reaches libkav through libfabric's own inlines.
 */
#define KAV_FI_HEADERS_VERSION	FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION)
#if KAV_FI_HEADERS_VERSION >= FI_VERSION(1, 20)
#define KAV_FI_HAVE_AV_AUTH_KEY	1
#else
#define KAV_FI_HAVE_AV_AUTH_KEY	0
#endif

/*
 * libfabric 2.x pieces that Debian's 1.17 headers lack, with libfabric's
 * own names, values and ops-table layout, defined only when the installed
 * headers do not have them. Where the values come from (ofiwg/libfabric
 * and forks tracking it, as stored by the code index used for this work,
 * and checked against trixie's 2.1 headers):
 *
 *   FI_AUTH_KEY     (1ULL << 57): include/rdma/fabric.h, "Tagged
 *	messages, buffered receives, CQ flags" block, next to FI_CLAIM (59)
 *	and FI_DISCARD (58) (HewlettPackard/shs-libfabric, a 1.20+ tree).
 *	An operation flag: it shares bit 57 with FI_SOURCE, FI_UNIVERSE and
 *	FI_ASYNC_IOV, which are never valid on the same calls.
 *   FI_AV_AUTH_KEY  SIZE_MAX: same file, next to FI_SHARED_CONTEXT; it is
 *	a value of fi_domain_attr.auth_key_size, not a flag.
 *   FI_TAGGED_DIRECTED_RECV (1ULL << 45), FI_EXACT_DIRECTED_RECV
 *	(1ULL << 48): capabilities, same file; receive-side variants of
 *	FI_DIRECTED_RECV (tagged receives only; no FI_ADDR_UNSPEC).
 *   struct fi_ops_av: 2.x appends, after av_set and in this order,
 *	insert_auth_key, lookup_auth_key, set_user_id (include/rdma/
 *	fi_domain.h; newer development trees append lookup2 after them,
 *	which kav does not provide). libfabric 2.x's fi_av_* inlines check
 *	a member with FI_CHECK_OP (ops->size past the member's offset and
 *	the pointer non-NULL); kav's own (below, 1.17 headers) want the
 *	whole member inside ops->size. Both return -FI_ENOSYS otherwise.
 *   fi_group_addr(a, g) = ((uint64_t)g << 32) | a: include/rdma/
 *	fi_domain.h and the exported src/ definition (symbol version
 *	FABRIC_1.10 in the libfabric.so of 2.x): the group id is the upper
 *	32 bits of an fi_addr_t.
 *
 * lib/av.c checks the layout both ways at build time: kav's table is
 * 1.17's plus the three members, and with 1.20+ headers it is the
 * headers' own table member for member.
 */
#ifndef FI_AUTH_KEY
#define FI_AUTH_KEY		(1ULL << 57)
#endif
#ifndef FI_TAGGED_DIRECTED_RECV
#define FI_TAGGED_DIRECTED_RECV	(1ULL << 45)
#endif
#ifndef FI_EXACT_DIRECTED_RECV
#define FI_EXACT_DIRECTED_RECV	(1ULL << 48)
#endif

/*
 * The 2.x fi_ops_av layout. libkav's AVs carry an ops table of this type
 * (av->ops points at its first part, with .size = sizeof(struct
 * kav_fi_ops_av)), so both kav's wrappers and libfabric 2.x's own inlines
 * find the three extra members.
 */
struct kav_fi_ops_av {
	size_t	size;
	int	(*insert)(struct fid_av *av, const void *addr, size_t count,
			fi_addr_t *fi_addr, uint64_t flags, void *context);
	int	(*insertsvc)(struct fid_av *av, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context);
	int	(*insertsym)(struct fid_av *av, const char *node,
			size_t nodecnt, const char *service, size_t svccnt,
			fi_addr_t *fi_addr, uint64_t flags, void *context);
	int	(*remove)(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
			uint64_t flags);
	int	(*lookup)(struct fid_av *av, fi_addr_t fi_addr, void *addr,
			size_t *addrlen);
	const char * (*straddr)(struct fid_av *av, const void *addr,
			char *buf, size_t *len);
	int	(*av_set)(struct fid_av *av, struct fi_av_set_attr *attr,
			struct fid_av_set **av_set, void *context);
	int	(*insert_auth_key)(struct fid_av *av, const void *auth_key,
			size_t auth_key_size, fi_addr_t *fi_addr,
			uint64_t flags);
	int	(*lookup_auth_key)(struct fid_av *av, fi_addr_t fi_addr,
			void *auth_key, size_t *auth_key_size);
	int	(*set_user_id)(struct fid_av *av, fi_addr_t fi_addr,
			fi_addr_t user_id, uint64_t flags);
};

/* kav's check: the whole member is inside .size, and it is set. */
#define KAV_FI_AV_HAS_OP(av, op)					\
	((av)->ops &&							\
	 (av)->ops->size >= offsetof(struct kav_fi_ops_av, op) +	\
			    sizeof(((struct kav_fi_ops_av *)0)->op) &&	\
	 ((struct kav_fi_ops_av *)(av)->ops)->op)

#if !KAV_FI_HAVE_AV_AUTH_KEY
#ifndef FI_AV_AUTH_KEY
#define FI_AV_AUTH_KEY		SIZE_MAX
#endif

static inline int
fi_av_insert_auth_key(struct fid_av *av, const void *auth_key,
		      size_t auth_key_size, fi_addr_t *fi_addr, uint64_t flags)
{
	return KAV_FI_AV_HAS_OP(av, insert_auth_key) ?
		((struct kav_fi_ops_av *)av->ops)->insert_auth_key(av,
			auth_key, auth_key_size, fi_addr, flags) : -FI_ENOSYS;
}

static inline int
fi_av_lookup_auth_key(struct fid_av *av, fi_addr_t addr, void *auth_key,
		      size_t *auth_key_size)
{
	return KAV_FI_AV_HAS_OP(av, lookup_auth_key) ?
		((struct kav_fi_ops_av *)av->ops)->lookup_auth_key(av, addr,
			auth_key, auth_key_size) : -FI_ENOSYS;
}

static inline int
fi_av_set_user_id(struct fid_av *av, fi_addr_t fi_addr, fi_addr_t user_id,
		  uint64_t flags)
{
	return KAV_FI_AV_HAS_OP(av, set_user_id) ?
		((struct kav_fi_ops_av *)av->ops)->set_user_id(av, fi_addr,
			user_id, flags) : -FI_ENOSYS;
}
#endif /* !KAV_FI_HAVE_AV_AUTH_KEY */

#if KAV_FI_HEADERS_VERSION < FI_VERSION(2, 0)
static inline fi_addr_t fi_group_addr(fi_addr_t fi_addr, uint32_t group_id)
{
	return (fi_addr_t)(((uint64_t)group_id << 32) | fi_addr);
}
#endif

/*
 * kav's fi_addr_t encoding
 *
 *   63            32 31  30                     0
 *  +----------------+---+------------------------+
 *  | group id / rx  | K |  table index or key    |
 *  +----------------+---+------------------------+
 *
 * - Bits 32..63 belong to the caller: fi_group_addr() puts a peer-group id
 *   there and fi_rx_addr() a receive-context index in the top rx_ctx_bits
 *   (at most KAV_RX_CTX_BITS_MAX = 32). Every kav call that takes an
 *   fi_addr_t ignores them, so a call given fi_group_addr(a, g) or
 *   fi_rx_addr(a, i, bits) acts on a. kav never sets them in an fi_addr_t
 *   it returns.
 * - K (KAV_FI_ADDR_KEY, bit 31) marks an auth-key handle, as returned by
 *   fi_av_insert_auth_key(): KAV_FI_ADDR_KEY | slot. Address entries are
 *   table indices below KAV_FI_ADDR_KEY, so the two never collide and
 *   fi_av_lookup_auth_key() accepts either.
 * - FI_ADDR_NOTAVAIL (all ones) is never valid input.
 */
#define KAV_FI_ADDR_GROUP_SHIFT	32
#define KAV_FI_ADDR_LOW_MASK	((1ULL << KAV_FI_ADDR_GROUP_SHIFT) - 1)
#define KAV_FI_ADDR_KEY		(1ULL << 31)
/* Largest table index an fi_addr_t can carry (entries beyond are refused). */
#define KAV_FI_ADDR_INDEX_MAX	(KAV_FI_ADDR_KEY - 1)
/* Largest fi_av_attr.rx_ctx_bits: the rx index stays in bits 32..63. */
#define KAV_RX_CTX_BITS_MAX	32

/**
 * kav_domain_open() - open a kav domain (one open of /dev/kav)
 * @info: required; info->addr_format selects the address format of every
 *	AV opened on the domain: FI_SOCKADDR (struct sockaddr_in or
 *	sockaddr_in6, by family; insert arrays use 28-byte slots),
 *	FI_SOCKADDR_IN, FI_SOCKADDR_IN6 or FI_ADDR_STR (insert takes an array
 *	of char *). FI_FORMAT_UNSPEC means FI_SOCKADDR.
 * @domain: out: the domain; release it with fi_close(&(*domain)->fid)
 *	after closing its AVs (closing it earlier fails with -FI_EBUSY)
 * @context: stored in (*domain)->fid.context
 *
 * info->domain_attr may be NULL. Its auth keys, in one of three modes:
 *  - none (auth_key NULL, auth_key_size 0): entries have no key, which
 *    the kernel accepts only when the administrator enabled keyless mode
 *    (kav module parameter allow_keyless; off by default: inserts then
 *    fail with -FI_EACCES);
 *  - one domain-wide key: auth_key points to a struct kav_auth_key and
 *    auth_key_size is sizeof(struct kav_auth_key) (8). The kernel checks
 *    it against the grants of the caller's identity (KAV_IOC_DOMAIN_SET_KEY):
 *    without a grant the open fails with -FI_EACCES. Every AV the
 *    domain creates then holds the key in slot 0, and every entry the
 *    domain inserts is bound to the slot holding its key (the kernel
 *    binds an insert to the writer's key, never the AV creator's). A
 *    named AV that already exists and is opened to write gets the key
 *    added by fi_av_open() (another slot; an error there fails the
 *    open). fi_av_insert_auth_key() and FI_AUTH_KEY are -FI_EINVAL;
 *  - per AV: auth_key_size FI_AV_AUTH_KEY (auth_key must then be NULL,
 *    else -FI_EINVAL): keys are inserted per AV with
 *    fi_av_insert_auth_key(), each checked against the caller's grants
 *    (-FI_EACCES), and named per address with FI_AUTH_KEY.
 * Any other auth_key_size, a key without a size or a size without a key,
 * or a non-zero __reserved, is -FI_EINVAL.
 *
 * The device is $KAV_DEVICE if set, else /dev/kav. The kernel snapshots
 * the caller's identity (credentials, cgroup, network namespace) at this
 * call; every later mutation is authorised against it.
 *
 * Revocation: when the administrator revokes the grant behind a key, the
 * key's slot is marked revoked at once. Inserts under it then fail with
 * -FI_EKEYREJECTED (libfabric has no FI_EKEYREVOKED), kernel consumers
 * stop resolving its entries, kav_av_resolve() and fi_av_lookup_auth_key()
 * report it (-FI_EKEYREJECTED, see there); fi_av_lookup() still reads the
 * address and fi_av_remove() still removes it.
 *
 * Only av_open is implemented among the domain operations; the others
 * (cq_open, endpoint, mr_reg, ...) return -FI_ENOSYS.
 *
 * Return: 0, or a negative fabric errno: -FI_EINVAL (bad argument, address
 * format or auth key), -FI_ENODEV (kav module not loaded), -FI_EACCES (no
 * permission to open the device, or no grant for the domain's auth key),
 * -FI_ENOSYS (a domain auth key, and a kav module without domain keys),
 * -FI_ENOMEM, or another -errno from open(2). kav_strerror() explains
 * each.
 */
int kav_domain_open(const struct fi_info *info, struct fid_domain **domain,
		    void *context);

/*
 * fi_av on kav, where fi_av(3) leaves the choice to the provider
 *
 * fi_av_open(): type FI_AV_UNSPEC (becomes FI_AV_TABLE), FI_AV_TABLE or
 *   FI_AV_MAP (behaves as FI_AV_TABLE); rx_ctx_bits 0..KAV_RX_CTX_BITS_MAX;
 *   count and ep_per_node are hints; flags FI_EVENT, FI_READ, FI_SYMMETRIC
 *   (a hint), FI_AV_USER_ID. Anything else: -FI_EINVAL, as is FI_READ
 *   without a name. A name opens or creates a named AV among the
 *   caller's own (kav_av(3), Documentation/design.rst "Named AVs");
 *   $KAV_AV_OWNER=<uid> of another user opens that user's instead
 *   (never creates; -FI_ENOENT when absent; a value that is not a
 *   decimal uid: -FI_EINVAL). map_addr is ignored without a name.
 * fi_av_bind(): flags must be 0 and the EQ one from kav_eq_open(), else
 *   -FI_EINVAL; one EQ per AV for its lifetime (a second bind: -FI_EINVAL).
 *   An AV opened without FI_EVENT may be bound too; it posts no events.
 * Inserts (insert, insertsvc, insertsym): flags FI_MORE (a hint),
 *   FI_SYNC_ERR (synchronous AVs only), FI_AV_USER_ID (not on an AV opened
 *   with FI_AV_USER_ID nor on an FI_AV_AUTH_KEY domain; fi_addr holds the
 *   user ids), FI_AUTH_KEY (FI_AV_AUTH_KEY domains only; fi_addr holds one
 *   key handle per address). Anything else: -FI_EINVAL. With FI_EVENT, an
 *   insert before fi_av_bind() is -FI_ENOEQ; otherwise it returns 0 and
 *   posts one error event per failed address, then one FI_AV_COMPLETE.
 *   Each kernel batch (KAV_BATCH_MAX addresses) is atomic; an address the
 *   library or kernel rejects fails alone.
 * fi_av_insertsym() on an FI_ADDR_STR AV: the range is the same as on an
 *   IP AV (nodes resolved as for FI_SOCKADDR, IPv4 or IPv6) and each
 *   address is stored as the string fi_av_straddr() gives for it:
 *   "fi_sockaddr_in://10.1.1.1:5000", "fi_sockaddr_in6://[fd00::1]:5000".
 *   An IPv6 scope id is kept: "fi_sockaddr_in6://[fe80::1%2]:5000".
 * fi_av_remove(): flags 0 (addresses) or FI_AUTH_KEY (key handles). A
 *   removal of addresses is atomic up to KAV_BATCH_MAX and checked as a
 *   whole beyond. Key handles are all checked first (present, no repeat,
 *   no entry and no enabled endpoint using them: -FI_EBUSY), then removed
 *   one by one; a racing insert or enable can still make a later one fail
 *   after earlier ones went.
 * fi_av_insert_auth_key(): FI_AV_AUTH_KEY domains only; the key is a
 *   struct kav_auth_key (size must be 8); flags 0. A key already in the AV:
 *   -FI_EALREADY with *fi_addr set to its handle. KAV_MAX_AUTH_KEYS per AV:
 *   -FI_ENOSPC beyond.
 * fi_av_lookup_auth_key(): a key handle or an address; an address without
 *   a key is -FI_ENOKEY; truncates like fi_av_lookup(). A revoked key is
 *   copied out all the same and the call returns -FI_EKEYREJECTED.
 * Grants: fi_av_insert_auth_key() of a key the domain's opener has no
 *   grant for is -FI_EACCES; an insert naming (FI_AUTH_KEY) or implicitly
 *   using (domain key) a revoked key fails that address with
 *   -FI_EKEYREJECTED; keyless inserts while the module's allow_keyless is
 *   off fail with -FI_EACCES.
 * fi_av_set_user_id(): AVs opened with FI_AV_USER_ID only (-FI_EINVAL);
 *   flags 0 (an address) or FI_AUTH_KEY (a key handle). FI_ADDR_NOTAVAIL
 *   clears a user id; every user id starts as FI_ADDR_NOTAVAIL.
 * fi_close(): -FI_EBUSY while kav_eps, AV sets or peer AVs of the AV are
 *   open.
 */

/**
 * kav_av_fd() - the kernel file descriptor behind a kav AV
 * @av: an AV opened with fi_av_open() on a kav domain
 *
 * The descriptor is what another process needs to read the same table:
 * pass it over a UNIX socket (SCM_RIGHTS) and the receiver can mmap() it
 * read-only (see uapi/linux/kav.h). Passing it also delegates the right to
 * mutate the AV with the opener's identity, like any capability. The AV
 * keeps owning the descriptor: do not close it; dup() it to keep it past
 * fi_close().
 *
 * Return: the descriptor, or -FI_EINVAL when @av is not a kav AV.
 */
int kav_av_fd(struct fid_av *av);

/**
 * kav_av_open_job() - open a private AV kept in the job's node table
 * @domain: a keyed domain from kav_domain_open()
 * @attr: as for fi_av_open(): type FI_AV_MAP, FI_AV_TABLE or FI_AV_UNSPEC
 *	(= FI_AV_TABLE); no name; flags FI_EVENT and FI_SYMMETRIC only
 * @av: out: the AV
 * @context: the AV's context
 *
 * The AV behaves as a private one for the caller (fi_av(3)), but its
 * entries are those of the table that the caller's job shares on the node
 * (KAV_AV_JOB in uapi/linux/kav.h): an address another process of the job
 * inserted already is found in the table's index with no system call, and
 * the node holds one copy of it. FI_AV_MAP fi_addrs are table indices,
 * FI_AV_TABLE fi_addrs positions in the caller's insertion order.
 * fi_av_remove() takes an address out of the caller's view only. User ids
 * and per-AV auth keys are not available (-FI_ENOSYS; a domain opened
 * with FI_AV_AUTH_KEY or FI_AV_USER_ID asks for them: -FI_EINVAL).
 * kav_av_open_job(3) has the details.
 *
 * Return: 0; -FI_ENOKEY (the domain has no key); -FI_EINVAL (a refused
 * attribute); -FI_ENOSYS when the module has no job tables; what
 * fi_av_open() returns otherwise.
 */
int kav_av_open_job(struct fid_domain *domain, struct fi_av_attr *attr,
		    struct fid_av **av, void *context);

/**
 * struct kav_av_job_stats - what a job AV's inserts cost
 * @found: addresses found in the node's table, with no system call
 * @sent: addresses sent to the kernel (new on the node, or raced)
 * @calls: insert system calls
 */
struct kav_av_job_stats {
	uint64_t found;
	uint64_t sent;
	uint64_t calls;
};

/**
 * kav_av_job_stats() - a job AV's counters
 * Return: 0; -FI_EINVAL when @av is not a job AV (kav_av_open_job()) or
 * @stats is NULL.
 */
int kav_av_job_stats(struct fid_av *av, struct kav_av_job_stats *stats);

/**
 * kav_strerror() - explain an error returned by libkav
 * @err: a fabric errno, negative (as returned) or positive
 *
 * Return: a static string; kav-specific where kav has a reason of its own
 * (e.g. -FI_ENODEV: the module is not loaded), otherwise the generic text
 * for the error. Never NULL.
 */
const char *kav_strerror(int err);

/**
 * kav_last_error() - what the calling thread's last failed libkav call
 * was refused for
 *
 * kav_strerror() has one text per error code; this is the detail of the
 * latest failure in this thread: the cause (a grant, a named AV's mode
 * bits, keyless inserts off, /dev/kav's permissions, a grant's limit, an
 * unknown host, a refused argument), the VNI and the identity the domain
 * captured (uid, gid, cgroup, network namespace). The same text is logged
 * once (denials at the default level). Each kav_domain_open(), fi_av_open()
 * and fi_av_insert*() call starts with it empty.
 *
 * Return: a NUL-terminated thread-local string, "" when nothing was
 * recorded; valid until the thread's next libkav call. Never NULL.
 */
const char *kav_last_error(void);

/**
 * struct kav_resolved - one AV entry, resolved without a system call
 * @addr: the address, pointing into the AV's read-only table mapping
 *	(valid until fi_close() of the AV; the bytes change if the entry is
 *	removed and the index reused, see kav_av_resolve_check())
 * @addr_len: bytes at @addr (for FI_ADDR_STR, counting the NUL)
 * @key: the entry's auth-key handle (KAV_FI_ADDR_KEY | slot), or
 *	FI_ADDR_NOTAVAIL when the entry has no key
 * @vni: the key's struct kav_auth_key.vni (0 without a key)
 * @user_id: the entry's user id, FI_ADDR_NOTAVAIL (= KAV_NONE) if unset
 * @index: the table index resolved (group and rx bits stripped)
 * @seq: the entry's sequence when @addr_len, @key and @user_id were read
 * @revoked: the entry's key was revoked by the administrator (its slot has
 *	KAV_KEY_REVOKED): nothing may be sent to the entry
 */
struct kav_resolved {
	const void *addr;
	size_t addr_len;
	fi_addr_t key;
	uint32_t vni;
	fi_addr_t user_id;
	uint64_t index;
	uint64_t seq;
	bool revoked;
};

/**
 * kav_av_resolve() - the data path's fi_addr_t -> (address, key, user id)
 * @av: a kav AV
 * @fi_addr: an address fi_addr_t (group and rx-context bits ignored)
 * @out: filled on success
 *
 * Reads the mapped table (seq protocol), no system call, no lock, no copy
 * of the address. A provider that may race with fi_av_remove() of the
 * same entry re-checks with kav_av_resolve_check() after using @out->addr.
 *
 * Return: 0; -FI_EKEYREJECTED when the entry's key was revoked (@out is
 * filled all the same, with @out->revoked set: like the kernel's
 * consumers, a provider must not send under it); -FI_EINVAL when @av is
 * not a kav AV, @out is NULL, or @fi_addr is FI_ADDR_NOTAVAIL, a key
 * handle or not a valid entry.
 */
int kav_av_resolve(struct fid_av *av, fi_addr_t fi_addr,
		   struct kav_resolved *out);

/**
 * kav_av_resolve_check() - is a kav_av_resolve() result still current?
 * Return: 1 when the entry has not changed since @res was filled, else 0.
 */
int kav_av_resolve_check(struct fid_av *av, const struct kav_resolved *res);

/*
 * Endpoints. libkav has no fabric endpoints, but a provider that builds
 * its endpoints on a kav AV opens one struct kav_ep per endpoint so that
 * the kernel and libkav enforce libfabric's rules:
 *  - fi_close() of the AV fails with -FI_EBUSY while any kav_ep of it is
 *    open ("there must be no opened endpoints associated with the AV");
 *  - kav_ep_enable() snapshots the AV's auth keys (keys inserted later do
 *    not apply to the endpoint) and makes removing a key it uses fail
 *    with -FI_EBUSY until the endpoint is closed.
 */
struct kav_ep;

/**
 * kav_ep_open() - bind a new endpoint object to @av (KAV_IOC_AV_EP_OPEN)
 * Return: 0, -FI_EINVAL (not a kav AV, NULL @ep), -FI_EPERM (@av was
 * opened with FI_READ: a reader cannot pin the owner's keys), -FI_ENOMEM,
 * or the kernel's error.
 */
int kav_ep_open(struct fid_av *av, struct kav_ep **ep);

/**
 * kav_ep_enable() - enable: snapshot the AV's current auth keys
 * Return: 0, -FI_EALREADY (already enabled), -FI_EINVAL, or the kernel's
 * error.
 */
int kav_ep_enable(struct kav_ep *ep);

/**
 * kav_ep_keys() - key slots the endpoint uses (bit n: key handle
 * KAV_FI_ADDR_KEY | n), as snapshotted by kav_ep_enable(); 0 before.
 */
uint64_t kav_ep_keys(const struct kav_ep *ep);

/**
 * kav_ep_close() - close the endpoint object; its keys become removable
 * Return: 0, or -FI_EINVAL for NULL.
 */
int kav_ep_close(struct kav_ep *ep);

#ifdef __cplusplus
}
#endif

/* The event queue for FI_EVENT AVs, AV sets and the peer AV. */
#include <kav/kav_eq.h>
#include <kav/kav_peer.h>
/* The data path's inline reader. */
#include <kav/kav_view.h>

#endif /* KAV_KAV_H */
