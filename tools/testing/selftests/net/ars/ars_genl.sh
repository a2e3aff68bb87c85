#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family "ars" (include/uapi/linux/ars.h, kmod/genl.c)
# as arsctl uses it and as a raw client can abuse it: every profile
# attribute there and back, the defaults, one profile per namespace and
# freed with it, bad requests refused with a reason and without effect
# (genl_raw.py crafts the ones arsctl cannot), who may change what, the
# JSON output, stats reset, and rmmod while a monitor listens; and the
# figures that a fabric-rtt derives (kmod/ars_derive.h), in the profile,
# the objects and the ars qdiscs, unless they were set.
#
# The traffic cases use the h1 - r1 = p1..p4 = r2 - h2 topology of lib.sh
# (mp_topo_create, see ars_dataplane.sh), with ars on in r1 and pings from
# h1 to h2.

ALL_TESTS="
	profile_round_trip
	profile_defaults
	profile_per_netns
	profile_freed_with_netns
	profile_derived
	bad_input_refused
	permissions
	json_types
	flows_gateway
	stats_reset
	rmmod_with_monitor
"
source "$(dirname "$0")/lib.sh"

GENL_RAW=${GENL_RAW:-$ARS_LIB_DIR/genl_raw.py}
# An unprivileged user: nobody, no supplementary groups, no capabilities.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# A namespace name that does not exist: arsctl opens it only after it has
# understood its command line.
NO_NS=$NS_PREFIX-does-not-exist
TMPD=
MON_PID=
TOPO_UP=

DEFAULTS='{"state":false,"mode":"flowlet-quality","idle_time_ns":256000,"table_size":4096,"ipv4":true,"ipv6":true,"sampling_interval_ns":100000,"rate_weight_percent":50,"ewma_shift":3,"default_object":"default","flowlabel":false,"flowlet_window_ns":0,"fabric_rtt_ns":0,"signal_tau_ns":16000,"remote":false,"remote_half_life_ns":1000000,"source":{"idle_time_ns":"default","sampling_interval_ns":"default","flowlet_window_ns":"default","signal_tau_ns":"default"}}'
# Every attribute away from its default.
OTHERS_SET="state on mode packet-roundrobin idle-time 1.5ms table-size 1024 ipv4 off ipv6 off sampling-interval 250us rate-weight 70 ewma-shift 5 default-object none flowlabel on flowlet-window 2.5ms remote on remote-half-life 4ms"
OTHERS='{"state":true,"mode":"packet-roundrobin","idle_time_ns":1500000,"table_size":1024,"ipv4":false,"ipv6":false,"sampling_interval_ns":250000,"rate_weight_percent":70,"ewma_shift":5,"default_object":"none","flowlabel":true,"flowlet_window_ns":2500000,"fabric_rtt_ns":0,"signal_tau_ns":16000,"remote":true,"remote_half_life_ns":4000000,"source":{"idle_time_ns":"set","sampling_interval_ns":"set","flowlet_window_ns":"set","signal_tau_ns":"default"}}'

