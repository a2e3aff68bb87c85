# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the ars selftests, in the manner of the kernel's
# tools/testing/selftests/net/forwarding/lib.sh:
#
#   ALL_TESTS="case_a case_b"
#   source lib.sh
#   trap cleanup EXIT
#   setup_prepare; tests_run; exit $EXIT_STATUS
#
# Each case sets RET=0, asserts with check_err/check_fail, and ends with
# log_test "what it shows", which prints a KTAP line "ok N - ..." or
# "not ok N - ...". tests_run (or ktap_plan, for a script with a loop of
# its own) first prints the plan, "1..N": one result per case, or
# CASE_RESULTS[case] for a case that logs several. run_tests.sh counts a
# script that prints fewer results than its plan as failed. Missing tools
# make a script print SKIP and exit 4, and log_skip logs a case's SKIP:
# make check fails either unless tools/testing/skip-allow.txt names it.

ARS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ARS_TOP=$(cd "$ARS_LIB_DIR/../../../../.." && pwd)
ARSCTL=${ARSCTL:-$ARS_TOP/tools/arsctl/arsctl}
UDPGEN=${UDPGEN:-$ARS_TOP/tools/testing/traffic/ars-udpgen}
ARS_KO=${ARS_KO:-}

ksft_skip=4
RET=0
EXIT_STATUS=0
TEST_NUM=0
retmsg=
# Every namespace a test makes carries this prefix, so cleanup finds them
# and two scripts never collide.
NS_PREFIX=${NS_PREFIX:-ars$$}

check_err()
{
	local err=$1
	local msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -ne 0 ]; then
		RET=$err
		retmsg=$msg
	fi
}

check_fail()
{
	local err=$1
	local msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -eq 0 ]; then
		RET=1
		retmsg=$msg
	fi
}

# check_eq ACTUAL EXPECTED WHAT: an empty EXPECTED fails, since nothing a
# test expects is empty: it comes from a command that failed (e.g. both
# sides of an "unchanged" check read by an arsctl that failed twice).
check_eq()
{
	if [ -z "$2" ]; then
		check_err 1 "$3: got '$1', expected nothing (the reference is empty)"
		return
	fi
	[ "$1" = "$2" ]
	check_err $? "$3: got '$1', expected '$2'"
}

# check_none OFFENDING INPUT WHAT: OFFENDING, the lines of INPUT that break
# a rule, must be empty, and INPUT must not be (a failed command offends
# nothing).
check_none()
{
	if [ -z "$2" ]; then
		check_err 1 "$3: nothing to check (the input is empty)"
		return
	fi
	[ -z "$1" ]
	check_err $? "$3: offending: $(head -3 <<<"$1")"
}

log_test()
{
	local name=$1

	TEST_NUM=$((TEST_NUM + 1))
	if [ "$RET" -ne 0 ]; then
		EXIT_STATUS=1
		echo "not ok $TEST_NUM - $name: $retmsg"
	else
		echo "ok $TEST_NUM - $name"
	fi
	RET=0
	retmsg=
}

log_skip()
{
	TEST_NUM=$((TEST_NUM + 1))
	echo "ok $TEST_NUM - $1 # SKIP $2"
}

log_info()
{
	echo "# $*"
}

# Results a case of ALL_TESTS logs, when more than one (see ktap_plan).
declare -gA CASE_RESULTS=()

# ARS_CASES="case_a ..." runs only those cases of a script's ALL_TESTS
# (one script in TESTS, a case on one kernel): ars_cases prints them, and
# fails on a name that is not a case of the script.
ars_cases()
{
	local t

	[ -n "${ARS_CASES:-}" ] || { echo $ALL_TESTS; return 0; }
	for t in $ARS_CASES; do
		if [[ " $(echo $ALL_TESTS) " != *" $t "* ]]; then
			echo "ARS_CASES: $t is not a case of $(basename "$0")" >&2
			return 1
		fi
	done
	echo $ARS_CASES
}

# ktap_plan: the KTAP version line and the plan, "1..N", N the results
# that the cases of ALL_TESTS (or ARS_CASES) log.
ktap_plan()
{
	local t n=0 cases

	cases=$(ars_cases) || exit 1
	for t in $cases; do
		n=$((n + ${CASE_RESULTS[$t]:-1}))
	done
	echo "KTAP version 1"
	echo "1..$n"
}

# The debug kernel (tools/testing/vm/debug-kernel.sh: KASAN, kmemleak,
# lockdep, PROVE_RCU) is there for memory, locking and RCU bugs, and runs
# several times slower than Debian's kernels under emulation. A case whose
# verdict rests on a rate, a delay or a goodput measured in the guest's
# time proves nothing there and costs make check minutes: a script lists
# it, with the reason, in NOT_ON_DEBUG[case], and on the debug kernel it
# logs "# SKIP not on the debug kernel: <reason>" for each of its results
# instead of running. (run_tests.sh has the same list for whole scripts.)
# ARS_DEBUG_SUBSET=0 runs every case on the debug kernel too, =1 skips
# them on any kernel.
declare -gA NOT_ON_DEBUG=()

on_debug_kernel()
{
	case ${ARS_DEBUG_SUBSET:-} in
	0) return 1 ;;
	1) return 0 ;;
	esac
	[[ $(uname -r) == *-ars-debug ]]
}

# uptime_s: whole seconds of CLOCK_BOOTTIME (/proc/uptime), which nothing
# steps: durations are measured on it. bash's SECONDS, date +%s and
# $EPOCHREALTIME read the realtime clock, which settimeofday and NTP move.
uptime_s()
{
	local up

	read -r up _ </proc/uptime
	echo "${up%.*}"
}

# run_case CASE: run one case of ALL_TESTS, or log its SKIPs on the debug
# kernel; with ARS_TIMING set, say how long it took.
run_case()
{
	local t=$1 t0 i

	if [ -n "${NOT_ON_DEBUG[$t]:-}" ] && on_debug_kernel; then
		for ((i = 0; i < ${CASE_RESULTS[$t]:-1}; i++)); do
			log_skip "$t" "not on the debug kernel: ${NOT_ON_DEBUG[$t]}"
		done
		return 0
	fi
	t0=$(uptime_s)
	$t
	[ -z "${ARS_TIMING:-}" ] || log_info "$t: $(($(uptime_s) - t0)) s"
}

tests_run()
{
	local t cases

	cases=$(ars_cases) || exit 1
	ktap_plan
	for t in $cases; do
		run_case "$t"
	done
}

require_cmd()
{
	local c

	for c in "$@"; do
		if ! command -v "$c" >/dev/null 2>&1 && [ ! -x "$c" ]; then
			echo "SKIP: $c not found"
			exit $ksft_skip
		fi
	done
}

