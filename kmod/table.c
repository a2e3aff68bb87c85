// SPDX-License-Identifier: GPL-2.0
/*
 * The macro-flow table, replaced whole when its size changes. A
 * replacement carries the active entries over, so that no active flowlet
 * moves (as a route change moves none); the control path builds the new
 * table and copies while the data plane still writes to the old one, and
 * frees that after a grace period.
 */
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "table.h"

struct ars_table *ars_table_alloc(u32 size, u32 generation)
{
	struct ars_table *t;

	t = kvzalloc(struct_size(t, flows, size), GFP_KERNEL);
	if (!t)
		return NULL;
	t->mask = size - 1;
	t->generation = generation;
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

static void ars_flow_copy(struct ars_flow *to, const struct ars_flow *from)
{
	to->state = READ_ONCE(from->state);
	to->tag = READ_ONCE(from->tag);
	to->hash = READ_ONCE(from->hash);
	to->ifindex = READ_ONCE(from->ifindex);
	to->flowlets = READ_ONCE(from->flowlets);
	to->idle = READ_ONCE(from->idle);
	to->object = READ_ONCE(from->object);
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
