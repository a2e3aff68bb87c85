// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/ars_core.c, its decision path (ars_step.c)
 * and the remote-congestion scores (ars_remote.c).
 *
 * The input describes a route (kernel-balanced or raw uppers, weights,
 * dead paths, bands, including out-of-contract values) and a context,
 * then a sequence of operations: packets on a few macro-flow entries with
 * arbitrary time steps (forwards across the 40-bit wrap, or slightly
 * backwards as a racing CPU would see) and two route keys (tags), path
 * deaths and revivals (seen by the generation or not), route changes
 * (next hops deleted, appended, reordered, moved to another device),
 * generation and band changes, checks of the bucket hash and the quality
 * formulas, and credits and reads of remote scores. After each step the invariants are checked: the
 * contracts of ars_core.h, by properties rather than by the core's own
 * arithmetic (a choice is a usable path, by weight: its distribution over
 * many keys or random numbers; round-robin's exact counts; the band's
 * range, monotonicity and fixed points; the steering hash against the
 * kernel's selection in route_model.h), and the flowlet rules written out
 * plainly; any violation aborts. ASan and UBSan watch for memory errors
 * and undefined behaviour.
 *
 * Layout: flags, n, gen, mode, idle, start time, n paths, then operations;
 * missing bytes read as zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route_model.h"
#include "step_decide.h"

/* No port is measured: step_decide() hands the step its bands. */
#include "env_none.h"

#define FLAG_RAW_UPPERS	0x01	/* uppers from the input, not balanced */
#define FLAG_ANY_IDLE	0x02	/* idle outside the profile's limits */
#define FLAG_ANY_WEIGHT	0x04	/* weights 0..65535, 0 included */
#define NENTRIES	4

typedef unsigned __int128 u128;

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

static unsigned int npaths(const struct ars_route *r)
{
	return r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
}

static bool usable(const struct ars_route *r, unsigned int i)
{
	return i < npaths(r) && r->path[i].upper >= 0;
}

/*
 * Samples for the distribution checks: splitmix64, seeded by the input, so
 * that a failure replays.
 */
static u64 sample_state;

static u32 sample32(void)
{
	u64 z = (sample_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31)) >> 32;
}

static bool mode_quality(u8 mode)
{
	return mode == ARS_MODE_PACKET_QUALITY ||
	       mode == ARS_MODE_FLOWLET_QUALITY;
}

/*
 * The paths ars_choose() may take in @mode (usable ones; of those, for the
 * quality modes, the ones of the best band), their weights in @w and the
 * total, which is 0 when there is none. *@in_contract is false when one
 * of them has weight 0, which the header rules out.
 */
static u64 candidates(const struct ars_route *r, u8 mode, u64 *w,
		      bool *in_contract)
{
	unsigned int i, best = 0;
	u64 total = 0;

	*in_contract = true;
	for (i = 0; i < npaths(r); i++)
		if (usable(r, i) && r->path[i].band > best)
			best = r->path[i].band;
	for (i = 0; i < ARS_MAX_PATHS; i++) {
		w[i] = 0;
		if (!usable(r, i) ||
		    (mode_quality(mode) && r->path[i].band != best))
			continue;
		w[i] = r->path[i].weight;
		if (!w[i]) {
			*in_contract = false;
			w[i] = 1;
		}
		total += w[i];
	}
	return total;
}

/*
 * ars_choose() for one packet: a path it may take, or none when no path is
 * usable, and a function of the one input its mode draws on (the key for
 * ecmp and fixed, the random number for the random and quality modes, the
 * ticket for round-robin) and of nothing else.
 */
