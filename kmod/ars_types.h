/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few types and helpers ars_core.c needs, from the kernel when built
 * into ars.ko and from libc when built on the host for unit tests, fuzzing
 * and benchmarks. Nothing else of the kernel may reach the core.
 */
#ifndef _ARS_TYPES_H
#define _ARS_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/math64.h>

/* u64 / u64: a plain '/' would need libgcc on 32-bit kernels. */
#define ars_div64(a, b)		div64_u64(a, b)
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* Relaxed atomics: the host's equivalent of the kernel's *_ONCE(). */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
/* Not zeroed by the kernel's INIT_STACK_ALL_ZERO; nothing on the host. */
#define __uninitialized

static inline u64 ars_div64(u64 a, u64 b)
{
	return a / b;
}
#endif

#endif /* _ARS_TYPES_H */
