/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family ars (genl.c).
 */
#ifndef _ARS_GENL_H
#define _ARS_GENL_H

#include <linux/types.h>

struct ars_net;
struct ars_stats;
struct genl_info;
struct netlink_callback;
struct netlink_range_validation;
struct sk_buff;

int ars_genl_init(void);
void ars_genl_uninit(void);
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason);
/* Not const: 6.1's policies take a plain pointer. */
extern struct netlink_range_validation ars_idle_time_range;
void *ars_genl_reply_put(struct sk_buff *msg, struct genl_info *info, u8 cmd);
void *ars_genl_dump_put(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);
int ars_stats_put(struct sk_buff *skb, const struct ars_stats *st);

#endif /* _ARS_GENL_H */
