// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: parsing of command line values and formatting for humans.
 *
 * Times follow tc(8): a decimal number with an optional unit (s, sec, secs,
 * ms, msec, msecs, us, usec, usecs, ns, nsec, nsecs; any case), a plain
 * number being microseconds. Unlike tc the conversion is exact, in integer
 * arithmetic: "0.5ms" is 500000 ns, and a value finer than a nanosecond or
 * beyond 2^64 - 1 ns is refused rather than rounded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/ars.h>

#include "parse.h"

static const char *const mode_names[] = {
	[ARS_MODE_ECMP]			= "ecmp",
	[ARS_MODE_FIXED]		= "fixed",
	[ARS_MODE_PACKET_RANDOM]	= "packet-random",
	[ARS_MODE_PACKET_ROUNDROBIN]	= "packet-roundrobin",
	[ARS_MODE_PACKET_QUALITY]	= "packet-quality",
	[ARS_MODE_FLOWLET_RANDOM]	= "flowlet-random",
	[ARS_MODE_FLOWLET_QUALITY]	= "flowlet-quality",
};

static const char *const reason_names[] = {
	[ARS_REASON_NEW]	= "new",
	[ARS_REASON_IDLE]	= "idle",
	[ARS_REASON_FAILOVER]	= "failover",
	[ARS_REASON_PACKET]	= "packet",
};

/* A new mode or reason in the header must get a name here. */
_Static_assert(ARRAY_SIZE(mode_names) == __ARS_MODE_MAX, "mode names");
_Static_assert(ARRAY_SIZE(reason_names) == __ARS_REASON_MAX, "reason names");

struct time_unit {
	const char *name;
	unsigned int exp;	/* the unit is 10^exp ns */
};

static const struct time_unit time_units[] = {
	{ "s", 9 }, { "sec", 9 }, { "secs", 9 },
	{ "ms", 6 }, { "msec", 6 }, { "msecs", 6 },
	{ "us", 3 }, { "usec", 3 }, { "usecs", 3 },
	{ "ns", 0 }, { "nsec", 0 }, { "nsecs", 0 },
};

bool matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncasecmp(arg, word, len);
}

bool is_time_unit(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(time_units); i++)
		if (!strcasecmp(s, time_units[i].name))
			return true;
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Accumulate one decimal digit into *v; false on overflow. */
static bool add_digit(uint64_t *v, unsigned int d)
{
	if (*v > (UINT64_MAX - d) / 10)
		return false;
	*v = *v * 10 + d;
	return true;
}

