/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ars qdisc (sch_ars.c), which measures the ports it is attached to.
 */
#ifndef _ARS_SCH_ARS_H
#define _ARS_SCH_ARS_H

int ars_qdisc_register(void);
void ars_qdisc_unregister(void);

#endif /* _ARS_SCH_ARS_H */
