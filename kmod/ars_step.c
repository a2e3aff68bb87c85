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
 * Nothing here allocates, locks or keeps a per-path array on the stack:
 * the bands are filled by reading each port twice, once for the route's
 * maxima and once for the path's band, which costs less than carrying up
 * to ARS_MAX_PATHS loads.
 */
#include "ars_step.h"

/* The port of usable path @i of @r, if measured, into @pl. */
static bool ars_step_load(const struct ars_step *s, const struct ars_route *r,
			  unsigned int i, u64 now, struct ars_path_load *pl)
{
	return ars_path_usable(r, i) &&
	       ars_env_path_load(s->env, r->path[i].dev, now, s->window, pl);
}

/*
 * A path's band among its route's: the one place where what is known of a
 * path becomes its rank, for a remote score to join (the worse of the
 * two, as CONGA takes the larger of the local and the remote congestion).
 */
static inline u8 ars_step_band(const struct ars_path_load *pl,
			       const struct ars_route_load *rl)
{
	return ars_path_band(pl, rl);
}

/*
 * Out of line: only packets that choose in a quality mode pay for this
 * frame, and only those of objects with alternates for the next one's.
 */
noinline bool ars_step_bands(const struct ars_step *s, struct ars_route *r,
			     u64 now)
{
	struct ars_route_load rl = {
		.rate_weight = s->rate_weight,
		.delay_full = s->delay_full,
	};
	unsigned int i, n = r->n < ARS_MAX_PATHS ? r->n : ARS_MAX_PATHS;
	struct ars_path_load pl;
	u64 unknown = 0;

	for (i = 0; i < n; i++) {
		if (ars_step_load(s, r, i, now, &pl))
			ars_route_load_add(&rl, &pl);
		else if (ars_path_usable(r, i))
			unknown |= 1ULL << i;
	}
	for (i = 0; i < n; i++)
		if (ars_step_load(s, r, i, now, &pl))
			r->path[i].band = ars_step_band(&pl, &rl);
	ars_bands_fill_unknown(r, unknown);
	return !unknown;
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
