// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl object ..., arsctl bind ...: the ARS objects of the network
 * namespace (a mode and an idle time each) and the bindings that say
 * which packets each steers.
 *
 *   object { add | replace } NAME [mode MODE] [idle-time TIME]
 *                   [table-size N] [ALT_SETTINGS]
 *   object set NAME [mode MODE] [idle-time TIME] [table-size N]
 *                   [ALT_SETTINGS]
 *   object del NAME
 *   object [show [NAME]]                 (-s: with the counters)
 *   object alternate { add | replace | del } NAME { via ADDRESS | dev DEV }
 *   ALT_SETTINGS := [primary-threshold BAND] [alternate-cost BANDS]
 *                   [alternate-bias PERCENT]
 *   bind { add | replace } WHAT { object NAME | exempt }
 *   bind del WHAT
 *   bind [show]                          (-s: with the counters)
 *   WHAT := { nhid ID | prefix PREFIX[/LEN] [table TABLE | vrf NAME] |
 *             mark MARK[/MASK] }
 *   interface { enable | disable } dev DEV   (port, its old name, too)
 *   interface [show]
 *
 * As set does, a command alone checks the syntax and leaves the rest
 * (names that exist, overlaps, a mark without a mask) to the kernel, whose
 * extended ACK is what the user sees; a batch's first pass checks the
 * ranges, the masks and prefixes, the devices, and with -c or -r the
 * objects the file's lines name. replace, and interface enable, can be applied
 * twice with the same result (apply.c). A VRF's name is arsctl's alone: it sends the
 * VRF's table (vrf.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/ars.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>

#include "arsctl.h"
#include "parse.h"

/* Names of the request attributes, for a refusal that points at one. */
static const char *const object_attr_names[ARS_A_OBJECT_MAX + 1] = {
	[ARS_A_OBJECT_NAME] = "name",
	[ARS_A_OBJECT_MODE] = "mode",
	[ARS_A_OBJECT_IDLE_TIME] = "idle-time",
	[ARS_A_OBJECT_PRIMARY_THRESHOLD] = "primary-threshold",
	[ARS_A_OBJECT_ALTERNATE_COST] = "alternate-cost",
	[ARS_A_OBJECT_ALTERNATE_BIAS] = "alternate-bias",
	[ARS_A_OBJECT_TABLE_SIZE] = "table-size",
};

static const char *const alternate_attr_names[ARS_A_ALTERNATE_MAX + 1] = {
	[ARS_A_ALTERNATE_OBJECT] = "object",
	[ARS_A_ALTERNATE_IFINDEX] = "dev",
	[ARS_A_ALTERNATE_GATEWAY] = "via",
};

/* The u8 settings of an object, in the order of their attributes. */
static const struct {
	const char	*key;
	const char	*json;
	int		attr;
	unsigned int	max;
} object_u8s[] = {
	{ "primary-threshold", "primary_threshold_band",
	  ARS_A_OBJECT_PRIMARY_THRESHOLD, ARS_PRIMARY_THRESHOLD_MAX },
	{ "alternate-cost", "alternate_cost_bands",
	  ARS_A_OBJECT_ALTERNATE_COST, ARS_BAND_BEST },
	{ "alternate-bias", "alternate_bias_percent",
	  ARS_A_OBJECT_ALTERNATE_BIAS, ARS_ALTERNATE_BIAS_MAX },
};
#define OBJECT_U8S	(sizeof(object_u8s) / sizeof(object_u8s[0]))

static const char *const bind_attr_names[ARS_A_BIND_MAX + 1] = {
	[ARS_A_BIND_OBJECT] = "object",
	[ARS_A_BIND_EXEMPT] = "exempt",
	[ARS_A_BIND_NHID] = "nhid",
	[ARS_A_BIND_PREFIX] = "prefix",
	[ARS_A_BIND_PREFIX_LEN] = "prefix-len",
	[ARS_A_BIND_TABLE] = "table",
	[ARS_A_BIND_MARK] = "mark",
	[ARS_A_BIND_MASK] = "mask",
};

/* What to add to the kernel's message: the attribute, unless it names it. */
const char *refused_attr(const struct ars_nl *nl, const char *const *names,
			 int max)
{
	int attr = nl_bad_attr(nl);

	if (!names || attr < 1 || attr > max || !names[attr] ||
	    !strncmp(nl->ext.msg, names[attr], strlen(names[attr])))
		return NULL;
	return names[attr];
}

/* Send nl->req; with replace, as apply_replace() does. */
static int talk_or_say(struct ctx *c, const char *const *names, int max,
		       bool replace)
{
	int err;

	if (replace || c->replace)
		return apply_replace(c, names, max);
	err = nl_talk(&c->nl, NULL, NULL);

	return err ? cmd_error(c, err, refused_attr(&c->nl, names, max)) :
		     EXIT_OK;
}

static int object_name_ok(const char *name)
{
	if (!*name || strlen(name) >= ARS_OBJECT_NAME_LEN)
		return usage_error("invalid object name \"%s\" (1 to %d bytes)",
				   name, ARS_OBJECT_NAME_LEN - 1);
	return EXIT_OK;
}

/*
 * object add|replace|set NAME [mode MODE] [idle-time TIME] [table-size N]
 * [ALT_SETTINGS]; table-size (max-flows, its old name, still reads) is a
 * number here, the kernel says which (and a batch's first pass).
 */
