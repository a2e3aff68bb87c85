// SPDX-License-Identifier: GPL-2.0
/*
 * ars-udpgen - paced multi-flow UDP generator and sink for ARS tests;
 * "ars-udpgen help" tells how it works, README has examples.
 *
 * Wire format: the first 24 bytes of every UDP payload are struct udpgen_hdr,
 * all fields in network byte order, packed; the rest is filler (0xa5):
 *
 *	offset size field
 *	0      4    magic  UDPGEN_MAGIC, 0x41525347 ("ARSG")
 *	4      4    flow   flow index, 0 .. FLOWS - 1
 *	8      8    seq    per-flow sequence number, starting at 0
 *	16     8    tx_ns  CLOCK_MONOTONIC time just before send(), in ns
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define U64			"%" PRIu64
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_SEC		1000000000ULL
#define UDPGEN_MAGIC		0x41525347u
#define MAX_FLOWS		65536	/* flow ids the receiver tracks */
#define MAX_TIME_NS		(86400ULL * 365 * NSEC_PER_SEC)
#define RETRY_SLEEP_NS		(20 * NSEC_PER_USEC)
#define MAX_TRIES		100000	/* per packet, then give up */
#define RCVBUF_BYTES		(64 << 20)

struct udpgen_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
	uint64_t tx_ns;
} __attribute__((packed));

struct send_cfg {
	const char *dst, *via, *ifname;	/* via: -I; ifname: via if no addr */
	uint64_t port, flows, npkts, gap_ns, size, sport, burst, max_ns, spin_ns;
	int family;
	bool has_src;
	struct sockaddr_storage daddr, saddr;	/* saddr: wildcard if no -I ADDR */
	socklen_t dlen, slen;
};

struct send_stats {
	uint64_t sent, errors, retries, rounds;
	uint64_t gap_min, gap_max, late_max, duration;
};

struct recv_cfg {
	const char *ready;
	uint64_t port, idle_ns, wait_ns, expect;
	int family;
};

struct flow_stat {
	uint64_t received, reordered, max_seq;
	bool seen;
};

struct recv_stats {
	uint64_t received, invalid, flows, reordered;
	struct flow_stat *flow;		/* MAX_FLOWS entries */
};

static volatile sig_atomic_t stop_requested;

