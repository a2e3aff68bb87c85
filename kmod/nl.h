/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the family's handlers share (genl.c's family, its handlers and
 * those of nl_flows.c, nl_objects.c and nl_binds.c). The family's
 * pre_doit leaves in genl_info: user_ptr[0] the family, user_ptr[1] the
 * caller's namespace, whose lock is held through the handler of an op
 * flagged ARS_NL_LOCKED. The handlers reach the family only through those
 * and a dump's callback, so that the family's file calls the handlers'
 * and not the other way.
 */
#ifndef _ARS_NL_H
#define _ARS_NL_H

#include <linux/ars.h>
#include <net/genetlink.h>

struct ars_net;

/* genl_ops.internal_flags: the handler runs under the namespace's lock. */
#define ARS_NL_LOCKED	BIT(0)

static inline struct ars_net *ars_nl_net(struct genl_info *info)
{
	return info->user_ptr[1];
}

static inline void *ars_nl_reply_put(struct sk_buff *msg,
				     struct genl_info *info, u8 cmd)
{
	return genlmsg_put_reply(msg, info, info->user_ptr[0], 0, cmd);
}

static inline void *ars_nl_dump_put(struct sk_buff *skb,
				    struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   ars_genl_dump_family(cb), NLM_F_MULTI, cmd);
}

/*
 * The request lacks attribute @type: the kernel's check reports which (in
 * the extended ACK's missing type), @msg, a literal, says so in words.
 */
#define ars_attr_missing(info, type, msg) ({				\
	bool __missing = GENL_REQ_ATTR_CHECK(info, type);		\
									\
	if (__missing)							\
		NL_SET_ERR_MSG_MOD((info)->extack, msg);		\
	__missing;							\
})

/* flows-get (nl_flows.c). */
extern const struct nla_policy ars_flow_policy[ARS_A_FLOW_MAX + 1];
int ars_flows_get_doit(struct sk_buff *skb, struct genl_info *info);
int ars_flows_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* object-new, -set, -del and -get (nl_objects.c). */
int ars_object_new_doit(struct sk_buff *skb, struct genl_info *info);
int ars_object_set_doit(struct sk_buff *skb, struct genl_info *info);
int ars_object_del_doit(struct sk_buff *skb, struct genl_info *info);
int ars_object_get_doit(struct sk_buff *skb, struct genl_info *info);
int ars_object_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* Bindings, ports and alternates (nl_binds.c). */
extern const struct nla_policy ars_bind_policy[ARS_A_BIND_MAX + 1];
int ars_bind_new_doit(struct sk_buff *skb, struct genl_info *info);
int ars_bind_del_doit(struct sk_buff *skb, struct genl_info *info);
int ars_bind_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ars_interface_enable_doit(struct sk_buff *skb, struct genl_info *info);
int ars_interface_disable_doit(struct sk_buff *skb, struct genl_info *info);
int ars_interface_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
extern const struct nla_policy ars_alternate_policy[ARS_A_ALTERNATE_MAX + 1];
int ars_alternate_new_doit(struct sk_buff *skb, struct genl_info *info);
int ars_alternate_del_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _ARS_NL_H */
