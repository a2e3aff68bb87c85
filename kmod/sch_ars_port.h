/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a device's ars qdiscs publish into its port and how the port reads
 * them back (sch_ars_port.c).
 */
#ifndef _ARS_SCH_ARS_PORT_H
#define _ARS_SCH_ARS_PORT_H

#include <linux/types.h>

struct ars_clock;
struct ars_port;
struct ars_port_quality;

/*
 * A port whose qdiscs close no window for this many intervals is idle, or
 * stalled if one of them holds packets.
 */
#define ARS_STALE_INTERVALS	4

/* Publish the port's figures at @now, from all its qdiscs; under RCU. */
void ars_qdisc_port_publish(struct ars_port *port, u64 now,
			    const struct ars_clock *c);
/* Add the figures of the port's qdiscs at @now into @pq; under RCU. */
void ars_qdisc_port_read(const struct ars_port *port, u64 now,
			 struct ars_port_quality *pq);
/* Whether a stale port holds packets; under RCU. */
bool ars_qdisc_port_stalled(const struct ars_port *port, u64 now);

#endif /* _ARS_SCH_ARS_PORT_H */
