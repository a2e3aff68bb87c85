// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the remote-congestion scores (kmod/ars_remote.c, issue
 * #34) and of how the decision path (kmod/ars_step.c) takes them, run on
 * the host under ASan and UBSan.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "route_model.h"

#include "ars_step.h"

#define US		1000ULL
#define IDLE		(256 * US)
#define T0		(1000000 * US)	/* a start time, 64 ns aligned */
#define HALF_SHIFT	17		/* half-life 131 us */
#define HALF		(1ULL << HALF_SHIFT)
#define BAND		(1U << ARS_REMOTE_BAND_SHIFT)
#define ROUTE_A		0xa		/* the route key of the flows tested */
#define ROUTE_B		0xb		/* another destination's */
#define TAG		0x7a61u
#define GEN		1
#define SLOTS		64

/* The environment: devices 1..4 idle at 100 Gbit/s. */
struct fake_ports {
	unsigned int loads;
};

bool ars_env_path_load(void *env, u32 dev, u64 now, struct ars_path_load *pl)
{
	struct fake_ports *fp = env;

	(void)now;
	if (!fp || dev < 1 || dev > 4)
		return false;
	fp->loads++;
	memset(pl, 0, sizeof(*pl));
	pl->bandwidth = 100000000000ULL;
	return true;
}

void ars_env_flowlet_stamp(void *env, u32 dev, u64 now)
{
	(void)env;
	(void)dev;
	(void)now;
}

bool ars_env_flowlet_at(void *env, u32 dev, u64 *at)
{
	(void)env;
	(void)dev;
	(void)at;
	return false;
}

static struct ars_remote_slot slots[SLOTS];
static struct ars_remote_pair pairs[16];
static struct fake_ports ports;

static struct ars_remote table(u8 floor, u16 credit)
{
	struct ars_remote rt = {
		.cfg = { .half_shift = HALF_SHIFT, .floor = floor,
			 .credit = credit },
		.mask = SLOTS / 2 - 1,
		.seed = 0x5eed,
		.slot = slots,
	};

	memset(slots, 0, sizeof(slots));
	memset(pairs, 0, sizeof(pairs));
	return rt;
}

static struct ars_ctx ctx(u64 now, u32 key, u32 rand)
{
	struct ars_ctx c = {
		.now = now, .idle = IDLE, .key = key, .rand = rand,
		.tag = TAG, .gen = GEN, .mode = ARS_MODE_FLOWLET_QUALITY,
	};

	return c;
}

/*
 * One packet of a flow that needs its route, as hook.c and the sim run
 * it: the step with the ports and, unless @rt is NULL, the remote scores
 * of ROUTE_A; then the commit, and the key bits the data plane keeps.
 * Returns the device taken; *@moved says what the step reported.
 */
static u32 step(struct ars_flow *f, const struct ars_remote *rt,
		const struct ars_ctx *c, bool *moved)
{
	struct ars_step s = {
		.env = &ports, .rate_weight = 50,
		.remote = rt, .remote_route = ROUTE_A,
	};
	struct ars_route r, local, *rr;
	struct ars_ctx cc = *c;
	u32 hash;

	model_route(&r, 4, NULL);
	rr = ars_step(&s, f, &r, &local, &cc);
	if (s.res.path == ARS_PATH_NONE)
		return 0;
	hash = ars_steer_hash(rr, s.res.path, c->key);
	ars_step_commit(&s, f, rr, &cc, hash);
	f->key_hi = (u16)(c->key >> ARS_FLOW_KEY_SHIFT);
	if (moved)
		*moved = s.remote_moved;
	/* the kernel's selection agrees with the plan */
	return r.path[model_select(&r, hash)].dev;
}

static u8 band_of(const struct ars_remote *rt, u32 route, u32 dev, u64 now)
{
	return ars_remote_band(rt, route, dev, now);
}

/*
 * Feedback for an active forward flowlet raises exactly its device's score
 * for its route, one band per credit of a band; nothing else moves.
 */
