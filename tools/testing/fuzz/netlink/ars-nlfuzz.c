// SPDX-License-Identifier: GPL-2.0
/*
 * ars-nlfuzz: a structure-aware fuzzer of the "ars" generic netlink family
 * and of the ars qdisc's options (rtnetlink), for the debug kernel.
 *
 * Every unit (one message, or a few in one sendmsg) is drawn from a PRNG
 * seeded by (seed, unit number) alone, so a unit replays on its own:
 * `ars-nlfuzz -s SEED -k UNIT -v`. The messages are built from the UAPI
 * (include/uapi/linux/ars.h) and then bent: any command, header flags and
 * reserved fields, attribute types in and out of range, lengths right and
 * wrong, nesting, duplicates, out-of-range and boundary values, truncated
 * messages and attributes, trailing bytes.
 *
 * What must hold, or the run fails with the unit, its bytes and the answer:
 *  - every request with NLM_F_ACK (all but a few) gets exactly one final
 *    answer: an ACK, an error, or the end of a dump; a request that the
 *    kernel may drop (truncated header, no ACK asked) is followed by a
 *    sentinel request, and nothing may answer it but the kernel's own
 *    rules;
 *  - an error is one of the errnos these paths return; an EINVAL or
 *    ERANGE to a message with a whole genetlink header carries an
 *    extended ACK (a message or the offending attribute);
 *  - every reply parses: the command it answers, attribute types and
 *    lengths as the UAPI says, values within the profile's limits, an ars
 *    qdisc's options and statistics of the right size;
 *  - the profile follows the requests: an accepted profile-set changes
 *    exactly the attributes it gives (the last of duplicates), a refused
 *    one changes nothing; an accepted root ars qdisc has the options the
 *    request gave.
 *
 * Usage: ars-nlfuzz [-s SEED] [-n UNITS | -m MESSAGES] [-k UNIT] [-d IFNAME]...
 *                   [-v] [-D]
 *   -s SEED    64-bit seed (default: $ARS_FUZZ_SEED if set, else from
 *              the clock); printed first
 *   -n UNITS   units to send (default 100000)
 *   -m MSGS    units until at least MSGS fuzzed messages were sent
 *   -k UNIT    send only this unit (with -v: to see it)
 *   -d IFNAME  a device whose qdiscs may be fuzzed (up to 8); without
 *              one, no qdisc messages
 *   -v         print every unit and its answers
 *   -D         print the units, send nothing (no kernel needed)
 * Exit: 0 all held, 1 a check failed, 2 usage or setup error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <linux/ars.h>
#include "ars_derive.h"

#define MAX_DEVS	8
#define MAX_MSGS	6	/* per unit, the sentinel included */
#define BUF_SIZE	4096
#define RX_SIZE		(1 << 16)
#define ANSWER_MS	60000	/* TCG with KASAN is slow, not this slow */

/* ---- PRNG: splitmix64, one stream per unit ---- */

static uint64_t rng;

static uint64_t next64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(next64() % n) : 0;
}

/* True with probability pct / 100. */
static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* ---- Counters ---- */

static struct {
	unsigned long units, msgs, genl, qdisc, class, batches, sentinels;
	unsigned long acks, replies, dumps, errors, extack, no_extack;
	unsigned long dropped, profile_checks, qdisc_checks, events;
	unsigned long err_by_errno[256];
	unsigned long bare[2][256];	/* errors without extack, by errno */
} st;

static bool verbose;
static uint64_t seed;
static unsigned long unit;

/* ---- The unit being built ---- */

enum proto { P_GENL, P_RTNL };

struct msg {
	enum proto proto;
	uint32_t seq;
	bool maybe;		/* the kernel may legitimately not answer */
	bool cut;		/* the kernel may not even read it */
	bool truncated;		/* its tail cut off, mid-attribute maybe */
	bool whole_genl;	/* a whole genl header, as sent */
	bool done;		/* its final answer has arrived */
	bool busy_ok;		/* a dump after another: may be EBUSY */
	uint8_t cmd;		/* genl command, or the rtnl type's low byte */
	uint16_t type;
	uint16_t flags;
	int error;		/* of the final answer */
	/* What an accepted request should have set. */
	bool profile_set;
	bool has[ARS_A_PROFILE_MAX + 1];
	uint64_t val[ARS_A_PROFILE_MAX + 1];
	bool root_ars;
	int ifindex;
	bool has_bw, has_iv, has_sig, has_tau;
	uint64_t bw, iv, tau;
	uint8_t sig;
	size_t off, len;	/* where it is in the unit's buffer */
};

struct sendbuf {
	uint8_t b[BUF_SIZE];
	size_t len;
	struct msg *m[MAX_MSGS];
	int n;
};

static struct msg msgs[MAX_MSGS];
static int nmsgs;
static struct sendbuf sb[2];	/* P_GENL, P_RTNL */
static struct sendbuf sentinel[2];	/* sent on its own, after sb */