cleanup()
{
	if [ -n "$MON_PID" ]; then
		kill "$MON_PID" 2>/dev/null
		wait "$MON_PID" 2>/dev/null
	fi
	ns_destroy_all
	ars_load
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

# Checks of JSON with jq are queued and run together at the end of a case,
# in one jq: under TCG a jq costs about a second. jq compares types too: 1
# is not "1", true is not 1.
JQ_N=0
JQ_PROG=
JQ_ARGS=()

# jq_expect WHAT JSON FILTER: queue "jq FILTER is true of JSON".
jq_expect()
{
	JQ_ARGS+=(--arg "w$JQ_N" "$1" --argjson "j$JQ_N" "${2:-null}")
	JQ_PROG+="(\$j$JQ_N | if (try ($3) catch false) then empty else
		\"\(\$w$JQ_N): \(\$j$JQ_N | tojson)\" end),"
	JQ_N=$((JQ_N + 1))
}

# jq_verify: run the queued checks; a false one fails the case.
jq_verify()
{
	local out rc i

	[ "$JQ_N" -gt 0 ] || return 0
	out=$(jq -n -r "${JQ_ARGS[@]}" "${JQ_PROG%,}" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		# Most likely not JSON at all: say what was given.
		out="jq failed ($out) on:"
		for ((i = 0; i < ${#JQ_ARGS[@]}; i += 6)); do
			out+=" ${JQ_ARGS[i + 2]}: '${JQ_ARGS[i + 5]}';"
		done
	fi
	JQ_N=0
	JQ_PROG=
	JQ_ARGS=()
	[ -z "$out" ]
	check_err $? "${out//$'\n'/; }"
}

# log_case NAME: log_test once the queued checks have run.
log_case()
{
	jq_verify
	log_test "$@"
}

show_ns()
{
	arsctl_ns "$1" -j show profile
}

# settle_objects: wait until the module's object count stops moving
# (namespaces die in a workqueue, their frees wait for a grace period).
settle_objects()
{
	local a b i

	a=$(ars_objects)
	for i in $(seq 60); do
		sleep 0.5
		b=$(ars_objects)
		[ "$a" = "$b" ] && return 0
		a=$b
	done
	return 1
}

objects_are()
{
	[ "$(ars_objects)" -eq "$1" ]
}

# 1. Every attribute to a non-default value, checked in the JSON (value and
# type) with every other attribute untouched, and back to its default.
profile_round_trip()
{
	local kw val key want defval prev="" text

	RET=0
	mp_ns_create rt
	# One set per line: the previous attribute back to its default, this
	# one away from it; show has this one changed and all else default
	# (but the source of idle-time and sampling-interval: set, the
	# profile_derived case's).
	while read -r kw val key want defval; do
		[ -n "$kw" ] || continue
		# shellcheck disable=SC2086 # prev is two words or none
		arsctl_ns rt set $prev "$kw" "$val"
		check_err $? "set $prev $kw $val refused"
		jq_expect "set $prev $kw $val" "$(show_ns rt)" \
			"(.$key == $want) and (del(.$key, .source) == ($DEFAULTS | del(.$key, .source)))"
		prev="$kw $defval"
	done <<-EOF
		state on state true off
		mode ecmp mode "ecmp" flowlet-quality
		mode fixed mode "fixed" flowlet-quality
		mode packet-random mode "packet-random" flowlet-quality
		mode packet-roundrobin mode "packet-roundrobin" flowlet-quality
		mode packet-quality mode "packet-quality" flowlet-quality
		mode flowlet-random mode "flowlet-random" flowlet-quality
		idle-time 1us idle_time_ns 1000 256us
		idle-time 1s idle_time_ns 1000000000 256us
		idle-time 1234567ns idle_time_ns 1234567 256
		table-size 64 table_size 64 4096
		table-size 1048576 table_size 1048576 4096
		ipv4 off ipv4 false on
		ipv6 off ipv6 false on
		sampling-interval 1us sampling_interval_ns 1000 100us
		sampling-interval 1s sampling_interval_ns 1000000000 100
		rate-weight 0 rate_weight_percent 0 50
		rate-weight 100% rate_weight_percent 100 50%
		ewma-shift 0 ewma_shift 0 3
		ewma-shift 15 ewma_shift 15 3
		default-object none default_object "none" default
		flowlabel on flowlabel true off
		flowlet-window 1ns flowlet_window_ns 1 off
		flowlet-window 1s flowlet_window_ns 1000000000 0
		flowlet-window 100ms flowlet_window_ns 100000000 off
	EOF

	# shellcheck disable=SC2086
	arsctl_ns rt set $prev idle-time auto sampling-interval auto \
		flowlet-window auto
	check_err $? "set $prev refused"
	jq_expect "set $prev (all defaults again)" "$(show_ns rt)" ". == $DEFAULTS"

	# All at once, then show's text pasted back into set.
	# shellcheck disable=SC2086 # words
	arsctl_ns rt set $OTHERS_SET
	check_err $? "set of all attributes refused"
	jq_expect "set of all attributes" "$(show_ns rt)" ". == $OTHERS"
	text=$(arsctl_ns rt show profile)
	arsctl_ns rt set state off ewma-shift 3 ewma-shift 4
	jq_expect "an attribute given twice (ewma-shift 3 ewma-shift 4)" \
		"$(show_ns rt)" ".ewma_shift == 4"
	# shellcheck disable=SC2086 # show's lines are set's words
	arsctl_ns rt set $text
	check_err $? "show's text refused by set: $text"
	jq_expect "show's text pasted into set" "$(show_ns rt)" ". == $OTHERS"
	ns_destroy_all
	log_case "profile: every attribute to another value and back (arsctl set/show -j)"
}

# 2. A new namespace starts with the documented defaults.
profile_defaults()
{
	local text want

	RET=0
	mp_ns_create fresh
	jq_expect "show -j in a new namespace" "$(show_ns fresh)" ". == $DEFAULTS"
	text=$(arsctl_ns fresh show profile)
	want=$(printf '%-18s %s\n' state off mode flowlet-quality \
		idle-time 256us table-size 4096 ipv4 on ipv6 on \
		sampling-interval 100us rate-weight 50% ewma-shift 3 \
		default-object default flowlabel off flowlet-window off \
		fabric-rtt off remote off remote-half-life 1ms)
	check_eq "$text" "$want" "show in a new namespace"
	ns_destroy_all
	log_case "profile: defaults in a new namespace"
}

# 3. A change in one namespace is seen there only.
profile_per_netns()
{
	local a0 b0 i0

	RET=0
	mp_ns_create a b
	b0=$(show_ns b)
	i0=$(arsctl -j show profile)
	# shellcheck disable=SC2086
	arsctl_ns a set $OTHERS_SET
	check_err $? "set in namespace a"
	a0=$(show_ns a)
	jq_expect "a's profile" "$a0" ". == $OTHERS"
	check_eq "$(show_ns b)" "$b0" "b's profile after a change in a"
	check_eq "$(arsctl -j show profile)" "$i0" "the initial profile after a change in a"
	arsctl_ns b set mode ecmp idle-time 2ms
	check_err $? "set in namespace b"
	check_eq "$(show_ns a)" "$a0" "a's profile after a change in b"
	check_eq "$(arsctl -j show profile)" "$i0" "the initial profile after a change in b"
	ns_destroy_all
	log_case "profile: one per namespace, the others untouched"
}

# 4. Deleting a namespace frees its profile, ports and table.
profile_freed_with_netns()
{
	local base n

	RET=0
	settle_objects
	check_err $? "the object count does not settle"
	base=$(ars_objects)
	mp_ns_create f1 f2
	# A profile and lo's port with its per-CPU counters each (their
	# configurations of objects are the shared initial one), and f1's
	# table and its four per-CPU areas (stats, route cache, object and
	# binding counters).
	arsctl_ns f1 set state on table-size 65536
	check_err $? "state on in f1"
	n=$(ars_objects)
	check_eq "$n" $((base + 11)) "objects with two namespaces, one table"
	ns_destroy_all
	wait_for_secs 30 objects_are "$base"
	check_err $? "objects after deleting the namespaces: $(ars_objects), not $base"
	log_case "profile: a deleted namespace frees its state (objects $base -> $n -> $(ars_objects))"
}

# derive RTT: D_IDLE, D_TAU, D_INTERVAL and D_WINDOW, what ars_derive() makes of a
# fabric-rtt of RTT ns: ars_derive.h's multiple (in quarter RTTs) of RTT,
# within the figure's limits in the uapi header. The constants are read
# once into HDR, and the arithmetic is the shell's: no process per figure.
declare -A HDR=()
derive()
{
	local k v f lim lo hi

	if [ ${#HDR[@]} -eq 0 ]; then
		while read -r k v; do
			HDR[$k]=$v
		done < <(sed -n 's/^#define \(ARS_[A-Z_]*\)[[:space:]]*\([0-9][0-9]*\).*/\1 \2/p' \
			"$ARS_TOP/kmod/ars_derive.h" \
			"$ARS_TOP/include/uapi/linux/ars.h")
	fi
	for f in IDLE:IDLE_TIME TAU:SIGNAL_TAU INTERVAL:SAMPLING_INTERVAL \
		 WINDOW:FLOWLET_WINDOW; do
		lim=${f#*:}
		f=${f%%:*}
		lo=${HDR[ARS_${lim}_MIN]:-0}
		hi=${HDR[ARS_${lim}_MAX]:-0}
		v=$(($1 * ${HDR[ARS_DERIVE_${f}_QRTT]:-0} / 4))
		v=$((v < lo ? lo : v > hi ? hi : v))
		printf -v "D_$f" %s "$v"
	done
	# The signal of a qdisc that names none: ARS_DERIVE_SIGNAL's.
	D_SIGNAL=$(sed -n 's/^#define ARS_DERIVE_SIGNAL[[:space:]]*ARS_SIGNAL_V\([23]\).*/v\1/p' \
		"$ARS_TOP/kmod/ars_derive.h")
}

# fmt_ns NS: a time as arsctl writes it (17400: 17.4us).
fmt_ns()
{
	awk -v v="$1" 'BEGIN {
		split("ns us ms s", u); d = 1; i = 1
		while (i < 4 && v >= d * 1000) { d *= 1000; i++ }
		printf "%.9g%s", v / d, u[i] }'
}

# derived_line_is TEXT KEYWORD NS RTT: show profile's TEXT has KEYWORD's
# line for a figure of NS ns derived from a fabric-rtt of RTT ns.
derived_line_is()
{
	local want

	want=$(printf '%-18s %s (derived: %s x fabric-rtt %s)' "$2" \
		"$(fmt_ns "$3")" \
		"$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.3g", a / b }')" \
		"$(fmt_ns "$4")")
	check_eq "$(grep "^$2 " <<<"$1")" "$want" "show's $2 line"
}

# 5. A fabric-rtt derives idle-time, sampling-interval, flowlet-window and
# the qdiscs' signal v3 tau, as ars_derive.h's multiples say, where they
# were not set;
# a figure set stays through fabric-rtt changes until set to auto; objects
# without an idle time follow too; off is the old defaults again.
profile_derived()
{
	local rtt=8700 rtt2=20000 j want text name ok=1

	RET=0
	mp_ns_create dv
	derive "$rtt"
	[ -n "${HDR[ARS_DERIVE_IDLE_QRTT]:-}" ] && [ "$D_IDLE" -gt 0 ]
	check_err $? "no multiples read from ars_derive.h"
	arsctl_ns dv set fabric-rtt "$(fmt_ns "$rtt")"
	check_err $? "set fabric-rtt $(fmt_ns "$rtt")"
	j=$(show_ns dv)
	jq_expect "fabric-rtt ${rtt}ns: derived" "$j" ".fabric_rtt_ns == $rtt and
		.idle_time_ns == $D_IDLE and
		.sampling_interval_ns == $D_INTERVAL and
		.flowlet_window_ns == $D_WINDOW and
		.signal_tau_ns == $D_TAU and
		(.source | [.[]] | unique) == [\"derived\"]"
	text=$(arsctl_ns dv show profile)
	derived_line_is "$text" idle-time "$D_IDLE" "$rtt"
	derived_line_is "$text" flowlet-window "$D_WINDOW" "$rtt"
	log_info "fabric-rtt $(fmt_ns "$rtt"): idle-time ${D_IDLE}ns, sampling-interval ${D_INTERVAL}ns, flowlet-window ${D_WINDOW}ns, signal-tau ${D_TAU}ns"

	# An object that names no idle time takes the derived one.
	arsctl_ns dv object add dflt2 && arsctl_ns dv object add own idle-time 1ms
	check_err $? "object add"

	# Set explicitly: it stays when fabric-rtt moves; the rest follow. A
	# window set off stays off.
	arsctl_ns dv set idle-time 300us flowlet-window off &&
		arsctl_ns dv set fabric-rtt 20us
	check_err $? "set idle-time 300us flowlet-window off, then fabric-rtt 20us"
	derive "$rtt2"
	jq_expect "idle-time 300us flowlet-window off, then fabric-rtt 20us" \
		"$(show_ns dv)" \
		".fabric_rtt_ns == $rtt2 and .idle_time_ns == 300000 and
		.source.idle_time_ns == \"set\" and
		.flowlet_window_ns == 0 and
		.source.flowlet_window_ns == \"set\" and
		.sampling_interval_ns == $D_INTERVAL and
		.signal_tau_ns == $D_TAU"
	jq_expect "objects after fabric-rtt 20us" \
		"$(arsctl_ns dv -j object show)" \
		"(map({(.name): .idle_time_ns}) | add) ==
		{default: 300000, dflt2: $D_IDLE, own: 1000000}"

	# The ars qdiscs: one without a tau takes the namespace's, one with
	# its own keeps it.
	if [ -r "$ARS_TC_LIB_DIR/q_ars.so" ]; then
		ip -n "$(ns dv)" -b - <<-EOF
			link add d0 up type dummy
			link add d1 up type dummy
			link add d2 up type dummy
		EOF
		tc_ars dv -b - <<-EOF
			qdisc add dev d0 root handle 1: ars signal v3
			qdisc add dev d1 root handle 1: ars signal v3 tau 5us
			qdisc add dev d2 root handle 1: ars
		EOF
		check_err $? "ars qdiscs"
		jq_expect "qdiscs, fabric-rtt 20us" \
			"$(tc_ars dv -s -j qdisc show)" \
			"(map(select(.kind == \"ars\") | {(.dev): .ars}) | add) as \$q |
			\$q.d0.tau_ns == $D_TAU and \$q.d0.tau_derived and
			\$q.d1.tau_ns == 5000 and \$q.d1.tau_derived == false and
			\$q.d0.signal == \"v3\" and \$q.d0.signal_derived == false and
			\$q.d2.signal == \"$D_SIGNAL\" and \$q.d2.signal_derived"
	else
		ok=0
	fi

	# Back to the derived idle time; then no fabric-rtt: the defaults.
	arsctl_ns dv set idle-time auto flowlet-window auto
	check_err $? "set idle-time auto flowlet-window auto"
	jq_expect "idle-time auto flowlet-window auto" "$(show_ns dv)" \
		".idle_time_ns == $D_IDLE and .source.idle_time_ns == \"derived\" and
		.flowlet_window_ns == $D_WINDOW and
		.source.flowlet_window_ns == \"derived\""
	arsctl_ns dv set fabric-rtt 100ns
	derive 100
	jq_expect "fabric-rtt 100ns: within the limits" "$(show_ns dv)" \
		".idle_time_ns == $D_IDLE and
		.sampling_interval_ns == $D_INTERVAL and
		.flowlet_window_ns == $D_WINDOW and
		.signal_tau_ns == $D_TAU"
	arsctl_ns dv set fabric-rtt off
	check_err $? "set fabric-rtt off"
	jq_expect "fabric-rtt off: the defaults" "$(show_ns dv)" ". == $DEFAULTS"
	jq_expect "objects, fabric-rtt off" "$(arsctl_ns dv -j object show)" \
		"(map({(.name): .idle_time_ns}) | add) ==
		{default: 256000, dflt2: 256000, own: 1000000}"
	if [ "$ok" = 1 ]; then
		jq_expect "qdisc without a tau, no fabric-rtt" \
			"$(ars_qdisc_stats dv d0)" \
			'.tau_ns == 16000 and .tau_derived == false'
		jq_expect "qdisc without a signal, no fabric-rtt" \
			"$(ars_qdisc_stats dv d2)" \
			'.signal == "v2" and .signal_derived == false'
	fi
	ns_destroy_all
	name="profile: fabric-rtt derives idle-time, sampling-interval, flowlet-window and the qdiscs' tau; set figures stay"
	[ "$ok" = 1 ] || name+=" (no q_ars.so: qdiscs not checked)"
	log_case "$name"
}

# raw_cases: ATTR|REQUEST per line for genl_raw.py. ATTR is the attribute
# the extended ACK must point at, - when it is about the message.
raw_cases()
{
	cat <<-'EOF'
		3|set 3:u64:999
		3|set 3:u64:0
		3|set 3:u64:1000000001
		3|set 3:u64:0xffffffffffffffff
		4|set 4:u32:32
		4|set 4:u32:0
		4|set 4:u32:2097152
		4|set 4:u32:0x80000000
		4|set 4:u32:0xffffffff
		4|set 4:u32:100
		4|set 4:u32:65
		4|set 4:u32:3072
		4|set 4:u32:4095
		4|set 4:u32:1048575
		7|set 7:u64:999
		7|set 7:u64:0
		7|set 7:u64:1000000001
		7|set 7:u64:0xffffffffffffffff
		8|set 8:u32:101
		8|set 8:u32:0xffffffff
		9|set 9:u32:16
		9|set 9:u32:0xffffffff
		2|set 2:u32:7
		2|set 2:u32:100
		2|set 2:u32:0xffffffff
		1|set 1:u8:2
		1|set 1:u8:255
		5|set 5:u8:2
		5|set 5:u8:255
		6|set 6:u8:2
		42|set 42:u32:1
		12|set 12:u32:1
		13|set 13:u64:1000000001
		13|set 13:u64:0xffffffffffffffff
		13|set 13:u32:5000
		13|set 13:empty
		14|set 14:u64:100000001
		14|set 14:u64:0xffffffffffffffff
		14|set 14:u32:8000
		14|set 14:empty
		15|set 15:u32:8
		15|set 15:u32:0xffffffff
		15|set 15:u64:1
		15|set 3:u64:5000 15:u32:1
		15|set 15:u32:2 7:u64:5000
		15|set 13:u64:5000 15:u32:4
		16|set 16:u64:16000
		0|set 0:u32:1
		1000|set 1000:u64:1
		10|set 10:raw:00000000
		10|set 10:empty
		1|set 1:u32:1
		5|set 5:u32:1
		6|set 6:u16:1
		1|set 1:u64:1
		3|set 3:u32:5000
		7|set 7:u32:50000
		3|set 3:raw:e80300000000000000000000
		2|set 2:u64:1
		4|set 4:u64:1024
		8|set 8:u8:10
		9|set 9:u64:2
		9|set 9:u16:2
		1|set 1:empty
		2|set 2:empty
		3|set 3:empty
		4|set 4:empty
		5|set 5:empty
		6|set 6:empty
		7|set 7:empty
		8|set 8:empty
		9|set 9:empty
		2|set 0x8002:u32:1
		3|set 0x8003:u64:5000
		-|--reserved 1 set 8:u32:60
		-|--reserved 0xffff set 8:u32:60
		-|--reserved 1 get
		-|--flags 0x100 set 8:u32:60
		-|--flags 0x800 set 8:u32:60
		-|--trailing 0102 set 8:u32:60
		-|--trailing 0c00030000000000 set 8:u32:60
		-|--trailing 02000800 set 8:u32:60
		9|set 8:u32:60 9:u32:16
		9|set 9:u32:16 8:u32:60
		42|set 3:u64:500000 42:u32:1
		3|set 8:u32:60 3:u32:5000
		1|set 2:u32:1 1:u8:2
		4|set 1:u8:0 2:u32:0 3:u64:2000 4:u32:100 5:u8:0 6:u8:0 7:u64:20000 8:u32:10 9:u32:1
	EOF
}

# cli_cases: arsctl command lines that are usage errors, one per line.
cli_cases()
{
	cat <<-'EOF'
		frobnicate
		set frob 1
		set idle-time
		set idle-time 12parsecs
		set idle-time 1 ms
		set idle-time ''
		set idle-time 0.0000000001s
		set idle-time 99999999999999999999s
		set table-size 0x
		set table-size -64
		set table-size 4294967296
		set rate-weight -1
		set ewma-shift 1.5
		set flowlet-window on
		set flowlet-window 100 ms
		set flowlet-window -1ms
		set fabric-rtt auto
		set fabric-rtt 8 us
		set fabric-rtt -1us
		set signal-tau 16us
		set table-size auto
		set mode flowlet-qualty
		set mode 6
		set state yes
		set
		set state on idle-time
		show extra
		stats bogus
	EOF
}

# bad_raw NS: the raw cases in namespace NS; BAD_N += their number.
bad_raw()
{
	local ns=$1 out n i line attr got err len changed

	out=$(raw_cases | cut -d'|' -f2 | sed 's/^/--check /' |
		in_ns "$ns" "$GENL_RAW" batch)
	check_err $? "genl_raw.py failed"
	mapfile -t got < <(jq -r -s \
		'.[] | "\(.error) \(.msg | length) \(.changed) \(.attr // "-")|\(.msg)"' \
		<<<"$out")
	mapfile -t lines < <(raw_cases)
	n=${#lines[@]}
	check_eq "${#got[@]}" "$n" "genl_raw.py answers"
	for ((i = 0; i < n; i++)); do
		attr=${lines[i]%%|*}
		line=${lines[i]#*|}
		read -r err len changed at <<<"${got[i]%%|*}"
		# A value out of its policy's range is ERANGE, the rest EINVAL.
		if { [ "$err" != 22 ] && [ "$err" != 34 ]; } ||
		   [ "$len" = 0 ] || [ "$changed" != false ] ||
		   [ "$at" != "$attr" ]; then
			check_err 1 "raw '$line': error $err, message '${got[i]#*|}', changed $changed, attribute $at (expected EINVAL or ERANGE, a message, no change, attribute $attr)"
		fi
	done
	BAD_N=$((BAD_N + n))
	log_info "raw requests refused: $n, e.g. '${lines[0]#*|}': ${got[0]#*|}"
}

# policy_refused NS SYSCTL ARGS...: arsctl set ARGS is refused (exit 1)
# with a message that names SYSCTL, and the profile is unchanged.
policy_refused()
{
	local ns=$1 sysctl=$2 before msg rc

	shift 2
	before=$(show_ns "$ns")
	msg=$(arsctl_ns "$ns" set "$@" 2>&1)
	rc=$?
	check_eq "$rc" 1 "exit status of set $* (hash policy)"
	[[ $msg == *"$sysctl"* ]]
	check_err $? "set $*: message '$msg' does not name $sysctl"
	check_eq "$(show_ns "$ns")" "$before" "the profile after set $* (refused)"
	BAD_N=$((BAD_N + 1))
}

hash_policy()
{
	in_ns "$1" sysctl -qw "net.ipv4.fib_multipath_hash_policy=$2" \
		"net.ipv6.fib_multipath_hash_policy=$3"
}

bad_policy()
{
	local msg

	mp_ns_create hp
	hash_policy hp 0 1
	policy_refused hp net.ipv4.fib_multipath_hash_policy state on
	policy_refused hp net.ipv4.fib_multipath_hash_policy mode fixed state on
	hash_policy hp 2 1
	policy_refused hp net.ipv4.fib_multipath_hash_policy state on
	hash_policy hp 1 0
	policy_refused hp net.ipv6.fib_multipath_hash_policy state on
	hash_policy hp 1 3
	policy_refused hp net.ipv6.fib_multipath_hash_policy state on rate-weight 10
	msg=$(arsctl_ns hp set state on ipv6 off 2>&1)
	check_err $? "state on with ipv6 off (IPv6 hash policy 3) refused: $msg"
	jq_expect "after state on ipv6 off" "$(show_ns hp)" \
		'.state == true and .ipv6 == false' 
	policy_refused hp net.ipv6.fib_multipath_hash_policy ipv6 on
	hash_policy hp 1 1
	arsctl_ns hp set ipv6 on
	check_err $? "ipv6 on once its hash policy is 1"
	hash_policy hp 0 0
	arsctl_ns hp set state off
	check_err $? "state off refused with hash policies 0"
	arsctl_ns hp set state on ipv4 off ipv6 off
	check_err $? "state on, both families off, refused"
	arsctl_ns hp set state off ipv4 on ipv6 on
	hash_policy hp 1 1
	arsctl_ns hp set state on
	check_err $? "state on once both hash policies are 1"
	jq_expect "hash policies 1, state on" "$(show_ns hp)" \
		'.state and .ipv4 and .ipv6' 
}

# bad_cli: usage errors: exit 2, a message, nothing sent. They name a
# namespace that does not exist: had arsctl tried to talk to the kernel, it
# would have failed to enter it, with exit 1.
bad_cli()
{
	local line msg rc n=0
	local -a args

	msg=$("$ARSCTL" -n "$NO_NS" show 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] && [[ $msg == *"network namespace"* ]]
	check_err $? "arsctl -n $NO_NS show: exit $rc, '$msg' (the probe does not work)"
	while read -r line; do
		eval "args=($line)"
		msg=$("$ARSCTL" -n "$NO_NS" "${args[@]}" 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" -ne 2 ] || [[ $msg != arsctl:* ]] ||
		   [[ $msg == *"network namespace"* ]]; then
			check_err 1 "arsctl $line: exit $rc, '$msg' (expected 2 and a usage message)"
		fi
		n=$((n + 1))
	done < <(cli_cases)
	for line in "-x show" "-n" "-n ../x show"; do
		# shellcheck disable=SC2086 # words
		msg=$("$ARSCTL" $line 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" -ne 2 ] || [ -z "$msg" ]; then
			check_err 1 "arsctl $line: exit $rc, '$msg' (expected 2 and a message)"
		fi
		n=$((n + 1))
	done
	BAD_N=$((BAD_N + n))
	log_info "command lines refused: $n, e.g. 'set idle-time 12parsecs': $("$ARSCTL" -n "$NO_NS" set idle-time 12parsecs 2>&1 | head -1)"
}

# table_size_cases: VALUE|MESSAGE per line: an object's table-size and what
# the extended ACK says of it, the module's words for what the policy's
# range lets through, the kernel's for what it does not.
table_size_cases()
{
	cat <<-'EOF'
		100|table-size: 0, or a power of two from 64 to 1048576
		32|table-size: 0, or a power of two from 64 to 1048576
		1|table-size: 0, or a power of two from 64 to 1048576
		1048575|table-size: 0, or a power of two from 64 to 1048576
		2097152|integer out of range
		0x80000000|integer out of range
		0xffffffff|integer out of range
	EOF
}

# bad_table_size NS: table-size of the object default, raw (object-set, 9,
# with name, 1, and table-size, 11) and by arsctl: each refused with its
# message, pointing at table-size, and the objects unchanged.
bad_table_size()
{
	local ns=$1 before v want out msg rc n=0

	before=$(arsctl_ns "$ns" -j object show)
	while IFS='|' read -r v want; do
		out=$(in_ns "$ns" "$GENL_RAW" --cmd 9 set \
			1:raw:64656661756c7400 "11:u32:$v")
		jq_expect "object-set table-size $v: '$want'" "$out" \
			'(.error == 22 or .error == 34) and .attr == 11 and
			 (.msg | startswith("'"$want"'"))'
		n=$((n + 1))
	done < <(table_size_cases)
	for v in 100 4096000; do
		msg=$(arsctl_ns "$ns" object set default table-size $v 2>&1)
		rc=$?
		[ "$rc" -eq 1 ] && [[ $msg == *table-size* ]]
		check_err $? "object set default table-size $v: exit $rc, '$msg' (expected 1, naming table-size)"
		n=$((n + 1))
	done
	check_eq "$(arsctl_ns "$ns" -j object show)" "$before" \
		"the objects after bad table-size"
	BAD_N=$((BAD_N + n))
	log_info "table-size refused: $n, e.g. 100: $(arsctl_ns "$ns" object set default table-size 100 2>&1)"
}

# 5. Bad input: refused, with a reason, and without effect.
bad_input_refused()
{
	local before i0

	RET=0
	BAD_N=0
	mp_ns_create bad
	# shellcheck disable=SC2086
	arsctl_ns bad set $OTHERS_SET
	check_err $? "the starting profile"
	before=$(show_ns bad)
	i0=$(arsctl -j show profile)
	bad_raw bad
	check_eq "$(show_ns bad)" "$before" "the profile after the raw requests"
	bad_policy
	bad_cli
	bad_table_size bad
	check_eq "$(show_ns bad)" "$before" "the profile after the command lines"
	check_eq "$(arsctl -j show profile)" "$i0" "the initial namespace's profile"
	[ "$BAD_N" -ge 50 ]
	check_err $? "only $BAD_N bad inputs"
	ns_destroy_all
	log_case "bad input: $BAD_N cases refused with a reason, nothing changed"
}

# as_nobody CMD...: CMD as an unprivileged user.
as_nobody()
{
	"${NOBODY[@]}" "$@"
}

# 6. GENL_UNS_ADMIN_PERM: changes need CAP_NET_ADMIN in the user namespace
# that owns the network namespace; reading is open to all.
permissions()
{
	local i0 out rc c

	RET=0
	if ! as_nobody unshare -U -r -n true 2>/dev/null; then
		sysctl -qw kernel.unprivileged_userns_clone=1 2>/dev/null
		if ! as_nobody unshare -U -r -n true 2>/dev/null; then
			log_skip "permissions" "no unprivileged user namespaces"
			return
		fi
	fi
	i0=$(arsctl -j show profile)

	# nobody's own user and network namespace: nobody is its admin.
	# shellcheck disable=SC2016 # expanded by that sh
	out=$(as_nobody unshare -U -r -n sh -c '
		"$0" set idle-time 1ms ewma-shift 7 || exit 11
		"$0" stats reset || exit 12
		"$0" -j flows >/dev/null || exit 13
		"$0" -j show profile' "$ARSCTL" 2>&1)
	rc=$?
	check_eq "$rc" 0 "nobody in its own user+network namespace (11 set, 12 stats reset, 13 flows): $out; exit status"
	jq_expect "nobody's own namespace" "$out" \
		'.idle_time_ns == 1000000 and .ewma_shift == 7' 

	# nobody, in its own user namespace but the initial network namespace.
	out=$(as_nobody unshare -U -r "$ARSCTL" set idle-time 1ms 2>&1)
	rc=$?
	check_eq "$rc" 1 "nobody in its user namespace, initial netns: set: exit status"
	[[ $out == *"not permitted"* ]]
	check_err $? "nobody in its user namespace, initial netns: set says '$out', not EPERM"

	# A child user namespace of the one that owns the network namespace.
	# shellcheck disable=SC2016
	out=$(as_nobody unshare -U -r -n sh -c '
		msg=$(unshare -U -r "$0" set idle-time 2ms 2>&1) && exit 11
		case $msg in *"not permitted"*) ;; *) echo "$msg"; exit 12 ;; esac
		"$0" -j show profile' "$ARSCTL" 2>&1)
	rc=$?
	check_eq "$rc" 0 "a child user namespace (11 set accepted, 12 not EPERM): $out; exit status"
	jq_expect "after a set from a child user namespace" "$out" \
		'.idle_time_ns == 256000' 

	# root, in a user namespace of its own: no capability in the initial one.
	out=$(unshare -U -r "$ARSCTL" set idle-time 1ms 2>&1)
	rc=$?
	check_eq "$rc" 1 "root in a new user namespace, initial netns: set: exit status"
	[[ $out == *"not permitted"* ]]
	check_err $? "root in a new user namespace: set says '$out'"

	# nobody without a user namespace: no changes, no flows; reading is open.
	for c in "set idle-time 1ms" "stats reset" "flows"; do
		# shellcheck disable=SC2086 # words
		out=$(as_nobody "$ARSCTL" $c 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" -ne 1 ] || [[ $out != *"not permitted"* ]]; then
			check_err 1 "nobody: arsctl $c: exit $rc, '$out' (expected EPERM)"
		fi
	done
	for c in "-j show" "stats" "-j ports" "-j paths"; do
		# shellcheck disable=SC2086
		out=$(as_nobody "$ARSCTL" $c 2>&1 >/dev/null)
		check_err $? "nobody: arsctl $c refused: $out"
	done
	# Joining the monitor group needs CAP_NET_ADMIN, as the flows dump
	# does (GENL_MCAST_CAP_NET_ADMIN; ars.rst): its events tell flows and
	# devices. arsctl monitor would listen until killed (exit 124).
	out=$(as_nobody timeout 5 "$ARSCTL" monitor 2>&1)
	rc=$?
	check_eq "$rc" 1 "nobody: arsctl monitor: exit status ($out)"
	[[ $out == *"not permitted"* ]]
	check_err $? "nobody: arsctl monitor says '$out', not EPERM"
	# nobody in its own user and network namespace is its admin.
	out=$(as_nobody unshare -U -r -n timeout 2 "$ARSCTL" monitor 2>&1)
	check_eq "$?" 124 "nobody in its own namespaces: arsctl monitor listens until killed ($out)"
	check_eq "$(arsctl -j show profile)" "$i0" "the initial namespace's profile"
	log_case "permissions: the owner of a namespace's user namespace may change it, others only read"
}

# The traffic topology, once, with ars on in r1.
topo_up()
{
	[ -n "$TOPO_UP" ] && return 0
	mp_topo_create || return 1
	mp_route4 1 1 1 1 || return 1
	arsctl_ns r1 set state on || return 1
	TOPO_UP=1
}

# ping_h2 COUNT: pings from h1 to h2 through r1, all answered.
ping_h2()
{
	in_ns h1 ping -q -n -c "$1" -i 0.05 -W 2 "$MP_H2_4" >/dev/null 2>&1
}

# file_has_line FILE: one ping, and FILE holds a line.
ping_until_line()
{
	ping_h2 1
	[ -s "$1" ]
}

# monitor_start FILE: arsctl -j monitor in r1, listening when this returns.
monitor_start()
{
	"$ARSCTL" -n "$(ns r1)" -j monitor >"$1" 2>"$1.err" &
	MON_PID=$!
	wait_for_secs 20 ping_until_line "$1"
}

# monitor_stop: SIGTERM; its exit status in MON_RC (or 255 if it hangs).
monitor_stop()
{
	kill -TERM "$MON_PID" 2>/dev/null
	if wait_for_secs 10 sh -c "! kill -0 $MON_PID 2>/dev/null"; then
		wait "$MON_PID"
		MON_RC=$?
	else
		kill -KILL "$MON_PID"
		wait "$MON_PID"
		MON_RC=255
	fi
	MON_PID=
}

# 7. JSON output: types are numbers (and booleans, strings) as documented.
json_types()
{
	local j mon
	local -a lines

	RET=0
	topo_up
	check_err $? "topology"
	monitor_start "$TMPD/mon.json"
	check_err $? "no monitor event"
	ping_h2 5
	check_err $? "pings from h1 to h2"
	monitor_stop
	check_eq "$MON_RC" 0 "monitor's exit status on SIGTERM"

	j=$(arsctl_ns r1 -j show profile)
	jq_expect "show" "$j" '(keys | length) == 17 and
		(.default_object | type) == "string" and
		(.state | type) == "boolean" and (.ipv4 | type) == "boolean" and
		(.ipv6 | type) == "boolean" and (.mode | type) == "string" and
		([.idle_time_ns, .table_size, .sampling_interval_ns,
		  .rate_weight_percent, .ewma_shift, .flowlet_window_ns,
		  .fabric_rtt_ns, .signal_tau_ns, .remote_half_life_ns] |
		 map(type) | unique) == ["number"] and
		 (.remote | type) == "boolean" and
		 ([.source[]] | map(IN("set", "derived", "default")) | all)'
	jq_expect "show -j -p" "$(arsctl_ns r1 -j -p show profile)" ". == $j"
	jq_expect "show" "$(arsctl_ns r1 -j show)" '.profile == '"$j"' and
		([.steering.ipv4, .steering.ipv6] | map(type) | unique) ==
		["boolean"] and .multipath_routes >= 1 and
		(.devices | contains(["p1", "p2", "p3", "p4"])) and
		(.devices_without_qdisc | type) == "array" and
		.counters.packets > 0'
	jq_expect "routes" "$(arsctl_ns r1 -j routes)" 'any(.[];
		.dst == "10.3.0.0/24" and .steered and
		([.nexthops[].ifname] == ["p1", "p2", "p3", "p4"]))'

	jq_expect "stats" "$(arsctl_ns r1 -j stats)" 'keys == ["disabled",
		"ecmp", "exempt", "failovers", "flowlets", "packets",
		"reassignments", "remote_credited", "remote_matched",
		"remote_moved", "remote_seen", "singlepath", "steered",
		"unknown_quality", "unsteered"] and
		([.[] | type] | unique) == ["number"] and
		.packets > 0 and .steered > 0'

	jq_expect "flows" "$(arsctl_ns r1 -j flows)" 'type == "array" and
		length > 0 and all(.[];
		([.index, .ifindex, .nexthop, .age_ns, .flowlets, .generation] |
		 map(type) | unique) == ["number"] and
		(.ifname | test("^p[1-4]$")) and .flowlets > 0 and
		.nexthop == (.ifname | ltrimstr("p") | tonumber) - 1 and
		.object == "default" and .own_table == false)'
	jq_expect "object" "$(arsctl_ns r1 -j object show default)" \
		'length == 1 and .[0].table_size == 0 and
		 (.[0].name | type) == "string"'

	jq_expect "ports" "$(arsctl_ns r1 -j ports)" 'type == "array" and
		([.[].ifname] | contains(["p1", "p2", "p3", "p4"])) and
		all(.[]; (.ifname | type) == "string" and
		(.qdisc | type) == "boolean" and
		([.ifindex, .bandwidth_bits_per_s, .rate_bits_per_s,
		  .backlog_bytes, .delay_ns, (.util_permille // 0), .band,
		  .packets, .bytes, .flowlets] | map(type) | unique) ==
		["number"]) and ([.[].packets] | add) > 0'

	mapfile -t lines <"$TMPD/mon.json"
	mon=$(IFS=,; echo "[${lines[*]}]")
	jq_expect "monitor lines ($(cat "$TMPD/mon.json.err"))" "$mon" \
		'length > 0 and all(.[];
		([.flow, .old_ifindex, .new_ifindex] | map(type) | unique) ==
		["number"] and .family == "inet" and
		(.reason | IN("new", "idle", "failover", "packet")) and
		(.time_us | type) == "number" and
		(.new_ifname | test("^p[1-4]$")))'
	log_case "JSON: show, stats, flows, ports, routes, monitor lines have the documented types"
}

# ARS_A_FLOW_GATEWAY is in the uapi, the spec and arsctl flows: the gateway
# of an entry's path, here 10.2.N.2 on pN.
flows_gateway()
{
	RET=0
	topo_up
	check_err $? "topology"
	ping_h2 3
	check_err $? "pings from h1 to h2"
	jq_expect "flows" "$(arsctl_ns r1 -j flows)" 'length > 0 and all(.[];
		.gateway == ("10.2." + (.ifname | ltrimstr("p")) + ".2"))'
	log_case "flows: each entry has the gateway of its path (ARS_A_FLOW_GATEWAY)"
}

# 9. stats reset zeroes every counter; counting goes on from zero.
stats_reset()
{
	RET=0
	topo_up
	check_err $? "topology"
	ping_h2 5
	check_err $? "pings from h1 to h2"
	jq_expect "counters before the reset" "$(arsctl_ns r1 -j stats)" \
		'.packets > 0 and .steered > 0 and .flowlets > 0 and
		.singlepath > 0'
	arsctl_ns r1 stats reset
	check_err $? "stats reset"
	jq_expect "counters after the reset" "$(arsctl_ns r1 -j stats)" \
		'(keys | length) == 15 and all(.[]; . == 0)'
	ping_h2 3
	check_err $? "pings from h1 to h2"
	# r1 forwards 3 echo requests over the multipath route (packets,
	# steered, each a flowlet: they are 50 ms apart, idle-time is 256 us)
	# and 3 replies over a single path, and nothing else: the topology is
	# quiet (static neighbours, no IPv6 autoconfiguration). No pN has an
	# ars qdisc: each flowlet-quality choice counts an unknown quality.
	jq_expect "counters after the reset and 3 pings" \
		"$(arsctl_ns r1 -j stats)" \
		'.packets == 3 and .steered == 3 and .unsteered == 0 and
		.flowlets == 3 and .singlepath == 3 and .failovers == 0 and
		.unknown_quality == 3'
	log_case "stats reset zeroes the counters, which count on from zero"
}

# 8. rmmod while arsctl monitor listens: the family goes, the monitor is
# told and exits 1.
rmmod_with_monitor()
{
	local rc t0

	RET=0
	topo_up
	check_err $? "topology"
	monitor_start "$TMPD/mon2.json"
	check_err $? "no monitor event"
	t0=$(uptime_s)
	timeout 60 rmmod ars
	rc=$?
	check_eq "$rc" 0 "rmmod with a monitor listening: exit status"
	ars_loaded
	check_fail $? "the module is still loaded"
	log_info "rmmod took $(($(uptime_s) - t0)) s"
	# nlctrl tells the monitor that the family went away: it exits 1.
	wait_for_secs 10 sh -c "! kill -0 $MON_PID 2>/dev/null"
	check_err $? "the monitor still runs 10 s after rmmod"
	monitor_stop
	check_eq "$MON_RC" 1 "monitor's exit status once the module is gone"
	grep -q "the ars family went away" "$TMPD/mon2.json.err"
	check_err $? "monitor's message: $(cat "$TMPD/mon2.json.err")"
	"$ARSCTL" show >/dev/null 2>&1
	check_fail $? "arsctl show without the module"
	insmod "$ARS_KO"
	check_err $? "insmod after rmmod"
	jq_expect "r1's profile after insmod" "$(arsctl_ns r1 -j show profile)" \
		". == $DEFAULTS"
	TOPO_UP=
	log_case "rmmod while arsctl monitor listens: it exits 1; then insmod"
}

require_root
require_cmd jq python3 ping setpriv unshare timeout "$ARSCTL" "$GENL_RAW"
[ -n "$ARS_KO" ] || { echo "SKIP: ARS_KO not set"; exit $ksft_skip; }
trap cleanup EXIT
ars_load || exit 1
TMPD=$(mktemp -d)
chmod 0755 "$TMPD"
ktap_plan
for t in $(ars_cases); do
	run_case "$t"
done
exit $EXIT_STATUS
