// SPDX-License-Identifier: GPL-2.0
/*
 * The ars qdisc: measures a device's port quality where Linux queues.
 *
 *	tc qdisc add dev DEV root handle 1: ars [bandwidth RATE] [interval TIME]
 *					     [signal v2|v3] [tau TIME]
 *	tc qdisc add dev DEV parent 1:1 tbf ...		(any child)
 *
 * A classful qdisc with one class, 1:1, whose default child is a fifo of
 * txqueuelen packets. It adds no queue of its own; it watches its child:
 *
 *  - queueing delay: each packet's sojourn time, from a timestamp kept in
 *    the skb's qdisc cb at enqueue to its dequeue, averaged;
 *  - transmit rate: the bytes dequeued in each sampling interval;
 *  - backlog: the child's queued bytes, sampled once per interval;
 *  - bandwidth: the `bandwidth` option, or the device's ethtool link speed
 *    (veth claims 10G whatever shapes it, so a shaped link needs the
 *    option).
 *
 * Samples close lazily: the first enqueue or dequeue after an interval has
 * passed closes it, and every interval missed since. No timer, no lock but
 * the qdisc's own. The arithmetic of the windows and their averages is the
 * port estimator's (ars_est.c), which the host's tests and simulator share.
 * At each close the qdisc publishes its figures into the namespace's port
 * table, where ars's data plane reads them (sch_ars_port.c): under mq the
 * device's ars qdiscs (one per tx queue) add up their rates and backlogs,
 * and the band is computed from the sums (ars_quality_band() in
 * ars_core.c). A port whose qdiscs close no interval for
 * ARS_STALE_INTERVALS intervals is idle, and best. Readers (tc -s, arsctl paths) see one figure, computed
 * for both by ars_est_read(): what a close at the time of reading would
 * make of the averages, so that a quiet port decays to 0 without a timer.
 *
 * With `signal v3` (or no signal, while the namespace has a fabric-rtt:
 * ARS_DERIVE_SIGNAL) the band the qdisc publishes is the port signal v3's
 * (ars_sig_* in ars_est.c: a byte average in continuous time with the
 * time constant `tau`, or without one the namespace's, which its
 * fabric-rtt derives (read with the profile, as the sampling interval
 * is, so that a change of it needs no walk of the qdiscs), the averaged delay and the backlog, both against
 * the drain time of the default child's txqueuelen packets at line rate,
 * in eight bands by threshold), published at the same closes; the
 * figures the data plane reads are then those that ars_path_band() turns
 * back into that band (ars_sig_path_figures()). It costs a decay per
 * dequeued packet; under mq, give every queue's qdisc the same signal.
 *
 * The timestamp takes the last 3 bytes of the qdisc cb's private area
 * (bytes 17-19), past what any qdisc of net/sched keeps at its start, at
 * any depth below: choke's flow digest takes 17 bytes, cake's, pie's,
 * fq_codel's, fq's and netem's 8 to 12, sfb's 8. It holds the enqueue
 * time in units of 1024 ns, modulo 2^24 (17.2 s): a sojourn is exact to
 * that unit, unbiased, and reads right up to 17.2 s, past the 10 s
 * beyond which the estimator ignores one (ARS_EST_SOJOURN_MAX).
 */
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "ars_est.h"
#include "netns.h"
#include "ports.h"
#include "profile.h"
#include "quality.h"
#include "sch_ars.h"
#include "sch_ars_data.h"
#include "sch_ars_port.h"
#include "state.h"

#define ARS_TS_SHIFT		10
#define ARS_TS_BYTES		3
#define ARS_TS_OFFSET		(QDISC_CB_PRIV_LEN - ARS_TS_BYTES)
#define ARS_TS_MASK		((1U << (8 * ARS_TS_BYTES)) - 1)

static_assert((u64)ARS_TS_MASK << ARS_TS_SHIFT > ARS_EST_SOJOURN_MAX);

static const struct nla_policy ars_qdisc_policy[TCA_ARS_MAX + 1] = {
	[TCA_ARS_BANDWIDTH]	= { .type = NLA_U64 },
	[TCA_ARS_INTERVAL]	= { .type = NLA_U64 },
	[TCA_ARS_SIGNAL]	= { .type = NLA_U8 },
	[TCA_ARS_TAU]		= { .type = NLA_U64 },
};

