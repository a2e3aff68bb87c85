// SPDX-License-Identifier: GPL-2.0
/*
 * The port estimator; see ars_est.h for the contract.
 *
 * Built into ars.ko and, unchanged, on the host: it includes nothing but
 * ars_est.h and calls nothing but ars_div64().
 */
#include "ars_est.h"

#define ARS_ONE		(1ULL << 32)	/* 1 in the decay's fixed point */
#define ARS_U64_MAX	(~0ULL)

/* @a * @b as a 128-bit @hi:@lo, from 32-bit halves. */
static void ars_mul128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

u64 ars_mul_div(u64 a, u64 b, u64 c)
{
	u64 hi, lo;
	unsigned int i;

	ars_mul128(a, b, &hi, &lo);
	if (!hi)
		return ars_div64(lo, c);
	if (hi >= c)
		return ARS_U64_MAX;
	/*
	 * Rare (a rate beyond 147 Gbit/s over a 1 s window): shift and
	 * subtract, the remainder in @hi (< @c) and the quotient's bits
	 * entering @lo. A remainder that overflows 64 bits is >= @c.
	 */
	for (i = 0; i < 64; i++) {
		bool carry = hi >> 63;

		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		if (carry || hi >= c) {
			hi -= c;
			lo |= 1;
		}
	}
	return lo;
}

/* @a * @f / 2^32 for @f <= 2^32, without overflow. */
static u64 ars_mul_frac(u64 a, u64 f)
{
	return (a >> 32) * f + (((a & 0xffffffffULL) * f) >> 32);
}

/* (1 - 2^-shift)^n in units of 2^-32, by squaring: what is left of an
 * average after n samples at 0.
 */
static u64 ars_decay(u64 n, unsigned int shift)
{
	u64 base = ARS_ONE - (ARS_ONE >> shift);
	u64 f = ARS_ONE;

	for (; n && f; n >>= 1) {
		if (n & 1)
			f = (f * base) >> 32;
		base = (base * base) >> 32;
	}
	return f;
}

/*
 * An average that kept @f of itself, the rest from @sample (both scaled):
 * it moves by 1 - @f of the difference, so a constant sample is a fixed
 * point.
 */
static u64 ars_blend(u64 avg, u64 sample, u64 f)
{
	if (sample >= avg)
		return avg + ars_mul_frac(sample - avg, ARS_ONE - f);
	return avg - ars_mul_frac(avg - sample, ARS_ONE - f);
}

/* @v scaled by 2^@shift, saturating. */
static u64 ars_scale_up(u64 v, unsigned int shift)
{
	return v > ARS_U64_MAX >> shift ? ARS_U64_MAX : v << shift;
}

/* An average scaled by 2^@from, scaled by 2^@to instead. */
static u64 ars_rescale(u64 v, unsigned int from, unsigned int to)
{
	return to >= from ? ars_scale_up(v, to - from) : v >> (from - to);
}

/* The figure of a scaled average, rounded to nearest. */
static u64 ars_unscale(u64 v, unsigned int shift)
{
	return shift ? (v >> shift) + ((v >> (shift - 1)) & 1) : v;
}

static unsigned int ars_est_shift(const struct ars_est_cfg *cfg)
{
	return cfg->shift < ARS_EST_SHIFT_MAX ? cfg->shift : ARS_EST_SHIFT_MAX;
}

/* The scaled averages of @e, at the scale of @cfg. */
static void ars_est_avgs(const struct ars_est *e, unsigned int shift,
			 struct ars_est_fig *a)
{
	unsigned int from = READ_ONCE(e->shift);

	a->rate = ars_rescale(READ_ONCE(e->rate), from, shift);
	a->backlog = ars_rescale(READ_ONCE(e->backlog), from, shift);
	a->delay = ars_rescale(READ_ONCE(e->delay), from, shift);
}

/*
 * The scaled averages, @a, after closing at @now the window that opened at
 * @e->start, n >= 1 whole intervals ago (see ars_est.h).
 */
static void ars_est_at(const struct ars_est *e, const struct ars_est_cfg *cfg,
		       unsigned int shift, u64 n, u64 backlog,
		       struct ars_est_fig *a)
{
	u64 rate;

	ars_est_avgs(e, shift, a);
	/* bytes * 2^shift * NSEC_PER_SEC / interval: the scaled sample */
	rate = ars_mul_div(READ_ONCE(e->bytes), ARS_NSEC_PER_SEC << shift,
			   cfg->interval);
	a->rate = ars_mul_frac(ars_blend(a->rate, rate, ars_decay(1, shift)),
			       ars_decay(n - 1, shift));
	a->backlog = ars_blend(a->backlog, ars_scale_up(backlog, shift),
			       ars_decay(n, shift));
	if (!backlog)
		a->delay = ars_mul_frac(a->delay,
					ars_decay(n - READ_ONCE(e->dequeued),
						  shift));
}

