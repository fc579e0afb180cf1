/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kav: kernel-assisted address vectors for libfabric.
 *
 * This header is the only contract between kav.ko and userspace. It is
 * self-contained: a userspace program can include it and nothing else.
 *
 * Objects
 *   open("/dev/kav")          a domain context; it snapshots the opener's
 *                             identity (credentials, cgroup, netns).
 *   KAV_IOC_AV_CREATE         on a domain fd: creates an address vector and
 *                             returns a new fd for it (an anon inode).
 *   KAV_IOC_AV_INSERT/REMOVE  on an AV fd: batch mutations.
 *   mmap(AV fd, offset 0)     the table, read-only: struct kav_table_header
 *                             in the first page, then fixed-size entries.
 *
 * Every ioctl argument starts with a __u32 size that userspace sets to
 * sizeof() of the structure it was built against. The kernel accepts
 * smaller structures that end after the last field of the first version,
 * and larger ones whose extra bytes are all zero (copy_struct_from_user()).
 * Unknown flags and non-zero reserved fields are rejected with EINVAL;
 * unknown commands with ENOTTY.
 *
 * Documentation/uapi.rst and Documentation/table-layout.rst describe each
 * command, its errors and the lock-free read protocol.
 */
#ifndef _UAPI_LINUX_KAV_H
#define _UAPI_LINUX_KAV_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KAV_DEVICE_NAME		"kav"

/* ioctl type; see Documentation/userspace-api/ioctl/ioctl-number.rst */
#define KAV_IOCTL_TYPE		0xB9

enum kav_ioctl_nr {
	KAV_CMD_AV_CREATE = 0x80,	/* domain fd */
	KAV_CMD_AV_INSERT,		/* AV fd */
	KAV_CMD_AV_REMOVE,		/* AV fd */
	KAV_CMD_AV_KEY_INSERT,		/* AV fd */
	KAV_CMD_AV_KEY_REMOVE,		/* AV fd */
	KAV_CMD_AV_SET_USER_ID,		/* AV fd */
	KAV_CMD_AV_EP_OPEN,		/* AV fd */
	KAV_CMD_EP_ENABLE,		/* endpoint fd */
	KAV_CMD_DOMAIN_SET_KEY,		/* domain fd */
	KAV_CMD_DOMAIN_WHOAMI,		/* domain fd */
};

/* Address formats an AV stores. The kernel validates every address. */
enum kav_addr_format {
	KAV_ADDR_SOCKADDR = 1,	/* struct sockaddr_in or _in6, by family */
	KAV_ADDR_SOCKADDR_IN,	/* struct sockaddr_in, AF_INET */
	KAV_ADDR_SOCKADDR_IN6,	/* struct sockaddr_in6, AF_INET6 */
	KAV_ADDR_STR,		/* NUL-terminated ASCII 0x21-0x7e */
};

/* Bytes of struct kav_entry before the address. */
#define KAV_ENTRY_HDR_SIZE	16
/* Largest address an AV can be created for (entries are at most 512 B). */
#define KAV_ADDR_MAX_LEN	480
/* Most addresses (or fi_addrs) one insert or remove call may carry. */
#define KAV_BATCH_MAX		16384

/**
 * struct kav_av_create - KAV_IOC_AV_CREATE, on a domain fd
 * @size: sizeof(struct kav_av_create)
 * @flags: must be 0
 * @addr_format: enum kav_addr_format
 * @addr_max: largest address in bytes; 0 picks the format's size
 *	(16 for SOCKADDR_IN, 28 for SOCKADDR and SOCKADDR_IN6, 96 for STR)
 * @count: expected number of entries, at most 2^32 - 1 (EINVAL above:
 *	no table holds more). A private or named AV takes it as a hint
 *	and allocates nothing for it (the table grows past it); a job table
 *	(KAV_AV_JOB) sizes its address index from it when it creates the
 *	table. Opening an existing AV ignores it.
 * @fd: out: the new AV file descriptor (O_CLOEXEC)
 * @entry_size: out: bytes per table entry (a power of two)
 * @max_entries: out: entries the table can ever hold
 * @map_size: out: bytes to mmap() to see the whole table
 * @name: with KAV_AV_NAMED, user pointer to @name_len bytes: the AV's
 *	name in the IPC namespace of the domain's opener (any bytes but NUL)
 * @name_len: 1..KAV_NAME_MAX with KAV_AV_NAMED, else 0
 * @mode: permission bits of a named AV this call creates: read (4) and
 *	write (2) for owner, group and others, as in 0640; 0 means
 *	KAV_AV_MODE_DEFAULT. Ignored when the AV already exists.
 * @result: out: KAV_AV_CREATED when this call created the AV (always,
 *	without KAV_AV_NAMED); KAV_AV_DENIED_MODE with EACCES from an
 *	existing AV's mode bits, then @mode and @owner_uid (in the caller's
 *	user namespace) are that AV's, so the tenant can tell why
 * @av_id: out: the AV's id in administrators' listings (kavctl); ids are
 *	not reused until the 31-bit space wraps
 * @owner_uid: with KAV_AV_OWNER, in: the uid whose names to look in, a
 *	number in the caller's user namespace (the task making the call,
 *	not the domain's opener: an fd passed into a user namespace names
 *	only uids mapped there; an unmapped one is EINVAL); else must be 0.
 *	Out with KAV_AV_DENIED_MODE: the AV's owner in the same namespace
 *	(the overflow uid, 65534, if it has no mapping there)
 * @__reserved: must be 0
 *
 * Names are scoped to the IPC namespace *and the owner's uid*: each user
 * has its own names, so nobody can take (squat) a name another user's job
 * will use. A named call without KAV_AV_OWNER looks in, and creates in,
 * the caller's own names (the domain opener's euid). To open another
 * user's AV, name that user with KAV_AV_OWNER and @owner_uid; a call that
 * names another user never creates (ENOENT when there is no such AV) and
 * the AV's mode bits decide (group or other bits). Naming oneself is the
 * same as not using the flag.
 *
 * Without KAV_AV_NAMED each call creates a private AV. With it, the call
 * opens the AV called @name if one exists in the namespace and creates it
 * otherwise; KAV_AV_EXCL makes an existing one an error (EEXIST) and
 * KAV_AV_RDONLY opens an existing one read-only (ENOENT if there is none).
 * Opening an existing AV checks its mode bits against the domain's opener
 * (read, and write unless KAV_AV_RDONLY; EACCES otherwise) and its format:
 * @addr_format and @addr_max must be the AV's, except that KAV_AV_RDONLY
 * accepts an @addr_format of 0 for any (EINVAL otherwise). The owner is
 * the creator's euid and egid. A named AV lives while any fd, mapping or
 * administrator's pin (kavctl av pin) holds it; the name goes with it.
 */
