#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packets that NFQUEUE hands to user space come back from the verdict's
# process context, with bottom halves on (nf_reinject()), and go through
# the hooks after the queue there: ars's too. Its steering uses this
# CPU's state as its own and must run with bottom halves off.
#
#   h1 -- r1 ==== p1..p4 ==== r2 -- h2     (lib.sh, mp_topo_create)
#
# r1 queues every forwarded IPv4 packet at PRE_ROUTING, priority 0, to
# nfq_accept.py, which accepts them; ars (last in PRE_ROUTING) then steers
# them in that process's context. The tracepoint ars:ars_path_assign, one
# event per new flowlet, records the context of each: in softirq (s) or
# with bottom halves off (b), never with them on.

ALL_TESTS="
	reinjected_steered_bh_off
"
source "$(dirname "$0")/lib.sh"

TRACING=/sys/kernel/tracing
EVENT=$TRACING/events/ars/ars_path_assign
FLOWS=16
TMPD=

cleanup()
{
	[ ! -w "$EVENT/enable" ] || echo 0 > "$EVENT/enable"
	[ -z "$TMPD" ] || rm -rf "$TMPD"
	ns_destroy_all
}

setup_prepare()
{
	TMPD=$(mktemp -d)
	mp_topo_create && mp_route4 || return 1
	arsctl_ns r1 set state on mode flowlet-random idle-time 100ms
}

reinjected_steered_bh_off()
{
	local q=0 events bad nfq

	RET=0
	echo 0 > "$EVENT/enable" && echo > "$TRACING/trace" &&
		echo 1 > "$EVENT/enable"
	check_err $? "tracing ars:ars_path_assign"

	in_ns r1 python3 "$ARS_LIB_DIR/nfq_accept.py" "$FLOWS" 5 \
		> "$TMPD/nfq" 2>&1 &
	nfq=$!
	wait_until 20 grep -q ready "$TMPD/nfq"
	check_err $? "nfq_accept.py did not start: $(cat "$TMPD/nfq")"

	py_send "$MP_H2_4" "$FLOWS" 1
	check_err $? "traffic to h2"
	wait "$nfq"
	check_err $? "nfq_accept.py: $(cat "$TMPD/nfq")"
	q=$(tail -1 "$TMPD/nfq")
	check_eq "$q" "$FLOWS" "packets queued and accepted"
	echo 0 > "$EVENT/enable"

	# TASK-PID [CPU] FLAGS TIMESTAMP: ars_path_assign: ...
	# Two flows may share a macro-flow entry: one flowlet for both.
	events=$(grep ' ars_path_assign: ' "$TRACING/trace")
	[ "$(grep -c python3 <<<"$events")" -ge $((FLOWS / 2)) ]
	check_err $? "flowlets steered in nfq_accept.py's context: $(grep -c python3 <<<"$events")"
	check_none "$(grep -v python3 <<<"$events")" "$events" \
		"flowlets steered elsewhere than in nfq_accept.py's context"
	bad=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) break;
		     f = $(i + 1);
		     if (f !~ /^[bD]/ && substr(f, 3, 1) !~ /[sShH]/) print }' \
		<<<"$events")
	check_none "$bad" "$events" "steered with bottom halves on"
	log_test "reinjected packets are steered with bottom halves off ($q queued)"
}

require_root
require_cmd jq python3 "$ARSCTL"
if [ ! -d /sys/module/nft_queue ] && ! modprobe -q nft_queue; then
	echo "SKIP: no nf_tables queue expression (nft_queue)"
	exit $ksft_skip
fi
ars_load
if [ ! -w "$EVENT/enable" ]; then
	echo "SKIP: no tracepoint ars:ars_path_assign"
	exit $ksft_skip
fi
trap cleanup EXIT
setup_prepare || { echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
