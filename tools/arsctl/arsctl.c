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
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

#define NETNS_RUN_DIR	"/run/netns"

static const char *netns;
static bool in_batch;

static const char usage_text[] =
"Usage: arsctl [OPTIONS] show [profile]\n"
"       arsctl [OPTIONS] set [state on|off] [mode MODE] [idle-time TIME]\n"
"                            [table-size N] [ipv4 on|off] [ipv6 on|off]\n"
"                            [sampling-interval TIME] [rate-weight PCT]\n"
"                            [ewma-shift N] [default-object NAME|none]\n"
"                            [flowlabel on|off] [flowlet-window TIME|off|auto]\n"
"                            [fabric-rtt TIME|off]\n"
"                            [remote on|off] [remote-half-life TIME]\n"
"       arsctl [OPTIONS] stats [reset]\n"
"       arsctl [OPTIONS] flows [dev DEV]\n"
"       arsctl [OPTIONS] flows get from ADDRESS to ADDRESS proto PROTOCOL\n"
"                        [sport PORT] [dport PORT] [mark MARK] [iif DEV]\n"
"                        [tos TOS] [flowlabel LABEL]\n"
"       arsctl [OPTIONS] ports [dev DEV]\n"
"       arsctl [OPTIONS] routes [dev DEV]\n"
"       arsctl [OPTIONS] monitor [-t] [moves] [dev DEV]\n"
"       arsctl [OPTIONS] [-c] [-r] -b FILE\n"
"       arsctl [OPTIONS] object { add | replace | set } NAME [mode MODE]\n"
"                        [idle-time TIME]\n"
"                        [table-size N] [primary-threshold BAND]\n"
"                        [alternate-cost BANDS]\n"
"                        [alternate-bias PERCENT]\n"
"       arsctl [OPTIONS] object { del NAME | show [NAME] }\n"
"       arsctl [OPTIONS] object alternate { add | replace | del } NAME\n"
"                        { via ADDRESS | dev DEV }\n"
"       arsctl [OPTIONS] bind { add | replace } WHAT { object NAME | exempt }\n"
"       arsctl [OPTIONS] bind { del WHAT | show }\n"
"       arsctl [OPTIONS] interface { enable | disable } dev DEV\n"
"       arsctl [OPTIONS] interface [show]\n"
"       arsctl [OPTIONS] version\n"
"       arsctl help | arsctl COMMAND help\n"
"       arsctl -V\n"
"OPTIONS := { -j[son] | -p[retty] | -s[tats] | -t | -n NETNS }\n"
"WHAT := { nhid ID | prefix PREFIX[/LEN] [table TABLE | vrf NAME] |\n"
"          mark MARK[/MASK] }\n";

