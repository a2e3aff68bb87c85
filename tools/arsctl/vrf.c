// SPDX-License-Identifier: GPL-2.0
/*
 * VRF devices by name, from rtnetlink: the table of the VRF that "bind ...
 * vrf NAME" names, and the VRFs of the namespace, so that bind show can
 * name the VRF of a bound table.
 *
 * The kernel binds a prefix to a table, not to a device: a binding made
 * by a VRF's name stays with its table when the VRF is deleted or another
 * VRF takes the table, and bind show names whichever VRF has the table
 * now.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "arsctl.h"
#include "rtnl.h"

struct vrf_get {
	struct vrf_info *all;
	size_t n, cap;
	int found;		/* one request: 1 a VRF, 0 not one */
	int err;
};

/* Whether string attribute a is s, with or without its NUL. */
static bool attr_is(const struct nlattr *a, const char *s)
{
	const char *p = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a), n = strlen(s);

	return (len == n || (len == n + 1 && !p[n])) && !memcmp(p, s, n);
}

/* tb[0..max] from the attributes nested in nest, unknown types left out. */
static void nested(const struct nlattr *nest, const struct nlattr **tb,
		   unsigned int max)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) <= max)
			tb[mnl_attr_get_type(a)] = a;
}

int vrf_from_link(const struct nlmsghdr *nlh, struct vrf_info *v)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { NULL };
	const struct nlattr *info[IFLA_INFO_MAX + 1] = { NULL };
	const struct nlattr *vrf[IFLA_VRF_MAX + 1] = { NULL };
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(*ifm))
		if (mnl_attr_get_type(a) <= IFLA_MAX)
			tb[mnl_attr_get_type(a)] = a;
	if (!tb[IFLA_IFNAME] || !tb[IFLA_LINKINFO] ||
	    mnl_attr_validate(tb[IFLA_IFNAME], MNL_TYPE_NUL_STRING) < 0)
		return 0;
	nested(tb[IFLA_LINKINFO], info, IFLA_INFO_MAX);
	if (!info[IFLA_INFO_KIND] || !info[IFLA_INFO_DATA] ||
	    !attr_is(info[IFLA_INFO_KIND], "vrf"))
		return 0;
	nested(info[IFLA_INFO_DATA], vrf, IFLA_VRF_MAX);
	if (!vrf[IFLA_VRF_TABLE] ||
	    mnl_attr_validate(vrf[IFLA_VRF_TABLE], MNL_TYPE_U32) < 0)
		return 0;
	memset(v, 0, sizeof(*v));
	strncpy(v->name, mnl_attr_get_str(tb[IFLA_IFNAME]),
		sizeof(v->name) - 1);
	v->table = mnl_attr_get_u32(vrf[IFLA_VRF_TABLE]);
	return 1;
}

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vrf_get *g = data;

	g->found = vrf_from_link(nlh, g->all);
	return MNL_CB_OK;
}

int vrf_table(const char *name, uint32_t *table)
{
	char buf[MNL_NLMSG_HDRLEN + 64] __attribute__((aligned(8)));
	struct vrf_info v;
	struct vrf_get g = { .all = &v };
	struct mnl_socket *sock;
	struct nlmsghdr *nlh;
	int err;

	if (strlen(name) >= IF_NAMESIZE)
		return -ENODEV;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	sock = rtnl_open();
	if (!sock)
		return -errno;
	err = rtnl_talk(sock, nlh, get_cb, &g);
	mnl_socket_close(sock);
	if (err)
		return err;
	if (!g.found)
		return -EINVAL;
	*table = v.table;
	return 0;
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vrf_get *g = data;
	struct vrf_info v, *p;

	if (!vrf_from_link(nlh, &v))
		return MNL_CB_OK;
	if (g->n == g->cap) {
		p = realloc(g->all, (g->cap ? 2 * g->cap : 8) * sizeof(*p));
		if (!p) {
			g->err = -ENOMEM;
			return MNL_CB_ERROR;
		}
		g->all = p;
		g->cap = g->cap ? 2 * g->cap : 8;
	}
	g->all[g->n++] = v;
	return MNL_CB_OK;
}

int vrfs_fetch(struct vrf_info **all, size_t *n)
{
	struct vrf_get g = { 0 };
	struct mnl_socket *sock;
	int err;

	sock = rtnl_open();
	if (!sock)
		return -errno;
	err = rtnl_dump(sock, RTM_GETLINK, AF_UNSPEC, sizeof(struct ifinfomsg),
			dump_cb, &g);
	mnl_socket_close(sock);
	err = err ?: g.err;
	if (err) {
		free(g.all);
		return err;
	}
	*all = g.all;
	*n = g.n;
	return 0;
}

const char *vrf_of_table(const struct vrf_info *all, size_t n, uint32_t table)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (all[i].table == table)
			return all[i].name;
	return NULL;
}
