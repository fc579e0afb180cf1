// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl: messages of the kav family as the kernel would send them (built
 * with libnl, no kernel needed): validation against kav.h's attribute
 * types, JSON and human output of every attribute, exit codes of errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "../../tools/kavctl/args.h"
#include "../../tools/kavctl/attrs.h"
#include "../../tools/kavctl/nl.h"

#define FAMILY 0x42

static struct nl_msg *mk(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd,
				    KAV_GENL_VERSION));
	return msg;
}

struct parsed {
	struct nlattr *tb[KAV_A_MAX + 1];
	uint8_t cmd;
};

static void parse_ok(struct nl_msg *msg, struct parsed *p)
{
	assert_int_equal(kc_nl_parse(msg, &p->cmd, p->tb), 0);
}

static void expect_json(struct parsed *p, uint32_t format, unsigned int flags,
			const char *want)
{
	struct kc_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	kc_json_init(&j, f, false);
	kc_json_open_object(&j);
	kc_json_attrs(&j, p->tb, format, flags);
	kc_json_close_object(&j);
	fclose(f);
	if (strcmp(buf, want) != 0)
		fail_msg("json\n%s\nexpected\n%s", buf, want);
	free(buf);
}

static void expect_human(struct parsed *p, uint32_t format, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	kc_human_attrs(f, p->tb, format);
	fclose(f);
	if (strcmp(buf, want) != 0)
		fail_msg("human\n%s\nexpected\n%s", buf, want);
	free(buf);
}

static void test_grant_uid(void **state)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_GRANT_ADD);
	struct parsed p;

	(void)state;
	assert_int_equal(nla_put_u32(msg, KAV_A_GRANT_ID, 3), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_VNI, 100), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_SEL_TYPE, KAV_SEL_UID), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_SEL_ID, 0), 0);
	assert_int_equal(nla_put_u64(msg, KAV_A_LIMIT_ENTRIES, 0), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_LIMIT_AVS, 2), 0);
	assert_int_equal(nla_put_u64(msg, KAV_A_NR_ENTRIES, 5), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_NR_AVS, 1), 0);
	parse_ok(msg, &p);
	assert_int_equal(p.cmd, KAV_GENL_CMD_GRANT_ADD);
	expect_json(&p, 0, 0,
		    "{\"grant_id\":3,\"vni\":100,"
		    "\"selector\":{\"type\":\"uid\",\"uid\":0,\"user\":\"root\"},"
		    "\"max_entries\":0,\"max_avs\":2,\"entries\":5,\"avs\":1}");
	expect_human(&p, 0,
		     " grant 3 vni 100 uid 0 (root) max-entries unlimited"
		     " max-avs 2 entries 5 avs 1");
	nlmsg_free(msg);
}

static void test_grant_others(void **state)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_GRANT_GET);
	struct parsed p;

	(void)state;
	nla_put_u32(msg, KAV_A_GRANT_ID, 4);
	nla_put_u32(msg, KAV_A_VNI, 7);
	nla_put_u32(msg, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	nla_put_string(msg, KAV_A_SEL_CGROUP_PATH, "/jobs/\"42\"");
	nla_put_u64(msg, KAV_A_SEL_CGROUP_ID, 77);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"grant_id\":4,\"vni\":7,\"selector\":{\"type\":\"cgroup\","
		    "\"path\":\"/jobs/\\\"42\\\"\",\"cgroup_id\":77}}");
	expect_human(&p, 0, " grant 4 vni 7 cgroup /jobs/\"42\" (id 77)");
	nlmsg_free(msg);

	msg = mk(KAV_GENL_CMD_GRANT_DEL);
	nla_put_u32(msg, KAV_A_GRANT_ID, 5);
	nla_put_u32(msg, KAV_A_SEL_TYPE, KAV_SEL_NETNS);
	nla_put_u64(msg, KAV_A_SEL_NETNS_COOKIE, 4097);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"grant_id\":5,\"selector\":{\"type\":\"netns\","
		    "\"netns_cookie\":4097}}");
	expect_human(&p, 0, " grant 5 netns cookie 4097");
	nlmsg_free(msg);

	/* A selector type from a newer kernel. */
	msg = mk(KAV_GENL_CMD_GRANT_GET);
	nla_put_u32(msg, KAV_A_SEL_TYPE, 9);
	nla_put_u32(msg, KAV_A_SEL_ID, 12);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0, "{\"selector\":{\"type\":9,\"id\":12}}");
	expect_human(&p, 0, " selector 9");
	nlmsg_free(msg);
}