static bool remote_credit_that_path(void)
{
	struct ars_remote rt = table(0, BAND);
	struct ars_ctx c = ctx(T0, 0x12345678, 1);
	struct ars_flow f = { 0 };
	u32 dev, d;

	dev = step(&f, &rt, &c, NULL);
	CHECK(dev >= 1 && dev <= 4 && f.ifindex == dev);
	CHECK(ars_remote_feedback(&rt, &f, &c, ROUTE_A) ==
	      ARS_REMOTE_CREDITED);
	CHECK(band_of(&rt, ROUTE_A, dev, T0) == ARS_BAND_BEST - 1);
	CHECK(ars_remote_feedback(&rt, &f, &c, ROUTE_A) ==
	      ARS_REMOTE_CREDITED);
	CHECK(band_of(&rt, ROUTE_A, dev, T0) == ARS_BAND_BEST - 2);
	for (d = 1; d <= 4; d++) {
		if (d != dev)
			CHECK(band_of(&rt, ROUTE_A, d, T0) == ARS_BAND_BEST);
		CHECK(band_of(&rt, ROUTE_B, d, T0) == ARS_BAND_BEST);
	}
	return true;
}

/*
 * Feedback that matches no active flowlet of the forward flow (another
 * flow's entry at the index, other key bits, an idle entry, an empty one)
 * credits nothing: the table is untouched.
 */
static bool remote_feedback_needs_active_entry(void)
{
	struct ars_remote rt = table(0, BAND);
	static struct ars_remote_slot before[SLOTS];
	struct ars_ctx c = ctx(T0, 0x12345678, 1), o;
	struct ars_flow f = { 0 }, empty = { 0 };

	CHECK(ars_remote_feedback(&rt, &empty, &c, ROUTE_A) ==
	      ARS_REMOTE_UNMATCHED);
	step(&f, &rt, &c, NULL);
	memcpy(before, slots, sizeof(slots));
	o = c;
	o.tag = TAG + 1;
	CHECK(ars_remote_feedback(&rt, &f, &o, ROUTE_A) ==
	      ARS_REMOTE_UNMATCHED);
	o = c;
	o.key ^= 1U << ARS_FLOW_KEY_SHIFT;
	CHECK(ars_remote_feedback(&rt, &f, &o, ROUTE_A) ==
	      ARS_REMOTE_UNMATCHED);
	o = c;
	o.now = T0 + IDLE + 1024;
	CHECK(ars_remote_feedback(&rt, &f, &o, ROUTE_A) ==
	      ARS_REMOTE_UNMATCHED);
	CHECK(!memcmp(before, slots, sizeof(slots)));
	/* within idle-time it matches */
	o.now = T0 + IDLE - 1024;
	CHECK(ars_remote_feedback(&rt, &f, &o, ROUTE_A) ==
	      ARS_REMOTE_CREDITED);
	return true;
}

/*
 * New flowlets of the route avoid a path at the cap (band 0 against
 * idle peers at band 7), and say the remote score moved them; the same
 * flowlets without the table take it a quarter of the time.
 */
static bool remote_new_flowlets_avoid(void)
{
	struct ars_remote rt = table(0, BAND);
	unsigned int i, on = 0, off = 0, moved = 0;
	u64 seed = 3;
	bool mv;

	for (i = 0; i < 7; i++)
		ars_remote_credit(&rt, ROUTE_A, 2, T0);
	CHECK(band_of(&rt, ROUTE_A, 2, T0) == 0);
	for (i = 0; i < 4000; i++) {
		struct ars_ctx c = ctx(T0 + i * 64, model_rand32(&seed),
				       model_rand32(&seed));
		struct ars_flow f = { 0 };

		mv = false;
		on += step(&f, &rt, &c, &mv) == 2;
		moved += mv;
		memset(&f, 0, sizeof(f));
		off += step(&f, NULL, &c, NULL) == 2;
	}
	CHECKF(on == 0 && moved == 4000, "on %u moved %u", on, moved);
	CHECKF(off > 800 && off < 1200, "off %u", off);
	return true;
}

/*
 * The score halves every half-life, falling linearly in between, and is
 * gone after enough of them; flowlets come back to the path as it decays.
 */