static const char usage_text[] =
"ars-udpgen - paced multi-flow UDP generator and sink for ARS tests\n"
"\n"
"SYNOPSIS\n"
"	ars-udpgen send [-4|-6] -d DSTADDR [-p DSTPORT] [-f FLOWS] [-n PACKETS]\n"
"		[-g GAP] [-s BYTES] [-S SRCPORT_BASE] [-b BURST] [-T DURATION]\n"
"		[-I IFNAME|SRCADDR] [-W SPIN]\n"
"	ars-udpgen recv [-4|-6] [-p PORT] [-t IDLE] [-w WAIT] [-c COUNT]\n"
"		[-r READY_FILE]\n"
"	ars-udpgen help\n"
"\n"
"SEND\n"
"	Flow i is a UDP socket from port SRCPORT_BASE+i to DSTADDR:DSTPORT.\n"
"	Round k, BURST packets on each flow in turn, starts at t0 + k*GAP: GAP\n"
"	is the period between round starts, so each flow's bursts (packets,\n"
"	with BURST 1) are GAP apart.  Late rounds do not move the schedule.\n"
"	ENOBUFS/EAGAIN are retried (retries); ICMP errors for earlier packets\n"
"	(ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: a router without a route\n"
"	for a moment) are counted (errors) and the packet sent again; other\n"
"	send errors are fatal.\n"
"	-4|-6        address family (default: that of DSTADDR)\n"
"	-d DSTADDR   numeric destination address (required)\n"
"	-p DSTPORT   destination port (default 9000)\n"
"	-f FLOWS     number of flows, 1..65535 (default 1)\n"
"	-n PACKETS   packets per flow (default 1000; 0: no limit, needs -T)\n"
"	-g GAP       round period (default 0: back to back)\n"
"	-s BYTES     UDP payload, 24..65507, IPv6 65527 (default 64)\n"
"	-S PORT      first source port (default 10000; 0: kernel's choice)\n"
"	-b BURST     packets per flow per round (default 1)\n"
"	-T DURATION  start no round after DURATION\n"
"	-I IF|ADDR   bind to an interface or a source address\n"
"	-W SPIN      busy-wait the last SPIN before each round (default 50us;\n"
"	             >= GAP: never sleep; with chrt -f, most exact)\n"
"\n"
"RECV\n"
"	Counts valid packets per flow: reordered (seq below the flow's highest\n"
"	so far), lost (highest seq + 1 - received; duplicates are not told\n"
"	apart).  Stops IDLE after the last packet, WAIT without a first one,\n"
"	at COUNT packets, or on SIGINT/SIGTERM, then reports.\n"
"	-4|-6        listen on IPv4 (default) or on IPv6 only\n"
"	-p PORT      port (default 9000)\n"
"	-t IDLE      stop after no packet for IDLE (default 2s)\n"
"	-w WAIT      stop if no first packet within WAIT (default 10s)\n"
"	-c COUNT     stop once COUNT valid packets arrived\n"
"	-r FILE      create FILE once the socket is bound\n"
"\n"
"NOTES\n"
"	Times are integers with unit ns, us, ms or s (or nsec, usec, msec,\n"
"	sec); no unit: us for GAP and SPIN, s for DURATION, IDLE and WAIT.\n"
"	Output is one JSON object: send: flows, packets_per_flow, sent, errors,\n"
"	retries, duration_ns, gap_ns, rounds, gap_min_ns/gap_max_ns (measured\n"
"	round periods), late_max_ns (worst lag behind schedule); recv:\n"
"	received, flows, reordered, lost, invalid, per_flow [{flow, received,\n"
"	reordered, lost}...].\n"
"	Payload: u32 magic 0x41525347, u32 flow, u64 seq (from 0), u64 send\n"
"	time (CLOCK_MONOTONIC ns), big endian, then filler.\n"
"\n"
"EXIT STATUS\n"
"	0 success, 1 runtime error, 2 usage error.\n";

__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ars-udpgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\nTry 'ars-udpgen help'.\n", stderr);
	va_end(ap);
	exit(2);
}

static int fail(const char *what)
{
	perror(what);
	return -1;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* No SA_RESTART: a blocking call returns EINTR and the loop stops. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

/* Decimal digits only: no sign, no blanks, no base prefix, no overflow. */
static uint64_t parse_u64(const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *end)
		usage_error("bad number: '%s'", s);
	if (v < min || v > max)
		usage_error("number out of range: '%s'", s);
	return v;
}

/* "<digits>[unit]"; without a unit, @def_mult ns per unit. */
static uint64_t parse_time(const char *s, uint64_t def_mult)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", NSEC_PER_SEC }, { "sec", NSEC_PER_SEC },
	};
	uint64_t v, mult = def_mult;
	char *p;
	size_t i;

	errno = 0;
	v = strtoull(s, &p, 10);
	if (!isdigit((unsigned char)*s) || errno)
		usage_error("bad time: '%s'", s);
	if (*p) {
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcmp(p, units[i].name))
				break;
		if (i == ARRAY_SIZE(units))
			usage_error("bad time unit: '%s'", s);
		mult = units[i].ns;
	}
	if (v > MAX_TIME_NS / mult)
		usage_error("time out of range: '%s'", s);
	return v * mult;
}

