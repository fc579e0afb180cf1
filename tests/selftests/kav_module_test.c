// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: kav.ko cannot be unloaded while a domain fd, an AV fd
 * or a table mapping exists, and unloads cleanly once all are gone. The
 * module is loaded again afterwards (from $KAV_MODULE) for later tests.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

TEST(unload_refused_while_anything_open)
{
	struct kav_av_create c;
	void *map;
	int dom, av;

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	EXPECT_EQ(-EWOULDBLOCK, kav_module_unload());

	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av);
	map = mmap(NULL, c.map_size, PROT_READ, MAP_SHARED, av, 0);
	ASSERT_NE(MAP_FAILED, map);

	/* Only the AV fd and the mapping are left. */
	ASSERT_EQ(0, close(dom));
	EXPECT_EQ(-EWOULDBLOCK, kav_module_unload());

	/* Only the mapping is left. */
	ASSERT_EQ(0, close(av));
	EXPECT_EQ(-EWOULDBLOCK, kav_module_unload());
	EXPECT_EQ(KAV_TABLE_MAGIC, ((struct kav_table_header *)map)->magic);

	ASSERT_EQ(0, munmap(map, c.map_size));
	EXPECT_EQ(0, kav_module_unload());
	EXPECT_NE(0, access(kav_test_device(), F_OK));

	ASSERT_EQ(0, kav_module_load());
	ASSERT_EQ(0, kav_wait_for_device());
	dom = kav_open_domain();
	EXPECT_LE(0, dom);
	close(dom);
}

TEST(unload_reload_cycles)
{
	int i, dom, av;

	for (i = 0; i < 3; i++) {
		dom = kav_open_domain();
		ASSERT_LE(0, dom);
		av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN6, NULL);
		ASSERT_LE(0, av);
		/* AV first: the domain fd is then the last reference. */
		close(av);
		EXPECT_EQ(-EWOULDBLOCK, kav_module_unload());
		close(dom);
		ASSERT_EQ(0, kav_module_unload());
		ASSERT_EQ(0, kav_module_load());
		ASSERT_EQ(0, kav_wait_for_device());
	}
}

/*
 * A pinned named AV is no user of the module: with no fd or mapping left
 * the module unloads, dropping the pin (and freeing the AV: kmemleak on
 * the debug kernel would say otherwise), and comes back without it.
 */
TEST(pins_do_not_hold_the_module)
{
	struct kav_av_create c = {
		.size = sizeof(c), .flags = KAV_AV_NAMED,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)"pinned", .name_len = 6,
	};
	struct kav_nl_msg m;
	struct kav_nl nl;
	int dom;

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	ASSERT_EQ(0, kav_nl_open(&nl));
	kav_nl_req(&nl, &m, KAV_GENL_CMD_AV_PIN, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, c.av_id);
	ASSERT_EQ(0, kav_nl_talk(&nl, &m, NULL, NULL));
	kav_nl_close(&nl);
	close(c.fd);
	close(dom);

	ASSERT_EQ(0, kav_module_unload());
	ASSERT_EQ(0, kav_module_load());
	ASSERT_EQ(0, kav_wait_for_device());
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	c.flags = KAV_AV_NAMED | KAV_AV_RDONLY;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(ENOENT, errno);
	close(dom);
}

/* A freshly loaded module refuses keyless entries: allow_keyless is off. */
TEST(allow_keyless_off_by_default)
{
	char v = '?';
	int fd;

	ASSERT_EQ(0, kav_module_unload());
	ASSERT_EQ(0, kav_module_load());
	ASSERT_EQ(0, kav_wait_for_device());
	fd = open("/sys/module/kav/parameters/allow_keyless", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, read(fd, &v, 1));
	close(fd);
	EXPECT_EQ('N', v);
}

TEST_HARNESS_MAIN
