// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of arsctl's value parsers, its formatting for humans, its
 * JSON writer, its reading of VRF devices from link messages and its
 * parsing of the flow of flows get; no kernel needed. Run by `make test`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/ars.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "../testing/unit/harness.h"
#include "arsctl.h"
#include "flowspec.h"
#include "json.h"
#include "parse.h"

static bool time_is(const char *s, uint64_t want)
{
	uint64_t ns = 0;
	int err = parse_time(s, &ns);

	if (err || ns != want)
		printf("    # parse_time(\"%s\") = %d, %llu; want %llu\n", s,
		       err, (unsigned long long)ns, (unsigned long long)want);
	return !err && ns == want;
}

static bool time_fails(const char *s)
{
	uint64_t ns = 12345;
	int err = parse_time(s, &ns);

	if (!err || ns != 12345)
		printf("    # parse_time(\"%s\") accepted: %llu\n", s,
		       (unsigned long long)ns);
	return err && ns == 12345;
}

static bool test_time_units(void)
{
	CHECK(time_is("500ns", 500));
	CHECK(time_is("500nsec", 500));
	CHECK(time_is("500nsecs", 500));
	CHECK(time_is("256us", 256000));
	CHECK(time_is("256usec", 256000));
	CHECK(time_is("256usecs", 256000));
	CHECK(time_is("1ms", 1000000));
	CHECK(time_is("1msec", 1000000));
	CHECK(time_is("2msecs", 2000000));
	CHECK(time_is("1s", 1000000000));
	CHECK(time_is("1sec", 1000000000));
	CHECK(time_is("3secs", 3000000000ULL));
	CHECK(time_is("1MS", 1000000));
	CHECK(time_is("1Us", 1000));
	return true;
}

static bool test_time_plain_is_usec(void)
{
	CHECK(time_is("256", 256000));
	CHECK(time_is("0", 0));
	CHECK(time_is("0.001", 1));
	return true;
}

static bool test_time_decimals(void)
{
	CHECK(time_is("0.5ms", 500000));
	CHECK(time_is(".5ms", 500000));
	CHECK(time_is("1.ms", 1000000));
	CHECK(time_is("1.5s", 1500000000));
	CHECK(time_is("0.000000001s", 1));
	CHECK(time_is("1.2500us", 1250));
	CHECK(time_is("2.000ns", 2));
	return true;
}

static bool test_time_limits(void)
{
	CHECK(time_is("18446744073709551615ns", UINT64_MAX));
	CHECK(time_is("18446744073.709551615s", UINT64_MAX));
	CHECK(time_fails("18446744073709551616ns"));
	CHECK(time_fails("18446744074s"));
	CHECK(time_fails("99999999999999999999999999s"));
	return true;
}

static bool test_time_garbage(void)
{
	CHECK(time_fails(""));
	CHECK(time_fails("."));
	CHECK(time_fails("ms"));
	CHECK(time_fails("-1ms"));
	CHECK(time_fails("+1ms"));
	CHECK(time_fails(" 1ms"));
	CHECK(time_fails("1 ms"));
	CHECK(time_fails("1ms "));
	CHECK(time_fails("1m"));
	CHECK(time_fails("1min"));
	CHECK(time_fails("1e3us"));
	CHECK(time_fails("0x10us"));
	CHECK(time_fails("1.2.3us"));
	CHECK(time_fails("0.5ns"));		/* finer than a nanosecond */
	CHECK(time_fails("1.0000000001s"));
	CHECK(time_fails("abc"));
	return true;
}

static bool test_u32(void)
{
	uint32_t v = 7;

	CHECK(!parse_u32("0", &v) && v == 0);
	CHECK(!parse_u32("4096", &v) && v == 4096);
	CHECK(!parse_u32("4294967295", &v) && v == UINT32_MAX);
	CHECK(parse_u32("4294967296", &v) == -ERANGE && v == UINT32_MAX);
	CHECK(parse_u32("", &v) && parse_u32("-1", &v));
	CHECK(parse_u32("1k", &v) && parse_u32(" 1", &v));
	CHECK(parse_u32("0x10", &v) && parse_u32("+1", &v));
	CHECK(!parse_percent("50%", &v) && v == 50);
	CHECK(!parse_percent("100", &v) && v == 100);
	CHECK(parse_percent("%", &v) && parse_percent("5%%", &v));
	CHECK(parse_percent("50 %", &v));
	return true;
}

