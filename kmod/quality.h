/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A port's quality as its ars qdiscs measure it (quality.c): above both the
 * ports and the qdisc, which need not know each other for it.
 */
#ifndef _ARS_QUALITY_H
#define _ARS_QUALITY_H

#include "ars_core.h"
#include "ports.h"
#include "sch_ars_port.h"

/* The band of a measured port, for the data plane; under RCU. */
static inline u8 ars_port_band(const struct ars_port *port, u64 now)
{
	if (!ars_port_stale(port, now))
		return READ_ONCE(port->band);
	return ars_qdisc_port_stalled(port, now) ? 0 : ARS_BAND_BEST;
}

/* A measured port's load, for ars_path_band(); nothing when it is idle. */
static inline void ars_port_load(const struct ars_port *port, u64 now,
				 struct ars_path_load *pl)
{
	pl->bandwidth = ars_port_bandwidth(port);
	if (ars_port_stale(port, now)) {
		pl->util = 0;
		pl->delay = 0;
		pl->stalled = ars_qdisc_port_stalled(port, now);
	} else {
		pl->util = READ_ONCE(port->util);
		pl->delay = READ_ONCE(port->delay);
		pl->stalled = READ_ONCE(port->stalled);
	}
}

void ars_port_quality(const struct ars_port *port, u64 now,
		      struct ars_port_quality *pq);

#endif /* _ARS_QUALITY_H */
