#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ars qdisc under tc: add, change, replace and delete; children
# grafted below it; one per transmit queue under mq; its JSON; options
# refused; tc without the plugin; namespace deletion and rmmod with the
# qdisc attached; a qdisc that outlives its device.
#
#   +---------------------+          +---------------------+
#   | a                   |          | b                   |
#   |  v0 10.0.0.1/24     +----------+ v1 10.0.0.2/24      |
#   |  m0 10.0.1.1/24     +----------+ m1 10.0.1.2/24      |
#   |     4 tx queues     |          |    4 tx queues      |
#   |  10.9.0.0/24 via v1 |          |  10.9.0.0/16        |
#   |  10.9.1.0/24 via m1 |          |    blackhole        |
#   +---------------------+          +---------------------+
#
# Test traffic is ars-udpgen from a to 10.9.0.x (out of v0) or 10.9.1.x
# (out of m0); b drops it silently. Neighbours are static and IPv6 is off,
# so nothing else leaves v0 and m0, and a qdisc's packet count is the
# test's.
#
# tc finds the ars plugin (q_ars.so) in $ARS_TC_LIB_DIR, tc-ext/ by
# default.

ALL_TESTS="
	qdisc_add_delete
	qdisc_measured_at_once
	qdisc_change_replace
	qdisc_signal_v3
	qdisc_graft_tbf
	qdisc_graft_fq_codel
	qdisc_graft_netem
	qdisc_graft_choke
	qdisc_child_delete
	qdisc_json_fields
	qdisc_under_mq
	qdisc_bad_options
	qdisc_kernel_refuses
	qdisc_without_plugin
	qdisc_netns_delete
	qdisc_outlives_device
	qdisc_rmmod
"
source "$(dirname "$0")/lib.sh"

NOT_ON_DEBUG=(
	[qdisc_graft_tbf]="the delay that ars reads off a full tbf"
	[qdisc_graft_netem]="the delay that ars reads through netem, within bounds"
	[qdisc_json_fields]="a rate above 0 while 20 packets are recent"
	[qdisc_signal_v3]="a band read within 4 s of its publication"
	[qdisc_graft_choke]="the delay that ars reads off a shaped choke"
)

TMPD=
CASE=

