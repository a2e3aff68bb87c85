// SPDX-License-Identifier: GPL-2.0
/*
 * The data plane: a netfilter hook at the end of PRE_ROUTING, in every
 * namespace, for IPv4 and IPv6.
 *
 * For a forwarded packet it computes the packet's own flow key (never the
 * incoming skb->hash: a veth carries the previous router's value, and a
 * NIC's RSS hash is the same on every router), finds its macro-flow entry,
 * lets the core choose a next hop by mode, and then steers the kernel's own
 * multipath selection to that next hop by setting an L4 skb hash inside the
 * next hop's range. The kernel's forwarding path does the rest. With
 * net.ipv{4,6}.fib_multipath_hash_policy=1 the kernel uses an L4 skb hash
 * as the multipath hash as it is; with any other policy it ignores it, so
 * such packets are counted as unsteered and pass untouched.
 *
 * A packet of a flowlet that goes on is steered from its entry alone: the
 * entry keeps the hash and the device of its path and the generation of
 * the namespace's routing state it was checked against (IPv4's rt_genid or
 * IPv6's fib6_sernum, plus the nexthop objects' sequence number), and ars
 * looks the route up only when a flowlet starts, when that generation
 * moved, and once per 1/16 of the idle time while a flowlet goes on, so
 * that what the generations do not cover (a group member's neighbour, a
 * route change racing a lookup) is seen within that time. Meanwhile a
 * stale hash cannot do harm: the kernel never takes a dead next hop for
 * any hash, so it can only put a packet on another usable path.
 *
 * No locks, no allocation: the profile and the table are read under RCU
 * (netfilter hooks run inside rcu_read_lock()), counters are per CPU, and
 * entries are written only when they change.
 */
#include <linux/hash.h>
#include <linux/icmp.h>
#include <linux/log2.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/netfilter_bridge.h>
#include <linux/prandom.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/dst_metadata.h>

#include "ars_step.h"
#include "genl.h"
#include "hook.h"
#include "key.h"
#include "netns.h"
#include "objects.h"
#include "ports.h"
#include "profile.h"
#include "route.h"
#include "stats.h"
#include "table.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Random numbers for the random modes, per CPU: cheap, and the steering
 * runs with bottom halves off (ars_steer_bh()), so this CPU's state is
 * ours.
 */
static DEFINE_PER_CPU(struct rnd_state, ars_rnd);

static void ars_key4(const struct ars_net *an, const struct sk_buff *skb,
		     const struct net_device *in, struct ars_ctx *c)
{
	const struct iphdr *iph = ip_hdr(skb);
	u32 ports = 0, *pp, _ports;

	if (!ip_is_fragment(iph) && ars_l4_ports(iph->protocol)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					iph->ihl * 4, sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	ars_flow_key4(an, iph->saddr, iph->daddr, iph->protocol, ports,
		      skb->mark, iph->tos, in->ifindex, c);
}

static void ars_key6(const struct ars_net *an, const struct ars_profile *p,
		     const struct sk_buff *skb, const struct net_device *in,
		     struct ars_ctx *c)
{
	const struct ipv6hdr *iph = ipv6_hdr(skb);
	u32 ports = 0, *pp, _ports;

	/* Ports only without extension headers; fragments and the rest hash
	 * by addresses.
	 */
	if (ars_l4_ports(iph->nexthdr)) {
		pp = skb_header_pointer(skb, skb_network_offset(skb) +
					sizeof(*iph), sizeof(_ports), &_ports);
		if (pp)
			ports = *pp;
	}
	ars_flow_key6(an, &iph->saddr, &iph->daddr, iph->nexthdr, ports,
		      skb->mark, in->ifindex, c);
	if (p->flowlabel)
		ars_flow_key_label(an, ip6_flowlabel(iph), c);
}

static bool ars_hash_policy_l4(const struct net *net, int family)
{
	if (family == AF_INET)
		return READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy) == 1;
#if IS_ENABLED(CONFIG_IPV6)
	return ip6_multipath_hash_policy(net) == 1;
#else
	return false;
#endif
}

/*
 * The generation of the namespace's routing state for @family, folded to
 * the entry's 16 bits and never 0. IPv4's rt_genid moves after every route,
 * rule, device and address change and nexthop replacement, IPv6's
 * fib6_sernum with every change of its trees; a group member deleted moves
 * only the nexthop sequence number; @conf_gen, that of the objects and
 * bindings, with every change of them (objects.c). Each only grows, so
 * their sum changes whenever one does.
 */
static u16 ars_net_gen(const struct net *net, int family, u16 conf_gen)
{
	u32 g = READ_ONCE(net->nexthop.seq) + conf_gen;

	if (family == AF_INET)
		g += atomic_read(&net->ipv4.rt_genid);
#if IS_ENABLED(CONFIG_IPV6)
	else
		g += atomic_read(&net->ipv6.fib6_sernum);
#endif
	return (g & 0x7fff) | 0x8000;
}

/*
 * Remote congestion (ars_remote.h): what a forwarded packet says of the
 * congestion that the flow it answers met after this router. A TCP
 * segment with ECN-Echo and not SYN (a SYN's and a SYN-ACK's ECE
 * negotiate ECN) echoes CE marks of the forward flow's data; a RoCEv2 CNP
 * (UDP to port 4791, BTH opcode 0x81) is a NIC's answer to them.
 */
#define ARS_TCP_SYN		0x02
#define ARS_TCP_ECE		0x40
#define ARS_TCP_FLAGS		13	/* the flags' byte in the header */
#define ARS_ROCE_PORT		4791
#define ARS_ROCE_CNP		0x81
#define ARS_ROCE_OPCODE		8	/* BTH's first byte, after UDP's */

enum ars_fb {
	ARS_FB_NONE,
	ARS_FB_ECE,
	ARS_FB_CNP,
};

/* The transport header's protocol and offset; false for a fragment. */
static bool ars_l4(const struct sk_buff *skb, int family, u8 *proto,
		   unsigned int *off)
{
	const struct iphdr *iph;

	if (family == AF_INET) {
		iph = ip_hdr(skb);
		*proto = iph->protocol;
		*off = skb_network_offset(skb) + iph->ihl * 4;
		return !ip_is_fragment(iph);
	}
	/* No extension headers, as for the flow key (ars_key6()). */
	*proto = ipv6_hdr(skb)->nexthdr;
	*off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	return true;
}

