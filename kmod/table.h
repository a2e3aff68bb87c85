/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Macro-flow tables: the namespace's (netns.c) and those of objects with a
 * table-size of their own (objects.c), and how entries move between them.
 */
#ifndef _ARS_TABLE_H
#define _ARS_TABLE_H

#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ars_core.h"

/* The macro-flow table; replaced whole when its size changes. */
struct ars_table {
	struct rcu_head	rcu;
	u32		mask;
	u32		seq;		/* its ars_net.table_seq, for dumps */
	struct ars_flow	flows[] ____cacheline_aligned;
};

/*
 * The flow key of entry @index's flowlet, up to bit 21: what any table,
 * of any size up to ARS_TABLE_SIZE_MAX, indexes it by.
 */
static inline u32 ars_flow_key_bits(const struct ars_flow *f, u32 index)
{
	BUILD_BUG_ON(ARS_TABLE_SIZE_MIN != 1 << ARS_FLOW_KEY_SHIFT);
	BUILD_BUG_ON(ARS_TABLE_SIZE_MAX > 1 << (ARS_FLOW_KEY_SHIFT + 16));
	return (u32)READ_ONCE(f->key_hi) << ARS_FLOW_KEY_SHIFT |
	       (index & (ARS_TABLE_SIZE_MIN - 1));
}

/* What an entry keeps of its flowlet's key (ars_flow_key_bits()). */
static inline u16 ars_flow_key_hi(u32 key)
{
	return key >> ARS_FLOW_KEY_SHIFT;
}

struct ars_table *ars_table_alloc(u32 size, u32 seq);
void ars_table_free(struct ars_table *t);
void ars_table_carry(struct ars_table *nt, const struct ars_table *ot,
		     bool resched);
void ars_table_move(struct ars_table *to, struct ars_table *from,
		    int obj, bool resched);

#endif /* _ARS_TABLE_H */