static bool remote_decays(void)
{
	struct ars_remote rt = table(0, 7 * BAND);
	u32 cap = 7 * BAND, prev = cap, s;
	struct ars_flow f = { 0 };
	struct ars_ctx c;
	u64 age;

	CHECK(ars_remote_cap(&rt.cfg) == cap);
	CHECK(ars_remote_decay(cap, 0, HALF_SHIFT) == cap);
	CHECK(ars_remote_decay(cap, HALF, HALF_SHIFT) == cap / 2);
	CHECK(ars_remote_decay(cap, HALF / 2, HALF_SHIFT) == cap * 3 / 4);
	CHECK(ars_remote_decay(cap, 2 * HALF, HALF_SHIFT) == cap / 4);
	CHECK(ars_remote_decay(cap, 24 * HALF, HALF_SHIFT) == 0);
	CHECK(ars_remote_decay(cap, ~0ULL, HALF_SHIFT) == 0);
	for (age = 0; age < 16 * HALF; age += 4096) {
		s = ars_remote_decay(cap, age, HALF_SHIFT);
		CHECKF(s <= prev, "age %llu: %u after %u",
		       (unsigned long long)age, s, prev);
		prev = s;
	}
	ars_remote_credit(&rt, ROUTE_A, 3, T0);
	CHECK(band_of(&rt, ROUTE_A, 3, T0) == 0);
	/* 1792 / 2^k, to the nearest band of 256 */
	CHECK(band_of(&rt, ROUTE_A, 3, T0 + HALF) == ARS_BAND_BEST - 4);
	CHECK(band_of(&rt, ROUTE_A, 3, T0 + 2 * HALF) == ARS_BAND_BEST - 2);
	CHECK(band_of(&rt, ROUTE_A, 3, T0 + 3 * HALF) == ARS_BAND_BEST - 1);
	CHECK(band_of(&rt, ROUTE_A, 3, T0 + 4 * HALF) == ARS_BAND_BEST);
	/* a packet with an earlier clock (another CPU's) reads it fresh */
	CHECK(band_of(&rt, ROUTE_A, 3, T0 - 640) == 0);
	/* the path is back among the best for new flowlets */
	c = ctx(T0 + 4 * HALF, 0, 0);
	{
		unsigned int i, hits = 0;
		u64 seed = 9;

		for (i = 0; i < 400; i++) {
			c.key = model_rand32(&seed);
			c.rand = model_rand32(&seed);
			memset(&f, 0, sizeof(f));
			hits += step(&f, &rt, &c, NULL) == 3;
		}
		CHECKF(hits > 60 && hits < 140, "hits %u", hits);
	}
	return true;
}

/*
 * A slot that nobody credits again stays gone: its time does not wrap
 * within years (the entries' 40 bits wrap after 19.5 hours, and a score
 * read 9.8 to 19.5 hours on would look written by a racing CPU, fresh).
 */
static bool remote_time_wrap(void)
{
	struct ars_remote rt = table(0, 7 * BAND);
	static const u64 later[] = {
		1ULL << 45, 3ULL << 44, (1ULL << 46) - 4096, 1ULL << 46,
		(1ULL << 46) + HALF, 1ULL << 52, 1ULL << 56,
	};
	unsigned int i;

	ars_remote_credit(&rt, ROUTE_A, 1, T0);
	CHECK(band_of(&rt, ROUTE_A, 1, T0) == 0);
	for (i = 0; i < ARRAY_SIZE(later); i++)
		CHECKF(band_of(&rt, ROUTE_A, 1, T0 + later[i]) ==
		       ARS_BAND_BEST, "%llu ns on: band %u",
		       (unsigned long long)later[i],
		       band_of(&rt, ROUTE_A, 1, T0 + later[i]));
	return true;
}

/*
 * A flood of feedback stays within the cap (band 0, or the configured
 * floor), and writes the slot at most once per 1/16 of the half-life.
 */
