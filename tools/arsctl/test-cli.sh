#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Command line tests of arsctl that need no kernel module: help, usage
# errors (exit 2, before anything reaches the kernel), and, when the ars
# module is not loaded, the module-not-loaded error (exit 1) for every
# command whose arguments are valid. Under valgrind, the same exit status
# and output, no leaks and no errors.
#
#   test-cli.sh [path/to/arsctl]
#
# Prints KTAP (the plan, then the results, once all have run) and "N
# passed, M failed"; exits 1 if anything failed.

ARSCTL=${1:-./arsctl}
NOT_LOADED='arsctl: ars module not loaded (generic netlink family "ars" not found; modprobe ars)'
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/../testing/ktap.sh"

# run ARGS...: run arsctl, leaving $rc, $tmp/out and $tmp/err.
run() {
	"$ARSCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_usage ARGS...: exit 2, a message and a hint on stderr, no stdout.
expect_usage() {
	run "$@"
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
	   head -n 1 "$tmp/err" | grep -q '^arsctl: ' &&
	   grep -q 'arsctl help' "$tmp/err"; then
		ok "usage error: arsctl $*"
	else
		not_ok "usage error: arsctl $*" "exit $rc" \
			"stderr: $(head -n 2 "$tmp/err" | tr '\n' '|')"
	fi
}

# expect_not_loaded ARGS...: valid arguments reach the family lookup.
expect_not_loaded() {
	run "$@"
	if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] &&
	   [ "$(cat "$tmp/err")" = "$NOT_LOADED" ]; then
		ok "module not loaded: arsctl $*"
	else
		not_ok "module not loaded: arsctl $*" "exit $rc" \
			"stderr: $(head -n 2 "$tmp/err" | tr '\n' '|')"
	fi
}

for args in "help" "-h" "--help"; do
	# shellcheck disable=SC2086
	run $args
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
	   grep -q '^Usage: arsctl' "$tmp/out" &&
	   grep -q 'monitor' "$tmp/out" && grep -q 'ewma-shift' "$tmp/out"; then
		ok "arsctl $args prints the help"
	else
		not_ok "arsctl $args prints the help" "exit $rc"
	fi
done

run
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q '^Usage:' "$tmp/err"; then
	ok "no command: usage on stderr, exit 2"
else
	not_ok "no command: usage on stderr, exit 2" "exit $rc"
fi

