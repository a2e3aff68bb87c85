// SPDX-License-Identifier: GPL-2.0
/*
 * arsctl paths: what ars knows of each egress device, one row (or JSON
 * object) per device.
 */
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>

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

/* A u32 or u64 attribute, 0 when absent. */
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

/* Each key names its unit; rates in bit/s, as the bandwidth. */
static void path_json(struct json *jw, const struct nlattr **tb,
		      const char *dev)
{
	uint64_t rate = val(tb, ARS_A_PATH_RATE);

	json_object_open(jw);
	json_kv_u64(jw, "ifindex", val(tb, ARS_A_PATH_IFINDEX));
	if (dev)
		json_kv_string(jw, "ifname", dev);
	json_kv_bool(jw, "qdisc", val(tb, ARS_A_PATH_QDISC));
	json_kv_u64(jw, "bandwidth_bits_per_s", val(tb, ARS_A_PATH_BANDWIDTH));
	json_kv_u64(jw, "rate_bits_per_s", rate > UINT64_MAX / 8 ?
		    UINT64_MAX : rate * 8);
	json_kv_u64(jw, "backlog_bytes", val(tb, ARS_A_PATH_BACKLOG));
	json_kv_u64(jw, "delay_ns", val(tb, ARS_A_PATH_DELAY));
	/* Without a bandwidth there is no utilisation: the kernel says 0 and
	 * ranks the device as half used; say nothing rather than 0.
	 */
	if (val(tb, ARS_A_PATH_BANDWIDTH))
		json_kv_u64(jw, "util_permille", val(tb, ARS_A_PATH_UTIL));
	json_kv_u64(jw, "band", val(tb, ARS_A_PATH_BAND));
	json_kv_u64(jw, "packets", val(tb, ARS_A_PATH_PACKETS));
	json_kv_u64(jw, "bytes", val(tb, ARS_A_PATH_BYTES));
	json_kv_u64(jw, "flowlets", val(tb, ARS_A_PATH_FLOWLETS));
	json_object_close(jw);
}

#define PATH_ROW	"%-16s %7s %5s %10s %10s %10s %8s %6s %4s %12s %14s %10s\n"

static void path_row(const struct nlattr **tb, const char *dev)
{
	char idx[16], bw[FMT_BUFSZ], rate[FMT_BUFSZ], backlog[FMT_BUFSZ];
	char delay[FMT_BUFSZ], util[FMT_BUFSZ], band[16];
	char pkts[24], bytes[24], flowlets[24];
	uint64_t bytes_per_s = val(tb, ARS_A_PATH_RATE);

	snprintf(idx, sizeof(idx), "%" PRIu64, val(tb, ARS_A_PATH_IFINDEX));
	if (val(tb, ARS_A_PATH_BANDWIDTH))
		fmt_bits(bw, sizeof(bw), val(tb, ARS_A_PATH_BANDWIDTH));
	else
		snprintf(bw, sizeof(bw), "unknown");
	fmt_bits(rate, sizeof(rate), bytes_per_s > UINT64_MAX / 8 ?
		 UINT64_MAX : bytes_per_s * 8);
	fmt_bytes(backlog, sizeof(backlog), val(tb, ARS_A_PATH_BACKLOG));
	fmt_time_short(delay, sizeof(delay), val(tb, ARS_A_PATH_DELAY));
	fmt_permille(util, sizeof(util), val(tb, ARS_A_PATH_UTIL));
	snprintf(band, sizeof(band), "%" PRIu64, val(tb, ARS_A_PATH_BAND));
	snprintf(pkts, sizeof(pkts), "%" PRIu64, val(tb, ARS_A_PATH_PACKETS));
	snprintf(bytes, sizeof(bytes), "%" PRIu64, val(tb, ARS_A_PATH_BYTES));
	snprintf(flowlets, sizeof(flowlets), "%" PRIu64,
		 val(tb, ARS_A_PATH_FLOWLETS));
	printf(PATH_ROW, dev ? dev : idx, idx,
	       val(tb, ARS_A_PATH_QDISC) ? "yes" : "no", bw, rate, backlog,
	       delay, util, band, pkts, bytes, flowlets);
}

static void paths_header(void)
{
	printf(PATH_ROW, "IFNAME", "IFINDEX", "QDISC", "BANDWIDTH", "RATE",
	       "BACKLOG", "DELAY", "UTIL", "BAND", "PACKETS", "BYTES",
	       "FLOWLETS");
}

static int path_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ARS_A_PATH_MAX + 1];
	char devbuf[IF_NAMESIZE];
	struct ctx *c = data;
	const char *dev;

	nl_parse(nlh, tb, path_types, ARS_A_PATH_MAX);
	/* The kernel's name is the one of the dump's moment. */
	if (tb[ARS_A_PATH_IFNAME])
		dev = mnl_attr_get_str(tb[ARS_A_PATH_IFNAME]);
	else
		dev = ifname(val(tb, ARS_A_PATH_IFINDEX), devbuf);
	list_begin(c, paths_header);
	if (c->json)
		path_json(&c->jw, tb, dev);
	else
		path_row(tb, dev);
	return MNL_CB_OK;
}

int cmd_paths(struct ctx *c)
{
	int err;

	if (c->argc)
		return usage_error("paths: unexpected argument \"%s\"",
				   c->argv[0]);
	if (!ctx_open(c))
		return EXIT_FAIL;

	nl_request(&c->nl, ARS_CMD_PATHS_GET, NLM_F_DUMP);
	err = nl_talk(&c->nl, path_cb, c);
	return list_end(c, paths_header, err);
}
