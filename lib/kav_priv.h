/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libkav internals. Nothing here is exported: the library is built with
 * -fvisibility=hidden and only KAV_API functions leave it. Internal symbols
 * all start with kav_ so that libkav.a linked into a static program does
 * not collide with the program's own names.
 */
#ifndef KAV_PRIV_H
#define KAV_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <linux/kav.h>
#include <kav/kav.h>

#include "kav_base.h"		/* log, errno, sys: the ground floor */
#include "table.h"		/* struct kav_map and its reads */

/* Default device; $KAV_DEVICE overrides it (tests, containers). */
#define KAV_DEFAULT_DEVICE "/dev/" KAV_DEVICE_NAME

/* ----------------------------------------------------------------- diag.c */

/* Forget the last error detail: at the start of each public call. */
void kav_err_clear(void);
/*
 * Record a failure's detail for kav_last_error() and log it once at
 * @level. kav_refuse(): a refused argument (debug); kav_fail_warn(): a
 * failure the user must see (warn).
 */
void kav_fail(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define kav_refuse(...)		kav_fail(KAV_LOG_DEBUG, __VA_ARGS__)
#define kav_fail_info(...)	kav_fail(KAV_LOG_INFO, __VA_ARGS__)
#define kav_fail_warn(...)	kav_fail(KAV_LOG_WARN, __VA_ARGS__)

/* A domain's identity and grants (KAV_IOC_DOMAIN_WHOAMI). */
struct kav_ident {
	bool known;			/* the kernel answered */
	struct kav_whoami w;
	struct kav_grant_info *grants;	/* malloc'd; kav_ident_free() */
	uint32_t nr;			/* elements of @grants */
};

/* Ask the kernel about domain fd @fd: 0 or -errno (@id then unknown). */
int kav_ident_get(int fd, struct kav_ident *id);
void kav_ident_free(struct kav_ident *id);
/* "uid 1000, gid 1000, cgroup 5, netns cookie 1"; the length written. */
size_t kav_ident_str(const struct kav_ident *id, char *buf, size_t len);
/* "granted: 50, 51" or "granted: none"; each VNI once. */
size_t kav_granted_str(const struct kav_ident *id, char *buf, size_t len);
/* True when a grant of @id is for @vni. */
bool kav_ident_granted(const struct kav_ident *id, uint32_t vni);
/*
 * The grant for @vni whose limit a charge of @need_entries entries and
 * @need_avs AVs exceeds (else the first limited grant for @vni; NULL if
 * none).
 */
const struct kav_grant_info *kav_ident_limit(const struct kav_ident *id,
					     uint32_t vni,
					     uint64_t need_entries,
					     uint32_t need_avs);

/* A refusal by the kernel of something done under a key (or keyless). */
struct kav_denial {
	const char *what;		/* "insert of 2 addresses", ... */
	int err;			/* -FI_EACCES, -FI_EKEYREJECTED, -EDQUOT */
	bool keyed;			/* under @vni; false: keyless */
	uint32_t vni;
	uint64_t need_entries;		/* what the call would have charged */
	uint32_t need_avs;
	/* -FI_EACCES although @vni is granted: why (NULL: say no grant) */
	const char *if_granted;
	/* Candidates for @vni (key handles): the first not granted wins. */
	const uint32_t *vnis;
	size_t nr_vnis;
};
/* Most candidate VNIs a denial looks at. */
#define KAV_DENY_VNIS	8

/* The message for @d given @id (pure: unit tested). */
void kav_deny_format(char *buf, size_t len, const struct kav_ident *id,
		     const struct kav_denial *d);
/*
 * Ask domain fd @domain_fd who it is, then record and warn the message
 * for @d (once).
 */
void kav_denial_warn(int domain_fd, const struct kav_denial *d);

/* ---------------------------------------------------------------- table.c */

/* struct kav_map, its snapshots and functions: table.h (above). */

/* ----------------------------------------------------------------- addr.c */

/* Largest address any fi format of ours takes (struct sockaddr_in6). */
#define KAV_SOCKADDR_MAX	sizeof(struct sockaddr_in6)

/* kav table format for an fi addr_format; 0 when kav does not store it. */
uint32_t kav_addr_kav_format(uint32_t fi_format);
/*
 * Bytes per address in an fi_av_insert() array for @fi_format, as in
 * libfabric's own IP AVs: 16 for FI_SOCKADDR_IN, 28 for FI_SOCKADDR and
 * FI_SOCKADDR_IN6; 0 for FI_ADDR_STR, whose array holds char pointers.
 */
size_t kav_addr_user_stride(uint32_t fi_format);
/*
 * Validate one address of @fi_format (for FI_ADDR_STR @addr is the string:
 * printable, non-space ASCII, NUL within addr_max) and set *@len to its
 * length in the table. 0 or -FI_EINVAL.
 */
int kav_addr_check(uint32_t fi_format, const void *addr, size_t addr_max,
		   size_t *len);
/*
 * Validate and write @addr into a zeroed @slot of @slot_size bytes in the
 * form the kernel stores (padding zeroed, sin_zero cleared). 0/-FI_EINVAL.
 */
int kav_addr_stage(uint32_t fi_format, const void *addr, uint8_t *slot,
		   size_t slot_size);
/*
 * fi_av_straddr(): "fi_sockaddr_in://10.0.0.1:5000",
 * "fi_sockaddr_in6://[fe80::1]:5000", or the string itself for FI_ADDR_STR.
 * Writes at most *len bytes, always NUL-terminated when *len > 0, and sets
 * *len to the size needed including the NUL. Returns @buf; NULL (with *len
 * set) when @buf is NULL or *len is 0, and NULL with *len untouched when
 * the address itself is not valid for @fi_format.
 */
const char *kav_addr_straddr(uint32_t fi_format, const void *addr, char *buf,
			     size_t *len);
/*
 * Parse an FI_ADDR_STR-style address ("fi_sockaddr_in://a.b.c.d:port",
 * "fi_sockaddr_in6://[addr]:port"; the port may be omitted) into @out,
 * which holds KAV_SOCKADDR_MAX bytes. The form must fit @fi_format.
 * 0 or -FI_EINVAL.
 */
int kav_addr_parse_str(uint32_t fi_format, const char *str, void *out);
/* "FI_SOCKADDR_IN", ...: for messages. */
const char *kav_addr_format_name(uint32_t fi_format);
/* Numeric port ("0".."65535"); 0 or -FI_EINVAL. */
int kav_addr_parse_port(const char *service, uint16_t *port);
/*
 * Resolve @node (name or numeric) for @fi_format with getaddrinfo() and
 * store it in @out (KAV_SOCKADDR_MAX bytes) with @port. @service, when not
 * NULL, is passed as is (AI_NUMERICSERV) and @port is ignored.
 * 0 or -FI_EADDRNOTAVAIL (logged).
 */
int kav_addr_resolve(uint32_t fi_format, const char *node, const char *service,
		     uint16_t port, void *out);

/* ---------------------------------------------------------- addr_expand.c */

enum kav_sym_kind {
	KAV_SYM_IPV4,
	KAV_SYM_IPV6,
	KAV_SYM_NAME,
};

/* Largest node string produced (NI_MAXHOST). */
#define KAV_SYM_NODE_MAX	1025

/*
 * fi_av_insertsym() range: nodecnt nodes from @node, svccnt ports from
 * @service, node-major. Numeric IPv4/IPv6 nodes count up as integers
 * (10.0.0.255 -> 10.0.1.0); a host name counts up its numeric suffix,
 * keeping its zero padding (host09 -> host10).
 */
struct kav_sym {
	enum kav_sym_kind kind;
	size_t nodecnt;
	size_t svccnt;
	uint16_t port0;
	uint32_t v4;			/* host order */
	uint8_t v6[16];
	char scope[64];			/* "%eth0" of an IPv6 node, or "" */
	char prefix[KAV_SYM_NODE_MAX];	/* name without its numeric suffix */
	uint64_t num;			/* the suffix */
	int width;			/* its digits, for zero padding */
	bool has_suffix;
};

/*
 * Check the range and fill @s. -FI_EINVAL for NULL node/service, a
 * non-numeric service, zero counts, a range past the last port, IPv4 or
 * IPv6 address or suffix value, a name without a numeric suffix when
 * nodecnt > 1, or a total beyond INT_MAX (insert returns an int).
 */
int kav_sym_init(struct kav_sym *s, const char *node, size_t nodecnt,
		 const char *service, size_t svccnt);
/* The @i-th node (i < nodecnt) as text. 0 or -FI_ETOOSMALL. */
int kav_sym_node(const struct kav_sym *s, size_t i, char *buf, size_t len);
/* The @j-th port (j < svccnt). */
uint16_t kav_sym_port(const struct kav_sym *s, size_t j);

/* --------------------------------------------------------------- domain.c */

/* A kav domain: the struct fid_domain over one /dev/kav fd. */
struct kav_fid_domain {
	struct fid_domain domain_fid;	/* first: fid <-> domain casts */
	int fd;
	uint32_t addr_format;		/* FI_* format of every AV */
	bool av_auth_key;		/* auth_key_size == FI_AV_AUTH_KEY */
	bool has_key;			/* a domain-wide auth key (slot 0) */
	struct kav_auth_key key;	/* that key */
	unsigned int av_refs;		/* open AVs (atomic) */
};

/* True when @fid is a domain from kav_domain_open(). */
bool kav_domain_is(const struct fid *fid);

/* A domain's operation tables (domain_ops.c), for kav_domain_create(). */
struct kav_domain_tables {
	struct fi_ops_domain *ops;
	struct fi_ops_mr *mr;
};
int kav_domain_create(const struct fi_info *info,
		      const struct kav_domain_tables *tables,
		      struct fid_domain **domain, void *context);

/* ------------------------------------------------------------------ fid.c */

/* struct fi_ops entries kav does not provide: -FI_ENOSYS. */
int kav_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int kav_no_control(struct fid *fid, int command, void *arg);
int kav_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);
int kav_no_tostr(const struct fid *fid, char *buf, size_t len);
int kav_no_ops_set(struct fid *fid, const char *name, uint64_t flags,
		   void *ops, void *context);