/* The feedback a packet carries; with ECN-Echo, its ports in @ports. */
static enum ars_fb ars_fb_kind(const struct sk_buff *skb, int family,
			       u32 *ports)
{
	u8 _h[ARS_TCP_FLAGS + 1], proto;
	unsigned int off;
	const u8 *h;

	if (!ars_l4(skb, family, &proto, &off))
		return ARS_FB_NONE;
	if (proto == IPPROTO_TCP) {
		h = skb_header_pointer(skb, off, ARS_TCP_FLAGS + 1, _h);
		if (!h || (h[ARS_TCP_FLAGS] & (ARS_TCP_ECE | ARS_TCP_SYN)) !=
			  ARS_TCP_ECE)
			return ARS_FB_NONE;
		memcpy(ports, h, sizeof(*ports));
		return ARS_FB_ECE;
	}
	if (proto == IPPROTO_UDP) {
		h = skb_header_pointer(skb, off, ARS_ROCE_OPCODE + 1, _h);
		if (h && (h[2] << 8 | h[3]) == ARS_ROCE_PORT &&
		    h[ARS_ROCE_OPCODE] == ARS_ROCE_CNP)
			return ARS_FB_CNP;
	}
	return ARS_FB_NONE;
}

/* RoCEv2 data: UDP to port 4791, not a CNP. */
static bool ars_roce_data(const struct sk_buff *skb, int family)
{
	u8 _h[ARS_ROCE_OPCODE + 1], proto;
	unsigned int off;
	const u8 *h;

	if (!ars_l4(skb, family, &proto, &off) || proto != IPPROTO_UDP)
		return false;
	h = skb_header_pointer(skb, off, ARS_ROCE_OPCODE + 1, _h);
	return h && (h[2] << 8 | h[3]) == ARS_ROCE_PORT &&
	       h[ARS_ROCE_OPCODE] != ARS_ROCE_CNP;
}

static const void *ars_saddr(const struct sk_buff *skb, int family)
{
	if (family == AF_INET)
		return &ip_hdr(skb)->saddr;
	return &ipv6_hdr(skb)->saddr;
}

static const void *ars_daddr(const struct sk_buff *skb, int family)
{
	if (family == AF_INET)
		return &ip_hdr(skb)->daddr;
	return &ipv6_hdr(skb)->daddr;
}

/*
 * The route key of a remote score: the forward flow's destination
 * address. The core keeps a score per route (ars_remote.h); the hook keys
 * it by what both the forward packet and its feedback name without a
 * route lookup, which the feedback would otherwise pay: a destination
 * host, a narrower route than a destination leaf's prefix.
 */
static u32 ars_remote_route(const struct ars_net *an, int family,
			    const void *daddr)
{
	u32 w[4];
	unsigned int n = family == AF_INET ? 1 : 4;

	memcpy(w, daddr, n * sizeof(u32));
	return ars_flow_key(w, n, an->remote.seed);
}

/* The key of the address pair of RoCEv2 data from @saddr to @daddr. */
static u32 ars_remote_pair(const struct ars_net *an, int family,
			   const void *saddr, const void *daddr)
{
	u32 w[8];
	unsigned int n = family == AF_INET ? 1 : 4;

	memcpy(w, saddr, n * sizeof(u32));
	memcpy(w + n, daddr, n * sizeof(u32));
	return ars_flow_key(w, 2 * n, ~an->remote.seed);
}

/* A next hop's gateway: its family (0 for none) and address. */
struct ars_gw {
	u8		family;
	struct in6_addr	addr;	/* or the IPv4 one in s6_addr32[0] */
};

/*
 * What ars steered to device @ifindex; @gw, the path's gateway, when a
 * flowlet starts on it.
 */
static void ars_account(struct ars_net *an, u32 ifindex,
			const struct sk_buff *skb, const struct ars_gw *gw)
{
	struct ars_port *port = ars_port_find(an, ifindex);
	struct ars_port_pcpu *pc;

	if (!port)
		return;
	pc = this_cpu_ptr(port->pcpu);
	pc->packets++;
	pc->bytes += skb->len;
	if (gw) {
		pc->flowlets++;
		/* Once per flowlet; a dump may see a gateway half written. */
		if (gw->family)
			port->gw = gw->addr;
		WRITE_ONCE(port->gw_family, gw->family);
	}
}

/* A counter of the binding in counter slot @bind, if any (objects.c). */
static void ars_bstat_inc_packets(struct ars_net *an, int bind)
{
	if (bind >= 0)
		this_cpu_inc(an->bstats->b[bind].packets);
}

/*
 * A flowlet of object @obj started, by binding @bind (-1: none);
 * @old_ifindex: the entry's device before, 0 when it had none.
 */
static void ars_flowlet_started(struct ars_net *an, int obj, int bind,
				u32 index, const struct ars_result *res,
				u32 old_ifindex, u32 new_ifindex, int family)
{
	ars_ostat_inc(an, obj, ARS_STAT_FLOWLETS);
	if (bind >= 0)
		this_cpu_inc(an->bstats->b[bind].flowlets);
	if (res->reason == ARS_REASON_FAILOVER)
		ars_ostat_inc(an, obj, ARS_STAT_FAILOVERS);
	if (old_ifindex && old_ifindex != new_ifindex)
		ars_ostat_inc(an, obj, ARS_STAT_REASSIGNMENTS);

	trace_ars_path_assign(an->net, index, old_ifindex, new_ifindex,
			      res->reason);
	ars_genl_notify_assign(an, index, family, old_ifindex, new_ifindex,
			       res->reason);
}

static int ars_route(struct ars_net *an, struct sk_buff *skb,
		     const struct net_device *in, int family,
		     struct ars_route *r, struct ars_route_ctx *rc)
{
	rc->res = this_cpu_ptr(an->rcache)->res;
	if (family == AF_INET)
		return ars_route4(an->net, skb, in->ifindex, r, rc);
	return ars_route6(an->net, skb, r, rc);
}

/* What object @o says for the packets it steers. */
static void ars_ctx_object(struct ars_net *an, struct ars_ctx *c,
			   const struct ars_object *o)
{
	c->mode = o->mode;
	c->idle = o->idle_time;
	c->ticket = 0;
	if (c->mode == ARS_MODE_PACKET_ROUNDROBIN)
		c->ticket = (u64)atomic64_inc_return(&an->ticket.v);
}

/* The entry is about to carry a flowlet of object @obj. */
static void ars_flow_object_set(struct ars_flow *f, const struct ars_ctx *c,
				int obj)
{
	u16 key_hi = ars_flow_key_hi(c->key);

	if (READ_ONCE(f->idle) != c->idle)
		WRITE_ONCE(f->idle, c->idle);
	if (READ_ONCE(f->object) != obj)
		WRITE_ONCE(f->object, obj);
	if (READ_ONCE(f->key_hi) != key_hi)
		WRITE_ONCE(f->key_hi, key_hi);
}

/*
 * Some object has a table of its own: the packet's entry, if its flowlet
 * goes on, with its idle time in @c. First the entry of the table that the
 * hint of the packet's entry @f of the namespace's table names (the one
 * that holds the flowlet that last started at @f's index); if that is not
 * the packet's, as for a flow of another object whose flowlet started at
 * the same index since, that of the table of the object that the packet's
 * mark (or the default) selects, when that needs no route. Entries of one
 * tag are in one object's table, and the tag covers the mark: the entry of
 * the mark's object's table is the packet's if its tag and generation are,
 * and an entry of another table never is. Out of line, as the rest of the
 * own tables' work: the continuing packet without them pays a test.
 */
