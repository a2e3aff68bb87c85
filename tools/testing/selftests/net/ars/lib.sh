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
	local i

	for i in $(seq 50); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

cleanup_default()
{
	ns_destroy_all
}
