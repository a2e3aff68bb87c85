#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ports that stop draining: a paused queue (PFC, a blocked shaper) must
# rank worst, not best; and under mq a queue that goes quiet must stop
# counting in its device's figures.
#
# Stall: the four-path topology of lib.sh (mp_topo_create: h1 - r1 =
# p1..p4 = r2 - h2), every pN of r1 with ars bandwidth 10mbit; p2..p4 with
# a 10 Mbit/s tbf below it, p1 with sch_plug, which holds every packet
# until "plug release_indefinite". r1 itself sends 100 packets a second to
# 10.9.1.1 via p1 (local traffic, which ars does not steer): they queue in
# the plug, up to its limit, then are dropped. h1 sends many short
# flowlets to 10.3.1.1, over p1..p4 by r1's multipath route (r2 drops
# them). The share of the new flowlets that r1 sends to p1 (arsctl ports
# "flowlets" deltas), under flowlet-random and flowlet-quality while p1 is
# plugged, and under flowlet-quality once it is released; and how many
# sampling intervals p1's band took to reach 0 and to leave it.
#
#   +----+      +---------------------+  p1: ars + plug   +------+
#   | h1 +------+ r1   10.3.1.0/24 via +------------------+ r2   |
#   +----+      | p1..p4, flowlets     +== p2..p4: ars ===+ drop |
#                +---------------------+    + tbf 10mbit   +------+
#
# mq: r1 - r2 over one veth pair "mq1" of two tx queues, mq at r1's root and
# an ars qdisc (bandwidth 125kbit) over a 1 Mbit/s tbf on each queue; an
# egress filter puts 10.9.3.1 on queue 1, 10.9.4.1 on queue 2 and anything
# else on queue 1. Queue 2 carries twice its tbf (a standing queue, waited
# for), queue 1 a trickle, which keeps the device's figures published;
# then queue 2's load stops. Once queue 2 has drained and closed no window
# for four intervals, and queue 1 has published since, the device's band
# must be queue 1's alone, that of its own rate (7 for the trickle), where
# queue 2's figures, counted, would make it lower (the run checks that they
# would): before, the quiet queue stayed in the device's sums as long as
# queue 1 kept publishing. The device's delay in dumps, which read each
# queue decayed, must be at most the average of queue 1's and of what
# queue 2 had when it drained, decayed by 2^-ewma-shift an interval.
#
# Times are in sampling intervals, bounded by polls of arsctl (each
# 150-400 ms under emulation): the assertions take the bound that a slow
# poll can only make smaller, so they fail only when ars is slower than
# its promise.

ALL_TESTS="
	stalled_ranks_worst
	stalled_avoided
	stalled_avoided_ipv6
	released_used_again
	mq_quiet_queue_leaves
"
source "$(dirname "$0")/lib.sh"

TMPD=
PIN_R1=
LOAD_PID=
MQ_PID=
POLL_PID=

cleanup()
{
	cleanup_mp $LOAD_PID $MQ_PID $POLL_PID $PIN_R1
}

INTERVAL_NS=100000000	# r1's sampling-interval, 100 ms
STALL_MAX=2		# intervals for a plugged port to reach band 0
RESUME_MAX=4		# intervals for it to leave band 0 once released
IDLE=10ms		# r1's idle-time
FLOWS=64		# test flows
FLOW_GAP=80ms		# each flow's gap: every packet is a new flowlet
PHASE=4			# s of test flows per measurement
PLUG_LIMIT=30000	# bytes the plug holds: 3 intervals' worth of load
declare -A SHARE

# poll_start FILE DEV: in r1, as fast as execs go, append the time (us)
# and arsctl -j ports to FILE, until $TMPD/stop exists.
poll_start()
{
	rm -f "$TMPD/stop"
	ip netns exec "$(ns r1)" bash -c '
		while [ ! -e "$1/stop" ]; do
			# Realtime: no other us clock without an exec; nothing steps it here.
			t=$EPOCHREALTIME
			echo "${t/[.,]/}"
			"$2" -j ports
		done' poll "$TMPD" "$ARSCTL" >"$1" &
	POLL_PID=$!
	wait_until 10 test -s "$1"
}

