// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the port signal v3 (ars_sig_* in kmod/ars_est.c) with
 * packet-level input: 1500- and 9000-byte packets at 100G and 400G, with
 * periodic or exponential gaps, into a FIFO served at line rate, as a port
 * of sch_ars sees them. The signal must tell 10%, 50% and 90% of the line
 * rate apart in distinct bands, follow a change within a few time
 * constants, decay to the best band when the port goes quiet, and read a
 * queue that builds beyond the line rate as the worst bands.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ars_core.h"
#include "ars_est.h"

#define US		1000ULL
#define SEC		1000000000ULL
#define T0		(1000 * SEC)
#define GBIT		1000000000ULL
/*
 * SAI's default sampling interval at 400G: 800 KB of the line, 89 jumbo
 * frames. A Poisson stream's rate read over tau is off by about one over
 * the root of the packets in tau, so slower ports need a longer tau for
 * the same bands: port_init() keeps 800 KB of the line at any speed.
 */
#define TAU		(16 * US)

static const u32 thresh_default[ARS_SIG_THRESHOLDS] = ARS_SIG_THRESH_DEFAULT;

static u64 rnd64(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- a port: a FIFO served at line rate, its signal driven at dequeue */

#define QMAX	65536

struct port {
	struct ars_sig sig;
	struct ars_sig_cfg cfg;
	u64 limit;			/* bytes */
	u64 free_at;			/* the line is busy until */
	/* packets queued or in flight: arrival, start of transmission */
	u64 arr[QMAX], start[QMAX];
	u32 len[QMAX];
	unsigned int head, tail;
	u64 backlog;			/* queued, not yet dequeued */
	u64 drops;
};

static void port_init(struct port *p, u64 gbit, u64 limit)
{
	memset(p, 0, sizeof(*p));
	p->limit = limit;
	p->cfg.tau = TAU * 400 / gbit;
	p->cfg.bandwidth = gbit * GBIT;
	/* the full scale: the buffer's drain time at line rate */
	p->cfg.full = limit * 8 * SEC / p->cfg.bandwidth;
	p->cfg.w_past = ARS_SIG_W_PAST_DEFAULT;
	p->cfg.w_present = ARS_SIG_W_PRESENT_DEFAULT;
	p->cfg.w_future = ARS_SIG_W_FUTURE_DEFAULT;
	memcpy(p->cfg.thresh, thresh_default, sizeof(thresh_default));
	p->free_at = T0;
	ars_sig_init(&p->sig, T0);
}

/* Dequeue, as the qdisc does, every packet whose transmission began by @t. */
static void port_run(struct port *p, u64 t)
{
	while (p->head != p->tail && p->start[p->head % QMAX] <= t) {
		unsigned int i = p->head++ % QMAX;

		ars_sig_sample(&p->sig, &p->cfg, p->start[i], p->len[i],
			       p->start[i] - p->arr[i]);
		p->backlog -= p->len[i];
	}
}

static void port_arrive(struct port *p, u64 t, u32 len)
{
	u64 tx = (u64)len * 8 * SEC / p->cfg.bandwidth;
	unsigned int i;

	port_run(p, t);
	if (p->backlog + len > p->limit || p->tail - p->head >= QMAX) {
		p->drops++;
		return;
	}
	i = p->tail++ % QMAX;
	p->arr[i] = t;
	p->start[i] = p->free_at > t ? p->free_at : t;
	p->len[i] = len;
	p->free_at = p->start[i] + tx;
	p->backlog += len;
}

static void port_read(struct port *p, u64 t, struct ars_sig_fig *f)
{
	u64 head = 0;

	port_run(p, t);
	if (p->head != p->tail)
		head = t - p->arr[p->head % QMAX];
	ars_sig_read(&p->sig, &p->cfg, t, p->backlog, head, f);
}

/*
 * Offer @load of the line in packets of @len for @span ns from @t, reading
 * the signal @reads times, once at a random instant of each of @reads
 * slots of the last half. Returns the end; @bands counts the bands read,
 * @past sums the utilisation terms.
 */
static u64 offer(struct port *p, u64 t, u64 span, u32 len, double load,
		 bool expo, u64 *seed, unsigned int reads,
		 unsigned int *bands, double *past)
{
	u64 end = t + span, slot = reads ? span / 2 / reads : 0;
	double tf = t, mean = len * 8.0 * SEC / p->cfg.bandwidth / load;
	unsigned int r = 0;
	u64 next_read = t + span / 2 + (slot ? rnd64(seed) % slot : 0);
	struct ars_sig_fig f;

	while (tf < end) {
		while (r < reads && next_read <= (u64)tf) {
			port_read(p, next_read, &f);
			if (bands)
				bands[f.band]++;
			if (past)
				*past += f.past;
			r++;
			next_read = t + span / 2 + r * slot +
				    rnd64(seed) % slot;
		}
		port_arrive(p, (u64)tf, len);
		if (expo)
			tf += -log(((rnd64(seed) >> 11) + 1) * 0x1p-53) * mean;
		else
			tf += mean;
	}
	while (r < reads) {
		port_read(p, next_read < end ? next_read : end, &f);
		if (bands)
			bands[f.band]++;
		if (past)
			*past += f.past;
		r++;
		next_read = t + span / 2 + r * slot + rnd64(seed) % slot;
	}
	return end;
}

static unsigned int mode_of(const unsigned int *bands, unsigned int *n)
{
	unsigned int b, m = 0;

	for (b = 1; b <= 7; b++)
		if (bands[b] > bands[m])
			m = b;
	*n = bands[m];
	return m;
}

/* ---- the arithmetic */

static bool exp_neg_accuracy(void)
{
	static const u64 taus[] = { 1, 1000, 16 * US, 999983, SEC };
	double worst = 0;
	unsigned int i;
	u64 k;

	for (i = 0; i < ARRAY_SIZE(taus); i++) {
		for (k = 0; k <= 30000; k++) {
			u64 dt = taus[i] * k / 1000 + k % 7;
			double want = exp(-(double)dt / taus[i]);
			double got = ars_exp_neg(dt, taus[i]) * 0x1p-32;

			if (fabs(got - want) > worst)
				worst = fabs(got - want);
			CHECKF(fabs(got - want) <= 0x1p-20, "dt %llu tau %llu: "
			       "%.9f for %.9f", (unsigned long long)dt,
			       (unsigned long long)taus[i], got, want);
		}
	}
	CHECK(ars_exp_neg(0, 5) == 1ULL << 32);
	CHECK(ars_exp_neg(23 * 5, 5) == 0);
	/* monotone: a longer gap never keeps more */
	for (k = 1; k < 100000; k++)
		CHECK(ars_exp_neg(k, 16 * US) <= ars_exp_neg(k - 1, 16 * US));
	printf("    # exp_neg: worst error %.3g (bound 2^-20 = %.3g)\n",
	       worst, 0x1p-20);
	return true;
}

static bool band_thresholds(void)
{
	static const u32 t[ARS_SIG_THRESHOLDS] = {
		10, 20, 30, 40, 50, 60, 70 };
	unsigned int i;

	CHECK(ars_sig_band(0, t) == 7);
	CHECK(ars_sig_band(9, t) == 7);
	CHECK(ars_sig_band(10, t) == 6);
	CHECK(ars_sig_band(69, t) == 1);
	CHECK(ars_sig_band(70, t) == 0);
	CHECK(ars_sig_band(ARS_SIG_ONE, t) == 0);
	/* the defaults span all eight bands over 0..ARS_SIG_ONE */
	for (i = 0; i < ARS_SIG_THRESHOLDS; i++) {
		CHECK(thresh_default[i] > 0 && thresh_default[i] < ARS_SIG_ONE);
		CHECK(!i || thresh_default[i] > thresh_default[i - 1]);
		CHECK(ars_sig_band(thresh_default[i], thresh_default) ==
		      6 - i);
	}
	return true;
}

/* ---- steady loads at 100G and 400G */

/*
 * 10%, 50% and 90% of the line, each for 40 tau after the others (tau
 * 64 us at 100G, 16 us at 400G), read
 * 2000 times over its last 20 tau: the most frequent bands are distinct
 * and ordered, each read at least @share of the time, and the mean
 * utilisation term is the load within 1.5 points, or 5 with exponential
 * gaps (whose 20 tau hold a few thousand packets: the offered load
 * itself is off by up to 3 points there).
 */
static bool steady_at(u64 gbit, u32 len, bool expo, double share)
{
	static const double loads[] = { 0.1, 0.5, 0.9 };
	static struct port p;
	unsigned int mode[3], i;
	u64 seed = 0x2545f4914f6cdd1dULL ^ (gbit * len + expo);
	u64 t = T0;

	port_init(&p, gbit, 500000);
	for (i = 0; i < ARRAY_SIZE(loads); i++) {
		unsigned int bands[8] = { 0 }, n;
		double past = 0;

		t = offer(&p, t, 40 * p.cfg.tau, len, loads[i], expo, &seed, 2000,
			  bands, &past);
		mode[i] = mode_of(bands, &n);
		past /= 2000.0 * ARS_SIG_ONE;
		printf("    # %3llu G %4u B %s %2.0f%%: band %u (%u/2000), "
		       "bands 7..0 %u %u %u %u %u %u %u %u, mean util %.4f\n",
		       (unsigned long long)gbit, len, expo ? "expo" : "peri",
		       loads[i] * 100, mode[i], n, bands[7], bands[6],
		       bands[5], bands[4], bands[3], bands[2], bands[1],
		       bands[0], past);
		CHECKF(n >= share * 2000, "band %u read %u times", mode[i], n);
		CHECKF(fabs(past - loads[i]) <= (expo ? 0.05 : 0.015),
		       "util %.4f for %.2f",
		       past, loads[i]);
		CHECK(!i || mode[i] < mode[i - 1]);
	}
	CHECK(p.drops == 0);
	return true;
}

static bool steady_100g(void)
{
	return steady_at(100, 1500, false, 0.99) &&
	       steady_at(100, 9000, false, 0.99) &&
	       steady_at(100, 1500, true, 0.8) &&
	       steady_at(100, 9000, true, 0.6);
}

static bool steady_400g(void)
{
	return steady_at(400, 1500, false, 0.99) &&
	       steady_at(400, 9000, false, 0.99) &&
	       steady_at(400, 1500, true, 0.8) &&
	       steady_at(400, 9000, true, 0.6);
}

/*
 * The case: at 400G with 9000-byte frames, ars_est's 2 us window
 * holds 11 frames at most; here the mean utilisation follows the load in
 * 5% steps to within half a point, so the signal has no coarse levels.
 */
static bool resolution_400g(void)
{
	static struct port p;
	u64 seed = 7, t = T0;
	unsigned int k;

	port_init(&p, 400, 500000);
	for (k = 1; k <= 19; k++) {
		double past = 0;

		t = offer(&p, t, 20 * TAU, 9000, k * 0.05, false, &seed, 500,
			  NULL, &past);
		past /= 500.0 * ARS_SIG_ONE;
		CHECKF(fabs(past - k * 0.05) <= 0.005, "util %.4f for %.2f",
		       past, k * 0.05);
	}
	return true;
}

/* ---- time */

/*
 * From idle to 50% at 400G: the utilisation term is below 65% of the
 * load after 1 tau, 95% of it within 3 tau +- a frame's share, and the
 * load within 1% after 5 tau: it follows exp(-t / tau), in ns, whatever
 * the packet rate.
 */
static bool converges_in_tau(void)
{
	static const struct { u64 at; double lo, hi; } want[] = {
		{ 1 * TAU, 0.60, 0.65 },	/* 1 - e^-1 = 0.632 */
		{ 3 * TAU, 0.93, 0.97 },	/* 1 - e^-3 = 0.950 */
		{ 5 * TAU, 0.98, 1.01 },	/* 1 - e^-5 = 0.993 */
	};
	static struct port p;
	u64 seed = 11;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct ars_sig_fig f;
		double u;

		port_init(&p, 400, 500000);
		offer(&p, T0, want[i].at, 1500, 0.5, false, &seed, 0, NULL,
		      NULL);
		port_read(&p, T0 + want[i].at, &f);
		u = f.past / (0.5 * ARS_SIG_ONE);
		CHECKF(u >= want[i].lo && u <= want[i].hi,
		       "%.3f of the load after %llu ns", u,
		       (unsigned long long)want[i].at);
	}
	return true;
}