static void ars_ts_set(struct sk_buff *skb, u64 now)
{
	u8 *ts = qdisc_skb_cb(skb)->data + ARS_TS_OFFSET;
	u32 t = now >> ARS_TS_SHIFT;

	ts[0] = t;
	ts[1] = t >> 8;
	ts[2] = t >> 16;
}

/* How long @skb was queued, at @now: the difference of the two units. */
static u64 ars_sojourn(const struct sk_buff *skb, u64 now)
{
	const u8 *ts = qdisc_skb_cb(skb)->data + ARS_TS_OFFSET;
	u32 t = ts[0] | ts[1] << 8 | ts[2] << 16;

	return (u64)(((u32)(now >> ARS_TS_SHIFT) - t) & ARS_TS_MASK) <<
	       ARS_TS_SHIFT;
}

/*
 * Close the sampling window if its first interval is over, before the
 * packet at hand counts: it goes into the next window. @head is how long
 * the head waited: at an enqueue the queue's, at a dequeue the leaving
 * packet's.
 */
static void ars_sample(struct Qdisc *sch, struct ars_sched_data *q, u64 now,
		       u64 head, struct ars_clock *c)
{
	ars_clock_get(sch, q, c);
	if (ars_est_close(&q->est, &c->cfg, now, q->qdisc->qstats.backlog,
			  head) && q->port)
		ars_qdisc_port_publish(q->port, now, c);
}

static int ars_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	u64 now = ktime_get_ns();
	struct ars_clock c;
	int ret;

	/* Close a window before this packet joins the queue: a window that
	 * saw no packet leave and ends with an empty queue had no delay.
	 */
	rcu_read_lock();
	ars_sample(sch, q, now, sch->q.qlen ? now - q->head_since : 0, &c);
	rcu_read_unlock();
	ars_ts_set(skb, now);
	ret = qdisc_enqueue(skb, q->qdisc, to_free);
	if (ret != NET_XMIT_SUCCESS) {
		if (net_xmit_drop_count(ret))
			qdisc_qstats_drop(sch);
		return ret;
	}
	if (!sch->q.qlen)
		WRITE_ONCE(q->head_since, now);
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *ars_qdisc_dequeue(struct Qdisc *sch)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct ars_clock c;
	struct sk_buff *skb;
	u64 now, sojourn;

	skb = qdisc_dequeue_peeked(q->qdisc);
	if (!skb)
		return NULL;

	now = ktime_get_ns();
	sojourn = ars_sojourn(skb, now);
	rcu_read_lock();
	ars_sample(sch, q, now, now - q->head_since, &c);
	ars_est_sample(&q->est, &c.cfg, qdisc_pkt_len(skb), sojourn);
	if (c.signal == ARS_SIGNAL_V3) {
		struct ars_sig_cfg sc = { .tau = c.tau };

		ars_sig_sample(&q->sig, &sc, now, qdisc_pkt_len(skb), sojourn);
	}
	rcu_read_unlock();
	/* The next packet, if any, is the head from now. */
	WRITE_ONCE(q->head_since, now);

	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	qdisc_bstats_update(sch, skb);
	return skb;
}

static struct sk_buff *ars_qdisc_peek(struct Qdisc *sch)
{
	struct ars_sched_data *q = qdisc_priv(sch);

	return q->qdisc->ops->peek(q->qdisc);
}

/*
 * The bandwidth a device is measured against: the largest option among its
 * ars qdiscs (one per tx queue under mq), 0 for the link speed, and 0 again
 * once the last of them is gone. Under RTNL, as every change of the list.
 */
static void ars_port_update_bandwidth(struct ars_port *port)
{
	struct ars_sched_data *q;
	u64 bw = 0;

	ASSERT_RTNL();
	hlist_for_each_entry(q, &port->qdiscs, port_node)
		bw = max(bw, READ_ONCE(q->bandwidth));
	WRITE_ONCE(port->bandwidth, bw);
}