require_root()
{
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root"
		exit $ksft_skip
	fi
}

# Namespaces.

ns()
{
	echo "$NS_PREFIX-$1"
}

# ns_create NAME...: new namespaces with lo up, forwarding on, and the L4
# multipath hash policy that ars needs.
ns_create()
{
	local n

	for n in "$@"; do
		ip netns add "$(ns "$n")" || return 1
		ip -n "$(ns "$n")" link set lo up
		ip netns exec "$(ns "$n")" sh -c '
			sysctl -qw net.ipv4.ip_forward=1
			sysctl -qw net.ipv6.conf.all.forwarding=1
			sysctl -qw net.ipv4.fib_multipath_hash_policy=1
			sysctl -qw net.ipv6.fib_multipath_hash_policy=1
			sysctl -qw net.ipv6.conf.all.accept_dad=0
			sysctl -qw net.ipv6.conf.default.accept_dad=0'
	done
}

ns_destroy_all()
{
	local n

	for n in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $n in
		"$NS_PREFIX"-*) ip netns del "$n" ;;
		esac
	done
}

# in_ns NAME CMD...: run a command in a test namespace.
in_ns()
{
	local n=$1

	shift
	ip netns exec "$(ns "$n")" "$@"
}

# veth_link NS1 IF1 NS2 IF2: a veth pair between two namespaces, both up.
veth_link()
{
	ip link add "$2" netns "$(ns "$1")" type veth \
		peer name "$4" netns "$(ns "$3")" || return 1
	ip -n "$(ns "$1")" link set "$2" up
	ip -n "$(ns "$3")" link set "$4" up
}

arsctl()
{
	"$ARSCTL" "$@"
}

# arsctl_ns NAME ARGS...: arsctl in a test namespace.
arsctl_ns()
{
	local n=$1

	shift
	"$ARSCTL" -n "$(ns "$n")" "$@"
}

# What r1's objects, bindings, interfaces and profile are, to tell that a
# refused request changed nothing.
conf_snapshot()
{
	{
		arsctl_ns r1 -j object show
		arsctl_ns r1 -j bind show
		arsctl_ns r1 -j interface show
		arsctl_ns r1 -j show profile
	} | jq -c .
}

# refused WANT ARGS...: arsctl ARGS in r1 fails (exit 1) with a message
# that holds WANT, and nothing changes (conf_snapshot); BAD_N counts the
# requests so refused.
refused()
{
	local expect=$1 before after out rc

	shift
	before=$(conf_snapshot)
	out=$(arsctl_ns r1 "$@" 2>&1)
	rc=$?
	after=$(conf_snapshot)
	if [ $rc -ne 1 ] || [[ $out != *"$expect"* ]]; then
		check_err 1 "arsctl $*: exit $rc, '$out' (expected 1 and '$expect')"
	elif [ "$before" != "$after" ]; then
		check_err 1 "arsctl $*: refused, but the configuration changed"
	fi
	BAD_N=$((${BAD_N:-0} + 1))
}

# The module.

ars_loaded()
{
	[ -d /sys/module/ars ]
}

ars_load()
{
	ars_loaded || insmod "$ARS_KO"
}

ars_unload()
{
	! ars_loaded || rmmod ars
}

ars_objects()
{
	cat /sys/module/ars/parameters/objects
}

# Counters of a device: tx_packets DEV in namespace NAME.
link_tx_packets()
{
	ip -n "$(ns "$1")" -s -j link show dev "$2" |
		jq '.[0].stats64.tx.packets'
}

# wait_for CMD...: poll up to 5 s until CMD succeeds (no fixed sleeps).
wait_for()
{
	wait_until 5 "$@"
}

cleanup_default()
{
	ns_destroy_all
}

# cleanup_mp PID...: a script's cleanup, for those that keep their files
# in $TMPD and leave the module loaded for the next script: the
# background processes PID... are told to stop ($TMPD/stop, for those
# that poll it) and killed, then the namespaces, the reload of ars.ko if
# a case unloaded it, and $TMPD go.
cleanup_mp()
{
	local p

	[ -z "${TMPD:-}" ] || touch "$TMPD/stop"
	for p in "$@"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	ns_destroy_all
	ars_load
	[ -z "${TMPD:-}" ] || rm -rf "$TMPD"
}

# The four-path topology of ars_dataplane.sh and ars_tcp.sh (see the
# diagram there): h1 - r1 = p1..p4 = r2 - h2, IPv4 and IPv6. r1 reaches
# h2's prefixes over p1..p4 by the multipath route that mp_route4 and
# mp_route6 set; r2 routes back to h1 over p1 only.
#
# Quiet by construction, so that a device's tx_packets counts test traffic
# only: every neighbour is static (nud permanent, fixed MAC addresses), no
# device has a link-local address (addr_gen_mode none), there is no DAD, no
# router solicitation and no SLAAC. Commands go in batches: under TCG every
# exec costs a lot.

MP_H1_4=10.1.0.1
MP_H2_4=10.3.0.1
MP_H1_6=fd00:1::1
MP_H2_6=fd00:3::1
MP_DST4=10.3.0.0/24
MP_DST6=fd00:3::/64

# mp_mac LINK SIDE: MAC of one end: LINK 10 is h1-r1, 1..4 are p1..p4, 20
# is r2-h2; SIDE 1 is the end nearer h1, 2 the other.
mp_mac()
{
	printf '02:00:00:00:%02x:%02x' "$1" "$2"
}

# mp_ns_create NAME...: ns_create's settings plus a quiet IPv6, two execs
# per namespace.
mp_ns_create()
{
	local n

	for n in "$@"; do
		ip netns add "$(ns "$n")" || return 1
		ip netns exec "$(ns "$n")" sh -c '
			w() { echo "$2" >"/proc/sys/net/$1" || exit 1; }
			w ipv4/ip_forward 1
			w ipv6/conf/all/forwarding 1
			w ipv4/fib_multipath_hash_policy 1
			w ipv6/fib_multipath_hash_policy 1
			for c in all default; do
				w ipv6/conf/$c/accept_dad 0
				w ipv6/conf/$c/accept_ra 0
				w ipv6/conf/$c/autoconf 0
				w ipv6/conf/$c/router_solicitations 0
			done
			w ipv6/conf/default/addr_gen_mode 1' || return 1
	done
}

# Batch lines for one end of a link: up, addresses, the peer as a static
# neighbour. mp_end DEV LINK SIDE ADDR4/LEN ADDR6/LEN PEER4 PEER6
mp_end()
{
	local peer_side=$((3 - $3))

	echo "link set $1 up"
	echo "addr add $4 dev $1"
	echo "addr add $5 dev $1 nodad"
	echo "neigh replace $6 lladdr $(mp_mac "$2" $peer_side) dev $1 nud permanent"
	echo "neigh replace $7 lladdr $(mp_mac "$2" $peer_side) dev $1 nud permanent"
}

