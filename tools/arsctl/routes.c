// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl routes [dev DEV]: the multipath routes of the namespace, with
 * each next hop's device and the quality ars measures there; and the
 * collection of those routes for show's summary.
 *
 * The routes come from rtnetlink, as ip route shows them: legacy multipath
 * routes carry their next hops in RTA_MULTIPATH, routes over a nexthop
 * group (ip nexthop) name it in RTA_NH_ID (and in compat mode list its
 * next hops in RTA_MULTIPATH too), and the groups come from a dump of the
 * nexthop objects. Only unicast routes with two next hops or more
 * are multipath; ars steers those of the families it is on for, up to
 * ARS_STEER_MAX next hops.
 *
 * With -s, the packets of each member of a group as the kernel counts
 * them (Linux 6.9 on: ip -s nexthop) in nexthop_select_path(), through
 * which every packet the group's route forwards goes once, steered by ars
 * or not. Routes with RTA_MULTIPATH alone have no such counters, nor have
 * older kernels, whose nexthop dump refuses the request's NHA_OP_FLAGS.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "arsctl.h"
#include "parse.h"
#include "rtnl.h"

/*
 * Linux 6.9's nexthop group counters (linux/nexthop.h), which older
 * headers, such as Debian 12's, lack.
 */
enum {
	ARS_NHA_OP_FLAGS = NHA_RES_BUCKET + 1,	/* u32 */
	ARS_NHA_GROUP_STATS,			/* nested */
};

#define ARS_NHA_OP_FLAG_DUMP_STATS	1U
#define ARS_NHA_GROUP_STATS_ENTRY	1	/* nested, in NHA_GROUP_STATS */
#define ARS_NHA_GROUP_STATS_ENTRY_ID	1	/* u32 */
#define ARS_NHA_GROUP_STATS_ENTRY_PACKETS 2	/* uint: u32 or u64 */

/* A nexthop object: a device and gateway, or a group of other objects. */
struct nh_obj {
	uint32_t id;
	unsigned int ifindex;
	int gw_family;
	unsigned char gw[16];
	size_t ngroup;
	struct nexthop_grp *group;
	/* The kernel's counts of the group's members, group[i]'s in [i]. */
	bool has_stats;
	uint64_t *packets;
};

struct rt_dump {
	struct mp_route *routes;
	size_t n, cap;
	struct nh_obj *objs;
	size_t nobjs, objcap;
	int err;
	bool kstats;		/* -s: the groups' counters were asked for */
};

/* Room for one more element in *p, of size size; false without memory. */
static bool grow(void **p, size_t *cap, size_t n, size_t size, int *err)
{
	size_t c = *cap ? 2 * *cap : 16;
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*p, c * size);
	if (!q) {
		*err = -ENOMEM;
		return false;
	}
	*p = q;
	*cap = c;
	return true;
}

static int nh_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= ARS_NHA_GROUP_STATS)
		tb[type] = a;
	return MNL_CB_OK;
}

/* The counter of member id of group o in NHA_GROUP_STATS_ENTRY e. */
static void nh_stats_entry(struct nh_obj *o, const struct nlattr *e)
{
	const struct nlattr *a;
	uint64_t packets = 0;
	bool have = false;
	uint32_t id = 0;
	size_t i;

	mnl_attr_for_each_nested(a, e) {
		switch (mnl_attr_get_type(a)) {
		case ARS_NHA_GROUP_STATS_ENTRY_ID:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				id = mnl_attr_get_u32(a);
			break;
		case ARS_NHA_GROUP_STATS_ENTRY_PACKETS:
			if (!mnl_attr_validate(a, MNL_TYPE_U64)) {
				packets = mnl_attr_get_u64(a);
				have = true;
			} else if (!mnl_attr_validate(a, MNL_TYPE_U32)) {
				packets = mnl_attr_get_u32(a);
				have = true;
			}
			break;
		}
	}
	for (i = 0; have && i < o->ngroup; i++)
		if (o->group[i].id == id)
			o->packets[i] = packets;
}

static int nh_stats(struct nh_obj *o, const struct nlattr *stats,
		    int *err)
{
	const struct nlattr *e;

	o->packets = calloc(o->ngroup ?: 1, sizeof(*o->packets));
	if (!o->packets) {
		*err = -ENOMEM;
		return MNL_CB_ERROR;
	}
	o->has_stats = true;
	mnl_attr_for_each_nested(e, stats)
		if (mnl_attr_get_type(e) == ARS_NHA_GROUP_STATS_ENTRY)
			nh_stats_entry(o, e);
	return MNL_CB_OK;
}

