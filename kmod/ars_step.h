/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One decision path: what the data plane does for a packet that needs its
 * route (a flowlet that starts or is refreshed, a per-packet choice), as
 * one call over the core, so that ars.ko, the unit tests and the fabric
 * simulation run the same code for every packet.
 *
 * The caller keeps what only it can do: find the entry, look the route up
 * (or take it from a cache), say which paths are alternates, turn the path
 * into a hash and check that the packet is forwarded with it. In between,
 * ars_step() handles a flow back from a pause, fills the bands from the
 * ports' figures, rewrites the route for alternates and plans or chooses;
 * once the hash is accepted, ars_step_commit() writes the entry and stamps
 * the port. ars_step_random() is flowlet-random's start without a route.
 *
 * Plain C over ars_core.h, like ars_core.c.
 */
#ifndef _ARS_STEP_H
#define _ARS_STEP_H

#include "ars_core.h"
#include "ars_remote.h"

/*
 * The environment's ports, by device, for the path that leads there; each
 * environment defines them once (kmod/ports.c, the sim's glue, the unit
 * tests), so that the step makes plain calls, not indirect ones. @env is
 * the caller's (&struct ars_step's @env).
 *
 * ars_env_path_load(): the port's figures as its qdiscs published them,
 * a stalled queue as stalled; false when the port is not measured. A
 * remote score of the path (issue #34) is not the port's: the step reads
 * it from its own table (@remote).
 *
 * ars_env_flowlet_stamp(): a flowlet started on, or left, the port at @now.
 *
 * ars_env_flowlet_at(): when the port's last stamp was, into @at; false
 * when it has none (or no port). Read by the step's flowlet window
 * (ars_step_window()).
 */
bool ars_env_path_load(void *env, u32 dev, u64 now, struct ars_path_load *pl);
void ars_env_flowlet_stamp(void *env, u32 dev, u64 now);
bool ars_env_flowlet_at(void *env, u32 dev, u64 *at);

/*
 * One packet's step. The caller fills the inputs; ars_step() the outputs.
 *
 * @env: passed to ars_env_*()
 * @window: the profile's flowlet window, ns; 0: none
 * @delay_full: the full-scale delay of the bands (struct ars_route_load)
 * @rate_weight: the profile's rate weight
 * @alt: the object's alternates settings, NULL when it has none
 * @alt_mask: bit i set when path i is an alternate (with @alt)
 * @bands: the route holds its bands already (a cached route's); @known
 *	then says whether they were all measured, and @total, when not 0,
 *	that @best and it are the route's ars_route_best(); with a @window,
 *	@max_bandwidth, @max_delay and @unknown are what they were
 *	measured with
 * @max_bandwidth: out (in with @bands and a @window): the route's
 *	largest bandwidth, bit/s, as ars_route_load_add() found it
 * @max_delay: out (in with @bands and a @window): its largest queueing
 *	delay, ns
 * @unknown: out (in with @bands and a @window): bit i set when usable
 *	path i's port is not measured
 * @best: in with @bands and @total: the route's best band
 * @total: in with @bands: the usable paths of @best's total weight; 0:
 *	not known
 * @known: out (in with @bands): every usable path's port is measured;
 *	true in the modes without bands
 * @remote: the remote-congestion scores (ars_remote.h) that the quality
 *	modes' bands take into account, NULL for none: then nothing of
 *	them is read and the choice is exactly as without them
 * @remote_route: with @remote, the route key of @r (ars_remote.h)
 * @remote_moved: out, with @remote in the quality modes: a remote score
 *	lowered a path that was among the locally best, which the choice
 *	would have weighed without it
 * @res: out: the plan (flowlet modes) or the choice (per packet:
 *	ARS_REASON_PACKET, nothing written, nothing assigned)
 */
struct ars_step {
	void			*env;
	u64			window;
	u64			delay_full;
	u64			max_bandwidth;
	u64			max_delay;
	u64			unknown;
	u64			alt_mask;
	const struct ars_alt	*alt;
	const struct ars_remote	*remote;
	u32			remote_route;
	u32			rate_weight;
	u32			total;
	u8			best;
	bool			bands;
	bool			known;
	bool			remote_moved;
	struct ars_result	res;
};

/* ars_step.c: the parts that only some packets run (see ars_step()). */

/*
 * Fill the bands of @r's usable paths, each against the others' ports, and
 * @s's maxima; false when one of them is not measured.
 */
bool ars_step_bands(struct ars_step *s, struct ars_route *r, u64 now);

/*
 * The flowlet window: each usable path whose port took a new flowlet less
 * than @s->window ago ranks as its port would at its line rate
 * (ars_path_load_flowlet()), against the maxima the bands were measured
 * with, and the unmeasured ones then as the best measured again
 * (ars_bands_fill_unknown()). @r is copied into @local (unless it is
 * @local) only when a band falls, and @c->total is then 0; returns the
 * route for the choice.
 */
struct ars_route *ars_step_window(const struct ars_step *s,
				  struct ars_route *r,
				  struct ars_route *local,
				  struct ars_ctx *c);

/*
 * @r, copied into @local unless it is @local, each usable path's band the
 * worse of its band and its remote score's (ars_remote_band()); returns
 * @local.
 */
