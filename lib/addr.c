// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Addresses: validation, the kernel's staging form, printable strings and
 * name resolution. Everything but kav_addr_resolve() is pure and unit
 * tested without a kernel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

#define KAV_PREFIX_IN	"fi_sockaddr_in://"
#define KAV_PREFIX_IN6	"fi_sockaddr_in6://"

_Static_assert(offsetof(struct sockaddr_in, sin_port) ==
	       offsetof(struct sockaddr_in6, sin6_port), "port offset");

uint32_t kav_addr_kav_format(uint32_t fi_format)
{
	switch (fi_format) {
	case FI_SOCKADDR:	return KAV_ADDR_SOCKADDR;
	case FI_SOCKADDR_IN:	return KAV_ADDR_SOCKADDR_IN;
	case FI_SOCKADDR_IN6:	return KAV_ADDR_SOCKADDR_IN6;
	case FI_ADDR_STR:	return KAV_ADDR_STR;
	default:		return 0;
	}
}

const char *kav_addr_format_name(uint32_t fi_format)
{
	switch (fi_format) {
	case FI_SOCKADDR:	return "FI_SOCKADDR address";
	case FI_SOCKADDR_IN:	return "FI_SOCKADDR_IN address";
	case FI_SOCKADDR_IN6:	return "FI_SOCKADDR_IN6 address";
	case FI_ADDR_STR:	return "FI_ADDR_STR address";
	default:		return "address";
	}
}

size_t kav_addr_user_stride(uint32_t fi_format)
{
	switch (fi_format) {
	case FI_SOCKADDR_IN:	return sizeof(struct sockaddr_in);
	case FI_SOCKADDR:
	case FI_SOCKADDR_IN6:	return sizeof(struct sockaddr_in6);
	default:		return 0;
	}
}

/* The family of a caller's sockaddr, which need not be aligned. */
static sa_family_t kav_family(const void *addr)
{
	sa_family_t family;

	memcpy(&family, addr, sizeof(family));
	return family;
}

/*
 * Bytes of an FI_ADDR_STR address including its NUL; 0 when not
 * acceptable. Same rule as the kernel: printable, non-space ASCII.
 */
static size_t kav_str_size(const char *s, size_t max)
{
	size_t n = strnlen(s, max), i;

	if (!n || n >= max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	return n + 1;
}

int kav_addr_check(uint32_t fi_format, const void *addr, size_t addr_max,
		   size_t *len)
{
	size_t n = 0;

	if (!addr)
		return -FI_EINVAL;
	switch (fi_format) {
	case FI_SOCKADDR_IN:
		if (kav_family(addr) == AF_INET)
			n = sizeof(struct sockaddr_in);
		break;
	case FI_SOCKADDR_IN6:
		if (kav_family(addr) == AF_INET6)
			n = sizeof(struct sockaddr_in6);
		break;
	case FI_SOCKADDR:
		if (kav_family(addr) == AF_INET)
			n = sizeof(struct sockaddr_in);
		else if (kav_family(addr) == AF_INET6)
			n = sizeof(struct sockaddr_in6);
		break;
	case FI_ADDR_STR:
		n = kav_str_size(addr, addr_max);
		break;
	}
	if (!n || n > addr_max)
		return -FI_EINVAL;
	*len = n;
	return 0;
}

int kav_addr_stage(uint32_t fi_format, const void *addr, uint8_t *slot,
		   size_t slot_size)
{
	size_t len;
	int ret;

	ret = kav_addr_check(fi_format, addr, slot_size, &len);
	if (ret)
		return ret;
	memset(slot, 0, slot_size);
	memcpy(slot, addr, len);
	/* As the kernel stores it: padding cleared (uapi/linux/kav.h). */
	if (fi_format != FI_ADDR_STR)
		kav_sockaddr_normalize(slot, (uint32_t)len);
	return 0;
}

/* Format an IP sockaddr the way libfabric's ofi_straddr() does. */
static int kav_format_ip(const void *addr, char *out, size_t outlen)
{
	char ip[INET6_ADDRSTRLEN];
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;

	if (kav_family(addr) == AF_INET) {
		memcpy(&sin, addr, sizeof(sin));
		if (!inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip)))
			return -1;
		return snprintf(out, outlen, KAV_PREFIX_IN "%s:%u", ip,
				(unsigned int)ntohs(sin.sin_port));
	}
	memcpy(&sin6, addr, sizeof(sin6));
	if (!inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof(ip)))
		return -1;
	/* A link-local address is nothing without its interface. */
	if (sin6.sin6_scope_id)
		return snprintf(out, outlen, KAV_PREFIX_IN6 "[%s%%%u]:%u", ip,
				(unsigned int)sin6.sin6_scope_id,
				(unsigned int)ntohs(sin6.sin6_port));
	return snprintf(out, outlen, KAV_PREFIX_IN6 "[%s]:%u", ip,
			(unsigned int)ntohs(sin6.sin6_port));
}

const char *kav_addr_straddr(uint32_t fi_format, const void *addr, char *buf,
			     size_t *len)
{
	/* prefix, [address%scope]:port */
	char tmp[sizeof(KAV_PREFIX_IN6) + INET6_ADDRSTRLEN + 32];
	const char *src = tmp;
	size_t need, n;
	int ret;

	if (!addr || !len)
		return NULL;
	if (fi_format == FI_ADDR_STR) {
		src = addr;
		need = strlen(src) + 1;
	} else {
		if (kav_addr_check(fi_format, addr, KAV_SOCKADDR_MAX, &n))
			return NULL;
		ret = kav_format_ip(addr, tmp, sizeof(tmp));
		if (ret < 0 || (size_t)ret >= sizeof(tmp))
			return NULL;
		need = (size_t)ret + 1;
	}
	if (!buf || !*len) {
		*len = need;
		return NULL;
	}
	n = KAV_MIN(need, *len) - 1;
	memcpy(buf, src, n);
	buf[n] = '\0';
	*len = need;
	return buf;
}

