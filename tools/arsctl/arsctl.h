/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl: what the commands share.
 *
 * A command first parses all of its arguments (a usage error exits 2
 * before anything touches the kernel), then talks to the kernel through
 * an open struct ars_nl. Commands return the exit status.
 */
#ifndef _ARSCTL_H
#define _ARSCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include <linux/ars.h>

#include "json.h"
#include "nl.h"

enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* the kernel or the system refused */
	EXIT_USAGE	= 2,	/* the command line is wrong */
};

struct ctx {
	const char *cmd;	/* the command's full name, for messages */
	bool json;
	bool timestamp;		/* -t: monitor stamps its lines */
	bool stats;		/* -s: object show adds the counters */
	struct json jw;		/* valid when json */
	struct ars_nl nl;
	bool listing;		/* a listing's output has started */
	int argc;		/* the command's arguments, after its name */
	char **argv;
	bool checking;		/* a batch's first pass: parse, send nothing */
	bool parsed;		/* checking, and the command got to ctx_open() */
	bool strict;		/* -c, -r: the file is the whole configuration */
	bool replace;		/* -r: add, enable are replace */
	/* While checking, the objects that the file's lines so far add. */
	char objects[64][ARS_OBJECT_NAME_LEN];
	unsigned int nobjects;
};

/* Print "arsctl: <fmt>" and a hint to stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * Report a failed request of the command as "arsctl: <what the kernel
 * said> (<detail>)"; a refusal for want of privilege names the command
 * and the capability. Returns EXIT_FAIL.
 */
int cmd_error(const struct ctx *c, int err, const char *detail);

/*
 * Open the socket (the ars family must exist); false after an error. In a
 * batch the first command opens it and the others reuse it. While a batch
 * is checked (c->checking), a command that gets here has parsed all its
 * arguments: ctx_open() notes it in c->parsed and returns false, so that
 * the command stops before it sends anything.
 */
bool ctx_open(struct ctx *c);

/*
 * While a batch is checked: object name exists, as far as the file can
 * tell (checking strictly: "default" or added by an earlier line), and
 * device name exists (in the namespace of -n). EXIT_OK or, having said
 * why, EXIT_USAGE. check_new_object() notes that a line adds name.
 */
int check_object(const struct ctx *c, const char *name);
void check_new_object(struct ctx *c, const char *name);
int check_device(const struct ctx *c, const char *name);

/* Run command name (any beginning of it) with c->argc, c->argv. */
int run_command(struct ctx *c, const char *name);

/*
 * arsctl -b FILE (batch.c): check every line of FILE ("-": stdin), then
 * run them in order until one fails; check_only: only check them.
 * EXIT_OK or EXIT_FAIL.
 */
int batch_run(struct ctx *c, const char *file, bool pretty, bool check_only);

/*
 * The command's arguments: "dev DEV" and the keywords of words[] (NULL
 * terminated; flags[i] is set when words[i] was given), any of them
 * abbreviated and in any case. *dev is the device's name, NULL without
 * "dev". Returns EXIT_OK or, having said why, EXIT_USAGE.
 */
int parse_filter(const struct ctx *c, const char **dev,
		 const char *const *words, bool *flags);

/*
 * The index of device name in the command's namespace (after ctx_open()),
 * 0 when name is NULL; says so and returns -1 when there is no such device.
 */
int filter_ifindex(const struct ctx *c, const char *name,
		   unsigned int *ifindex);

/* The namespace's counters (stats.c), in the order stats prints them. */
#define ARS_COUNTERS_MAX	16

struct ars_counters {
	uint64_t val[ARS_COUNTERS_MAX];
	bool have[ARS_COUNTERS_MAX];
};

int stats_fetch(struct ctx *c, struct ars_counters *out);
/* The types of the counters' attributes, and their values from tb. */
void stats_types(enum mnl_attr_data_type *types);
void stats_from(const struct nlattr *const *tb, struct ars_counters *out);
/* As "name value" lines, or as keys of the JSON object being written. */
void stats_print(struct ctx *c, const struct ars_counters *st);
void stats_print_line(const struct ars_counters *st, const char *indent);

/* One port of the port-info dump (ports.c). */
struct port_info {
	unsigned int ifindex;
	char ifname[IF_NAMESIZE];	/* empty when unknown */
	bool qdisc;
	uint64_t bandwidth;		/* bit/s, 0 when unknown */
	uint64_t rate_bits;		/* bit/s */
	uint64_t backlog;		/* bytes */
	uint64_t delay;			/* ns */
	uint32_t util;			/* per mille */
	uint32_t band;
	uint64_t packets, bytes, flowlets;
};

/* Every device of the dump into a malloc()ed array; 0 or -errno. */
int ports_fetch(struct ctx *c, struct port_info **all, size_t *n);
const struct port_info *port_find(const struct port_info *all, size_t n,
				  unsigned int ifindex);

/*
 * Whether ars steers now (profile.c): its state and mode, and for each
 * family whether it is on and the kernel's multipath hash policy is 1.
 */
struct steering {
	bool state, ecmp;
	bool ipv4, ipv6;	/* steered now */
	int policy4, policy6;	/* fib_multipath_hash_policy, -1 if none */
	const char *why;	/* why not, when neither is steered */
	char buf[160];
	char default_object[ARS_OBJECT_NAME_LEN];	/* "" for none */
};

int steering_get(struct ctx *c, struct steering *st);

/* A multipath route (routes.c). */
#define ARS_STEER_MAX	64	/* ARS_MAX_PATHS of kmod/ars_core.h */

struct mp_nexthop {
	unsigned int ifindex;
	int gw_family;		/* 0 without a gateway */
	unsigned char gw[16];
	unsigned int weight;
	uint64_t kernel_packets;	/* the route's kstats is KSTATS_GROUP */
};

