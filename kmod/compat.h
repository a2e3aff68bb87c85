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

#endif /* _ARS_COMPAT_H */
