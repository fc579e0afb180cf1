/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav's in-kernel API for consumers such as NIC drivers: resolve an
 * fi_addr_t of an AV to the address and auth key to send with, with the
 * same authorisation userspace is held to. A driver receives the AV as a
 * file descriptor from the process it serves (for example in its own
 * "bind AV" command) and keeps a reference for as long as it sends.
 */
#ifndef KAV_CONSUMER_H
#define KAV_CONSUMER_H

#include <linux/types.h>
#include <linux/kav.h>

struct kav_consumer;

/**
 * struct kav_resolution - what one fi_addr_t resolves to
 * @addr: the address, @addr_len bytes (format: the AV's addr_format)
 * @addr_len: bytes of @addr in use
 * @addr_format: enum kav_addr_format
 * @vni: the auth key to tag traffic with
 * @keyed: false only for a keyless entry (module parameter allow_keyless)
 * @user_id: the entry's user id, or KAV_NONE
 */
struct kav_resolution {
	u8 addr[KAV_ADDR_MAX_LEN];
	u32 addr_len;
	u32 addr_format;
	u32 vni;
	bool keyed;
	u64 user_id;
};

/*
 * kav_consumer_get() - take a reference on the AV behind @fd (in the
 * calling task's fd table). Returns ERR_PTR(-EBADF) if @fd is not open,
 * ERR_PTR(-EINVAL) if it is not a kav AV. The AV, and so the module,
 * stay alive until kav_consumer_put().
 */
struct kav_consumer *kav_consumer_get(int fd);
void kav_consumer_put(struct kav_consumer *c);

/*
 * kav_consumer_resolve() - resolve @fi_addr (a table index; bits 32-63,
 * the caller's group and rx bits, are ignored) into @res.
 * Returns 0, or:
 *   -EINVAL       not a valid entry
 *   -EKEYREVOKED  the entry's key (or its domain's key) was revoked
 *   -EACCES       the opener of the AV file the consumer was given holds
 *                 no live grant for the entry's key (whoever created the
 *                 AV or wrote the entry), or the entry has no key and
 *                 keyless mode is off
 *   -EINTR        a fatal signal arrived while waiting for the table
 * Never sleeps on user memory; may be called from process context only.
 */
int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res);

#endif /* KAV_CONSUMER_H */
