#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ars on a leaf whose ECMP route comes from FRR: bgpd learns 10.1.0.0/16
# from four spines over eBGP and zebra installs it in the kernel over a
# nexthop group of four; ars steers it through an object bound by prefix.
# One spine's session goes down under traffic and comes back: once the
# route has lost its next hop, nothing is sent towards it; once it has it
# again, the path carries traffic again. zebra installs each set of next
# hops as a group of its own, so the route's nhid changes under the churn:
# the prefix binding steers it throughout (an nhid binding would not).
#
#   +--------+      +--------------------+ up1  10.0.1.0/24  +------+
#   | h1     +------+ leaf  AS 65001     +-------------------+ s1   |
#   | 10.0.0.1      | zebra + bgpd       +-- up2 ... up4 ----+ s2.. |
#   +--------+      | mq + ars + fq_codel|   10.0.N.0/24     | s4   |
#                   +--------------------+                   +------+
#
# Each spine (AS 65100) runs bgpd alone (-Z, no zebra: it only announces
# 10.1.0.0/16) and drops the traffic by a blackhole route. The leaf's
# uplinks have two transmit queues each, with ars-mq-setup's qdiscs, and
# an egress flower filter counting the test's UDP packets. Timers: keepalive
# 1 s, hold 3 s, connect retry 1 s. Every daemon is started here, in its
# namespace, with its configuration, pid file, vty socket and log in a
# directory of its own (under /run: in the test VM /tmp is the host's,
# over 9p, where a daemon cannot bind its vty socket); a spine's session goes down by killing its bgpd
# (the kernel closes its TCP connection) and comes back by starting it.

ALL_TESTS="
	frr_installs_ecmp
	ars_steers_frr_route
	withdrawn_path_unused
	restored_path_used_again
	prefix_binding_survives_renumbering
"
source "$(dirname "$0")/lib.sh"

FRR=${ARS_FRR_DIR:-/usr/lib/frr}
MQ_SETUP=$ARS_TOP/packaging/ars-mq-setup
PREFIX=10.1.0.0/16
DST=10.1.9.1
SPINES="1 2 3 4"
TMPD=
FRRD=
SEND_PID=
declare -A NHID		# the route's nhid in each phase
declare -A BOUND	# the prefix binding's flowlets at each phase's end