static int object_change(struct ctx *c, uint8_t cmd, bool replace)
{
	bool have_mode = false, have_idle = false, have[OBJECT_U8S] = { 0 };
	uint32_t mode = 0, v, u8s[OBJECT_U8S] = { 0 }, table_size = 0;
	bool have_table_size = false;
	uint64_t idle = 0;
	const char *name;
	unsigned int k;
	int i;

	if (c->argc < 2)
		return usage_error("%s: missing object name", c->cmd);
	name = c->argv[1];
	if (object_name_ok(name))
		return EXIT_USAGE;
	for (i = 2; i < c->argc; i += 2) {
		if (i + 1 >= c->argc)
			return usage_error("%s: missing value after \"%s\"",
					   c->cmd, c->argv[i]);
		if (matches(c->argv[i], "mode")) {
			if (parse_mode(c->argv[i + 1], &mode))
				return usage_error("%s: invalid mode \"%s\"",
						   c->cmd, c->argv[i + 1]);
			have_mode = true;
		} else if (matches(c->argv[i], "idle-time")) {
			if (parse_time(c->argv[i + 1], &idle) ||
			    (c->checking && (idle < ARS_IDLE_TIME_MIN ||
					     idle > ARS_IDLE_TIME_MAX)))
				return usage_error("%s: invalid idle-time \"%s\" (expected a time from 1us to 1s, such as 256us)",
						   c->cmd, c->argv[i + 1]);
			have_idle = true;
		} else if (matches(c->argv[i], "table-size") ||
			   matches(c->argv[i], "max-flows")) {
			if (parse_u32(c->argv[i + 1], &table_size) ||
			    (c->checking && table_size &&
			     (table_size < ARS_TABLE_SIZE_MIN ||
			      table_size > ARS_TABLE_SIZE_MAX ||
			      (table_size & (table_size - 1)))))
				return usage_error("%s: invalid table-size \"%s\" (expected 0, or a power of two from 64 to 1048576)",
						   c->cmd, c->argv[i + 1]);
			have_table_size = true;
		} else {
			for (k = 0; k < OBJECT_U8S; k++)
				if (matches(c->argv[i], object_u8s[k].key))
					break;
			if (k == OBJECT_U8S)
				return usage_error("%s: unknown keyword \"%s\"",
						   c->cmd, c->argv[i]);
			if (parse_u32(c->argv[i + 1], &v) ||
			    v > object_u8s[k].max)
				return usage_error("%s: invalid %s \"%s\" (expected 0 to %u)",
						   c->cmd, object_u8s[k].key,
						   c->argv[i + 1],
						   object_u8s[k].max);
			u8s[k] = v;
			have[k] = true;
		}
	}
	for (k = 0; k < OBJECT_U8S; k++)
		if (have[k])
			break;
	if (cmd == ARS_CMD_OBJECT_SET && !have_mode && !have_idle &&
	    !have_table_size && k == OBJECT_U8S)
		return usage_error("%s: nothing to set", c->cmd);
	if (c->checking && cmd == ARS_CMD_OBJECT_SET &&
	    check_object(c, name))
		return EXIT_USAGE;
	if (c->checking && cmd == ARS_CMD_OBJECT_NEW)
		check_new_object(c, name);
	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, cmd, 0);
	mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME, name);
	if (have_mode)
		mnl_attr_put_u32(c->nl.req, ARS_A_OBJECT_MODE, mode);
	if (have_idle)
		mnl_attr_put_u64(c->nl.req, ARS_A_OBJECT_IDLE_TIME, idle);
	if (have_table_size)
		mnl_attr_put_u32(c->nl.req, ARS_A_OBJECT_TABLE_SIZE, table_size);
	for (k = 0; k < OBJECT_U8S; k++)
		if (have[k])
			mnl_attr_put_u8(c->nl.req, object_u8s[k].attr, u8s[k]);
	return talk_or_say(c, object_attr_names, ARS_A_OBJECT_MAX,
			   replace && cmd == ARS_CMD_OBJECT_NEW);
}

static int object_del(struct ctx *c)
{
	if (c->argc != 2)
		return usage_error("%s: expected the object's name alone",
				   c->cmd);
	if (object_name_ok(c->argv[1]))
		return EXIT_USAGE;
	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_OBJECT_DEL, 0);
	mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME, c->argv[1]);
	return talk_or_say(c, object_attr_names, ARS_A_OBJECT_MAX, false);
}

static void object_header(void)
{
}

/* One alternate of an object's reply: "dev DEV" or "via ADDRESS". */
static void alternate_print(struct ctx *c, const struct nlattr *nest)
{
	enum mnl_attr_data_type types[ARS_A_ALTERNATE_MAX + 1] = {
		[ARS_A_ALTERNATE_IFINDEX] = MNL_TYPE_U32,
		[ARS_A_ALTERNATE_GATEWAY] = MNL_TYPE_BINARY,
	};
	const struct nlattr *tb[ARS_A_ALTERNATE_MAX + 1];
	char name[IF_NAMESIZE], addr[INET6_ADDRSTRLEN];
	const char *dev = NULL;
	unsigned int ifindex = 0;
	size_t alen;

	nl_parse_nested(nest, tb, types, ARS_A_ALTERNATE_MAX);
	if (tb[ARS_A_ALTERNATE_IFINDEX]) {
		ifindex = mnl_attr_get_u32(tb[ARS_A_ALTERNATE_IFINDEX]);
		dev = ifname(ifindex, name);
	} else if (tb[ARS_A_ALTERNATE_GATEWAY]) {
		alen = mnl_attr_get_payload_len(tb[ARS_A_ALTERNATE_GATEWAY]);
		if (!inet_ntop(alen == 4 ? AF_INET : AF_INET6,
			       mnl_attr_get_payload(tb[ARS_A_ALTERNATE_GATEWAY]),
			       addr, sizeof(addr)))
			snprintf(addr, sizeof(addr), "?");
	} else {
		return;
	}
	if (c->json) {
		json_object_open(&c->jw);
		if (ifindex) {
			json_kv_u64(&c->jw, "ifindex", ifindex);
			if (dev)
				json_kv_string(&c->jw, "ifname", dev);
		} else {
			json_kv_string(&c->jw, "gateway", addr);
		}
		json_object_close(&c->jw);
	} else if (ifindex && dev) {
		printf(" dev %s", dev);
	} else if (ifindex) {
		printf(" dev %u", ifindex);
	} else {
		printf(" via %s", addr);
	}
}

/*
 * An object's primary and alternate settings, and its alternates:
 * " primary-threshold 6 alternate-cost 0 alternate-bias 100 alternates
 * via 10.2.3.2 dev p4", or their JSON keys.
 */
