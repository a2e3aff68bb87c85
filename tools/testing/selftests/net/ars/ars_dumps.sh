#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Dumps that span a change are flagged (NLM_F_DUMP_INTR), as the kernel's
# own dumps of routes and next hops are: genl_raw.py dump reads a dump in
# parts of 4 kB and changes something after the first part.
#
# paths: 200 dummy devices make a dump of many parts; one more device
# (a port added) between two parts flags the dump, none does not.
#
# flows: the four-path topology of lib.sh with 400 flows from h1, 400
# macro-flow entries in r1; ars turned off and on again between two parts
# (a new table, whose entries the rest of the dump cannot follow) flags
# the dump. The table's generation used to restart at 1 with each new
# table, so a dump across off and on went unflagged.
#
# Each dump without a change must also give each entry exactly once
# across its parts (genl_dump.py: the entries' attributes): a duplicate
# or a lost entry at a part boundary passed when only messages were
# counted. paths: 200 dummies, each ifindex once, none missing; flows:
# each table index once, and the entries' flowlets add up to the
# namespace's flowlets counter (each of the 400 flows started one, in a
# fresh table), so an entry missing or dumped twice changes the sum.

ALL_TESTS="
	paths_dump_flagged
	flows_dump_flagged
"
source "$(dirname "$0")/lib.sh"
CASE_RESULTS=([paths_dump_flagged]=2 [flows_dump_flagged]=2)

GENL_RAW=$ARS_LIB_DIR/genl_raw.py
GENL_DUMP=$ARS_LIB_DIR/genl_dump.py
ARS_CMD_FLOWS_GET=5
ARS_CMD_PATHS_GET=6

cleanup()
{
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

paths_dump_flagged()
{
	local i out want missing

	RET=0
	ns_create a || { check_err 1 "namespace"; log_test "paths dump"; return; }
	for i in $(seq 1 200); do
		echo "link add d$i type dummy"
	done | ip -n "$(ns a)" -batch -
	check_err $? "200 dummy devices"
	out=$(dump a "$ARS_CMD_PATHS_GET" true)
	log_info "paths, nothing changed: $out"
	check_eq "$(jq -r '"\(.error) \(.intr) \(.parts > 3) \(.messages >= 200)"' <<<"$out")" \
		"0 false true true" "paths dump without a change: error, intr, parts, messages"
	out=$(dump a "$ARS_CMD_PATHS_GET" "ip link add d201 type dummy")
	log_info "paths, a port added: $out"
	check_eq "$(jq -r '"\(.error) \(.intr)"' <<<"$out")" "0 true" \
		"paths dump across a new device: error, intr"
	out=$(dump a "$ARS_CMD_PATHS_GET" "ip link del d100")
	log_info "paths, a port removed: $out"
	check_eq "$(jq -r '"\(.error) \(.intr)"' <<<"$out")" "0 true" \
		"paths dump across a device's removal: error, intr"
	log_test "a paths dump across a port's coming or going is flagged, one without is not"

	RET=0
	each_once a "$ARS_CMD_PATHS_GET" 1
	want=$(ip -n "$(ns a)" -j link show type dummy | jq -c '[.[].ifindex] | sort')
	missing=$(jq -r --argjson w "$want" \
		'$w - [.entries[]["1"]] | .[]' <<<"$EACH_OUT")
	check_none "$missing" "$want" "paths dump: dummies' ifindexes missing"
	check_eq "$(jq length <<<"$want")" 200 "dummy devices"
	log_test "a paths dump in parts gives each device exactly once"
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
	ns_destroy_all
}

require_root
require_cmd jq python3 "$ARSCTL" "$UDPGEN" "$GENL_DUMP"
trap cleanup EXIT
ars_load || exit 1
tests_run
exit "$EXIT_STATUS"