/* The kernel reports cgroups by id; kavctl finds the path in cgroup2. */
static void test_cgroup_path(void **state)
{
	char root[] = "/tmp/kavctl-cg-XXXXXX", dir[128], want[256];
	struct nl_msg *msg;
	struct parsed p;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/jobs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(stat(dir, &st), 0);
	kc_set_cgroup2_mount(root);

	msg = mk(KAV_GENL_CMD_GRANT_GET);
	nla_put_u32(msg, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	nla_put_u64(msg, KAV_A_SEL_CGROUP_ID, st.st_ino);
	parse_ok(msg, &p);
	snprintf(want, sizeof(want),
		 "{\"selector\":{\"type\":\"cgroup\",\"path\":\"/jobs\","
		 "\"cgroup_id\":%llu}}", (unsigned long long)st.st_ino);
	expect_json(&p, 0, 0, want);
	snprintf(want, sizeof(want), " cgroup /jobs (id %llu)",
		 (unsigned long long)st.st_ino);
	expect_human(&p, 0, want);
	nlmsg_free(msg);

	rmdir(dir);
	msg = mk(KAV_GENL_CMD_GRANT_GET);
	nla_put_u32(msg, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	nla_put_u64(msg, KAV_A_SEL_CGROUP_ID, st.st_ino);
	parse_ok(msg, &p);
	snprintf(want, sizeof(want), " cgroup-id %llu",
		 (unsigned long long)st.st_ino);
	expect_human(&p, 0, want);
	nlmsg_free(msg);
	rmdir(root);
	kc_set_cgroup2_mount(NULL);
}

static void test_entry(void **state)
{
	struct sockaddr_in sin = { 0 };
	struct nl_msg *msg = mk(KAV_GENL_CMD_ENTRY_GET);
	struct parsed p;

	(void)state;
	sin.sin_family = AF_INET;
	sin.sin_port = htons(5000);
	sin.sin_addr.s_addr = htonl(0x0a000001);
	nla_put_u32(msg, KAV_A_AV_ID, 1);
	nla_put_u64(msg, KAV_A_ENTRY_INDEX, 0);
	nla_put(msg, KAV_A_ENTRY_ADDR, sizeof(sin), &sin);
	nla_put_u32(msg, KAV_A_VNI, 100);
	parse_ok(msg, &p);
	expect_json(&p, KAV_ADDR_SOCKADDR_IN, KC_PRINT_ENTRY,
		    "{\"av_id\":1,\"index\":0,\"address\":\"10.0.0.1:5000\","
		    "\"vni\":100,\"revoked\":false}");
	/* "revoked" only for entries when absent. */
	expect_json(&p, KAV_ADDR_SOCKADDR_IN, 0,
		    "{\"av_id\":1,\"index\":0,\"address\":\"10.0.0.1:5000\","
		    "\"vni\":100}");
	expect_human(&p, 0, " av 1 index 0 addr 10.0.0.1:5000 vni 100");
	nlmsg_free(msg);

	/* The message's own format wins; a revoked key. */
	msg = mk(KAV_GENL_CMD_ENTRY_GET);
	nla_put_u64(msg, KAV_A_ENTRY_INDEX, 9);
	nla_put_u32(msg, KAV_A_ADDR_FORMAT, KAV_ADDR_STR);
	nla_put(msg, KAV_A_ENTRY_ADDR, 6, "n1:42");
	nla_put_u32(msg, KAV_A_VNI, 5);
	nla_put_flag(msg, KAV_A_KEY_REVOKED);
	parse_ok(msg, &p);
	expect_json(&p, KAV_ADDR_SOCKADDR_IN, KC_PRINT_ENTRY,
		    "{\"index\":9,\"address\":\"n1:42\",\"addr_format\":\"str\","
		    "\"vni\":5,\"revoked\":true}");
	expect_human(&p, KAV_ADDR_SOCKADDR_IN,
		     " index 9 addr n1:42 format str vni 5 revoked");
	nlmsg_free(msg);
}

static void test_owners_and_stats(void **state)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_AV_NEW);
	struct parsed p;

	(void)state;
	nla_put_u32(msg, KAV_A_DOMAIN_ID, 2);
	nla_put_u32(msg, KAV_A_AV_ID, 6);
	nla_put_u32(msg, KAV_A_UID, 0);
	nla_put_u32(msg, KAV_A_GID, 0);
	nla_put_u64(msg, KAV_A_CGROUP_ID, 11);
	nla_put_u64(msg, KAV_A_NETNS_COOKIE, 12);
	nla_put_u32(msg, KAV_A_PID, 1234);
	nla_put_u32(msg, KAV_A_ADDR_FORMAT, 77);
	nla_put_u64(msg, KAV_A_MEM_BYTES, 8192);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"av_id\":6,\"domain_id\":2,\"addr_format\":77,"
		    "\"pid\":1234,\"uid\":0,\"user\":\"root\",\"gid\":0,"
		    "\"group\":\"root\",\"cgroup_id\":11,\"netns_cookie\":12,"
		    "\"mem_bytes\":8192}");
	expect_human(&p, 0,
		     " av 6 domain 2 format 77 pid 1234 uid 0 gid 0 cgroup-id 11"
		     " netns-cookie 12 mem 8.0 KiB");
	nlmsg_free(msg);

	msg = mk(KAV_GENL_CMD_STATS_GET);
	nla_put_u64(msg, KAV_A_STAT_DOMAINS, 1);
	nla_put_u64(msg, KAV_A_STAT_AVS, 2);
	nla_put_u64(msg, KAV_A_STAT_ENTRIES, 3);
	nla_put_u64(msg, KAV_A_STAT_GRANTS, 4);
	nla_put_u64(msg, KAV_A_STAT_DENY_NO_GRANT, 5);
	nla_put_u64(msg, KAV_A_STAT_DENY_REVOKED, 6);
	nla_put_u64(msg, KAV_A_STAT_DENY_KEYLESS, 7);
	nla_put_u64(msg, KAV_A_STAT_DENY_LIMIT, 8);
	nla_put_u64(msg, KAV_A_MEM_BYTES, 100);
	/* Attributes of a newer kernel are ignored. */
	nla_put_u32(msg, KAV_A_MAX + 1, 1);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"domains\":1,\"avs\":2,\"entries\":3,\"grants\":4,"
		    "\"mem_bytes\":100,\"deny_no_grant\":5,\"deny_revoked\":6,"
		    "\"deny_keyless\":7,\"deny_limit\":8}");
	nlmsg_free(msg);
}

