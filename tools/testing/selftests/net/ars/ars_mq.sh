#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multi-queue form an operator applies (packaging/ars-mq-setup): mq at
# the root of a device with several transmit queues, an ars qdisc under
# each queue, fq_codel under each ars; what the device's figures are then,
# and that a device created later gets its qdiscs from tc.conf through the
# udev rule's helper (packaging/ars-tc-dev, run here as udev runs it).
#
#   +--------+      +--------------------+  eth1, eth2: veth of 4 tx    +---------+
#   | h1     +------+ r  10.1.0.0/16 via +==== queues each, mq + 4 x ===+ r2      |
#   | 10.0.0.1      |  eth1 and eth2     |    (ars + fq_codel)          | drops   |
#   +--------+      +--------------------+                              +---------+
#
# h1 sends 64 UDP flows to 10.1.9.1; r spreads them over eth1 and eth2 and
# the kernel's transmit hash over the queues of each.

ALL_TESTS="
	mq_form_applied
	mq_form_idempotent
	device_figures_aggregate_queues
	fq_codel_stays_under_ars
	late_device_gets_its_qdiscs
"
source "$(dirname "$0")/lib.sh"

NOT_ON_DEBUG=(
	[device_figures_aggregate_queues]="a rate within a factor of 4 of what the device carried"
)

DST=10.1.9.1
TXQ=4
MQ_SETUP=$ARS_TOP/packaging/ars-mq-setup
TMPD=
SEND_PID=
R_PIN=

cleanup()
{
	local p

	for p in $SEND_PID $R_PIN; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ns_destroy_all
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

# in_r CMD...: CMD in r, with tc's plugin and the helpers as installed.
in_r()
{
	ip netns exec "$(ns r)" env PATH="$TMPD/bin:$PATH" \
		TC_LIB_DIR="$ARS_TC_LIB_DIR" "$@"
}

# mq_link DEV: a veth DEV of $TXQ queues each way between r and r2.
mq_link()
{
	ip link add "$1" netns "$(ns r)" numtxqueues $TXQ numrxqueues $TXQ \
		type veth peer name "$1" netns "$(ns r2)" \
		numtxqueues $TXQ numrxqueues $TXQ || return 1
	ip -n "$(ns r)" link set "$1" up && ip -n "$(ns r2)" link set "$1" up
}

setup_prepare()
{
	TMPD=$(mktemp -d) || exit 1
	mkdir "$TMPD/bin" || exit 1
	ln -s "$ARSCTL" "$TMPD/bin/arsctl" || exit 1
	ln -s "$MQ_SETUP" "$TMPD/bin/ars-mq-setup" || exit 1
	sed -e 's|@SYSCONFDIR@|/etc|g' "$ARS_TOP/packaging/ars-tc-dev" \
		>"$TMPD/bin/ars-tc-dev" && chmod +x "$TMPD/bin/ars-tc-dev" ||
		exit 1
	ns_create h1 r r2 || exit 1
	veth_link h1 eth0 r eth0 || exit 1
	mq_link eth1 || exit 1
	mq_link eth2 || exit 1
	printf '%s\n' "addr add 10.0.0.1/24 dev eth0" \
		"route add default via 10.0.0.254" |
		ip -n "$(ns h1)" -batch - || exit 1
	printf '%s\n' "addr add 10.0.0.254/24 dev eth0" \
		"addr add 10.0.1.1/24 dev eth1" "addr add 10.0.2.1/24 dev eth2" \
		"route add 10.1.0.0/16 nexthop via 10.0.1.2 nexthop via 10.0.2.2" |
		ip -n "$(ns r)" -batch - || exit 1
	printf '%s\n' "addr add 10.0.1.2/24 dev eth1" \
		"addr add 10.0.2.2/24 dev eth2" "route add blackhole 10.1.0.0/16" |
		ip -n "$(ns r2)" -batch - || exit 1
	arsctl_ns r set state on mode flowlet-random idle-time 256us || exit 1
	pin_ns r
	R_PIN=$NS_PIN_PID
}

# qdiscs DEV: "KIND HANDLE PARENT" of each qdisc of DEV in r, sorted.
qdiscs()
{
	in_r tc -j qdisc show dev "$1" |
		jq -r '.[] | "\(.kind) \(.handle) \(.parent // "root")"' | sort
}

# want_qdiscs DEV: what qdiscs prints for the mq form of $TXQ queues.
want_qdiscs()
{
	local i

	{
		echo "mq 1: root"
		for i in $(seq 1 $TXQ); do
			echo "ars 100$i: 1:$i"
			echo "fq_codel 200$i: 100$i:1"
		done
	} | sort
}

# 1. ars-mq-setup on both devices: mq, ars per queue, fq_codel under each.
mq_form_applied()
{
	local dev

	RET=0
	# eth1 as the old README left it: ars at the root, handle 1:.
	in_r tc qdisc add dev eth1 root handle 1: ars
	check_err $? "ars at eth1's root"
	for dev in eth1 eth2; do
		in_r ars-mq-setup "$dev" bandwidth 10gbit interval 1s
		check_err $? "ars-mq-setup $dev"
		check_eq "$(qdiscs $dev)" "$(want_qdiscs)" "$dev's qdiscs"
	done
	check_eq "$(arsctl_ns r -j ports | jq -c '[.[] |
		select(.ifname == "eth1" or .ifname == "eth2") |
		[.ifname, .qdisc, .bandwidth_bits_per_s]] | sort')" \
		'[["eth1",true,10000000000],["eth2",true,10000000000]]' \
		"arsctl ports: both devices measured at 10gbit"
	log_test "ars-mq-setup: mq, an ars qdisc per tx queue, fq_codel under each (over a root ars too)"
}