cleanup()
{
	local f

	if [ -n "$SEND_PID" ]; then
		kill "$SEND_PID" 2>/dev/null
		wait "$SEND_PID" 2>/dev/null
	fi
	if [ -n "$FRRD" ]; then
		for f in "$FRRD"/*/*.pid; do
			[ -r "$f" ] && kill "$(cat "$f")" 2>/dev/null
		done
		sleep 0.5
		for f in "$FRRD"/*/*.pid; do
			[ -r "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
		done
		rm -rf "$FRRD"
	fi
	ns_destroy_all
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

# setup_fail WHAT: the setup failed; say what, with the daemons' logs.
setup_fail()
{
	local f

	echo "# setup: $1"
	for f in "$FRRD"/*/*.out "$FRRD"/*/*.log; do
		[ -s "$f" ] && tail -n 5 "$f" | sed "s|^|# ${f#"$FRRD"/}: |"
	done
	exit 1
}

# in_leaf CMD...: CMD in the leaf, with tc's plugin and the helpers.
in_leaf()
{
	ip netns exec "$(ns leaf)" env PATH="$TMPD/bin:$PATH" \
		TC_LIB_DIR="$ARS_TC_LIB_DIR" "$@"
}

# frr_start NODE DAEMON [OPTIONS...]: DAEMON in NODE's namespace, with
# NODE's directory for its files; waits for its pid file. bgpd runs as
# root (-S: no change of user); zebra as Debian runs it, as frr (it
# refuses a user outside the frrvty group), which owns NODE's directory.
frr_start()
{
	local d=$FRRD/$1

	rm -f "$d/$2.pid"
	ip netns exec "$(ns "$1")" "$FRR/$2" -d \
		-f "$d/$2.conf" -i "$d/$2.pid" --vty_socket "$d" \
		-z "$d/zserv.api" -A 127.0.0.1 --log "file:$d/$2.log" \
		"${@:3}" >>"$d/$2.out" 2>&1 || return 1
	wait_until 30 test -s "$d/$2.pid"
}

# spine_conf N: spine N's bgpd.conf.
spine_conf()
{
	cat <<-EOF
	hostname s$1
	router bgp 65100
	 bgp router-id 10.255.1.$1
	 no bgp ebgp-requires-policy
	 no bgp network import-check
	 no bgp default ipv4-unicast
	 bgp graceful-restart-disable
	 timers bgp 1 3
	 neighbor 10.0.$1.1 remote-as 65001
	 neighbor 10.0.$1.1 timers connect 1
	 neighbor 10.0.$1.1 disable-connected-check
	 address-family ipv4 unicast
	  neighbor 10.0.$1.1 activate
	  network $PREFIX
	 exit-address-family
	EOF
}

leaf_conf()
{
	local i

	echo "hostname leaf"
	echo "router bgp 65001"
	echo " bgp router-id 10.255.0.1"
	echo " no bgp ebgp-requires-policy"
	echo " no bgp default ipv4-unicast"
	echo " bgp graceful-restart-disable"
	echo " timers bgp 1 3"
	for i in $SPINES; do
		echo " neighbor 10.0.$i.2 remote-as 65100"
		echo " neighbor 10.0.$i.2 timers connect 1"
	done
	echo " address-family ipv4 unicast"
	for i in $SPINES; do
		echo "  neighbor 10.0.$i.2 activate"
	done
	echo "  maximum-paths 4"
	echo " exit-address-family"
}

setup_prepare()
{
	local i

	TMPD=$(mktemp -d) || exit 1
	FRRD=$(mktemp -d -p /run ars-frr.XXXXXX 2>/dev/null || mktemp -d) ||
		exit 1
	chmod 755 "$FRRD"
	mkdir "$TMPD/bin" "$FRRD/leaf" || exit 1
	ln -s "$ARSCTL" "$TMPD/bin/arsctl" || exit 1
	ln -s "$MQ_SETUP" "$TMPD/bin/ars-mq-setup" || exit 1
	ns_create h1 leaf || exit 1
	veth_link h1 eth0 leaf eth0 || exit 1
	printf '%s\n' "addr add 10.0.0.1/24 dev eth0" \
		"route add default via 10.0.0.254" |
		ip -n "$(ns h1)" -batch - || exit 1
	ip -n "$(ns leaf)" addr add 10.0.0.254/24 dev eth0 || exit 1
	for i in $SPINES; do
		mkdir "$FRRD/s$i" || exit 1
		ns_create "s$i" || exit 1
		ip link add "up$i" netns "$(ns leaf)" numtxqueues 2 \
			numrxqueues 2 type veth peer name eth0 \
			netns "$(ns "s$i")" || exit 1
		printf '%s\n' "addr add 10.0.$i.1/24 dev up$i" \
			"link set up$i up" | ip -n "$(ns leaf)" -batch - || exit 1
		printf '%s\n' "addr add 10.0.$i.2/24 dev eth0" \
			"link set eth0 up" "route add blackhole $PREFIX" |
			ip -n "$(ns "s$i")" -batch - || exit 1
		in_leaf ars-mq-setup "up$i" bandwidth 10gbit || exit 1
		printf '%s\n' "qdisc add dev up$i clsact" \
			"filter add dev up$i egress protocol ip pref 1 flower ip_proto udp dst_ip $PREFIX action pass" |
			in_leaf tc -b - || exit 1
		spine_conf "$i" >"$FRRD/s$i/bgpd.conf"
		frr_start "s$i" bgpd -Z -S -u root -g root ||
			setup_fail "s$i's bgpd"

	done
	: >"$FRRD/leaf/zebra.conf"
	leaf_conf >"$FRRD/leaf/bgpd.conf"
	chown -R frr:frr "$FRRD/leaf" || setup_fail "no user frr"
	frr_start leaf zebra || setup_fail "the leaf's zebra"
	frr_start leaf bgpd -S -u root -g root || setup_fail "the leaf's bgpd"
	# ars: the profile leaves what no binding selects to the kernel;
	# the fabric's prefix goes to an object of its own.
	printf '%s\n' "set state on mode ecmp" \
		"object add fabric mode flowlet-random idle-time 256us" \
		"bind add prefix $PREFIX object fabric" |
		ip netns exec "$(ns leaf)" "$ARSCTL" -b - || exit 1
}

# route_nhid: the nhid of the leaf's route to $PREFIX, empty without one.
route_nhid()
{
	ip -n "$(ns leaf)" -j route show "$PREFIX" | jq -r '.[0].nhid // empty'
}

# route_line: the leaf's route to $PREFIX, on one line.
route_line()
{
	ip -n "$(ns leaf)" route show "$PREFIX" | tr -s '\n\t ' ' '
}

# route_gws: the route's gateways, sorted, through its nexthop group.
route_gws()
{
	local id

	id=$(route_nhid)
	[ -n "$id" ] || return 1
	ip -n "$(ns leaf)" -j nexthop show id "$id" |
		jq -r '.[0].group[].id' | while read -r id; do
			ip -n "$(ns leaf)" -j nexthop show id "$id" |
				jq -r '.[0].gateway'
		done | sort | tr '\n' ' '
}

# gws_are "GW ...": the route's gateways are these.
gws_are()
{
	[ "$(route_gws)" = "$1" ]
}

gws()
{
	local i

	for i in "$@"; do
		printf '10.0.%s.2 ' "$i"
	done
}

# udp_sent: "N1 N2 N3 N4", the test's UDP packets sent by up1..up4.
udp_sent()
{
	local i

	for i in $SPINES; do
		in_leaf tc -s -j filter show dev "up$i" egress |
			jq '[.[] | .options.actions[]?.stats.packets] | add // 0'
	done | tr '\n' ' '
}

# bound_flowlets: the flowlets started through the prefix binding.
bound_flowlets()
{
	ip netns exec "$(ns leaf)" "$ARSCTL" -s -j bind show |
		jq --arg p "$PREFIX" '.[] | select(.prefix == $p) | .counters.flowlets'
}

# phase SECONDS: the packets each uplink sent in SECONDS, in DELTA[1..4],
# and their total in TOTAL.
declare -a DELTA
TOTAL=0
phase()
{
	local -a a b
	local i

	read -r -a a <<<"$(udp_sent)"
	sleep "$1"
	read -r -a b <<<"$(udp_sent)"
	TOTAL=0
	for i in 0 1 2 3; do
		DELTA[i + 1]=$((b[i] - a[i]))
		TOTAL=$((TOTAL + b[i] - a[i]))
	done
	log_info "up1..up4 sent ${DELTA[*]} packets in $1 s"
}

# 1. bgpd's four paths, installed by zebra as one nexthop group.
frr_installs_ecmp()
{
	RET=0
	wait_until 90 gws_are "$(gws 1 2 3 4)"
	check_err $? "the route's gateways: '$(route_gws)' ($(route_line))"
	NHID[up]=$(route_nhid)
	log_info "$(route_line), nhid ${NHID[up]}"
	check_eq "$(ip netns exec "$(ns leaf)" "$ARSCTL" -j routes |
		jq -c --arg p "$PREFIX" '.[] | select(.dst == $p) |
		[.steered, ([.nexthops[].ifname] | sort)]')" \
		'[true,["up1","up2","up3","up4"]]' "arsctl routes: steered, over up1..up4"
	log_test "FRR installs a 4-way ECMP route over a nexthop group"
}

# 2. Traffic: the bound object spreads it over the four uplinks.
ars_steers_frr_route()
{
	local i b0

	RET=0
	ip netns exec "$(ns h1)" "$UDPGEN" send -d "$DST" -f 32 -n 0 -T 300s \
		-g 10ms -s 200 >/dev/null &
	SEND_PID=$!
	sleep 2
	b0=$(bound_flowlets)
	phase 3
	for i in $SPINES; do
		[ $((DELTA[i] * 8)) -ge "$TOTAL" ]
		check_err $? "up$i sent ${DELTA[i]} of $TOTAL packets (at least 1/8 wanted)"
	done
	[ "$TOTAL" -gt 200 ]
	check_err $? "only $TOTAL packets in 3 s"
	BOUND[up]=$(bound_flowlets)
	[ "${BOUND[up]:-0}" -gt "${b0:-0}" ]
	check_err $? "flowlets through the prefix binding: $b0 then ${BOUND[up]}"
	check_eq "$(ip netns exec "$(ns leaf)" "$ARSCTL" -j flows |
		jq -r '[.[] | select(.object == "fabric") | .ifname] | unique | join(" ")')" \
		"up1 up2 up3 up4" "devices of object fabric's entries"
	log_test "ars steers the FRR route by prefix over all four uplinks"
}

# 3. s4's bgpd dies: once the leaf's route has lost 10.0.4.2 (hold time,
# or the TCP close at once), up4 sends none of the traffic.
withdrawn_path_unused()
{
	local i

	RET=0
	kill -9 "$(cat "$FRRD/s4/bgpd.pid")"
	check_err $? "kill s4's bgpd"
	wait_until 30 gws_are "$(gws 1 2 3)"
	check_err $? "the route after s4 went: '$(route_gws)'"
	NHID[down]=$(route_nhid)
	log_info "$(route_line), nhid ${NHID[down]}"
	# Packets already past the route lookup drain first.
	sleep 0.5
	phase 3
	check_eq "${DELTA[4]}" 0 "packets to up4 after the withdrawal"
	for i in 1 2 3; do
		[ $((DELTA[i] * 6)) -ge "$TOTAL" ]
		check_err $? "up$i sent ${DELTA[i]} of $TOTAL packets"
	done
	[ "$TOTAL" -gt 200 ]
	check_err $? "only $TOTAL packets in 3 s"
	BOUND[down]=$(bound_flowlets)
	[ "${BOUND[down]:-0}" -gt "${BOUND[up]:-0}" ]
	check_err $? "flowlets through the prefix binding: ${BOUND[up]} then ${BOUND[down]}"
	log_test "after the session goes down, nothing is sent to the withdrawn path"
}

# 4. s4's bgpd again: the route regains 10.0.4.2 and up4 its share.
restored_path_used_again()
{
	local i

	RET=0
	frr_start s4 bgpd -Z -S -u root -g root
	check_err $? "s4's bgpd back"
	wait_until 60 gws_are "$(gws 1 2 3 4)"
	check_err $? "the route after s4 came back: '$(route_gws)'"
	NHID[back]=$(route_nhid)
	log_info "$(route_line), nhid ${NHID[back]}"
	phase 3
	for i in $SPINES; do
		[ $((DELTA[i] * 8)) -ge "$TOTAL" ]
		check_err $? "up$i sent ${DELTA[i]} of $TOTAL packets (at least 1/8 wanted)"
	done
	BOUND[back]=$(bound_flowlets)
	[ "${BOUND[back]:-0}" -gt "${BOUND[down]:-0}" ]
	check_err $? "flowlets through the prefix binding: ${BOUND[down]} then ${BOUND[back]}"
	log_test "once the session is back, the path carries traffic again"
}

# 5. zebra gave the route another nexthop group when its paths changed;
# the binding, by prefix, steered it in every phase and is still there.
prefix_binding_survives_renumbering()
{
	RET=0
	log_info "nhid: ${NHID[up]} with 4 paths, ${NHID[down]} with 3, ${NHID[back]} with 4 again"
	[ -n "${NHID[up]}" ] && [ -n "${NHID[down]}" ] &&
		[ "${NHID[up]}" != "${NHID[down]}" ]
	check_err $? "zebra kept nhid ${NHID[up]} for 3 paths: no renumbering to survive"
	log_info "flowlets through the binding: ${BOUND[up]}, ${BOUND[down]}, ${BOUND[back]}"
	[ "${BOUND[up]:-0}" -lt "${BOUND[down]:-0}" ] &&
		[ "${BOUND[down]:-0}" -lt "${BOUND[back]:-0}" ]
	check_err $? "the binding did not steer in every phase"
	check_eq "$(ip netns exec "$(ns leaf)" "$ARSCTL" -j bind show |
		jq -c '[.[] | [.prefix, .object]]')" \
		"[[\"$PREFIX\",\"fabric\"]]" "the bindings"
	check_eq "$(ip netns exec "$(ns leaf)" "$ARSCTL" -j stats |
		jq .unknown_quality)" 0 "choices that met a device without an ars qdisc"
	log_test "the prefix binding steers through zebra's renumbered groups"
}

require_root
require_cmd jq tc "$ARSCTL" "$UDPGEN" "$FRR/zebra" "$FRR/bgpd"
require_tc_plugin
ars_loaded || ars_load || { echo "SKIP: ars.ko not loaded"; exit $ksft_skip; }

trap cleanup EXIT
setup_prepare
tests_run
exit $EXIT_STATUS
