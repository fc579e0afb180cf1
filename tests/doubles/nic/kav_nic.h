/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kav_nic: a test module modelling a NIC driver that "sends" through kav's
 * in-kernel consumer API (kmod/kav_consumer.h). It is not a product: the
 * selftests use it to check, end to end, what a kernel consumer resolves.
 * Like a real driver it resolves where packets are sent, from a timer
 * (softirq), or from an irq_work (hardirq), never in the ioctl's process
 * context, and it tears down its "hardware" send queue in kav's
 * revocation callback.
 *
 *   open("/dev/kav_nic")          one "queue pair"
 *   KAV_NIC_IOC_BIND, arg: fd     bind it to the kav AV behind fd (an AV fd
 *                                 of the calling process): the module takes
 *                                 a reference with kav_consumer_get_notify(),
 *                                 kept until the file is released. Once per
 *                                 file.
 *   KAV_NIC_IOC_SEND              resolve one fi_addr_t as a send would: the
 *                                 timer resolves it, the ioctl waits
 *   KAV_NIC_IOC_SCAN              resolve a range (timer) and count outcomes
 *   KAV_NIC_IOC_STREAM_START      resolve a range over and over from the
 *                                 timer (or hardirq), until STREAM_STOP or
 *                                 release; each success programs the
 *                                 "hardware" descriptor of its destination
 *                                 (KAV_NIC_RING of them, fi_addr mod
 *                                 KAV_NIC_RING), which stays until a later
 *                                 success or the revocation callback
 *   KAV_NIC_IOC_STREAM_STOP       stop it and wait for the timer
 *   KAV_NIC_IOC_STATS             the counters (struct kav_nic_stats)
 *   KAV_NIC_IOC_LAST_RES          the raw struct kav_resolution of the last
 *                                 SEND (padding included)
 *
 * A -EAGAIN from kav_consumer_resolve() (a writer kept the entry
 * changing) is retried at the next tick for SEND and SCAN and counted
 * for streams. The ioctls fail only for their own reasons (EBADF, EINVAL,
 * EBUSY, ENOTCONN: not bound, EFAULT, EINTR); what
 * kav_consumer_resolve() said is in the result fields.
 */
#ifndef _UAPI_KAV_NIC_H
#define _UAPI_KAV_NIC_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define KAV_NIC_DEVICE_NAME	"kav_nic"
#define KAV_NIC_IOCTL_TYPE	0xBA

/* struct kav_nic_send.flags */
#define KAV_NIC_KEYED		0x1U	/* kav_resolution.keyed */

/**
 * struct kav_nic_send - KAV_NIC_IOC_SEND
 * @fi_addr: in: the fi_addr_t to send to
 * @result: out: kav_consumer_resolve()'s return value (0 or -errno)
 * @vni: out: the auth key to tag the packet with
 * @addr_len: out: bytes of @addr in use
 * @flags: out: KAV_NIC_*
 * @user_id: out: the entry's user id
 * @addr_format: out: enum kav_addr_format
 * @__reserved: out: 0
 * @addr: out: the address
 *
 * The out fields other than @result are zero unless @result is 0.
 */
struct kav_nic_send {
	__aligned_u64 fi_addr;
	__s32 result;
	__u32 vni;
	__u32 addr_len;
	__u32 flags;
	__aligned_u64 user_id;
	__u32 addr_format;
	__u32 __reserved;
	__u8 addr[480];
};

/**
 * struct kav_nic_scan - KAV_NIC_IOC_SCAN
 * @first: in: first fi_addr_t
 * @count: in: how many consecutive fi_addr_t to resolve (at most KAV_NIC_SCAN_MAX)
 * @vni: in: count @nr_vni_match for successes carrying this vni
 * @nr_ok: out: resolved
 * @nr_vni_match: out: resolved with @vni
 * @nr_invalid: out: -EINVAL (no such entry)
 * @nr_revoked: out: -EKEYREVOKED
 * @nr_denied: out: -EACCES
 * @nr_other: out: any other error
 * @last_other: out: the last such error, or 0
 * @__reserved: out: 0
 */
struct kav_nic_scan {
	__aligned_u64 first;
	__u32 count;
	__u32 vni;
	__aligned_u64 nr_ok;
	__aligned_u64 nr_vni_match;
	__aligned_u64 nr_invalid;
	__aligned_u64 nr_revoked;
	__aligned_u64 nr_denied;
	__aligned_u64 nr_other;
	__s32 last_other;
	__u32 __reserved;
};

#define KAV_NIC_SCAN_MAX	16777216U	/* 2^24 */

