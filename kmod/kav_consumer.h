/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav's in-kernel API for consumers such as NIC drivers: resolve an
 * fi_addr_t of an AV to the address and auth key to send with, with the
 * same authorisation userspace is held to. A driver receives the AV as a
 * file descriptor from the process it serves (for example in its own
 * "bind AV" command) and keeps a reference for as long as it sends.
 *
 * Contexts, return codes, the revocation callback's guarantees, lifetimes
 * and the unload order are in Documentation/consumer-api.rst.
 *
 *   kav_consumer_get(), kav_consumer_get_notify(), kav_consumer_put():
 *	process context (they may sleep).
 *   kav_consumer_resolve(): any context (process, softirq, hardirq, NMI
 *	excepted), never sleeps, takes no lock: bounded retries, -EAGAIN.
 *   struct kav_consumer_ops.revoke: process context, may sleep.
 */
#ifndef KAV_CONSUMER_H
#define KAV_CONSUMER_H

#include <linux/types.h>
#include <linux/kav.h>

struct kav_consumer;

/**
 * struct kav_resolution - what one fi_addr_t resolves to
 * @addr: the address, @addr_len bytes (format: the AV's addr_format),
 *	zero after them
 * @addr_len: bytes of @addr in use
 * @addr_format: enum kav_addr_format
 * @vni: the auth key to tag traffic with (0 when !@keyed)
 * @keyed: 0 only for a keyless entry (module parameter allow_keyless)
 * @__pad: 0
 * @user_id: the entry's user id, or KAV_NONE
 *
 * Every byte is written by kav_consumer_resolve(), padding included (on
 * failure the whole structure is zeroed), so a driver may copy it to
 * userspace or to a device as it is.
 */
struct kav_resolution {
	u8 addr[KAV_ADDR_MAX_LEN];
	u32 addr_len;
	u32 addr_format;
	u32 vni;
	u8 keyed;
	u8 __pad[3];
	u64 user_id;
};

/**
 * struct kav_consumer_ops - what a consumer wants to be told
 * @revoke: required. An administrator revoked a grant for key @vni
 *	(GRANT_DEL). Called for every consumer on every revocation, whether
 *	or not its AV holds @vni now (it may have held it before), so a
 *	call may be spurious: look for state under @vni. Called before
 *	GRANT_DEL returns, in process context (it may sleep), with kav's
 *	consumer list mutex held, no other kav lock and not the generic
 *	netlink mutex; it must not call kav_consumer_get*() or
 *	kav_consumer_put(), and a driver must not call those while holding
 *	a lock the callback takes (the list mutex orders them). When it is
 *	called, no kav_consumer_resolve() of this consumer that returns
 *	after the call began returns an entry under the revoked grant
 *	(-EKEYREVOKED or -EACCES instead): the callback tears down what the
 *	driver built from earlier resolutions with @vni (hardware queues,
 *	cached descriptors). @vni may still resolve under another live
 *	grant of the AV file's opener; resolve again to find out.
 */
struct kav_consumer_ops {
	void (*revoke)(struct kav_consumer *c, void *priv, u32 vni);
};

struct kav_consumer *kav_consumer_get(int fd);
struct kav_consumer *kav_consumer_get_notify(int fd,
					     const struct kav_consumer_ops *ops,
					     void *priv);
void kav_consumer_put(struct kav_consumer *c);
int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res);

#endif /* KAV_CONSUMER_H */