/*
 * A port at 90% goes quiet: every term decays without a sample, the band
 * improves step by step, never worsens, and is the best within 3 tau.
 */
static bool quiet_decays_to_best(void)
{
	static struct port p;
	struct ars_sig_fig f, g;
	u64 seed = 13, t, k;

	port_init(&p, 400, 500000);
	t = offer(&p, T0, 40 * TAU, 9000, 0.9, true, &seed, 0, NULL, NULL);
	port_read(&p, t, &f);
	CHECK(f.band <= 2);
	for (k = 1; k <= 300; k++) {
		port_read(&p, t + k * TAU / 100, &g);
		CHECK(g.load <= f.load && g.band >= f.band);
		f = g;
	}
	CHECKF(f.band == 7, "band %u load %u after 3 tau", f.band, f.load);
	port_read(&p, t + 30 * TAU, &g);
	CHECK(g.past == 0 && g.present == 0 && g.future == 0 && g.rate == 0);
	return true;
}

/* A reader whose clock lags the last departure reads it, not a wrap. */
static bool read_lagging_clock(void)
{
	struct ars_sig_cfg cfg = {
		.tau = TAU, .bandwidth = 400 * GBIT, .full = 10 * US,
		.w_past = 1, .thresh = ARS_SIG_THRESH_DEFAULT,
	};
	struct ars_sig_fig f, g;
	struct ars_sig s;

	ars_sig_init(&s, T0);
	ars_sig_sample(&s, &cfg, T0 + US, 9000, 0);
	ars_sig_read(&s, &cfg, T0 + US, 0, 0, &f);
	ars_sig_read(&s, &cfg, T0, 0, 0, &g);
	CHECK(f.past == g.past && f.past > 0);
	/* a departure stamped before the last one counts at the last */
	ars_sig_sample(&s, &cfg, T0, 9000, 0);
	ars_sig_read(&s, &cfg, T0 + US, 0, 0, &g);
	CHECK(g.rate >= 2 * f.rate - 1 && g.rate <= 2 * f.rate + 1);
	return true;
}

