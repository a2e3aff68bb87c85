#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ars never changes what the kernel routes, forwards or drops: the router's
# policy (rp_filter, a port's forwarding switch, rules by input device,
# fib_multipath_use_neigh) holds with ars on exactly as with ars off, and
# what the bridge switches is not ars's business.
#
# The four-path topology of ars_dataplane.sh (mp_topo_create in lib.sh):
# h1 - r1 = p1..p4 = r2 - h2, ars on r1. Which path a packet took, and
# whether it was forwarded at all, is the tx_packets delta of r1's p1..p4.
#
# Each policy case sends the same packets with ars off, in flowlet-random
# (steered by the kernel's own lookup with a random hash) and in
# flowlet-quality (ars's own route lookup): 30 UDP packets from h1 with
# 30 spoofed sources 10.9.0.1..30, which r1 has no route back to, and 30
# from h1's own address, 30 flows. The forwarded counts must be the same in
# the three runs, and the ones the policy sets.

ALL_TESTS="
	rp_filter_port
	rp_filter_all
	forwarding_off
	vrf_rp_filter_port
	vrf_forwarding_off
	vrf_rule_iif
	vrf_ipv6
	use_neigh_failed
	gateways_kept
	many_nexthops_unsteered
	bridged_not_counted
"
source "$(dirname "$0")/lib.sh"

# What leaves r1's four ports besides the test's packets: an ARP request
# per port where a neighbour is not resolved yet or goes stale, and what
# a VRF's devices send after they came up (2 and 4 with ars off in the
# first case, before the warm-up below, on 6.1 and 6.12).
NOISE=4
N=30
TMPD=
R1_PID=
declare -a TX TXD PP

cleanup()
{
	cleanup_mp $R1_PID
}

sum()
{
	local s=0 v

	for v in "$@"; do
		s=$((s + v))
	done
	echo $s
}

r1_sysctl()
{
	in_ns r1 sysctl -qw "$1=$2"
}

# send_from SRC...: from each source address SRC of h1, N UDP packets to
# h2 (its address of SRC's family) when there is one SRC (N flows), one
# packet when there are several; FWD: how many r1 forwarded on p1..p4.
send_from()
{
	local -a before
	local dst=$MP_H2_4

	[[ $1 != *:* ]] || dst=$MP_H2_6
	tx_read
	before=("${TX[@]}")
	in_ns h1 python3 -I -S - "$N" "$dst" "$@" <<'EOF'
import socket, sys
n, dst, srcs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
fam = socket.AF_INET6 if ':' in dst else socket.AF_INET
if len(srcs) > 1:
    n = 1
for src in srcs:
    for i in range(n):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind((src, 31000 + i))
        s.sendto(b'x' * 64, (dst, 9))
        s.close()
EOF
	# The last packets may still be on their way through r1.
	sleep 0.5
	tx_delta before
	FWD=$(sum "${TXD[@]}")
}

# send_spoofed: one packet from each of the N sources 10.9.0.1..N of h1;
# SPOOFED: how many r1 forwarded.
send_spoofed()
{
	local i
	local -a srcs=()

	for ((i = 1; i <= N; i++)); do
		srcs+=(10.9.0.$i)
	done
	send_from "${srcs[@]}"
	SPOOFED=$FWD
}

