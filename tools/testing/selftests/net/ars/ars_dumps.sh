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

ALL_TESTS="
	paths_dump_flagged
	flows_dump_flagged
"
source "$(dirname "$0")/lib.sh"

GENL_RAW=$ARS_LIB_DIR/genl_raw.py
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

paths_dump_flagged()
{
	local i out

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
	ns_destroy_all
}

require_root
require_cmd jq python3 "$ARSCTL" "$UDPGEN"
trap cleanup EXIT
ars_load || exit 1
tests_run
exit "$EXIT_STATUS"
