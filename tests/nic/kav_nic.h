/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kav_nic: a test module modelling a NIC driver that "sends" through kav's
 * in-kernel consumer API (kmod/kav_consumer.h). It is not a product: the
 * selftests use it to check, end to end, what a kernel consumer resolves.
 *
 *   open("/dev/kav_nic")          one "queue pair"
 *   KAV_NIC_IOC_BIND, arg: fd     bind it to the kav AV behind fd (an AV fd
 *                                 of the calling process): the module takes
 *                                 a reference with kav_consumer_get(), kept
 *                                 until the file is released. Once per file.
 *   KAV_NIC_IOC_SEND              resolve one fi_addr_t as a send would
 *   KAV_NIC_IOC_SCAN              resolve a range and count the outcomes
 *
 * The ioctls fail only for their own reasons (EBADF, EINVAL, EBUSY,
 * ENOTCONN: not bound, EFAULT); what kav_consumer_resolve() said is in the
 * result fields.
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

#define KAV_NIC_IOC_BIND	_IO(KAV_NIC_IOCTL_TYPE, 1)
#define KAV_NIC_IOC_SEND	_IOWR(KAV_NIC_IOCTL_TYPE, 2, struct kav_nic_send)
#define KAV_NIC_IOC_SCAN	_IOWR(KAV_NIC_IOCTL_TYPE, 3, struct kav_nic_scan)

#endif /* _UAPI_KAV_NIC_H */