static int nh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ARS_NHA_GROUP_STATS + 1] = { NULL };
	struct rt_dump *d = data;
	struct nh_obj *o;
	size_t len;

	mnl_attr_parse(nlh, sizeof(*nhm), nh_attr_cb, tb);
	if (!tb[NHA_ID] || mnl_attr_validate(tb[NHA_ID], MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	if (!grow((void **)&d->objs, &d->objcap, d->nobjs, sizeof(*o),
		  &d->err))
		return MNL_CB_ERROR;
	o = &d->objs[d->nobjs++];
	memset(o, 0, sizeof(*o));
	o->id = mnl_attr_get_u32(tb[NHA_ID]);
	if (tb[NHA_OIF] && !mnl_attr_validate(tb[NHA_OIF], MNL_TYPE_U32))
		o->ifindex = mnl_attr_get_u32(tb[NHA_OIF]);
	if (tb[NHA_GATEWAY]) {
		len = mnl_attr_get_payload_len(tb[NHA_GATEWAY]);
		if (len == 4 || len == 16) {
			o->gw_family = len == 4 ? AF_INET : AF_INET6;
			memcpy(o->gw, mnl_attr_get_payload(tb[NHA_GATEWAY]),
			       len);
		}
	}
	if (tb[NHA_GROUP]) {
		len = mnl_attr_get_payload_len(tb[NHA_GROUP]);
		o->ngroup = len / sizeof(*o->group);
		o->group = malloc(len ?: 1);
		if (!o->group) {
			d->err = -ENOMEM;
			return MNL_CB_ERROR;
		}
		memcpy(o->group, mnl_attr_get_payload(tb[NHA_GROUP]), len);
		if (tb[ARS_NHA_GROUP_STATS])
			return nh_stats(o, tb[ARS_NHA_GROUP_STATS], &d->err);
	}
	return MNL_CB_OK;
}

static const struct nh_obj *nh_find(const struct rt_dump *d, uint32_t id)
{
	size_t i;

	for (i = 0; i < d->nobjs; i++)
		if (d->objs[i].id == id)
			return &d->objs[i];
	return NULL;
}

static struct mp_nexthop *add_nexthop(struct mp_route *r,
				      unsigned int ifindex, int gw_family,
				      const void *gw, size_t gwlen,
				      unsigned int weight)
{
	struct mp_nexthop *nh;

	if (r->n == ARRAY_SIZE(r->nh)) {
		r->more = true;
		return NULL;
	}
	nh = &r->nh[r->n++];
	memset(nh, 0, sizeof(*nh));
	nh->ifindex = ifindex;
	nh->weight = weight;
	if (gw && (gwlen == 4 || gwlen == 16)) {
		nh->gw_family = gw_family;
		memcpy(nh->gw, gw, gwlen);
	}
	return nh;
}

/* RTA_GATEWAY, or RTA_VIA (an IPv6 gateway of an IPv4 route). */
static void rtnh_gateway(const struct rtnexthop *rtnh, int family,
			 int *gw_family, const void **gw, size_t *len)
{
	const struct nlattr *a = (const void *)((const char *)rtnh +
						RTNH_ALIGN(sizeof(*rtnh)));
	const char *end = (const char *)rtnh + rtnh->rtnh_len;

	*gw = NULL;
	*gw_family = 0;
	*len = 0;
	for (; (const char *)a + sizeof(*a) <= end &&
	       (const char *)a + a->nla_len <= end &&
	       a->nla_len >= (int)sizeof(*a);
	     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == RTA_GATEWAY) {
			*gw_family = family;
			*gw = mnl_attr_get_payload(a);
			*len = mnl_attr_get_payload_len(a);
		} else if ((a->nla_type & NLA_TYPE_MASK) == RTA_VIA &&
			   mnl_attr_get_payload_len(a) > sizeof(struct rtvia)) {
			const struct rtvia *via = mnl_attr_get_payload(a);

			*gw_family = via->rtvia_family;
			*gw = via->rtvia_addr;
			*len = mnl_attr_get_payload_len(a) - sizeof(*via);
		}
	}
}