expect_usage frobnicate
expect_usage -x show
expect_usage --json-please show
expect_usage -n
expect_usage -n ../evil show
expect_usage -n "" show
expect_usage show extra
expect_usage help me
expect_usage stats now
expect_usage stats reset now
expect_usage flows all
expect_usage flows get
expect_usage flows get from 10.1.0.1 to 10.3.0.300 proto udp
expect_usage flows get from 10.1.0.1 to 10.3.0.1 proto udp sport 70000
expect_usage flows get from 10.1.0.1 to 10.3.0.1 proto udp dport
expect_usage ports all
expect_usage paths all
expect_usage monitor all
expect_usage set
expect_usage set state
expect_usage set state yes
expect_usage set state 1
expect_usage set mode
expect_usage set mode flowlet
expect_usage set idle-time
expect_usage set idle-time 1m
expect_usage set idle-time abc
expect_usage set idle-time -1ms
expect_usage set idle-time 0.5ns
expect_usage set idle-time 18446744074s
expect_usage set idle-time 1ms table-size
expect_usage set table-size 4k
expect_usage set table-size 4294967296
expect_usage set table-size -64
expect_usage set ipv4 maybe
expect_usage set ipv6 true
expect_usage set sampling-interval 1hour
expect_usage set rate-weight half
expect_usage set rate-weight 50%%
expect_usage set ewma-shift 3.5
expect_usage set unknown-keyword 1
expect_usage set mode ecmp bogus 1
expect_usage set default-object 0123456789abcdef
expect_usage object frob
expect_usage object add
expect_usage object add 0123456789abcdef
expect_usage object add fab mode flowlet
expect_usage object add fab idle-time 1m
expect_usage object add fab mode
expect_usage object set fab
expect_usage object del
expect_usage object del a b
expect_usage object show a b
expect_usage object add fab primary-threshold 9
expect_usage object set fab alternate-cost 8
expect_usage object set fab alternate-bias 101
expect_usage object set fab alternate-bias
expect_usage object add fab table-size
expect_usage object set fab table-size 4k
expect_usage object set fab table-size -64
expect_usage object set fab table-size 4294967296
expect_usage object set fab max-flows 4294967296
expect_usage object alternate
expect_usage object alternate frob fab via 10.0.0.1
expect_usage object alternate add fab
expect_usage object alternate add fab via 10.0.0.300
expect_usage object alternate add fab gw 10.0.0.1
expect_usage object alternate del 0123456789abcdef dev lo
expect_usage bind frob
expect_usage bind add object fab
expect_usage bind add nhid x object fab
expect_usage bind add prefix 10.1.0.0/x object fab
expect_usage bind add prefix 10.1.0.300/16 object fab
expect_usage bind add mark 0x10/zz exempt
expect_usage bind add nhid 1 prefix 10.0.0.0/8 object fab
expect_usage bind add nhid 1 table x object fab
expect_usage bind del nhid 1 exempt
expect_usage bind add prefix 10.1.0.0/16 vrf
expect_usage bind add prefix 10.1.0.0/16 vrf "" object fab
expect_usage bind add prefix 10.1.0.0/16 vrf 0123456789abcdef object fab
expect_usage bind add prefix 10.1.0.0/16 vrf blue table 10 object fab
expect_usage bind show x
expect_usage interface frob
expect_usage interface enable
expect_usage interface enable lo
expect_usage interface disable dev
expect_usage interface show x
# port, interface's old name, parses as it does.
expect_usage port frob
expect_usage port enable lo

loaded=no
"$ARSCTL" show >/dev/null 2>&1 && loaded=yes
if [ $loaded = yes ]; then
	# The family exists: valid commands would act on this machine.
	skip "module not loaded: valid commands" "ars module is loaded"
else
	expect_not_loaded show
	expect_not_loaded -j show
	expect_not_loaded -j -p show
	expect_not_loaded stats
	expect_not_loaded stats reset
	expect_not_loaded flows
	expect_not_loaded flows get from 10.1.0.1 to 10.3.0.1 proto udp \
		sport 30000 dport 9 mark 0x10 iif lo tos 0x10
	expect_not_loaded -j flows g fd00:3::1 from fd00:1::1 ipproto tcp \
		flowlabel 0xfffff
	expect_not_loaded -j ports
	expect_not_loaded -j ports dev lo
	# paths, ports' old name, and its abbreviations still read.
	expect_not_loaded -j paths
	expect_not_loaded p dev lo
	expect_not_loaded routes
	expect_not_loaded -s routes
	expect_not_loaded -stats -json routes dev lo
	expect_not_loaded -j -s routes d lo
	expect_not_loaded monitor
	# Syntax is all set checks: out-of-range values go to the kernel.
	expect_not_loaded set state on mode ecmp idle-time 500ns \
		table-size 3 ipv4 off ipv6 on sampling-interval 0.5ms \
		rate-weight 150% ewma-shift 99
	expect_not_loaded set idle-time 256 idle-time 1.5s
	expect_not_loaded set mode flowlet-quality sampling-interval 10usec
	expect_not_loaded set default-object none
	expect_not_loaded object
	expect_not_loaded -s object show fab
	expect_not_loaded object add fab mode fixed idle-time 2s
	expect_not_loaded object set fab idle-time 1ms
	expect_not_loaded object del fab
	expect_not_loaded object set fab primary-threshold 8 alternate-cost 7 alternate-bias 0
	# Which sizes the kernel takes is the kernel's to say.
	expect_not_loaded object add fab table-size 1024
	expect_not_loaded object set fab table-size 100
	expect_not_loaded object set fab table-size 0
	# max-flows, its old name, still reads.
	expect_not_loaded object add fab max-flows 1024
	expect_not_loaded object alternate add fab via 2001:db8::1
	expect_not_loaded object alternate del fab via 10.0.0.1
	expect_not_loaded -s bind show
	expect_not_loaded bind
	expect_not_loaded bind add nhid 10 object fab
	expect_not_loaded bind add prefix 2001:db8::/32 table 10 object fab
	expect_not_loaded bind add prefix 10.1.0.0/16 table main object fab
	expect_not_loaded bind add mark 0x10 exempt
	expect_not_loaded bind add prefix 10.1.0.0/16 vrf blue object fab
	expect_not_loaded bind del prefix 2001:db8::/32 vrf 0123456789abcde
	expect_not_loaded bind del mark 0x10/0xff
	expect_not_loaded interface
	expect_not_loaded -j interface show
	expect_not_loaded interface enable dev lo
	expect_not_loaded interface disable dev lo
	expect_not_loaded port
	expect_not_loaded -j port show
	expect_not_loaded port enable dev lo
	expect_not_loaded set idle-time 18446744073.709551615s
	# ip netns add makes /run/netns if need be.
	if ip netns add arsctl-test.$$ 2>"$tmp/err"; then
		expect_not_loaded -n arsctl-test.$$ show
		ip netns del arsctl-test.$$
	else
		not_ok "module not loaded: arsctl -n NETNS show" \
			"ip netns add: $(head -n 1 "$tmp/err")"
	fi
	run -n arsctl-no-such-netns.$$ show
	if [ $rc -eq 1 ] && grep -q 'cannot open network namespace' "$tmp/err"
	then
		ok "a missing namespace is an error, exit 1"
	else
		not_ok "a missing namespace is an error, exit 1" "exit $rc"
	fi
