// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl flows [dev DEV]: the macro-flow entries in use, one row (or JSON
 * object) per entry, as the kernel dumps them; with dev, those whose path
 * leaves by DEV. OBJECT is the object of the entry's last flowlet, "(own)"
 * when the entry is in that object's own table (table-size), not in the
 * namespace's.
 *
 * arsctl flows get FLOW: the entry of one flow, as ip route get gives the
 * route of one packet: the kernel computes the flow's key as its data
 * plane does, and says ENOENT when no entry holds the flow.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "flowspec.h"
#include "parse.h"

static const enum mnl_attr_data_type flow_types[ARS_A_FLOW_MAX + 1] = {
	[ARS_A_FLOW_INDEX]	= MNL_TYPE_U32,
	[ARS_A_FLOW_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_FLOW_NEXTHOP]	= MNL_TYPE_U32,
	[ARS_A_FLOW_AGE]	= MNL_TYPE_U64,
	[ARS_A_FLOW_GENERATION]	= MNL_TYPE_U32,
	[ARS_A_FLOW_GATEWAY]	= MNL_TYPE_BINARY,
	[ARS_A_FLOW_FLOWLETS]	= MNL_TYPE_U32,
	[ARS_A_FLOW_OBJECT]	= MNL_TYPE_NUL_STRING,
	[ARS_A_FLOW_OWN_TABLE]	= MNL_TYPE_FLAG,
	[ARS_A_FLOW_ACTIVE]	= MNL_TYPE_FLAG,
	[ARS_A_FLOW_IIF]	= MNL_TYPE_U32,
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

/* The keys of an entry, in the JSON object being written. */
static void flow_json_keys(struct json *jw, const struct nlattr **tb,
			   const char *dev, const char *gw)
{
	json_kv_u64(jw, "index", get_u32(tb[ARS_A_FLOW_INDEX]));
	json_kv_u64(jw, "ifindex", get_u32(tb[ARS_A_FLOW_IFINDEX]));
	if (dev)
		json_kv_string(jw, "ifname", dev);
	if (tb[ARS_A_FLOW_NEXTHOP])
		json_kv_u64(jw, "nexthop", get_u32(tb[ARS_A_FLOW_NEXTHOP]));
	json_kv_u64(jw, "age_ns", get_u64(tb[ARS_A_FLOW_AGE]));
	/* The key's old name, which arsctl(8) still lists. */
	json_kv_u64(jw, "idle_ns", get_u64(tb[ARS_A_FLOW_AGE]));
	json_kv_u64(jw, "flowlets", get_u32(tb[ARS_A_FLOW_FLOWLETS]));
	json_kv_u64(jw, "generation", get_u32(tb[ARS_A_FLOW_GENERATION]));
	if (tb[ARS_A_FLOW_OBJECT])
		json_kv_string(jw, "object",
			       mnl_attr_get_str(tb[ARS_A_FLOW_OBJECT]));
	json_kv_bool(jw, "own_table", tb[ARS_A_FLOW_OWN_TABLE] != NULL);
	json_kv_bool(jw, "active", tb[ARS_A_FLOW_ACTIVE] != NULL);
	if (gw)
		json_kv_string(jw, "gateway", gw);
}

static void flow_json(struct json *jw, const struct nlattr **tb,
		      const char *dev, const char *gw)
{
	json_object_open(jw);
	flow_json_keys(jw, tb, dev, gw);
	json_object_close(jw);
}

static void flow_row(const struct nlattr **tb, const char *dev,
		     const char *gw)
{
	char age[FMT_BUFSZ], num[16], nh[16] = "-", obj[32] = "-";

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
	fmt_time_short(age, sizeof(age), get_u64(tb[ARS_A_FLOW_AGE]));
	printf("%8" PRIu64 "  %-16s %7s %9s %9" PRIu64 "  %-16s %s\n",
	       get_u32(tb[ARS_A_FLOW_INDEX]), dev, nh, age,
	       get_u32(tb[ARS_A_FLOW_FLOWLETS]), obj, gw ? gw : "");
}

static void flows_header(void)
{
	printf("%8s  %-16s %7s %9s %9s  %-16s %s\n", "INDEX", "DEV", "NEXTHOP",
	       "AGE", "FLOWLETS", "OBJECT", "GATEWAY");
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

/*
 * The entry of flows get, on one line as ip route get prints a route:
 * "entry 1234 dev p2 nexthop 1 via 10.2.2.2 age 12.3ms active flowlets 3
 * object default iif h1"; JSON: the keys of a flows entry, with iif and
 * iif_name.
 */
static int flow_get_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ARS_A_FLOW_MAX + 1];
	char gwbuf[INET6_ADDRSTRLEN], devbuf[IF_NAMESIZE], iifbuf[IF_NAMESIZE];
	char age[FMT_BUFSZ];
	struct ctx *c = data;
	const char *dev, *gw, *iif;

	nl_parse(nlh, tb, flow_types, ARS_A_FLOW_MAX);
	dev = ifname(get_u32(tb[ARS_A_FLOW_IFINDEX]), devbuf);
	iif = ifname(get_u32(tb[ARS_A_FLOW_IIF]), iifbuf);
	gw = gateway(tb[ARS_A_FLOW_GATEWAY], gwbuf, sizeof(gwbuf));
	if (c->json) {
		json_object_open(&c->jw);
		flow_json_keys(&c->jw, tb, dev, gw);
		json_kv_u64(&c->jw, "iif", get_u32(tb[ARS_A_FLOW_IIF]));
		if (iif)
			json_kv_string(&c->jw, "iif_name", iif);
		json_object_close(&c->jw);
		return MNL_CB_OK;
	}
	printf("entry %" PRIu64, get_u32(tb[ARS_A_FLOW_INDEX]));
	if (dev)
		printf(" dev %s", dev);
	else
		printf(" ifindex %" PRIu64, get_u32(tb[ARS_A_FLOW_IFINDEX]));
	if (tb[ARS_A_FLOW_NEXTHOP])
		printf(" nexthop %" PRIu64, get_u32(tb[ARS_A_FLOW_NEXTHOP]));
	if (gw)
		printf(" via %s", gw);
	fmt_time_short(age, sizeof(age), get_u64(tb[ARS_A_FLOW_AGE]));
	printf(" age %s %s flowlets %" PRIu64, age,
	       tb[ARS_A_FLOW_ACTIVE] ? "active" : "inactive",
	       get_u32(tb[ARS_A_FLOW_FLOWLETS]));
	if (tb[ARS_A_FLOW_OBJECT])
		printf(" object %s%s", mnl_attr_get_str(tb[ARS_A_FLOW_OBJECT]),
		       tb[ARS_A_FLOW_OWN_TABLE] ? " own-table" : "");
	if (iif)
		printf(" iif %s", iif);
	else if (tb[ARS_A_FLOW_IIF])
		printf(" iif %" PRIu64, get_u32(tb[ARS_A_FLOW_IIF]));
	printf("\n");
	return MNL_CB_OK;
}