void ars_est_init(struct ars_est *e, u64 now, const struct ars_est_cfg *cfg)
{
	*e = (struct ars_est){
		.start = now,
		.shift = ars_est_shift(cfg),
	};
}

bool ars_est_close(struct ars_est *e, const struct ars_est_cfg *cfg, u64 now,
		   u64 backlog, u64 head)
{
	unsigned int shift = ars_est_shift(cfg);
	struct ars_est_fig a;
	u64 n;

	e->last = now;
	e->last_head = head;
	if (!ars_est_due(e, now, cfg))
		return false;
	n = ars_div64(now - e->start, cfg->interval);
	ars_est_at(e, cfg, shift, n, backlog, &a);
	WRITE_ONCE(e->shift, shift);
	WRITE_ONCE(e->rate, a.rate);
	WRITE_ONCE(e->backlog, a.backlog);
	WRITE_ONCE(e->delay, a.delay);
	/* On the interval grid: the windows tile time without gaps. */
	WRITE_ONCE(e->start, e->start + n * cfg->interval);
	WRITE_ONCE(e->bytes, 0);
	WRITE_ONCE(e->dequeued, false);
	WRITE_ONCE(e->samples, e->samples + 1);
	return true;
}

void ars_est_sample(struct ars_est *e, const struct ars_est_cfg *cfg,
		    u64 bytes, u64 sojourn)
{
	unsigned int shift = ars_est_shift(cfg);

	if (shift != e->shift) {
		WRITE_ONCE(e->rate, ars_rescale(e->rate, e->shift, shift));
		WRITE_ONCE(e->backlog, ars_rescale(e->backlog, e->shift,
						   shift));
		WRITE_ONCE(e->delay, ars_rescale(e->delay, e->shift, shift));
		WRITE_ONCE(e->shift, shift);
	}
	/*
	 * This packet leaves a stall: later sojourns count from here, plus
	 * what the queue held a packet before it. A delay line (netem) whose
	 * timer fired late holds each packet its delay: those the stall
	 * released keep that wait, and only the lateness goes.
	 */
	if (e->last_head >= cfg->interval) {
		e->resumed = e->last - (e->held < e->last ? e->held : e->last);
		e->stalled_once = true;
	}
	e->last_head = 0;
	if (e->stalled_once && sojourn > e->last - e->resumed)
		sojourn = e->last - e->resumed;
	if (sojourn < ARS_EST_SOJOURN_MAX) {
		e->held = sojourn;
		WRITE_ONCE(e->delay, ars_ewma(e->delay, sojourn, shift));
	}
	WRITE_ONCE(e->bytes, e->bytes + bytes);
	WRITE_ONCE(e->dequeued, true);
}

void ars_est_read(const struct ars_est *e, const struct ars_est_cfg *cfg,
		  u64 now, u64 backlog, u64 head, struct ars_est_fig *fig)
{
	unsigned int shift = ars_est_shift(cfg);
	u64 start = READ_ONCE(e->start);
	struct ars_est_fig a;
	u64 n = 0;

	/* A reader's clock may lag the window a close just opened. */
	if ((s64)(now - start) > 0)
		n = ars_div64(now - start, cfg->interval);
	if (!n)
		ars_est_avgs(e, shift, &a);
	else
		ars_est_at(e, cfg, shift, n, backlog, &a);
	fig->rate = ars_unscale(a.rate, shift);
	fig->backlog = ars_unscale(a.backlog, shift);
	fig->delay = ars_unscale(a.delay, shift);
	if (fig->delay < head)
		fig->delay = head;
	fig->stalled = head >= cfg->interval;
}

/* ---- the port signal v3; see ars_est.h ---- */

#define ARS_SIG_SCALE		16	/* the averages' fraction bits */
#define ARS_LOG2E_Q24		24204406ULL	/* log2(e) * 2^24 */
#define ARS_LN2_Q32		2977044472ULL	/* ln(2) * 2^32 */
/* bit/s times ns over this: bytes */
#define ARS_BIT_NS		(8 * ARS_NSEC_PER_SEC)

/* 2^(-j/16) in units of 2^-32. */
static const u32 ars_exp2_sixteenths[16] = {
	0xffffffff, 4112874773U, 3938502376U, 3771522796U,
	3611622603U, 3458501653U, 3311872529U, 3171459999U,
	3037000500U, 2908241642U, 2784941738U, 2666869345U,
	2553802834U, 2445529972U, 2341847524U, 2242560872U,
};

/*
 * exp(-x) = 2^-(x log2 e): whole powers of two by shifting, sixteenths
 * from the table, and what is left (u < ln 2 / 16) by its series to
 * u^3, whose error, u^4 / 24, is below 2^-22.
 */
