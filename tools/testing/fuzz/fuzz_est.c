// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/ars_est.c, the port estimator.
 *
 * The input is an interval and an ewma-shift, then operations on one
 * estimator driven as sch_ars drives it (ars_est.h): enqueues (a close),
 * dequeues (a close, then a sample of any length and sojourn, foreign
 * timestamps included), reads, and changes of the interval and the
 * shift (beyond ARS_EST_SHIFT_MAX too), each after a time step forwards
 * of any size. After each step the contract's properties are checked,
 * not the estimator's own arithmetic:
 *
 * - a read changes nothing, and gives what a close at its time would
 *   (a copy of the estimator closed there reads the same);
 * - a close closes a window exactly when an interval has passed since it
 *   opened, and the next window opens on the interval grid, at most one
 *   interval before the close;
 * - the delay read is at least the head's wait, and stalled exactly when
 *   that wait is an interval or more;
 * - the averages stay within the samples they average: the backlog at
 *   most the largest backlog given, the delay at most the largest sojourn
 *   counted (below ARS_EST_SOJOURN_MAX), the rate at most the largest
 *   window's bytes over the shortest interval;
 * - a queue left empty and quiet for 64 << shift intervals reads 0.
 *
 * The port signal v3 (ars_sig_*) takes the same departures, with a
 * configuration drawn from the interval and the shift (so the input's
 * format is unchanged), and at each read:
 *
 * - a read changes nothing; every term and the load lie in
 *   0..ARS_SIG_ONE, the band is the load's against the thresholds, the
 *   delay at least the head's wait and at most that or the largest
 *   sojourn counted;
 * - the load is monotone: more backlog or a longer head's wait never
 *   reads less, nor a better band;
 * - quiet and empty, the load never grows with time, and after 64 time
 *   constants every term is 0 and the band the best.
 *
 * Any violation aborts; ASan and UBSan watch for memory errors and
 * undefined behaviour. Missing bytes read as zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ars_est.h"

#define T0		(1ULL << 40)
#define TIME_MAX	(1ULL << 60)	/* the driver's clock stays below */
#define INTERVAL_MAX	(1ULL << 34)	/* 17 s */

struct input {
	const u8	*p;
	size_t		n;
};

