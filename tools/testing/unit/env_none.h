/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision path's environment (ars_step.h) for a host program in which
 * no port is measured and none is stamped: the fuzzer and the core's
 * benchmark, which hand the step its bands themselves. It defines the
 * three functions: include it in one file of a program.
 */
#ifndef _ARS_ENV_NONE_H
#define _ARS_ENV_NONE_H

#include "ars_step.h"

bool ars_env_path_load(void *env, u32 dev, u64 now, struct ars_path_load *pl)
{
	(void)env, (void)dev, (void)now, (void)pl;
	return false;
}

void ars_env_flowlet_stamp(void *env, u32 dev, u64 now)
{
	(void)env, (void)dev, (void)now;
}

bool ars_env_flowlet_at(void *env, u32 dev, u64 *at)
{
	(void)env, (void)dev, (void)at;
	return false;
}

#endif /* _ARS_ENV_NONE_H */