/* Numeric @host (NULL: wildcard) and @port to a sockaddr; 0 on success. */
static int make_addr(const char *host, int family, uint64_t port,
		     struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
	};
	struct addrinfo *ai;
	char serv[8];

	snprintf(serv, sizeof(serv), U64, port);
	if (getaddrinfo(host, serv, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* One fd per flow; raising the hard limit needs CAP_SYS_RESOURCE. */
static int raise_nofile(uint64_t need)
{
	struct rlimit rl = { need, need };

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	rl = (struct rlimit){ need, rl.rlim_max > need ? rl.rlim_max : need };
	return setrlimit(RLIMIT_NOFILE, &rl) ? fail("setrlimit(RLIMIT_NOFILE)") : 0;
}

static int open_flow(const struct send_cfg *cfg, uint64_t i)
{
	struct sockaddr_storage sa = cfg->saddr;
	const char *what = "setsockopt(RECVERR)";
	uint16_t port = htons(cfg->sport ? cfg->sport + i : 0);
	int on = 1, fd;

	fd = socket(cfg->family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0)
		return fail("socket");
	/* Without RECVERR, UDP hides local qdisc drops (ENOBUFS). */
	if (cfg->family == AF_INET ?
	    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof(on)) :
	    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof(on)))
		goto err;
	what = "setsockopt(SO_BINDTODEVICE)";
	if (cfg->ifname && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE,
				      cfg->ifname, strlen(cfg->ifname)))
		goto err;
	what = "bind";
	if (cfg->family == AF_INET)
		((struct sockaddr_in *)&sa)->sin_port = port;
	else
		((struct sockaddr_in6 *)&sa)->sin6_port = port;
	if ((port || cfg->has_src) &&
	    bind(fd, (struct sockaddr *)&sa, cfg->slen))
		goto err;
	what = "connect";
	if (connect(fd, (const struct sockaddr *)&cfg->daddr, cfg->dlen))
		goto err;
	return fd;
err:
	fprintf(stderr, "ars-udpgen: flow " U64 ": %s: %s\n", i, what,
		strerror(errno));
	close(fd);
	return -1;
}

static void close_fds(int *fds, uint64_t n)
{
	while (n--)
		close(fds[n]);
	free(fds);
}

static int *open_flows(const struct send_cfg *cfg)
{
	uint64_t i;
	int *fds;

	if (raise_nofile(cfg->flows + 16))
		return NULL;
	fds = calloc(cfg->flows, sizeof(*fds));
	if (!fds && fail("calloc"))
		return NULL;
	for (i = 0; i < cfg->flows; i++) {
		fds[i] = open_flow(cfg, i);
		if (fds[i] < 0) {
			close_fds(fds, i);
			return NULL;
		}
	}
	return fds;
}

static int send_pkt(int fd, const void *buf, size_t len, struct send_stats *st)
{
	struct timespec backoff = ns_to_ts(RETRY_SLEEP_NS);
	int tries;

	for (tries = 0; tries < MAX_TRIES; tries++) {
		if (send(fd, buf, len, 0) == (ssize_t)len) {
			st->sent++;
			return 0;
		}
		switch (errno) {
		case EINTR:
			break;
		case ENOBUFS:
		case EAGAIN:
			st->retries++;
			nanosleep(&backoff, NULL);
			break;
		case ECONNREFUSED:
		case EHOSTUNREACH:
		case ENETUNREACH:
			st->errors++;	/* ICMP error for an earlier packet */
			break;		/* and this one was not sent */
		default:
			return fail("send");
		}
	}
	fprintf(stderr, "ars-udpgen: send: giving up after %d tries: %s\n",
		MAX_TRIES, strerror(errno));
	return -1;
}

