/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ars supports (Debian 12's 6.1 and 6.12),
 * force-included before every source file. Each shim names the kernel that
 * needs it; code elsewhere stays free of version tests.
 */
#ifndef _ARS_COMPAT_H
#define _ARS_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "ars needs Linux 6.1 or later"
#endif

/*
 * The TOS bits the IPv4 input route lookup keys on: 6.12 keeps the whole
 * DSCP (ip_route_input_noref() masks with INET_DSCP_MASK), 6.1 the old
 * TOS bits (IPTOS_RT_MASK).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ARS_RT_TOS_MASK		INET_DSCP_MASK
#else
#define ARS_RT_TOS_MASK		IPTOS_RT_MASK
#endif

/*
 * A family's pre_doit and post_doit see the split ops since 6.2 (full
 * ones on 6.1); a dump's family is in its genl_info since 6.6.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define ars_genl_doit_ops	genl_split_ops
#else
#define ars_genl_doit_ops	genl_ops
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define ars_genl_dump_family(cb)	(genl_info_dump(cb)->family)
#else
#define ars_genl_dump_family(cb)	(genl_dumpit_info(cb)->family)
#endif

/*
 * A policy's range is const since 6.2, and the generated ones (nl_gen.c)
 * are; 6.1's policy points at it without const, and only reads it.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include <net/netlink.h>
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/*
 * A family is told of each subscription to its multicast groups (its
 * bind callback) since 6.8; 6.1's cannot know whether any socket ever
 * joined one.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define ARS_GENL_BIND		1
#else
#define ARS_GENL_BIND		0
#endif

#endif /* _ARS_COMPAT_H */
