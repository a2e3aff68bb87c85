#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dumps that span a change are flagged (NLM_F_DUMP_INTR), as the kernel's
# own dumps of routes and next hops are: genl_raw.py dump reads a dump in
# parts of 4 kB and changes something after the first part.
#
# ports: 200 dummy devices make a dump of many parts; one more device
# (a port added) between two parts flags the dump, none does not.
#
# flows: the four-path topology of lib.sh with 400 flows from h1, 400
# macro-flow entries in r1; ars turned off and on again between two parts
# (a new table, whose entries the rest of the dump cannot follow) flags
# the dump. The table's sequence number used to restart at 1 with each new
# table, so a dump across off and on went unflagged.
#
# Each dump without a change must also give each entry exactly once
# across its parts (genl_dump.py: the entries' attributes): a duplicate
# or a lost entry at a part boundary passed when only messages were
# counted. ports: 200 dummies, each ifindex once, none missing; flows:
# each table index once, and the entries' flowlets add up to the
# namespace's flowlets counter (each of the 400 flows started one, in a
# fresh table), so an entry missing or dumped twice changes the sum.
#
# flows get (the do of the flows command, as ip route get): on the same
# topology with a fresh table, one UDP flow of 8 packets from h1 to h2,
# IPv4 then IPv6. The entry that arsctl flows get names, with iif h1 and
# without (every device tried), leaves by the one port of p1..p4 whose
# tx_packets grew by the 8 packets, is active and counts 1 flowlet; read
# again, it is the same entry, older (its age_ns, also as idle_ns). A 5-tuple never sent is
# ENOENT with the kernel's reason; malformed requests (genl_raw.py) are
# EINVAL (ERANGE out of the policy's ranges), an unknown iif ENODEV, each
# with the attribute at fault and a message.
#
# flows ages while r1 forwards: 64 flows from h1, a packet of each every 2
# ms at idle-time 1 ms, so that every packet starts a flowlet and writes
# its entry's time, and 10 flows dumps of a table of 2^20 entries
# meanwhile, on the other CPU. No entry of a table made in this case can
# be older than the case: each age must be under the time since ars was
# turned on. The dump used to read its clock once per part and the entries
# after it, so an entry that a forwarding CPU wrote in between was ahead
# of that clock, and its age came out modulo 2^40 units of 64 ns: about
# 19.5 hours. (Before the fix, 35 and 39 of 40 such dumps had one, on 6.1
# and 6.12.)

ALL_TESTS="
	ports_dump_flagged
	flows_dump_flagged
	flows_get
	flows_ages_while_forwarding
"
source "$(dirname "$0")/lib.sh"
CASE_RESULTS=([ports_dump_flagged]=2 [flows_dump_flagged]=2 [flows_get]=3
	[flows_ages_while_forwarding]=1)

GENL_RAW=$ARS_LIB_DIR/genl_raw.py
GENL_DUMP=$ARS_LIB_DIR/genl_dump.py
TMPD_AGES=$(mktemp)
ARS_CMD_FLOWS_GET=5
ARS_CMD_PORT_INFO_GET=6

R1_PID=

cleanup()
{
	[ -z "$R1_PID" ] || kill "$R1_PID" 2>/dev/null
	rm -f "$TMPD_AGES"
	ns_destroy_all
	ars_load
}

# dump NS CMD SHELLCMD: genl_raw.py's JSON for the dump of CMD in NS.
dump()
{
	in_ns "$1" python3 "$GENL_RAW" dump "$2" "$3"
}

