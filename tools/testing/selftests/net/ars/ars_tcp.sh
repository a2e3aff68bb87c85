#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TCP through ars: 16 streams (iperf3 -P 16) from h1 to h2 over r1's four
# rate-limited links, once per mode, and what TCP itself counts of
# reordering and retransmission (nstat in h1, the sender, and h2).
#
#   +-------------+     +---------------------------+     +-------------+
#   | h1          |     | r1 (ars)                  |     | h2          |
#   | iperf3 -c   |     |  h1          p1 p2 p3 p4  |     | iperf3 -s   |
#   | 10.1.0.1/24 +-----+ 10.1.0.254   10.2.N.1/30  |     | 10.3.0.1/24 |
#   | no TSO/GSO  |     |  tbf 4mbit on p1..p4      |     | netem 2ms   |
#   +-------------+     +-------------+-+--+--+-----+     +------+------+
#                                     | |  |  |                  |
#                          four veth  p1 p2 p3 p4                |
#                             links   | |  |  |                  |
#                       +-------------+-+--+--+-----+            |
#                       | r2   p1..p4 10.2.N.2/30   |            |
#                       |  h2 10.3.0.254, netem 2ms +------------+
#                       +---------------------------+
#
# Data goes h1 -> r1 -> (p1..p4, ars's choice) -> r2 -> h2; ACKs come back
# over p1 only. Each of r1's links is a 4 Mbit/s tbf with at most TBF_LAT of
# queue, so that TCG keeps up and the paths' queueing delays differ by up to
# TBF_LAT; netem adds 2 ms each way after the paths merge (no reordering of
# its own), for an RTT of a few ms when idle. h1 sends MTU-sized segments
# (TSO/GSO off), so that per-packet modes act per segment, as on a wire.
#
# Reordering is what the sender's TCP detects: TcpExtTCPSACKReorder +
# TcpExtTCPTSReorder + TcpExtTCPRenoReorder (the same on 6.1 and 6.12;
# there is no TCPReorderSeen counter). Also shown: TcpRetransSegs,
# TcpExtTCPDSACKRecv (spurious retransmissions, typically from reordering)
# and h2's TcpExtTCPOFOQueue (segments received out of order, holes from
# losses included). Speeds and times are printed, never asserted.

ALL_TESTS="
	tcp_ecmp_baseline
	tcp_packet_random_reorders
	tcp_flowlet_quality_keeps_order
"
source "$(dirname "$0")/lib.sh"

DURATION=8		# seconds per iperf3 run
TBF_LAT=25		# ms of queue per link at most
IPERF_PID=
TMPD=
declare -A R
RTT_IDLE=''
RTT_LOAD=''

cleanup()
{
	[ -z "$IPERF_PID" ] || kill "$IPERF_PID" 2>/dev/null
	wait 2>/dev/null
	ns_destroy_all
	ars_load
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

setup_prepare()
{
	local i

	TMPD=$(mktemp -d)
	mp_topo_create && mp_route4 || return 1
	{
		for i in 1 2 3 4; do
			echo "qdisc replace dev p$i root tbf rate 4mbit burst 5kb latency ${TBF_LAT}ms"
		done
	} | tc -n "$(ns r1)" -batch - || return 1
	tc -n "$(ns r2)" qdisc replace dev h2 root netem delay 2ms limit 10000 &&
		tc -n "$(ns h2)" qdisc replace dev eth0 root netem delay 2ms \
			limit 10000 || return 1
	in_ns h1 ethtool -K eth0 tso off gso off >/dev/null || return 1
	ip netns exec "$(ns h2)" iperf3 -s >/dev/null 2>&1 &
	IPERF_PID=$!
	wait_until 10 sh -c "ip netns exec $(ns h2) ss -Htln 'sport = :5201' | grep -q ."
}

# links_tx: r1's p1..p4 tx_packets, space separated.
links_tx()
{
	ip -n "$(ns r1)" -s -j link show | jq -r '[.[] |
		select(.ifname | test("^p[1-4]$"))] | sort_by(.ifname) |
		map(.stats64.tx.packets) | join(" ")'
}

# nstat_read NAME ARRAY: the namespace's absolute counters (no history).
nstat_read()
{
	local -n out=$2
	local k v rest

	out=()
	while read -r k v rest; do
		# shellcheck disable=SC2034 # out is the caller's array
		case $k in
		Tcp*) out[$k]=$v ;;
		esac
	done < <(in_ns "$1" nstat -asz)
}

