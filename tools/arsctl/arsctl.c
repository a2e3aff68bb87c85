// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl: configure and watch ars, the flowlet-based adaptive multipath
 * routing module, through its generic netlink family "ars" (see
 * include/uapi/linux/ars.h and Documentation/netlink/specs/ars.yaml).
 *
 * Exit status: 0 on success, 1 when the kernel or the system refused, 2 on
 * a usage error (found before anything is sent to the kernel).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

#define NETNS_RUN_DIR	"/run/netns"

static const char *netns;

static const char usage_text[] =
"Usage: arsctl [-j] [-p] [-n NETNS] show\n"
"       arsctl [-n NETNS] set [state on|off] [mode MODE] [idle-time TIME]\n"
"                             [table-size N] [ipv4 on|off] [ipv6 on|off]\n"
"                             [sampling-interval TIME] [rate-weight PCT]\n"
"                             [ewma-shift N]\n"
"       arsctl [-j] [-p] [-n NETNS] stats [reset]\n"
"       arsctl [-j] [-p] [-n NETNS] flows\n"
"       arsctl [-j] [-p] [-n NETNS] paths\n"
"       arsctl [-j] [-p] [-n NETNS] monitor\n"
"       arsctl help\n";

static const char help_text[] =
"\n"
"Configure and watch ars, flowlet-based adaptive multipath routing, in a\n"
"network namespace (the ars kernel module must be loaded).\n"
"\n"
"Commands:\n"
"  show          print the namespace's profile\n"
"  set           change the profile attributes given, all or none\n"
"  stats         print the namespace's counters; stats reset zeroes them\n"
"  flows         list the macro-flow entries in use\n"
"  paths         list the egress devices with their measured quality\n"
"  monitor       print path assignment events until SIGINT, SIGTERM or rmmod\n"
"  help          print this help\n"
"\n"
"Options:\n"
"  -j, --json    print JSON; every key with a unit names it (idle_ns,\n"
"                rate_bits_per_s, backlog_bytes, util_permille)\n"
"  -p, --pretty  indent the JSON output\n"
"  -n, --netns NETNS\n"
"                act in the network namespace /run/netns/NETNS\n"
"  -h, --help    print this help\n"
"\n"
"Profile attributes (set):\n"
"  state on|off             steer forwarded multipath packets (default off;\n"
"                           needs fib_multipath_hash_policy 1)\n"
"  mode MODE                ecmp, fixed, packet-random, packet-roundrobin,\n"
"                           packet-quality, flowlet-random, flowlet-quality\n"
"                           (default flowlet-quality)\n"
"  idle-time TIME           gap that ends a flowlet, 1us..1s (default 256us)\n"
"  table-size N             macro-flow entries, a power of two,\n"
"                           64..1048576 (default 4096)\n"
"  ipv4 on|off, ipv6 on|off steer that family (default on)\n"
"  sampling-interval TIME   quality sampling period, 10us..1s\n"
"                           (default 100us)\n"
"  rate-weight PCT          share of quality from utilisation, the rest from\n"
"                           queueing, 0..100 (default 50)\n"
"  ewma-shift N             quality averages weigh a new sample by 2^-N,\n"
"                           0..15 (default 3)\n"
"\n"
"TIME is a number with a unit: ns, us, ms, s (or nsec, usec, msec, sec);\n"
"a plain number is in microseconds. Decimals are allowed: 0.5ms.\n"
"\n"
"Exit status: 0 success, 1 refused by the kernel or the system, 2 usage\n"
"error. See arsctl(8).\n";

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("arsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry \"arsctl help\" for more information.\n", stderr);
	return EXIT_USAGE;
}

static int enter_netns(const char *name)
{
	char path[sizeof(NETNS_RUN_DIR) + NAME_MAX + 1];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "arsctl: cannot open network namespace \"%s\": %s\n",
			name, strerror(errno));
		return -1;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "arsctl: cannot enter network namespace \"%s\": %s\n",
			name, strerror(errno));
		err = -1;
	}
	close(fd);
	return err;
}

bool ctx_open(struct ctx *c)
{
	if (netns && enter_netns(netns))
		return false;
	return !nl_open(&c->nl);
}

void list_begin(struct ctx *c, void (*print_header)(void))
{
	if (c->listing)
		return;
	c->listing = true;
	if (c->json)
		json_array_open(&c->jw);
	else
		print_header();
}

int list_end(struct ctx *c, void (*print_header)(void), int err)
{
	if (!err)
		list_begin(c, print_header);
	if (c->listing && c->json)
		json_array_close(&c->jw);
	if (err) {
		nl_perror(&c->nl, err, NULL);
		return EXIT_FAIL;
	}
	if (c->nl.dump_intr)
		fprintf(stderr, "arsctl: warning: the table changed during the dump; an entry may be missing or repeated\n");
	return EXIT_OK;
}

const char *ifname(unsigned int ifindex, char *buf)
{
	if (!ifindex)
		return NULL;
	return if_indextoname(ifindex, buf);
}

static int cmd_help(struct ctx *c)
{
	if (c->argc)
		return usage_error("help: unexpected argument \"%s\"",
				   c->argv[0]);
	fputs(usage_text, stdout);
	fputs(help_text, stdout);
	return EXIT_OK;
}

static const struct command {
	const char *name;
	int (*fn)(struct ctx *c);
} commands[] = {
	{ "show", cmd_show },
	{ "set", cmd_set },
	{ "stats", cmd_stats },
	{ "flows", cmd_flows },
	{ "paths", cmd_paths },
	{ "monitor", cmd_monitor },
	{ "help", cmd_help },
};

static int run(struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn(c);
	return usage_error("unknown command \"%s\"", name);
}

static bool valid_netns_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) <= NAME_MAX;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctx c = { 0 };
	bool pretty = false;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpn:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'n':
			netns = optarg;
			if (!valid_netns_name(netns))
				return usage_error("invalid network namespace name \"%s\"",
						   netns);
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return EXIT_OK;
		case ':':
			return usage_error("option \"%s\" needs a value",
					   argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option \"-%c\"",
						   optopt);
			return usage_error("unknown option \"%s\"",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}

	json_init(&c.jw, stdout, pretty);
	c.argc = argc - optind - 1;
	c.argv = argv + optind + 1;
	ret = run(&c, argv[optind]);
	nl_close(&c.nl);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "arsctl: writing output: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}