poll_stop()
{
	touch "$TMPD/stop"
	wait "$POLL_PID"
	POLL_PID=
}

# polls FILE DEV: DEV's band at each poll, "TIME BAND" lines.
polls()
{
	jq -rs --arg d "$2" '[range(0; length; 2) as $i |
		"\(.[$i]) \(.[$i + 1][] | select(.ifname == $d) | .band)"] |
		.[]' "$1"
}

# last_before FILE DEV T TEST: the time of the last poll after T whose band
# passes TEST (a jq condition on .) before the first that fails it; T
# when the first poll after T already fails it; -1 when none fails it.
last_before()
{
	polls "$1" "$2" | awk -v t="$3" -v want="$4" '
		$1 <= t || $2 == "" { next }
		{ ok = (want == "nonzero") ? ($2 != 0) : ($2 == 0) }
		ok { last = $1; next }
		{ print (last ? last : t); found = 1; exit }
		END { if (!found) print -1 }'
}

# band_summary FILE DEV: DEV's band at each poll, run-length coded.
band_summary()
{
	polls "$1" "$2" | awk '
		$2 == "" { next }
		$2 == prev { n++; next }
		{ if (n) { printf "%s%s x%d", sep, prev, n; sep = ", " }
		  prev = $2; n = 1 }
		END { if (n) printf "%s%s x%d", sep, prev, n; print "" }'
}

intervals()
{
	# elapsed us -> sampling intervals, one decimal
	local x=$(($1 * 10000 / INTERVAL_NS))

	echo "$((x / 10)).$((x % 10))"
}

# p1..p4 flowlets counters of r1, space separated.
flowlets()
{
	arsctl_ns r1 -j ports |
		jq -r '[.[] | select(.ifname | test("^p[1-4]$"))] |
			sort_by(.ifname) | map(.flowlets) | join(" ")'
}

# test_flows NAME [DST [SECONDS]]: SECONDS (default PHASE) of FLOWS flows
# from h1 to DST (default 10.3.1.1); SHARE[NAME] is p1's share of the new
# flowlets, per mille.
test_flows()
{
	local before after total i
	local -a b a d

	before=$(flowlets)
	in_ns h1 "$UDPGEN" send -d "${2:-10.3.1.1}" -f "$FLOWS" -n 0 \
		-T "${3:-$PHASE}" -g "$FLOW_GAP" -S 30000 >"$TMPD/flows.$1"
	after=$(flowlets)
	read -r -a b <<<"$before"
	read -r -a a <<<"$after"
	for i in 0 1 2 3; do
		d[i]=$((a[i] - b[i]))
	done
	total=$((d[0] + d[1] + d[2] + d[3]))
	SHARE[$1]=$((total ? d[0] * 1000 / total : -1))
	log_info "$1: new flowlets on p1..p4: ${d[*]} (total $total), p1's share ${SHARE[$1]} per mille"
	[ "$total" -ge $((FLOWS * 10)) ]
}

# watch_change PHASE MAX BEFORE TC_ARGS...: poll r1's ports for 2 s from
# just before `tc qdisc TC_ARGS` on; p1's band must stop being BEFORE
# ("nonzero": not yet 0; "zero": still 0) within MAX sampling intervals of
# the change. Logs p1's band at each poll and its qdisc's figures.
watch_change()
{
	local phase=$1 max=$2 before=$3 start last

	shift 3
	poll_start "$TMPD/$phase"
	tc_ars r1 qdisc "$@"
	check_err $? "tc qdisc $*"
	start=$(time_us)
	sleep 2
	poll_stop
	log_info "$phase: p1's band at each poll: $(band_summary "$TMPD/$phase" p1)"
	log_info "$phase: $(ars_qdisc_stats r1 p1)"
	last=$(last_before "$TMPD/$phase" p1 "$start" "$before")
	if [ "$last" -lt 0 ]; then
		check_err 1 "$phase: p1's band never seen leaving its $before band by the poll"
		return
	fi
	log_info "$phase: p1's band was $before until $(intervals $((last - start))) sampling intervals"
	[ $((last - start)) -le $((max * INTERVAL_NS / 1000)) ]
	check_err $? "$phase: p1's band still $before $(intervals $((last - start))) intervals after the change (at most $max)"
}