static struct mnl_socket *genl_sock, *rtnl_sock[2];
static int rtnl_pick;	/* which rtnl socket the unit goes out on */
static uint16_t ars_family;
static uint32_t seq_next = 1;
static int devs[MAX_DEVS], ndevs;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void hexdump(const char *what, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	fprintf(stderr, "# %s (%zu bytes):", what, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n#   ", b[i]);
	fprintf(stderr, "\n");
}

static struct sendbuf unit_sb[2];	/* the unit, kept for the report */
static bool checking;			/* sb holds a check's request */

static void dump_unit(void)
{
	int p;

	for (p = 0; p < 2; p++)
		if (unit_sb[p].len)
			hexdump(p == P_GENL ? "genl bytes sent" :
				"rtnl bytes sent", unit_sb[p].b, unit_sb[p].len);
	if (checking && (sb[P_GENL].len || sb[P_RTNL].len))
		hexdump("then the check", sb[P_GENL].len ? sb[P_GENL].b :
			sb[P_RTNL].b, sb[P_GENL].len ?: sb[P_RTNL].len);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ars-nlfuzz: FAIL at unit %lu (seed 0x%016" PRIx64
		"): ", unit, seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	dump_unit();
	fprintf(stderr, "ars-nlfuzz: replay: ars-nlfuzz -s 0x%016" PRIx64
		" -k %lu -v%s\n", seed, unit, ndevs ? " -d ..." : "");
	exit(1);
}

static void die(const char *what)
{
	fprintf(stderr, "ars-nlfuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* ---- Building messages ---- */

static void *put(struct sendbuf *s, const void *p, size_t len)
{
	void *at = s->b + s->len;

	if (s->len + len > sizeof(s->b))
		return NULL;
	if (p)
		memcpy(at, p, len);
	else
		memset(at, 0, len);
	s->len += len;
	return at;
}

static void align(struct sendbuf *s)
{
	while (s->len % 4 && s->len < sizeof(s->b))
		s->b[s->len++] = 0;
}

/* An attribute whose nla_len may lie: len_delta is added to the truth. */
static bool put_attr(struct sendbuf *s, uint16_t type, const void *data,
		     size_t len, int len_delta)
{
	struct nlattr nla;

	if (s->len + NLA_HDRLEN + len + 4 > sizeof(s->b))
		return false;
	nla.nla_type = type;
	nla.nla_len = (uint16_t)(NLA_HDRLEN + len + len_delta);
	put(s, &nla, sizeof(nla));
	put(s, data, len);
	align(s);
	return true;
}

/* A value near the interesting points of [min, max], or anything. */
static uint64_t pick_value(uint64_t min, uint64_t max, unsigned int bytes)
{
	uint64_t all = bytes >= 8 ? ~0ULL : (1ULL << (bytes * 8)) - 1;

	switch (below(10)) {
	case 0: return min;
	case 1: return max;
	case 2: return min - 1;
	case 3: return max + 1;
	case 4: return 0;
	case 5: return all;
	case 6: return 1ULL << below(bytes * 8);
	case 7: return next64() & all;
	default:
		if (max <= min)
			return min;
		if (max - min == ~0ULL)
			return next64();
		return min + next64() % (max - min + 1);
	}
}

/* Limits of the profile's attributes, and their sizes. */
static const struct {
	unsigned int bytes;
	uint64_t min, max;
} profile_attr[ARS_A_PROFILE_MAX + 1] = {
	[ARS_A_PROFILE_STATE] = { 1, 0, 1 },
	[ARS_A_PROFILE_MODE] = { 4, 0, ARS_MODE_MAX },
	[ARS_A_PROFILE_IDLE_TIME] = { 8, ARS_IDLE_TIME_MIN, ARS_IDLE_TIME_MAX },
	[ARS_A_PROFILE_TABLE_SIZE] = { 4, ARS_TABLE_SIZE_MIN, 16384 },
	[ARS_A_PROFILE_IPV4] = { 1, 0, 1 },
	[ARS_A_PROFILE_IPV6] = { 1, 0, 1 },
	[ARS_A_PROFILE_SAMPLING_INTERVAL] = { 8, ARS_SAMPLING_INTERVAL_MIN,
					      ARS_SAMPLING_INTERVAL_MAX },
	[ARS_A_PROFILE_RATE_WEIGHT] = { 4, 0, ARS_RATE_WEIGHT_MAX },
	[ARS_A_PROFILE_EWMA_SHIFT] = { 4, 0, ARS_EWMA_SHIFT_MAX },
	[ARS_A_PROFILE_PAD] = { 0, 0, 0 },
	[ARS_A_PROFILE_FLOWLET_WINDOW] = { 8, 0, ARS_FLOWLET_WINDOW_MAX },
	[ARS_A_PROFILE_FABRIC_RTT] = { 8, 0, ARS_FABRIC_RTT_MAX },
	[ARS_A_PROFILE_AUTO] = { 4, 0, ARS_AUTO_MASK },
	/* in replies only */
	[ARS_A_PROFILE_SIGNAL_TAU] = { 8, ARS_SIGNAL_TAU_MIN,
				       ARS_SIGNAL_TAU_MAX },
	[ARS_A_PROFILE_REMOTE] = { 1, 0, 1 },
	[ARS_A_PROFILE_REMOTE_HALF_LIFE] = { 8, ARS_REMOTE_HALF_LIFE_MIN,
					     ARS_REMOTE_HALF_LIFE_MAX },
};

/*
 * The attributes whose values the fuzzer sets and checks: the numbers,
 * those before the pad, the flowlet window, and the fabric-rtt with what
 * it derives (model_apply()).
 */
static bool profile_modeled(int t)
{
	return (t >= 1 && t < ARS_A_PROFILE_PAD) ||
	       t == ARS_A_PROFILE_FLOWLET_WINDOW ||
	       t == ARS_A_PROFILE_FABRIC_RTT || t == ARS_A_PROFILE_AUTO ||
	       t == ARS_A_PROFILE_SIGNAL_TAU;
}

static void put_random_attrs(struct sendbuf *s, int depth);

/* Payload of an attribute: right-sized value, wrong size, or nested. */
static void put_fuzz_attr(struct sendbuf *s, uint16_t type, unsigned int bytes,
			  uint64_t min, uint64_t max, int depth)
{
	uint8_t data[24];
	uint64_t v;
	size_t len = bytes;
	int delta = 0;

	if (depth < 3 && chance(4)) {
		size_t at = s->len;
		struct nlattr *nla;

		if (!put(s, NULL, NLA_HDRLEN))
			return;
		put_random_attrs(s, depth + 1);
		nla = (struct nlattr *)(s->b + at);
		nla->nla_type = type | (chance(70) ? NLA_F_NESTED : 0);
		nla->nla_len = (uint16_t)(s->len - at);
		return;
	}
	if (chance(12))
		len = below(18);
	v = pick_value(min, max, bytes ? bytes : 8);
	memset(data, 0, sizeof(data));
	if (len == 1 || len == 2 || len == 4 || len == 8) {
		uint8_t u8 = (uint8_t)v;
		uint16_t u16 = (uint16_t)v;
		uint32_t u32 = (uint32_t)v;

		memcpy(data, len == 1 ? (void *)&u8 : len == 2 ?
		       (void *)&u16 : len == 4 ? (void *)&u32 : (void *)&v,
		       len);
	} else {
		for (size_t i = 0; i < len; i++)
			data[i] = (uint8_t)next64();
	}
	/* A lying nla_len: beyond the message, or inside the header. */
	if (chance(3))
		delta = chance(50) ? (int)below(64) + 1 : -(int)below(5) - 1;
	put_attr(s, type, data, len, delta);
}

static uint16_t fuzz_type(uint16_t max)
{
	uint16_t t;

	switch (below(20)) {
	case 0: t = 0; break;
	case 1: t = max + 1 + below(4); break;
	case 2: t = (uint16_t)next64(); break;
	default: t = 1 + below(max); break;
	}
	if (chance(4))
		t |= NLA_F_NET_BYTEORDER;
	if (chance(3))
		t |= NLA_F_NESTED;
	return t;
}

static void put_random_attrs(struct sendbuf *s, int depth)
{
	int n = (int)below(4);

	while (n--) {
		uint16_t t = fuzz_type(ARS_A_PROFILE_MAX);

		put_fuzz_attr(s, t, 8, 0, ~0ULL, depth);
	}
}

static struct msg *new_msg(enum proto proto)
{
	struct msg *m = &msgs[nmsgs++];

	memset(m, 0, sizeof(*m));
	m->proto = proto;
	m->seq = seq_next++;
	m->off = sb[proto].len;
	sb[proto].m[sb[proto].n++] = m;
	return m;
}

/* nlmsg flags: mostly what a request may carry, sometimes anything. */
static uint16_t fuzz_flags(bool dump_ok)
{
	uint16_t f = NLM_F_REQUEST | NLM_F_ACK;

	if (dump_ok && chance(50))
		f |= NLM_F_DUMP;
	if (chance(5))
		f |= NLM_F_ECHO;
	if (chance(6))
		f |= (uint16_t)(0x100 << below(4));	/* one of DUMP's bits */
	if (chance(4))
		f |= (uint16_t)(next64() & 0xffe0);
	if (chance(3))
		f &= ~NLM_F_REQUEST;
	if (chance(3))
		f &= ~NLM_F_ACK;	/* build_unit() says what to expect */
	return f;
}

/*
 * The end of a message: its length, sometimes cut short (the tail of an
 * attribute gone), sometimes claimed longer than what was sent (the kernel
 * then drops it, and whatever follows in the same send).
 */
static void end_msg(struct sendbuf *s, struct msg *m, size_t min_len,
		    bool *cut_after)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(s->b + m->off);
	size_t len = s->len - m->off;

	if (len > min_len && chance(4)) {
		len = min_len + below((uint32_t)(len - min_len));
		s->len = m->off + len;
		m->truncated = true;
	}
	nlh->nlmsg_len = (uint32_t)len;
	if (chance(1)) {
		nlh->nlmsg_len = (uint32_t)(len + 1 + below(64));
		m->maybe = m->cut = true;
		*cut_after = true;
	} else if (chance(1)) {
		nlh->nlmsg_len = below(NLMSG_HDRLEN);
		m->maybe = m->cut = true;
		*cut_after = true;
	}
	m->len = len;
	align(s);
}

static void build_genl(bool *cut_after)
{
	struct sendbuf *s = &sb[P_GENL];
	struct msg *m = new_msg(P_GENL);
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	size_t hdr_at;
	int n, i;
	uint8_t cmd;

	cmd = chance(92) ? (uint8_t)(1 + below(ARS_CMD_MAX)) :
	      (uint8_t)(chance(50) ? 0 : next64());
	nlh = put(s, NULL, NLMSG_HDRLEN);
	if (!nlh)
		return;
	nlh->nlmsg_type = chance(97) ? ars_family : (uint16_t)below(NLMSG_MIN_TYPE);
	nlh->nlmsg_flags = fuzz_flags(cmd == ARS_CMD_FLOWS_GET ||
				      cmd == ARS_CMD_PORT_INFO_GET ||
				      chance(10));
	nlh->nlmsg_seq = m->seq;
	nlh->nlmsg_pid = chance(3) ? (uint32_t)next64() : 0;
	hdr_at = s->len;
	g = put(s, NULL, GENL_HDRLEN);
	g->cmd = cmd;
	g->version = chance(90) ? ARS_GENL_VERSION : (uint8_t)next64();
	g->reserved = chance(93) ? 0 : (uint16_t)next64();
	m->cmd = cmd;
	m->type = nlh->nlmsg_type;
	m->flags = nlh->nlmsg_flags;

	n = (int)below(cmd == ARS_CMD_PROFILE_SET ? 10 : 3);
	if (cmd == ARS_CMD_PROFILE_SET && chance(60)) {
		/* Mostly well-formed: the values themselves are the fuzz. */
		for (i = 0; i < n; i++) {
			uint16_t t = chance(10) ? ARS_A_PROFILE_FLOWLET_WINDOW :
				     chance(5) ? ARS_A_PROFILE_FABRIC_RTT :
				     chance(5) ? ARS_A_PROFILE_AUTO :
				     1 + below(ARS_A_PROFILE_PAD - 1);
			uint64_t min = profile_attr[t].min;
			uint64_t max = profile_attr[t].max;
			uint64_t v = chance(85) ? min + next64() % (max - min + 1) :
				     pick_value(min, max, profile_attr[t].bytes);
			size_t len = profile_attr[t].bytes;
			uint8_t u8 = (uint8_t)v;
			uint32_t u32 = (uint32_t)v;

			if (t == ARS_A_PROFILE_TABLE_SIZE && chance(70))
				v = u32 = 64u << below(9);
			if (t == ARS_A_PROFILE_STATE && chance(60))
				v = u8 = 1;
			put_attr(s, t, len == 1 ? (void *)&u8 : len == 4 ?
				 (void *)&u32 : (void *)&v, len, 0);
			if (chance(8))	/* a duplicate, maybe different */
				put_attr(s, t, len == 1 ? (void *)&u8 :
					 len == 4 ? (void *)&u32 : (void *)&v,
					 len, 0);
		}
	} else {
		for (i = 0; i < n; i++) {
			uint16_t t = fuzz_type(ARS_A_PROFILE_MAX);
			uint16_t bt = t & NLA_TYPE_MASK;
			unsigned int bytes = bt <= ARS_A_PROFILE_MAX ?
					     profile_attr[bt].bytes : 4;

			put_fuzz_attr(s, t, bytes,
				      bt <= ARS_A_PROFILE_MAX ? profile_attr[bt].min : 0,
				      bt <= ARS_A_PROFILE_MAX ? profile_attr[bt].max : ~0U,
				      0);
		}
	}
	if (chance(3))		/* trailing bytes, not an attribute */
		put(s, "\x01\x02\x03", 1 + below(3));
	end_msg(s, m, chance(3) ? NLMSG_HDRLEN : hdr_at - m->off + GENL_HDRLEN,
		cut_after);
	m->whole_genl = m->len >= NLMSG_HDRLEN + GENL_HDRLEN &&
			m->type == ars_family && !m->maybe;
	m->profile_set = m->type == ars_family && cmd == ARS_CMD_PROFILE_SET;
	st.genl++;
}

/* ---- rtnetlink: the ars qdisc ---- */

static const char *const kinds[] = { "ars", "pfifo", "mq", "tbf" };

static uint32_t fuzz_handle(void)
{
	switch (below(8)) {
	case 0: return 0;
	case 1: return TC_H_ROOT;
	case 2: return (uint32_t)next64();
	case 3: return TC_H_MAKE((1 + below(3)) << 16, 0);
	default: return TC_H_MAKE((1 + below(2)) << 16, 0);
	}
}

static uint32_t fuzz_parent(void)
{
	switch (below(10)) {
	case 0: return TC_H_UNSPEC;
	case 1: return TC_H_INGRESS;
	case 2: return (uint32_t)next64();
	case 3: case 4: return TC_H_MAKE((1 + below(2)) << 16, 1 + below(4));
	default: return TC_H_ROOT;
	}
}

static void put_ars_options(struct sendbuf *s, struct msg *m)
{
	size_t at = s->len;
	struct nlattr *nla;
	int n = (int)below(5);

	if (!put(s, NULL, NLA_HDRLEN))
		return;
	while (n--) {
		uint16_t t;
		uint64_t v;

		if (chance(75)) {
			t = 1 + below(TCA_ARS_MAX);
			if (t == TCA_ARS_PAD) {
				put_attr(s, t, NULL, 0, 0);
				continue;
			}
			if (t == TCA_ARS_SIGNAL) {
				uint8_t sig = (uint8_t)pick_value(0, ARS_SIGNAL_MAX, 1);

				put_attr(s, t, &sig, 1, 0);
				m->has_sig = true;
				m->sig = sig;
				continue;
			}
			switch (t) {
			case TCA_ARS_INTERVAL:
				v = chance(25) ? 0 :
				    pick_value(ARS_SAMPLING_INTERVAL_MIN,
					       ARS_SAMPLING_INTERVAL_MAX, 8);
				break;
			case TCA_ARS_TAU:
				v = chance(25) ? 0 :
				    pick_value(ARS_SIGNAL_TAU_MIN,
					       ARS_SIGNAL_TAU_MAX, 8);
				break;
			default:
				v = pick_value(0, 400000000000ULL, 8);
			}
			put_attr(s, t, &v, 8, 0);
			if (t == TCA_ARS_BANDWIDTH) {
				m->has_bw = true;
				m->bw = v;
			} else if (t == TCA_ARS_INTERVAL) {
				m->has_iv = true;
				m->iv = v;
			} else {
				m->has_tau = true;
				m->tau = v;
			}
		} else {
			/* unknowable */
			m->has_bw = m->has_iv = m->has_sig = m->has_tau = false;
			m->root_ars = false;
			put_fuzz_attr(s, fuzz_type(TCA_ARS_MAX), 8, 0, ~0ULL, 0);
		}
	}
	nla = (struct nlattr *)(s->b + at);
	nla->nla_type = TCA_OPTIONS | (chance(60) ? NLA_F_NESTED : 0);
	nla->nla_len = (uint16_t)(s->len - at);
}

static void build_rtnl(bool *cut_after, bool class)
{
	struct sendbuf *s = &sb[P_RTNL];
	struct msg *m = new_msg(P_RTNL);
	static const uint16_t qtypes[] = {
		RTM_NEWQDISC, RTM_NEWQDISC, RTM_NEWQDISC, RTM_DELQDISC,
		RTM_GETQDISC,
	};
	static const uint16_t ctypes[] = {
		RTM_NEWTCLASS, RTM_DELTCLASS, RTM_GETTCLASS,
	};
	struct nlmsghdr *nlh;
	struct tcmsg *tc;
	const char *kind;
	size_t hdr_end;
	bool ars;

	nlh = put(s, NULL, NLMSG_HDRLEN);
	if (!nlh)
		return;
	nlh->nlmsg_type = class ? ctypes[below(3)] : qtypes[below(5)];
	nlh->nlmsg_seq = m->seq;
	if (nlh->nlmsg_type == RTM_NEWQDISC || nlh->nlmsg_type == RTM_NEWTCLASS) {
		static const uint16_t f[] = {
			NLM_F_CREATE | NLM_F_EXCL, NLM_F_CREATE | NLM_F_REPLACE,
			NLM_F_CREATE, NLM_F_REPLACE, 0,
		};
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | f[below(5)];
		if (chance(4))
			nlh->nlmsg_flags |= NLM_F_ECHO;
		if (chance(3))
			nlh->nlmsg_flags |= (uint16_t)(next64() & 0xf000);
	} else {
		nlh->nlmsg_flags = fuzz_flags(nlh->nlmsg_type != RTM_DELQDISC &&
					      nlh->nlmsg_type != RTM_DELTCLASS);
	}
	tc = put(s, NULL, sizeof(*tc));
	tc->tcm_family = chance(95) ? AF_UNSPEC : (uint8_t)next64();
	tc->tcm__pad1 = chance(95) ? 0 : (uint8_t)next64();
	tc->tcm_ifindex = ndevs && chance(92) ? devs[below(ndevs)] :
			  chance(50) ? 0 : (int)below(1000);
	tc->tcm_handle = class ? TC_H_MAKE(0x10000, below(3)) : fuzz_handle();
	tc->tcm_parent = fuzz_parent();
	tc->tcm_info = chance(95) ? 0 : (uint32_t)next64();
	hdr_end = s->len;

	kind = chance(75) ? "ars" : kinds[below(4)];
	ars = !strcmp(kind, "ars");
	m->type = nlh->nlmsg_type;
	m->flags = nlh->nlmsg_flags;
	m->ifindex = tc->tcm_ifindex;
	m->root_ars = !class && ars && m->type == RTM_NEWQDISC &&
		      tc->tcm_parent == TC_H_ROOT && tc->tcm_ifindex > 0;
	if (chance(90) && m->type != RTM_GETQDISC) {
		switch (below(20)) {
		case 0:		/* no NUL */
			put_attr(s, TCA_KIND, kind, strlen(kind), 0);
			m->root_ars = false;
			break;
		case 1:		/* garbage after the NUL */
			put_attr(s, TCA_KIND, "ars\0xyz", 7, 0);
			m->root_ars = false;
			break;
		default:
			put_attr(s, TCA_KIND, kind, strlen(kind) + 1, 0);
		}
	} else {
		m->root_ars = false;
	}
	if (ars && chance(80) && m->type != RTM_GETQDISC)
		put_ars_options(s, m);
	if (chance(5)) {	/* anything else tc knows, or does not */
		m->root_ars = false;
		put_fuzz_attr(s, fuzz_type(TCA_MAX), 4, 0, ~0U, 1);
	}
	if (chance(6) && m->type == RTM_NEWQDISC) {	/* a duplicate kind */
		put_attr(s, TCA_KIND, kind, strlen(kind) + 1, 0);
		m->root_ars = false;
	}
	end_msg(s, m, hdr_end - m->off, cut_after);
	/*
	 * tc parses leniently: an attribute cut short is dropped, options
	 * and all, and the qdisc made without them. Nothing to expect then.
	 */
	if (m->truncated || m->maybe)
		m->root_ars = false;
	if (class)
		st.class++;
	else
		st.qdisc++;
}

/* ---- Talking ---- */

static void send_buf(struct sendbuf *s, struct mnl_socket *sock)
{
	if (!s->len)
		return;
	if (mnl_socket_sendto(sock, s->b, s->len) < 0)
		fail("sendto: %s", strerror(errno));
}

static struct msg *find_msg(enum proto proto, uint32_t seq)
{
	int i;

	for (i = 0; i < nmsgs; i++)
		if (msgs[i].proto == proto && msgs[i].seq == seq)
			return &msgs[i];
	return NULL;
}

/*
 * Check an attribute stream against per-type sizes (0: any, -1: none):
 * every attribute known, well-formed, of its size, and nothing left over.
 */
static void check_attrs(const char *what, const void *a, size_t len,
			const int *sizes, int max)
{
	size_t off = 0;

	while (off < len) {
		const struct nlattr *nla = (const void *)((const char *)a + off);
		int t;

		if (len - off < NLA_HDRLEN || nla->nla_len < NLA_HDRLEN ||
		    nla->nla_len > len - off)
			fail("%s: malformed attribute at offset %zu", what, off);
		t = nla->nla_type & NLA_TYPE_MASK;
		if (t < 1 || t > max)
			fail("%s: unknown attribute %d in a reply", what, t);
		if (sizes[t] > 0 && nla->nla_len - NLA_HDRLEN != sizes[t])
			fail("%s: attribute %d is %d bytes, not %d", what, t,
			     nla->nla_len - NLA_HDRLEN, sizes[t]);
		if (sizes[t] < 0 && nla->nla_len != NLA_HDRLEN)
			fail("%s: pad attribute %d has a payload", what, t);
		off += NLA_ALIGN(nla->nla_len);
	}
}

/* The profile a reply carries; every value within the limits. */
struct profile {
	uint64_t v[ARS_A_PROFILE_MAX + 1];
};

static struct profile model, seen;
static bool seen_profile;

static void parse_profile(const struct nlattr *a, size_t len)
{
	static const int sizes[ARS_A_PROFILE_MAX + 1] = {
		[ARS_A_PROFILE_STATE] = 1, [ARS_A_PROFILE_MODE] = 4,
		[ARS_A_PROFILE_IDLE_TIME] = 8, [ARS_A_PROFILE_TABLE_SIZE] = 4,
		[ARS_A_PROFILE_IPV4] = 1, [ARS_A_PROFILE_IPV6] = 1,
		[ARS_A_PROFILE_SAMPLING_INTERVAL] = 8,
		[ARS_A_PROFILE_RATE_WEIGHT] = 4, [ARS_A_PROFILE_EWMA_SHIFT] = 4,
		[ARS_A_PROFILE_PAD] = -1, [ARS_A_PROFILE_FLOWLABEL] = 1,
		[ARS_A_PROFILE_FLOWLET_WINDOW] = 8,
		[ARS_A_PROFILE_FABRIC_RTT] = 8, [ARS_A_PROFILE_AUTO] = 4,
		[ARS_A_PROFILE_SIGNAL_TAU] = 8,
		[ARS_A_PROFILE_REMOTE] = 1,
		[ARS_A_PROFILE_REMOTE_HALF_LIFE] = 8,
	};
	bool got[ARS_A_PROFILE_MAX + 1] = { false };
	const struct nlattr *attr;
	int t;

	check_attrs("profile", a, len, sizes, ARS_A_PROFILE_MAX);
	mnl_attr_for_each_payload(a, len) {
		t = mnl_attr_get_type(attr);
		if (t == ARS_A_PROFILE_PAD || t == ARS_A_PROFILE_DEFAULT_OBJECT)
			continue;
		got[t] = true;
		switch (sizes[t]) {
		case 1: seen.v[t] = mnl_attr_get_u8(attr); break;
		case 4: seen.v[t] = mnl_attr_get_u32(attr); break;
		default: seen.v[t] = mnl_attr_get_u64(attr); break;
		}
	}
	for (t = 1; t <= ARS_A_PROFILE_MAX; t++) {
		uint64_t max = t == ARS_A_PROFILE_TABLE_SIZE ?
			       ARS_TABLE_SIZE_MAX : profile_attr[t].max;

		if (!profile_modeled(t))
			continue;
		if (!got[t])
			fail("profile reply without attribute %d", t);
		if (seen.v[t] < profile_attr[t].min || seen.v[t] > max)
			fail("profile attribute %d is %" PRIu64
			     ", outside its limits", t, seen.v[t]);
	}
	if (seen.v[ARS_A_PROFILE_TABLE_SIZE] &
	    (seen.v[ARS_A_PROFILE_TABLE_SIZE] - 1))
		fail("profile table-size %" PRIu64 " is not a power of two",
		     seen.v[ARS_A_PROFILE_TABLE_SIZE]);
	seen_profile = true;
}

static void check_genl_reply(struct msg *m, const struct nlmsghdr *nlh)
{
	static const int stats_sizes[ARS_A_STATS_MAX + 1] = {
		[1 ... ARS_A_STATS_PAD - 1] = 8, [ARS_A_STATS_PAD] = -1,
		[ARS_A_STATS_PAD + 1 ... ARS_A_STATS_MAX] = 8,
	};
	static const int flow_sizes[ARS_A_FLOW_MAX + 1] = {
		[ARS_A_FLOW_INDEX] = 4, [ARS_A_FLOW_IFINDEX] = 4,
		[ARS_A_FLOW_NEXTHOP] = 4, [ARS_A_FLOW_AGE] = 8,
		[ARS_A_FLOW_PACKETS] = 8, [ARS_A_FLOW_GENERATION] = 4,
		[ARS_A_FLOW_GATEWAY] = 0, [ARS_A_FLOW_PAD] = -1,
		[ARS_A_FLOW_IIF] = 4,
	};
	static const int port_info_sizes[ARS_A_PORT_INFO_MAX + 1] = {
		[ARS_A_PORT_INFO_IFINDEX] = 4, [ARS_A_PORT_INFO_IFNAME] = 0,
		[ARS_A_PORT_INFO_QDISC] = 1, [ARS_A_PORT_INFO_BANDWIDTH] = 8,
		[ARS_A_PORT_INFO_RATE] = 8, [ARS_A_PORT_INFO_BACKLOG] = 8,
		[ARS_A_PORT_INFO_DELAY] = 8, [ARS_A_PORT_INFO_UTIL] = 4,
		[ARS_A_PORT_INFO_BAND] = 4, [ARS_A_PORT_INFO_PACKETS] = 8,
		[ARS_A_PORT_INFO_BYTES] = 8, [ARS_A_PORT_INFO_FLOWLETS] = 8,
		[ARS_A_PORT_INFO_PAD] = -1,
	};
	/* Objects, bindings and interfaces: well formed, of known types. */
	static const int object_sizes[ARS_A_OBJECT_MAX + 1];
	static const int bind_sizes[ARS_A_BIND_MAX + 1];
	static const int interface_sizes[ARS_A_INTERFACE_MAX + 1];
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t len;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		fail("reply too short for a genl header");
	if (g->version != ARS_GENL_VERSION)
		fail("reply of version %u", g->version);
	a = mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN);
	len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	if (g->cmd != m->cmd && !(g->cmd == ARS_CMD_PATH_ASSIGN))
		fail("reply of command %u to a request of command %u",
		     g->cmd, m->cmd);
	switch (g->cmd) {
	case ARS_CMD_PROFILE_GET:
		parse_profile(a, len);
		break;
	case ARS_CMD_STATS_GET:
		check_attrs("stats", a, len, stats_sizes, ARS_A_STATS_MAX);
		break;
	case ARS_CMD_FLOWS_GET:
		check_attrs("flow", a, len, flow_sizes, ARS_A_FLOW_MAX);
		break;
	case ARS_CMD_PORT_INFO_GET:
		check_attrs("port", a, len, port_info_sizes,
			    ARS_A_PORT_INFO_MAX);
		break;
	case ARS_CMD_OBJECT_GET:
		check_attrs("object", a, len, object_sizes, ARS_A_OBJECT_MAX);
		break;
	case ARS_CMD_BIND_GET:
		check_attrs("binding", a, len, bind_sizes, ARS_A_BIND_MAX);
		break;
	case ARS_CMD_INTERFACE_GET:
		check_attrs("interface", a, len, interface_sizes,
			    ARS_A_INTERFACE_MAX);
		break;
	default:
		fail("reply of command %u, which has none", g->cmd);
	}
	st.replies++;
}

struct qseen {
	bool found;
	uint64_t bw, iv, tau;
	uint8_t sig;
};

static struct qseen qroot;	/* the root ars qdisc of the checked device */
static int qroot_ifindex;

static void check_qdisc_reply(const struct nlmsghdr *nlh)
{
	static const int ars_sizes[TCA_ARS_MAX + 1] = {
		[TCA_ARS_BANDWIDTH] = 8, [TCA_ARS_INTERVAL] = 8,
		[TCA_ARS_PAD] = -1, [TCA_ARS_SIGNAL] = 1, [TCA_ARS_TAU] = 8,
	};
	const struct tcmsg *tc = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *kind = NULL, *opts = NULL, *xstats = NULL;
	const struct nlattr *attr;
	uint64_t bw = 0, iv = 0, tau = 0;
	uint8_t sig = 0;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*tc))
		fail("qdisc reply too short for a tcmsg");
	mnl_attr_for_each(attr, nlh, sizeof(*tc)) {
		switch (mnl_attr_get_type(attr)) {
		case TCA_KIND: kind = attr; break;
		case TCA_OPTIONS: opts = attr; break;
		case TCA_XSTATS: xstats = attr; break;
		}
	}
	if (!kind || mnl_attr_validate(kind, MNL_TYPE_NUL_STRING) < 0)
		fail("qdisc reply without a proper TCA_KIND");
	if (strcmp(mnl_attr_get_str(kind), "ars"))
		return;
	if (nlh->nlmsg_type == RTM_NEWTCLASS)
		return;
	if (!opts)
		fail("ars qdisc reply without TCA_OPTIONS");
	check_attrs("ars qdisc options", mnl_attr_get_payload(opts),
		    mnl_attr_get_payload_len(opts), ars_sizes, TCA_ARS_MAX);
	mnl_attr_for_each_nested(attr, opts) {
		if (mnl_attr_get_type(attr) == TCA_ARS_BANDWIDTH)
			bw = mnl_attr_get_u64(attr);
		else if (mnl_attr_get_type(attr) == TCA_ARS_INTERVAL)
			iv = mnl_attr_get_u64(attr);
		else if (mnl_attr_get_type(attr) == TCA_ARS_SIGNAL)
			sig = mnl_attr_get_u8(attr);
		else if (mnl_attr_get_type(attr) == TCA_ARS_TAU)
			tau = mnl_attr_get_u64(attr);
	}
	if (sig > ARS_SIGNAL_MAX)
		fail("ars qdisc signal %u unknown", sig);
	if (tau && (tau < ARS_SIGNAL_TAU_MIN || tau > ARS_SIGNAL_TAU_MAX))
		fail("ars qdisc tau %" PRIu64 " outside its limits", tau);
	if (iv && (iv < ARS_SAMPLING_INTERVAL_MIN ||
		   iv > ARS_SAMPLING_INTERVAL_MAX))
		fail("ars qdisc interval %" PRIu64 " outside its limits", iv);
	if (xstats && mnl_attr_get_payload_len(xstats) !=
		      sizeof(struct tc_ars_xstats))
		fail("ars qdisc xstats of %u bytes, not %zu",
		     mnl_attr_get_payload_len(xstats),
		     sizeof(struct tc_ars_xstats));
	if (tc->tcm_parent == TC_H_ROOT && tc->tcm_ifindex == qroot_ifindex) {
		qroot.found = true;
		qroot.bw = bw;
		qroot.iv = iv;
		qroot.sig = sig;
		qroot.tau = tau;
	}
}

