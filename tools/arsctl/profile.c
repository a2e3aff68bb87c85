// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl show [profile], arsctl set: the profile of the network namespace,
 * and show's summary of what ars does with it.
 *
 * One table describes every profile attribute: its keyword (the same for
 * set and in show's output, so that show profile's lines can be pasted
 * back into set), its JSON key (with the unit, for times), how its value
 * is read and written, and its limits and default as linux/ars.h has them.
 * A set command alone checks only the syntax of the values: the ranges are
 * the kernel's, so that its extended ACK is what the user sees, and a value
 * that does not parse is answered with the range. A batch's first pass
 * (arsctl -c) checks the ranges too, with the same constants as the
 * kernel's policy, so that every bad line is found before any is sent.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

enum kind {
	K_ON_OFF,	/* u8 */
	K_MODE,		/* u32, enum ars_mode */
	K_TIME,		/* u64, ns */
	K_TIME_OFF,	/* u64, ns; 0 is "off" */
	K_U32,
	K_PERCENT,	/* u32 */
	K_OBJECT,	/* string, an object's name; "" (none) is "none" */
};

struct field {
	const char *name;
	const char *key;
	unsigned int attr;
	enum kind kind;
	const char *hint;	/* what set expects, with the range */
	/* The kernel's limits and default, from linux/ars.h. */
	uint64_t min, max, def;
	bool pow2;		/* a power of two */
	uint32_t autobit;	/* its ARS_AUTO_* flag: it may follow fabric-rtt */
	bool ro;		/* shown, not set (the kernel derives it) */
};

static const struct field fields[] = {
	{ "state", "state", ARS_A_PROFILE_STATE, K_ON_OFF,
	  "expected on or off", 0, 1, 0, false, 0, false },
	{ "mode", "mode", ARS_A_PROFILE_MODE, K_MODE, NULL,
	  0, ARS_MODE_MAX, ARS_MODE_FLOWLET_QUALITY, false, 0, false },
	{ "idle-time", "idle_time_ns", ARS_A_PROFILE_IDLE_TIME, K_TIME,
	  "expected a time from 1us to 1s, such as 256us or 0.5ms, or auto",
	  ARS_IDLE_TIME_MIN, ARS_IDLE_TIME_MAX, ARS_IDLE_TIME_DEFAULT, false,
	  ARS_AUTO_IDLE_TIME, false },
	{ "table-size", "table_size", ARS_A_PROFILE_TABLE_SIZE, K_U32,
	  "expected a power of two from 64 to 1048576, such as 4096",
	  ARS_TABLE_SIZE_MIN, ARS_TABLE_SIZE_MAX, ARS_TABLE_SIZE_DEFAULT,
	  true, 0, false },
	{ "ipv4", "ipv4", ARS_A_PROFILE_IPV4, K_ON_OFF, "expected on or off",
	  0, 1, 1, false, 0, false },
	{ "ipv6", "ipv6", ARS_A_PROFILE_IPV6, K_ON_OFF, "expected on or off",
	  0, 1, 1, false, 0, false },
	{ "sampling-interval", "sampling_interval_ns",
	  ARS_A_PROFILE_SAMPLING_INTERVAL, K_TIME,
	  "expected a time from 1us to 1s, such as 100us, or auto",
	  ARS_SAMPLING_INTERVAL_MIN, ARS_SAMPLING_INTERVAL_MAX,
	  ARS_SAMPLING_INTERVAL_DEFAULT, false, ARS_AUTO_SAMPLING_INTERVAL,
	  false },
	{ "rate-weight", "rate_weight_percent", ARS_A_PROFILE_RATE_WEIGHT,
	  K_PERCENT, "expected a percentage from 0 to 100, such as 50 or 50%",
	  0, ARS_RATE_WEIGHT_MAX, ARS_RATE_WEIGHT_DEFAULT, false, 0, false },
	{ "ewma-shift", "ewma_shift", ARS_A_PROFILE_EWMA_SHIFT, K_U32,
	  "expected an integer from 0 to 15", 0, ARS_EWMA_SHIFT_MAX,
	  ARS_EWMA_SHIFT_DEFAULT, false, 0, false },
	{ "default-object", "default_object", ARS_A_PROFILE_DEFAULT_OBJECT,
	  K_OBJECT, "expected an object's name, up to 15 bytes, or none",
	  0, 0, 0, false, 0, false },
	{ "flowlabel", "flowlabel", ARS_A_PROFILE_FLOWLABEL, K_ON_OFF,
	  "expected on or off", 0, 1, 0, false, 0, false },
	{ "flowlet-window", "flowlet_window_ns", ARS_A_PROFILE_FLOWLET_WINDOW,
	  K_TIME_OFF, "expected off or a time up to 1s, such as 2us, or auto",
	  0, ARS_FLOWLET_WINDOW_MAX, 0, false, ARS_AUTO_FLOWLET_WINDOW, false },
	{ "fabric-rtt", "fabric_rtt_ns", ARS_A_PROFILE_FABRIC_RTT, K_TIME_OFF,
	  "expected off or a time up to 100ms, such as 8us",
	  0, ARS_FABRIC_RTT_MAX, 0, false, 0, false },
	{ "signal-tau", "signal_tau_ns", ARS_A_PROFILE_SIGNAL_TAU, K_TIME,
	  "derived from fabric-rtt: each qdisc's own is tc's tau",
	  0, 0, ARS_SIGNAL_TAU_DEFAULT, false, 0, true },
	{ "remote", "remote", ARS_A_PROFILE_REMOTE, K_ON_OFF,
	  "expected on or off", 0, 1, 0, false, 0, false },
	{ "remote-half-life", "remote_half_life_ns",
	  ARS_A_PROFILE_REMOTE_HALF_LIFE, K_TIME,
	  "expected a time from 1us to 1s, such as 1ms",
	  ARS_REMOTE_HALF_LIFE_MIN, ARS_REMOTE_HALF_LIFE_MAX,
	  ARS_REMOTE_HALF_LIFE_DEFAULT, false, 0, false },
};