/* A message whose @attr carries these @len bytes: parsed or refused. */
static void expect_parse(int attr, int len, const void *data, int want)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_AV_GET);
	struct parsed p;

	assert_int_equal(nla_put(msg, attr, len, data), 0);
	if (kc_nl_parse(msg, &p.cmd, p.tb) != want)
		fail_msg("attribute %d with %d bytes %s", attr, len,
			 want ? "accepted" : "refused");
	nlmsg_free(msg);
}

/* A message whose @attr has @len bytes of payload must be refused. */
static void expect_malformed(int attr, int len)
{
	static const char zeros[16];

	expect_parse(attr, len, zeros, -1);
}

static void test_validate(void **state)
{
	struct nl_msg *msg;
	struct parsed p;
	char name[32], want[32];

	(void)state;
	expect_malformed(KAV_A_VNI, 8);		/* u32 */
	expect_malformed(KAV_A_VNI, 2);
	expect_malformed(KAV_A_GRANT_ID, 0);
	expect_malformed(KAV_A_NR_ENTRIES, 4);	/* u64 */
	expect_malformed(KAV_A_STAT_DENY_LIMIT, 12);
	expect_malformed(KAV_A_KEY_REVOKED, 4);	/* flag */
	expect_malformed(KAV_A_ENTRY_ADDR, 0);	/* binary, not empty */
	expect_malformed(KAV_A_SEL_CGROUP_PATH, 0);

	/* A string without its NUL. */
	msg = mk(KAV_GENL_CMD_GRANT_GET);
	nla_put(msg, KAV_A_SEL_CGROUP_PATH, 3, "abc");
	assert_int_equal(kc_nl_parse(msg, &p.cmd, p.tb), -1);
	nlmsg_free(msg);
	/* KAV_A_PAD carries anything. */
	msg = mk(KAV_GENL_CMD_GRANT_GET);
	nla_put(msg, KAV_A_PAD, 3, "abc");
	parse_ok(msg, &p);
	nlmsg_free(msg);

	assert_string_equal(kc_attr_name(KAV_A_VNI, name, sizeof(name)),
			    "KAV_A_VNI");
	assert_string_equal(kc_attr_name(KAV_A_LIMIT_ENTRIES, name,
					 sizeof(name)), "KAV_A_LIMIT_ENTRIES");
	assert_string_equal(kc_attr_name(KAV_A_STAT_DENY_LIMIT, name,
					 sizeof(name)), "KAV_A_STAT_DENY_LIMIT");
	/* Types past KAV_A_MAX (a newer kernel's) are named by number. */
	snprintf(want, sizeof(want), "attribute type %d", KAV_A_MAX + 5);
	assert_string_equal(kc_attr_name(KAV_A_MAX + 5, name, sizeof(name)),
			    want);
}