/* An errno these paths may return; anything else is a bug or a surprise. */
static bool errno_expected(enum proto proto, int e)
{
	/*
	 * The objects' and bindings' commands refuse by name; a flows get
	 * by its input device's index.
	 */
	static const int genl_ok[] = {
		EINVAL, ERANGE, EOPNOTSUPP, EMSGSIZE, ENOMEM, ENOENT, EEXIST,
		ENOSPC, EBUSY, ENODEV,
	};
	static const int rtnl_ok[] = {
		EINVAL, ERANGE, EOPNOTSUPP, EMSGSIZE, ENOMEM, ENOENT, EEXIST,
		ENODEV, EBUSY, ELOOP, ENOBUFS, E2BIG,
	};
	const int *ok = proto == P_GENL ? genl_ok : rtnl_ok;
	size_t i, n = proto == P_GENL ? sizeof(genl_ok) / sizeof(int) :
					sizeof(rtnl_ok) / sizeof(int);

	for (i = 0; i < n; i++)
		if (ok[i] == e)
			return true;
	return false;
}

static bool has_extack(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return false;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	mnl_attr_for_each(attr, nlh, off) {
		switch (mnl_attr_get_type(attr)) {
		case NLMSGERR_ATTR_MSG:
		case NLMSGERR_ATTR_OFFS:
		case NLMSGERR_ATTR_MISS_TYPE:
			return true;
		}
	}
	return false;
}

