// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl monitor [-t] [moves] [dev DEV]: print the kernel's path
 * assignment events as they come, one line (or one JSON object, with the
 * time it was read) each: with moves only those that take a flow from a
 * device to another, with dev only those from or to DEV. Until SIGINT or
 * SIGTERM, or until the ars family goes away (the module is unloaded):
 * nlctrl's "notify" group
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
#include <time.h>

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
	uint64_t time;		/* CLOCK_REALTIME ns, when it was read */
	uint32_t flow, old_ifindex, new_ifindex;
	const struct nlattr *reason, *family;
	const char *old_dev, *new_dev;
};

/* What monitor prints: every event, or those the filters keep. */
struct monitor_filter {
	bool moves;		/* only a flow leaving a device for another */
	unsigned int ifindex;	/* only events from or to it, unless 0 */
};

static struct monitor_filter filter;

static bool event_wanted(const struct event *e)
{
	if (filter.moves &&
	    (!e->old_ifindex || e->old_ifindex == e->new_ifindex))
		return false;
	return !filter.ifindex || e->old_ifindex == filter.ifindex ||
	       e->new_ifindex == filter.ifindex;
}

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
	json_kv_u64(jw, "time_us", e->time / 1000);
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

/* "[2026-11-30T14:05:09.123456 ]flow 1234 inet eth1 -> eth2 reason idle" */
static void event_line(const struct event *e, bool stamp)
{
	char old[16], new[16], reason[16], family[16], when[40];

	if (stamp) {
		fmt_timestamp(when, sizeof(when), e->time);
		printf("%s ", when);
	}
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

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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
		.time = realtime_ns(),
		.flow = mnl_attr_get_u32(tb[ARS_A_EVENT_FLOW]),
		.new_ifindex = mnl_attr_get_u32(tb[ARS_A_EVENT_NEW_IFINDEX]),
		.reason = tb[ARS_A_EVENT_REASON],
		.family = tb[ARS_A_EVENT_FAMILY],
	};
	if (tb[ARS_A_EVENT_OLD_IFINDEX])
		e.old_ifindex = mnl_attr_get_u32(tb[ARS_A_EVENT_OLD_IFINDEX]);
	if (!event_wanted(&e))
		return MNL_CB_OK;
	e.old_dev = ifname(e.old_ifindex, old_buf);
	e.new_dev = ifname(e.new_ifindex, new_buf);

	if (c->json)
		event_json(&c->jw, &e);
	else
		event_line(&e, c->timestamp);
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
			fprintf(stderr, "%smonitor: %s\n",
				msg_prefix(), strerror(errno));
			return EXIT_FAIL;
		}
		err = nl_recv(&c->nl, event_cb, c);
		if (err == -ENOBUFS) {
			fprintf(stderr, "%smonitor: events lost (receive buffer overrun)\n",
				msg_prefix());
			family_gone = !nl_family_alive(&c->nl);
		} else if (err && err != -EINTR) {
			nl_perror(&c->nl, err, NULL);
			return EXIT_FAIL;
		}
	}
	if (family_gone) {
		fprintf(stderr, "%smonitor: the ars family went away (module unloaded)\n",
			msg_prefix());
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_monitor(struct ctx *c)
{
	static const char *const words[] = { "-t", "moves", NULL };
	bool flags[ARRAY_SIZE(words)] = { false };
	sigset_t waitmask;
	const char *dev;
	int err;

	err = parse_filter(c, &dev, words, flags);
	if (err)
		return err;
	c->timestamp |= flags[0];
	filter.moves = flags[1];
	catch_signals(&waitmask);
	if (!ctx_open(c) || filter_ifindex(c, dev, &filter.ifindex))
		return EXIT_FAIL;
	err = nl_join_monitor(&c->nl);
	if (!err)
		err = nl_join_group(&c->nl, GENL_ID_CTRL);
	if (!err)
		family_gone = !nl_family_alive(&c->nl);
	if (err == -ENOENT) {
		fprintf(stderr, "%sthe ars family has no \"%s\" multicast group\n",
			msg_prefix(), ARS_MCGRP_MONITOR);
		return EXIT_FAIL;
	} else if (err) {
		return cmd_error(c, err, "joining the monitor group");
	}
	return listen_events(c, &waitmask);
}