# PP: ars's packets per port p1..p4 (arsctl ports).
paths_read()
{
	local name p

	PP=(0 0 0 0)
	while read -r name p; do
		case $name in
		p[1-4]) PP[${name#p} - 1]=$p ;;
		esac
	done < <(arsctl_ns r1 -j ports | jq -r '.[] | "\(.ifname) \(.packets)"')
}

ars_mode()
{
	if [ "$1" = off ]; then
		arsctl_ns r1 set state off
	else
		arsctl_ns r1 set state off &&
			arsctl_ns r1 set state on mode "$1" idle-time 1ms &&
			arsctl_ns r1 stats reset
	fi
}

# policy_run WHAT SPOOFED_MAX LEGIT_MIN LEGIT_MAX: the spoofed and the
# legitimate packets with ars off, flowlet-random and flowlet-quality;
# each run must forward at most SPOOFED_MAX of the spoofed ones and
# between LEGIT_MIN and LEGIT_MAX of the legitimate ones. (Where none may
# pass, NOISE allows for what a VRF's devices send after they came up
# again, seen once or twice with ars off.)
policy_run()
{
	local what=$1 smax=$2 lmin=$3 lmax=$4 mode res=

	for mode in off flowlet-random flowlet-quality; do
		ars_mode $mode || { check_err 1 "arsctl set $mode"; return; }
		send_spoofed
		send_from $MP_H1_4
		res="$res $mode: spoofed $SPOOFED/$N, legitimate $FWD/$N;"
		check_range "$SPOOFED" 0 "$smax" "$what, ars $mode: spoofed sources forwarded"
		check_range "$FWD" "$lmin" "$lmax" "$what, ars $mode: legitimate packets forwarded"
	done
	log_info "$what:$res"
}

check_range()
{
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
	check_err $? "$4: $1, expected $2..$3"
}

rp_filter_port()
{
	RET=0
	# The first packets r1 forwards resolve its neighbours: not counted.
	send_from $MP_H1_4
	r1_sysctl net.ipv4.conf.h1.rp_filter 1
	policy_run "rp_filter=1 on r1's h1" $NOISE $N $((N + NOISE))
	r1_sysctl net.ipv4.conf.h1.rp_filter 0
	log_test "rp_filter=1 on the ingress port drops spoofed sources with ars on as with ars off"
}

rp_filter_all()
{
	RET=0
	r1_sysctl net.ipv4.conf.all.rp_filter 1
	policy_run "all.rp_filter=1 in r1" $NOISE $N $((N + NOISE))
	r1_sysctl net.ipv4.conf.all.rp_filter 0
	log_test "all.rp_filter=1 drops spoofed sources with ars on as with ars off"
}

forwarding_off()
{
	RET=0
	r1_sysctl net.ipv4.conf.h1.forwarding 0
	policy_run "forwarding=0 on r1's h1" $NOISE 0 $NOISE
	r1_sysctl net.ipv4.conf.h1.forwarding 1
	log_test "a port with forwarding=0 forwards nothing with ars on"
}

# vrf_create: r1's devices in VRF blue (table 10), the multipath route
# to h2 there (as in ars_dataplane.sh); vrf_destroy undoes it.
vrf_create()
{
	local i

	ip -n "$(ns r1)" link add blue type vrf table 10 &&
		ip -n "$(ns r1)" link set blue up
	check_err $? "VRF device"
	for i in h1 p1 p2 p3 p4; do
		ip -n "$(ns r1)" link set "$i" master blue ||
			check_err 1 "enslave $i"
	done
	{
		for i in 1 2 3 4; do
			echo "neigh replace 10.2.$i.2 lladdr $(mp_mac $i 2) dev p$i nud permanent"
		done
		echo "neigh replace 10.1.0.1 lladdr $(mp_mac 10 1) dev h1 nud permanent"
	} | ip -n "$(ns r1)" -batch -
	# shellcheck disable=SC2046
	ip -n "$(ns r1)" route replace vrf blue "$MP_DST4" $(mp_nexthops 4)
	check_err $? "multipath route in the VRF"
}

vrf_destroy()
{
	local i

	for i in h1 p1 p2 p3 p4; do
		ip -n "$(ns r1)" link set "$i" nomaster
	done
	ip -n "$(ns r1)" link del blue
	{
		for i in 1 2 3 4; do
			echo "link set p$i up"
			echo "addr replace fd00:2:$i::1/64 dev p$i nodad"
			echo "neigh replace 10.2.$i.2 lladdr $(mp_mac $i 2) dev p$i nud permanent"
			echo "neigh replace fd00:2:$i::2 lladdr $(mp_mac $i 2) dev p$i nud permanent"
		done
		echo "link set h1 up"
		echo "addr replace fd00:1::fe/64 dev h1 nodad"
		echo "neigh replace 10.1.0.1 lladdr $(mp_mac 10 1) dev h1 nud permanent"
		echo "neigh replace fd00:1::1 lladdr $(mp_mac 10 1) dev h1 nud permanent"
	} | ip -n "$(ns r1)" -batch -
	mp_route4 && mp_route6
}

# Under a VRF the kernel routes IPv4 as received on the enslaved port
# (ip_rcv_finish()), not on the VRF's device: the port's rp_filter holds.
vrf_rp_filter_port()
{
	RET=0
	vrf_create
	r1_sysctl net.ipv4.conf.h1.rp_filter 1
	policy_run "VRF, rp_filter=1 on r1's h1" $NOISE $N $((N + NOISE))
	r1_sysctl net.ipv4.conf.h1.rp_filter 0
	vrf_destroy
	log_test "VRF: rp_filter=1 on the enslaved ingress port drops spoofed sources with ars on"
}

vrf_forwarding_off()
{
	RET=0
	vrf_create
	r1_sysctl net.ipv4.conf.h1.forwarding 0
	policy_run "VRF, forwarding=0 on r1's h1" $NOISE 0 $NOISE
	r1_sysctl net.ipv4.conf.h1.forwarding 1
	vrf_destroy
	log_test "VRF: an enslaved port with forwarding=0 forwards nothing with ars on"
}

# A rule by input port ahead of the VRF's (l3mdev, preference 1000) sends
# h1's packets to a table where h2's prefix is a blackhole.
vrf_rule_iif()
{
	RET=0
	vrf_create
	ip -n "$(ns r1)" route add blackhole "$MP_DST4" table 30 &&
		ip -n "$(ns r1)" rule add pref 500 iif h1 table 30
	check_err $? "rule iif h1 table 30"
	policy_run "VRF, rule iif h1 to a blackhole" $NOISE 0 $NOISE
	ip -n "$(ns r1)" rule del pref 500
	ip -n "$(ns r1)" route flush table 30
	vrf_destroy
	log_test "VRF: a rule by the enslaved ingress port holds with ars on"
}

# vrf6_run WHAT LEGIT_MIN LEGIT_MAX STEERED_MIN: N IPv6 flows from h1
# (send_from) with ars off, flowlet-random and flowlet-quality; each run
# must forward between LEGIT_MIN and LEGIT_MAX packets, and with ars on
# steer STEERED_MIN or more (0: none).
vrf6_run()
{
	local what=$1 lmin=$2 lmax=$3 smin=$4 mode steered used i res=

	for mode in off flowlet-random flowlet-quality; do
		ars_mode $mode || { check_err 1 "arsctl set $mode"; return; }
		send_from $MP_H1_6
		used=0
		for i in 0 1 2 3; do
			[ "${TXD[i]}" -le 0 ] || used=$((used + 1))
		done
		res="$res $mode: forwarded $FWD/$N (${TXD[*]})"
		check_range "$FWD" "$lmin" "$lmax" "$what, ars $mode: forwarded"
		[ $mode != off ] || { res="$res;"; continue; }
		steered=$(arsctl_ns r1 -j stats | jq .steered)
		res="$res, steered $steered;"
		if [ "$smin" -eq 0 ]; then
			check_eq "$steered" 0 "$what, ars $mode: steered"
		else
			[ "$steered" -ge "$smin" ] && [ $used -ge 2 ]
			check_err $? "$what, ars $mode: steered $steered, $used ports used, expected $smin or more on 2 or more"
		fi
	done
	log_info "$what:$res"
}

# IPv6 under the VRF: the kernel routes it with the VRF's device
# (ip6_rcv_finish(), l3mdev), where ars acts on the second pass. r1's
# ports lost their IPv6 addresses and neighbours when they were enslaved
# (keep_addr_on_down 0): they come back, and h2's prefix over p1..p4 in
# the VRF's table. ars steers the 30 flows, over 2 or more ports (one
# alone by chance: 4^-29 of runs). A rule by input device ahead of the
# l3mdev rule, to a blackhole, forwards nothing, and ars steers none of
# it: for IPv6 that device is the VRF's (the lookup keys on skb->dev,
# which vrf_ip6_rcv() made the VRF device; a rule "iif h1" does not
# match, with ars off as on: seen on 6.1, 30 of 30 forwarded).
# net.ipv6.conf.h1.forwarding = 0 is no forwarding switch (ip6_forward()
# reads only all.forwarding): with ars on as off, all 30 pass.
vrf_ipv6()
{
	local i

	RET=0
	vrf_create
	{
		echo "addr replace fd00:1::fe/64 dev h1 nodad"
		echo "neigh replace fd00:1::1 lladdr $(mp_mac 10 1) dev h1 nud permanent"
		for i in 1 2 3 4; do
			echo "addr replace fd00:2:$i::1/64 dev p$i nodad"
			echo "neigh replace fd00:2:$i::2 lladdr $(mp_mac $i 2) dev p$i nud permanent"
		done
	} | ip -n "$(ns r1)" -batch -
	check_err $? "IPv6 addresses in the VRF"
	# shellcheck disable=SC2046
	ip -n "$(ns r1)" -6 route replace vrf blue "$MP_DST6" $(mp_nexthops 6)
	check_err $? "IPv6 multipath route in the VRF"
	# The first packets may meet what the devices send as they come up.
	send_from $MP_H1_6
	vrf6_run "VRF, IPv6" $N $((N + NOISE)) $N
	ip -n "$(ns r1)" -6 route add blackhole "$MP_DST6" table 30 &&
		ip -n "$(ns r1)" -6 rule add pref 500 iif blue table 30
	check_err $? "rule iif blue table 30"
	vrf6_run "VRF, IPv6, rule iif blue to a blackhole" 0 $NOISE 0
	ip -n "$(ns r1)" -6 rule del pref 500
	ip -n "$(ns r1)" -6 route flush table 30
	r1_sysctl net.ipv6.conf.h1.forwarding 0
	vrf6_run "VRF, IPv6, forwarding=0 on r1's h1" $N $((N + NOISE)) $N
	r1_sysctl net.ipv6.conf.h1.forwarding 1
	vrf_destroy
	log_test "VRF: IPv6 is steered, and a rule by input device holds with ars on"
}

# fib_multipath_use_neigh=1 on a plain multipath route, the neighbour of
# p2's gateway failed: the kernel never sends on p2, and ars must neither
# choose it (no entry names p2, its counters say what really left on each
# port) nor pile p2's share of flowlets on the next path.
use_neigh_failed()
{
	local flows=128 i bad
	local -a before pp p0

	RET=0
	mp_route4
	r1_sysctl net.ipv4.fib_multipath_use_neigh 1
	ip -n "$(ns r1)" neigh replace 10.2.2.2 dev p2 nud failed
	check_err $? "neighbour of p2 failed"
	ars_mode flowlet-quality || check_err 1 "arsctl set"
	paths_read
	p0=("${PP[@]}")
	tx_read
	before=("${TX[@]}")
	in_ns h1 python3 -I -S - "$flows" "$MP_H2_4" <<'EOF'
import socket, sys
n, dst = int(sys.argv[1]), sys.argv[2]
socks = []
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('', 32000 + i))
    socks.append(s)
for _ in range(4):
    for s in socks:
        s.sendto(b'x' * 64, (dst, 9))
EOF
	sleep 0.5
	tx_delta before
	bad=$(arsctl_ns r1 -j flows | jq '[.[] | select(.ifname == "p2")] | length')
	check_eq "$bad" 0 "flow entries on p2 (the failed neighbour's port)"
	check_range "${TXD[1]}" 0 $NOISE "packets on p2"
	paths_read
	for i in 0 1 2 3; do
		pp[i]=$((PP[i] - p0[i]))
	done
	for i in 0 1 2 3; do
		check_range "${pp[i]}" $((TXD[i] - NOISE)) "${TXD[i]}" \
			"ars's packets on p$((i + 1)) against what it sent"
	done
	# Three usable paths by weight 1:1:1: each of p1, p3, p4 carries
	# between 1/6 and 45% of the packets (2.8 standard deviations above
	# a third); with p2's share piled on p3, p3 carries half of them.
	for i in 0 2 3; do
		check_range "${TXD[i]}" $((flows * 4 / 6)) $((flows * 4 * 45 / 100)) \
			"packets on p$((i + 1)) of $((flows * 4))"
	done
	log_info "use_neigh, p2's neighbour failed: sent p1 ${TXD[0]}, p2 ${TXD[1]}, p3 ${TXD[2]}, p4 ${TXD[3]}; ars counted ${pp[*]}; entries on p2 $bad"
	ip -n "$(ns r1)" neigh replace 10.2.2.2 lladdr "$(mp_mac 2 2)" dev p2 nud permanent
	r1_sysctl net.ipv4.fib_multipath_use_neigh 0
	log_test "fib_multipath_use_neigh: ars skips the next hop of a failed neighbour"
}

