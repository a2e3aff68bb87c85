// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl stats [reset]: the counters of the network namespace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

struct counter {
	const char *name;
	const char *key;
	unsigned int attr;
};

static const struct counter counters[] = {
	{ "packets", "packets", ARS_A_STATS_PACKETS },
	{ "steered", "steered", ARS_A_STATS_STEERED },
	{ "unsteered", "unsteered", ARS_A_STATS_UNSTEERED },
	{ "flowlets", "flowlets", ARS_A_STATS_FLOWLETS },
	{ "reassignments", "reassignments", ARS_A_STATS_REASSIGNMENTS },
	{ "failovers", "failovers", ARS_A_STATS_FAILOVERS },
	{ "singlepath", "singlepath", ARS_A_STATS_SINGLEPATH },
	{ "unknown-quality", "unknown_quality", ARS_A_STATS_UNKNOWN_QUALITY },
};

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_STATS_MAX + 1] = { 0 };
	const struct nlattr *tb[ARS_A_STATS_MAX + 1];
	const struct counter *k;
	struct ctx *c = data;
	char label[32];
	uint64_t v;

	for (k = counters; k < counters + ARRAY_SIZE(counters); k++)
		types[k->attr] = MNL_TYPE_U64;
	nl_parse(nlh, tb, types, ARS_A_STATS_MAX);

	if (c->json)
		json_object_open(&c->jw);
	for (k = counters; k < counters + ARRAY_SIZE(counters); k++) {
		if (!tb[k->attr])
			continue;
		v = mnl_attr_get_u64(tb[k->attr]);
		if (c->json) {
			json_kv_u64(&c->jw, k->key, v);
		} else {
			snprintf(label, sizeof(label), "%s:", k->name);
			printf("%-17s %" PRIu64 "\n", label, v);
		}
	}
	if (c->json)
		json_object_close(&c->jw);
	return MNL_CB_OK;
}

int cmd_stats(struct ctx *c)
{
	bool reset = false;
	int err;

	if (c->argc && !strcmp(c->argv[0], "reset"))
		reset = true;
	else if (c->argc)
		return usage_error("stats: unknown argument \"%s\"",
				   c->argv[0]);
	if (c->argc > 1)
		return usage_error("stats: unexpected argument \"%s\"",
				   c->argv[1]);

	if (!ctx_open(c))
		return EXIT_FAIL;
	if (reset) {
		nl_request(&c->nl, ARS_CMD_STATS_RESET, 0);
		err = nl_talk(&c->nl, NULL, NULL);
	} else {
		nl_request(&c->nl, ARS_CMD_STATS_GET, 0);
		err = nl_talk(&c->nl, stats_cb, c);
	}
	if (err) {
		nl_perror(&c->nl, err, NULL);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
