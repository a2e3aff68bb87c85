#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each given kernel in QEMU and run the selftests there:
#   vm-selftests.sh KVER...   (TESTS="ars_genl" to run a subset)
#
# The kernels run side by side: most cases wait on shaped links and timers
# rather than on the CPU, so two guests share two cores well. Each guest's
# output is kept apart and printed whole, one kernel after the other, with
# one more line per kernel for its kernel log. ARS_VM_SERIAL=1 runs them one
# at a time.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
status=0

run_one()
{
	local k=$1 out=$2

	"$top/tools/testing/vm/vm-run.sh" -k "$k" -m "$top/build/$k/kmod/ars.ko" \
		-o "$out" -t "${ARS_VM_TIMEOUT:-2400}" -- \
		env TESTS="${TESTS:-}" "$here/run_tests.sh" >"$out.log" 2>&1
}

report_one()
{
	local k=$1 out=$2 rc=$3

	echo "# kernel $k"
	cat "$out.log"
	if [ -f "$out/status" ] &&
	   "$top/tools/testing/vm/check-kmsg.sh" "$out/dmesg.txt" >/dev/null; then
		echo "ok - $k: kernel log clean (no WARN, BUG, Oops, lockdep, leak)"
	else
		echo "not ok - $k: kernel log or VM failure, see $out"
		"$top/tools/testing/vm/check-kmsg.sh" "$out/dmesg.txt" 2>&1 |
			head -20 | sed 's/^/# /'
	fi
	[ "$rc" -eq 0 ] || status=1
}

declare -A pids outs
for k in "$@"; do
	outs[$k]=$top/build/vm/$k/selftests
	rm -rf "${outs[$k]}" "${outs[$k]}.log"
	mkdir -p "${outs[$k]}"
	if [ "${ARS_VM_SERIAL:-0}" = 1 ]; then
		run_one "$k" "${outs[$k]}"
		report_one "$k" "${outs[$k]}" $?
	else
		run_one "$k" "${outs[$k]}" &
		pids[$k]=$!
	fi
done

for k in "$@"; do
	[ -n "${pids[$k]:-}" ] || continue
	wait "${pids[$k]}"
	report_one "$k" "${outs[$k]}" $?
done
exit $status
