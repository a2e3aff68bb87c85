/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-independent core of ars: flow keys, macro-flow entries, the
 * choice of a path by mode and weight, the steering hash, and port quality.
 *
 * Everything here is plain C over ars_types.h, so the very same code runs in
 * ars.ko and on the host under the unit tests, the fuzzer and the
 * benchmark. The data plane (hook.c) turns a route into a struct ars_route,
 * asks the decision path (ars_step.h) for a path and turns the answer into
 * a multipath hash with ars_steer_hash().
 */
#ifndef _ARS_CORE_H
#define _ARS_CORE_H

#include "ars_types.h"
#include <linux/ars.h>

/*
 * Knuth's multiplier, a prime near 2^32 / golden ratio: a product with it
 * spreads consecutive values over the whole word, the high bits best. The
 * flowlet tickets, the steering hash, the route tag's seed and the remote
 * tables all hash with it.
 */
#define ARS_SPREAD	0x9e3779b1U

/*
 * A macro-flow entry: what the choice for the entry's flowlet produced, so
 * that a packet of a flowlet that goes on is steered from the entry alone,
 * without a route lookup. 32 bytes, two to a cache line.
 *
 * @state packs, so that one WRITE_ONCE() publishes them together:
 *
 *   bits 63..24  last-seen time, in units of 2^ARS_TIME_SHIFT ns (40 bits,
 *                wraps after 19.5 hours; ages are computed modulo 2^40)
 *   bits 23..16  path: the next hop's position in the route (0..254), or
 *                ARS_PATH_NONE while it is not known (a flowlet-random
 *                flowlet whose route was not looked up yet)
 *   bits 15..0   generation of the namespace's routing state (c->gen) when
 *                the entry was last checked against its route; 0 means
 *                the entry was never used
 *
 * @tag tells which packets the entry was made for (a hash of the fields
 * the route lookup keys on: addresses, protocol, mark, input device); a
 * packet with another tag shares the entry's flowlet, as any flows of one
 * macro flow do, but is checked against its own route. @hash is the
 * steering hash of the path, @ifindex its device, @flowlets how many
 * flowlets the entry started (for dumps). @idle, @object, @own and
 * @key_hi are the data plane's, and the core leaves them alone: the idle
 * time (ns) and the slot of the ARS object that steers the entry's
 * flowlet, so that a packet of a flowlet that goes on needs no object
 * either; in the namespace's table, 1 + the slot of the object whose own
 * table holds the flowlet that last started at the entry's index (0:
 * none), a hint for the next packets, read only while some object has a
 * table of its own; and bits 6..21 of the flowlet's flow key, so that the
 * entry moves to a table of another size exactly (every table has at
 * least 64 entries, so its index holds the bits below).
 *
 * The entry is written when a flowlet starts and, while it goes on, at
 * most once per 1/2^ARS_REFRESH_SHIFT of the idle time (as dst->lastuse
 * is), so that CPUs forwarding flows of neighbouring entries do not
 * bounce its cache line; an idle gap is therefore measured within that
 * fraction. CPUs race benignly on an entry: the fields are written one by
 * one, so a reader may pair one flowlet's state with another's hash; any
 * hash is a valid multipath hash, and the kernel never takes an unusable
 * next hop for it, so the worst case is one packet on another usable path.
 */
struct ars_flow {
	u64	state;
	u32	tag;
	u32	hash;
	u32	ifindex;
	u32	flowlets;
	u32	idle;
	u8	object;
	u8	own;
	u16	key_hi;
};

/* The bits of a flow key that every table's index holds (ARS_TABLE_SIZE_MIN). */
#define ARS_FLOW_KEY_SHIFT	6

#define ARS_TIME_SHIFT		6
#define ARS_TIME_BITS		40
#define ARS_TIME_MASK		((1ULL << ARS_TIME_BITS) - 1)
#define ARS_REFRESH_SHIFT	4
#define ARS_PATH_NONE		0xff
#define ARS_MAX_PATHS		64	/* routes with more are not steered */