stalled_ranks_worst()
{
	RET=0
	TMPD=$(mktemp -d)
	mp_quality_topo "$IDLE" "$INTERVAL_NS"
	check_err $? "topology"
	if [ "$RET" -ne 0 ]; then
		log_test "a plugged port ranks worst"
		return
	fi
	# p1's background: 100 packets of 1400 bytes a second.
	ip netns exec "$(ns r1)" "$UDPGEN" send -d 10.9.1.1 -n 0 -T 300 \
		-s 1400 -g 10ms >/dev/null &
	LOAD_PID=$!
	# A sender that fell behind under TCG bursts, and a burst can read
	# as band 6 for a moment: the precondition is that p1 is idle-ranked
	# at some point before the plug, not at one instant.
	sleep 1
	wait_until 10 port_band_cmp r1 p1 -eq 7
	check_err $? "p1 not at band 7 before the plug: $(port_band r1 p1)"

	watch_change stall "$STALL_MAX" nonzero \
		replace dev p1 parent 1:1 handle 20: plug limit "$PLUG_LIMIT"
	port_band_cmp r1 p1 -eq 0
	check_err $? "p1's band is $(port_band r1 p1) with its queue plugged, not 0"
	log_test "a plugged port reaches band 0 within $STALL_MAX sampling intervals"
}

# plugged_shares_check RANDOM QUALITY: the shares of p1 (SHARE, by
# test_flows) under flowlet-random, by weight a quarter +-10 points, and
# under flowlet-quality at most 5%; p1's band 0 after the flows.
plugged_shares_check()
{
	[ "${SHARE[$1]}" -ge 150 ] && [ "${SHARE[$1]}" -le 350 ]
	check_err $? "p1's share under flowlet-random ${SHARE[$1]} per mille, not 150..350"
	[ "${SHARE[$2]}" -ge 0 ] && [ "${SHARE[$2]}" -le 50 ]
	check_err $? "p1's share under flowlet-quality ${SHARE[$2]} per mille, above 50"
	port_band_cmp r1 p1 -eq 0
	check_err $? "p1's band is $(port_band r1 p1) after the flows, not 0"
}

stalled_avoided()
{
	RET=0
	if [ -z "$LOAD_PID" ]; then
		check_err 1 "no plugged port from the previous case"
		log_test "flowlet-quality avoids a plugged port"
		return
	fi
	arsctl_ns r1 set mode flowlet-random
	test_flows random
	check_err $? "too few flowlets under flowlet-random"
	arsctl_ns r1 set mode flowlet-quality
	test_flows quality
	check_err $? "too few flowlets under flowlet-quality"
	plugged_shares_check random quality
	log_test "flowlet-quality sends at most 5% of new flowlets to a plugged port (random: a quarter)"
}

# The same for IPv6 (ars_key6() and the IPv6 route lookup ahead of the
# same port quality): fd00:3:1::/64 over p1..p4, dropped by r2, 2 s of
# flows per mode (640 to 1600 flowlets: the random share's bounds are 6
# to 9 standard deviations away).
stalled_avoided_ipv6()
{
	RET=0
	if [ -z "$LOAD_PID" ]; then
		check_err 1 "no plugged port from the previous case"
		log_test "IPv6: flowlet-quality avoids a plugged port"
		return
	fi
	# shellcheck disable=SC2046 # the next hops are words
	ip -n "$(ns r1)" -6 route add fd00:3:1::/64 $(mp_nexthops 6) &&
		ip -n "$(ns r2)" -6 route add blackhole fd00:3:1::/64
	check_err $? "IPv6 routes"
	arsctl_ns r1 set mode flowlet-random
	test_flows random6 fd00:3:1::1 2
	check_err $? "too few flowlets under flowlet-random"
	arsctl_ns r1 set mode flowlet-quality
	test_flows quality6 fd00:3:1::1 2
	check_err $? "too few flowlets under flowlet-quality"
	plugged_shares_check random6 quality6
	log_test "IPv6: flowlet-quality sends at most 5% of new flowlets to a plugged port (random: a quarter)"
}