fi

# Each command under valgrind: the exit status it must have (show without
# the module: 1), the same output as without valgrind, and valgrind's own
# log empty (-q: it writes only errors and leaks there). A crash, a
# valgrind that cannot start, or an arsctl that fails otherwise under it
# all fail the case.
show_rc=1
[ $loaded = no ] || show_rc=0
vg_cmds="0 help|2 set idle-time 1ms mode bogus|$show_rc -j -p show"
# Without the module, set fails at the lookup: it changes nothing.
[ $loaded = yes ] || vg_cmds="$vg_cmds|1 set mode ecmp idle-time 1ms"

# ---- Messages that say what to type, abbreviations, -V, filters, man.

# expect_usage_says TEXT ARGS...: a usage error whose message has TEXT.
expect_usage_says() {
	want=$1
	shift
	run "$@"
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
	   head -n 1 "$tmp/err" | grep -qF -- "$want"; then
		ok "usage error says '$want': arsctl $*"
	else
		not_ok "usage error says '$want': arsctl $*" "exit $rc" \
			"stderr: $(head -n 2 "$tmp/err" | tr '\n' '|')"
	fi
}

expect_usage_says 'unknown keyword "ms" (a unit goes with its number: idle-time 256ms)' \
	set idle-time 256 ms
expect_usage_says 'unknown keyword "us" (a unit goes with its number: sampling-interval 50us)' \
	set mode ecmp sampling-interval 50 us
expect_usage_says 'invalid table-size "4k" (expected a power of two from 64 to 1048576' \
	set table-size 4k
expect_usage_says 'invalid table-size "4k" (expected 0, or a power of two from 64 to 1048576)' \
	object set fab table-size 4k
expect_usage_says 'invalid table-size "4k" (expected 0, or a power of two from 64 to 1048576)' \
	object set fab max-flows 4k
expect_usage_says 'invalid ewma-shift "3.5" (expected an integer from 0 to 15)' \
	set ewma-shift 3.5
expect_usage_says 'invalid idle-time "1m" (expected a time from 1us to 1s' \
	set idle-time 1m
expect_usage_says 'invalid sampling-interval "fast" (expected a time from 1us to 1s' \
	set sampling-interval fast
expect_usage_says 'invalid rate-weight "half" (expected a percentage from 0 to 100' \
	set rate-weight half
expect_usage_says 'invalid mode "flowlet" (expected one of: ecmp fixed' \
	set mode flowlet
