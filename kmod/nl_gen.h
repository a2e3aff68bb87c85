/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/ars.yaml */
/* YNL-GEN kernel header */
/* By scripts/nl-gen.sh: the policies alone, see there. */

#ifndef _LINUX_ARS_GEN_H
#define _LINUX_ARS_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/ars.h>

extern const struct nla_policy ars_profile_set_nl_policy[ARS_A_PROFILE_REMOTE_HALF_LIFE + 1];
extern const struct nla_policy ars_object_new_nl_policy[ARS_A_OBJECT_TABLE_SIZE + 1];
extern const struct nla_policy ars_object_set_nl_policy[ARS_A_OBJECT_TABLE_SIZE + 1];
extern const struct nla_policy ars_object_del_nl_policy[ARS_A_OBJECT_NAME + 1];
extern const struct nla_policy ars_object_get_nl_policy[ARS_A_OBJECT_NAME + 1];
extern const struct nla_policy ars_interface_enable_nl_policy[ARS_A_INTERFACE_IFINDEX + 1];
extern const struct nla_policy ars_interface_disable_nl_policy[ARS_A_INTERFACE_IFINDEX + 1];

#endif /* _LINUX_ARS_GEN_H */
