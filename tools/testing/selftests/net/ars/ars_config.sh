#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The configuration as ars.service applies it: arsctl -r -b FILE leaves
# the kernel holding exactly what FILE says (objects and their settings,
# alternates, bindings, interfaces, the profile), however often it is applied
# and whatever was there before; the replace forms can be applied twice;
# arsctl -c reports every bad line and sends nothing; arsctl routes names
# the group and the object of a route over a nexthop group in both
# nexthop compat modes.
#
#   +-------------------------------------------+
#   | r1: d1 10.2.1.1/24 ... d4 10.2.4.1/24     |
#   |     nexthop 1 via 10.2.1.2 dev d1         |
#   |     nexthop 2 via 10.2.2.2 dev d2         |
#   |     nexthop 100 group 1/2                 |
#   |     10.3.0.0/24 nhid 100                  |
#   +-------------------------------------------+
#   | r0: fresh, the profile's defaults         |
#   +-------------------------------------------+
#
# No traffic: what is checked is what the kernel reports (arsctl -j dumps)
# against what the file says, written out line by line below.

ALL_TESTS="
	reconcile_from_dirty
	reconcile_again_same
	reconcile_changed_file
	reconcile_empty_file
	replace_twice
	check_reports_every_line
	routes_group_compat_1
	routes_group_compat_0
"
source "$(dirname "$0")/lib.sh"

TMPD=

cleanup()
{
	ns_destroy_all
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

r1()
{
	arsctl_ns r1 "$@"
}

# The state of r1 as sorted lines: objects with their settings and
# alternates, bindings, interfaces; the profile apart (profile_state).
conf_state()
{
	{
		r1 -j object show | jq -r '.[] |
			"object \(.name) \(.mode) \(.idle_time_ns) \(.table_size // 0) \(.primary_threshold_band) \(.alternate_cost_bands) \(.alternate_bias_percent)",
			(.name as $n | .alternates[] |
			 "alternate \($n) \(.ifname // .gateway)")'
		r1 -j bind show | jq -r '.[] | "bind " +
			(if .nhid then "nhid \(.nhid)"
			 elif .prefix then "prefix \(.prefix) table \(.table)"
			 else "mark \(.mark)/\(.mask)" end) +
			(if .exempt then " exempt" else " object \(.object)" end)'
		r1 -j interface show | jq -r '.[] | "interface \(.ifname)"'
	} | sort
}

# profile_is JSON: r1's profile is r0's (the defaults) with JSON's keys.
profile_is()
{
	local want have

	want=$(arsctl_ns r0 -j show profile | jq -cS --argjson p "$1" '. + $p')
	have=$(r1 -j show profile | jq -cS .)
	if [ -z "$have" ] || [ "$have" != "$want" ]; then
		check_err 1 "profile: $have, expected $want"
	fi
}

# state_is LINES: conf_state is LINES (a here-document, any order).
state_is()
{
	local want have

	want=$(sort <<<"$1")
	have=$(conf_state)
	[ "$have" = "$want" ] ||
		check_err 1 "$2: $(diff <(echo "$want") <(echo "$have") |
			grep '^[<>]' | tr '\n' '|')"
}

apply()
{
	local out

	out=$(r1 -r -b "$1" 2>&1)
	check_err $? "arsctl -r -b $(basename "$1"): $out"
}

CONF1_STATE="object default packet-random 500000 0 0 0 50
alternate default d2
object fab flowlet-quality 200000 0 6 1 100
object slow fixed 256000 256 0 0 100
alternate fab 10.2.1.2
alternate fab d3
bind mark 16/240 exempt
bind nhid 100 object fab
bind prefix 10.5.0.0/16 table 254 object slow
interface d1
interface d2"
CONF1_PROFILE='{"state":true,"mode":"packet-random","idle_time_ns":500000,
	"rate_weight_percent":30,"default_object":"slow",
	"source":{"idle_time_ns":"set","sampling_interval_ns":"default",
	"flowlet_window_ns":"default","signal_tau_ns":"default"}}'

# Objects, alternates, bindings, interfaces and profile lines the file does not
# name, and an object it names with other settings and alternates.
reconcile_from_dirty()
{
	RET=0
	r1 object add old mode ecmp &&
		r1 object add fab mode ecmp idle-time 1ms alternate-bias 0 &&
		r1 object alternate add fab dev d4 &&
		r1 bind add nhid 200 object old &&
		r1 bind add prefix 10.5.0.0/24 object old &&
		r1 interface enable dev d3 &&
		r1 set ewma-shift 5 table-size 1024
	check_err $? "the state before could not be made"
	apply "$TMPD/conf1"
	state_is "$CONF1_STATE" "after the first apply"
	profile_is "$CONF1_PROFILE"
	log_test "arsctl -r -b: objects, alternates, bindings, interfaces, profile as the file says, what it does not name removed"
}

