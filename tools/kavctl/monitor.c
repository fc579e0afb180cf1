// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl monitor: joins the "admin" multicast group and prints each event
 * (grant add/del, av new/del, wire-drop: the wire began to drop packets;
 * one line each; with -j one JSON object per line) until SIGINT, SIGTERM
 * or SIGHUP. libnl retries reads interrupted by signals, so signals are
 * taken through a signalfd polled next to the netlink socket.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <netlink/socket.h>

#include "attrs.h"
#include "nl.h"

struct monitor {
	const struct kc_cmd *cmd;
	int family;
};

static const char *event_name(uint8_t cmd, bool json)
{
	switch (cmd) {
	case KAV_GENL_CMD_GRANT_ADD:
		return json ? "grant_add" : "grant add";
	case KAV_GENL_CMD_GRANT_DEL:
		return json ? "grant_del" : "grant del";
	case KAV_GENL_CMD_AV_NEW:
		return json ? "av_new" : "av new";
	case KAV_GENL_CMD_AV_DEL:
		return json ? "av_del" : "av del";
	case KAV_GENL_CMD_WIRE_DROP:
		return json ? "wire_drop" : "wire-drop";
	default:
		return NULL;
	}
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[KAV_A_MAX + 1];
	struct monitor *m = arg;
	const char *name;
	uint8_t cmd;

	if (nlmsg_hdr(msg)->nlmsg_type != m->family ||
	    kc_nl_parse(msg, &cmd, tb))
		return NL_SKIP;
	name = event_name(cmd, m->cmd->json);
	if (m->cmd->json) {
		struct kc_json j;

		kc_json_init(&j, stdout, m->cmd->pretty);
		kc_json_open_object(&j);
		if (name)
			kc_json_kv_string(&j, "event", name);
		else
			kc_json_kv_u64(&j, "event", cmd);
		kc_json_attrs(&j, tb, 0, 0);
		kc_json_close_object(&j);
		kc_json_end(&j);
	} else {
		if (name)
			fputs(name, stdout);
		else
			printf("event %u", cmd);
		fputc(':', stdout);
		kc_human_attrs(stdout, tb, 0);
		fputc('\n', stdout);
	}
	fflush(stdout);
	return NL_OK;
}

int kc_monitor(const struct kc_cmd *cmd)
{
	struct monitor m = { .cmd = cmd };
	struct pollfd pfd[2];
	struct kc_nl nl;
	sigset_t set;
	int ret, sfd;

	ret = kc_nl_open(&nl, "monitor");
	if (ret)
		return ret;
	ret = kc_nl_join_admin(&nl);
	if (ret)
		goto close;
	m.family = nl.family;
	nl_socket_disable_seq_check(nl.sk);
	nl_socket_modify_cb(nl.sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &m);
	nl_socket_set_buffer_size(nl.sk, 1 << 20, 0);
	if (nl_socket_set_nonblocking(nl.sk) < 0) {
		kc_err("monitor: %s", strerror(errno));
		ret = KC_EXIT_FAIL;
		goto close;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		kc_err("monitor: signalfd: %s", strerror(errno));
		ret = KC_EXIT_FAIL;
		goto close;
	}

	pfd[0].fd = nl_socket_get_fd(nl.sk);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kc_err("monitor: poll: %s", strerror(errno));
			ret = KC_EXIT_FAIL;
			break;
		}
		if (pfd[1].revents) {
			ret = KC_EXIT_OK;
			break;
		}
		if (!pfd[0].revents)
			continue;
		ret = nl_recvmsgs_default(nl.sk);
		if (ret == -NLE_NOMEM) {
			/* ENOBUFS: the socket overflowed, events were lost. */
			kc_warn("monitor: events were lost (receive buffer overrun)");
		} else if (ret < 0 && ret != -NLE_AGAIN) {
			kc_err("monitor: netlink: %s", nl_geterror(ret));
			ret = KC_EXIT_FAIL;
			break;
		}
	}
	close(sfd);
close:
	kc_nl_close(&nl);
	return ret;
}
