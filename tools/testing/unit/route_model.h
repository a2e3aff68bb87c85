/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference model of the kernel's side, shared by the unit tests, the
 * fuzzer and the benchmark: how the kernel spreads next hops over the
 * 31-bit hash space (fib_rebalance()), how it selects one from a hash
 * (fib_select_multipath(), nexthop_select_path_hthr()) and how a resilient
 * group picks a bucket (nexthop_select_path_res()); plus a small PRNG.
 */
#ifndef _ARS_ROUTE_MODEL_H
#define _ARS_ROUTE_MODEL_H

#include <string.h>
#include "ars_core.h"

/* splitmix64: deterministic, good enough for tests. */
static inline u64 model_rand64(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u32 model_rand32(u64 *s)
{
	return (u32)(model_rand64(s) >> 32);
}

/*
 * fib_rebalance(): paths with upper < 0 are dead; the others get
 * DIV_ROUND_CLOSEST(cumulative weight << 31, total) - 1.
 */
static inline u64 model_weight(const struct ars_path *p)
{
	return p->weight ? p->weight : 1;	/* the kernel's are >= 1 */
}

static inline void model_rebalance(struct ars_route *r)
{
	u64 total = 0, w = 0;
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->path[i].upper >= 0)
			total += model_weight(&r->path[i]);
	for (i = 0; i < r->n; i++) {
		if (r->path[i].upper < 0)
			continue;
		w += model_weight(&r->path[i]);
		r->path[i].upper = (s32)((((w << 31) + total / 2) / total) - 1);
	}
}

/*
 * A route of @n paths of @weights (NULL: all 1), all alive, band 7; path i
 * leads to device i + 1.
 */
static inline void model_route(struct ars_route *r, unsigned int n,
			       const u16 *weights)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->n = n;
	for (i = 0; i < n; i++) {
		r->path[i].dev = i + 1;
		r->path[i].weight = weights ? weights[i] : 1;
		r->path[i].band = ARS_BAND_BEST;
		r->path[i].upper = 0;
	}
	model_rebalance(r);
}

/*
 * A route over the devices @devs (weights 1, band 7), as the kernel lists
 * it after a change: the same devices may come in another order.
 */
static inline void model_route_devs(struct ars_route *r, unsigned int n,
				    const u32 *devs)
{
	unsigned int i;

	model_route(r, n, NULL);
	for (i = 0; i < n; i++)
		r->path[i].dev = devs[i];
}

/* Mark path @i dead (or alive again) and rebalance, as the kernel does. */
static inline void model_set_dead(struct ars_route *r, unsigned int i,
				  bool dead)
{
	r->path[i].upper = dead ? -1 : 0;
	model_rebalance(r);
}

/* Hash-threshold selection: the first path with (h >> 1) <= upper. */
static inline int model_select(const struct ars_route *r, u32 h)
{
	int hash = (int)(h >> 1);
	unsigned int i;

	for (i = 0; i < r->n && i < ARS_MAX_PATHS; i++)
		if (hash <= r->path[i].upper)
			return (int)i;
	return -1;
}

/* Resilient group: the bucket the kernel reads for hash @h. */
static inline u32 model_bucket(u32 h, u32 nbuckets)
{
	return (u32)((int)(h >> 1) % (int)nbuckets);
}

#endif /* _ARS_ROUTE_MODEL_H */
