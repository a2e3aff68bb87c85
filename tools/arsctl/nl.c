// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: the generic netlink socket of the "ars" family, with libmnl.
 *
 * The socket asks for extended ACKs (NETLINK_EXT_ACK) so that the kernel's
 * reason for refusing a request reaches the user, and for capped ACKs
 * (NETLINK_CAP_ACK) since the request is still at hand to find the
 * attribute an error points at. Every do request asks for an ACK, so that
 * a reply and an error end the same way; a dump ends with NLMSG_DONE,
 * which carries an error of its own when the dump failed midway.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/ars.h>

#include "nl.h"
#include "parse.h"

/* A kernel dump skb is at most 32 KiB; twice that leaves room to spare. */
static char rx_buf[65536] __attribute__((aligned(8)));
static char tx_buf[NL_REQ_MAX] __attribute__((aligned(8)));

struct talk {
	struct ars_nl *nl;
	mnl_cb_t cb;
	void *data;
};

struct parse_ctx {
	const struct nlattr **tb;
	const enum mnl_attr_data_type *types;
	unsigned int max;
};

static int parse_cb(const struct nlattr *attr, void *data)
{
	const struct parse_ctx *p = data;
	unsigned int type = mnl_attr_get_type(attr);

	if (type > p->max || p->types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, p->types[type]) < 0)
		return MNL_CB_OK;
	p->tb[type] = attr;
	return MNL_CB_OK;
}

void nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	      const enum mnl_attr_data_type *types, unsigned int max)
{
	struct parse_ctx p = { tb, types, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_cb, &p);
}

void nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		     const enum mnl_attr_data_type *types, unsigned int max)
{
	struct parse_ctx p = { tb, types, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse_nested(nest, parse_cb, &p);
}

static struct nlmsghdr *start_msg(struct ars_nl *nl, uint16_t type,
				  uint8_t cmd, uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(tx_buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	if (!(flags & NLM_F_DUMP))
		nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	nl->req = nlh;
	return nlh;
}

struct nlmsghdr *nl_request(struct ars_nl *nl, uint8_t cmd, uint16_t flags)
{
	return start_msg(nl, nl->family, cmd, ARS_GENL_VERSION, flags);
}

/* The valid range of a refused attribute, from the policy the kernel sent. */
static int policy_cb(const struct nlattr *attr, void *data)
{
	struct ars_extack *e = data;

	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
		return MNL_CB_OK;
	switch (mnl_attr_get_type(attr)) {
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		e->min = mnl_attr_get_u64(attr);
		e->has_range = true;
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		e->max = mnl_attr_get_u64(attr);
		e->has_range = true;
		break;
	}
	return MNL_CB_OK;
}

static int extack_cb(const struct nlattr *attr, void *data)
{
	struct ars_extack *e = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (!mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
			snprintf(e->msg, sizeof(e->msg), "%s",
				 mnl_attr_get_str(attr));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (!mnl_attr_validate(attr, MNL_TYPE_U32))
			e->offs = mnl_attr_get_u32(attr);
		break;
	case NLMSGERR_ATTR_POLICY:
		if (!mnl_attr_validate(attr, MNL_TYPE_NESTED))
			mnl_attr_parse_nested(attr, policy_cb, e);
		break;
	}
	return MNL_CB_OK;
}

/* The TLVs of an ACK or a DONE start at offset off of its payload. */
static void parse_extack(struct ars_nl *nl, const struct nlmsghdr *nlh,
			 size_t off)
{
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, off, extack_cb, &nl->ext);
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_extack(t->nl, nlh, off);

	if (!err->error) {
		if (t->nl->ext.msg[0])
			fprintf(stderr, "%swarning: %s\n",
				msg_prefix(), kernel_msg(t->nl->ext.msg));
		return MNL_CB_STOP;
	}
	errno = err->error < 0 ? -err->error : err->error;
	return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	parse_extack(t->nl, nlh, sizeof(err));
	if (err < 0) {
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		t->nl->dump_intr = true;
	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

/* Not const: libmnl 1.0.4 takes a non-const array. */
static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= error_cb,
	[NLMSG_DONE]	= done_cb,
};

/* errno after a libmnl failure, never 0. */
static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

static int receive(struct ars_nl *nl, struct talk *t, unsigned int seq,
		   unsigned int portid)
{
	ssize_t n;
	int ret;

	n = mnl_socket_recvfrom(nl->sock, rx_buf, sizeof(rx_buf));
	if (n < 0)
		return neg_errno();
	errno = 0;
	ret = mnl_cb_run2(rx_buf, n, seq, portid, data_cb, t,
			  ctl_cbs, ARRAY_SIZE(ctl_cbs));
	if (ret == MNL_CB_ERROR)
		return neg_errno();
	return ret == MNL_CB_STOP ? 1 : 0;
}

int nl_talk(struct ars_nl *nl, mnl_cb_t cb, void *data)
{
	struct talk t = { nl, cb, data };
	int ret;

	memset(&nl->ext, 0, sizeof(nl->ext));
	nl->dump_intr = false;
	if (nl->record)
		return nl->record(nl->req, nl->record_data);
	if (mnl_socket_sendto(nl->sock, nl->req, nl->req->nlmsg_len) < 0)
		return neg_errno();
	do {
		ret = receive(nl, &t, nl->req->nlmsg_seq, nl->portid);
	} while (!ret || ret == -EINTR);
	return ret < 0 ? ret : 0;
}

void nl_save_req(const struct ars_nl *nl, void *buf)
{
	memcpy(buf, nl->req, nl->req->nlmsg_len);
}

void nl_restore_req(struct ars_nl *nl, const void *buf)
{
	const struct nlmsghdr *nlh = buf;

	memcpy(tx_buf, buf, nlh->nlmsg_len);
	nl->req = (struct nlmsghdr *)tx_buf;
	nl->req->nlmsg_seq = ++nl->seq;
}

int nl_recv(struct ars_nl *nl, mnl_cb_t cb, void *data)
{
	struct talk t = { nl, cb, data };
	int ret;

	memset(&nl->ext, 0, sizeof(nl->ext));
	ret = receive(nl, &t, 0, 0);
	return ret < 0 ? ret : 0;
}

int nl_fd(const struct ars_nl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

int nl_join_group(struct ars_nl *nl, int grp)
{
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0)
		return neg_errno();
	return 0;
}

int nl_join_monitor(struct ars_nl *nl)
{
	if (!nl->mcgrp_monitor)
		return -ENOENT;
	return nl_join_group(nl, nl->mcgrp_monitor);
}

static void read_mcast_group(struct ars_nl *nl, const struct nlattr *grp)
{
	static const enum mnl_attr_data_type types[] = {
		[CTRL_ATTR_MCAST_GRP_NAME]	= MNL_TYPE_NUL_STRING,
		[CTRL_ATTR_MCAST_GRP_ID]	= MNL_TYPE_U32,
	};
	const struct nlattr *tb[ARRAY_SIZE(types)];

	nl_parse_nested(grp, tb, types, ARRAY_SIZE(types) - 1);
	if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
	    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
		    ARS_MCGRP_MONITOR))
		nl->mcgrp_monitor = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type types[] = {
		[CTRL_ATTR_FAMILY_ID]		= MNL_TYPE_U16,
		[CTRL_ATTR_VERSION]		= MNL_TYPE_U32,
		[CTRL_ATTR_MCAST_GROUPS]	= MNL_TYPE_NESTED,
	};
	const struct nlattr *tb[ARRAY_SIZE(types)], *grp;
	struct ars_nl *nl = data;

	nl_parse(nlh, tb, types, ARRAY_SIZE(types) - 1);
	if (tb[CTRL_ATTR_FAMILY_ID])
		nl->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		nl->version = mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_MCAST_GROUPS])
		mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS])
			read_mcast_group(nl, grp);
	return MNL_CB_OK;
}

