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
	KAV_CMD_AV_CREATE = 0x80,
	KAV_CMD_AV_INSERT,
	KAV_CMD_AV_REMOVE,
};

/* Address formats an AV stores. The kernel validates every address. */
enum kav_addr_format {
	KAV_ADDR_SOCKADDR = 1,	/* struct sockaddr_in or _in6, by family */
	KAV_ADDR_SOCKADDR_IN,	/* struct sockaddr_in, AF_INET */
	KAV_ADDR_SOCKADDR_IN6,	/* struct sockaddr_in6, AF_INET6 */
	KAV_ADDR_STR,		/* NUL-terminated, printable, no spaces */
};

/* Bytes of struct kav_entry before the address. */
#define KAV_ENTRY_HDR_SIZE	32
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
 * @count: expected number of entries (a hint; the table grows past it)
 * @fd: out: the new AV file descriptor (O_CLOEXEC)
 * @entry_size: out: bytes per table entry (a power of two)
 * @max_entries: out: entries the table can ever hold
 * @map_size: out: bytes to mmap() to see the whole table
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
};

/*
 * A value for err_index that the kernel never reports: preset it to tell
 * "no element to blame" from a position.
 */
#define KAV_NO_INDEX		0xffffffffU

/**
 * struct kav_av_insert - KAV_IOC_AV_INSERT, on an AV fd
 * @size: sizeof(struct kav_av_insert)
 * @flags: must be 0
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
 *
 * A batch is atomic: on success every address was inserted, each at the
 * lowest unused index; on error nothing was.
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

#define KAV_IOC_AV_CREATE	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_CREATE)
#define KAV_IOC_AV_INSERT	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_INSERT)
#define KAV_IOC_AV_REMOVE	_IO(KAV_IOCTL_TYPE, KAV_CMD_AV_REMOVE)

/*
 * The table mapping: mmap(NULL, map_size, PROT_READ, MAP_SHARED, av_fd, 0).
 * Writable mappings are refused (EACCES) and mprotect() cannot add write.
 * Pages are allocated as the table grows and never move; touching a page
 * beyond nr_slots may raise SIGBUS, so readers check nr_slots first.
 */
#define KAV_TABLE_MAGIC		0x5456414bU	/* "KAVT" little-endian */
#define KAV_TABLE_VERSION	1

/**
 * struct kav_table_header - first page of the mapping
 * @magic: KAV_TABLE_MAGIC
 * @version: KAV_TABLE_VERSION
 * @header_size: byte offset of entry 0 in the mapping (one page)
 * @entry_size: bytes per entry, a power of two, never straddling a page
 * @addr_format: enum kav_addr_format
 * @addr_max: largest address an entry holds
 * @max_entries: entries the table can ever hold
 * @map_size: header_size + max_entries * entry_size, page aligned
 * @nr_slots: entries [0, nr_slots) are backed by pages and may be read;
 *	published with release semantics after their page exists
 * @nr_valid: number of entries currently valid
 * @generation: table sequence; odd while a batch is being applied, even
 *	otherwise, advanced by 2 for every completed batch
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
	__aligned_u64 nr_valid;
	__aligned_u64 generation;
};

/* struct kav_entry.flags */
#define KAV_ENTRY_VALID		0x1U

/* struct kav_entry.auth_key and .user_id when none is set */
#define KAV_NONE		(~0ULL)

/**
 * struct kav_entry - one table entry (header_size + index * entry_size)
 * @seq: entry sequence; odd while the kernel writes the entry. A reader
 *	loads seq (acquire), copies the entry, orders the copy before a
 *	second load of seq, and retries if the two differ or are odd.
 * @flags: KAV_ENTRY_*
 * @addr_len: bytes of @addr in use (for KAV_ADDR_STR, including the
 *	terminating NUL)
 * @auth_key: auth-key handle the entry is bound to, or KAV_NONE
 * @user_id: user id reported for the entry, or KAV_NONE
 * @addr: the address, addr_len bytes
 */
struct kav_entry {
	__aligned_u64 seq;
	__u32 flags;
	__u32 addr_len;
	__aligned_u64 auth_key;
	__aligned_u64 user_id;
	__u8 addr[];
};

#endif /* _UAPI_LINUX_KAV_H */
