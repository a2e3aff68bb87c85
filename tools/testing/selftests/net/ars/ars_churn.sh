#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Churn under traffic, for the debug kernel (KASAN, kmemleak, lockdep): UDP
# (IPv4 and IPv6) and TCP flows from h1 to h2 across r1's four paths (the
# topology of ars_dataplane.sh, mp_topo_create in lib.sh) for
# ARS_CHURN_SECS (default 60), and at least until each operation below ran
# once, while the shell keeps changing what ars works on, one operation
# after another:
#
#   mode      mode, idle-time and table-size
#   route     the multipath routes replaced without one path, then whole
#   nexthop   nexthop objects and groups: one path's next hops deleted,
#             then added back; a group replaced with new weights
#   link      one path's link down, then up (p1 stays: r2 answers by it)
#   qdisc     ars qdiscs added on the paths, their child replaced and
#             deleted, the ars qdiscs deleted
#   netns     namespaces created with ars on and deleted
#   module    rmmod ars under traffic when no qdisc holds it, and insmod
#
# After every operation, forwarding must resume: h2 receives again within
# 15 s. After every removal of a path (route, nexthop, link), no packet
# may leave r1 on it once its queue had a second to drain, until it is
# restored. The kernel log is the rest of the verdict (vm-run.sh).
# ARS_SEED seeds the choice of operations and their arguments; it is
# printed, and a new one drawn when it is not given.

ALL_TESTS="churn_under_traffic"
source "$(dirname "$0")/lib.sh"

DUR=${ARS_CHURN_SECS:-60}
# The seed of the random choices, printed: ARS_SEED=<seed> replays them
# (what the traffic does meanwhile is the kernel's).
SEED=${ARS_SEED:-$(( ($(date +%s) ^ $$) & 0x7fffffff ))}
RANDOM=$SEED
R=0
PORT4=9000
PORT6=9001
PORT_TCP=5201
TMPD=
R1_PID=
H2_PID=
BG_PIDS=
MODE=multipath		# or group: how r1 routes to h2
METRIC6=1		# of r1's multipath IPv6 route
NS_LIVE=()
NS_SEQ=0
QDISC_ON=()		# paths with an ars qdisc
declare -A OPS		# operation -> times done
REMOVALS=0
RESUMES=0
MODES=(ecmp fixed packet-random packet-roundrobin packet-quality
	flowlet-random flowlet-quality)
IDLES=(50us 256us 1ms 20ms)
TABLES=(64 256 4096 65536)
CHILDREN=("pfifo limit 500" "fq_codel" "tbf rate 50mbit burst 32k latency 20ms")