/* ---- queues */

/*
 * 100G, 1500-byte packets at 110% of the line with a 500 KB buffer (the
 * full scale, 40 us): the queue builds, the band worsens from the 90%
 * band to 0 as it does, and never gets better while it builds.
 */
static bool queue_builds(void)
{
	static struct port p;
	struct ars_sig_fig f;
	unsigned int b90, n, prev = 7;
	unsigned int bands[8] = { 0 };
	u64 seed = 17, t;

	port_init(&p, 100, 500000);
	t = offer(&p, T0, 40 * p.cfg.tau, 1500, 0.9, false, &seed, 1000,
		  bands, NULL);
	b90 = mode_of(bands, &n);
	port_read(&p, t, &f);
	CHECK(f.future < ARS_SIG_ONE / 100);
	/* 10% more than the line: 1.25 GB/s, the buffer fills in 400 us */
	while (!p.drops) {
		u64 end = t + 10 * US;

		t = offer(&p, t, 10 * US, 1500, 1.1, false, &seed, 0, NULL,
			  NULL);
		t = end;
		port_read(&p, t, &f);
		CHECKF(f.band <= prev || p.drops, "band %u after %u",
		       f.band, prev);
		prev = f.band;
	}
	printf("    # 110%%: full after %llu us, band %u (%u at 90%%), "
	       "terms %u %u %u\n", (unsigned long long)(t - T0) / US - 2560,
	       f.band, b90, f.past, f.present, f.future);
	CHECK(f.band == 0 && b90 > 0);
	CHECK(f.future >= ARS_SIG_ONE * 99 / 100);
	CHECK(f.present >= ARS_SIG_ONE / 2);
	return true;
}

