/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-independent core of ars: flow keys, macro-flow entries, the
 * choice of a path by mode and weight, the steering hash, and port quality.
 *
 * Everything here is plain C over ars_types.h, so the very same code runs in
 * ars.ko and on the host under the unit tests, the fuzzer and the
 * benchmark. The data plane (hook.c) turns a route into a struct ars_route,
 * asks ars_decide() for a path and turns the answer into a multipath hash
 * with ars_steer_hash().
 */
#ifndef _ARS_CORE_H
#define _ARS_CORE_H

#include "ars_types.h"
#include <linux/ars.h>

/*
 * A macro-flow entry. @state packs, so that one WRITE_ONCE() publishes them
 * together:
 *
 *   bits 63..24  last-seen time, in units of 2^ARS_TIME_SHIFT ns (40 bits,
 *                wraps after 19.5 hours; ages are computed modulo 2^40)
 *   bits 23..16  path: the next hop's position in the route (0..254)
 *   bits 15..0   generation of the route the path belongs to; 0 means the
 *                entry was never used
 *
 * @ifindex and @packets are informational (dumps) and written without
 * atomics. CPUs race benignly on an entry: two packets of one macro flow
 * arriving on two CPUs at once may both start a flowlet, and the last
 * writer wins; both were new flowlets anyway, and the entry stays coherent
 * because @state is written whole.
 */
struct ars_flow {
	u64	state;
	u32	ifindex;
	u32	packets;
};

#define ARS_TIME_SHIFT		6
#define ARS_TIME_BITS		40
#define ARS_TIME_MASK		((1ULL << ARS_TIME_BITS) - 1)
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
 * One next hop of a route, as the kernel's multipath selection sees it.
 *
 * @upper: the kernel's upper bound for hash-threshold selection, in the
 *	31-bit hash space: the kernel takes the first next hop with
 *	hash >> 1 <= upper. Dead or linkdown-ignored next hops have -1 and are
 *	unusable. For a resilient group the data plane fills cumulative
 *	weights instead; only usability (>= 0) and order matter there.
 * @weight: the configured weight (>= 1), for choices by weight.
 * @band: quality band 0..ARS_BAND_BEST (7 best).
 */
struct ars_path {
	s32	upper;
	u16	weight;
	u8	band;
};

struct ars_route {
	unsigned int	n;		/* paths in use, <= ARS_MAX_PATHS */
	u16		gen;		/* non-zero route generation */
	struct ars_path	path[ARS_MAX_PATHS];
};

static inline bool ars_path_usable(const struct ars_route *r, unsigned int i)
{
	return i < r->n && r->path[i].upper >= 0;
}

/* Everything one decision needs besides the entry and the route. */
struct ars_ctx {
	u64	now;		/* ktime in ns */
	u64	idle;		/* idle-time in ns */
	u32	key;		/* the packet's flow key */
	u32	rand;		/* a fresh random number */
	u32	ticket;		/* round-robin ticket (a shared counter) */
	u8	mode;		/* enum ars_mode */
};

/* What ars_decide() did. */
struct ars_result {
	u8	path;		/* chosen path, ARS_PATH_NONE when none usable */
	u8	old_path;	/* the entry's previous path, or ARS_PATH_NONE */
	u8	reason;		/* enum ars_reason, when @assigned */
	bool	assigned;	/* a flowlet started (flowlet modes) */
};

/**
 * ars_flow_key() - keyed hash of a packet's header words
 * @words: addresses, then protocol and ports, as the data plane lays them
 * @n: number of words
 * @seed: the namespace's random seed
 *
 * Not cryptographic: fast and well mixed, so that routers with different
 * seeds spread the same flows independently (no polarisation).
 */
u32 ars_flow_key(const u32 *words, unsigned int n, u32 seed);

/**
 * ars_choose() - choose a path of @r for @mode, ignoring flowlets
 * @r: the route; unusable paths are never chosen
 * @c: the packet's context; mode, key, rand and ticket are read
 *
 * ecmp and fixed: by weight from @c->key (stable for a key and a route);
 * *-random: by weight from @c->rand; packet-roundrobin: by weight from
 * @c->ticket (consecutive tickets visit each usable path weight times per
 * round, exactly); *-quality: the best band among usable paths, then by
 * weight from @c->rand among those of that band.
 *
 * Return: the path's index, or ARS_PATH_NONE when no path is usable.
 */
u8 ars_choose(const struct ars_route *r, const struct ars_ctx *c);

