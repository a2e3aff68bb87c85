// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-independent core of ars; see ars_core.h for the contract.
 *
 * This file is built into ars.ko and, unchanged, into the host's unit tests,
 * fuzzer and benchmark, so it includes nothing but ars_core.h (which brings
 * ars_types.h and the UAPI header) and calls no library: 64-bit divisions go
 * through ars_div64(), and scaling into [0, n) is a multiply-shift.
 *
 * Everything here is defensive about out-of-contract input (a route with
 * more than ARS_MAX_PATHS paths, a path index out of range, weight 0): such
 * input gives a harmless answer, never an out-of-bounds access.
 */
#include "ars_core.h"

/*
 * Choosing a path.
 *
 * A weighted choice scales a 32-bit number into [0, total weight) and walks
 * the usable paths' cumulative weights. The multiply-shift is biased by at
 * most total / 2^32, i.e. nothing for any real route (total weight is at
 * most 64 * 65535). Round-robin needs exactness instead, so it takes the
 * ticket modulo the total: any @total consecutive tickets then visit each
 * usable path exactly weight times, in blocks of weight consecutive
 * tickets per path. The ticket is 64 bits wide so that no round is cut
 * short by a wrap (2^32 is no multiple of a total that is not a power of
 * two, and 2^32 packets are an hour at 1 Mpps; 2^64 are 584 years at
 * 10^9 packets/s).
 *
 * Quality restricts the walk to paths of the best band among the usable
 * ones: since no usable path has a higher band, "band >= best" selects
 * exactly those, and the other modes use the same walk with a minimum
 * band of 0.
 */

/* Total weight of the usable paths. */
static u32 ars_total(const struct ars_route *r)
{
	unsigned int i, n = ars_npaths(r);
	u32 total = 0;

	for (i = 0; i < n; i++)
		if (r->path[i].upper >= 0)
			total += ars_weight(&r->path[i]);
	return total;
}

u8 ars_route_best(const struct ars_route *r, u32 *total)
{
	unsigned int i, n = ars_npaths(r);
	u32 sum = 0;
	u8 best = 0;

	for (i = 0; i < n; i++) {
		const struct ars_path *p = &r->path[i];

		if (p->upper < 0 || p->band < best)
			continue;
		if (p->band > best) {
			best = p->band;
			sum = 0;
		}
		sum += ars_weight(p);
	}
	*total = sum;
	return best;
}

u8 ars_choose(const struct ars_route *r, const struct ars_ctx *c)
{
	u32 total, x;
	u8 minband;

	switch (c->mode) {
	case ARS_MODE_PACKET_QUALITY:
	case ARS_MODE_FLOWLET_QUALITY:
		if (c->total)
			return ars_choose_kept(r, c);
		minband = ars_route_best(r, &total);
		if (!total)
			return ARS_PATH_NONE;
		return ars_walk(r, minband, ars_scale(c->rand, total));
	case ARS_MODE_PACKET_ROUNDROBIN:
		total = ars_total(r);
		if (!total)
			return ARS_PATH_NONE;
		return ars_walk(r, 0, (u32)(c->ticket -
					    ars_div64(c->ticket, total) * total));
	case ARS_MODE_PACKET_RANDOM:
	case ARS_MODE_FLOWLET_RANDOM:
		x = c->rand;
		break;
	default:
		/* ecmp, fixed, and unknown modes: stable per key */
		x = c->key;
		break;
	}
	total = ars_total(r);
	if (!total)
		return ARS_PATH_NONE;
	return ars_walk(r, 0, ars_scale(x, total));
}