cleanup()
{
	ns_destroy_all
	ars_load
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

ns_no_ipv6()
{
	in_ns "$1" sh -c '
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		sysctl -qw net.ipv6.conf.default.disable_ipv6=1'
}

# link_pair DEV_A ADDR_A DEV_B ADDR_B [veth options]
link_pair()
{
	local mac

	ip link add "$1" "${@:5}" netns "$(ns a)" type veth \
		peer name "$3" "${@:5}" netns "$(ns b)" || return 1
	ip -n "$(ns a)" addr add "$2/24" dev "$1"
	ip -n "$(ns b)" addr add "$4/24" dev "$3"
	ip -n "$(ns a)" link set "$1" up
	ip -n "$(ns b)" link set "$3" up
	mac=$(ip -n "$(ns b)" -j link show dev "$3" | jq -r '.[0].address')
	ip -n "$(ns a)" neigh replace "$4" lladdr "$mac" dev "$1" nud permanent
}

topo_create()
{
	ns_create a b || return 1
	ns_no_ipv6 a
	ns_no_ipv6 b
	link_pair v0 10.0.0.1 v1 10.0.0.2 || return 1
	link_pair m0 10.0.1.1 m1 10.0.1.2 numtxqueues 4 numrxqueues 4 ||
		return 1
	ip -n "$(ns a)" route add 10.9.0.0/24 via 10.0.0.2
	ip -n "$(ns a)" route add 10.9.1.0/24 via 10.0.1.2
	ip -n "$(ns b)" route add blackhole 10.9.0.0/16
}

# send DST PACKETS [udpgen options]: PACKETS per flow of 1400 bytes of UDP
# payload (1442 on the wire), 2 ms apart unless the options say otherwise.
send()
{
	in_ns a "$UDPGEN" send -d "$1" -n "$2" -s 1400 -g 2ms "${@:3}" \
		>/dev/null
}

# send_reading DST PACKETS [udpgen options]: send as send does, reading
# the ars qdisc of v0 meanwhile: $READING is, of the readings taken while
# the sender still ran (once the queue drains, its delay decays to 0) and
# after an interval ended, the one of most delay. A reading takes about a
# second on a loaded host: the senders run for seconds.
send_reading()
{
	local pid r

	in_ns a "$UDPGEN" send -d "$1" -n "$2" -s 1400 -g 2ms "${@:3}" \
		>/dev/null &
	pid=$!
	READING=
	while kill -0 "$pid" 2>/dev/null; do
		r=$(ars_qdisc_stats a v0)
		kill -0 "$pid" 2>/dev/null || break
		# The reading of most delay, of those after an interval ended.
		if [ "$(jq --argjson o "${READING:-null}" '.samples > 0 and
			($o == null or .delay_ns >= $o.delay_ns)' <<<"$r")" = true ]; then
			READING=$r
		fi
	done
	wait "$pid"
}

# qd DEV JQ_FILTER: jq -r over tc -s -j qdisc show dev DEV in a.
qd()
{
	tc_ars a -s -j qdisc show dev "$1" | jq -r "$2"
}

ARS_Q='.[] | select(.kind == "ars")'

# path_get DEV JQ_FILTER: jq -r over DEV's arsctl -j ports object in a.
path_get()
{
	arsctl_ns a -j ports | jq -r --arg d "$1" \
		".[] | select(.ifname == \$d) | $2"
}

ars_count()
{
	qd "$1" "[$ARS_Q] | length"
}

qdisc_add_delete()
{
	local out

	RET=0
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit \
		interval 10ms
	check_err $? "tc qdisc add ... ars bandwidth 20mbit interval 10ms"
	out=$(qd v0 "$ARS_Q"' | "\(.handle) \(.root) \(.options.bandwidth_bits_per_s) \(.options.interval_ns)"')
	check_eq "$out" "1: true 20000000 10000000" \
		"handle, root, options (bit/s, ns)"

	# Class 1:1 holds the default child, a fifo tc shows as invisible.
	# (tc 6.1 prints classes as text even with -j.)
	out=$(tc_ars a class show dev v0)
	[[ $out == "class ars 1:1 parent 1: "* && $out != *leaf* ]]
	check_err $? "the ars qdisc's one class, default child: '$out'"
	out=$(tc_ars a -j qdisc show dev v0 invisible |
		jq -r '.[] | select(.parent == "1:1") | .kind')
	check_eq "$out" pfifo "default child of 1:1"

	send 10.9.0.1 10
	check_err $? "traffic through the qdisc"
	out=$(qd v0 "$ARS_Q"' | "\(.packets) \(.ars.samples > 0)"')
	check_eq "$out" "10 true" "packets through ars, samples taken"
	out=$(path_get v0 '"\(.qdisc) \(.bandwidth_bits_per_s)"')
	check_eq "$out" "true 20000000" "arsctl ports: qdisc, bandwidth"

	tc_ars a qdisc del dev v0 root
	check_err $? "tc qdisc del"
	check_eq "$(ars_count v0)" 0 "ars qdiscs after delete"
	check_eq "$(path_get v0 .qdisc)" false "arsctl ports qdisc after delete"
	send 10.9.0.1 3
	check_err $? "traffic after delete"
	log_test "add with options, show class and child, delete"
}

# ARS_A_PORT_INFO_QDISC is "1 when an ars qdisc measures the device": from
# the moment it is attached, not from its first packet, or an idle new
# path ranks as unknown (band 4) below idle measured ones (band 7) and
# flowlet-quality never tries it.
qdisc_measured_at_once()
{
	local out

	RET=0
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit
	check_err $? "tc qdisc add"
	out=$(path_get v0 '"\(.qdisc) \(.band) \(.bandwidth_bits_per_s)"')
	check_eq "$out" "true 7 20000000" \
		"arsctl ports qdisc, band, bandwidth before any packet"
	tc_ars a qdisc del dev v0 root
	log_test "a new ars qdisc measures its device before the first packet"
}

qdisc_change_replace()
{
	local out

	RET=0
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit \
		interval 10ms
	check_err $? "add"

	# change sends only the options given: the other one stays.
	tc_ars a qdisc change dev v0 root ars bandwidth 30mbit
	check_err $? "change bandwidth"
	out=$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.options.interval_ns)"')
	check_eq "$out" "30000000 10000000" "after change bandwidth 30mbit"
	tc_ars a qdisc change dev v0 root ars interval 20ms
	check_err $? "change interval"
	out=$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.options.interval_ns)"')
	check_eq "$out" "30000000 20000000" "after change interval 20ms"

	# bandwidth 0: the link speed again (veth claims 10 Gbit/s).
	tc_ars a qdisc change dev v0 root ars bandwidth 0 interval 0
	check_err $? "change bandwidth 0 interval 0"
	out=$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.options.interval_ns) \(.ars.bandwidth_bits_per_s)"')
	check_eq "$out" "null null 10000000000" "options back to defaults"

	# replace of an ars by an ars changes it in place.
	tc_ars a qdisc replace dev v0 root handle 1: ars bandwidth 40mbit
	check_err $? "replace ars by ars"
	out=$(qd v0 "$ARS_Q"' | "\(.handle) \(.options.bandwidth_bits_per_s)"')
	check_eq "$out" "1: 40000000" "after replace"
	send 10.9.0.1 5
	check_eq "$(path_get v0 '"\(.qdisc) \(.bandwidth_bits_per_s)"')" "true 40000000" \
		"arsctl ports after replace and traffic"

	# replace by another kind drops the measurement; and back.
	tc_ars a qdisc replace dev v0 root handle 2: pfifo
	check_err $? "replace ars by pfifo"
	check_eq "$(ars_count v0)" 0 "ars qdiscs after replace by pfifo"
	check_eq "$(path_get v0 .qdisc)" false "arsctl ports qdisc, pfifo root"
	tc_ars a qdisc replace dev v0 root handle 1: ars bandwidth 20mbit
	check_err $? "replace pfifo by ars"
	send 10.9.0.1 5
	out=$(qd v0 "$ARS_Q"' | "\(.packets) \(.options.bandwidth_bits_per_s)"')
	check_eq "$out" "5 20000000" "ars again: packets, bandwidth"
	check_eq "$(path_get v0 .qdisc)" true "arsctl ports qdisc, ars again"
	tc_ars a qdisc del dev v0 root
	check_err $? "delete"
	log_test "change sends only the options given, replace in place and by another kind"
}

