#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each given kernel in QEMU and run the selftests there:
#   vm-selftests.sh KVER...   (TESTS="ars_genl" to run a subset)
# Prints the tests' KTAP lines, then one line for the kernel log of each run.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
status=0

for k in "$@"; do
	ko=$top/build/$k/kmod/ars.ko
	out=$top/build/vm/$k/selftests
	rm -rf "$out"
	mkdir -p "$out"
	echo "# kernel $k"
	"$top/tools/testing/vm/vm-run.sh" -k "$k" -m "$ko" \
		-o "$out" -t "${ARS_VM_TIMEOUT:-2400}" -- \
		env TESTS="${TESTS:-}" "$here/run_tests.sh"
	rc=$?
	if [ -f "$out/status" ] &&
	   "$top/tools/testing/vm/check-kmsg.sh" "$out/dmesg.txt" >/dev/null; then
		echo "ok - $k: kernel log clean (no WARN, BUG, Oops, lockdep, leak)"
	else
		echo "not ok - $k: kernel log or VM failure, see $out"
		"$top/tools/testing/vm/check-kmsg.sh" "$out/dmesg.txt" 2>&1 |
			head -20 | sed 's/^/# /'
	fi
	[ $rc -eq 0 ] || status=1
done
exit $status