static void read_multipath(struct mp_route *r, const struct nlattr *mp)
{
	const char *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);
	const struct rtnexthop *rtnh;
	const void *gw;
	int gw_family;
	size_t len;

	size_t step;

	while (left >= sizeof(*rtnh)) {
		rtnh = (const void *)p;
		if (rtnh->rtnh_len < sizeof(*rtnh) || rtnh->rtnh_len > left)
			break;
		rtnh_gateway(rtnh, r->family, &gw_family, &gw, &len);
		add_nexthop(r, rtnh->rtnh_ifindex, gw_family, gw, len,
			    rtnh->rtnh_hops + 1);
		step = RTNH_ALIGN(rtnh->rtnh_len);
		if (step >= left)
			break;
		left -= step;
		p += step;
	}
}

static void read_group(struct mp_route *r, const struct rt_dump *d,
		       uint32_t id)
{
	const struct nh_obj *g = nh_find(d, id), *m;
	struct mp_nexthop *nh;
	size_t i;

	if (!g)
		return;
	r->nh_id = id;
	if (d->kstats)
		r->kstats = g->has_stats ? KSTATS_GROUP : KSTATS_NO_KERNEL;
	for (i = 0; i < g->ngroup; i++) {
		m = nh_find(d, g->group[i].id);
		if (!m)
			continue;
		nh = add_nexthop(r, m->ifindex, m->gw_family, m->gw,
				 m->gw_family == AF_INET ? 4 : 16,
				 g->group[i].weight + 1);
		if (nh && g->has_stats)
			nh->kernel_packets = g->packets[i];
	}
}

static bool same_route(const struct mp_route *a, const struct mp_route *b)
{
	return a->family == b->family && a->table == b->table &&
	       a->dst_len == b->dst_len && !memcmp(a->dst, b->dst, 16);
}

static int rt_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= RTA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	struct rt_dump *d = data;
	struct mp_route r;
	size_t i, len;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*rtm), rt_attr_cb, tb);
	memset(&r, 0, sizeof(r));
	r.family = rtm->rtm_family;
	r.dst_len = rtm->rtm_dst_len;
	r.table = rtm->rtm_table;
	if (tb[RTA_TABLE] && !mnl_attr_validate(tb[RTA_TABLE], MNL_TYPE_U32))
		r.table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (tb[RTA_DST]) {
		len = mnl_attr_get_payload_len(tb[RTA_DST]);
		memcpy(r.dst, mnl_attr_get_payload(tb[RTA_DST]),
		       len < sizeof(r.dst) ? len : sizeof(r.dst));
	}
	/*
	 * With net.ipv4.nexthop_compat_mode 1, the default, a route over a
	 * group carries its next hops in RTA_MULTIPATH as well: the group
	 * is what the kernel (and a binding by nhid) goes by.
	 */
	if (tb[RTA_NH_ID] && !mnl_attr_validate(tb[RTA_NH_ID], MNL_TYPE_U32)) {
		r.nh_id = mnl_attr_get_u32(tb[RTA_NH_ID]);
		read_group(&r, d, r.nh_id);
	}
	if (!r.n && tb[RTA_MULTIPATH]) {
		read_multipath(&r, tb[RTA_MULTIPATH]);
		if (d->kstats)
			r.kstats = KSTATS_NO_GROUP;
	}
	if (r.n < 2)
		return MNL_CB_OK;
	for (i = 0; i < d->n; i++)
		if (same_route(&d->routes[i], &r))
			return MNL_CB_OK;	/* an IPv6 sibling's repeat */
	if (!grow((void **)&d->routes, &d->cap, d->n, sizeof(r), &d->err))
		return MNL_CB_ERROR;
	d->routes[d->n++] = r;
	return MNL_CB_OK;
}

static void nh_objs_free(struct rt_dump *d)
{
	size_t i;

	for (i = 0; i < d->nobjs; i++) {
		free(d->objs[i].group);
		free(d->objs[i].packets);
	}
	free(d->objs);
	d->objs = NULL;
	d->nobjs = 0;
	d->objcap = 0;
}