# 2. Applied again (ars.service's reload, the udev rule): no error, the
# same qdiscs, and the ars qdiscs keep their counters (changed, not
# replaced by new ones).
mq_form_idempotent()
{
	local before after

	RET=0
	in_ns h1 "$UDPGEN" send -d "$DST" -f 16 -n 20 -g 2ms -s 200 >/dev/null
	check_err $? "traffic before"
	before=$(in_r tc -s -j qdisc show dev eth1 |
		jq '[.[] | select(.kind == "ars") | .packets] | add')
	in_r ars-mq-setup eth1 bandwidth 10gbit interval 1s
	check_err $? "ars-mq-setup eth1 again"
	in_r ars-mq-setup -n eth1 bandwidth 10gbit interval 1s |
		in_r tc -b -
	check_err $? "its lines with tc -b, a third time"
	check_eq "$(qdiscs eth1)" "$(want_qdiscs)" "eth1's qdiscs"
	after=$(in_r tc -s -j qdisc show dev eth1 |
		jq '[.[] | select(.kind == "ars") | .packets] | add')
	[ "${before:-0}" -gt 0 ] && [ "$after" = "$before" ]
	check_err $? "ars packets before $before, after $after"
	log_test "ars-mq-setup applied twice: same qdiscs, counters kept"
}

# sums FILE: "RATE BACKLOG" summed over the ars qdiscs of a tc -s -j.
sums()
{
	jq -r '[.[] | select(.kind == "ars") | .ars] |
		"\(map(.rate_bits_per_s) | add) \(map(.backlog_bytes) | add)"' "$1"
}

