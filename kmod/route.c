// SPDX-License-Identifier: GPL-2.0
/*
 * Routes: look a forwarded packet up in the FIB as the kernel is about to,
 * and describe its multipath route to the core as a struct ars_route.
 *
 * The lookups mirror ip_route_input_slow() and ip6_route_input() (same
 * flowi: iif, mark, tos, tunnel id, uid, early flow dissection for rules),
 * and the next hops are listed in the order the kernel's selection walks
 * them: fib_select_multipath(), fib6_select_path() from the first sibling,
 * and nexthop_select_path() for nexthop groups. A next hop that the kernel
 * would skip has upper bound -1, so the core never chooses it. Every field
 * of a listed path is written: the caller's route is not zeroed first.
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <net/arp.h>
#include <net/inet_dscp.h>
#include <net/dst_metadata.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/ip_tunnels.h>
#include <net/ipv6_stubs.h>
#include <net/ndisc.h>
#include <net/nexthop.h>
#include <net/route.h>

#include "route.h"
#include "state.h"

/* The kernel's own test of a group member (nexthop_is_good_nh()). */
struct ars_rcache __percpu *ars_rcache_alloc(gfp_t gfp)
{
	return ars_alloc_percpu_gfp(struct ars_rcache, gfp);
}

static bool ars_nh_good(const struct nh_info *nhi)
{
	struct neighbour *n = NULL;
	int state = NUD_REACHABLE;

	switch (nhi->family) {
	case AF_INET:
		n = __ipv4_neigh_lookup_noref(nhi->fib_nh.fib_nh_dev,
					      (__force u32)nhi->fib_nh.fib_nh_gw4);
		break;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		n = __ipv6_neigh_lookup_noref_stub(nhi->fib6_nh.fib_nh_dev,
						   &nhi->fib6_nh.fib_nh_gw6);
		break;
#endif
	default:
		return false;
	}
	if (n)
		state = READ_ONCE(n->nud_state);
	return state & NUD_VALID;
}

/* The device a next hop leads to, 0 for none. */
static u32 ars_nhc_dev(const struct fib_nh_common *nhc)
{
	return nhc->nhc_dev ? nhc->nhc_dev->ifindex : 0;
}

/*
 * A resilient group's member is used by as many buckets as it owns: a
 * member just added owns none until the group's idle timer moves some to
 * it, so it is not usable yet. Its bucket count is its weight, reduced by
 * the counts' greatest common divisor (ars_res_weights()), so that a
 * balanced group weighs as configured (32 buckets over 1:1:1:1 are 8 each,
 * weight 1), and round-robin rounds stay as short.
 */
static void ars_path_res(const struct nh_grp_entry *nhge, struct ars_path *p,
			 s32 *cum)
{
	u16 buckets = READ_ONCE(nhge->res.count_buckets);

	if (!buckets) {
		p->upper = -1;
		return;
	}
	p->weight = buckets;
	*cum += buckets;
	p->upper = *cum;
}

