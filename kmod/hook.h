/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data plane's netfilter hooks (hook.c).
 */
#ifndef _ARS_HOOK_H
#define _ARS_HOOK_H

struct ars_net;

void ars_hook_init(void);
int ars_hook_register(struct ars_net *an);
void ars_hook_unregister(struct ars_net *an);

#endif /* _ARS_HOOK_H */
