// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzer's seed corpus into the directory given: a few
 * well-formed inputs in fuzz_core.c's layout, one per mode and route
 * kind, so the fuzzer starts from deep states instead of zeros.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char buf[4096];
static size_t len;

static void put(unsigned long long v, unsigned int bytes)
{
	while (bytes--)
		buf[len++] = v >> (8 * bytes);
}

/* A packet on entry @e after @dt << @shift ns. */
static void packet(unsigned int e, unsigned int dt, unsigned int shift,
		   unsigned int key, unsigned int rand)
{
	put((shift << 4) | e, 1);
	put(dt, 4);
	put(key, 4);
	put(rand, 4);
}

static void write_seed(const char *dir, unsigned int i, unsigned int flags,
		 unsigned int n, unsigned int mode)
{
	char name[4096];
	unsigned int p, k;
	FILE *f;

	len = 0;
	put(flags, 1);
	put(n, 1);
	put(1 + i, 2);				/* generation */
	put(mode, 1);
	put(256000 - 1000, 4);			/* idle 256 us */
	put((1ULL << 46) - 1000000, 8);		/* 1 ms before the wrap */
	for (p = 0; p < n; p++) {
		put((7 - p % 8) | (p == 2 && n > 3 ? 0x70 : 0), 1);
		if (flags & 4)
			put(p + 1, 2);
		else
			put(p, 1);
		if (flags & 1)
			put((0x7fffffffULL / n) * (p + 1), 4);
	}
	for (k = 0; k < 24; k++)
		packet(k % 4, 1000 + 997 * k, k % 3 ? 0 : 8, k * 0x9e3779b9,
		       k * 0x85ebca6b);
	put(4, 1);				/* path 1 dies */
	put(1, 4);
	packet(0, 10, 0, 1, 2);
	put(5, 1);				/* new generation */
	put(77, 4);
	packet(1, 10, 0, 3, 4);
	put(0x45, 1);				/* route reversed */
	put(2 << 8, 4);
	packet(0, 10, 0, 1, 2);
	packet(1, 10, 0, 3, 4);
	put(0x45, 1);				/* next hop 1 deleted */
	put(1, 4);
	packet(0, 10, 0, 1, 2);
	packet(2, 10, 0, 5, 6);
	put(0x45, 1);				/* one appended, device 3 */
	put((1 << 8) | (2 << 16), 4);
	packet(0, 10, 0, 1, 2);
	packet(3, 10, 0, 0xc0000000, 6);	/* another tag */
	put(6, 1);				/* bucket hash */
	put(1000, 4);
	put(17, 4);
	put(12345, 4);
	put(7, 1);				/* quality */
	put(0, 4);
	put(125000000, 8);
	put(1000000000, 8);
	put(500000, 8);
	snprintf(name, sizeof(name), "%s/seed-%02u", dir, i);
	f = fopen(name, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(name);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned int mode, i = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (mode = 0; mode <= 6; mode++) {
		write_seed(argv[1], i++, 0, 4, mode);
		write_seed(argv[1], i++, 1, 5, mode);
		write_seed(argv[1], i++, 4, 64, mode);
	}
	return 0;
}