/* Every attribute kav.h defines has a descriptor, so it is checked. */
static void test_attr_names(void **state)
{
	char name[32];
	int a;

	(void)state;
	for (a = 1; a <= KAV_A_MAX; a++)
		if (strncmp(kc_attr_name(a, name, sizeof(name)), "KAV_A_", 6))
			fail_msg("attribute %d has no descriptor", a);
	assert_string_equal(kc_attr_name(KAV_A_AV_NAME, name, sizeof(name)),
			    "KAV_A_AV_NAME");
	assert_string_equal(kc_attr_name(KAV_A_ENTRY_BYTES, name,
					 sizeof(name)), "KAV_A_ENTRY_BYTES");
}

/* The attributes of named AVs: u32s, a flag and a binary name. */
static void test_validate_named(void **state)
{
	char bytes[KAV_NAME_MAX + 1];
	uint32_t v = 0600;

	(void)state;
	expect_malformed(KAV_A_AV_MODE, 8);		/* u32 */
	expect_malformed(KAV_A_AV_MODE, 2);
	expect_malformed(KAV_A_IPC_NS, 8);
	expect_malformed(KAV_A_NR_OPEN, 0);
	expect_malformed(KAV_A_ENTRY_BYTES, 8);
	expect_malformed(KAV_A_AV_PINNED, 1);		/* flag */
	expect_malformed(KAV_A_AV_PINNED, 4);
	expect_parse(KAV_A_AV_MODE, 4, &v, 0);
	expect_parse(KAV_A_IPC_NS, 4, &v, 0);
	expect_parse(KAV_A_NR_OPEN, 4, &v, 0);
	expect_parse(KAV_A_ENTRY_BYTES, 4, &v, 0);
	expect_parse(KAV_A_AV_PINNED, 0, &v, 0);

	/* Names: 1..KAV_NAME_MAX bytes, any but NUL. */
	memset(bytes, 'n', sizeof(bytes));
	expect_malformed(KAV_A_AV_NAME, 0);
	expect_parse(KAV_A_AV_NAME, 1, bytes, 0);
	expect_parse(KAV_A_AV_NAME, KAV_NAME_MAX, bytes, 0);
	expect_parse(KAV_A_AV_NAME, KAV_NAME_MAX + 1, bytes, -1);
	bytes[0] = '\n';
	bytes[1] = '\xff';
	expect_parse(KAV_A_AV_NAME, 2, bytes, 0);
	bytes[1] = '\0';
	expect_parse(KAV_A_AV_NAME, 3, bytes, -1);	/* NUL inside */
	expect_parse(KAV_A_AV_NAME, 2, "a", -1);	/* NUL-terminated */
}

