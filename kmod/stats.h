/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of a namespace, of its objects' slots and of its bindings;
 * summed and reset by netns.c, per object by objects.c.
 */
#ifndef _ARS_STATS_H
#define _ARS_STATS_H

#include <linux/types.h>
#include <linux/ars.h>

/* Counters, in the order of their ARS_A_STATS_* attributes. */
enum ars_stat {
	ARS_STAT_PACKETS,
	ARS_STAT_STEERED,
	ARS_STAT_UNSTEERED,
	ARS_STAT_FLOWLETS,
	ARS_STAT_REASSIGNMENTS,
	ARS_STAT_FAILOVERS,
	ARS_STAT_SINGLEPATH,
	ARS_STAT_UNKNOWN_QUALITY,
	ARS_STAT_EXEMPT,
	ARS_STAT_ECMP,
	ARS_STAT_DISABLED,
	ARS_STAT_REMOTE_SEEN,
	ARS_STAT_REMOTE_MATCHED,
	ARS_STAT_REMOTE_CREDITED,
	ARS_STAT_REMOTE_MOVED,
	ARS_STAT_NUM
};

struct ars_stats {
	u64	c[ARS_STAT_NUM];
};

/* The counters of each object slot of a namespace, per CPU. */
struct ars_object_stats {
	struct ars_stats	o[ARS_OBJECTS_MAX];
};

/*
 * A binding's counters, per CPU: what looked its object up through it
 * (a flowlet's first packet and its refreshes, per-packet modes, exempt
 * marks) and the flowlets that started so; the continuing fast path
 * counts only in the object's slot.
 */
struct ars_bind_stats {
	u64	packets;
	u64	flowlets;
};

struct ars_binds_stats {
	struct ars_bind_stats	b[ARS_BINDINGS_MAX];
};

/* ARS_STAT_PACKETS is never counted: it is steered + unsteered. */
static inline void ars_stats_derive(struct ars_stats *st)
{
	st->c[ARS_STAT_PACKETS] = st->c[ARS_STAT_STEERED] +
				  st->c[ARS_STAT_UNSTEERED];
}

#endif /* _ARS_STATS_H */
