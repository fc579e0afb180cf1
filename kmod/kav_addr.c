// SPDX-License-Identifier: GPL-2.0
/*
 * Address formats. The kernel checks every address it stores, so that a
 * kernel consumer reading the table can trust what it finds there, and
 * normalises socket addresses (kav_sockaddr_normalize(), uapi), so that
 * padding neither makes two entries of one endpoint nor gives a tenant
 * free bits to aim an address at one bucket of an index.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>
#include "kav_core.h"

#define KAV_STR_ADDR_DEFAULT	96

/* Check @addr_format and settle the AV's largest address (0: default). */
int kav_addr_check_format(u32 addr_format, u32 *addr_max)
{
	u32 min;

	switch (addr_format) {
	case KAV_ADDR_SOCKADDR_IN:
		min = sizeof(struct sockaddr_in);
		break;
	case KAV_ADDR_SOCKADDR:
	case KAV_ADDR_SOCKADDR_IN6:
		min = sizeof(struct sockaddr_in6);
		break;
	case KAV_ADDR_STR:
		min = 2;	/* one character and its NUL */
		if (!*addr_max)
			*addr_max = KAV_STR_ADDR_DEFAULT;
		break;
	default:
		return -EINVAL;
	}
	if (!*addr_max)
		*addr_max = min;
	if (*addr_max < min || *addr_max > KAV_ADDR_MAX_LEN)
		return -EINVAL;
	return 0;
}

static int kav_sockaddr_len(u8 *addr, u32 stride, sa_family_t want)
{
	sa_family_t family;
	u32 len;

	if (stride < sizeof(family))
		return -EINVAL;
	memcpy(&family, addr, sizeof(family));
	if (want != AF_UNSPEC && family != want)
		return -EINVAL;
	if (family == AF_INET)
		len = sizeof(struct sockaddr_in);
	else if (family == AF_INET6)
		len = sizeof(struct sockaddr_in6);
	else
		return -EINVAL;
	if (stride < len)
		return -EINVAL;
	kav_sockaddr_normalize(addr, len);
	return len;
}

/*
 * A non-empty, NUL-terminated string of printable ASCII without spaces
 * (0x21-0x7e; not the kernel's isgraph(), which is Latin-1), within the
 * limits.
 */
static int kav_straddr_len(const u8 *addr, u32 stride, u32 addr_max)
{
	u32 limit = min(stride, addr_max);
	u32 len = strnlen((const char *)addr, limit);
	u32 i;

	if (!len || len == limit)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (addr[i] < 0x21 || addr[i] > 0x7e)
			return -EINVAL;
	return len + 1;
}

/*
 * Validate one address of a batch (@stride bytes at @addr, the kernel's
 * copy) for an AV of @addr_format, normalising a socket address in place.
 * Returns the number of bytes to store, or -EINVAL.
 */
int kav_addr_validate(u32 addr_format, u32 addr_max, u8 *addr,
		      u32 stride)
{
	switch (addr_format) {
	case KAV_ADDR_SOCKADDR:
		return kav_sockaddr_len(addr, stride, AF_UNSPEC);
	case KAV_ADDR_SOCKADDR_IN:
		return kav_sockaddr_len(addr, stride, AF_INET);
	case KAV_ADDR_SOCKADDR_IN6:
		return kav_sockaddr_len(addr, stride, AF_INET6);
	case KAV_ADDR_STR:
		return kav_straddr_len(addr, stride, addr_max);
	}
	return -EINVAL;
}