static const char help_text[] =
"\n"
"Configure and watch ars, flowlet-based adaptive multipath routing, in a\n"
"network namespace (the ars kernel module must be loaded).\n"
"\n"
"Commands (any beginning will do, the first of the list winning: s and sh\n"
"are show, st stats; p is ports, but po is port, interface's old name):\n"
"  show          the profile, whether ars steers, the multipath routes'\n"
"                devices without an ars qdisc, the counters;\n"
"                show profile: the profile alone, as set reads it\n"
"  set           change the profile attributes given, all or none\n"
"  stats         print the namespace's counters; stats reset zeroes them\n"
"  flows         list the macro-flow entries in use; flows get: the\n"
"                entry of one flow (as ip route get), the path its\n"
"                packets take now and whether its flowlet goes on;\n"
"                without iif, the input device that saw it last\n"
"  ports         list the ports, the egress devices, with their measured\n"
"                quality; paths is its old name\n"
"  routes        list the multipath routes ars steers, next hop by next hop\n"
"  monitor       print path assignments until SIGINT, SIGTERM or rmmod;\n"
"                moves: only those that change a flow's device\n"
"  object        the ARS objects (a mode and an idle time each); the\n"
"                built-in object default has the profile's mode and\n"
"                idle-time and steers what no binding selects, unless\n"
"                default-object names another object or none;\n"
"                table-size N (or max-flows N) gives it a macro-flow\n"
"                table of N entries of its own (a power of two,\n"
"                64..1048576), 0 (the default) shares the namespace's\n"
"  bind          which packets an object steers, the most specific\n"
"                first: a mark (or exempt them), a nexthop group, a\n"
"                prefix of a routing table (table main by default, or\n"
"                a VRF device's: vrf NAME)\n"
"  interface     the ARS-enabled devices: while none is enabled, all are;\n"
"                once some are, routes with a next hop on another device\n"
"                are not steered (counted as disabled); port is its old\n"
"                name\n"
"  version       arsctl's version, and the loaded module's (modinfo's)\n"
"  help          print this help; COMMAND help: that command's usage\n"
"\n"
"dev DEV keeps the entries of one device.\n"
"\n"
"Options:\n"
"  -j, -json, --json\n"
"                print JSON; every key with a unit names it (age_ns,\n"
"                rate_bits_per_s, backlog_bytes, util_permille)\n"
"  -p, -pretty, --pretty\n"
"                indent the JSON output\n"
"  -s, -stats, --stats\n"
"                object show, bind show: with the counters; routes: with\n"
"                the kernel's packets per member of a nexthop group\n"
"  -t, --timestamp\n"
"                monitor: begin each line with the local time\n"
"  -n, --netns NETNS\n"
"                act in the network namespace /run/netns/NETNS\n"
"  -b, --batch FILE\n"
"                run the commands of FILE (- for stdin), one a line,\n"
"                without \"arsctl\" and its options; # begins a comment.\n"
"                Every line is parsed first: a line that does not parse\n"
"                is reported as FILE:LINE and nothing is sent. The\n"
"                commands then run in order, the first refused one\n"
"                stopping the batch (exit 1); monitor is not allowed.\n"
"  -c, --check   with -b: check every line of the batch (syntax, ranges,\n"
"                devices, and the objects the lines name: the file is\n"
"                the whole configuration), report each bad one as\n"
"                FILE:LINE, send nothing\n"
"  -r, --reconcile\n"
"                with -b: make the namespace's configuration what the\n"
"                file says, as ars.service does: add, enable are\n"
"                replace; the objects, bindings, alternates and interfaces\n"
"                it does not name are removed, and the profile\n"
"                attributes it does not set go back to their defaults\n"
"  -V, --version print the version\n"
"  -h, --help    print this help\n"
"\n"
"Profile attributes (set):\n"
"  state on|off             steer forwarded multipath packets (default off;\n"
"                           needs fib_multipath_hash_policy 1)\n"
"  mode MODE                ecmp, fixed, packet-random, packet-roundrobin,\n"
"                           packet-quality, flowlet-random, flowlet-quality\n"
"                           (default flowlet-quality)\n"
"  idle-time TIME|auto      gap that ends a flowlet, 1us..1s (default 256us,\n"
"                           or derived from fabric-rtt)\n"
"  table-size N             macro-flow entries, a power of two,\n"
"                           64..1048576 (default 4096)\n"
"  ipv4 on|off, ipv6 on|off steer that family (default on)\n"
"  sampling-interval TIME|auto quality sampling period, 1us..1s\n"
"                           (default 100us, or derived from fabric-rtt)\n"
"  rate-weight PCT          share of quality from utilisation, the rest from\n"
"                           queueing, 0..100 (default 50)\n"
"  ewma-shift N             quality averages weigh a new sample by 2^-N,\n"
"                           0..15 (default 3)\n"
"  default-object NAME|none the object of packets no binding selects\n"
"                           (default: default)\n"
"  flowlabel on|off         the IPv6 flow label in the flow key, so that\n"
"                           hosts that repath by it (TCP PLB) move (off)\n"
"  flowlet-window TIME|off|auto\n"
"                           flowlet-quality counts a port that took a new\n"
"                           flowlet busy for TIME, and a flow back from a\n"
"                           pause on the port it left; up to 1s (default\n"
"                           a quarter of fabric-rtt, off without it)\n"
"  fabric-rtt TIME|off      the fabric's base round-trip time, up to 100ms:\n"
"                           idle-time, sampling-interval, flowlet-window and\n"
"                           the qdiscs' signal v3 tau that are not set\n"
"                           follow it (off)\n"
"  remote on|off            learn congestion after this router from the\n"
"                           ECN-Echo and RoCEv2 CNPs it forwards (off)\n"
"  remote-half-life TIME    a remote score halves in TIME, 1us..1s\n"
"                           (default 1ms)\n"
"\n"
"TIME is a number with its unit attached: ns, us, ms, s (or nsec, usec,\n"
"msec, sec); a plain number is in microseconds. Decimals are allowed:\n"
"0.5ms. Keywords, modes and units may be written in any case.\n"
"\n"
"Exit status: 0 success, 1 refused by the kernel or the system, 2 usage\n"
"error (1 for any error of a batch). See arsctl(8).\n";

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(msg_prefix(), stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* In a batch, the file and line say where to look. */
	if (!in_batch)
		fputs("Try \"arsctl help\" for more information.\n", stderr);
	return EXIT_USAGE;
}

