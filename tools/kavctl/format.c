// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Values as text: see format.h. */
#include <arpa/inet.h>
#include <grp.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/kav.h>

#include "format.h"

const char *kc_addr_format_name(uint32_t format)
{
	switch (format) {
	case KAV_ADDR_SOCKADDR:
		return "sockaddr";
	case KAV_ADDR_SOCKADDR_IN:
		return "sockaddr_in";
	case KAV_ADDR_SOCKADDR_IN6:
		return "sockaddr_in6";
	case KAV_ADDR_STR:
		return "str";
	default:
		return NULL;
	}
}

const char *kc_selector_name(uint32_t type)
{
	switch (type) {
	case KAV_SEL_UID:
		return "uid";
	case KAV_SEL_GID:
		return "gid";
	case KAV_SEL_CGROUP:
		return "cgroup";
	case KAV_SEL_NETNS:
		return "netns";
	default:
		return NULL;
	}
}

static void format_hex(const unsigned char *p, size_t len, char *buf,
		       size_t buflen)
{
	size_t i, o = 0;

	if (buflen < 3) {
		if (buflen)
			buf[0] = '\0';
		return;
	}
	buf[o++] = '0';
	buf[o++] = 'x';
	for (i = 0; i < len && o + 3 <= buflen; i++)
		o += snprintf(buf + o, buflen - o, "%02x", p[i]);
	buf[o] = '\0';
}

static bool format_sockaddr(const unsigned char *p, size_t len, char *buf,
			    size_t buflen)
{
	char ip[INET6_ADDRSTRLEN];
	sa_family_t family;

	if (len < sizeof(family))
		return false;
	memcpy(&family, p, sizeof(family));
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in sin;

		memcpy(&sin, p, sizeof(sin));
		if (!inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof(ip)))
			return false;
		snprintf(buf, buflen, "%s:%u", ip, ntohs(sin.sin_port));
		return true;
	}
	if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, p, sizeof(sin6));
		if (!inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof(ip)))
			return false;
		if (sin6.sin6_scope_id)
			snprintf(buf, buflen, "[%s%%%u]:%u", ip,
				 sin6.sin6_scope_id, ntohs(sin6.sin6_port));
		else
			snprintf(buf, buflen, "[%s]:%u", ip,
				 ntohs(sin6.sin6_port));
		return true;
	}
	return false;
}

/* A string up to its NUL (or @len), non-printable bytes as \xNN. */
static void format_str(const unsigned char *p, size_t len, char *buf,
		       size_t buflen)
{
	size_t i, o = 0;

	for (i = 0; i < len && p[i]; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
			if (o + 2 > buflen)
				break;
			buf[o++] = (char)p[i];
		} else {
			if (o + 5 > buflen)
				break;
			o += snprintf(buf + o, buflen - o, "\\x%02x", p[i]);
		}
	}
	buf[o] = '\0';
}

/* Does @p look like a NUL-terminated printable string? */
static bool looks_like_str(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!p[i])
			return i > 0;
		if (p[i] < 0x20 || p[i] >= 0x7f)
			return false;
	}
	return false;
}

void kc_format_addr(uint32_t format, const void *addr, size_t len,
		    char *buf, size_t buflen)
{
	const unsigned char *p = addr;

	if (!buflen)
		return;
	buf[0] = '\0';
	if (!addr || !len)
		return;
	switch (format) {
	case KAV_ADDR_STR:
		format_str(p, len, buf, buflen);
		return;
	case KAV_ADDR_SOCKADDR:
	case KAV_ADDR_SOCKADDR_IN:
	case KAV_ADDR_SOCKADDR_IN6:
		if (!format_sockaddr(p, len, buf, buflen))
			format_hex(p, len, buf, buflen);
		return;
	default:
		if (format_sockaddr(p, len, buf, buflen))
			return;
		if (looks_like_str(p, len))
			format_str(p, len, buf, buflen);
		else
			format_hex(p, len, buf, buflen);
	}
}

void kc_format_name(const void *name, size_t len, char *buf, size_t buflen)
{
	const unsigned char *p = name;
	size_t i, o = 0;

	if (!buflen)
		return;
	for (i = 0; i < len; i++) {
		const char *esc;
		char tmp[5];
		size_t n;

		switch (p[i]) {
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\r':
			esc = "\\r";
			break;
		default:
			/* Not space: a name is one word in tables and events. */
			if (p[i] > 0x20 && p[i] < 0x7f) {
				tmp[0] = (char)p[i];
				tmp[1] = '\0';
			} else {
				snprintf(tmp, sizeof(tmp), "\\x%02x", p[i]);
			}
			esc = tmp;
		}
		n = strlen(esc);
		if (o + n + 1 > buflen)
			break;
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o] = '\0';
}

void kc_format_bytes(uint64_t bytes, char *buf, size_t buflen)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB",
					     "EiB" };
	double v = (double)bytes / 1024;
	int u = 0;

	if (bytes < 1024) {
		snprintf(buf, buflen, "%" PRIu64 " B", bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, buflen, "%.1f %s", v, units[u]);
}

static long nss_bufsize(int name)
{
	long n = sysconf(name);

	return n > 0 && n < (1L << 20) ? n : 16384;
}

bool kc_user_name(uint32_t uid, char *buf, size_t buflen)
{
	struct passwd pw, *res = NULL;
	long n = nss_bufsize(_SC_GETPW_R_SIZE_MAX);
	char *tmp = malloc(n);
	bool ok = false;

	if (!tmp)
		return false;
	if (getpwuid_r(uid, &pw, tmp, n, &res) == 0 && res &&
	    strlen(res->pw_name) < buflen) {
		strcpy(buf, res->pw_name);
		ok = true;
	}
	free(tmp);
	return ok;
}