static int resolve_family(struct ars_nl *nl)
{
	int err;

	start_msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nl->req, CTRL_ATTR_FAMILY_NAME, ARS_GENL_NAME);
	err = nl_talk(nl, family_cb, nl);
	if (!err && !nl->family)
		err = -EPROTO;
	return err;
}

static int open_socket(struct ars_nl *nl)
{
	int one = 1;

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		return neg_errno();
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		return neg_errno();
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	/* Both are optional: without them errors are just less precise. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

int nl_open(struct ars_nl *nl)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	err = open_socket(nl);
	if (err) {
		fprintf(stderr, "%scannot open a generic netlink socket: %s\n",
			msg_prefix(), strerror(-err));
		nl_close(nl);
		return err;
	}
	err = resolve_family(nl);
	if (err == -ENOENT)
		fprintf(stderr, "%sars module not loaded (generic netlink family \"%s\" not found; modprobe ars)\n",
			msg_prefix(), ARS_GENL_NAME);
	else if (err)
		nl_perror(nl, err, "looking up the generic netlink family");
	if (err) {
		nl_close(nl);
		return err;
	}
	if (nl->version != ARS_GENL_VERSION)
		fprintf(stderr, "%swarning: kernel speaks version %u of the ars family, arsctl version %u\n",
			msg_prefix(), nl->version, ARS_GENL_VERSION);
	return 0;
}

bool nl_family_alive(const struct ars_nl *nl)
{
	struct ars_nl probe;
	bool alive = true;	/* when the probe cannot tell */

	memset(&probe, 0, sizeof(probe));
	if (!open_socket(&probe))
		alive = resolve_family(&probe) != -ENOENT &&
			(!probe.family || probe.family == nl->family);
	nl_close(&probe);
	return alive;
}

void nl_close(struct ars_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

void nl_perror(const struct ars_nl *nl, int err, const char *detail)
{
	const char *msg = nl->ext.msg[0] ? kernel_msg(nl->ext.msg) :
					   strerror(-err);

	if (detail)
		fprintf(stderr, "%s%s (%s)\n", msg_prefix(), msg, detail);
	else
		fprintf(stderr, "%s%s\n", msg_prefix(), msg);
}

int nl_bad_attr(const struct ars_nl *nl)
{
	const struct nlattr *attr;
	uint32_t offs = nl->ext.offs;

	if (!nl->req || offs < mnl_nlmsg_size(sizeof(struct genlmsghdr)) ||
	    offs > nl->req->nlmsg_len - sizeof(struct nlattr))
		return -1;
	attr = (const struct nlattr *)((const char *)nl->req + offs);
	return mnl_attr_get_type(attr);
}
