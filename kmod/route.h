/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data plane's view of a forwarded packet's multipath route.
 */
#ifndef _ARS_ROUTE_H
#define _ARS_ROUTE_H

#include <linux/skbuff.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>

#include "ars_core.h"

struct fib_nh_common;
struct nh_group;
struct nh_res_table;

#define ARS_RCACHE_SLOTS	4	/* per CPU and namespace, a power of 2 */

/* What a cached route holds for (route.c, ars_route_key()). */
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
	struct ars_rkey	key;
	u16		gen;		/* the routing generation then */
	bool		bands;		/* path[].band filled */
	bool		known;		/* every usable path's port measured */
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
bool ars_route_key(struct net *net, const struct sk_buff *skb, int family,
		   struct ars_rkey *k);
const struct fib_nh_common *ars_route_nhc(const struct ars_route_ctx *rc,
					  unsigned int i);
u8 ars_route_hash_path(const struct ars_route *r,
		       const struct ars_route_ctx *rc, u32 hash);
bool ars_route_steer_hash(const struct ars_route *r,
			  const struct ars_route_ctx *rc, unsigned int i,
			  u32 key, u32 *hash);

#endif /* _ARS_ROUTE_H */
