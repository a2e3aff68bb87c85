#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the ars selftests inside the test VM (as vm-run.sh's command): every
# ars_*.sh here, or those named in $TESTS, each under a timeout. Their KTAP
# lines go to stdout; a script that fails without saying why, times out or
# leaves the module unloadable is reported as a failed case of its own.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests=${TESTS:-$(cd "$here" && ls ars_*.sh)}
per_test_timeout=${ARS_TEST_TIMEOUT:-900}
status=0

for t in $tests; do
	t=${t%.sh}.sh
	echo "# TEST: $t ($(uname -r))"
	timeout -k 10 "$per_test_timeout" "$here/$t"
	rc=$?
	case $rc in
	0) ;;
	4) echo "ok - $t # SKIP" ;;
	124|137)
		echo "not ok - $t: timed out after ${per_test_timeout}s"
		status=1 ;;
	*)
		status=1 ;;
	esac
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
