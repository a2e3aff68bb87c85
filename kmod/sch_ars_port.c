// SPDX-License-Identifier: GPL-2.0
/*
 * What a device's ars qdiscs publish into its port, together: under mq
 * one qdisc per tx queue, whose rates and backlogs add up and whose
 * delays average, the band computed from the sums (or the port signal
 * v3's, from all of them), and whether a port gone quiet is stalled.
 * The qdisc (sch_ars.c) calls ars_qdisc_port_publish() when it closes a
 * window; quality.c reads the rest for dumps and for the data plane.
 */
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/rculist.h>
#include <linux/string.h>

#include "ars_core.h"
#include "sch_ars_data.h"
#include "sch_ars_port.h"

/*
 * Whether a qdisc is as a quiet device: it closed no window for
 * ARS_STALE_INTERVALS (its window opened more than one interval earlier)
 * and holds nothing.
 */
static bool ars_qdisc_quiet(const struct ars_sched_data *q, u64 now)
{
	struct ars_clock c;

	ars_clock_get(q->sch, q, &c);
	return !READ_ONCE(q->sch->q.qlen) &&
	       ars_est_quiet(&q->est, now,
			     (ARS_STALE_INTERVALS + 1) * c.cfg.interval);
}

/*
 * The figures of the port's qdiscs at @now, summed (delay: averaged). For
 * the band (@publish), a quiet qdisc counts as idle, as a quiet device
 * does: nothing but its share of the delay's average, 0.
 */
static bool ars_port_sum(const struct ars_port *port, u64 now, bool publish,
			 struct ars_port_quality *pq)
{
	const struct ars_sched_data *q;
	struct ars_est_fig a;
	bool stalled = false;
	unsigned int n = 0;
	u64 delay = 0;

	hlist_for_each_entry_rcu(q, &port->qdiscs, port_node) {
		n++;
		if (publish && ars_qdisc_quiet(q, now))
			continue;
		ars_read(q, now, &a);
		pq->rate += a.rate;
		pq->backlog += a.backlog;
		delay += a.delay;
		stalled |= a.stalled;
	}
	pq->delay = n ? div_u64(delay, n) : 0;
	return stalled;
}

void ars_qdisc_port_read(const struct ars_port *port, u64 now,
			 struct ars_port_quality *pq)
{
	ars_port_sum(port, now, false, pq);
}

/*
 * Whether a port that published nothing for ARS_STALE_INTERVALS is stalled:
 * none of its qdiscs closed a window meanwhile, so none saw a packet leave,
 * and one holds packets that waited an interval or more (not merely those
 * of a qdisc that is new). A read of each qdisc's queue, when a flowlet
 * starts towards a quiet port; under RCU.
 */
bool ars_qdisc_port_stalled(const struct ars_port *port, u64 now)
{
	const struct ars_sched_data *q;
	struct ars_clock c;

	hlist_for_each_entry_rcu(q, &port->qdiscs, port_node) {
		if (!READ_ONCE(q->sch->q.qlen))
			continue;
		ars_clock_get(q->sch, q, &c);
		if (ars_head_wait(q, now) >= c.cfg.interval)
			return true;
	}
	return false;
}

/*
 * The signal v3 of the port at @now, from all its qdiscs: their past and
 * future terms add up (each against the port's line rate), their delays
 * average. The full scale is what the default child holds, txqueuelen
 * packets of the MTU, at line rate (ARS_DELAY_FULL_NS without a line
 * rate or a queue length).
 */
static u8 ars_port_sig_band(const struct ars_port *port, u64 now, u64 bw,
			    const struct ars_clock *c)
{
	static const u32 thresh[ARS_SIG_THRESHOLDS] = ARS_SIG_THRESH_DEFAULT;
	struct ars_sig_cfg sc = {
		.tau = c->tau,
		.bandwidth = bw,
		.full = ARS_DELAY_FULL_NS,
		.w_past = ARS_SIG_W_PAST_DEFAULT,
		.w_present = ARS_SIG_W_PRESENT_DEFAULT,
		.w_future = ARS_SIG_W_FUTURE_DEFAULT,
	};
	const struct ars_sched_data *q;
	struct ars_sig_fig f, sum = {};
	const struct net_device *dev;
	unsigned int n = 0;
	u64 delay = 0;

	memcpy(sc.thresh, thresh, sizeof(thresh));
	hlist_for_each_entry_rcu(q, &port->qdiscs, port_node) {
		const struct Qdisc *sch = q->sch;

		dev = qdisc_dev(sch);
		if (bw && !n && dev->tx_queue_len && dev->mtu)
			sc.full = max_t(u64, 1,
					mul_u64_u64_div_u64((u64)dev->tx_queue_len *
							    dev->mtu,
							    8 * NSEC_PER_SEC,
							    bw));
		ars_sig_read(&q->sig, &sc, now,
			     READ_ONCE(sch->qstats.backlog),
			     ars_head_wait(q, now), &f);
		sum.past = min_t(u32, ARS_SIG_ONE, sum.past + f.past);
		sum.future = min_t(u32, ARS_SIG_ONE, sum.future + f.future);
		delay += f.delay;
		n++;
	}
	sum.delay = n ? div_u64(delay, n) : 0;
	ars_sig_finish(&sc, &sum);
	return sum.band;
}

/*
 * Publish the port's figures at @now, from all its qdiscs: each read as at
 * @now, so that a quiet queue under mq decays as a quiet device does, and
 * a stalled one stays in. A device with one qdisc publishes at its every
 * close; under mq, the first qdisc to close in an interval publishes for
 * all of them, so that the walk costs each device one pass an interval.
 */
void ars_qdisc_port_publish(struct ars_port *port, u64 now,
			    const struct ars_clock *c)
{
	struct ars_port_quality pq = {};
	struct ars_quality_in in = {};
	u64 stamp = READ_ONCE(port->stamp);
	bool stalled;

	if (atomic_read(&port->q_count) > 1 &&
	    (now - stamp < c->cfg.interval ||
	     cmpxchg64(&port->stamp, stamp, now) != stamp))
		return;

	stalled = ars_port_sum(port, now, true, &pq);
	in.rate = pq.rate;
	in.delay = pq.delay;
	in.bandwidth = ars_port_bandwidth(port);
	in.rate_weight = c->rate_weight;

	if (c->signal == ARS_SIGNAL_V3) {
		u8 band = stalled ? 0 : ars_port_sig_band(port, now,
							  in.bandwidth, c);
		u32 util;
		u64 delay;

		ars_sig_path_figures(band, ARS_DELAY_FULL_NS, &util, &delay);
		WRITE_ONCE(port->util, util);
		WRITE_ONCE(port->delay, delay);
		WRITE_ONCE(port->band, band);
	} else {
		WRITE_ONCE(port->util, ars_util_permille(in.rate,
							 in.bandwidth));
		WRITE_ONCE(port->delay, in.delay);
		WRITE_ONCE(port->band, stalled ? 0 : ars_quality_band(&in));
	}
	WRITE_ONCE(port->stalled, stalled);
	WRITE_ONCE(port->stale_after, ARS_STALE_INTERVALS * c->cfg.interval);
	WRITE_ONCE(port->stamp, now);
}