expect_usage_says 'unknown command "x"' x
expect_usage_says 'ports: missing device after "dev"' ports dev
expect_usage_says 'ports: missing device after "dev"' paths dev
expect_usage_says 'flows: "dev" given twice' flows dev lo dev lo
expect_usage_says 'flows get: expected proto PROTOCOL' \
	flows get from 10.1.0.1 to 10.3.0.1
expect_usage_says 'flows get: expected from ADDRESS' \
	flows get to 10.3.0.1 proto udp
expect_usage_says 'flows get: from and to are not of one family' \
	flows get from 10.1.0.1 to fd00:3::1 proto udp
expect_usage_says 'flows get: invalid address "10.1.0.256" after "from"' \
	flows get from 10.1.0.256 to 10.3.0.1 proto udp
expect_usage_says 'flows get: sport and dport only with tcp, udp, sctp or udplite' \
	flows get from 10.1.0.1 to 10.3.0.1 proto icmp dport 9
expect_usage_says 'monitor: unexpected argument "all"' monitor moves all
expect_usage_says 'routes: unexpected argument "x"' routes x
expect_usage_says 'routes: unexpected argument "-s"' routes -s
expect_usage_says 'routes: missing device after "dev"' -s routes dev
expect_usage_says 'show: unexpected argument "x"' show profile x
expect_usage_says 'bind add: give table or vrf, not both' \
	bind add prefix 10.1.0.0/16 table main vrf blue object fab
expect_usage_says 'bind del: invalid VRF name "0123456789abcdef" (1 to 15 bytes)' \
	bind del prefix 10.1.0.0/16 vrf 0123456789abcdef
expect_usage_says '-V: unexpected argument "show"' -V show

run -V
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
   grep -Eq '^arsctl [0-9a-z.]+, generic netlink family "ars" version 1$' \
	"$tmp/out"; then
	ok "arsctl -V prints the version"
else
	not_ok "arsctl -V prints the version" "exit $rc" "$(cat "$tmp/out")"
fi
run -j --version
if [ $rc -eq 0 ] && command -v jq >/dev/null 2>&1 &&
   jq -e '.family == "ars" and .family_version == 1 and
	  (.arsctl | type) == "string"' "$tmp/out" >/dev/null; then
	ok "arsctl -j --version prints JSON"
elif ! command -v jq >/dev/null 2>&1; then
	skip "arsctl -j --version prints JSON" "no jq"
else
	not_ok "arsctl -j --version prints JSON" "exit $rc" "$(cat "$tmp/out")"
fi

# Any beginning of a command, keywords, modes and units in any case.
if [ $loaded = no ]; then
	for args in "sh" "s" "sh profile" "show PROF" "se mode ecmp" \
		"st" "stats r" "STATS RESET" "f" "fl dev lo" "p" "pa dev lo" \
		"r" "ro dev lo" "m" "mon -t moves dev lo" "-t monitor MOVES" \
		"set mode Flowlet-Quality" "set MODE ECMP State On" \
		"set Idle-Time 256US ipv6 OFF" "set rate-weight 50% ewma-shift 4"
	do
		# shellcheck disable=SC2086 # words
		expect_not_loaded $args
	done
else
	skip "module not loaded: abbreviations and case" "ars module is loaded"
fi
for args in "h" "he" "HELP"; do
	# shellcheck disable=SC2086
	run $args
	if [ $rc -eq 0 ] && grep -q '^Usage: arsctl' "$tmp/out"; then
		ok "arsctl $args prints the help"
	else
		not_ok "arsctl $args prints the help" "exit $rc"
	fi
done

# The man page renders without a warning and fits 80 columns.
man_page=$(dirname "$ARSCTL")/arsctl.8
if command -v man >/dev/null 2>&1 && [ -f "$man_page" ]; then
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man_page" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	width=$(wc -L <"$tmp/out")
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
	   grep -q '^SYNOPSIS' "$tmp/out" && [ "$width" -le 80 ]; then
		ok "man --warnings -l arsctl.8: clean, $width columns"
	else
		not_ok "man --warnings -l arsctl.8: clean, 80 columns" \
			"exit $rc, widest line $width" \
			"stderr: $(head -n 3 "$tmp/err" | tr '\n' '|')"
	fi