static noinline struct ars_flow *ars_flow_hinted(const struct ars_conf *conf,
						 struct ars_flow *f,
						 const struct sk_buff *skb,
						 struct ars_ctx *c)
{
	struct ars_table *hinted = NULL, *t;
	struct ars_flow *e = f;
	u8 own = READ_ONCE(f->own);
	int obj, bind;

	if (own)
		hinted = conf->own[(own - 1) & (ARS_OBJECTS_MAX - 1)];
	if (hinted)
		e = &hinted->flows[c->key & hinted->mask];
	c->idle = READ_ONCE(e->idle);
	if (ars_flowlet_fast(e, c))
		return e;
	obj = ars_conf_mark(conf, skb->mark, &bind);
	if (obj < 0)
		return e;
	t = conf->own[obj];
	if (t == hinted)
		return e;
	return t ? &t->flows[c->key & t->mask] : f;
}

/*
 * The entry that the hint of @f, the namespace's entry of the packet,
 * names for it, and whether that is the only one the hint may stand for:
 * an entry of the namespace's table, or of an own table no larger, is at
 * the same index for every flow of @f's index; in a larger own table,
 * another flow of that index has its entry elsewhere.
 */
static const struct ars_flow *ars_flow_hint_entry(struct ars_net *an,
						  const struct ars_conf *conf,
						  const struct ars_flow *f,
						  u8 own, u32 key, bool *exact)
{
	const struct ars_table *t = NULL, *nt = rcu_dereference(an->table);

	if (own)
		t = conf->own[(own - 1) & (ARS_OBJECTS_MAX - 1)];
	*exact = !t || (nt && t->mask <= nt->mask);
	return t ? &t->flows[key & t->mask] : f;
}

/*
 * A packet of object @obj took the slow path, at the index of @f, its
 * entry of the namespace's table: the hint names the object's table when
 * the packet @started a flowlet, or when no flowlet goes on in the entry
 * the hint names instead. Not otherwise: two flowlets of one index in two
 * tables would take the hint from each other with every packet, and send
 * every packet of both the slow way.
 */
static noinline void ars_flow_hint(struct ars_net *an,
				   const struct ars_conf *conf,
				   struct ars_flow *f, int obj,
				   const struct ars_ctx *c, bool started)
{
	u8 own = conf->own[obj] ? obj + 1 : 0, cur = READ_ONCE(f->own);
	const struct ars_flow *e;
	bool exact;
	u64 state;

	if (cur == own)
		return;
	if (!started) {
		e = ars_flow_hint_entry(an, conf, f, cur, c->key, &exact);
		state = READ_ONCE(e->state);
		if (!exact || (ars_flow_gen(state) &&
			       ars_flow_age(state, c->now) <= READ_ONCE(e->idle)))
			return;
	}
	WRITE_ONCE(f->own, own);
}

/* ars_flow_of() while some object has a table of its own. */
static noinline struct ars_flow *ars_flow_own(const struct ars_conf *conf,
					      struct ars_flow *f, int obj,
					      u32 key, u32 *index)
{
	struct ars_table *t = conf->own[obj];

	if (!t)
		return f;
	*index = key & t->mask;
	return &t->flows[*index];
}

/*
 * The packet's entry in the table of object @obj, and its index there in
 * @index: @f (of the namespace's table, or NULL without one), unless the
 * object has a table of its own.
 */
static inline struct ars_flow *ars_flow_of(const struct ars_conf *conf,
					   struct ars_flow *f, int obj,
					   u32 key, u32 *index)
{
	if (likely(!conf->own_tables) || !f)
		return f;
	return ars_flow_own(conf, f, obj, key, index);
}

/*
 * A path is a next hop, not a device: several of a route's next hops may
 * share one (gateways on a LAN, a VLAN trunk, a bond). Before the core
 * looks for the path of the entry's flowlet by its device, tell it which
 * one the flowlet is on: the one the kernel takes for the entry's hash,
 * when that is on the entry's device. So the flowlet stays with its
 * gateway when flowlet-random left its path unknown, or the route's order
 * changed. Only on the slow path of an entry that holds a flowlet that
 * goes on: an idle one starts a new flowlet, whose old path is not read.
 */
static void ars_flow_path_sync(struct ars_flow *f, const struct ars_route *r,
			       const struct ars_route_ctx *rc,
			       const struct ars_ctx *c)
{
	u64 state = READ_ONCE(f->state);
	u8 path;

	if (!ars_flow_gen(state) || READ_ONCE(f->tag) != c->tag ||
	    !ars_flow_live(state, c->now, c->idle))
		return;
	path = ars_route_hash_path(r, rc, READ_ONCE(f->hash));
	if (path == ARS_PATH_NONE || path == ars_flow_path(state) ||
	    r->path[path].dev != READ_ONCE(f->ifindex))
		return;
	WRITE_ONCE(f->state,
		   ars_flow_pack(ars_flow_time(state) << ARS_TIME_SHIFT, path,
				 ars_flow_gen(state)));
}

/* Every next hop of @r is on an ARS-enabled device (SONiC's rule). */
static bool ars_route_enabled(const struct ars_conf *conf,
			      const struct ars_route *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (!ars_conf_port(conf, r->path[i].dev))
			return false;
	return true;
}

/* The object the packet's route selects (objects.c). */
static int ars_object_of_route(const struct ars_conf *conf,
			       const struct sk_buff *skb, int family,
			       const struct ars_route_ctx *rc, int *bind)
{
	struct in6_addr daddr;

	if (family == AF_INET)
		daddr.s6_addr32[0] = ip_hdr(skb)->daddr;
	else
		daddr = ipv6_hdr(skb)->daddr;
	return ars_conf_route(conf, family, &daddr, rc->table, rc->nhid, bind);
}

/*
 * Run the kernel's own input route lookup now, with the hash ars set, as
 * the kernel would for a packet received on @in (ars_in_dev()); false
 * when it failed. The kernel then takes the packet's dst as it is and skips
 * its own lookup and, for TCP and UDP, its early demultiplexing, a socket
 * lookup that a forwarded packet never matches: so a packet that ars steers
 * costs the kernel no more than one it does not. A failed lookup leaves no
 * dst, and the kernel fails it again and drops the packet.
 */
static __always_inline bool ars_route_input(struct sk_buff *skb,
					    struct net_device *in, int family)
{
	const struct iphdr *iph;

	if (family == AF_INET) {
		iph = ip_hdr(skb);
		return !ip_route_input_noref(skb, iph->daddr, iph->saddr,
					     iph->tos, in);
	}
#if IS_ENABLED(CONFIG_IPV6)
	return !ipv6_stub->ipv6_route_input(skb);
#else
	return false;
#endif
}

