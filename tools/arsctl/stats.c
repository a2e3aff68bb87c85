// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl stats [reset]: the counters of the network namespace, printed as
 * show prints the profile: one "name value" per line, or one JSON object.
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
	{ "exempt", "exempt", ARS_A_STATS_EXEMPT },
	{ "ecmp", "ecmp", ARS_A_STATS_ECMP },
	{ "disabled", "disabled", ARS_A_STATS_DISABLED },
	{ "remote-seen", "remote_seen", ARS_A_STATS_REMOTE_SEEN },
	{ "remote-matched", "remote_matched", ARS_A_STATS_REMOTE_MATCHED },
	{ "remote-credited", "remote_credited", ARS_A_STATS_REMOTE_CREDITED },
	{ "remote-moved", "remote_moved", ARS_A_STATS_REMOTE_MOVED },
};

_Static_assert(ARRAY_SIZE(counters) <= ARS_COUNTERS_MAX, "counters");

void stats_from(const struct nlattr *const *tb, struct ars_counters *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		out->have[i] = tb[counters[i].attr];
		if (out->have[i])
			out->val[i] = mnl_attr_get_u64(tb[counters[i].attr]);
	}
}

void stats_types(enum mnl_attr_data_type *types)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters); i++)
		types[counters[i].attr] = MNL_TYPE_U64;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_STATS_MAX + 1] = { 0 };
	const struct nlattr *tb[ARS_A_STATS_MAX + 1];

	stats_types(types);
	nl_parse(nlh, tb, types, ARS_A_STATS_MAX);
	stats_from(tb, data);
	return MNL_CB_OK;
}

int stats_fetch(struct ctx *c, struct ars_counters *out)
{
	memset(out, 0, sizeof(*out));
	nl_request(&c->nl, ARS_CMD_STATS_GET, 0);
	return nl_talk(&c->nl, stats_cb, out);
}

/* Named as show names the profile attributes, one style for both. */
void stats_print(struct ctx *c, const struct ars_counters *st)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (!st->have[i])
			continue;
		if (c->json)
			json_kv_u64(&c->jw, counters[i].key, st->val[i]);
		else
			printf("%-18s %" PRIu64 "\n", counters[i].name,
			       st->val[i]);
	}
}

/* As " name value" pairs on one line after indent, for lists. */
void stats_print_line(const struct ars_counters *st, const char *indent)
{
	const char *sep = indent;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (!st->have[i])
			continue;
		printf("%s%s %" PRIu64, sep, counters[i].name, st->val[i]);
		sep = " ";
	}
	if (sep != indent)
		printf("\n");
}

int cmd_stats(struct ctx *c)
{
	struct ars_counters st;
	bool reset = false;
	int err;

	if (c->argc && matches(c->argv[0], "reset"))
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
		c->cmd = "stats reset";
		nl_request(&c->nl, ARS_CMD_STATS_RESET, 0);
		err = nl_talk(&c->nl, NULL, NULL);
		return err ? cmd_error(c, err, NULL) : EXIT_OK;
	}
	err = stats_fetch(c, &st);
	if (err)
		return cmd_error(c, err, NULL);
	if (c->json)
		json_object_open(&c->jw);
	stats_print(c, &st);
	if (c->json)
		json_object_close(&c->jw);
	return EXIT_OK;
}