/*
 * Flowlets.
 *
 * Times are kept in 64 ns units, 40 bits of them, so an age is the
 * difference modulo 2^40 units (19.5 hours) and compares with the idle
 * time at a granularity of 64 ns. Two consequences of the modulo:
 *
 * - Another CPU may store a time slightly later than the @now this CPU
 *   read before it (both saw the same macro flow at once). That age is
 *   "negative", i.e. close to 2^40 units. A time up to the idle time in the
 *   future is therefore taken as a racing CPU's and the entry as active;
 *   otherwise the race would end the flowlet and could reorder packets.
 * - An entry untouched for a multiple of 19.5 hours, give or take the idle
 *   time, looks active again. It then keeps its device only if the route
 *   still has it, so the worst case is a flow that is not moved once when
 *   it could have been.
 *
 * A state of 0 is an empty entry (generation 0). The context's generation
 * is non-zero by contract (the data plane folds its counters into
 * 0x8000..0xffff), so an empty entry never takes the fast path; an entry
 * written under generation 0 would read as empty again, which is harmless.
 * (ars_flow_live() and ars_flowlet_expired() are inline in ars_core.h.)
 */
bool ars_flowlet_resumed(const struct ars_flow *f, const struct ars_ctx *c)
{
	u64 state = READ_ONCE(f->state);

	return ars_flow_gen(state) && READ_ONCE(f->tag) == c->tag &&
	       READ_ONCE(f->key_hi) == (u16)(c->key >> ARS_FLOW_KEY_SHIFT) &&
	       !ars_flow_live(state, c->now, c->idle);
}

u8 ars_route_find(const struct ars_route *r, u8 hint, u32 dev)
{
	unsigned int i, n = ars_npaths(r);

	if (ars_usable(r, hint) && r->path[hint].dev == dev)
		return hint;
	for (i = 0; i < n; i++)
		if (r->path[i].upper >= 0 && r->path[i].dev == dev)
			return i;
	return ARS_PATH_NONE;
}

/* ars_flowlet_plan() of an entry whose @state is active. */
void ars_flowlet_plan_live(const struct ars_flow *f,
			   const struct ars_route *r,
			   const struct ars_ctx *c, u64 state,
			   struct ars_result *res)
{
	u8 old = ars_flow_path(state);	/* ARS_PATH_NONE: not known */
	bool own = READ_ONCE(f->tag) == c->tag;
	struct ars_ctx ecmp;
	u8 path;

	path = ars_route_find(r, old, READ_ONCE(f->ifindex));
	if (own && path == ARS_PATH_NONE) {
		ars_flowlet_new(r, c, old, ARS_REASON_FAILOVER, res);
		return;
	}
	res->old_path = old;
	res->reason = 0;	/* unspecified: nothing was assigned */
	res->assigned = false;
	res->path = path;
	if (own) {
		res->write = ARS_WRITE_ALL;
	} else if (path != ARS_PATH_NONE) {
		/*
		 * Another route's flow in the entry shares the device, and
		 * keeps the entry alive, at most once per refresh interval.
		 */
		res->write = ars_flow_age(state, c->now) >
			     c->idle >> ARS_REFRESH_SHIFT ? ARS_WRITE_TIME :
							    ARS_WRITE_NONE;
	} else {
		ecmp = *c;
		ecmp.mode = ARS_MODE_ECMP;
		res->path = ars_choose(r, &ecmp);
		res->write = ARS_WRITE_NONE;
	}
}

/*
 * Primaries and alternates, by ranks in the bands' place: a primary of
 * band b ranks 2b + 1, a competing alternate 2 max(b - cost, 0) + 1 (+ 0
 * with bias 0, so that it loses ties), an alternate that is out 0, below
 * every primary. ars_choose() then takes the best rank, by weight, as it
 * takes the best band. With a bias between 0 and 100 the tie is shared by
 * weights scaled to 100 (primaries) and bias (alternates). A weight above
 * 655 (a resilient group's bucket count) times 100 exceeds a u16: all the
 * route's weights are then divided by one divisor, the smallest that
 * brings the largest to U16_MAX at most, so that they keep their
 * proportions; a weight that would round to 0 stays 1.
 */
#define ARS_WEIGHT_MAX	0xffffU

