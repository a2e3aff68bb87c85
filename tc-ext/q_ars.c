// SPDX-License-Identifier: GPL-2.0
/*
 * q_ars.so: tc's support for the ars qdisc.
 *
 *   tc qdisc add dev DEV root handle 1: ars [ bandwidth RATE ] [ interval TIME ]
 *					     [ signal v2|v3 ] [ tau TIME ]
 *
 * The qdisc has one class, 1:1, whose child does the queueing; the qdisc
 * measures the device (transmit rate, backlog, queueing delay, utilisation
 * and the resulting quality band) and reports it as extended statistics
 * (tc -s). The options and the statistics are those of <linux/ars.h>.
 *
 * Installed as $TC_LIB_DIR/q_ars.so, where tc looks for the symbol
 * ars_qdisc_util when it meets the kind "ars".
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ars.h>

#include "tc_plugin.h"

/* Bound tc's qdiscs give to the attributes they add to a request. */
#define ARS_MSG_MAX	1024

static void ars_explain(void)
{
	char min[SPRINT_BSIZE], max[SPRINT_BSIZE];
	char tmin[SPRINT_BSIZE], tmax[SPRINT_BSIZE], tdef[SPRINT_BSIZE];

	fprintf(stderr,
		"Usage: ... ars [ bandwidth RATE ] [ interval TIME ]\n"
		"               [ signal v2|v3 ] [ tau TIME ]\n"
		"  bandwidth RATE  line rate utilisation is measured against,\n"
		"                  e.g. 10gbit or 90%%; 0 (default) takes the\n"
		"                  link speed ethtool reports\n"
		"  interval TIME   sampling interval, 0 or %s to %s;\n"
		"                  0 (default) takes the namespace's\n"
		"                  sampling-interval\n"
		"  signal v2|v3    the port signal published: v2 (default)\n"
		"                  by sampling interval, v3 in continuous\n"
		"                  time, in eight bands\n"
		"  tau TIME        v3's time constant, 0 or %s to %s;\n"
		"                  0 (default) takes %s\n",
		sprint_time64(ARS_SAMPLING_INTERVAL_MIN, min),
		sprint_time64(ARS_SAMPLING_INTERVAL_MAX, max),
		sprint_time64(ARS_SIGNAL_TAU_MIN, tmin),
		sprint_time64(ARS_SIGNAL_TAU_MAX, tmax),
		sprint_time64(ARS_SIGNAL_TAU_DEFAULT, tdef));
}

static void ars_explain_class(void)
{
	fprintf(stderr, "Usage: ... ars (class 1:1 has no parameters)\n");
}

/* Step to an option's value; tc's own message and exit if there is none. */
static void ars_next_arg(int *argc, char ***argv)
{
	(*argv)++;
	if (--(*argc) <= 0)
		incomplete_command();
}

static int ars_duplicate(const char *opt, const char *val)
{
	fprintf(stderr, "Duplicate \"%s\": \"%s\" is the second value\n",
		opt, val);
	return -1;
}

/*
 * A number and a unit of tc's. The unit is checked, and its size taken, by
 * the tc parser given "<one><unit>", so that the number can be converted
 * here with a range check (tc's parsers have none) and rounded to nearest.
 */
static int ars_get_scaled(double *val, const char *arg, const char *one,
			  const char *bare,
			  int (*get_one)(const char *unit, double *size))
{
	char unit[32];
	double num, size;
	char *end;

	if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
		return -1;	/* no sign, no "inf", no "nan" */
	num = strtod(arg, &end);
	if (*end && !isalpha((unsigned char)*end))
		return -1;
	if (snprintf(unit, sizeof(unit), "%s%s", one, *end ? end : bare) >=
	    (int)sizeof(unit))
		return -1;
	if (get_one(unit, &size))
		return -1;
	*val = num * size + 0.5;
	return 0;
}

/* "8<unit>" in bytes/s is one unit in bit/s. */
static int ars_rate_unit(const char *unit, double *size)
{
	__u64 bps;

	if (get_rate64(&bps, unit))
		return -1;
	*size = bps;
	return 0;
}

/* "1<unit>" in ns. */
static int ars_time_unit(const char *unit, double *size)
{
	__s64 ns;

	if (get_time64(&ns, unit))
		return -1;
	*size = ns;
	return 0;
}

/*
 * A rate in bit/s: "10gbit", "1.25GBps", a bare number of bit/s, or a
 * percentage of the link speed (tc reads the speed now, once).
 */
static int ars_get_bandwidth(__u64 *bps, const char *arg, const char *dev)
{
	double num;
	__u64 val;

	if (strchr(arg, '%')) {
		/* A link speed of -1 (unknown) comes back huge. */
		if (get_percent_rate64(&val, arg, dev) || val > UINT64_MAX / 8)
			return -1;
		*bps = val * 8;
		return 0;
	}

	if (ars_get_scaled(&num, arg, "8", "", ars_rate_unit) ||
	    !(num < 18446744073709551616.0))	/* 2^64 */
		return -1;
	*bps = num;
	return 0;
}

