// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Error codes: kernel errno -> fabric errno, and kav_strerror().
 *
 * libfabric's FI_E* values below 256 are the errno values themselves, so
 * most kernel errors pass through unchanged; fi_strerror() in an
 * application that does link libfabric understands them too.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <kav/kav.h>

#include "kav_base.h"

int kav_err_from_errno(int err)
{
	switch (err) {
	case 0:
		return -FI_EOTHER;	/* a failure without a reason */
	case ENOTTY:
		/* Not a kav device, or a module without this command. */
		return -FI_ENOSYS;
	case EKEYREVOKED:
		/* libfabric has no FI_EKEYREVOKED: its nearest code. */
		return -FI_EKEYREJECTED;
	default:
		return -err;
	}
}

int kav_err_from_open_errno(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return -FI_ENODEV;
	case EACCES:
	case EPERM:
		return -FI_EACCES;
	default:
		return kav_err_from_errno(err);
	}
}

/* Texts for the fabric-specific codes (>= FI_ERRNO_OFFSET). */
static const char *kav_fi_text(int err)
{
	switch (err) {
	case FI_EOTHER:		return "Unspecified error";
	case FI_ETOOSMALL:	return "Provided buffer is too small";
	case FI_EOPBADSTATE:	return "Operation not permitted in current state";
	case FI_EAVAIL:		return "Error available";
	case FI_EBADFLAGS:	return "Flags not supported";
	case FI_ENOEQ:		return "Missing or unavailable event queue";
	case FI_EDOMAIN:	return "Invalid resource domain";
	case FI_ENOCQ:		return "Missing or unavailable completion queue";
	case FI_ECRC:		return "CRC error";
	case FI_ETRUNC:		return "Truncation error";
	case FI_ENOKEY:		return "Required key not available";
	case FI_ENOAV:		return "Missing or unavailable address vector";
	case FI_EOVERRUN:	return "Queue has been overrun";
	case FI_ENORX:		return "Receiver not ready, no receive buffers available";
	default:		return NULL;
	}
}

KAV_API const char *kav_strerror(int errnum)
{
	/* long: negating INT_MIN must not overflow. */
	long e = errnum < 0 ? -(long)errnum : errnum;
	const char *s;
	int err;

	if (e > INT_MAX)
		return "Unknown error";
	err = (int)e;
	switch (err) {
	case FI_SUCCESS:
		return "Success";
	case FI_ENODEV:
		return "kav kernel module is not loaded: /dev/kav is missing "
		       "(load it with 'modprobe kav' or 'insmod kav.ko')";
	case FI_EACCES:
		return "permission denied by kav; kav_last_error() names "
		       "which cause: no grant for this auth key: ask the "
		       "administrator (kavctl grant add ...), as kav "
		       "authorises keys for the identity (user, group, "
		       "cgroup, network namespace) that opened the domain; "
		       "or a named AV's mode bits; or keyless inserts while "
		       "the kav module's allow_keyless is off; or no "
		       "permission to open /dev/kav";
	case EDQUOT:
		return "a grant's limit was reached (max-entries or max-avs "
		       "of the administrator's grant); kav_last_error() "
		       "names the grant";
	case FI_EKEYREJECTED:
		return "auth key revoked by the administrator";
	case FI_EPERM:
		return "operation not permitted by kav for this identity";
	case FI_ENOSYS:
		return "not implemented by kav: kav provides address vectors "
		       "only, or the kav kernel module is older than libkav";
	case FI_ENOSPC:
		return "address vector is full (it reached its largest size, "
		       "or all of its auth-key slots are used)";
	case FI_EBUSY:
		return "object is busy: close the address vectors of a kav "
		       "domain before closing the domain, and the endpoints, "
		       "AV sets and peer AVs of an address vector before "
		       "closing it; an auth key stays while addresses or "
		       "enabled endpoints use it";
	case FI_EALREADY:
		return "already done: the auth key is already in the address "
		       "vector (its handle was returned), or the endpoint is "
		       "already enabled";
	case FI_ENOKEY:
		return "the address has no auth key";
	case FI_ENOEQ:
		return "the address vector was opened with FI_EVENT and has "
		       "no event queue yet: fi_av_bind() one first";
	case FI_EIO:
		return "I/O error (from fi_av_open: the kav module's table "
		       "layout is not one this libkav understands; install "
		       "matching versions of both)";
	case FI_EINVAL:
		return "invalid argument";
	}
	s = kav_fi_text(err);
	if (s)
		return s;
	/* strerrordesc_np() returns a static string, unlike strerror(). */
	s = strerrordesc_np(err);
	return s ? s : "Unknown error";
}
