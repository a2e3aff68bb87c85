// SPDX-License-Identifier: GPL-2.0
/*
 * One decision path; see ars_step.h for the contract. The step itself is
 * inline there, so that the data plane pays no call for it; here are the
 * parts that only some packets run.
 *
 * Like ars_core.c, built into ars.ko and, unchanged, into the unit tests,
 * the fuzzer, the benchmark and the fabric simulation: it includes nothing
 * but ars_step.h and calls only the core and the environment's ars_env_*()
 * functions, directly.
 *
 * Nothing here allocates, locks or keeps an array of ARS_MAX_PATHS on the
 * stack: the bands keep the loads of a route's first ARS_STEP_LOADS paths,
 * read once for the route's maxima and the paths' bands, and read the
 * ports of any further paths twice, which costs less than carrying (and,
 * with a zeroed stack, clearing) up to ARS_MAX_PATHS loads.
 */
#include "ars_step.h"

/* The paths whose loads ars_step_bands() keeps: a leaf's usual uplinks. */
#define ARS_STEP_LOADS	8

/* The port of usable path @i of @r, if measured, into @pl. */
static bool ars_step_load(const struct ars_step *s, const struct ars_route *r,
			  unsigned int i, u64 now, struct ars_path_load *pl)
{
	return ars_path_usable(r, i) &&
	       ars_env_path_load(s->env, r->path[i].dev, now, pl);
}

/*
 * A path's band among its route's: the one place where what is known of a
 * path becomes its rank. @remote is its remote score's band
 * (ars_remote_band()), ARS_BAND_BEST for none: the worse of the two, as
 * CONGA takes the larger of the local and the remote congestion.
 */
static inline u8 ars_step_band(u8 local, u8 remote)
{
	return local < remote ? local : remote;
}

/*
 * Out of line: only packets that choose in a quality mode pay for this
 * frame, and only those of objects with alternates for the next one's.
 */
noinline bool ars_step_bands(struct ars_step *s, struct ars_route *r, u64 now)
{
	struct ars_route_load rl = {
		.rate_weight = s->rate_weight,
		.delay_full = s->delay_full,
	};
	unsigned int i, n = r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
	/*
	 * Each load is written by ars_env_path_load() before it is read:
	 * not zeroed at every call under INIT_STACK_ALL_ZERO.
	 */
	struct ars_path_load kept[ARS_STEP_LOADS] __uninitialized;
	struct ars_path_load pl __uninitialized, *l;
	u64 measured = 0, unknown = 0;

	for (i = 0; i < n; i++) {
		l = i < ARS_STEP_LOADS ? &kept[i] : &pl;
		if (ars_step_load(s, r, i, now, l)) {
			ars_route_load_add(&rl, l);
			measured |= 1ULL << i;
		} else if (ars_path_usable(r, i)) {
			unknown |= 1ULL << i;
		}
	}
	for (i = 0; i < n; i++) {
		if (!(measured >> i & 1))
			continue;
		if (i < ARS_STEP_LOADS)
			r->path[i].band = ars_path_band(&kept[i], &rl);
		else if (ars_step_load(s, r, i, now, &pl))
			r->path[i].band = ars_path_band(&pl, &rl);
	}
	ars_bands_fill_unknown(r, unknown);
	s->max_bandwidth = rl.max_bandwidth;
	s->max_delay = rl.max_delay;
	s->unknown = unknown;
	return !unknown;
}

/*
 * The window only raises a port's utilisation, and the route's maxima
 * weigh bandwidth and delay alone: the bands of the other paths stand, so
 * only the ports within their window are read again. Most new flowlets
 * find none, and copy nothing. The result is exactly that of ranking
 * every port with its window counted (step_window_equals_full_ranking).
 */
noinline struct ars_route *ars_step_window(const struct ars_step *s,
					   struct ars_route *r,
					   struct ars_route *local,
					   struct ars_ctx *c)
{
	struct ars_route_load rl = {
		.max_bandwidth = s->max_bandwidth,
		.max_delay = s->max_delay,
		.rate_weight = s->rate_weight,
		.delay_full = s->delay_full,
	};
	unsigned int i, k, n = r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
	struct ars_path_load pl __uninitialized;
	bool fell = false;
	u64 at, age;
	u8 band;

	for (i = 0; i < n; i++) {
		if (!ars_path_usable(r, i) ||
		    !ars_env_flowlet_at(s->env, r->path[i].dev, &at))
			continue;
		/* Another CPU may have stamped it after @c->now was read. */
		age = c->now > at ? c->now - at : 0;
		if (age >= s->window)
			continue;
		if (!ars_env_path_load(s->env, r->path[i].dev, c->now, &pl))
			continue;	/* unmeasured: ranked as the best */
		ars_path_load_flowlet(&pl, age, s->window);
		band = ars_path_band(&pl, &rl);
		if (band >= r->path[i].band)
			continue;
		if (r != local) {
			local->n = n;
			for (k = 0; k < n; k++)
				local->path[k] = r->path[k];
			r = local;
		}
		r->path[i].band = band;
		c->total = 0;
		fell = true;
	}
	/* An unmeasured port is as good as the best measured one, now. */
	if (fell && s->unknown)
		ars_bands_fill_unknown(r, s->unknown);
	return r;
}

noinline struct ars_route *ars_step_alternates(const struct ars_step *s,
					       const struct ars_route *r,
					       struct ars_route *local,
					       struct ars_ctx *c)
{
	unsigned int i, n = r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;

	if (r != local) {
		local->n = n;
		for (i = 0; i < n; i++)
			local->path[i] = r->path[i];
	}
	for (i = 0; i < n; i++)
		local->path[i].alt = s->alt_mask >> i & 1;
	ars_route_alternates(local, c, s->alt);
	return local;
}

/*
 * After the local bands, whoever filled them (ars_step_bands(), a cached
 * route, ars_bands_fill_unknown() for unmeasured ports): a remote score
 * says nothing of the port, and one path's score must not make the others'
 * "best measured", so it joins last, on a copy, leaving a cached route's
 * bands its own.
 */
noinline struct ars_route *ars_step_remote(struct ars_step *s,
					   const struct ars_route *r,
					   struct ars_route *local, u64 now)
{
	unsigned int i, n = r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
	int best = -1, lowered = -1;	/* the best local bands: all, lowered */
	u8 band;

	if (r != local) {
		local->n = n;
		for (i = 0; i < n; i++)
			local->path[i] = r->path[i];
	}
	for (i = 0; i < n; i++) {
		if (!ars_path_usable(local, i))
			continue;
		if (local->path[i].band > best)
			best = local->path[i].band;
		band = ars_step_band(local->path[i].band,
				     ars_remote_band(s->remote,
						     s->remote_route,
						     local->path[i].dev, now));
		if (band == local->path[i].band)
			continue;
		if (local->path[i].band > lowered)
			lowered = local->path[i].band;
		local->path[i].band = band;
	}
	s->remote_moved = lowered >= 0 && lowered == best;
	return local;
}