static inline u64 ars_flow_pack(u64 now_ns, u8 path, u16 gen)
{
	return (((now_ns >> ARS_TIME_SHIFT) & ARS_TIME_MASK) << 24) |
	       ((u64)path << 16) | gen;
}

static inline u64 ars_flow_time(u64 state)
{
	return state >> 24;
}

static inline u8 ars_flow_path(u64 state)
{
	return (state >> 16) & 0xff;
}

static inline u16 ars_flow_gen(u64 state)
{
	return state & 0xffff;
}

/* Nanoseconds since the entry last saw a packet, at @now_ns. */
static inline u64 ars_flow_age(u64 state, u64 now_ns)
{
	u64 now = (now_ns >> ARS_TIME_SHIFT) & ARS_TIME_MASK;

	return ((now - ars_flow_time(state)) & ARS_TIME_MASK) << ARS_TIME_SHIFT;
}

/*
 * Whether an entry last seen at @state's time is active at @now_ns for an
 * idle time of @idle ns: its age, or a time up to @idle in the future (a
 * racing CPU's), is within @idle; ages are modulo 2^40 units (see
 * "Flowlets" in ars_core.c). Inline: every new flowlet tests it.
 */
static inline bool ars_flow_live(u64 state, u64 now_ns, u64 idle)
{
	u64 now = (now_ns >> ARS_TIME_SHIFT) & ARS_TIME_MASK;
	u64 age = (now - ars_flow_time(state)) & ARS_TIME_MASK;

	if ((age << ARS_TIME_SHIFT) <= idle)
		return true;
	return (((0 - age) & ARS_TIME_MASK) << ARS_TIME_SHIFT) <= idle;
}

/*
 * One next hop of a route, as the kernel's multipath selection sees it.
 *
 * @upper: the kernel's upper bound for hash-threshold selection, in the
 *	31-bit hash space: the kernel takes the first next hop with
 *	hash >> 1 <= upper. Dead or linkdown-ignored next hops have -1 and are
 *	unusable. For a resilient group the data plane fills cumulative
 *	weights instead; only usability (>= 0) and order matter there.
 * @dev: what the path leads to (the data plane's egress ifindex), so that
 *	a flowlet follows its device when the route changes.
 * @weight: the configured weight (>= 1), for choices by weight.
 * @band: quality band 0..ARS_BAND_BEST (7 best).
 * @alt: an alternate path of the packet's object; read only by
 *	ars_route_alternates(), so the data plane sets it, on every path,
 *	only for objects that have alternates.
 */
struct ars_path {
	s32	upper;
	u32	dev;
	u16	weight;
	u8	band;
	u8	alt;
};

struct ars_route {
	unsigned int	n;		/* paths in use, <= ARS_MAX_PATHS */
	struct ars_path	path[ARS_MAX_PATHS];
};

static inline bool ars_path_usable(const struct ars_route *r, unsigned int i)
{
	return i < r->n && r->path[i].upper >= 0;
}

/* Paths beyond ARS_MAX_PATHS do not exist, whatever @r->n says. */
static inline unsigned int ars_npaths(const struct ars_route *r)
{
	return r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
}

static inline bool ars_usable(const struct ars_route *r, unsigned int i)
{
	return i < ars_npaths(r) && r->path[i].upper >= 0;
}

/* Scale @x, uniform over u32, into [0, @n) without a division. */
static inline u32 ars_scale(u32 x, u32 n)
{
	return (u32)(((u64)x * n) >> 32);
}

/* Whether @mode (ARS_MODE_*) steers flowlets rather than packets. */
static inline bool ars_mode_flowlet(u32 mode)
{
	return mode == ARS_MODE_FLOWLET_RANDOM ||
	       mode == ARS_MODE_FLOWLET_QUALITY;
}

