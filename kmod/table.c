// SPDX-License-Identifier: GPL-2.0
/*
 * Macro-flow tables, replaced whole when their size changes: the
 * namespace's, which every object shares unless it has a table-size of its
 * own, and each such object's. A replacement carries the active entries
 * over, so that no active flowlet moves (as a route change moves none);
 * the control path builds the new table and copies while the data plane
 * still writes to the old one, and frees that after a grace period.
 */
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "state.h"
#include "table.h"

struct ars_table *ars_table_alloc(u32 size, u32 seq)
{
	struct ars_table *t;

	/*
	 * Up to 32 MiB each, one per namespace and one per object that has
	 * table-size, at the request of a user namespace's admin: charged to
	 * the caller's memory cgroup.
	 */
	t = kvzalloc(struct_size(t, flows, size), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->mask = size - 1;
	t->seq = seq;
	ars_object_get();
	return t;
}

static void ars_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct ars_table, rcu));
	ars_object_put();
}

/* After a grace period: the data plane may still read it. */
void ars_table_free(struct ars_table *t)
{
	if (t)
		call_rcu(&t->rcu, ars_table_free_rcu);
}

/* @to may be a table the data plane writes to (ars_table_move()). */
static void ars_flow_copy(struct ars_flow *to, const struct ars_flow *from)
{
	WRITE_ONCE(to->state, READ_ONCE(from->state));
	WRITE_ONCE(to->tag, READ_ONCE(from->tag));
	WRITE_ONCE(to->hash, READ_ONCE(from->hash));
	WRITE_ONCE(to->ifindex, READ_ONCE(from->ifindex));
	WRITE_ONCE(to->flowlets, READ_ONCE(from->flowlets));
	WRITE_ONCE(to->idle, READ_ONCE(from->idle));
	WRITE_ONCE(to->object, READ_ONCE(from->object));
	WRITE_ONCE(to->own, READ_ONCE(from->own));
	WRITE_ONCE(to->key_hi, READ_ONCE(from->key_hi));
}

/*
 * The namespace's table, resized, takes the entries of the old one over.
 * A flow's entry is its key & mask: when the table grows, entry i holds
 * the flows of old entry i & old mask, and is a copy of it; when it
 * shrinks, entry i holds those of old entries i, i + size, ..., and takes
 * the one seen last, whose flowlet is the likeliest to go on (the others'
 * flows then share it, as flows of a macro flow do). The new table is not
 * published yet: the data plane still writes to the old one, so the caller
 * copies twice, the second time without rescheduling (@resched false)
 * right before it publishes, so that only the writes of that short pass
 * may be lost (that flowlet then starts anew, as all did before). A first
 * pass long enough to outlast idle-time alone would leave every flow's
 * copy idle (seen under TCG).
 */
void ars_table_carry(struct ars_table *nt, const struct ars_table *ot,
		     bool resched)
{
	u32 i, j, n = nt->mask + 1, on = ot->mask + 1;
	const struct ars_flow *best;
	u64 now = ktime_get_ns();

	for (i = 0; i < n; i++) {
		if (resched && !(i & 4095))
			cond_resched();
		if (n >= on) {
			ars_flow_copy(&nt->flows[i], &ot->flows[i & ot->mask]);
			continue;
		}
		best = NULL;
		for (j = i; j < on; j += n) {
			u64 st = READ_ONCE(ot->flows[j].state);

			if (ars_flow_gen(st) &&
			    (!best || ars_flow_age(st, now) <
				      ars_flow_age(READ_ONCE(best->state), now)))
				best = &ot->flows[j];
		}
		if (best)
			ars_flow_copy(&nt->flows[i], best);
	}
}

/**
 * ars_table_move() - move entries to the table of another object's size
 * @to: the table the flows go to; may be the live namespace table
 * @from: the table they were in
 * @obj: only @from's entries of this object's slot, or -1 for all; @from
 *	is then the namespace's table, @to the object's own, and the hint of
 *	each entry moved names @to (the data plane writes it only when a
 *	flowlet starts, and these go on)
 * @resched: as for ars_table_carry(), which the caller also calls twice
 *
 * When an object's table-size changes, its flows go from the namespace's
 * table to one of their own, from one of their own to another, or back
 * to the namespace's. Each entry knows its flowlet's key up to bit 21
 * (ars_flow_key_bits()), so it goes to the one entry of @to that its flow
 * will look up, whatever the sizes: copying it into every entry of @to
 * that its index covers, as a growing ars_table_carry() does, would hand
 * its path to the other flows of those entries, in the namespace's table
 * those of other objects. Where two land on one entry, or an entry of
 * @to is in use (a flow of another object), the one seen last wins.
 */
void ars_table_move(struct ars_table *to, struct ars_table *from,
		    int obj, bool resched)
{
	u32 i, n = from->mask + 1;
	u64 now = ktime_get_ns();

	for (i = 0; i < n; i++) {
		struct ars_flow *f = &from->flows[i];
		u64 st = READ_ONCE(f->state), tst;
		struct ars_flow *t;

		if (resched && !(i & 4095))
			cond_resched();
		if (!ars_flow_gen(st) ||
		    (obj >= 0 && READ_ONCE(f->object) != obj))
			continue;
		t = &to->flows[ars_flow_key_bits(f, i) & to->mask];
		tst = READ_ONCE(t->state);
		if (ars_flow_gen(tst) &&
		    ars_flow_age(tst, now) <= ars_flow_age(st, now))
			continue;
		ars_flow_copy(t, f);
		/* The flow lives in @to now: no hint of another table. */
		WRITE_ONCE(t->own, 0);
		if (obj >= 0)
			WRITE_ONCE(f->own, obj + 1);
	}
}