bool kc_group_name(uint32_t gid, char *buf, size_t buflen)
{
	struct group gr, *res = NULL;
	long n = nss_bufsize(_SC_GETGR_R_SIZE_MAX);
	char *tmp = malloc(n);
	bool ok = false;

	if (!tmp)
		return false;
	if (getgrgid_r(gid, &gr, tmp, n, &res) == 0 && res &&
	    strlen(res->gr_name) < buflen) {
		strcpy(buf, res->gr_name);
		ok = true;
	}
	free(tmp);
	return ok;
}

void kc_format_selector(const struct kc_sel_view *v, char *buf,
			size_t buflen)
{
	char name[256];

	switch (v->type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID: {
		bool uid = v->type == KAV_SEL_UID;

		if (!v->has_id)
			snprintf(buf, buflen, "%s ?", uid ? "uid" : "gid");
		else if (uid ? kc_user_name(v->id, name, sizeof(name)) :
			       kc_group_name(v->id, name, sizeof(name)))
			snprintf(buf, buflen, "%s %u (%s)", uid ? "uid" : "gid",
				 v->id, name);
		else
			snprintf(buf, buflen, "%s %u", uid ? "uid" : "gid",
				 v->id);
		return;
	}
	case KAV_SEL_CGROUP:
		if (v->cgroup_path && v->has_cgroup_id)
			snprintf(buf, buflen, "cgroup %s (id %" PRIu64 ")",
				 v->cgroup_path, v->cgroup_id);
		else if (v->cgroup_path)
			snprintf(buf, buflen, "cgroup %s", v->cgroup_path);
		else if (v->has_cgroup_id)
			snprintf(buf, buflen, "cgroup-id %" PRIu64,
				 v->cgroup_id);
		else
			snprintf(buf, buflen, "cgroup ?");
		return;
	case KAV_SEL_NETNS:
		if (v->has_cookie)
			snprintf(buf, buflen, "netns cookie %" PRIu64,
				 v->netns_cookie);
		else
			snprintf(buf, buflen, "netns ?");
		return;
	default:
		snprintf(buf, buflen, "selector %u", v->type);
	}
}

/* ------------------------------------------------------------- wire */

const char *kc_wire_mode_name(uint32_t mode)
{
	switch (mode) {
	case KAV_WIRE_OFF:
		return "off";
	case KAV_WIRE_FLOWLABEL:
		return "flowlabel";
	case KAV_WIRE_ESP:
		return "esp";
	default:
		return NULL;
	}
}

const char *kc_wire_drop_name(uint32_t reason, bool json)
{
	static const char *const names[KAV_WIRE_DROP_NR][2] = {
		[KAV_WIRE_DROP_SENDER_NO_KEY] = { "sender-no-key",
						  "sender_no_key" },
		[KAV_WIRE_DROP_RECEIVER_NO_KEY] = { "receiver-no-key",
						    "receiver_no_key" },
		[KAV_WIRE_DROP_MISMATCH] = { "mismatch", "mismatch" },
		[KAV_WIRE_DROP_NO_CARRIER] = { "no-carrier", "no_carrier" },
		[KAV_WIRE_DROP_NETNS] = { "netns", "netns" },
		[KAV_WIRE_DROP_FRAGMENT] = { "fragment", "fragment" },
		[KAV_WIRE_DROP_CONFLICT] = { "conflict", "conflict" },
	};

	if (reason >= KAV_WIRE_DROP_NR)
		return NULL;
	return names[reason][json ? 1 : 0];
}

void kc_wire_format_prefix(const struct kav_wire_net *n, char *buf,
			   size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!len)
		return;
	if ((n->family != AF_INET && n->family != AF_INET6) ||
	    !inet_ntop(n->family, n->addr, ip, sizeof(ip))) {
		snprintf(buf, len, "family-%u/%u", n->family, n->prefix_len);
		return;
	}
	snprintf(buf, len, "%s/%u", ip, n->prefix_len);
}

const char *kc_wire_proto_name(uint8_t proto)
{
	switch (proto) {
	case 0:
		return "any";
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	default:
		return NULL;
	}
}

void kc_wire_format_exempt(const struct kav_wire_net *n, char *buf,
			   size_t len)
{
	char p[KC_WIRE_NET_TEXT], pt[16] = "", pr[16] = "";
	const char *s = kc_wire_proto_name(n->protocol);

	kc_wire_format_prefix(n, p, sizeof(p));
	if (n->port)
		snprintf(pt, sizeof(pt), " port %u", n->port);
	if (n->protocol && s)
		snprintf(pr, sizeof(pr), " proto %s", s);
	else if (n->protocol)
		snprintf(pr, sizeof(pr), " proto %u", n->protocol);
	snprintf(buf, len, "%s%s%s", p, pt, pr);
}

void kc_wire_describe_net(const struct kav_wire_net *n, char *buf,
			  size_t len)
{
	char p[KC_WIRE_NET_TEXT];

	if (!(n->flags & KAV_WIRE_NET_EXEMPT)) {
		kc_wire_format_prefix(n, p, sizeof(p));
		snprintf(buf, len, "scope %s", p);
	} else {
		kc_wire_format_exempt(n, p, sizeof(p));
		snprintf(buf, len, "exempt %s", p);
	}
}

void kc_wire_format_ports(uint32_t min, uint32_t max, char *buf, size_t len)
{
	if (!min)
		snprintf(buf, len, "none");
	else if (min == max)
		snprintf(buf, len, "%u", min);
	else
		snprintf(buf, len, "%u-%u", min, max);
}