/*
 * The route the kernel chose forwards the packet: its dst, with the next
 * hop's gateway in @gw, or NULL.
 */
static const struct dst_entry *ars_dst_forwarded(const struct sk_buff *skb,
						 int family, struct ars_gw *gw)
{
	const struct dst_entry *dst = skb_dst(skb);
	const struct rtable *rt;
	const struct rt6_info *rt6;

	if (!dst || !dst->dev)
		return NULL;
	if (family == AF_INET) {
		rt = skb_rtable(skb);
		if (rt->rt_type != RTN_UNICAST)
			return NULL;
		gw->family = rt->rt_gw_family;
		if (rt->rt_gw_family == AF_INET)
			gw->addr.s6_addr32[0] = rt->rt_gw4;
		else if (rt->rt_gw_family == AF_INET6)
			gw->addr = rt->rt_gw6;
		return dst;
	}
	rt6 = container_of(dst, struct rt6_info, dst);
	if (rt6->rt6i_flags & (RTF_LOCAL | RTF_ANYCAST | RTF_REJECT) ||
	    dst->error)
		return NULL;
	gw->family = rt6->rt6i_flags & RTF_GATEWAY ? AF_INET6 : 0;
	gw->addr = rt6->rt6i_gateway;
	return dst;
}

/*
 * The input route lookup that ars_route_input() ran for @skb chose among
 * several next hops, as ars_route() would have seen (ARS_ROUTE_MULTI): the
 * kernel marks a packet whose next hop it selected by hash
 * (ip_mkroute_input(), fib6_select_path()). IPv6 marks every route with a
 * nexthop object, so there a single nexthop or a group of one is told
 * apart by the route's own count.
 */
static bool ars_dst_multipath(const struct sk_buff *skb, int family,
			      const struct dst_entry *dst)
{
	const struct fib6_info *from;

	if (family == AF_INET)
		return IPCB(skb)->flags & IPSKB_MULTIPATH;
	if (!(IP6CB(skb)->flags & IP6SKB_MULTIPATH))
		return false;
	from = rcu_dereference(container_of(dst, struct rt6_info, dst)->from);
	return from && (!from->nh || nexthop_num_path(from->nh) > 1);
}

/*
 * A forwarded packet of an object in the ecmp mode: the kernel's own
 * multipath selection, with the hash this router computes from the
 * packet's headers (with fib_multipath_hash_policy=1, its 5-tuple), as a
 * router whose packets come from a NIC does. Not the skb's hash as it
 * came, which the kernel would take as it is: a veth carries the sending
 * socket's hash (sk_txhash, which TCP draws anew after a timeout) or the
 * previous router's, so that every router on the way would choose by one
 * host's random draw.
 */
static unsigned int ars_ecmp(struct ars_net *an, struct sk_buff *skb, int obj)
{
	skb_clear_hash(skb);
	ars_ostat_inc(an, obj, ARS_STAT_ECMP);
	return NF_ACCEPT;
}

/* An skb's hash as it came, for a packet ars ends up not steering. */
struct ars_skb_hash {
	u32	hash;
	bool	l4;
	bool	sw;
};

static void ars_skb_hash_save(const struct sk_buff *skb,
			      struct ars_skb_hash *h)
{
	h->hash = skb->hash;
	h->l4 = skb->l4_hash;
	h->sw = skb->sw_hash;
}

static void ars_skb_hash_restore(struct sk_buff *skb,
				 const struct ars_skb_hash *h)
{
	skb->hash = h->hash;
	skb->l4_hash = h->l4;
	skb->sw_hash = h->sw;
}

/*
 * The same, for a packet whose ecmp object is known without the route (a
 * mark's, or the default object while no route binding exists): the
 * kernel's own input route lookup, run now without the hash, says whether
 * it is forwarded, and the kernel does not repeat it. A packet for this
 * host gets its hash back (RFS records it) and is not counted; one whose
 * route is not multipath is counted in ecmp too.
 */
static unsigned int ars_ecmp_input(struct ars_net *an, struct sk_buff *skb,
				   struct net_device *in, int family, int obj)
{
	struct ars_skb_hash saved;
	struct ars_gw gw;

	ars_skb_hash_save(skb, &saved);
	skb_clear_hash(skb);
	if (ars_route_input(skb, in, family) &&
	    ars_dst_forwarded(skb, family, &gw))
		return ars_ecmp(an, skb, obj);
	ars_skb_hash_restore(skb, &saved);
	return NF_ACCEPT;
}

/*
 * The route cache. A route that a packet looked up serves the next packets
 * to the same destination on this CPU for one sampling interval, bands
 * and the object its binding selects included: that is the bands' own
 * resolution (a port's figures change once per interval), and the longest
 * that ars may go on choosing a next hop that died without a change of the
 * routing generation (a group member whose neighbour failed), which the
 * kernel, given any hash, skips anyway. A change of objects or bindings
 * moves the generation too. Only for routes that follow from the
 * destination alone (no policy rules, ars_route_key()) and are no
 * resilient groups, whose buckets ars reads at each choice.
 */
static struct ars_rcache_slot *ars_rcache_slot(struct ars_net *an,
					       const struct ars_rkey *k)
{
	u32 h = (__force u32)(k->daddr.s6_addr32[0] ^ k->daddr.s6_addr32[3]);

	h = hash_32(h, ilog2(ARS_RCACHE_SLOTS));
	return &this_cpu_ptr(an->rcache)->slot[h];
}

static bool ars_rkey_equal(const struct ars_rkey *a, const struct ars_rkey *b)
{
	return ipv6_addr_equal(&a->daddr, &b->daddr) &&
	       ipv6_addr_equal(&a->saddr, &b->saddr) &&
	       a->tos == b->tos && a->family == b->family;
}

static bool ars_rcache_hit(const struct ars_rcache_slot *s,
			   const struct ars_rkey *k, const struct ars_ctx *c,
			   const struct ars_profile *p,
			   struct ars_route_ctx *rc)
{
	if (!s->time || s->gen != c->gen ||
	    c->now - s->time >= p->sampling_interval ||
	    !ars_rkey_equal(&s->key, k))
		return false;
	rc->nhg = NULL;
	rc->res_table = NULL;
	rc->table = s->table;
	rc->nhid = s->nhid;
	return true;
}

static void ars_rcache_store(struct ars_rcache_slot *s,
			     const struct ars_rkey *k, const struct ars_ctx *c,
			     const struct ars_route *r,
			     const struct ars_route_ctx *rc)
{
	s->time = c->now;
	s->key = *k;
	s->gen = c->gen;
	s->bands = false;
	s->table = rc->table;
	s->nhid = rc->nhid;
	s->route.n = r->n;
	memcpy(s->route.path, r->path, r->n * sizeof(r->path[0]));
}