static void on_answer(enum proto proto, const struct nlmsghdr *nlh)
{
	struct msg *m = find_msg(proto, nlh->nlmsg_seq);

	if (!m) {
		if (proto == P_GENL && nlh->nlmsg_seq == 0 &&
		    nlh->nlmsg_type == ars_family) {
			st.events++;	/* a monitor event */
			return;
		}
		if (proto == P_RTNL && nlh->nlmsg_seq == 0)
			return;		/* a notification */
		fail("answer (type %u) with seq %u, which no request had",
		     nlh->nlmsg_type, nlh->nlmsg_seq);
	}
	if (m->done)
		fail("answer (type %u) after the final one of seq %u",
		     nlh->nlmsg_type, m->seq);
	if (verbose)
		fprintf(stderr, "#   answer seq %u type %u flags 0x%x len %u\n",
			nlh->nlmsg_seq, nlh->nlmsg_type, nlh->nlmsg_flags,
			nlh->nlmsg_len);

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
			fail("short error message");
		m->done = true;
		m->error = e->error;
		if (e->error > 0)
			fail("positive error %d", e->error);
		if (!e->error) {
			st.acks++;
			return;
		}
		st.errors++;
		st.err_by_errno[-e->error & 0xff]++;
		if (!errno_expected(proto, -e->error) &&
		    !(e->error == -EBUSY && m->busy_ok))
			fail("unexpected error %d (%s)", e->error,
			     strerror(-e->error));
		if (has_extack(nlh)) {
			st.extack++;
		} else {
			st.no_extack++;
			st.bare[proto][-e->error & 0xff]++;
			if (proto == P_GENL && m->whole_genl &&
			    (e->error == -EINVAL || e->error == -ERANGE))
				fail("error %d without an extended ACK",
				     e->error);
		}
		if (verbose)
			fprintf(stderr, "#   error %d%s\n", e->error,
				has_extack(nlh) ? " with extack" : "");
		return;
	}
	if (nlh->nlmsg_type == NLMSG_DONE) {
		m->done = true;
		st.dumps++;
		if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
			int e = *(const int *)mnl_nlmsg_get_payload(nlh);

			m->error = e;
			if (e && !errno_expected(proto, -e))
				fail("dump ended with error %d", e);
		}
		return;
	}
	if (proto == P_GENL && nlh->nlmsg_type == ars_family) {
		check_genl_reply(m, nlh);
		return;
	}
	if (proto == P_RTNL && (nlh->nlmsg_type == RTM_NEWQDISC ||
				nlh->nlmsg_type == RTM_DELQDISC ||
				nlh->nlmsg_type == RTM_NEWTCLASS ||
				nlh->nlmsg_type == RTM_DELTCLASS)) {
		check_qdisc_reply(nlh);
		st.replies++;
		return;
	}
	fail("answer of type %u to a request of type %u", nlh->nlmsg_type,
	     m->type);
}