/* Sleep until @spin before @deadline, then busy-wait for it. */
static void wait_until(uint64_t deadline, uint64_t spin)
{
	struct timespec ts = ns_to_ts(deadline > spin ? deadline - spin : 0);

	while (now_ns() + spin < deadline && !stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;	/* interrupted */
	while (now_ns() < deadline && !stop_requested)
		;
}

static int send_round(const struct send_cfg *cfg, const int *fds,
		      unsigned char *buf, uint64_t k, struct send_stats *st)
{
	struct udpgen_hdr h = { .magic = htonl(UDPGEN_MAGIC) };
	uint64_t j, i;

	for (i = 0; i < cfg->flows; i++) {
		h.flow = htonl(i);
		for (j = 0; j < k; j++) {
			h.seq = htobe64(st->rounds * cfg->burst + j);
			h.tx_ns = htobe64(now_ns());
			memcpy(buf, &h, sizeof(h));
			if (send_pkt(fds[i], buf, cfg->size, st))
				return -1;
		}
	}
	return 0;
}

static void note_round(struct send_stats *st, uint64_t start, uint64_t prev,
		       uint64_t deadline)
{
	if (start > deadline && start - deadline > st->late_max)
		st->late_max = start - deadline;
	if (st->rounds && (st->rounds == 1 || start - prev < st->gap_min))
		st->gap_min = start - prev;
	if (st->rounds && start - prev > st->gap_max)
		st->gap_max = start - prev;
}

static int run_send(const struct send_cfg *cfg, const int *fds,
		    struct send_stats *st)
{
	uint64_t t0, deadline, now, prev = 0, left, k;
	unsigned char *buf;
	int ret = 0;

	buf = malloc(cfg->size);
	if (!buf)
		return fail("malloc");
	memset(buf, 0xa5, cfg->size);
	t0 = deadline = now_ns();
	for (;;) {
		left = cfg->npkts ? cfg->npkts - st->sent / cfg->flows : UINT64_MAX;
		k = left < cfg->burst ? left : cfg->burst;
		now = now_ns();
		if (!k || (cfg->max_ns &&
			   (now > deadline ? now : deadline) - t0 >= cfg->max_ns))
			break;
		wait_until(deadline, cfg->spin_ns);
		if (stop_requested)
			break;
		now = now_ns();
		note_round(st, now, prev, deadline);
		ret = send_round(cfg, fds, buf, k, st);
		if (ret)
			break;
		prev = now;
		st->rounds++;
		deadline += cfg->gap_ns;
	}
	st->duration = st->rounds ? now_ns() - t0 : 0;
	free(buf);
	return ret;
}

static void parse_send_opts(int argc, char **argv, struct send_cfg *cfg)
{
	int c;

	while ((c = getopt(argc, argv, "46d:p:f:n:g:s:S:b:T:I:W:h")) != -1) {
		switch (c) {
		case '4': cfg->family = AF_INET; break;
		case '6': cfg->family = AF_INET6; break;
		case 'd': cfg->dst = optarg; break;
		case 'p': cfg->port = parse_u64(optarg, 1, 65535); break;
		case 'f': cfg->flows = parse_u64(optarg, 1, 65535); break;
		case 'n': cfg->npkts = parse_u64(optarg, 0, UINT64_MAX / 2); break;
		case 'g': cfg->gap_ns = parse_time(optarg, NSEC_PER_USEC); break;
		case 's': cfg->size = parse_u64(optarg, 0, 65527); break;
		case 'S': cfg->sport = parse_u64(optarg, 0, 65535); break;
		case 'b': cfg->burst = parse_u64(optarg, 1, 1000000); break;
		case 'T': cfg->max_ns = parse_time(optarg, NSEC_PER_SEC); break;
		case 'I': cfg->via = optarg; break;
		case 'W': cfg->spin_ns = parse_time(optarg, NSEC_PER_USEC); break;
		case 'h': fputs(usage_text, stdout); exit(0);
		default: usage_error("bad send option");
		}
	}
	if (optind != argc)
		usage_error("unexpected argument: '%s'", argv[optind]);
	if (!cfg->dst)
		usage_error("send needs -d DSTADDR");
	if (make_addr(cfg->dst, cfg->family, cfg->port, &cfg->daddr, &cfg->dlen))
		usage_error("bad destination address: '%s'", cfg->dst);
	cfg->family = cfg->daddr.ss_family;
	cfg->has_src = cfg->via &&
		!make_addr(cfg->via, cfg->family, 0, &cfg->saddr, &cfg->slen);
	if (!cfg->has_src)
		make_addr(NULL, cfg->family, 0, &cfg->saddr, &cfg->slen);
	if (cfg->via && !cfg->has_src && !if_nametoindex(cfg->via))
		usage_error("no such interface or %s address: '%s'",
			    cfg->family == AF_INET ? "IPv4" : "IPv6", cfg->via);
	cfg->ifname = cfg->has_src ? NULL : cfg->via;
	if (!cfg->npkts && !cfg->max_ns)
		usage_error("-n 0 needs a duration cap -T");
	if (cfg->sport && cfg->sport + cfg->flows - 1 > 65535)
		usage_error("SRCPORT_BASE + FLOWS - 1 exceeds 65535");
	if (cfg->size < sizeof(struct udpgen_hdr) ||
	    cfg->size > (cfg->family == AF_INET6 ? 65527u : 65507u))
		usage_error("payload size out of range (-s)");
}

static int cmd_send(int argc, char **argv)
{
	struct send_cfg cfg = {
		.port = 9000, .flows = 1, .npkts = 1000, .size = 64,
		.sport = 10000, .burst = 1, .spin_ns = 50 * NSEC_PER_USEC,
	};
	struct send_stats st = { 0 };
	int *fds, ret;

	parse_send_opts(argc, argv, &cfg);
	catch_signals();	/* stop after the current round and report */
	/* the default timer slack (50us) would make every sleep late */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	fds = open_flows(&cfg);
	if (!fds)
		return 1;
	ret = run_send(&cfg, fds, &st);
	close_fds(fds, cfg.flows);
	printf("{\"flows\":" U64 ",\"packets_per_flow\":" U64 ",\"sent\":" U64
	       ",\"errors\":" U64 ",\"retries\":" U64 ",\"duration_ns\":" U64
	       ",\"gap_ns\":" U64 ",\"rounds\":" U64 ",\"gap_min_ns\":" U64
	       ",\"gap_max_ns\":" U64 ",\"late_max_ns\":" U64 "}\n",
	       cfg.flows, cfg.npkts, st.sent, st.errors, st.retries,
	       st.duration, cfg.gap_ns, st.rounds, st.gap_min, st.gap_max,
	       st.late_max);
	return ret ? 1 : 0;
}

static void account(struct recv_stats *rs, const unsigned char *buf, size_t len)
{
	struct udpgen_hdr h;
	struct flow_stat *f;
	uint64_t seq;

	memcpy(&h, buf, sizeof(h));
	if (len < sizeof(h) || ntohl(h.magic) != UDPGEN_MAGIC ||
	    ntohl(h.flow) >= MAX_FLOWS) {
		rs->invalid++;
		return;
	}
	f = &rs->flow[ntohl(h.flow)];
	seq = be64toh(h.seq);
	rs->received++;
	f->received++;
	if (f->seen && seq < f->max_seq) {
		f->reordered++;
		rs->reordered++;
	} else {
		rs->flows += !f->seen;
		f->seen = true;
		f->max_seq = seq;
	}
}

/* Duplicates are not detected: they count as received (and reordered). */
static uint64_t flow_lost(const struct flow_stat *f)
{
	return f->max_seq + 1 > f->received ? f->max_seq + 1 - f->received : 0;
}

static void print_recv(const struct recv_stats *rs)
{
	const struct flow_stat *f;
	uint64_t lost = 0, i;
	bool first = true;

	for (f = rs->flow; f < rs->flow + MAX_FLOWS; f++)
		lost += f->seen ? flow_lost(f) : 0;
	printf("{\"received\":" U64 ",\"flows\":" U64 ",\"reordered\":" U64
	       ",\"lost\":" U64 ",\"invalid\":" U64 ",\"per_flow\":[",
	       rs->received, rs->flows, rs->reordered, lost, rs->invalid);
	for (i = 0; i < MAX_FLOWS; i++) {
		f = &rs->flow[i];
		if (!f->seen)
			continue;
		printf("%s{\"flow\":" U64 ",\"received\":" U64 ",\"reordered\":"
		       U64 ",\"lost\":" U64 "}", first ? "" : ",", i,
		       f->received, f->reordered, flow_lost(f));
		first = false;
	}
	printf("]}\n");
}

static int open_sink(const struct recv_cfg *cfg)
{
	const char *what = "setsockopt(IPV6_V6ONLY)";
	struct sockaddr_storage ss;
	int fd, on = 1, sz = RCVBUF_BYTES;
	socklen_t len;

	fd = socket(cfg->family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0)
		return fail("socket");
	/* FORCE ignores net.core.rmem_max but needs CAP_NET_ADMIN */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)))
		perror("setsockopt(SO_RCVBUF)");	/* not fatal */
	if (cfg->family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)))
		goto err;
	what = "bind";
	if (make_addr(NULL, cfg->family, cfg->port, &ss, &len) ||
	    bind(fd, (struct sockaddr *)&ss, len))
		goto err;
	what = cfg->ready;
	if (cfg->ready) {
		sz = creat(cfg->ready, 0644);
		if (sz < 0)
			goto err;
		close(sz);
	}
	return fd;
