// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: rtnetlink requests (see rtnl.h).
 */
#include <errno.h>
#include <string.h>
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

/* An error or an ACK: libmnl's own, but errno is always set. */
static int rtnl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	errno = e->error < 0 ? -e->error : e->error;
	return MNL_CB_ERROR;
}

/*
 * The end of a dump. A dump that the kernel refuses once it has started
 * (a request's attribute it does not know, for one) ends here with the
 * error in the payload, which libmnl would not look at.
 */
static int rtnl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	int err;

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	errno = -err;
	return MNL_CB_ERROR;
}

static int rtnl_noop_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

int rtnl_talk(struct mnl_socket *sock, struct nlmsghdr *nlh, mnl_cb_t cb,
	      void *data)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_NOOP]	= rtnl_noop_cb,
		[NLMSG_ERROR]	= rtnl_error_cb,
		[NLMSG_DONE]	= rtnl_done_cb,
		[NLMSG_OVERRUN]	= rtnl_noop_cb,
	};
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
		errno = 0;
		ret = mnl_cb_run2(buf, n, seq, portid, cb, data, ctl,
				  MNL_ARRAY_SIZE(ctl));
	} while (ret > 0);
	return ret < 0 ? -(errno ?: EIO) : 0;
}

int rtnl_dump(struct mnl_socket *sock, uint16_t type, int family,
	      size_t hdrlen, mnl_cb_t cb, void *data)
{
	return rtnl_dump_u32(sock, type, family, hdrlen, 0, 0, cb, data);
}

int rtnl_dump_u32(struct mnl_socket *sock, uint16_t type, int family,
		  size_t hdrlen, uint16_t attr, uint32_t value, mnl_cb_t cb,
		  void *data)
{
	char buf[MNL_NLMSG_HDRLEN + 64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct rtgenmsg *g;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	g = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	g->rtgen_family = family;
	if (attr)
		mnl_attr_put_u32(nlh, attr, value);
	return rtnl_talk(sock, nlh, cb, data);
}
