// SPDX-License-Identifier: GPL-2.0
/*
 * The shortcuts that need no measurement: the ecmp mode, which has the
 * kernel hash the packet anew, and a new flowlet of the flowlet-random
 * mode, which takes a random hash without looking the route up.
 */
#include "steer.h"

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
 * ars_ecmp(), for a packet whose ecmp object is known without the route (a
 * mark's, or the default object while no route binding exists): the
 * kernel's own input route lookup, run now without the hash, says whether
 * it is forwarded, and the kernel does not repeat it. A packet for this
 * host gets its hash back (RFS records it) and is not counted; one whose
 * route is not multipath is counted in ecmp too.
 */
unsigned int ars_ecmp_input(struct ars_net *an, struct sk_buff *skb,
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
bool ars_flowlet_random(struct ars_net *an,
			const struct ars_profile *p,
			struct sk_buff *skb,
			struct net_device *in,
			int family, struct ars_ctx *c,
			struct ars_flow *f, u32 index,
			int obj, int bind)
{
	u32 hash = ars_random() | 1;
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
