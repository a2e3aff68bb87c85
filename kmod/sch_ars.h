/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ars qdisc (sch_ars.c), which measures the ports it is attached to.
 */
#ifndef _ARS_SCH_ARS_H
#define _ARS_SCH_ARS_H

#include <linux/types.h>

struct ars_port;
struct ars_port_quality;

int ars_qdisc_register(void);
void ars_qdisc_unregister(void);
/* Add the figures of the port's qdiscs at @now into @pq; under RCU. */
void ars_qdisc_port_read(const struct ars_port *port, u64 now,
			 struct ars_port_quality *pq);
/* Whether a stale port holds packets; under RCU. */
bool ars_qdisc_port_stalled(const struct ars_port *port, u64 now);

#endif /* _ARS_SCH_ARS_H */
