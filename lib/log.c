// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Diagnostics to stderr, "libkav: " prefixed, filtered by $KAV_LOG
 * (none|warn|info|debug; default warn), or when that is unset by
 * libfabric's $FI_LOG_LEVEL (warn|trace|info|debug). A library must not be
 * chatty, but the reasons kav refuses something (module missing, no
 * grant) are only useful if someone sees them, hence warn by default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kav_base.h"

int kav_log_parse_level(const char *s)
{
	static const char *const names[] = {
		[KAV_LOG_NONE] = "none",
		[KAV_LOG_WARN] = "warn",
		[KAV_LOG_INFO] = "info",
		[KAV_LOG_DEBUG] = "debug",
	};
	size_t i;

	if (!s)
		return KAV_LOG_WARN;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i]))
			return (int)i;
	return KAV_LOG_WARN;
}

int kav_log_parse_fi_level(const char *s)
{
	/*
	 * libfabric's levels, least verbose first: warn, trace, info, debug.
	 * kav logs nothing at trace, so trace shows what warn shows.
	 */
	static const struct {
		const char *name;
		int level;
	} names[] = {
		{ "warn", KAV_LOG_WARN },
		{ "trace", KAV_LOG_WARN },
		{ "info", KAV_LOG_INFO },
		{ "debug", KAV_LOG_DEBUG },
	};
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].level;
	return -1;
}

int kav_log_env_level(const char *kav_log, const char *fi_level)
{
	int level;

	if (kav_log && *kav_log)
		return kav_log_parse_level(kav_log);
	level = kav_log_parse_fi_level(fi_level);
	return level < 0 ? KAV_LOG_WARN : level;
}

/*
 * Read once, lazily, with no constructor (static links and dlopen behave
 * the same). Racing first calls compute the same value, so a relaxed
 * atomic is enough.
 */
static int kav_level = -1;

int kav_log_level(void)
{
	int level = __atomic_load_n(&kav_level, __ATOMIC_RELAXED);

	if (level < 0) {
		level = kav_log_env_level(getenv("KAV_LOG"),
					  getenv("FI_LOG_LEVEL"));
		__atomic_store_n(&kav_level, level, __ATOMIC_RELAXED);
	}
	return level;
}

void kav_log(int level, const char *fmt, ...)
{
	char msg[KAV_ERR_MAX];
	va_list ap;

	if (level > kav_log_level() || level == KAV_LOG_NONE)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One write per line so concurrent threads do not interleave. */
	fprintf(stderr, "libkav: %s\n", msg);
}