/* flows get FLOW (flowspec.h). */
static int flows_get(struct ctx *c)
{
	struct nlmsghdr *req;
	struct flow_spec fs;
	unsigned int iif;
	char why[160];
	int err;

	c->cmd = "flows get";
	if (flow_spec_parse(c->argc - 1, c->argv + 1, &fs, why, sizeof(why)))
		return usage_error("%s: %s", c->cmd, why);
	if (c->checking && fs.iif && check_device(c, fs.iif))
		return EXIT_USAGE;
	if (!ctx_open(c) || filter_ifindex(c, fs.iif, &iif))
		return EXIT_FAIL;

	req = nl_request(&c->nl, ARS_CMD_FLOWS_GET, 0);
	mnl_attr_put(req, ARS_A_FLOW_SRC, flow_spec_alen(&fs), fs.src);
	mnl_attr_put(req, ARS_A_FLOW_DST, flow_spec_alen(&fs), fs.dst);
	mnl_attr_put_u8(req, ARS_A_FLOW_PROTO, fs.proto);
	if (fs.has_sport)
		mnl_attr_put_u16(req, ARS_A_FLOW_SPORT, fs.sport);
	if (fs.has_dport)
		mnl_attr_put_u16(req, ARS_A_FLOW_DPORT, fs.dport);
	if (fs.has_mark)
		mnl_attr_put_u32(req, ARS_A_FLOW_MARK, fs.mark);
	if (iif)
		mnl_attr_put_u32(req, ARS_A_FLOW_IIF, iif);
	if (fs.has_tos)
		mnl_attr_put_u8(req, ARS_A_FLOW_TOS, fs.tos);
	if (fs.has_flowlabel)
		mnl_attr_put_u32(req, ARS_A_FLOW_FLOWLABEL, fs.flowlabel);
	err = nl_talk(&c->nl, flow_get_cb, c);
	return err ? cmd_error(c, err, NULL) : EXIT_OK;
}

int cmd_flows(struct ctx *c)
{
	struct flows_walk w = { .c = c };
	const char *dev;
	int err;

	if (c->argc && matches(c->argv[0], "get"))
		return flows_get(c);

	err = parse_filter(c, &dev, NULL, NULL);
	if (err)
		return err;
	if (!ctx_open(c) || filter_ifindex(c, dev, &w.ifindex))
		return EXIT_FAIL;

	nl_request(&c->nl, ARS_CMD_FLOWS_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, flow_cb, &w);
	return list_end(c, flows_header, err);
}