# mp_topo_create: the namespaces h1 r1 r2 h2, their links, addresses and
# routes, except r1's routes over p1..p4.
mp_topo_create()
{
	local i idx

	mp_ns_create h1 r1 r2 h2 || return 1
	{
		echo "link add eth0 netns $(ns h1) address $(mp_mac 10 1) type veth peer name h1 netns $(ns r1) address $(mp_mac 10 2)"
		# r1's p4 gets an ifindex beyond ARS_PORTS_DIRECT (kmod/netns.h):
		# its port is in the xarray, the others' in the array.
		for i in 1 2 3 4; do
			idx=
			[ $i -ne 4 ] || idx="index 1004"
			echo "link add p$i netns $(ns r1) $idx address $(mp_mac $i 1) type veth peer name p$i netns $(ns r2) address $(mp_mac $i 2)"
		done
		echo "link add h2 netns $(ns r2) address $(mp_mac 20 1) type veth peer name eth0 netns $(ns h2) address $(mp_mac 20 2)"
	} | ip -batch - || return 1
	[[ $(ip -n "$(ns r1)" -o link show dev p4) == 1004:* ]] || return 1
	{
		echo "link set lo up"
		mp_end eth0 10 1 10.1.0.1/24 fd00:1::1/64 10.1.0.254 fd00:1::fe
		echo "route add default via 10.1.0.254"
		echo "route add default via fd00:1::fe"
	} | ip -n "$(ns h1)" -batch - || return 1
	{
		echo "link set lo up"
		mp_end h1 10 2 10.1.0.254/24 fd00:1::fe/64 10.1.0.1 fd00:1::1
		for i in 1 2 3 4; do
			mp_end p$i $i 1 10.2.$i.1/30 fd00:2:$i::1/64 \
				10.2.$i.2 fd00:2:$i::2
		done
	} | ip -n "$(ns r1)" -batch - || return 1
	{
		echo "link set lo up"
		for i in 1 2 3 4; do
			mp_end p$i $i 2 10.2.$i.2/30 fd00:2:$i::2/64 \
				10.2.$i.1 fd00:2:$i::1
		done
		mp_end h2 20 1 10.3.0.254/24 fd00:3::fe/64 10.3.0.1 fd00:3::1
		echo "route add 10.1.0.0/24 via 10.2.1.1 dev p1"
		echo "route add fd00:1::/64 via fd00:2:1::1 dev p1"
	} | ip -n "$(ns r2)" -batch - || return 1
	{
		echo "link set lo up"
		mp_end eth0 20 2 10.3.0.1/24 fd00:3::1/64 10.3.0.254 fd00:3::fe
		echo "route add default via 10.3.0.254"
		echo "route add default via fd00:3::fe"
	} | ip -n "$(ns h2)" -batch -
}

