/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data plane's view of a forwarded packet's multipath route.
 */
#ifndef _ARS_ROUTE_H
#define _ARS_ROUTE_H

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "ars_core.h"

struct fib_nh_common;
struct nh_group;
struct nh_res_table;

#define ARS_RCACHE_SLOTS	4	/* per CPU and namespace, a power of 2 */

/*
 * What a cached route holds for (route.c, ars_route_key()): of an IPv4
 * key, @family, @tos and s6_addr32[0] of @daddr are set, the rest is not
 * (steer.c compares and copies keys by family).
 */
struct ars_rkey {
	struct in6_addr	daddr;		/* IPv4's in s6_addr32[0] */
	struct in6_addr	saddr;		/* IPv6 only */
	u8		tos;		/* IPv4 only */
	u8		family;
	u8		pad[2];
};

/*
 * A multipath route that a packet looked up, with its paths' bands, for the
 * next packets to the same destination on this CPU (steer.c), which choose
 * on @route where it is: a whole route (about 800 bytes), so that a hit
 * copies nothing.
 */
struct ars_rcache_slot {
	u64		time;		/* ktime ns of the lookup, 0: empty */
	u64		max_bandwidth;	/* with @bands: bit/s, their maxima */
	u64		max_delay;	/* ns */
	u64		unknown;	/* usable paths not measured */
	struct ars_rkey	key;
	u16		gen;		/* the routing generation then */
	bool		bands;		/* path[].band filled */
	bool		known;		/* every usable path's port measured */
	u8		best;		/* with @bands: ars_route_best() */
	u32		total;		/* of @route */
	u32		table;		/* the route's, for bindings */
	u32		nhid;
	struct ars_route	route;
};

/*
 * Which buckets of a resilient nexthop group each of its members owns
 * (route.c): up to ARS_RES_PICKS of each, found by one walk of the group's
 * buckets and kept while they stay the member's.
 */
#define ARS_RES_SLOTS	2	/* groups indexed per CPU */
#define ARS_RES_PICKS	4	/* buckets kept per member */

struct ars_res_index {
	const struct nh_res_table	*table;	/* NULL: empty */
	const struct nh_group		*nhg;
	u32				nb;	/* the table's buckets */
	u8				n[ARS_MAX_PATHS];
	u16				bucket[ARS_MAX_PATHS][ARS_RES_PICKS];
};

struct ars_rcache {
	struct ars_rcache_slot	slot[ARS_RCACHE_SLOTS];
	struct ars_res_index	res[ARS_RES_SLOTS];
	/* The slow path's route when it is no slot's (steer.c). */
	struct ars_route	local;
};

/* A namespace's route caches, one per CPU, empty; NULL: no memory. */
struct ars_rcache __percpu *ars_rcache_alloc(gfp_t gfp);

/* What the kernel side needs besides the core's struct ars_route. */
struct ars_route_ctx {
	struct nh_group		*nhg;		/* nexthop group, if any */
	struct nh_res_table	*res_table;	/* resilient group, if any */
	/* This CPU's index of resilient groups' buckets (struct ars_rcache). */
	struct ars_res_index	*res;
	u32			table;		/* the route's table */
	u32			nhid;		/* its nexthop group, 0: none */
	/* Where its next hops are, for ars_route_nhc(); NULL when cached. */
	struct fib_info		*fi;		/* IPv4, not a group */
	struct fib6_info	*f6i;		/* IPv6, the first sibling */
};

/* What ars_route4() and ars_route6() found. */
enum {
	ARS_ROUTE_MULTI,	/* a multipath route, in @r and @rc */
	ARS_ROUTE_SINGLE,	/* a unicast route with one next hop */
	ARS_ROUTE_NONE,		/* not forwarded: local, broadcast, no route */
};

/*
 * Fill @r and @rc with the multipath route the kernel is about to use for
 * @skb, which it routes as received on device @iif (IPv4: under a VRF, the
 * enslaved device, not skb->dev). Returns ARS_ROUTE_*, or -E2BIG when the
 * route has more next hops than ars steers; @r is then left as it was.
 */
int ars_route4(struct net *net, struct sk_buff *skb, int iif,
	       struct ars_route *r, struct ars_route_ctx *rc);
int ars_route6(struct net *net, struct sk_buff *skb, struct ars_route *r,
	       struct ars_route_ctx *rc);
const struct fib_nh_common *ars_route_nhc(const struct ars_route_ctx *rc,
					  unsigned int i);
u8 ars_route_hash_path(const struct ars_route *r,
		       const struct ars_route_ctx *rc, u32 hash);
bool ars_route_res_hash(const struct ars_route_ctx *rc, unsigned int i,
			u32 key, u32 *hash);

/*
 * The multipath hash that makes the kernel take path @i: inside the path's
 * hash-threshold range, or for a resilient group a bucket that the group
 * currently maps to the path. Returns false when the path has no bucket.
 * Inline: every new flowlet asks, mostly for a hash-threshold range.
 */
static inline bool ars_route_steer_hash(const struct ars_route *r,
					const struct ars_route_ctx *rc,
					unsigned int i, u32 key, u32 *hash)
{
	if (unlikely(rc->res_table))
		return ars_route_res_hash(rc, i, key, hash);
	*hash = ars_steer_hash(r, i, key);
	return true;
}

/* The TOS bits the input route lookup keys on (ip_route_input_noref()). */
static inline u8 ars_rt_tos(const struct iphdr *iph)
{
	return iph->tos & ARS_RT_TOS_MASK;
}

/*
 * Whether @skb's route is that of every packet to its destination (and,
 * for IPv4, TOS; for IPv6, from its source, for source-specific subtrees):
 * so without policy rules, which key on the mark, the input device, ports
 * and more. Then @k says what the route holds for. False too for what
 * ars_route4() and ars_route6() would not look up. Inline: every new
 * flowlet asks.
 */
static inline bool ars_route_key(struct net *net, const struct sk_buff *skb,
				 int family, struct ars_rkey *k)
{
	k->family = family;
	if (family == AF_INET) {
		const struct iphdr *iph = ip_hdr(skb);

		if (fib4_has_custom_rules(net) ||
		    ipv4_is_multicast(iph->daddr) ||
		    ipv4_is_lbcast(iph->daddr) ||
		    ipv4_is_zeronet(iph->saddr) ||
		    ipv4_is_multicast(iph->saddr))
			return false;
		k->daddr.s6_addr32[0] = iph->daddr;
		k->tos = ars_rt_tos(iph);
		return true;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		const struct ipv6hdr *iph = ipv6_hdr(skb);

		if (fib6_has_custom_rules(net) ||
		    rt6_need_strict(&iph->daddr) ||
		    ipv6_addr_any(&iph->saddr))
			return false;
		k->daddr = iph->daddr;
		k->saddr = iph->saddr;
		k->tos = 0;
		return true;
	}
#endif
	return false;
}

#endif /* _ARS_ROUTE_H */