/* Everything one decision needs besides the entry and the route. */
struct ars_ctx {
	u64	now;		/* ktime in ns */
	u64	idle;		/* idle-time in ns */
	u32	key;		/* the packet's flow key */
	u32	tag;		/* the packet's route key (struct ars_flow) */
	u32	rand;		/* a fresh random number */
	u64	ticket;		/* round-robin ticket (a shared counter) */
	u16	gen;		/* routing state's generation, non-zero */
	u8	mode;		/* enum ars_mode */
	/*
	 * The quality modes' best band among the route's usable paths and
	 * their total weight, when the caller knows them for the route it
	 * passes (ars_step(), from a cached route's bands): @total 0, they
	 * are not known and ars_choose() finds them (ars_route_best()).
	 */
	u8	best;
	u32	total;
};

/* How ars_flowlet_commit() writes the entry. */
enum ars_write {
	ARS_WRITE_NONE,		/* not at all */
	ARS_WRITE_TIME,		/* the last-seen time only */
	ARS_WRITE_ALL,		/* path, hash, device, time and tag */
};

/* What a packet's decision planned (ars_flowlet_plan(), ars_step()). */
struct ars_result {
	u8	path;		/* chosen path, ARS_PATH_NONE when none usable */
	u8	old_path;	/* the entry's previous path, or ARS_PATH_NONE */
	u8	reason;		/* enum ars_reason, when @assigned */
	u8	write;		/* enum ars_write */
	bool	assigned;	/* a flowlet started (flowlet modes) */
};

/*
 * Flow keys: the structure of xxHash32 for short inputs, over whole words.
 *
 * The state starts from the seed and the length; each word is multiplied
 * by an odd constant, added in, and the state is rotated and multiplied by
 * another odd constant. For a fixed state a round is a bijection of the
 * word, and for a fixed word a bijection of the state, so no two words
 * that differ in one place collide in that round. The finaliser is
 * xxHash32's avalanche: three xorshift steps and two multiplications that
 * mix every input bit into every output bit with a probability close to
 * 1/2. The seed enters the state first, so two seeds give two unrelated
 * functions of the same words: routers seeded differently split the same
 * flows independently. Word order and the length matter (a flow and its
 * reverse are two keys). About seven instructions per word and eight for
 * the finaliser, no table, no division. It is not cryptographic: anyone
 * who knows the seed can make flows collide.
 *
 * Inline: every packet that ars steers computes a tag and a key, and a
 * call for a few multiplications costs as much as they do.
 */
#define ARS_KEY_P2	0x85ebca77U	/* xxHash32's primes */
#define ARS_KEY_P3	0xc2b2ae3dU
#define ARS_KEY_P4	0x27d4eb2fU
#define ARS_KEY_P5	0x165667b1U

static inline u32 ars_key_round(u32 h, u32 word)
{
	h += word * ARS_KEY_P3;
	return ((h << 17) | (h >> 15)) * ARS_KEY_P4;
}

static inline u32 ars_key_final(u32 h)
{
	h ^= h >> 15;
	h *= ARS_KEY_P2;
	h ^= h >> 13;
	h *= ARS_KEY_P3;
	h ^= h >> 16;
	return h;
}

/**
 * ars_flow_key() - keyed hash of a packet's header words
 * @words: addresses, then protocol and ports, as the data plane lays them
 * @n: number of words
 * @seed: the namespace's random seed
 *
 * Not cryptographic: fast and well mixed, so that routers with different
 * seeds spread the same flows independently (no polarisation).
 */
static inline u32 ars_flow_key(const u32 *words, unsigned int n, u32 seed)
{
	u32 h = seed + ARS_KEY_P5 + n * 4;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = ars_key_round(h, words[i]);
	return ars_key_final(h);
}

/**
 * ars_flow_key3() - ars_flow_key() of the three words @a, @b, @c
 * @a: the first word
 * @b: the second word
 * @c: the third word
 * @seed: the namespace's random seed
 *
 * Unrolled: an IPv4 packet's tag, for every packet that ars steers. The
 * compiler keeps ars_flow_key()'s loop for n = 3 (words stored to the
 * stack, a counted loop), a dozen instructions more.
 */