/* Next hop @nhc goes through the alternate @a's gateway. */
static bool ars_alt_gw_is(const struct ars_alt_nh *a,
			  const struct fib_nh_common *nhc)
{
	if (!nhc || nhc->nhc_gw_family != a->family)
		return false;
	if (a->family == AF_INET)
		return nhc->nhc_gw.ipv4 == a->gw.s6_addr32[0];
	return ipv6_addr_equal(&nhc->nhc_gw.ipv6, &a->gw);
}

/* Path @i of @r, whose next hop is @nhc, is one of @o's alternates. */
static u8 ars_path_alternate(const struct ars_object *o,
			     const struct ars_route *r, unsigned int i,
			     const struct fib_nh_common *nhc)
{
	unsigned int k;

	for (k = 0; k < o->n_alt; k++) {
		const struct ars_alt_nh *a = &o->alts[k];

		if (a->ifindex ? a->ifindex == r->path[i].dev :
				 ars_alt_gw_is(a, nhc))
			return 1;
	}
	return 0;
}

/*
 * Object @o has alternates: which paths of @r they are, for the step's
 * copy of the route (ars_step()), which the core then rewrites
 * (ars_route_alternates()). Gateways come from the next hops of a fresh
 * lookup (@rc), as the caller makes sure. Only for objects with
 * alternates: no other packet comes here.
 */
static noinline u64 ars_alt_mask(const struct ars_object *o,
				 const struct ars_route *r,
				 const struct ars_route_ctx *rc)
{
	const struct fib_nh_common *nhc = NULL;
	unsigned int i;
	u64 mask = 0;

	for (i = 0; i < r->n; i++) {
		if (o->alt_gw)
			nhc = ars_route_nhc(rc, i);
		if (ars_path_alternate(o, r, i, nhc))
			mask |= 1ULL << i;
	}
	return mask;
}

/*
 * The route whose bands the step fills in the quality modes: @r, whose
 * bands the route cache's @slot may hold already (@r is its route then:
 * @s->bands and @s->known say so), else the step measures them, and
 * *@slot, left set, keeps them. With a flowlet window, each new flowlet
 * changes the bands its successors see, so flowlet-quality measures them
 * every time, into a copy in @local: the cached route keeps the bands of
 * its interval, with the known they go with, for the other objects'
 * packets. Returns the route for the step.
 */
static struct ars_route *ars_bands(struct ars_route *r,
				   struct ars_route *local,
				   const struct ars_ctx *c,
				   const struct ars_profile *p,
				   struct ars_rcache_slot **slot,
				   struct ars_step *s)
{
	s->bands = false;
	if (c->mode != ARS_MODE_PACKET_QUALITY &&
	    c->mode != ARS_MODE_FLOWLET_QUALITY) {
		*slot = NULL;
		return r;
	}
	if (p->flowlet_window && c->mode == ARS_MODE_FLOWLET_QUALITY &&
	    *slot) {
		local->n = r->n;
		memcpy(local->path, r->path, r->n * sizeof(r->path[0]));
		*slot = NULL;
		return local;
	}
	if (*slot && (*slot)->bands) {
		s->bands = true;	/* the cached route holds them */
		s->known = (*slot)->known;
		*slot = NULL;
	}
	return r;
}

/*
 * With the profile's remote on, a flowlet of a forward flow was planned
 * (with the scores) or refreshed: count it if a score moved it, and note
 * RoCEv2 data's path for its address pair's CNPs (ars_remote_pair_note()),
 * also as its flowlet goes on (the slow path's refreshes), so that a long
 * flowlet's note stays fresh.
 */
static noinline void ars_remote_steered(struct ars_net *an,
					const struct sk_buff *skb, int family,
					const struct ars_step *step, u32 dev,
					int obj, u64 now)
{
	if (step->remote && step->res.assigned && step->remote_moved)
		ars_ostat_inc(an, obj, ARS_STAT_REMOTE_MOVED);
	if (ars_roce_data(skb, family))
		ars_remote_pair_note(&an->remote,
				     ars_remote_pair(an, family,
						     ars_saddr(skb, family),
						     ars_daddr(skb, family)),
				     step->remote_route, dev, now);
}

/*
 * With the route: resolve the object if the mark did not (@obj
 * ARS_OBJ_ROUTE), then start, carry or share the entry's flowlet (@f), or,
 * in a per-packet mode, choose for the packet alone.
 */