/* ------------------------------------------------------------------- av.c */

/* A kav AV: the struct fid_av over one kernel AV fd and its mapped table. */
struct kav_fid_av {
	struct fid_av av_fid;		/* first */
	struct kav_fid_domain *domain;
	int fd;
	uint32_t addr_format;		/* FI_* */
	uint32_t slot_size;		/* kernel addr_stride = table addr_max */
	uint64_t flags;			/* fi_av_attr.flags (FI_EVENT, ...) */
	int rx_ctx_bits;		/* fi_av_attr.rx_ctx_bits */
	bool read_only;			/* FI_READ: the kernel refuses changes */
	struct fid_eq *eq;		/* fi_av_bind(); set once (atomic) */
	unsigned int refs;		/* holders: kav_eps, AV sets (atomic) */
	struct kav_job *job;		/* a job AV's view (av_job.h), else NULL */
	const struct kav_av_kind *kind;	/* NULL: a private AV */
	struct kav_map table;
};

/*
 * What an AV of another kind than private adds to the base (job AVs:
 * kav_job_kind, av_job.c). The base AV (av.c, av_lookup.c) calls through
 * it and so never names the kind's file, which stands above it.
 */
struct kav_av_kind {
	uint32_t create_flags;		/* struct kav_av_create.flags */
	/* After the table is mapped: set up @av's view (@attr's type). */
	int (*attach)(struct kav_fid_av *av, const struct fi_av_attr *attr);
	/* Undo attach (fi_close(), or a later step of the open failed). */
	void (*detach)(struct kav_fid_av *av);
	/* The table index of the process's @fi_addr: 0 or -FI_EINVAL. */
	int (*index)(const struct kav_fid_av *av, fi_addr_t fi_addr,
		     uint64_t *index);
};