static u8 check_choose(const struct ars_route *r, const struct ars_ctx *c)
{
	u8 p = ars_choose(r, c);
	struct ars_ctx d = *c;
	u64 w[ARS_MAX_PATHS];
	bool in_contract;

	ASSERT(p == ARS_PATH_NONE || usable(r, p));
	if (c->mode > ARS_MODE_MAX)
		return p;	/* unknown: any harmless answer */
	if (!candidates(r, c->mode, w, &in_contract)) {
		ASSERT(p == ARS_PATH_NONE);
		return p;
	}
	ASSERT(p != ARS_PATH_NONE && w[p]);
	d.now = ~c->now;
	d.idle = c->idle ^ 0x5555;
	switch (c->mode) {
	case ARS_MODE_ECMP:
	case ARS_MODE_FIXED:
		d.rand = ~c->rand;
		d.ticket = c->ticket + 0x12345;
		break;
	case ARS_MODE_PACKET_ROUNDROBIN:
		d.key = ~c->key;
		d.rand = ~c->rand;
		break;
	default:
		d.key = ~c->key;
		d.ticket = c->ticket + 0x12345;
		break;
	}
	ASSERT(ars_choose(r, &d) == p);
	return p;
}

/*
 * "By weight": over DIST_SAMPLES uniform keys (ecmp, fixed) or random
 * numbers (random and quality modes), each candidate's share is its weight
 * over the total, within 8 standard deviations of the binomial count plus
 * 8 (so that rare paths of a large total never fail by chance: the
 * probability of a false alarm is far below 1e-12 per check); other paths
 * get nothing. Round-robin: any total-weight consecutive tickets (also
 * across 2^32, where a 32-bit ticket would wrap) visit each candidate
 * exactly its weight times.
 */
#define DIST_SAMPLES	1024

static void check_distribution(const struct ars_route *r, u8 mode)
{
	static u32 count[ARS_MAX_PATHS];
	u64 w[ARS_MAX_PATHS], total;
	struct ars_ctx c = { .mode = mode };
	unsigned int i, s, n;
	bool in_contract;
	u64 t0;

	total = candidates(r, mode, w, &in_contract);
	if (!total || !in_contract)
		return;
	memset(count, 0, sizeof(count));
	if (mode == ARS_MODE_PACKET_ROUNDROBIN) {
		if (total > 4 * DIST_SAMPLES)
			return;
		t0 = sample32();
		n = total;
		for (s = 0; s < n; s++) {
			c.ticket = t0 + s;
			c.key = sample32();
			c.rand = sample32();
			count[ars_choose(r, &c) & (ARS_MAX_PATHS - 1)]++;
		}
		for (i = 0; i < ARS_MAX_PATHS; i++)
			ASSERT(count[i] == w[i]);
		return;
	}
	n = DIST_SAMPLES;
	for (s = 0; s < n; s++) {
		c.key = sample32();
		c.rand = sample32();
		c.ticket = sample32();
		count[ars_choose(r, &c) & (ARS_MAX_PATHS - 1)]++;
	}
	for (i = 0; i < ARS_MAX_PATHS; i++) {
		double p = (double)w[i] / (double)total;
		double want = n * p, sd = __builtin_sqrt(n * p * (1 - p));
		double d = count[i] - want;

		ASSERT((d < 0 ? -d : d) <= 8 * sd + 8);
	}
}

/*
 * The steering hash spreads keys over the whole range of the path: about
 * half of the hashes land in its lower half.
 */
static void check_steer_spread(const struct ars_route *r, unsigned int i)
{
	s64 lo = 0, hi;
	unsigned int j, s, low = 0;

	if (!usable(r, i))
		return;
	for (j = 0; j < i; j++)
		if (usable(r, j))
			lo = (s64)r->path[j].upper + 1;
	hi = r->path[i].upper;
	if (hi - lo < 1024)
		return;
	for (s = 0; s < 256; s++)
		low += (s64)(ars_steer_hash(r, i, sample32()) >> 1) <=
		       lo + (hi - lo) / 2;
	/* 128 expected, standard deviation 8: 8 of them, and 8 */
	ASSERT(low >= 128 - 72 && low <= 128 + 72);
}

/* The input's route, in its mode (samples cost: one mode per input). */
static void check_route_contracts(const struct ars_route *r, u8 mode)
{
	unsigned int i;

	check_distribution(r, mode);
	i = sample32() % ARS_MAX_PATHS;
	if (i < npaths(r))
		check_steer_spread(r, i);
}

static bool ref_active(u64 state, u64 now, u64 idle)
{
	u64 t = ars_flow_time(state);
	u64 n = (now >> ARS_TIME_SHIFT) & ARS_TIME_MASK;
	u64 fwd = (n - t) & ARS_TIME_MASK, back = (t - n) & ARS_TIME_MASK;

	return (fwd << ARS_TIME_SHIFT) <= idle ||
	       (back << ARS_TIME_SHIFT) <= idle;
}

