// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: rtnetlink requests (see rtnl.h).
 */
#include <errno.h>
#include <time.h>

#include <linux/rtnetlink.h>

#include "rtnl.h"

struct mnl_socket *rtnl_open(void)
{
	struct mnl_socket *sock = mnl_socket_open(NETLINK_ROUTE);
	int err;

	if (!sock)
		return NULL;
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		mnl_socket_close(sock);
		errno = err;
		return NULL;
	}
	return sock;
}

int rtnl_talk(struct mnl_socket *sock, struct nlmsghdr *nlh, mnl_cb_t cb,
	      void *data)
{
	static char buf[65536] __attribute__((aligned(8)));
	unsigned int portid = mnl_socket_get_portid(sock);
	static unsigned int seq;
	ssize_t n;
	int ret;

	if (!seq)
		seq = time(NULL);
	nlh->nlmsg_seq = ++seq;
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, n, seq, portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -(errno ?: EIO) : 0;
}

int rtnl_dump(struct mnl_socket *sock, uint16_t type, int family,
	      size_t hdrlen, mnl_cb_t cb, void *data)
{
	char buf[MNL_NLMSG_HDRLEN + 64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct rtgenmsg *g;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	g->rtgen_family = family;
	return rtnl_talk(sock, nlh, cb, data);
}