/* The line rate unknown: the utilisation reads half, the delay counts. */
static bool unknown_bandwidth(void)
{
	struct ars_sig_cfg cfg = {
		.tau = TAU, .full = 10 * US, .w_past = 1, .w_present = 1,
		.thresh = ARS_SIG_THRESH_DEFAULT,
	};
	struct ars_sig_fig f;
	struct ars_sig s;

	ars_sig_init(&s, T0);
	ars_sig_read(&s, &cfg, T0, 100000, 20 * US, &f);
	CHECK(f.past == ARS_SIG_ONE / 2 && f.future == 0);
	CHECK(f.present == ARS_SIG_ONE && f.delay == 20 * US);
	CHECK(f.load == ARS_SIG_ONE * 3 / 4 && f.band == 0);
	/* all weights 0: the utilisation alone */
	cfg.w_past = cfg.w_present = 0;
	ars_sig_read(&s, &cfg, T0, 100000, 20 * US, &f);
	CHECK(f.load == ARS_SIG_ONE / 2);
	return true;
}

/* 1.6 Tbit/s for ARS_SIG_TAU_MAX, read at once: no overflow. */
static bool no_overflow(void)
{
	struct ars_sig_cfg cfg = {
		.tau = ARS_SIG_TAU_MAX, .bandwidth = 1600 * GBIT,
		.full = 1 * SEC, .w_past = 1, .w_present = 1, .w_future = 1,
		.thresh = ARS_SIG_THRESH_DEFAULT,
	};
	struct ars_sig_fig f;
	struct ars_sig s;
	u64 t;

	ars_sig_init(&s, T0);
	for (t = 0; t < 10 * SEC; t += 1000000)
		ars_sig_sample(&s, &cfg, T0 + t, 200000000, 1000000000);
	ars_sig_read(&s, &cfg, T0 + t, 200000000000ULL, 0, &f);
	CHECKF(f.past >= ARS_SIG_ONE * 99 / 100 && f.past <= ARS_SIG_ONE,
	       "%u", f.past);
	CHECK(f.future == ARS_SIG_ONE && f.band == 0);
	CHECKF(f.rate >= 199000000000ULL && f.rate <= 201000000000ULL, "%llu",
	       (unsigned long long)f.rate);
	return true;
}