static unsigned int ars_steer_slow(struct ars_net *an,
				   const struct ars_profile *p,
				   const struct ars_conf *conf,
				   struct sk_buff *skb, struct net_device *in,
				   int family, struct ars_ctx *c,
				   struct ars_flow *f, u32 index, int obj,
				   int bind)
{
	struct ars_skb_hash saved;
	struct ars_rcache_slot *slot = NULL;
	struct ars_flow *nf = f;	/* the namespace's entry */
	const struct ars_object *o;
	struct ars_route_ctx rc;
	/* Filled before it is read: no zeroing per new flowlet. */
	struct ars_route local __uninitialized, *r = &local;
	/*
	 * Each field is written before it is read (the inputs below, bands
	 * and known by ars_bands() and the step, res by the step): not
	 * zeroed for every packet under INIT_STACK_ALL_ZERO.
	 */
	struct ars_step step __uninitialized;
	struct ars_rkey k;
	struct ars_gw gw;
	bool hit = false;
	u32 hash, old_ifindex;
	int kind = ARS_ROUTE_MULTI;

	if (ars_route_key(an->net, skb, family, &k))
		slot = ars_rcache_slot(an, &k);
	if (slot)
		hit = ars_rcache_hit(slot, &k, c, p, &rc);
	if (hit) {
		r = &slot->route;
	} else {
		kind = ars_route(an, skb, in, family, r, &rc);
		if (kind == ARS_ROUTE_NONE)
			return NF_ACCEPT;
		if (kind == ARS_ROUTE_SINGLE) {
			ars_stat_inc(an, ARS_STAT_SINGLEPATH);
			return NF_ACCEPT;
		}
		if (kind == ARS_ROUTE_MULTI && slot && !rc.res_table) {
			ars_rcache_store(slot, &k, c, r, &rc);
			r = &slot->route;
		} else {
			slot = NULL;
		}
	}
	if (obj == ARS_OBJ_ROUTE) {
		obj = ars_object_of_route(conf, skb, family, &rc, &bind);
		ars_bstat_inc_packets(an, bind);
	}
	if (obj < 0) {
		ars_stat_inc(an, ARS_STAT_ECMP);
		return NF_ACCEPT;
	}
	if (conf->obj[obj].mode == ARS_MODE_ECMP)
		return ars_ecmp(an, skb, obj);
	/* A route with too many next hops left @r unset: not steered. */
	if (kind >= 0 && conf->n_ports && !ars_route_enabled(conf, r)) {
		ars_ostat_inc(an, obj, ARS_STAT_DISABLED);
		return NF_ACCEPT;
	}
	o = &conf->obj[obj];
	ars_ctx_object(an, c, o);
	if (!ars_mode_flowlet(c->mode))
		f = NULL;
	else if (unlikely(!f))
		kind = -ENOENT;		/* no table */
	else
		f = ars_flow_of(conf, f, obj, c->key, &index);

	if (kind < 0 || !ars_hash_policy_l4(an->net, family))
		goto unsteered;

	c->rand = prandom_u32_state(this_cpu_ptr(&ars_rnd));
	if (f)
		ars_flow_path_sync(f, r, &rc, c);
	step.alt = NULL;
	step.remote = NULL;
	step.remote_moved = false;
	if (unlikely(p->remote)) {
		step.remote_route = ars_remote_route(an, family,
						     ars_daddr(skb, family));
		/*
		 * Only a flowlet that starts reads the scores: one that goes
		 * on keeps its path (a failover, rare, chooses by the local
		 * bands alone).
		 */
		if (!f || ars_flowlet_expired(f, c))
			step.remote = &an->remote;
	}
	if (unlikely(o->n_alt)) {
		/*
		 * Gateways need the route's next hops, which a cached route
		 * lacks: look it up again, leaving the cache alone.
		 */
		if (hit && o->alt_gw) {
			r = &local;
			if (ars_route(an, skb, in, family, r, &rc) !=
			    ARS_ROUTE_MULTI)
				goto unsteered;
			slot = NULL;
		}
		step.alt = &o->alt;
		step.alt_mask = ars_alt_mask(o, r, &rc);
	}
	step.env = an;
	step.window = p->flowlet_window;
	step.delay_full = 0;
	step.rate_weight = p->rate_weight;
	r = ars_bands(r, &local, c, p, &slot, &step);
	r = ars_step(&step, f, r, &local, c);
	if (slot) {
		/* the step measured the cached route's bands */
		slot->known = step.known;
		slot->bands = true;
	}
	if (step.res.path == ARS_PATH_NONE ||
	    !ars_route_steer_hash(r, &rc, step.res.path, c->key, &hash))
		goto unsteered;

	/*
	 * The kernel's own lookup, with the hash, decides: a packet that it
	 * does not forward (rp_filter, forwarding off, a policy rule ars's
	 * lookup did not see the same way) starts no flowlet, is not counted
	 * as steered and keeps the hash it came with.
	 */
	ars_skb_hash_save(skb, &saved);
	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	if (!ars_route_input(skb, in, family) ||
	    !ars_dst_forwarded(skb, family, &gw)) {
		ars_skb_hash_restore(skb, &saved);
		goto unsteered;
	}
	if (f) {
		old_ifindex = ars_flow_gen(READ_ONCE(f->state)) ?
			      READ_ONCE(f->ifindex) : 0;
		if (step.res.write == ARS_WRITE_ALL)
			ars_flow_object_set(f, c, obj);
	}
	ars_step_commit(&step, f, r, c, hash);
	if (f) {
		if (unlikely(conf->own_tables))
			ars_flow_hint(an, conf, nf, obj, c, step.res.assigned);
		if (step.res.assigned)
			ars_flowlet_started(an, obj, bind, index, &step.res,
					    old_ifindex, r->path[step.res.path].dev,
					    family);
		if (unlikely(p->remote))
			ars_remote_steered(an, skb, family, &step,
					   r->path[step.res.path].dev, obj,
					   c->now);
	}
	if (!step.known && (step.res.assigned || !f))
		ars_ostat_inc(an, obj, ARS_STAT_UNKNOWN_QUALITY);
	ars_ostat_inc(an, obj, ARS_STAT_STEERED);
	/* The gateway of the next hop the kernel took, for the paths dump. */
	ars_account(an, r->path[step.res.path].dev, skb,
		    step.res.assigned ? &gw : NULL);
	return NF_ACCEPT;

unsteered:
	ars_ostat_inc(an, obj, ARS_STAT_UNSTEERED);
	return NF_ACCEPT;
}

/*
 * flowlet-random, an empty or idle entry, an object known without the
 * route: LetFlow needs no route. Any hash will do, the kernel maps it to a
 * usable next hop by weight, so ars sets a random one and runs the
 * kernel's own route lookup at once (as br_netfilter does), which the
 * kernel then does not repeat; its result tells the device. Packets that
 * are not forwarded leave the entry alone and are not counted, and those
 * whose route has one next hop are counted in singlepath, as
 * ars_steer_slow() counts them: neither is steered, nor starts a flowlet.
 * The next hop's position in the route stays unknown until the flowlet's
 * first refresh looks the route up. Returns true when a flowlet started;
 * the packet is accepted either way.
 */
static noinline bool ars_flowlet_random(struct ars_net *an,
					const struct ars_profile *p,
					struct sk_buff *skb,
					struct net_device *in,
					int family, struct ars_ctx *c,
					struct ars_flow *f, u32 index,
					int obj, int bind)
{
	u32 hash = prandom_u32_state(this_cpu_ptr(&ars_rnd)) | 1;
	u64 state = READ_ONCE(f->state);
	const struct dst_entry *dst;
	struct ars_skb_hash saved;
	struct ars_step step __uninitialized;	/* env, window; res by the step */
	struct ars_gw gw;
	u32 old_ifindex;

	ars_skb_hash_save(skb, &saved);
	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	if (!ars_route_input(skb, in, family))
		return false;	/* the kernel drops it */
	dst = ars_dst_forwarded(skb, family, &gw);
	if (!dst) {
		/* Local: RFS and the socket record the hash it came with. */
		ars_skb_hash_restore(skb, &saved);
		return false;
	}
	if (unlikely(!ars_dst_multipath(skb, family, dst))) {
		/*
		 * Not a random draw per packet for what follows (a transmit
		 * queue, a qdisc): the kernel hashes the headers if asked,
		 * as for the ecmp mode's packets.
		 */
		skb_clear_hash(skb);
		ars_stat_inc(an, ARS_STAT_SINGLEPATH);
		return false;
	}

	old_ifindex = ars_flow_gen(state) ? READ_ONCE(f->ifindex) : 0;
	ars_flow_object_set(f, c, obj);
	step.env = an;
	step.window = p->flowlet_window;
	ars_step_random(&step, f, c, hash, dst->dev->ifindex);

	ars_ostat_inc(an, obj, ARS_STAT_STEERED);
	ars_flowlet_started(an, obj, bind, index, &step.res, old_ifindex,
			    dst->dev->ifindex, family);
	ars_account(an, dst->dev->ifindex, skb, &gw);
	return true;
}

