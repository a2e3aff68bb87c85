// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/ars.yaml */
/* YNL-GEN kernel source */
/* By scripts/nl-gen.sh: the policies alone, see there. */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "nl_gen.h"

#include <uapi/linux/ars.h>

/* Integer value ranges */
static const struct netlink_range_validation ars_a_profile_idle_time_range = {
	.min	= ARS_IDLE_TIME_MIN,
	.max	= ARS_IDLE_TIME_MAX,
};

static const struct netlink_range_validation ars_a_profile_table_size_range = {
	.min	= ARS_TABLE_SIZE_MIN,
	.max	= ARS_TABLE_SIZE_MAX,
};

static const struct netlink_range_validation ars_a_profile_sampling_interval_range = {
	.min	= ARS_SAMPLING_INTERVAL_MIN,
	.max	= ARS_SAMPLING_INTERVAL_MAX,
};

static const struct netlink_range_validation ars_a_profile_flowlet_window_range = {
	.max	= ARS_FLOWLET_WINDOW_MAX,
};

static const struct netlink_range_validation ars_a_profile_fabric_rtt_range = {
	.max	= ARS_FABRIC_RTT_MAX,
};

static const struct netlink_range_validation ars_a_profile_remote_half_life_range = {
	.min	= ARS_REMOTE_HALF_LIFE_MIN,
	.max	= ARS_REMOTE_HALF_LIFE_MAX,
};

static const struct netlink_range_validation ars_a_object_idle_time_range = {
	.min	= ARS_IDLE_TIME_MIN,
	.max	= ARS_IDLE_TIME_MAX,
};

static const struct netlink_range_validation ars_a_object_table_size_range = {
	.max	= ARS_TABLE_SIZE_MAX,
};

/* ARS_CMD_PROFILE_SET - do */
const struct nla_policy ars_profile_set_nl_policy[ARS_A_PROFILE_REMOTE_HALF_LIFE + 1] = {
	[ARS_A_PROFILE_STATE] = NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_MODE] = NLA_POLICY_MAX(NLA_U32, 6),
	[ARS_A_PROFILE_IDLE_TIME] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_profile_idle_time_range),
	[ARS_A_PROFILE_TABLE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &ars_a_profile_table_size_range),
	[ARS_A_PROFILE_IPV4] = NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_IPV6] = NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_SAMPLING_INTERVAL] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_profile_sampling_interval_range),
	[ARS_A_PROFILE_RATE_WEIGHT] = NLA_POLICY_MAX(NLA_U32, ARS_RATE_WEIGHT_MAX),
	[ARS_A_PROFILE_EWMA_SHIFT] = NLA_POLICY_MAX(NLA_U32, ARS_EWMA_SHIFT_MAX),
	[ARS_A_PROFILE_DEFAULT_OBJECT] = { .type = NLA_NUL_STRING, .len = 15, },
	[ARS_A_PROFILE_FLOWLABEL] = NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_FLOWLET_WINDOW] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_profile_flowlet_window_range),
	[ARS_A_PROFILE_FABRIC_RTT] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_profile_fabric_rtt_range),
	[ARS_A_PROFILE_AUTO] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[ARS_A_PROFILE_REMOTE] = NLA_POLICY_MAX(NLA_U8, 1),
	[ARS_A_PROFILE_REMOTE_HALF_LIFE] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_profile_remote_half_life_range),
};

/* ARS_CMD_OBJECT_NEW - do */
const struct nla_policy ars_object_new_nl_policy[ARS_A_OBJECT_TABLE_SIZE + 1] = {
	[ARS_A_OBJECT_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[ARS_A_OBJECT_MODE] = NLA_POLICY_MAX(NLA_U32, 6),
	[ARS_A_OBJECT_IDLE_TIME] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_object_idle_time_range),
	[ARS_A_OBJECT_PRIMARY_THRESHOLD] = NLA_POLICY_MAX(NLA_U8, ARS_PRIMARY_THRESHOLD_MAX),
	[ARS_A_OBJECT_ALTERNATE_COST] = NLA_POLICY_MAX(NLA_U8, ARS_BAND_BEST),
	[ARS_A_OBJECT_ALTERNATE_BIAS] = NLA_POLICY_MAX(NLA_U8, ARS_ALTERNATE_BIAS_MAX),
	[ARS_A_OBJECT_TABLE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &ars_a_object_table_size_range),
};

/* ARS_CMD_OBJECT_SET - do */
const struct nla_policy ars_object_set_nl_policy[ARS_A_OBJECT_TABLE_SIZE + 1] = {
	[ARS_A_OBJECT_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[ARS_A_OBJECT_MODE] = NLA_POLICY_MAX(NLA_U32, 6),
	[ARS_A_OBJECT_IDLE_TIME] = NLA_POLICY_FULL_RANGE(NLA_U64, &ars_a_object_idle_time_range),
	[ARS_A_OBJECT_PRIMARY_THRESHOLD] = NLA_POLICY_MAX(NLA_U8, ARS_PRIMARY_THRESHOLD_MAX),
	[ARS_A_OBJECT_ALTERNATE_COST] = NLA_POLICY_MAX(NLA_U8, ARS_BAND_BEST),
	[ARS_A_OBJECT_ALTERNATE_BIAS] = NLA_POLICY_MAX(NLA_U8, ARS_ALTERNATE_BIAS_MAX),
	[ARS_A_OBJECT_TABLE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &ars_a_object_table_size_range),
};

/* ARS_CMD_OBJECT_DEL - do */
const struct nla_policy ars_object_del_nl_policy[ARS_A_OBJECT_NAME + 1] = {
	[ARS_A_OBJECT_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* ARS_CMD_OBJECT_GET - do */
const struct nla_policy ars_object_get_nl_policy[ARS_A_OBJECT_NAME + 1] = {
	[ARS_A_OBJECT_NAME] = { .type = NLA_NUL_STRING, .len = 15, },
};

/* ARS_CMD_INTERFACE_ENABLE - do */
const struct nla_policy ars_interface_enable_nl_policy[ARS_A_INTERFACE_IFINDEX + 1] = {
	[ARS_A_INTERFACE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* ARS_CMD_INTERFACE_DISABLE - do */
const struct nla_policy ars_interface_disable_nl_policy[ARS_A_INTERFACE_IFINDEX + 1] = {
	[ARS_A_INTERFACE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
};