static int ars_qdisc_change(struct Qdisc *sch, struct nlattr *opt,
			    struct netlink_ext_ack *extack)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_ARS_MAX + 1];
	u64 interval = q->interval, tau = q->tau;
	bool signal_set = q->signal_set;
	u8 signal = q->signal;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_ARS_MAX, opt, ars_qdisc_policy, extack);
	if (err)
		return err;

	if (tb[TCA_ARS_INTERVAL]) {
		interval = nla_get_u64(tb[TCA_ARS_INTERVAL]);
		if (interval && (interval < ARS_SAMPLING_INTERVAL_MIN ||
				 interval > ARS_SAMPLING_INTERVAL_MAX)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ARS_INTERVAL],
					    "interval must be 1us to 1s, or 0 for the namespace's sampling-interval");
			return -EINVAL;
		}
	}

	if (tb[TCA_ARS_SIGNAL]) {
		signal = nla_get_u8(tb[TCA_ARS_SIGNAL]);
		if (signal > ARS_SIGNAL_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ARS_SIGNAL],
					    "signal must be v2 (0) or v3 (1)");
			return -EINVAL;
		}
		signal_set = true;
	}
	if (tb[TCA_ARS_TAU]) {
		tau = nla_get_u64(tb[TCA_ARS_TAU]);
		if (tau && (tau < ARS_SIGNAL_TAU_MIN ||
			    tau > ARS_SIGNAL_TAU_MAX)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_ARS_TAU],
					    "tau must be 1us to 1s, or 0 for the namespace's");
			return -EINVAL;
		}
	}

	sch_tree_lock(sch);
	if (tb[TCA_ARS_BANDWIDTH])
		WRITE_ONCE(q->bandwidth, nla_get_u64(tb[TCA_ARS_BANDWIDTH]));
	WRITE_ONCE(q->interval, interval);
	WRITE_ONCE(q->tau, tau);
	/* v3 starts from an idle port when it is turned on */
	if (signal == ARS_SIGNAL_V3 && q->signal != ARS_SIGNAL_V3)
		ars_sig_init(&q->sig, ktime_get_ns());
	WRITE_ONCE(q->signal, signal);
	WRITE_ONCE(q->signal_set, signal_set);
	sch_tree_unlock(sch);
	if (q->port)
		ars_port_update_bandwidth(q->port);
	return 0;
}

/* The child of a new qdisc, or of one whose child was deleted. */
static struct Qdisc *ars_default_child(struct Qdisc *sch,
				       struct netlink_ext_ack *extack)
{
	struct Qdisc *child;

	child = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
				  TC_H_MAKE(sch->handle, 1), extack);
	if (child)
		qdisc_hash_add(child, true);
	return child;
}

static int ars_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct ars_port *port;
	struct ars_clock c;
	int err;

	q->qdisc = &noop_qdisc;
	q->sch = sch;
	err = ars_qdisc_change(sch, opt, extack);
	if (err)
		return err;
	rcu_read_lock();
	ars_clock_get(sch, q, &c);
	ars_est_init(&q->est, ktime_get_ns(), &c.cfg);
	rcu_read_unlock();

	q->qdisc = ars_default_child(sch, extack);
	if (!q->qdisc) {
		q->qdisc = &noop_qdisc;
		return -ENOMEM;
	}

	/* Measured from now on: idle, hence best, until a window closes. */
	port = ars_port_find(ars_pernet(dev_net(dev)), dev->ifindex);
	if (port) {
		refcount_inc(&port->refcnt);
		q->port = port;
		hlist_add_head_rcu(&q->port_node, &port->qdiscs);
		atomic_inc(&port->q_count);
		ars_port_update_bandwidth(port);
	}
	return 0;
}

static void ars_qdisc_reset(struct Qdisc *sch)
{
	struct ars_sched_data *q = qdisc_priv(sch);

	qdisc_reset(q->qdisc);
	sch->qstats.backlog = 0;
	sch->q.qlen = 0;
}

/*
 * Readers of the port may still be looking at this qdisc: its memory is
 * freed after a grace period (qdisc_free_cb()), the child's too. The port
 * may have left its table already, with the device: the qdisc's reference
 * keeps it (ports.h).
 */
static void ars_qdisc_destroy(struct Qdisc *sch)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct ars_port *port = q->port;

	if (port) {
		/* The port's figures leave with it at the next publication. */
		hlist_del_rcu(&q->port_node);
		atomic_dec(&port->q_count);
		ars_port_update_bandwidth(port);
		q->port = NULL;
		ars_port_put(port);
	}
	qdisc_put(q->qdisc);
}

static int ars_qdisc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, TCA_ARS_BANDWIDTH, READ_ONCE(q->bandwidth),
			      TCA_ARS_PAD) ||
	    nla_put_u64_64bit(skb, TCA_ARS_INTERVAL, READ_ONCE(q->interval),
			      TCA_ARS_PAD) ||
	    nla_put_u8(skb, TCA_ARS_SIGNAL, READ_ONCE(q->signal)) ||
	    nla_put_u64_64bit(skb, TCA_ARS_TAU, READ_ONCE(q->tau),
			      TCA_ARS_PAD)) {
		nla_nest_cancel(skb, opts);
		return -EMSGSIZE;
	}
	return nla_nest_end(skb, opts);
}

