/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* cmocka needs these before its header. */
#ifndef TEST_COMMON_H
#define TEST_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "kav_priv.h"
/* kav_test_av_bind(): fi_av_bind() without 2.x's deprecation warning. */
#include "../selftests/include/kav_fi_compat.h"

static inline struct sockaddr_in test_sin(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	return sin;
}

static inline struct sockaddr_in6 test_sin6(const char *ip, uint16_t port)
{
	struct sockaddr_in6 sin6;

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(port);
	assert_int_equal(inet_pton(AF_INET6, ip, &sin6.sin6_addr), 1);
	return sin6;
}

#endif
