/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port estimator: what the ars qdisc makes of the packets it sees
 * leave, as plain C over ars_types.h, so that the qdisc (sch_ars.c), the
 * host's unit tests and a simulator run the same arithmetic.
 *
 * A driver of the estimator, for each queue it watches:
 *
 *	ars_est_init(&e, now, &cfg);
 *	on enqueue:	ars_est_close(&e, &cfg, now, backlog, head);
 *	on dequeue:	ars_est_close(&e, &cfg, now, backlog, head);
 *			ars_est_sample(&e, &cfg, len, sojourn);
 *	to read:	ars_est_read(&e, &cfg, now, backlog, head, &fig);
 *
 * where @backlog is the queue's bytes at @now and @head how long the
 * packet at its head has waited there: at an enqueue, the head's; at a
 * dequeue, the leaving packet's; 0 when the queue was empty. A driver that
 * cannot see its queue's head may pass the time since the queue last
 * moved: since its last departure, or since it became non-empty if that
 * is later. A close before the packet at hand counts puts that packet in
 * the next window. A reader sees the figures that a close at @now would
 * give, so that a quiet queue decays to 0 without a timer.
 *
 * Windows lie on a grid of whole intervals from the start. A close at @now
 * ends the window that opened at @e->start, n >= 1 intervals ago (nothing
 * happens before the first interval is over): every byte of the window
 * left in its first interval, since a later packet would have closed it,
 * so the rate's samples are the window's bytes for the first interval and
 * 0 for the n - 1 others. The backlog at @now stands for each of the n
 * intervals. The delay average takes each packet's sojourn at dequeue; a
 * window that ends with the queue empty had no queue, except in its first
 * interval when a packet left in it, and decays for the others.
 *
 * Averages are exponentially weighted, a new sample weighing 2^-shift,
 * and kept scaled by 2^shift (S = S - S / 2^shift + sample, the average
 * being S / 2^shift), as the kernel's gen_estimator keeps its own, so that
 * a sample smaller than 2^shift still moves the average. n samples at 0
 * multiply an average by (1 - 2^-shift)^n, computed by squaring in 32-bit
 * fixed point. No division but ars_div64(), no library call, no floating
 * point: the file links into a 32-bit kernel.
 *
 * A queue that holds packets which do not leave (a PFC pause, a blocked
 * shaper, sch_plug) samples no sojourn, and its rate decays as a quiet
 * queue's would. So the head's wait counts too: the delay read is the
 * larger of the average and @head, and a head that waited an interval or
 * more, with not one packet leaving meanwhile, marks the queue stalled
 * (struct ars_est_fig), which the qdisc ranks worst. When the queue moves
 * again, the packets that waited through the stall say nothing of the
 * queue that follows: a sojourn counts from the stall's end at most, plus
 * the last sojourn counted before it (what the queue held a packet then),
 * so the average is that of the drain over the queue as it was, not of
 * the pause. A child that holds every packet (netem's delay line) and
 * whose timer fires an interval late so keeps its delay: only the
 * lateness goes.
 *
 * Concurrency is the driver's: one writer (the qdisc, under its lock);
 * lockless readers may pair one window's figure with another's, as tc's
 * rate estimators do, since every field is read and written once.
 */
#ifndef _ARS_EST_H
#define _ARS_EST_H

#include "ars_types.h"

#define ARS_NSEC_PER_SEC	1000000000ULL
/* A sojourn beyond this is not a queue but a stale or foreign timestamp. */
#define ARS_EST_SOJOURN_MAX	(10ULL * ARS_NSEC_PER_SEC)
#define ARS_EST_SHIFT_MAX	15

/* What the averages are made with; may change between calls. */
struct ars_est_cfg {
	u64		interval;	/* ns, > 0 */
	unsigned int	shift;		/* 0..ARS_EST_SHIFT_MAX */
};

/* An estimator's state; its fields are the estimator's own. */
struct ars_est {
	/* The open window. */
	u64		start;		/* ns, on the interval grid */
	u64		bytes;		/* dequeued in it so far */
	bool		dequeued;	/* a packet left in it */

	/* Averages, scaled by 2^shift. */
	unsigned int	shift;
	u64		rate;		/* bytes/s */
	u64		backlog;	/* bytes */
	u64		delay;		/* ns */

	u64		samples;	/* windows closed */

	/*
	 * The driver's last call; the last sojourn counted; since when
	 * sojourns count after the last stall: its end, less @held then.
	 */
	u64		last;		/* ns */
	u64		last_head;	/* ns */
	u64		held;		/* ns */
	u64		resumed;	/* ns, valid if @stalled_once */
	bool		stalled_once;
};

/* A queue's figures, as a reader sees them. */
struct ars_est_fig {
	u64	rate;		/* bytes/s */
	u64	backlog;	/* bytes */
	u64	delay;		/* ns, at least the head's wait */
	bool	stalled;	/* the head waited an interval or more */
};

/**
 * ars_mul_div() - @a * @b / @c rounded down, with a 128-bit product
 * @a: a factor
 * @b: a factor
 * @c: the divisor, > 0
 *
 * Return: the quotient, or U64_MAX when it does not fit 64 bits.
 */
u64 ars_mul_div(u64 a, u64 b, u64 c);

/**
 * ars_ewma() - one step of a scaled exponentially weighted average
 * @scaled: the average times 2^@shift
 * @sample: the new sample
 * @shift: its weight is 2^-@shift
 *
 * Return: the new average times 2^@shift.
 */
static inline u64 ars_ewma(u64 scaled, u64 sample, unsigned int shift)
{
	return scaled - (scaled >> shift) + sample;
}

/* ars_est_*: see the head of this file. */
void ars_est_init(struct ars_est *e, u64 now, const struct ars_est_cfg *cfg);

/* Whether a close at @now would close a window. */
static inline bool ars_est_due(const struct ars_est *e, u64 now,
			       const struct ars_est_cfg *cfg)
{
	return now - READ_ONCE(e->start) >= cfg->interval;
}

/*
 * Whether @e closed no window for more than @span ns at @now: its window
 * opened earlier than that. Lockless: a window that another CPU opened
 * after @now was read is no quiet, though @now is before its start.
 */
static inline bool ars_est_quiet(const struct ars_est *e, u64 now, u64 span)
{
	return (s64)(now - READ_ONCE(e->start)) > (s64)span;
}

/**
 * ars_est_close() - close the open window if its first interval is over
 * @e: the estimator
 * @cfg: its interval and shift
 * @now: ns, not before @e->start
 * @backlog: the queue's bytes at @now
 * @head: ns the packet at the queue's head has waited there, 0 if none
 *
 * Return: true when a window closed (the figures changed).
 */
bool ars_est_close(struct ars_est *e, const struct ars_est_cfg *cfg, u64 now,
		   u64 backlog, u64 head);

/**
 * ars_est_sample() - a packet of @bytes left after @sojourn ns in queue
 * @e: the estimator, closed at the packet's time first
 * @cfg: its interval and shift
 * @bytes: the packet's length
 * @sojourn: its time in queue; beyond ARS_EST_SOJOURN_MAX it is ignored
 *
 * A packet that leaves a stall (the close before it saw @head of an
 * interval or more) ends it: this and later packets count their sojourn
 * from then at most, plus the last sojourn counted before it.
 */
void ars_est_sample(struct ars_est *e, const struct ars_est_cfg *cfg,
		    u64 bytes, u64 sojourn);

/**
 * ars_est_read() - the figures of @e at @now, for readers and publishers
 * @e: the estimator
 * @cfg: its interval and shift
 * @now: ns
 * @backlog: the queue's bytes at @now
 * @head: as for ars_est_close()
 * @fig: the figures
 *
 * Those of the last close while the window is in its first interval, else
 * those a close at @now would give. Only reads @e.
 */
void ars_est_read(const struct ars_est *e, const struct ars_est_cfg *cfg,
		  u64 now, u64 backlog, u64 head, struct ars_est_fig *fig);

/*
 * The port signal v3 (issue 33): a port's load in fine resolution at any
 * speed, from three terms weighed as SAI's ARS profile weighs them, and
 * its band from a table of thresholds.
 *
 *   past     the utilisation: a byte average in continuous time, each
 *            departure decaying it by exp(-dt / tau), over what the line
 *            carries in tau
 *   present  the queueing delay (SAI's current load): the sojourns
 *            averaged with the same decay, and decaying to 0 while the
 *            queue is empty; at least the head's wait
 *   future   the backlog: the time it takes to drain at line rate
 *
 * Delay and backlog are scaled to @full, the queue that reads as full:
 * the port's own buffer drain time (its limit over its line rate) or a
 * configured full scale, so that a 400G port's 10 us is not measured
 * against a 1 ms scale. Each term is in units of 1/ARS_SIG_ONE, capped at
 * ARS_SIG_ONE; the load is their weighted mean, and the band is 7
 * (ARS_BAND_BEST) less the number of thresholds the load reaches.
 *
 * SAI's PORT_LOAD_EXPONENT, the weight of a new sample in its past load,
 * is here a time constant in ns, so that the average forgets at the same
 * pace whatever the packet rate.
 *
 * Unlike ars_est, nothing depends on how many packets fit an interval: a
 * 400G port sending 9000-byte frames at 10% reads 10% +- the share of
 * one frame in tau, and a reader decays the figures to @now without a
 * timer. Driven as ars_est is:
 *
 *	ars_sig_init(&s, now);
 *	on dequeue:	ars_sig_sample(&s, &cfg, now, len, sojourn);
 *	to read:	ars_sig_read(&s, &cfg, now, backlog, head, &fig);
 *
 * No division but ars_div64(), no floating point; one writer, lockless
 * readers as for ars_est.
 */
#define ARS_SIG_ONE		65536U
#define ARS_SIG_THRESHOLDS	7
#define ARS_SIG_TAU_MAX		ARS_NSEC_PER_SEC

/*
 * Provisional default thresholds, until the sweep of issue 33 chooses
 * them: with the default weights (the utilisation half the load), a port
 * without a queue at 10%, 50% and 90% of its line rate reads bands 6, 3
 * and 1, each in the middle of its band; band 0 takes a queue.
 */
#define ARS_SIG_THRESH_DEFAULT	{ 2048, 6144, 10240, 14336, 20480, 26624, 36864 }
#define ARS_SIG_W_PAST_DEFAULT		2
#define ARS_SIG_W_PRESENT_DEFAULT	1
#define ARS_SIG_W_FUTURE_DEFAULT	1

struct ars_sig_cfg {
	u64	tau;		/* ns, 1..ARS_SIG_TAU_MAX */
	u64	bandwidth;	/* bit/s, 0 when unknown */
	u64	full;		/* ns of queue that reads as full, > 0 */
	u32	w_past;		/* weights of the terms; all 0: past only */
	u32	w_present;
	u32	w_future;
	/* ascending, in 1/ARS_SIG_ONE of load */
	u32	thresh[ARS_SIG_THRESHOLDS];
};

/* A signal's state; its fields are the signal's own. */
struct ars_sig {
	u64	last;		/* ns, the last departure */
	u64	bytes;		/* decayed byte sum, scaled by 2^16 */
	u64	delay;		/* ns, averaged, scaled by 2^16 */
};

/* A port's signal at a time, terms and load in 1/ARS_SIG_ONE. */
struct ars_sig_fig {
	u64	rate;		/* bytes/s, averaged */
	u64	delay;		/* ns, averaged, at least the head's wait */
	u32	past;
	u32	present;
	u32	future;
	u32	load;
	u8	band;		/* 0..ARS_BAND_BEST */
};

/**
 * ars_exp_neg() - exp(-@dt / @tau) in units of 2^-32
 * @dt: ns
 * @tau: ns, > 0
 *
 * Within 2^-20 of the exact value; 0 beyond 23 @tau (below 2^-32).
 * @tau below 2^59, so that 23 @tau fits 64 bits.
 */
u64 ars_exp_neg(u64 dt, u64 tau);

/* The band, 0..7, of @load against @thresh (ascending). */
u8 ars_sig_band(u32 load, const u32 *thresh);

/*
 * The present term, the load and the band of @fig from its delay, past
 * and future: for a driver that adds up the figures of several queues of
 * one port (past and future add, capped at ARS_SIG_ONE; delays average).
 */
void ars_sig_finish(const struct ars_sig_cfg *cfg, struct ars_sig_fig *fig);

/*
 * Until the decision reads a band (issue 33), figures that
 * ars_path_band() turns back into @band at any rate-weight, among ports
 * of one speed whose route's delay scale is @full ns (ARS_DELAY_FULL_NS
 * in the kernel): both terms at (7 - @band) / 8 of their scale, rounded
 * up into the band, and no delay beyond @full to rescale them.
 */
static inline void ars_sig_path_figures(u8 band, u64 full, u32 *util,
					u64 *delay)
{
	*util = ((ARS_SIG_THRESHOLDS - band) * 1001 + 7) / 8;
	*delay = ars_div64(*util * full + 999, 1000);
}

void ars_sig_init(struct ars_sig *s, u64 now);

/**
 * ars_sig_sample() - a packet of @bytes left at @now after @sojourn ns
 * @s: the signal
 * @cfg: its time constant
 * @now: ns; a time before the last departure counts as the same time
 * @bytes: the packet's length
 * @sojourn: its time in queue; beyond ARS_EST_SOJOURN_MAX it is ignored
 */
void ars_sig_sample(struct ars_sig *s, const struct ars_sig_cfg *cfg, u64 now,
		    u64 bytes, u64 sojourn);

/**
 * ars_sig_read() - the signal of @s at @now
 * @s: the signal
 * @cfg: its configuration
 * @now: ns
 * @backlog: the queue's bytes at @now
 * @head: ns the packet at the queue's head has waited there, 0 if none
 * @fig: the figures
 *
 * Only reads @s.
 */
void ars_sig_read(const struct ars_sig *s, const struct ars_sig_cfg *cfg,
		  u64 now, u64 backlog, u64 head, struct ars_sig_fig *fig);

#endif /* _ARS_EST_H */
