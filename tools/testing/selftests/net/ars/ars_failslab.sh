#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every allocation that an ars request makes can fail: each request is
# sent again and again, its first, second, ... slab allocation made to
# fail (the task's fail-nth, CONFIG_FAILSLAB; failnth.py), until a run
# injects nothing. Each failure must be answered with an error, or be
# survived, and leave nothing behind: the profile as it was, no object,
# binding or interface that the request did not finish. kmemleak, KASAN and
# lockdep watch the error paths, and the module unloads after them.
#
# This needs the fault injection that only the debug kernel has: the lane
# runs it there alone (vm-selftests.sh, FAILSLAB_ONLY).

ALL_TESTS="
	profile_state_on
	object_new
	bind_new
	interface_enable
"
source "$(dirname "$0")/lib.sh"

FAILSLAB=/sys/kernel/debug/failslab
declare -A SAVED

cleanup()
{
	local k

	for k in "${!SAVED[@]}"; do
		echo "${SAVED[$k]}" > "$FAILSLAB/$k"
	done
	ns_destroy_all
}

# failslab_set KNOB VALUE, restored by cleanup.
failslab_set()
{
	SAVED[$1]=$(cat "$FAILSLAB/$1") && echo "$2" > "$FAILSLAB/$1"
}

hex()
{
	printf '%s' "$1" | od -An -tx1 | tr -d ' \n'
	echo 00
}

# sweep WHAT OP UNDO: failnth.py in r1; at least one injected failure
# answered with ENOMEM, none with a state left behind.
sweep()
{
	local what=$1 out

	out=$(in_ns r1 python3 -I -S "$ARS_LIB_DIR/failnth.py" "$2" "$3")
	check_err $? "failnth.py: $out"
	log_info "$what: $out"
	[ "$(jq -r '.allocations // 0' <<<"$out")" -ge 1 ]
	check_err $? "$what: no run without a fault injected: $out"
	[ "$(jq -r '.errors.ENOMEM // 0' <<<"$out")" -ge 1 ]
	check_err $? "$what: no allocation failure answered with ENOMEM: $out"
	check_eq "$(jq -c .bad <<<"$out")" "[]" "$what: a failure left state behind"
	arsctl_ns r1 show >/dev/null
	check_err $? "$what: arsctl show after the sweep"
}

profile_state_on()
{
	RET=0
	arsctl_ns r1 set state off
	# state on with its own table size: the per-CPU state, the table,
	# the hooks
	sweep "set state on table-size 1024" "set 1:u8:1 4:u32:1024" \
		"set 1:u8:0"
	log_test "set state on: each allocation failure refused, the profile unchanged"
}

object_new()
{
	RET=0
	arsctl_ns r1 set state on
	# an object with its own macro-flow table (table-size)
	sweep "object new fs table-size 1024" \
		"--cmd 8 set 1:raw:$(hex fs) 11:u32:1024" \
		"--cmd 10 set 1:raw:$(hex fs)"
	log_test "object new: each allocation failure refused, no object left"
}

bind_new()
{
	RET=0
	arsctl_ns r1 object add fs mode flowlet-quality
	check_err $? "object add fs"
	sweep "bind mark 5/0xff to fs" \
		"--cmd 12 set 1:raw:$(hex fs) 7:u32:5 8:u32:255" \
		"--cmd 13 set 7:u32:5 8:u32:255"
	arsctl_ns r1 object del fs
	log_test "bind new: each allocation failure refused, no binding left"
}

interface_enable()
{
	local ifindex

	RET=0
	ifindex=$(ip -n "$(ns r1)" -j link show d0 | jq '.[0].ifindex')
	sweep "interface enable d0" "--cmd 15 set 1:u32:$ifindex" \
		"--cmd 16 set 1:u32:$ifindex"
	log_test "interface enable: each allocation failure refused, no interface left"
}

require_root
require_cmd jq python3 "$ARSCTL"
trap cleanup EXIT
# Not a SKIP: this script runs only where the kernel injects faults.
if [ ! -e /proc/self/fail-nth ] || [ ! -d "$FAILSLAB" ]; then
	echo "not ok - no fault injection here (CONFIG_FAILSLAB, debugfs)"
	exit 1
fi
# Every GFP_KERNEL allocation may fail, quietly: a stack dump per
# injected fault would be a "Call Trace:" for the kernel-log gate.
failslab_set ignore-gfp-wait N && failslab_set verbose 0 ||
	{ echo "not ok - failslab settings"; exit 1; }
ars_load
ns_create r1 && ip -n "$(ns r1)" link add d0 type dummy &&
	ip -n "$(ns r1)" link set d0 up ||
	{ echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