/* An AV_GET reply (or AV_NEW event) of a named AV. */
static struct nl_msg *mk_named(const char *name, size_t len, bool pinned)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_AV_NEW);

	nla_put_u32(msg, KAV_A_AV_ID, 6);
	nla_put_u32(msg, KAV_A_DOMAIN_ID, 2);
	nla_put_u32(msg, KAV_A_ADDR_FORMAT, KAV_ADDR_SOCKADDR_IN);
	nla_put_u64(msg, KAV_A_NR_ENTRIES, 3);
	nla_put_u64(msg, KAV_A_MEM_BYTES, 8192);
	nla_put_u32(msg, KAV_A_ENTRY_BYTES, 72);
	nla_put_u32(msg, KAV_A_NR_OPEN, 0);
	nla_put(msg, KAV_A_AV_NAME, (int)len, name);
	nla_put_u32(msg, KAV_A_AV_MODE, 0640);
	nla_put_u32(msg, KAV_A_IPC_NS, 4026531839U);
	if (pinned)
		nla_put_flag(msg, KAV_A_AV_PINNED);
	return msg;
}

#define NAMED(lit, pinned) mk_named(lit, sizeof(lit) - 1, pinned)

static void test_named_av(void **state)
{
	struct nl_msg *msg;
	struct parsed p;

	(void)state;
	/* An MPI name: the newline is escaped in both outputs. */
	msg = NAMED("mpich_kvs_42\n", true);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"av_id\":6,\"name\":\"mpich_kvs_42\\n\","
		    "\"ipc_ns\":4026531839,\"domain_id\":2,"
		    "\"addr_format\":\"sockaddr_in\",\"mode\":\"0640\","
		    "\"entries\":3,\"open\":0,\"pinned\":true,"
		    "\"mem_bytes\":8192,\"entry_bytes\":72}");
	expect_human(&p, 0,
		     " av 6 name mpich_kvs_42\\n ipc-ns 4026531839 domain 2"
		     " format sockaddr_in mode 0640 entries 3 open 0 pinned"
		     " mem 8.0 KiB mem-per-entry 72 B");
	nlmsg_free(msg);

	/* Quotes, backslashes, spaces, control and non-ASCII bytes. */
	msg = NAMED("a \"b\"\\c\t\x01\x7f\xc3\xa9\xff", false);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"av_id\":6,\"name\":\"a \\\"b\\\"\\\\c\\t\\u0001"
		    "\\u007f\xc3\xa9\\ufffd\",\"ipc_ns\":4026531839,"
		    "\"domain_id\":2,\"addr_format\":\"sockaddr_in\","
		    "\"mode\":\"0640\",\"entries\":3,\"open\":0,"
		    "\"pinned\":false,\"mem_bytes\":8192,\"entry_bytes\":72}");
	expect_human(&p, 0,
		     " av 6 name a\\x20\"b\"\\\\c\\t\\x01\\x7f\\xc3\\xa9\\xff"
		     " ipc-ns 4026531839 domain 2 format sockaddr_in mode 0640"
		     " entries 3 open 0 mem 8.0 KiB mem-per-entry 72 B");
	nlmsg_free(msg);

	/* No padding after a name of 4n bytes: its length is what counts. */
	msg = NAMED("job8byte", true);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"av_id\":6,\"name\":\"job8byte\",\"ipc_ns\":4026531839,"
		    "\"domain_id\":2,\"addr_format\":\"sockaddr_in\","
		    "\"mode\":\"0640\",\"entries\":3,\"open\":0,"
		    "\"pinned\":true,\"mem_bytes\":8192,\"entry_bytes\":72}");
	expect_human(&p, 0,
		     " av 6 name job8byte ipc-ns 4026531839 domain 2"
		     " format sockaddr_in mode 0640 entries 3 open 0 pinned"
		     " mem 8.0 KiB mem-per-entry 72 B");
	nlmsg_free(msg);

	/* An unnamed AV has no "pinned" member. */
	msg = mk(KAV_GENL_CMD_AV_GET);
	nla_put_u32(msg, KAV_A_AV_ID, 7);
	nla_put_u32(msg, KAV_A_NR_OPEN, 2);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0, "{\"av_id\":7,\"open\":2}");
	expect_human(&p, 0, " av 7 open 2");
	nlmsg_free(msg);
}