else
	skip "man --warnings -l arsctl.8" "no man, or no arsctl.8 beside $ARSCTL"
fi

# ---- Batches (-b): every line parsed before anything is sent.

# expect_batch NAME RC STDERR [ARGS...]: arsctl ARGS exits RC, prints
# nothing on stdout and exactly STDERR on stderr.
expect_batch() {
	name=$1 want_rc=$2 want_err=$3
	shift 3
	run "$@"
	if [ $rc -eq "$want_rc" ] && [ ! -s "$tmp/out" ] &&
	   [ "$(cat "$tmp/err")" = "$want_err" ]; then
		ok "batch: $name"
	else
		not_ok "batch: $name" "exit $rc, want $want_rc" \
			"stderr: $(head -n 3 "$tmp/err" | tr '\n' '|')" \
			"want: $want_err"
	fi
}

# Valid lines first: had they been sent, the module's absence would say so.
cat >"$tmp/bad.conf" <<'END'
# ars.conf
set state on mode flowlet-quality	# a comment after a command

  show   profile
set idle-time 256 ms
stats
END
expect_batch "a bad line 5 is reported as FILE:5, nothing sent, exit 1" 1 \
	"arsctl: $tmp/bad.conf:5: set: unknown keyword \"ms\" (a unit goes with its number: idle-time 256ms)" \
	-b "$tmp/bad.conf"
printf 'stats\nset idle-time 1ms\nflows dev\n' >"$tmp/bad2.conf"
expect_batch "-j -n NETNS -b -: stdin:3, before the namespace is entered" 1 \
	'arsctl: stdin:3: flows: missing device after "dev"' \
	-j -n arsctl-no-such-netns.$$ -b - <"$tmp/bad2.conf"
printf 'help\nmonitor\n' >"$tmp/mon.conf"
expect_batch "monitor is refused in a batch, help is not run first" 1 \
	"arsctl: $tmp/mon.conf:2: monitor: not in a batch" -b "$tmp/mon.conf"
printf 'frob\n' >"$tmp/frob.conf"
expect_batch "an unknown command" 1 \
	"arsctl: $tmp/frob.conf:1: unknown command \"frob\"" -b "$tmp/frob.conf"
printf '\n# only comments\n   \n\t# and blanks\n' >"$tmp/empty.conf"
expect_batch "comments and blank lines only: nothing to do, exit 0" 0 "" \
	-b "$tmp/empty.conf"
expect_batch "a missing file, exit 1" 1 \
	"arsctl: cannot open \"$tmp/none.conf\": No such file or directory" \
	-b "$tmp/none.conf"
expect_usage -b "$tmp/empty.conf" show
expect_usage -b
if [ $loaded = no ]; then
	printf '# first a comment\nset mode ecmp\nstats\n' >"$tmp/good.conf"
	expect_batch "valid lines run in order, the first failure stops it" 1 \
		"arsctl: $tmp/good.conf:2: ${NOT_LOADED#arsctl: }" \
		-b "$tmp/good.conf"
else
	skip "batch: valid lines run in order" "ars module is loaded"
fi
printf 'he\n' | "$ARSCTL" -b - >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
   [ "$(grep -c '^Usage: arsctl' "$tmp/out")" -eq 1 ]; then
	ok "batch: help prints the help once"
else
	not_ok "batch: help prints the help once" "exit $rc"
fi
# -c: the check alone, which needs no module either way.
printf 'set state on mode ecmp\nstats reset\nshow\n' >"$tmp/ok.conf"
expect_batch "-c -b: every line parses, nothing sent, exit 0" 0 "" \
	-c -b "$tmp/ok.conf"
expect_batch "-c -b: a bad line 5, exit 1" 1 \
	"arsctl: $tmp/bad.conf:5: set: unknown keyword \"ms\" (a unit goes with its number: idle-time 256ms)" \
	-c -b "$tmp/bad.conf"