/* The kernel's own packet counters of a route's next hops. */
enum route_kstats {
	KSTATS_UNASKED,
	KSTATS_GROUP,		/* a group's, per member (Linux 6.9 on) */
	KSTATS_NO_GROUP,	/* RTA_MULTIPATH: the kernel counts nothing */
	KSTATS_NO_KERNEL,	/* this kernel keeps no group counters */
};

struct mp_route {
	int family;
	unsigned char dst[16];
	unsigned int dst_len;
	uint32_t table;
	uint32_t nh_id;		/* its nexthop group, 0 for RTA_MULTIPATH */
	enum route_kstats kstats;
	size_t n;
	bool more;		/* more next hops than nh[] holds */
	struct mp_nexthop nh[ARS_STEER_MAX + 1];
};

/*
 * The namespace's multipath routes, malloc()ed; 0 or -errno. With
 * kstats, each route's kstats says whether the kernel counts the packets
 * of its next hops, and they have their counts.
 */
int routes_fetch(struct mp_route **routes, size_t *n, bool kstats);
bool route_uses(const struct mp_route *r, unsigned int ifindex);
bool route_steered(const struct mp_route *r, const struct steering *st);

int cmd_show(struct ctx *c);
int cmd_set(struct ctx *c);
int cmd_stats(struct ctx *c);
int cmd_flows(struct ctx *c);
int cmd_ports(struct ctx *c);
int cmd_routes(struct ctx *c);
int cmd_monitor(struct ctx *c);
int cmd_object(struct ctx *c);
/*
 * Whether an object of the namespace may steer: one in another mode than
 * ecmp that a binding uses or that is the default object (objects.c).
 */
int objects_steer(struct ctx *c, const char *default_object, bool *steers);
int cmd_bind(struct ctx *c);

/*
 * VRF devices (vrf.c). The kernel binds prefixes to tables: a binding
 * made by a VRF's name holds its table, whatever becomes of the device.
 */
struct vrf_info {
	char name[IF_NAMESIZE];
	uint32_t table;
};

/*
 * The table of VRF device name in the current namespace: 0, -ENODEV when
 * there is no such device, -EINVAL when it is not a VRF, or another -errno.
 */
int vrf_table(const char *name, uint32_t *table);
/* The VRFs of the namespace, malloc()ed; 0 or -errno. */
int vrfs_fetch(struct vrf_info **all, size_t *n);
/* The name of the first VRF of all[] with table table, or NULL. */
const char *vrf_of_table(const struct vrf_info *all, size_t n,
			 uint32_t table);
/* Whether link message nlh (RTM_NEWLINK) is a VRF's, then its *v; 1 or 0. */
int vrf_from_link(const struct nlmsghdr *nlh, struct vrf_info *v);

/*
 * The objects' alternates and the bindings of routes (nexthop groups and
 * prefixes), for the object each route resolves to (objects.c).
 */
struct objmap;
int objmap_fetch(struct ctx *c, struct objmap **out);
void objmap_free(struct objmap *m);
/* The object of route @r ("" for none), and a bound prefix inside it. */
const char *objmap_route(const struct objmap *m, const struct mp_route *r,
			 const char *default_object, char *inner,
			 size_t inner_len);
bool objmap_alternate(const struct objmap *m, const char *object,
		      const struct mp_nexthop *nh);
int cmd_interface(struct ctx *c);

/*
 * What to add to the kernel's refusal of nl->req: the name of the
 * attribute it points at in names[] (0..max), unless its message has it.
 */
const char *refused_attr(const struct ars_nl *nl, const char *const *names,
			 int max);

/*
 * Send nl->req, a request that adds or enables something, so that sending
 * it twice has the same result (apply.c): an object's replace sets the
 * one that exists to the request's settings, the others at their
 * defaults; a binding's replaces the one of the same key unless it is as
 * asked; an alternate or an interface that is there already is no error, nor
 * is one already gone for a request that deletes it. Other requests are
 * sent as they are. EXIT_OK or, having said why, EXIT_FAIL.
 */
int apply_replace(struct ctx *c, const char *const *names, int max);

/*
 * arsctl -r -b FILE (apply.c, with batch.c): reconcile_learn() makes the
 * batch's requests noted, not sent, so that a run of its lines tells what
 * the file names; reconcile_prune() removes what the kernel holds and the
 * file does not name (bindings, alternates, interfaces, then objects), before
 * the lines run again with replace; reconcile_finish() puts the profile
 * attributes that no line sets back at their defaults and removes the
 * objects left (the profile's default-object may have held one), and
 * frees what was learnt.
 */
struct cfg;
int reconcile_learn(struct ctx *c, struct cfg **want);
int reconcile_prune(struct ctx *c, struct cfg *want);
int reconcile_finish(struct ctx *c, struct cfg *want);

/*
 * The profile attributes (indexed by ARS_A_PROFILE_*) that set[] does not
 * mark go back to their defaults, those of linux/ars.h (profile.c).
 */
int profile_reset(struct ctx *c, const bool *set);

/*
 * A listing (flows, ports) starts its output, the JSON array or the table
 * header, with its first entry, so that an error before any entry leaves
 * stdout empty; list_end() starts it if need be (an empty listing), ends
 * it, and reports err (exit 1) or warns when the dump was interrupted by a
 * change (its output may miss or repeat an entry).
 */
void list_begin(struct ctx *c, void (*print_header)(void));
int list_end(struct ctx *c, void (*print_header)(void), int err);

/*
 * The name of device ifindex in the current namespace, in buf of
 * IF_NAMESIZE bytes; NULL for index 0 or a device that is gone.
 */
const char *ifname(unsigned int ifindex, char *buf);

#endif /* _ARSCTL_H */