struct kav_av_create {
	__u32 size;
	__u32 flags;
	__u32 addr_format;
	__u32 addr_max;
	__aligned_u64 count;
	__s32 fd;
	__u32 entry_size;
	__aligned_u64 max_entries;
	__aligned_u64 map_size;
	__aligned_u64 name;
	__u32 name_len;
	__u32 mode;
	__u32 result;
	__u32 av_id;
	__u32 owner_uid;
	__u32 __reserved;
};

/* struct kav_av_create.flags */
#define KAV_AV_NAMED		0x1U	/* create or open the AV @name */
#define KAV_AV_EXCL		0x2U	/* with NAMED: only create */
#define KAV_AV_RDONLY		0x4U	/* with NAMED: only open, read-only */
#define KAV_AV_OWNER		0x8U	/* with NAMED: @owner_uid's names */
#define KAV_AV_JOB		0x10U	/* the job's node table; not NAMED */

/*
 * KAV_AV_JOB: open the one table that the caller's job shares on this
 * node, creating it if it does not exist yet (then KAV_AV_CREATED). A job
 * is the domain key's grant, the domain opener's euid, user namespace and
 * IPC namespace, and the table's @addr_format and @addr_max: processes
 * that differ in any of them never open the same table. The domain must
 * have a key (ENOKEY otherwise); NAMED, EXCL, RDONLY, OWNER, @name and
 * @mode must be 0 with it (EINVAL). @count sizes the table's address
 * index (struct kav_table_header.index_buckets).
 *
 * A job table is a set of addresses: KAV_IOC_AV_INSERT of an address that
 * a valid entry already holds under the same key returns that entry's
 * index instead of adding one, so one address has one entry on the node,
 * whichever process inserted it first. Its entries are found without a
 * system call through the address index in the mapping, and they stay
 * until the table goes: KAV_IOC_AV_REMOVE on a job table fails with
 * EOPNOTSUPP (each process keeps its own view of which entries it
 * inserted and removed; libkav does). Per-insert keys and user ids
 * (KAV_INSERT_AUTH_KEY, KAV_INSERT_USER_ID) are refused with EINVAL, and
 * KAV_IOC_AV_SET_USER_ID and KAV_IOC_AV_KEY_INSERT (the table holds the
 * job's key alone) with EOPNOTSUPP. Since no entry is ever removed, the
 * table has no fi_addr array (element n would be n for good once entry
 * n is valid): struct kav_table_header.fi_addrs_offset is 0, the address
 * index follows the entries, and a reader reads entry n's flags instead.
 * Only new addresses are charged to the grant (EDQUOT) and need room
 * (ENOSPC). Once the grant is
 * revoked, inserts and opens of the table fail with EKEYREVOKED. The
 * table is owned by its creator, mode 0600, counts once against the
 * grant's AVs, lives while any fd or mapping holds it (AV_PIN refuses
 * it: EINVAL) and is listed
 * with KAV_A_AV_JOB and its job's KAV_A_GRANT_ID, never by a name; no
 * KAV_AV_NAMED open reaches it.
 */

/* struct kav_av_create.result */
#define KAV_AV_CREATED		0x1U
#define KAV_AV_DENIED_MODE	0x2U

/* Longest AV name, in bytes. */
#define KAV_NAME_MAX		255
/* Mode of a named AV created with @mode 0: owner read and write. */
#define KAV_AV_MODE_DEFAULT	0600

/*
 * A value for err_index that the kernel never reports: preset it to tell
 * "no element to blame" from a position.
 */
#define KAV_NO_INDEX		0xffffffffU

/**
 * struct kav_auth_key - an authorization key as kav stores it
 * @vni: virtual network id: the value a fabric tags traffic with and that
 *	an administrator grants to tenants
 * @__reserved: must be 0
 *
 * This is also libkav's auth_key format: fi_av_insert_auth_key() takes
 * exactly sizeof(struct kav_auth_key) bytes.
 */
struct kav_auth_key {
	__u32 vni;
	__u32 __reserved;
};

/* Auth keys one AV can hold; their slots live in the header page. */
#define KAV_MAX_AUTH_KEYS	64

/* struct kav_av_insert.flags */
#define KAV_INSERT_AUTH_KEY	0x1U	/* @auth_keys holds key handles */
#define KAV_INSERT_USER_ID	0x2U	/* @user_ids holds user ids */