static bool remote_cap_under_flood(void)
{
	struct ars_remote rt = table(0, BAND);
	unsigned int i, writes = 0;
	u64 state = 0, now = T0;

	for (i = 0; i < 100000; i++, now += 64) {
		ars_remote_credit(&rt, ROUTE_A, 1, now);
		CHECKF(band_of(&rt, ROUTE_A, 1, now) ==
		       (i < 6 ? ARS_BAND_BEST - 1 - i : 0), "credit %u", i);
		CHECK(ars_remote_score(&rt, &ars_remote_bucket(&rt, ROUTE_A,
							       1)[0],
				       ROUTE_A, 1, now) <= 7 * BAND);
		writes += READ_ONCE(ars_remote_bucket(&rt, ROUTE_A, 1)[0].state)
			  != state;
		state = READ_ONCE(ars_remote_bucket(&rt, ROUTE_A, 1)[0].state);
	}
	/* 6.4 ms = 49 half-lives: 16 writes each, plus the first 7 */
	CHECKF(writes <= 7 + 16 * (now - T0) / HALF + 16, "writes %u",
	       writes);
	rt = table(3, 0xffff);
	for (i = 0; i < 1000; i++)
		ars_remote_credit(&rt, ROUTE_A, 1, T0 + i * 64);
	CHECK(band_of(&rt, ROUTE_A, 1, T0 + i * 64) == 3);
	/* a zero credit raises nothing, and says so */
	rt = table(0, 0);
	CHECK(!ars_remote_credit(&rt, ROUTE_A, 1, T0));
	CHECK(band_of(&rt, ROUTE_A, 1, T0) == ARS_BAND_BEST);
	/* a floor above the best band is the best: remote off */
	rt = table(ARS_BAND_BEST, BAND);
	CHECK(!ars_remote_credit(&rt, ROUTE_A, 1, T0));
	CHECK(band_of(&rt, ROUTE_A, 1, T0) == ARS_BAND_BEST);
	return true;
}

/*
 * A credit for another destination changes nothing of this route's
 * choices: the same flowlets, on the same paths, as with no table.
 * Keys that meet in a bucket share it two ways; a third takes the slot
 * whose score is lower now.
 */
static bool remote_other_destination(void)
{
	struct ars_remote rt = table(0, BAND);
	struct ars_remote_slot *b;
	unsigned int i, d;
	u64 seed = 5;
	u32 r;

	for (d = 1; d <= 4; d++)
		for (i = 0; i < 7; i++)
			ars_remote_credit(&rt, ROUTE_B, d, T0);
	for (i = 0; i < 2000; i++) {
		struct ars_ctx c = ctx(T0 + i * 64, model_rand32(&seed),
				       model_rand32(&seed));
		struct ars_flow f = { 0 }, g = { 0 };

		CHECK(step(&f, &rt, &c, NULL) == step(&g, NULL, &c, NULL));
		CHECK(!memcmp(&f, &g, sizeof(f)));
	}
	/* three keys of one bucket */
	rt = table(0, BAND);
	b = ars_remote_bucket(&rt, ROUTE_A, 1);
	for (r = 0x100, d = 0; d < 2 && r < 0x100000; r++)
		if (ars_remote_bucket(&rt, r, 1) == b) {
			for (i = 0; i <= d; i++)
				ars_remote_credit(&rt, r, 1, T0);
			d++;
		}
	CHECK(d == 2);
	ars_remote_credit(&rt, ROUTE_A, 1, T0);
	ars_remote_credit(&rt, ROUTE_A, 1, T0);
	CHECK(band_of(&rt, ROUTE_A, 1, T0) == ARS_BAND_BEST - 2);
	/* the slot of the key with one credit went, the other stayed */
	CHECK(b[0].route == ROUTE_A || b[1].route == ROUTE_A);
	CHECK((b[0].state & ARS_REMOTE_SCORE_MASK) == 2 * BAND &&
	      (b[1].state & ARS_REMOTE_SCORE_MASK) == 2 * BAND);
	return true;
}

/*
 * Remote off (no table) and a table without scores for the route make
 * exactly the choices of today's step, bit for bit, in every mode; a
 * cached route's bands are capped on a copy, never in place.
 */
static bool remote_off_same_choices(void)
{
	struct ars_remote rt = table(0, BAND);
	static const u8 modes[] = {
		ARS_MODE_FLOWLET_QUALITY, ARS_MODE_PACKET_QUALITY,
		ARS_MODE_FLOWLET_RANDOM, ARS_MODE_ECMP,
	};
	struct ars_route r, r2, local, local2, *rr;
	unsigned int i, m;
	u64 seed = 11;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		for (i = 0; i < 1000; i++) {
			struct ars_step s = { .env = &ports, .rate_weight = 50 };
			struct ars_step s2 = s;
			struct ars_ctx c = ctx(T0 + i * 64,
					       model_rand32(&seed),
					       model_rand32(&seed));
			struct ars_ctx c2 = c;
			struct ars_flow f = { 0 }, f2 = { 0 };

			c.mode = c2.mode = modes[m];
			s2.remote = &rt;
			s2.remote_route = ROUTE_A;
			model_route(&r, 4, NULL);
			model_route(&r2, 4, NULL);
			ars_step(&s, &f, &r, &local, &c);
			ars_step(&s2, &f2, &r2, &local2, &c2);
			CHECK(s.res.path == s2.res.path &&
			      s.res.reason == s2.res.reason &&
			      s.known == s2.known);
			CHECK(!memcmp(&c, &c2, sizeof(c)));
		}
	}
	/* a cached route: the copy takes the cap, the route keeps its bands */
	{
		struct ars_step s = { .env = &ports, .bands = true,
				      .known = true, .remote = &rt,
				      .remote_route = ROUTE_A };
		struct ars_ctx c = ctx(T0, 1, 1);

		for (i = 0; i < 7; i++)
			ars_remote_credit(&rt, ROUTE_A, 4, T0);
		model_route(&r, 4, NULL);
		ports.loads = 0;
		rr = ars_step(&s, NULL, &r, &local, &c);
		CHECK(rr == &local && ports.loads == 0);
		CHECK(local.path[3].band == 0 && r.path[3].band == ARS_BAND_BEST);
		CHECK(s.res.path != 3 && s.remote_moved);
	}
	return true;
}