static int enter_netns(const char *name)
{
	char path[sizeof(NETNS_RUN_DIR) + NAME_MAX + 1];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%scannot open network namespace \"%s\": %s\n",
			msg_prefix(), name, strerror(errno));
		return -1;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "%scannot enter network namespace \"%s\": %s\n",
			msg_prefix(), name, strerror(errno));
		err = -1;
	}
	close(fd);
	return err;
}

int cmd_error(const struct ctx *c, int err, const char *detail)
{
	char buf[128];

	if (err == -EPERM && !c->nl.ext.msg[0]) {
		snprintf(buf, sizeof(buf), "%s needs CAP_NET_ADMIN",
			 privileged_action(c->cmd));
		fprintf(stderr, "%s%s: %s (%s)\n", msg_prefix(), c->cmd,
			strerror(-err), buf);
		return EXIT_FAIL;
	}
	nl_perror(&c->nl, err, detail);
	return EXIT_FAIL;
}

int parse_filter(const struct ctx *c, const char **dev,
		 const char *const *words, bool *flags)
{
	int i, w;

	*dev = NULL;
	for (i = 0; i < c->argc; i++) {
		if (matches(c->argv[i], "dev")) {
			if (*dev)
				return usage_error("%s: \"dev\" given twice",
						   c->cmd);
			if (++i >= c->argc)
				return usage_error("%s: missing device after \"dev\"",
						   c->cmd);
			*dev = c->argv[i];
			continue;
		}
		for (w = 0; words && words[w]; w++)
			if (matches(c->argv[i], words[w]))
				break;
		if (!words || !words[w])
			return usage_error("%s: unexpected argument \"%s\"",
					   c->cmd, c->argv[i]);
		flags[w] = true;
	}
	return EXIT_OK;
}

int filter_ifindex(const struct ctx *c, const char *name,
		   unsigned int *ifindex)
{
	*ifindex = 0;
	if (!name)
		return 0;
	*ifindex = if_nametoindex(name);
	if (!*ifindex) {
		fprintf(stderr, "%s%s: device \"%s\" does not exist\n",
			msg_prefix(), c->cmd, name);
		return -1;
	}
	return 0;
}

/* Into the namespace of -n, once; 0 or -1 having said why not. */
static int enter_netns_once(void)
{
	static bool entered;

	if (!netns || entered)
		return 0;
	if (enter_netns(netns))
		return -1;
	entered = true;
	return 0;
}

bool ctx_open(struct ctx *c)
{
	if (c->checking) {
		c->parsed = true;
		return false;
	}
	if (c->nl.sock)
		return true;	/* a batch's earlier command opened it */
	if (enter_netns_once())
		return false;
	return !nl_open(&c->nl);
}

int check_object(const struct ctx *c, const char *name)
{
	unsigned int i;

	if (!c->strict || !strcmp(name, "default"))
		return EXIT_OK;
	for (i = 0; i < c->nobjects; i++)
		if (!strcmp(c->objects[i], name))
			return EXIT_OK;
	return usage_error("%s: no object \"%s\" (no line before adds it)",
			   c->cmd, name);
}

void check_new_object(struct ctx *c, const char *name)
{
	if (c->nobjects < ARRAY_SIZE(c->objects))
		snprintf(c->objects[c->nobjects++], ARS_OBJECT_NAME_LEN, "%s",
			 name);
}

