/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The macro-flow table of a namespace (netns.c): made, freed, and carried
 * over to a table of another size.
 */
#ifndef _ARS_TABLE_H
#define _ARS_TABLE_H

#include "ars.h"

struct ars_table *ars_table_alloc(u32 size, u32 generation);
void ars_table_free(struct ars_table *t);
void ars_table_carry(struct ars_table *nt, const struct ars_table *ot,
		     bool resched);

#endif /* _ARS_TABLE_H */