/* A packet that some object may steer, or with the ecmp mode hash anew. */
static unsigned int ars_steer_flow(struct ars_net *an,
				   const struct ars_profile *p,
				   const struct ars_conf *conf,
				   struct sk_buff *skb, struct net_device *in,
				   int family)
{
	struct ars_flow *f = NULL, *e;
	struct ars_table *t;
	struct ars_ctx c;
	u32 index = 0, own_index;
	int obj, bind;

	if (family == AF_INET)
		ars_key4(an, skb, in, &c);
	else
		ars_key6(an, p, skb, in, &c);
	c.now = ktime_get_ns();
	c.gen = ars_net_gen(an->net, family, conf->gen);

	t = conf->flowlets ? rcu_dereference(an->table) : NULL;
	if (likely(t)) {
		index = c.key & t->mask;
		f = &t->flows[index];
		e = f;
		if (unlikely(conf->own_tables))
			e = ars_flow_hinted(conf, f, skb, &c);
		/*
		 * The common case: no route, no object, nothing written; the
		 * entry knows its object, which the generation says is still
		 * the one its packets resolve to. An entry of another table
		 * than the object's is never the packet's: entries of one tag
		 * are in one object's table (the generation moves with
		 * max-flows too).
		 */
		c.idle = READ_ONCE(e->idle);
		if (ars_flowlet_fast(e, &c) &&
		    ars_hash_policy_l4(an->net, family)) {
			obj = READ_ONCE(e->object) & (ARS_OBJECTS_MAX - 1);
			skb_set_hash(skb, READ_ONCE(e->hash), PKT_HASH_TYPE_L4);
			ars_route_input(skb, in, family);
			ars_ostat_inc(an, obj, ARS_STAT_STEERED);
			ars_account(an, READ_ONCE(e->ifindex), skb, NULL);
			return NF_ACCEPT;
		}
	}

	obj = ars_conf_mark(conf, skb->mark, &bind);
	ars_bstat_inc_packets(an, bind);
	if (obj == ARS_OBJ_EXEMPT) {
		ars_stat_inc(an, ARS_STAT_EXEMPT);
		return NF_ACCEPT;
	}
	if (obj >= 0 && conf->obj[obj].mode == ARS_MODE_ECMP)
		return ars_ecmp_input(an, skb, in, family, obj);
	/* Alternates need the route's next hops. */
	if (obj >= 0 && f && !conf->n_ports &&
	    conf->obj[obj].mode == ARS_MODE_FLOWLET_RANDOM &&
	    !conf->obj[obj].n_alt) {
		ars_ctx_object(an, &c, &conf->obj[obj]);
		own_index = index;
		e = ars_flow_of(conf, f, obj, c.key, &own_index);
		if (ars_flowlet_expired(e, &c) &&
		    ars_hash_policy_l4(an->net, family)) {
			if (ars_flowlet_random(an, p, skb, in, family, &c, e,
					       own_index, obj, bind) &&
			    unlikely(conf->own_tables))
				ars_flow_hint(an, conf, f, obj, &c, true);
			return NF_ACCEPT;
		}
	}
	return ars_steer_slow(an, p, conf, skb, in, family, &c, f, index, obj,
			      bind);
}

/*
 * With the profile's remote on, after the packet's own steering: if it
 * carries feedback (ars_fb_kind()), credit the path of the forward flow it
 * answers (ars_remote_feedback()). With ECN-Echo, that flow's entry is
 * the one of this packet's key with addresses and ports swapped, and the
 * forward flow's input device, its key's, the one this packet leaves on:
 * the hook runs the kernel's input route lookup for it if its steering
 * did not (the kernel would run the same next). Its mark and TOS are
 * taken for the forward flow's; with the profile's flowlabel on, an IPv6
 * forward flow's key has a label that its ACKs do not carry, and nothing
 * matches. A CNP names its address pair only: it credits the path of the
 * pair's newest RoCEv2 flowlet (ars_remote_pair_feedback()), if that was
 * noted within a half-life.
 */
static noinline void ars_feedback(struct ars_net *an,
				  const struct ars_profile *p,
				  const struct ars_conf *conf,
				  struct sk_buff *skb, struct net_device *in,
				  int family)
{
	const void *saddr, *daddr;
	const struct dst_entry *dst;
	enum ars_remote_fb fb;
	struct ars_table *t;
	struct ars_flow *f;
	struct ars_ctx fc;
	enum ars_fb kind;
	struct ars_gw gw;
	u32 ports = 0;

	kind = ars_fb_kind(skb, family, &ports);
	if (kind == ARS_FB_NONE)
		return;
	/*
	 * Only feedback on its way through is an echo of a flow that this
	 * router forwards: one for the router itself, or one that its
	 * policy drops, is neither counted nor credited.
	 */
	if (!skb_valid_dst(skb) && !ars_route_input(skb, in, family))
		return;
	dst = ars_dst_forwarded(skb, family, &gw);
	if (!dst)
		return;
	ars_stat_inc(an, ARS_STAT_REMOTE_SEEN);
	saddr = ars_saddr(skb, family);
	daddr = ars_daddr(skb, family);
	fc.now = ktime_get_ns();
	if (kind == ARS_FB_CNP) {
		fb = ars_remote_pair_feedback(&an->remote,
					      ars_remote_pair(an, family,
							      daddr, saddr),
					      fc.now, p->remote_half_life);
		goto out;
	}
	t = rcu_dereference(an->table);
	if (!t)
		return;
	ports = rol32(ports, 16);	/* the two ports, swapped */
	if (family == AF_INET)
		ars_flow_key4(an, ip_hdr(skb)->daddr, ip_hdr(skb)->saddr,
			      IPPROTO_TCP, ports, skb->mark, ip_hdr(skb)->tos,
			      dst->dev->ifindex, &fc);
	else
		ars_flow_key6(an, daddr, saddr, IPPROTO_TCP, ports, skb->mark,
			      dst->dev->ifindex, &fc);
	f = &t->flows[fc.key & t->mask];
	fc.idle = READ_ONCE(f->idle);
	if (unlikely(conf->own_tables))
		f = ars_flow_hinted(conf, f, skb, &fc);
	fb = ars_remote_feedback(&an->remote, f, &fc,
				 ars_remote_route(an, family, saddr));
out:
	if (fb == ARS_REMOTE_UNMATCHED)
		return;
	ars_stat_inc(an, ARS_STAT_REMOTE_MATCHED);
	if (fb == ARS_REMOTE_CREDITED)
		ars_stat_inc(an, ARS_STAT_REMOTE_CREDITED);
}

/*
 * Inline into the hooks: where only objects in the ecmp mode may take
 * packets, one that a mark or the default object selects needs no flow
 * key, nor the flow path's stack frame.
 */
static __always_inline unsigned int ars_steer(struct ars_net *an,
					      const struct ars_profile *p,
					      const struct ars_conf *conf,
					      struct sk_buff *skb,
					      struct net_device *in, int family)
{
	int obj, bind;

	if (!conf->steers) {
		obj = ars_conf_mark(conf, skb->mark, &bind);
		if (obj >= 0) {
			ars_bstat_inc_packets(an, bind);
			return ars_ecmp_input(an, skb, in, family, obj);
		}
	}
	return ars_steer_flow(an, p, conf, skb, in, family);
}