# signal v3: the port publishes the band of the signal v3. On a line of
# 8 bit/s, 5 packets (7 KB) fill either signal for seconds: v2's rate
# over the 1 s interval (util 1000) reads band 0 at rate-weight 100,
# whatever the guest's sojourns; v3's byte average over tau (1 s, 1 byte
# of the line) reads its past term full, half the load with the default
# weights, which is band 1 (its delay and backlog are against the 17
# days that 1000 packets of 1500 bytes take at 8 bit/s). Each
# figure is published at the first enqueue after the interval, and read
# at once, before it is stale (4 intervals).
qdisc_signal_v3()
{
	local out

	RET=0
	arsctl_ns a set rate-weight 100
	check_err $? "rate-weight 100"
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 8bit \
		interval 1s signal v3 tau 1s
	check_err $? "add signal v3 tau 1s"
	out=$(qd v0 "$ARS_Q"' | "\(.options.signal) \(.options.tau_ns)"')
	check_eq "$out" "v3 1000000000" "options signal, tau"
	send 10.9.0.1 5 -g 1ms
	sleep 1.1
	send 10.9.0.1 1
	check_eq "$(qd v0 "$ARS_Q | .ars.band")" 1 "band published by v3"

	tc_ars a qdisc change dev v0 root ars signal v2
	check_err $? "change signal v2"
	out=$(qd v0 "$ARS_Q"' | "\(.options.signal) \(.options.tau_ns)"')
	check_eq "$out" "null null" "options after signal v2"
	sleep 1.1
	send 10.9.0.1 1
	check_eq "$(qd v0 "$ARS_Q | .ars.band")" 0 "band published by v2"
	tc_ars a qdisc del dev v0 root
	arsctl_ns a set rate-weight 50
	log_test "signal v3: the port publishes the band of the signal v3"
}

# graft_setup KIND OPTIONS...: ars root, KIND grafted as handle 10: under
# 1:1.
graft_setup()
{
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit \
		interval 10ms || return 1
	tc_ars a qdisc add dev v0 parent 1:1 handle 10: "$@" || return 1
	[ "$(qd v0 '.[] | select(.handle == "10:") | "\(.kind) \(.parent)"')" \
		= "$1 1:1" ] || return 1
	[[ $(tc_ars a class show dev v0) == "class ars 1:1 parent 1: leaf 10:"* ]]
}

# graft_failed WHAT: end a case whose setup failed, without waiting on
# traffic that cannot flow.
graft_failed()
{
	check_err 1 "$1"
	tc_ars a qdisc del dev v0 root 2>/dev/null
	log_test "$CASE"
}

v0_empty()
{
	[ "$(qd v0 "$ARS_Q | .qlen")" = 0 ]
}

# Once the child is empty, every packet that went into ars came out of
# ars and of the child: their packet counters agree, exactly.
graft_counts()
{
	local out

	wait_for v0_empty
	out=$(qd v0 '[.[] | select(.handle == "1:" or .handle == "10:") |
		.packets] | map(tostring) | join(" ")')
	check_eq "$out" "$1 $1" "packets of ars and of its child"
}

qdisc_graft_tbf()
{
	local st

	RET=0
	CASE="tbf grafted under 1:1: counts agree, its queue shows as delay"
	# 1 Mbit/s under a 23 Mbit/s offer: the queue fills, ars sees delay.
	if ! graft_setup tbf rate 1mbit burst 10k limit 30k; then
		graft_failed "graft tbf under 1:1"
		return
	fi
	# The sender waits on the full queue: it runs for 3.4 s at least.
	send_reading 10.9.0.1 300 -g 500us
	check_err $? "traffic through tbf"
	graft_counts 300
	st=$READING
	# 30k of queue at 1 Mbit/s is up to 240 ms: ars must see more than
	# the 1 ms that makes the delay score full.
	[ "$(jq '.delay_ns > 1000000' <<<"$st")" = true ]
	check_err $? "delay under a full tbf: $st"
	tc_ars a qdisc del dev v0 root
	check_err $? "delete root with tbf child"
	log_test "$CASE"
}

qdisc_graft_fq_codel()
{
	RET=0
	CASE="fq_codel grafted under 1:1: counts agree"
	if ! graft_setup fq_codel; then
		graft_failed "graft fq_codel under 1:1"
		return
	fi
	send 10.9.0.1 25 -f 4
	check_err $? "traffic through fq_codel"
	graft_counts 100
	check_eq "$(qd v0 '.[] | select(.handle == "10:") | .new_flow_count > 0')" \
		true "fq_codel saw flows"
	tc_ars a qdisc del dev v0 root
	check_err $? "delete root with fq_codel child"
	log_test "$CASE"
}