static void object_alternates(struct ctx *c, const struct nlmsghdr *nlh,
			      const struct nlattr **tb)
{
	const struct nlattr *a;
	unsigned int k;
	bool any = false;

	for (k = 0; k < OBJECT_U8S; k++) {
		const struct nlattr *v = tb[object_u8s[k].attr];

		if (!v)
			continue;
		if (c->json)
			json_kv_u64(&c->jw, object_u8s[k].json,
				    mnl_attr_get_u8(v));
		else
			printf(" %s %u", object_u8s[k].key, mnl_attr_get_u8(v));
	}
	if (c->json) {
		json_key(&c->jw, "alternates");
		json_array_open(&c->jw);
	}
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != ARS_A_OBJECT_ALTERNATE)
			continue;
		if (!c->json && !any)
			printf(" alternates");
		any = true;
		alternate_print(c, a);
	}
	if (c->json)
		json_array_close(&c->jw);
}

/* object alternate { add | replace | del } NAME { via ADDRESS | dev DEV } */
static int object_alternate(struct ctx *c)
{
	unsigned char addr[16];
	unsigned int ifindex;
	bool replace = false;
	const char *sub;
	uint8_t cmd;
	size_t alen;

	c->cmd = "object alternate";
	sub = c->argc > 1 ? c->argv[1] : "";
	if (matches(sub, "add")) {
		cmd = ARS_CMD_ALTERNATE_NEW;
	} else if (matches(sub, "replace")) {
		cmd = ARS_CMD_ALTERNATE_NEW;
		replace = true;
	} else if (matches(sub, "delete")) {
		cmd = ARS_CMD_ALTERNATE_DEL;
	} else {
		return usage_error("%s: expected add, replace or del", c->cmd);
	}
	if (c->argc != 5 || (!matches(c->argv[3], "via") &&
			     !matches(c->argv[3], "dev")))
		return usage_error("%s: expected %s NAME { via ADDRESS | dev DEV }",
				   c->cmd, sub);
	if (object_name_ok(c->argv[2]))
		return EXIT_USAGE;
	if (c->checking && (check_object(c, c->argv[2]) ||
			    (matches(c->argv[3], "dev") &&
			     check_device(c, c->argv[4]))))
		return EXIT_USAGE;
	if (matches(c->argv[3], "via")) {
		if (inet_pton(AF_INET, c->argv[4], addr) == 1)
			alen = 4;
		else if (inet_pton(AF_INET6, c->argv[4], addr) == 1)
			alen = 16;
		else
			return usage_error("%s: invalid address \"%s\"",
					   c->cmd, c->argv[4]);
		if (!ctx_open(c))
			return EXIT_FAIL;
		nl_request(&c->nl, cmd, 0);
		mnl_attr_put(c->nl.req, ARS_A_ALTERNATE_GATEWAY, alen, addr);
	} else {
		if (!ctx_open(c))
			return EXIT_FAIL;
		if (filter_ifindex(c, c->argv[4], &ifindex))
			return EXIT_FAIL;
		nl_request(&c->nl, cmd, 0);
		mnl_attr_put_u32(c->nl.req, ARS_A_ALTERNATE_IFINDEX, ifindex);
	}
	mnl_attr_put_strz(c->nl.req, ARS_A_ALTERNATE_OBJECT, c->argv[2]);
	return talk_or_say(c, alternate_attr_names, ARS_A_ALTERNATE_MAX,
			   replace);
}

static int object_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_OBJECT_MAX + 1] = {
		[ARS_A_OBJECT_NAME] = MNL_TYPE_NUL_STRING,
		[ARS_A_OBJECT_MODE] = MNL_TYPE_U32,
		[ARS_A_OBJECT_IDLE_TIME] = MNL_TYPE_U64,
		[ARS_A_OBJECT_STATS] = MNL_TYPE_NESTED,
		[ARS_A_OBJECT_BINDINGS] = MNL_TYPE_U32,
		[ARS_A_OBJECT_PRIMARY_THRESHOLD] = MNL_TYPE_U8,
		[ARS_A_OBJECT_ALTERNATE_COST] = MNL_TYPE_U8,
		[ARS_A_OBJECT_ALTERNATE_BIAS] = MNL_TYPE_U8,
		[ARS_A_OBJECT_TABLE_SIZE] = MNL_TYPE_U32,
	};
	enum mnl_attr_data_type stypes[ARS_A_STATS_MAX + 1] = { 0 };
	const struct nlattr *tb[ARS_A_OBJECT_MAX + 1];
	const struct nlattr *sb[ARS_A_STATS_MAX + 1];
	struct ars_counters st = { { 0 }, { false } };
	struct ctx *c = data;
	const char *mode;
	char idle[FMT_BUFSZ];
	uint64_t ns;
	uint32_t v;

	nl_parse(nlh, tb, types, ARS_A_OBJECT_MAX);
	if (!tb[ARS_A_OBJECT_NAME] || !tb[ARS_A_OBJECT_MODE] ||
	    !tb[ARS_A_OBJECT_IDLE_TIME])
		return MNL_CB_OK;
	if (tb[ARS_A_OBJECT_STATS]) {
		stats_types(stypes);
		nl_parse_nested(tb[ARS_A_OBJECT_STATS], sb, stypes,
				ARS_A_STATS_MAX);
		stats_from(sb, &st);
	}
	list_begin(c, object_header);
	mode = mode_name(mnl_attr_get_u32(tb[ARS_A_OBJECT_MODE]));
	ns = mnl_attr_get_u64(tb[ARS_A_OBJECT_IDLE_TIME]);
	if (c->json) {
		json_object_open(&c->jw);
		json_kv_string(&c->jw, "name",
			       mnl_attr_get_str(tb[ARS_A_OBJECT_NAME]));
		json_kv_string(&c->jw, "mode", mode ?: "unknown");
		json_kv_u64(&c->jw, "idle_time_ns", ns);
		if (tb[ARS_A_OBJECT_TABLE_SIZE]) {
			v = mnl_attr_get_u32(tb[ARS_A_OBJECT_TABLE_SIZE]);
			json_kv_u64(&c->jw, "table_size", v);
			/* the key's old name, which scripts may read */
			json_kv_u64(&c->jw, "max_flows", v);
		}
		if (tb[ARS_A_OBJECT_BINDINGS])
			json_kv_u64(&c->jw, "bindings",
				    mnl_attr_get_u32(tb[ARS_A_OBJECT_BINDINGS]));
		object_alternates(c, nlh, tb);
		if (c->stats) {
			json_key(&c->jw, "counters");
			json_object_open(&c->jw);
			stats_print(c, &st);
			json_object_close(&c->jw);
		}
		json_object_close(&c->jw);
		return MNL_CB_OK;
	}
	fmt_time_exact(idle, sizeof(idle), ns);
	printf("%s mode %s idle-time %s", mnl_attr_get_str(tb[ARS_A_OBJECT_NAME]),
	       mode ?: "unknown", idle);
	if (tb[ARS_A_OBJECT_TABLE_SIZE])
		printf(" table-size %u",
		       mnl_attr_get_u32(tb[ARS_A_OBJECT_TABLE_SIZE]));
	if (tb[ARS_A_OBJECT_BINDINGS])
		printf(" bindings %u", mnl_attr_get_u32(tb[ARS_A_OBJECT_BINDINGS]));
	object_alternates(c, nlh, tb);
	printf("\n");
	if (c->stats)
		stats_print_line(&st, "    ");
	return MNL_CB_OK;
}