int kav_addr_parse_port(const char *service, uint16_t *port)
{
	unsigned long v = 0;
	const char *p;

	if (!service || !*service || strlen(service) > 5)
		return -FI_EINVAL;
	for (p = service; *p; p++) {
		if (*p < '0' || *p > '9')
			return -FI_EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 65535)
		return -FI_EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* ":port" or "" (port 0) after the host part of an FI_ADDR_STR address. */
static int kav_parse_opt_port(const char *s, uint16_t *port)
{
	if (!*s) {
		*port = 0;
		return 0;
	}
	if (*s != ':')
		return -FI_EINVAL;
	return kav_addr_parse_port(s + 1, port);
}

static int kav_parse_in(const char *s, struct sockaddr_in *sin)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	uint16_t port;

	if (!n || n >= sizeof(host))
		return -FI_EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1 ||
	    kav_parse_opt_port(s + n, &port))
		return -FI_EINVAL;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return 0;
}

static int kav_parse_in6(const char *s, struct sockaddr_in6 *sin6)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE + 1];
	const char *end, *scope;
	char *pct, *stop;
	uint16_t port;
	size_t n;

	if (*s != '[' || !(end = strchr(s, ']')))
		return -FI_EINVAL;
	n = (size_t)(end - s - 1);
	if (!n || n >= sizeof(host))
		return -FI_EINVAL;
	memcpy(host, s + 1, n);
	host[n] = '\0';
	pct = strchr(host, '%');
	if (pct) {
		*pct = '\0';
		scope = pct + 1;
		if (!*scope)
			return -FI_EINVAL;
		sin6->sin6_scope_id = (uint32_t)strtoul(scope, &stop, 10);
		if (*stop)
			sin6->sin6_scope_id = if_nametoindex(scope);
		if (!sin6->sin6_scope_id)
			return -FI_EINVAL;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1 ||
	    kav_parse_opt_port(end + 1, &port))
		return -FI_EINVAL;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	return 0;
}

int kav_addr_parse_str(uint32_t fi_format, const char *str, void *out)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	int ret;

	if (!str)
		return -FI_EINVAL;
	memset(out, 0, KAV_SOCKADDR_MAX);
	if (!strncmp(str, KAV_PREFIX_IN, strlen(KAV_PREFIX_IN)) &&
	    (fi_format == FI_SOCKADDR || fi_format == FI_SOCKADDR_IN)) {
		memset(&sin, 0, sizeof(sin));
		ret = kav_parse_in(str + strlen(KAV_PREFIX_IN), &sin);
		if (!ret)
			memcpy(out, &sin, sizeof(sin));
		return ret;
	}
	if (!strncmp(str, KAV_PREFIX_IN6, strlen(KAV_PREFIX_IN6)) &&
	    (fi_format == FI_SOCKADDR || fi_format == FI_SOCKADDR_IN6)) {
		memset(&sin6, 0, sizeof(sin6));
		ret = kav_parse_in6(str + strlen(KAV_PREFIX_IN6), &sin6);
		if (!ret)
			memcpy(out, &sin6, sizeof(sin6));
		return ret;
	}
	return -FI_EINVAL;
}

int kav_addr_resolve(uint32_t fi_format, const char *node, const char *service,
		     uint16_t port, void *out)
{
	struct addrinfo hints, *res, *ai;
	int ret;

	memset(&hints, 0, sizeof(hints));
	switch (fi_format) {
	case FI_SOCKADDR_IN:	hints.ai_family = AF_INET; break;
	case FI_SOCKADDR_IN6:	hints.ai_family = AF_INET6; break;
	case FI_SOCKADDR:	hints.ai_family = AF_UNSPEC; break;
	default:		return -FI_EINVAL;
	}
	/* One socket type, so each address comes back once. */
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = service ? AI_NUMERICSERV : 0;
	ret = getaddrinfo(node, service, &hints, &res);
	if (ret) {
		kav_fail_warn("%scannot resolve node '%s'%s%s%s: %s "
			      "(getaddrinfo)", ret == EAI_NONAME ||
			      ret == EAI_NODATA ? "unknown host: " : "", node,
			      service ? " service '" : "",
			      service ? service : "", service ? "'" : "",
			      ret == EAI_SYSTEM ? strerrordesc_np(errno) :
						  gai_strerror(ret));
		return -FI_EADDRNOTAVAIL;
	}
	ret = -FI_EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > KAV_SOCKADDR_MAX)
			continue;
		memset(out, 0, KAV_SOCKADDR_MAX);
		memcpy(out, ai->ai_addr, ai->ai_addrlen);
		if (!service) {
			in_port_t p = htons(port);

			/* sin_port and sin6_port sit at the same offset. */
			memcpy((uint8_t *)out +
			       offsetof(struct sockaddr_in, sin_port),
			       &p, sizeof(p));
		}
		ret = 0;
		break;
	}
	freeaddrinfo(res);
	if (ret)
		kav_fail_warn("node '%s' has no address of the AV's family "
			      "(%s)", node, fi_format == FI_SOCKADDR_IN ?
			      "IPv4" : fi_format == FI_SOCKADDR_IN6 ? "IPv6" :
			      "IPv4 or IPv6");
	return ret;
}
