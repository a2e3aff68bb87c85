/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of tc's plugin interface that q_ars.so uses.
 *
 * tc (iproute2) loads $TC_LIB_DIR/q_<kind>.so and looks up the object
 * <kind>_qdisc_util in it. tc is linked with -export-dynamic, so a plugin
 * may call tc's own helpers: they are resolved against the tc binary when
 * the plugin is loaded. iproute2 installs no headers for this, so the
 * declarations below are written here, following the layout and the
 * signatures of iproute2 6.1 (Debian 12). Only functions that are dynamic
 * symbols of that tc are declared; `make check-syms` verifies it.
 */
#ifndef _TC_PLUGIN_H
#define _TC_PLUGIN_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* One qdisc kind, as tc's qdisc and class commands see it. */
struct qdisc_util {
	struct qdisc_util *next;	/* tc's list of known kinds */
	const char *id;			/* the kind, "ars" */
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* Where a print_color_*() call writes: text, JSON, or whichever is on. */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* tc's colours; plain output is the only one a qdisc needs. */
enum color_attr {
	COLOR_NONE = 6,
};

/* Size of the buffers tc's sprint_*() helpers write into. */
#define SPRINT_BSIZE	64

/* Command line. */
void incomplete_command(void);	/* exits */
int get_rate64(__u64 *rate, const char *str);
int get_percent_rate64(__u64 *rate, const char *str, const char *dev);
int get_time64(__s64 *time, const char *str);

/* Netlink attributes. */
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

/* Output, text or JSON (tc -j). */
void open_json_object(const char *name);
void close_json_object(void);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_lluint(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt,
		       unsigned long long value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_bool(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, bool value);
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);
char *sprint_size(__u32 size, char *buf);
char *sprint_time64(__s64 time, char *buf);

#endif /* _TC_PLUGIN_H */