static int object_show(struct ctx *c)
{
	const char *name = c->argc > 1 ? c->argv[1] : NULL;

	if (c->argc > 2)
		return usage_error("%s: unexpected argument \"%s\"", c->cmd,
				   c->argv[2]);
	if (name && object_name_ok(name))
		return EXIT_USAGE;
	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_OBJECT_GET, name ? 0 : NLM_F_DUMP);
	if (name)
		mnl_attr_put_strz(c->nl.req, ARS_A_OBJECT_NAME, name);
	return list_end(c, object_header, nl_talk(&c->nl, object_cb, c));
}

struct steer_scan {
	const char *dflt;
	bool steers;
};

static int steer_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_OBJECT_MAX + 1] = {
		[ARS_A_OBJECT_NAME] = MNL_TYPE_NUL_STRING,
		[ARS_A_OBJECT_MODE] = MNL_TYPE_U32,
		[ARS_A_OBJECT_BINDINGS] = MNL_TYPE_U32,
	};
	const struct nlattr *tb[ARS_A_OBJECT_MAX + 1];
	struct steer_scan *s = data;

	nl_parse(nlh, tb, types, ARS_A_OBJECT_MAX);
	if (!tb[ARS_A_OBJECT_NAME] || !tb[ARS_A_OBJECT_MODE] ||
	    mnl_attr_get_u32(tb[ARS_A_OBJECT_MODE]) == ARS_MODE_ECMP)
		return MNL_CB_OK;
	if ((tb[ARS_A_OBJECT_BINDINGS] &&
	     mnl_attr_get_u32(tb[ARS_A_OBJECT_BINDINGS])) ||
	    !strcmp(mnl_attr_get_str(tb[ARS_A_OBJECT_NAME]), s->dflt))
		s->steers = true;
	return MNL_CB_OK;
}

int objects_steer(struct ctx *c, const char *default_object, bool *steers)
{
	struct steer_scan s = { default_object, false };
	int err;

	nl_request(&c->nl, ARS_CMD_OBJECT_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, steer_cb, &s);
	if (!err)
		*steers = s.steers;
	return err;
}

int cmd_object(struct ctx *c)
{
	const char *sub = c->argc ? c->argv[0] : "show";

	if (matches(sub, "show") || matches(sub, "list")) {
		c->cmd = "object show";
		return object_show(c);
	}
	if (matches(sub, "add")) {
		c->cmd = "object add";
		return object_change(c, ARS_CMD_OBJECT_NEW, false);
	}
	if (matches(sub, "replace")) {
		c->cmd = "object replace";
		return object_change(c, ARS_CMD_OBJECT_NEW, true);
	}
	if (matches(sub, "set")) {
		c->cmd = "object set";
		return object_change(c, ARS_CMD_OBJECT_SET, false);
	}
	if (matches(sub, "delete")) {
		c->cmd = "object del";
		return object_del(c);
	}
	if (matches(sub, "alternate"))
		return object_alternate(c);
	return usage_error("object: unknown command \"%s\" (add, replace, set, del, show, alternate)",
			   sub);
}

/* "10.1.0.0/16", "2001:db8::/32", or an address alone (a host route). */
static int parse_prefix(const char *s, unsigned char *addr, size_t *alen,
			uint32_t *plen)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1)
		*alen = 4;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		*alen = 16;
	else
		return -EINVAL;
	*plen = *alen * 8;
	return slash ? parse_u32(slash, plen) : 0;
}

/* A number in C's notation (0x10, 16, 020), as ip's fwmark. */
static int parse_num(const char *s, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n > UINT32_MAX)
		return -EINVAL;
	*v = n;
	return 0;
}

static int parse_mark(const char *s, uint32_t *mark, uint32_t *mask,
		      bool *have_mask)
{
	char buf[32], *slash;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	*have_mask = slash;
	return parse_num(buf, mark) ?: slash ? parse_num(slash, mask) : 0;
}

static int parse_table(const char *s, uint32_t *table)
{
	if (!strcasecmp(s, "main"))
		*table = RT_TABLE_MAIN;
	else if (!strcasecmp(s, "local"))
		*table = RT_TABLE_LOCAL;
	else if (!strcasecmp(s, "default"))
		*table = RT_TABLE_DEFAULT;
	else
		return parse_u32(s, table);
	return 0;
}

/* The table of VRF name, or EXIT_FAIL having said why not. */
static int bind_vrf_table(const struct ctx *c, const char *name,
			  uint32_t *table)
{
	int err = vrf_table(name, table);

	if (!err)
		return EXIT_OK;
	if (err == -ENODEV)
		fprintf(stderr, "%s%s: device \"%s\" does not exist\n",
			msg_prefix(), c->cmd, name);
	else if (err == -EINVAL)
		fprintf(stderr, "%s%s: device \"%s\" is not a VRF\n",
			msg_prefix(), c->cmd, name);
	else
		fprintf(stderr, "%s%s: VRF \"%s\": %s\n", msg_prefix(),
			c->cmd, name, strerror(-err));
	return EXIT_FAIL;
}