reconcile_again_same()
{
	local before after

	RET=0
	before=$(conf_state; r1 -j show profile)
	apply "$TMPD/conf1"
	after=$(conf_state; r1 -j show profile)
	[ "$before" = "$after" ]
	check_err $? "the second apply changed the state"
	state_is "$CONF1_STATE" "after the second apply"
	profile_is "$CONF1_PROFILE"
	# A plain batch of the same file stops at its first add.
	r1 -b "$TMPD/conf1" >"$TMPD/out" 2>&1
	check_fail $? "arsctl -b of the same file succeeded again"
	grep -q 'exists' "$TMPD/out"
	check_err $? "arsctl -b again: $(cat "$TMPD/out")"
	log_test "arsctl -r -b twice: the same state (arsctl -b alone: $(head -n 1 "$TMPD/out"))"
}

# An object dropped (the profile's default-object until then), one's
# settings back at their defaults but its mode, a binding to another
# object, a prefix that overlaps the one it replaces, an interface and an
# alternate dropped and one added, profile lines dropped; figures set by
# hand that may follow fabric-rtt follow it again, though the file makes
# another one auto.
reconcile_changed_file()
{
	RET=0
	r1 set flowlet-window 5us sampling-interval 1ms
	check_err $? "set flowlet-window 5us sampling-interval 1ms"
	apply "$TMPD/conf2"
	state_is "object default flowlet-random 256000 0 0 0 100
object fab packet-quality 256000 0 0 0 100
object web flowlet-quality 1000000 0 0 0 100
alternate fab d3
bind nhid 100 object web
bind prefix 10.0.0.0/8 table 254 object fab
interface d2
interface d4" "after the changed file"
	profile_is '{"state":true,"mode":"flowlet-random"}'
	apply "$TMPD/conf2"
	profile_is '{"state":true,"mode":"flowlet-random"}'
	log_test "arsctl -r -b of a changed file: dropped objects, bindings, interfaces, alternates and profile lines go"
}

reconcile_empty_file()
{
	RET=0
	printf '# nothing\n' >"$TMPD/empty"
	apply "$TMPD/empty"
	state_is "object default flowlet-quality 256000 0 0 0 100" "after an empty file"
	profile_is '{}'
	log_test "arsctl -r -b of a file of comments: the defaults, nothing else"
}

replace_twice()
{
	local s1 s2 i

	RET=0
	for i in 1 2; do
		r1 object replace x mode fixed idle-time 2ms &&
			r1 object alternate replace x dev d1 &&
			r1 bind replace prefix 10.6.0.0/24 object x &&
			r1 bind replace nhid 100 object x &&
			r1 bind replace mark 0x10/0xf0 exempt &&
			r1 interface enable dev d1
		check_err $? "replace forms, round $i"
		eval "s$i=\$(conf_state)"
	done
	[ "$s1" = "$s2" ]
	check_err $? "the second round changed the state"
	state_is "object default flowlet-quality 256000 0 0 0 100
object x fixed 2000000 0 0 0 100
alternate x d1
bind mark 16/240 exempt
bind nhid 100 object x
bind prefix 10.6.0.0/24 table 254 object x
interface d1" "after replace twice"
	# replace changes what exists: the binding's object, the settings
	# not given back at their defaults.
	r1 bind replace nhid 100 object default && r1 object replace x
	check_err $? "replace of existing ones"
	conf_state | grep -qx 'bind nhid 100 object default'
	check_err $? "bind replace did not rebind: $(conf_state | grep nhid)"
	conf_state | grep -qx 'object x flowlet-quality 256000 0 0 0 100'
	check_err $? "object replace x: $(conf_state | grep 'object x')"
	log_test "object/bind/alternate replace and interface enable, twice: the same state; replace rebinds and resets"
}