/* Uppers of usable paths strictly increase: the kernel's own layout. */
static bool monotonic(const struct ars_route *r)
{
	s64 last = -1;
	unsigned int i;

	for (i = 0; i < npaths(r); i++) {
		if (!usable(r, i))
			continue;
		if (r->path[i].upper <= last)
			return false;
		last = r->path[i].upper;
	}
	return true;
}

static void check_steer(const struct ars_route *r, unsigned int i, u32 key)
{
	u32 h = ars_steer_hash(r, i, key);
	s64 lo = 0;
	unsigned int j;

	if (!usable(r, i)) {
		ASSERT(h == key);
		return;
	}
	for (j = 0; j < i; j++)
		if (usable(r, j))
			lo = (s64)r->path[j].upper + 1;
	if (lo > r->path[i].upper) {
		ASSERT(h == key);
		return;
	}
	ASSERT(h != 0);
	ASSERT((s64)(h >> 1) >= lo && (s64)(h >> 1) <= r->path[i].upper);
	if (monotonic(r))
		ASSERT(model_select(r, h) == (int)i);
}

/* ars_route_find() as the header describes it: the hint first. */
static u8 ref_find(const struct ars_route *r, u8 hint, u32 dev)
{
	unsigned int i;

	if (usable(r, hint) && r->path[hint].dev == dev)
		return hint;
	for (i = 0; i < npaths(r); i++)
		if (usable(r, i) && r->path[i].dev == dev)
			return i;
	return ARS_PATH_NONE;
}

/*
 * One packet through the data plane's decision path (step_decide(): the
 * fast path, ars_step(), ars_step_commit()), against the contract. @fresh: the
 * entry was last written under the current route, so that its stored path
 * and hash are the route's. Returns true when the entry was rewritten
 * whole (its path, hash and device are the current route's).
 */