# netem_delays PID: poll the ars qdisc of v0 while the sender PID runs,
# 100 readings at most, 0.1 s apart, and print the delay (ns) of each
# reading once the average has converged: ars has dequeued 32 packets
# (at ewma-shift 3, (7/8)^32 is 1.4% of what the average started from).
# A reading after the sender ended does not count: the queue is empty
# and its delay decays.
netem_delays()
{
	local r pkts d i

	for ((i = 0; i < 100; i++)); do
		[ "$i" -eq 0 ] || sleep 0.1
		r=$(qd v0 "$ARS_Q"' | "\(.packets) \(.ars.delay_ns)"')
		kill -0 "$1" 2>/dev/null || return 0
		read -r pkts d <<<"$r"
		[[ -z $d || ${pkts:-0} -lt 32 ]] || echo "$d"
	done
}

qdisc_graft_netem()
{
	local pid ds n d

	RET=0
	CASE="netem grafted under 1:1: its delay is ars's delay"
	if ! graft_setup netem delay 5ms; then
		graft_failed "graft netem under 1:1"
		return
	fi
	# A packet every 2 ms, so that netem always holds some and every
	# 10 ms interval sees departures: no interval decays the average.
	# For 8 s: a reading takes over a second in a TCG guest.
	in_ns a "$UDPGEN" send -d 10.9.0.1 -n 4000 -s 1400 -g 2ms >/dev/null &
	pid=$!
	ds=$(netem_delays "$pid")
	wait "$pid"
	check_err $? "traffic through netem"
	graft_counts 4000
	n=$(wc -w <<<"$ds")
	d=$(sort -n <<<"$ds" | awk 'NF { v[++n] = $1 }
		END { print n ? v[int((n + 1) / 2)] : 0 }')
	log_info "netem delay 5ms: ars delay ${d} ns, the median of $n readings:" \
		"$(tr "\n" " " <<<"$ds")"
	# The median: one reading may fall in a gap of the sender's, or
	# on a timer that fired late.
	[ "$n" -ge 3 ]
	check_err $? "$n readings of the converged average while the sender ran, not 3"
	# Sojourn includes netem's 5 ms, and a packet never leaves earlier:
	# a timer that fires late adds to it (35 ms seen once on a busy
	# host), and once the queue moves again the estimator keeps netem's
	# hold. So the converged average is at least 5 ms less the first
	# packets' share and the rounding (4.5 ms); the upper bound only
	# rules out garbage.
	[ "$d" -ge 4500000 ] && [ "$d" -le 100000000 ]
	check_err $? "ars delay $d ns, not 4.5..100 ms"
	tc_ars a qdisc del dev v0 root
	check_err $? "delete root with netem child"
	log_test "$CASE"
}

# choke keeps a flow digest in the first 17 bytes of the qdisc cb's
# private area, written when it compares an arriving packet with a queued
# one: ars's timestamp must lie past them. A stamp that choke overwrote
# would read, in its low 40 bits, as the source's last byte and the
# destination (10.9.0.X): X is chosen so that it reads as a time 1 to 5 s
# ago, a sojourn of seconds that the estimator takes. (Any other X reads
# as a sojourn over 10 s, which it ignores, and which would hide the
# fault: the delay is then that of the packets choke never compared.)
# Eight flows, so that most comparisons do not match and the compared
# packets stay queued; 4.6 Mbit/s for 6 s into 2 Mbit/s, so that choke's
# queue stays above its minimum and readings are taken meanwhile. A 1 s
# interval, so that no head waits an interval: after such a stall the
# estimator caps sojourns (ars_est.h), which would hide the fault.
qdisc_graft_choke()
{
	local up x st out

	RET=0
	CASE="choke under tbf under 1:1: ars's delay is the queue's, choke still drops by flow"
	if ! tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 2mbit \
			interval 1s ||
	   ! tc_ars a qdisc add dev v0 parent 1:1 handle 10: tbf rate 2mbit \
			burst 3k limit 100k ||
	   ! tc_ars a qdisc add dev v0 parent 10:1 handle 20: choke limit 40 \
			bandwidth 2mbit min 4 max 30 avpkt 1442; then
		graft_failed "ars, tbf and choke"
		return
	fi
	# ktime_get_ns() is the uptime here (no suspend in the guest).
	up=$(awk '{ printf "%.0f", ($1 - 1) * 1000000000 }' /proc/uptime)
	x=$(((up >> 32) & 255))
	send_reading "10.9.0.$x" 300 -f 8 -g 20ms
	check_err $? "traffic through tbf and choke"
	wait_for v0_empty
	st=$READING
	out=$(qd v0 '.[] | select(.kind == "choke") | .matched // .xstats.matched')
	log_info "ars over choke, 10.9.0.$x: $st; choke matched $out"
	# 40 packets of 1442 bytes at 2 Mbit/s are 231 ms of queue, plus
	# tbf's 3k: a sojourn over 1 s is not the queue's.
	[ "$(jq '.delay_ns > 1000000 and .delay_ns < 1000000000' <<<"$st")" = true ]
	check_err $? "ars delay over choke, not 1 ms..1 s: $st"
	[ "${out:-0}" -gt 0 ]
	check_err $? "choke matched no packet of a flow: $out"
	tc_ars a qdisc del dev v0 root
	check_err $? "delete root with tbf and choke"
	log_test "$CASE"
}

# After its grafted child is deleted, class 1:1 holds the default fifo
# again (as an HTB class does), rather than a noop that drops everything.
qdisc_child_delete()
{
	local out

	RET=0
	CASE="deleting the grafted child leaves a working class 1:1"
	if ! graft_setup tbf rate 20mbit burst 32k limit 64k; then
		graft_failed "graft tbf"
		return
	fi
	tc_ars a qdisc del dev v0 parent 1:1 handle 10:
	check_err $? "delete the child"
	check_eq "$(ars_count v0)" 1 "ars qdisc after deleting its child"
	send 10.9.0.1 10
	out=$(qd v0 "$ARS_Q"' | "\(.packets) \(.drops)"')
	check_eq "$out" "10 0" "ars packets and drops after deleting its child"
	tc_ars a qdisc del dev v0 root
	log_test "$CASE"
}

qdisc_json_fields()
{
	local out

	RET=0
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit \
		interval 10ms
	check_err $? "add"
	send 10.9.0.1 20
	out=$(tc_ars a -s -j qdisc show dev v0)
	check_err $? "tc -s -j qdisc show"
	# Every documented key present, and a JSON number.
	check_eq "$(jq -r "$ARS_Q"' | [.ars.rate_bits_per_s, .ars.backlog_bytes, .ars.delay_ns,
		.ars.util_permille, .ars.band, .ars.bandwidth_bits_per_s, .ars.samples,
		.options.bandwidth_bits_per_s, .options.interval_ns] | map(type) | unique |
		join(",")' <<<"$out")" number "types of the ars keys"
	check_eq "$(jq -r "$ARS_Q"' | .ars | keys | join(",")' <<<"$out")" \
		"backlog_bytes,band,bandwidth_bits_per_s,delay_ns,rate_bits_per_s,samples,signal,signal_derived,tau_derived,tau_ns,util_permille" \
		"ars keys"
	check_eq "$(jq -r "$ARS_Q"' | .ars | (.band >= 0 and .band <= 7 and
		.util_permille <= 1000 and .samples > 0 and
		.rate_bits_per_s > 0 and .bandwidth_bits_per_s == 20000000 and
		.tau_ns == 16000 and .tau_derived == false and
		.signal == "v2" and .signal_derived == false)' \
		<<<"$out")" true "ranges: $out"
	# The text output carries the same figures.
	out=$(tc_ars a -s qdisc show dev v0)
	grep -Eq 'rate [0-9.]+[KMG]?bit backlog [0-9]+b delay [0-9.]+[mun]?s util [0-9.]+% band [0-7] bandwidth 20Mbit samples [0-9]+' <<<"$out"
	check_err $? "text statistics line: $out"
	grep -q 'bandwidth 20Mbit interval 10ms' <<<"$out"
	check_err $? "text options: $out"
	tc_ars a qdisc del dev v0 root
	log_test "tc -s -j: options and statistics present and numeric"
}