int routes_fetch(struct mp_route **routes, size_t *n, bool kstats)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct rt_dump d = { .kstats = kstats };
	struct mnl_socket *sock;
	size_t i;
	int err = -EINVAL;

	sock = rtnl_open();
	if (!sock)
		return -errno;
	/*
	 * A kernel older than 6.9 refuses the counters' flag (EINVAL: an
	 * attribute its policy does not know): the dump again without.
	 */
	if (kstats)
		err = rtnl_dump_u32(sock, RTM_GETNEXTHOP, AF_UNSPEC,
				    sizeof(struct nhmsg), ARS_NHA_OP_FLAGS,
				    ARS_NHA_OP_FLAG_DUMP_STATS, nh_cb, &d);
	if (err && !d.err) {
		nh_objs_free(&d);
		/* Kernels without nexthop objects have no groups to resolve. */
		rtnl_dump(sock, RTM_GETNEXTHOP, AF_UNSPEC,
			  sizeof(struct nhmsg), nh_cb, &d);
	}
	err = 0;
	for (i = 0; !err && !d.err && i < ARRAY_SIZE(families); i++) {
		err = rtnl_dump(sock, RTM_GETROUTE, families[i],
				sizeof(struct rtmsg), route_cb, &d);
		if (err == -EAFNOSUPPORT)	/* no IPv6 */
			err = 0;
	}
	mnl_socket_close(sock);
	nh_objs_free(&d);
	err = err ?: d.err;
	if (err) {
		free(d.routes);
		return err;
	}
	*routes = d.routes;
	*n = d.n;
	return 0;
}

bool route_uses(const struct mp_route *r, unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->nh[i].ifindex == ifindex)
			return true;
	return false;
}

bool route_steered(const struct mp_route *r, const struct steering *st)
{
	bool fam = r->family == AF_INET ? st->ipv4 : st->ipv6;

	return fam && !r->more && r->n <= ARS_STEER_MAX;
}

static const char *table_name(uint32_t table, char *buf, size_t len)
{
	if (table == RT_TABLE_MAIN)
		return "main";
	if (table == RT_TABLE_LOCAL)
		return "local";
	snprintf(buf, len, "%" PRIu32, table);
	return buf;
}

static void dst_text(const struct mp_route *r, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (!r->dst_len) {
		snprintf(buf, len, "default");
		return;
	}
	inet_ntop(r->family, r->dst, addr, sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, r->dst_len);
}

struct routes_view {
	struct ctx *c;
	const struct steering *st;
	const struct port_info *ports;
	size_t nports;
	struct objmap *objects;		/* NULL: not known */
};

/* Why a route has no counters of the kernel, with -s; NULL if it has. */
static const char *kstats_none(const struct mp_route *r)
{
	switch (r->kstats) {
	case KSTATS_NO_GROUP:
		return "the kernel counts only routes over a nexthop group";
	case KSTATS_NO_KERNEL:
		return "this kernel keeps no nexthop group counters (Linux 6.9 and later do)";
	default:
		return NULL;
	}
}

static void nexthop_json(struct json *jw, const struct mp_route *r,
			 const struct mp_nexthop *nh,
			 const struct port_info *p, bool alternate)
{
	char gw[INET6_ADDRSTRLEN], dev[IF_NAMESIZE];

	json_object_open(jw);
	if (nh->gw_family && inet_ntop(nh->gw_family, nh->gw, gw, sizeof(gw)))
		json_kv_string(jw, "gateway", gw);
	json_kv_u64(jw, "ifindex", nh->ifindex);
	if (ifname(nh->ifindex, dev))
		json_kv_string(jw, "ifname", dev);
	json_kv_u64(jw, "weight", nh->weight);
	json_kv_bool(jw, "qdisc", p && p->qdisc);
	if (p && p->qdisc)
		json_kv_u64(jw, "band", p->band);
	json_kv_bool(jw, "alternate", alternate);
	if (r->kstats == KSTATS_GROUP)
		json_kv_u64(jw, "kernel_packets", nh->kernel_packets);
	json_object_close(jw);
}

/* "\tnexthop via 10.0.1.2 dev eth1 weight 1 band 7" */
static void nexthop_line(const struct mp_route *r,
			 const struct mp_nexthop *nh,
			 const struct port_info *p, bool alternate)
{
	char gw[INET6_ADDRSTRLEN], dev[IF_NAMESIZE];

	printf("\tnexthop");
	if (nh->gw_family && inet_ntop(nh->gw_family, nh->gw, gw, sizeof(gw)))
		printf(" via %s", gw);
	if (ifname(nh->ifindex, dev))
		printf(" dev %s", dev);
	else
		printf(" dev %u", nh->ifindex);
	printf(" weight %u", nh->weight);
	if (alternate)
		printf(" alternate");
	if (p && p->qdisc)
		printf(" band %u", p->band);
	if (r->kstats == KSTATS_GROUP)
		printf(" kernel packets %" PRIu64, nh->kernel_packets);
	if (!p || !p->qdisc)
		printf(" (no ars qdisc: quality unknown)");
	printf("\n");
}

