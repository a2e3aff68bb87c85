// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl ports [dev DEV] (paths, its old name): what ars knows of each
 * port, an egress device it measures, one row (or JSON object) per port;
 * and the same figures for show and routes.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ars.h>

#include "arsctl.h"
#include "parse.h"

static const enum mnl_attr_data_type port_types[ARS_A_PORT_INFO_MAX + 1] = {
	[ARS_A_PORT_INFO_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_PORT_INFO_IFNAME]	= MNL_TYPE_NUL_STRING,
	[ARS_A_PORT_INFO_QDISC]	= MNL_TYPE_U8,
	[ARS_A_PORT_INFO_BANDWIDTH]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_RATE]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_BACKLOG]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_DELAY]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_UTIL]	= MNL_TYPE_U32,
	[ARS_A_PORT_INFO_BAND]	= MNL_TYPE_U32,
	[ARS_A_PORT_INFO_PACKETS]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_BYTES]	= MNL_TYPE_U64,
	[ARS_A_PORT_INFO_FLOWLETS]	= MNL_TYPE_U64,
};

/* A u8, u32 or u64 attribute, 0 when absent. */
static uint64_t val(const struct nlattr **tb, unsigned int attr)
{
	if (!tb[attr])
		return 0;
	if (port_types[attr] == MNL_TYPE_U8)
		return mnl_attr_get_u8(tb[attr]);
	if (port_types[attr] == MNL_TYPE_U32)
		return mnl_attr_get_u32(tb[attr]);
	return mnl_attr_get_u64(tb[attr]);
}

static void port_read(const struct nlmsghdr *nlh, struct port_info *p)
{
	const struct nlattr *tb[ARS_A_PORT_INFO_MAX + 1];
	uint64_t rate;

	nl_parse(nlh, tb, port_types, ARS_A_PORT_INFO_MAX);
	memset(p, 0, sizeof(*p));
	p->ifindex = val(tb, ARS_A_PORT_INFO_IFINDEX);
	/* The kernel's name is the one of the dump's moment. */
	if (tb[ARS_A_PORT_INFO_IFNAME])
		snprintf(p->ifname, sizeof(p->ifname), "%s",
			 mnl_attr_get_str(tb[ARS_A_PORT_INFO_IFNAME]));
	else if (!ifname(p->ifindex, p->ifname))
		p->ifname[0] = '\0';
	p->qdisc = val(tb, ARS_A_PORT_INFO_QDISC);
	p->bandwidth = val(tb, ARS_A_PORT_INFO_BANDWIDTH);
	rate = val(tb, ARS_A_PORT_INFO_RATE);
	p->rate_bits = rate > UINT64_MAX / 8 ? UINT64_MAX : rate * 8;
	p->backlog = val(tb, ARS_A_PORT_INFO_BACKLOG);
	p->delay = val(tb, ARS_A_PORT_INFO_DELAY);
	p->util = val(tb, ARS_A_PORT_INFO_UTIL);
	p->band = val(tb, ARS_A_PORT_INFO_BAND);
	p->packets = val(tb, ARS_A_PORT_INFO_PACKETS);
	p->bytes = val(tb, ARS_A_PORT_INFO_BYTES);
	p->flowlets = val(tb, ARS_A_PORT_INFO_FLOWLETS);
}

/*
 * Without a bandwidth there is no utilisation: the kernel says 0 and ranks
 * the device as half used; say nothing rather than 0.
 */
static void port_json(struct json *jw, const struct port_info *p)
{
	json_object_open(jw);
	json_kv_u64(jw, "ifindex", p->ifindex);
	if (p->ifname[0])
		json_kv_string(jw, "ifname", p->ifname);
	json_kv_bool(jw, "qdisc", p->qdisc);
	json_kv_u64(jw, "bandwidth_bits_per_s", p->bandwidth);
	json_kv_u64(jw, "rate_bits_per_s", p->rate_bits);
	json_kv_u64(jw, "backlog_bytes", p->backlog);
	json_kv_u64(jw, "delay_ns", p->delay);
	if (p->bandwidth)
		json_kv_u64(jw, "util_permille", p->util);
	json_kv_u64(jw, "band", p->band);
	json_kv_u64(jw, "packets", p->packets);
	json_kv_u64(jw, "bytes", p->bytes);
	json_kv_u64(jw, "flowlets", p->flowlets);
	json_object_close(jw);
}