expect_usage -c show
expect_usage -r show
expect_usage -r

# -c: every bad line of a file, each as FILE:LINE, among good ones.
cat >"$tmp/ten.conf" <<'END'
# ten bad lines among good ones
set idle-time 2s
set table-size 1000
object add fab mode fixed
set rate-weight 101
bind add prefix 10.0.0.0/33 object fab
bind add nhid 10 object nosuch
interface enable dev nosuchdev0
set ewma-shift 16
object alternate add fab dev nosuchdev1
bind add mark 0x10 object fab
bind add prefix 10.1.2.0/16 object fab
bind add nhid 11
set state on
END
run -c -b "$tmp/ten.conf"
lines=$(grep -o "^arsctl: $tmp/ten.conf:[0-9]*:" "$tmp/err" | cut -d: -f3 |
	tr '\n' ' ')
if [ $rc -eq 1 ] && [ ! -s "$tmp/out" ] &&
   [ "$lines" = "2 3 5 6 7 8 9 10 11 12 13 " ] &&
   [ "$(wc -l <"$tmp/err")" -eq 11 ]; then
	ok "-c -b: all 11 bad lines reported as FILE:LINE, exit 1"
else
	not_ok "-c -b: all 11 bad lines reported" "exit $rc, lines $lines" \
		"$(tr '\n' '|' <"$tmp/err")"
fi

# The ranges -c checks are the kernel's, from linux/ars.h: its limits
# pass, one past them does not.
uapi=$(dirname "$0")/../../include/uapi/linux/ars.h
limit() {
	sed -n "s/^#define $1[[:space:]]*\([0-9]*\).*/\1/p" "$uapi"
}
bad=
for t in "rate-weight $(limit ARS_RATE_WEIGHT_MAX) $(($(limit ARS_RATE_WEIGHT_MAX) + 1))" \
	 "ewma-shift $(limit ARS_EWMA_SHIFT_MAX) $(($(limit ARS_EWMA_SHIFT_MAX) + 1))" \
	 "table-size $(limit ARS_TABLE_SIZE_MAX) $(($(limit ARS_TABLE_SIZE_MAX) * 2))" \
	 "table-size $(limit ARS_TABLE_SIZE_MIN) $(($(limit ARS_TABLE_SIZE_MIN) / 2))" \
	 "idle-time $(limit ARS_IDLE_TIME_MAX)ns $(($(limit ARS_IDLE_TIME_MAX) + 1))ns" \
	 "idle-time $(limit ARS_IDLE_TIME_MIN)ns $(($(limit ARS_IDLE_TIME_MIN) - 1))ns" \
	 "sampling-interval $(limit ARS_SAMPLING_INTERVAL_MAX)ns $(($(limit ARS_SAMPLING_INTERVAL_MAX) + 1))ns" \
	 "flowlet-window $(limit ARS_FLOWLET_WINDOW_MAX)ns $(($(limit ARS_FLOWLET_WINDOW_MAX) + 1))ns" \
	 "remote-half-life $(limit ARS_REMOTE_HALF_LIFE_MAX)ns $(($(limit ARS_REMOTE_HALF_LIFE_MAX) + 1))ns" \
	 "remote-half-life $(limit ARS_REMOTE_HALF_LIFE_MIN)ns $(($(limit ARS_REMOTE_HALF_LIFE_MIN) - 1))ns"; do
	set -- $t
	printf 'set %s %s\n' "$1" "$2" >"$tmp/lim.conf"
	"$ARSCTL" -c -b "$tmp/lim.conf" >/dev/null 2>&1 || bad="$bad [$1 $2 refused]"
	printf 'set %s %s\n' "$1" "$3" >"$tmp/lim.conf"
	"$ARSCTL" -c -b "$tmp/lim.conf" >/dev/null 2>&1 && bad="$bad [$1 $3 passed]"
done
printf 'object add a table-size %s\nobject add b max-flows 100\n' \
	"$(limit ARS_TABLE_SIZE_MAX)" >"$tmp/lim.conf"