/*
 * A time in ns: "100us", "1ms", "250000ns", or a bare number in tc's time
 * unit, the microsecond. Too long a time comes back as UINT64_MAX.
 */
static int ars_get_interval(__u64 *ns, const char *arg)
{
	double num;

	if (ars_get_scaled(&num, arg, "1", "us", ars_time_unit))
		return -1;
	*ns = num < 18446744073709551616.0 ? num : UINT64_MAX;
	return 0;
}

static int ars_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	bool set_bandwidth = false, set_interval = false;
	bool set_signal = false, set_tau = false;
	__u64 bandwidth = 0, interval = 0, tau = 0;
	__u8 signal = ARS_SIGNAL_V2;
	struct rtattr *nest;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "bandwidth") == 0) {
			ars_next_arg(&argc, &argv);
			if (set_bandwidth)
				return ars_duplicate("bandwidth", *argv);
			if (ars_get_bandwidth(&bandwidth, *argv, dev)) {
				fprintf(stderr, "Illegal \"bandwidth\"\n");
				return -1;
			}
			set_bandwidth = true;
		} else if (strcmp(*argv, "interval") == 0) {
			ars_next_arg(&argc, &argv);
			if (set_interval)
				return ars_duplicate("interval", *argv);
			if (ars_get_interval(&interval, *argv)) {
				fprintf(stderr, "Illegal \"interval\"\n");
				return -1;
			}
			if (interval && (interval < ARS_SAMPLING_INTERVAL_MIN ||
					 interval > ARS_SAMPLING_INTERVAL_MAX)) {
				fprintf(stderr,
					"Illegal \"interval\": out of range\n");
				ars_explain();
				return -1;
			}
			set_interval = true;
		} else if (strcmp(*argv, "signal") == 0) {
			ars_next_arg(&argc, &argv);
			if (set_signal)
				return ars_duplicate("signal", *argv);
			if (strcmp(*argv, "v2") == 0) {
				signal = ARS_SIGNAL_V2;
			} else if (strcmp(*argv, "v3") == 0) {
				signal = ARS_SIGNAL_V3;
			} else {
				fprintf(stderr,
					"Illegal \"signal\": v2 or v3\n");
				return -1;
			}
			set_signal = true;
		} else if (strcmp(*argv, "tau") == 0) {
			ars_next_arg(&argc, &argv);
			if (set_tau)
				return ars_duplicate("tau", *argv);
			if (ars_get_interval(&tau, *argv)) {
				fprintf(stderr, "Illegal \"tau\"\n");
				return -1;
			}
			if (tau && (tau < ARS_SIGNAL_TAU_MIN ||
				    tau > ARS_SIGNAL_TAU_MAX)) {
				fprintf(stderr,
					"Illegal \"tau\": out of range\n");
				ars_explain();
				return -1;
			}
			set_tau = true;
		} else {
			if (strcmp(*argv, "help") != 0)
				fprintf(stderr, "What is \"%s\"?\n", *argv);
			ars_explain();
			return -1;
		}
	}

	/* Only the options given: a change leaves the others as they are. */
	nest = addattr_nest(n, ARS_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (set_bandwidth &&
	    addattr64(n, ARS_MSG_MAX, TCA_ARS_BANDWIDTH, bandwidth))
		return -1;
	if (set_interval &&
	    addattr64(n, ARS_MSG_MAX, TCA_ARS_INTERVAL, interval))
		return -1;
	if (set_signal &&
	    addattr8(n, ARS_MSG_MAX, TCA_ARS_SIGNAL, signal))
		return -1;
	if (set_tau &&
	    addattr64(n, ARS_MSG_MAX, TCA_ARS_TAU, tau))
		return -1;
	addattr_nest_end(n, nest);
	return 0;
}

static bool ars_attr_u64(const struct rtattr *rta, __u64 *val)
{
	if (!rta || RTA_PAYLOAD(rta) < sizeof(*val))
		return false;
	memcpy(val, RTA_DATA(rta), sizeof(*val));
	return true;
}

static void ars_print_u64(enum output_type t, const char *key,
			  const char *fmt, __u64 val)
{
	print_color_lluint(t, COLOR_NONE, key, fmt, val);
}

static void ars_print_text(const char *fmt, const char *val)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, val);
}

/* Times: ns in JSON, under a key that says so, tc's format in text. */
static void ars_print_time(const char *key, const char *fmt, __u64 ns)
{
	char buf[SPRINT_BSIZE];

	ars_print_u64(PRINT_JSON, key, NULL, ns);
	ars_print_text(fmt, sprint_time64(ns > INT64_MAX ? INT64_MAX : ns,
					  buf));
}

/* Rates: bit/s in JSON, under a key that says so, tc's format in text. */
static void ars_print_bits(const char *key, const char *fmt, __u64 bps)
{
	ars_print_u64(PRINT_JSON, key, NULL, bps);
	tc_print_rate(PRINT_FP, NULL, fmt, bps / 8);
}

