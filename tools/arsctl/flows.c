// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl flows [dev DEV]: the macro-flow entries in use, one row (or JSON
 * object) per entry, as the kernel dumps them; with dev, those whose path
 * leaves by DEV. OBJECT is the object of the entry's last flowlet, "(own)"
 * when the entry is in that object's own table (max-flows), not in the
 * namespace's.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

static const enum mnl_attr_data_type flow_types[ARS_A_FLOW_MAX + 1] = {
	[ARS_A_FLOW_INDEX]	= MNL_TYPE_U32,
	[ARS_A_FLOW_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_FLOW_NEXTHOP]	= MNL_TYPE_U32,
	[ARS_A_FLOW_IDLE]	= MNL_TYPE_U64,
	[ARS_A_FLOW_GENERATION]	= MNL_TYPE_U32,
	[ARS_A_FLOW_GATEWAY]	= MNL_TYPE_BINARY,
	[ARS_A_FLOW_FLOWLETS]	= MNL_TYPE_U32,
	[ARS_A_FLOW_OBJECT]	= MNL_TYPE_NUL_STRING,
	[ARS_A_FLOW_OWN_TABLE]	= MNL_TYPE_FLAG,
};

/* The gateway as text, NULL when absent or not an IPv4/IPv6 address. */
static const char *gateway(const struct nlattr *a, char *buf, size_t len)
{
	uint16_t alen;

	if (!a)
		return NULL;
	alen = mnl_attr_get_payload_len(a);
	if (alen == 4)
		return inet_ntop(AF_INET, mnl_attr_get_payload(a), buf, len);
	if (alen == 16)
		return inet_ntop(AF_INET6, mnl_attr_get_payload(a), buf, len);
	return NULL;
}

/*
 * if_indextoname() costs a socket and an ioctl, and a table of a million
 * entries has but a few devices: remember the names seen in this dump.
 */
static const char *cached_ifname(unsigned int ifindex, char *buf)
{
	static struct {
		unsigned int ifindex;
		bool exists;
		char name[IF_NAMESIZE];
	} cache[16];
	static unsigned int used;
	unsigned int i;

	for (i = 0; i < used; i++)
		if (cache[i].ifindex == ifindex)
			return cache[i].exists ? cache[i].name : NULL;
	if (!ifname(ifindex, buf))
		buf = NULL;
	if (used < ARRAY_SIZE(cache)) {
		cache[used].ifindex = ifindex;
		cache[used].exists = buf != NULL;
		if (buf)
			memcpy(cache[used].name, buf, IF_NAMESIZE);
		used++;
	}
	return buf;
}

static uint64_t get_u32(const struct nlattr *a)
{
	return a ? mnl_attr_get_u32(a) : 0;
}

static uint64_t get_u64(const struct nlattr *a)
{
	return a ? mnl_attr_get_u64(a) : 0;
}

static void flow_json(struct json *jw, const struct nlattr **tb,
		      const char *dev, const char *gw)
{
	json_object_open(jw);
	json_kv_u64(jw, "index", get_u32(tb[ARS_A_FLOW_INDEX]));
	json_kv_u64(jw, "ifindex", get_u32(tb[ARS_A_FLOW_IFINDEX]));
	if (dev)
		json_kv_string(jw, "ifname", dev);
	if (tb[ARS_A_FLOW_NEXTHOP])
		json_kv_u64(jw, "nexthop", get_u32(tb[ARS_A_FLOW_NEXTHOP]));
	json_kv_u64(jw, "idle_ns", get_u64(tb[ARS_A_FLOW_IDLE]));
	json_kv_u64(jw, "flowlets", get_u32(tb[ARS_A_FLOW_FLOWLETS]));
	json_kv_u64(jw, "generation", get_u32(tb[ARS_A_FLOW_GENERATION]));
	if (tb[ARS_A_FLOW_OBJECT])
		json_kv_string(jw, "object",
			       mnl_attr_get_str(tb[ARS_A_FLOW_OBJECT]));
	json_kv_bool(jw, "own_table", tb[ARS_A_FLOW_OWN_TABLE] != NULL);
	if (gw)
		json_kv_string(jw, "gateway", gw);
	json_object_close(jw);
}

static void flow_row(const struct nlattr **tb, const char *dev,
		     const char *gw)
{
	char idle[FMT_BUFSZ], num[16], nh[16] = "-", obj[32] = "-";

	if (!dev) {
		snprintf(num, sizeof(num), "%" PRIu64,
			 get_u32(tb[ARS_A_FLOW_IFINDEX]));
		dev = num;
	}
	if (tb[ARS_A_FLOW_NEXTHOP])
		snprintf(nh, sizeof(nh), "%" PRIu64,
			 get_u32(tb[ARS_A_FLOW_NEXTHOP]));
	if (tb[ARS_A_FLOW_OBJECT])
		snprintf(obj, sizeof(obj), "%s%s",
			 mnl_attr_get_str(tb[ARS_A_FLOW_OBJECT]),
			 tb[ARS_A_FLOW_OWN_TABLE] ? " (own)" : "");
	fmt_time_short(idle, sizeof(idle), get_u64(tb[ARS_A_FLOW_IDLE]));
	printf("%8" PRIu64 "  %-16s %7s %9s %9" PRIu64 "  %-16s %s\n",
	       get_u32(tb[ARS_A_FLOW_INDEX]), dev, nh, idle,
	       get_u32(tb[ARS_A_FLOW_FLOWLETS]), obj, gw ? gw : "");
}

static void flows_header(void)
{
	printf("%8s  %-16s %7s %9s %9s  %-16s %s\n", "INDEX", "DEV", "NEXTHOP",
	       "IDLE", "FLOWLETS", "OBJECT", "GATEWAY");
}

struct flows_walk {
	struct ctx *c;
	unsigned int ifindex;	/* only this device, unless 0 */
};

static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ARS_A_FLOW_MAX + 1];
	char gwbuf[INET6_ADDRSTRLEN], devbuf[IF_NAMESIZE];
	struct flows_walk *w = data;
	struct ctx *c = w->c;
	const char *dev, *gw;

	nl_parse(nlh, tb, flow_types, ARS_A_FLOW_MAX);
	if (w->ifindex && get_u32(tb[ARS_A_FLOW_IFINDEX]) != w->ifindex)
		return MNL_CB_OK;
	dev = cached_ifname(get_u32(tb[ARS_A_FLOW_IFINDEX]), devbuf);
	gw = gateway(tb[ARS_A_FLOW_GATEWAY], gwbuf, sizeof(gwbuf));
	list_begin(c, flows_header);
	if (c->json)
		flow_json(&c->jw, tb, dev, gw);
	else
		flow_row(tb, dev, gw);
	return MNL_CB_OK;
}

int cmd_flows(struct ctx *c)
{
	struct flows_walk w = { .c = c };
	const char *dev;
	int err;

	err = parse_filter(c, &dev, NULL, NULL);
	if (err)
		return err;
	if (!ctx_open(c) || filter_ifindex(c, dev, &w.ifindex))
		return EXIT_FAIL;

	nl_request(&c->nl, ARS_CMD_FLOWS_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, flow_cb, &w);
	return list_end(c, flows_header, err);
}