static bool all_done(enum proto proto)
{
	int i;

	for (i = 0; i < nmsgs; i++)
		if (msgs[i].proto == proto && !msgs[i].done && !msgs[i].maybe)
			return false;
	return true;
}

static void receive(enum proto proto, struct mnl_socket *sock)
{
	static uint8_t buf[RX_SIZE];
	struct pollfd pfd = { .fd = mnl_socket_get_fd(sock), .events = POLLIN };

	while (!all_done(proto)) {
		const struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		n = poll(&pfd, 1, ANSWER_MS);
		if (n == 0)
			fail("no answer within %d s", ANSWER_MS / 1000);
		if (n < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		n = recv(pfd.fd, buf, sizeof(buf), MSG_TRUNC);
		if (n < 0)
			fail("recv: %s", strerror(errno));
		if ((size_t)n > sizeof(buf))
			fail("an answer of %zd bytes", n);
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len))
			on_answer(proto, nlh);
		if (len)
			fail("%d stray bytes after the answers", len);
	}
}

/*
 * A well-formed request after one that the kernel may drop, in a send of
 * its own: the kernel drops the rest of a send after a bad header.
 */
static void add_sentinel(enum proto proto)
{
	struct sendbuf *s = &sentinel[proto];
	struct msg *m = &msgs[nmsgs++];
	struct nlmsghdr *nlh = put(s, NULL, NLMSG_HDRLEN);

	memset(m, 0, sizeof(*m));
	m->proto = proto;
	m->seq = seq_next++;

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = m->seq;
	if (proto == P_GENL) {
		struct genlmsghdr *g = put(s, NULL, GENL_HDRLEN);

		nlh->nlmsg_type = ars_family;
		g->cmd = ARS_CMD_STATS_GET;
		g->version = ARS_GENL_VERSION;
		m->cmd = ARS_CMD_STATS_GET;
	} else {
		nlh->nlmsg_type = RTM_GETQDISC;
		nlh->nlmsg_flags |= NLM_F_DUMP;
		put(s, NULL, sizeof(struct tcmsg));
	}
	m->type = nlh->nlmsg_type;
	nlh->nlmsg_len = (uint32_t)(s->len - m->off);
	st.sentinels++;
}