/*
 * What the kernel refuses of a binding, for a batch's first pass: a prefix
 * longer than its address or with host bits set, a mark outside its mask
 * or without one, an add without its object.
 */
static int bind_check(const struct ctx *c, uint8_t cmd, int kind,
		      const unsigned char *addr, size_t alen, uint32_t plen,
		      uint32_t mark, uint32_t mask, bool have_mask,
		      const char *object, bool exempt, const char *vrf)
{
	unsigned int i;

	if (kind == ARS_A_BIND_PREFIX) {
		if (plen > alen * 8)
			return usage_error("%s: prefix length %u longer than the address (%zu bits)",
					   c->cmd, plen, alen * 8);
		for (i = plen; i < alen * 8; i++)
			if (addr[i / 8] & (0x80 >> (i % 8)))
				return usage_error("%s: prefix has host bits set (beyond /%u)",
						   c->cmd, plen);
	}
	if (kind == ARS_A_BIND_MARK && cmd == ARS_CMD_BIND_NEW &&
	    (!have_mask || (mark & ~mask)))
		return usage_error("%s: mark 0x%x %s", c->cmd, mark,
				   have_mask ? "has bits outside its mask" :
					       "needs a mask (MARK/MASK)");
	if (cmd == ARS_CMD_BIND_NEW && !object && !exempt)
		return usage_error("%s: expected object NAME or exempt",
				   c->cmd);
	if (cmd == ARS_CMD_BIND_NEW && object && exempt)
		return usage_error("%s: give object NAME or exempt, not both",
				   c->cmd);
	if (object && check_object(c, object))
		return EXIT_USAGE;
	if (vrf && check_device(c, vrf))
		return EXIT_USAGE;
	return EXIT_OK;
}

/* bind add|replace|del WHAT [object NAME | exempt]: WHAT into the request. */
static int bind_change(struct ctx *c, uint8_t cmd, bool replace)
{
	unsigned char addr[16];
	uint32_t v = 0, mask = 0, plen = 0, table = 0;
	bool have_mask = false, have_table = false, exempt = false;
	const char *object = NULL, *vrf = NULL;
	size_t alen = 0;
	int i, kind = -1;

	for (i = 1; i < c->argc; i++) {
		const char *k = c->argv[i], *val = i + 1 < c->argc ?
						     c->argv[i + 1] : NULL;

		if (matches(k, "exempt")) {
			exempt = true;
			continue;
		}
		if (!val)
			return usage_error("%s: missing value after \"%s\"",
					   c->cmd, k);
		i++;
		if (matches(k, "nhid") && kind < 0) {
			if (parse_u32(val, &v))
				return usage_error("%s: invalid nhid \"%s\"",
						   c->cmd, val);
			kind = ARS_A_BIND_NHID;
		} else if (matches(k, "prefix") && kind < 0) {
			if (parse_prefix(val, addr, &alen, &plen))
				return usage_error("%s: invalid prefix \"%s\" (expected ADDRESS[/LENGTH])",
						   c->cmd, val);
			kind = ARS_A_BIND_PREFIX;
		} else if (matches(k, "mark") && kind < 0) {
			if (parse_mark(val, &v, &mask, &have_mask))
				return usage_error("%s: invalid mark \"%s\" (expected MARK/MASK, such as 0x10/0xf0)",
						   c->cmd, val);
			kind = ARS_A_BIND_MARK;
		} else if (matches(k, "table")) {
			if (parse_table(val, &table))
				return usage_error("%s: invalid table \"%s\"",
						   c->cmd, val);
			have_table = true;
		} else if (matches(k, "vrf")) {
			if (!*val || strlen(val) >= IF_NAMESIZE)
				return usage_error("%s: invalid VRF name \"%s\" (1 to %d bytes)",
						   c->cmd, val, IF_NAMESIZE - 1);
			vrf = val;
		} else if (matches(k, "object") && cmd == ARS_CMD_BIND_NEW) {
			if (object_name_ok(val))
				return EXIT_USAGE;
			object = val;
		} else {
			return usage_error("%s: unexpected \"%s\"", c->cmd, k);
		}
	}
	if (kind < 0)
		return usage_error("%s: expected one of nhid, prefix and mark",
				   c->cmd);
	if (cmd == ARS_CMD_BIND_DEL && exempt)
		return usage_error("%s: unexpected \"exempt\"", c->cmd);
	if (have_table && vrf)
		return usage_error("%s: give table or vrf, not both", c->cmd);
	if (c->checking &&
	    bind_check(c, cmd, kind, addr, alen, plen, v, mask, have_mask,
		       object, exempt, vrf))
		return EXIT_USAGE;

	if (!ctx_open(c))
		return EXIT_FAIL;
	if (vrf) {
		if (bind_vrf_table(c, vrf, &table))
			return EXIT_FAIL;
		have_table = true;
	}
	nl_request(&c->nl, cmd, 0);
	if (object)
		mnl_attr_put_strz(c->nl.req, ARS_A_BIND_OBJECT, object);
	if (exempt)
		mnl_attr_put(c->nl.req, ARS_A_BIND_EXEMPT, 0, NULL);
	switch (kind) {
	case ARS_A_BIND_NHID:
		mnl_attr_put_u32(c->nl.req, ARS_A_BIND_NHID, v);
		break;
	case ARS_A_BIND_PREFIX:
		mnl_attr_put(c->nl.req, ARS_A_BIND_PREFIX, alen, addr);
		mnl_attr_put_u8(c->nl.req, ARS_A_BIND_PREFIX_LEN,
				plen > 255 ? 255 : plen);
		break;
	case ARS_A_BIND_MARK:
		mnl_attr_put_u32(c->nl.req, ARS_A_BIND_MARK, v);
		if (have_mask)
			mnl_attr_put_u32(c->nl.req, ARS_A_BIND_MASK, mask);
		break;
	}
	if (have_table)
		mnl_attr_put_u32(c->nl.req, ARS_A_BIND_TABLE, table);
	return talk_or_say(c, bind_attr_names, ARS_A_BIND_MAX,
			   replace && cmd == ARS_CMD_BIND_NEW);
}

