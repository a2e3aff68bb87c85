#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink fuzzer (tools/testing/fuzz/netlink/ars-nlfuzz.c) against the
# ars generic netlink family and the ars qdisc's options, in a namespace of
# its own with three devices to graft qdiscs on: a veth pair (one end with
# four tx queues, for mq) and a dummy. The fuzzer checks every answer
# itself (see its header); this script then checks that the profile is
# still readable, by arsctl, and is what the fuzzer's model says.
#
# vm-selftests.sh runs it on the debug kernel (KASAN, kmemleak, lockdep),
# where the kernel log is the other half of the verdict.
#
#   ARS_FUZZ_MSGS   messages to send at least (default 100000, 50000 on
#                   the debug kernel, where they take ten times as long
#                   and the debug lane is make check's longest), in units
#                   of one message or a few in one send
#   ARS_FUZZ_SEED   the seed; the default is drawn from the clock, and is
#                   printed either way, so that a failure replays with
#                   ARS_FUZZ_SEED=<seed> (or ars-nlfuzz -s SEED -k UNIT -v
#                   for the one unit)

ALL_TESTS="
	fuzz_family_and_qdisc
	profile_readable_after
"
source "$(dirname "$0")/lib.sh"

NLFUZZ=${NLFUZZ:-$ARS_TOP/tools/testing/fuzz/netlink/ars-nlfuzz}
if on_debug_kernel; then
	MSGS=${ARS_FUZZ_MSGS:-50000}
else
	MSGS=${ARS_FUZZ_MSGS:-100000}
fi
TMPD=

cleanup()
{
	cleanup_default
	[ -z "$TMPD" ] || rm -rf "$TMPD"
}

setup_prepare()
{
	TMPD=$(mktemp -d)
	ns_create fz || return 1
	ip -n "$(ns fz)" -batch - <<-EOF
		link add fz0 type veth peer name fz1 numtxqueues 4
		link add fz2 type dummy
		link set fz0 up
		link set fz1 up
		link set fz2 up
	EOF
}

fuzz_family_and_qdisc()
{
	local rc msgs

	RET=0
	in_ns fz "$NLFUZZ" ${ARS_FUZZ_SEED:+-s "$ARS_FUZZ_SEED"} -m "$MSGS" \
		-d fz0 -d fz1 -d fz2 >"$TMPD/out" 2>&1
	rc=$?
	sed 's/^/# /' "$TMPD/out"
	check_err $rc "ars-nlfuzz failed (exit $rc), see its replay line"
	msgs=$(sed -n 's/.*units, \([0-9]*\) messages.*/\1/p' "$TMPD/out")
	[ "${msgs:-0}" -ge "$MSGS" ]
	check_err $? "fewer than $MSGS messages: ${msgs:-none}"
	log_test "$MSGS fuzzed ars genl and qdisc messages: every answer an ACK, a valid reply or an error (with extack where due), the profile as modelled"
}

profile_readable_after()
{
	local want got

	RET=0
	want=$(sed -n 's/^ars-nlfuzz: profile: //p' "$TMPD/out" |
		awk '{ print $1, $3, $4, $5, $6, $7, $8, $9 }')
	got=$(arsctl_ns fz -j show profile | jq -r '[.state, .idle_time_ns,
		.table_size, .ipv4, .ipv6, .sampling_interval_ns,
		.rate_weight_percent,
		.ewma_shift] | map(if . == true then 1 elif . == false then 0
		else . end) | map(tostring) | join(" ")')
	check_err $? "arsctl -j show does not parse"
	[ -n "$want" ]
	check_err $? "the fuzzer printed no final profile"
	check_eq "$got" "$want" "profile by arsctl (state idle table ipv4 ipv6 sampling rate ewma)"
	log_test "arsctl -j show reads the fuzzed profile, as the fuzzer left it"
}

require_root
require_cmd ip jq "$NLFUZZ" "$ARSCTL"
trap cleanup EXIT
setup_prepare || { echo "not ok - ars_nlfuzz.sh: setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