/*
 * What sch_ars publishes for the data plane under signal v3: for every
 * band of every port of a route of one speed, ars_path_band() gives the
 * band back, at every rate-weight and full-scale delay.
 */
static bool path_figures_round_trip(void)
{
	static const u64 fulls[] = { 1000, 10000, ARS_DELAY_FULL_NS, SEC };
	unsigned int f, w, b, other;

	for (f = 0; f < ARRAY_SIZE(fulls); f++)
		for (w = 0; w <= 100; w += 5)
			for (b = 0; b <= 7; b++)
				for (other = 0; other <= 7; other++) {
					struct ars_route_load rl = {
						.rate_weight = w,
						.delay_full = fulls[f],
					};
					struct ars_path_load pl = {
						.bandwidth = 400 * GBIT,
					}, po = pl;

					ars_sig_path_figures(b, fulls[f],
							     &pl.util,
							     &pl.delay);
					ars_sig_path_figures(other, fulls[f],
							     &po.util,
							     &po.delay);
					ars_route_load_add(&rl, &pl);
					ars_route_load_add(&rl, &po);
					CHECKF(ars_path_band(&pl, &rl) == b,
					       "band %u next to %u, weight %u, "
					       "full %llu: %u", b, other, w,
					       (unsigned long long)fulls[f],
					       ars_path_band(&pl, &rl));
				}
	return true;
}

static const struct unit_test tests[] = {
	UNIT_TEST(exp_neg_accuracy),
	UNIT_TEST(band_thresholds),
	UNIT_TEST(steady_100g),
	UNIT_TEST(steady_400g),
	UNIT_TEST(resolution_400g),
	UNIT_TEST(converges_in_tau),
	UNIT_TEST(quiet_decays_to_best),
	UNIT_TEST(read_lagging_clock),
	UNIT_TEST(queue_builds),
	UNIT_TEST(unknown_bandwidth),
	UNIT_TEST(no_overflow),
	UNIT_TEST(path_figures_round_trip),
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