static inline u32 ars_flow_key3(u32 a, u32 b, u32 c, u32 seed)
{
	u32 h = seed + ARS_KEY_P5 + 3 * 4;

	h = ars_key_round(h, a);
	h = ars_key_round(h, b);
	h = ars_key_round(h, c);
	return ars_key_final(h);
}

/**
 * ars_flow_key_ports() - a packet's flow key from its route tag and ports
 * @tag: ars_flow_key() of what the route lookup keys on (addresses and
 *	protocol, seeded with the mark, input device and TOS)
 * @ports: the transport header's first word, 0 when it has none
 * @seed: the namespace's random seed
 *
 * ars_flow_key() of { @tag, @ports }: two rounds instead of hashing the
 * addresses twice (the tag is computed anyway, for the fast path).
 */
static inline u32 ars_flow_key_ports(u32 tag, u32 ports, u32 seed)
{
	return ars_key_final(ars_key_round(ars_key_round(seed + ARS_KEY_P5 + 8,
							 tag), ports));
}

/* Weight 0 breaks the contract; it counts as 1 so the path stays choosable. */
static inline u32 ars_weight(const struct ars_path *p)
{
	return p->weight ? p->weight : 1;
}

/* The usable path of band >= @minband in which @point (< total) falls. */
static inline u8 ars_walk(const struct ars_route *r, u8 minband, u32 point)
{
	unsigned int i, n = ars_npaths(r);

	for (i = 0; i < n; i++) {
		const struct ars_path *p = &r->path[i];
		u32 w;

		if (p->upper < 0 || p->band < minband)
			continue;
		w = ars_weight(p);
		if (point < w)
			return i;
		point -= w;
	}
	return ARS_PATH_NONE;
}

/*
 * A quality mode's choice from the best band and total its caller kept
 * (@c->total not 0): the walk alone, inline. ars_choose() makes it so
 * too; ars_flowlet_new() asks first, to save the call.
 */
static inline bool ars_choice_kept(const struct ars_ctx *c)
{
	return (c->mode == ARS_MODE_FLOWLET_QUALITY ||
		c->mode == ARS_MODE_PACKET_QUALITY) && c->total;
}

static inline u8 ars_choose_kept(const struct ars_route *r,
				 const struct ars_ctx *c)
{
	return ars_walk(r, c->best, ars_scale(c->rand, c->total));
}

/**
 * ars_choose() - choose a path of @r for @mode, ignoring flowlets
 * @r: the route; unusable paths are never chosen
 * @c: the packet's context; mode, key, rand and ticket are read, and in
 *     the quality modes best and total
 *
 * ecmp and fixed: by weight from @c->key (stable for a key and a route);
 * *-random: by weight from @c->rand; packet-roundrobin: by weight from
 * @c->ticket (consecutive tickets visit each usable path weight times per
 * round, exactly); *-quality: the best band among usable paths (@c->best
 * when @c->total is not 0, which must then be ars_route_best()'s for @r),
 * then by weight from @c->rand among those of that band.
 *
 * Return: the path's index, or ARS_PATH_NONE when no path is usable.
 */
u8 ars_choose(const struct ars_route *r, const struct ars_ctx *c);

/**
 * ars_route_best() - the best band among the usable paths of @r
 * @r: the route, its bands filled
 * @total: set to the total weight of the usable paths of that band, 0
 *         when no path is usable
 *
 * What the quality modes' ars_choose() reads first: a caller that keeps
 * a route's bands for several choices keeps these with them
 * (struct ars_ctx's @best and @total).
 */
u8 ars_route_best(const struct ars_route *r, u32 *total);

/**
 * ars_flowlet_fast() - the common case: the entry's flowlet goes on
 * @f: the packet's macro-flow entry
 * @c: the packet's context (now, idle, tag, gen)
 *
 * True when the entry was made for the packet's tag, the routing state has
 * not changed since (@c->gen) and it saw a packet within the refresh
 * interval (idle >> ARS_REFRESH_SHIFT): then @f->hash and @f->ifindex are
 * the packet's, no route is needed and nothing is written. Otherwise the
 * data plane looks the route up and calls ars_flowlet_plan().
 */