static int ars_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_ARS_MAX + 1];
	__u64 val;

	if (!opt)
		return 0;
	parse_rtattr_flags(tb, TCA_ARS_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);

	if (ars_attr_u64(tb[TCA_ARS_BANDWIDTH], &val) && val)
		ars_print_bits("bandwidth_bits_per_s", "bandwidth %s ", val);
	if (ars_attr_u64(tb[TCA_ARS_INTERVAL], &val) && val)
		ars_print_time("interval_ns", "interval %s ", val);
	/* v2 is the default, and what a kernel without the option does */
	if (tb[TCA_ARS_SIGNAL] && RTA_PAYLOAD(tb[TCA_ARS_SIGNAL]) >= 1 &&
	    *(__u8 *)RTA_DATA(tb[TCA_ARS_SIGNAL]) == ARS_SIGNAL_V3) {
		print_color_string(PRINT_ANY, COLOR_NONE, "signal",
				   "signal %s ", "v3");
		if (ars_attr_u64(tb[TCA_ARS_TAU], &val) && val)
			ars_print_time("tau_ns", "tau %s ", val);
	}
	return 0;
}

/*
 * The statistics go into an object of their own in JSON, "ars": tc has
 * already printed the qdisc's own "rate" and "backlog" at the top level.
 * Each key names its unit; rates are in bit/s, as the bandwidth is.
 */
static int ars_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_ars_xstats st;
	char buf[SPRINT_BSIZE];

	if (!xstats)
		return 0;

	/* A kernel with a shorter struct leaves the rest zero. */
	memset(&st, 0, sizeof(st));
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) :
						   sizeof(st));

	open_json_object("ars");

	ars_print_bits("rate_bits_per_s", "  rate %s",
		       st.rate > UINT64_MAX / 8 ? UINT64_MAX : st.rate * 8);

	ars_print_u64(PRINT_JSON, "backlog_bytes", NULL, st.backlog);
	ars_print_text(" backlog %s",
		       sprint_size(st.backlog > UINT32_MAX ? UINT32_MAX :
							     st.backlog, buf));

	ars_print_time("delay_ns", " delay %s", st.delay);

	/* Without a bandwidth there is no utilisation (quality takes 50%). */
	if (st.bandwidth) {
		print_color_uint(PRINT_JSON, COLOR_NONE, "util_permille", NULL,
				 st.util);
		snprintf(buf, sizeof(buf), "%u.%u%%", st.util / 10,
			 st.util % 10);
		ars_print_text(" util %s", buf);
	}

	print_color_uint(PRINT_ANY, COLOR_NONE, "band", " band %u", st.band);

	if (st.bandwidth) {
		ars_print_bits("bandwidth_bits_per_s", " bandwidth %s",
			       st.bandwidth);
	} else {
		ars_print_u64(PRINT_JSON, "bandwidth_bits_per_s", NULL, 0);
		ars_print_text(" bandwidth %s", "unknown");
	}

	ars_print_u64(PRINT_ANY, "samples", " samples %llu", st.samples);

	/* The time constant signal v3 uses; 0 from a kernel without it. */
	if (st.tau) {
		ars_print_time("tau_ns", " tau %s", st.tau);
		print_color_bool(PRINT_JSON, COLOR_NONE, "tau_derived", NULL,
				 st.tau_derived);
		if (st.tau_derived)
			ars_print_text("%s", " derived");
		/* The signal in use; text says it when fabric-rtt chose it. */
		print_color_string(PRINT_JSON, COLOR_NONE, "signal", NULL,
				   st.signal == ARS_SIGNAL_V3 ? "v3" : "v2");
		print_color_bool(PRINT_JSON, COLOR_NONE, "signal_derived",
				 NULL, st.signal_derived);
		if (st.signal_derived)
			ars_print_text(" signal %s derived",
				       st.signal == ARS_SIGNAL_V3 ? "v3" : "v2");
	}

	close_json_object();
	return 0;
}

/* Class 1:1 has no parameters. */
static int ars_parse_class_opt(struct qdisc_util *qu, int argc, char **argv,
			       struct nlmsghdr *n, const char *dev)
{
	if (argc <= 0)
		return 0;
	if (strcmp(*argv, "help") != 0)
		fprintf(stderr, "What is \"%s\"?\n", *argv);
	ars_explain_class();
	return -1;
}

static int ars_print_class_opt(struct qdisc_util *qu, FILE *f,
			       struct rtattr *opt)
{
	return 0;
}

struct qdisc_util ars_qdisc_util = {
	.id		= "ars",
	.parse_qopt	= ars_parse_opt,
	.print_qopt	= ars_print_opt,
	.print_xstats	= ars_print_xstats,
	.parse_copt	= ars_parse_class_opt,
	.print_copt	= ars_print_class_opt,
};