check_reports_every_line()
{
	local before after n

	RET=0
	cat >"$TMPD/bad" <<-'EOF'
	# ten bad lines among good ones
	set idle-time 2s
	set table-size 1000
	object add ok mode fixed
	set rate-weight 101
	bind add prefix 10.0.0.0/33 object ok
	bind add nhid 10 object nosuch
	interface enable dev nosuchdev0
	set ewma-shift 16
	object alternate add ok dev nosuchdev1
	bind add mark 0x10 object ok
	bind add prefix 10.1.2.0/16 object ok
	set state on
	EOF
	before=$(conf_snapshot)
	r1 -c -b "$TMPD/bad" >"$TMPD/out" 2>&1
	check_fail $? "arsctl -c passed the file"
	after=$(conf_snapshot)
	[ "$before" = "$after" ]
	check_err $? "arsctl -c changed the kernel's state"
	n=$(grep -o "^arsctl: $TMPD/bad:[0-9]*:" "$TMPD/out" | sort -u | wc -l)
	[ "$n" -eq 10 ]
	check_err $? "$n lines reported, not 10: $(tr '\n' '|' <"$TMPD/out")"
	r1 -r -b "$TMPD/bad" >/dev/null 2>&1
	check_fail $? "arsctl -r -b of the bad file succeeded"
	[ "$before" = "$(conf_snapshot)" ]
	check_err $? "arsctl -r -b of the bad file changed the state"
	log_test "arsctl -c: all 10 bad lines reported as FILE:LINE, exit 1, the kernel untouched"
}

# routes_compat MODE: arsctl routes prints group 100 and its object.
routes_compat()
{
	local mode=$1 multipath got

	RET=0
	in_ns r1 sysctl -qw net.ipv4.nexthop_compat_mode="$mode"
	check_err $? "nexthop_compat_mode=$mode"
	r1 object replace fab mode flowlet-random &&
		r1 bind replace nhid 100 object fab && r1 set state on
	check_err $? "object fab bound to nhid 100"
	# The precondition: in compat mode the dump lists the next hops too.
	multipath=$(ip -n "$(ns r1)" -j route show 10.3.0.0/24 |
		jq '.[0] | has("nexthops")')
	[ "$multipath" = "$([ "$mode" = 1 ] && echo true || echo false)" ]
	check_err $? "compat mode $mode: the route's dump has nexthops: $multipath"
	got=$(r1 -j routes | jq -r '.[] | select(.dst == "10.3.0.0/24") |
		"\(.nhid) \(.object) \(.nexthops | length)"')
	[ "$got" = "100 fab 2" ]
	check_err $? "arsctl routes: nhid, object, next hops '$got', expected '100 fab 2'"
	r1 routes | grep -q '^10.3.0.0/24 nhid 100 object fab'
	check_err $? "arsctl routes: $(r1 routes | head -n 1)"
	log_test "nexthop_compat_mode=$mode: arsctl routes names nhid 100 and object fab ($got)"
}

routes_group_compat_1()
{
	routes_compat 1
}

routes_group_compat_0()
{
	routes_compat 0
}

setup_prepare()
{
	local i

	TMPD=$(mktemp -d)
	ns_create r0 r1 || return 1
	for i in 1 2 3 4; do
		ip -n "$(ns r1)" link add "d$i" type dummy &&
			ip -n "$(ns r1)" addr add "10.2.$i.1/24" dev "d$i" &&
			ip -n "$(ns r1)" link set "d$i" up || return 1
	done
	{
		echo "nexthop add id 1 via 10.2.1.2 dev d1"
		echo "nexthop add id 2 via 10.2.2.2 dev d2"
		echo "nexthop add id 100 group 1/2"
		echo "route add 10.3.0.0/24 nhid 100"
	} | ip -n "$(ns r1)" -batch - || return 1
	# conf1 enables its interfaces as port, the name that shipped first:
	# a file written for it still applies. conf2 says interface.
	cat >"$TMPD/conf1" <<-'EOF'
	# a full ars.conf
	set mode packet-random idle-time 500us
	set rate-weight 30
	object add fab mode flowlet-quality idle-time 200us primary-threshold 6 alternate-cost 1
	object add slow mode fixed table-size 256
	object alternate add fab via 10.2.1.2
	object alternate add fab dev d3
	object set default alternate-bias 50
	object alternate add default dev d2
	bind add nhid 100 object fab
	bind add prefix 10.5.0.0/16 object slow
	bind add mark 0x10/0xf0 exempt
	port enable dev d1
	port enable dev d2
	set default-object slow
	set state on
	EOF
	cat >"$TMPD/conf2" <<-'EOF'
	# the same, changed
	set mode flowlet-random idle-time auto
	object add fab mode packet-quality
	object add web idle-time 1ms
	object alternate add fab dev d3
	bind add nhid 100 object web
	bind add prefix 10.0.0.0/8 object fab
	interface enable dev d2
	interface enable dev d4
	set state on
	EOF
}

require_root
require_cmd jq "$ARSCTL"
[ -n "$ARS_KO" ] || { echo "SKIP: ARS_KO not set"; exit $ksft_skip; }
trap cleanup EXIT
ars_load
setup_prepare || { echo "not ok - setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