/**
 * struct kav_av_insert - KAV_IOC_AV_INSERT, on an AV fd
 * @size: sizeof(struct kav_av_insert)
 * @flags: KAV_INSERT_*
 * @count: number of addresses, at most KAV_BATCH_MAX; 0 is a no-op
 * @addr_stride: bytes from one address to the next in @addrs
 *	(1..KAV_ADDR_MAX_LEN; an address may not be longer than the AV's
 *	addr_max)
 * @addrs: user pointer to @count * @addr_stride bytes
 * @fi_addrs: user pointer to @count __u64 that receive each address's
 *	table index, or 0 when the caller does not want them
 * @err_index: out, written only when the call fails because of one
 *	address (EINVAL): its position in the batch
 * @__reserved: must be 0
 * @auth_keys: with KAV_INSERT_AUTH_KEY, user pointer to @count __u64 key
 *	handles (from KAV_IOC_AV_KEY_INSERT), one per address; else 0
 * @user_ids: with KAV_INSERT_USER_ID, user pointer to @count __u64 user
 *	ids, one per address; else 0
 *
 * A batch is atomic: on success every address was inserted, each at the
 * lowest unused index; on error nothing was, and readers saw nothing (the
 * @fi_addrs pages are pinned before the table changes, so an output that
 * goes away during the call fails it with EFAULT before any change).
 *
 * Every binding is authorised against the identity of the domain that
 * opened this AV fd (the writer), never the AV's creator: an explicit key
 * handle needs a live grant of the writer's for the slot's key; without
 * KAV_INSERT_AUTH_KEY an address is bound to the slot that holds the
 * writer's own domain key (EACCES if the AV holds none), and a writer
 * whose domain has no key inserts keyless entries (module parameter
 * allow_keyless, else EACCES). A refused key fails the batch with EACCES
 * and @err_index; a revoked one with EKEYREVOKED.
 */
struct kav_av_insert {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 addr_stride;
	__aligned_u64 addrs;
	__aligned_u64 fi_addrs;
	__u32 err_index;
	__u32 __reserved;
	__aligned_u64 auth_keys;
	__aligned_u64 user_ids;
};

/**
 * struct kav_av_remove - KAV_IOC_AV_REMOVE, on an AV fd
 * @size: sizeof(struct kav_av_remove)
 * @flags: must be 0
 * @count: number of indices, at most KAV_BATCH_MAX; 0 is a no-op
 * @err_index: out, written only when the call fails with EINVAL because
 *	of one index: the position of an index that is not a valid entry
 *	or that repeats an earlier one
 * @fi_addrs: user pointer to @count __u64 table indices
 *
 * A batch is atomic: either every index named a valid entry and all were
 * removed, or the call fails with EINVAL and nothing was removed.
 */
struct kav_av_remove {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 err_index;
	__aligned_u64 fi_addrs;
};

/**
 * struct kav_av_key - KAV_IOC_AV_KEY_INSERT and _KEY_REMOVE, on an AV fd
 * @size: sizeof(struct kav_av_key)
 * @flags: must be 0
 * @key: in (insert): the key; remove ignores key.vni, and key.__reserved
 *	must be 0 for both
 * @handle: out (insert): the key's handle, 0..KAV_MAX_AUTH_KEYS - 1, also
 *	written when the key is already present (EEXIST); in (remove)
 *
 * Insert errors: EINVAL (flags, key.__reserved), EACCES (the writer's
 * identity holds no grant for the key), EEXIST (already in this AV),
 * ENOSPC (KAV_MAX_AUTH_KEYS reached), EOPNOTSUPP (a job table, which
 * holds the job's key alone). A key whose handle could not be
 * written back (EFAULT) stays inserted: repeating the call gives EEXIST
 * and the handle. Remove errors: EINVAL (flags,
 * key.__reserved, not a valid handle), EBUSY (entries are bound to the key, or endpoints were
 * enabled while it was present and are still open), EPERM (the domain's
 * own key, slot 0 of a keyed domain's AV).
 */
struct kav_av_key {
	__u32 size;
	__u32 flags;
	struct kav_auth_key key;
	__aligned_u64 handle;
};

/* struct kav_av_user_id.flags */
#define KAV_USER_ID_AUTH_KEY	0x1U	/* @index is an auth-key handle */

/**
 * struct kav_av_user_id - KAV_IOC_AV_SET_USER_ID, on an AV fd
 * @size: sizeof(struct kav_av_user_id)
 * @flags: KAV_USER_ID_*
 * @index: the entry (or key handle) whose user id is set
 * @user_id: the new user id (KAV_NONE clears it)
 *
 * Errors: EINVAL (unknown flags; @index not a valid entry or key).
 */
struct kav_av_user_id {
	__u32 size;
	__u32 flags;
	__aligned_u64 index;
	__aligned_u64 user_id;
};

/**
 * struct kav_av_ep_open - KAV_IOC_AV_EP_OPEN, on an AV fd
 * @size: sizeof(struct kav_av_ep_open)
 * @flags: must be 0
 * @fd: out: an endpoint file descriptor (O_CLOEXEC); the endpoint is
 *	bound to the AV until the fd is closed
 * @__reserved: must be 0
 *
 * Providers represent each fabric endpoint bound to the AV by one of
 * these, so that the kernel knows which keys are in use.
 */
struct kav_av_ep_open {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 __reserved;
};

/**
 * struct kav_ep_enable - KAV_IOC_EP_ENABLE, on an endpoint fd
 * @size: sizeof(struct kav_ep_enable)
 * @flags: must be 0
 * @keys: out: bit n set for each key handle n the endpoint now uses
 *
 * Enabling snapshots the AV's current auth keys: keys inserted later do
 * not apply to the endpoint, and a key it uses cannot be removed (EBUSY)
 * until the endpoint fd is closed. Errors: EINVAL (flags), EALREADY
 * (already enabled).
 */
struct kav_ep_enable {
	__u32 size;
	__u32 flags;
	__aligned_u64 keys;
};

/**
 * struct kav_domain_key - KAV_IOC_DOMAIN_SET_KEY, on a domain fd
 * @size: sizeof(struct kav_domain_key)
 * @flags: must be 0
 * @key: the domain's auth key (libfabric's domain_attr->auth_key)
 *
 * Binds the domain to @key, once, before any AV is created. The opener's
 * identity (captured at open) must hold a grant for the key. Every AV the
 * domain creates then holds the key in slot 0 (KAV_KEY_DOMAIN), and
 * entries the domain inserts without an explicit key handle, into any AV,
 * are bound to the slot holding this key (EACCES if the AV holds none).
 * Errors: EINVAL (flags, reserved), EACCES (no grant for the key),
 * EALREADY (already set), EBUSY (the domain already has AVs).
 */