/*
 * For the fi_ops_av entries, which libfabric only calls with our own AVs:
 * no check. Anything that takes an fid_av from the application directly
 * uses kav_av_from_fid().
 */
static inline struct kav_fid_av *kav_av_of(struct fid_av *av_fid)
{
	return (struct kav_fid_av *)av_fid;
}

/* av_ops.c: fi_av_open() of a private AV (struct fi_ops_domain.av_open). */
int kav_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av, void *context);
/*
 * fi_av_open() of either kind: the AV gets @ops and @kind (NULL: private).
 * Called by av_ops.c's opens.
 */
int kav_av_open_as(struct fid_domain *domain, struct fi_av_attr *attr,
		   struct fid_av **av, void *context,
		   struct kav_fi_ops_av *ops, const struct kav_av_kind *kind);

/* ------------------------------------------------------------ av_named.c */

/* Octal permission bits a created named AV gets (default 0600). */
#define KAV_AV_MODE_ENV "KAV_AV_MODE"
/* Parse $KAV_AV_MODE: NULL or "" is 0 (the default); -FI_EINVAL if bad. */
int kav_av_mode_parse(const char *s, uint32_t *mode);
/*
 * Uid whose named AVs fi_av_open() opens (KAV_AV_OWNER); unset: the
 * caller's own.
 */