static void reset_unit(void)
{
	nmsgs = 0;
	memset(sb, 0, sizeof(sb));
	memset(sentinel, 0, sizeof(sentinel));
}

static void talk(void)
{
	int p;

	for (p = 0; p < 2; p++) {
		struct mnl_socket *sock = p == P_GENL ? genl_sock :
					  rtnl_sock[rtnl_pick];

		if (!sb[p].len)
			continue;
		send_buf(&sb[p], sock);
		send_buf(&sentinel[p], sock);
		receive(p, sock);
	}
}

/* ---- Checks through the kernel's own answers ---- */

static void get_profile(void)
{
	struct msg *m;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	reset_unit();
	m = new_msg(P_GENL);
	nlh = put(&sb[P_GENL], NULL, NLMSG_HDRLEN);
	g = put(&sb[P_GENL], NULL, GENL_HDRLEN);
	nlh->nlmsg_type = ars_family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = m->seq;
	nlh->nlmsg_len = (uint32_t)sb[P_GENL].len;
	g->cmd = ARS_CMD_PROFILE_GET;
	g->version = ARS_GENL_VERSION;
	m->cmd = ARS_CMD_PROFILE_GET;
	m->type = ars_family;
	seen_profile = false;
	send_buf(&sb[P_GENL], genl_sock);
	receive(P_GENL, genl_sock);
	if (m->error || !seen_profile)
		fail("profile-get failed (%d)", m->error);
	st.profile_checks++;
}

static void check_profile(const char *when)
{
	int t;

	get_profile();
	for (t = 1; t <= ARS_A_PROFILE_MAX; t++)
		if (profile_modeled(t) && seen.v[t] != model.v[t])
			fail("%s: profile attribute %d is %" PRIu64
			     ", expected %" PRIu64, when, t, seen.v[t],
			     model.v[t]);
}