static bool check_decide(struct ars_flow *f, const struct ars_route *r,
			 const struct ars_ctx *c, bool fresh)
{
	struct ars_flow before = *f;
	u16 gen = ars_flow_gen(before.state);
	u8 old = gen ? ars_flow_path(before.state) : ARS_PATH_NONE;
	bool own = before.tag == c->tag;
	bool active = ref_active(before.state, c->now, c->idle);
	u64 fwd = ars_flow_age(before.state, c->now);
	u8 want = check_choose(r, c), path, reason = ARS_REASON_NEW, write;
	bool starts = true;	/* a flowlet starts, for @reason */
	struct ars_ctx ecmp = *c;
	struct ars_result res;
	bool set, fast;
	u32 h = 0;

	fast = ars_flowlet_fast(f, c);
	ASSERT(!memcmp(f, &before, sizeof(*f)));
	set = step_decide(f, r, c, &res, &h);
	ASSERT(set == (res.path != ARS_PATH_NONE));

	if (c->mode != ARS_MODE_FLOWLET_RANDOM &&
	    c->mode != ARS_MODE_FLOWLET_QUALITY) {
		ASSERT(res.path == want && !res.assigned);
		ASSERT(res.reason == ARS_REASON_PACKET);
		ASSERT(res.old_path == ARS_PATH_NONE);
		ASSERT(res.write == ARS_WRITE_NONE);
		ASSERT(!memcmp(f, &before, sizeof(*f)));
		goto steer;
	}

	ASSERT(fast == (gen == c->gen && own &&
			fwd <= c->idle >> ARS_REFRESH_SHIFT));
	if (fast) {
		/* from the entry alone: nothing written */
		ASSERT(set && h == before.hash);
		ASSERT(res.path == ars_flow_path(before.state));
		ASSERT(!res.assigned && res.write == ARS_WRITE_NONE);
		ASSERT(!memcmp(f, &before, sizeof(*f)));
		if (fresh) {
			/* the entry is the route's: a usable path, its hash */
			ASSERT(usable(r, res.path));
			ASSERT(r->path[res.path].dev == before.ifindex);
			check_steer(r, res.path, c->key);
			if (monotonic(r))
				ASSERT(model_select(r, h) == res.path);
		}
		return false;
	}

	/* planned with the route: never an unusable path */
	ASSERT(res.path == ARS_PATH_NONE || usable(r, res.path));
	ASSERT(res.old_path == old);
	path = want;
	write = ARS_WRITE_ALL;
	if (old == ARS_PATH_NONE) {
		reason = ARS_REASON_NEW;
	} else if (!active) {
		reason = own ? ARS_REASON_IDLE : ARS_REASON_NEW;
	} else {
		starts = false;
		path = ref_find(r, old, before.ifindex);
		if (own && path == ARS_PATH_NONE) {
			starts = true;
			reason = ARS_REASON_FAILOVER;
			path = want;
		} else if (!own && path != ARS_PATH_NONE) {
			/* another route's flow shares the entry's device,
			 * its time written once per refresh interval
			 */
			write = fwd > c->idle >> ARS_REFRESH_SHIFT ?
				ARS_WRITE_TIME : ARS_WRITE_NONE;
		} else if (!own) {
			ecmp.mode = ARS_MODE_ECMP;
			path = check_choose(r, &ecmp);
			write = ARS_WRITE_NONE;
		}
	}
	/* across any route change, a flowlet stays on a usable device */
	if (own && active && old != ARS_PATH_NONE &&
	    ref_find(r, 0, before.ifindex) != ARS_PATH_NONE)
		ASSERT(!res.assigned && res.path != ARS_PATH_NONE &&
		       r->path[res.path].dev == before.ifindex);
	ASSERT(res.path == path);
	ASSERT(res.assigned == (starts && path != ARS_PATH_NONE));
	if (res.assigned)
		ASSERT(res.reason == reason);
	if (path == ARS_PATH_NONE)
		write = ARS_WRITE_NONE;
	ASSERT(res.write == write);
	if (path != ARS_PATH_NONE)
		ASSERT(h == ars_steer_hash(r, path, c->key));

	switch (write) {
	case ARS_WRITE_NONE:
		ASSERT(!memcmp(f, &before, sizeof(*f)));
		break;
	case ARS_WRITE_TIME:
		ASSERT(f->state == ars_flow_pack(c->now, old, gen));
		ASSERT(f->tag == before.tag && f->hash == before.hash);
		ASSERT(f->ifindex == before.ifindex);
		ASSERT(f->flowlets == before.flowlets);
		break;
	case ARS_WRITE_ALL:
		ASSERT(f->state == ars_flow_pack(c->now, path, c->gen));
		ASSERT(f->tag == c->tag && f->hash == h);
		ASSERT(f->ifindex == r->path[path].dev);
		ASSERT(f->flowlets == before.flowlets + res.assigned);
		ASSERT(ars_flow_age(f->state, c->now) == 0);
		break;
	}
	/* The data plane's fields are its own. */
	ASSERT(f->idle == before.idle && f->object == before.object);
	ASSERT(f->own == before.own && f->key_hi == before.key_hi);
	if (path != ARS_PATH_NONE)
		check_steer(r, path, c->key);
	return write == ARS_WRITE_ALL;
steer:
	if (res.path != ARS_PATH_NONE) {
		ASSERT(h == ars_steer_hash(r, res.path, c->key));
		check_steer(r, res.path, c->key);
	}
	return false;
}

static void check_bucket(u32 nbuckets, u32 bucket, u32 key)
{
	u32 h = ars_steer_bucket_hash(bucket, nbuckets, key);

	if (bucket >= nbuckets || bucket > 0x7fffffff) {
		ASSERT(h == key);
		return;
	}
	ASSERT(h != 0);
	ASSERT((h >> 1) % nbuckets == bucket);
	if (nbuckets <= 0x7fffffff)
		ASSERT(model_bucket(h, nbuckets) == bucket);
}

/* Mostly valid buckets of groups of up to 2^16; sometimes anything. */
static void check_bucket_op(u8 op, u32 a, u32 b, u32 key)
{
	u32 n = op & 0x80 ? a : a % 65536 + 1;

	check_bucket(n, op & 0x40 || !n ? b : b % n, key);
}

