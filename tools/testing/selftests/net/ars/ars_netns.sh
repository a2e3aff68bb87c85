#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A namespace where ars is off costs nothing: unprivileged users create
# namespaces at will, and ars.ko is loaded for the few that use it. Its
# per-CPU state and its netfilter hooks come when a namespace turns ars on
# (netns.c), and the hooks go when it turns ars off.
#
# Whether the hook runs is counted by a kprobe on ars_hook4
# (kprobe_profile); what namespaces cost, by /proc/meminfo's Slab and
# Percpu before and after making NS_N of them (netns_cost.py); whom
# ars's state is charged to, by a memory cgroup's memory.stat.

# The cost case is a measurement: it makes and frees 1000 namespaces five
# times, about 8 minutes per kernel under TCG, and needs the guest to free
# them faster than the rounds come (6.1 under TCG frees about one a
# second; on a loaded host 6.12 falls behind too). make check runs the
# hook case only; ARS_NETNS_COST=1 adds the cost:
#   ARS_NETNS_COST=1 TESTS=ars_netns.sh vm-selftests.sh KVER
ALL_TESTS="
	hook_only_while_on
	memcg_charged
	${ARS_NETNS_COST:+off_netns_cost}
"
source "$(dirname "$0")/lib.sh"

NS_N=${ARS_NETNS_N:-1000}
# What ars may add to the cost of a namespace, per cent.
COST_PCT=1
TRACING=/sys/kernel/tracing
PROBE=ars_netns_hook4
MEMCG=/sys/fs/cgroup/ars-netns

cleanup()
{
	probe_del
	ns_destroy_all
	[ ! -d "$MEMCG" ] || rmdir "$MEMCG" 2>/dev/null
	ars_load
}

probe_del()
{
	[ -e "$TRACING/events/kprobes/$PROBE" ] || return 0
	echo 0 > "$TRACING/events/kprobes/$PROBE/enable"
	echo "-:$PROBE" >> "$TRACING/kprobe_events"
}

# Times ars_hook4 ran since the probe was added.
probe_hits()
{
	awk -v p="$PROBE" '$1 == p { print $2 }' "$TRACING/kprobe_profile"
}

# Two namespaces, a and b, and a veth between them: pings from b to a.
hook_setup()
{
	ns_create a b
	veth_link a va b vb
	ip -n "$(ns a)" addr add 10.9.0.1/24 dev va
	ip -n "$(ns b)" addr add 10.9.0.2/24 dev vb
}

pings()
{
	in_ns b ping -c "$1" -i 0.1 -q 10.9.0.1 >/dev/null
}

hook_only_while_on()
{
	local hits

	RET=0
	if [ ! -w "$TRACING/kprobe_events" ] ||
	   ! echo "p:$PROBE ars_hook4" >> "$TRACING/kprobe_events" 2>/dev/null; then
		log_skip "ars_hook4 runs only where ars is on" "no kprobe events"
		return
	fi
	echo 1 > "$TRACING/events/kprobes/$PROBE/enable"
	hook_setup

	pings 20
	check_err $? "pings with ars off"
	hits=$(probe_hits)
	check_eq "$hits" 0 "ars_hook4 runs with ars off"

	arsctl_ns a set state on
	check_err $? "state on"
	pings 20
	hits=$(probe_hits)
	[ "$hits" -ge 20 ]
	check_err $? "ars_hook4 ran $hits times for 20 pings with ars on"

	arsctl_ns a set state off
	check_err $? "state off"
	hits=$(probe_hits)
	pings 20
	check_eq "$(probe_hits)" "$hits" "ars_hook4 runs after state off"

	# Where ars never was on, there is no per-CPU state: its readers
	# cope.
	check_eq "$(arsctl_ns b -j stats | jq .packets)" 0 "b's packets"
	check_eq "$(arsctl_ns b -j -s object show | jq -r '.[0].name')" default \
		"b's objects"
	arsctl_ns b stats reset
	check_err $? "b's stats reset"
	probe_del
	ns_destroy_all
	log_test "ars_hook4 runs only where ars is on (20 pings: 0 off, $hits on)"
}

# memcg_stat KEY: the value of KEY in $MEMCG's memory.stat.
memcg_stat()
{
	awk -v k="$1" '$1 == k { print $2 }' "$MEMCG/memory.stat"
}

memcg_percpu_ge()
{
	[ "$(memcg_stat percpu)" -ge "$1" ]
}

