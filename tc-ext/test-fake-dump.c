// SPDX-License-Identifier: GPL-2.0
/*
 * test-fake-dump.so: preloaded into tc by test-plugin.sh, so that
 * "tc -s qdisc show" (text and -j) prints ars qdiscs on a kernel that has
 * none. tc's RTM_GETQDISC dump request never reaches the kernel: its answer
 * is made up here. Every other netlink exchange is left alone.
 *
 * The answer: an ars qdisc 1: at the root with both options and the whole
 * of struct tc_ars_xstats, an ars qdisc 2: under 1:1 without options whose
 * statistics stop after "delay" (an older, shorter struct), then
 * NLMSG_DONE.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/ars.h>

static int dump_fd = -1;
static __u32 dump_seq;
static __u64 answer[512];		/* aligned for struct nlmsghdr */
static size_t answer_len;

static struct rtattr *put(struct nlmsghdr *n, int type, const void *data,
			  size_t len)
{
	struct rtattr *rta = (void *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void end(struct nlmsghdr *n, struct rtattr *nest)
{
	nest->rta_len = (char *)n + n->nlmsg_len - (char *)nest;
}

static struct nlmsghdr *start(__u16 type, __u32 pid, size_t len)
{
	struct nlmsghdr *n = (void *)((char *)answer + answer_len);

	memset(n, 0, NLMSG_SPACE(len));
	n->nlmsg_len = NLMSG_LENGTH(len);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_MULTI;
	n->nlmsg_seq = dump_seq;
	n->nlmsg_pid = pid;
	return n;
}

static void qdisc(__u32 pid, __u32 handle, __u32 parent, bool options,
		  size_t xstats_len)
{
	struct tc_ars_xstats st = {
		.rate		= 2450000,	/* 19.6 Mbit/s */
		.backlog	= 1500,
		.delay		= 1200000,	/* 1.2 ms */
		.bandwidth	= 20000000,	/* the option's */
		.util		= 980,
		.band		= 1,
		.samples	= 12345,
		.tau		= 17400,	/* 2 x a fabric-rtt of 8.7us */
		.tau_derived	= 1,
		.signal		= ARS_SIGNAL_V3,
		.signal_derived	= 1,
	};
	struct gnet_stats_basic basic = { .bytes = 1514000, .packets = 1000 };
	struct gnet_stats_queue queue = { .qlen = 1, .backlog = 1514 };
	struct nlmsghdr *n = start(RTM_NEWQDISC, pid, sizeof(struct tcmsg));
	struct tcmsg *t = NLMSG_DATA(n);
	struct rtattr *nest;
	__u64 val;

	t->tcm_family = AF_UNSPEC;
	t->tcm_ifindex = 1;
	t->tcm_handle = handle;
	t->tcm_parent = parent;
	t->tcm_info = 2;
	put(n, TCA_KIND, "ars", 4);

	nest = put(n, TCA_OPTIONS | NLA_F_NESTED, NULL, 0);
	if (options) {
		val = 20000000;
		put(n, TCA_ARS_BANDWIDTH, &val, sizeof(val));
		val = 100000;
		put(n, TCA_ARS_INTERVAL, &val, sizeof(val));
	}
	end(n, nest);

	nest = put(n, TCA_STATS2 | NLA_F_NESTED, NULL, 0);
	put(n, TCA_STATS_BASIC, &basic, sizeof(basic));
	put(n, TCA_STATS_QUEUE, &queue, sizeof(queue));
	put(n, TCA_STATS_APP, &st, xstats_len);
	end(n, nest);

	answer_len += NLMSG_ALIGN(n->nlmsg_len);
}

static void make_answer(int fd)
{
	struct sockaddr_nl local = { 0 };
	socklen_t len = sizeof(local);
	struct nlmsghdr *n;

	getsockname(fd, (struct sockaddr *)&local, &len);
	answer_len = 0;
	qdisc(local.nl_pid, 0x10000, TC_H_ROOT, true,
	      sizeof(struct tc_ars_xstats));
	qdisc(local.nl_pid, 0x20000, 0x10001, false,
	      offsetof(struct tc_ars_xstats, bandwidth));
	n = start(NLMSG_DONE, local.nl_pid, sizeof(int));
	answer_len += NLMSG_ALIGN(n->nlmsg_len);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int fd, const struct msghdr *msg, int flags);
	const struct nlmsghdr *n = NULL;

	if (!real)
		real = dlsym(RTLD_NEXT, "sendmsg");
	if (msg->msg_iovlen && msg->msg_iov[0].iov_len >= sizeof(*n))
		n = msg->msg_iov[0].iov_base;
	if (n && n->nlmsg_type == RTM_GETQDISC &&
	    (n->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) {
		dump_fd = fd;
		dump_seq = n->nlmsg_seq;
		make_answer(fd);
		return n->nlmsg_len;
	}
	return real(fd, msg, flags);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int fd, struct msghdr *msg, int flags);
	size_t len;

	if (!real)
		real = dlsym(RTLD_NEXT, "recvmsg");
	if (fd != dump_fd || !answer_len)
		return real(fd, msg, flags);

	len = answer_len;
	if (msg->msg_iovlen && msg->msg_iov[0].iov_len)
		memcpy(msg->msg_iov[0].iov_base, answer,
		       len < msg->msg_iov[0].iov_len ? len :
						       msg->msg_iov[0].iov_len);
	msg->msg_flags = 0;
	if (!msg->msg_iovlen || msg->msg_iov[0].iov_len < len) {
		msg->msg_flags = MSG_TRUNC;
		if (!(flags & MSG_TRUNC))
			len = msg->msg_iovlen ? msg->msg_iov[0].iov_len : 0;
	}
	if (msg->msg_name && msg->msg_namelen >= sizeof(struct sockaddr_nl)) {
		memset(msg->msg_name, 0, sizeof(struct sockaddr_nl));
		((struct sockaddr_nl *)msg->msg_name)->nl_family = AF_NETLINK;
		msg->msg_namelen = sizeof(struct sockaddr_nl);
	}
	if (!(flags & MSG_PEEK)) {
		answer_len = 0;
		dump_fd = -1;
	}
	return len;
}