static void check_quality(u64 rate, u64 bw, u64 delay, u32 weight)
{
	struct ars_quality_in q = {
		.rate = rate, .bandwidth = bw, .delay = delay,
		.rate_weight = weight,
	};
	u32 util = ars_util_permille(rate, bw), w, ds, load;
	u128 exact;

	if (!bw) {
		ASSERT(util == 0);
	} else {
		exact = (u128)rate * 8000 / bw;
		/* below line rate, rate * 8 < bw does not overflow */
		if (exact >= 1000)
			ASSERT(util == 1000);
		else if (rate * 8 <= ~0ULL / 1000)
			ASSERT(util == exact);
		else	/* beyond 2^54 bit/s, 10 bits are dropped */
			ASSERT(util == exact || util + 1 == exact);
	}
	w = weight < 100 ? weight : 100;
	ds = delay >= ARS_DELAY_FULL_NS ? 1000 :
	     (u32)(delay * 1000 / ARS_DELAY_FULL_NS);
	load = (w * (bw ? util : 500) + (100 - w) * ds) / 100;
	ASSERT(load <= 1000);
	ASSERT(ars_quality_band(&q) == 7 - load * 8 / 1001);
}

static u8 path_band(u64 bw, u64 max_bw, u64 delay, u64 max_delay, u32 util,
		    u32 weight)
{
	struct ars_path_load pl = { .bandwidth = bw, .delay = delay,
				    .util = util };
	struct ars_route_load rl = { .max_bandwidth = max_bw,
				     .max_delay = max_delay,
				     .rate_weight = weight };

	return ars_path_band(&pl, &rl);
}

/* A point of [a, b], from @x. */
static u64 between(u64 a, u64 b, u64 x)
{
	if (b <= a)
		return a;
	if (b - a == ~0ULL)	/* the whole range: b - a + 1 wraps to 0 */
		return x;
	return a + x % (b - a + 1);
}

/*
 * A path's band against its route's maxima, by the properties
 * ars_path_band() promises: a band 0..7 for anything; and, for a path
 * within its route's maxima (bw <= max_bw, delay <= max_delay, as
 * ars_route_load_add() makes them), more load never gives a better band:
 * more utilisation, more delay, less bandwidth than its peers, a faster
 * peer; a longer queue elsewhere never makes this path worse. Rate-weight
 * 100 ignores the delay, 0 the utilisation and the bandwidth. An unknown
 * bandwidth counts as 50% used. With the bandwidth of the fastest peer and
 * delays below 1 ms the band is ars_quality_band()'s; idle at full
 * bandwidth is 7, and saturated with the longest queue is 0.
 */
static void check_path_band(u64 bw, u64 max_bw, u64 delay, u64 max_delay,
			    u32 util, u32 weight)
{
	u64 x = bw ^ max_bw ^ delay ^ max_delay ^ ((u64)util << 32) ^ weight;
	u32 u = util, u2, w = weight;
	u64 bw2, mbw2, d2, md2;
	u8 b;

	ASSERT(path_band(bw, max_bw, delay, max_delay, util, weight) <= 7);

	/* within the route's maxima */
	if (max_bw < bw)
		max_bw = bw;
	if (max_delay < delay)
		max_delay = delay;
	b = path_band(bw, max_bw, delay, max_delay, u, w);
	ASSERT(b <= 7);

	u2 = u + (x & 0x7ff);
	if (u2 >= u)
		ASSERT(path_band(bw, max_bw, delay, max_delay, u2, w) <= b);
	d2 = between(delay, max_delay, x >> 7);
	ASSERT(path_band(bw, max_bw, d2, max_delay, u, w) <= b);
	md2 = max_delay + (x >> 20);
	if (md2 >= max_delay)
		ASSERT(path_band(bw, max_bw, delay, md2, u, w) >= b);
	if (bw) {
		bw2 = between(bw, max_bw, x >> 11);
		ASSERT(path_band(bw2, max_bw, delay, max_delay, u, w) >= b);
		mbw2 = max_bw + (x >> 33);
		if (mbw2 >= max_bw)
			ASSERT(path_band(bw, mbw2, delay, max_delay, u, w) <= b);
	}
	if (w >= 100)
		ASSERT(path_band(bw, max_bw, 0, max_delay, u, w) == b);
	if (w == 0) {
		ASSERT(path_band(bw, max_bw, delay, max_delay, 0, w) == b);
		ASSERT(path_band(max_bw, max_bw, delay, max_delay, u, w) == b);
	}
	if (!bw && max_bw)
		ASSERT(path_band(max_bw, max_bw, delay, max_delay, 500, w) == b);

	/* the band of a port on its own, for the fastest port of a route */
	if (bw && max_delay <= ARS_DELAY_FULL_NS) {
		struct ars_quality_in q = {
			.rate = bw >> (x & 7), .bandwidth = bw,
			.delay = delay, .rate_weight = w,
		};

		ASSERT(path_band(bw, bw, delay, max_delay,
				 ars_util_permille(q.rate, bw), w) ==
		       ars_quality_band(&q));
	}
	if (max_bw) {
		ASSERT(path_band(max_bw, max_bw, 0, max_delay, 0, w) == 7);
		md2 = max_delay > ARS_DELAY_FULL_NS ? max_delay :
						      ARS_DELAY_FULL_NS;
		ASSERT(path_band(max_bw, max_bw, md2, md2, 1000, w) == 0);
	}
}