struct kav_domain_key {
	__u32 size;
	__u32 flags;
	struct kav_auth_key key;
};

/*
 * Bytes of a grant's or pin's tag, without the terminating NUL. A tag is
 * printable ASCII, 0x20 (space) to 0x7e, NUL-terminated, with nothing
 * after the NUL; "" is no tag.
 */
#define KAV_TAG_MAX		63

/**
 * struct kav_grant_info - one grant, as KAV_IOC_DOMAIN_WHOAMI reports it
 * @id: the grant's id (kavctl grant show ID)
 * @vni: the key it grants
 * @sel_type: enum kav_grant_selector: which part of the identity matched
 * @sel_id: the uid or gid (KAV_SEL_UID, KAV_SEL_GID) in the caller's user
 *	namespace (the overflow id when it has none there), else 0
 * @sel_cookie: the cgroup id (KAV_SEL_CGROUP) or network namespace
 *	cookie (KAV_SEL_NETNS), else 0
 * @limit_entries: entries allowed under the grant; 0: no limit
 * @nr_entries: entries charged to the grant now: written, in any AV, by
 *	identities it authorised for the entry's key (everyone's)
 * @limit_avs: AVs allowed to hold the key under the grant; 0: no limit
 * @nr_avs: key slots (AVs) holding the key under the grant now
 * @tag: the administrator's tag, NUL-terminated ("" when none)
 */
struct kav_grant_info {
	__u32 id;
	__u32 vni;
	__u32 sel_type;
	__u32 sel_id;
	__aligned_u64 sel_cookie;
	__aligned_u64 limit_entries;
	__aligned_u64 nr_entries;
	__u32 limit_avs;
	__u32 nr_avs;
	char tag[KAV_TAG_MAX + 1];
};

/* struct kav_whoami.status */
#define KAV_WHOAMI_KEYED	0x1U	/* the domain has a key: @key_vni */
#define KAV_WHOAMI_KEY_REVOKED	0x2U	/* ... and its grant was revoked */
#define KAV_WHOAMI_KEYLESS_OK	0x4U	/* allow_keyless is on */

/**
 * struct kav_whoami - KAV_IOC_DOMAIN_WHOAMI, on a domain fd
 * @size: sizeof(struct kav_whoami)
 * @flags: must be 0
 * @uid: out: the opener's euid, in the caller's user namespace
 * @gid: out: the opener's egid, in the caller's user namespace
 * @cgroup_id: out: the opener's cgroup (v2) at open
 * @netns_cookie: out: the opener's network namespace at open
 * @ipc_ns: out: inode number of the IPC namespace its AV names live in
 * @status: out: KAV_WHOAMI_*
 * @key_vni: out: the domain's key, with KAV_WHOAMI_KEYED; else 0
 * @nr_grants: out: grants that match the identity now, for any key
 * @max_grants: in: room in @grants, in elements (0: only count)
 * @grant_size: in: bytes per element of @grants, 112 (the first struct
 *	kav_grant_info) to 4096; the kernel writes what both sides know of
 *	each element and zeroes the rest
 * @grants: user pointer to @max_grants elements, or 0
 * @__reserved: must be 0
 *
 * Any tenant may ask about its own domain: no privilege is needed, and
 * only grants that match the domain's captured identity are reported.
 * The first min(@nr_grants, @max_grants) elements are written, in grant
 * id order; call with @max_grants 0 to size the array first. Grants can
 * come and go between two calls: compare @nr_grants with @max_grants.
 * Errors: EINVAL (flags, reserved, a non-zero @max_grants with a
 * @grant_size out of range), EFAULT.
 */
struct kav_whoami {
	__u32 size;
	__u32 flags;
	__u32 uid;
	__u32 gid;
	__aligned_u64 cgroup_id;
	__aligned_u64 netns_cookie;
	__u32 ipc_ns;
	__u32 status;
	__u32 key_vni;
	__u32 nr_grants;
	__u32 max_grants;
	__u32 grant_size;
	__aligned_u64 grants;
	__aligned_u64 __reserved;
};

/*
 * An AV fd opened with KAV_AV_RDONLY can only be mapped: INSERT, REMOVE,
 * KEY_INSERT, KEY_REMOVE, SET_USER_ID and EP_OPEN (an enabled endpoint
 * pins the AV's keys) on it fail with EPERM.
 */
#define KAV_IOC_AV_CREATE	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_CREATE)
#define KAV_IOC_AV_INSERT	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_INSERT)
#define KAV_IOC_AV_REMOVE	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_REMOVE)
#define KAV_IOC_AV_KEY_INSERT	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_KEY_INSERT)
#define KAV_IOC_AV_KEY_REMOVE	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_KEY_REMOVE)
#define KAV_IOC_AV_SET_USER_ID	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_SET_USER_ID)
#define KAV_IOC_AV_EP_OPEN	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_EP_OPEN)
#define KAV_IOC_EP_ENABLE	_IO(KAV_IOCTL_TYPE, KAV_CMD_EP_ENABLE)
#define KAV_IOC_DOMAIN_SET_KEY	_IO(KAV_IOCTL_TYPE, KAV_CMD_DOMAIN_SET_KEY)
#define KAV_IOC_DOMAIN_WHOAMI	_IO(KAV_IOCTL_TYPE, KAV_CMD_DOMAIN_WHOAMI)

/*
 * The table mapping: mmap(NULL, map_size, PROT_READ, MAP_SHARED, av_fd, 0).
 * Writable or executable mappings are refused (EACCES) and mprotect()
 * cannot add either.
 * Pages are allocated as the table grows and never move; touching a page
 * beyond nr_slots may raise SIGBUS, so readers check nr_slots first.
 */
#define KAV_TABLE_MAGIC		0x5456414bU	/* "KAVT" little-endian */
#define KAV_TABLE_VERSION	4

