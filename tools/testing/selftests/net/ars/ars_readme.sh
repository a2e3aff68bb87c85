#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The operator's first hour: the "Use" block of README.md run as written,
# on a router r with the devices and gateways it names, multi-queue as a
# router's NICs are (4 transmit queues each: the block's ars-mq-setup puts
# mq at their root, an ars qdisc per queue and fq_codel under each), and
# then what an operator reads there with tc and arsctl.
#
#   +-------------+      +-------------------+      +------------------+
#   | h1          |      | r                 |      | r2               |
#   |  eth0       +------+ eth0 10.0.0.254   |      |                  |
#   |  10.0.0.1   |      | eth1 10.0.1.1/24  +------+ eth1 10.0.1.2/24 |
#   |             |      | eth2 10.0.2.1/24  +------+ eth2 10.0.2.2/24 |
#   +-------------+      | (4 tx queues each)|      | 10.1.0.0/16      |
#                        +-------------------+      |                  |
#                                                   |   blackhole      |
#                                                   +------------------+
#
# h1 sends UDP flows (ars-udpgen) to 10.1.9.1, which r routes over both
# next hops of the README's route and r2 drops silently. Until the README
# block runs, r has the kernel's defaults (hash policy 0, ars off).

ALL_TESTS="
	readme_use_spreads_flows
	rate_same_in_tc_and_arsctl
	rate_decays_when_quiet
	bandwidth_follows_the_qdisc
	class_shows_the_child
	show_summarises_state
	routes_and_filters
	cli_messages_in_the_kernel
	monitor_stamps_and_moves
"
source "$(dirname "$0")/lib.sh"

NOT_ON_DEBUG=(
	[rate_same_in_tc_and_arsctl]="a rate within 20% of what the link carried"
	[rate_decays_when_quiet]="a rate that decays to 0 within a second"
)

README=$ARS_TOP/README.md
DST=10.1.9.1
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
TMPD=
MON_PID=
SEND_PID=
R_PIN=
R2_PIN=