err:
	perror(what);
	close(fd);
	return -1;
}

/* Drain the socket (just the headers); return how many were valid. */
static int64_t recv_all(int fd, struct recv_stats *rs)
{
	unsigned char buf[sizeof(struct udpgen_hdr)];
	uint64_t before = rs->received;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
		account(rs, buf, n);
	if (errno != EAGAIN && errno != EINTR)
		return -1;
	return rs->received - before;
}

static int recv_loop(const struct recv_cfg *cfg, int fd, struct recv_stats *rs)
{
	uint64_t deadline = now_ns() + cfg->wait_ns, now;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	int64_t n;

	catch_signals();
	while (!stop_requested && !(cfg->expect && rs->received >= cfg->expect)) {
		now = now_ns();
		if (now >= deadline)
			break;
		ts = ns_to_ts(deadline - now);
		n = ppoll(&pfd, 1, &ts, NULL);
		if (n < 0 && errno != EINTR)
			return fail("ppoll");
		if (n <= 0)
			continue;
		n = recv_all(fd, rs);
		if (n < 0)
			return fail("recv");
		if (n)	/* the idle timer counts valid packets only */
			deadline = now_ns() + cfg->idle_ns;
	}
	return 0;
}

static int cmd_recv(int argc, char **argv)
{
	struct recv_cfg cfg = {
		.family = AF_INET, .port = 9000,
		.idle_ns = 2 * NSEC_PER_SEC, .wait_ns = 10 * NSEC_PER_SEC,
	};
	struct recv_stats rs = { 0 };
	int c, fd, ret;

	while ((c = getopt(argc, argv, "46p:t:w:c:r:h")) != -1) {
		switch (c) {
		case '4': cfg.family = AF_INET; break;
		case '6': cfg.family = AF_INET6; break;
		case 'p': cfg.port = parse_u64(optarg, 1, 65535); break;
		case 't': cfg.idle_ns = parse_time(optarg, NSEC_PER_SEC); break;
		case 'w': cfg.wait_ns = parse_time(optarg, NSEC_PER_SEC); break;
		case 'c': cfg.expect = parse_u64(optarg, 1, UINT64_MAX); break;
		case 'r': cfg.ready = optarg; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		default: usage_error("bad recv option");
		}
	}
	if (optind != argc)
		usage_error("unexpected argument: '%s'", argv[optind]);
	rs.flow = calloc(MAX_FLOWS, sizeof(*rs.flow));
	fd = rs.flow ? open_sink(&cfg) : fail("calloc");
	if (fd < 0) {
		free(rs.flow);
		return 1;
	}
	ret = recv_loop(&cfg, fd, &rs);
	close(fd);
	print_recv(&rs);
	free(rs.flow);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "help") || !strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(cmd, "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(cmd, "recv"))
		return cmd_recv(argc - 1, argv + 1);
	usage_error("unknown or missing command: '%s' (send, recv, help)", cmd);
}