/**
 * struct kav_table_header - first page of the mapping
 * @magic: KAV_TABLE_MAGIC
 * @version: KAV_TABLE_VERSION
 * @header_size: byte offset of entry 0 in the mapping (one page)
 * @entry_size: bytes per entry, a power of two, never straddling a page
 * @addr_format: enum kav_addr_format
 * @addr_max: largest address an entry holds
 * @max_entries: entries the table can ever hold
 * @map_size: bytes of the whole mapping: header_size, then max_entries *
 *	entry_size of entries (page aligned), then the fi_addr array
 *	(max_entries * 8, page aligned; none in a job table), then a job
 *	table's index (@index_offset)
 * @nr_slots: entries [0, nr_slots) are backed by pages and may be read;
 *	published with release semantics after their page exists; it never
 *	decreases, so a reader may cache it as a bound
 * @key_gen: key generation: advanced (release) after every key slot
 *	insert, remove, user id change or revocation has completed, so a
 *	reader that cached the key slots knows they are still current while
 *	@key_gen is unchanged (ENTRY_GET flags NLM_F_DUMP_INTR when it moved)
 * @keys_offset: byte offset in the header page of the auth-key slots
 *	(struct kav_key_slot[max_keys]); slot n is key handle n
 * @max_keys: KAV_MAX_AUTH_KEYS
 * @fi_addrs_offset: byte offset in the mapping of the fi_addr array: a
 *	__u64 per entry, max_entries of them, that holds the entry's index
 *	while it is valid and KAV_NONE (FI_ADDR_NOTAVAIL) otherwise; like
 *	entries, element n may be read when n < nr_slots. This is the array
 *	libfabric's named-AV users read through fi_av_attr.map_addr.
 *	0: the table has no fi_addr array. A job table (KAV_AV_JOB) has
 *	none: it never removes an entry, so element n would be n for every
 *	n < nr_slots.
 * @key_counts_offset: byte offset in the header page of the key slots'
 *	counters (struct kav_key_count[max_keys]), kept apart from the slots
 *	because every batch changes them
 * @index_buckets: 0 (no address index), or for a job table (KAV_AV_JOB)
 *	the number of buckets of its index, a power of two
 * @index_offset: byte offset in the mapping of the index's buckets
 *	(right after the entries: a job table has no fi_addr array), a
 *	__u32 per bucket, all of them readable: 0 for an empty bucket, else
 *	1 + the index of the bucket's newest entry
 * @index_next_offset: byte offset in the mapping of the index's chains:
 *	a __u32 per entry (readable, like entries, below nr_slots), 0 at a
 *	chain's end, else 1 + the index of the next (older) entry of the
 *	bucket. An entry is linked, with release semantics, only once it is
 *	complete and valid, and never unlinked (job tables never remove).
 *	Address a of length n under key handle k is in bucket
 *	kav_index_hash(a, n, k, index_seed) & (index_buckets - 1) when
 *	@index_hash is KAV_INDEX_HASH_FNV1A; a reader follows the chain (at
 *	most nr_slots steps) and compares each entry it reaches, under the
 *	entry's seq, by addr_len, address bytes and auth_key. Finding
 *	nothing proves nothing: insert, and the kernel decides. The kernel
 *	itself never walks these chains (anyone who reads this header can
 *	aim addresses at one bucket): its find-or-insert uses an index of
 *	its own under a secret key.
 * @index_hash: which hash places addresses in the buckets above: 0 (no
 *	index) or KAV_INDEX_HASH_FNV1A. A reader that does not know the
 *	value must not use the index (it may still insert: the kernel finds
 *	an address already there), so the hash can change without a new
 *	@version.
 * @__reserved0: 0
 * @index_seed: the hash's seed, random per table; public, like the hash
 * @__reserved: 0; keeps what follows off the cache lines above
 * @generation: table sequence; odd while a window of a batch is being
 *	applied, even otherwise, advanced by 2 for every window: a batch is
 *	published in windows of a bounded number of entries (64), so a
 *	snapshot between two even, equal reads may see a batch in part, up
 *	to a window boundary (each entry whole, @nr_valid exact)
 * @nr_valid: number of entries currently valid
 *
 * The first 112 bytes change rarely (@nr_slots when a page is added,
 * @key_gen on key changes; the rest never after creation) and are what
 * lookups read; @generation and @nr_valid, which every batch writes, sit
 * at byte 128, on the next cache line, so a writer does not take the
 * readers' lines from them.
 */
struct kav_table_header {
	__u32 magic;
	__u32 version;
	__u32 header_size;
	__u32 entry_size;
	__u32 addr_format;
	__u32 addr_max;
	__aligned_u64 max_entries;
	__aligned_u64 map_size;
	__aligned_u64 nr_slots;
	__aligned_u64 key_gen;
	__u32 keys_offset;
	__u32 max_keys;
	__aligned_u64 fi_addrs_offset;
	__u32 key_counts_offset;
	__u32 index_buckets;
	__aligned_u64 index_offset;
	__aligned_u64 index_next_offset;
	__u32 index_hash;
	__u32 __reserved0;
	__aligned_u64 index_seed;
	__u32 __reserved[4];
	__aligned_u64 generation;
	__aligned_u64 nr_valid;
};

/*
 * Socket addresses are stored normalised, so that one endpoint is one
 * address (and one entry of a job table): what tells no two endpoints
 * apart is cleared by the kernel before an address is stored or
 * compared. IPv4: sin_zero. IPv6: sin6_flowinfo, and sin6_scope_id
 * unless the address is link-local unicast (fe80::/10) or interface- or
 * link-local multicast (ff01::/16, ff02::/16), where the scope names the
 * interface. Readers that look an address up in the mapping normalise
 * it the same way first. @len is the sockaddr's length (16 or 28);
 * other families and string addresses are left alone.
 */
#define KAV_AF_INET		2	/* AF_INET */
#define KAV_AF_INET6		10	/* AF_INET6 */