#define KAV_AV_OWNER_ENV "KAV_AV_OWNER"
/*
 * Parse $KAV_AV_OWNER: NULL or "" leaves *@set false; a decimal uid below
 * 2^32 - 1 sets *@set and *@uid; anything else is -FI_EINVAL.
 */
int kav_av_owner_parse(const char *s, bool *set, uint32_t *uid);
/* Fill @req's name, flags, owner and mode for a named @attr. */
int kav_av_named_request(const struct fi_av_attr *attr,
			 struct kav_av_create *req);
/*
 * A keyed domain joined the existing named AV @av (called @name) to write:
 * insert the domain's key into it (KAV_IOC_AV_KEY_INSERT; already there
 * is fine) so that inserts without a key handle bind to it. 0 or a
 * negative fabric errno (logged).
 */
int kav_av_named_join_key(struct kav_fid_av *av, const char *name);
/*
 * Record and log why the kernel refused (@err) the named open @req of
 * @attr in domain @d: mode bits (warn), no such name (info), ...
 */
void kav_av_named_open_failed(const struct kav_fid_domain *d,
			      const struct fi_av_attr *attr,
			      const struct kav_av_create *req, int err);
/* The same for an AV create (@what) refused under @d's key. */
void kav_av_create_denied(const struct kav_fid_domain *d, const char *what,
			  int err);
/* Once mapped: FI_READ's count check and attr->map_addr. */
int kav_av_named_attach(struct kav_fid_av *av, struct fi_av_attr *attr);
/* kav_strerror(), saying why for a change refused on a read-only AV. */
const char *kav_av_strerror(const struct kav_fid_av *av, int err);
extern struct fi_ops kav_av_fi_ops;	/* every kav AV's (av.c) */

/* The kav AV behind @av_fid, or NULL when it is not one. */
static inline struct kav_fid_av *kav_av_from_fid(struct fid_av *av_fid)
{
	/* Only our own AVs carry our ops tables. */
	if (!av_fid || av_fid->fid.fclass != FI_CLASS_AV ||
	    av_fid->fid.ops != &kav_av_fi_ops)
		return NULL;
	return kav_av_of(av_fid);
}
/*
 * Hold @av open: while any hold exists fi_close() of the AV fails with
 * -FI_EBUSY (kav_eps, AV sets and anything else bound to the AV).
 */
void kav_av_hold(struct kav_fid_av *av);
void kav_av_unhold(struct kav_fid_av *av);
/*
 * Objects (AV sets, peer AVs) that refer to a kav AV. kav_av_close()
 * must refuse with -FI_EBUSY while kav_av_children() is not 0. Kept in a
 * process-wide registry so that struct kav_fid_av needs no extra field.
 */
int kav_av_child_get(const struct kav_fid_av *av);	/* 0 or -FI_ENOMEM */
void kav_av_child_put(const struct kav_fid_av *av);
unsigned int kav_av_children(const struct kav_fid_av *av);

/*
 * The fi_ops_av entries, one file per concern; av.c puts them in the ops
 * table. Semantics are fi_av(3)'s, with kav's choices in <kav/kav.h>.
 */
/* av_insert.c */
int kav_av_insert(struct fid_av *av, const void *addr, size_t count,
		  fi_addr_t *fi_addr, uint64_t flags, void *context);
int kav_av_insertsvc(struct fid_av *av, const char *node,
		     const char *service, fi_addr_t *fi_addr, uint64_t flags,
		     void *context);
int kav_av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
		     const char *service, size_t svccnt, fi_addr_t *fi_addr,
		     uint64_t flags, void *context);
/* av_remove.c */
int kav_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
		  uint64_t flags);
/* av_lookup.c */
int kav_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
		  size_t *addrlen);
const char *kav_av_straddr(struct fid_av *av, const void *addr, char *buf,
			   size_t *len);