u64 ars_exp_neg(u64 dt, u64 tau)
{
	u64 x, y, rem, u, u2, p, t;
	unsigned int k;

	if (!dt)
		return ARS_ONE;
	if (dt >= 23 * tau)
		return 0;
	x = ars_mul_div(dt, 1ULL << 24, tau);	/* dt / tau, < 23 * 2^24 */
	y = (x * ARS_LOG2E_Q24) >> 24;		/* in powers of 2 */
	k = y >> 24;
	if (k >= 32)
		return 0;
	t = y & ((1ULL << 24) - 1);
	rem = t & ((1ULL << 20) - 1);
	u = (rem * ARS_LN2_Q32) >> 24;		/* < 2^28 */
	u2 = (u * u) >> 32;
	/* u^3 < 2^19: a 32-bit division */
	p = ARS_ONE - u + (u2 >> 1) - (u32)((u2 * u) >> 32) / 6;
	/* the table's 2^-0 is 1 - 2^-32, so no product reaches 2^64 */
	return ((ars_exp2_sixteenths[t >> 20] * p) >> 32) >> k;
}

u8 ars_sig_band(u32 load, const u32 *thresh)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARS_SIG_THRESHOLDS; i++)
		n += load >= thresh[i];
	return ARS_SIG_THRESHOLDS - n;
}

void ars_sig_init(struct ars_sig *s, u64 now)
{
	*s = (struct ars_sig){ .last = now };
}

static u64 ars_sig_tau(const struct ars_sig_cfg *cfg)
{
	if (!cfg->tau)
		return 1;
	return cfg->tau < ARS_SIG_TAU_MAX ? cfg->tau : ARS_SIG_TAU_MAX;
}

/* What is left at @now of the averages of the last departure. */
static u64 ars_sig_decay(const struct ars_sig *s, const struct ars_sig_cfg *cfg,
			 u64 now)
{
	u64 last = READ_ONCE(s->last);

	/* a reader's clock may lag the last departure */
	if ((s64)(now - last) <= 0)
		return ARS_ONE;
	return ars_exp_neg(now - last, ars_sig_tau(cfg));
}

void ars_sig_sample(struct ars_sig *s, const struct ars_sig_cfg *cfg, u64 now,
		    u64 bytes, u64 sojourn)
{
	u64 f = ars_sig_decay(s, cfg, now);

	/* a byte sum of a 1 Tbit/s port over ARS_SIG_TAU_MAX fits 2^53 */
	WRITE_ONCE(s->bytes, ars_mul_frac(s->bytes, f) +
		   ars_scale_up(bytes, ARS_SIG_SCALE));
	if (sojourn < ARS_EST_SOJOURN_MAX)
		WRITE_ONCE(s->delay,
			   ars_blend(s->delay, sojourn << ARS_SIG_SCALE, f));
	if ((s64)(now - s->last) > 0)
		WRITE_ONCE(s->last, now);
}

/* @v / @full in 1/ARS_SIG_ONE, capped at ARS_SIG_ONE; @full 0 reads full. */
static u32 ars_sig_share(u64 v, u64 full)
{
	if (!full || v >= full)
		return v ? ARS_SIG_ONE : 0;
	return (u32)ars_mul_div(v, ARS_SIG_ONE, full);
}

void ars_sig_read(const struct ars_sig *s, const struct ars_sig_cfg *cfg,
		  u64 now, u64 backlog, u64 head, struct ars_sig_fig *fig)
{
	u64 f = ars_sig_decay(s, cfg, now), tau = ars_sig_tau(cfg);
	u64 bytes = ars_mul_frac(READ_ONCE(s->bytes), f);
	u64 delay = READ_ONCE(s->delay);

	/* the byte sum over tau, at steady rate R: R * tau * (1 + O(len)) */
	fig->rate = ars_mul_div(bytes, ARS_NSEC_PER_SEC,
				tau << ARS_SIG_SCALE);
	if (!backlog)
		delay = ars_mul_frac(delay, f);
	fig->delay = ars_unscale(delay, ARS_SIG_SCALE);
	if (fig->delay < head)
		fig->delay = head;

	if (cfg->bandwidth) {
		/* bytes the line carries in tau, and in @full */
		fig->past = ars_sig_share(bytes,
			ars_mul_div(tau << ARS_SIG_SCALE, cfg->bandwidth,
				    ARS_BIT_NS));
		fig->future = ars_sig_share(backlog,
			ars_mul_div(cfg->full, cfg->bandwidth,
				    ARS_BIT_NS));
	} else {
		/* unknown line rate: half busy, and the delay tells the queue */
		fig->past = ARS_SIG_ONE / 2;
		fig->future = 0;
	}
	ars_sig_finish(cfg, fig);
}

void ars_sig_finish(const struct ars_sig_cfg *cfg, struct ars_sig_fig *fig)
{
	u64 w, sum;

	fig->present = ars_sig_share(fig->delay, cfg->full);
	w = (u64)cfg->w_past + cfg->w_present + cfg->w_future;
	if (!w) {
		fig->load = fig->past;
	} else {
		sum = (u64)cfg->w_past * fig->past +
		      (u64)cfg->w_present * fig->present +
		      (u64)cfg->w_future * fig->future;
		fig->load = (u32)ars_div64(sum, w);
	}
	fig->band = ars_sig_band(fig->load, cfg->thresh);
}