static void route_print(const struct routes_view *v, const struct mp_route *r)
{
	char dst[INET6_ADDRSTRLEN + 8], tbl[16];
	char inner[INET6_ADDRSTRLEN + 32 + ARS_OBJECT_NAME_LEN];
	bool steered = route_steered(r, v->st);
	const char *object = NULL;
	struct ctx *c = v->c;
	bool alt[ARS_STEER_MAX + 1] = { false };
	size_t i;

	dst_text(r, dst, sizeof(dst));
	if (v->objects) {
		object = objmap_route(v->objects, r, v->st->default_object,
				      inner, sizeof(inner));
		for (i = 0; i < r->n; i++)
			alt[i] = objmap_alternate(v->objects, object,
						  &r->nh[i]);
	}
	if (c->json) {
		json_object_open(&c->jw);
		json_kv_string(&c->jw, "family", family_name(r->family));
		json_kv_string(&c->jw, "dst", dst);
		json_kv_u64(&c->jw, "table", r->table);
		if (r->nh_id)
			json_kv_u64(&c->jw, "nhid", r->nh_id);
		if (object && *object)
			json_kv_string(&c->jw, "object", object);
		else if (object) {
			json_key(&c->jw, "object");
			json_null(&c->jw);
		}
		json_kv_bool(&c->jw, "steered", steered);
		if (r->kstats != KSTATS_UNASKED)
			json_kv_bool(&c->jw, "kernel_counters",
				     r->kstats == KSTATS_GROUP);
		if (kstats_none(r))
			json_kv_string(&c->jw, "kernel_counters_none",
				       kstats_none(r));
		json_key(&c->jw, "nexthops");
		json_array_open(&c->jw);
		for (i = 0; i < r->n; i++)
			nexthop_json(&c->jw, r, &r->nh[i],
				     port_find(v->ports, v->nports,
					       r->nh[i].ifindex), alt[i]);
		json_array_close(&c->jw);
		json_object_close(&c->jw);
		return;
	}
	printf("%s%s", r->family == AF_INET6 ? "inet6 " : "", dst);
	if (r->table != RT_TABLE_MAIN)
		printf(" table %s", table_name(r->table, tbl, sizeof(tbl)));
	if (r->nh_id)
		printf(" nhid %u", r->nh_id);
	if (object)
		printf(" object %s", *object ? object : "none");
	if (object && *inner)
		printf(" (%s)", inner);
	if (!steered)
		printf(" (not steered: %s)",
		       r->more || r->n > ARS_STEER_MAX ?
		       "more than 64 next hops" : v->st->why);
	printf("\n");
	if (kstats_none(r))
		printf("\tno kernel counters: %s\n", kstats_none(r));
	for (i = 0; i < r->n; i++)
		nexthop_line(r, &r->nh[i],
			     port_find(v->ports, v->nports, r->nh[i].ifindex),
			     alt[i]);
}

int cmd_routes(struct ctx *c)
{
	struct port_info *ports = NULL;
	struct mp_route *routes = NULL;
	struct steering st;
	size_t nroutes = 0, i;
	unsigned int ifindex;
	struct routes_view v;
	const char *dev;
	int err;

	err = parse_filter(c, &dev, NULL, NULL);
	if (err)
		return err;
	if (!ctx_open(c) || filter_ifindex(c, dev, &ifindex))
		return EXIT_FAIL;
	err = steering_get(c, &st);
	if (!err)
		err = ports_fetch(c, &ports, &v.nports);
	if (err)
		return cmd_error(c, err, NULL);
	err = routes_fetch(&routes, &nroutes, c->stats);
	if (err) {
		free(ports);
		fprintf(stderr, "%sroutes: dumping the routes: %s\n",
			msg_prefix(), strerror(-err));
		return EXIT_FAIL;
	}
	v.c = c;
	v.st = &st;
	v.ports = ports;
	/* An older module without objects: the routes alone. */
	if (objmap_fetch(c, &v.objects))
		v.objects = NULL;
	if (c->json)
		json_array_open(&c->jw);
	for (i = 0; i < nroutes; i++)
		if (!ifindex || route_uses(&routes[i], ifindex))
			route_print(&v, &routes[i]);
	if (c->json)
		json_array_close(&c->jw);
	objmap_free(v.objects);
	free(routes);
	free(ports);
	return EXIT_OK;
}