/* The hints hold the kernel's limits: say so if they move. */
_Static_assert(ARS_IDLE_TIME_MIN == 1000 && ARS_IDLE_TIME_MAX == 1000000000 &&
	       ARS_TABLE_SIZE_MIN == 64 && ARS_TABLE_SIZE_MAX == 1048576 &&
	       ARS_SAMPLING_INTERVAL_MIN == 1000 &&
	       ARS_SAMPLING_INTERVAL_MAX == 1000000000 &&
	       ARS_RATE_WEIGHT_MAX == 100 && ARS_EWMA_SHIFT_MAX == 15 &&
	       ARS_FLOWLET_WINDOW_MAX == 1000000000 &&
	       ARS_FABRIC_RTT_MAX == 100000000 &&
	       ARS_REMOTE_HALF_LIFE_MIN == 1000 &&
	       ARS_REMOTE_HALF_LIFE_MAX == 1000000000,
	       "profile limits in the hints");

static const enum mnl_attr_data_type kind_types[] = {
	[K_ON_OFF]	= MNL_TYPE_U8,
	[K_MODE]	= MNL_TYPE_U32,
	[K_TIME]	= MNL_TYPE_U64,
	[K_TIME_OFF]	= MNL_TYPE_U64,
	[K_U32]		= MNL_TYPE_U32,
	[K_PERCENT]	= MNL_TYPE_U32,
	[K_OBJECT]	= MNL_TYPE_NUL_STRING,
};

static const struct field *field_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcasecmp(fields[i].name, name))
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
	case K_TIME_OFF:
		if (!v) {
			snprintf(buf, len, "off");
			break;
		}
		/* fall through */
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

/*
 * The profile's attributes; have[] tells those the kernel sent. The one
 * K_OBJECT field's value is in object.
 */
struct profile {
	uint64_t val[ARRAY_SIZE(fields)];
	bool have[ARRAY_SIZE(fields)];
	char object[ARS_OBJECT_NAME_LEN];
	bool have_auto;		/* a kernel that derives figures */
	uint32_t autos;		/* ARS_AUTO_*: the figures not set */
};

