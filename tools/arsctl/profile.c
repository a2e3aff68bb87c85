// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl show, arsctl set: the profile of the network namespace.
 *
 * One table describes every profile attribute: its keyword (the same for
 * set and in show's output, so that show's lines can be pasted back into
 * set), its JSON key (with the unit, for times) and how its value is read
 * and written. set checks only
 * the syntax of the values; the ranges are the kernel's, so that its
 * extended ACK is what the user sees.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

enum kind {
	K_ON_OFF,	/* u8 */
	K_MODE,		/* u32, enum ars_mode */
	K_TIME,		/* u64, ns */
	K_U32,
	K_PERCENT,	/* u32 */
};

struct field {
	const char *name;
	const char *key;
	unsigned int attr;
	enum kind kind;
};

static const struct field fields[] = {
	{ "state", "state", ARS_A_PROFILE_STATE, K_ON_OFF },
	{ "mode", "mode", ARS_A_PROFILE_MODE, K_MODE },
	{ "idle-time", "idle_time_ns", ARS_A_PROFILE_IDLE_TIME, K_TIME },
	{ "table-size", "table_size", ARS_A_PROFILE_TABLE_SIZE, K_U32 },
	{ "ipv4", "ipv4", ARS_A_PROFILE_IPV4, K_ON_OFF },
	{ "ipv6", "ipv6", ARS_A_PROFILE_IPV6, K_ON_OFF },
	{ "sampling-interval", "sampling_interval_ns",
	  ARS_A_PROFILE_SAMPLING_INTERVAL, K_TIME },
	{ "rate-weight", "rate_weight_percent", ARS_A_PROFILE_RATE_WEIGHT,
	  K_PERCENT },
	{ "ewma-shift", "ewma_shift", ARS_A_PROFILE_EWMA_SHIFT, K_U32 },
};

static const enum mnl_attr_data_type kind_types[] = {
	[K_ON_OFF]	= MNL_TYPE_U8,
	[K_MODE]	= MNL_TYPE_U32,
	[K_TIME]	= MNL_TYPE_U64,
	[K_U32]		= MNL_TYPE_U32,
	[K_PERCENT]	= MNL_TYPE_U32,
};

static const struct field *field_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static const struct field *field_by_attr(int attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if ((int)fields[i].attr == attr)
			return &fields[i];
	return NULL;
}

static uint64_t attr_value(const struct nlattr *a, enum kind kind)
{
	switch (kind_types[kind]) {
	case MNL_TYPE_U8:
		return mnl_attr_get_u8(a);
	case MNL_TYPE_U32:
		return mnl_attr_get_u32(a);
	default:
		return mnl_attr_get_u64(a);
	}
}

/* The value as show prints it, and as set reads it back. */
static void fmt_value(char *buf, size_t len, enum kind kind, uint64_t v)
{
	const char *name;

	switch (kind) {
	case K_ON_OFF:
		snprintf(buf, len, "%s", v ? "on" : "off");
		break;
	case K_MODE:
		name = mode_name(v);
		if (name)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "%" PRIu64, v);
		break;
	case K_TIME:
		fmt_time_exact(buf, len, v);
		break;
	case K_PERCENT:
		snprintf(buf, len, "%" PRIu64 "%%", v);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, v);
	}
}

static void json_value(struct json *jw, const struct field *f, uint64_t v)
{
	const char *name = f->kind == K_MODE ? mode_name(v) : NULL;

	json_key(jw, f->key);
	if (f->kind == K_ON_OFF)
		json_bool(jw, v);
	else if (name)
		json_string(jw, name);
	else
		json_u64(jw, v);
}

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_PROFILE_MAX + 1] = { 0 };
	const struct nlattr *tb[ARS_A_PROFILE_MAX + 1];
	struct ctx *c = data;
	char buf[FMT_BUFSZ];
	const struct field *f;
	uint64_t v;

	for (f = fields; f < fields + ARRAY_SIZE(fields); f++)
		types[f->attr] = kind_types[f->kind];
	nl_parse(nlh, tb, types, ARS_A_PROFILE_MAX);

	if (c->json)
		json_object_open(&c->jw);
	for (f = fields; f < fields + ARRAY_SIZE(fields); f++) {
		if (!tb[f->attr])
			continue;
		v = attr_value(tb[f->attr], f->kind);
		if (c->json) {
			json_value(&c->jw, f, v);
		} else {
			fmt_value(buf, sizeof(buf), f->kind, v);
			printf("%-18s %s\n", f->name, buf);
		}
	}
	if (c->json)
		json_object_close(&c->jw);
	return MNL_CB_OK;
}