static void bind_header(void)
{
}

/* A bind show, with the namespace's VRFs once a prefix needs them. */
struct bind_list {
	struct ctx *c;
	struct vrf_info *vrfs;
	size_t nvrfs;
	bool vrfs_read;
};

/* The name of the VRF with table table, NULL if none has it. */
static const char *bind_vrf(struct bind_list *bl, uint32_t table)
{
	if (!bl->vrfs_read) {
		bl->vrfs_read = true;
		/* Without the links, the tables alone. */
		if (vrfs_fetch(&bl->vrfs, &bl->nvrfs))
			bl->nvrfs = 0;
	}
	return vrf_of_table(bl->vrfs, bl->nvrfs, table);
}

static int bind_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_BIND_MAX + 1] = {
		[ARS_A_BIND_OBJECT] = MNL_TYPE_NUL_STRING,
		[ARS_A_BIND_EXEMPT] = MNL_TYPE_FLAG,
		[ARS_A_BIND_NHID] = MNL_TYPE_U32,
		[ARS_A_BIND_PREFIX] = MNL_TYPE_BINARY,
		[ARS_A_BIND_PREFIX_LEN] = MNL_TYPE_U8,
		[ARS_A_BIND_TABLE] = MNL_TYPE_U32,
		[ARS_A_BIND_MARK] = MNL_TYPE_U32,
		[ARS_A_BIND_MASK] = MNL_TYPE_U32,
		[ARS_A_BIND_PACKETS] = MNL_TYPE_U64,
		[ARS_A_BIND_FLOWLETS] = MNL_TYPE_U64,
	};
	const struct nlattr *tb[ARS_A_BIND_MAX + 1];
	uint64_t packets = 0, flowlets = 0;
	char addr[INET6_ADDRSTRLEN], what[INET6_ADDRSTRLEN + 72];
	const char *object = "", *vrf = NULL;
	struct bind_list *bl = data;
	struct ctx *c = bl->c;
	uint32_t table;
	size_t alen;

	nl_parse(nlh, tb, types, ARS_A_BIND_MAX);
	if (tb[ARS_A_BIND_OBJECT])
		object = mnl_attr_get_str(tb[ARS_A_BIND_OBJECT]);
	list_begin(c, bind_header);
	if (c->json)
		json_object_open(&c->jw);

	if (tb[ARS_A_BIND_NHID]) {
		if (c->json)
			json_kv_u64(&c->jw, "nhid",
				    mnl_attr_get_u32(tb[ARS_A_BIND_NHID]));
		snprintf(what, sizeof(what), "nhid %u",
			 mnl_attr_get_u32(tb[ARS_A_BIND_NHID]));
	} else if (tb[ARS_A_BIND_PREFIX] && tb[ARS_A_BIND_PREFIX_LEN]) {
		alen = mnl_attr_get_payload_len(tb[ARS_A_BIND_PREFIX]);
		if (!inet_ntop(alen == 4 ? AF_INET : AF_INET6,
			       mnl_attr_get_payload(tb[ARS_A_BIND_PREFIX]),
			       addr, sizeof(addr)))
			snprintf(addr, sizeof(addr), "?");
		table = tb[ARS_A_BIND_TABLE] ?
			mnl_attr_get_u32(tb[ARS_A_BIND_TABLE]) : 0;
		if (tb[ARS_A_BIND_TABLE])
			vrf = bind_vrf(bl, table);
		snprintf(what, sizeof(what), "prefix %s/%u table %u%s%s", addr,
			 mnl_attr_get_u8(tb[ARS_A_BIND_PREFIX_LEN]), table,
			 vrf ? " vrf " : "", vrf ?: "");
		if (c->json) {
			snprintf(what, sizeof(what), "%s/%u", addr,
				 mnl_attr_get_u8(tb[ARS_A_BIND_PREFIX_LEN]));
			json_kv_string(&c->jw, "prefix", what);
			if (tb[ARS_A_BIND_TABLE])
				json_kv_u64(&c->jw, "table", table);
			if (vrf)
				json_kv_string(&c->jw, "vrf", vrf);
		}
	} else if (tb[ARS_A_BIND_MARK] && tb[ARS_A_BIND_MASK]) {
		if (c->json) {
			json_kv_u64(&c->jw, "mark",
				    mnl_attr_get_u32(tb[ARS_A_BIND_MARK]));
			json_kv_u64(&c->jw, "mask",
				    mnl_attr_get_u32(tb[ARS_A_BIND_MASK]));
		}
		snprintf(what, sizeof(what), "mark 0x%x/0x%x",
			 mnl_attr_get_u32(tb[ARS_A_BIND_MARK]),
			 mnl_attr_get_u32(tb[ARS_A_BIND_MASK]));
	} else {
		snprintf(what, sizeof(what), "?");
	}

	if (tb[ARS_A_BIND_PACKETS])
		packets = mnl_attr_get_u64(tb[ARS_A_BIND_PACKETS]);
	if (tb[ARS_A_BIND_FLOWLETS])
		flowlets = mnl_attr_get_u64(tb[ARS_A_BIND_FLOWLETS]);
	if (c->json) {
		if (tb[ARS_A_BIND_EXEMPT])
			json_kv_bool(&c->jw, "exempt", true);
		else
			json_kv_string(&c->jw, "object", object);
		if (c->stats) {
			json_key(&c->jw, "counters");
			json_object_open(&c->jw);
			json_kv_u64(&c->jw, "packets", packets);
			json_kv_u64(&c->jw, "flowlets", flowlets);
			json_object_close(&c->jw);
		}
		json_object_close(&c->jw);
		return MNL_CB_OK;
	}
	if (tb[ARS_A_BIND_EXEMPT])
		printf("%s exempt\n", what);
	else
		printf("%s object %s\n", what, object);
	if (c->stats)
		printf("    packets %" PRIu64 " flowlets %" PRIu64 "\n",
		       packets, flowlets);
	return MNL_CB_OK;
}

