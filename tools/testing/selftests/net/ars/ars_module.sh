#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's life cycle: load and unload while namespaces come and go,
# per-namespace state for every namespace, nothing left behind.
#
# The module counts what it allocates (/sys/module/ars/parameters/objects):
# per namespace a profile and a port per device (lo at least), plus the
# macro-flow table while ars is on, and its configuration of ARS objects
# once it changed it.

ALL_TESTS="
	load_unload_under_netns_churn
	state_per_netns
	state_freed_with_netns
	table_follows_state
"
source "$(dirname "$0")/lib.sh"

# Objects of an idle namespace: its profile and the port of lo with the
# port's per-CPU counters (its configuration is the shared initial one).
OBJS_PER_NS=3
# The data plane's per-CPU state, made on a namespace's first turn on and
# kept until the namespace goes: stats, route cache, object and binding
# counters.
OBJS_PCPU=4

churn_pid=

cleanup()
{
	[ -z "$churn_pid" ] || kill "$churn_pid" 2>/dev/null
	wait 2>/dev/null
	ns_destroy_all
	ars_load
}

netns_churn()
{
	local i=0

	while :; do
		ip netns add "$(ns churn$i)" 2>/dev/null
		ip netns del "$(ns churn$((i - 3)))" 2>/dev/null
		i=$((i + 1))
	done
}

# Every namespace, test ones and the initial one, answers with a profile.
all_ns_have_profile()
{
	local n err

	arsctl show >/dev/null || return 1
	for n in $(ip netns list | awk '{print $1}'); do
		err=$("$ARSCTL" -n "$n" show 2>&1 >/dev/null) && continue
		# Not a failure: a namespace deleted since the list, or one
		# that is not one yet or no more. ip netns add creates the
		# file before it unshares and bind-mounts the namespace on
		# it, and ip netns del unmounts it before the unlink: in
		# between, the file is no namespace to enter.
		mountpoint -q "/run/netns/$n" 2>/dev/null || continue
		echo "# no profile in $n: $err"
		return 1
	done
}

# Wait until the object count holds still for a second (at most 20 s).
objects_settle()
{
	local a b i

	b=$(ars_objects)
	for i in $(seq 20); do
		sleep 1
		a=$b
		b=$(ars_objects)
		[ "$a" != "$b" ] || return 0
	done
}

# Rounds of load_unload_under_netns_churn: 20, or 10 on the debug kernel,
# where each takes about 20 s and the debug lane is make check's longest
# (each round repeats the same load, unload and namespace churn).
module_rounds()
{
	if on_debug_kernel; then
		echo "${ARS_MODULE_ROUNDS:-10}"
	else
		echo "${ARS_MODULE_ROUNDS:-20}"
	fi
}

load_unload_under_netns_churn()
{
	local i n

	RET=0
	n=$(module_rounds)
	ns_create stay1 stay2
	netns_churn &
	churn_pid=$!
	for i in $(seq "$n"); do
		ars_unload
		check_err $? "rmmod $i failed"
		ars_loaded
		check_fail $? "module still loaded after rmmod $i"
		ars_load
		check_err $? "insmod $i failed"
		all_ns_have_profile
		check_err $? "a namespace has no ars state after insmod $i"
	done
	kill "$churn_pid"
	wait "$churn_pid" 2>/dev/null
	churn_pid=
	ns_destroy_all
	log_test "insmod/rmmod $n times while namespaces are created and deleted"
}

state_per_netns()
{
	RET=0
	ns_create a b
	arsctl_ns a set idle-time 1ms
	check_err $? "set in namespace a"
	check_eq "$(arsctl_ns a -j show profile | jq .idle_time_ns)" 1000000 "a's idle-time"
	check_eq "$(arsctl_ns b -j show profile | jq .idle_time_ns)" 256000 "b's idle-time"
	check_eq "$(arsctl -j show profile | jq .idle_time_ns)" 256000 "init's idle-time"
	ns_destroy_all
	log_test "each namespace has its own profile"
}

state_freed_with_netns()
{
	local base n

	RET=0
	# Namespaces deleted before are freed by a workqueue, later.
	objects_settle
	base=$(ars_objects)
	ns_create n1 n2 n3 n4 n5 n6 n7 n8 n9 n10
	n=$(ars_objects)
	check_eq "$n" $((base + 10 * OBJS_PER_NS)) "objects with 10 namespaces"
	ns_destroy_all
	# Frees wait for an RCU grace period.
	wait_for sh -c "[ \$(cat /sys/module/ars/parameters/objects) -eq $base ]"
	check_err $? "objects after deleting them: $(ars_objects), not $base"
	log_test "a deleted namespace frees its state"
}

table_follows_state()
{
	local base

	RET=0
	ns_create t
	objects_settle
	base=$(ars_objects)
	arsctl_ns t set state on
	check_err $? "state on"
	check_eq "$(ars_objects)" $((base + 1 + OBJS_PCPU)) \
		"objects with the table and the per-CPU state"
	arsctl_ns t set table-size 65536
	check_eq "$(arsctl_ns t -j show profile | jq .table_size)" 65536 "table-size"
	wait_for sh -c "[ \$(cat /sys/module/ars/parameters/objects) -eq $((base + 1 + OBJS_PCPU)) ]"
	check_err $? "a resized table leaves one table"
	arsctl_ns t set state off
	wait_for sh -c "[ \$(cat /sys/module/ars/parameters/objects) -eq $((base + OBJS_PCPU)) ]"
	check_err $? "state off frees the table, not the per-CPU state"
	arsctl_ns t set state on
	check_eq "$(ars_objects)" $((base + 1 + OBJS_PCPU)) \
		"objects when on again: the per-CPU state is made once"
	ns_destroy_all
	wait_for sh -c "[ \$(cat /sys/module/ars/parameters/objects) -eq $((base - OBJS_PER_NS)) ]"
	check_err $? "objects after deleting t: $(ars_objects), not $((base - OBJS_PER_NS))"
	log_test "the macro-flow table exists only while ars is on"
}

require_root
require_cmd jq "$ARSCTL"
trap cleanup EXIT
ars_load
tests_run
exit $EXIT_STATUS