/**
 * ars_decide() - the data plane's decision for one packet
 * @f: the packet's macro-flow entry (read, and written when it changes)
 * @r: the packet's route
 * @c: the packet's context
 * @res: what was decided
 *
 * Per-packet modes choose every time (reason ARS_REASON_PACKET, entry
 * untouched). Flowlet modes keep the entry's path while the entry was seen
 * within @c->idle, its generation matches @r->gen and the path is still
 * usable; otherwise a new flowlet starts: ARS_REASON_NEW (entry empty or of
 * another generation while idle), ARS_REASON_IDLE (idle gap), or
 * ARS_REASON_FAILOVER (active entry whose path is unusable or whose route
 * generation changed). The entry's time is refreshed on every packet.
 * The ecmp mode is never passed here.
 */
void ars_decide(struct ars_flow *f, const struct ars_route *r,
		const struct ars_ctx *c, struct ars_result *res);

/**
 * ars_flowlet_continue() - ars_decide()'s common case, for a flowlet mode
 * @f: the packet's macro-flow entry
 * @r: the packet's route
 * @c: the packet's context
 * @res: filled when the flowlet continues
 *
 * The data plane calls it first, and learns the paths' quality only when a
 * new flowlet must start.
 *
 * Return: true when the entry keeps its path (entry refreshed, @res set);
 * false when a flowlet must start: then call ars_flowlet_start().
 */
bool ars_flowlet_continue(struct ars_flow *f, const struct ars_route *r,
			  const struct ars_ctx *c, struct ars_result *res);

/**
 * ars_flowlet_adopt() - carry an active flowlet over a route change
 * @f: the packet's macro-flow entry, made for another generation
 * @r: the new route
 * @c: the packet's context
 * @path: the path of @r that leads where the entry's old path led (the
 *	same device), as the data plane found it
 * @res: filled when adopted
 *
 * A route change (a next hop added or removed) renumbers the paths; the
 * flowlets on paths that remain must not move, or they would reorder.
 *
 * Return: true when the entry was active and @path is usable: the entry
 * now belongs to @r's generation and keeps going on @path.
 */
bool ars_flowlet_adopt(struct ars_flow *f, const struct ars_route *r,
		       const struct ars_ctx *c, u8 path, struct ars_result *res);

/**
 * ars_flowlet_start() - start a flowlet, as ars_decide() does
 * @f: the packet's macro-flow entry
 * @r: the packet's route, with the paths' bands
 * @c: the packet's context
 * @res: what was decided
 */
void ars_flowlet_start(struct ars_flow *f, const struct ars_route *r,
		       const struct ars_ctx *c, struct ars_result *res);

/**
 * ars_steer_hash() - a multipath hash that makes the kernel take path @i
 * @r: the route
 * @i: a usable path of @r
 * @key: the flow key, to spread the hash inside the path's range
 *
 * Return: h such that (h >> 1) lies in (upper of the previous usable path,
 * upper of path @i], i.e. the kernel's hash-threshold selection picks @i.
 */
u32 ars_steer_hash(const struct ars_route *r, unsigned int i, u32 key);

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
};

/* Queueing delay at which the delay term of the quality is at its worst. */
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
};

struct ars_route_load {
	u64	max_bandwidth;	/* bit/s, 0 when none is known */
	u64	max_delay;	/* ns */
	u32	rate_weight;	/* percent of the quality from utilisation */
};

/* Widen @rl by a path's port; start from a zeroed @rl. */
static inline void ars_route_load_add(struct ars_route_load *rl,
				      const struct ars_path_load *pl)
{
	if (pl->bandwidth > rl->max_bandwidth)
		rl->max_bandwidth = pl->bandwidth;
	if (pl->delay > rl->max_delay)
		rl->max_delay = pl->delay;
}

/**
 * ars_path_band() - quality band of a path, relative to its route's peers
 * @pl: the path's port
 * @rl: the route's maxima, from ars_route_load_add() over usable paths
 *
 * Spare capacity is weighed in bits, not in per mille of each port's own
 * rate, so a port at a quarter of its peers' speed is worse than they are
 * when all are idle; and queueing delay is scaled to the worst delay among
 * the paths once that exceeds ARS_DELAY_FULL_NS, so that slow links, whose
 * queues always hold milliseconds, are still told apart. With equal
 * bandwidths and delays below ARS_DELAY_FULL_NS the band is exactly
 * ars_quality_band()'s.
 */
u8 ars_path_band(const struct ars_path_load *pl,
		 const struct ars_route_load *rl);

/* One step of an exponentially weighted moving average, by shifts. */
static inline u64 ars_ewma(u64 avg, u64 sample, unsigned int shift)
{
	return avg - (avg >> shift) + (sample >> shift);
}

#endif /* _ARS_CORE_H */