# 3. Under load the device's entry is its queues' sum: arsctl's rate and
# backlog lie between the sums of two tc readings around it (each figure
# holds for the 1 s interval, so usually equal to both), the queues'
# bytes add up to what ip -s link counts the device sent, and the rate
# is within a factor of 4 of what the device carried over the last
# seconds (ewma-shift 2 averages about 4 intervals; the VM stalls).
device_figures_aggregate_queues()
{
	local dev t0 b0 t1 b1 bps q0 q1 l0 l1 used rate ok i
	local -a s1 s2 p

	RET=0
	arsctl_ns r set ewma-shift 2
	in_r tc -s -j qdisc show dev eth1 >"$TMPD/q0.json"
	ip -n "$(ns r)" -s -j link show dev eth1 >"$TMPD/l0.json"
	ip netns exec "$(ns h1)" "$UDPGEN" send -d "$DST" -f 64 -n 0 \
		-T 60s -g 1ms -s 1400 >/dev/null &
	SEND_PID=$!
	sleep 6
	for dev in eth1 eth2; do
		ok=
		for i in 1 2 3 4 5; do
			read -r t0 b0 _ <<<"$(proc_dev_tx "$R_PIN" $dev)"
			sleep 3
			in_r tc -s -j qdisc show dev $dev >"$TMPD/a.json"
			read -r -a p <<<"$(arsctl_ns r -j ports dev $dev |
				jq -r '.[0] | "\(.rate_bits_per_s) \(.backlog_bytes)"')"
			in_r tc -s -j qdisc show dev $dev >"$TMPD/b.json"
			read -r t1 b1 _ <<<"$(proc_dev_tx "$R_PIN" $dev)"
			read -r -a s1 <<<"$(sums "$TMPD/a.json")"
			read -r -a s2 <<<"$(sums "$TMPD/b.json")"
			bps=$(( (b1 - b0) * 8 * 1000000 / (t1 - t0) ))
			used=$(jq '[.[] | select(.kind == "ars" and
				.ars.rate_bits_per_s > 0)] | length' "$TMPD/a.json")
			log_info "$dev: queues $(jq -c '[.[] | select(.kind == "ars") | .ars.rate_bits_per_s]' "$TMPD/a.json") sum ${s1[0]} / ${s2[0]}, arsctl ${p[0]} bit/s, backlog ${p[1]}; carried $bps bit/s"
			rate=${p[0]}
			if [ "$used" -ge 2 ] &&
			   [ "$rate" -ge "$(min "${s1[0]}" "${s2[0]}")" ] &&
			   [ "$rate" -le "$(max "${s1[0]}" "${s2[0]}")" ] &&
			   [ "${p[1]}" -ge "$(min "${s1[1]}" "${s2[1]}")" ] &&
			   [ "${p[1]}" -le "$(max "${s1[1]}" "${s2[1]}")" ]; then
				ok=1
				break
			fi
		done
		[ -n "$ok" ]
		check_err $? "$dev: arsctl (${p[*]}) never between the queues' sums (${s1[*]}, ${s2[*]}) with 2 queues or more in use (last $used)"
		[ "$rate" -gt 0 ] && [ "$rate" -ge $((bps / 4)) ] &&
			[ "$rate" -le $((bps * 4)) ]
		check_err $? "$dev: rate $rate bit/s, carried $bps bit/s"
	done
	kill "$SEND_PID" 2>/dev/null
	wait "$SEND_PID" 2>/dev/null
	SEND_PID=
	sleep 0.2
	in_r tc -s -j qdisc show dev eth1 >"$TMPD/q1.json"
	ip -n "$(ns r)" -s -j link show dev eth1 >"$TMPD/l1.json"
	q0=$(jq '[.[] | select(.kind == "ars") | .bytes] | add' "$TMPD/q0.json")
	q1=$(jq '[.[] | select(.kind == "ars") | .bytes] | add' "$TMPD/q1.json")
	l0=$(jq '.[0].stats64.tx.bytes' "$TMPD/l0.json")
	l1=$(jq '.[0].stats64.tx.bytes' "$TMPD/l1.json")
	log_info "eth1: the ars qdiscs sent $((q1 - q0)) bytes, ip -s link counts $((l1 - l0))"
	[ $((q1 - q0)) -gt 1000000 ] &&
		[ $(( (q1 - q0) * 1000 )) -ge $(( (l1 - l0) * 999 )) ] &&
		[ $(( (q1 - q0) * 1000 )) -le $(( (l1 - l0) * 1001 )) ]
	check_err $? "eth1: the queues' ars sent $((q1 - q0)) bytes, the device $((l1 - l0)) (within 0.1%)"
	arsctl_ns r set ewma-shift 3
	log_test "the device's rate and backlog are its queues' sums; their bytes the device's"
}

