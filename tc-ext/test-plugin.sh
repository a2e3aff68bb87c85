#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of q_ars.so with the machine's own tc; no ars kernel module needed.
#
#   syms   every symbol q_ars.so takes from tc is a dynamic symbol of $TC
#   load   tc loads the plugin: help, usage errors (nothing sent), and the
#          TCA_OPTIONS a good command line sends, read with strace. tc runs
#          in a network namespace of its own, where the kernel refuses the
#          unknown kind. Without strace or such a namespace (root, or
#          unprivileged user namespaces) these cases fail: they cannot
#          tell what tc sends.
#   print  tc -s qdisc show, text and -j, of ars qdiscs made up by
#          test-fake-dump.so (which answers tc's dump request)
#   man    tc-ars.8 renders without warnings, within 80 columns
#
#   [TC=/sbin/tc] test-plugin.sh [syms|load|print|man]...	(default: all)
#
# Prints KTAP (the plan, then the results, once all have run) and "N
# passed, M failed"; exits 1 if anything failed.

TC=${TC:-tc}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$dir/../tools/testing/ktap.sh"

check() {
	name=$1
	shift
	if "$@"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" \
			"stdout: $(head -n 3 "$tmp/out" | tr '\n' '|')" \
			"stderr: $(head -n 4 "$tmp/err" | tr '\n' '|')" \
			"sent: $(sent)"
	fi
}

# ---------------------------------------------------------------- syms

test_syms() {
	nm -D --defined-only "$(command -v "$TC")" | awk '{ print $3 }' |
		sort -u >"$tmp/tc-syms"
	# Undefined, unversioned (not libc's), not weak: tc's.
	nm -D --undefined-only "$dir/q_ars.so" |
		awk '$1 == "U" && $2 !~ /@/ { print $2 }' | sort -u \
		>"$tmp/needed"
	missing=$(comm -23 "$tmp/needed" "$tmp/tc-syms" | tr '\n' ' ')
	if [ -s "$tmp/needed" ] && [ -z "$missing" ]; then
		ok "tc exports all $(wc -l <"$tmp/needed") symbols q_ars.so uses"
	else
		not_ok "tc exports the symbols q_ars.so uses" \
			"missing: ${missing:-(none needed?)}"
	fi
	if nm -D --defined-only "$dir/q_ars.so" |
	   grep -q ' D ars_qdisc_util$'; then
		ok "q_ars.so defines ars_qdisc_util"
	else
		not_ok "q_ars.so defines ars_qdisc_util"
	fi
}

# ---------------------------------------------------------------- load

NETNS=
DEV=lo
STRACE=
# execve too: a trace without tc's execve was not made, and says nothing
# about what tc sent.
setup_load() {
	if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then
		NETNS="unshare -n"
	elif unshare -rn true 2>/dev/null; then
		NETNS="unshare -rn"
	else
		DEV=ars-test-nodev0
	fi
	if command -v strace >/dev/null 2>&1; then
		STRACE="strace -f -qq -e trace=execve,sendmsg -xx -s 4096 -o $tmp/trace"
	fi
}

