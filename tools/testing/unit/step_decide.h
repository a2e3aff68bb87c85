/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data plane's decision for one packet, as hook.c runs it over the
 * core, for the unit tests and the fuzzer: in the flowlet modes a flowlet
 * that goes on is steered from the entry alone (ars_flowlet_fast(), in
 * ars_steer()); otherwise ars_step() on a copy of the route, with the
 * bands it holds (as a cached route's: no port is read), ars_steer_hash()
 * for the hash, which the kernel accepts, and ars_step_commit().
 * Per-packet modes pass no entry. The includer defines the environment
 * (ars_env_path_load(), ars_env_flowlet_stamp(), ars_env_flowlet_at());
 * @env is NULL here.
 */
#ifndef _ARS_UNIT_STEP_DECIDE_H
#define _ARS_UNIT_STEP_DECIDE_H

#include "ars_step.h"

static inline bool step_mode_flowlet(u8 mode)
{
	return mode == ARS_MODE_FLOWLET_RANDOM ||
	       mode == ARS_MODE_FLOWLET_QUALITY;
}

/* Return: true when @hash is to be set (a path was found). */
static inline bool step_decide(struct ars_flow *f, const struct ars_route *r,
			       const struct ars_ctx *c, struct ars_result *res,
			       u32 *hash)
{
	struct ars_step s = { .bands = true, .known = true };
	struct ars_route route = *r, local, *rr;
	struct ars_ctx cc = *c;

	if (!step_mode_flowlet(c->mode)) {
		f = NULL;
	} else if (ars_flowlet_fast(f, c)) {
		*hash = READ_ONCE(f->hash);
		res->path = ars_flow_path(READ_ONCE(f->state));
		res->old_path = res->path;
		res->reason = 0;
		res->write = ARS_WRITE_NONE;
		res->assigned = false;
		return true;
	}
	rr = ars_step(&s, f, &route, &local, &cc);
	*res = s.res;
	if (res->path == ARS_PATH_NONE)
		return false;
	*hash = ars_steer_hash(rr, res->path, c->key);
	ars_step_commit(&s, f, rr, &cc, *hash);
	return true;
}

#endif /* _ARS_UNIT_STEP_DECIDE_H */