cleanup()
{
	local p

	for p in $BG_PIDS $R1_PID $H2_PID; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	cleanup_default
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

# dev_counter PID DEV FIELD: rx_packets (1) or tx_packets (9) of DEV in
# the namespace of PID, with shell builtins only.
dev_counter()
{
	local name rest
	local -a f

	while IFS=: read -r name rest; do
		[ "${name// /}" = "$2" ] || continue
		read -r -a f <<<"$rest"
		echo "${f[$3]}"
		return 0
	done <"/proc/$1/net/dev"
	echo 0
	return 1
}

# h2_udp: "IPV4 IPV6", the UDP datagrams h2 received so far, by family,
# with shell builtins only.
h2_udp()
{
	local k v n4=0 n6=0
	local -a names vals

	while read -r k v; do
		[ "$k" != Udp6InDatagrams ] || n6=$v
	done <"/proc/$H2_PID/net/snmp6"
	while read -r -a vals; do
		[ "${vals[0]}" = Udp: ] || continue
		if [ ${#names[@]} -eq 0 ]; then
			names=("${vals[@]}")
			continue
		fi
		for k in "${!names[@]}"; do
			[ "${names[k]}" != InDatagrams ] || n4=${vals[k]}
		done
	done <"/proc/$H2_PID/net/snmp"
	echo "$n4 $n6"
}

r1_tx()
{
	dev_counter "$R1_PID" "p$1" 9
}

# rnd N: a number below N in R. Not in a $(...) subshell: bash reseeds
# RANDOM in each, and the choices would not follow ARS_SEED.
rnd()
{
	R=$((RANDOM % $1))
}

# Everything r1 needs to forward to h2 in the current MODE, idempotent:
# after a link went down, its IPv6 address, its neighbours and its nexthop
# objects are gone and come back here.
r1_restore()
{
	local i

	{
		for i in 1 2 3 4; do
			echo "link set p$i up"
			echo "addr replace fd00:2:$i::1/64 dev p$i nodad"
			echo "neigh replace 10.2.$i.2 lladdr $(mp_mac "$i" 2) dev p$i nud permanent"
			echo "neigh replace fd00:2:$i::2 lladdr $(mp_mac "$i" 2) dev p$i nud permanent"
		done
		nexthops_batch 1 2 3 4
		echo "nexthop replace id 10 group 1/2/3/4"
		echo "nexthop replace id 20 group 11/12/13/14"
	} | ip -n "$(ns r1)" -batch - || return 1
	routes_apply 1 2 3 4
}

# nexthops_batch PATH...: nexthop objects k (IPv4) and 10+k (IPv6).
nexthops_batch()
{
	local i

	for i in "$@"; do
		echo "nexthop replace id $i via 10.2.$i.2 dev p$i"
		echo "nexthop replace id $((10 + i)) via fd00:2:$i::2 dev p$i"
	done
}

# routes_apply PATH...: r1's routes to h2 over these paths only, by
# multipath routes or by nexthop groups (MODE). IPv4 routes are replaced
# in place. IPv6 replaces may merge next hops into the old route, and a
# delete then add leaves a moment without a route (the sender would
# fail): the new IPv6 route goes in at the other metric, then the old one
# goes.
routes_apply()
{
	local i v4='' v6='' g4='' g6='' old=$METRIC6

	for i in "$@"; do
		v4="$v4 nexthop via 10.2.$i.2 dev p$i"
		v6="$v6 nexthop via fd00:2:$i::2 dev p$i"
		g4="$g4/$i"
		g6="$g6/$((10 + i))"
	done
	METRIC6=$((3 - METRIC6))
	if [ "$MODE" = group ]; then
		v4="nhid 10"
		v6="nhid 20"
		ip -n "$(ns r1)" -batch - <<-EOF || return 1
			nexthop replace id 10 group ${g4#/}
			nexthop replace id 20 group ${g6#/}
		EOF
	fi
	# shellcheck disable=SC2086 # the next hops are words
	ip -n "$(ns r1)" route replace $MP_DST4 $v4 || return 1
	ip -n "$(ns r1)" -6 route del $MP_DST6 metric $METRIC6 2>/dev/null
	# shellcheck disable=SC2086
	ip -n "$(ns r1)" -6 route add $MP_DST6 metric $METRIC6 $v6 || return 1
	ip -n "$(ns r1)" -6 route del $MP_DST6 metric "$old" 2>/dev/null
	return 0
}

# udp_grew B4 B6: both families' UDP flows reached h2 again, 20 datagrams
# each since the counts B4 and B6.
udp_grew()
{
	local n4 n6

	read -r n4 n6 <<<"$(h2_udp)"
	[ $((n4 - $1)) -ge 20 ] && [ $((n6 - $2)) -ge 20 ]
}

# resumed WHAT: h2 receives UDP of both families again within 15 s.
resumed()
{
	local b4 b6

	read -r b4 b6 <<<"$(h2_udp)"
	if wait_until 15 udp_grew "$b4" "$b6"; then
		RESUMES=$((RESUMES + 1))
		return 0
	fi
	check_err 1 "forwarding did not resume after $1"
	log_info "no traffic after $1 (UDP at h2: $b4 $b6, then $(h2_udp))"
	return 1
}

# Path K is out: nothing may leave on it, once its queue has drained.
# without_path K WHAT: the check, while forwarding resumes on the others.
without_path()
{
	local k=$1 base t0 n

	REMOVALS=$((REMOVALS + 1))
	sleep 1
	base=$(r1_tx "$k")
	t0=$(uptime_s)
	resumed "$2"
	while [ $(($(uptime_s) - t0)) -lt 2 ]; do
		sleep 0.5
	done
	n=$(($(r1_tx "$k") - base))
	if [ "$n" -ne 0 ]; then
		check_err 1 "$n packets left on p$k after $2"
		log_info "$n packets left r1 on p$k after $2"
	fi
}

# The operations. Each returns nonzero only when a command that must
# work did not.

op_mode()
{
	local m idle table

	rnd ${#MODES[@]}
	m=${MODES[R]}
	rnd ${#IDLES[@]}
	idle=${IDLES[R]}
	rnd ${#TABLES[@]}
	table=${TABLES[R]}
	arsctl_ns r1 set mode "$m" idle-time "$idle" table-size "$table" ||
		return 1
	resumed "mode $m"
}

# The paths but K.
others()
{
	local i

	for i in 1 2 3 4; do
		[ "$i" -eq "$1" ] || echo "$i"
	done
}

op_route()
{
	local k

	rnd 4
	k=$((1 + R))
	MODE=multipath
	# shellcheck disable=SC2046
	routes_apply $(others $k) || return 1
	without_path $k "routes replaced without p$k"
	routes_apply 1 2 3 4 || return 1
	resumed "routes replaced with all paths"
}

op_nexthop()
{
	local k w

	rnd 4
	k=$((1 + R))
	if [ "$MODE" != group ]; then
		MODE=group
		routes_apply 1 2 3 4 || return 1
		resumed "routes moved to nexthop groups" || return 0
	fi
	ip -n "$(ns r1)" -batch - <<-EOF || return 1
		nexthop del id $k
		nexthop del id $((10 + k))
	EOF
	without_path $k "nexthops $k and $((10 + k)) deleted"
	{
		nexthops_batch $k
		echo "nexthop replace id 10 group 1/2/3/4"
		echo "nexthop replace id 20 group 11/12/13/14"
	} | ip -n "$(ns r1)" -batch - || return 1
	resumed "nexthops $k and $((10 + k)) added back" || return 0
	rnd 4
	w=$((1 + R))
	ip -n "$(ns r1)" -batch - <<-EOF || return 1
		nexthop replace id 10 group 1,$w/2/3,$((5 - w))/4
		nexthop replace id 20 group 11/12,$w/13/14,$((5 - w))
	EOF
	resumed "groups replaced with weights"
}

op_link()
{
	local k

	rnd 3
	k=$((2 + R))

	ip -n "$(ns r1)" link set "p$k" down || return 1
	without_path $k "p$k down"
	r1_restore || return 1
	resumed "p$k up"
}

op_qdisc()
{
	local k i child

	rnd 4
	k=$((1 + R))
	rnd ${#CHILDREN[@]}
	child=${CHILDREN[R]}
	if [[ " ${QDISC_ON[*]} " == *" $k "* ]]; then
		# shellcheck disable=SC2086 # the child's options are words
		tc_ars r1 qdisc replace dev "p$k" parent 1:1 handle 10: $child ||
			return 1
		resumed "p$k's ars child replaced by ${child%% *}" || return 0
		tc_ars r1 qdisc del dev "p$k" parent 1:1 || return 1
		resumed "p$k's ars child deleted" || return 0
		tc_ars r1 qdisc del dev "p$k" root || return 1
		QDISC_ON=("${QDISC_ON[@]/$k}")
		resumed "p$k's ars qdisc deleted"
	else
		tc_ars r1 qdisc add dev "p$k" root handle 1: ars \
			bandwidth 20mbit || return 1
		QDISC_ON+=("$k")
		resumed "ars qdisc on p$k"
	fi
	# Now and then, every ars qdisc away, so that rmmod can happen.
	rnd 3
	if [ "$R" -eq 0 ]; then
		for i in "${QDISC_ON[@]}"; do
			[ -n "$i" ] || continue
			tc_ars r1 qdisc del dev "p$i" root || return 1
		done
		QDISC_ON=()
	fi
}

op_netns()
{
	local n=c$NS_SEQ

	NS_SEQ=$((NS_SEQ + 1))
	ns_create "$n" || return 1
	arsctl_ns "$n" set state on mode flowlet-random || return 1
	NS_LIVE+=("$n")
	if [ ${#NS_LIVE[@]} -gt 2 ]; then
		ip netns del "$(ns "${NS_LIVE[0]}")" || return 1
		NS_LIVE=("${NS_LIVE[@]:1}")
	fi
}

# Unload when nothing holds the module (an ars qdisc does), load again,
# and ars on where it was.
op_module()
{
	local n

	if [ -n "${QDISC_ON[*]// }" ]; then
		OPS[module-busy]=$((${OPS[module-busy]:-0} + 1))
		return 0
	fi
	rmmod ars || return 1
	resumed "rmmod ars (the kernel's own multipath)" || return 0
	insmod "$ARS_KO" || return 1
	arsctl_ns r1 set state on mode flowlet-quality || return 1
	for n in "${NS_LIVE[@]}"; do
		arsctl_ns "$n" set state on || return 1
	done
	resumed "insmod ars"
}

start_traffic()
{
	# The senders outlast the churn, which may run past DUR until each
	# operation ran once: stop_traffic ends them.
	local secs=$((DUR + 900))

	rm -f "$TMPD"/ready*
	ip netns exec "$(ns h2)" "$UDPGEN" recv -4 -p $PORT4 -t 20 -w 30 \
		-r "$TMPD/ready4" >"$TMPD/recv4.json" &
	RECV4=$!
	ip netns exec "$(ns h2)" "$UDPGEN" recv -6 -p $PORT6 -t 20 -w 30 \
		-r "$TMPD/ready6" >"$TMPD/recv6.json" &
	RECV6=$!
	BG_PIDS="$BG_PIDS $RECV4 $RECV6"
	ip netns exec "$(ns h2)" iperf3 -s -1 -p $PORT_TCP \
		>"$TMPD/iperf-s.log" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	wait_until 20 test -e "$TMPD/ready4" -a -e "$TMPD/ready6" || return 1
	ip netns exec "$(ns h1)" "$UDPGEN" send -4 -d $MP_H2_4 -p $PORT4 \
		-f 8 -n 0 -T "$secs" -g 5ms -S 20000 >"$TMPD/send4.json" 2>&1 &
	SEND4=$!
	ip netns exec "$(ns h1)" "$UDPGEN" send -6 -d $MP_H2_6 -p $PORT6 \
		-f 4 -n 0 -T "$secs" -g 10ms -S 21000 >"$TMPD/send6.json" 2>&1 &
	SEND6=$!
	sleep 1
	# TCP for the churn's duration: iperf3 reports only when it ends.
	ip netns exec "$(ns h1)" timeout $((DUR + 120)) iperf3 -c $MP_H2_4 \
		-p $PORT_TCP -P 2 -b 1M -t "$DUR" -J >"$TMPD/tcp.json" 2>&1 &
	TCP=$!
	BG_PIDS="$BG_PIDS $SEND4 $SEND6 $TCP"
	resumed "the start of the traffic"
}

stop_traffic()
{
	kill -INT "$SEND4" "$SEND6" 2>/dev/null
	wait "$SEND4" "$SEND6" "$TCP" 2>/dev/null
	# The receivers stop 20 s after their last packet.
	kill -INT "$RECV4" "$RECV6" 2>/dev/null
	wait "$RECV4" "$RECV6" 2>/dev/null
	BG_PIDS=
}

churn_under_traffic()
{
	local ops=(mode route nexthop link qdisc netns module) op t0 i=0
	local s4 r4 s6 r6 tcp summary

	RET=0
	start_traffic || { check_err 1 "no traffic at the start"; }
	t0=$(uptime_s)
	# Every operation once, in turn, however long that takes (on the
	# debug kernel under TCG, 10-20 s each), then until DUR is over each
	# in turn or, half of the time, a random one instead.
	while { [ $(($(uptime_s) - t0)) -lt "$DUR" ] || [ $i -lt ${#ops[@]} ]; } &&
	      [ "$RET" -eq 0 ]; do
		op=${ops[$((i % ${#ops[@]}))]}
		if [ $i -ge ${#ops[@]} ]; then
			rnd 2
			[ "$R" -eq 0 ] || { rnd ${#ops[@]}; op=${ops[R]}; }
		fi
		i=$((i + 1))
		log_info "churn: $(($(uptime_s) - t0)) s: $op"
		if ! "op_$op"; then
			check_err 1 "operation $op failed"
		fi
		OPS[$op]=$((${OPS[$op]:-0} + 1))
	done
	t0=$(($(uptime_s) - t0))
	stop_traffic
	s4=$(jq -r '.sent' "$TMPD/send4.json" 2>/dev/null)
	r4=$(jq -r '.received' "$TMPD/recv4.json" 2>/dev/null)
	s6=$(jq -r '.sent' "$TMPD/send6.json" 2>/dev/null)
	r6=$(jq -r '.received' "$TMPD/recv6.json" 2>/dev/null)
	tcp=$(jq -r '.end.sum_received.bytes // "none"' "$TMPD/tcp.json" \
		2>/dev/null)
	summary=
	for op in "${!OPS[@]}"; do
		summary="$summary $op=${OPS[$op]}"
	done
	log_info "churn: $i operations in $t0 s:$summary"
	log_info "churn: $REMOVALS path removals, forwarding resumed $RESUMES times"
	log_info "churn: UDP/IPv4 sent ${s4:-?} received ${r4:-?}; UDP/IPv6 sent ${s6:-?} received ${r6:-?}; TCP ${tcp:-?} bytes received"
	[ "${r4:-0}" -gt 0 ] && [ "${r6:-0}" -gt 0 ]
	check_err $? "UDP received: IPv4 ${r4:-none}, IPv6 ${r6:-none}"
	[[ ${tcp:-none} =~ ^[0-9]+$ ]] && [ "$tcp" -gt 0 ]
	check_err $? "TCP received ${tcp:-none} bytes"
	log_test "churn under UDP and TCP traffic for $t0 s ($i operations, $REMOVALS path removals): forwarding resumed after each, nothing left on a removed path"
}

setup_prepare()
{
	TMPD=$(mktemp -d)
	# The module reloaded here is the one under test even if the host
	# rebuilds ars.ko meanwhile (the guest reads the host's files live).
	cp "$ARS_KO" "$TMPD/ars.ko" && ARS_KO=$TMPD/ars.ko || return 1
	mp_topo_create || return 1
	r1_restore || return 1
	ip netns exec "$(ns r1)" sleep 1000000 &
	R1_PID=$!
	ip netns exec "$(ns h2)" sleep 1000000 &
	H2_PID=$!
	wait_until 10 grep -q '^ *p4:' "/proc/$R1_PID/net/dev" || return 1
	wait_until 10 grep -q '^ *eth0:' "/proc/$H2_PID/net/dev" || return 1
	arsctl_ns r1 set state on mode flowlet-quality
}

require_root
require_cmd jq iperf3 tc "$ARSCTL" "$UDPGEN"
require_tc_plugin
[ -n "$ARS_KO" ] || { echo "SKIP: ARS_KO not set"; exit $ksft_skip; }
trap cleanup EXIT
ars_load
setup_prepare || { echo "not ok - ars_churn.sh: setup failed"; exit 1; }
echo "# ars_churn.sh: ARS_SEED=$SEED"
tests_run
exit $EXIT_STATUS