/* av_auth.c */
int kav_av_insert_auth_key(struct fid_av *av, const void *auth_key,
			   size_t auth_key_size, fi_addr_t *fi_addr,
			   uint64_t flags);
int kav_av_lookup_auth_key(struct fid_av *av, fi_addr_t fi_addr,
			   void *auth_key, size_t *auth_key_size);
int kav_av_set_user_id(struct fid_av *av, fi_addr_t fi_addr,
		       fi_addr_t user_id, uint64_t flags);

/* ------------------------------------------------------------ av_remove.c */

/*
 * One KAV_IOC_AV_REMOVE of @n (<= KAV_BATCH_MAX) table indices: all or
 * none. Also how an insert takes back entries it cannot name. 0 or a
 * negative fabric errno; on failure *@err_index (may be NULL) is the
 * kernel's err_index (KAV_NO_INDEX when it named none).
 */
int kav_av_remove_batch(struct kav_fid_av *av, const uint64_t *idx, size_t n,
			uint32_t *err_index);

/* ------------------------------------------------------- fi_addr_t codes */

/*
 * kav's fi_addr_t encoding (<kav/kav.h>): bits 32..63 (group id, rx
 * context) are ignored; below them, bit 31 tells an auth-key handle
 * (KAV_FI_ADDR_KEY | slot) from a table index. Both decoders fail with
 * -FI_EINVAL for FI_ADDR_NOTAVAIL or for the other kind of handle.
 */
_Static_assert(sizeof(fi_addr_t) == sizeof(__u64),
	       "fi_addr_t is the ABI's u64");
_Static_assert(KAV_NONE == FI_ADDR_NOTAVAIL, "no user id is FI_ADDR_NOTAVAIL");

static inline int kav_fi_addr_index(fi_addr_t fi_addr, uint64_t *index)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || (low & KAV_FI_ADDR_KEY))
		return -FI_EINVAL;
	*index = low;
	return 0;
}

static inline int kav_fi_addr_key(fi_addr_t fi_addr, uint32_t *slot)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || !(low & KAV_FI_ADDR_KEY) ||
	    (low & ~KAV_FI_ADDR_KEY) >= KAV_MAX_AUTH_KEYS)
		return -FI_EINVAL;
	*slot = (uint32_t)(low & ~KAV_FI_ADDR_KEY);
	return 0;
}

/* The handle of auth-key slot @slot (< KAV_MAX_AUTH_KEYS). */
static inline fi_addr_t kav_key_fi_addr(uint32_t slot)
{
	return KAV_FI_ADDR_KEY | slot;
}

/* ----------------------------------------------------------- checked reads */

/*
 * Checked reads of an AV's mapping, shared by every file that must know
 * an entry or key is there before it acts on it; inline like the table
 * reads under them (kav_av_resolve() is the data path).
 */
/* Read entry @index of @av (no address) and require it valid: 0/-FI_EINVAL. */
static inline int kav_av_read_valid(const struct kav_fid_av *av, uint64_t index,
				    struct kav_entry_meta *meta)
{
	if (kav_table_read_meta(&av->table, index, meta) ||
	    !(meta->flags & KAV_ENTRY_VALID))
		return -FI_EINVAL;
	return 0;
}

/* Key slot @slot, required valid: 0 or -FI_EINVAL. */
static inline int kav_av_read_key(const struct kav_fid_av *av, uint32_t slot,
				  struct kav_key_snap *snap)
{
	if (kav_table_read_key(&av->table, slot, snap) ||
	    !(snap->flags & KAV_KEY_VALID))
		return -FI_EINVAL;
	return 0;
}

/*
 * The key an entry read as @meta is bound to (meta->auth_key is not
 * KAV_NONE), required valid: 0 or -FI_EINVAL. A key cannot go while
 * entries use it, so -FI_EINVAL means the entry was removed since. Only
 * the key's flags and VNI are read (kav_table_read_key_part()).
 */
static inline int kav_av_read_entry_key(const struct kav_fid_av *av,
					const struct kav_entry_meta *meta,
					struct kav_key_snap *snap)
{
	if (meta->auth_key >= KAV_MAX_AUTH_KEYS ||
	    kav_table_read_key_part(&av->table, (uint32_t)meta->auth_key,
				    snap, false) ||
	    !(snap->flags & KAV_KEY_VALID))
		return -FI_EINVAL;
	return 0;
}

#endif /* KAV_PRIV_H */