# mp_nexthops FAMILY [W1 W2 W3 W4]: "nexthop via ... weight W" for p1..p4.
mp_nexthops()
{
	local fam=$1 i

	shift
	for i in 1 2 3 4; do
		if [ "$fam" = 4 ]; then
			printf 'nexthop via 10.2.%d.2 dev p%d ' "$i" "$i"
		else
			printf 'nexthop via fd00:2:%d::2 dev p%d ' "$i" "$i"
		fi
		printf 'weight %d ' "${1:-1}"
		[ $# -eq 0 ] || shift
	done
}

# mp_route4 [W1 W2 W3 W4]: r1's multipath route to h2, weights default 1.
mp_route4()
{
	# shellcheck disable=SC2046 # the next hops are words
	ip -n "$(ns r1)" route replace "$MP_DST4" $(mp_nexthops 4 "$@")
}

mp_route6()
{
	# An IPv6 replace may merge next hops into the old route: delete it.
	ip -n "$(ns r1)" -6 route del "$MP_DST6" 2>/dev/null
	# shellcheck disable=SC2046
	ip -n "$(ns r1)" -6 route add "$MP_DST6" $(mp_nexthops 6 "$@")
}

# wait_for_secs N CMD...: like wait_for, for up to N seconds.
wait_for_secs()
{
	wait_until "$@"
}

# The ars qdisc and its tc plugin (ars_qdisc.sh, ars_quality.sh).

# Where tc finds q_ars.so (make -C tc-ext builds it there).
ARS_TC_LIB_DIR=${ARS_TC_LIB_DIR:-$ARS_TOP/tc-ext}

# tc_ars NAME ARGS...: tc in a test namespace, with the ars plugin.
tc_ars()
{
	local n=$1

	shift
	TC_LIB_DIR=$ARS_TC_LIB_DIR tc -n "$(ns "$n")" "$@"
}

require_tc_plugin()
{
	if [ ! -r "$ARS_TC_LIB_DIR/q_ars.so" ]; then
		echo "SKIP: no $ARS_TC_LIB_DIR/q_ars.so (make -C tc-ext)"
		exit $ksft_skip
	fi
}

# ars_qdisc_stats NAME DEV [HANDLE]: the "ars" object of tc -s -j for the
# device's ars qdisc (the one with HANDLE, default 1:), one line of JSON.
ars_qdisc_stats()
{
	tc_ars "$1" -s -j qdisc show dev "$2" |
		jq -c --arg h "${3:-1:}" \
			'.[] | select(.kind == "ars" and .handle == $h) | .ars'
}

# ars_path NAME DEV: the device's object of arsctl -j ports, one line.
ars_path()
{
	arsctl_ns "$1" -j ports |
		jq -c --arg d "$2" '.[] | select(.ifname == $d)'
}

# port_band NAME DEV: the device's band in arsctl -j ports; nothing, and
# false, if ars does not list the device or gives it no band.
port_band()
{
	ars_path "$1" "$2" | jq -e '.band | numbers'
}

# port_band_cmp NAME DEV OP N: the device's band compares with N by
# test(1)'s OP (-eq, -ne, -lt, ...); false if it has none.
port_band_cmp()
{
	local b

	b=$(port_band "$1" "$2") && [ "$b" "$3" "$4" ]
}

# pin_ns NAME: a sleeping process in the namespace, so that
# /proc/$NS_PIN_PID/net/dev shows the namespace's counters to the shell
# without an exec per reading. Sets NS_PIN_PID; the caller kills it.
pin_ns()
{
	local name

	name=$(ns "$1")
	ip netns exec "$name" sleep 1000000 &
	NS_PIN_PID=$!
	# Until ip has entered the namespace, /proc/PID/net is the caller's.
	wait_for in_netns "$NS_PIN_PID" "$name"
}

# in_netns PID NAME: process PID is in network namespace NAME.
in_netns()
{
	local ino

	ino=$(stat -L -c %i "/run/netns/$2" 2>/dev/null) || return 1
	[ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "net:[$ino]" ]
}

# mp_quality_topo IDLE INTERVAL_NS: the port quality tests' topology on
# mp_topo_create: r1's route to 10.3.1.0/24 over p1..p4, each port an ars
# qdisc (bandwidth 10mbit) over a 10 Mbit/s tbf; 10.9.1.0/24, for load,
# leaves by p1 only; r2 drops both. ars on in flowlet-random, idle-time
# IDLE, a sampling interval of INTERVAL_NS. Every port has sent a packet,
# so every one is measured. Sets PIN_R1 (pin_ns r1); the caller kills it.
mp_quality_topo()
{
	local i

	mp_topo_create || return 1
	# shellcheck disable=SC2046 # the next hops are words
	ip -n "$(ns r1)" route add 10.3.1.0/24 $(mp_nexthops 4) || return 1
	ip -n "$(ns r1)" route add 10.9.1.0/24 via 10.2.1.2 dev p1
	ip -n "$(ns r2)" route add blackhole 10.3.1.0/24
	ip -n "$(ns r2)" route add blackhole 10.9.1.0/24
	for i in 1 2 3 4; do
		echo "qdisc add dev p$i root handle 1: ars bandwidth 10mbit"
		echo "qdisc add dev p$i parent 1:1 handle 10: tbf rate 10mbit burst 16k limit 64k"
	done | tc_ars r1 -batch - || return 1
	arsctl_ns r1 set state on mode flowlet-random idle-time "$1" \
		sampling-interval "$(($2 / 1000000))ms" || return 1
	# A packet out of each path: every port is measured from here on.
	in_ns r1 sh -c 'for i in 1 2 3 4; do
		ping -q -c 1 -W 1 10.2.$i.2 >/dev/null || exit 1; done' ||
		return 1
	pin_ns r1
	PIN_R1=$NS_PIN_PID
}

# TX: tx_packets of r1's p1..p4; RX_H1: rx_packets of r1's h1, what r1
# got from h1. Read through the process $R1_PID pinned in r1 (pin_ns).
tx_read()
{
	local name rest
	local -a f

	TX=(0 0 0 0)
	while IFS=: read -r name rest; do
		name=${name// /}
		case $name in
		p[1-4])
			read -r -a f <<<"$rest"
			TX[${name#p} - 1]=${f[9]}
			;;
		h1)
			read -r -a f <<<"$rest"
			RX_H1=${f[1]}
			;;
		esac
	done <"/proc/$R1_PID/net/dev"
}

# TXD: TX now minus the array named $1.
tx_delta()
{
	local -n _txd_base=$1
	local i

	tx_read
	for i in 0 1 2 3; do
		TXD[i]=$((TX[i] - _txd_base[i]))
	done
}

# py_send [-s [-c]] DST FLOWS PACKETS: FLOWS unconnected UDP sockets in h1
# (source ports 30000 + i), whose packets the kernel hashes by their
# 5-tuple alone (ars_dataplane.sh, ecmp_and_off_match_no_module, says why
# not ars-udpgen), PACKETS datagrams each to DST's discard port. With -s,
# one socket (source port 30000) sends them to FLOWS ports of DST, 40000 +
# i, and with -c it is connected to port 40000 first, so that every packet
# carries the socket's hash (ars_ecmp.sh); DST's port unreachable errors,
# which a connected socket reports at its next send, make that send be
# tried again. With -p PORTS (comma separated, FLOWS of them), the FLOWS
# sockets take those source ports instead of 30000 + i.
py_send()
{
	local one=0 conn=0 ports=

	[ "$1" != -s ] || { one=1; shift; }
	[ "$1" != -c ] || { conn=1; shift; }
	[ "$1" != -p ] || { ports=$2; shift 2; }
	in_ns h1 python3 -I -S - "$@" $one $conn "$ports" <<'EOF'
import socket, sys
dst, flows, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
one, conn = sys.argv[4] == '1', sys.argv[5] == '1'
ports = [int(p) for p in sys.argv[6].split(',')] if sys.argv[6] else \
        [30000 + i for i in range(flows)]
fam = socket.AF_INET6 if ':' in dst else socket.AF_INET
def sock(port):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind(('', port))
    return s
if one:
    s = sock(30000)
    if conn:
        s.connect((dst, 40000))
    to = [(s, 40000 + i) for i in range(flows)]
else:
    to = [(sock(port), 9) for port in ports]
for _ in range(n):
    for s, port in to:
        for _ in range(1000):
            try:
                s.sendto(b'x' * 64, (dst, port))
                break
            except ConnectionRefusedError:
                pass
EOF
}

# py_counts DST: TXD for the fixed set of 128 flows x 4 packets to DST.
py_counts()
{
	local -a before

	tx_read
	# shellcheck disable=SC2034 # read by tx_delta
	before=("${TX[@]}")
	py_send "$1" 128 4
	# The last packets may still be on their way through r1.
	wait_until 5 eval 'tx_delta before; [ $((TXD[0] + TXD[1] + TXD[2] + TXD[3])) -ge 512 ]'
	tx_delta before
}

# proc_dev PID DEV FIELD...: "TIME_US VALUE..." of DEV in the namespace of
# PID, the fields of its /proc/net/dev line numbered from 0 (rx bytes),
# the time (microseconds) taken at the reading, with shell builtins only.
proc_dev()
{
	local pid=$1 dev=$2 line t i out
	local -a f

	shift 2
	while read -r line; do
		# Realtime: no other us clock without an exec; nothing steps it here.
		t=$EPOCHREALTIME
		[ "${line%%:*}" = "$dev" ] || continue
		read -r -a f <<<"${line#*:}"
		out=${t/[.,]/}
		for i in "$@"; do
			out="$out ${f[$i]}"
		done
		echo "$out"
		return 0
	done <"/proc/$pid/net/dev"
	return 1
}

# proc_dev_tx PID DEV: "TIME_US TX_BYTES TX_PACKETS".
proc_dev_tx()
{
	proc_dev "$1" "$2" 8 9
}

# proc_dev_rx PID DEV: "TIME_US RX_BYTES".
proc_dev_rx()
{
	proc_dev "$1" "$2" 0
}

# time_us: the time in microseconds, without an exec.
time_us()
{
	# Realtime: no other us clock without an exec; nothing steps it here.
	local t=$EPOCHREALTIME

	echo "${t/[.,]/}"
}

# udpgen_gap BITS_PER_S FRAME_BYTES [BURST]: ars-udpgen's round period (-g)
# for BURST packets of FRAME_BYTES (as the device counts them, Ethernet
# header included) per round at that rate.
udpgen_gap()
{
	echo $(( ${3:-1} * $2 * 8 * 1000000000 / $1 ))
}

# wait_until N CMD...: poll CMD until it succeeds, for at most N seconds of
# wall-clock time. (wait_for and wait_for_secs count polls: when CMD never
# succeeds and each poll is slow, as execs are in a loaded TCG guest, they
# take many times longer than they say.)
wait_until()
{
	local up end

	# uptime_s without a fork per poll
	read -r up _ </proc/uptime
	end=$((${up%.*} + $1))
	until "${@:2}"; do
		read -r up _ </proc/uptime
		[ "${up%.*}" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# The two-tier Clos fabric of ars_fabric.sh and tools/testing/demo.
#
#      +-----------------+  +-----------------+       +-----------------+
#      | s1              |  | s2              |  ...  | sS              |
#      | l1  l2  ...  lL |  | l1  l2  ...  lL |       | l1  l2  ...  lL |
#      +-+---+-------+---+  +-+---+-------+---+       +-+---+-------+---+
#        |    \       \      /   /         \           /   /        |
#        |     full mesh: leaf l port sN <-> spine N port lL        |
#        |     172.(15+N).l.1/24 <-> 172.(15+N).l.2/24              |
#      +-+------------------------+          +------------------------+-+
#      | l1   s1 s2 ... sS        |   ...    | lL   s1 s2 ... sS        |
#      |      h1 h2 ... hH        |          |      h1 h2 ... hH        |
#      +--+----+-----------+------+          +--+----+-----------+------+
#         |    |           |                    |    |           |
#      +--+-+ ++---+     +-+--+              +--+-+ ++---+     +-+--+
#      |l1h1| |l1h2| ... |l1hH|              |lLh1| |lLh2| ... |lLhH|
#      +----+ +----+     +----+              +----+ +----+     +----+
#      host lLhH: eth0 10.L.H.1/24, gateway its leaf's port hH 10.L.H.254
#
# A leaf reaches 10.0.0.0/8 by one multipath route over every spine (its
# own hosts' /24s are more specific); spine N reaches 10.L.0.0/16 over
# port lL. MAC addresses are fixed and every neighbour is static: no ARP
# runs during a measurement. fab_shape puts the ars qdisc over a tbf on
# every router egress port (leaf to spine, spine to leaf, leaf to host)
# and a tbf alone on every host's eth0: a host sends no faster than its
# link, as a NIC would, instead of bursting a whole window into its
# leaf's uplink queue.
#
# Built for QEMU's software emulation, where starting a process takes 0.05
# to 1 s (more when the machine is busy): the namespaces are made by one
# `ip -batch`, each is configured by one `ip -batch` (a router also by one
# `tc -batch`), and a long-lived process per namespace (its shell writes
# the sysctls, then execs `sleep`, or `iperf3 -s` on a host) lets
# /proc/PID/net serve every namespace's counters to a single grep. Loops
# use shell arithmetic, never seq, and waits read a FIFO instead of
# running sleep. ns_create would take eight processes per namespace.

FAB_LEAVES=${FAB_LEAVES:-4}
FAB_SPINES=${FAB_SPINES:-4}
FAB_HOSTS=${FAB_HOSTS:-4}
FAB_GSO_SEGS=${FAB_GSO_SEGS:-}
FAB_PORT=5201
declare -gA FAB_PID=()		# namespace name -> its long-lived process
declare -ga FAB_LEAF=() FAB_SPINE=() FAB_ROUTER=() FAB_HOST=()
declare -ga FAB_CLIENTS=()
FAB_SLEEP_FD=
FAB_T0=			# us: SIGCONT of fab_start_flows
FAB_T_ALL=		# us: every flow's data connection up

# fab_names: the namespace names, in FAB_LEAF, FAB_SPINE, FAB_ROUTER and
# FAB_HOST.
fab_names()
{
	local l s h

	FAB_LEAF=() FAB_SPINE=() FAB_HOST=()
	for ((l = 1; l <= FAB_LEAVES; l++)); do
		FAB_LEAF+=("l$l")
		for ((h = 1; h <= FAB_HOSTS; h++)); do
			FAB_HOST+=("l${l}h$h")
		done
	done
	for ((s = 1; s <= FAB_SPINES; s++)); do
		FAB_SPINE+=("s$s")
	done
	FAB_ROUTER=("${FAB_LEAF[@]}" "${FAB_SPINE[@]}")
}

# fab_addr HOST: the address of host lLhH.
fab_addr()
{
	local l=${1#l} h

	h=${l#*h}
	l=${l%h*}
	echo "10.$l.$h.1"
}

# fab_mac KIND A B SIDE: 02:KIND:A:B:00:SIDE.
fab_mac()
{
	printf '02:%02x:%02x:%02x:00:%02x' "$1" "$2" "$3" "$4"
}

# fab_sleep SECONDS: sleep without starting a process (read -t on a FIFO
# that nobody writes); SECONDS may have a fraction.
fab_sleep()
{
	local fifo

	if [ -z "$FAB_SLEEP_FD" ]; then
		fifo=$(mktemp -u "${TMPDIR:-/tmp}/fab-sleep.XXXXXX")
		mkfifo "$fifo" || return 1
		exec {FAB_SLEEP_FD}<>"$fifo"
		rm -f "$fifo"
	fi
	read -r -t "$1" -u "$FAB_SLEEP_FD"
	return 0
}

fab_now_us()
{
	# Realtime: no other us clock without an exec; nothing steps it here.
	echo "${EPOCHREALTIME/[.,]/}"
}

# fab_sleep_until US: sleep until that time (us since the epoch).
fab_sleep_until()
{
	local left=$(($1 - $(fab_now_us)))
	local frac

	[ "$left" -gt 0 ] || return 0
	printf -v frac '%06d' $((left % 1000000))
	fab_sleep "$((left / 1000000)).$frac"
}

# fab_wait SECONDS CMD...: run CMD every 0.1 s or so until it succeeds.
fab_wait()
{
	local end=$(($(fab_now_us) + $1 * 1000000))

	shift
	until "$@"; do
		[ "$(fab_now_us)" -lt "$end" ] || return 1
		fab_sleep 0.1
	done
}

fab_check_size()
{
	if [ "$FAB_LEAVES" -lt 2 ] || [ "$FAB_LEAVES" -gt 200 ] ||
	   [ "$FAB_SPINES" -lt 2 ] || [ "$FAB_SPINES" -gt 15 ] ||
	   [ "$FAB_HOSTS" -lt 1 ] || [ "$FAB_HOSTS" -gt 200 ]; then
		echo "fabric size out of range: leaves 2..200, spines 2..15, hosts 1..200" >&2
		return 1
	fi
}

# Every veth pair, made from the initial namespace with each end straight
# in its own namespace.
fab_links_batch()
{
	local l s h

	for ((l = 1; l <= FAB_LEAVES; l++)); do
		for ((s = 1; s <= FAB_SPINES; s++)); do
			echo "link add s$s netns $(ns "l$l") address $(fab_mac 1 "$s" "$l" 1) type veth peer name l$l netns $(ns "s$s") address $(fab_mac 1 "$s" "$l" 2)"
		done
		for ((h = 1; h <= FAB_HOSTS; h++)); do
			echo "link add eth0 netns $(ns "l${l}h$h") address $(fab_mac 2 "$l" "$h" 1) type veth peer name h$h netns $(ns "l$l") address $(fab_mac 2 "$l" "$h" 254)"
		done
	done
}

fab_leaf_batch()
{
	local l=$1 s h nh=

	echo "link set lo up"
	for ((h = 1; h <= FAB_HOSTS; h++)); do
		echo "link set h$h up"
		echo "addr add 10.$l.$h.254/24 dev h$h"
		echo "neigh replace 10.$l.$h.1 lladdr $(fab_mac 2 "$l" "$h" 1) dev h$h nud permanent"
	done
	for ((s = 1; s <= FAB_SPINES; s++)); do
		echo "link set s$s up"
		echo "addr add 172.$((15 + s)).$l.1/24 dev s$s"
		echo "neigh replace 172.$((15 + s)).$l.2 lladdr $(fab_mac 1 "$s" "$l" 2) dev s$s nud permanent"
		nh="$nh nexthop via 172.$((15 + s)).$l.2 dev s$s"
	done
	echo "route add 10.0.0.0/8$nh"
}

fab_spine_batch()
{
	local s=$1 l

	echo "link set lo up"
	for ((l = 1; l <= FAB_LEAVES; l++)); do
		echo "link set l$l up"
		echo "addr add 172.$((15 + s)).$l.2/24 dev l$l"
		echo "neigh replace 172.$((15 + s)).$l.1 lladdr $(fab_mac 1 "$s" "$l" 1) dev l$l nud permanent"
		echo "route add 10.$l.0.0/16 via 172.$((15 + s)).$l.1 dev l$l"
	done
}

fab_host_batch()
{
	local l=$1 h=$2

	echo "link set lo up"
	echo "link set eth0 up"
	echo "addr add 10.$l.$h.1/24 dev eth0"
	echo "neigh replace 10.$l.$h.254 lladdr $(fab_mac 2 "$l" "$h" 254) dev eth0 nud permanent"
	echo "route add default via 10.$l.$h.254"
	# Frames per TSO/GSO packet that the host's TCP may build (the
	# kernel's default when empty): 1 makes every packet one frame.
	[ -z "$FAB_GSO_SEGS" ] ||
		echo "link set eth0 gso_max_segs $FAB_GSO_SEGS"
}

# Sysctls of every namespace: IPv4 only, so no IPv6 address and no ND or RS
# on any link.
FAB_SYSCTL_ALL='
	echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
	echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6'
# A router forwards and hashes multipath by L4 ports, as ars needs (IPv6 is
# disabled, but ars checks its policy too).
FAB_SYSCTL_ROUTER='
	echo 1 >/proc/sys/net/ipv4/ip_forward
	echo 1 >/proc/sys/net/ipv4/fib_multipath_hash_policy
	echo 1 >/proc/sys/net/ipv6/fib_multipath_hash_policy'

# fab_settled: every namespace's process is past its sysctls.
fab_settled()
{
	local n comm

	for n in "${!FAB_PID[@]}"; do
		read -r comm <"/proc/${FAB_PID[$n]}/comm" || return 1
		case $comm in
		sleep|iperf3) ;;
		*) return 1 ;;
		esac
	done
}

# fab_listening: every host's iperf3 server listens (iperf3 -s binds ::,
# so its socket is in tcp6). Its comm reads iperf3 from the exec on, some
# time before it listens on a loaded host.
fab_listening()
{
	local -a files=()
	local h port n

	printf -v port '%04X' "$FAB_PORT"
	for h in "${FAB_HOST[@]}"; do
		files+=("/proc/${FAB_PID[$h]}/net/tcp6")
	done
	n=$(grep -l -E "^ *[0-9]+: [0-9A-F]+:$port [0-9A-F]+:0000 0A " \
		"${files[@]}" 2>/dev/null | wc -l)
	[ "$n" -eq "${#files[@]}" ]
}

# fab_create: namespaces, links, addresses, routes and the long-lived
# processes (an iperf3 server on every host, listening); no shaping yet.
fab_create()
{
	local n l s h

	fab_check_size || return 1
	fab_names
	for n in "${FAB_ROUTER[@]}" "${FAB_HOST[@]}"; do
		echo "netns add $(ns "$n")"
	done | ip -batch - || return 1
	# nsenter itself in the background, not a shell function: $! is then
	# the PID that sh, and then sleep or iperf3, take over.
	for n in "${FAB_ROUTER[@]}"; do
		nsenter --net="/run/netns/$(ns "$n")" \
			sh -c "$FAB_SYSCTL_ALL $FAB_SYSCTL_ROUTER
			exec sleep 1000000" &
		FAB_PID[$n]=$!
	done
	for n in "${FAB_HOST[@]}"; do
		nsenter --net="/run/netns/$(ns "$n")" sh -c "$FAB_SYSCTL_ALL
			exec iperf3 -s -p $FAB_PORT" >/dev/null 2>&1 &
		FAB_PID[$n]=$!
	done
	# The sysctls must be in place before the links appear.
	fab_wait 120 fab_settled || return 1
	fab_links_batch | ip -batch - || return 1
	for ((l = 1; l <= FAB_LEAVES; l++)); do
		fab_leaf_batch "$l" | ip -n "$(ns "l$l")" -batch - || return 1
		for ((h = 1; h <= FAB_HOSTS; h++)); do
			fab_host_batch "$l" "$h" |
				ip -n "$(ns "l${l}h$h")" -batch - || return 1
		done
	done
	for ((s = 1; s <= FAB_SPINES; s++)); do
		fab_spine_batch "$s" | ip -n "$(ns "s$s")" -batch - || return 1
	done
	fab_wait 120 fab_listening
}

# fab_destroy: the processes first, or they would keep their namespaces
# (and the devices in them) alive after ip netns del.
fab_destroy()
{
	local pids=("${FAB_CLIENTS[@]}" "${FAB_PID[@]}")

	if [ ${#pids[@]} -gt 0 ]; then
		kill -CONT "${pids[@]}" 2>/dev/null
		kill "${pids[@]}" 2>/dev/null
		wait "${pids[@]}" 2>/dev/null
	fi
	FAB_PID=()
	FAB_CLIENTS=()
	ns_destroy_all
}

# fab_tbf RATE_KBIT QUEUE BURST: a tbf at the rate that queues QUEUE full
# frames, with a bucket of BURST frames (at least 2). Sizes are in frames,
# not in time: what TCP needs from a queue is a bandwidth-delay product in
# packets, whatever the rate. The emulated CPUs fire tbf's timers late, by
# milliseconds when QEMU's host is busy: a bucket of a few frames lets the
# link catch up afterwards instead of losing the rate.
fab_tbf()
{
	local burst=$3

	[ "$burst" -ge 2 ] || burst=2
	echo "tbf rate ${1}kbit burst $((burst * 1514)) limit $(($2 * 1514))"
}

# fab_port_batch DEV RATE_KBIT QUEUE BURST: tc -batch lines that shape
# DEV with the ars qdisc (measuring against RATE_KBIT) over a tbf.
fab_port_batch()
{
	echo "qdisc replace dev $1 root handle 1: ars bandwidth ${2}kbit"
	echo "qdisc replace dev $1 parent 1:1 handle 10: $(fab_tbf "$2" "$3" "$4")"
}

# fab_tc NS: tc -batch in the namespace, with the ars plugin.
fab_tc()
{
	TC_LIB_DIR=$ARS_TC_LIB_DIR tc -n "$(ns "$1")" -batch -
}

# fab_ars_opts_work NS: tc, with the plugin in $ARS_TC_LIB_DIR, can give
# the ars qdisc its bandwidth.
fab_ars_opts_work()
{
	local ok=0

	[ -f "$ARS_TC_LIB_DIR/q_ars.so" ] || return 1
	TC_LIB_DIR=$ARS_TC_LIB_DIR tc -n "$(ns "$1")" qdisc add dev lo root \
		handle 1: ars bandwidth 1mbit 2>/dev/null || ok=1
	tc -n "$(ns "$1")" qdisc del dev lo root 2>/dev/null
	return $ok
}

# fab_shape RATE_KBIT QUEUE BURST: shape every router egress port and the
# hosts' links. Fails when tc cannot give the ars qdisc its bandwidth
# (q_ars.so missing or refused): measured against the veth's 10 Gbit/s,
# every port would look idle, and flowlet-quality would choose at random.
fab_shape()
{
	local l s h

	if ! fab_ars_opts_work l1; then
		echo "fab_shape: tc cannot give the ars qdisc its bandwidth ($ARS_TC_LIB_DIR/q_ars.so missing or refused)" >&2
		return 1
	fi
	for ((l = 1; l <= FAB_LEAVES; l++)); do
		{
			for ((s = 1; s <= FAB_SPINES; s++)); do
				fab_port_batch "s$s" "$@"
			done
			for ((h = 1; h <= FAB_HOSTS; h++)); do
				fab_port_batch "h$h" "$@"
			done
		} | fab_tc "l$l" || return 1
	done
	for ((s = 1; s <= FAB_SPINES; s++)); do
		for ((l = 1; l <= FAB_LEAVES; l++)); do
			fab_port_batch "l$l" "$@"
		done | fab_tc "s$s" || return 1
	done
	for h in "${FAB_HOST[@]}"; do
		echo "qdisc replace dev eth0 root $(fab_tbf "$@")" | fab_tc "$h" ||
			return 1
	done
}

# fab_link_rate L S RATE_KBIT QUEUE BURST: a new rate for the link of
# leaf L and spine S, both ways (a degraded link).
fab_link_rate()
{
	local l=$1 s=$2

	shift 2
	fab_port_batch "s$s" "$@" | fab_tc "l$l" &&
		fab_port_batch "l$l" "$@" | fab_tc "s$s"
}

# fab_ars ARGS...: arsctl set ARGS on every router.
fab_ars()
{
	local r

	for r in "${FAB_ROUTER[@]}"; do
		arsctl_ns "$r" set "$@" || return 1
	done
}

# Flows: lines "SRC DST" of host names.

# fab_flows_rail: host h of leaf l to host h of leaf l + L/2.
fab_flows_rail()
{
	local l h d

	for ((l = 1; l <= FAB_LEAVES; l++)); do
		d=$(((l - 1 + FAB_LEAVES / 2) % FAB_LEAVES + 1))
		for ((h = 1; h <= FAB_HOSTS; h++)); do
			echo "l${l}h$h l${d}h$h"
		done
	done
}

# fab_flows_perm SEED: a random permutation of the hosts without a fixed
# point, so every host sends one flow and receives one.
fab_flows_perm()
{
	local -a src dst
	local i j t n fixed

	fab_names
	src=("${FAB_HOST[@]}")
	n=${#src[@]}
	RANDOM=$1
	while :; do
		dst=("${src[@]}")
		for ((i = n - 1; i > 0; i--)); do
			j=$((RANDOM % (i + 1)))
			t=${dst[i]}
			dst[i]=${dst[j]}
			dst[j]=$t
		done
		fixed=0
		for ((i = 0; i < n; i++)); do
			[ "${src[i]}" != "${dst[i]}" ] || fixed=1
		done
		[ $fixed -eq 1 ] || break
	done
	for ((i = 0; i < n; i++)); do
		echo "${src[i]} ${dst[i]}"
	done
}

# fab_conns HOST...: "HOST COUNT" for each host: its established TCP
# connections to the iperf3 port (those in the accept queue count). One
# grep for all: iperf3 -s listens on ::, so they are in tcp6.
fab_conns()
{
	local -A host_of=()
	local -a files=()
	local h port line f n

	printf -v port '%04X' "$FAB_PORT"
	for h in "$@"; do
		host_of[${FAB_PID[$h]}]=$h
		files+=("/proc/${FAB_PID[$h]}/net/tcp" "/proc/${FAB_PID[$h]}/net/tcp6")
	done
	declare -A count=()
	while IFS= read -r line; do
		f=${line%:*}
		n=${line##*:}
		f=${f#/proc/}
		f=${f%%/*}
		h=${host_of[$f]}
		count[$h]=$((${count[$h]:-0} + n))
	done < <(grep -c -E "^ *[0-9]+: [0-9A-F]+:$port [0-9A-F]+:[0-9A-F]+ 01 " \
		"${files[@]}")
	for h in "${!count[@]}"; do
		echo "$h ${count[$h]}"
	done
}

# fab_connected PER_FLOW DST...: every destination has PER_FLOW
# connections per flow to it (1: the control connections wait in the
# accept queue; 2: the tests have their data connections too).
fab_connected()
{
	local per=$1 d h n
	local -A want=()

	shift
	for d in "$@"; do
		want[$d]=$((${want[$d]:-0} + per))
	done
	while read -r h n; do
		[ "$n" -ge "${want[$h]}" ] || return 1
	done < <(fab_conns "${!want[@]}")
}

# fab_start_flows DIR WARM DUR [IPERF3_ARGS...] < FLOWS: an iperf3 client
# per flow, writing DIR/iperf-N.json. FLOWS must be a file (a pipe would
# run this in a subshell). Starting 16 processes takes seconds here, so
# the servers are stopped first: the clients connect (the kernel completes
# the handshakes) and wait until SIGCONT releases their servers. With
# FAB_WAVE_MS set, the flows start in waves that far apart, by the
# sending host's number (host 1 of every leaf first), as flows in a real
# fabric do not all start in the same millisecond; else all at once.
# Sets FAB_T0 (the first SIGCONT) and FAB_T_ALL (every test has its data
# connection), in us since the epoch. Every client runs under timeout, a
# minute past its test's end, so that a stuck one cannot keep its server
# busy for the next test. On failure, the clients it started are killed
# and reaped (fab_kill_flows).
fab_start_flows()
{
	local dir=$1 warm=$2 dur=$3 src dst i=0 h w
	local -a dsts=() srv=()
	local -A wave=()

	shift 3
	FAB_CLIENTS=()
	for h in "${FAB_HOST[@]}"; do
		srv+=("${FAB_PID[$h]}")
	done
	kill -STOP "${srv[@]}" || return 1
	while read -r src dst; do
		nsenter --net="/run/netns/$(ns "$src")" \
			timeout --kill-after=5 $((warm + dur + 60)) \
			iperf3 -c "$(fab_addr "$dst")" \
			-p "$FAB_PORT" -O "$warm" -t "$dur" -J "$@" \
			</dev/null >"$dir/iperf-$i.json" 2>&1 &
		FAB_CLIENTS+=($!)
		dsts+=("$dst")
		w=0
		[ "${FAB_WAVE_MS:-0}" -eq 0 ] || w=$((${src#*h} - 1))
		[ -n "${wave[$dst]:-}" ] && [ "${wave[$dst]}" -le "$w" ] ||
			wave[$dst]=$w
		i=$((i + 1))
	done
	fab_wait 120 fab_connected 1 "${dsts[@]}" || {
		kill -CONT "${srv[@]}"
		fab_kill_flows
		return 1
	}
	FAB_T0=$(fab_now_us)
	for ((w = 0; w < FAB_HOSTS; w++)); do
		srv=()
		for dst in "${!wave[@]}"; do
			[ "${wave[$dst]}" -ne "$w" ] || srv+=("${FAB_PID[$dst]}")
		done
		[ ${#srv[@]} -eq 0 ] || kill -CONT "${srv[@]}"
		[ "${FAB_WAVE_MS:-0}" -eq 0 ] ||
			fab_sleep_until $((FAB_T0 + (w + 1) * FAB_WAVE_MS * 1000))
	done
	# Servers that receive no flow.
	for h in "${FAB_HOST[@]}"; do
		kill -CONT "${FAB_PID[$h]}"
	done
	fab_wait 60 fab_connected 2 "${dsts[@]}" || {
		fab_kill_flows
		return 1
	}
	FAB_T_ALL=$(fab_now_us)
}

# fab_servers_idle: no iperf3 server has a connection open, established
# (01) or closed by its client and not yet by the server (08, CLOSE_WAIT):
# every server is back to listening.
fab_servers_idle()
{
	local -a files=()
	local h port

	printf -v port '%04X' "$FAB_PORT"
	for h in "${FAB_HOST[@]}"; do
		files+=("/proc/${FAB_PID[$h]}/net/tcp"
			"/proc/${FAB_PID[$h]}/net/tcp6")
	done
	! grep -q -E "^ *[0-9]+: [0-9A-F]+:$port [0-9A-F]+:[0-9A-F]+ 0[18] " \
		"${files[@]}" 2>/dev/null
}

# fab_kill_flows: kill the clients of fab_start_flows that still run, and
# reap them all, so that none keeps its server busy for the next test.
# Each PID is the client's timeout, which passes SIGTERM on to its iperf3
# and sends SIGKILL 5 s later if that has not ended it. Then waits, up to
# 30 s, for the servers to see their clients gone: a server that has not
# yet would answer the next test "busy". Fails if one still has not.
# Does nothing when there are no clients.
fab_kill_flows()
{
	[ ${#FAB_CLIENTS[@]} -gt 0 ] || return 0
	kill "${FAB_CLIENTS[@]}" 2>/dev/null
	wait "${FAB_CLIENTS[@]}" 2>/dev/null
	FAB_CLIENTS=()
	fab_wait 30 fab_servers_idle
}

# fab_wait_flows: wait for the clients; fails if one failed. Then, as
# fab_kill_flows, it gives the servers up to 30 s to see the failed
# clients gone (one that timeout ended, say), so that the next test does
# not find them busy.
fab_wait_flows()
{
	local p rc=0

	for p in "${FAB_CLIENTS[@]}"; do
		wait "$p" || rc=1
	done
	FAB_CLIENTS=()
	[ $rc -eq 0 ] || fab_wait 30 fab_servers_idle
	return $rc
}

# fab_goodput DIR: the flows' goodput, summed, in Mbit/s (iperf3's
# receiver side, warm-up omitted).
fab_goodput()
{
	jq -s '[.[].end.sum_received.bits_per_second // 0] | add / 1e6 |
		. * 100 | round / 100' "$1"/iperf-*.json
}

# fab_pids: "@ pid NAME PID" for every namespace: which namespace each
# /proc/PID path of fab_snapshot is.
fab_pids()
{
	local n

	for n in "${!FAB_PID[@]}"; do
		echo "@ pid $n ${FAB_PID[$n]}"
	done
}

# fab_snapshot: in one process, the counters of every namespace: net/dev
# and, of the hosts, the TCP MIBs that nstat reads, every line prefixed
# by its path (/proc/PID/net/FILE:); /proc/stat too, and "@ time SECONDS"
# before and after.
fab_snapshot()
{
	local n
	local -a files=(/proc/stat)

	for n in "${FAB_ROUTER[@]}"; do
		files+=("/proc/${FAB_PID[$n]}/net/dev")
	done
	for n in "${FAB_HOST[@]}"; do
		files+=("/proc/${FAB_PID[$n]}/net/dev"
			"/proc/${FAB_PID[$n]}/net/snmp"
			"/proc/${FAB_PID[$n]}/net/netstat")
	done
	# Realtime: no other us clock without an exec; nothing steps it here.
	echo "@ time $EPOCHREALTIME"
	grep -H '' "${files[@]}"
	echo "@ time $EPOCHREALTIME"
}

# fab_ars_stats: "@ ars NAME {json}" per router.
fab_ars_stats()
{
	local r

	for r in "${FAB_ROUTER[@]}"; do
		echo "@ ars $r $(arsctl_ns "$r" -j stats)"
	done
}
