// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: kav.ko cannot be unloaded while a domain fd, an AV fd
 * or a table mapping exists, and unloads cleanly once all are gone. The
 * module is loaded again afterwards (from $KAV_MODULE) for later tests.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

/* Does the file at @path contain the bytes of @what (with its NUL)? */
static bool file_has(const char *path, const char *what, bool nul)
{
	size_t n = strlen(what) + nul, len = 0;
	char *buf = NULL;
	bool found = false;
	FILE *f = fopen(path, "rb");

	if (!f)
		return false;
	if (!fseek(f, 0, SEEK_END) && ftell(f) > 0) {
		len = (size_t)ftell(f);
		buf = malloc(len);
		rewind(f);
		if (buf && fread(buf, 1, len, f) == len)
			found = memmem(buf, len, what, n) != NULL;
	}
	free(buf);
	fclose(f);
	return found;
}

#define MODPROBE_LOG	"/tmp/kav-modprobe.log"

/*
 * The kernel's modprobe for this test: logs what it is asked for and
 * loads kav.ko for kav's aliases only, as modprobe would from
 * modules.alias after depmod.
 */
static int install_fake_modprobe(char *old, size_t len)
{
	static const char script[] =
		"#!/bin/sh\n"
		"echo \"$*\" >> " MODPROBE_LOG "\n"
		"case \"$*\" in\n"
		"*net-pf-16-proto-16-family-kav*|*char-major-10-249*)\n"
		"\texec insmod \"${KAV_MODULE:-/kav.ko}\";;\n"
		"esac\n"
		"exit 1\n";
	int fd = open("/proc/sys/kernel/modprobe", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, old, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	old[n] = '\0';
	old[strcspn(old, "\n")] = '\0';
	unlink(MODPROBE_LOG);
	mkdir("/tmp", 01777);
	fd = open("/tmp/kav-modprobe", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0755);
	if (fd < 0)
		return -errno;
	n = write(fd, script, sizeof(script) - 1);
	close(fd);
	if (n != (ssize_t)sizeof(script) - 1)
		return -EIO;
	return kav_write_path("/proc/sys/kernel/modprobe", "/tmp/kav-modprobe");
}

/*
 * kav loads on demand: its first netlink request (the genl family alias)
 * and the first open of /dev/kav (misc minor 249, devname alias) each
 * load it through the kernel's modprobe.
 */
TEST(loads_on_demand_by_its_aliases)
{
	const char *ko = getenv("KAV_MODULE") ?: "/kav.ko";
	char old[256];
	struct kav_nl nl;
	struct stat st;
	int fd;

	EXPECT_TRUE(file_has(ko, "alias=net-pf-16-proto-16-family-kav", true));
	EXPECT_TRUE(file_has(ko, "alias=char-major-10-249", true));
	EXPECT_TRUE(file_has(ko, "alias=devname:kav", true));
	ASSERT_EQ(0, kav_wait_for_device());
	ASSERT_EQ(0, stat(kav_test_device(), &st));
	EXPECT_EQ(10, major(st.st_rdev));
	EXPECT_EQ(249, minor(st.st_rdev));

	ASSERT_EQ(0, install_fake_modprobe(old, sizeof(old)));
	/* The family: resolving "kav" loads the module. */
	ASSERT_EQ(0, kav_module_unload());
	EXPECT_EQ(0, kav_nl_open(&nl)) {
		TH_LOG("resolving the genl family did not load kav");
	}
	kav_nl_close(&nl);
	/* The device node: opening 10:249 loads the module. */
	ASSERT_EQ(0, kav_module_unload());
	unlink("/tmp/kav-node");
	ASSERT_EQ(0, mknod("/tmp/kav-node", S_IFCHR | 0600, makedev(10, 249)));
	fd = open("/tmp/kav-node", O_RDWR | O_CLOEXEC);
	EXPECT_LE(0, fd) {
		TH_LOG("opening 10:249 did not load kav: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	unlink("/tmp/kav-node");
	/* Asked for by those names, as modprobe finds them in modules.alias. */
	EXPECT_TRUE(file_has(MODPROBE_LOG, "net-pf-16-proto-16-family-kav",
			     false));
	EXPECT_TRUE(file_has(MODPROBE_LOG, "char-major-10-249", false));
	ASSERT_EQ(0, kav_write_path("/proc/sys/kernel/modprobe", old));
	/* Loaded either way, for the tests after this one. */
	fd = kav_module_load();
	if (fd && fd != -EEXIST)
		TH_LOG("reload: %s", strerror(-fd));
	ASSERT_EQ(0, kav_wait_for_device());
}

TEST_HARNESS_MAIN