# Two gateways on one device: r1's route to 10.3.2.0/24 over 10.2.1.2 and
# 10.2.11.2, both on p1, and 10.2.2.2 on p2. 100 flows in flowlet-random,
# idle-time 1 s, send 5 rounds 0.2 s apart: each flow's flowlet goes on, and
# its later packets, looked up again by ars (every idle-time/16), must stay
# with the gateway the first took, as the kernel alone keeps them. Counted
# by gateway MAC on p1's egress (tc flower). Each carries a third of the
# flows, by the kernel's map of random hashes: between 15% and 52% of the
# packets (3.9 standard deviations). With flows moved to the first
# gateway of p1 from the second round on, it would carry about 59% of
# them and the second about 7%.
gateways_kept()
{
	local flows=100 rounds=5 g1 g2 o total

	RET=0
	ip -n "$(ns r1)" -batch - <<-EOF
		addr add 10.2.11.1/24 dev p1
		neigh replace 10.2.11.2 lladdr 02:00:00:00:0b:02 dev p1 nud permanent
		route add 10.3.2.0/24 nexthop via 10.2.1.2 dev p1 nexthop via 10.2.11.2 dev p1 nexthop via 10.2.2.2 dev p2
	EOF
	check_err $? "route over two gateways of p1 and one of p2"
	tc -n "$(ns r1)" -batch - <<-EOF
		qdisc add dev p1 clsact
		filter add dev p1 egress pref 1 protocol ip flower dst_mac $(mp_mac 1 2) action pass
		filter add dev p1 egress pref 2 protocol ip flower dst_mac 02:00:00:00:0b:02 action pass
	EOF
	check_err $? "tc counters by gateway on p1"
	ars_mode flowlet-random || check_err 1 "arsctl set"
	arsctl_ns r1 set idle-time 1s || check_err 1 "idle-time 1s"
	tx_read
	local -a before=("${TX[@]}")
	in_ns h1 python3 -I -S - "$flows" "$rounds" <<'EOF'
import socket, sys, time
n, rounds = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('', 34000 + i))
    socks.append(s)
