// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per packet of the ars core, as the data plane (hook.c) runs it: the
 * flow key and the route key (tag) over the header words, the macro-flow
 * table lookup, then either the fast path (ars_flowlet_fast() and the
 * entry's hash) or, with the route, ars_flowlet_plan(), ars_steer_hash()
 * and ars_flowlet_commit(); on a 4-path route with a table of 4096
 * entries. The route lookup itself is the kernel's and is not counted.
 *
 * Workloads (-w):
 *   mixed     packets of many flows in random order with a fixed
 *             inter-packet time (-g), so a share of them meets an idle
 *             entry and starts a flowlet, as a busy router would see;
 *   continue  every packet continues its flowlet from the fast path (one
 *             flow per entry, the entries made before the measured loop,
 *             and no time passes);
 *   new       every packet meets an idle entry and starts a flowlet.
 * The simulated clock is not the wall clock: the wall clock only times the
 * loop.
 *
 *   bench_core [-n packets] [-m quality|random|all] [-f flows] [-g gap_ns]
 *              [-w mixed|continue|new|all] [-c]
 *
 * -c (for instruction counts under callgrind) runs exactly the given
 * packets, without the warm-up run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ars_step.h"
#include "env_none.h"

#define TABLE_SIZE	4096
#define NPATHS		4

struct flow_words {
	u32	w[4];
};

enum workload { W_MIXED, W_CONTINUE, W_NEW };

static struct ars_flow table[TABLE_SIZE];
static struct ars_route route;
static u32 route_total;		/* its ars_route_best(), as a cache keeps it */
static u8 route_best;
static struct flow_words *flows;
static unsigned int nflows_distinct;	/* flows[0..] of distinct entries */
static volatile u32 sink;

#define KEY_SEED	0x5eed5eed
#define TAG_SEED	0x7a65eed1

static u32 xorshift32(u32 *s)
{
	u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void setup(unsigned int nflows)
{
	static const u8 bands[NPATHS] = { 7, 6, 7, 5 };
	u32 s = 12345;
	unsigned int i;

	memset(table, 0, sizeof(table));
	memset(&route, 0, sizeof(route));
	route.n = NPATHS;
	for (i = 0; i < NPATHS; i++) {
		route.path[i].dev = i + 1;
		route.path[i].weight = 1;
		route.path[i].band = bands[i];
		route.path[i].upper = (s32)((((u64)(i + 1) << 31) / NPATHS) - 1);
	}
	route_best = ars_route_best(&route, &route_total);
	flows = calloc(nflows, sizeof(*flows));
	if (!flows) {
		perror("calloc");
		exit(1);
	}
	for (i = 0; i < nflows; i++) {
		flows[i].w[0] = 0x0a000000 | (xorshift32(&s) & 0xffff);
		flows[i].w[1] = 0x0a010000 | (xorshift32(&s) & 0xffff);
		flows[i].w[2] = 6;
		flows[i].w[3] = xorshift32(&s);
	}
}

/* Move flows of distinct entries to the front, for the continue workload. */
static void setup_distinct(unsigned int nflows)
{
	static bool used[TABLE_SIZE];
	struct flow_words t;
	unsigned int i, n = 0;

	memset(used, 0, sizeof(used));
	for (i = 0; i < nflows; i++) {
		u32 e = ars_flow_key_ports(ars_flow_key(flows[i].w, 3,
							TAG_SEED),
					     flows[i].w[3], KEY_SEED) &
			(TABLE_SIZE - 1);

		if (used[e])
			continue;
		used[e] = true;
		t = flows[n];
		flows[n++] = flows[i];
		flows[i] = t;
	}
	nflows_distinct = n;
}

/*
 * What the hook does with the core for a flowlet-mode packet once it has
 * the entry; out of line so that callgrind counts it (and what it inlines
 * from ars_core.h) as the core's.
 */
static noinline u32 bench_steer(struct ars_flow *f, struct ars_ctx *c,
				bool *started)
{
	struct ars_step s;
	struct ars_route *r;
	u32 hash;

	if (ars_flowlet_fast(f, c))
		return READ_ONCE(f->hash);
	/* the route's bands as a cached route holds them, with its best band
	 * and their total weight; no alternates, no remote scores
	 */
	s.window = 0;
	s.alt = NULL;
	s.remote = NULL;
	s.bands = true;
	s.known = true;
	s.best = route_best;
	s.total = route_total;
	r = ars_step(&s, f, &route, &route, c);
	if (s.res.path == ARS_PATH_NONE)
		return 0;
	hash = ars_steer_hash(r, s.res.path, c->key);
	ars_step_commit(&s, f, r, c, hash);
	*started = s.res.assigned;
	return hash;
}

struct run_stats {
	u64	flowlets;
};

/* The measured loop: everything the hook does with the core per packet. */
static void run(u8 mode, u64 packets, unsigned int nflows, u64 gap,
		struct run_stats *st)
{
	struct ars_ctx c = { .idle = ARS_IDLE_TIME_DEFAULT, .gen = 1,
			     .mode = mode };
	u32 s = 987654321, acc = 0;
	u64 i, flowlets = 0;

	c.now = 1000000000ULL;
	for (i = 0; i < packets; i++) {
		const struct flow_words *fw;
		struct ars_flow *f;
		bool started = false;

		fw = &flows[(u32)(((u64)xorshift32(&s) * nflows) >> 32)];
		c.now += gap;
		c.rand = xorshift32(&s);
		/* As the hook does: the tag, then the key from it. */
		c.tag = ars_flow_key(fw->w, 3, TAG_SEED);
		c.key = ars_flow_key_ports(c.tag, fw->w[3], KEY_SEED);
		f = &table[c.key & (TABLE_SIZE - 1)];
		acc += bench_steer(f, &c, &started);
		flowlets += started;
	}
	sink = acc;
	st->flowlets = flowlets;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool count_only;

static void bench(const char *name, u8 mode, u64 packets,
		  unsigned int nflows, u64 gap, enum workload w)
{
	static const char *const wname[] = { "mixed", "continue", "new" };
	struct run_stats st;
	double t;

	memset(table, 0, sizeof(table));
	if (w == W_CONTINUE) {
		/* one flow per entry, each entry made; then no time passes */
		nflows = nflows_distinct < nflows ? nflows_distinct : nflows;
		run(mode, (u64)nflows * 16, nflows, 0, &st);
		gap = 0;
	} else if (w == W_NEW) {
		gap = ARS_IDLE_TIME_DEFAULT + 64;
	}
	if (!count_only)
		run(mode, packets / 10 + 1, nflows, gap, &st);
	/* the warm-up's times lie ahead of the run's: not a new flowlet */
	if (w == W_NEW)
		memset(table, 0, sizeof(table));
	t = now_sec();
	run(mode, packets, nflows, gap, &st);
	t = now_sec() - t;
	printf("%-16s %-8s packets %llu  %.2f ns/packet  flowlets %.1f%%\n",
	       name, wname[w], (unsigned long long)packets, t * 1e9 / packets,
	       100.0 * st.flowlets / packets);
}

static void bench_mode(const char *name, u8 mode, u64 packets,
		       unsigned int nflows, u64 gap, const char *workload)
{
	static const char *const wname[] = { "mixed", "continue", "new" };
	unsigned int w;

	for (w = W_MIXED; w <= W_NEW; w++)
		if (!strcmp(workload, "all") || !strcmp(workload, wname[w]))
			bench(name, mode, packets, nflows, gap, w);
}

int main(int argc, char **argv)
{
	unsigned int nflows = 16384;
	u64 packets = 20000000, gap = 20;
	const char *mode = "all", *workload = "all";
	int opt;

	while ((opt = getopt(argc, argv, "n:m:f:g:w:c")) != -1) {
		switch (opt) {
		case 'n':
			packets = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			mode = optarg;
			break;
		case 'f':
			nflows = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			gap = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			workload = optarg;
			break;
		case 'c':
			count_only = true;
			break;
		default:
			fprintf(stderr, "usage: %s %s\n", argv[0],
				"[-n packets] [-m quality|random|all] [-f flows] [-g gap_ns] [-w mixed|continue|new|all] [-c]");
			return 2;
		}
	}
	if (!nflows || !packets)
		return 2;
	setup(nflows);
	setup_distinct(nflows);
	if (!strcmp(mode, "all") || !strcmp(mode, "quality"))
		bench_mode("flowlet-quality", ARS_MODE_FLOWLET_QUALITY,
			   packets, nflows, gap, workload);
	if (!strcmp(mode, "all") || !strcmp(mode, "random"))
		bench_mode("flowlet-random", ARS_MODE_FLOWLET_RANDOM, packets,
			   nflows, gap, workload);
	free(flows);
	return 0;
}
