// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl monitor: print the kernel's path assignment events as they come,
 * one line (or one JSON object) each, until SIGINT or SIGTERM, or until the
 * ars family goes away (the module is unloaded): nlctrl's "notify" group
 * says so with CTRL_CMD_DELFAMILY. That message comes once and can be lost
 * with others when the socket's buffer overruns, or come before we joined
 * the group, so the family is also looked up again after joining and
 * after every overrun.
 *
 * The signals are blocked except while waiting in ppoll(), so that one
 * arriving at any other moment (even before the socket is open) is not
 * lost, and ends the loop cleanly with exit status 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

static volatile sig_atomic_t stop;
static bool family_gone;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const enum mnl_attr_data_type event_types[ARS_A_EVENT_MAX + 1] = {
	[ARS_A_EVENT_FLOW]		= MNL_TYPE_U32,
	[ARS_A_EVENT_OLD_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_EVENT_NEW_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_EVENT_REASON]		= MNL_TYPE_U32,
	[ARS_A_EVENT_FAMILY]		= MNL_TYPE_U32,
};

struct event {
	uint32_t flow, old_ifindex, new_ifindex;
	const struct nlattr *reason, *family;
	const char *old_dev, *new_dev;
};

/* A name when this arsctl knows the value, else the number. */
static void json_named(struct json *jw, const char *key,
		       const struct nlattr *a, const char *(*name)(uint32_t))
{
	uint32_t v;

	if (!a)
		return;
	v = mnl_attr_get_u32(a);
	json_key(jw, key);
	if (name(v))
		json_string(jw, name(v));
	else
		json_u64(jw, v);
}

static void event_json(struct json *jw, const struct event *e)
{
	json_object_open(jw);
	json_kv_u64(jw, "flow", e->flow);
	json_named(jw, "family", e->family, family_name);
	json_kv_u64(jw, "old_ifindex", e->old_ifindex);
	if (e->old_dev)
		json_kv_string(jw, "old_ifname", e->old_dev);
	json_kv_u64(jw, "new_ifindex", e->new_ifindex);
	if (e->new_dev)
		json_kv_string(jw, "new_ifname", e->new_dev);
	json_named(jw, "reason", e->reason, reason_name);
	json_object_close(jw);
}

static const char *named(const struct nlattr *a,
			 const char *(*name)(uint32_t), char *buf, size_t len)
{
	uint32_t v;

	if (!a)
		return "?";
	v = mnl_attr_get_u32(a);
	if (name(v))
		return name(v);
	snprintf(buf, len, "%" PRIu32, v);
	return buf;
}

/* "flow 1234 inet eth1 -> eth2 reason idle" */
static void event_line(const struct event *e)
{
	char old[16], new[16], reason[16], family[16];

	snprintf(old, sizeof(old), "%" PRIu32, e->old_ifindex);
	snprintf(new, sizeof(new), "%" PRIu32, e->new_ifindex);
	printf("flow %" PRIu32 " %s %s -> %s reason %s\n", e->flow,
	       named(e->family, family_name, family, sizeof(family)),
	       e->old_dev ? e->old_dev : e->old_ifindex ? old : "none",
	       e->new_dev ? e->new_dev : new,
	       named(e->reason, reason_name, reason, sizeof(reason)));
}

/* nlctrl's notifications: stop when the ars family is unregistered. */
static int ctrl_cb(const struct nlmsghdr *nlh, struct ctx *c)
{
	static const enum mnl_attr_data_type types[] = {
		[CTRL_ATTR_FAMILY_ID]	= MNL_TYPE_U16,
	};
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ARRAY_SIZE(types)];

	if (genl->cmd != CTRL_CMD_DELFAMILY)
		return MNL_CB_OK;
	nl_parse(nlh, tb, types, ARRAY_SIZE(types) - 1);
	if (tb[CTRL_ATTR_FAMILY_ID] &&
	    mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]) == c->nl.family) {
		family_gone = true;
		return MNL_CB_STOP;
	}
	return MNL_CB_OK;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ARS_A_EVENT_MAX + 1];
	char old_buf[IF_NAMESIZE], new_buf[IF_NAMESIZE];
	struct ctx *c = data;
	struct event e;

	if (nlh->nlmsg_type == GENL_ID_CTRL)
		return ctrl_cb(nlh, c);
	if (nlh->nlmsg_type != c->nl.family ||
	    genl->cmd != ARS_CMD_PATH_ASSIGN)
		return MNL_CB_OK;
	nl_parse(nlh, tb, event_types, ARS_A_EVENT_MAX);
	if (!tb[ARS_A_EVENT_FLOW] || !tb[ARS_A_EVENT_NEW_IFINDEX])
		return MNL_CB_OK;

	e = (struct event){
		.flow = mnl_attr_get_u32(tb[ARS_A_EVENT_FLOW]),
		.new_ifindex = mnl_attr_get_u32(tb[ARS_A_EVENT_NEW_IFINDEX]),
		.reason = tb[ARS_A_EVENT_REASON],
		.family = tb[ARS_A_EVENT_FAMILY],
	};
	if (tb[ARS_A_EVENT_OLD_IFINDEX])
		e.old_ifindex = mnl_attr_get_u32(tb[ARS_A_EVENT_OLD_IFINDEX]);
	e.old_dev = ifname(e.old_ifindex, old_buf);
	e.new_dev = ifname(e.new_ifindex, new_buf);

	if (c->json)
		event_json(&c->jw, &e);
	else
		event_line(&e);
	fflush(stdout);
	return MNL_CB_OK;
}

static void catch_signals(sigset_t *oldmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, oldmask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * Wait for events until a signal (EXIT_OK) or until the family goes away
 * (EXIT_FAIL, the module was unloaded); EXIT_FAIL if the socket fails.
 */
static int listen_events(struct ctx *c, const sigset_t *waitmask)
{
	struct pollfd pfd = { .fd = nl_fd(&c->nl), .events = POLLIN };
	int err;

	while (!stop && !family_gone) {
		if (ppoll(&pfd, 1, NULL, waitmask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "arsctl: monitor: %s\n",
				strerror(errno));
			return EXIT_FAIL;
		}
		err = nl_recv(&c->nl, event_cb, c);
		if (err == -ENOBUFS) {
			fprintf(stderr, "arsctl: monitor: events lost (receive buffer overrun)\n");
			family_gone = !nl_family_alive(&c->nl);
		} else if (err && err != -EINTR) {
			nl_perror(&c->nl, err, NULL);
			return EXIT_FAIL;
		}
	}
	if (family_gone) {
		fprintf(stderr, "arsctl: monitor: the ars family went away (module unloaded)\n");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_monitor(struct ctx *c)
{
	sigset_t waitmask;
	int err;

	if (c->argc)
		return usage_error("monitor: unexpected argument \"%s\"",
				   c->argv[0]);
	catch_signals(&waitmask);
	if (!ctx_open(c))
		return EXIT_FAIL;
	err = nl_join_monitor(&c->nl);
	if (!err)
		err = nl_join_group(&c->nl, GENL_ID_CTRL);
	if (!err)
		family_gone = !nl_family_alive(&c->nl);
	if (err == -ENOENT) {
		fprintf(stderr, "arsctl: the ars family has no \"%s\" multicast group\n",
			ARS_MCGRP_MONITOR);
		return EXIT_FAIL;
	} else if (err) {
		nl_perror(&c->nl, err, "joining the monitor group");
		return EXIT_FAIL;
	}
	return listen_events(c, &waitmask);
}