static void read_route(struct input *in, struct ars_route *r, u8 flags)
{
	unsigned int i;

	for (i = 0; i < npaths(r); i++) {
		struct ars_path *p = &r->path[i];
		u8 b = get(in, 1);

		p->dev = i % 8 + 1;	/* beyond 8 paths, devices repeat */

		p->weight = flags & FLAG_ANY_WEIGHT ? get(in, 2) :
						      get(in, 1) + 1;
		p->band = b & 0x80 ? b : b & 7;
		if (flags & FLAG_RAW_UPPERS)
			p->upper = (s32)get(in, 4);
		else
			p->upper = (b & 0x70) == 0x70 ? -1 : 0;
	}
	if (!(flags & FLAG_RAW_UPPERS)) {
		unsigned int n = r->n;

		r->n = npaths(r);
		model_rebalance(r);
		r->n = n;
	}
}

static void set_dead(struct ars_route *r, u8 flags, unsigned int i, bool dead)
{
	unsigned int n = r->n;

	if (i >= npaths(r))
		return;
	r->path[i].upper = dead ? -1 : 0;
	if (flags & FLAG_RAW_UPPERS) {
		/* keep raw uppers: revive just above the previous one */
		s64 v = i ? (s64)r->path[i - 1].upper + 1 : 0;

		if (!dead)
			r->path[i].upper = v > 0x7fffffff ? 0x7fffffff :
					   v < 0 ? 0 : (s32)v;
		return;
	}
	r->n = npaths(r);
	model_rebalance(r);
	r->n = n;
}

/*
 * A route change as the kernel makes them (op 5 with 0x40): a next hop
 * deleted, one appended, the order reversed, or a path's device changed.
 * Devices are 1..8, so that several paths may share one.
 */
static void change_route(struct ars_route *r, u8 flags, u32 a)
{
	unsigned int n = npaths(r), j = n ? a % n : 0, i;
	struct ars_path p;

	switch ((a >> 8) % 4) {
	case 0:
		if (!n)
			return;
		memmove(&r->path[j], &r->path[j + 1],
			(n - j - 1) * sizeof(r->path[0]));
		r->n = n - 1;
		break;
	case 1:
		if (n >= ARS_MAX_PATHS)
			return;
		memset(&r->path[n], 0, sizeof(r->path[n]));
		r->path[n].dev = (a >> 16) % 8 + 1;
		r->path[n].weight = 1;
		r->path[n].band = (a >> 24) & 7;
		r->path[n].upper = 0x7fffffff;
		r->n = n + 1;
		break;
	case 2:
		for (i = 0; i < n / 2; i++) {
			p = r->path[i];
			r->path[i] = r->path[n - 1 - i];
			r->path[n - 1 - i] = p;
		}
		break;
	case 3:
		if (n)
			r->path[j].dev = (a >> 16) % 8 + 1;
		return;
	}
	if (!(flags & FLAG_RAW_UPPERS)) {
		for (i = 0; i < npaths(r); i++)
			if (r->path[i].upper >= 0)
				r->path[i].upper = 0;
		n = r->n;
		r->n = npaths(r);
		model_rebalance(r);
		r->n = n;
	}
}