# each_once NS CMD KEY: genl_dump.py's dump of CMD in NS, without a
# change; checks that it succeeded unflagged in more than 2 parts and that
# no two entries share attribute KEY. Sets EACH_OUT to its JSON.
each_once()
{
	local dups

	EACH_OUT=$(in_ns "$1" python3 "$GENL_DUMP" "$2")
	check_eq "$(jq -r '"\(.error) \(.intr) \(.parts > 2)"' <<<"$EACH_OUT")" \
		"0 false true" "dump of command $2: error, intr, parts > 2"
	dups=$(jq -r --arg k "$3" '[.entries[][$k]] | group_by(.) |
		map(select(length > 1) | "\(.[0]) x\(length)") | .[]' \
		<<<"$EACH_OUT")
	check_none "$dups" "$EACH_OUT" "dump of command $2: entries twice"
	log_info "dump of command $2: $(jq -c '{parts, entries: (.entries | length)}' <<<"$EACH_OUT")"
}

ports_dump_flagged()
{
	local i out want missing

	RET=0
	ns_create a || { check_err 1 "namespace"; log_test "port-info dump"; return; }
	for i in $(seq 1 200); do
		echo "link add d$i type dummy"
	done | ip -n "$(ns a)" -batch -
	check_err $? "200 dummy devices"
	out=$(dump a "$ARS_CMD_PORT_INFO_GET" true)
	log_info "ports, nothing changed: $out"
	check_eq "$(jq -r '"\(.error) \(.intr) \(.parts > 3) \(.messages >= 200)"' <<<"$out")" \
		"0 false true true" "port-info dump without a change: error, intr, parts, messages"
	out=$(dump a "$ARS_CMD_PORT_INFO_GET" "ip link add d201 type dummy")
	log_info "ports, a port added: $out"
	check_eq "$(jq -r '"\(.error) \(.intr)"' <<<"$out")" "0 true" \
		"port-info dump across a new device: error, intr"
	out=$(dump a "$ARS_CMD_PORT_INFO_GET" "ip link del d100")
	log_info "ports, a port removed: $out"
	check_eq "$(jq -r '"\(.error) \(.intr)"' <<<"$out")" "0 true" \
		"port-info dump across a device's removal: error, intr"
	log_test "a port-info dump across a port's coming or going is flagged, one without is not"

	RET=0
	each_once a "$ARS_CMD_PORT_INFO_GET" 1
	want=$(ip -n "$(ns a)" -j link show type dummy | jq -c '[.[].ifindex] | sort')
	missing=$(jq -r --argjson w "$want" \
		'$w - [.entries[]["1"]] | .[]' <<<"$EACH_OUT")
	check_none "$missing" "$want" "port-info dump: dummies' ifindexes missing"
	check_eq "$(jq length <<<"$want")" 200 "dummy devices"
	log_test "a port-info dump in parts gives each device exactly once"
	ns_destroy_all
}

flows_dump_flagged()
{
	local out n

	RET=0
	mp_topo_create
	check_err $? "topology"
	mp_route4
	check_err $? "r1's route"
	arsctl_ns r1 set state on mode flowlet-random idle-time 1s
	check_err $? "arsctl set state on"
	in_ns h1 "$UDPGEN" send -d 10.3.0.1 -f 400 -n 1 \
		-S 20000 >/dev/null
	check_err $? "400 flows from h1"
	n=$(arsctl_ns r1 -j flows | jq length)
	log_info "r1 has $n macro-flow entries"
	[ "${n:-0}" -ge 200 ]
	check_err $? "only ${n:-0} entries: the dump would be too short"
	out=$(dump r1 "$ARS_CMD_FLOWS_GET" true)
	log_info "flows, nothing changed: $out"
	check_eq "$(jq -r '"\(.error) \(.intr) \(.parts > 2)"' <<<"$out")" \
		"0 false true" "flows dump without a change: error, intr, parts"
	out=$(dump r1 "$ARS_CMD_FLOWS_GET" \
		"$ARSCTL set state off && $ARSCTL set state on")
	log_info "flows, ars off and on: $out"
	check_eq "$(jq -r '"\(.error) \(.intr)"' <<<"$out")" "0 true" \
		"flows dump across off and on: error, intr"
	log_test "a flows dump across ars off and on is flagged, one without is not"

	# A fresh table (off and on above), then the 400 flows again.
	RET=0
	arsctl_ns r1 stats reset
	check_err $? "arsctl stats reset"
	in_ns h1 "$UDPGEN" send -d 10.3.0.1 -f 400 -n 1 \
		-S 20000 >/dev/null
	check_err $? "400 flows from h1"
	each_once r1 "$ARS_CMD_FLOWS_GET" 1
	n=$(jq '.entries | length' <<<"$EACH_OUT")
	[ "${n:-0}" -ge 200 ]
	check_err $? "only ${n:-0} entries"
	check_eq "$(jq '[.entries[]["9"]] | add' <<<"$EACH_OUT")" \
		"$(arsctl_ns r1 -j stats | jq .flowlets)" \
		"flows dump: the entries' flowlets against the flowlets counter"
	log_test "a flows dump in parts gives each entry exactly once"
}

# flow_sent SRC DST: one UDP flow from h1 (source port 30000, to port 9)
# of 8 packets; PORT_OUT is the one port of r1's p1..p4 that sent them
# all, while the others sent none, or empty.
flow_sent()
{
	local -a before
	local i

	tx_read
	before=("${TX[@]}")
	py_send -p 30000 "$2" 1 8
	wait_until 5 eval 'tx_delta before; [ $((TXD[0] + TXD[1] + TXD[2] + TXD[3])) -ge 8 ]'
	tx_delta before
	log_info "$1 -> $2: tx p1..p4 ${TXD[*]}"
	PORT_OUT=
	for i in 0 1 2 3; do
		[ "${TXD[i]}" -eq 0 ] || [ "${TXD[i]}" -eq 8 ] || return
		[ "${TXD[i]}" -eq 0 ] || PORT_OUT=p$((i + 1))
	done
}

# The request attributes of flows get, for genl_raw.py: ARS_A_FLOW_SRC
# (13) to ARS_A_FLOW_FLOWLABEL (21).
A_SRC=13 A_DST=14 A_PROTO=15 A_SPORT=16 A_IIF=19 A_TOS=20 A_LABEL=21
H1_HEX=0a010001 H2_HEX=0a030001 H2_6_HEX=fd000003000000000000000000000001

# Requests the kernel refuses: "ERRNO ATTR MESSAGE|ATTRIBUTES", ATTR the
# attribute the kernel points at (null: none), MESSAGE its extended ACK
# (-: the policy's own, any non-empty one). A value out of
# the policy's range is ERANGE, as the kernel's policies say it.
flows_get_refused()
{
	local v4="$A_SRC:raw:$H1_HEX $A_DST:raw:$H2_HEX"
	local v6="$A_SRC:raw:$H2_6_HEX $A_DST:raw:$H2_6_HEX"

	cat <<-END
	22 null ars: src, dst and proto are required|$A_DST:raw:$H2_HEX $A_PROTO:u8:17
	22 $A_SRC -|$A_SRC:raw:0a0100010a $A_DST:raw:$H2_HEX $A_PROTO:u8:17
	34 $A_SRC -|$A_SRC:raw:0a01 $A_DST:raw:$H2_HEX $A_PROTO:u8:17
	22 $A_SRC src must be an IPv4 (4 bytes) or IPv6 (16 bytes) address|$A_SRC:raw:0a0100010a0a $A_DST:raw:$H2_HEX $A_PROTO:u8:17
	22 $A_DST dst must be of the family of src|$A_SRC:raw:$H1_HEX $A_DST:raw:$H2_6_HEX $A_PROTO:u8:17
	22 $A_SPORT ports only with tcp, udp, sctp or udplite: ars keys other protocols by their addresses|$v4 $A_PROTO:u8:1 $A_SPORT:u16:9
	22 $A_SPORT -|$v4 $A_PROTO:u8:17 $A_SPORT:u32:9
	22 $A_TOS tos only with IPv4 addresses|$v6 $A_PROTO:u8:17 $A_TOS:u8:4
	22 $A_LABEL -|$v6 $A_PROTO:u8:17 $A_LABEL:u32:0x100000
	22 $A_LABEL flowlabel only with IPv6 addresses|$v4 $A_PROTO:u8:17 $A_LABEL:u32:1
	34 $A_IIF -|$v4 $A_PROTO:u8:17 $A_IIF:u32:0
	19 $A_IIF iif: no such device|$v4 $A_PROTO:u8:17 $A_IIF:u32:99999
	22 1 -|1:u32:5 $v4 $A_PROTO:u8:17
	END
}

# genl_fields JSON: genl_raw.py's answer as "ERRNO ATTR MESSAGE" (ATTR
# null when none), by the shell alone: json.dumps writes its keys in one
# order, and the kernel's messages hold no quote.
genl_fields()
{
	local re='^\{"error": ([0-9]+), "msg": "([^"]*)", "offset": [0-9a-z]+, "attr": ([0-9a-z]+)\}$'

	[[ $1 =~ $re ]] || { echo "unparsed: $1"; return; }
	echo "${BASH_REMATCH[1]} ${BASH_REMATCH[3]} ${BASH_REMATCH[2]}"
}

IDLE_NS=1000000000	# the idle time flows_get sets

# The keys of flows get -j that the case compares, on one line.
FLOW_KEYS='"\(.index) \(.ifname) \(.active) \(.flowlets) \(.iif_name) \(has("nexthop")) \(.age_ns) \(.idle_ns == .age_ns)"'

flows_get()
{
	local fam src dst out line n e a m req got idx dev act fl iif nh age alias
	local -a again answers

	RET=0
	[ -e "/run/netns/$(ns r1)" ] || mp_topo_create
	check_err $? "topology"
	mp_route4 && mp_route6
	check_err $? "r1's routes"
	# A fresh table: no entry of the dump's flows.
	arsctl_ns r1 set state off &&
		arsctl_ns r1 set state on mode flowlet-quality idle-time 1s
	check_err $? "arsctl set state on"
	pin_ns r1
	R1_PID=$NS_PIN_PID
	# /proc/PID/net is the namespace of PID: r1's only once ip netns
	# exec has entered it, which pin_ns does not wait for.
	wait_for test "/proc/$R1_PID/ns/net" -ef "/run/netns/$(ns r1)"
	check_err $? "the pinned process in r1"
	for fam in 4 6; do
		src=$MP_H1_4 dst=$MP_H2_4
		[ $fam = 4 ] || src=$MP_H1_6 dst=$MP_H2_6
		flow_sent "$src" "$dst"
		[ -n "$PORT_OUT" ]
		check_err $? "IPv$fam: the flow's 8 packets not on one port: ${TXD[*]}"
		out=$(arsctl_ns r1 -j flows get from "$src" to "$dst" \
			proto udp sport 30000 dport 9 iif h1)
		check_err $? "IPv$fam: flows get"
		log_info "IPv$fam: $out"
		read -r idx dev act fl iif nh age alias < <(jq -r "$FLOW_KEYS" <<<"$out")
		check_eq "$dev $fl $iif $nh $alias" "$PORT_OUT 1 h1 true true" \
			"IPv$fam: flows get: device, flowlets, iif, nexthop, idle_ns as age_ns"
		# Active while its age is no more than the idle time (1 s):
		# whichever the guest's speed made it, the two agree.
		check_eq "$act" "$( ((age <= IDLE_NS)) && echo true || echo false)" \
			"IPv$fam: active at an age of $age ns"
		# Again, without iif (every device tried), the destination bare.
		read -r -a again < <(arsctl_ns r1 -j flows get "$dst" from "$src" \
			ipproto udp sport 30000 dport 9 | jq -r "$FLOW_KEYS")
		check_eq "${again[*]:0:2} ${again[*]:3:3}" "$idx $dev $fl $iif $nh" \
			"IPv$fam: flows get without iif: the same entry"
		[ "${again[6]:-0}" -gt "${age:-0}" ]
		check_err $? "IPv$fam: the age did not grow: $age ns, then ${again[6]} ns"
		check_eq "${again[2]}" "$( ((again[6] <= IDLE_NS)) && echo true || echo false)" \
			"IPv$fam: active at an age of ${again[6]} ns"
		line=$(arsctl_ns r1 flows get from "$src" to "$dst" proto udp \
			sport 30000 dport 9 iif h1)
		log_info "IPv$fam: $line"
		[[ $line == "entry $idx dev $PORT_OUT nexthop "*" age "*" active flowlets 1 object default iif h1" ||
		   $line == "entry $idx dev $PORT_OUT nexthop "*" age "*" inactive flowlets 1 object default iif h1" ]]
		check_err $? "IPv$fam: flows get's line: $line"
	done
	log_test "flows get names the port the flow's packets left by, IPv4 and IPv6"

	RET=0
	out=$(arsctl_ns r1 flows get from "$MP_H1_4" to "$MP_H2_4" \
		proto udp sport 30001 dport 9 2>&1)
	check_eq "$?: $out" \
		"1: arsctl: no entry holds the flow, from any input device" \
		"a 5-tuple never sent, without iif"
	out=$(arsctl_ns r1 flows get from "$MP_H1_6" to "$MP_H2_6" \
		proto udp sport 30001 dport 9 iif h1 2>&1)
	[ $? -eq 1 ] && [[ $out == "arsctl: no entry holds the flow: its entry "* ]]
	check_err $? "a 5-tuple never sent, iif h1: $out"
	out=$(in_ns r1 "$GENL_RAW" --cmd "$ARS_CMD_FLOWS_GET" set \
		$A_SRC:raw:$H1_HEX $A_DST:raw:$H2_HEX $A_PROTO:u8:17 \
		$A_SPORT:u16:30001)
	check_eq "$(genl_fields "$out")" \
		"2 null ars: no entry holds the flow, from any input device" \
		"raw: a 5-tuple never sent"
	log_test "flows get of a flow never sent: ENOENT, with the kernel's reason"

	RET=0
	out=$(flows_get_refused | while IFS='|' read -r _ req; do
		echo "--cmd $ARS_CMD_FLOWS_GET set $req"
	done | in_ns r1 "$GENL_RAW" batch)
	check_err $? "genl_raw.py batch"
	mapfile -t answers <<<"$out"
	n=0
	while IFS='|' read -r line req; do
		got=$(genl_fields "${answers[n]:-}")
		n=$((n + 1))
		read -r e a m <<<"$line"
		if [ "$m" = - ]; then
			[[ $got == "$e $a "?* ]]
			check_err $? "$req: '$got', expected errno $e, attribute $a and a message"
		else
			check_eq "$got" "$e $a $m" "$req"
		fi
		log_info "refused: $got"
	done < <(flows_get_refused)
	check_eq "${#answers[@]}" "$n" "genl_raw.py answers"
	log_test "flows get requests the kernel refuses: EINVAL, ERANGE or ENODEV, with the attribute and why"

	kill "$R1_PID" 2>/dev/null
	R1_PID=
	ns_destroy_all
}

flows_ages_while_forwarding()
{
	local t0 t1 i n worst bad out pid

	RET=0
	mp_topo_create && mp_route4
	check_err $? "topology"
	t0=$(date +%s%N)
	# The largest table: the longer a dump part's walk, the more often
	# a forwarding CPU writes an entry that the walk has still to read.
	arsctl_ns r1 set state on mode flowlet-random idle-time 1ms \
		table-size 1048576
	check_err $? "arsctl set state on"
	# The sender, and with it r1's forwarding (veth's receive runs on
	# the sending CPU), on CPU 0; the dumps on CPU 1.
	in_ns h1 taskset -c 0 "$UDPGEN" send -d 10.3.0.1 -f 64 -n 0 -g 2ms \
		-T 60 -S 20000 >/dev/null &
	pid=$!
	wait_for eval '[ "$(arsctl_ns r1 -j flows | jq length)" -ge 32 ]'
	check_err $? "fewer than 32 entries in r1 while h1 sends"
	for i in $(seq 10); do
		taskset -c 1 "$ARSCTL" -n "$(ns r1)" -j flows
	done >"$TMPD_AGES"
	t1=$(date +%s%N)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# dumps, entries, the oldest age, dumps with an age over 2^39 units
	# of 64 ns (from the future)
	out=$(jq -s -r '[length, (map(length) | add),
		([.[][].age_ns] | max),
		(map(select(any(.[]; .age_ns > 35184372088832))) | length)] |
		join(" ")' "$TMPD_AGES")
	read -r i n worst bad <<<"$out"
	log_info "$i dumps while h1 sends: $n entries, the oldest $worst ns, $bad dumps with an age over 2^39 units; ars on for $((t1 - t0)) ns"
	[ "$i" -eq 10 ] && [ "${n:-0}" -ge 320 ]
	check_err $? "$i dumps, $n entries: fewer than 10 and 320"
	jq -e -n --argjson w "${worst:-0}" --argjson d "$((t1 - t0))" \
		'$w <= $d' >/dev/null
	check_err $? "an age of $worst ns in a table made $((t1 - t0)) ns ago"
	log_test "flows dumps while r1 forwards: no age older than the table"
	rm -f "$TMPD_AGES"
	ns_destroy_all
}

require_root
require_cmd jq python3 "$ARSCTL" "$UDPGEN" "$GENL_DUMP" "$GENL_RAW"
trap cleanup EXIT
ars_load || exit 1
tests_run
exit "$EXIT_STATUS"