static int bind_show(struct ctx *c)
{
	struct bind_list bl = { .c = c };
	int err;

	if (c->argc > 1)
		return usage_error("%s: unexpected argument \"%s\"", c->cmd,
				   c->argv[1]);
	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_BIND_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, bind_cb, &bl);
	free(bl.vrfs);
	return list_end(c, bind_header, err);
}

int cmd_bind(struct ctx *c)
{
	const char *sub = c->argc ? c->argv[0] : "show";

	if (matches(sub, "show") || matches(sub, "list")) {
		c->cmd = "bind show";
		return bind_show(c);
	}
	if (matches(sub, "add")) {
		c->cmd = "bind add";
		return bind_change(c, ARS_CMD_BIND_NEW, false);
	}
	if (matches(sub, "replace")) {
		c->cmd = "bind replace";
		return bind_change(c, ARS_CMD_BIND_NEW, true);
	}
	if (matches(sub, "delete")) {
		c->cmd = "bind del";
		return bind_change(c, ARS_CMD_BIND_DEL, false);
	}
	return usage_error("bind: unknown command \"%s\" (add, replace, del, show)",
			   sub);
}

static void interface_header(void)
{
}

static int interface_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_INTERFACE_MAX + 1] = {
		[ARS_A_INTERFACE_IFINDEX] = MNL_TYPE_U32,
	};
	const struct nlattr *tb[ARS_A_INTERFACE_MAX + 1];
	char name[IF_NAMESIZE];
	struct ctx *c = data;
	unsigned int ifindex;
	const char *dev;

	nl_parse(nlh, tb, types, ARS_A_INTERFACE_MAX);
	if (!tb[ARS_A_INTERFACE_IFINDEX])
		return MNL_CB_OK;
	ifindex = mnl_attr_get_u32(tb[ARS_A_INTERFACE_IFINDEX]);
	dev = ifname(ifindex, name);
	list_begin(c, interface_header);
	if (c->json) {
		json_object_open(&c->jw);
		json_kv_u64(&c->jw, "ifindex", ifindex);
		if (dev)
			json_kv_string(&c->jw, "ifname", dev);
		json_object_close(&c->jw);
	} else if (dev) {
		printf("%s\n", dev);
	} else {
		printf("%u\n", ifindex);
	}
	return MNL_CB_OK;
}

/*
 * interface { enable | disable } dev DEV, interface [show]: the
 * ARS-enabled devices; port, the name that shipped first, runs this too.
 */
int cmd_interface(struct ctx *c)
{
	const char *sub = c->argc ? c->argv[0] : "show";
	unsigned int ifindex;
	uint8_t cmd;

	if (matches(sub, "show") || matches(sub, "list")) {
		c->cmd = "interface show";
		if (c->argc > 1)
			return usage_error("%s: unexpected argument \"%s\"",
					   c->cmd, c->argv[1]);
		if (!ctx_open(c))
			return EXIT_FAIL;
		nl_request(&c->nl, ARS_CMD_INTERFACE_GET, NLM_F_DUMP);
		return list_end(c, interface_header,
				nl_talk(&c->nl, interface_cb, c));
	}
	if (matches(sub, "enable")) {
		c->cmd = "interface enable";
		cmd = ARS_CMD_INTERFACE_ENABLE;
	} else if (matches(sub, "disable")) {
		c->cmd = "interface disable";
		cmd = ARS_CMD_INTERFACE_DISABLE;
	} else {
		return usage_error("interface: unknown command \"%s\" (enable, disable, show)",
				   sub);
	}
	if (c->argc != 3 || !matches(c->argv[1], "dev"))
		return usage_error("%s: expected dev DEV", c->cmd);
	if (c->checking && check_device(c, c->argv[2]))
		return EXIT_USAGE;
	if (!ctx_open(c))
		return EXIT_FAIL;
	if (filter_ifindex(c, c->argv[2], &ifindex))
		return EXIT_FAIL;
	nl_request(&c->nl, cmd, 0);
	mnl_attr_put_u32(c->nl.req, ARS_A_INTERFACE_IFINDEX, ifindex);
	/* Enabling an enabled interface is no error: it is as asked. */
	return talk_or_say(c, NULL, 0, cmd == ARS_CMD_INTERFACE_ENABLE);
}

/* Routes' objects, as the kernel resolves them (ars_conf_route()). */

struct objmap_bind {
	bool nh;			/* else a prefix */
	uint32_t id;			/* nhid, or the prefix's table */
	int family;
	unsigned char addr[16];
	unsigned int plen;
	char object[ARS_OBJECT_NAME_LEN];
};

struct objmap_obj {
	char name[ARS_OBJECT_NAME_LEN];
	size_t n;
	struct mp_nexthop alt[ARS_ALTERNATES_MAX];	/* weight unused */
};

struct objmap {
	struct objmap_bind bind[ARS_BINDINGS_MAX];
	size_t nbind;
	struct objmap_obj obj[ARS_OBJECTS_MAX];
	size_t nobj;
};

