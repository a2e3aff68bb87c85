#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Primary and alternate paths of an ARS object: an alternate gets no new
# flowlet while the best primary's band is at or above the object's
# primary threshold, and competes once the primaries fall below it.
#
#   +-------------+     +-----------------------+     +------------------+
#   | h1          |     | r1 (ars)              |     | r2               |
#   |  eth0       +-----+ h1   p1 p2 (primary)  +=====+ p1 p2 p3         |
#   | 10.1.0.1/24 |     |      p3   (alternate) |     | blackholes       |
#   +-------------+     | ars 10mbit + tbf each |     | 10.3.1.0/24,     |
#                       +-----------------------+     | 10.9.{1,2}.0/24  |
#                                                     +------------------+
#
# The four-path topology of lib.sh (mp_topo_create). r1 routes
# 10.3.1.0/24 over p1, p2 and p3; the prefix is bound to object "fab"
# (flowlet-quality, primary threshold 6), whose alternate is the next hop
# via 10.2.3.2 (p3), later the device p3. h1 sends many short flowlets to
# 10.3.1.1 (a gap longer than the idle time between any two packets of a
# flow: every packet starts a flowlet), which r2 drops. Which path the
# flowlets took is the flowlets counter of each device (arsctl ports),
# which also has to add up to the binding's flowlets counter. r1 loads
# p1 and p2 at 150% of their rate with local traffic (which ars does not
# steer) to 10.9.1.1 and 10.9.2.1 for the loaded cases.

ALL_TESTS="
	alternates_bad_input
	idle_primaries_keep_flowlets
	loaded_primaries_push_to_alternate
	alternate_by_ipv6_gateway
	alternate_by_device
	alternate_cost_keeps_primaries
"
source "$(dirname "$0")/lib.sh"

TMPD=
LOAD_PIDS=
IDLE=10ms		# r1's idle-time
FLOWS=64		# test flows
FLOW_GAP=80ms		# each flow's gap: every packet is a new flowlet
PHASE=4			# s of test flows per measurement
THRESHOLD=6
LOAD_GAP=$(udpgen_gap 15000000 1442 4)	# 150% of 10 Mbit/s, bursts of 4
SHARE=0
declare -a D

cleanup()
{
	cleanup_mp $LOAD_PIDS
}

r1()
{
	arsctl_ns r1 "$@"
}

setup_prepare()
{
	local i

	mp_topo_create || return 1
	ip -n "$(ns r1)" route add 10.3.1.0/24 \
		nexthop via 10.2.1.2 dev p1 nexthop via 10.2.2.2 dev p2 \
		nexthop via 10.2.3.2 dev p3 || return 1
	ip -n "$(ns r1)" route add 10.9.1.0/24 via 10.2.1.2 dev p1 &&
	ip -n "$(ns r1)" route add 10.9.2.0/24 via 10.2.2.2 dev p2 || return 1
	for i in 10.3.1.0/24 10.9.1.0/24 10.9.2.0/24; do
		ip -n "$(ns r2)" route add blackhole $i || return 1
	done
	for i in 1 2 3; do
		echo "qdisc add dev p$i root handle 1: ars bandwidth 10mbit"
		echo "qdisc add dev p$i parent 1:1 handle 10: tbf rate 10mbit burst 16k limit 64k"
	done | tc_ars r1 -batch - || return 1
	r1 set state on mode flowlet-quality idle-time "$IDLE" \
		sampling-interval 100ms || return 1
	r1 object add fab mode flowlet-quality idle-time "$IDLE" \
		primary-threshold "$THRESHOLD" &&
	r1 object alternate add fab via 10.2.3.2 &&
	r1 bind add prefix 10.3.1.0/24 object fab || return 1
	# A packet out of each path: every port is measured from here on.
	in_ns r1 sh -c 'for i in 1 2 3; do
		ping -q -c 1 -W 1 10.2.$i.2 >/dev/null || exit 1; done'
}