# One ars per transmit queue of m0; arsctl ports shows the device's
# entry, which sums the figures of the queues as tc shows them, computed
# alike at the moment of reading. Once the traffic is over, they change
# only when an interval ends (1 s here): the first end counts the last
# window's bytes (a rise), later ones decay. So an arsctl reading lies
# between the sums of two tc readings around it, and equals them when no
# interval ended in between.
qdisc_under_mq()
{
	local i out out2 sums sums2 path

	RET=0
	{
		echo "qdisc add dev m0 root handle 1: mq"
		for i in 1 2 3 4; do
			echo "qdisc add dev m0 parent 1:$i handle 1$i: ars bandwidth 20mbit interval 1s"
		done
	} | tc_ars a -batch -
	check_err $? "mq root, ars under each of its classes"
	check_eq "$(qd m0 "[$ARS_Q | .parent] | sort | join(\" \")")" \
		"1:1 1:2 1:3 1:4" "ars qdiscs under mq"
	# 32 flows (sockets) over 4 queues, for 2.4 s: each queue gets some
	# and closes a few intervals.
	send 10.9.1.1 80 -f 32 -g 30ms -S 20000
	check_err $? "traffic out of m0"
	# Past the interval in which the last packets left: before its end a
	# reading shows the averages without them, after it with them, so
	# only from then on do readings decay.
	sleep 1.1
	out=$(tc_ars a -s -j qdisc show dev m0)
	path=$(ars_path a m0)
	out2=$(tc_ars a -s -j qdisc show dev m0)
	check_eq "$(jq -r "[$ARS_Q | .packets] | add" <<<"$out")" 2560 \
		"packets over the 4 ars qdiscs"
	check_eq "$(jq -r "[$ARS_Q | select(.ars.rate_bits_per_s > 0)] | length" \
		<<<"$out")" 4 "queues with a measured rate: $out"
	sums=$(jq -r "[$ARS_Q | .ars] | \"\(map(.rate_bits_per_s) | add) \(map(.backlog_bytes) | add)\"" <<<"$out")
	sums2=$(jq -r "[$ARS_Q | .ars] | \"\(map(.rate_bits_per_s) | add) \(map(.backlog_bytes) | add)\"" <<<"$out2")
	check_eq "$(jq -r --arg a "$sums" --arg b "$sums2" '
		($a | split(" ") | map(tonumber)) as $x |
		($b | split(" ") | map(tonumber)) as $y |
		[.rate_bits_per_s, .backlog_bytes] as $p |
		def within($i): ([$x[$i], $y[$i]] | min) <= $p[$i] and
			$p[$i] <= ([$x[$i], $y[$i]] | max);
		.qdisc and within(0) and within(1) and
		($a != $b or $p == $x)' <<<"$path")" true \
		"arsctl ports m0 (rate backlog) $(jq -c '[.rate_bits_per_s, .backlog_bytes]' <<<"$path") between the queues' sums $sums and $sums2"
	log_info "m0: queues $(jq -c "[$ARS_Q | .ars.rate_bits_per_s]" <<<"$out") bit/s, paths $(jq -c .rate_bits_per_s <<<"$path") bit/s"

	# One queue back to the default: the device stays measured.
	tc_ars a qdisc del dev m0 parent 1:2 handle 12:
	check_err $? "delete the ars of queue 2"
	check_eq "$(ars_count m0)" 3 "ars qdiscs left"
	check_eq "$(path_get m0 .qdisc)" true "m0 measured by 3 queues"
	tc_ars a qdisc del dev m0 root
	check_err $? "delete mq root"
	check_eq "$(ars_count m0)" 0 "ars qdiscs after deleting mq"
	check_eq "$(path_get m0 .qdisc)" false "m0 measured after deleting mq"
	send 10.9.1.1 2 -f 4
	check_err $? "traffic after deleting mq"
	log_test "ars under mq, one per tx queue: the device entry sums them"
}

