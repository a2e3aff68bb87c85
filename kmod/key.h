/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key of a packet: the data plane's (hook.c), from the packet's
 * headers, and that of a flows get request (genl.c), from its attributes,
 * are the same function of the same fields, so that the request finds the
 * entry the packets use.
 *
 * The tag (struct ars_flow) covers what the route lookup keys on: the
 * addresses, the protocol, the mark, the input device and, for IPv4, the
 * TOS bits. The key adds the ports, and for IPv6 the flow label when the
 * profile says so.
 */
#ifndef _ARS_KEY_H
#define _ARS_KEY_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <net/route.h>

#include "ars_core.h"
#include "netns.h"

/* Words of an IPv6 tag: two addresses, then the protocol. */
#define ARS_TAG_WORDS6	9

/* The protocols whose first four bytes are the two ports. */
static inline bool ars_l4_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

static inline u32 ars_tag_seed(const struct ars_net *an, u32 mark, u32 tos,
			       int ifindex)
{
	return an->seed ^ ((mark + tos) * ARS_SPREAD) ^
	       (ifindex * ARS_KEY_P2);
}

/*
 * @ports: the first four bytes of the transport header, as they are in
 * the packet (source port, then destination port), or 0 without ports;
 * @tos: the header's TOS byte, of which the route lookup's bits count.
 */
static inline void ars_flow_key4(const struct ars_net *an, __be32 saddr,
				 __be32 daddr, u8 proto, u32 ports, u32 mark,
				 u8 tos, int ifindex, struct ars_ctx *c)
{
	c->tag = ars_flow_key3((__force u32)saddr, (__force u32)daddr, proto,
			       ars_tag_seed(an, mark, tos & ARS_RT_TOS_MASK,
					    ifindex));
	c->key = ars_flow_key_ports(c->tag, ports, an->seed);
}

static inline void ars_flow_key6(const struct ars_net *an,
				 const struct in6_addr *saddr,
				 const struct in6_addr *daddr, u8 nexthdr,
				 u32 ports, u32 mark, int ifindex,
				 struct ars_ctx *c)
{
	u32 w[ARS_TAG_WORDS6];

	memcpy(&w[0], saddr, sizeof(*saddr));
	memcpy(&w[4], daddr, sizeof(*daddr));
	w[8] = nexthdr;
	c->tag = ars_flow_key(w, ARS_TAG_WORDS6,
			      ars_tag_seed(an, mark, 0, ifindex));
	c->key = ars_flow_key_ports(c->tag, ports, an->seed);
}

/* With the profile's flowlabel on: the IPv6 flow label, as in the header. */
static inline void ars_flow_key_label(const struct ars_net *an,
				      __be32 flowlabel, struct ars_ctx *c)
{
	c->key = ars_flow_key_ports(c->key, (__force u32)flowlabel, an->seed);
}

#endif /* _ARS_KEY_H */