for r in range(rounds):
    if r:
        time.sleep(0.2)
    for s in socks:
        s.sendto(b'x' * 64, ('10.3.2.1', 9))
EOF
	sleep 0.5
	tx_delta before
	read -r g1 g2 < <(tc -n "$(ns r1)" -s -j filter show dev p1 egress |
		jq -r '[.[] | select(.options.actions) |
			{(.pref | tostring): .options.actions[0].stats.packets}] |
			add | "\(.["1"]) \(.["2"])"')
	o=${TXD[1]}
	total=$((g1 + g2 + o))
	check_range "$total" $((flows * rounds)) $((flows * rounds + NOISE)) \
		"packets forwarded"
	for v in "$g1" "$g2" "$o"; do
		check_range "$v" $((total * 15 / 100)) $((total * 52 / 100)) \
			"gateways 10.2.1.2, 10.2.11.2 (p1), 10.2.2.2 (p2): $g1 $g2 $o"
	done
	log_info "two gateways on p1, $flows flows x $rounds rounds: gateway 10.2.1.2 $g1, 10.2.11.2 $g2, p2 $o"
	tc -n "$(ns r1)" qdisc del dev p1 clsact
	ip -n "$(ns r1)" route del 10.3.2.0/24
	ip -n "$(ns r1)" addr del 10.2.11.1/24 dev p1
	log_test "two gateways on one device: flowlets stay with their gateway"
}