released_used_again()
{
	RET=0
	if [ -z "$LOAD_PID" ]; then
		check_err 1 "no plugged port from the previous case"
		log_test "a released port is used again"
		return
	fi
	watch_change release "$RESUME_MAX" zero \
		change dev p1 parent 1:1 handle 20: plug release_indefinite
	port_band_cmp r1 p1 -ne 0
	check_err $? "p1's band still 0 after the release"
	test_flows released
	check_err $? "too few flowlets after the release"
	[ "${SHARE[released]}" -ge 150 ] && [ "${SHARE[released]}" -le 350 ]
	check_err $? "p1's share after the release ${SHARE[released]} per mille, not 150..350"
	log_test "once released, the port leaves band 0 within $RESUME_MAX intervals and gets a quarter of the flowlets"
	kill "$LOAD_PID"
	wait "$LOAD_PID" 2>/dev/null
	LOAD_PID=
	kill "$PIN_R1"
	wait "$PIN_R1" 2>/dev/null
	PIN_R1=
	ns_destroy_all
}

# --- mq -------------------------------------------------------------------

MQ_TBF=1mbit		# each queue's tbf
MQ_BPS=125000		# each queue's ars bandwidth, bit/s: see mq_quiet_queue_leaves
MQ_SHIFT=6		# r1's ewma-shift: a quiet queue keeps 63/64 an interval
MQ_WEIGHT=100		# r1's rate-weight, percent: see mq_quiet_queue_leaves
MQ_STANDING=40000000	# ns of queue 2's delay: a standing queue (full: 131 ms)
MQ_BUSY_BPS=$MQ_BPS	# queue 2's rate average, bit/s, before it stops
STALE_INTERVALS=4	# ARS_STALE_INTERVALS (sch_ars_port.h)
MQ_CHECKS=3		# dumps of the device once queue 2 counts as idle
MQ_Q1_MARGIN=1000000	# ns: see mq_checks

mq_topo()
{
	ns_create r1 r2 || return 1
	ip link add name mq1 netns "$(ns r1)" numtxqueues 2 numrxqueues 2 \
		address 02:00:00:00:60:01 type veth peer name mq1 \
		netns "$(ns r2)" numtxqueues 2 numrxqueues 2 \
		address 02:00:00:00:60:02 || return 1
	printf '%s\n' "addr add 10.6.0.1/24 dev mq1" "link set mq1 up" \
		"neigh replace 10.6.0.2 lladdr 02:00:00:00:60:02 dev mq1 nud permanent" \
		"route add 10.9.0.0/16 via 10.6.0.2" | ip -n "$(ns r1)" -batch - ||
		return 1
	printf '%s\n' "addr add 10.6.0.2/24 dev mq1" "link set mq1 up" \
		"route add blackhole 10.9.0.0/16" | ip -n "$(ns r2)" -batch - ||
		return 1
	# Whatever else r1 sends on mq1 (IPv6's solicitations and reports,
	# seconds after the link comes up) goes to queue 1: queue 2 carries
	# only its load, and is quiet once that stops.
	printf '%s\n' \
		"qdisc add dev mq1 root handle 1: mq" \
		"qdisc add dev mq1 parent 1:1 handle 10: ars bandwidth $MQ_BPS" \
		"qdisc add dev mq1 parent 10:1 handle 11: tbf rate $MQ_TBF burst 8k limit 16k" \
		"qdisc add dev mq1 parent 1:2 handle 20: ars bandwidth $MQ_BPS" \
		"qdisc add dev mq1 parent 20:1 handle 21: tbf rate $MQ_TBF burst 8k limit 16k" \
		"qdisc add dev mq1 clsact" \
		"filter add dev mq1 egress pref 1 protocol ip flower dst_ip 10.9.3.1 action skbedit queue_mapping 0" \
		"filter add dev mq1 egress pref 2 protocol ip flower dst_ip 10.9.4.1 action skbedit queue_mapping 1" \
		"filter add dev mq1 egress pref 3 protocol all flower action skbedit queue_mapping 0" |
		tc_ars r1 -batch - || return 1
	arsctl_ns r1 set state on mode flowlet-quality idle-time "$IDLE" \
		sampling-interval "$((INTERVAL_NS / 1000000))ms" \
		ewma-shift "$MQ_SHIFT" rate-weight "$MQ_WEIGHT"
}

