#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the ars selftests inside the test VM (as vm-run.sh's command): every
# ars_*.sh here, or those named in $TESTS, each under a timeout. Their KTAP
# lines go to stdout. Each script prints its plan ("1..N") before its
# results; a script that prints no plan, fewer results than its plan,
# fails without a failed case ("not ok"), times out or leaves the module
# unloadable is reported as a failed case of its own, saying which.
#
# A script that exits 4 (ksft_skip: a tool or q_ars.so missing in the
# guest) is one "ok - SCRIPT # SKIP REASON" line, REASON its "SKIP: "
# line: KTAP's form, which make check fails unless its allow-list names it.
#
# On the debug kernel (KASAN, kmemleak, lockdep: on_debug_kernel in
# lib.sh), the scripts of NOT_ON_DEBUG_SCRIPTS print one SKIP line, with
# their reason, instead of running: each measures rates, delays or
# goodput in the guest's time, which KASAN under emulation stretches,
# and finds no memory or locking bug that the other scripts miss. Cases
# of the other scripts are skipped the same way (NOT_ON_DEBUG in each).
#
# An entry of $TESTS may name cases: "ars_qdisc.sh:case_a,case_b" runs
# only those (ARS_CASES), so that a lane takes the cases that fit it.
set -u

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
declare -A NOT_ON_DEBUG_SCRIPTS=(
	[ars_fabric.sh]="flowlet-quality's TCP goodput against ecmp's in a fabric"
	[ars_quality.sh]="the qdisc's rate, utilisation and delay against the offered load, and the choices made by them"
	[ars_stall.sh]="a plugged port's band within so many sampling intervals"
	[ars_tcp.sh]="TCP goodput, retransmissions and reordering by mode"
)
tests=${TESTS:-$(cd "$here" && ls ars_*.sh)}
per_test_timeout=${ARS_TEST_TIMEOUT:-900}
out=$(mktemp)
status=0
trap 'rm -f "$out"' EXIT

for t in $tests; do
	cases=${ARS_CASES:-}
	if [[ $t == *:* ]]; then
		cases=${t#*:}
		cases=${cases//,/ }
		t=${t%%:*}
	fi
	t=${t%.sh}.sh
	echo "# TEST: $t ($(uname -r))${cases:+: $cases}"
	if [ -n "${NOT_ON_DEBUG_SCRIPTS[$t]:-}" ] && on_debug_kernel; then
		echo "ok - $t # SKIP not on the debug kernel: ${NOT_ON_DEBUG_SCRIPTS[$t]}"
		continue
	fi
	t0=$(uptime_s)
	limit=$per_test_timeout
	# 20 rounds of two fabric runs: 10-13 minutes on a busy host.
	[ "$t" != ars_fabric.sh ] || limit=${ARS_FABRIC_TIMEOUT:-1800}
	ARS_CASES=$cases timeout -k 10 "$limit" "$here/$t" | tee "$out"
	rc=${PIPESTATUS[0]}
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out" | head -n 1)
	results=$(grep -E -c '^(not )?ok [0-9]+( |$)' "$out")
	failed=$(grep -c '^not ok' "$out")
	case $rc in
	4)
		# KTAP's form; make check fails it unless its allow-list
		# (tools/testing/skip-allow.txt) names the script.
		why=$(sed -n 's/^SKIP: //p' "$out" | head -n 1)
		echo "ok - $t # SKIP ${why:-exit 4 without a reason}" ;;
	124|137)
		echo "not ok - $t: timed out after ${limit}s, $results results of ${plan:-no plan}"
		status=1 ;;
	0|1)
		[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] ||
			echo "not ok - $t: exited $rc without a failed case"
		if [ -z "$plan" ]; then
			[ "$failed" -gt 0 ] ||
				echo "not ok - $t: no KTAP plan (1..N), $results results"
		elif [ "$results" -ne "$plan" ]; then
			echo "not ok - $t: $results results, $plan planned"
		fi
		;;
	*)
		echo "not ok - $t: exited $rc, $results results of ${plan:-no plan}"
		;;
	esac
	[ "$rc" -eq 4 ] ||
		{ [ "$rc" -eq 0 ] && [ -n "$plan" ] && [ "$results" -eq "$plan" ]; } ||
		status=1
	echo "# $t: $(($(uptime_s) - t0)) s"
	# Every script leaves the module loaded for the next one.
	[ -d /sys/module/ars ] || insmod "$ARS_KO" || {
		echo "not ok - $t: ars.ko does not load again"
		status=1
	}
done

# Unloading last: the module warns if anything it allocated is left.
if rmmod ars; then
	echo "ok - ars.ko unloads after the tests ($(uname -r))"
else
	echo "not ok - ars.ko does not unload after the tests ($(uname -r))"
	status=1
fi
exit $status
