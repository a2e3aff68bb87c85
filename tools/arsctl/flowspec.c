// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl flows get: parsing of the flow a request names (flowspec.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "flowspec.h"
#include "parse.h"

static const struct {
	const char *name;
	uint8_t proto;
} protos[] = {
	{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
	{ "sctp", IPPROTO_SCTP }, { "udplite", IPPROTO_UDPLITE },
	{ "icmp", IPPROTO_ICMP }, { "ipv6-icmp", IPPROTO_ICMPV6 },
	{ "icmpv6", IPPROTO_ICMPV6 }, { "gre", IPPROTO_GRE },
	{ "esp", IPPROTO_ESP }, { "ah", IPPROTO_AH },
};

const char *proto_name(uint8_t proto)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(protos); i++)
		if (protos[i].proto == proto)
			return protos[i].name;
	return NULL;
}

/* The protocols whose ports are in the flow key (kmod/key.h). */
static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

static int parse_proto(const char *s, uint8_t *proto)
{
	uint32_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		if (!strcasecmp(s, protos[i].name)) {
			*proto = protos[i].proto;
			return 0;
		}
	}
	if (parse_u32(s, &v) || v > 255)
		return -EINVAL;
	*proto = v;
	return 0;
}

/* A number in C's notation (0x10, 16, 020), at most max. */
static int parse_max(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An address of either family; its family in *family. */
static int parse_addr(const char *s, unsigned char *addr, int *family)
{
	if (inet_pton(AF_INET, s, addr) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, s, addr) == 1)
		*family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

enum {
	K_FROM, K_TO, K_PROTO, K_SPORT, K_DPORT, K_MARK, K_IIF, K_TOS,
	K_FLOWLABEL, K_NUM
};

/* In the order abbreviations are tried; ipproto and dsfield are ip's. */
static const struct {
	const char *word;
	int key;
} keywords[] = {
	{ "from", K_FROM }, { "to", K_TO }, { "proto", K_PROTO },
	{ "ipproto", K_PROTO }, { "sport", K_SPORT }, { "dport", K_DPORT },
	{ "mark", K_MARK }, { "iif", K_IIF }, { "tos", K_TOS },
	{ "dsfield", K_TOS }, { "flowlabel", K_FLOWLABEL },
};

static int keyword(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keywords); i++)
		if (matches(s, keywords[i].word))
			return keywords[i].key;
	return -1;
}

static int parse_value(struct flow_spec *fs, int k, const char *w,
		       const char *v, int *family, char *why, size_t len)
{
	uint32_t n;

	switch (k) {
	case K_FROM:
	case K_TO:
		if (parse_addr(v, k == K_FROM ? fs->src : fs->dst,
			       &family[k]))
			return say(why, len, "invalid address \"%s\" after \"%s\"",
				   v, w);
		break;
	case K_PROTO:
		if (parse_proto(v, &fs->proto))
			return say(why, len, "invalid protocol \"%s\" (a name, such as tcp, or 0 to 255)",
				   v);
		break;
	case K_SPORT:
	case K_DPORT:
		if (parse_max(v, 65535, &n))
			return say(why, len, "invalid %s \"%s\" (expected 0 to 65535)",
				   k == K_SPORT ? "sport" : "dport", v);
		if (k == K_SPORT)
			fs->sport = n;
		else
			fs->dport = n;
		break;
	case K_MARK:
		if (parse_max(v, UINT32_MAX, &fs->mark))
			return say(why, len, "invalid mark \"%s\"", v);
		break;
	case K_IIF:
		if (!*v || strlen(v) >= 16)
			return say(why, len, "invalid device name \"%s\" (1 to 15 bytes)",
				   v);
		fs->iif = v;
		break;
	case K_TOS:
		if (parse_max(v, 255, &n))
			return say(why, len, "invalid tos \"%s\" (expected 0 to 255)",
				   v);
		fs->tos = n;
		break;
	case K_FLOWLABEL:
		if (parse_max(v, 0xfffff, &fs->flowlabel))
			return say(why, len, "invalid flowlabel \"%s\" (expected 0 to 0xfffff)",
				   v);
		break;
	}
	return 0;
}

int flow_spec_parse(int argc, char **argv, struct flow_spec *fs, char *why,
		    size_t len)
{
	static const char *const names[K_NUM] = {
		"from", "to", "proto", "sport", "dport", "mark", "iif", "tos",
		"flowlabel",
	};
	bool seen[K_NUM] = { false };
	int family[K_NUM] = { 0 };
	int i, k, err;

	memset(fs, 0, sizeof(*fs));
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		k = keyword(w);
		if (k < 0) {
			/* A bare address is the destination, as in ip. */
			if (seen[K_TO] || parse_addr(w, fs->dst, &family[K_TO]))
				return say(why, len, "unexpected \"%s\"", w);
			seen[K_TO] = true;
			continue;
		}
		if (seen[k])
			return say(why, len, "\"%s\" given twice", names[k]);
		if (++i >= argc)
			return say(why, len, "missing value after \"%s\"", w);
		err = parse_value(fs, k, w, argv[i], family, why, len);
		if (err)
			return err;
		seen[k] = true;
	}
	if (!seen[K_FROM])
		return say(why, len, "expected from ADDRESS, the flow's source");
	if (!seen[K_TO])
		return say(why, len, "expected to ADDRESS, the flow's destination");
	if (!seen[K_PROTO])
		return say(why, len, "expected proto PROTOCOL");
	if (family[K_FROM] != family[K_TO])
		return say(why, len, "from and to are not of one family");
	fs->family = family[K_FROM];
	if ((seen[K_SPORT] || seen[K_DPORT]) && !has_ports(fs->proto))
		return say(why, len, "sport and dport only with tcp, udp, sctp or udplite");
	if (seen[K_TOS] && fs->family != AF_INET)
		return say(why, len, "tos only with IPv4 addresses");
	if (seen[K_FLOWLABEL] && fs->family != AF_INET6)
		return say(why, len, "flowlabel only with IPv6 addresses");
	fs->has_sport = seen[K_SPORT];
	fs->has_dport = seen[K_DPORT];
	fs->has_mark = seen[K_MARK];
	fs->has_tos = seen[K_TOS];
	fs->has_flowlabel = seen[K_FLOWLABEL];
	return 0;
}