struct ars_route *ars_step_remote(struct ars_step *s,
				  const struct ars_route *r,
				  struct ars_route *local, u64 now);

/* @r, copied into @local unless it is @local, with the alternates marked
 * and rewritten; returns @local.
 */
struct ars_route *ars_step_alternates(const struct ars_step *s,
				      const struct ars_route *r,
				      struct ars_route *local,
				      struct ars_ctx *c);

/**
 * ars_step() - plan a packet's path with its route
 * @s: the step's inputs; its outputs
 * @f: the packet's entry in the flowlet modes, NULL in the others
 * @r: the route; in the quality modes its bands are filled in place
 *	(unless @s->bands)
 * @local: room for a copy of @r, which the flowlet window, remote scores
 *	and alternates rewrite (@r itself may be @local)
 * @c: the packet's context; the alternates may change its mode and rand,
 *	and the quality modes set its best and total (0 when not kept)
 *
 * In order: with a flowlet window, a flow that comes back from a pause
 * (ars_flowlet_resumed(), flowlet-quality) counts as a new flowlet on the
 * port it left, before its next path is chosen, so that flows that pause
 * together (losses further on, which this router's ports do not show) do
 * not all come back to one port; in the quality modes each usable path's
 * band is its port's against the other usable paths'
 * (ars_step_bands()), unmeasured ones as the best measured
 * (ars_bands_fill_unknown()), or with @s->bands those of the route, and
 * its best band and total weight, as the caller kept them (@s->total);
 * with a flowlet window, in flowlet-quality, the ports that took a new
 * flowlet within it rank as busy, on a copy in @local
 * (ars_step_window(): the bands of a cached route stay those of its
 * ports, for the packets that read them next); with remote scores,
 * @local takes @r and
 * each path's band is capped by its score's (ars_step_remote(), whatever
 * measured the bands, so that a cached route keeps its own); with
 * alternates, @local takes @r and the
 * marks of @s->alt_mask and is rewritten (ars_route_alternates()); then
 * ars_flowlet_plan() with @f, or ars_choose(). Inline: the data plane's
 * slow path runs it as its own code, as before the step existed.
 *
 * Return: the route that @s->res.path indexes (@r or @local); the path is
 * ARS_PATH_NONE when none is usable.
 */
static inline struct ars_route *ars_step(struct ars_step *s,
					 const struct ars_flow *f,
					 struct ars_route *r,
					 struct ars_route *local,
					 struct ars_ctx *c)
{
	struct ars_result *res = &s->res;
	bool window = s->window && f && c->mode == ARS_MODE_FLOWLET_QUALITY;

	if (window && ars_flowlet_resumed(f, c))
		ars_env_flowlet_stamp(s->env, READ_ONCE(f->ifindex), c->now);
	if (c->mode != ARS_MODE_PACKET_QUALITY &&
	    c->mode != ARS_MODE_FLOWLET_QUALITY) {
		s->known = true;
	} else {
		c->total = 0;
		if (!s->bands) {
			s->known = ars_step_bands(s, r, c->now);
		} else {
			/* the choice reads them, not the route, again */
			c->best = s->best;
			c->total = s->total;
		}
		if (window)
			r = ars_step_window(s, r, local, c);
		if (unlikely(s->remote)) {
			r = ars_step_remote(s, r, local, c->now);
			c->total = 0;
		}
	}
	if (unlikely(s->alt)) {
		r = ars_step_alternates(s, r, local, c);
		c->total = 0;
	}

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

/**
 * ars_step_commit() - the packet was forwarded with its path's hash
 * @s: the step, as ars_step() left it
 * @f: the entry, as passed to ars_step()
 * @r: the route ars_step() returned
 * @c: the packet's context
 * @hash: the hash the packet was forwarded with
 *
 * Writes the entry as planned (ars_flowlet_commit()) and, with a flowlet
 * window, stamps the port of a flowlet that started. Only after the
 * kernel accepted the hash: a packet that it does not forward starts no
 * flowlet.
 */
static inline void ars_step_commit(const struct ars_step *s,
				   struct ars_flow *f,
				   const struct ars_route *r,
				   const struct ars_ctx *c, u32 hash)
{
	u32 dev = r->path[s->res.path].dev;

	if (f)
		ars_flowlet_commit(f, c, &s->res, hash, dev);
	if (s->window && s->res.assigned)
		ars_env_flowlet_stamp(s->env, dev, c->now);
}

/**
 * ars_step_random() - flowlet-random starts a flowlet without its route
 * @s: the step; @env and @window are read, @res written
 * @f: the packet's entry, empty or idle (ars_flowlet_expired())
 * @c: the packet's context
 * @hash: the random hash the packet was forwarded with
 * @dev: the device the kernel took for it
 *
 * Any hash will do (LetFlow): the caller draws one, the kernel maps it to
 * a usable next hop by weight, and the entry keeps the hash and the device
 * with its path unknown (ARS_PATH_NONE) until a refresh looks the route
 * up. With a flowlet window, the port is stamped.
 */
static inline void ars_step_random(struct ars_step *s, struct ars_flow *f,
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
	if (s->window)
		ars_env_flowlet_stamp(s->env, dev, c->now);
}

#endif /* _ARS_STEP_H */