/* The divisor of the route's scaled weights. */
static u32 ars_weight_div(const struct ars_route *r)
{
	unsigned int i, n = ars_npaths(r);
	u32 max = 0;

	for (i = 0; i < n; i++)
		if (r->path[i].upper >= 0 && ars_weight(&r->path[i]) > max)
			max = ars_weight(&r->path[i]);
	return (max * ARS_ALT_BIAS_MAX + ARS_WEIGHT_MAX - 1) / ARS_WEIGHT_MAX;
}

static u16 ars_weight_scaled(const struct ars_path *p, u32 pct, u32 div)
{
	u32 w = ars_weight(p) * pct / div;

	return w ? w : 1;
}

bool ars_route_alternates(struct ars_route *r, struct ars_ctx *c,
			  const struct ars_alt *a)
{
	unsigned int i, n = ars_npaths(r);
	bool alt = false, quality, compete, share;
	int best = -1;
	u32 div;
	u8 b;

	for (i = 0; i < n; i++) {
		const struct ars_path *p = &r->path[i];

		if (p->upper < 0)
			continue;
		if (p->alt)
			alt = true;
		else if (p->band > best)
			best = p->band;
	}
	if (!alt)
		return false;
	quality = c->mode == ARS_MODE_PACKET_QUALITY ||
		  c->mode == ARS_MODE_FLOWLET_QUALITY;
	compete = best < 0 || (quality && best < a->threshold);
	if (!quality) {
		if (compete)
			return true;	/* the alternates are all there is */
		for (i = 0; i < n; i++)
			r->path[i].band = !r->path[i].alt;
		if (c->mode == ARS_MODE_FIXED)
			c->rand = c->key;
		else if (c->mode == ARS_MODE_PACKET_ROUNDROBIN)
			c->rand = (u32)c->ticket * ARS_SPREAD;
		c->mode = ars_mode_flowlet(c->mode) ? ARS_MODE_FLOWLET_QUALITY :
						      ARS_MODE_PACKET_QUALITY;
		return false;
	}
	share = compete && a->bias && a->bias < ARS_ALT_BIAS_MAX;
	div = share ? ars_weight_div(r) : 1;
	for (i = 0; i < n; i++) {
		struct ars_path *p = &r->path[i];

		if (!p->alt) {
			if (share)
				p->weight = ars_weight_scaled(p, ARS_ALT_BIAS_MAX,
							      div);
			p->band = 2 * p->band + 1;
		} else if (!compete) {
			p->band = 0;
		} else {
			b = p->band > a->cost ? p->band - a->cost : 0;
			if (share)
				p->weight = ars_weight_scaled(p, a->bias, div);
			p->band = 2 * b + !!a->bias;
		}
	}
	return compete;
}

void ars_bands_fill_unknown(struct ars_route *r, u64 unknown)
{
	unsigned int i, n = ars_npaths(r);
	bool known = false;
	u8 best = 0;

	for (i = 0; i < n; i++) {
		if (r->path[i].upper < 0 || (unknown >> i & 1))
			continue;
		known = true;
		if (r->path[i].band > best)
			best = r->path[i].band;
	}
	for (i = 0; i < n; i++)
		if (r->path[i].upper >= 0 && (unknown >> i & 1))
			r->path[i].band = known ? best : ARS_BAND_BEST;
}

/* Steering hashes: see ars_core.h. */
u32 ars_steer_bucket_hash(u32 bucket, u32 nbuckets, u32 key)
{
	u32 count;

	/* a bucket beyond the 31-bit space cannot be reached at all */
	if (unlikely(bucket >= nbuckets || bucket > ARS_HASH_MAX))
		return key;
	/* bucket + m * nbuckets for m in [0, count) stays <= ARS_HASH_MAX */
	count = (ARS_HASH_MAX - bucket) / nbuckets + 1;
	return ars_hash_of(bucket + ars_scale(key * ARS_SPREAD, count) * nbuckets,
			   key);
}