/* The next routing generation: never 0. */
static u16 next_gen(u16 gen)
{
	return (u16)(gen + 1) ? (u16)(gen + 1) : 1;
}

/*
 * Primaries and alternates: on a copy of @r0 with the paths of @mask
 * alternate and the settings of @v, a choice is a usable path (none only
 * when none is usable); while a primary is usable, an alternate is chosen
 * only in a quality mode, with the best primary below the threshold, and
 * if its band less the cost is no worse than the best primary's (equal
 * only with a bias).
 */
static void check_alternates(const struct ars_route *r0,
			     const struct ars_ctx *c0, u64 mask, u32 v)
{
	struct ars_alt a = {
		.threshold = v % (ARS_PRIMARY_THRESHOLD_MAX + 1),
		.cost = (v >> 8) % (ARS_BAND_BEST + 1),
		.bias = (v >> 16) % (ARS_ALT_BIAS_MAX + 1),
	};
	unsigned int i, n = npaths(r0);
	struct ars_route r = *r0;
	struct ars_ctx c = *c0;
	bool quality, any = false;
	int best = -1, b;
	u8 p;

	for (i = 0; i < n; i++) {
		r.path[i].alt = mask >> i & 1;
		if (!usable(r0, i))
			continue;
		if (r0->path[i].band > ARS_BAND_BEST)
			return;		/* out of contract */
		any = true;
		if (!r.path[i].alt && r0->path[i].band > best)
			best = r0->path[i].band;
	}
	quality = c.mode == ARS_MODE_PACKET_QUALITY ||
		  c.mode == ARS_MODE_FLOWLET_QUALITY;
	ars_route_alternates(&r, &c, &a);
	p = ars_choose(&r, &c);
	ASSERT((p == ARS_PATH_NONE) == !any);
	if (p == ARS_PATH_NONE)
		return;
	ASSERT(usable(r0, p));
	if (best < 0 || !(mask >> p & 1))
		return;
	/* an alternate, while a primary is usable */
	ASSERT(quality && best < a.threshold);
	b = r0->path[p].band > a.cost ? r0->path[p].band - a.cost : 0;
	ASSERT(b > best || (b == best && a.bias));
}

/*
 * Remote scores: 4 routes x 4 devices in a table of 4 two-slot buckets
 * (so that keys share and evict), time only forwards. Whatever the
 * configuration: every band lies between the floor (at most the best)
 * and the best, a slot's score never exceeds the cap, and a key's band
 * never falls unless that key was credited since it was last read.
 */
#define RKEYS	4
static struct ars_remote_slot rslots[8];
static struct ars_remote rtab = { .mask = 3, .slot = rslots };
static u8 rlast[RKEYS][RKEYS];
static u64 rnow;

static void remote_reset(u8 flags, u16 gen, u64 idle, u64 now)
{
	unsigned int i, j;

	memset(rslots, 0, sizeof(rslots));
	rtab.cfg.half_shift = gen % 48;		/* clamped by the core */
	rtab.cfg.floor = (flags >> 3) % 9;	/* 8: above the best */
	rtab.cfg.credit = (u16)idle;
	rtab.seed = (u32)now;
	rnow = now;
	for (i = 0; i < RKEYS; i++)
		for (j = 0; j < RKEYS; j++)
			rlast[i][j] = ARS_BAND_BEST;
}