static inline bool ars_flowlet_fast(const struct ars_flow *f,
				    const struct ars_ctx *c)
{
	u64 state = READ_ONCE(f->state);

	return ars_flow_gen(state) == c->gen && READ_ONCE(f->tag) == c->tag &&
	       ars_flow_age(state, c->now) <= c->idle >> ARS_REFRESH_SHIFT;
}

/**
 * ars_flowlet_expired() - whatever the route, the packet starts a flowlet
 * @f: the packet's macro-flow entry
 * @c: the packet's context
 *
 * True when the entry is empty or was idle longer than idle-time: then
 * flowlet-random needs no route to start the flowlet (any hash will do).
 */
static inline bool ars_flowlet_expired(const struct ars_flow *f,
				       const struct ars_ctx *c)
{
	u64 state = READ_ONCE(f->state);

	return !ars_flow_gen(state) || !ars_flow_live(state, c->now, c->idle);
}

/**
 * ars_flowlet_resumed() - the packet's own flow comes back from a pause
 * @f: the packet's macro-flow entry
 * @c: the packet's context
 *
 * True when the entry holds a flowlet of the packet's tag and of its flow
 * key's bits 6..21 (@f->key_hi, the index holds those below), and saw no
 * packet for longer than idle-time. Another flow of the same addresses
 * whose key meets the entry at its index is not taken for it; nor is a
 * packet whose clock reads before the entry's last time, which another
 * CPU wrote after @c->now was read.
 */
bool ars_flowlet_resumed(const struct ars_flow *f, const struct ars_ctx *c);

/* ars_flowlet_plan() of an entry whose @state is active (ars_core.c). */
void ars_flowlet_plan_live(const struct ars_flow *f,
			   const struct ars_route *r,
			   const struct ars_ctx *c, u64 state,
			   struct ars_result *res);

/* A new flowlet for the entry's packet. */
static inline void ars_flowlet_new(const struct ars_route *r,
				   const struct ars_ctx *c, u8 old_path,
				   u8 reason, struct ars_result *res)
{
	res->path = ars_choice_kept(c) ? ars_choose_kept(r, c) :
					 ars_choose(r, c);
	res->old_path = old_path;
	res->reason = reason;
	res->assigned = res->path != ARS_PATH_NONE;
	res->write = res->assigned ? ARS_WRITE_ALL : ARS_WRITE_NONE;
}

/**
 * ars_flowlet_plan() - what a packet does to its entry, given its route
 * @f: the packet's macro-flow entry
 * @r: the packet's route; paths' bands are read in the quality modes
 * @c: the packet's context
 * @res: the plan; @res->write says how ars_flowlet_commit() writes
 *
 * An active entry (seen within idle-time) keeps its flowlet on the path
 * of @r that leads to the entry's device (@f->ifindex), preferring the
 * entry's own position: a route change, a next hop added or removed or
 * the paths reordered, moves no flowlet whose device remains. If that
 * path is gone the flowlet fails over (ARS_REASON_FAILOVER). A packet with
 * another tag shares an active entry's device if its own route has it
 * (only the time is written), and is otherwise placed by its key, as
 * ECMP would, without touching the entry. An empty or idle entry starts a
 * flowlet (ARS_REASON_NEW or ARS_REASON_IDLE) by ars_choose().
 *
 * Inline: nearly every packet that comes here starts a flowlet, and an
 * empty or idle entry needs no more than the choice; an active one is
 * planned out of line (ars_flowlet_plan_live(), ars_core.c), from the same
 * reading of its state.
 */
static inline void ars_flowlet_plan(const struct ars_flow *f,
				    const struct ars_route *r,
				    const struct ars_ctx *c,
				    struct ars_result *res)
{
	u64 state = READ_ONCE(f->state);