static bool test_on_off_and_modes(void)
{
	static const char *const modes[] = {
		"ecmp", "fixed", "packet-random", "packet-roundrobin",
		"packet-quality", "flowlet-random", "flowlet-quality",
	};
	uint32_t m, i;
	bool on = false;

	CHECK(!parse_on_off("on", &on) && on);
	CHECK(!parse_on_off("off", &on) && !on);
	CHECK(!parse_on_off("ON", &on) && on);
	CHECK(!parse_on_off("Off", &on) && !on);
	CHECK(parse_on_off("yes", &on) && parse_on_off("o", &on));
	CHECK(ARRAY_SIZE(modes) == __ARS_MODE_MAX);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		CHECKF(!parse_mode(modes[i], &m) && m == i, "mode %s", modes[i]);
		CHECK(!strcmp(mode_name(i), modes[i]));
	}
	CHECK(parse_mode("flowlet", &m) && parse_mode("", &m));
	CHECK(!parse_mode("Flowlet-Quality", &m) &&
	      m == ARS_MODE_FLOWLET_QUALITY);
	CHECK(!parse_mode("ECMP", &m) && m == ARS_MODE_ECMP);
	CHECK(parse_mode("flowlet-qualityx", &m));
	CHECK(!mode_name(__ARS_MODE_MAX));
	CHECK(!strcmp(reason_name(ARS_REASON_NEW), "new"));
	CHECK(!strcmp(reason_name(ARS_REASON_IDLE), "idle"));
	CHECK(!strcmp(reason_name(ARS_REASON_FAILOVER), "failover"));
	CHECK(!strcmp(reason_name(ARS_REASON_PACKET), "packet"));
	CHECK(!reason_name(__ARS_REASON_MAX));
	return true;
}