min()
{
	echo $(( $1 < $2 ? $1 : $2 ))
}

max()
{
	echo $(( $1 > $2 ? $1 : $2 ))
}

# 4. fq_codel under every ars carried the traffic, and stays there when
# the ars qdiscs change or a qdisc is replaced again.
fq_codel_stays_under_ars()
{
	local dev h i

	RET=0
	for dev in eth1 eth2; do
		check_eq "$(in_r tc -s -j qdisc show dev $dev | jq -c '[.[] |
			select(.kind == "fq_codel" and .packets > 0)] | length > 1')" \
			true "$dev: fq_codel qdiscs with traffic"
		for i in $(seq 1 $TXQ); do
			h=100$i
			echo "qdisc change dev $dev parent 1:$i handle $h: ars bandwidth 25gbit"
		done | in_r tc -b -
		check_err $? "$dev: change every ars qdisc"
		check_eq "$(qdiscs $dev)" "$(want_qdiscs)" \
			"$dev's qdiscs after tc qdisc change"
	done
	check_eq "$(arsctl_ns r -j ports dev eth1 | jq .[0].bandwidth_bits_per_s)" \
		25000000000 "eth1's bandwidth after the change"
	in_ns h1 "$UDPGEN" send -d "$DST" -f 16 -n 20 -g 2ms -s 200 >/dev/null
	check_eq "$(arsctl_ns r -j stats | jq .unknown_quality)" 0 \
		"choices that met a device without an ars qdisc"
	log_test "fq_codel stays under each ars qdisc through tc qdisc change"
}

# 5. A device that appears after boot: its lines in tc.conf, written by
# ars-mq-setup -n, are applied by ars-tc-dev as the udev rule runs it;
# another device's lines are not.
late_device_gets_its_qdiscs()
{
	local conf=$TMPD/tc.conf

	RET=0
	mq_link eth3 || { check_err 1 "eth3"; log_test "late device"; return; }
	{
		echo "# /etc/ars/tc.conf"
		in_r ars-mq-setup -n eth3 bandwidth 1gbit
		echo "qdisc replace dev eth4 root handle 1: ars"
	} >"$conf"
	ip -n "$(ns r)" link del eth3
	check_eq "$(grep -c 'dev eth3 ' "$conf")" $((1 + 2 * TXQ)) \
		"tc.conf lines for eth3"
	mq_link eth3
	check_err $? "eth3 appears"
	in_r env ARS_TC_CONF="$conf" ars-tc-dev eth3
	check_err $? "ars-tc-dev eth3"
	check_eq "$(qdiscs eth3)" "$(want_qdiscs)" "eth3's qdiscs"
	in_r env ARS_TC_CONF="$conf" ars-tc-dev eth0
	check_err $? "ars-tc-dev eth0 (no line)"
	check_eq "$(in_r tc -j qdisc show dev eth0 | jq -r '[.[].kind] | join(" ")')" \
		noqueue "eth0 untouched"
	check_eq "$(arsctl_ns r -j ports dev eth3 |
		jq -c '.[0] | [.qdisc, .bandwidth_bits_per_s]')" \
		'[true,1000000000]' "eth3 measured at 1gbit"
	log_test "a device created later gets its tc.conf lines from ars-tc-dev"
}

require_root
require_cmd jq tc seq "$ARSCTL" "$UDPGEN"
require_tc_plugin
ars_loaded || ars_load || { echo "SKIP: ars.ko not loaded"; exit $ksft_skip; }

trap cleanup EXIT
setup_prepare
tests_run
exit $EXIT_STATUS