# qdisc_sent HANDLE [packets]: bytes (or packets) sent by r1's qdisc HANDLE
# on mq1.
qdisc_sent()
{
	tc_ars r1 -s -j qdisc show dev mq1 |
		jq -r --arg h "$1" --arg f "${2:-bytes}" \
			'.[] | select(.handle == $h) | .[$f]'
}

# mq_q HANDLE: "QLEN SAMPLES DELAY_NS RATE_BITS" of r1's ars qdisc HANDLE
# on mq1.
mq_q()
{
	tc_ars r1 -s -j qdisc show dev mq1 |
		jq -r --arg h "$1" '.[] | select(.handle == $h) |
			"\(.qlen) \(.ars.samples) \(.ars.delay_ns) \(.ars.rate_bits_per_s)"'
}

# mq_busy: queue 2 holds a standing queue (its delay MQ_STANDING ns or
# more), its rate average is MQ_BUSY_BPS or more, and the device's band
# shows it. MQ_BUSY: "BAND DELAY_NS" of the device; MQ_Q2: mq_q 20:.
mq_busy()
{
	local d r

	MQ_Q2=$(mq_q 20:)
	MQ_BUSY=$(ars_path r1 mq1 | jq -r '"\(.band) \(.delay_ns)"')
	read -r _ _ d r <<<"$MQ_Q2"
	[ "${d:-0}" -ge "$MQ_STANDING" ] && [ "${r:-0}" -ge "$MQ_BUSY_BPS" ] &&
		[ "${MQ_BUSY%% *}" -lt 7 ] 2>/dev/null
}

# mq_poll_start FILE: in r1, as fast as execs go, append to FILE the time
# (us), tc -s -j of mq1, the time, arsctl -j ports and the time, until
# $TMPD/stop exists.
mq_poll_start()
{
	rm -f "$TMPD/stop"
	ip netns exec "$(ns r1)" env TC_LIB_DIR="$ARS_TC_LIB_DIR" bash -c '
		while [ ! -e "$1/stop" ]; do
			# Realtime: no other us clock without an exec; nothing steps it here.
			t=$EPOCHREALTIME; echo "${t/[.,]/}"
			tc -s -j qdisc show dev mq1; echo
			t=$EPOCHREALTIME; echo "${t/[.,]/}"
			"$2" -j ports
			t=$EPOCHREALTIME; echo "${t/[.,]/}"
		done' poll "$TMPD" "$ARSCTL" >"$1" &
	POLL_PID=$!
}

# mq_rows FILE: one line per poll of FILE (mq_poll_start): "T0 T1 T2 QLEN2
# SAMPLES2 DELAY2 RATE2 SAMPLES1 DELAY1 BAND DELAY RATE1": tc read between
# T0 and T1 (queue 2's qlen, samples, delay, rate; queue 1's samples,
# delay, rate), arsctl between T1 and T2 (the device's band and delay).
mq_rows()
{
	jq -rs '[range(0; length - 4; 5) as $i | .[$i:$i + 5] |
		(.[1][] | select(.handle == "20:")) as $b |
		(.[1][] | select(.handle == "10:")) as $a |
		(.[3][] | select(.ifname == "mq1")) as $p |
		"\(.[0]) \(.[2]) \(.[4]) \($b.qlen) \($b.ars.samples) \($b.ars.delay_ns) \($b.ars.rate_bits_per_s) \($a.ars.samples) \($a.ars.delay_ns) \($p.band) \($p.delay_ns) \($a.ars.rate_bits_per_s)"] |
		.[]' "$1" 2>/dev/null
}