static void check_remote(u32 a, u32 b)
{
	u8 floor = rtab.cfg.floor < ARS_BAND_BEST ? rtab.cfg.floor :
		   ARS_BAND_BEST;
	u32 route = a & 3, dev = 1 + ((a >> 2) & 3), i, j;
	bool rose;
	u8 band;

	/* up to 2^47 ns a step: no wrap of the slots' 2^58 ns in an input */
	rnow += (u64)b << ((a >> 4) & 15);
	if (a & 0x200) {
		rose = ars_remote_credit(&rtab, route, dev, rnow);
		ASSERT(!rose || rtab.cfg.credit);
		rlast[route][dev - 1] = 0;	/* may fall once */
	}
	for (i = 0; i < sizeof(rslots) / sizeof(rslots[0]); i++)
		ASSERT((rslots[i].state & ARS_REMOTE_SCORE_MASK) <=
		       ars_remote_cap(&rtab.cfg));
	for (i = 0; i < RKEYS; i++) {
		for (j = 0; j < RKEYS; j++) {
			band = ars_remote_band(&rtab, i, j + 1, rnow);
			ASSERT(band >= floor && band <= ARS_BAND_BEST);
			ASSERT(band >= rlast[i][j]);
			rlast[i][j] = band;
		}
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct ars_flow table[NENTRIES];
	/* the route version each entry was last written under */
	u32 version = 0, written[NENTRIES] = { 0 };
	struct ars_route r;
	struct ars_ctx c;
	u8 flags;
	u32 ticket = 0;

	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	memset(table, 0, sizeof(table));
	flags = get(&in, 1);
	r.n = get(&in, 1) % 70;
	c.gen = get(&in, 2);
	c.gen = c.gen ? c.gen : 1;	/* non-zero by contract */
	c.mode = get(&in, 1) % 9;
	c.idle = get(&in, 4);
	if (flags & FLAG_ANY_IDLE)
		c.idle = (c.idle << 32) | get(&in, 4);
	else
		c.idle = ARS_IDLE_TIME_MIN + c.idle % ARS_IDLE_TIME_MAX;
	c.now = get(&in, 8);
	read_route(&in, &r, flags);
	sample_state = (u64)flags << 56 ^ (u64)r.n << 48 ^ (u64)c.gen << 32 ^
		       c.idle ^ c.now;
	check_route_contracts(&r, c.mode);
	remote_reset(flags, c.gen, c.idle, c.now);

	while (in.n) {
		u8 op = get(&in, 1);
		u32 a = get(&in, 4);

		switch (op % 8) {
		case 0 ... 3:
			/* a packet, after a step in time */
			if (op & 0x08)
				c.now -= a & 0xfff;	/* a racing CPU */
			else
				c.now += (u64)a << (op >> 4);
			c.key = get(&in, 4);
			c.rand = get(&in, 4);
			c.ticket = ticket++;
			/* a quarter of the packets: another route key */
			c.tag = c.key >> 30 == 3 ? 0x2222 : 0x1111;
			if (check_decide(&table[op % 4], &r, &c,
					 written[op % 4] == version))
				written[op % 4] = version;
			break;
		case 4:
			/* the data plane sees it, unless 0x40 (a race) */
			set_dead(&r, flags, a % 70, op & 0x80);
			version++;
			if (!(op & 0x40))
				c.gen = next_gen(c.gen);
			break;
		case 5:
			if (op & 0x40) {
				change_route(&r, flags, a);
				version++;
				c.gen = next_gen(c.gen);
			} else {
				c.gen = (u16)a ? (u16)a : 1;
			}
			if (op & 0x80)
				c.mode = (a >> 16) % 9;
			break;
		case 6:
			if (a % 70 < ARS_MAX_PATHS)
				r.path[a % 70].band = op & 0x80 ? a >> 24 :
						     (a >> 24) & 7;
			check_bucket_op(op, a, get(&in, 4), get(&in, 4));
			check_alternates(&r, &c, get(&in, 8), a);
			check_remote(a >> 8, get(&in, 4));
			break;
		case 7:
			check_quality(get(&in, 8) >> (a & 63), get(&in, 8) >>
				      ((a >> 6) & 63), get(&in, 8) >>
				      ((a >> 12) & 63), (a >> 18) % 128);
			check_path_band(get(&in, 8) >> (a & 63), get(&in, 8) >>
					((a >> 6) & 63), get(&in, 8) >>
					((a >> 12) & 63), get(&in, 8) >>
					((a >> 18) & 63), get(&in, 2),
					(a >> 24) % 128);
			break;
		}
		/* every usable path can be steered to, for any key */
		if (npaths(&r))
			check_steer(&r, a % npaths(&r), c.key ^ a);
	}
	return 0;
}