# counters [PREFIX]: "P1 P2 P3 BIND BINDPKTS": the flowlets counters of
# p1..p3 and of the binding of PREFIX (default 10.3.1.0/24), and the
# binding's packets.
counters()
{
	local paths bind

	paths=$(r1 -j ports | jq -r '[.[] | select(.ifname | test("^p[1-3]$"))] |
		sort_by(.ifname) | map(.flowlets) | join(" ")')
	bind=$(r1 -j -s bind show | jq -r --arg p "${1:-10.3.1.0/24}" \
		'.[] | select(.prefix == $p) | .counters |
		"\(.flowlets) \(.packets)"')
	echo "$paths $bind"
}

# test_flows NAME [DST PREFIX]: PHASE s of FLOWS flows from h1 to DST
# (default 10.3.1.1, bound by PREFIX); D the deltas of counters, SHARE
# p3's share of the new flowlets, per mille.
test_flows()
{
	local before after total i
	local -a b a

	before=$(counters "${3:-}")
	in_ns h1 "$UDPGEN" send -d "${2:-10.3.1.1}" -f "$FLOWS" -n 0 \
		-T "$PHASE" -g "$FLOW_GAP" -S 30000 >/dev/null
	check_err $? "ars-udpgen send"
	after=$(counters "${3:-}")
	read -r -a b <<<"$before"
	read -r -a a <<<"$after"
	D=()
	for i in 0 1 2 3 4; do
		D[i]=$((a[i] - b[i]))
	done
	total=$((D[0] + D[1] + D[2]))
	SHARE=$((total ? D[2] * 1000 / total : -1))
	log_info "$1: new flowlets on p1 p2 p3: ${D[0]} ${D[1]} ${D[2]} (total $total, the binding's ${D[3]}), the alternate's share $SHARE per mille"
	log_info "$1: bands of p1 p2 p3 after: $(bands)"
	[ "$total" -ge $((FLOWS * 10)) ]
	check_err $? "too few flowlets: $total"
	[ "${D[3]}" -eq "$total" ]
	check_err $? "the binding counted ${D[3]} flowlets, the devices $total"
	# Every packet here starts a flowlet, and resolves its object.
	[ "${D[4]}" -ge "${D[3]}" ]
	check_err $? "the binding counted ${D[4]} packets for ${D[3]} flowlets"
}

bands()
{
	r1 -j ports | jq -r '[.[] | select(.ifname | test("^p[1-3]$"))] |
		sort_by(.ifname) | map(.band) | join(" ")'
}

# Both primaries below the threshold.
primaries_loaded()
{
	local -a b

	read -r -a b <<<"$(bands)"
	[ "${#b[@]}" -eq 3 ] && [ "${b[0]}" -lt "$THRESHOLD" ] &&
		[ "${b[1]}" -lt "$THRESHOLD" ]
}

# alternates_seven add|del: fab's alternates via 10.9.9.1 .. 10.9.9.7,
# with the one it has the 8 an object may have.
alternates_seven()
{
	local i

	for i in 1 2 3 4 5 6 7; do
		r1 object alternate "$1" fab via "10.9.9.$i" ||
			check_err 1 "object alternate $1 fab via 10.9.9.$i"
	done
}

alternates_bad_input()
{
	RET=0
	refused "object: no object of that name" \
		object alternate add nosuch via 10.2.3.2
	refused "is an alternate of the object already" \
		object alternate add fab via 10.2.3.2
	refused "is not an alternate of the object" \
		object alternate del fab via 10.2.3.9
	refused "is not an alternate of the object" \
		object alternate del fab dev p3
	alternates_seven add
	refused "no room, an object has at most 8 alternates" \
		object alternate add fab dev p4
	alternates_seven del
	r1 -j object show fab | jq -e '.[0] | .alternates ==
		[{"gateway": "10.2.3.2"}] and .primary_threshold_band == 6 and
		.alternate_cost_bands == 0 and .alternate_bias_percent == 100' \
		>/dev/null
	check_err $? "object show fab: $(r1 -j object show fab)"
	log_test "bad alternates refused with a message naming what, nothing changed"
}

idle_primaries_keep_flowlets()
{
	RET=0
	# arsctl routes names the route's object and its alternate.
	r1 -j routes | jq -e '.[] | select(.dst == "10.3.1.0/24") |
		.object == "fab" and
		([.nexthops[] | select(.alternate) | .ifname] == ["p3"])' \
		>/dev/null
	check_err $? "arsctl routes does not name object fab and alternate p3: $(r1 routes)"
	test_flows idle
	# Both primaries are idle, band 7 >= 6: not one flowlet on p3.
	[ "${D[2]}" -eq 0 ]
	check_err $? "${D[2]} new flowlets took the alternate p3 while the primaries were idle"
	log_test "idle primaries keep every new flowlet off the alternate"
}

loaded_primaries_push_to_alternate()
{
	local i

	RET=0
	# One sender per primary, each from its own source port.
	for i in 1 2; do
		ip netns exec "$(ns r1)" "$UDPGEN" send -d "10.9.$i.1" -n 0 \
			-S $((40000 + i)) -T 300 -s 1400 -b 4 \
			-g "${LOAD_GAP}ns" >/dev/null &
		LOAD_PIDS="$LOAD_PIDS $!"
	done
	wait_until 30 primaries_loaded
	check_err $? "p1 and p2 not both below band $THRESHOLD under load (bands $(bands))"
	test_flows loaded
	# p3, idle, band 7, outranks both primaries: at least 90% of them.
	[ "$SHARE" -ge 900 ]
	check_err $? "the alternate's share under load is $SHARE per mille, not 900 or more"
	log_test "loaded primaries push new flowlets to the alternate (by gateway)"
}

# An alternate by IPv6 gateway (ars_alt_gw_is()): r1 routes
# fd00:3:1::/64 over p1, p2 and p3 (r2 drops it), bound to object "fab6"
# (as fab) whose alternate is the next hop via fd00:2:3::2 (p3), with
# alternate-cost 7 and bias 0, while p1 and p2 are loaded (the load is
# fab's, IPv4: a port's quality is the port's, whatever the family). p3,
# idle at band 7, would take nearly all the new flowlets as a primary; as
# the alternate it ranks 7 - 7 = 0 and takes none
# (alternate_cost_keeps_primaries). One phase of 2 s of flows (at least
# 640 flowlets): that an alternate takes the flowlets of loaded
# primaries is the family-blind core's, shown above for IPv4.
alternate_by_ipv6_gateway()
{
	local PHASE=2

	RET=0
	ip -n "$(ns r1)" -6 route add fd00:3:1::/64 \
		nexthop via fd00:2:1::2 dev p1 nexthop via fd00:2:2::2 dev p2 \
		nexthop via fd00:2:3::2 dev p3 &&
		ip -n "$(ns r2)" -6 route add blackhole fd00:3:1::/64
	check_err $? "IPv6 routes"
	r1 object add fab6 mode flowlet-quality idle-time "$IDLE" \
		primary-threshold "$THRESHOLD" alternate-cost 7 \
		alternate-bias 0 &&
		r1 object alternate add fab6 via fd00:2:3::2 &&
		r1 bind add prefix fd00:3:1::/64 object fab6
	check_err $? "object fab6"
	r1 -j routes | jq -e '.[] | select(.dst == "fd00:3:1::/64") |
		.object == "fab6" and
		([.nexthops[] | select(.alternate) | .ifname] == ["p3"])' \
		>/dev/null
	check_err $? "arsctl routes does not name object fab6 and alternate p3: $(r1 routes)"
	primaries_loaded
	check_err $? "the primaries are no longer loaded (bands $(bands))"
	test_flows costly6 fd00:3:1::1 fd00:3:1::/64
	[ "$SHARE" -le 10 ]
	check_err $? "the alternate's share with cost 7 and bias 0 is $SHARE per mille, not 10 or less"
	r1 bind del prefix fd00:3:1::/64 && r1 object del fab6
	check_err $? "removing fab6"
	log_test "IPv6: an alternate by IPv6 gateway is one (cost 7: no new flowlet while an idle primary would take them)"
}

alternate_by_device()
{
	RET=0
	r1 object alternate del fab via 10.2.3.2 &&
		r1 object alternate add fab dev p3
	check_err $? "alternate by device"
	r1 -j object show fab | jq -e '.[0].alternates == [{"ifindex":
		.[0].alternates[0].ifindex, "ifname": "p3"}]' >/dev/null
	check_err $? "object show does not list dev p3 alone: $(r1 -j object show fab)"
	primaries_loaded
	check_err $? "the primaries are no longer loaded (bands $(bands))"
	test_flows by-device
	[ "$SHARE" -ge 900 ]
	check_err $? "the alternate's share under load is $SHARE per mille, not 900 or more"
	log_test "loaded primaries push new flowlets to the alternate (by device)"
}

alternate_cost_keeps_primaries()
{
	RET=0
	# p3 at band 7 ranks 7 - 7 = 0, no better than the worst primary,
	# and bias 0 gives the primaries the ties.
	r1 object set fab alternate-cost 7 alternate-bias 0
	check_err $? "object set"
	test_flows costly
	[ "$SHARE" -le 10 ]
	check_err $? "the alternate's share with cost 7 and bias 0 is $SHARE per mille, not 10 or less"
	log_test "an alternate whose cost makes it the worst gets no new flowlet"
}

require_root
require_cmd jq tc "$ARSCTL" "$UDPGEN"
require_tc_plugin
trap cleanup EXIT
ars_load || exit 1
TMPD=$(mktemp -d)
if ! setup_prepare; then
	ktap_plan
	RET=1
	retmsg="setup failed"
	for t in $(ars_cases); do
		log_test "$t"
	done
	exit 1
fi
tests_run
exit "$EXIT_STATUS"
