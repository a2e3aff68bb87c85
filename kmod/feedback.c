// SPDX-License-Identifier: GPL-2.0
/*
 * Remote congestion (ars_remote.h): the ECN-Echo and CNP feedback that
 * forwarded packets carry, credited to the path of the forward flow they
 * answer, and the flows that a new flowlet moved.
 */
#include "key.h"
#include "steer.h"

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

/*
 * The route key of a remote score: the forward flow's destination
 * address. The core keeps a score per route (ars_remote.h); the hook keys
 * it by what both the forward packet and its feedback name without a
 * route lookup, which the feedback would otherwise pay: a destination
 * host, a narrower route than a destination leaf's prefix.
 */
u32 ars_remote_route(const struct ars_net *an, int family,
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

/*
 * With the profile's remote on, a flowlet of a forward flow was planned
 * (with the scores) or refreshed: count it if a score moved it, and note
 * RoCEv2 data's path for its address pair's CNPs (ars_remote_pair_note()),
 * also as its flowlet goes on (the slow path's refreshes), so that a long
 * flowlet's note stays fresh.
 */
void ars_remote_steered(struct ars_net *an,
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
void ars_feedback(struct ars_net *an,
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