int check_device(const struct ctx *c, const char *name)
{
	/* Where -n says, as the commands run; a namespace that is not is
	 * for the batch to report when it runs.
	 */
	if (enter_netns_once())
		return EXIT_OK;
	if (if_nametoindex(name))
		return EXIT_OK;
	return usage_error("%s: device \"%s\" does not exist", c->cmd, name);
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
	if (err)
		return cmd_error(c, err, NULL);
	if (c->nl.dump_intr)
		fprintf(stderr, "%swarning: the table changed during the dump; an entry may be missing or repeated\n",
			msg_prefix());
	return EXIT_OK;
}

const char *ifname(unsigned int ifindex, char *buf)
{
	if (!ifindex)
		return NULL;
	return if_indextoname(ifindex, buf);
}

/*
 * COMMAND help: the usage lines of that command, and the definitions
 * they use (WHAT).
 */
static int cmd_help_of(struct ctx *c, const char *name)
{
	char pat[32], *text, *line, *save = NULL;
	bool mine = false;
	int ret = EXIT_OK;

	if (c->argc > 1)
		return usage_error("%s help: unexpected argument \"%s\"", name,
				   c->argv[1]);
	if (c->checking)
		return EXIT_OK;
	text = strdup(usage_text);
	if (!text)
		return EXIT_FAIL;
	snprintf(pat, sizeof(pat), "] %s", name);
	printf("Usage:\n");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *cmd = strstr(line, "] ");

		if (strstr(line, "arsctl ") && cmd)
			mine = !strncmp(cmd, pat, strlen(pat)) &&
			       (cmd[strlen(pat)] == ' ' || !cmd[strlen(pat)]);
		else if (strstr(line, " := "))
			mine = strstr(line, "WHAT") && !strcmp(name, "bind");
		else if (strstr(line, "arsctl "))
			mine = false;
		if (mine)
			printf("%s\n", line + strspn(line, "Usage:"));
	}
	free(text);
	printf("See arsctl help and arsctl(8).\n");
	return ret;
}

static int cmd_help(struct ctx *c)
{
	if (c->argc)
		return usage_error("help: unexpected argument \"%s\"",
				   c->argv[0]);
	if (c->checking)
		return EXIT_OK;
	fputs(usage_text, stdout);
	fputs(help_text, stdout);
	return EXIT_OK;
}

static int cmd_version(struct ctx *c);

/*
 * In the order abbreviations are tried, as ip(8) does: "s" is show. An
 * old name (@now: the command's name now) keeps its place, so that the
 * abbreviations that shipped keep their meaning: p and pa are paths, now
 * ports; po and por are port, now interface; ports must be written whole.
 */
static const struct command {
	const char *name;
	int (*fn)(struct ctx *c);
	const char *now;
} commands[] = {
	{ "show", cmd_show, NULL },
	{ "set", cmd_set, NULL },
	{ "stats", cmd_stats, NULL },
	{ "flows", cmd_flows, NULL },
	{ "paths", cmd_ports, "ports" },
	{ "routes", cmd_routes, NULL },
	{ "monitor", cmd_monitor, NULL },
	{ "object", cmd_object, NULL },
	{ "bind", cmd_bind, NULL },
	{ "interface", cmd_interface, NULL },
	{ "port", cmd_interface, "interface" },
	{ "ports", cmd_ports, NULL },
	{ "version", cmd_version, NULL },
	{ "help", cmd_help, NULL },
};

int run_command(struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!matches(name, commands[i].name))
			continue;
		/* An old name is its new one, help included. */
		c->cmd = commands[i].now ?: commands[i].name;
		if (c->argc && !strcasecmp(c->argv[0], "help") &&
		    commands[i].fn != cmd_help)
			return cmd_help_of(c, c->cmd);
		/* It runs until interrupted: the rest would never run. */
		if (in_batch && commands[i].fn == cmd_monitor)
			return usage_error("monitor: not in a batch");
		return commands[i].fn(c);
	}
	return usage_error("unknown command \"%s\"", name);
}