static int objmap_bind_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_BIND_MAX + 1] = {
		[ARS_A_BIND_OBJECT] = MNL_TYPE_NUL_STRING,
		[ARS_A_BIND_NHID] = MNL_TYPE_U32,
		[ARS_A_BIND_PREFIX] = MNL_TYPE_BINARY,
		[ARS_A_BIND_PREFIX_LEN] = MNL_TYPE_U8,
		[ARS_A_BIND_TABLE] = MNL_TYPE_U32,
	};
	const struct nlattr *tb[ARS_A_BIND_MAX + 1];
	struct objmap *m = data;
	struct objmap_bind *b;
	size_t alen;

	nl_parse(nlh, tb, types, ARS_A_BIND_MAX);
	if (!tb[ARS_A_BIND_OBJECT] || m->nbind == ARS_BINDINGS_MAX)
		return MNL_CB_OK;
	b = &m->bind[m->nbind];
	memset(b, 0, sizeof(*b));
	if (tb[ARS_A_BIND_NHID]) {
		b->nh = true;
		b->id = mnl_attr_get_u32(tb[ARS_A_BIND_NHID]);
	} else if (tb[ARS_A_BIND_PREFIX] && tb[ARS_A_BIND_PREFIX_LEN] &&
		   tb[ARS_A_BIND_TABLE]) {
		alen = mnl_attr_get_payload_len(tb[ARS_A_BIND_PREFIX]);
		if (alen != 4 && alen != 16)
			return MNL_CB_OK;
		b->family = alen == 4 ? AF_INET : AF_INET6;
		memcpy(b->addr, mnl_attr_get_payload(tb[ARS_A_BIND_PREFIX]),
		       alen);
		b->plen = mnl_attr_get_u8(tb[ARS_A_BIND_PREFIX_LEN]);
		b->id = mnl_attr_get_u32(tb[ARS_A_BIND_TABLE]);
	} else {
		return MNL_CB_OK;	/* marks apply to packets, not routes */
	}
	snprintf(b->object, sizeof(b->object), "%s",
		 mnl_attr_get_str(tb[ARS_A_BIND_OBJECT]));
	m->nbind++;
	return MNL_CB_OK;
}

static int objmap_obj_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_ALTERNATE_MAX + 1] = {
		[ARS_A_ALTERNATE_IFINDEX] = MNL_TYPE_U32,
		[ARS_A_ALTERNATE_GATEWAY] = MNL_TYPE_BINARY,
	};
	const struct nlattr *tb[ARS_A_ALTERNATE_MAX + 1];
	struct objmap *m = data;
	struct objmap_obj *o;
	const struct nlattr *a;
	size_t alen;

	if (m->nobj == ARS_OBJECTS_MAX)
		return MNL_CB_OK;
	o = &m->obj[m->nobj];
	memset(o, 0, sizeof(*o));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == ARS_A_OBJECT_NAME &&
		    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
			snprintf(o->name, sizeof(o->name), "%s",
				 mnl_attr_get_str(a));
		if (mnl_attr_get_type(a) != ARS_A_OBJECT_ALTERNATE ||
		    o->n == ARS_ALTERNATES_MAX)
			continue;
		nl_parse_nested(a, tb, types, ARS_A_ALTERNATE_MAX);
		if (tb[ARS_A_ALTERNATE_IFINDEX]) {
			o->alt[o->n++].ifindex =
				mnl_attr_get_u32(tb[ARS_A_ALTERNATE_IFINDEX]);
		} else if (tb[ARS_A_ALTERNATE_GATEWAY]) {
			alen = mnl_attr_get_payload_len(tb[ARS_A_ALTERNATE_GATEWAY]);
			if (alen != 4 && alen != 16)
				continue;
			o->alt[o->n].gw_family = alen == 4 ? AF_INET : AF_INET6;
			memcpy(o->alt[o->n++].gw,
			       mnl_attr_get_payload(tb[ARS_A_ALTERNATE_GATEWAY]),
			       alen);
		}
	}
	if (o->name[0])
		m->nobj++;
	return MNL_CB_OK;
}

int objmap_fetch(struct ctx *c, struct objmap **out)
{
	struct objmap *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	nl_request(&c->nl, ARS_CMD_BIND_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, objmap_bind_cb, m);
	if (!err) {
		nl_request(&c->nl, ARS_CMD_OBJECT_GET, NLM_F_DUMP);
		err = nl_talk(&c->nl, objmap_obj_cb, m);
	}
	if (err) {
		free(m);
		return err;
	}
	*out = m;
	return 0;
}

void objmap_free(struct objmap *m)
{
	free(m);
}

/* The first @plen bits of @a and @b agree. */
static bool prefix_match(const unsigned char *a, const unsigned char *b,
			 unsigned int plen)
{
	unsigned int bytes = plen / 8, bits = plen % 8;

	if (memcmp(a, b, bytes))
		return false;
	return !bits || !((a[bytes] ^ b[bytes]) & (0xff << (8 - bits)));
}

/*
 * A route's object: its nexthop group's binding, else the bound prefix
 * of its table that holds all of the route's destinations, else the
 * default object. A bound prefix that holds only part of them (a longer
 * prefix inside the route's) is named in @inner: its packets take its
 * object instead. Mark bindings come before all of these, per packet.
 */
const char *objmap_route(const struct objmap *m, const struct mp_route *r,
			 const char *default_object, char *inner,
			 size_t inner_len)
{
	const struct objmap_bind *b, *outer = NULL;
	char addr[INET6_ADDRSTRLEN];
	size_t i;

	*inner = '\0';
	for (i = 0; i < m->nbind; i++) {
		b = &m->bind[i];
		if (b->nh) {
			if (r->nh_id && b->id == r->nh_id)
				return b->object;
			continue;
		}
		if (b->id != r->table || b->family != r->family)
			continue;
		if (b->plen <= r->dst_len &&
		    prefix_match(b->addr, r->dst, b->plen))
			outer = b;
		else if (b->plen > r->dst_len && !*inner &&
			 prefix_match(b->addr, r->dst, r->dst_len) &&
			 inet_ntop(b->family, b->addr, addr, sizeof(addr)))
			snprintf(inner, inner_len, "%s/%u object %s", addr,
				 b->plen, b->object);
	}
	return outer ? outer->object : default_object;
}

/* Next hop @nh is an alternate of @object. */
bool objmap_alternate(const struct objmap *m, const char *object,
		      const struct mp_nexthop *nh)
{
	const struct objmap_obj *o = NULL;
	size_t i;

	for (i = 0; i < m->nobj && !o; i++)
		if (!strcmp(m->obj[i].name, object))
			o = &m->obj[i];
	for (i = 0; o && i < o->n; i++) {
		const struct mp_nexthop *a = &o->alt[i];

		if (a->ifindex ? a->ifindex == nh->ifindex :
		    a->gw_family == nh->gw_family &&
		    !memcmp(a->gw, nh->gw, a->gw_family == AF_INET ? 4 : 16))
			return true;
	}
	return false;
}