# run_tc ARGS...: tc with the plugin, leaving $rc, $tmp/{out,err,trace}.
run_tc() {
	: >"$tmp/trace"
	# shellcheck disable=SC2086
	TC_LIB_DIR=$dir $NETNS $STRACE "$TC" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# sent: the attributes in the TCA_OPTIONS of the RTM_NEWQDISC or
# RTM_NEWTCLASS tc sent, as "type=value ..." (values little endian);
# "none" if it sent none; "untraced" if strace did not trace tc.
sent() {
	if ! grep -q 'execve(' "$tmp/trace" 2>/dev/null; then
		echo untraced
		return
	fi
	grep -E 'RTM_NEW(QDISC|TCLASS)' "$tmp/trace" 2>/dev/null | awk '
	function byte(h) {
		return (index(X, substr(h, 1, 1)) - 1) * 16 + \
			index(X, substr(h, 2, 1)) - 1
	}
	BEGIN { X = "0123456789abcdef" }
	{
		found = 1
		# the nest is flagged: nla_type=NLA_F_NESTED|TCA_OPTIONS}
		i = index($0, "TCA_OPTIONS}")
		if (!i) {
			print "no-options"
			next
		}
		s = substr($0, i)
		if (substr(s, 13, 2) != ", ") {	# an empty nest
			print ""
			next
		}
		s = substr(s, 16)
		s = substr(s, 1, index(s, "\"") - 1)
		len = split(substr(s, 3), h, "\\\\x")
		for (k = 1; k <= len; k++)
			b[k - 1] = byte(h[k])
		out = ""
		for (off = 0; off + 4 <= len; off += int((alen + 3) / 4) * 4) {
			alen = b[off] + 256 * b[off + 1]
			if (alen < 4)
				break
			v = 0
			for (j = alen - 1; j >= 4; j--)
				v = v * 256 + b[off + j]
			out = out (out == "" ? "" : " ") \
				(b[off + 2] + 256 * b[off + 3]) "=" \
				sprintf("%.0f", v)
		}
		print out
	}
	END { if (!found) print "none" }'
}

usage_shown() {
	grep -qF 'Usage: ... ars [ bandwidth RATE ] [ interval TIME ]' \
		"$tmp/err"
}

refused() {
	[ "$rc" -ne 0 ] && [ "$(sent)" = none ] && grep -qF "$1" "$tmp/err"
}

# The kernel had the request, so tc parsed it: unknown kind, or no device.
reached_kernel() {
	if [ "$DEV" = lo ]; then
		grep -q 'Specified qdisc kind is unknown' "$tmp/err"
	else
		grep -q 'Cannot find device' "$tmp/err"
	fi
}

refused_with_usage() {
	refused "$1" && usage_shown && { [ -n "$1" ] || not_in_err 'What is'; }
}

refused_with_class_usage() {
	refused "$1" && grep -qF 'Usage: ... ars (class 1:1 has no parameters)' \
		"$tmp/err" && { [ -n "$1" ] || not_in_err 'What is'; }
}

not_in_err() {
	! grep -qF "$1" "$tmp/err"
}

# sent_and_reached ATTRS [any]: tc sent ATTRS, and the kernel answered
# that it knows no ars (any answer with "any").
sent_and_reached() {
	[ "$(sent)" = "$1" ] && { [ "${2-}" = any ] || reached_kernel; }
}

# expect_sent ATTRS ARGS...: tc qdisc add ... ars ARGS sends ATTRS.
# Without strace, or on a device that does not exist, what tc would send
# cannot be read: the case fails.
expect_sent() {
	want=$1
	shift
	run_tc qdisc add dev "$DEV" root handle 1: ars "$@"
	check "sends [$want]: ars $*" sent_and_reached "$want"
}

# expect_illegal OPTION VALUE
expect_illegal() {
	run_tc qdisc add dev "$DEV" root ars "$1" "$2"
	check "refused: ars $1 $2" refused "Illegal \"$1\""
}

test_load() {
	setup_load
	if [ -n "$NETNS" ]; then
		ok "tc runs in a network namespace of its own ($NETNS)"
	else
		not_ok "tc runs in a network namespace of its own" \
			"neither root nor unprivileged user namespaces: what tc sends to lo cannot be read"
	fi
	if [ -n "$STRACE" ]; then
		run_tc -V
		check "strace traces tc" grep -q 'execve(' "$tmp/trace"
	else
		not_ok "strace traces tc" \
			"no strace (make deps installs it): what tc sends cannot be read"
	fi

	run_tc qdisc add dev "$DEV" root ars help
	check "tc loads q_ars.so: ars help" \
		refused_with_usage ""
	run_tc qdisc add dev "$DEV" root ars bandwidth 1mbit foo
	check "refused: ars ... foo" refused_with_usage 'What is "foo"?'
	run_tc qdisc add dev "$DEV" root ars bandwidth
	check "refused: ars bandwidth (no value)" \
		refused 'Command line is not complete'
	run_tc qdisc add dev "$DEV" root ars interval
	check "refused: ars interval (no value)" \
		refused 'Command line is not complete'
	run_tc qdisc add dev "$DEV" root ars bandwidth 1mbit bandwidth 2mbit
	check "refused: ars bandwidth twice" refused 'Duplicate "bandwidth"'
	run_tc qdisc add dev "$DEV" root ars interval 1ms interval 2ms
	check "refused: ars interval twice" refused 'Duplicate "interval"'
	run_tc qdisc add dev "$DEV" root ars signal
	check "refused: ars signal (no value)" \
		refused 'Command line is not complete'
	run_tc qdisc add dev "$DEV" root ars signal v3 signal v2
	check "refused: ars signal twice" refused 'Duplicate "signal"'
	run_tc qdisc add dev "$DEV" root ars tau 1ms tau 2ms
	check "refused: ars tau twice" refused 'Duplicate "tau"'

	for v in xyz -5mbit 10mbitx 5.. 5e nan inf 1e30tbit 10mbit/s ''; do
		expect_illegal bandwidth "$v"
	done
	run_tc qdisc add dev lo root ars bandwidth 50%
	check "refused: ars bandwidth 50% (lo has no link speed)" \
		refused 'Illegal "bandwidth"'
	for v in 10x -1ms nan 1e30s 1e30 500ns 999ns 2s 0.5 1001ms; do
		expect_illegal interval "$v"
	done
	for v in v4 V3 1 3 ''; do
		expect_illegal signal "$v"
	done
	for v in 10x -1ms nan 500ns 999ns 2s 1001ms; do
		expect_illegal tau "$v"
	done

	expect_sent ""
	expect_sent "1=20000000" bandwidth 20mbit
	expect_sent "1=10001" bandwidth 10001
	expect_sent "1=10000000000" bandwidth 1.25GBps
	expect_sent "1=1073741824" bandwidth 1gibit
	expect_sent "1=4350" bandwidth 4.35kbit
	expect_sent "1=100000000" bandwidth 100Mbit
	expect_sent "1=0" bandwidth 0
	expect_sent "2=100000" interval 100us
	expect_sent "2=250000" interval 250
	expect_sent "2=1000" interval 1000ns
	expect_sent "2=1000000000" interval 1s
	expect_sent "2=1500000" interval 1.5ms
	expect_sent "2=100300" interval 100.3us
	expect_sent "2=1000000" interval 1e-3s
	expect_sent "2=0" interval 0
	expect_sent "1=20000000 2=1000000" bandwidth 20mbit interval 1ms
	expect_sent "1=20000000 2=1000000" interval 1ms bandwidth 20mbit
	expect_sent "4=1" signal v3
	expect_sent "4=0" signal v2
	expect_sent "5=16000" tau 16us
	expect_sent "5=0" tau 0
	expect_sent "5=1000000000" tau 1s
	expect_sent "1=20000000 4=1 5=4000" bandwidth 20mbit signal v3 tau 4us

	# A percentage of a veth's link speed (10gbit), which tc reads from
	# sysfs: one of the namespace's own, in a mount namespace.
	if [ -n "$NETNS" ] && [ -n "$STRACE" ] &&
	   $NETNS -m sh -c 'mount -t sysfs sysfs /sys &&
		ip link add ars-t0 type veth peer name ars-t1' 2>/dev/null; then
		: >"$tmp/trace"
		# shellcheck disable=SC2016
		TC_LIB_DIR=$dir $NETNS -m sh -c '
			mount -t sysfs sysfs /sys &&
			ip link add ars-t0 type veth peer name ars-t1 &&
			ip link set ars-t0 up && ip link set ars-t1 up &&
			exec '"$STRACE"' "$0" qdisc add dev ars-t0 root ars \
				bandwidth 50%' "$TC" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "sends [1=5000000000]: ars bandwidth 50% (of a veth)" \
			sent_and_reached 1=5000000000
	else
		not_ok "sends [1=5000000000]: ars bandwidth 50% (of a veth)" \
			"no strace, or no veth in a namespace of its own"
	fi

	run_tc class change dev "$DEV" classid 1:1 ars foo
	check "refused: class ars foo" \
		refused_with_class_usage 'What is "foo"?'
	run_tc class change dev "$DEV" classid 1:1 ars help
	check "class ars help" refused_with_class_usage ''
	run_tc class change dev "$DEV" classid 1:1 ars
	check "class ars: parsed, no options sent" \
		sent_and_reached no-options any
}

# ---------------------------------------------------------------- print

QDISC1='qdisc ars 1: dev lo root refcnt 2 bandwidth 20Mbit interval 100us '
QDISC2='qdisc ars 2: dev lo parent 1:1 refcnt 2 '
LINE1='  rate 19600Kbit backlog 1500b delay 1.2ms util 98.0% band 1 bandwidth 20Mbit samples 12345 tau 17.4us derived signal v3 derived'
LINE2='  rate 19600Kbit backlog 1500b delay 1.2ms band 0 bandwidth unknown samples 0'
JSON1='"options":{"bandwidth_bits_per_s":20000000,"interval_ns":100000}'
JSON2='"ars":{"rate_bits_per_s":19600000,"backlog_bytes":1500,"delay_ns":1200000,"util_permille":980,"band":1,"bandwidth_bits_per_s":20000000,"samples":12345,"tau_ns":17400,"tau_derived":true,"signal":"v3","signal_derived":true}'
JSON3='"options":{},'
JSON4='"ars":{"rate_bits_per_s":19600000,"backlog_bytes":1500,"delay_ns":1200000,"band":0,"bandwidth_bits_per_s":0,"samples":0}'

# shown LINE...: tc succeeded, quietly, and printed every LINE (whole).
shown() {
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || return 1
	for line in "$@"; do
		grep -qxF "$line" "$tmp/out" || return 1
	done
}

show() {
	TC_LIB_DIR=$dir LD_PRELOAD=$dir/test-fake-dump.so "$TC" "$@" qdisc show \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
}

no_dup_keys() {
	python3 -c '
import json, sys
def pairs(kv):
    keys = [k for k, _ in kv]
    if len(keys) != len(set(keys)):
        sys.exit("duplicate keys: %s" % keys)
    return dict(kv)
json.load(open(sys.argv[1]), object_pairs_hook=pairs)' "$tmp/out" \
	2>>"$tmp/err"
}

test_print() {
	if [ ! -f "$dir/test-fake-dump.so" ]; then
		not_ok "tc qdisc show" "no test-fake-dump.so (make test-print)"
		return
	fi
	show
	check "text options" shown "$QDISC1" "$QDISC2"
	show -s
	check "text statistics" shown "$QDISC1" "$LINE1"
	check "text statistics, shorter kernel struct" shown "$QDISC2" "$LINE2"
	show -s -j
	check "JSON options" grep -qF "$JSON1" "$tmp/out"
	check "JSON statistics" grep -qF "$JSON2" "$tmp/out"
	check "JSON, no options" grep -qF "$JSON3" "$tmp/out"
	check "JSON statistics, shorter kernel struct" \
		grep -qF "$JSON4" "$tmp/out"
	check "JSON parses, no duplicate keys" no_dup_keys
}

# ---------------------------------------------------------------- man

# The page renders without a groff or man warning, and fits 80 columns.
test_man() {
	if ! command -v man >/dev/null 2>&1; then
		skip "man tc-ars.8 renders cleanly" "no man"
		return
	fi
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$dir/tc-ars.8" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "man --warnings -l tc-ars.8: no warning" \
		eval '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
		      grep -q "^STATISTICS" "$tmp/out"'
	width=$(wc -L <"$tmp/out")
	check "man tc-ars.8 fits 80 columns (widest line: $width)" \
		[ "$width" -le 80 ]
}

[ $# -gt 0 ] || set -- syms load print man
for t in "$@"; do
	case $t in
	syms|load|print|man) "test_$t" ;;
	*) echo "test-plugin.sh: unknown test \"$t\"" >&2; exit 2 ;;
	esac
done

ktap_finish
