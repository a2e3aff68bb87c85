/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ars qdisc's private data and its lockless readers, shared by the
 * qdisc (sch_ars.c) and what its device's qdiscs publish into the port
 * together (sch_ars_port.c). Nothing else includes it.
 */
#ifndef _ARS_SCH_ARS_DATA_H
#define _ARS_SCH_ARS_DATA_H

#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/sch_generic.h>

#include "ars_est.h"
#include "netns.h"
#include "ports.h"
#include "profile.h"

struct ars_sched_data {
	struct Qdisc	*qdisc;		/* the child */
	struct Qdisc	*sch;		/* this qdisc, for readers of the port */
	struct ars_port	*port;		/* the device's, NULL if it has none */
	struct hlist_node port_node;	/* in port->qdiscs, under RTNL */

	/* Options. */
	u64		bandwidth;	/* bit/s, 0: link speed */
	u64		interval;	/* ns, 0: the namespace's */
	u64		tau;		/* ns, 0: the namespace's */
	u8		signal;		/* enum ars_signal */
	bool		signal_set;	/* else the namespace's */

	/* The estimator (ars_est.c), and since when the head is the head. */
	struct ars_est	est;
	u64		head_since;	/* ns, while the queue holds packets */
	/* The signal v3, driven while @signal is ARS_SIGNAL_V3. */
	struct ars_sig	sig;
};

/* What the averages of a qdisc are made with; under RCU. */
struct ars_clock {
	struct ars_est_cfg	cfg;
	u32			rate_weight;
	u8			signal;
	u64			tau;
};

static inline void ars_clock_get(const struct Qdisc *sch,
				 const struct ars_sched_data *q,
				 struct ars_clock *c)
{
	const struct ars_profile *p;

	p = rcu_dereference(ars_pernet(dev_net(qdisc_dev(sch)))->profile);
	c->cfg.interval = READ_ONCE(q->interval) ?: p->sampling_interval;
	c->cfg.shift = p->ewma_shift;
	c->rate_weight = p->rate_weight;
	c->signal = READ_ONCE(q->signal_set) ? READ_ONCE(q->signal) :
						 p->signal;
	/* The profile is read here anyway: its derived tau costs no more. */
	c->tau = READ_ONCE(q->tau) ?: p->tau ?: ARS_SIGNAL_TAU_DEFAULT;
}

/* How long the head has waited at the head, at @now; lockless. */
static inline u64 ars_head_wait(const struct ars_sched_data *q, u64 now)
{
	s64 wait = now - READ_ONCE(q->head_since);

	return READ_ONCE(q->sch->q.qlen) && wait > 0 ? wait : 0;
}

/*
 * The figures of a qdisc at @now, for tc, arsctl and the port alike
 * (ars_est_read()): a reading is not biased by when packets happened to
 * close windows, a quiet queue reads 0, and a stalled one reads its head's
 * wait. Lockless, under RCU: the qdisc may be closing a window meanwhile.
 */
static inline void ars_read(const struct ars_sched_data *q, u64 now,
			    struct ars_est_fig *fig)
{
	const struct Qdisc *sch = q->sch;
	struct ars_clock c;

	ars_clock_get(sch, q, &c);
	ars_est_read(&q->est, &c.cfg, now, READ_ONCE(sch->qstats.backlog),
		     ars_head_wait(q, now), fig);
}

#endif /* _ARS_SCH_ARS_DATA_H */