static int ars_qdisc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct tc_ars_xstats st = {};
	u64 now = ktime_get_ns();
	const struct ars_profile *p;
	struct ars_est_fig a;

	rcu_read_lock();
	p = rcu_dereference(ars_pernet(dev_net(qdisc_dev(sch)))->profile);
	st.tau = READ_ONCE(q->tau);
	st.tau_derived = !st.tau && p->tau;
	st.tau = st.tau ?: p->tau ?: ARS_SIGNAL_TAU_DEFAULT;
	st.signal_derived = !READ_ONCE(q->signal_set) && p->fabric_rtt;
	st.signal = READ_ONCE(q->signal_set) ? READ_ONCE(q->signal) :
					       p->signal;
	ars_read(q, now, &a);
	st.rate = a.rate;
	st.backlog = a.backlog;
	st.delay = a.delay;
	st.samples = READ_ONCE(q->est.samples);
	st.band = ARS_BAND_UNKNOWN;
	st.bandwidth = READ_ONCE(q->bandwidth);
	if (q->port) {
		st.bandwidth = st.bandwidth ?: READ_ONCE(q->port->link_speed);
		st.band = ars_port_band(q->port, now);
	}
	rcu_read_unlock();
	st.util = ars_util_permille(st.rate, st.bandwidth);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static int ars_class_graft(struct Qdisc *sch, unsigned long arg,
			   struct Qdisc *new, struct Qdisc **old,
			   struct netlink_ext_ack *extack)
{
	struct ars_sched_data *q = qdisc_priv(sch);

	/* Deleting the child must not leave the device without a queue. */
	if (!new) {
		new = ars_default_child(sch, extack);
		if (!new)
			new = &noop_qdisc;
	}
	*old = qdisc_replace(sch, new, &q->qdisc);
	return 0;
}

static struct Qdisc *ars_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct ars_sched_data *q = qdisc_priv(sch);

	return q->qdisc;
}

/* The one class, 1:1. */
static unsigned long ars_class_find(struct Qdisc *sch, u32 classid)
{
	return TC_H_MIN(classid) == 1 ? 1 : 0;
}

static void ars_class_walk(struct Qdisc *sch, struct qdisc_walker *walker)
{
	if (!walker->stop)
		tc_qdisc_stats_dump(sch, 1, walker);
}

static int ars_class_dump(struct Qdisc *sch, unsigned long cl,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	struct ars_sched_data *q = qdisc_priv(sch);

	tcm->tcm_handle |= TC_H_MIN(1);
	tcm->tcm_info = q->qdisc->handle;
	return 0;
}

/* The class's traffic is its child's, as for the bands of prio. */
static int ars_class_dump_stats(struct Qdisc *sch, unsigned long cl,
				struct gnet_dump *d)
{
	struct ars_sched_data *q = qdisc_priv(sch);
	struct Qdisc *child = q->qdisc;

	if (gnet_stats_copy_basic(d, child->cpu_bstats, &child->bstats,
				  true) < 0 ||
	    qdisc_qstats_copy(d, child) < 0)
		return -1;
	return 0;
}

static const struct Qdisc_class_ops ars_class_ops = {
	.graft		= ars_class_graft,
	.leaf		= ars_class_leaf,
	.find		= ars_class_find,
	.walk		= ars_class_walk,
	.dump		= ars_class_dump,
	.dump_stats	= ars_class_dump_stats,
};

static struct Qdisc_ops ars_qdisc_ops __read_mostly = {
	.cl_ops		= &ars_class_ops,
	.id		= "ars",
	.priv_size	= sizeof(struct ars_sched_data),
	.enqueue	= ars_qdisc_enqueue,
	.dequeue	= ars_qdisc_dequeue,
	.peek		= ars_qdisc_peek,
	.init		= ars_qdisc_init,
	.reset		= ars_qdisc_reset,
	.destroy	= ars_qdisc_destroy,
	.change		= ars_qdisc_change,
	.dump		= ars_qdisc_dump,
	.dump_stats	= ars_qdisc_dump_stats,
	.owner		= THIS_MODULE,
};

int ars_qdisc_register(void)
{
	return register_qdisc(&ars_qdisc_ops);
}

void ars_qdisc_unregister(void)
{
	unregister_qdisc(&ars_qdisc_ops);
}