# band_of RATE_BITS DELAY_NS: the band that ars_quality_band() gives a
# device of MQ_BPS with these figures, at r1's rate-weight.
band_of()
{
	local util=$(($1 * 1000 / MQ_BPS)) score=$(($2 * 1000 / 1000000)) load

	[ "$util" -le 1000 ] || util=1000
	[ "$score" -le 1000 ] || score=1000
	load=$(((MQ_WEIGHT * util + (100 - MQ_WEIGHT) * score) / 100))
	echo $((7 - load * 8 / 1001))
}

# mq_checks FILE T_STOP [log]: check the polls of FILE after queue 2's load
# stopped at T_STOP (us); MQ_CHECKED is the number of dumps checked, and
# with "log" it logs them and fails (check_err) on what they show.
#
# TA: the end of the first tc read after T_STOP that finds queue 2 empty.
# Its last close was before TA, so from TA + STALE_INTERVALS + 1 intervals
# on it counts as idle (sch_ars_port.c), if it closes no window meanwhile
# (its samples) and holds nothing. A dump is checked once queue 1 closed 3
# windows after then (tc read just before the dump): the third close is an
# interval after the first at least, so one of them published the device.
#
# Each checked dump: the band must be queue 1's alone, that of its own
# rate (band_of, at rate-weight 100): queue 2's figures left the device's.
# The close that published it came after the base poll's tc read (one of
# the three closes since) and before the dump, and tc reads what a close
# at the time of reading would make: its rate lies between the least and
# the most of queue 1's reads from the base poll to the one after the
# dump, give or take a 64th (one interval's weight, between reads). A
# trickle is band 7 in all of them; whatever else queue 1 carries, the
# device publishes its band. The delay in dumps reads each queue decayed
# as at the dump, queue 2's by 1 - 2^-MQ_SHIFT an interval: the device's
# must be at most the average of queue 1's (the larger of the reads around
# the dump) and queue 2's at TA, decayed over the whole intervals since,
# less one (a window that saw a packet leave keeps its first interval),
# plus 1 ns of rounding an interval and MQ_Q1_MARGIN: queue 1's average
# moves with the packets that leave between the reads, by a 64th of their
# sojourn each (a trickle packet 64 ms late moves it by 1 ms).
#
# MQ_COUNTED: the band of queue 2's rate in the read after the first
# checked dump plus queue 1's least, as the device's: at most what a device
# that kept a quiet queue in its sums, decayed or not, published before
# that dump (queue 2's rate read only falls while it is quiet). MQ_OWN:
# the least band queue 1's own figures allowed at that dump.
mq_checks()
{
	local -a rows r n q
	local i ta=0 s2 d2 base=-1 k j c bound d1 checked=0 b0=-1 seen=
	local lo hi own_lo own_hi
	local iv=$((INTERVAL_NS / 1000))

	mapfile -t rows < <(mq_rows "$1")
	for ((i = 0; i < ${#rows[@]}; i++)); do
		read -r -a r <<<"${rows[i]}"
		if [ "$ta" -eq 0 ]; then
			[ "${r[0]}" -le "$2" ] ||
				seen="$seen $(((r[0] - $2) / 1000)):${r[3]}"
			if [ "${r[0]}" -le "$2" ] || [ "${r[3]}" != 0 ]; then
				continue
			fi
			ta=${r[1]} s2=${r[4]} d2=${r[5]}
			[ "$3" != log ] ||
				log_info "queue 2 drained: delay $d2 ns, rate ${r[6]} bit/s, $(((ta - $2) / 1000)) ms after its load stopped (ms:qlen of the reads:$seen)"
			continue
		fi
		if [ "$base" -lt 0 ]; then
			[ "${r[0]}" -gt $((ta + (STALE_INTERVALS + 1) * iv)) ] &&
				base=${r[7]} b0=$i
			continue
		fi
		if [ "${r[7]}" -lt $((base + 3)) ] || [ $((i + 1)) -ge ${#rows[@]} ]; then
			continue
		fi
		read -r -a n <<<"${rows[i + 1]}"
		checked=$((checked + 1))
		[ "$3" = log ] || continue
		d1=$((r[8] > n[8] ? r[8] : n[8]))
		k=$(((r[1] - ta) / iv - 1))
		bound=$d2
		for ((j = 0; j < k; j++)); do
			bound=$((bound - (bound >> MQ_SHIFT)))
		done
		bound=$(((d1 + bound + k + 2) / 2 + MQ_Q1_MARGIN))
		lo=${n[11]} hi=${n[11]}
		for ((j = b0; j <= i; j++)); do
			read -r -a q <<<"${rows[j]}"
			[ "${q[11]}" -ge "$lo" ] || lo=${q[11]}
			[ "${q[11]}" -le "$hi" ] || hi=${q[11]}
		done
		lo=$((lo - lo / 64)) hi=$((hi + hi / 63 + 1))
		own_lo=$(band_of "$hi" 0)
		own_hi=$(band_of "$lo" 0)
		c=$(band_of $((n[6] + lo)) 0)
		[ "$checked" -gt 1 ] || MQ_COUNTED=$c MQ_OWN=$own_lo
		log_info "dump $checked, $k+ intervals after queue 2 drained: band ${r[9]} (queue 1's own: $own_lo..$own_hi, its rate $lo..$hi bit/s), delay ${r[10]} ns (at most $bound); queue 1's delay ${r[8]}, ${n[8]} ns; queue 2's ${n[5]} ns, ${n[6]} bit/s, band $c counted"
		[ "${r[4]}" -eq "$s2" ] && [ "${n[4]}" -eq "$s2" ] &&
			[ "${r[3]}" -eq 0 ] && [ "${n[3]}" -eq 0 ]
		check_err $? "queue 2 closed a window after it drained, or holds packets: not quiet"
		[ "${r[9]}" -ge "$own_lo" ] && [ "${r[9]}" -le "$own_hi" ]
		check_err $? "dump $checked: the device's band is ${r[9]} with queue 2 quiet and queue 1 publishing, not queue 1's own ($own_lo..$own_hi)"
		[ "${r[10]}" -le "$bound" ]
		check_err $? "dump $checked: the device's delay ${r[10]} ns is above its queues' own, queue 2's decayed: $bound ns"
	done
	MQ_CHECKED=$checked
	[ "$3" != log ] || [ "$ta" -ne 0 ] ||
		log_info "queue 2 never read empty in ${#rows[@]} polls"
}

mq_enough()
{
	mq_checks "$1" "$2"
	[ "$MQ_CHECKED" -ge "$MQ_CHECKS" ]
}

# Rate-weight 100: the band is the utilisation's alone. Queue 1's delay,
# which is noise here, moves on a loaded host by milliseconds, past the
# 1 ms of the delay's full scale: its band could be anything. Queue 2's
# rate, read decayed, is what tells a quiet queue left out from one kept
# in the sums, while it is an eighth of the bandwidth or more (band 6 at
# best). The bandwidth is an eighth of the tbf's rate, so that queue 2
# fills it whatever a loaded host's late timers cost the tbf (up to half
# its rate, seen) and, at ewma-shift 6, its rate read decayed stays above
# an eighth of it for 10 s and more (from the bandwidth: 132 intervals),
# however slow the polls that follow its drain (6.6 s for the first,
# seen); its rate reaches the bandwidth in 2 s or more. Queue 1's trickle
# is band 7 with a margin of 2.6.
mq_quiet_queue_leaves()
{
	local q1 q2 load stop

	RET=0
	MQ_COUNTED=
	MQ_OWN=
	[ -n "$TMPD" ] || TMPD=$(mktemp -d)
	mq_topo
	check_err $? "topology"
	if [ "$RET" -ne 0 ]; then
		log_test "mq: a quiet queue leaves its device's band, its delay decays out"
		return
	fi
	# Queue 1: a trickle, 10 packets of 74 bytes (on the wire) a second,
	# 5% of the device's bandwidth. Queue 2: twice its tbf's rate, a
	# standing queue of up to 131 ms (16 kB at 1 Mbit/s). A sender slowed
	# by a loaded host builds it later, not never: within 20 s.
	ip netns exec "$(ns r1)" "$UDPGEN" send -d 10.9.3.1 -n 0 -T 300 \
		-s 32 -g 100ms -S 21000 >/dev/null &
	MQ_PID=$!
	load=$(udpgen_gap 2000000 1442 4)
	ip netns exec "$(ns r1)" "$UDPGEN" send -d 10.9.4.1 -n 0 -T 300 \
		-s 1400 -b 4 -g "${load}ns" -S 22000 >/dev/null &
	LOAD_PID=$!
	sleep 3
	wait_until 20 mq_busy
	check_err $? "queue 2 not loaded in 20 s: its qlen, samples, delay, rate $MQ_Q2 (delay $MQ_STANDING ns, rate $MQ_BUSY_BPS bit/s wanted); the device's band, delay $MQ_BUSY"
	q1=$(qdisc_sent 10:)
	q2=$(qdisc_sent 20:)
	log_info "both queues busy: band, delay $MQ_BUSY; queue 2's qlen, samples, delay, rate $MQ_Q2; sent by queue 1 $q1, queue 2 $q2 bytes"
	# The filters did their work: each queue carries its own traffic.
	[ "${q2:-0}" -gt $((${q1:-0} * 5)) ] && [ "${q1:-0}" -gt 0 ]
	check_err $? "queue 2 sent $q2 bytes, queue 1 $q1: the filters did not split the traffic"
	if [ "$RET" -eq 0 ]; then
		mq_poll_start "$TMPD/mq"
		kill "$LOAD_PID"
		wait "$LOAD_PID" 2>/dev/null
		LOAD_PID=
		stop=$(time_us)
		# What queue 1 carried, should its rate read more than a trickle's.
		log_info "queue 2's load stopped: queue 1 sent $(qdisc_sent 10:) bytes in $(qdisc_sent 10: packets) packets, queue 2 $(qdisc_sent 20:) bytes"
		wait_until 20 mq_enough "$TMPD/mq" "$stop"
		check_err $? "fewer than $MQ_CHECKS dumps in 20 s with queue 2 quiet and queue 1 published since"
		touch "$TMPD/stop"
		wait "$POLL_PID"
		POLL_PID=
		mq_checks "$TMPD/mq" "$stop" log
		# What the run tells apart: a device that kept queue 2 in its sums
		# would have published band MQ_COUNTED or lower, below queue 1's.
		[ "${MQ_COUNTED:-7}" -lt "${MQ_OWN:-0}" ]
		check_err $? "queue 2's and queue 1's figures at the first dump were those of band ${MQ_COUNTED:-?}, queue 1's alone ${MQ_OWN:-?}: this run cannot tell a quiet queue left out from one kept in"
	fi
	log_test "mq: a quiet queue leaves its device's band, its delay decays out"
	kill "$MQ_PID" "$LOAD_PID" 2>/dev/null
	wait "$MQ_PID" "$LOAD_PID" 2>/dev/null
	MQ_PID=
	LOAD_PID=
}

require_root
require_cmd jq tc awk "$ARSCTL" "$UDPGEN"
require_tc_plugin
trap cleanup EXIT
ars_load || exit 1
tests_run
exit "$EXIT_STATUS"