	if (!ars_flow_gen(state)) {
		ars_flowlet_new(r, c, ARS_PATH_NONE, ARS_REASON_NEW, res);
		return;
	}
	if (!ars_flow_live(state, c->now, c->idle)) {
		ars_flowlet_new(r, c, ars_flow_path(state),
				READ_ONCE(f->tag) == c->tag ? ARS_REASON_IDLE :
							      ARS_REASON_NEW,
				res);
		return;
	}
	ars_flowlet_plan_live(f, r, c, state, res);
}

/**
 * ars_flowlet_commit() - write the entry as planned, once the hash is known
 * @f: the entry
 * @c: the packet's context
 * @res: the plan of ars_flowlet_plan()
 * @hash: the steering hash of @res->path
 * @dev: the device of @res->path
 *
 * Only fields whose values change are written. Inline: every steered
 * flowlet, new or going on through the slow path, ends here.
 */
static inline void ars_flowlet_commit(struct ars_flow *f,
				      const struct ars_ctx *c,
				      const struct ars_result *res,
				      u32 hash, u32 dev)
{
	u64 state = READ_ONCE(f->state);

	switch (res->write) {
	case ARS_WRITE_TIME:
		WRITE_ONCE(f->state, ars_flow_pack(c->now, ars_flow_path(state),
						   ars_flow_gen(state)));
		break;
	case ARS_WRITE_ALL:
		if (READ_ONCE(f->tag) != c->tag)
			WRITE_ONCE(f->tag, c->tag);
		if (READ_ONCE(f->hash) != hash)
			WRITE_ONCE(f->hash, hash);
		if (READ_ONCE(f->ifindex) != dev)
			WRITE_ONCE(f->ifindex, dev);
		if (res->assigned)
			WRITE_ONCE(f->flowlets, READ_ONCE(f->flowlets) + 1);
		WRITE_ONCE(f->state, ars_flow_pack(c->now, res->path, c->gen));
		break;
	}
}

/*
 * Primary and alternate paths, as SAI's PRIMARY_PATH_QUALITY_THRESHOLD,
 * ALTERNATE_PATH_COST and ALTERNATE_PATH_BIAS, and SONiC's ARS_NEXTHOPS
 * roles: an object may mark next hops of its routes alternate; the
 * others are primary. Bands go from 0 (worst) to ARS_BAND_BEST (best).
 *
 * @threshold: 0..ARS_BAND_BEST + 1. While the best usable primary's band
 *	is at or above it, the primaries are good enough and no alternate
 *	gets a new flowlet; below it, the alternates compete. 0: only when
 *	no primary is usable (a backup); ARS_BAND_BEST + 1: always.
 * @cost: 0..ARS_BAND_BEST bands taken off an alternate's band when it
 *	competes (floor 0): an alternate must be that much better than the
 *	best primary to tie with it.
 * @bias: 0..100, the percentage of its weight an alternate keeps when it
 *	ties with the best primary (after the cost); 0: primaries win ties.
 */
struct ars_alt {
	u8	threshold;
	u8	cost;
	u8	bias;
};

#define ARS_ALT_BIAS_MAX	100

/**
 * ars_route_alternates() - make ars_choose() follow primaries and alternates
 * @r: the route; @alt set on every path, bands filled in the quality modes
 * @c: the packet's context; mode, rand and key are read, and may change
 * @a: the object's settings
 *
 * Rewrites the bands (and, for @a->bias, the weights) of @r, and for modes
 * without bands @c's mode, so that ars_choose() then chooses as the rules
 * above say: in the quality modes, primaries by band, alternates out or
 * ranked by band less @a->cost; in the others, which know no band, the
 * alternates take part only when no primary is usable, and the primaries
 * are otherwise chosen by weight as the mode would (by @c->key for fixed,
 * at random for the random modes, and for packet-roundrobin at random by
 * weight: its rounds count the alternates). Call it before any choice for
 * the packet, only for an object with alternates: an object without any
 * costs nothing. The bands are not a port's any more afterwards.
 *
 * Return: true when the alternates compete (some is usable and the
 * primaries are below the threshold or none is usable).
 */
