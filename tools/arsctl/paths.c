// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl paths [dev DEV]: what ars knows of each egress device, one row
 * (or JSON object) per device; and the same figures for show and routes.
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

static const enum mnl_attr_data_type path_types[ARS_A_PATH_MAX + 1] = {
	[ARS_A_PATH_IFINDEX]	= MNL_TYPE_U32,
	[ARS_A_PATH_IFNAME]	= MNL_TYPE_NUL_STRING,
	[ARS_A_PATH_QDISC]	= MNL_TYPE_U8,
	[ARS_A_PATH_BANDWIDTH]	= MNL_TYPE_U64,
	[ARS_A_PATH_RATE]	= MNL_TYPE_U64,
	[ARS_A_PATH_BACKLOG]	= MNL_TYPE_U64,
	[ARS_A_PATH_DELAY]	= MNL_TYPE_U64,
	[ARS_A_PATH_UTIL]	= MNL_TYPE_U32,
	[ARS_A_PATH_BAND]	= MNL_TYPE_U32,
	[ARS_A_PATH_PACKETS]	= MNL_TYPE_U64,
	[ARS_A_PATH_BYTES]	= MNL_TYPE_U64,
	[ARS_A_PATH_FLOWLETS]	= MNL_TYPE_U64,
};

/* A u8, u32 or u64 attribute, 0 when absent. */
static uint64_t val(const struct nlattr **tb, unsigned int attr)
{
	if (!tb[attr])
		return 0;
	if (path_types[attr] == MNL_TYPE_U8)
		return mnl_attr_get_u8(tb[attr]);
	if (path_types[attr] == MNL_TYPE_U32)
		return mnl_attr_get_u32(tb[attr]);
	return mnl_attr_get_u64(tb[attr]);
}

static void path_read(const struct nlmsghdr *nlh, struct path_info *p)
{
	const struct nlattr *tb[ARS_A_PATH_MAX + 1];
	uint64_t rate;

	nl_parse(nlh, tb, path_types, ARS_A_PATH_MAX);
	memset(p, 0, sizeof(*p));
	p->ifindex = val(tb, ARS_A_PATH_IFINDEX);
	/* The kernel's name is the one of the dump's moment. */
	if (tb[ARS_A_PATH_IFNAME])
		snprintf(p->ifname, sizeof(p->ifname), "%s",
			 mnl_attr_get_str(tb[ARS_A_PATH_IFNAME]));
	else if (!ifname(p->ifindex, p->ifname))
		p->ifname[0] = '\0';
	p->qdisc = val(tb, ARS_A_PATH_QDISC);
	p->bandwidth = val(tb, ARS_A_PATH_BANDWIDTH);
	rate = val(tb, ARS_A_PATH_RATE);
	p->rate_bits = rate > UINT64_MAX / 8 ? UINT64_MAX : rate * 8;
	p->backlog = val(tb, ARS_A_PATH_BACKLOG);
	p->delay = val(tb, ARS_A_PATH_DELAY);
	p->util = val(tb, ARS_A_PATH_UTIL);
	p->band = val(tb, ARS_A_PATH_BAND);
	p->packets = val(tb, ARS_A_PATH_PACKETS);
	p->bytes = val(tb, ARS_A_PATH_BYTES);
	p->flowlets = val(tb, ARS_A_PATH_FLOWLETS);
}

/*
 * Without a bandwidth there is no utilisation: the kernel says 0 and ranks
 * the device as half used; say nothing rather than 0.
 */
static void path_json(struct json *jw, const struct path_info *p)
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
#define PATH_ROW	"%-12s %9s %9s %6s %8s %7s %4s %8s %8s\n"

/* A device without an ars qdisc has no figures: "-". */
static void path_row(const struct path_info *p)
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
	printf(PATH_ROW, dev, bw, rate, util, backlog, delay, band, pkts,
	       flowlets);
}

static void paths_header(void)
{
	printf(PATH_ROW, "DEV", "BANDWIDTH", "RATE", "UTIL", "BACKLOG",
	       "DELAY", "BAND", "PACKETS", "FLOWLETS");
}

struct paths_walk {
	struct ctx *c;
	unsigned int ifindex;	/* only this device, unless 0 */
	struct path_info *all;	/* paths_fetch() */
	size_t n, cap;
	int err;
};

static int path_cb(const struct nlmsghdr *nlh, void *data)
{
	struct paths_walk *w = data;
	struct path_info p;

	path_read(nlh, &p);
	if (w->ifindex && p.ifindex != w->ifindex)
		return MNL_CB_OK;
	if (!w->c) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 16;
			struct path_info *all;

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
	list_begin(w->c, paths_header);
	if (w->c->json)
		path_json(&w->c->jw, &p);
	else
		path_row(&p);
	return MNL_CB_OK;
}

int paths_fetch(struct ctx *c, struct path_info **all, size_t *n)
{
	struct paths_walk w = { 0 };
	int err;

	nl_request(&c->nl, ARS_CMD_PATHS_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, path_cb, &w);
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

const struct path_info *path_find(const struct path_info *all, size_t n,
				  unsigned int ifindex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (all[i].ifindex == ifindex)
			return &all[i];
	return NULL;
}

int cmd_paths(struct ctx *c)
{
	struct paths_walk w = { .c = c };
	const char *dev;
	int err;

	err = parse_filter(c, &dev, NULL, NULL);
	if (err)
		return err;
	if (!ctx_open(c) || filter_ifindex(c, dev, &w.ifindex))
		return EXIT_FAIL;

	nl_request(&c->nl, ARS_CMD_PATHS_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, path_cb, &w);
	return list_end(c, paths_header, err);
}
