/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Defaults derived from what an operator knows of a fabric: its base
 * round-trip time and the link speed of a port. Kernel-free: the module
 * derives its profile with it, and the sim its default profile, so that
 * "the kernel's defaults" mean the same thing in both.
 *
 * Each figure is a multiple of the base RTT, clamped to the kernel's
 * limits; the sweep chose the idle time's and the signal (Documentation/
 * networking/ars-results.rst), not v2's interval. A figure that the
 * operator set explicitly wins over the derived one; the caller decides
 * that.
 */
#ifndef _ARS_DERIVE_H
#define _ARS_DERIVE_H

#include "ars_types.h"

/*
 * Idle time, v3 time constant and v2 sampling interval, in base RTTs x 4.
 * The sim's sweep at 32x8x8, 400G (ars-results.rst): an idle time of 4
 * RTTs outlasts the RoCE-like senders' pauses (3 RTTs), and carried the
 * seed's rail pairs 4.7 points of % of ideal above 2 RTTs; 8 and 16 RTTs
 * carried no more. v2's interval stays 1 RTT: with v2 flowlet-quality
 * fell 13 points on the seed's workload, 7 on the permutation.
 */
#define ARS_DERIVE_IDLE_QRTT		16	/* 4 RTT */
#define ARS_DERIVE_TAU_QRTT		8	/* 2 RTT */
#define ARS_DERIVE_INTERVAL_QRTT	4	/* 1 RTT */
/*
 * The flowlet window, in base RTTs x 4: a quarter of an RTT spread the
 * SYNs of DCTCP flows that start together as one RTT did (rail pairs
 * 99.4% of ideal against ecmp's 65.1%, ring all-reduce at the
 * output-queued switch's completion time), and cost WebSearch at 80%
 * nothing where one RTT cost it 1.8% of mean slowdown.
 */
#define ARS_DERIVE_WINDOW_QRTT		1	/* 1/4 RTT */
#define ARS_DERIVE_WINDOW_MIN		1	/* ns: a window, not off */
/* The port signal of the derived profile, enum ars_signal. */
#define ARS_DERIVE_SIGNAL		ARS_SIGNAL_V3

struct ars_derived {
	u64	idle_time;		/* ns */
	u64	tau;			/* ns, the port signal v3's */
	u64	sampling_interval;	/* ns, the port signal v2's */
	u64	flowlet_window;		/* ns */
	u8	signal;			/* of a qdisc that names none */
};

/**
 * ars_derive() - the defaults of a fabric
 * @rtt: its base round-trip time, ns, > 0
 * @bps: a port's link speed, bit/s, 0 when unknown
 * @d: the figures, each within its attribute's limits
 */
void ars_derive(u64 rtt, u64 bps, struct ars_derived *d);

#endif /* _ARS_DERIVE_H */
