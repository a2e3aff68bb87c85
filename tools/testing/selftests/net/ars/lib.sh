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
# "not ok N - ...". Missing tools make a script print SKIP and exit 4.

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

# check_eq ACTUAL EXPECTED WHAT
check_eq()
{
	[ "$1" = "$2" ]
	check_err $? "$3: got '$1', expected '$2'"
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

tests_run()
{
	local t

	for t in $ALL_TESTS; do
		$t
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
	local i

	mp_ns_create h1 r1 r2 h2 || return 1
	{
		echo "link add eth0 netns $(ns h1) address $(mp_mac 10 1) type veth peer name h1 netns $(ns r1) address $(mp_mac 10 2)"
		for i in 1 2 3 4; do
			echo "link add p$i netns $(ns r1) address $(mp_mac $i 1) type veth peer name p$i netns $(ns r2) address $(mp_mac $i 2)"
		done
		echo "link add h2 netns $(ns r2) address $(mp_mac 20 1) type veth peer name eth0 netns $(ns h2) address $(mp_mac 20 2)"
	} | ip -batch - || return 1
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

# ars_path NAME DEV: the device's object of arsctl -j paths, one line.
ars_path()
{
	arsctl_ns "$1" -j paths |
		jq -c --arg d "$2" '.[] | select(.ifname == $d)'
}

# pin_ns NAME: a sleeping process in the namespace, so that
# /proc/$NS_PIN_PID/net/dev shows the namespace's counters to the shell
# without an exec per reading. Sets NS_PIN_PID; the caller kills it.
pin_ns()
{
	ip netns exec "$(ns "$1")" sleep 1000000 &
	NS_PIN_PID=$!
	wait_for test -r "/proc/$NS_PIN_PID/net/dev"
}

# proc_dev_tx PID DEV: "TIME_US TX_BYTES TX_PACKETS" of DEV in the
# namespace of PID, the time (microseconds) taken at the reading, with
# shell builtins only.
proc_dev_tx()
{
	local line t
	local -a f

	while read -r line; do
		t=$EPOCHREALTIME
		[ "${line%%:*}" = "$2" ] || continue
		read -r -a f <<<"${line#*:}"
		echo "${t/[.,]/} ${f[8]} ${f[9]}"
		return 0
	done <"/proc/$1/net/dev"
	return 1
}

# time_us: the time in microseconds, without an exec.
time_us()
{
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
	local end=$((SECONDS + $1))

	until "${@:2}"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