static u64 get(struct input *in, unsigned int bytes)
{
	u64 v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

#define ASSERT(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* What the estimator was given so far: bounds of its averages. */
struct bounds {
	u64	backlog;	/* the largest backlog of a close */
	u64	sojourn;	/* the largest sojourn counted */
	u64	bytes;		/* the most bytes of one window */
	u64	window;		/* bytes of the open window */
	u64	interval;	/* the shortest interval */
};

/* ---- the port signal v3 */

static void sig_cfg_of(struct ars_sig_cfg *sc, u64 interval, unsigned int shift)
{
	static const u64 bandwidths[] = {
		0, 1000000000ULL, 100000000000ULL, 400000000000ULL };
	static const u32 thresh[ARS_SIG_THRESHOLDS] = ARS_SIG_THRESH_DEFAULT;

	memset(sc, 0, sizeof(*sc));
	sc->tau = interval << (shift % 4);
	sc->bandwidth = bandwidths[shift % 4];
	sc->full = interval * (1 + shift);
	sc->w_past = shift & 3;
	sc->w_present = (shift >> 1) & 1;
	sc->w_future = (shift >> 2) & 3;
	memcpy(sc->thresh, thresh, sizeof(thresh));
}

static void check_sig_fig(const struct ars_sig_cfg *sc,
			  const struct ars_sig_fig *f)
{
	ASSERT(f->past <= ARS_SIG_ONE && f->present <= ARS_SIG_ONE &&
	       f->future <= ARS_SIG_ONE && f->load <= ARS_SIG_ONE);
	ASSERT(f->band <= 7 && f->band == ars_sig_band(f->load, sc->thresh));
}

static void check_sig(const struct ars_sig *s, const struct ars_sig_cfg *sc,
		      u64 now, u64 backlog, u64 head, u64 sojourn_max)
{
	struct ars_sig c = *s;
	struct ars_sig_fig f, g;
	u64 more = backlog + 1 + (backlog >> 1);

	ars_sig_read(s, sc, now, backlog, head, &f);
	ASSERT(!memcmp(&c, s, sizeof(c)));
	check_sig_fig(sc, &f);
	ASSERT(f.delay >= head);
	ASSERT(f.delay <= (head > sojourn_max ? head : sojourn_max) + 1);
	ars_sig_read(s, sc, now, more, head, &g);
	check_sig_fig(sc, &g);
	ASSERT(g.load >= f.load && g.band <= f.band);
	ars_sig_read(s, sc, now, backlog, head + 1 + (head >> 1), &g);
	check_sig_fig(sc, &g);
	ASSERT(g.load >= f.load && g.band <= f.band);
	/* quiet and empty: it only decays */
	ars_sig_read(s, sc, now, 0, 0, &f);
	ars_sig_read(s, sc, now + 1 + (head >> 2), 0, 0, &g);
	ASSERT(g.past <= f.past && g.present <= f.present &&
	       g.load <= f.load && g.band >= f.band);
}

static u64 interval_of(u64 v)
{
	return 1 + v % INTERVAL_MAX;
}

static void check_read(const struct ars_est *e, const struct ars_est_cfg *cfg,
		       u64 now, u64 backlog, u64 head, const struct bounds *b)
{
	struct ars_est c = *e;
	struct ars_est_fig f, g;

	ars_est_read(e, cfg, now, backlog, head, &f);
	ASSERT(!memcmp(&c, e, sizeof(c)));
	ASSERT(f.delay >= head);
	ASSERT(f.stalled == (head >= cfg->interval));
	/* without the head's wait: the averages alone */
	ars_est_read(e, cfg, now, backlog, 0, &f);
	ASSERT(!f.stalled);
	ASSERT(f.backlog <= (backlog > b->backlog ? backlog : b->backlog) + 1);
	ASSERT(f.delay <= b->sojourn + 1);
	ASSERT(f.rate <= ars_mul_div(b->bytes > b->window ? b->bytes :
				     b->window, ARS_NSEC_PER_SEC,
				     b->interval) + 1);
	/* a close at @now gives the same figures */
	if (ars_est_due(&c, now, cfg)) {
		ASSERT(ars_est_close(&c, cfg, now, backlog, 0));
		ars_est_read(&c, cfg, now, backlog, 0, &g);
		ASSERT(g.rate == f.rate && g.backlog == f.backlog &&
		       g.delay == f.delay);
	}
}

static void check_close(struct ars_est *e, const struct ars_est_cfg *cfg,
			u64 now, u64 backlog, u64 head, struct bounds *b)
{
	u64 start = e->start, samples = e->samples;
	bool due = ars_est_due(e, now, cfg), closed;

	if (backlog > b->backlog)
		b->backlog = backlog;
	closed = ars_est_close(e, cfg, now, backlog, head);
	ASSERT(closed == due);
	if (!closed) {
		ASSERT(e->start == start && e->samples == samples);
		return;
	}
	ASSERT(e->samples == samples + 1);
	ASSERT((e->start - start) % cfg->interval == 0);
	ASSERT(e->start <= now && now - e->start < cfg->interval);
	ASSERT(e->bytes == 0 && !e->dequeued);
	if (b->window > b->bytes)
		b->bytes = b->window;
	b->window = 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct ars_est_cfg cfg;
	struct ars_sig_cfg sc;
	struct bounds b = { 0 };
	struct ars_est e;
	struct ars_sig sig;
	u64 now = T0, backlog = 0, head = 0;
	unsigned int steps = 0;

	cfg.interval = interval_of(get(&in, 5));
	cfg.shift = get(&in, 1) % 20;
	b.interval = cfg.interval;
	ars_est_init(&e, now, &cfg);
	ASSERT(e.start == now && e.samples == 0);
	sig_cfg_of(&sc, cfg.interval, cfg.shift);
	ars_sig_init(&sig, now);

	while (in.n && steps++ < 512) {
		u8 op = get(&in, 1);
		u64 dt = get(&in, 4) << (op >> 3 & 0x1f);
		u64 len, sojourn;

		if (dt > TIME_MAX - now)
			break;
		now += dt;
		switch (op & 7) {
		case 0:		/* enqueue: the queue grows */
		case 1:
			backlog += get(&in, 2);
			if (!head || op & 0x80)
				head = get(&in, 4) % (now - T0 + 1);
			check_close(&e, &cfg, now, backlog, head, &b);
			break;
		case 2:		/* dequeue */
		case 3:
			len = get(&in, 2);
			sojourn = get(&in, 1) & 1 ? get(&in, 8) :
						    get(&in, 4) << 4;
			check_close(&e, &cfg, now, backlog, head, &b);
			ars_est_sample(&e, &cfg, len, sojourn);
			ars_sig_sample(&sig, &sc, now, len, sojourn);
			backlog = backlog > len ? backlog - len : 0;
			head = backlog ? get(&in, 3) : 0;
			/* a stall's end may cut a foreign one to below the
			 * limit: it then counts
			 */
			if (sojourn >= ARS_EST_SOJOURN_MAX)
				sojourn = ARS_EST_SOJOURN_MAX - 1;
			if (sojourn > b.sojourn)
				b.sojourn = sojourn;
			b.window += len;
			break;
		case 4:		/* a read, at the head's wait of now */
		case 5:
			check_read(&e, &cfg, now, backlog, head, &b);
			check_sig(&sig, &sc, now, backlog, head, b.sojourn);
			break;
		case 6:		/* a new interval */
			cfg.interval = interval_of(get(&in, 5));
			if (cfg.interval < b.interval)
				b.interval = cfg.interval;
			/* the open window's bytes may now be read at it */
			break;
		case 7:		/* a new shift */
			cfg.shift = get(&in, 1) % 20;
			break;
		}
	}

	/* empty and quiet: everything decays to 0 */
	{
		unsigned int shift = cfg.shift < ARS_EST_SHIFT_MAX ?
				     cfg.shift : ARS_EST_SHIFT_MAX;
		u64 later = now + (64ULL << shift) * cfg.interval;
		struct ars_est_fig f;

		check_read(&e, &cfg, now, backlog, head, &b);
		ars_est_read(&e, &cfg, later, 0, 0, &f);
		ASSERT(f.rate == 0 && f.backlog == 0 && f.delay == 0);
		ASSERT(!f.stalled);
	}
	{
		struct ars_sig_fig f;

		check_sig(&sig, &sc, now, backlog, head, b.sojourn);
		ars_sig_read(&sig, &sc, now + 64 * sc.tau, 0, 0, &f);
		ASSERT(f.rate == 0 && f.delay == 0);
		ASSERT(f.present == 0 && f.future == 0);
		if (sc.bandwidth)
			ASSERT(f.past == 0 && f.load == 0 && f.band == 7);
		else
			ASSERT(f.past == ARS_SIG_ONE / 2);
	}
	return 0;
}