#define CHECK_FMT(fn, v, want)						\
	do {								\
		char b[FMT_BUFSZ];					\
		fn(b, sizeof(b), v);					\
		CHECKF(!strcmp(b, want), "%s(%llu) = \"%s\", want \"%s\"", \
		       #fn, (unsigned long long)(v), b, want);		\
	} while (0)

static bool test_format_time(void)
{
	static const uint64_t round_trip[] = {
		0, 1, 999, 1000, 1001, 256000, 256789, 1500000, 1000000000,
		1000000001, UINT64_MAX,
	};
	char b[FMT_BUFSZ];
	uint64_t ns;
	size_t i;

	CHECK_FMT(fmt_time_exact, 0, "0ns");
	CHECK_FMT(fmt_time_exact, 500, "500ns");
	CHECK_FMT(fmt_time_exact, 256000, "256us");
	CHECK_FMT(fmt_time_exact, 256789, "256.789us");
	CHECK_FMT(fmt_time_exact, 1500000, "1.5ms");
	CHECK_FMT(fmt_time_exact, 1000000000, "1s");
	CHECK_FMT(fmt_time_exact, 1000000001, "1.000000001s");
	for (i = 0; i < ARRAY_SIZE(round_trip); i++) {
		fmt_time_exact(b, sizeof(b), round_trip[i]);
		CHECKF(!parse_time(b, &ns) && ns == round_trip[i],
		       "\"%s\" does not read back", b);
	}
	CHECK_FMT(fmt_time_short, 0, "0ns");
	CHECK_FMT(fmt_time_short, 999, "999ns");
	CHECK_FMT(fmt_time_short, 1234, "1.23us");
	CHECK_FMT(fmt_time_short, 12345, "12.3us");
	CHECK_FMT(fmt_time_short, 123456, "123us");
	CHECK_FMT(fmt_time_short, 2000000, "2ms");
	CHECK_FMT(fmt_time_short, 3600000000000ULL, "3600s");
	return true;
}

static bool test_format_units(void)
{
	CHECK_FMT(fmt_bits, 0, "0bit");
	CHECK_FMT(fmt_bits, 999, "999bit");
	CHECK_FMT(fmt_bits, 10000000000ULL, "10Gbit");
	CHECK_FMT(fmt_bits, 1250000000, "1.25Gbit");
	CHECK_FMT(fmt_bits, 100000000, "100Mbit");
	CHECK_FMT(fmt_bytes, 1514, "1.48KiB");
	CHECK_FMT(fmt_bytes, 1023, "1023B");
	CHECK_FMT(fmt_bytes, 1048576, "1MiB");
	CHECK_FMT(fmt_permille, 0, "0.0%");
	CHECK_FMT(fmt_permille, 523, "52.3%");
	CHECK_FMT(fmt_permille, 1000, "100.0%");
	return true;
}

/* Abbreviations as ip(8) takes them, keywords in any case. */
static bool test_matches(void)
{
	CHECK(matches("sh", "show") && matches("s", "show"));
	CHECK(matches("show", "show") && matches("SHOW", "show"));
	CHECK(matches("Mo", "moves"));
	CHECK(!matches("", "show") && !matches("shows", "show"));
	CHECK(!matches("sx", "show"));
	CHECK(is_time_unit("ms") && is_time_unit("MSec") && is_time_unit("s"));
	CHECK(is_time_unit("nsecs") && is_time_unit("us"));
	CHECK(!is_time_unit("m") && !is_time_unit("") && !is_time_unit("256"));
	return true;
}

/* What arsctl adds to, or takes from, the kernel's messages. */
static bool test_messages(void)
{
	CHECK(!strcmp(kernel_msg("ars: steering needs net.ipv4.fib_multipath_hash_policy=1"),
		      "steering needs net.ipv4.fib_multipath_hash_policy=1"));
	CHECK(!strcmp(kernel_msg("idle-time must be 1us to 1s"),
		      "idle-time must be 1us to 1s"));
	CHECK(!strcmp(kernel_msg("arsenal: x"), "arsenal: x"));
	CHECK(!strcmp(kernel_msg(""), ""));
	CHECK(!strcmp(privileged_action("set"), "changing the profile"));
	CHECK(!strcmp(privileged_action("stats reset"),
		      "resetting the counters"));
	CHECK(!strcmp(privileged_action("flows"),
		      "listing the macro-flow entries"));
	CHECK(!strcmp(privileged_action("monitor"),
		      "listening to path assignments"));
	CHECK(!strcmp(privileged_action("interface enable"),
		      "changing the enabled devices"));
	return true;
}

static bool test_timestamp(void)
{
	char b[40];

	setenv("TZ", "UTC", 1);
	tzset();
	fmt_timestamp(b, sizeof(b), 1796124584173238337ULL);
	CHECKF(!strcmp(b, "2026-12-01T11:29:44.173238"), "got %s", b);
	fmt_timestamp(b, sizeof(b), 0);
	CHECKF(!strcmp(b, "1970-01-01T00:00:00.000000"), "got %s", b);
	return true;
}

/* Run fn on a JSON writer into memory; the output, to free(). */
static char *json_capture(void (*fn)(struct json *), bool pretty)
{
	struct json jw;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_init(&jw, f, pretty);
	fn(&jw);
	fclose(f);
	return buf;
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_write_escaped(f, s);
	fclose(f);
	return buf;
}

static bool escapes_to(const char *s, const char *want)
{
	char *got = escaped(s);
	bool ok = got && !strcmp(got, want);

	if (!ok)
		printf("    # escaped: %s, want %s\n", got, want);
	free(got);
	return ok;
}

static bool test_json_escaping(void)
{
	CHECK(escapes_to("", "\"\""));
	CHECK(escapes_to("eth0", "\"eth0\""));
	CHECK(escapes_to("a\"b\\c", "\"a\\\"b\\\\c\""));
	CHECK(escapes_to("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\""));
	CHECK(escapes_to("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\""));
	CHECK(escapes_to("/", "\"/\""));
	CHECK(escapes_to("h\xc3\xa9", "\"h\xc3\xa9\""));		/* é */
	CHECK(escapes_to("\xe2\x82\xac", "\"\xe2\x82\xac\""));	/* € */
	CHECK(escapes_to("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""));
	CHECK(escapes_to("\xff", "\"\\ufffd\""));
	CHECK(escapes_to("\xc3", "\"\\ufffd\""));		/* cut short */
	CHECK(escapes_to("\xc0\xaf", "\"\\ufffd\\ufffd\""));	/* overlong */
	CHECK(escapes_to("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""));
	CHECK(escapes_to("\xf4\x90\x80\x80",
			 "\"\\ufffd\\ufffd\\ufffd\\ufffd\""));
	return true;
}

static void write_doc(struct json *jw)
{
	json_array_open(jw);
	json_object_open(jw);
	json_kv_u64(jw, "index", 7);
	json_kv_string(jw, "ifname", "eth\"1");
	json_kv_bool(jw, "qdisc", true);
	json_kv_u64(jw, "max", UINT64_MAX);
	json_object_close(jw);
	json_object_open(jw);
	json_object_close(jw);
	json_array_open(jw);
	json_null(jw);
	json_bool(jw, false);
	json_array_close(jw);
	json_array_close(jw);
}

static bool test_json_compact(void)
{
	char *s = json_capture(write_doc, false);
	bool ok = s && !strcmp(s,
		"[{\"index\":7,\"ifname\":\"eth\\\"1\",\"qdisc\":true,"
		"\"max\":18446744073709551615},{},[null,false]]\n");

	if (!ok)
		printf("    # got %s", s);
	free(s);
	return ok;
}

static bool test_json_pretty(void)
{
	char *s = json_capture(write_doc, true);
	bool ok = s && !strcmp(s,
		"[\n"
		"    {\n"
		"        \"index\": 7,\n"
		"        \"ifname\": \"eth\\\"1\",\n"
		"        \"qdisc\": true,\n"
		"        \"max\": 18446744073709551615\n"
		"    },\n"
		"    {},\n"
		"    [\n"
		"        null,\n"
		"        false\n"
		"    ]\n"
		"]\n");

	if (!ok)
		printf("    # got %s", s);
	free(s);
	return ok;
}

static void write_stream(struct json *jw)
{
	int i;

	for (i = 0; i < 2; i++) {
		json_object_open(jw);
		json_kv_u64(jw, "flow", i);
		json_kv_string(jw, "reason", "idle");
		json_object_close(jw);
	}
	json_array_open(jw);
	json_array_close(jw);
}

static bool test_json_stream(void)
{
	char *s = json_capture(write_stream, false);
	bool ok = s && !strcmp(s, "{\"flow\":0,\"reason\":\"idle\"}\n"
				  "{\"flow\":1,\"reason\":\"idle\"}\n"
				  "[]\n");

	if (!ok)
		printf("    # got %s", s);
	free(s);
	return ok;
}

/*
 * An RTM_NEWLINK message as the kernel sends it for device name: its
 * IFLA_LINKINFO with kind (kind_len bytes of it, NULL for none) and, with
 * table >= 0, IFLA_INFO_DATA holding IFLA_VRF_TABLE.
 */
static struct nlmsghdr *link_msg(char *buf, uint16_t type, const char *name,
				 const char *kind, size_t kind_len,
				 long long table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	struct nlattr *info, *data;

	nlh->nlmsg_type = type;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_index = 7;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (!kind)
		return nlh;
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put(nlh, IFLA_INFO_KIND, kind_len, kind);
	if (table >= 0) {
		data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
		mnl_attr_put_u32(nlh, IFLA_VRF_TABLE, table);
		mnl_attr_nest_end(nlh, data);
	}
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

static bool test_vrf_from_link(void)
{
	static char buf[1024] __attribute__((aligned(8)));
	struct vrf_info v = { "unset", 99 };

	CHECK(vrf_from_link(link_msg(buf, RTM_NEWLINK, "blue", "vrf", 4, 10),
			    &v) == 1);
	CHECK(!strcmp(v.name, "blue") && v.table == 10);
	/* The kind without its NUL, as a kernel may put it. */
	CHECK(vrf_from_link(link_msg(buf, RTM_NEWLINK, "red", "vrf", 3,
				     4294967295LL), &v) == 1);
	CHECK(!strcmp(v.name, "red") && v.table == 4294967295U);

	v.table = 99;
	CHECK(!vrf_from_link(link_msg(buf, RTM_NEWLINK, "br0", "bridge", 7,
				      -1), &v));
	CHECK(!vrf_from_link(link_msg(buf, RTM_NEWLINK, "v", "vrfx", 5, 10),
			     &v));
	CHECK(!vrf_from_link(link_msg(buf, RTM_NEWLINK, "v", "vr", 3, 10),
			     &v));
	CHECK(!vrf_from_link(link_msg(buf, RTM_NEWLINK, "lo", NULL, 0, -1),
			     &v));
	CHECK(!vrf_from_link(link_msg(buf, RTM_NEWLINK, "v", "vrf", 4, -1),
			     &v));
	CHECK(!vrf_from_link(link_msg(buf, RTM_DELLINK, "v", "vrf", 4, 10),
			     &v));
	CHECK(v.table == 99);
	return true;
}

static bool test_vrf_of_table(void)
{
	static const struct vrf_info all[] = {
		{ "blue", 10 }, { "red", 20 }, { "green", 10 },
	};

	CHECK(!strcmp(vrf_of_table(all, 3, 10), "blue"));
	CHECK(!strcmp(vrf_of_table(all, 3, 20), "red"));
	CHECK(!vrf_of_table(all, 3, 254));
	CHECK(!vrf_of_table(NULL, 0, 10));
	return true;
}

/* flow_spec_parse() of the words of line, split at spaces. */
static int flow_parse(const char *line, struct flow_spec *fs, char *why)
{
	static char buf[256];
	char *argv[32], *w, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (w = strtok_r(buf, " ", &save); w && argc < 32;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	why[0] = '\0';
	return flow_spec_parse(argc, argv, fs, why, 160);
}

static bool flow_refused(const char *line, const char *want)
{
	struct flow_spec fs;
	char why[160];
	int err = flow_parse(line, &fs, why);

	if (err != -EINVAL || !strstr(why, want))
		printf("    # \"%s\": %d \"%s\", want \"%s\"\n", line, err, why,
		       want);
	return err == -EINVAL && strstr(why, want);
}

static bool test_flow_spec(void)
{
	static const unsigned char h1[4] = { 10, 1, 0, 1 };
	static const unsigned char h2[4] = { 10, 3, 0, 1 };
	struct flow_spec fs;
	char why[160];

	CHECK(!flow_parse("from 10.1.0.1 to 10.3.0.1 proto udp sport 30000 dport 9",
			  &fs, why));
	CHECK(fs.family == AF_INET && !memcmp(fs.src, h1, 4) &&
	      !memcmp(fs.dst, h2, 4) && fs.proto == 17);
	CHECK(fs.has_sport && fs.sport == 30000 && fs.has_dport &&
	      fs.dport == 9);
	CHECK(!fs.has_mark && !fs.iif && !fs.has_tos && !fs.has_flowlabel);
	CHECK(flow_spec_alen(&fs) == 4);

	/* ip route get's order: the destination bare, ipproto, dsfield. */
	CHECK(!flow_parse("10.3.0.1 FROM 10.1.0.1 ipproto 6 mark 0x10 iif h1 dsfield 0x20",
			  &fs, why));
	CHECK(fs.proto == 6 && !memcmp(fs.dst, h2, 4));
	CHECK(fs.has_mark && fs.mark == 0x10 && !strcmp(fs.iif, "h1"));
	CHECK(fs.has_tos && fs.tos == 0x20 && !fs.has_sport);

	CHECK(!flow_parse("fr fd00:1::1 t fd00:3::1 p tcp sp 1 dp 65535 fl 0xfffff",
			  &fs, why));
	CHECK(fs.family == AF_INET6 && flow_spec_alen(&fs) == 16);
	CHECK(fs.proto == 6 && fs.sport == 1 && fs.dport == 65535);
	CHECK(fs.has_flowlabel && fs.flowlabel == 0xfffff);
	CHECK(fs.dst[15] == 1 && fs.dst[1] == 0 && fs.dst[0] == 0xfd);

	CHECK(!flow_parse("from 10.1.0.1 to 10.3.0.1 proto icmp", &fs, why));
	CHECK(fs.proto == 1);
	CHECK(!flow_parse("from 10.1.0.1 to 10.3.0.1 proto 255", &fs, why));
	CHECK(fs.proto == 255 && !proto_name(255) &&
	      !strcmp(proto_name(17), "udp"));
	return true;
}

static bool test_flow_spec_refused(void)
{
	CHECK(flow_refused("", "expected from ADDRESS"));
	CHECK(flow_refused("from 10.1.0.1 proto udp", "expected to ADDRESS"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1",
			   "expected proto PROTOCOL"));
	CHECK(flow_refused("from 10.1.0.300 to 10.3.0.1 proto udp",
			   "invalid address \"10.1.0.300\" after \"from\""));
	CHECK(flow_refused("from 10.1.0.1 to fd00::zz proto udp",
			   "invalid address \"fd00::zz\""));
	CHECK(flow_refused("from 10.1.0.1 to fd00::1 proto udp",
			   "not of one family"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto tcpx",
			   "invalid protocol \"tcpx\""));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto 256",
			   "invalid protocol"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp sport 65536",
			   "invalid sport \"65536\" (expected 0 to 65535)"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp dport -1",
			   "invalid dport"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto icmp dport 9",
			   "only with tcp, udp, sctp or udplite"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp sport",
			   "missing value after \"sport\""));
	CHECK(flow_refused("from 10.1.0.1 from 10.1.0.2 to 10.3.0.1 proto udp",
			   "\"from\" given twice"));
	CHECK(flow_refused("10.3.0.1 10.3.0.2 from 10.1.0.1 proto udp",
			   "unexpected \"10.3.0.2\""));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp bogus 1",
			   "unexpected \"bogus\""));
	CHECK(flow_refused("from fd00::1 to fd00::2 proto udp tos 4",
			   "tos only with IPv4"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp flowlabel 1",
			   "flowlabel only with IPv6"));
	CHECK(flow_refused("from fd00::1 to fd00::2 proto udp flowlabel 0x100000",
			   "invalid flowlabel"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp mark 4294967296",
			   "invalid mark"));
	CHECK(flow_refused("from 10.1.0.1 to 10.3.0.1 proto udp iif 0123456789abcdef",
			   "invalid device name"));
	return true;
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_time_units),
	UNIT_TEST(test_time_plain_is_usec),
	UNIT_TEST(test_time_decimals),
	UNIT_TEST(test_time_limits),
	UNIT_TEST(test_time_garbage),
	UNIT_TEST(test_u32),
	UNIT_TEST(test_on_off_and_modes),
	UNIT_TEST(test_matches),
	UNIT_TEST(test_messages),
	UNIT_TEST(test_timestamp),
	UNIT_TEST(test_format_time),
	UNIT_TEST(test_format_units),
	UNIT_TEST(test_json_escaping),
	UNIT_TEST(test_json_compact),
	UNIT_TEST(test_json_pretty),
	UNIT_TEST(test_json_stream),
	UNIT_TEST(test_vrf_from_link),
	UNIT_TEST(test_vrf_of_table),
	UNIT_TEST(test_flow_spec),
	UNIT_TEST(test_flow_spec_refused),
};

int main(void)
{
	return unit_run(tests, ARRAY_SIZE(tests));
}