run -c -b "$tmp/lim.conf"
[ "$(cut -d: -f3 <"$tmp/err" | tr '\n' ' ')" = "2 " ] ||
	bad="$bad [table-size: $(tr '\n' '|' <"$tmp/err")]"
if [ -z "$bad" ]; then
	ok "-c -b: the limits of linux/ars.h pass, one past them is refused"
else
	not_ok "-c -b: the limits of linux/ars.h" "$bad"
fi

# A whole configuration: every kind of line, objects named after they are
# added; a line naming an object before it is added is refused.
cat >"$tmp/full.conf" <<'END'
set mode ecmp idle-time 500us
object add fab idle-time 1ms primary-threshold 6
object replace fab mode fixed
object alternate add fab via 10.0.0.1
object alternate replace fab dev lo
bind add nhid 10 object fab
bind replace prefix 10.1.0.0/16 object default
bind add mark 0x10/0xf0 exempt
interface enable dev lo
set default-object fab
set state on
END
expect_batch "-c -b: a full ars.conf passes" 0 "" -c -b "$tmp/full.conf"
# A file written for port, interface's old name, still passes; a bad
# device is reported under the new name.
printf 'port enable dev lo\nport disable dev lo\nport show\n' >"$tmp/port.conf"
expect_batch "-c -b: port enable, disable, show still pass" 0 "" \
	-c -b "$tmp/port.conf"
printf 'port enable dev nosuchdev0\n' >"$tmp/port.conf"
run -c -b "$tmp/port.conf"
if [ $rc -eq 1 ] &&
   grep -q "^arsctl: $tmp/port.conf:1: interface enable: .*nosuchdev0" "$tmp/err"
then
	ok "-c -b: port enable of a bad device, reported as interface enable"
else
	not_ok "-c -b: port enable of a bad device" "exit $rc" \
		"$(tr '\n' '|' <"$tmp/err")"
fi
printf 'bind add nhid 10 object fab\nobject add fab\n' >"$tmp/order.conf"
expect_batch "-c -b: an object used before the line that adds it" 1 \
	"arsctl: $tmp/order.conf:1: bind add: no object \"fab\" (no line before adds it)" \
	-c -b "$tmp/order.conf"
# Without -c or -r the file may be a part: objects may exist already.
if [ $loaded = no ]; then
	expect_batch "-b: a part of a configuration is not checked for objects" 1 \
		"arsctl: $tmp/order.conf:1: ${NOT_LOADED#arsctl: }" \
		-b "$tmp/order.conf"
	expect_batch "-r -b: checked as -c first" 1 \
		"arsctl: $tmp/order.conf:1: bind add: no object \"fab\" (no line before adds it)" \
		-r -b "$tmp/order.conf"
	expect_batch "-r -b: a good file needs the module, whatever its lines" 1 \
		"$NOT_LOADED" \
		-r -b "$tmp/full.conf"
fi

# ---- COMMAND help, version, ip's one-dash options.
for c in object bind interface set show stats flows ports routes monitor; do
	run $c help
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^Usage:' "$tmp/out" &&
	   grep -v '^Usage:\|^See ' "$tmp/out" | grep -q "arsctl \[OPTIONS\] $c" &&
	   ! grep -v '^Usage:\|^See ' "$tmp/out" | grep 'arsctl ' |
		grep -vq "arsctl \[OPTIONS\] $c"; then
		ok "arsctl $c help: the usage of $c alone"
	else
		not_ok "arsctl $c help" "exit $rc" "$(tr '\n' '|' <"$tmp/out")" \
			"$(head -n 2 "$tmp/err")"
	fi
done
# An old name's help is its new name's usage.
for t in "interface port" "ports paths"; do
	# shellcheck disable=SC2086
	set -- $t
	now=$1 was=$2
	run "$now" help
	cp "$tmp/out" "$tmp/now-help"
	run "$was" help
	if [ $rc -eq 0 ] && grep -q "arsctl \[OPTIONS\] $now" "$tmp/out" &&
	   cmp -s "$tmp/out" "$tmp/now-help"; then
		ok "arsctl $was help: $now's usage, $was being its old name"
	else
		not_ok "arsctl $was help: $now's usage" "exit $rc" \
			"$(tr '\n' '|' <"$tmp/out")"
	fi