static int profile_cb(const struct nlmsghdr *nlh, void *data)
{
	enum mnl_attr_data_type types[ARS_A_PROFILE_MAX + 1] = { 0 };
	const struct nlattr *tb[ARS_A_PROFILE_MAX + 1];
	struct profile *pr = data;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		types[fields[i].attr] = kind_types[fields[i].kind];
	types[ARS_A_PROFILE_AUTO] = MNL_TYPE_U32;
	nl_parse(nlh, tb, types, ARS_A_PROFILE_MAX);
	pr->have_auto = tb[ARS_A_PROFILE_AUTO];
	if (pr->have_auto)
		pr->autos = mnl_attr_get_u32(tb[ARS_A_PROFILE_AUTO]);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		pr->have[i] = tb[fields[i].attr];
		if (!pr->have[i])
			continue;
		if (fields[i].kind == K_OBJECT)
			snprintf(pr->object, sizeof(pr->object), "%s",
				 mnl_attr_get_str(tb[fields[i].attr]));
		else
			pr->val[i] = attr_value(tb[fields[i].attr],
						fields[i].kind);
	}
	return MNL_CB_OK;
}

static int profile_fetch(struct ctx *c, struct profile *pr)
{
	memset(pr, 0, sizeof(*pr));
	nl_request(&c->nl, ARS_CMD_PROFILE_GET, 0);
	return nl_talk(&c->nl, profile_cb, pr);
}

static uint64_t profile_val(const struct profile *pr, unsigned int attr)
{
	const struct field *f = field_by_attr(attr);

	return f && pr->have[f - fields] ? pr->val[f - fields] : 0;
}

/*
 * Where a figure that may follow fabric-rtt comes from: "derived" from it,
 * "set" explicitly, or the built-in "default"; NULL for the others.
 */
static const char *field_source(const struct profile *pr,
				const struct field *f)
{
	if (!pr->have_auto || (!f->autobit && !f->ro))
		return NULL;
	if (f->autobit && !(pr->autos & f->autobit))
		return "set";
	return profile_val(pr, ARS_A_PROFILE_FABRIC_RTT) ? "derived" :
							    "default";
}

/* "17.4us (derived: 2 x fabric-rtt 8.7us)" */
static void fmt_derived(char *buf, size_t len, uint64_t v, uint64_t rtt)
{
	char a[FMT_BUFSZ], b[FMT_BUFSZ];

	fmt_time_exact(a, sizeof(a), v);
	fmt_time_exact(b, sizeof(b), rtt);
	snprintf(buf, len, "%s (derived: %.3g x fabric-rtt %s)", a,
		 (double)v / rtt, b);
}

/* In JSON, the source of each figure that may follow fabric-rtt. */
static void sources_print(struct ctx *c, const struct profile *pr)
{
	const char *src;
	size_t i;

	if (!pr->have_auto)
		return;
	json_key(&c->jw, "source");
	json_object_open(&c->jw);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		src = field_source(pr, &fields[i]);
		if (src && pr->have[i])
			json_kv_string(&c->jw, fields[i].key, src);
	}
	json_object_close(&c->jw);
}

/*
 * As lines of "keyword value", or as keys of the JSON object being
 * written. A derived figure says so, from what: such a line is not set's
 * words (set it, or "auto"); signal-tau, which only the kernel sets, is
 * a line only when derived.
 */
static void profile_print(struct ctx *c, const struct profile *pr)
{
	uint64_t rtt = profile_val(pr, ARS_A_PROFILE_FABRIC_RTT);
	char buf[2 * FMT_BUFSZ + 48];
	const char *src;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!pr->have[i])
			continue;
		src = field_source(pr, &fields[i]);
		if (!c->json && src && !strcmp(src, "derived")) {
			fmt_derived(buf, sizeof(buf), pr->val[i], rtt);
			printf("%-18s %s\n", fields[i].name, buf);
			continue;
		}
		if (!c->json && fields[i].ro)
			continue;
		if (fields[i].kind == K_OBJECT && c->json)
			json_kv_string(&c->jw, fields[i].key,
				       pr->object[0] ? pr->object : "none");
		else if (fields[i].kind == K_OBJECT)
			printf("%-18s %s\n", fields[i].name,
			       pr->object[0] ? pr->object : "none");
		else if (c->json)
			json_value(&c->jw, &fields[i], pr->val[i]);
		else {
			fmt_value(buf, sizeof(buf), fields[i].kind, pr->val[i]);
			printf("%-18s %s\n", fields[i].name, buf);
		}
	}
	if (c->json)
		sources_print(c, pr);
}