/* The first line of /sys/module/ars/FILE, or "" when there is none. */
static void module_info(const char *file, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ars/%s", file);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * arsctl's version and the git describe of its build; the loaded
 * module's version and srcversion (modinfo ars shows its build too).
 */
static int print_version(struct ctx *c)
{
	char version[64], srcversion[64];

	module_info("version", version, sizeof(version));
	module_info("srcversion", srcversion, sizeof(srcversion));
	if (c->json) {
		json_object_open(&c->jw);
		json_kv_string(&c->jw, "arsctl", ARSCTL_VERSION);
		json_kv_string(&c->jw, "build", ARSCTL_BUILD);
		json_kv_string(&c->jw, "family", ARS_GENL_NAME);
		json_kv_u64(&c->jw, "family_version", ARS_GENL_VERSION);
		if (version[0]) {
			json_kv_string(&c->jw, "module_version", version);
			json_kv_string(&c->jw, "module_srcversion", srcversion);
		}
		json_object_close(&c->jw);
		return EXIT_OK;
	}
	printf("arsctl %s, generic netlink family \"%s\" version %d\n",
	       ARSCTL_VERSION, ARS_GENL_NAME, ARS_GENL_VERSION);
	printf("build %s\n", ARSCTL_BUILD);
	if (version[0])
		printf("module ars %s, srcversion %s\n", version, srcversion);
	else if (!access("/sys/module/ars", F_OK))
		printf("module ars loaded, without a version\n");
	else
		printf("module ars not loaded (modprobe ars)\n");
	return EXIT_OK;
}

static int cmd_version(struct ctx *c)
{
	if (c->argc)
		return usage_error("version: unexpected argument \"%s\"",
				   c->argv[0]);
	if (c->checking)
		return EXIT_OK;
	return print_version(c);
}

static int flush_stdout(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%swriting output: %s\n", msg_prefix(),
			strerror(errno));
		return EXIT_FAIL;
	}
	return ret;
}

static bool valid_netns_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) <= NAME_MAX;
}

/*
 * ip's options of one dash and a word: -json, -pretty, -stats (and
 * -statistics) are --json, --pretty, --stats, before the command.
 */
static void single_dash_words(int argc, char **argv)
{
	static const char *const words[][2] = {
		{ "-json", "--json" }, { "-pretty", "--pretty" },
		{ "-stats", "--stats" }, { "-statistics", "--stats" },
	};
	size_t w;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "-b") ||
		    !strcmp(argv[i], "--netns") || !strcmp(argv[i], "--batch")) {
			i++;
			continue;
		}
		for (w = 0; w < ARRAY_SIZE(words); w++)
			if (!strcmp(argv[i], words[w][0]))
				argv[i] = (char *)words[w][1];
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "stats",	no_argument,		NULL, 's' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "timestamp",	no_argument,		NULL, 't' },
		{ "batch",	required_argument,	NULL, 'b' },
		{ "check",	no_argument,		NULL, 'c' },
		{ "reconcile",	no_argument,		NULL, 'r' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctx c = { 0 };
	bool pretty = false, version = false, check = false, reconcile = false;
	const char *batch = NULL;
	int opt, ret;

	single_dash_words(argc, argv);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpsn:tb:crVh", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 's':
			c.stats = true;
			break;
		case 't':
			c.timestamp = true;
			break;
		case 'V':
			version = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'c':
			check = true;
			break;
		case 'r':
			reconcile = true;
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
	if (version) {
		if (optind < argc)
			return usage_error("-V: unexpected argument \"%s\"",
					   argv[optind]);
		json_init(&c.jw, stdout, pretty);
		return flush_stdout(print_version(&c));
	}
	if (check && !batch)
		return usage_error("-c checks a batch: give -b FILE");
	if (reconcile && !batch)
		return usage_error("-r reconciles with a batch: give -b FILE");
	c.strict = check || reconcile;
	c.replace = reconcile;
	if (batch && optind < argc)
		return usage_error("-b: unexpected argument \"%s\" (the commands are in \"%s\")",
				   argv[optind], batch);
	if (batch) {
		json_init(&c.jw, stdout, pretty);
		in_batch = true;
		ret = batch_run(&c, batch, pretty, check);
		nl_close(&c.nl);
		return flush_stdout(ret);
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}

	json_init(&c.jw, stdout, pretty);
	c.argc = argc - optind - 1;
	c.argv = argv + optind + 1;
	ret = run_command(&c, argv[optind]);
	nl_close(&c.nl);
	return flush_stdout(ret);
}
