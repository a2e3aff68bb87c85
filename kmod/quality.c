// SPDX-License-Identifier: GPL-2.0
/*
 * A port's quality as its ars qdiscs measure it, for dumps and for the data
 * plane's decision path. Here rather than in ports.c or sch_ars.c, so that
 * the ports know nothing of the qdisc and the qdisc only holds its ports.
 */
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "ars_step.h"
#include "quality.h"

/*
 * A port's figures for dumps: those its ars qdiscs show to tc, summed
 * (ars_qdisc_port_read()), so that a quiet port reads 0 here as there.
 */
void ars_port_quality(const struct ars_port *port, u64 now,
		      struct ars_port_quality *pq)
{
	memset(pq, 0, sizeof(*pq));
	pq->bandwidth = ars_port_bandwidth(port);
	pq->band = ARS_BAND_UNKNOWN;
	if (!ars_port_measured(port))
		return;
	pq->measured = true;
	pq->band = ars_port_band(port, now);
	ars_qdisc_port_read(port, now, pq);
}

/*
 * The ports of the data plane's decision path (ars_step.h); @env is the
 * namespace's struct ars_net. Under RCU.
 */
bool ars_env_path_load(void *env, u32 dev, u64 now, struct ars_path_load *pl)
{
	const struct ars_port *port = ars_port_find(env, dev);

	if (!port || !ars_port_measured(port))
		return false;
	ars_port_load(port, now, pl);
	return true;
}

void ars_env_flowlet_stamp(void *env, u32 dev, u64 now)
{
	struct ars_port *port = ars_port_find(env, dev);

	if (port)
		WRITE_ONCE(port->flowlet_at, now);
}

bool ars_env_flowlet_at(void *env, u32 dev, u64 *at)
{
	const struct ars_port *port = ars_port_find(env, dev);

	if (!port)
		return false;
	*at = READ_ONCE(port->flowlet_at);
	return *at != 0;
}