static inline void kav_sockaddr_normalize(void *addr, __u32 len)
{
	__u8 *p = (__u8 *)addr;
	const __u8 *a6 = p + 8;		/* sin6_addr */
	__u16 family;
	int scoped;

	__builtin_memcpy(&family, p, sizeof(family));
	if (family == KAV_AF_INET && len >= 16) {
		__builtin_memset(p + 8, 0, 8);		/* sin_zero */
	} else if (family == KAV_AF_INET6 && len >= 28) {
		scoped = (a6[0] == 0xfe && (a6[1] & 0xc0) == 0x80) ||
			 (a6[0] == 0xff && ((a6[1] & 0x0f) == 1 ||
					    (a6[1] & 0x0f) == 2));
		__builtin_memset(p + 4, 0, 4);		/* sin6_flowinfo */
		if (!scoped)
			__builtin_memset(p + 24, 0, 4);	/* sin6_scope_id */
	}
}

/* struct kav_table_header.index_hash */
#define KAV_INDEX_HASH_FNV1A	1U

/*
 * The mapped address index's hash, KAV_INDEX_HASH_FNV1A: 64-bit FNV-1a
 * over the address bytes, its offset basis mixed with the key handle and
 * the table's index_seed, folded to 32 bits. The kernel (writing the
 * mapped chains) and readers compute it with this one function. It is
 * public: nothing may rely on it to spread addresses an adversary picks.
 */
static inline __u32 kav_index_hash(const void *addr, __u32 len, __u64 key,
				   __u64 seed)
{
	const __u8 *p = (const __u8 *)addr;
	__u64 h = 0xcbf29ce484222325ULL ^ key ^ seed;
	__u32 i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return (__u32)(h ^ (h >> 32));
}

/* struct kav_key_slot.flags */
#define KAV_KEY_VALID		0x1U
#define KAV_KEY_REVOKED		0x2U	/* its grant was revoked: unusable */
#define KAV_KEY_DOMAIN		0x4U	/* the domain's key (slot 0) */

/**
 * struct kav_key_slot - one auth key of the AV, in the header page
 * @seq: sequence (64 bits), read as struct kav_entry's
 * @flags: KAV_KEY_*
 * @vni: the key (struct kav_auth_key.vni)
 * @user_id: user id reported for the key, or KAV_NONE
 * @__reserved: 0
 *
 * Only key changes (insert, remove, revocation, user id) write a slot, so
 * readers that resolve an entry's key find its line clean.
 */
struct kav_key_slot {
	__aligned_u64 seq;
	__u32 flags;
	__u32 vni;
	__aligned_u64 user_id;
	__aligned_u64 __reserved;
};

/**
 * struct kav_key_count - what uses key slot n (key_counts_offset + n * 8)
 * @nr_entries: entries bound to the key
 * @nr_endpoints: enabled endpoints using the key
 *
 * Every batch that binds or unbinds entries writes these, so they live
 * apart from the slots. Each is written whole (no sequence counter): read
 * them as a report, not as part of a slot's consistent copy.
 */
struct kav_key_count {
	__u32 nr_entries;
	__u32 nr_endpoints;
};

/* struct kav_entry.flags */
#define KAV_ENTRY_VALID		0x1U

/* struct kav_entry.user_id (and key slots' user_id) when none is set */
#define KAV_NONE		(~(__u64)0)

/* struct kav_entry.auth_key when the entry is bound to no key */
#define KAV_ENTRY_NO_KEY	0xffU

/**
 * struct kav_entry - one table entry (header_size + index * entry_size)
 * @seq: entry sequence (32 bits, as the kernel's seqcount_t); odd while
 *	the kernel writes the entry. A reader loads seq (acquire), copies
 *	the entry, orders the copy before a second load of seq (acquire
 *	fence), and retries if the two differ or are odd.
 * @addr_len: bytes of @addr in use (for KAV_ADDR_STR, including the
 *	terminating NUL); never more than the header's addr_max
 * @flags: KAV_ENTRY_*
 * @auth_key: auth-key handle (key slot, 0..KAV_MAX_AUTH_KEYS - 1) the
 *	entry is bound to, or KAV_ENTRY_NO_KEY
 * @user_id: user id reported for the entry, or KAV_NONE
 * @addr: the address, addr_len bytes, zero after them
 *
 * 16 bytes before the address, so entry_size (a power of two) is 32 for
 * IPv4, 64 for IPv6 and KAV_ADDR_SOCKADDR, 128 for KAV_ADDR_STR.
 */
struct kav_entry {
	__u32 seq;
	__u16 addr_len;
	__u8 flags;
	__u8 auth_key;
	__aligned_u64 user_id;
	__u8 addr[];
};

/*
 * Administration: the generic netlink family "kav", version 1.
 *
 * Every command needs CAP_NET_ADMIN in the initial user namespace
 * (GENL_ADMIN_PERM), and so does joining the "admin" multicast group.
 * Attributes are flat; 64-bit ones are padded with KAV_A_PAD. Each
 * command has its own policy: an attribute it does not take is refused
 * (EINVAL, with an extack message naming it).
 * KAV_A_ENTRY_BYTES is per entry slot in AV_GET and per valid entry (all
 * of the module's memory over all entries) in STATS_GET. Errors carry
 * extack messages. Documentation/admin-guide.rst describes each command;
 * Documentation/netlink/specs/kav.yaml is the family's YNL description.
 *
 * Grants are idempotent: a GRANT_ADD whose key, selector and tag (none is
 * a tag too) equal a live grant's makes that grant's limits the ones the
 * request gives (an absent limit is no limit) and replies with it and
 * KAV_A_GRANT_UPDATED, instead of adding a second grant. GRANT_SET
 * changes the limits and the tag of grant KAV_A_GRANT_ID in place (a
 * limit below what is in use refuses new charges and takes nothing
 * away; a tag that another live grant with the same key and selector
 * has is EEXIST). GRANT_GET with KAV_A_GRANT_ID replies with that grant; as a
 * dump it takes KAV_A_VNI and KAV_A_TAG as filters. AV_PIN takes an
 * optional KAV_A_TAG, reported with the AV while it is pinned. Dumps set
 * NLM_F_DUMP_INTR on a message when the list changed while the dump was
 * in progress: start it again for a consistent view. ENTRY_GET's list is
 * the AV's entries and key slots: a batch, a user id change, a key
 * insert or removal or a revocation in that AV while it is dumped flags
 * it; nothing else does.
 */
