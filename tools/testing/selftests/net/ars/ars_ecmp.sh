#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ecmp mode is the kernel's ECMP as a router runs it: the multipath
# hash of each packet's own 5-tuple, computed at this router, and not the
# hash the packet came with.
#
#   +-------------+     +---------------+           +------+   +------+
#   | h1          |     | r1 (ars)      +--p1..p4---+  r2  +---+  h2  |
#   | one socket  +-----+ 10.3.0.0/24,  |  4 veth   |      |   |      |
#   | 64 5-tuples |     | fd00:3::/64   |  links    |      |   |      |
#   +-------------+     +---------------+           +------+   +------+
#
# The topology of ars_dataplane.sh (lib.sh, mp_topo_create); which link a
# packet took is the tx_packets delta of r1's p1..p4, nothing else leaving
# on them.
#
# A connected UDP socket has a random sk_txhash (sk_set_txhash()), which
# every packet it sends carries as an L4 skb hash (skb_set_owner_w());
# veth keeps it across namespaces (skb_scrub_packet() leaves the hash), and
# with fib_multipath_hash_policy=1 r1's fib_multipath_hash() and
# rt6_multipath_hash() take an L4 skb hash as they find it. So one socket
# that sends to 64 ports of h2 (sendto() on a connected UDP socket may name
# another destination) puts 64 5-tuples on one link, whichever: that is
# what the kernel does with TCP between veth namespaces too, where every
# router would choose by the sending host's random draw. The same 64
# 5-tuples without a hash (an unconnected socket; IPv6 without automatic
# flow labels, whose hash h1 would set too) are what r1 makes of the
# headers, the same in every run of one boot. ars's ecmp mode must give
# that split for the connected socket; a packet that no object takes must
# keep the socket's hash.

ALL_TESTS="
	kernel_takes_socket_hash
	ecmp_hashes_five_tuple
	unbound_keeps_socket_hash
"
source "$(dirname "$0")/lib.sh"

NOISE=3
FLOWS=64
ROUNDS=4
R1_PID=
TMPD=
declare -a TX TXD
declare -A BASE

cleanup()
{
	cleanup_mp $R1_PID
}

tx_total()
{
	echo $((TXD[0] + TXD[1] + TXD[2] + TXD[3]))
}

# links_used: the links that carried more than NOISE packets.
links_used()
{
	local i n=0

	for i in 0 1 2 3; do
		[ "${TXD[i]}" -le $NOISE ] || n=$((n + 1))
	done
	echo $n
}

# send FAMILY CONNECT: one UDP socket in h1, bound to port 30000 (and with
# CONNECT 1 connected to h2's port 40000), sends ROUNDS datagrams to each
# of h2's ports 40000 .. 40000 + FLOWS - 1 (lib.sh, py_send -s); TXD
# after.
send()
{
	local dst=$MP_H2_4
	local -a before conn

	[ "$1" = 4 ] || dst=$MP_H2_6
	[ "$2" != 1 ] || conn=(-c)
	tx_read
	# shellcheck disable=SC2034 # read by tx_delta
	before=("${TX[@]}")
	py_send -s "${conn[@]}" "$dst" $FLOWS $ROUNDS
	check_err $? "IPv$1: the sender failed"
	# The last packets may still be on their way through r1.
	wait_until 5 eval 'tx_delta before; [ "$(tx_total)" -ge $((FLOWS * ROUNDS)) ]'
	tx_delta before
}

# h1's automatic IPv6 flow labels, which hash the 5-tuple into skb->hash.
flowlabels()
{
	in_ns h1 sysctl -qw net.ipv6.auto_flowlabels="$1"
}

# Without the module: the socket's hash puts all 64 5-tuples on one link;
# without a hash they spread. The latter is the reference of the ecmp mode.
kernel_takes_socket_hash()
{
	local fam

	RET=0
	ars_unload
	check_err $? "rmmod ars"
	for fam in 4 6; do
		send $fam 1
		log_info "IPv$fam, no module, one connected socket: ${TXD[*]}"
		[ "$(tx_total)" -ge $((FLOWS * ROUNDS)) ]
		check_err $? "IPv$fam: r1 did not forward the $((FLOWS * ROUNDS)) packets: ${TXD[*]}"
		check_eq "$(links_used)" 1 "IPv$fam, no module, one socket hash: links used"

		[ $fam = 4 ] || flowlabels 0
		send $fam 0
		[ $fam = 4 ] || flowlabels 1
		BASE[$fam]="${TXD[*]}"
		log_info "IPv$fam, no module, no hash: ${TXD[*]}"
		[ "$(links_used)" -ge 3 ]
		check_err $? "IPv$fam: r1's own hash used only $(links_used) links, the comparison would prove little: ${TXD[*]}"
	done
	ars_load
	check_err $? "insmod ars"
	log_test "without ars, r1 hashes the sender's socket hash, not the 5-tuple"
}