static void dump_qdiscs(int ifindex)
{
	struct msg *m;
	struct nlmsghdr *nlh;
	struct tcmsg *tc;

	reset_unit();
	m = new_msg(P_RTNL);
	nlh = put(&sb[P_RTNL], NULL, NLMSG_HDRLEN);
	tc = put(&sb[P_RTNL], NULL, sizeof(*tc));
	nlh->nlmsg_type = RTM_GETQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = m->seq;
	nlh->nlmsg_len = (uint32_t)sb[P_RTNL].len;
	tc->tcm_ifindex = ifindex;
	m->type = RTM_GETQDISC;
	qroot_ifindex = ifindex;
	memset(&qroot, 0, sizeof(qroot));
	send_buf(&sb[P_RTNL], rtnl_sock[0]);
	receive(P_RTNL, rtnl_sock[0]);
	if (m->error)
		fail("qdisc dump failed (%d)", m->error);
	st.qdisc_checks++;
}

/*
 * What an accepted profile-set makes of the model: the values it sets,
 * and the figures that follow fabric-rtt unless set (ARS_A_PROFILE_AUTO
 * says which), derived as the kernel derives them.
 */
static void model_apply(const struct msg *m)
{
	uint32_t autos = (uint32_t)model.v[ARS_A_PROFILE_AUTO];
	struct ars_derived d = {
		.idle_time = ARS_IDLE_TIME_DEFAULT,
		.tau = ARS_SIGNAL_TAU_DEFAULT,
		.sampling_interval = ARS_SAMPLING_INTERVAL_DEFAULT,
		.flowlet_window = 0,
	};
	int t;

	for (t = 1; t <= ARS_A_PROFILE_MAX; t++)
		if (profile_modeled(t) && m->has[t] &&
		    t != ARS_A_PROFILE_AUTO && t != ARS_A_PROFILE_SIGNAL_TAU)
			model.v[t] = m->val[t];
	if (m->has[ARS_A_PROFILE_IDLE_TIME])
		autos &= ~ARS_AUTO_IDLE_TIME;
	if (m->has[ARS_A_PROFILE_SAMPLING_INTERVAL])
		autos &= ~ARS_AUTO_SAMPLING_INTERVAL;
	if (m->has[ARS_A_PROFILE_FLOWLET_WINDOW])
		autos &= ~ARS_AUTO_FLOWLET_WINDOW;
	if (m->has[ARS_A_PROFILE_AUTO])
		autos |= (uint32_t)m->val[ARS_A_PROFILE_AUTO];
	if (model.v[ARS_A_PROFILE_FABRIC_RTT])
		ars_derive(model.v[ARS_A_PROFILE_FABRIC_RTT], 0, &d);
	if (autos & ARS_AUTO_IDLE_TIME)
		model.v[ARS_A_PROFILE_IDLE_TIME] = d.idle_time;
	if (autos & ARS_AUTO_SAMPLING_INTERVAL)
		model.v[ARS_A_PROFILE_SAMPLING_INTERVAL] = d.sampling_interval;
	if (autos & ARS_AUTO_FLOWLET_WINDOW)
		model.v[ARS_A_PROFILE_FLOWLET_WINDOW] = d.flowlet_window;
	model.v[ARS_A_PROFILE_SIGNAL_TAU] = d.tau;
	model.v[ARS_A_PROFILE_AUTO] = autos;
}

/* After the unit's answers: what the accepted requests must have done. */
static void check_effects(void)
{
	struct msg saved[MAX_MSGS];
	int i, n = nmsgs, nrtnl = 0;
	bool sets = false, refused_set = false;

	memcpy(saved, msgs, sizeof(saved));
	checking = true;
	for (i = 0; i < n; i++)
		nrtnl += saved[i].proto == P_RTNL;
	for (i = 0; i < n; i++) {
		struct msg *m = &saved[i];

		/*
		 * Accepted: acknowledged, or asked no ACK and got no error
		 * before the sentinel's answer.
		 */
		if (m->profile_set && !m->error && (m->done || !m->cut) &&
		    (m->flags & NLM_F_REQUEST) &&
		    (m->flags & NLM_F_DUMP) != NLM_F_DUMP) {
			model_apply(m);
			sets = true;
		} else if (m->profile_set) {
			refused_set = true;
		}
	}
	if (sets || (refused_set && chance(20)))
		check_profile(sets ? "after an accepted profile-set" :
			      "after a refused profile-set");
	for (i = 0; i < n; i++) {
		struct msg *m = &saved[i];

		/* One qdisc request in the unit, or who knows the outcome. */
		if (!m->root_ars || !m->done || m->error || nrtnl != 1)
			continue;
		dump_qdiscs(m->ifindex);
		if (!qroot.found)
			fail("no root ars qdisc after an accepted one");
		if (m->has_bw && qroot.bw != m->bw)
			fail("root ars bandwidth %" PRIu64 ", expected %" PRIu64,
			     qroot.bw, m->bw);
		if (m->has_iv && qroot.iv != m->iv)
			fail("root ars interval %" PRIu64 ", expected %" PRIu64,
			     qroot.iv, m->iv);
		if (m->has_sig && qroot.sig != m->sig)
			fail("root ars signal %u, expected %u", qroot.sig,
			     m->sig);
		if (m->has_tau && qroot.tau != m->tau)
			fail("root ars tau %" PRIu64 ", expected %" PRIu64,
			     qroot.tau, m->tau);
	}
}

/*
 * What an accepted profile-set carries: the last of each attribute. The
 * kernel accepts only exact lengths (strict validation), so a value's
 * size is its type's.
 */
static void note_profile_attrs(struct msg *m)
{
	const uint8_t *b = sb[P_GENL].b + m->off;
	const struct nlattr *attr;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	if (!m->profile_set || m->len < off)
		return;
	for (attr = (const void *)(b + off);
	     off + NLA_HDRLEN <= m->len && attr->nla_len >= NLA_HDRLEN &&
	     off + attr->nla_len <= m->len;
	     off += NLA_ALIGN(attr->nla_len),
	     attr = (const void *)(b + off)) {
		int t = attr->nla_type & NLA_TYPE_MASK;
		size_t plen = attr->nla_len - NLA_HDRLEN;
		const void *p = (const uint8_t *)attr + NLA_HDRLEN;

		if (t > ARS_A_PROFILE_MAX || !profile_modeled(t) ||
		    plen != profile_attr[t].bytes)
			continue;
		m->has[t] = true;
		if (plen == 1)
			m->val[t] = *(const uint8_t *)p;
		else if (plen == 4)
			m->val[t] = *(const uint32_t *)p;
		else
			memcpy(&m->val[t], p, 8);
	}
}

/* Whether the kernel takes the message for a dump request. */
static bool is_dump(const struct msg *m)
{
	/* genetlink wants both bits of NLM_F_DUMP, rtnetlink either. */
	if (m->proto == P_GENL)
		return (m->flags & NLM_F_DUMP) == NLM_F_DUMP &&
		       m->type == ars_family;
	return (m->flags & NLM_F_DUMP) && (m->type & 3) == 2;	/* RTM_GET* */
}