/* struct kav_nic_stream.flags */
#define KAV_NIC_STREAM_HARDIRQ	0x1U	/* resolve from an irq_work, not the timer */

/**
 * struct kav_nic_stream - KAV_NIC_IOC_STREAM_START
 * @first: first fi_addr_t
 * @count: how many consecutive fi_addr_t to resolve, round and round
 *	(1..KAV_NIC_SCAN_MAX)
 * @flags: KAV_NIC_STREAM_*
 */
struct kav_nic_stream {
	__aligned_u64 first;
	__u32 count;
	__u32 flags;
};

/**
 * struct kav_nic_stats - KAV_NIC_IOC_STATS: since the file was opened
 * @nr_softirq_runs: timer runs (softirq) that resolved something
 * @nr_hardirq_runs: irq_work runs (hardirq) that resolved something
 * @nr_task_runs: resolving runs in process context (never, by design)
 * @nr_ok: stream resolves that succeeded (each queued on the ring)
 * @nr_revoked: stream resolves: -EKEYREVOKED
 * @nr_denied: stream resolves: -EACCES
 * @nr_invalid: stream resolves: -EINVAL
 * @nr_again: resolves (stream or not) that returned -EAGAIN
 * @nr_other: stream resolves: any other error
 * @nr_stale: successful resolves with a vni whose revocation callback had
 *	already run (kav's guarantee says: never)
 * @nr_callbacks: revocation callbacks
 * @nr_callbacks_atomic: callbacks not in process context (never)
 * @nr_torn_down: ring descriptors the callbacks removed
 * @nr_ring_revoked: valid ring descriptors now carrying a revoked vni
 * @last_revoked_vni: the last callback's vni
 */
struct kav_nic_stats {
	__aligned_u64 nr_softirq_runs;
	__aligned_u64 nr_hardirq_runs;
	__aligned_u64 nr_task_runs;
	__aligned_u64 nr_ok;
	__aligned_u64 nr_revoked;
	__aligned_u64 nr_denied;
	__aligned_u64 nr_invalid;
	__aligned_u64 nr_again;
	__aligned_u64 nr_other;
	__aligned_u64 nr_stale;
	__aligned_u64 nr_callbacks;
	__aligned_u64 nr_callbacks_atomic;
	__aligned_u64 nr_torn_down;
	__u32 nr_ring_revoked;
	__u32 last_revoked_vni;
};

#define KAV_NIC_RING		64

/**
 * struct kav_nic_raw - KAV_NIC_IOC_LAST_RES
 * @size: out: sizeof(struct kav_resolution)
 * @__reserved: out: 0
 * @res: out: the bytes of the struct kav_resolution the last SEND's
 *	resolve filled; the module fills it with 0xa5 before each SEND's
 *	resolve, so any byte kav left unwritten shows
 */
struct kav_nic_raw {
	__u32 size;
	__u32 __reserved;
	__u8 res[504];
};

/* struct kav_nic_bind.flags */
#define KAV_NIC_BIND_NULL_REVOKE	0x1U	/* ops without .revoke */

/**
 * struct kav_nic_bind - KAV_NIC_IOC_BIND_OPS
 * @fd: an AV fd of the calling process, as for KAV_NIC_IOC_BIND
 * @flags: KAV_NIC_BIND_*; others are EINVAL
 *
 * Errors are KAV_NIC_IOC_BIND's, and kav_consumer_get_notify()'s as it
 * returned them (EINVAL for ops it refuses).
 */
struct kav_nic_bind {
	__s32 fd;
	__u32 flags;
};

#define KAV_NIC_IOC_BIND	_IO(KAV_NIC_IOCTL_TYPE, 1)
#define KAV_NIC_IOC_SEND	_IOWR(KAV_NIC_IOCTL_TYPE, 2, struct kav_nic_send)
#define KAV_NIC_IOC_SCAN	_IOWR(KAV_NIC_IOCTL_TYPE, 3, struct kav_nic_scan)
#define KAV_NIC_IOC_STREAM_START _IOW(KAV_NIC_IOCTL_TYPE, 4, struct kav_nic_stream)
#define KAV_NIC_IOC_STREAM_STOP	_IO(KAV_NIC_IOCTL_TYPE, 5)
#define KAV_NIC_IOC_STATS	_IOR(KAV_NIC_IOCTL_TYPE, 6, struct kav_nic_stats)
#define KAV_NIC_IOC_LAST_RES	_IOR(KAV_NIC_IOCTL_TYPE, 7, struct kav_nic_raw)
#define KAV_NIC_IOC_BIND_OPS	_IOW(KAV_NIC_IOCTL_TYPE, 8, struct kav_nic_bind)

#endif /* _UAPI_KAV_NIC_H */