# A route with more next hops than ars steers (65, over gateways on p1),
# with interfaces configured (p1..p4 enabled): the route reader returns
# before it fills the route in, which ars must not read (on Debian's
# kernels the stack is zeroed, so this holds before the fix too). The
# packets are forwarded by the kernel and counted unsteered.
many_nexthops_unsteered()
{
	local i nh= j n=20

	RET=0
	{
		echo "addr add 10.2.100.1/24 dev p1"
		for ((i = 2; i <= 66; i++)); do
			echo "neigh replace 10.2.100.$i lladdr $(mp_mac 1 2) dev p1 nud permanent"
			nh="$nh nexthop via 10.2.100.$i dev p1"
		done
		echo "route add 10.3.4.0/24$nh"
	} | ip -n "$(ns r1)" -batch -
	check_err $? "route with 65 next hops"
	ars_mode flowlet-quality || check_err 1 "arsctl set"
	for i in 1 2 3 4; do
		arsctl_ns r1 interface enable dev p$i ||
			check_err 1 "interface enable p$i"
	done
	tx_read
	local -a before=("${TX[@]}")
	in_ns h1 python3 -I -S - "$n" <<'EOF'
import socket, sys
for i in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('', 35000 + i))
    s.sendto(b'x' * 64, ('10.3.4.1', 9))
