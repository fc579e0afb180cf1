/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Test doubles for libkav unit tests:
 *  - fake_table_*: build a kav table image (uapi/linux/kav.h layout) in
 *    any memory, writing entries with the kernel's seq protocol;
 *  - fake_kav_*: a fake kernel behind kav_sys_ioctl_hook. AV_CREATE makes a
 *    memfd holding a table, so libkav's real mmap() and lookup code run
 *    unchanged; INSERT/REMOVE validate and apply batches atomically the
 *    way the uAPI comments specify.
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

#define FAKE_PAGE	4096u

/* Bytes of a table image with these parameters (page aligned). */
size_t fake_table_size(uint32_t entry_size, uint64_t max_entries);
void fake_table_init(void *mem, uint32_t format, uint32_t addr_max,
		     uint32_t entry_size, uint64_t max_entries);
struct kav_entry *fake_table_entry(void *mem, uint64_t index);
/* Write entry @index as the kernel would (seq odd, fields, seq even). */
void fake_table_write(void *mem, uint64_t index, uint32_t flags,
		      const void *addr, uint32_t addr_len);
/* The same, also setting the entry's auth-key handle and user id. */
void fake_table_write_full(void *mem, uint64_t index, uint32_t flags,
			   const void *addr, uint32_t addr_len,
			   uint64_t auth_key, uint64_t user_id);
void fake_table_set_nr_slots(void *mem, uint64_t nr_slots);
/* Key slot @slot of a table image (keys_offset, FAKE_KEYS_OFFSET). */
struct kav_key_slot *fake_table_key(void *mem, uint32_t slot);
/* Write key slot @slot with the seq protocol. */
void fake_table_write_key(void *mem, uint32_t slot, uint32_t flags,
			  uint32_t vni, uint64_t user_id, uint32_t nr_entries,
			  uint32_t nr_endpoints);

/* Where fake tables keep their key slots. */
#define FAKE_KEYS_OFFSET	128u

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
/* max_entries of the next AV_CREATE (default 1024). */
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

void fake_kav_install(void);	/* hook + reset */
void fake_kav_reset(void);	/* unhook and forget every fake AV */

#endif
