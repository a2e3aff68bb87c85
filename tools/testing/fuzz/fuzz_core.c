// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/ars_core.c.
 *
 * The input describes a route (kernel-balanced or raw uppers, weights,
 * dead paths, bands, including out-of-contract values) and a context,
 * then a sequence of operations: packets on a few macro-flow entries with
 * arbitrary time steps (forwards across the 40-bit wrap, or slightly
 * backwards as a racing CPU would see), path deaths and revivals,
 * generation and band changes, and checks of the bucket hash and the
 * quality formulas. After each step the invariants are checked against an
 * independent reference (the kernel's selection in route_model.h, and the
 * choice, flowlet and quality rules written out plainly); any violation
 * aborts. ASan and UBSan watch for memory errors and undefined behaviour.
 *
 * Layout: flags, n, gen, mode, idle, start time, n paths, then operations;
 * missing bytes read as zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route_model.h"

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

/* ars_choose() as the header describes it, written out plainly. */
static u8 ref_choose(const struct ars_route *r, const struct ars_ctx *c)
{
	bool quality = c->mode == ARS_MODE_PACKET_QUALITY ||
		       c->mode == ARS_MODE_FLOWLET_QUALITY;
	bool cand[ARS_MAX_PATHS];
	unsigned int i, best = 0;
	u64 total = 0, point;

	for (i = 0; i < npaths(r); i++)
		if (usable(r, i) && r->path[i].band > best)
			best = r->path[i].band;
	for (i = 0; i < npaths(r); i++) {
		cand[i] = usable(r, i) && (!quality || r->path[i].band == best);
		if (cand[i])
			total += r->path[i].weight ? r->path[i].weight : 1;
	}
	if (!total)
		return ARS_PATH_NONE;
	switch (c->mode) {
	case ARS_MODE_PACKET_ROUNDROBIN:
		point = c->ticket % total;
		break;
	case ARS_MODE_PACKET_RANDOM:
	case ARS_MODE_FLOWLET_RANDOM:
	case ARS_MODE_PACKET_QUALITY:
	case ARS_MODE_FLOWLET_QUALITY:
		point = ((u64)c->rand * total) >> 32;
		break;
	default:
		point = ((u64)c->key * total) >> 32;
		break;
	}
	for (i = 0; i < npaths(r); i++) {
		u64 w = r->path[i].weight ? r->path[i].weight : 1;

		if (!cand[i])
			continue;
		if (point < w)
			return i;
		point -= w;
	}
	ASSERT(0);
	return ARS_PATH_NONE;
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

static void check_decide(struct ars_flow *f, const struct ars_route *r,
			 const struct ars_ctx *c)
{
	struct ars_flow before = *f;
	u16 gen = ars_flow_gen(before.state);
	u8 old = ars_flow_path(before.state);
	u8 want = ref_choose(r, c);
	struct ars_result res;

	ASSERT(ars_choose(r, c) == want);
	ars_decide(f, r, c, &res);
	ASSERT(res.path == ARS_PATH_NONE || usable(r, res.path));

	if (c->mode != ARS_MODE_FLOWLET_RANDOM &&
	    c->mode != ARS_MODE_FLOWLET_QUALITY) {
		ASSERT(res.path == want && !res.assigned);
		ASSERT(res.reason == ARS_REASON_PACKET);
		ASSERT(res.old_path == ARS_PATH_NONE);
		ASSERT(!memcmp(f, &before, sizeof(*f)));
		goto steer;
	}

	if (gen && gen == r->gen && usable(r, old) &&
	    ref_active(before.state, c->now, c->idle)) {
		/* the same flowlet */
		ASSERT(res.path == old && res.old_path == old && !res.assigned);
		ASSERT(f->state == ars_flow_pack(c->now, old, gen));
		ASSERT(f->packets == before.packets + 1);
		ASSERT(f->ifindex == before.ifindex);
		goto steer;
	}

	ASSERT(res.old_path == (gen ? old : ARS_PATH_NONE));
	if (!gen)
		ASSERT(res.reason == ARS_REASON_NEW);
	else if (ref_active(before.state, c->now, c->idle))
		ASSERT(res.reason == ARS_REASON_FAILOVER);
	else if (gen == r->gen)
		ASSERT(res.reason == ARS_REASON_IDLE);
	else
		ASSERT(res.reason == ARS_REASON_NEW);
	ASSERT(res.path == want);
	if (want == ARS_PATH_NONE) {
		ASSERT(!res.assigned);
		ASSERT(!memcmp(f, &before, sizeof(*f)));
		return;
	}
	ASSERT(res.assigned);
	ASSERT(f->state == ars_flow_pack(c->now, want, r->gen));
	ASSERT(f->packets == 1 && f->ifindex == before.ifindex);
	ASSERT(ars_flow_path(f->state) == want);
	ASSERT(ars_flow_gen(f->state) == r->gen);
	ASSERT(ars_flow_age(f->state, c->now) == 0);
steer:
	if (res.path != ARS_PATH_NONE)
		check_steer(r, res.path, c->key);
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

/* Per mille of @max, exactly, and how far ars_core may be off (10 bits
 * are dropped beyond 2^54).
 */
static u32 permille_exact(u64 v, u64 max, u32 *slack)
{
	*slack = max > ~0ULL / 1000 ? 1 : 0;
	return v >= max ? 1000 : (u32)((u128)v * 1000 / max);
}

static u32 band_model(u32 w, u32 util, u32 ds)
{
	return 7 - (w * util + (100 - w) * ds) / 100 * 8 / 1001;
}

/* A path's band against its route's maxima, which it may exceed. */
static void check_path_band(u64 bw, u64 max_bw, u64 delay, u64 max_delay,
			    u32 util, u32 weight)
{
	struct ars_path_load pl = { .bandwidth = bw, .delay = delay,
				    .util = util };
	struct ars_route_load rl = { .max_bandwidth = max_bw,
				     .max_delay = max_delay,
				     .rate_weight = weight };
	u64 scale = max_delay > ARS_DELAY_FULL_NS ? max_delay :
						    ARS_DELAY_FULL_NS;
	u32 u = util < 1000 ? util : 1000, w = weight < 100 ? weight : 100;
	u32 ulo = u, uhi = u, ds, dlo, dhi, spare, slack, b;

	if (!bw) {
		ulo = uhi = 500;
	} else if (bw < max_bw) {
		/* what is left of the port, in units of the fastest one */
		spare = (u32)((u128)(1000 - u) * bw / max_bw);
		slack = max_bw > ~0ULL / 1000 ? 1 : 0;
		ulo = 1000 - (spare + slack < 1000 ? spare + slack : 1000);
		uhi = 1000 - (spare > slack ? spare - slack : 0);
	}
	ds = permille_exact(delay, scale, &slack);
	dlo = ds > slack ? ds - slack : 0;
	dhi = ds + slack < 1000 ? ds + slack : 1000;
	b = ars_path_band(&pl, &rl);
	ASSERT(b <= band_model(w, ulo, dlo));
	ASSERT(b >= band_model(w, uhi, dhi));
	/* with no slack, exactly the model */
	if (ulo == uhi && dlo == dhi)
		ASSERT(b == band_model(w, ulo, dlo));
}

static void read_route(struct input *in, struct ars_route *r, u8 flags)
{
	unsigned int i;

	for (i = 0; i < npaths(r); i++) {
		struct ars_path *p = &r->path[i];
		u8 b = get(in, 1);

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

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct ars_flow table[NENTRIES];
	struct ars_route r;
	struct ars_ctx c;
	u8 flags;
	u32 ticket = 0;

	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	memset(table, 0, sizeof(table));
	flags = get(&in, 1);
	r.n = get(&in, 1) % 70;
	r.gen = get(&in, 2);
	c.mode = get(&in, 1) % 9;
	c.idle = get(&in, 4);
	if (flags & FLAG_ANY_IDLE)
		c.idle = (c.idle << 32) | get(&in, 4);
	else
		c.idle = ARS_IDLE_TIME_MIN + c.idle % ARS_IDLE_TIME_MAX;
	c.now = get(&in, 8);
	read_route(&in, &r, flags);

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
			table[op % 4].ifindex = a;
			check_decide(&table[op % 4], &r, &c);
			break;
		case 4:
			set_dead(&r, flags, a % 70, op & 0x80);
			break;
		case 5:
			r.gen = a;
			if (op & 0x80)
				c.mode = (a >> 16) % 9;
			break;
		case 6:
			if (a % 70 < ARS_MAX_PATHS)
				r.path[a % 70].band = op & 0x80 ? a >> 24 :
						     (a >> 24) & 7;
			check_bucket_op(op, a, get(&in, 4), get(&in, 4));
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
