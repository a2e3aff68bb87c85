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
struct ars_rkey;
struct ars_res_index;

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