memcg_percpu_le()
{
	[ "$(memcg_stat percpu)" -le "$1" ]
}

# in_memcg CMD...: run CMD as a task of $MEMCG.
in_memcg()
{
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$MEMCG" "$@"
}

# What ars makes for a namespace is charged to the memory cgroup of the
# task that makes it (GFP_KERNEL_ACCOUNT, issue #31), and uncharged when
# the namespace goes, whoever deletes it. The per-CPU state of the first
# turn on holds at least the counters of the namespace and of its 16
# object slots, 17 x 15 u64 per CPU: the cgroup's percpu rises by that
# much, and falls back once the namespace is gone.
memcg_charged()
{
	local want base on off

	RET=0
	if [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
		mount -t cgroup2 cgroup2 /sys/fs/cgroup
		check_err $? "mount cgroup2 on /sys/fs/cgroup"
	fi
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p "$MEMCG"
	if [ ! -e "$MEMCG/memory.stat" ]; then
		check_err 1 "no memory controller in $MEMCG"
		log_test "ars's state of a namespace is charged to its memory cgroup"
		return
	fi
	# Possible CPUs, which per-CPU areas take, are at least those online.
	want=$((17 * 15 * 8 * $(nproc)))
	in_memcg ip netns add "$(ns m)"
	check_err $? "ip netns add from the cgroup"
	in_ns m sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv6.fib_multipath_hash_policy=1
	base=$(memcg_stat percpu)
	in_memcg "$ARSCTL" -n "$(ns m)" set state on
	check_err $? "state on from the cgroup"
	# memory.stat is flushed at most every 2 s.
	wait_until 10 memcg_percpu_ge $((base + want))
	check_err $? "percpu $(memcg_stat percpu) after state on, not $base + $want"
	on=$(memcg_stat percpu)
	ip netns del "$(ns m)"
	wait_until 30 memcg_percpu_le "$base"
	check_err $? "percpu $(memcg_stat percpu) after deleting the namespace, not <= $base"
	off=$(memcg_stat percpu)
	rmdir "$MEMCG"
	check_err $? "rmdir the cgroup"
	log_test "ars's state of a namespace is charged to its memory cgroup (percpu $base -> $on -> $off bytes, at least $want)"
}

# Slab + Percpu, in KiB.
slab_percpu()
{
	awk '$1 == "Slab:" || $1 == "Percpu:" { s += $2 } END { print s }' \
		/proc/meminfo
}

# Until the namespaces let go of are freed: Slab + Percpu holds still.
settle()
{
	local a b i

	b=$(slab_percpu)
	for i in $(seq 30); do
		sleep 1
		a=$b
		b=$(slab_percpu)
		[ "$a" -gt "$b" ] || return 0
	done
}

# cost: KiB that NS_N namespaces cost, after the last ones are freed.
cost()
{
	settle
	python3 "$ARS_LIB_DIR/netns_cost.py" "$NS_N"
}

# The smaller of two rounds, with and without the module alternating, so
# that what one round leaves in the caches favours neither.
off_netns_cost()
{
	local without=0 with=0 limit a b i

	RET=0
	ars_unload
	check_err $? "rmmod"
	# A first round warms the caches up: later ones find free slabs.
	cost >/dev/null
	if [ $? -eq 3 ]; then
		# As on 6.1 under TCG (about one namespace freed a second).
		log_skip "$NS_N namespaces with ars off" "namespaces freed too slowly to measure"
		ars_load
		return
	fi
	for i in 1 2; do
		ars_unload
		a=$(cost)
		check_err $? "$NS_N namespaces without ars.ko"
		ars_load
		check_err $? "insmod"
		b=$(cost)
		check_err $? "$NS_N namespaces with ars.ko"
		log_info "round $i: $b KiB with ars.ko, $a KiB without"
		[ "$i" -gt 1 ] && [ "$without" -le "$a" ] || without=$a
		[ "$i" -gt 1 ] && [ "$with" -le "$b" ] || with=$b
	done
	limit=$((without + without * COST_PCT / 100))
	[ -n "$with" ] && [ "$with" -le "$limit" ]
	check_err $? "more than $COST_PCT% more with ars.ko"
	log_test "$NS_N namespaces with ars off: $with KiB with ars.ko, $without KiB without"
}

require_root
require_cmd jq python3 "$ARSCTL"
trap cleanup EXIT
ars_load
tests_run
exit $EXIT_STATUS