/* The kernel's multipath hash policy of a family here, -1 without one. */
static int hash_policy(const char *family)
{
	char path[64];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path),
		 "/proc/sys/net/%s/fib_multipath_hash_policy", family);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#define ECMP_WHY	"mode ecmp, the kernel's own hash"

/*
 * Whether no object steers: the default object's mode is ecmp (or there is
 * none) and no bound object has another mode. Without objects (an older
 * kernel), the profile's mode says.
 */
static bool steering_ecmp(struct ctx *c, const struct profile *pr)
{
	bool steers;

	if (!objects_steer(c, pr->object, &steers))
		return !steers;
	return profile_val(pr, ARS_A_PROFILE_MODE) == ARS_MODE_ECMP;
}

/*
 * The kernel refuses to turn ars on unless the policies are 1, but they
 * may change afterwards: the packets are then counted as unsteered.
 */
static void steering_from(const struct profile *pr, bool ecmp,
			  struct steering *st)
{
	bool v4 = profile_val(pr, ARS_A_PROFILE_IPV4);
	bool v6 = profile_val(pr, ARS_A_PROFILE_IPV6);

	memset(st, 0, sizeof(*st));
	snprintf(st->default_object, sizeof(st->default_object), "%s",
		 pr->object);
	st->state = profile_val(pr, ARS_A_PROFILE_STATE);
	st->ecmp = ecmp;
	st->policy4 = hash_policy("ipv4");
	st->policy6 = hash_policy("ipv6");
	st->ipv4 = st->state && !st->ecmp && v4 && st->policy4 == 1;
	st->ipv6 = st->state && !st->ecmp && v6 && st->policy6 == 1;
	if (!st->state)
		st->why = "state off";
	else if (st->ecmp)
		st->why = pr->object[0] ? ECMP_WHY :
			  "default-object none, and no bound object steers";
	else if (!v4 && !v6)
		st->why = "ipv4 and ipv6 off";
	if (st->why || (st->ipv4 == v4 && st->ipv6 == v6))
		return;
	snprintf(st->buf, sizeof(st->buf), "%s",
		 v4 && !st->ipv4 ? "net.ipv4.fib_multipath_hash_policy" :
				   "net.ipv6.fib_multipath_hash_policy");
	snprintf(st->buf + strlen(st->buf), sizeof(st->buf) - strlen(st->buf),
		 " is %d, not 1", v4 && !st->ipv4 ? st->policy4 : st->policy6);
	st->why = st->buf;
}

int steering_get(struct ctx *c, struct steering *st)
{
	struct profile pr;
	int err = profile_fetch(c, &pr);

	if (!err)
		steering_from(&pr, steering_ecmp(c, &pr), st);
	return err;
}

/* The devices of the steered routes, each once, in the routes' order. */
struct route_devs {
	unsigned int ifindex[256];
	size_t n;
	size_t nroutes;
};

static void route_devs_add(struct route_devs *d, const struct mp_route *r)
{
	size_t i, j;

	d->nroutes++;
	for (i = 0; i < r->n; i++) {
		for (j = 0; j < d->n; j++)
			if (d->ifindex[j] == r->nh[i].ifindex)
				break;
		if (j == d->n && d->n < ARRAY_SIZE(d->ifindex))
			d->ifindex[d->n++] = r->nh[i].ifindex;
	}
}

/* "eth1 eth2", or JSON strings into the array being written. */
static void devs_print(struct ctx *c, const struct route_devs *d,
		       const struct port_info *ports, size_t nports,
		       bool unmeasured_only)
{
	const struct port_info *p;
	char name[IF_NAMESIZE], num[16];
	const char *dev;
	size_t i, k = 0;

	for (i = 0; i < d->n; i++) {
		p = port_find(ports, nports, d->ifindex[i]);
		if (unmeasured_only && p && p->qdisc)
			continue;
		dev = ifname(d->ifindex[i], name);
		if (!dev) {
			snprintf(num, sizeof(num), "%u", d->ifindex[i]);
			dev = num;
		}
		if (c->json)
			json_string(&c->jw, dev);
		else
			printf("%s%s", k ? " " : "", dev);
		k++;
	}
}

