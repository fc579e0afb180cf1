// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fi_av_insertsym() ranges: "node, node + nodecnt - 1" x "service,
 * service + svccnt - 1", node-major. Pure logic, no resolution: the AV
 * resolves each node string it gets from here.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

/* dst = src + add over a 128-bit big-endian number; false on overflow. */
static bool kav_v6_add(uint8_t dst[16], const uint8_t src[16], uint64_t add)
{
	unsigned int carry = 0;
	int i;

	for (i = 15; i >= 0; i--) {
		unsigned int v = src[i] + (unsigned int)(add & 0xff) + carry;

		dst[i] = (uint8_t)v;
		carry = v >> 8;
		add >>= 8;
	}
	return !carry;
}

static int kav_sym_init_name(struct kav_sym *s, const char *node)
{
	size_t len = strlen(node), digits;
	const char *p = node + len;

	s->kind = KAV_SYM_NAME;
	if (s->nodecnt == 1) {
		/* A single node is used as given: no suffix needed. */
		memcpy(s->prefix, node, len + 1);
		return 0;
	}
	while (p > node && p[-1] >= '0' && p[-1] <= '9')
		p--;
	digits = (size_t)(node + len - p);
	/* The man page: a name needs a numeric suffix when nodecnt > 1. */
	if (!digits || digits > 19) {
		kav_refuse("fi_av_insertsym: node '%s' needs a numeric suffix "
			   "(of at most 19 digits) for nodecnt %zu", node,
			   s->nodecnt);
		return -FI_EINVAL;
	}
	s->num = strtoull(p, NULL, 10);
	if (s->num > UINT64_MAX - (s->nodecnt - 1)) {
		kav_refuse("fi_av_insertsym: node '%s' + %zu nodes overflows "
			   "its suffix", node, s->nodecnt);
		return -FI_EINVAL;
	}
	memcpy(s->prefix, node, (size_t)(p - node));
	s->prefix[p - node] = '\0';
	s->width = (int)digits;
	s->has_suffix = true;
	return 0;
}

static int kav_sym_init_v6(struct kav_sym *s, const char *node)
{
	char host[KAV_SYM_NODE_MAX];
	const char *pct = strchr(node, '%');
	size_t n = pct ? (size_t)(pct - node) : strlen(node);
	uint8_t last[16];

	if (!strchr(node, ':') || n >= sizeof(host))
		return 1;		/* not IPv6: try it as a name */
	memcpy(host, node, n);
	host[n] = '\0';
	if (inet_pton(AF_INET6, host, s->v6) != 1)
		return 1;
	if (pct) {
		if (strlen(pct) >= sizeof(s->scope)) {
			kav_refuse("fi_av_insertsym: node '%s': scope too "
				   "long", node);
			return -FI_EINVAL;
		}
		strcpy(s->scope, pct);
	}
	s->kind = KAV_SYM_IPV6;
	if (!kav_v6_add(last, s->v6, s->nodecnt - 1)) {
		kav_refuse("fi_av_insertsym: node '%s' + %zu nodes passes the "
			   "last IPv6 address", node, s->nodecnt);
		return -FI_EINVAL;
	}
	return 0;
}

int kav_sym_init(struct kav_sym *s, const char *node, size_t nodecnt,
		 const char *service, size_t svccnt)
{
	struct in_addr in;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!node || !*node || !service) {
		kav_refuse("fi_av_insertsym: node (%s) and service (%s) must "
			   "be non-empty strings", node ? node : "NULL",
			   service ? service : "NULL");
		return -FI_EINVAL;
	}
	if (!nodecnt || !svccnt) {
		kav_refuse("fi_av_insertsym: nodecnt (%zu) and svccnt (%zu) "
			   "must not be 0", nodecnt, svccnt);
		return -FI_EINVAL;
	}
	/* The total is returned as an int. */
	if (nodecnt > (size_t)INT_MAX / svccnt) {
		kav_refuse("fi_av_insertsym: nodecnt %zu x svccnt %zu is more "
			   "than INT_MAX addresses", nodecnt, svccnt);
		return -FI_EINVAL;
	}
	if (strlen(node) >= KAV_SYM_NODE_MAX) {
		kav_refuse("fi_av_insertsym: node is %zu bytes, longer than "
			   "%d", strlen(node), KAV_SYM_NODE_MAX - 1);
		return -FI_EINVAL;
	}
	s->nodecnt = nodecnt;
	s->svccnt = svccnt;
	if (kav_addr_parse_port(service, &s->port0)) {
		kav_refuse("fi_av_insertsym: service '%s' is not a port "
			   "number 0..65535 (kav takes numeric services)",
			   service);
		return -FI_EINVAL;
	}
	if (svccnt - 1 > 65535u - s->port0) {
		kav_refuse("fi_av_insertsym: service %u + %zu ports passes "
			   "port 65535", s->port0, svccnt);
		return -FI_EINVAL;
	}

	if (inet_pton(AF_INET, node, &in) == 1) {
		s->kind = KAV_SYM_IPV4;
		s->v4 = ntohl(in.s_addr);
		if (nodecnt - 1 > UINT32_MAX - s->v4) {
			kav_refuse("fi_av_insertsym: node %s + %zu nodes "
				   "passes 255.255.255.255", node, nodecnt);
			return -FI_EINVAL;
		}
		return 0;
	}
	ret = kav_sym_init_v6(s, node);
	if (ret <= 0)
		return ret;
	return kav_sym_init_name(s, node);
}

int kav_sym_node(const struct kav_sym *s, size_t i, char *buf, size_t len)
{
	uint8_t v6[16];
	struct in_addr in;
	size_t n;
	int ret;

	if (i >= s->nodecnt)
		return -FI_EINVAL;
	switch (s->kind) {
	case KAV_SYM_IPV4:
		in.s_addr = htonl(s->v4 + (uint32_t)i);
		return inet_ntop(AF_INET, &in, buf, (socklen_t)len) ?
			0 : -FI_ETOOSMALL;
	case KAV_SYM_IPV6:
		kav_v6_add(v6, s->v6, i);
		if (!inet_ntop(AF_INET6, v6, buf, (socklen_t)len))
			return -FI_ETOOSMALL;
		n = strlen(buf);
		if (n + strlen(s->scope) >= len)
			return -FI_ETOOSMALL;
		strcpy(buf + n, s->scope);
		return 0;
	case KAV_SYM_NAME:
		if (!s->has_suffix)
			ret = snprintf(buf, len, "%s", s->prefix);
		else
			ret = snprintf(buf, len, "%s%0*llu", s->prefix,
				       s->width,
				       (unsigned long long)(s->num + i));
		return ret >= 0 && (size_t)ret < len ? 0 : -FI_ETOOSMALL;
	}
	return -FI_EINVAL;
}

uint16_t kav_sym_port(const struct kav_sym *s, size_t j)
{
	return (uint16_t)(s->port0 + j);
}
