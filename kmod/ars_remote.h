/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Remote congestion (issue #34): what the transports' own echoes on the
 * reverse path say of the hops after this router's port. A DCTCP receiver
 * sets ECN-Echo in the ACKs of CE-marked data, a RoCEv2 receiver sends a
 * CNP; the router that steered the data forwards those back to the sender,
 * and its macro-flow entry of the data's flow holds the path (the device)
 * that the flow's current flowlet took. Each such feedback event credits a
 * score to that path for the route the data used; the score decays in
 * time, is capped, and is read by the decision path (ars_step()) as a band
 * that the path's local band cannot be better than: CONGA's
 * max(local, remote) congestion, which is the worse of the two bands.
 *
 * The score is kept per (route, device):
 *
 * - per route, because the hops that the local port cannot see are the
 *   route's own: in a two-tier Clos the leaf's route to another leaf's
 *   prefix is one route over all spines, and spine S's downlink to that
 *   leaf, the hop that marks, is shared by every flow of that route that
 *   leaves on the uplink to S and by no flow of another route. A score per
 *   device alone would push all destinations off a spine whose other
 *   downlinks are idle (the local band already covers the uplink), and a
 *   score per flow or address pair would teach only that pair's next
 *   flowlets, where every flow of the route meets the same hop. The route
 *   key is the caller's: the kernel's route (its nexthop group or fib_info
 *   hashed), the simulator's destination leaf.
 * - per device, not per position in the route, as the macro-flow entry
 *   keeps it (@ifindex), so that a score stays with its link when the
 *   route's next hops change or are reordered.
 *
 * The table is fixed in size and two-way associative; nothing allocates or
 * locks. Concurrent writers race benignly: a credit may be lost, or a
 * reader may pair one slot's key with its previous occupant's score for
 * one read; a score only ever ranks a path, bounded by the cap.
 *
 * Plain C over ars_core.h, like ars_core.c: no floating point, no 64-bit
 * division (the decay is shifts and one multiplication).
 */
#ifndef _ARS_REMOTE_H
#define _ARS_REMOTE_H

#include "ars_core.h"

/* A score of 1 << ARS_REMOTE_BAND_SHIFT costs a path one band (rounded). */
#define ARS_REMOTE_BAND_SHIFT	8
/*
 * A slot's score and time share a u64: the score needs 11 bits (the cap is
 * at most ARS_BAND_BEST bands), the time the rest, so that it wraps after
 * 9 years, not after the 19.5 hours of a macro-flow entry's 40 bits: a
 * slot that nobody credits may stay for ever, and must not read fresh
 * again when its time wraps.
 */
#define ARS_REMOTE_SCORE_BITS	12
#define ARS_REMOTE_SCORE_MASK	((1U << ARS_REMOTE_SCORE_BITS) - 1)
#define ARS_REMOTE_TIME_BITS	(64 - ARS_REMOTE_SCORE_BITS)
#define ARS_REMOTE_TIME_MASK	((1ULL << ARS_REMOTE_TIME_BITS) - 1)
/* The half-life's bounds, as shifts of ns: 64 ns (one time unit) .. 550 s. */
#define ARS_REMOTE_HALF_MIN	ARS_TIME_SHIFT
#define ARS_REMOTE_HALF_MAX	39

/*
 * @half_shift: the score halves every 2^@half_shift ns (in between it
 *	falls linearly from one halving to the next), ARS_REMOTE_HALF_MIN ..
 *	ARS_REMOTE_HALF_MAX
 * @floor: the worst band a remote score makes, 0 .. ARS_BAND_BEST: 0 is
 *	"as bad as a busy, or stalled, local port"
 * @credit: the score a feedback event adds; 1 << ARS_REMOTE_BAND_SHIFT
 *	is one band
 * @cnp_credit: the score a CNP adds, 0 for @credit: a NIC sends one per
 *	queue pair per interval (DCQCN's 50 us) however many packets were
 *	marked, where a DCTCP receiver echoes each
 */
struct ars_remote_cfg {
	u8	half_shift;
	u8	floor;
	u16	credit;
	u16	cnp_credit;
};

/*
 * @state packs, so that one WRITE_ONCE() publishes them together:
 *   bits 63..12  the time of the last credit, in units of 2^ARS_TIME_SHIFT
 *                ns (52 bits)
 *   bits 11..0   the score at that time
 * @route and @dev: whose score it is; @dev 0: empty.
 */
struct ars_remote_slot {
	u64	state;
	u32	route;
	u32	dev;
};

/*
 * RoCEv2's feedback does not mirror its flow: data goes to UDP port 4791
 * from an entropy source port (one per queue pair, the flow that the
 * macro-flow table keys), and the CNP that the receiver's NIC sends back
 * names the sender's queue pair, not that port. So a CNP cannot find its
 * flow's entry; what it can name is its address pair. The data plane
 * notes, whenever a flowlet of a RoCEv2 flow starts (not per packet), the
 * path it took in the slot of its address pair; a CNP for the reverse
 * pair credits the path noted last, if it is younger than a bound the
 * caller sets (a flowlet may last long; its note is not refreshed). With one queue pair per address pair (or all of a pair's
 * on one path) that is the flow's own path; with several on several
 * paths, the newest flowlet's, which the receiver's NIC may not have
 * meant: the credit is still the pair's own, bounded as any.
 *
 * @pair: the address pair's key (the data plane's hash of the addresses)
 * @route, @dev: the route key and device of its newest flowlet
 * @time: when that flowlet started, ns; 0: empty
 */
struct ars_remote_pair {
	u64	time;
	u32	pair;
	u32	route;
	u32	dev;
};

/*
 * @slot: 2 * (@mask + 1) slots (a power of two, at least 2), zeroed
 * @mask: the number of two-slot buckets, minus one
 * @seed: spreads the keys over the buckets
 * @pairs: @pair_mask + 1 slots of address pairs (a power of two), zeroed;
 *	NULL: no RoCEv2 feedback
 */
struct ars_remote {
	struct ars_remote_cfg	cfg;
	u32			mask;
	u32			seed;
	struct ars_remote_slot	*slot;
	struct ars_remote_pair	*pairs;
	u32			pair_mask;
};

/* What ars_remote_feedback() did, for the data plane's counters. */
enum ars_remote_fb {
	ARS_REMOTE_UNMATCHED,	/* no active entry of the forward flow */
	ARS_REMOTE_MATCHED,	/* the path's score is at its cap already */
	ARS_REMOTE_CREDITED,	/* the path's score rose */
};

/* The largest score under @cfg: the band drop from ARS_BAND_BEST to floor. */
static inline u32 ars_remote_cap(const struct ars_remote_cfg *cfg)
{
	u32 floor = cfg->floor < ARS_BAND_BEST ? cfg->floor : ARS_BAND_BEST;

	return (u32)(ARS_BAND_BEST - floor) << ARS_REMOTE_BAND_SHIFT;
}

/* @cfg's half-life, as a shift of ns, within its bounds. */
static inline u8 ars_remote_half(const struct ars_remote_cfg *cfg)
{
	if (cfg->half_shift < ARS_REMOTE_HALF_MIN)
		return ARS_REMOTE_HALF_MIN;
	if (cfg->half_shift > ARS_REMOTE_HALF_MAX)
		return ARS_REMOTE_HALF_MAX;
	return cfg->half_shift;
}

/* ns since @state was written, at @now; 0 when it was written after. */
static inline u64 ars_remote_age(u64 state, u64 now)
{
	u64 t = ((now >> ARS_TIME_SHIFT) - (state >> ARS_REMOTE_SCORE_BITS)) &
		ARS_REMOTE_TIME_MASK;

	/* written after @now was read, by a CPU with a later clock: fresh */
	if (t >> (ARS_REMOTE_TIME_BITS - 1))
		return 0;
	return t << ARS_TIME_SHIFT;
}

/* The first of the two slots that (@route, @dev) may take. */
static inline struct ars_remote_slot *
ars_remote_bucket(const struct ars_remote *rt, u32 route, u32 dev)
{
	u32 h = (route ^ rt->seed) * ARS_SPREAD;

	h = (h ^ (h >> 15) ^ dev) * ARS_KEY_P2;
	h ^= h >> 13;
	return &rt->slot[(h & rt->mask) << 1];
}

/**
 * ars_remote_decay() - a score as it reads @age ns after it was written
 * @score: the score then, at most ARS_REMOTE_SCORE_MASK
 * @age: ns since
 * @half_shift: the half-life, as a shift of ns
 */
static inline u32 ars_remote_decay(u32 score, u64 age, u8 half_shift)
{
	u64 halvings = age >> half_shift;
	u64 frac = age & ((1ULL << half_shift) - 1);

	if (halvings >= 32)
		return 0;
	score >>= halvings;
	/* a slot's score < 2^12, frac < 2^ARS_REMOTE_HALF_MAX: the product fits */
	return score - (u32)(((u64)score * frac) >> (half_shift + 1));
}

/**
 * ars_remote_score() - the current score of one slot for (@route, @dev)
 * @rt: the table
 * @s: the slot
 * @route: the route key
 * @dev: the device
 * @now: ns
 *
 * Return: 0 when the slot holds another key.
 */
static inline u32 ars_remote_score(const struct ars_remote *rt,
				   const struct ars_remote_slot *s, u32 route,
				   u32 dev, u64 now)
{
	u64 state = READ_ONCE(s->state);

	if (READ_ONCE(s->dev) != dev || READ_ONCE(s->route) != route)
		return 0;
	return ars_remote_decay((u32)(state & ARS_REMOTE_SCORE_MASK),
				ars_remote_age(state, now),
				ars_remote_half(&rt->cfg));
}

/**
 * ars_remote_band() - the band that (@route, @dev)'s remote score allows
 * @rt: the table
 * @route: the route key
 * @dev: the path's device
 * @now: ns
 *
 * Return: ARS_BAND_BEST without a score, down to @rt->cfg.floor at the
 * cap; the decision path takes the worse of it and the local band.
 */
static inline u8 ars_remote_band(const struct ars_remote *rt, u32 route,
				 u32 dev, u64 now)
{
	const struct ars_remote_slot *s = ars_remote_bucket(rt, route, dev);
	u32 s0 = ars_remote_score(rt, &s[0], route, dev, now);
	u32 s1 = ars_remote_score(rt, &s[1], route, dev, now);
	/* to the nearest band: a score at its cap, a little decayed, is 0 */
	u32 drop = ((s0 > s1 ? s0 : s1) + (1U << (ARS_REMOTE_BAND_SHIFT - 1)))
		   >> ARS_REMOTE_BAND_SHIFT;
	u32 max = ars_remote_cap(&rt->cfg) >> ARS_REMOTE_BAND_SHIFT;

	return ARS_BAND_BEST - (drop < max ? drop : max);
}

/**
 * ars_remote_credit() - a feedback event for (@route, @dev)
 * @rt: the table
 * @route: the route key of the flow that the feedback is for
 * @dev: the device its flowlet left on
 * @now: ns
 *
 * Adds @rt->cfg.credit to the decayed score, up to the cap. A key without
 * a slot takes the one of its bucket whose score is lower now. A score
 * written at its cap less than 1/16 of the half-life ago (it reads at
 * most 1/32 below) is not written again, so that a flood of feedback
 * writes the slot's line at most 16 times per half-life.
 *
 * Return: true when the score rose.
 */
bool ars_remote_credit(struct ars_remote *rt, u32 route, u32 dev, u64 now);

/**
 * ars_remote_feedback() - feedback for a forward flow: credit its path
 * @rt: the table
 * @f: the forward flow's macro-flow entry (the feedback packet's key with
 *	addresses and ports swapped)
 * @c: the forward flow's context: @key, @tag, @now and @idle (the
 *	entry's idle time)
 * @route: the route key of the forward flow
 *
 * Credits the device that @f's flowlet holds only when @f holds an active
 * flowlet of the forward flow itself (its tag and key bits, seen within
 * idle-time): feedback for a flow that this router does not steer, or no
 * longer, changes nothing.
 *
 * Return: what was done (enum ars_remote_fb).
 */
enum ars_remote_fb ars_remote_feedback(struct ars_remote *rt,
				       const struct ars_flow *f,
				       const struct ars_ctx *c, u32 route);

/**
 * ars_remote_pair_note() - a RoCEv2 flowlet of @pair started on @dev
 * @rt: the table
 * @pair: the address pair's key
 * @route: the route key of the flowlet's route
 * @dev: its device
 * @now: ns
 */
void ars_remote_pair_note(struct ars_remote *rt, u32 pair, u32 route,
			  u32 dev, u64 now);

/**
 * ars_remote_pair_feedback() - a CNP for the flows of @pair
 * @rt: the table
 * @pair: the key of the data's address pair (the CNP's, swapped)
 * @now: ns
 * @max_age: ns; an older note is taken for no flow's any more
 *
 * Return: what was done (enum ars_remote_fb).
 */
enum ars_remote_fb ars_remote_pair_feedback(struct ars_remote *rt, u32 pair,
					    u64 now, u64 max_age);

#endif /* _ARS_REMOTE_H */