int cmd_show(struct ctx *c)
{
	int err;

	if (c->argc)
		return usage_error("show: unexpected argument \"%s\"",
				   c->argv[0]);
	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_PROFILE_GET, 0);
	err = nl_talk(&c->nl, show_cb, c);
	if (err) {
		nl_perror(&c->nl, err, NULL);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static const char *mode_hint(void)
{
	static char buf[256];
	const char *name;
	uint32_t m;

	snprintf(buf, sizeof(buf), "expected one of:");
	for (m = 0; (name = mode_name(m)); m++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %s",
			 name);
	return buf;
}

static const char *kind_hint(enum kind kind)
{
	switch (kind) {
	case K_ON_OFF:
		return "expected on or off";
	case K_MODE:
		return mode_hint();
	case K_TIME:
		return "expected a time such as 500ns, 256us, 1.5ms or 1s; a plain number is in us";
	case K_PERCENT:
		return "expected a percentage such as 50 or 50%";
	default:
		return "expected a non-negative integer below 2^32";
	}
}

static int parse_value(const char *s, enum kind kind, uint64_t *v)
{
	uint32_t u32;
	bool on;
	int err;

	switch (kind) {
	case K_ON_OFF:
		err = parse_on_off(s, &on);
		u32 = on;
		break;
	case K_MODE:
		err = parse_mode(s, &u32);
		break;
	case K_TIME:
		return parse_time(s, v);
	case K_PERCENT:
		err = parse_percent(s, &u32);
		break;
	default:
		err = parse_u32(s, &u32);
	}
	if (!err)
		*v = u32;
	return err;
}

static void put_value(struct nlmsghdr *nlh, const struct field *f,
		      uint64_t v)
{
	switch (kind_types[f->kind]) {
	case MNL_TYPE_U8:
		mnl_attr_put_u8(nlh, f->attr, v);
		break;
	case MNL_TYPE_U32:
		mnl_attr_put_u32(nlh, f->attr, v);
		break;
	default:
		mnl_attr_put_u64(nlh, f->attr, v);
	}
}

/* "idle-time, valid range 1us..1s" for the attribute the kernel refused. */
static const char *refused_detail(const struct ars_nl *nl, char *buf,
				  size_t len)
{
	const struct field *f = field_by_attr(nl_bad_attr(nl));
	char min[FMT_BUFSZ], max[FMT_BUFSZ];

	if (!f)
		return NULL;
	if (!nl->ext.has_range || f->kind == K_ON_OFF || f->kind == K_MODE) {
		if (strstr(nl->ext.msg, f->name))
			return NULL;	/* the kernel's message names it */
		snprintf(buf, len, "%s", f->name);
		return buf;
	}
	fmt_value(min, sizeof(min), f->kind, nl->ext.min);
	fmt_value(max, sizeof(max), f->kind, nl->ext.max);
	snprintf(buf, len, "%s, valid range %s..%s", f->name, min, max);
	return buf;
}

int cmd_set(struct ctx *c)
{
	uint64_t vals[ARRAY_SIZE(fields)];
	bool given[ARRAY_SIZE(fields)] = { false };
	char detail[128];
	const struct field *f;
	int i, err, n = 0;

	for (i = 0; i < c->argc; i += 2) {
		f = field_by_name(c->argv[i]);
		if (!f)
			return usage_error("set: unknown keyword \"%s\"",
					   c->argv[i]);
		if (i + 1 >= c->argc)
			return usage_error("set: missing value after \"%s\"",
					   f->name);
		if (parse_value(c->argv[i + 1], f->kind, &vals[f - fields]))
			return usage_error("set: invalid %s \"%s\" (%s)",
					   f->name, c->argv[i + 1],
					   kind_hint(f->kind));
		given[f - fields] = true;	/* the last one given wins */
	}
	for (i = 0; i < (int)ARRAY_SIZE(fields); i++)
		n += given[i];
	if (!n)
		return usage_error("set: nothing to set");

	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_PROFILE_SET, 0);
	for (i = 0; i < (int)ARRAY_SIZE(fields); i++)
		if (given[i])
			put_value(c->nl.req, &fields[i], vals[i]);
	err = nl_talk(&c->nl, NULL, NULL);
	if (err) {
		nl_perror(&c->nl, err,
			  refused_detail(&c->nl, detail, sizeof(detail)));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