EOF
	sleep 0.5
	tx_delta before
	j=$(arsctl_ns r1 -j stats | jq -r '"\(.steered) \(.unsteered)"')
	check_range "${TXD[0]}" $n $((n + NOISE)) "packets forwarded on p1"
	check_eq "$j" "0 $n" "steered, unsteered"
	log_info "65 next hops, interfaces enabled: p1 sent ${TXD[0]}; steered, unsteered: $j"
	for i in 1 2 3 4; do
		arsctl_ns r1 interface disable dev p$i
	done
	ip -n "$(ns r1)" route del 10.3.4.0/24
	ip -n "$(ns r1)" addr del 10.2.100.1/24 dev p1
	log_test "a route with more than 64 next hops is left to the kernel"
}

# br_netfilter runs the IP hooks for frames that r1's bridge switches, as
# PACKET_HOST: ars counts, keys and routes none of them. b1 and b2 share
# the bridge br0 in r1 with addresses inside h2's prefix, which r1 routes
# over p1..p4.
bridged_not_counted()
{
	local j0 j1 n=40

	RET=0
	if ! modprobe br_netfilter 2>/dev/null; then
		log_skip "bridged frames are not counted" "no br_netfilter module"
		return
	fi
	mp_ns_create b1 b2 || { check_err 1 "namespaces"; log_test "bridged"; return; }
	{
		echo "link add br0 netns $(ns r1) type bridge"
		echo "link add eth0 netns $(ns b1) type veth peer name b1 netns $(ns r1)"
		echo "link add eth0 netns $(ns b2) type veth peer name b2 netns $(ns r1)"
	} | ip -batch -
	ip -n "$(ns r1)" -batch - <<-EOF
		link set b1 master br0
		link set b2 master br0
		link set b1 up
		link set b2 up
		link set br0 up
	EOF
	ip -n "$(ns b1)" addr add 10.3.0.66/24 dev eth0 &&
		ip -n "$(ns b1)" link set eth0 up &&
		ip -n "$(ns b2)" addr add 10.3.0.77/24 dev eth0 &&
		ip -n "$(ns b2)" link set eth0 up
	check_err $? "bridge and its hosts"
	in_ns r1 sysctl -qw net.bridge.bridge-nf-call-iptables=1
	check_err $? "bridge-nf-call-iptables=1 in r1"
	ars_mode flowlet-random || check_err 1 "arsctl set"
	# ARP first, so that what follows is IPv4 alone.
	in_ns b1 ping -q -c 1 -W 2 10.3.0.77 >/dev/null
	check_err $? "b1 reaches b2 over the bridge"
	j0=$(arsctl_ns r1 -j stats | jq -c '{packets, steered, flowlets}')
	in_ns b1 python3 -I -S - "$n" <<'EOF'
import socket, sys
for i in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('', 33000 + i))
    s.sendto(b'x' * 64, ('10.3.0.77', 9))
EOF
	sleep 0.5
	j1=$(arsctl_ns r1 -j stats | jq -c '{packets, steered, flowlets}')
	check_eq "$j1" "$j0" "ars's counters after $n bridged packets"
	log_info "bridged: ars counters before $j0, after $j1"
	in_ns r1 sysctl -qw net.bridge.bridge-nf-call-iptables=0
	ip -n "$(ns r1)" link del br0
	log_test "br_netfilter: frames the bridge switches are not counted nor steered"
}

setup_prepare()
{
	local i

	TMPD=$(mktemp -d)
	mp_topo_create || return 1
	mp_route4 || return 1
	# The spoofed sources, on h1's eth0.
	for ((i = 1; i <= N; i++)); do
		echo "addr add 10.9.0.$i/32 dev eth0"
	done | ip -n "$(ns h1)" -batch - || return 1
	pin_ns r1
	R1_PID=$NS_PIN_PID
}

require_root
require_cmd jq python3 "$ARSCTL"
[ -n "$ARS_KO" ] || { echo "SKIP: ARS_KO not set"; exit $ksft_skip; }
trap cleanup EXIT
ars_load
setup_prepare || { echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