# bad_option CMD OPTIONS...: tc qdisc CMD ... ars OPTIONS must fail with
# a message.
bad_option()
{
	local cmd=$1 err rc

	shift
	err=$(tc_ars a qdisc "$cmd" dev v0 root handle 1: ars "$@" 2>&1 \
		>/dev/null)
	rc=$?
	[ "$rc" -ne 0 ] && [ -n "$err" ]
	check_err $? "tc qdisc $cmd ... ars $*: exit $rc, stderr '$err'"
}

qdisc_bad_options()
{
	local o

	RET=0
	for o in "interval 1ns" "interval 2s" "interval -1ms" "bandwidth foo" \
		 "bandwidth" "foo" "bandwidth 1mbit bandwidth 2mbit"; do
		# shellcheck disable=SC2086 # the options are words
		bad_option add $o
	done
	check_eq "$(ars_count v0)" 0 "ars qdiscs after refused adds"

	# A refused change leaves the options as they were.
	tc_ars a qdisc add dev v0 root handle 1: ars bandwidth 20mbit \
		interval 10ms
	check_err $? "add"
	for o in "interval 500ns" "bandwidth 1mbit extra"; do
		# shellcheck disable=SC2086
		bad_option change $o
	done
	check_eq "$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.options.interval_ns)"')" \
		"20000000 10000000" "options after refused changes"
	tc_ars a qdisc del dev v0 root
	log_test "bad options are refused with a message"
}

RTNL_RAW=$ARS_LIB_DIR/rtnl_raw.py

# kernel_refuses WANT_ERRNO WANT_MSG WANT_ATTR rtnl_raw.py-ARGS...: the
# kernel answers the raw request with errno WANT_ERRNO, an extack message
# that holds WANT_MSG and the attribute at fault WANT_ATTR (rtnl_raw.py's
# numbering: 2 TCA_OPTIONS, 1000 + N the option N).
kernel_refuses()
{
	local e=$1 m=$2 a=$3 out

	shift 3
	out=$(in_ns a python3 "$RTNL_RAW" "$@")
	check_err $? "rtnl_raw.py $*: failed"
	[ "$(jq -r .error <<<"$out")" = "$e" ] &&
		[[ $(jq -r .msg <<<"$out") == *"$m"* ]] &&
		[ "$(jq -r .attr <<<"$out")" = "$a" ]
	check_err $? "rtnl_raw.py $*: got $out, expected errno $e, '$m', attribute $a"
}

