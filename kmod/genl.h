/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family ars (genl.c).
 */
#ifndef _ARS_GENL_H
#define _ARS_GENL_H

#include <linux/types.h>

struct ars_net;

int ars_genl_init(void);
void ars_genl_uninit(void);
void ars_genl_notify_assign(struct ars_net *an, u32 flow, int family,
			    int old_ifindex, int new_ifindex, u8 reason);

#endif /* _ARS_GENL_H */
