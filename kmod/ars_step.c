// SPDX-License-Identifier: GPL-2.0
/*
 * One decision path; see ars_step.h for the contract.
 *
 * Like ars_core.c, built into ars.ko and, unchanged, into the unit tests
 * and the fabric simulation: it includes nothing but ars_step.h and calls
 * only the core and the environment's ars_env_*() functions, directly.
 * Nothing here allocates, locks or keeps a per-path array on the stack:
 * the bands are filled by reading each port twice, once for the route's
 * maxima and once for the path's band, which costs less than carrying up
 * to ARS_MAX_PATHS loads.
 */
#include "ars_step.h"

static inline bool ars_step_quality(u8 mode)
{
	return mode == ARS_MODE_PACKET_QUALITY ||
	       mode == ARS_MODE_FLOWLET_QUALITY;
}

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
 * Fill the bands of @r's usable paths, each against the others' ports;
 * false when one of them is not measured. Out of line: only packets that
 * choose in a quality mode pay for its frame.
 */
static noinline bool ars_step_bands(const struct ars_step *s,
				    struct ars_route *r, u64 now)
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

/* @r, copied into @local unless it is @local, with the alternates marked. */
static noinline struct ars_route *ars_step_alternates(const struct ars_step *s,
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

struct ars_route *ars_step(struct ars_step *s, const struct ars_flow *f,
			   struct ars_route *r, struct ars_route *local,
			   struct ars_ctx *c)
{
	struct ars_result *res = &s->res;

	/*
	 * A flow that comes back from a pause counts as a new flowlet on the
	 * port it left, before its next path is chosen: flows that pause
	 * together (losses further on, which this router's ports do not
	 * show) then do not all come back to one port.
	 */
	if (unlikely(s->window) && f && c->mode == ARS_MODE_FLOWLET_QUALITY &&
	    ars_flowlet_resumed(f, c))
		ars_env_flowlet_stamp(s->env, READ_ONCE(f->ifindex), c->now);
	if (!ars_step_quality(c->mode))
		s->known = true;
	else if (!s->bands)
		s->known = ars_step_bands(s, r, c->now);
	if (unlikely(s->alt))
		r = ars_step_alternates(s, r, local, c);

	if (f) {
		ars_flowlet_plan(f, r, c, res);
	} else {
		res->path = ars_choose(r, c);
		res->old_path = ARS_PATH_NONE;
		res->reason = ARS_REASON_PACKET;
		res->write = ARS_WRITE_NONE;
		res->assigned = false;
	}
	return r;
}

void ars_step_commit(const struct ars_step *s, struct ars_flow *f,
		     const struct ars_route *r, const struct ars_ctx *c,
		     u32 hash)
{
	u32 dev = r->path[s->res.path].dev;

	if (f)
		ars_flowlet_commit(f, c, &s->res, hash, dev);
	if (unlikely(s->window) && s->res.assigned)
		ars_env_flowlet_stamp(s->env, dev, c->now);
}

void ars_step_random(struct ars_step *s, struct ars_flow *f,
		     const struct ars_ctx *c, u32 hash, u32 dev)
{
	u64 state = READ_ONCE(f->state);
	struct ars_result *res = &s->res;

	res->path = ARS_PATH_NONE;
	res->old_path = ars_flow_path(state);
	res->reason = !ars_flow_gen(state) || READ_ONCE(f->tag) != c->tag ?
		      ARS_REASON_NEW : ARS_REASON_IDLE;
	res->write = ARS_WRITE_ALL;
	res->assigned = true;
	ars_flowlet_commit(f, c, res, hash, dev);
	if (unlikely(s->window))
		ars_env_flowlet_stamp(s->env, dev, c->now);
}