# TCA_OPTIONS that q_ars.so never sends, straight to the kernel: the
# qdisc's own checks (interval 1us to 1s) and its policy (strict parsing:
# u64 lengths, no unknown attribute nor the pad, NLA_F_NESTED where it
# belongs) must refuse them with EINVAL (22) and say why, on add and on
# change, and a refused change must leave the options as they were. (q_ars.so refuses
# the same mistakes before the kernel sees them: qdisc_bad_options.)
qdisc_kernel_refuses()
{
	local range="interval must be 1us to 1s" out

	RET=0
	kernel_refuses 22 "$range" 1002 add v0 2:u64:999
	kernel_refuses 22 "$range" 1002 add v0 2:u64:1000000001
	kernel_refuses 22 "invalid attribute length" 1001 add v0 1:u32:1000
	kernel_refuses 22 "invalid attribute length" 1002 add v0 2:raw:e803
	kernel_refuses 22 "Unknown attribute type" 1006 add v0 6:u64:1
	kernel_refuses 22 "signal must be v2 (0) or v3 (1)" 1004 add v0 4:u8:2
	kernel_refuses 22 "tau must be 1us to 1s" 1005 add v0 5:u64:999
	kernel_refuses 22 "tau must be 1us to 1s" 1005 add v0 5:u64:1000000001
	kernel_refuses 22 "Unsupported attribute" 1003 add v0 3:u64:0
	kernel_refuses 22 "NLA_F_NESTED not expected" 1002 add v0 0x8002:u64:1000000
	kernel_refuses 22 "NLA_F_NESTED is missing" 2 --flat add v0 2:u64:1000000
	check_eq "$(ars_count v0)" 0 "ars qdiscs after refused adds"

	# The same request within bounds is taken: the cases above fail on
	# their values, not on the way they are sent.
	out=$(in_ns a python3 "$RTNL_RAW" add v0 1:u64:20000000 2:u64:10000000)
	check_eq "$(jq -r .error <<<"$out")" 0 "a raw add within bounds: $out"
	kernel_refuses 22 "$range" 1002 change v0 2:u64:500
	kernel_refuses 22 "Unknown attribute type" 1006 change v0 6:u64:1
	kernel_refuses 22 "signal must be v2 (0) or v3 (1)" 1004 change v0 4:u8:255
	kernel_refuses 22 "tau must be 1us to 1s" 1005 change v0 5:u64:1
	check_eq "$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.options.interval_ns)"')" \
		"20000000 10000000" "options after refused raw changes"
	tc_ars a qdisc del dev v0 root
	log_test "the kernel refuses bad TCA_OPTIONS with EINVAL and says why"
}

# tc without q_ars.so knows no ars options but can add it bare. (Its
# JSON is broken then: tc 6.1 prints "[Unknown qdisc, optlen=24]" inside
# "options", so only the text output is checked.)
qdisc_without_plugin()
{
	local empty=$TMPD/empty out err

	RET=0
	mkdir -p "$empty"
	TC_LIB_DIR=$empty tc -n "$(ns a)" qdisc add dev v0 root handle 1: ars
	check_err $? "add without the plugin, no options"
	if err=$(TC_LIB_DIR=$empty tc -n "$(ns a)" qdisc add dev v0 root \
		handle 1: ars bandwidth 1mbit 2>&1 >/dev/null) || [ -z "$err" ]; then
		check_err 1 "an option without the plugin must be refused: '$err'"
	fi
	send 10.9.0.1 10
	out=$(TC_LIB_DIR=$empty tc -n "$(ns a)" -s qdisc show dev v0)
	[[ $out == *"qdisc ars 1: root"*"Sent 14420 bytes 10 pkt"* ]]
	check_err $? "text show without the plugin: $out"
	# With the plugin, the same qdisc has its defaults.
	check_eq "$(qd v0 "$ARS_Q"' | "\(.options.bandwidth_bits_per_s) \(.ars.bandwidth_bits_per_s) \(.packets)"')" \
		"null 10000000000 10" "bare qdisc seen with the plugin"
	TC_LIB_DIR=$empty tc -n "$(ns a)" qdisc del dev v0 root
	check_err $? "delete without the plugin"
	check_eq "$(ars_count v0)" 0 "ars qdiscs after delete"
	log_test "tc without q_ars.so adds, shows and deletes a bare ars"
}

x0_busy()
{
	[ "$(tc_ars c -s -j qdisc show dev x0 |
		jq "[$ARS_Q | .packets] | add")" -gt 100 ]
}

# Namespaces deleted with ars qdiscs on their devices, under traffic
# until the moment of deletion, free everything.
qdisc_netns_delete()
{
	local base i pid

	RET=0
	base=$(ars_objects)
	ns_create c d
	ip link add x0 netns "$(ns c)" numtxqueues 4 type veth \
		peer name x1 netns "$(ns d)" numtxqueues 4
	ip -n "$(ns c)" addr add 10.0.2.1/24 dev x0
	ip -n "$(ns c)" link set x0 up
	ip -n "$(ns d)" link set x1 up
	ip -n "$(ns c)" neigh replace 10.0.2.2 lladdr 02:00:00:00:00:02 \
		dev x0 nud permanent
	{
		echo "qdisc add dev x0 root handle 1: mq"
		for i in 1 2 3 4; do
			echo "qdisc add dev x0 parent 1:$i handle 1$i: ars bandwidth 1gbit"
		done
	} | tc_ars c -batch -
	check_err $? "mq and 4 ars on x0 in c"
	printf '%s\n' "qdisc add dev x1 root handle 1: ars" \
		"qdisc add dev x1 parent 1:1 netem delay 1ms" | tc_ars d -batch -
	check_err $? "ars and netem on x1 in d"
	in_ns c "$UDPGEN" send -d 10.0.2.2 -f 8 -n 0 -T 30 -g 2ms \
		>/dev/null 2>&1 &
	pid=$!
	[ "$RET" -ne 0 ] || wait_for x0_busy
	check_err $? "no traffic through the ars qdiscs in c"
	ip netns del "$(ns d)"
	check_err $? "delete namespace d"
	ip netns del "$(ns c)"
	check_err $? "delete namespace c under traffic"
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wait_for sh -c "[ \$(cat /sys/module/ars/parameters/objects) -eq $base ]"
	check_err $? "objects after deleting c and d: $(ars_objects), not $base"
	log_test "namespaces with ars qdiscs are deleted cleanly under traffic"
}

