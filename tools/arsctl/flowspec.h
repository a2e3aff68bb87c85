/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arsctl flows get: the flow a request names, as ip route get names one
 * (flowspec.c). Only the syntax is checked here; whether an entry holds
 * the flow is the kernel's to say.
 */
#ifndef _ARSCTL_FLOWSPEC_H
#define _ARSCTL_FLOWSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct flow_spec {
	int family;			/* AF_INET or AF_INET6 */
	unsigned char src[16], dst[16];	/* network byte order */
	uint8_t proto;
	bool has_sport, has_dport, has_mark, has_tos, has_flowlabel;
	uint16_t sport, dport;
	uint32_t mark;
	uint8_t tos;
	uint32_t flowlabel;
	const char *iif;		/* a device's name, or NULL */
};

/*
 * The words of "flows get" after "get": from ADDRESS [to] ADDRESS proto
 * PROTOCOL [sport PORT] [dport PORT] [mark MARK] [iif DEV] [tos TOS]
 * [flowlabel LABEL], in any order, keywords abbreviated and in any case.
 * 0, or -EINVAL with why it is wrong in why[len].
 */
int flow_spec_parse(int argc, char **argv, struct flow_spec *fs, char *why,
		    size_t len);

/* The length in bytes of the spec's addresses. */
static inline size_t flow_spec_alen(const struct flow_spec *fs)
{
	return fs->family == AF_INET ? 4 : 16;
}

/* The name of protocol proto that flow_spec_parse() takes, or NULL. */
const char *proto_name(uint8_t proto);

#endif /* _ARSCTL_FLOWSPEC_H */
