/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every header of the module's kernel side, for the netlink files (genl.c,
 * objects.c, nl_*.c) until they include only what they use; the others do.
 */
#ifndef _ARS_H
#define _ARS_H

#include <linux/ars.h>

#include "ars_core.h"
#include "ars_remote.h"
#include "genl.h"
#include "hook.h"
#include "netns.h"
#include "ports.h"
#include "profile.h"
#include "quality.h"
#include "sch_ars.h"
#include "state.h"
#include "stats.h"
#include "table.h"

#endif /* _ARS_H */