#define KAV_GENL_NAME		"kav"
#define KAV_GENL_VERSION	1
#define KAV_GENL_MCGRP_ADMIN	"admin"

enum kav_genl_cmd {
	KAV_GENL_CMD_UNSPEC,
	KAV_GENL_CMD_GRANT_ADD,		/* grant a key to an identity */
	KAV_GENL_CMD_GRANT_DEL,		/* revoke a grant (KAV_A_GRANT_ID) */
	KAV_GENL_CMD_GRANT_GET,		/* dump grants */
	KAV_GENL_CMD_DOMAIN_GET,	/* dump domains and their owners */
	KAV_GENL_CMD_AV_GET,		/* dump AVs and their sizes */
	KAV_GENL_CMD_ENTRY_GET,		/* dump one AV's entries (KAV_A_AV_ID) */
	KAV_GENL_CMD_STATS_GET,		/* counters, denials by reason */
	KAV_GENL_CMD_AV_NEW,		/* notification: AV created */
	KAV_GENL_CMD_AV_DEL,		/* notification: AV destroyed */
	KAV_GENL_CMD_AV_PIN,		/* keep a named AV (KAV_A_AV_ID) */
	KAV_GENL_CMD_AV_UNPIN,		/* drop that pin (KAV_A_AV_ID) */
	KAV_GENL_CMD_GRANT_SET,		/* change a grant's limits or tag */
	KAV_GENL_CMD_WIRE_SET,		/* wire mode, ports, mark (kav_wire) */
	KAV_GENL_CMD_WIRE_GET,		/* wire settings, scope, counters */
	KAV_GENL_CMD_WIRE_NET_ADD,	/* a scope prefix or an exemption */
	KAV_GENL_CMD_WIRE_NET_DEL,	/* remove one (KAV_A_WIRE_NET) */
	KAV_GENL_CMD_WIRE_DROP,		/* notification: wire drops began */
	__KAV_GENL_CMD_MAX,
};

#define KAV_GENL_CMD_MAX	(__KAV_GENL_CMD_MAX - 1)

/* Grant selectors: exactly one per grant. */
enum kav_grant_selector {
	KAV_SEL_UID = 1,	/* euid (KAV_A_SEL_ID) */
	KAV_SEL_GID,		/* egid or supplementary group (KAV_A_SEL_ID) */
	KAV_SEL_CGROUP,		/* cgroup v2 and its descendants */
	KAV_SEL_NETNS,		/* network namespace */
};

enum kav_genl_attr {
	KAV_A_UNSPEC,
	KAV_A_PAD,
	KAV_A_GRANT_ID,		/* u32 */
	KAV_A_VNI,		/* u32: struct kav_auth_key.vni */
	KAV_A_SEL_TYPE,		/* u32: enum kav_grant_selector */
	KAV_A_SEL_ID,		/* u32: uid or gid (in the initial userns) */
	KAV_A_SEL_CGROUP_PATH,	/* string: path below the cgroup2 root */
	KAV_A_SEL_CGROUP_ID,	/* u64: in: alternative to the path; out */
	KAV_A_SEL_NETNS_FD,	/* s32: fd of /proc/PID/ns/net or /run/netns/X */
	KAV_A_SEL_NETNS_COOKIE,	/* u64: out */
	KAV_A_LIMIT_ENTRIES,	/* u64: entries under the grant; 0: no limit */
	KAV_A_LIMIT_AVS,	/* u32: AVs using the grant; 0: no limit */
	KAV_A_NR_ENTRIES,	/* u64: out */
	KAV_A_NR_AVS,		/* u32: out */
	KAV_A_DOMAIN_ID,	/* u32: out */
	KAV_A_AV_ID,		/* u32: in (ENTRY_GET), out */
	KAV_A_UID,		/* u32: out, owner's euid */
	KAV_A_GID,		/* u32: out, owner's egid */
	KAV_A_CGROUP_ID,	/* u64: out, owner's cgroup at open */
	KAV_A_NETNS_COOKIE,	/* u64: out, owner's netns at open */
	KAV_A_PID,		/* u32: out, opener's tgid (in the initial pidns) */
	KAV_A_ADDR_FORMAT,	/* u32: out, enum kav_addr_format */
	KAV_A_MEM_BYTES,	/* u64: out, kernel memory of the object */
	KAV_A_ENTRY_INDEX,	/* u64: out */
	KAV_A_ENTRY_ADDR,	/* binary: out */
	KAV_A_KEY_REVOKED,	/* flag: out */
	KAV_A_STAT_DOMAINS,	/* u64: out */
	KAV_A_STAT_AVS,		/* u64: out */
	KAV_A_STAT_ENTRIES,	/* u64: out */
	KAV_A_STAT_GRANTS,	/* u64: out */
	KAV_A_STAT_DENY_NO_GRANT,	/* u64: out, denials: key not granted */
	KAV_A_STAT_DENY_REVOKED,	/* u64: out, denials: key revoked */
	KAV_A_STAT_DENY_KEYLESS,	/* u64: out, denials: no key, keyless off */
	KAV_A_STAT_DENY_LIMIT,		/* u64: out, denials: grant limit */
	KAV_A_AV_NAME,		/* binary: out, a named AV's name */
	KAV_A_AV_MODE,		/* u32: out, a named AV's mode bits */
	KAV_A_AV_PINNED,	/* flag: out, pinned by an administrator */
	KAV_A_IPC_NS,		/* u32: out, the name's IPC namespace (inode) */
	KAV_A_NR_OPEN,		/* u32: out, open AV file descriptions */
	KAV_A_ENTRY_BYTES,	/* u32: out, kernel bytes per entry */
	KAV_A_TAG,		/* string: a grant's or pin's tag */
	KAV_A_GRANT_UPDATED,	/* flag: out, GRANT_ADD updated a grant */
	KAV_A_STAT_DENY_MODE,	/* u64: out, denials: named AV mode bits */
	KAV_A_AV_JOB,		/* flag: out, a job's table (KAV_AV_JOB);
				 * KAV_A_GRANT_ID is its job's grant
				 */
	KAV_A_GRANT_WIRE,	/* flag: the grant's key applies on the wire */
	KAV_A_WIRE_MODE,	/* u32: enum kav_wire_mode */
	KAV_A_WIRE_PORT_MIN,	/* u32: fabric ports, first (1..65535) */
	KAV_A_WIRE_PORT_MAX,	/* u32: fabric ports, last */
	KAV_A_WIRE_MARK,	/* u32: esp: mark base (low 20 bits 0) */
	KAV_A_WIRE_NET,		/* binary: struct kav_wire_net */
	KAV_A_WIRE_DROPS,	/* u64: out, packets refused (a grant's) */
	KAV_A_WIRE_PASSED,	/* u64: out, packets in scope delivered */
	KAV_A_WIRE_DROP_REASON,	/* u32: out, enum kav_wire_drop (notify) */
	KAV_A_WIRE_DROP_COUNTS,	/* binary: out, u64[KAV_WIRE_DROP_NR] */
	KAV_A_WIRE_ABORTS,	/* u64: out, sockets aborted on revocation */
	__KAV_A_MAX,
};