static size_t devs_unmeasured(const struct route_devs *d,
			      const struct port_info *ports, size_t nports)
{
	const struct port_info *p;
	size_t i, k = 0;

	for (i = 0; i < d->n; i++) {
		p = port_find(ports, nports, d->ifindex[i]);
		k += !p || !p->qdisc;
	}
	return k;
}

/*
 * After the profile: whether ars steers, the multipath routes it steers
 * and those of their devices without an ars qdisc (ranked without a
 * measure), and the counters. What cannot be read is left out.
 */
static void summary_print(struct ctx *c, const struct steering *st,
			  const struct route_devs *d,
			  const struct port_info *ports, size_t nports,
			  const struct ars_counters *cnt)
{
	size_t bare = devs_unmeasured(d, ports, nports);

	if (c->json) {
		json_key(&c->jw, "steering");
		json_object_open(&c->jw);
		json_kv_bool(&c->jw, "ipv4", st->ipv4);
		json_kv_bool(&c->jw, "ipv6", st->ipv6);
		if (st->policy4 >= 0)
			json_kv_u64(&c->jw, "ipv4_hash_policy", st->policy4);
		if (st->policy6 >= 0)
			json_kv_u64(&c->jw, "ipv6_hash_policy", st->policy6);
		if (st->why)
			json_kv_string(&c->jw, "why", st->why);
		json_object_close(&c->jw);
		json_kv_u64(&c->jw, "multipath_routes", d->nroutes);
		json_key(&c->jw, "devices");
		json_array_open(&c->jw);
		devs_print(c, d, ports, nports, false);
		json_array_close(&c->jw);
		json_key(&c->jw, "devices_without_qdisc");
		json_array_open(&c->jw);
		devs_print(c, d, ports, nports, true);
		json_array_close(&c->jw);
		json_key(&c->jw, "counters");
		json_object_open(&c->jw);
		stats_print(c, cnt);
		json_object_close(&c->jw);
		return;
	}
	printf("\n%-18s ", "steering");
	if (st->ipv4 && st->ipv6)
		printf("ipv4 ipv6\n");
	else if (st->ipv4 || st->ipv6)
		printf("%s%s%s\n", st->ipv4 ? "ipv4" : "ipv6",
		       st->why ? " only: " : "", st->why ?: "");
	else
		printf("no: %s%s\n", st->why ?: "",
		       st->state && !st->ecmp ?
		       " (multipath packets are counted as unsteered)" : "");
	printf("%-18s %zu", "multipath-routes", d->nroutes);
	if (d->n) {
		printf(", next hops on ");
		devs_print(c, d, ports, nports, false);
	}
	printf("\n");
	if (bare) {
		printf("%-18s ", "no-ars-qdisc");
		devs_print(c, d, ports, nports, true);
		printf(" (quality unknown: add the ars qdisc)\n");
	}
	stats_print(c, cnt);
}