done
# The abbreviations that shipped keep their command: p is paths (ports),
# po and por are port (interface); ports is written whole.
for t in "p ports" "pa ports" "po interface" "por interface" \
	 "port interface" "ports ports" "i interface"; do
	set -- $t
	run "$1" frob
	if [ $rc -eq 2 ] && grep -q "^arsctl: $2: " "$tmp/err"; then
		ok "arsctl $1 is $2"
	else
		not_ok "arsctl $1 is $2" "exit $rc" "$(head -n 1 "$tmp/err")"
	fi
done
run bind help
if grep -q '^WHAT := ' "$tmp/out"; then
	ok "arsctl bind help: with WHAT"
else
	not_ok "arsctl bind help: with WHAT" "$(tr '\n' '|' <"$tmp/out")"
fi
expect_usage object help me
run version
if [ $rc -eq 0 ] && grep -q '^arsctl [0-9]' "$tmp/out" &&
   grep -q '^build [0-9a-z.-]*$' "$tmp/out" &&
   if [ -d /sys/module/ars ]; then grep -q '^module ars' "$tmp/out"
   else grep -qx 'module ars not loaded (modprobe ars)' "$tmp/out"; fi; then
	ok "arsctl version: arsctl's version, build, the module's"
else
	not_ok "arsctl version" "exit $rc" "$(tr '\n' '|' <"$tmp/out")"
fi
run -json -pretty version
if [ $rc -eq 0 ] && command -v jq >/dev/null &&
   jq -e '.family == "ars" and (.build | length > 0)' "$tmp/out" >/dev/null &&
   [ "$(wc -l <"$tmp/out")" -gt 1 ]; then
	ok "arsctl -json -pretty version: indented JSON"
else
	not_ok "arsctl -json -pretty version" "exit $rc" "$(tr '\n' '|' <"$tmp/out")"
fi
expect_usage -jsonx show
if [ $loaded = no ]; then
	expect_not_loaded -json -stats object show
fi
vg_cmds="$vg_cmds|1 -c -b $tmp/ten.conf|0 object help"
vg_cmds="$vg_cmds|1 -b $tmp/bad.conf|0 -b $tmp/empty.conf"
vg_cmds="$vg_cmds|2 flows get from 10.1.0.1 to fd00::1 proto udp"

if command -v valgrind >/dev/null 2>&1; then
	IFS='|'
	# shellcheck disable=SC2086 # split at '|' on purpose
	set -- $vg_cmds
	unset IFS
	for cmd in "$@"; do
		want=${cmd%% *}
		args=${cmd#* }
		# shellcheck disable=SC2086
		run $args
		cp "$tmp/out" "$tmp/out0"
		cp "$tmp/err" "$tmp/err0"
		rm -f "$tmp/vg"
		# shellcheck disable=SC2086
		valgrind -q --leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all --error-exitcode=99 \
			--log-file="$tmp/vg" "$ARSCTL" $args \
			>"$tmp/out" 2>"$tmp/err"
		vrc=$?
		if [ $rc -eq "$want" ] && [ $vrc -eq "$want" ] &&
		   [ -f "$tmp/vg" ] && [ ! -s "$tmp/vg" ] &&
		   cmp -s "$tmp/out" "$tmp/out0" &&
		   cmp -s "$tmp/err" "$tmp/err0"; then
			ok "valgrind: arsctl $args (exit $want, clean)"
		else
			not_ok "valgrind: arsctl $args (exit $want, clean)" \
				"exit $rc, under valgrind $vrc" \
				"stderr under valgrind: $(head -n 2 "$tmp/err" | tr '\n' '|')" \
				"valgrind: $(head -n 5 "$tmp/vg" 2>&1 | tr '\n' '|')"
		fi
	done
else
	not_ok "valgrind" "valgrind not installed (make deps installs it)"
fi

ktap_finish