#define KAV_A_MAX		(__KAV_A_MAX - 1)

/*
 * Wire enforcement (Documentation/wire.rst). With a mode other than
 * KAV_WIRE_OFF and at least one scope prefix, kav checks every TCP
 * segment and UDP datagram in the fabric scope, in every network
 * namespace: it is delivered only if the sender's wire key equals the
 * receiver's and neither is 0. A socket's wire key is the key of the
 * live grants with KAV_A_GRANT_WIRE that match the socket's owner (uid,
 * cgroup and its ancestors, network namespace; never a gid); two
 * different keys match: 0 (fails closed). Wire keys are below
 * KAV_WIRE_KEY_LIMIT (they fit the IPv6 flow label).
 *
 * In scope: the destination address is in a scope prefix, or, when a
 * port range is set, the packet stays on this node (it leaves through
 * the loopback device, whatever its address); when a port range is set,
 * the source or the destination port is in it; and it is not to an
 * exempted endpoint (address prefix, port, protocol: slurmd, NFS), nor
 * from one: a reply, sent by the socket bound to the exempted port, or
 * received by a socket connected to that endpoint. Kernel sockets (NFS,
 * SUNRPC) are outside the rule at both ends. IPv6 and forwarded IPv4
 * fragments are reassembled first (nf_defrag), or dropped where they
 * cannot be. Between nodes the key travels in
 * the packet: KAV_WIRE_FLOWLABEL writes it into the IPv6 flow label (it
 * trusts every host on the segment); KAV_WIRE_ESP selects an IPsec ESP
 * transport SA by mark (KAV_A_WIRE_MARK | key) and takes the receiver's
 * key from the SA that authenticated the packet (its reqid).
 *
 * WIRE_SET takes any of mode, ports (both, or min 0 to clear) and mark;
 * WIRE_NET_ADD and WIRE_NET_DEL one KAV_A_WIRE_NET; WIRE_GET replies with
 * the settings, every KAV_A_WIRE_NET and the counters. Errors: EINVAL
 * (a bad value, with an extack message), EEXIST (NET_ADD of a net that
 * is there), ENOENT (NET_DEL of one that is not), ENOSPC (more than
 * KAV_WIRE_NETS_MAX nets).
 */
#define KAV_WIRE_KEY_LIMIT	0x100000U	/* 2^20 */
#define KAV_WIRE_NETS_MAX	64

enum kav_wire_mode {
	KAV_WIRE_OFF,		/* nothing is checked */
	KAV_WIRE_FLOWLABEL,	/* closed fabric: key in the IPv6 flow label */
	KAV_WIRE_ESP,		/* key from the IPsec SA (reqid) */
	__KAV_WIRE_MODE_MAX,
};

/* struct kav_wire_net.flags */
#define KAV_WIRE_NET_EXEMPT	0x1U	/* an exemption, not a scope prefix */

/**
 * struct kav_wire_net - a scope prefix, or an exempted endpoint
 * @family: AF_INET or AF_INET6
 * @prefix_len: 0..32 or 0..128; bits of @addr after it must be 0
 * @flags: KAV_WIRE_NET_*
 * @port: an exemption's port (0: every port); 0 for a scope prefix
 * @protocol: an exemption's IPPROTO_TCP or IPPROTO_UDP (0: both); 0 for
 *	a scope prefix
 * @__reserved: must be 0
 * @addr: the address, network byte order (4 bytes for AF_INET, the rest 0)
 */
struct kav_wire_net {
	__u16 family;
	__u8 prefix_len;
	__u8 flags;
	__u16 port;
	__u8 protocol;
	__u8 __reserved;
	__u8 addr[16];
};

/* Why a packet in scope was refused (KAV_A_WIRE_DROP_COUNTS index). */
enum kav_wire_drop {
	KAV_WIRE_DROP_SENDER_NO_KEY,	/* the sending socket holds no key */
	KAV_WIRE_DROP_RECEIVER_NO_KEY,	/* the receiving socket holds none */
	KAV_WIRE_DROP_MISMATCH,		/* the two keys differ */
	KAV_WIRE_DROP_NO_CARRIER,	/* no key in the packet (plaintext) */
	KAV_WIRE_DROP_NETNS,		/* from a namespace holding no key */
	KAV_WIRE_DROP_FRAGMENT,		/* a fragment not reassembled */
	KAV_WIRE_DROP_CONFLICT,		/* a socket's owner has two keys */
	KAV_WIRE_DROP_NR,
};

#endif /* _UAPI_LINUX_KAV_H */
