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
#
# The debug kernel (tools/testing/vm/debug-kernel.sh: KASAN, kmemleak,
# lockdep) also runs the scripts that exist for it, the netlink fuzzer and
# the churn under traffic, last; there run_tests.sh and lib.sh skip, with
# a reason, the scripts and cases that measure rates, delays or goodput
# (NOT_ON_DEBUG_SCRIPTS, NOT_ON_DEBUG), and each case says how long it
# took. There make check runs DEBUG_LANE, the scripts that load and
# unload the module, under traffic and with namespaces coming and going,
# and that send it good and bad netlink: the rest of the suite costs about
# nine times its time on Debian's kernels under TCG, more than make
# check's budget (tools/testing/vm/README.md, "Its cost").
# ARS_DEBUG_SCRIPTS=all runs every script there; TESTS overrides both.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
status=0
DEBUG_ONLY="ars_nlfuzz.sh ars_churn.sh"
DEBUG_LANE="ars_module.sh ars_genl.sh ars_dumps.sh $DEBUG_ONLY"

is_debug_kernel()
{
	[ ! -d "/lib/modules/$1" ] &&
	[ -f "${ARS_KCACHE:-/var/cache/ars/kernel}/$1/installed" ]
}

# Every script here but those of list $1, on one line.
tests_but()
{
	local t list=

	for t in $(cd "$here" && ls ars_*.sh); do
		[[ " $1 " == *" $t "* ]] || list="$list $t"
	done
	echo "${list# }"
}

run_one()
{
	local k=$1 out=$2 tests=${TESTS:-} timeout=${ARS_VM_TIMEOUT:-2400}
	local per_test=${ARS_TEST_TIMEOUT:-900} timing=${ARS_TIMING:-}

	if is_debug_kernel "$k"; then
		timeout=${ARS_VM_TIMEOUT:-3600}
		per_test=${ARS_TEST_TIMEOUT:-1800}
		timing=1
		# Its own scripts last: a panic (panic_on_warn) there ends
		# the run, and the others should have had their say.
		if [ -n "$tests" ]; then
			:
		elif [ "${ARS_DEBUG_SCRIPTS:-lane}" = all ]; then
			tests="$(tests_but "$DEBUG_ONLY") $DEBUG_ONLY"
		else
			tests=$DEBUG_LANE
		fi
	else
		[ -n "$tests" ] || tests=$(tests_but "$DEBUG_ONLY")
	fi
	ARS_TEST_TIMEOUT=$per_test ARS_TIMING=$timing \
	"$top/tools/testing/vm/vm-run.sh" -k "$k" -m "$top/build/$k/kmod/ars.ko" \
		-o "$out" -t "$timeout" -- \
		env TESTS="$tests" "$here/run_tests.sh" >"$out.log" 2>&1
}

report_one()
{
	local k=$1 out=$2 rc=$3 name=$1 klog=$2/dmesg.txt first

	! is_debug_kernel "$k" || name="$k (debug: KASAN, kmemleak, lockdep)"
	# A panic (panic_on_warn) leaves only the serial console.
	[ -s "$klog" ] || klog=$out/console.log
	echo "# kernel $name"
	if is_debug_kernel "$k" && [ -z "${TESTS:-}" ] &&
	   [ "${ARS_DEBUG_SCRIPTS:-lane}" != all ]; then
		echo "# the debug lane: $DEBUG_LANE; ARS_DEBUG_SCRIPTS=all runs the others too"
	fi
	cat "$out.log"
	# The guest says why the command did not finish (a timeout).
	[ ! -s "$out/error" ] || echo "not ok - $name: $(cat "$out/error")"
	if [ -f "$out/status" ] &&
	   "$top/tools/testing/vm/check-kmsg.sh" "$klog" >/dev/null; then
		echo "ok - $name: kernel log clean (no WARN, BUG, Oops, lockdep, leak)"
	else
		echo "not ok - $name: kernel log or VM failure, see $out"
		"$top/tools/testing/vm/check-kmsg.sh" "$klog" 2>&1 |
			tee "$out/kmsg-bad.txt" | head -40 | sed 's/^/# /'
		# The first report whole (a KASAN report's access, its
		# allocation and free stacks), for a log that is all CI keeps.
		first=$(sed -n '2s/^\([0-9]*\):.*/\1/p' "$out/kmsg-bad.txt")
		if [ -n "$first" ]; then
			echo "# the first report, from line $first of $klog:"
			sed -n "$first,$((first + 59))p" "$klog" | sed 's/^/#   /'
		fi
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
