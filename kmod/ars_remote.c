// SPDX-License-Identifier: GPL-2.0
/*
 * Remote congestion scores; see ars_remote.h. Like ars_core.c, built into
 * ars.ko and, unchanged, into the unit tests and the fabric simulation: it
 * includes nothing but ars_remote.h and calls only the core.
 */
#include "ars_remote.h"

static u64 ars_remote_pack(u64 now, u32 score)
{
	return (((now >> ARS_TIME_SHIFT) & ARS_REMOTE_TIME_MASK) <<
		ARS_REMOTE_SCORE_BITS) | (score & ARS_REMOTE_SCORE_MASK);
}

static bool ars_remote_add(struct ars_remote *rt, u32 route, u32 dev,
			   u64 now, u32 credit)
{
	struct ars_remote_slot *b = ars_remote_bucket(rt, route, dev), *s;
	u32 cap = ars_remote_cap(&rt->cfg), score, s0, s1;
	u64 state;

	if (!dev || !cap || !credit)
		return false;
	if (READ_ONCE(b[0].dev) == dev && READ_ONCE(b[0].route) == route) {
		s = &b[0];
	} else if (READ_ONCE(b[1].dev) == dev &&
		   READ_ONCE(b[1].route) == route) {
		s = &b[1];
	} else {
		/* the slot whose own score is lower now (an empty one: 0) */
		s0 = ars_remote_score(rt, &b[0], READ_ONCE(b[0].route),
				      READ_ONCE(b[0].dev), now);
		s1 = ars_remote_score(rt, &b[1], READ_ONCE(b[1].route),
				      READ_ONCE(b[1].dev), now);
		s = s1 < s0 ? &b[1] : &b[0];
		WRITE_ONCE(s->state, ars_remote_pack(now, 0));
		WRITE_ONCE(s->route, route);
		WRITE_ONCE(s->dev, dev);
	}
	state = READ_ONCE(s->state);
	if ((state & ARS_REMOTE_SCORE_MASK) >= cap &&
	    ars_remote_age(state, now) <
	    1ULL << (ars_remote_half(&rt->cfg) - 4))
		return false;
	score = ars_remote_score(rt, s, route, dev, now);
	if (score >= cap) {
		WRITE_ONCE(s->state, ars_remote_pack(now, cap));
		return false;
	}
	score += credit;
	WRITE_ONCE(s->state, ars_remote_pack(now, score < cap ? score : cap));
	return true;
}

bool ars_remote_credit(struct ars_remote *rt, u32 route, u32 dev, u64 now)
{
	return ars_remote_add(rt, route, dev, now, rt->cfg.credit);
}

enum ars_remote_fb ars_remote_feedback(struct ars_remote *rt,
				       const struct ars_flow *f,
				       const struct ars_ctx *c, u32 route)
{
	if (ars_flowlet_expired(f, c) || READ_ONCE(f->tag) != c->tag ||
	    READ_ONCE(f->key_hi) != (u16)(c->key >> ARS_FLOW_KEY_SHIFT))
		return ARS_REMOTE_UNMATCHED;
	return ars_remote_credit(rt, route, READ_ONCE(f->ifindex), c->now) ?
	       ARS_REMOTE_CREDITED : ARS_REMOTE_MATCHED;
}

static struct ars_remote_pair *ars_remote_pair_slot(struct ars_remote *rt,
						   u32 pair)
{
	return &rt->pairs[((pair ^ rt->seed) * ARS_SPREAD >> 16) &
			  rt->pair_mask];
}

void ars_remote_pair_note(struct ars_remote *rt, u32 pair, u32 route,
			  u32 dev, u64 now)
{
	struct ars_remote_pair *p;

	if (!rt->pairs)
		return;
	p = ars_remote_pair_slot(rt, pair);
	if (READ_ONCE(p->pair) != pair)
		WRITE_ONCE(p->pair, pair);
	if (READ_ONCE(p->route) != route)
		WRITE_ONCE(p->route, route);
	if (READ_ONCE(p->dev) != dev)
		WRITE_ONCE(p->dev, dev);
	WRITE_ONCE(p->time, now | 1);
}

enum ars_remote_fb ars_remote_pair_feedback(struct ars_remote *rt, u32 pair,
					    u64 now, u64 max_age)
{
	struct ars_remote_pair *p;
	u64 time;

	if (!rt->pairs)
		return ARS_REMOTE_UNMATCHED;
	p = ars_remote_pair_slot(rt, pair);
	time = READ_ONCE(p->time);
	if (!time || READ_ONCE(p->pair) != pair ||
	    (now > time && now - time > max_age))
		return ARS_REMOTE_UNMATCHED;
	return ars_remote_add(rt, READ_ONCE(p->route), READ_ONCE(p->dev), now,
			      rt->cfg.cnp_credit ? rt->cfg.cnp_credit :
						   rt->cfg.credit) ?
	       ARS_REMOTE_CREDITED : ARS_REMOTE_MATCHED;
}