/* 79 columns; the JSON has the index, the bytes and the qdisc flag too. */
#define PORT_ROW	"%-12s %9s %9s %6s %8s %7s %4s %8s %8s\n"

/* A device without an ars qdisc has no figures: "-". */
static void port_row(const struct port_info *p)
{
	char dev[16], bw[FMT_BUFSZ], rate[FMT_BUFSZ], backlog[FMT_BUFSZ];
	char delay[FMT_BUFSZ], util[FMT_BUFSZ], band[16];
	char pkts[24], flowlets[24];

	if (p->ifname[0])
		snprintf(dev, sizeof(dev), "%s", p->ifname);
	else
		snprintf(dev, sizeof(dev), "%u", p->ifindex);
	if (p->bandwidth)
		fmt_bits(bw, sizeof(bw), p->bandwidth);
	else
		snprintf(bw, sizeof(bw), "unknown");
	strcpy(rate, "-");
	strcpy(backlog, "-");
	strcpy(delay, "-");
	strcpy(util, "-");
	strcpy(band, "-");
	if (p->qdisc) {
		fmt_bits(rate, sizeof(rate), p->rate_bits);
		fmt_bytes(backlog, sizeof(backlog), p->backlog);
		fmt_time_short(delay, sizeof(delay), p->delay);
		if (p->bandwidth)
			fmt_permille(util, sizeof(util), p->util);
		snprintf(band, sizeof(band), "%u", p->band);
	}
	snprintf(pkts, sizeof(pkts), "%" PRIu64, p->packets);
	snprintf(flowlets, sizeof(flowlets), "%" PRIu64, p->flowlets);
	printf(PORT_ROW, dev, bw, rate, util, backlog, delay, band, pkts,
	       flowlets);
}

static void ports_header(void)
{
	printf(PORT_ROW, "DEV", "BANDWIDTH", "RATE", "UTIL", "BACKLOG",
	       "DELAY", "BAND", "PACKETS", "FLOWLETS");
}

struct ports_walk {
	struct ctx *c;
	unsigned int ifindex;	/* only this device, unless 0 */
	struct port_info *all;	/* ports_fetch() */
	size_t n, cap;
	int err;
};

static int port_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ports_walk *w = data;
	struct port_info p;

	port_read(nlh, &p);
	if (w->ifindex && p.ifindex != w->ifindex)
		return MNL_CB_OK;
	if (!w->c) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 16;
			struct port_info *all;

			all = realloc(w->all, cap * sizeof(*all));
			if (!all) {
				w->err = -ENOMEM;
				return MNL_CB_STOP;
			}
			w->all = all;
			w->cap = cap;
		}
		w->all[w->n++] = p;
		return MNL_CB_OK;
	}
	list_begin(w->c, ports_header);
	if (w->c->json)
		port_json(&w->c->jw, &p);
	else
		port_row(&p);
	return MNL_CB_OK;
}

int ports_fetch(struct ctx *c, struct port_info **all, size_t *n)
{
	struct ports_walk w = { 0 };
	int err;

	nl_request(&c->nl, ARS_CMD_PORT_INFO_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, port_cb, &w);
	if (!err)
		err = w.err;
	if (err) {
		free(w.all);
		return err;
	}
	*all = w.all;
	*n = w.n;
	return 0;
}

const struct port_info *port_find(const struct port_info *all, size_t n,
				  unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (all[i].ifindex == ifindex)
			return &all[i];
	return NULL;
}

int cmd_ports(struct ctx *c)
{
	struct ports_walk w = { .c = c };
	const char *dev;
	int err;

	err = parse_filter(c, &dev, NULL, NULL);
	if (err)
		return err;
	if (!ctx_open(c) || filter_ifindex(c, dev, &w.ifindex))
		return EXIT_FAIL;

	nl_request(&c->nl, ARS_CMD_PORT_INFO_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, port_cb, &w);
	return list_end(c, ports_header, err);
}