# match_base FAMILY WHAT: TXD is BASE[FAMILY], within NOISE a link.
match_base()
{
	local i
	local -a b

	read -r -a b <<<"${BASE[$1]}"
	for i in 0 1 2 3; do
		[ $((TXD[i] - b[i])) -le $NOISE ] && [ $((b[i] - TXD[i])) -le $NOISE ]
		check_err $? "IPv$1, $2: p$((i + 1)) sent ${TXD[i]}, r1's own hash ${b[i]} (all: ${TXD[*]} vs ${b[*]})"
	done
}

# ars on in the ecmp mode: the connected socket's 64 5-tuples split as r1
# hashes them itself, and so do packets with IPv6 flow labels.
ecmp_hashes_five_tuple()
{
	local fam ecmp

	RET=0
	arsctl_ns r1 set state on mode ecmp && arsctl_ns r1 stats reset
	check_err $? "arsctl set state on mode ecmp"
	for fam in 4 6; do
		send $fam 1
		log_info "IPv$fam, ecmp, one connected socket: ${TXD[*]}"
		match_base $fam "ecmp, one socket"
		send $fam 0
		log_info "IPv$fam, ecmp, unconnected: ${TXD[*]}"
		match_base $fam "ecmp, unconnected"
	done
	# h2's port unreachable errors go back through r1 too, as ecmp.
	ecmp=$(arsctl_ns r1 -j stats | jq '.ecmp')
	[ "$ecmp" -ge $((4 * FLOWS * ROUNDS)) ]
	check_err $? "packets counted as ecmp: $ecmp, sent $((4 * FLOWS * ROUNDS))"
	check_eq "$(arsctl_ns r1 -j stats | jq '.steered')" 0 "packets steered"
	arsctl_ns r1 set state off
	log_test "ecmp mode: r1 hashes each packet's 5-tuple, as without a socket hash"
}

# An object that steers, bound elsewhere, and default-object none: the
# packets to h2 have no object and keep the socket's hash, as without ars.
unbound_keeps_socket_hash()
{
	local fam

	RET=0
	arsctl_ns r1 object add other mode flowlet-quality &&
		arsctl_ns r1 bind add prefix 10.99.0.0/16 object other &&
		arsctl_ns r1 bind add prefix fd00:99::/32 object other &&
		arsctl_ns r1 set default-object none &&
		arsctl_ns r1 set state on mode ecmp && arsctl_ns r1 stats reset
	check_err $? "object other on 10.99.0.0/16, default-object none"
	for fam in 4 6; do
		send $fam 1
		log_info "IPv$fam, unbound, one connected socket: ${TXD[*]}"
		check_eq "$(links_used)" 1 "IPv$fam, unbound, one socket hash: links used"
	done
	check_eq "$(arsctl_ns r1 -j stats | jq '.ecmp')" $((2 * FLOWS * ROUNDS)) \
		"packets without an object, counted as ecmp"
	arsctl_ns r1 set state off default-object default &&
		arsctl_ns r1 bind del prefix 10.99.0.0/16 &&
		arsctl_ns r1 bind del prefix fd00:99::/32 &&
		arsctl_ns r1 object del other
	check_err $? "objects back as they were"
	log_test "a packet that no object takes keeps its hash, as without ars"
}

setup_prepare()
{
	TMPD=$(mktemp -d)
	cp "$ARS_KO" "$TMPD/ars.ko" && ARS_KO=$TMPD/ars.ko || return 1
	mp_topo_create && mp_route4 && mp_route6 || return 1
	ip netns exec "$(ns r1)" sleep 1000000 &
	R1_PID=$!
	wait_until 10 grep -q '^ *p4:' "/proc/$R1_PID/net/dev"
}

require_root
require_cmd jq python3 "$ARSCTL"
[ -n "$ARS_KO" ] || { echo "SKIP: ARS_KO not set"; exit $ksft_skip; }
trap cleanup EXIT
ars_load
setup_prepare || { echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