/* A STATS_GET reply as monitor -j would print its attributes. */
static void test_stats_json(void **state)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_STATS_GET);
	struct parsed p;

	(void)state;
	nla_put_u64(msg, KAV_A_STAT_DOMAINS, 1);
	nla_put_u64(msg, KAV_A_STAT_AVS, 2);
	nla_put_u64(msg, KAV_A_STAT_ENTRIES, 3);
	nla_put_u64(msg, KAV_A_STAT_GRANTS, 4);
	nla_put_u64(msg, KAV_A_MEM_BYTES, 26624);
	nla_put_u64(msg, KAV_A_STAT_DENY_NO_GRANT, 5);
	nla_put_u64(msg, KAV_A_STAT_DENY_REVOKED, 6);
	nla_put_u64(msg, KAV_A_STAT_DENY_KEYLESS, 7);
	nla_put_u64(msg, KAV_A_STAT_DENY_LIMIT, 8);
	nla_put_u32(msg, KAV_A_ENTRY_BYTES, 8875);
	nla_put_u64(msg, KAV_A_STAT_DENY_MODE, 9);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"domains\":1,\"avs\":2,\"entries\":3,\"grants\":4,"
		    "\"mem_bytes\":26624,\"entry_bytes\":8875,"
		    "\"deny_no_grant\":5,\"deny_revoked\":6,\"deny_keyless\":7,"
		    "\"deny_limit\":8,\"deny_mode\":9}");
	nlmsg_free(msg);

	/* A grant's tag and GRANT_ADD's "updated" flag. */
	msg = mk(KAV_GENL_CMD_GRANT_ADD);
	nla_put_u32(msg, KAV_A_GRANT_ID, 3);
	nla_put_string(msg, KAV_A_TAG, "slurm-77");
	nla_put_flag(msg, KAV_A_GRANT_UPDATED);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"grant_id\":3,\"tag\":\"slurm-77\",\"updated\":true}");
	expect_human(&p, 0, " grant 3 tag slurm-77 updated");
	nlmsg_free(msg);
}