static void build_unit(void)
{
	bool cut[2] = { false, false };
	bool maybe[2] = { false, false };
	int n, i, p, fuzzed;

	reset_unit();
	rng = seed ^ (unit * 0xd1b54a32d192ed03ULL);
	next64();
	n = chance(10) ? 2 + (int)below(3) : 1;
	if (n > 1)
		st.batches++;
	for (i = 0; i < n; i++) {
		uint32_t r = below(100);
		int proto = !ndevs || r < 65 ? P_GENL : P_RTNL;

		if (cut[proto]) {	/* the kernel stops reading here */
			continue;
		}
		if (proto == P_GENL)
			build_genl(&cut[P_GENL]);
		else
			build_rtnl(&cut[P_RTNL], r >= 93);
	}
	fuzzed = nmsgs;
	for (i = 0; i < nmsgs; i++) {
		struct msg *m = &msgs[i];

		note_profile_attrs(m);
		/*
		 * Without NLM_F_ACK a request that succeeds may get no
		 * answer, but a dump always ends with NLMSG_DONE (and its
		 * answers may come after the sentinel's: the kernel goes on
		 * with a dump as we read).
		 */
		if (!(m->flags & NLM_F_ACK) &&
		    !((m->flags & NLM_F_REQUEST) && is_dump(m)))
			m->maybe = true;
		if (m->maybe)
			maybe[m->proto] = true;
		/* Whatever follows a dropped message in its send is lost. */
	}
	for (p = 0; p < 2; p++) {
		bool after = false, dump = false;

		/* One dump at a time per socket: the kernel says EBUSY. */
		for (i = 0; i < sb[p].n; i++) {
			sb[p].m[i]->busy_ok = dump;
			dump |= is_dump(sb[p].m[i]);
		}
		for (i = 0; i < sb[p].n; i++) {
			struct nlmsghdr *nlh = (void *)(sb[p].b + sb[p].m[i]->off);

			if (after)
				sb[p].m[i]->maybe = sb[p].m[i]->cut = true;
			if (nlh->nlmsg_len < NLMSG_HDRLEN ||
			    sb[p].m[i]->off + nlh->nlmsg_len > sb[p].len)
				after = true;
		}
		if (maybe[p] || after)
			add_sentinel(p);
	}
	rtnl_pick = (int)below(2);
	memcpy(unit_sb, sb, sizeof(sb));
	checking = false;
	st.msgs += fuzzed;	/* not the sentinels */
	st.units++;
}

static void print_unit(void)
{
	int i;

	fprintf(stderr, "# unit %lu:", unit);
	for (i = 0; i < nmsgs; i++)
		fprintf(stderr, " [%s seq %u type %u cmd %u flags 0x%x%s]",
			msgs[i].proto == P_GENL ? "genl" : "rtnl", msgs[i].seq,
			msgs[i].type, msgs[i].cmd, msgs[i].flags,
			msgs[i].maybe ? " maybe" : "");
	fprintf(stderr, "\n");
	dump_unit();
}

/* ---- Setup ---- */

static int resolve_family(void)
{
	uint8_t buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	const struct nlattr *attr;
	int n, id = -1;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq_next++;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ARS_GENL_NAME);
	if (mnl_socket_sendto(genl_sock, nlh, nlh->nlmsg_len) < 0)
		die("sendto");
	n = (int)mnl_socket_recvfrom(genl_sock, buf, sizeof(buf));
	if (n < 0)
		die("recv");
	for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (e->error) {
				errno = -e->error;
				die("no ars family (is ars.ko loaded?)");
			}
			continue;
		}
		mnl_attr_for_each(attr, nlh, sizeof(*g))
			if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID)
				id = mnl_attr_get_u16(attr);
	}
	return id;
}

static struct mnl_socket *open_sock(int bus, bool strict)
{
	struct mnl_socket *s = mnl_socket_open(bus);
	int one = 1, big = 1 << 20;

	if (!s || mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink socket");
	/* Extended ACKs, and the request left out of error messages. */
	mnl_socket_setsockopt(s, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s, NETLINK_CAP_ACK, &one, sizeof(one));
	if (strict)
		mnl_socket_setsockopt(s, NETLINK_GET_STRICT_CHK, &one,
				      sizeof(one));
	setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_RCVBUF, &big,
		   sizeof(big));
	return s;
}

static void usage(void)
{
	fprintf(stderr, "usage: ars-nlfuzz [-s SEED] [-n UNITS | -m MESSAGES] "
		"[-k UNIT] [-d IFNAME]... [-v] [-D]\n");
	exit(2);
}

static void print_summary(void)
{
	int e;

	printf("ars-nlfuzz: seed 0x%016" PRIx64 ": %lu units, %lu messages "
	       "(%lu genl, %lu qdisc, %lu class, %lu sentinels; %lu batches)\n",
	       seed, st.units, st.msgs, st.genl, st.qdisc, st.class,
	       st.sentinels, st.batches);
	printf("ars-nlfuzz: answers: %lu acks, %lu valid replies, %lu dumps "
	       "done, %lu errors (%lu with extack, %lu without), %lu events\n",
	       st.acks, st.replies, st.dumps, st.errors, st.extack,
	       st.no_extack, st.events);
	printf("ars-nlfuzz: errors by errno:");
	for (e = 1; e < 256; e++)
		if (st.err_by_errno[e])
			printf(" %s %lu", strerror(e), st.err_by_errno[e]);
	printf("\nars-nlfuzz: errors without extack:");
	for (e = 1; e < 256; e++) {
		if (st.bare[P_GENL][e])
			printf(" genl %s %lu", strerror(e), st.bare[P_GENL][e]);
		if (st.bare[P_RTNL][e])
			printf(" rtnl %s %lu", strerror(e), st.bare[P_RTNL][e]);
	}
	printf("\nars-nlfuzz: %lu profile checks, %lu qdisc checks, all held\n",
	       st.profile_checks, st.qdisc_checks);
	printf("ars-nlfuzz: profile:");
	for (e = 1; e <= ARS_A_PROFILE_MAX; e++)
		if (profile_modeled(e))
			printf(" %" PRIu64, model.v[e]);
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned long count = 100000, only = 0, min_msgs = 0;
	const char *env = getenv("ARS_FUZZ_SEED");
	bool one = false, dry = false;
	int c;

	/* -s, else $ARS_FUZZ_SEED, else the clock; printed either way */
	if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^
		       (uint64_t)getpid();
	while ((c = getopt(argc, argv, "s:n:m:k:d:vD")) != -1) {
		switch (c) {
		case 'D': dry = verbose = true; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'm': min_msgs = strtoul(optarg, NULL, 0); break;
		case 'k': only = strtoul(optarg, NULL, 0); one = true; break;
		case 'd':
			if (ndevs == MAX_DEVS)
				usage();
			devs[ndevs] = (int)if_nametoindex(optarg);
			if (!devs[ndevs]) {
				fprintf(stderr, "ars-nlfuzz: no device %s\n", optarg);
				return 2;
			}
			ndevs++;
			break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	printf("ars-nlfuzz: seed 0x%016" PRIx64 "\n", seed);
	fflush(stdout);
	if (dry) {	/* print the units, send nothing */
		ars_family = 0x20;
		for (unit = one ? only : 0; unit < (one ? only + 1 : count);
		     unit++) {
			build_unit();
			print_unit();
		}
		return 0;
	}

	genl_sock = open_sock(NETLINK_GENERIC, false);
	rtnl_sock[0] = open_sock(NETLINK_ROUTE, true);
	rtnl_sock[1] = open_sock(NETLINK_ROUTE, false);
	c = resolve_family();
	if (c < 0) {
		fprintf(stderr, "ars-nlfuzz: no ars family id\n");
		return 2;
	}
	ars_family = (uint16_t)c;
	get_profile();
	model = seen;
	if (min_msgs)
		count = ~0UL;
	for (unit = one ? only : 0; unit < (one ? only + 1 : count) &&
	     (!min_msgs || st.msgs < min_msgs); unit++) {
		build_unit();
		if (verbose)
			print_unit();
		talk();
		check_effects();
		if (unit % 1000 == 999) {
			check_profile("at a checkpoint");
			dump_qdiscs(0);
		}
	}
	check_profile("at the end");
	dump_qdiscs(0);
	print_summary();
	return 0;
}