# The qdisc holds a reference to the module (Qdisc_ops.owner): rmmod is
# refused while one is attached, works once they are gone.
qdisc_rmmod()
{
	local i err

	RET=0
	{
		echo "qdisc add dev v0 root handle 1: ars bandwidth 20mbit"
		echo "qdisc add dev v0 parent 1:1 handle 10: tbf rate 20mbit burst 32k limit 64k"
		echo "qdisc add dev m0 root handle 1: mq"
		for i in 1 2 3 4; do
			echo "qdisc add dev m0 parent 1:$i ars"
		done
	} | tc_ars a -batch -
	check_err $? "ars and tbf on v0, mq and 4 ars on m0"
	check_eq "$(($(ars_count v0) + $(ars_count m0)))" 5 "ars qdiscs"
	send 10.9.0.1 5
	send 10.9.1.1 5 -f 4

	err=$(rmmod ars 2>&1)
	check_fail $? "rmmod with qdiscs attached succeeded"
	log_info "rmmod with qdiscs attached: $err"
	[[ $err == *"in use"* ]]
	check_err $? "rmmod's refusal does not say the module is in use: '$err'"
	ars_loaded
	check_err $? "module gone although rmmod failed"
	send 10.9.0.1 5
	check_err $? "traffic after the refused rmmod"
	check_eq "$(qd v0 "$ARS_Q | .packets")" 10 \
		"ars still counts after the refused rmmod"

	tc_ars a qdisc del dev v0 root
	tc_ars a qdisc del dev m0 root
	ars_unload
	check_err $? "rmmod after deleting the qdiscs"
	ars_loaded
	check_fail $? "module still loaded"
	ars_load
	check_err $? "insmod again"
	tc_ars a qdisc add dev v0 root handle 1: ars
	check_err $? "ars after insmod"
	tc_ars a qdisc del dev v0 root
	log_test "rmmod refused with qdiscs attached, works after deleting them"
}

# A qdisc outlives its device while someone holds a reference to it: tc
# filter add takes one without RTNL (__tcf_qdisc_find()) and drops it with
# qdisc_put_unlocked(), which destroys the qdisc when the device's
# unregistration, or its move to another namespace, dropped the others
# meanwhile: after the device's port left the table. The window holds no
# sleep (ars has no filter block: tc fails right there), so this only
# races for it: tc filter add in a loop while y0 comes and goes, deleted
# or moved, ARS_OUTLIVE_N times each (20; 1 on the debug kernel, where
# the case took 73 s with 2, and its lane has no room for more). A qdisc
# that outlived its port wrote to freed memory before the fix: the
# verdict is the kernel log's (KASAN on the debug kernel,
# ars_port_del()'s warning on the others), and the object count, back
# where it was.
qdisc_outlives_device()
{
	local base how i pid n=${ARS_OUTLIVE_N:-20}

	RET=0
	[ -n "${ARS_OUTLIVE_N:-}" ] || ! on_debug_kernel || n=1
	base=$(ars_objects)
	ns_create e f
	for how in del netns; do
		while :; do
			echo "filter add dev y0 parent 1: protocol ip prio 1 matchall"
		done | tc -n "$(ns e)" -force -batch - >/dev/null 2>&1 &
		pid=$!
		for ((i = 0; i < n; i++)); do
			ip -n "$(ns e)" link add y0 type dummy &&
				tc_ars e qdisc add dev y0 root handle 1: ars
			check_err $? "ars on y0 ($how, $i)"
			if [ "$how" = del ]; then
				ip -n "$(ns e)" link del y0
			else
				ip -n "$(ns e)" link set y0 netns "$(ns f)" &&
					ip -n "$(ns f)" link del y0
			fi
			check_err $? "y0 $how ($i)"
		done
		kill "$pid"
		wait "$pid" 2>/dev/null
	done
	ip netns del "$(ns e)"
	ip netns del "$(ns f)"
	wait_until 30 eval '[ "$(ars_objects)" -eq $base ]'
	check_err $? "objects: $(ars_objects), expected $base"
	log_test "qdiscs whose device goes while tc filter add holds them"
}

require_root
require_cmd jq tc python3 "$ARSCTL" "$UDPGEN" "$RTNL_RAW"
require_tc_plugin
trap cleanup EXIT
ars_load || exit 1
TMPD=$(mktemp -d)
topo_create || { echo "not ok - topology"; exit 1; }
tests_run
exit "$EXIT_STATUS"