/*
 * RoCEv2: a CNP credits the path that its address pair's newest flowlet
 * took, for that flowlet's route; not a pair without a note, not a note
 * older than the bound, and nothing without the pairs' table.
 */
static bool remote_cnp_pair(void)
{
	struct ars_remote rt = table(0, BAND);
	const u32 pair = 0x1234, other = 0x1235;
	const u64 max_age = 1000 * US;

	CHECK(ars_remote_pair_feedback(&rt, pair, T0, max_age) ==
	      ARS_REMOTE_UNMATCHED);
	ars_remote_pair_note(&rt, pair, ROUTE_A, 3, T0);
	CHECK(!memcmp(pairs, (struct ars_remote_pair[16]){ 0 },
		      sizeof(pairs)));	/* no pairs' table: nothing noted */
	rt.pairs = pairs;
	rt.pair_mask = 15;
	ars_remote_pair_note(&rt, pair, ROUTE_A, 3, T0);
	CHECK(ars_remote_pair_feedback(&rt, other, T0, max_age) ==
	      ARS_REMOTE_UNMATCHED);
	CHECK(band_of(&rt, ROUTE_A, 3, T0) == ARS_BAND_BEST);
	CHECK(ars_remote_pair_feedback(&rt, pair, T0 + 10 * US, max_age) ==
	      ARS_REMOTE_CREDITED);
	CHECK(band_of(&rt, ROUTE_A, 3, T0 + 10 * US) == ARS_BAND_BEST - 1);
	CHECK(band_of(&rt, ROUTE_A, 2, T0 + 10 * US) == ARS_BAND_BEST);
	CHECK(band_of(&rt, ROUTE_B, 3, T0 + 10 * US) == ARS_BAND_BEST);
	/* the pair's next flowlet on device 2: the CNPs go there */
	ars_remote_pair_note(&rt, pair, ROUTE_A, 2, T0 + 20 * US);
	CHECK(ars_remote_pair_feedback(&rt, pair, T0 + 30 * US, max_age) ==
	      ARS_REMOTE_CREDITED);
	CHECK(band_of(&rt, ROUTE_A, 2, T0 + 30 * US) == ARS_BAND_BEST - 1);
	/* a CNP's own credit */
	rt.cfg.cnp_credit = 7 * BAND;
	CHECK(ars_remote_pair_feedback(&rt, pair, T0 + 30 * US, max_age) ==
	      ARS_REMOTE_CREDITED);
	CHECK(band_of(&rt, ROUTE_A, 2, T0 + 30 * US) == 0);
	/* too old a note */
	CHECK(ars_remote_pair_feedback(&rt, pair, T0 + 30 * US + max_age,
				       max_age) == ARS_REMOTE_UNMATCHED);
	return true;
}

static const struct unit_test tests[] = {
	UNIT_TEST(remote_credit_that_path),
	UNIT_TEST(remote_feedback_needs_active_entry),
	UNIT_TEST(remote_new_flowlets_avoid),
	UNIT_TEST(remote_decays),
	UNIT_TEST(remote_time_wrap),
	UNIT_TEST(remote_cap_under_flood),
	UNIT_TEST(remote_other_destination),
	UNIT_TEST(remote_off_same_choices),
	UNIT_TEST(remote_cnp_pair),
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