# ping_avg LINE: the average RTT of a ping summary line, in whole ms
# rounded up.
ping_avg()
{
	local avg

	[[ $1 =~ =\ [0-9.]+/([0-9]+)\.?([0-9]*)/ ]] || return 1
	avg=${BASH_REMATCH[1]}
	[ -z "${BASH_REMATCH[2]//0/}" ] || avg=$((avg + 1))
	echo "$avg"
}

# tcp_run MODE [IDLE]: ars on in r1 in MODE, 16 streams for DURATION s
# (and a ping alongside); R[...] gets the counter deltas and the rest.
tcp_run()
{
	local mode=$1 idle=${2:-256us} k j ping_pid i
	local -A b1 b2 a1 a2
	local -a tx0 tx1

	R=()
	arsctl_ns r1 set state off &&
		arsctl_ns r1 set state on mode "$mode" idle-time "$idle" &&
		arsctl_ns r1 stats reset || return 1
	R[profile]=$(arsctl_ns r1 -j show profile | jq -r '"\(.state) \(.mode)"')
	read -r -a tx0 <<<"$(links_tx)"
	nstat_read h1 b1
	nstat_read h2 b2
	in_ns h1 ping -q -c $((DURATION * 3)) -i 0.3 $MP_H2_4 \
		>"$TMPD/ping" 2>&1 &
	ping_pid=$!
	in_ns h1 iperf3 -c $MP_H2_4 -P 16 -t $DURATION -J >"$TMPD/iperf.json"
	R[iperf]=$?
	wait $ping_pid
	nstat_read h1 a1
	nstat_read h2 a2
	read -r -a tx1 <<<"$(links_tx)"
	R[links]=
	R[links_used]=0
	for i in 0 1 2 3; do
		R[links]+="${R[links]:+ }$((${tx1[i]:-0} - ${tx0[i]:-0}))"
		[ $((${tx1[i]:-0} - ${tx0[i]:-0})) -lt 100 ] ||
			R[links_used]=$((R[links_used] + 1))
	done
	for k in TcpRetransSegs TcpOutSegs TcpExtTCPSACKReorder \
		 TcpExtTCPTSReorder TcpExtTCPRenoReorder TcpExtTCPDSACKRecv; do
		R[$k]=$((${a1[$k]:-0} - ${b1[$k]:-0}))
	done
	R[TcpExtTCPOFOQueue]=$((${a2[TcpExtTCPOFOQueue]:-0} - ${b2[TcpExtTCPOFOQueue]:-0}))
	R[reorder]=$((R[TcpExtTCPSACKReorder] + R[TcpExtTCPTSReorder] +
		      R[TcpExtTCPRenoReorder]))
	R[mbps]=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' \
		  "$TMPD/iperf.json" 2>/dev/null)
	R[rtt]=$(tail -n 1 "$TMPD/ping")
	j=$(arsctl_ns r1 -j stats)
	[[ $j =~ \"packets\":([0-9]+) ]] && R[packets]=${BASH_REMATCH[1]}
	[[ $j =~ \"steered\":([0-9]+) ]] && R[steered]=${BASH_REMATCH[1]}
	[[ $j =~ \"flowlets\":([0-9]+) ]] && R[flowlets]=${BASH_REMATCH[1]}
	log_info "$mode${2:+ idle-time $2}: ${R[mbps]} Mbit/s, segments ${R[TcpOutSegs]}, retransmitted ${R[TcpRetransSegs]}; reordering ${R[reorder]} (SACK ${R[TcpExtTCPSACKReorder]}, TS ${R[TcpExtTCPTSReorder]}, Reno ${R[TcpExtTCPRenoReorder]}), DSACKs ${R[TcpExtTCPDSACKRecv]}, h2 out-of-order ${R[TcpExtTCPOFOQueue]}; r1 steered ${R[steered]}, flowlets ${R[flowlets]}; packets out of p1..p4: ${R[links]}"
	log_info "$mode: ping under load: ${R[rtt]}"
	[ "${R[iperf]}" -eq 0 ] && [ "${R[TcpOutSegs]:-0}" -gt 1000 ]
}

declare -A ECMP PR

# The baseline: the kernel's own ECMP (ars on, mode ecmp), which keeps each
# stream on one path: r1 hashes its 5-tuple, not h1's socket hash, which
# TCP re-randomises after a timeout (sk_rethink_txhash(); ars.rst, "The
# ecmp baseline"). Also measures the RTT, idle and under this load.
# Asserted: the profile is ecmp, ars steers and examines nothing (its
# packets are counted in ecmp alone), and the kernel spread the
# 16 streams over at least 3 of the 4 links (all 16 on 2 links or fewer
# by a uniform hash: probability 6 * 2^-16, 1e-4).
tcp_ecmp_baseline()
{
	local k

	RET=0
	RTT_IDLE=$(ping_avg "$(in_ns h1 ping -q -c 10 -i 0.2 $MP_H2_4 |
			       tail -n 1)")
	check_err $? "no RTT from an idle ping"
	log_info "RTT idle: ${RTT_IDLE} ms on average"
	tcp_run ecmp
	check_err $? "ecmp: arsctl or iperf3 failed, or next to nothing sent (iperf3 exit ${R[iperf]:-none}, ${R[TcpOutSegs]:-0} segments)"
	RTT_LOAD=$(ping_avg "${R[rtt]}")
	check_err $? "no RTT from the ping under load"
	for k in "${!R[@]}"; do
		ECMP[$k]=${R[$k]}
	done
	check_eq "${R[profile]}" "true ecmp" "ecmp: r1's profile (state, mode)"
	check_eq "${R[packets]}" 0 "ecmp: packets ars examined"
	check_eq "${R[steered]}" 0 "ecmp: packets steered"
	[ "${R[links_used]}" -ge 3 ]
	check_err $? "ecmp: the streams used ${R[links_used]} of the 4 links (packets out of p1..p4: ${R[links]})"
	log_test "TCP with ecmp: baseline"
}

# Every segment on a random path: the paths' different queues reorder
# segments, and TCP sees it. Asserted: more than 100 reordering events and
# more than 4 times the ECMP baseline's (0..~20 events here, packet-random
# ~1000 or more).
tcp_packet_random_reorders()
{
	local k

	RET=0
	tcp_run packet-random
	check_err $? "packet-random: iperf3 failed or sent next to nothing"
	for k in "${!R[@]}"; do
		PR[$k]=${R[$k]}
	done
	[ "${R[reorder]:-0}" -gt 100 ] &&
		[ "${R[reorder]:-0}" -gt $((4 * ${ECMP[reorder]:-0})) ]
	check_err $? "packet-random: reordering ${R[reorder]}, expected > 100 and > 4 x ecmp's ${ECMP[reorder]}"
	log_test "TCP with packet-random: reordering"
}

# flowlet-quality moves a stream only after a gap of idle-time, and a gap
# long enough for the stream's last packets to have left the old path's
# queue keeps its order. idle-time: at least half the average RTT that
# ping measured under the ecmp load (TCG's hiccups make the maximum
# meaningless), and at least TBF_LAT, the most a link queues, which bounds
# how much the paths' delays may differ.
# Asserted: reordering no more than ECMP's plus a tolerance of 30 events
# or 10% of packet-random's, whichever is more: flowlet-quality must avoid
# at least 90% of the reordering that spraying packets causes. (A TCG vCPU
# stalled while a link's tbf holds packets delays them past any idle-time,
# so a little reordering remains: 17-73 events seen against ecmp's 4-82 and
# packet-random's 1100-1900; with idle-time 3 ms, below the queueing delay,
# it was ~550.)
tcp_flowlet_quality_keeps_order()
{
	local idle tol

	RET=0
	idle=$(((RTT_LOAD + 1) / 2))
	[ "$idle" -ge "$TBF_LAT" ] || idle=$TBF_LAT
	tcp_run flowlet-quality ${idle}ms
	check_err $? "flowlet-quality: iperf3 failed or sent next to nothing"
	tol=$((${PR[reorder]:-0} / 10))
	[ $tol -ge 30 ] || tol=30
	[ "${R[reorder]:-0}" -le $((${ECMP[reorder]:-0} + tol)) ]
	check_err $? "flowlet-quality (idle-time ${idle}ms): reordering ${R[reorder]}, more than ecmp's ${ECMP[reorder]} + $tol"
	[ "${R[flowlets]:-0}" -gt 16 ]
	check_err $? "flowlet-quality: only ${R[flowlets]} flowlets for 16 streams: the case proves nothing"
	log_info "reordering: ecmp ${ECMP[reorder]}, packet-random ${PR[reorder]}, flowlet-quality ${R[reorder]} (tolerance $tol); retransmitted: ${ECMP[TcpRetransSegs]}, ${PR[TcpRetransSegs]}, ${R[TcpRetransSegs]}"
	log_test "TCP with flowlet-quality: no more reordering than ecmp"
}

require_root
require_cmd jq iperf3 nstat ethtool tc "$ARSCTL"
[ -n "$ARS_KO" ] || ars_loaded || { echo "SKIP: no ars module"; exit $ksft_skip; }
trap cleanup EXIT
ars_load
setup_prepare || { echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
