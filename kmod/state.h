/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the whole module shares: the per-namespace id (netns.h's
 * ars_pernet()) and the count of what ars allocated, for leak checks. The
 * bottom of the module's dependencies: it calls nothing.
 */
#ifndef _ARS_STATE_H
#define _ARS_STATE_H

#include <linux/atomic.h>
#include <linux/percpu.h>

extern unsigned int ars_net_id;

/* Objects ars allocated and not yet freed, for leak checks. */
extern atomic_t ars_objects;

static inline void ars_object_get(void)
{
	atomic_inc(&ars_objects);
}

static inline void ars_object_put(void)
{
	atomic_dec(&ars_objects);
}

/*
 * Per-CPU areas count as objects too: kmemleak does not track them, so
 * without this nothing on a production kernel would see one leak.
 */
#define ars_alloc_percpu_gfp(type, gfp)					\
({									\
	type __percpu *__p = alloc_percpu_gfp(type, gfp);		\
									\
	if (__p)							\
		ars_object_get();					\
	__p;								\
})

static inline void ars_free_percpu(void __percpu *p)
{
	if (p) {
		free_percpu(p);
		ars_object_put();
	}
}

#endif /* _ARS_STATE_H */
