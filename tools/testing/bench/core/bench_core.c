// SPDX-License-Identifier: GPL-2.0
/*
 * Cost per packet of the ars core, as the data plane runs it: the flow key
 * over 4 words, the macro-flow table lookup, ars_decide() and
 * ars_steer_hash(), on a 4-path route with a table of 4096 entries.
 *
 * Packets come from many flows in random order with a fixed inter-packet
 * time, so a share of them meets an idle entry and starts a flowlet, as a
 * busy router would see. The simulated clock is not the wall clock: the
 * wall clock only times the loop.
 *
 *   bench_core [-n packets] [-m quality|random|all] [-f flows] [-g gap_ns]
 *              [-c]
 *
 * -c (for instruction counts under callgrind) runs exactly the given
 * packets, without the warm-up run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ars_core.h"

#define TABLE_SIZE	4096
#define NPATHS		4

struct flow_words {
	u32	w[4];
};

static struct ars_flow table[TABLE_SIZE];
static struct ars_route route;
static struct flow_words *flows;
static volatile u32 sink;

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
	route.gen = 1;
	for (i = 0; i < NPATHS; i++) {
		route.path[i].weight = 1;
		route.path[i].band = bands[i];
		route.path[i].upper = (s32)((((u64)(i + 1) << 31) / NPATHS) - 1);
	}
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

struct run_stats {
	u64	flowlets;
};

/* The measured loop: everything the hook does with the core per packet. */
static void run(u8 mode, u64 packets, unsigned int nflows, u64 gap,
		struct run_stats *st)
{
	struct ars_ctx c = { .idle = ARS_IDLE_TIME_DEFAULT, .mode = mode };
	u32 s = 987654321, acc = 0;
	u64 i, flowlets = 0;

	c.now = 1000000000ULL;
	for (i = 0; i < packets; i++) {
		const struct flow_words *fw;
		struct ars_result res;
		struct ars_flow *f;

		fw = &flows[(u32)(((u64)xorshift32(&s) * nflows) >> 32)];
		c.now += gap;
		c.rand = xorshift32(&s);
		c.key = ars_flow_key(fw->w, 4, 0x5eed5eed);
		f = &table[c.key & (TABLE_SIZE - 1)];
		ars_decide(f, &route, &c, &res);
		if (res.path == ARS_PATH_NONE)
			continue;
		flowlets += res.assigned;
		acc += ars_steer_hash(&route, res.path, c.key);
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
		  unsigned int nflows, u64 gap)
{
	struct run_stats st;
	double t;

	memset(table, 0, sizeof(table));
	if (!count_only)
		run(mode, packets / 10 + 1, nflows, gap, &st);
	t = now_sec();
	run(mode, packets, nflows, gap, &st);
	t = now_sec() - t;
	printf("%-16s packets %llu  %.2f ns/packet  flowlets %.1f%%\n", name,
	       (unsigned long long)packets, t * 1e9 / packets,
	       100.0 * st.flowlets / packets);
}

int main(int argc, char **argv)
{
	unsigned int nflows = 16384;
	u64 packets = 20000000, gap = 20;
	const char *mode = "all";
	int opt;

	while ((opt = getopt(argc, argv, "n:m:f:g:c")) != -1) {
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
		case 'c':
			count_only = true;
			break;
		default:
			fprintf(stderr, "usage: %s %s\n", argv[0],
				"[-n packets] [-m quality|random|all] [-f flows] [-g gap_ns] [-c]");
			return 2;
		}
	}
	if (!nflows || !packets)
		return 2;
	setup(nflows);
	if (!strcmp(mode, "all") || !strcmp(mode, "quality"))
		bench("flowlet-quality", ARS_MODE_FLOWLET_QUALITY, packets,
		      nflows, gap);
	if (!strcmp(mode, "all") || !strcmp(mode, "random"))
		bench("flowlet-random", ARS_MODE_FLOWLET_RANDOM, packets,
		      nflows, gap);
	free(flows);
	return 0;
}