bool ars_route_alternates(struct ars_route *r, struct ars_ctx *c,
			  const struct ars_alt *a);

/**
 * ars_route_find() - the usable path of @r that leads to @dev
 * @r: the route
 * @hint: the position to try first
 * @dev: the device
 *
 * Return: its index, or ARS_PATH_NONE.
 */
u8 ars_route_find(const struct ars_route *r, u8 hint, u32 dev);

/**
 * ars_bands_fill_unknown() - rank unmeasured paths as the best measured one
 * @r: the route, with the bands of its measured paths
 * @unknown: bit i set when path i is not measured
 *
 * A route whose ports are not all measured must not send every flowlet to
 * the measured ones, nor to the unmeasured ones: each unmeasured usable
 * path takes the best band among the measured usable paths, so that the
 * unmeasured compete, by weight, with the best of the rest. With none
 * measured, every path keeps the same band and the choice is by weight.
 */
void ars_bands_fill_unknown(struct ars_route *r, u64 unknown);

/*
 * Steering hashes.
 *
 * The kernel's hash-threshold selection takes the first next hop with
 * (hash >> 1) <= upper, skipping dead ones (upper -1); a resilient group
 * takes bucket (hash >> 1) % buckets. The hash we set lies inside the
 * chosen range, spread over it by the flow key: the skb hash is also what
 * RPS, fq and fq_codel tell flows apart by, so flows of one path should keep
 * distinct hashes. The key is multiplied by ARS_SPREAD first so the
 * position inside the range does not repeat the key's top bits, which
 * already chose the path in the ecmp and fixed modes. A zero hash is
 * avoided because RPS reads it as "no hash".
 *
 * Out-of-contract input (path unusable or out of range, an empty range
 * because uppers are not increasing, bucket >= buckets or beyond the hash
 * space) gets the key back:
 * the kernel then picks as plain ECMP would.
 */
#define ARS_HASH_MAX	0x7fffffffU	/* the kernel's 31-bit hash space */

static inline u32 ars_hash_of(u32 v, u32 key)
{
	u32 h = (v << 1) | (key & 1);

	return h ? h : 1;
}

/**
 * ars_steer_hash() - a multipath hash that makes the kernel take path @i
 * @r: the route
 * @i: a usable path of @r
 * @key: the flow key, to spread the hash inside the path's range
 *
 * Return: h such that (h >> 1) lies in (upper of the previous usable path,
 * upper of path @i], i.e. the kernel's hash-threshold selection picks @i.
 *
 * Inline: every flowlet that starts on a hash-threshold route asks.
 */
static inline u32 ars_steer_hash(const struct ars_route *r, unsigned int i,
				 u32 key)
{
	u32 lo = 0, hi;
	unsigned int j;

	if (unlikely(!ars_usable(r, i)))
		return key;
	hi = r->path[i].upper;
	/* The range starts above the previous usable path's upper. */
	for (j = i; j-- > 0;) {
		if (r->path[j].upper >= 0) {
			lo = (u32)r->path[j].upper + 1;
			break;
		}
	}
	if (unlikely(lo > hi))
		return key;
	return ars_hash_of(lo + ars_scale(key * ARS_SPREAD, hi - lo + 1), key);
}

/**
 * ars_steer_bucket_hash() - a hash that selects bucket @bucket of a
 * resilient group of @nbuckets buckets: (h >> 1) % @nbuckets == @bucket
 * @bucket: the bucket
 * @nbuckets: the group's bucket count (>= 1)
 * @key: the flow key, to vary the hash across flows
 */
u32 ars_steer_bucket_hash(u32 bucket, u32 nbuckets, u32 key);

/* Port quality (filled by the quality issue). */

