/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Test doubles for libkav:
 *  - fake_table_* (fake_table.h): kav table images in the kernel's exact
 *    layout;
 *  - fake_kav_*: a fake kernel. AV_CREATE makes a memfd holding a table
 *    written by fake_ktable_*() exactly as kav.ko writes its own, so
 *    libkav's real mmap() and read code run unchanged; INSERT/REMOVE
 *    validate and apply batches atomically the way the uAPI comments
 *    specify. The unit tests put it behind kav_sys_ioctl_hook
 *    (fake_kav_install(), KAV_TESTING builds); the native benchmark calls
 *    fake_kav_ioctl() from an ioctl() of its own, under the production
 *    libkav.
 *
 * The rules of issue 14 ("Trust") that libkav can see are the kernel's:
 *  - names are per (owner uid, name): a named AV_CREATE looks in, and
 *    creates in, the domain's own uid's names; KAV_AV_OWNER + owner_uid
 *    looks in that uid's and creates only if it is the caller's own
 *    (else ENOENT); an existing AV's mode bits (owner, group by gid,
 *    other) and format are checked; a name lives while an fd of its AV
 *    is open (each fd a dup of one memfd);
 *  - an fd opened KAV_AV_RDONLY only maps: INSERT, REMOVE, KEY_INSERT,
 *    KEY_REMOVE, SET_USER_ID and EP_OPEN on it fail with EPERM;
 *  - an insert without key handles binds to the slot holding the writer's
 *    own domain key (the domain that opened the AV fd), EACCES when the
 *    AV holds none; a writer without a domain key inserts keyless
 *    entries; an explicit handle needs the grant (fake_kav_grant_check).
 */
#ifndef FAKE_KAV_H
#define FAKE_KAV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kav.h>

#include "fake_table.h"

struct fake_kav_stats {
	unsigned int creates;
	uint64_t last_create_count;	/* count hint of the last AV_CREATE */
	struct kav_av_create last_create;	/* the last AV_CREATE, with
						 * what the fake wrote back */
	char last_name[KAV_NAME_MAX + 1];	/* its name, NUL-terminated */
	unsigned int inserts;		/* INSERT ioctls, failed ones too */
	unsigned int removes;
	uint32_t max_batch;		/* largest INSERT count seen */
	uint32_t last_insert_flags;	/* flags of the last INSERT */
	unsigned int key_inserts;
	unsigned int key_removes;
	unsigned int set_user_ids;
	unsigned int ep_opens;
	unsigned int ep_enables;
	unsigned int closes;		/* kav_sys_close() calls */
	unsigned int set_keys;		/* DOMAIN_SET_KEY ioctls */
};

extern struct fake_kav_stats fake_kav_stats;
/*
 * max_entries of the next AV_CREATE (default 1024; kav.ko's default is
 * FAKE_KAV_KERNEL_MAX_ENTRIES). Only the pages a table grows into are
 * written, so a large value costs address space, not memory.
 */
#define FAKE_KAV_KERNEL_MAX_ENTRIES	(1ULL << 24)
extern uint64_t fake_kav_max_entries;
/*
 * An address whose port (network order converted) equals this is refused
 * by the fake kernel with EINVAL and its err_index (-1: none).
 */
extern int fake_kav_reject_port;
/*
 * Added to every index INSERT reports (nothing else changes): lets a test
 * see what libkav does with indices beyond KAV_FI_ADDR_INDEX_MAX.
 */
extern uint64_t fake_kav_index_offset;
/* max_keys of the next AV_CREATE (default KAV_MAX_AUTH_KEYS). */
extern uint32_t fake_kav_max_keys;
/*
 * Grants, as the fake sees them: DOMAIN_SET_KEY and KEY_INSERT ask
 * fake_kav_grant_check (if set) about the key's vni and fail with what it
 * returns (e.g. -EACCES). Keyless inserts (no key handle, no domain key)
 * fail with EACCES unless fake_kav_allow_keyless (default true).
 */
extern bool fake_kav_allow_keyless;
extern int (*fake_kav_grant_check)(uint32_t vni);
/*
 * A domain fd given a key with DOMAIN_SET_KEY: AVs it creates get the key
 * in slot 0 (KAV_KEY_DOMAIN) and its inserts without key handles are bound
 * to the slot holding it. Domains are keyed by fd number: forget one
 * before its number is reused (closing it through libkav does).
 */
void fake_kav_forget_domain(int fd);
/*
 * Identity of domains: the fake meets a domain at its first ioctl and
 * gives it fake_kav_uid and fake_kav_gid (reset to the process's euid and
 * egid), or what fake_kav_domain_identity() sets for its fd.
 */
extern uint32_t fake_kav_uid, fake_kav_gid;
void fake_kav_domain_identity(int fd, uint32_t uid, uint32_t gid);
/* Revoke @vni: mark its slot KAV_KEY_REVOKED in every AV; inserts under
 * it then fail with EKEYREVOKED. */
void fake_kav_revoke(uint32_t vni);
/* Mapping of the AV behind @av_fd (NULL if none), to inspect or corrupt. */
void *fake_kav_table(int av_fd);

/*
 * The fake kernel's entry points: a kav ioctl on @fd (an AV or endpoint
 * fd the fake made, else a domain) returning 0 or -errno, and the news
 * that @fd is being closed.
 */
int fake_kav_ioctl(int fd, unsigned long req, void *arg);
void fake_kav_close(int fd);

void fake_kav_install(void);	/* hook (KAV_TESTING) + reset */
/*
 * fake_ioctl.c: ioctl() and close() of the program, for a production
 * libkav; install resets the fake with kav.ko's max_entries and points
 * KAV_DEVICE at /dev/null. fake_ioctl_enter is called around each ioctl.
 */
void fake_ioctl_install(void);
extern void (*fake_ioctl_enter)(bool entering);
void fake_kav_reset(void);	/* unhook and forget every fake AV */

#endif