static int time_unit_exp(const char *suffix, unsigned int *exp)
{
	size_t i;

	if (!*suffix) {
		*exp = 3;	/* a plain number is microseconds, as in tc */
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(time_units); i++) {
		if (!strcasecmp(suffix, time_units[i].name)) {
			*exp = time_units[i].exp;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_time(const char *s, uint64_t *ns)
{
	const char *p = s, *frac;
	uint64_t whole = 0, part = 0, mult = 1;
	size_t nfrac, ndig = 0, i;
	unsigned int exp;

	for (; is_digit(*p); p++, ndig++)
		if (!add_digit(&whole, *p - '0'))
			return -ERANGE;
	frac = p;
	if (*p == '.')
		for (frac = ++p; is_digit(*p); p++)
			ndig++;
	nfrac = p - frac;
	if (!ndig || time_unit_exp(p, &exp))
		return -EINVAL;

	/* The first exp fraction digits are nanoseconds; the rest must be 0. */
	for (i = 0; i < exp; i++) {
		mult *= 10;
		add_digit(&part, i < nfrac ? frac[i] - '0' : 0);
	}
	for (; i < nfrac; i++)
		if (frac[i] != '0')
			return -EINVAL;

	if (whole > (UINT64_MAX - part) / mult)
		return -ERANGE;
	*ns = whole * mult + part;
	return 0;
}

int parse_u32(const char *s, uint32_t *val)
{
	uint64_t v = 0;
	const char *p;

	if (!is_digit(*s))
		return -EINVAL;
	for (p = s; is_digit(*p); p++)
		if (!add_digit(&v, *p - '0') || v > UINT32_MAX)
			return -ERANGE;
	if (*p)
		return -EINVAL;
	*val = v;
	return 0;
}

/* A number of percent, optionally followed by '%'. */
int parse_percent(const char *s, uint32_t *val)
{
	char buf[16];
	size_t len = strlen(s);

	if (len && s[len - 1] == '%') {
		if (len > sizeof(buf))
			return -ERANGE;
		memcpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		return parse_u32(buf, val);
	}
	return parse_u32(s, val);
}

int parse_on_off(const char *s, bool *on)
{
	if (!strcasecmp(s, "on"))
		*on = true;
	else if (!strcasecmp(s, "off"))
		*on = false;
	else
		return -EINVAL;
	return 0;
}

int parse_mode(const char *s, uint32_t *mode)
{
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(mode_names); i++) {
		if (!strcasecmp(s, mode_names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* NULL for a value this arsctl does not know. */
const char *mode_name(uint32_t mode)
{
	return mode < ARRAY_SIZE(mode_names) ? mode_names[mode] : NULL;
}

const char *reason_name(uint32_t reason)
{
	return reason < ARRAY_SIZE(reason_names) ? reason_names[reason] : NULL;
}

const char *family_name(uint32_t af)
{
	if (af == AF_INET)
		return "inet";
	if (af == AF_INET6)
		return "inet6";
	return NULL;
}

static void trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end;

	if (!dot)
		return;
	for (end = s + strlen(s) - 1; end > dot && *end == '0'; end--)
		*end = '\0';
	if (end == dot)
		*end = '\0';
}

/* Exact: "256us", "1.5ms", "1.000001s"; parse_time() reads it back. */
void fmt_time_exact(char *buf, size_t len, uint64_t ns)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };
	uint64_t div = 1;
	unsigned int u = 0;

	while (u < 3 && ns >= div * 1000) {
		div *= 1000;
		u++;
	}
	if (ns % div) {
		snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(ns / div),
			 (int)(3 * u), (unsigned long long)(ns % div));
		trim_zeros(buf);
	} else {
		snprintf(buf, len, "%llu", (unsigned long long)(ns / div));
	}
	strncat(buf, names[u], len - strlen(buf) - 1);
}

/* About three significant digits of v in the largest unit not above it. */
static void fmt_scaled(char *buf, size_t len, uint64_t v, unsigned int base,
		       const char *const *names, unsigned int nnames)
{
	unsigned int u = 0, prec;
	double x = v;

	while (u + 1 < nnames && x >= base) {
		x /= base;
		u++;
	}
	prec = !u ? 0 : x < 10 ? 2 : x < 100 ? 1 : 0;
	snprintf(buf, len, "%.*f", (int)prec, x);
	trim_zeros(buf);
	strncat(buf, names[u], len - strlen(buf) - 1);
}

void fmt_time_short(char *buf, size_t len, uint64_t ns)
{
	static const char *const names[] = { "ns", "us", "ms", "s" };

	fmt_scaled(buf, len, ns, 1000, names, ARRAY_SIZE(names));
}

void fmt_bits(char *buf, size_t len, uint64_t bits)
{
	static const char *const names[] = {
		"bit", "Kbit", "Mbit", "Gbit", "Tbit"
	};

	fmt_scaled(buf, len, bits, 1000, names, ARRAY_SIZE(names));
}

void fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	fmt_scaled(buf, len, bytes, 1024, names, ARRAY_SIZE(names));
}

void fmt_permille(char *buf, size_t len, uint32_t permille)
{
	snprintf(buf, len, "%u.%u%%", permille / 10, permille % 10);
}

void fmt_timestamp(char *buf, size_t len, uint64_t realtime_ns)
{
	time_t secs = realtime_ns / 1000000000;
	struct tm tm;
	size_t n;

	if (!localtime_r(&secs, &tm) ||
	    !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, len, "%llu", (unsigned long long)realtime_ns);
		return;
	}
	snprintf(buf + n, len - n, ".%06llu",
		 (unsigned long long)(realtime_ns % 1000000000 / 1000));
}

const char *kernel_msg(const char *msg)
{
	static const char prefix[] = ARS_GENL_NAME ": ";

	if (!strncmp(msg, prefix, sizeof(prefix) - 1))
		return msg + sizeof(prefix) - 1;
	return msg;
}

static char prefix_buf[320] = "arsctl: ";

const char *msg_prefix(void)
{
	return prefix_buf;
}

void batch_where(const char *file, unsigned int line)
{
	if (file)
		snprintf(prefix_buf, sizeof(prefix_buf), "arsctl: %s:%u: ",
			 file, line);
	else
		snprintf(prefix_buf, sizeof(prefix_buf), "arsctl: ");
}

const char *privileged_action(const char *cmd)
{
	static const struct {
		const char *cmd, *action;
	} actions[] = {
		{ "set", "changing the profile" },
		{ "stats reset", "resetting the counters" },
		{ "flows", "listing the macro-flow entries" },
		{ "flows get", "looking up a macro-flow entry" },
		{ "monitor", "listening to path assignments" },
		{ "object add", "changing the objects" },
		{ "object set", "changing the objects" },
		{ "object del", "changing the objects" },
		{ "bind add", "changing the bindings" },
		{ "bind del", "changing the bindings" },
		{ "interface enable", "changing the enabled devices" },
		{ "interface disable", "changing the enabled devices" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(actions); i++)
		if (!strcmp(cmd, actions[i].cmd))
			return actions[i].action;
	return "this";
}
