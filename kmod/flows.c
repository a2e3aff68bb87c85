// SPDX-License-Identifier: GPL-2.0
/*
 * Which macro-flow entry is a packet's while some object has a table of
 * its own: the hint that the namespace's table keeps at a flowlet's index,
 * and the table of the object the packet's mark selects.
 */
#include "steer.h"

/*
 * Some object has a table of its own: the packet's entry, if its flowlet
 * goes on, with its idle time in @c. First the entry of the table that the
 * hint of the packet's entry @f of the namespace's table names (the one
 * that holds the flowlet that last started at @f's index); if that is not
 * the packet's, as for a flow of another object whose flowlet started at
 * the same index since, that of the table of the object that the packet's
 * mark (or the default) selects, when that needs no route. Entries of one
 * tag are in one object's table, and the tag covers the mark: the entry of
 * the mark's object's table is the packet's if its tag and generation are,
 * and an entry of another table never is. Out of line, as the rest of the
 * own tables' work: the continuing packet without them pays a test.
 */
struct ars_flow *ars_flow_hinted(const struct ars_conf *conf,
				 struct ars_flow *f,
				 const struct sk_buff *skb,
				 struct ars_ctx *c)
{
	struct ars_table *hinted = NULL, *t;
	struct ars_flow *e = f;
	u8 own = READ_ONCE(f->own);
	int obj, bind;

	if (own)
		hinted = conf->own[(own - 1) & (ARS_OBJECTS_MAX - 1)];
	if (hinted)
		e = &hinted->flows[c->key & hinted->mask];
	c->idle = READ_ONCE(e->idle);
	if (ars_flowlet_fast(e, c))
		return e;
	obj = ars_conf_mark(conf, skb->mark, &bind);
	if (obj < 0)
		return e;
	t = conf->own[obj];
	if (t == hinted)
		return e;
	return t ? &t->flows[c->key & t->mask] : f;
}

/*
 * The entry that the hint of @f, the namespace's entry of the packet,
 * names for it, and whether that is the only one the hint may stand for:
 * an entry of the namespace's table, or of an own table no larger, is at
 * the same index for every flow of @f's index; in a larger own table,
 * another flow of that index has its entry elsewhere.
 */
static const struct ars_flow *ars_flow_hint_entry(struct ars_net *an,
						  const struct ars_conf *conf,
						  const struct ars_flow *f,
						  u8 own, u32 key, bool *exact)
{
	const struct ars_table *t = NULL, *nt = rcu_dereference(an->table);

	if (own)
		t = conf->own[(own - 1) & (ARS_OBJECTS_MAX - 1)];
	*exact = !t || (nt && t->mask <= nt->mask);
	return t ? &t->flows[key & t->mask] : f;
}

/*
 * A packet of object @obj took the slow path, at the index of @f, its
 * entry of the namespace's table: the hint names the object's table when
 * the packet @started a flowlet, or when no flowlet goes on in the entry
 * the hint names instead. Not otherwise: two flowlets of one index in two
 * tables would take the hint from each other with every packet, and send
 * every packet of both the slow way.
 */
void ars_flow_hint(struct ars_net *an,
		   const struct ars_conf *conf,
		   struct ars_flow *f, int obj,
		   const struct ars_ctx *c, bool started)
{
	u8 own = conf->own[obj] ? obj + 1 : 0, cur = READ_ONCE(f->own);
	const struct ars_flow *e;
	bool exact;
	u64 state;

	if (cur == own)
		return;
	if (!started) {
		e = ars_flow_hint_entry(an, conf, f, cur, c->key, &exact);
		state = READ_ONCE(e->state);
		if (!exact || (ars_flow_gen(state) &&
			       ars_flow_age(state, c->now) <= READ_ONCE(e->idle)))
			return;
	}
	WRITE_ONCE(f->own, own);
}

/* ars_flow_of() while some object has a table of its own. */
struct ars_flow *ars_flow_own(const struct ars_conf *conf,
			      struct ars_flow *f, int obj,
			      u32 key, u32 *index)
{
	struct ars_table *t = conf->own[obj];

	if (!t)
		return f;
	*index = key & t->mask;
	return &t->flows[*index];
}