/*
 * Port quality.
 *
 *   util        = min(1000, rate * 8 * 1000 / bandwidth)    per mille
 *   delay_score = min(1000, delay * 1000 / full)
 *   load        = (w * util + (100 - w) * delay_score) / 100,
 *                 w = rate_weight (capped at 100); util counts as 500
 *                 when the bandwidth is unknown (0)
 *   band        = 7 - load * 8 / 1001
 *
 * so load 0..1000 falls into eight equal bands: an idle port is band 7
 * (ARS_BAND_BEST), a port at line rate or with ARS_DELAY_FULL_NS of queue
 * (when that term has all the weight) is band 0. Every step is monotonic:
 * more rate or more delay never gives a better band. The full-scale delay,
 * full, is the caller's @delay_full, or ARS_DELAY_FULL_NS when that is 0.
 *
 * A new flowlet ranks the paths of its route with ars_path_band(), which
 * differs in two terms, against the route's fastest port (max_bandwidth)
 * and longest queue (max_delay):
 *
 *   util        = 1000 - (1000 - util) * bandwidth / max_bandwidth
 *   delay_score = min(1000, delay * 1000 / max(max_delay, full))
 */
u32 ars_util_permille(u64 rate, u64 bandwidth)
{
	u64 bits;

	if (!bandwidth)
		return 0;
	/* rate * 8 >= bandwidth, checked without overflowing rate * 8 */
	if (rate >= (bandwidth >> 3) + !!(bandwidth & 7))
		return 1000;
	bits = rate * 8;		/* < bandwidth, no overflow */
	if (bits > ~0ULL / 1000) {
		/*
		 * Both exceed 2^54 (beyond any real link): drop 10 bits,
		 * rounding the divisor up so the result stays below 1000.
		 */
		bits >>= 10;
		bandwidth = (bandwidth >> 10) + !!(bandwidth & 1023);
	}
	return (u32)ars_div64(bits * 1000, bandwidth);
}

/* Per mille of @max, at most 1000; @max > 0. */
static u32 ars_permille_of(u64 v, u64 max)
{
	if (v >= max)
		return 1000;
	if (max > ~0ULL / 1000) {
		/* beyond any real link or delay: drop 10 bits of both */
		v >>= 10;
		max >>= 10;
	}
	return (u32)ars_div64(v * 1000, max);
}

/* @x (<= 1000) * @v / @max, rounded down, for @v < @max. */
static u32 ars_scale_down(u32 x, u64 v, u64 max)
{
	if (max > ~0ULL / 1000) {
		v >>= 10;
		max >>= 10;
	}
	return (u32)ars_div64(x * v, max);
}

/* The delay term against the larger of @scale and the full-scale delay. */
static u32 ars_delay_score(u64 delay, u64 scale, u64 full)
{
	if (!full)
		full = ARS_DELAY_FULL_NS;
	return ars_permille_of(delay, scale > full ? scale : full);
}

static u8 ars_band_of(u32 util, u32 delay_score, u32 rate_weight)
{
	u32 w = rate_weight < 100 ? rate_weight : 100;
	u32 load = (w * util + (100 - w) * delay_score) / 100;

	return ARS_BAND_BEST - load * 8 / 1001;
}

u8 ars_quality_band(const struct ars_quality_in *q)
{
	u32 util = q->bandwidth ? ars_util_permille(q->rate, q->bandwidth) :
				  500;

	return ars_band_of(util, ars_delay_score(q->delay, 0, q->delay_full),
			   q->rate_weight);
}

u8 ars_path_band(const struct ars_path_load *pl,
		 const struct ars_route_load *rl)
{
	u32 util = pl->util < 1000 ? pl->util : 1000;

	if (pl->stalled)
		return 0;
	/*
	 * Spare capacity in units of the fastest peer: what is left of this
	 * port, (1000 - util) of bandwidth, over max_bandwidth.
	 */
	if (!pl->bandwidth)
		util = 500;
	else if (pl->bandwidth < rl->max_bandwidth)
		util = 1000 - ars_scale_down(1000 - util, pl->bandwidth,
					     rl->max_bandwidth);
	return ars_band_of(util, ars_delay_score(pl->delay, rl->max_delay,
						 rl->delay_full),
			   rl->rate_weight);
}
