#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Queues that stop: under mq, a queue that goes quiet must stop counting
# in its device's figures.
#
# mq: r1 - r2 over one veth pair "m" of two tx queues, mq at r1's root and
# an ars qdisc (bandwidth 10mbit) over a 10 Mbit/s tbf on each queue; an
# egress filter puts 10.9.3.1 on queue 1 and 10.9.4.1 on queue 2. Queue 2
# carries 150% of its tbf (a standing queue), queue 1 a trickle, which
# keeps the device's figures published; then queue 2's load stops and the
# device must read as queue 1 alone: the delay of the quiet queue leaves
# the device's sums and the band recovers, where before the quiet queue
# stayed in them as long as queue 1 kept publishing.
#
ALL_TESTS="
	mq_quiet_queue_leaves
"
source "$(dirname "$0")/lib.sh"

LOAD_PID=
MQ_PID=

cleanup()
{
	local p

	for p in $LOAD_PID $MQ_PID; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ns_destroy_all
	ars_load
}

INTERVAL_NS=100000000	# r1's sampling-interval, 100 ms
IDLE=10ms		# r1's idle-time

# --- mq -------------------------------------------------------------------

mq_topo()
{
	ns_create r1 r2 || return 1
	ip link add m netns "$(ns r1)" numtxqueues 2 numrxqueues 2 \
		address 02:00:00:00:60:01 type veth peer name m \
		netns "$(ns r2)" numtxqueues 2 numrxqueues 2 \
		address 02:00:00:00:60:02 || return 1
	printf '%s\n' "addr add 10.6.0.1/24 dev m" "link set m up" \
		"neigh replace 10.6.0.2 lladdr 02:00:00:00:60:02 dev m nud permanent" \
		"route add 10.9.0.0/16 via 10.6.0.2" | ip -n "$(ns r1)" -batch - ||
		return 1
	printf '%s\n' "addr add 10.6.0.2/24 dev m" "link set m up" \
		"route add blackhole 10.9.0.0/16" | ip -n "$(ns r2)" -batch - ||
		return 1
	printf '%s\n' \
		"qdisc add dev m root handle 1: mq" \
		"qdisc add dev m parent 1:1 handle 10: ars bandwidth 10mbit" \
		"qdisc add dev m parent 10:1 handle 11: tbf rate 10mbit burst 16k limit 64k" \
		"qdisc add dev m parent 1:2 handle 20: ars bandwidth 10mbit" \
		"qdisc add dev m parent 20:1 handle 21: tbf rate 10mbit burst 16k limit 64k" \
		"qdisc add dev m clsact" \
		"filter add dev m egress protocol ip flower dst_ip 10.9.3.1 action skbedit queue_mapping 0" \
		"filter add dev m egress protocol ip flower dst_ip 10.9.4.1 action skbedit queue_mapping 1" |
		tc_ars r1 -batch - || return 1
	arsctl_ns r1 set state on mode flowlet-quality idle-time "$IDLE" \
		sampling-interval "$((INTERVAL_NS / 1000000))ms"
}

# m_fig: "BAND DELAY_NS" of device m in r1's arsctl paths.
m_fig()
{
	arsctl_ns r1 -j paths |
		jq -r '.[] | select(.ifname == "m") | "\(.band) \(.delay_ns)"'
}

# qdisc_sent HANDLE: bytes sent by r1's qdisc HANDLE on m.
qdisc_sent()
{
	tc -n "$(ns r1)" -s -j qdisc show dev m |
		jq -r --arg h "$1" '.[] | select(.handle == $h) | .bytes'
}

mq_quiet_queue_leaves()
{
	local q1 q2 busy quiet load

	RET=0
	mq_topo
	check_err $? "topology"
	if [ "$RET" -ne 0 ]; then
		log_test "mq: a quiet queue leaves its device's figures"
		return
	fi
	# Queue 1: a trickle, 20 packets of 1000 bytes a second. Queue 2:
	# 15 Mbit/s into a 10 Mbit/s tbf, a standing queue of 50 ms.
	ip netns exec "$(ns r1)" "$UDPGEN" send -d 10.9.3.1 -n 0 -T 300 \
		-s 1000 -g 50ms >/dev/null &
	MQ_PID=$!
	load=$(udpgen_gap 15000000 1442 4)
	ip netns exec "$(ns r1)" "$UDPGEN" send -d 10.9.4.1 -n 0 -T 300 \
		-s 1400 -b 4 -g "${load}ns" >/dev/null &
	LOAD_PID=$!
	sleep 3
	busy=$(m_fig)
	q1=$(qdisc_sent 10:)
	q2=$(qdisc_sent 20:)
	log_info "both queues busy: band, delay $busy; sent by queue 1 $q1, queue 2 $q2 bytes"
	# The filters did their work: each queue carries its own traffic.
	[ "${q2:-0}" -gt $((${q1:-0} * 5)) ] && [ "${q1:-0}" -gt 0 ]
	check_err $? "queue 2 sent $q2 bytes, queue 1 $q1: the filters did not split the traffic"
	[ "${busy%% *}" -lt 7 ]
	check_err $? "with a standing queue on queue 2, the device's band is ${busy%% *}"
	kill "$LOAD_PID"
	wait "$LOAD_PID" 2>/dev/null
	LOAD_PID=
	# 2 s, 20 intervals: queue 2 drained (50 ms) and quiet, queue 1
	# publishing; what queue 2 had decays by (7/8)^19 at least.
	sleep 2
	quiet=$(m_fig)
	log_info "queue 2 quiet for 2 s: band, delay $quiet"
	[ "${quiet%% *}" -eq 7 ]
	check_err $? "the device's band is ${quiet%% *} with queue 2 quiet, not 7"
	[ "${quiet#* }" -lt $((${busy#* } / 10)) ]
	check_err $? "the device's delay ${quiet#* } ns did not fall below a tenth of ${busy#* } ns"
	log_test "mq: a quiet queue's figures decay out of its device's, the band recovers"
	kill "$MQ_PID"
	wait "$MQ_PID" 2>/dev/null
	MQ_PID=
}

require_root
require_cmd jq tc "$ARSCTL" "$UDPGEN"
require_tc_plugin
trap cleanup EXIT
ars_load || exit 1
tests_run
exit "$EXIT_STATUS"