/* Inputs of a port's quality, as the qdisc measures them. */
struct ars_quality_in {
	u64	rate;		/* bytes/s, averaged */
	u64	bandwidth;	/* bit/s, 0 when unknown */
	u64	delay;		/* ns, averaged queueing delay */
	u32	rate_weight;	/* percent of the quality from utilisation */
	u64	delay_full;	/* ns, see below; 0 for ARS_DELAY_FULL_NS */
};

/*
 * Queueing delay at which the delay term of the quality is at its worst,
 * unless the caller names another (@delay_full): a port's full buffer
 * holds about 1 ms at 10 Gbit/s, but 10 to 20 us at 400 Gbit/s, where
 * 1 ms would leave every queue in the best delay band.
 */
#define ARS_DELAY_FULL_NS	1000000ULL	/* 1 ms */

/* Utilisation in per mille of @bandwidth (0 when unknown), capped at 1000. */
u32 ars_util_permille(u64 rate, u64 bandwidth);

/* The quality band, 0..ARS_BAND_BEST, of a port on its own. */
u8 ars_quality_band(const struct ars_quality_in *q);

/*
 * What a new flowlet compares across the paths of its route: each path's
 * port, as the qdisc last published it, and the largest bandwidth and
 * queueing delay among the usable paths.
 */
struct ars_path_load {
	u64	bandwidth;	/* bit/s, 0 when unknown */
	u64	delay;		/* ns, averaged queueing delay */
	u32	util;		/* per mille of @bandwidth */
	bool	stalled;	/* packets wait and none leaves: the worst */
};

struct ars_route_load {
	u64	max_bandwidth;	/* bit/s, 0 when none is known */
	u64	max_delay;	/* ns */
	u32	rate_weight;	/* percent of the quality from utilisation */
	u64	delay_full;	/* ns, 0 for ARS_DELAY_FULL_NS */
};

/*
 * Widen @rl by a path's port; start from a zeroed @rl. A stalled port's
 * delay is its pause, not a queue to compare the others' with.
 */
static inline void ars_route_load_add(struct ars_route_load *rl,
				      const struct ars_path_load *pl)
{
	if (pl->stalled)
		return;
	if (pl->bandwidth > rl->max_bandwidth)
		rl->max_bandwidth = pl->bandwidth;
	if (pl->delay > rl->max_delay)
		rl->max_delay = pl->delay;
}

/**
 * ars_path_load_flowlet() - count a port's newest flowlet before it shows
 * @pl: the port's load, as its qdisc published it
 * @age: ns since the data plane last started a flowlet on the port
 * @window: how long a new flowlet counts so, ns; 0 for not at all
 *
 * The qdisc measures a flowlet an interval or two after its first packet,
 * but the router that sent it there knows at once. Until the qdisc does,
 * flowlets that start meanwhile (flows that start together, or come back
 * from a pause together) would all take the same idle-looking port: so a
 * port that took a new flowlet less than @window ago reads as busy as its
 * line rate. Only its utilisation changes, which ars_route_load_add()
 * does not weigh: the route's maxima are the same with it or without.
 */
static inline void ars_path_load_flowlet(struct ars_path_load *pl, u64 age,
					 u64 window)
{
	if (age < window)
		pl->util = 1000;
}

/**
 * ars_path_band() - quality band of a path, relative to its route's peers
 * @pl: the path's port
 * @rl: the route's maxima, from ars_route_load_add() over usable paths
 *
 * Spare capacity is weighed in bits, not in per mille of each port's own
 * rate, so a port at a quarter of its peers' speed is worse than they are
 * when all are idle; and queueing delay is scaled to the worst delay among
 * the paths once that exceeds the full-scale delay (@rl->delay_full, or
 * ARS_DELAY_FULL_NS when 0), so that slow links, whose queues always hold
 * milliseconds, are still told apart. With equal bandwidths and delays
 * below the full-scale delay the band is exactly ars_quality_band()'s with
 * the same @delay_full. A stalled port is band 0, whatever its figures.
 */
u8 ars_path_band(const struct ars_path_load *pl,
		 const struct ars_route_load *rl);

#endif /* _ARS_CORE_H */