int cmd_show(struct ctx *c)
{
	struct port_info *ports = NULL;
	struct mp_route *routes = NULL;
	struct route_devs devs = { { 0 }, 0, 0 };
	size_t nports = 0, nroutes = 0, i;
	struct ars_counters cnt;
	bool only_profile = false;
	struct steering st;
	struct profile pr;
	int err;

	if (c->argc && matches(c->argv[0], "profile"))
		only_profile = true;
	else if (c->argc)
		return usage_error("show: unexpected argument \"%s\"",
				   c->argv[0]);
	if (c->argc > 1)
		return usage_error("show: unexpected argument \"%s\"",
				   c->argv[1]);
	if (!ctx_open(c))
		return EXIT_FAIL;
	err = profile_fetch(c, &pr);
	if (!err && !only_profile)
		err = stats_fetch(c, &cnt);
	if (!err && !only_profile)
		err = ports_fetch(c, &ports, &nports);
	if (err)
		return cmd_error(c, err, NULL);

	if (c->json)
		json_object_open(&c->jw);
	if (c->json && !only_profile) {
		json_key(&c->jw, "profile");
		json_object_open(&c->jw);
	}
	profile_print(c, &pr);
	if (c->json && !only_profile)
		json_object_close(&c->jw);
	if (!only_profile) {
		steering_from(&pr, steering_ecmp(c, &pr), &st);
		/* Without the routes, the rest of the summary still holds. */
		if (routes_fetch(&routes, &nroutes, false))
			fprintf(stderr, "%sshow: cannot list the routes\n",
				msg_prefix());
		for (i = 0; i < nroutes; i++)
			if (route_steered(&routes[i], &st))
				route_devs_add(&devs, &routes[i]);
		summary_print(c, &st, &devs, ports, nports, &cnt);
	}
	if (c->json)
		json_object_close(&c->jw);
	free(routes);
	free(ports);
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

static const char *field_hint(const struct field *f)
{
	return f->kind == K_MODE ? mode_hint() : f->hint;
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
	case K_TIME_OFF:
		if (!strcasecmp(s, "off") || !strcmp(s, "0")) {
			*v = 0;
			return 0;
		}
		return parse_time(s, v);
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

/*
 * Whether v is within f's limits, as the kernel's policy has them: a
 * batch's first pass (and arsctl -c) says so for every line; a command
 * alone leaves it to the kernel, whose message names the range.
 */
static bool value_in_range(const struct field *f, uint64_t v)
{
	if (v < f->min || v > f->max)
		return false;
	return !f->pow2 || !(v & (v - 1));
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
	enum kind kind;

	if (!f)
		return NULL;
	if (!nl->ext.has_range || f->kind == K_ON_OFF || f->kind == K_MODE) {
		if (strstr(nl->ext.msg, f->name))
			return NULL;	/* the kernel's message names it */
		snprintf(buf, len, "%s", f->name);
		return buf;
	}
	/* "0ns..1s", not "off..1s". */
	kind = f->kind == K_TIME_OFF ? K_TIME : f->kind;
	fmt_value(min, sizeof(min), kind, nl->ext.min);
	fmt_value(max, sizeof(max), kind, nl->ext.max);
	snprintf(buf, len, "%s, valid range %s..%s", f->name, min, max);
	return buf;
}

int cmd_set(struct ctx *c)
{
	uint64_t vals[ARRAY_SIZE(fields)];
	bool given[ARRAY_SIZE(fields)] = { false };
	const struct field *f, *prev = NULL;
	const char *object = NULL;
	uint32_t autos = 0;
	char detail[128];
	int i, err, n = 0;

	for (i = 0; i < c->argc; i += 2) {
		f = field_by_name(c->argv[i]);
		/* "idle-time 256 ms": the unit went apart from its number. */
		if (!f && prev && (prev->kind == K_TIME ||
				   prev->kind == K_TIME_OFF) &&
		    is_time_unit(c->argv[i]))
			return usage_error("set: unknown keyword \"%s\" (a unit goes with its number: %s %s%s)",
					   c->argv[i], prev->name,
					   c->argv[i - 1], c->argv[i]);
		if (!f)
			return usage_error("set: unknown keyword \"%s\"",
					   c->argv[i]);
		if (i + 1 >= c->argc)
			return usage_error("set: missing value after \"%s\"",
					   f->name);
		if (f->ro)
			return usage_error("set: %s is not set here (%s)",
					   f->name, f->hint);
		/* Back to following fabric-rtt; the last one given wins. */
		if (f->autobit && !strcasecmp(c->argv[i + 1], "auto")) {
			autos |= f->autobit;
			given[f - fields] = false;
			prev = f;
			continue;
		}
		autos &= ~f->autobit;
		if (f->kind == K_OBJECT) {
			object = c->argv[i + 1];
			if (!*object || strlen(object) >= ARS_OBJECT_NAME_LEN)
				return usage_error("set: invalid %s \"%s\" (%s)",
						   f->name, object, f->hint);
			if (!strcasecmp(object, "none"))
				object = "";
		} else if (parse_value(c->argv[i + 1], f->kind,
				       &vals[f - fields]))
			return usage_error("set: invalid %s \"%s\" (%s)",
					   f->name, c->argv[i + 1],
					   field_hint(f));
		if (c->checking && f->kind != K_OBJECT &&
		    !value_in_range(f, vals[f - fields]))
			return usage_error("set: %s \"%s\" out of range (%s)",
					   f->name, c->argv[i + 1],
					   field_hint(f));
		if (c->checking && f->kind == K_OBJECT && *object &&
		    check_object(c, object))
			return EXIT_USAGE;
		given[f - fields] = true;	/* the last one given wins */
		prev = f;
	}
	for (i = 0; i < (int)ARRAY_SIZE(fields); i++)
		n += given[i];
	if (!n && !autos)
		return usage_error("set: nothing to set");

	if (!ctx_open(c))
		return EXIT_FAIL;
	nl_request(&c->nl, ARS_CMD_PROFILE_SET, 0);
	for (i = 0; i < (int)ARRAY_SIZE(fields); i++)
		if (given[i] && fields[i].kind == K_OBJECT)
			mnl_attr_put_strz(c->nl.req, fields[i].attr, object);
		else if (given[i])
			put_value(c->nl.req, &fields[i], vals[i]);
	if (autos)
		mnl_attr_put_u32(c->nl.req, ARS_A_PROFILE_AUTO, autos);
	err = nl_talk(&c->nl, NULL, NULL);
	if (err)
		return cmd_error(c, err, refused_detail(&c->nl, detail,
							sizeof(detail)));
	return EXIT_OK;
}

/*
 * The request that takes back to its default every attribute that @set
 * does not name; false when there is nothing to send. With @known_autos,
 * only those ARS_AUTO_* flags are sent: a figure whose flag the kernel
 * does not know goes back to its built-in default instead.
 */
static bool reset_request(struct ctx *c, const struct profile *pr,
			  const bool *set, uint32_t known_autos)
{
	uint32_t autos = 0;
	bool any = false;
	size_t i;

	nl_request(&c->nl, ARS_CMD_PROFILE_SET, 0);
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];

		if (set[f->attr] || !pr->have[i] || f->ro)
			continue;
		/* A figure that may follow fabric-rtt goes back to it. */
		if ((f->autobit & known_autos) && pr->have_auto) {
			if (!(pr->autos & f->autobit))
				autos |= f->autobit;
			continue;
		}
		if (f->kind == K_OBJECT) {
			if (strcmp(pr->object, "default")) {
				mnl_attr_put_strz(c->nl.req, f->attr, "default");
				any = true;
			}
		} else if (pr->val[i] != f->def) {
			put_value(c->nl.req, f, f->def);
			any = true;
		}
	}
	/*
	 * Its own request: the file's auto flags went with its lines, and
	 * those the file named are auto in the kernel already.
	 */
	if (autos) {
		mnl_attr_put_u32(c->nl.req, ARS_A_PROFILE_AUTO, autos);
		any = true;
	}
	return any;
}

int profile_reset(struct ctx *c, const bool *set)
{
	uint32_t known = ARS_AUTO_MASK;
	struct profile pr;
	char detail[128];
	int err;

	err = profile_fetch(c, &pr);
	if (err)
		return cmd_error(c, err, NULL);
	if (!reset_request(c, &pr, set, known))
		return EXIT_OK;
	err = nl_talk(&c->nl, NULL, NULL);
	/*
	 * A module older than its tools (loaded before an upgrade) refuses
	 * the flowlet window's auto flag, whose default there is off.
	 */
	if (err == -EINVAL && pr.have_auto &&
	    !(pr.autos & ARS_AUTO_FLOWLET_WINDOW)) {
		known &= ~ARS_AUTO_FLOWLET_WINDOW;
		if (!reset_request(c, &pr, set, known))
			return EXIT_OK;
		err = nl_talk(&c->nl, NULL, NULL);
	}
	if (err)
		return cmd_error(c, err, refused_detail(&c->nl, detail,
							sizeof(detail)));
	return EXIT_OK;
}