/*
 * Only packets for another host are routed as forwarded. Under a VRF,
 * PRE_ROUTING runs twice, first with the enslaved device and again with
 * the VRF's, after which the kernel looks the route up: ars acts in that
 * pass only, so a packet is looked up and counted once (with what the
 * VRF's hooks made of it), and routes it as the kernel does
 * (ars_in_dev()). br_netfilter runs the IPv4 and IPv6 hooks for frames
 * that the bridge switches too, as PACKET_HOST: those it found for
 * another host (pkt_otherhost) are left alone. The frames for the
 * bridge's own address are the ones routed, with the bridge's device as
 * this pass has it; their second pass is skipped (ip_sabotage_in()).
 */
static __always_inline bool ars_forwarded(const struct sk_buff *skb,
					  const struct nf_hook_state *state)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	const struct nf_bridge_info *nf_bridge;
#endif

	if (skb->pkt_type != PACKET_HOST || skb_valid_dst(skb) ||
	    netif_is_l3_slave(state->in))
		return false;
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	nf_bridge = nf_bridge_info_get(skb);
	if (unlikely(nf_bridge) && nf_bridge->pkt_otherhost)
		return false;
#endif
	return true;
}

/*
 * The device the kernel routes the packet as received on, which its input
 * route lookup checks rp_filter, forwarding, accept_local and rules' iif
 * against: skb->dev, but for IPv4 under a VRF the enslaved device that
 * ip_rcv_finish() kept from before the VRF's pass (IPCB()->iif, as
 * inet_sdif() reads it). IPv6 routes with the VRF's device
 * (ip6_rcv_finish()). NULL when that device is gone: ars then leaves the
 * packet to the kernel.
 */
static struct net_device *ars_in_dev(struct sk_buff *skb, int family,
				     const struct nf_hook_state *state)
{
	if (family == AF_INET && unlikely(IPCB(skb)->flags & IPSKB_L3SLAVE))
		return dev_get_by_index_rcu(state->net, IPCB(skb)->iif);
	return skb->dev;
}

/*
 * ars is on for @family and some object may take packets (steer them, or
 * hash them anew in the ecmp mode): its configuration.
 */
static const struct ars_conf *ars_steers(struct ars_net *an, int family,
					 const struct ars_profile **p)
{
	const struct ars_conf *conf;

	*p = rcu_dereference(an->profile);
	if (!(*p)->state || !(family == AF_INET ? (*p)->ipv4 : (*p)->ipv6))
		return NULL;
	conf = rcu_dereference(an->conf);
	return conf->steers || conf->ecmp ? conf : NULL;
}

/*
 * The steering uses this CPU's state (the route cache, the random state,
 * counters) as its own for the packet's whole pass. PRE_ROUTING mostly
 * runs in softirq context, but NFQUEUE reinjects a packet from the
 * verdict's process context with bottom halves on (nf_reinject() runs the
 * hooks after the queue's under rcu_read_lock() only): with preemptible RCU
 * (Debian's PREEMPT_DYNAMIC kernels) the task may move to another CPU
 * midway, or a softirq on this one may take the same route cache slot.
 * Where bottom halves are off already (softirq context, the common case;
 * on PREEMPT_RT the softirq thread holds this CPU's BH lock), the pair
 * would be a no-op that costs about 30 instructions a packet on the
 * forwarding bench, so only the others take it.
 *
 * Out of line, with what else the common case does not need: the
 * profile's remote (the packet's feedback, after its own steering) and an
 * IPv4 packet under a VRF (ars_in_dev()). The hooks then make no call of
 * their own before the steering's, and tail-call it without a stack
 * frame.
 */
static noinline unsigned int ars_steer_other(struct ars_net *an,
					     const struct ars_profile *p,
					     const struct ars_conf *conf,
					     struct sk_buff *skb, int family,
					     const struct nf_hook_state *state)
{
	struct net_device *in = ars_in_dev(skb, family, state);
	bool bh = !in_softirq();
	unsigned int verdict;

	if (!in)
		return NF_ACCEPT;
	if (bh)
		local_bh_disable();
	verdict = ars_steer(an, p, conf, skb, in, family);
	if (p->remote)
		ars_feedback(an, p, conf, skb, in, family);
	if (bh)
		local_bh_enable();
	return verdict;
}

static __always_inline unsigned int ars_steer_bh(struct ars_net *an,
						 const struct ars_profile *p,
						 const struct ars_conf *conf,
						 struct sk_buff *skb,
						 int family,
						 const struct nf_hook_state *state)
{
	/* Remote off, no VRF: one test each for every packet. */
	if (likely(in_softirq() && !p->remote) &&
	    likely(family != AF_INET ||
		   !(IPCB(skb)->flags & IPSKB_L3SLAVE)))
		return ars_steer(an, p, conf, skb, skb->dev, family);
	return ars_steer_other(an, p, conf, skb, family, state);
}

static unsigned int ars_hook4(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = priv;
	const struct ars_profile *p;
	const struct ars_conf *conf = ars_steers(an, AF_INET, &p);

	if (!conf || !ars_forwarded(skb, state))
		return NF_ACCEPT;
	return ars_steer_bh(an, p, conf, skb, AF_INET, state);
}

static unsigned int ars_hook6(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct ars_net *an = priv;
	const struct ars_profile *p;
	const struct ars_conf *conf = ars_steers(an, AF_INET6, &p);

	if (!conf || !ars_forwarded(skb, state))
		return NF_ACCEPT;
	return ars_steer_bh(an, p, conf, skb, AF_INET6, state);
}

/* Last in PRE_ROUTING: after conntrack, mangle and DNAT have had their say
 * on the addresses and the mark that the route lookup keys on.
 */
static const struct nf_hook_ops ars_nf_ops[] = {
	{
		.hook		= ars_hook4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_LAST,
	},
	{
		.hook		= ars_hook6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP6_PRI_LAST,
	},
};

/*
 * Only in a namespace where ars is on (netns.c). Each namespace registers
 * hooks of its own, whose .priv is its struct ars_net: the hook then finds
 * it without net_generic(), which takes and drops the RCU read lock, two
 * calls per packet on Debian's preemptible RCU. The ops live in the
 * ars_net, which outlives their registration (ars_net_pre_exit()).
 */
int ars_hook_register(struct ars_net *an)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(an->nf_ops) != ARRAY_SIZE(ars_nf_ops));
	for (i = 0; i < ARRAY_SIZE(ars_nf_ops); i++) {
		an->nf_ops[i] = ars_nf_ops[i];
		an->nf_ops[i].priv = an;
	}
	return nf_register_net_hooks(an->net, an->nf_ops,
				     ARRAY_SIZE(an->nf_ops));
}

void ars_hook_unregister(struct ars_net *an)
{
	nf_unregister_net_hooks(an->net, an->nf_ops, ARRAY_SIZE(an->nf_ops));
}

/* Before the netlink family, which may turn ars on. */
void ars_hook_init(void)
{
	prandom_seed_full_state(&ars_rnd);
}