/* The wire: a WIRE_DROP event, a wire grant, the WIRE_GET attributes' sizes. */
static void test_wire(void **state)
{
	struct nl_msg *msg = mk(KAV_GENL_CMD_WIRE_DROP);
	struct kav_wire_net net;
	struct parsed p;
	uint64_t drops[KAV_WIRE_DROP_NR] = { 0 };
	char want[64];

	(void)state;
	nla_put_u32(msg, KAV_A_WIRE_DROP_REASON, KAV_WIRE_DROP_SENDER_NO_KEY);
	nla_put_u32(msg, KAV_A_UID, 0);
	nla_put_u64(msg, KAV_A_CGROUP_ID, 77);
	nla_put_u64(msg, KAV_A_NETNS_COOKIE, 1);
	nla_put_u32(msg, KAV_A_VNI, 0);
	nla_put_u64(msg, KAV_A_WIRE_DROPS, 12);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"reason\":\"sender_no_key\",\"vni\":0,\"uid\":0,"
		    "\"user\":\"root\",\"cgroup_id\":77,\"netns_cookie\":1,"
		    "\"wire_drops\":12}");
	expect_human(&p, 0,
		     " reason sender-no-key vni 0 uid 0 cgroup-id 77"
		     " netns-cookie 1 wire-drops 12");
	nlmsg_free(msg);

	/* The reasons of this uapi, by name. */
	msg = mk(KAV_GENL_CMD_WIRE_DROP);
	nla_put_u32(msg, KAV_A_WIRE_DROP_REASON, KAV_WIRE_DROP_CONFLICT);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0, "{\"reason\":\"conflict\"}");
	expect_human(&p, 0, " reason conflict");
	nlmsg_free(msg);

	/* A reason from a newer kernel: its number. */
	msg = mk(KAV_GENL_CMD_WIRE_DROP);
	nla_put_u32(msg, KAV_A_WIRE_DROP_REASON, KAV_WIRE_DROP_NR);
	parse_ok(msg, &p);
	snprintf(want, sizeof(want), "{\"reason\":%d}", KAV_WIRE_DROP_NR);
	expect_json(&p, 0, 0, want);
	snprintf(want, sizeof(want), " reason %d", KAV_WIRE_DROP_NR);
	expect_human(&p, 0, want);
	nlmsg_free(msg);

	/* A wire grant (GRANT_ADD's notification, a listing). */
	msg = mk(KAV_GENL_CMD_GRANT_ADD);
	nla_put_u32(msg, KAV_A_GRANT_ID, 3);
	nla_put_u32(msg, KAV_A_VNI, 500);
	nla_put_flag(msg, KAV_A_GRANT_WIRE);
	nla_put_u64(msg, KAV_A_WIRE_DROPS, 0);
	parse_ok(msg, &p);
	expect_json(&p, 0, 0,
		    "{\"grant_id\":3,\"vni\":500,\"wire\":true,"
		    "\"wire_drops\":0}");
	expect_human(&p, 0, " grant 3 vni 500 wire wire-drops 0");
	nlmsg_free(msg);

	/* Sizes: a flag, a struct kav_wire_net, an array of u64. */
	expect_malformed(KAV_A_GRANT_WIRE, 4);
	expect_malformed(KAV_A_WIRE_MODE, 8);
	expect_malformed(KAV_A_WIRE_PASSED, 4);
	memset(&net, 0, sizeof(net));
	expect_parse(KAV_A_WIRE_NET, sizeof(net) - 1, &net, -1);
	expect_malformed(KAV_A_WIRE_DROP_COUNTS, 12);
	expect_malformed(KAV_A_WIRE_DROP_COUNTS, 4);
	expect_parse(KAV_A_WIRE_NET, sizeof(net), &net, 0);
	expect_parse(KAV_A_WIRE_DROP_COUNTS, sizeof(drops), drops, 0);
	/* Fewer counters (or more: a newer kernel's reasons) are taken. */
	expect_parse(KAV_A_WIRE_DROP_COUNTS, 8, drops, 0);
}

static void test_report(void **state)
{
	struct kc_nl nl;

	(void)state;
	memset(&nl, 0, sizeof(nl));
	nl.what = "test";
	nl.error = EPERM;
	assert_int_equal(kc_nl_report(&nl), KC_EXIT_PERM);
	nl.error = EINVAL;
	snprintf(nl.extack, sizeof(nl.extack), "vni 0 is reserved");
	assert_int_equal(kc_nl_report(&nl), KC_EXIT_FAIL);
	nl.error = EOPNOTSUPP;
	assert_int_equal(kc_nl_report(&nl), KC_EXIT_FAIL);
	nl.error = 0;
	nl.nl_error = NLE_PERM;
	assert_int_equal(kc_nl_report(&nl), KC_EXIT_PERM);
	nl.nl_error = NLE_MSG_TRUNC;
	assert_int_equal(kc_nl_report(&nl), KC_EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_uid),
		cmocka_unit_test(test_grant_others),
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_entry),
		cmocka_unit_test(test_owners_and_stats),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_validate_named),
		cmocka_unit_test(test_named_av),
		cmocka_unit_test(test_stats_json),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