cleanup()
{
	local p

	for p in $MON_PID $SEND_PID $R_PIN $R2_PIN; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ns_destroy_all
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

# r as a fresh router: forwarding, and nothing of what the README sets.
router_create()
{
	ip netns add "$(ns r)" || return 1
	ip netns exec "$(ns r)" sh -c '
		ip link set lo up
		echo 1 >/proc/sys/net/ipv4/ip_forward
		echo 0 >/proc/sys/net/ipv6/conf/all/accept_dad
		echo 0 >/proc/sys/net/ipv6/conf/default/accept_dad'
}

setup_prepare()
{
	TMPD=$(mktemp -d) || exit 1
	# The README's commands find arsctl and ars-mq-setup, and tc its
	# plugin, as installed.
	mkdir "$TMPD/bin" && ln -s "$ARSCTL" "$TMPD/bin/arsctl" &&
		ln -s "$ARS_TOP/packaging/ars-mq-setup" "$TMPD/bin/ars-mq-setup" ||
		exit 1
	ns_create h1 r2 || exit 1
	router_create || exit 1
	veth_link h1 eth0 r eth0 || exit 1
	mq_link eth1 || exit 1
	mq_link eth2 || exit 1
	{
		echo "addr add 10.0.0.1/24 dev eth0"
		echo "route add default via 10.0.0.254"
	} | ip -n "$(ns h1)" -batch - || exit 1
	{
		echo "addr add 10.0.0.254/24 dev eth0"
		echo "addr add 10.0.1.1/24 dev eth1"
		echo "addr add 10.0.2.1/24 dev eth2"
	} | ip -n "$(ns r)" -batch - || exit 1
	{
		echo "addr add 10.0.1.2/24 dev eth1"
		echo "addr add 10.0.2.2/24 dev eth2"
		echo "route add blackhole 10.1.0.0/16"
	} | ip -n "$(ns r2)" -batch - || exit 1
	pin_ns r
	R_PIN=$NS_PIN_PID
}

# mq_link DEV: a veth DEV of 4 transmit and receive queues between r and
# r2, both ends up.
mq_link()
{
	ip link add "$1" netns "$(ns r)" numtxqueues 4 numrxqueues 4 \
		type veth peer name "$1" netns "$(ns r2)" \
		numtxqueues 4 numrxqueues 4 || return 1
	ip -n "$(ns r)" link set "$1" up && ip -n "$(ns r2)" link set "$1" up
}

# ars_change DEV OPTIONS...: tc qdisc change every ars qdisc of DEV in r.
ars_change()
{
	local dev=$1

	shift
	in_r tc -j qdisc show dev "$dev" |
		jq -r '.[] | select(.kind == "ars") |
			"\(.parent // "root") \(.handle)"' |
		while read -r parent handle; do
			[ "$parent" = root ] || parent="parent $parent"
			echo "qdisc change dev $dev $parent handle $handle ars $*"
		done | in_r tc -b -
}

# tree DEV: "KIND PARENT-KIND" of DEV's qdiscs in r, sorted and counted.
tree()
{
	in_r tc -j qdisc show dev "$1" | jq -r '
		(map({(.handle): .kind}) | add) as $k |
		.[] | "\(.kind) under \(if .parent then
			$k[.parent | sub(":[0-9a-f]*$"; ":")] // "?" else "root" end)"' |
		sort | uniq -c | awk '{ $1 = $1; print }' | paste -sd ,
}

# in_r CMD...: CMD in r as an operator runs it, with arsctl and tc's
# plugin where make install puts them.
in_r()
{
	ip netns exec "$(ns r)" env PATH="$TMPD/bin:$PATH" \
		TC_LIB_DIR="$ARS_TC_LIB_DIR" "$@"
}

# readme_block: the lines of README.md's "Use" code block.
readme_block()
{
	awk '/^## Use/ { use = 1; next }
	     /^## / { use = 0 }
	     use && /^```/ { if (inside) exit; inside = 1; next }
	     use && inside' "$README"
}

# send SECONDS [udpgen options]: 64 flows from h1 to $DST, 1400 bytes of
# payload, a round every 2 ms unless the options say otherwise.
send()
{
	in_ns h1 "$UDPGEN" send -d "$DST" -f 64 -n 0 -T "$1s" -g 2ms -s 1400 \
		"${@:2}" >"$TMPD/send.json"
}

# send_start SECONDS [udpgen options]: send, in the background; its pid
# (the sender's own, so that it can be stopped) in SEND_PID.
send_start()
{
	ip netns exec "$(ns h1)" "$UDPGEN" send -d "$DST" -f 64 -n 0 \
		-T "$1s" -g 2ms -s 1400 "${@:2}" >"$TMPD/send.json" &
	SEND_PID=$!
}

send_stop()
{
	kill "$SEND_PID" 2>/dev/null
	wait "$SEND_PID" 2>/dev/null
	SEND_PID=
}

# tx_bytes DEV, tx_packets DEV: r's counters of DEV, without an exec.
tx_bytes()
{
	proc_dev_tx "$R_PIN" "$1" | awk '{ print $2 }'
}

tx_packets()
{
	proc_dev_tx "$R_PIN" "$1" | awk '{ print $3 }'
}

# tc_rate DEV: the rate of DEV's ars qdiscs, bit/s, as tc -s -j shows
# them: under mq, the sum over its queues.
tc_rate()
{
	in_r tc -s -j qdisc show dev "$1" |
		jq '[.[] | select(.kind == "ars") | .ars.rate_bits_per_s] | add'
}

# path DEV JQ: jq -r over DEV's arsctl -j ports object in r.
path()
{
	in_r arsctl -j ports dev "$1" | jq -r ".[0] | $2"
}

# 1. The block, line by line, then traffic: both next hops carry it.
readme_use_spreads_flows()
{
	local line n=0 p1 p2 e1 e2 total dev
	local -a lines

	RET=0
	mapfile -t lines < <(readme_block)
	check_eq "${lines[0]%% *} ${lines[1]}" "make modprobe ars" \
		"the block's first lines (build, load)"
	for line in "${lines[@]:2}"; do
		in_r sh -c "$line" >"$TMPD/out" 2>&1
		check_err $? "README line '$line': $(head -c 300 "$TMPD/out")"
		n=$((n + 1))
	done
	[ "$n" -ge 5 ]
	check_err $? "only $n README lines after modprobe"
	check_eq "$(in_r arsctl -j show profile | jq -c '[.state, .mode]')" \
		'[true,"flowlet-quality"]' "profile after the README block"
	for dev in eth1 eth2; do
		check_eq "$(tree $dev)" \
			"4 ars under mq,4 fq_codel under ars,1 mq under root" \
			"$dev's qdiscs after the README block"
	done

	e1=$(tx_packets eth1)
	e2=$(tx_packets eth2)
	send 4
	check_err $? "traffic from h1: $(cat "$TMPD/send.json")"
	p1=$(($(tx_packets eth1) - e1))
	p2=$(($(tx_packets eth2) - e2))
	total=$((p1 + p2))
	log_info "eth1 $p1 packets, eth2 $p2 packets"
	[ "$total" -gt 500 ] && [ $((p1 * 4)) -ge "$total" ] &&
		[ $((p2 * 4)) -ge "$total" ]
	check_err $? "flows on both next hops: eth1 $p1, eth2 $p2 packets (each >= 25%)"
	check_eq "$(in_r arsctl -j flows |
		jq -r '[.[].ifname] | unique | join(" ")')" "eth1 eth2" \
		"devices of the macro-flow entries"
	check_eq "$(in_r arsctl -j stats | jq .unknown_quality)" 0 \
		"choices that met a device without an ars qdisc"
	for dev in eth1 eth2; do
		check_eq "$(in_r tc -s -j qdisc show dev $dev | jq '[.[] |
			select(.kind == "fq_codel" and .packets > 0)] | length > 0')" \
			true "$dev: fq_codel under ars carried the traffic"
	done
	log_test "README Use block as written: flows spread over eth1 and eth2, fq_codel under ars"
}

# pair DEV: "TC ARSCTL", DEV's rate in bit/s as tc and arsctl show it,
# read at the same time.
pair()
{
	in_r sh -c '
		tc -s -j qdisc show dev "$1" >"$2/tc.json" &
		arsctl -j ports dev "$1" >"$2/paths.json" &
		wait
		echo "$(jq "[.[] | select(.kind == \"ars\") | .ars.rate_bits_per_s] | add" "$2/tc.json") $(jq ".[0].rate_bits_per_s" "$2/paths.json")"
	' sh "$1" "$TMPD"
}

# 2. Under load, tc and arsctl show one figure, and it is the rate the
# port carried. At the defaults a reading averages 800 us, which under TCG
# holds a few packets: two readings a fraction of a second apart differ by
# tens of percent whatever the code. With 1 s intervals a figure holds for
# a second: tc and arsctl read within the same one must show the very
# same rate. Both come from the same ars_est_read(), so the figure is
# checked against a count of its own: the bytes that the veth's peer in
# r2 received (its rx_bytes, the L2 frame as ars counts it), read every
# second, averaged as ars averages (ewma-shift 2: each second a quarter
# of the new rate, the last 7 seconds), three readings a port. Measured
# (rate_ratio_spread in the log), with another VM running beside: 0.989
# to 1.029 of it on 6.12; 0.875 to 1.016 on 6.1, 0.875 once, in a second
# when tc's and arsctl's readings a second apart differed by 10%. So
# RATE_TOL_PCT is 20%, above the worst seen by 60%; ars's figure scaled
# by 1.3 (a mutant of ars_est.c) failed 5 of its 6 readings at 25%. The flows' packets, 1 ms apart, each start a
# flowlet: flowlet-quality would send every one for a whole interval to
# the port that looked best at its last close, and move the load between
# the ports faster than an average of 4 s follows. flowlet-random keeps
# each port's share steady, and the rate is what is measured here, not
# the choice.
RATE_TOL_PCT=${RATE_TOL_PCT:-20}

# ewma_bps: "TIME_US BYTES" samples, one a line, to bit/s averaged as ars
# does at ewma-shift 2 (the first interval's rate the start).
ewma_bps()
{
	awk 'NR > 1 && $1 > t {
		r = ($2 - b) * 8 * 1000000 / ($1 - t)
		e = (n++ ? e + (r - e) / 4 : r)
	     }
	     { t = $1; b = $2 }
	     END { printf "%d\n", e }'
}

rate_same_in_tc_and_arsctl()
{
	local dev i seen ref ratio n
	local ratios=
	local -a rate hist

	RET=0
	in_r arsctl set ewma-shift 2 mode flowlet-random
	check_err $? "ewma-shift 2 mode flowlet-random"
	for dev in eth1 eth2; do
		ars_change $dev interval 1s
		check_err $? "interval 1s on $dev"
	done
	pin_ns r2
	R2_PIN=$NS_PIN_PID
	# 8 flows, a packet each every 2 ms: 4000 packets/s, a fifth of
	# what r forwards under TCG, so that the rate is the sender's, not
	# what the emulated CPU leaves from one second to the next.
	send_start 300 -f 8 -g 2ms
	sleep 8
	for dev in eth1 eth2; do
		n=0
		hist=()
		for i in $(seq 1 30); do
			hist+=("$(proc_dev_rx "$R2_PIN" $dev)")
			if [ "$i" -ge 8 ] && [ $((i % 2)) -eq 0 ]; then
				read -r -a rate <<<"$(pair $dev)"
				if [ "${rate[0]}" = "${rate[1]}" ] &&
				   [ "${rate[0]}" != 0 ]; then
					seen=${rate[0]}
					ref=$(printf '%s\n' "${hist[@]: -8}" | ewma_bps)
					ratio=$(awk -v s="$seen" -v r="$ref" \
						'BEGIN { printf "%.3f", (r > 0 ? s / r : 0) }')
					ratios="$ratios $ratio"
					log_info "$dev: tc and arsctl $seen bit/s; r2 received $ref bit/s (the same average); ratio $ratio"
					awk -v x="$ratio" -v p="$RATE_TOL_PCT" \
						'BEGIN { exit !(x >= 1 - p / 100 && x <= 1 + p / 100) }'
					check_err $? "$dev: rate $seen bit/s, r2 received $ref bit/s: not within $RATE_TOL_PCT%"
					n=$((n + 1))
					[ "$n" -lt 3 ] || break
				else
					log_info "$dev: tc ${rate[0]}, arsctl ${rate[1]} bit/s"
				fi
			fi
			sleep 1
		done
		[ "$n" -eq 3 ]
		check_err $? "$dev: tc and arsctl showed the same rate $n times of 3"
	done
	log_info "rate_ratio_spread:$ratios"
	send_stop
	kill "$R2_PIN" 2>/dev/null
	wait "$R2_PIN" 2>/dev/null
	R2_PIN=
	in_r arsctl set mode flowlet-quality
	check_err $? "mode flowlet-quality again"
	log_test "under load, tc and arsctl show the same rate, the one r2 received"
}

# 3. At the defaults again, a second after the traffic stops: 0 in both.
# (0 exactly: at ewma-shift 3, (7/8)^n is below 2^-32 after 167 intervals
# of 100 us.)
rate_decays_when_quiet()
{
	local dev out

	RET=0
	in_r arsctl set ewma-shift 3
	for dev in eth1 eth2; do
		ars_change $dev interval 0
		check_err $? "interval 0 on $dev"
	done
	# A few readings at the defaults under load, for the log only.
	send_start 120 -g 500us
	sleep 2
	for dev in eth1 eth2 eth1 eth2; do
		log_info "$dev at the defaults under load: tc, arsctl $(pair $dev) bit/s"
	done
	send_stop
	sleep 1
	for dev in eth1 eth2; do
		out="$(tc_rate $dev) $(path $dev .rate_bits_per_s) $(path $dev .backlog_bytes)"
		check_eq "$out" "0 0 0" "$dev a second after the traffic: tc rate, arsctl rate and backlog"
	done
	check_eq "$(in_r tc -s -j qdisc show dev eth1 |
		jq '[.[] | select(.kind == "ars") | .ars.samples > 0] | any')" true \
		"eth1 closed intervals"
	log_test "a quiet port reads 0 in tc and arsctl after a second"
}

# bw DEV: "TC ARSCTL QDISC", the bandwidth each shows and arsctl's flag.
bw()
{
	echo "$(in_r tc -s -j qdisc show dev "$1" |
		jq '[.[] | select(.kind == "ars") | .ars.bandwidth_bits_per_s] | .[0]') $(path "$1" '"\(.bandwidth_bits_per_s) \(.qdisc)"')"
}

# 4. The device's entry follows the qdisc's option, and forgets it.
bandwidth_follows_the_qdisc()
{
	RET=0
	check_eq "$(bw eth1)" "100000000000 100000000000 true" "as the README adds it"
	ars_change eth1 bandwidth 25%
	check_err $? "change bandwidth 25%"
	check_eq "$(bw eth1)" "2500000000 2500000000 true" "bandwidth 25% of veth's 10gbit"
	ars_change eth1 bandwidth 0
	check_err $? "change bandwidth 0"
	check_eq "$(bw eth1)" "10000000000 10000000000 true" "bandwidth 0: the link speed"
	ars_change eth1 bandwidth 25%
	in_r tc qdisc del dev eth1 root
	check_err $? "delete"
	check_eq "$(bw eth1)" "null 10000000000 false" "after tc qdisc del"
	in_r ars-mq-setup eth1 bandwidth 100gbit
	check_err $? "add again"
	log_test "the device's bandwidth follows tc qdisc change and del"
}

# 5. tc -s class show: class 1:1 carries its child's counters.
class_shows_the_child()
{
	local out

	RET=0
	send 1
	out=$(in_r tc -s class show dev eth1)
	log_info "$(tr '\n' '|' <<<"$out")"
	grep -Eq '^ Sent [1-9][0-9]* bytes [1-9][0-9]* pkt' <<<"$out"
	check_err $? "no counters under class 1:1: $out"
	! grep -q '^$' <<<"$out"
	check_err $? "an empty line: $out"
	log_test "tc -s class show: class 1:1 shows its child's traffic"
}

# 6. show: steering, the route's devices without an ars qdisc, counters.
show_summarises_state()
{
	local j out

	RET=0
	j=$(in_r arsctl -j show)
	check_eq "$(jq -c '[.steering.ipv4, .multipath_routes, .devices,
		.devices_without_qdisc, .counters.packets > 0]' <<<"$j")" \
		'[true,1,["eth1","eth2"],[],true]' "show -j with both qdiscs: $j"
	in_r tc qdisc del dev eth2 root
	out=$(in_r arsctl show)
	grep -q '^no-ars-qdisc  *eth2 ' <<<"$out"
	check_err $? "show without eth2's qdisc: $out"
	in_r sysctl -qw net.ipv4.fib_multipath_hash_policy=0
	j=$(in_r arsctl -j show)
	check_eq "$(jq -c '[.profile.state, .steering.ipv4, .steering.ipv6,
		.steering.why]' <<<"$j")" \
		'[true,false,true,"net.ipv4.fib_multipath_hash_policy is 0, not 1"]' \
		"show -j after the sysctl changed"
	out=$(in_r arsctl show)
	grep -q '^steering  *ipv6 only: net.ipv4.fib_multipath_hash_policy is 0, not 1' <<<"$out"
	check_err $? "show after the sysctl changed: $out"
	in_r sysctl -qw net.ipv4.fib_multipath_hash_policy=1
	in_r ars-mq-setup eth2 bandwidth 100gbit
	check_err $? "eth2's qdisc back"
	log_test "show: on but not steering, a device without a qdisc, counters"
}

# 7. routes: the README's route, next hop by next hop; dev filters.
routes_and_filters()
{
	local out

	RET=0
	check_eq "$(in_r arsctl -j routes | jq -c '[.[] | .dst, .steered,
		[.nexthops[] | "\(.gateway) \(.ifname) \(.weight) \(.qdisc)"]]')" \
		'["10.1.0.0/16",true,["10.0.1.2 eth1 1 true","10.0.2.2 eth2 1 true"]]' \
		"routes -j"
	out=$(in_r arsctl routes)
	grep -q $'^\tnexthop via 10.0.2.2 dev eth2 weight 1 band [0-7]$' <<<"$out"
	check_err $? "routes: $out"
	check_eq "$(in_r arsctl -j routes dev eth0 | jq length)" 0 "routes dev eth0"
	check_eq "$(in_r arsctl -j ports dev eth2 | jq -r '[.[].ifname] | join(" ")')" \
		eth2 "paths dev eth2"
	check_eq "$(in_r arsctl -j fl dev eth1 | jq -r '[.[].ifname] | unique | join(" ")')" \
		eth1 "flows dev eth1"
	out=$(in_r arsctl ports dev eth9 2>&1)
	check_eq "$? $out" '1 arsctl: ports: device "eth9" does not exist' \
		"ports dev eth9"
	# paths, ports' old name, is the same command (the figures that do
	# not move between two readings).
	local keys='[.[] | {ifindex, ifname, qdisc, bandwidth_bits_per_s}]'
	check_eq "$(in_r arsctl -j paths dev eth2 | jq -c "$keys")" \
		"$(in_r arsctl -j ports dev eth2 | jq -c "$keys")" \
		"paths dev eth2 is ports dev eth2"
	out=$(in_r arsctl ports)
	check_none "$(awk 'length > 80' <<<"$out")" "$out" \
		"paths lines within 80 columns"
	check_eq "$(in_r arsctl -j ports | jq '[.[] | select(.ifname == "eth0")][0] | has("util_permille")')" \
		true "util of a device with a link speed"
	log_test "routes and the dev filters of ports, flows and routes"
}

# 8. What the kernel refuses, said as the README's reader needs it.
cli_messages_in_the_kernel()
{
	local c out

	RET=0
	while IFS=: read -r c what; do
		# shellcheck disable=SC2086 # words
		out=$(ip netns exec "$(ns r)" "${NOBODY[@]}" "$ARSCTL" $c 2>&1)
		check_eq "$? $out" "1 arsctl: ${c% idle-time*}: Operation not permitted ($what needs CAP_NET_ADMIN)" \
			"nobody: arsctl $c"
	done <<-EOF
		set idle-time 1ms:changing the profile
		stats reset:resetting the counters
		flows:listing the macro-flow entries
	EOF
	in_r sysctl -qw net.ipv4.fib_multipath_hash_policy=0
	in_r arsctl set state off
	out=$(in_r arsctl set state on 2>&1)
	check_eq "$? $out" \
		"1 arsctl: steering needs net.ipv4.fib_multipath_hash_policy=1" \
		"state on with hash policy 0 (no \"ars: \" twice)"
	in_r sysctl -qw net.ipv4.fib_multipath_hash_policy=1
	in_r arsctl set State On Mode Flowlet-Quality idle-time 256US
	check_err $? "keywords, modes and units in any case"
	out=$(in_r arsctl set table-size 100 2>&1)
	check_eq "$? $out" \
		"1 arsctl: table-size must be a power of two from 64 to 1048576" \
		"table-size 100"
	log_test "EPERM names the command and CAP_NET_ADMIN; kernel messages once prefixed"
}

# 9. monitor -t stamps its lines, moves keeps the flows that change device.
# Two listeners may not see quite the same events (each joins when it
# can, the kernel samples under churn): each is checked on its own.
monitor_stamps_and_moves()
{
	local bad

	RET=0
	ip netns exec "$(ns r)" "$ARSCTL" -t monitor moves >"$TMPD/mon.txt" \
		2>"$TMPD/mon.err" &
	MON_PID=$!
	ip netns exec "$(ns r)" "$ARSCTL" -j monitor >"$TMPD/mon.json" \
		2>"$TMPD/mon.json.err" &
	MON_PID="$MON_PID $!"
	sleep 2
	send 4 -g 1ms
	# shellcheck disable=SC2086 # two pids
	kill -TERM $MON_PID 2>/dev/null
	# shellcheck disable=SC2086
	wait $MON_PID 2>/dev/null
	MON_PID=
	log_info "monitor moves: $(wc -l <"$TMPD/mon.txt") lines; monitor -j: $(wc -l <"$TMPD/mon.json") lines, $(jq -s 'map(select(.old_ifindex != 0 and .old_ifindex != .new_ifindex)) | length' "$TMPD/mon.json") moves"
	[ -s "$TMPD/mon.txt" ] && [ -s "$TMPD/mon.json" ]
	check_err $? "no events: $(cat "$TMPD/mon.err" "$TMPD/mon.json.err")"
	bad=$(grep -Ev '^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}\.[0-9]{6} flow [0-9]+ inet (eth1 -> eth2|eth2 -> eth1) reason (idle|failover)$' \
		"$TMPD/mon.txt" | head -3)
	check_none "$bad" "$(cat "$TMPD/mon.txt")" \
		"monitor -t moves: every line a stamped move"
	check_eq "$(jq -s 'map(.time_us | type == "number" and . > 1.6e15) | all' \
		"$TMPD/mon.json")" true "monitor -j lines carry time_us"
	check_eq "$(jq -s 'any(.old_ifindex == .new_ifindex or .old_ifindex == 0)' \
		"$TMPD/mon.json")" true "monitor -j: assignments that are no move, which moves leaves out"
	log_test "monitor -t stamps lines; moves keeps real moves"
}

require_root
require_cmd jq tc setpriv "$ARSCTL" "$UDPGEN"
require_tc_plugin
ars_loaded || ars_load || { echo "not ok 1 - ars.ko does not load"; exit 1; }

trap cleanup EXIT
setup_prepare
tests_run
exit $EXIT_STATUS