static u16 ars_gcd(u16 a, u16 b)
{
	while (b) {
		u16 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void ars_res_weights(struct ars_route *r)
{
	unsigned int i;
	u16 g = 0;

	for (i = 0; i < r->n; i++)
		if (r->path[i].upper >= 0)
			g = ars_gcd(r->path[i].weight, g);
	if (g <= 1)
		return;
	for (i = 0; i < r->n; i++)
		if (r->path[i].upper >= 0)
			r->path[i].weight /= g;
}

static int ars_route_group(struct nexthop *nh, struct ars_route *r,
			   struct ars_route_ctx *rc)
{
	struct nh_group *nhg;
	unsigned int i;
	s32 cum = 0;

	if (!nh->is_group)
		return ARS_ROUTE_SINGLE;
	nhg = rcu_dereference(nh->nh_grp);
	if (!nhg->is_multipath || nhg->fdb_nh || nhg->num_nh < 2)
		return ARS_ROUTE_SINGLE;
	if (nhg->num_nh > ARS_MAX_PATHS)
		return -E2BIG;

	rc->res_table = nhg->resilient ? rcu_dereference(nhg->res_table) : NULL;
	rc->nhg = nhg;
	rc->fi = NULL;
	rc->f6i = NULL;
	for (i = 0; i < nhg->num_nh; i++) {
		const struct nh_grp_entry *nhge = &nhg->nh_entries[i];
		const struct nh_info *nhi = rcu_dereference(nhge->nh->nh_info);
		struct ars_path *p = &r->path[i];

		p->weight = nhge->weight;
		p->band = ARS_BAND_UNKNOWN;
		p->alt = 0;
		p->dev = ars_nhc_dev(&nhi->fib_nhc);
		if (!ars_nh_good(nhi))
			p->upper = -1;
		else if (rc->res_table)	/* only order and usability count */
			ars_path_res(nhge, p, &cum);
		else
			p->upper = atomic_read(&nhge->hthr.upper_bound);
	}
	r->n = nhg->num_nh;
	if (rc->res_table)
		ars_res_weights(r);
	return ARS_ROUTE_MULTI;
}

/*
 * With fib_multipath_use_neigh, the kernel's fib_select_multipath() skips a
 * next hop whose neighbour is known and not valid (fib_good_nh()), and the
 * next usable one after it in the walk takes its hashes, as the core's
 * ranges have it for a path with upper bound -1.
 */
static bool ars_fib_nh_good(const struct fib_nh *nh)
{
	struct neighbour *n = NULL;
	int state = NUD_REACHABLE;

	if (nh->fib_nh_scope != RT_SCOPE_LINK)
		return true;
	if (likely(nh->fib_nh_gw_family == AF_INET))
		n = __ipv4_neigh_lookup_noref(nh->fib_nh_dev,
					      (__force u32)nh->fib_nh_gw4);
#if IS_ENABLED(CONFIG_IPV6)
	else if (nh->fib_nh_gw_family == AF_INET6)
		n = __ipv6_neigh_lookup_noref_stub(nh->fib_nh_dev,
						   &nh->fib_nh_gw6);
#endif
	if (n)
		state = READ_ONCE(n->nud_state);
	return state & NUD_VALID;
}

static int ars_route_fib4(struct fib_info *fi, struct ars_route *r,
			  struct ars_route_ctx *rc)
{
	unsigned int i, n = fib_info_num_path(fi);
	bool use_neigh;

	if (fi->nh)
		return ars_route_group(fi->nh, r, rc);
	if (n < 2)
		return ARS_ROUTE_SINGLE;
	if (n > ARS_MAX_PATHS)
		return -E2BIG;

	rc->res_table = NULL;
	rc->nhg = NULL;
	rc->fi = fi;
	rc->f6i = NULL;
	use_neigh = READ_ONCE(fi->fib_net->ipv4.sysctl_fib_multipath_use_neigh);
	for (i = 0; i < n; i++) {
		const struct fib_nh *nh = fib_info_nh(fi, i);

		r->path[i].upper = atomic_read(&nh->fib_nh_upper_bound);
		if (use_neigh && r->path[i].upper >= 0 && !ars_fib_nh_good(nh))
			r->path[i].upper = -1;
		r->path[i].weight = nh->fib_nh_weight;
		r->path[i].band = ARS_BAND_UNKNOWN;
		r->path[i].alt = 0;
		r->path[i].dev = ars_nhc_dev(&nh->nh_common);
	}
	r->n = n;
	return ARS_ROUTE_MULTI;
}

int ars_route4(struct net *net, struct sk_buff *skb, int iif,
	       struct ars_route *r, struct ars_route_ctx *rc)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct ip_tunnel_info *tun_info;
	/*
	 * Not zeroed at every lookup under INIT_STACK_ALL_ZERO: the keys are
	 * the rules' early dissection's own (written before the rules read
	 * them, never read here), the result is read only after a lookup
	 * that filled it, and the flow is cleared below.
	 */
	struct flow_keys flkeys __uninitialized;
	struct fib_result res __uninitialized;
	struct flowi4 fl4 __uninitialized;

	if (ipv4_is_multicast(iph->daddr) || ipv4_is_lbcast(iph->daddr) ||
	    ipv4_is_zeronet(iph->saddr) || ipv4_is_multicast(iph->saddr))
		return ARS_ROUTE_NONE;

	memset(&fl4, 0, sizeof(fl4));
	tun_info = skb_tunnel_info(skb);
	if (tun_info && !(tun_info->mode & IP_TUNNEL_INFO_TX))
		fl4.flowi4_tun_key.tun_id = tun_info->key.tun_id;
	fl4.flowi4_iif = iif;
	fl4.flowi4_mark = skb->mark;
	fl4.flowi4_tos = ars_rt_tos(iph);
	fl4.flowi4_scope = RT_SCOPE_UNIVERSE;
	fl4.daddr = iph->daddr;
	fl4.saddr = iph->saddr;
	fl4.flowi4_uid = sock_net_uid(net, NULL);
	fib4_rules_early_flow_dissect(net, skb, &fl4, &flkeys);

	if (fib_lookup(net, &fl4, &res, 0))
		return ARS_ROUTE_NONE;
	if (res.type != RTN_UNICAST || !res.fi)
		return ARS_ROUTE_NONE;	/* local, broadcast, unreachable... */
	rc->table = res.fi->fib_tb_id;
	rc->nhid = res.fi->nh ? res.fi->nh->id : 0;
	return ars_route_fib4(res.fi, r, rc);
}

#if IS_ENABLED(CONFIG_IPV6)
/* The sibling the kernel's selection starts from (fib6_select_path()). */
static struct fib6_info *ars_first_sibling(const struct fib6_info *f6i)
{
	struct fib6_node *fn = rcu_dereference(f6i->fib6_node);
	struct fib6_info *iter;

	if (!fn)
		return NULL;
	for (iter = rcu_dereference(fn->leaf); iter;
	     iter = rcu_dereference(iter->fib6_next))
		if (iter->fib6_metric == f6i->fib6_metric &&
		    rt6_qualify_for_ecmp(iter))
			return iter;
	return NULL;
}

static void ars_path6(const struct fib6_info *f6i, struct ars_path *p)
{
	const struct fib6_nh *nh = f6i->fib6_nh;

	p->upper = atomic_read(&nh->fib_nh_upper_bound);
	p->weight = nh->fib_nh_weight;
	p->band = ARS_BAND_UNKNOWN;
	p->alt = 0;
	p->dev = ars_nhc_dev(&nh->nh_common);
}

static int ars_route_fib6(struct fib6_info *f6i, struct ars_route *r,
			  struct ars_route_ctx *rc)
{
	struct fib6_info *first, *sib;
	unsigned int n = 0;

	if (f6i->nh)
		return ars_route_group(f6i->nh, r, rc);
	if (!READ_ONCE(f6i->fib6_nsiblings))
		return ARS_ROUTE_SINGLE;
	first = ars_first_sibling(f6i);
	if (!first)
		return ARS_ROUTE_SINGLE;

	rc->res_table = NULL;
	rc->nhg = NULL;
	rc->fi = NULL;
	rc->f6i = first;
	ars_path6(first, &r->path[n]);
	n++;
	list_for_each_entry_rcu(sib, &first->fib6_siblings, fib6_siblings) {
		if (n == ARS_MAX_PATHS)
			return -E2BIG;
		ars_path6(sib, &r->path[n]);
		n++;
	}
	if (n < 2)
		return ARS_ROUTE_SINGLE;
	r->n = n;
	return ARS_ROUTE_MULTI;
}

int ars_route6(struct net *net, struct sk_buff *skb, struct ars_route *r,
	       struct ars_route_ctx *rc)
{
	const struct ipv6hdr *iph = ipv6_hdr(skb);
	const struct ip_tunnel_info *tun_info;
	struct fib6_result res = {};
	/* As ars_route4()'s: written before they are read. */
	struct flow_keys flkeys __uninitialized;
	struct flowi6 fl6 __uninitialized;

	if (rt6_need_strict(&iph->daddr) || ipv6_addr_any(&iph->saddr))
		return ARS_ROUTE_NONE;

	memset(&fl6, 0, sizeof(fl6));
	tun_info = skb_tunnel_info(skb);
	if (tun_info && !(tun_info->mode & IP_TUNNEL_INFO_TX))
		fl6.flowi6_tun_key.tun_id = tun_info->key.tun_id;
	/* As ip6_route_input(): under a VRF, the VRF's device. */
	fl6.flowi6_iif = skb->dev->ifindex;
	fl6.daddr = iph->daddr;
	fl6.saddr = iph->saddr;
	fl6.flowlabel = ip6_flowinfo(iph);
	fl6.flowi6_mark = skb->mark;
	fl6.flowi6_proto = iph->nexthdr;
	fib6_rules_early_flow_dissect(net, skb, &fl6, &flkeys);

	if (ipv6_stub->fib6_lookup(net, 0, &fl6, &res,
				   RT6_LOOKUP_F_HAS_SADDR))
		return ARS_ROUTE_NONE;
	if (!res.f6i || res.f6i == net->ipv6.fib6_null_entry ||
	    res.f6i->fib6_type != RTN_UNICAST ||
	    (res.f6i->fib6_flags & RTF_REJECT))
		return ARS_ROUTE_NONE;	/* local, anycast, unreachable... */
	rc->table = res.f6i->fib6_table->tb6_id;
	rc->nhid = res.f6i->nh ? res.f6i->nh->id : 0;
	return ars_route_fib6(res.f6i, r, rc);
}
#else
int ars_route6(struct net *net, struct sk_buff *skb, struct ars_route *r,
	       struct ars_route_ctx *rc)
{
	return ARS_ROUTE_NONE;
}
#endif

/*
 * The next hop of path @i of the route that ars_route4() or ars_route6()
 * just described in @rc, for its gateway; NULL when @rc holds none (the
 * route came from the route cache) or @i is beyond it. Under RCU. An
 * IPv6 route's siblings are walked from the first: for the few paths of
 * a route, and only for objects with alternates by gateway.
 */
const struct fib_nh_common *ars_route_nhc(const struct ars_route_ctx *rc,
					  unsigned int i)
{
	if (rc->nhg) {
		const struct nh_info *nhi;

		if (i >= rc->nhg->num_nh)
			return NULL;
		nhi = rcu_dereference(rc->nhg->nh_entries[i].nh->nh_info);
		return &nhi->fib_nhc;
	}
	if (rc->fi)
		return i < fib_info_num_path(rc->fi) ?
		       &fib_info_nh(rc->fi, i)->nh_common : NULL;
#if IS_ENABLED(CONFIG_IPV6)
	if (rc->f6i) {
		struct fib6_info *sib;

		if (!i)
			return &rc->f6i->fib6_nh->nh_common;
		list_for_each_entry_rcu(sib, &rc->f6i->fib6_siblings,
					fib6_siblings)
			if (!--i)
				return &sib->fib6_nh->nh_common;
	}
#endif
	return NULL;
}

/*
 * The path that the kernel takes for a packet with L4 hash @hash, whose
 * multipath hash is @hash >> 1 (ars_steer_hash()): the first usable one
 * whose range holds it, as fib_select_multipath(), fib6_select_path() and
 * nexthop_select_path() walk them, or for a resilient group the member of
 * its bucket. ARS_PATH_NONE when there is none.
 */
u8 ars_route_hash_path(const struct ars_route *r,
		       const struct ars_route_ctx *rc, u32 hash)
{
	const struct nh_res_table *t = rc->res_table;
	const struct nh_grp_entry *nhge;
	u32 mp = hash >> 1;
	unsigned int i;

	if (t) {
		i = mp % t->num_nh_buckets;
		nhge = rcu_dereference(t->nh_buckets[i].nh_entry);
		if (!nhge)
			return ARS_PATH_NONE;
		i = nhge - rc->nhg->nh_entries;
		return i < r->n && r->path[i].upper >= 0 ? i : ARS_PATH_NONE;
	}
	for (i = 0; i < r->n; i++)
		if (r->path[i].upper >= 0 && mp <= (u32)r->path[i].upper)
			return i;
	return ARS_PATH_NONE;
}

/*
 * A resilient group's members' buckets, per CPU (struct ars_res_index):
 * a new flowlet, and in the per-packet modes every packet, needs a bucket
 * of the member it chose, and the group holds none of that (a bucket
 * names its member, not the other way round): a walk of the buckets reads
 * up to 65535 of them. So one walk records, for each member, the first
 * ARS_RES_PICKS buckets it owns, and the choices that follow take one of
 * them by the flow's key, after checking that it is still the member's.
 * The walk runs again only when a recorded bucket moved to another member
 * (the group's idle timer migrates buckets, in batches), a member that had
 * none has some, or another group took the index's slot: once per change
 * of a group's buckets per CPU, not per packet. The index is this CPU's
 * alone: the steering runs with bottom halves off (hook.c).
 */
static void ars_res_index_build(struct ars_res_index *x,
				const struct nh_res_table *t,
				const struct nh_group *nhg)
{
	unsigned int n = min_t(unsigned int, nhg->num_nh, ARS_MAX_PATHS);
	const struct nh_grp_entry *e;
	unsigned long m;
	u32 b;

	memset(x->n, 0, sizeof(x->n));
	x->table = t;
	x->nhg = nhg;
	x->nb = t->num_nh_buckets;
	for (b = 0; b < x->nb; b++) {
		e = rcu_dereference(t->nh_buckets[b].nh_entry);
		if (!e)
			continue;
		m = e - nhg->nh_entries;
		if (m < n && x->n[m] < ARS_RES_PICKS)
			x->bucket[m][x->n[m]++] = b;
	}
}

/* A bucket of member @i of @rc's resilient group, or -1 for none. */
static int ars_res_bucket(const struct ars_route_ctx *rc, unsigned int i,
			  u32 key)
{
	const struct nh_res_table *t = rc->res_table;
	const struct nh_grp_entry *want = &rc->nhg->nh_entries[i];
	struct ars_res_index *x;
	bool built = false;
	u32 b;

	x = &rc->res[hash_ptr(t, ilog2(ARS_RES_SLOTS))];
	if (x->table != t || x->nhg != rc->nhg ||
	    x->nb != t->num_nh_buckets) {
		ars_res_index_build(x, t, rc->nhg);
		built = true;
	}
	for (;;) {
		if (x->n[i]) {
			b = x->bucket[i][reciprocal_scale(key, x->n[i])];
			if (rcu_access_pointer(t->nh_buckets[b].nh_entry) ==
			    want)
				return b;
		}
		if (built)
			return -1;
		ars_res_index_build(x, t, rc->nhg);
		built = true;
	}
}

/* ars_route_steer_hash() for a resilient group's route. */
bool ars_route_res_hash(const struct ars_route_ctx *rc, unsigned int i,
			u32 key, u32 *hash)
{
	int b = ars_res_bucket(rc, i, key);

	if (b < 0)
		return false;
	*hash = ars_steer_bucket_hash(b, rc->res_table->num_nh_buckets, key);
	return true;
}
