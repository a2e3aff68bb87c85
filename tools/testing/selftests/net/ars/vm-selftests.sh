#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each given kernel in QEMU and run the selftests there:
#   vm-selftests.sh KVER...   (TESTS="ars_genl" to run a subset)
#   TESTS=ars_qdisc ARS_CASES="qdisc_outlives_device" vm-selftests.sh KVER
#                             (some cases of one script; lib.sh)
#
# The kernels run side by side: most cases wait on shaped links and timers
# rather than on the CPU, so two guests share two cores well. Each guest's
# output is kept apart and printed whole, one kernel after the other, with
# one more line per kernel for its kernel log. ARS_VM_SERIAL=1 runs them one
# at a time.
#
# Every kernel runs the netlink fuzzer and the churn under traffic last
# (DEBUG_ONLY: written for the debug kernel, they run on Debian's too),
# but where ARS_LEAVE_OUT (below) leaves one to another kernel.
# Scripts that need the debug kernel's fault injection (FAILSLAB_ONLY)
# run there alone, in the debug lane.
# On the debug kernel (tools/testing/vm/debug-kernel.sh: KASAN, kmemleak,
# lockdep) run_tests.sh and lib.sh skip, with
# a reason, the scripts and cases that measure rates, delays or goodput
# (NOT_ON_DEBUG_SCRIPTS, NOT_ON_DEBUG), and each case says how long it
# took. There, by default, it runs only the debug lane's scripts (those
# that load and unload the module, under traffic and with namespaces
# coming and going, and that send it good and bad netlink), in two guests
# side by side (DEBUG_LANE_A, DEBUG_LANE_B): the rest of the suite costs
# about nine times its time on Debian's kernels under TCG, more than make
# check's budget (tools/testing/vm/README.md, "Its cost").
# Lane A also runs ars_qdisc.sh's qdisc_outlives_device, the qdisc's
# lifetime under KASAN (one round each way there: 46 s, 105 s with the
# script's topology and teardown). Its qdisc_netns_delete does not fit
# (40-65 s more, and it flaked there once), nor ars_objects.sh's tables
# of their own (one case and its setup, 142 s).
# ARS_DEBUG_LANE_A and ARS_DEBUG_LANE_B name other scripts for the two
# guests ("SCRIPT:CASE,CASE" names cases, run_tests.sh);
# ARS_DEBUG_SCRIPTS=all runs every script there, in one guest; TESTS
# overrides them all.
#
# Debian's PREEMPT_RT kernel (a release ending in -rt-amd64: softirqs in
# threads, preemptible everywhere) runs the RT lane's scripts, those of the
# data path and of the module's life (RT_LANE; ARS_RT_SCRIPTS names others,
# =all every script; TESTS overrides it too): the timing cases of the
# rest measure what the other 6.12 already measures.
#
# ARS_LEAVE_OUT="KVER:SCRIPT,SCRIPT ..." leaves scripts out of a Debian
# kernel's full suite, printed in its report; make check (check.sh) uses it
# for scripts that another of its kernels of the same source runs.
#
# At most ARS_VM_JOBS guests (default 2, one per core) run at once; the
# next kernel's guest starts when one ends.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
status=0
DEBUG_ONLY="ars_nlfuzz.sh ars_churn.sh"
# Scripts that need the debug kernel's fault injection: there only.
FAILSLAB_ONLY="ars_failslab.sh"
# The guest that ends last ends make check, so the two should take as
# long: at a4963a6 A took 916 s and B 1121 s, hence ars_failslab (101 s
# there) in A.
DEBUG_LANE_A=${ARS_DEBUG_LANE_A:-"ars_genl.sh ars_qdisc.sh:qdisc_outlives_device ars_failslab.sh ars_nlfuzz.sh"}
DEBUG_LANE_B=${ARS_DEBUG_LANE_B:-"ars_module.sh ars_dumps.sh ars_churn.sh"}
RT_LANE=${ARS_RT_SCRIPTS:-"ars_module.sh ars_genl.sh ars_dataplane.sh ars_churn.sh"}

is_debug_kernel()
{
	[ ! -d "/lib/modules/$1" ] &&
	[ -f "${ARS_KCACHE:-/var/cache/ars/kernel}/$1/installed" ]
}

is_rt_kernel()
{
	[[ $1 == *-rt-* ]]
}

# leave_out KVER: the scripts ARS_LEAVE_OUT takes from KVER's suite.
leave_out()
{
	local e

	for e in ${ARS_LEAVE_OUT:-}; do
		[ "${e%%:*}" != "$1" ] || echo "${e#*:}" | tr ',' ' '
	done
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

# run_one KVER OUTDIR [SCRIPTS]
run_one()
{
	local k=$1 out=$2 tests=${3:-${TESTS:-}} timeout=${ARS_VM_TIMEOUT:-3000}
	local per_test=${ARS_TEST_TIMEOUT:-900} timing=${ARS_TIMING:-}
	local cmdline=${ARS_VM_CMDLINE:-}

	if is_debug_kernel "$k"; then
		timeout=${ARS_VM_TIMEOUT:-3600}
		per_test=${ARS_TEST_TIMEOUT:-1800}
		timing=1
		# Its own scripts last: a panic (panic_on_warn) there ends
		# the run, and the others should have had their say.
		[ -n "$tests" ] ||
			tests="$(tests_but "$DEBUG_ONLY $FAILSLAB_ONLY") $FAILSLAB_ONLY $DEBUG_ONLY"
	elif is_rt_kernel "$k"; then
		[ -n "$tests" ] || [ "${ARS_RT_SCRIPTS:-}" = all ] ||
			tests=$RT_LANE
		[ -n "$tests" ] ||
			tests="$(tests_but "$DEBUG_ONLY $FAILSLAB_ONLY") $DEBUG_ONLY"
		# Its IO-APIC timer check fails under TCG on a busy host
		# ("IO-APIC + timer doesn't work!", a panic at 0.03 s): the
		# check is for broken boards, QEMU's timer works.
		cmdline="$cmdline no_timer_check"
	elif [ -z "$tests" ]; then
		# The debug kernel's own scripts run on Debian's too, last.
		local out_ t

		out_=$(leave_out "$k")
		tests=$(tests_but "$DEBUG_ONLY $FAILSLAB_ONLY $out_")
		for t in $DEBUG_ONLY; do
			[[ " $out_ " == *" $t "* ]] || tests="$tests $t"
		done
	fi
	ARS_TEST_TIMEOUT=$per_test ARS_TIMING=$timing ARS_VM_CMDLINE=${cmdline# } \
	"$top/tools/testing/vm/vm-run.sh" -k "$k" -m "$top/build/$k/kmod/ars.ko" \
		-o "$out" -t "$timeout" -- \
		env TESTS="$tests" "$here/run_tests.sh" >"$out.log" 2>&1
	echo $? >"$out.rc"
}

# report_one KVER OUTDIR RC [PART]
report_one()
{
	local k=$1 out=$2 rc=$3 name=$1 klog=$2/dmesg.txt first

	! is_debug_kernel "$k" || name="$k (debug: KASAN, kmemleak, lockdep)"
	! is_rt_kernel "$k" || name="$k (PREEMPT_RT: $(tests_of "$k"))"
	[ -z "${4:-}" ] || name="$name, guest $4"
	# A panic (panic_on_warn) leaves only the serial console.
	[ -s "$klog" ] || klog=$out/console.log
	echo "# kernel $name"
	[ -n "${TESTS:-}" ] || [ -z "$(leave_out "$k")" ] ||
		echo "# $k leaves out, to other kernels of make check: $(leave_out "$k" | tr "\n" " ")"
	[ -z "${4:-}" ] ||
		echo "# the debug lane's guest $4: ${5:-}; ARS_DEBUG_SCRIPTS=all runs the others too"
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

# One job per kernel; the debug kernel's lane is two, side by side.
jobs=()
for k in "$@"; do
	if is_debug_kernel "$k" && [ -z "${TESTS:-}" ] &&
	   [ "${ARS_DEBUG_SCRIPTS:-lane}" != all ]; then
		jobs+=("$k a" "$k b")
	else
		jobs+=("$k")
	fi
done

declare -A pids outs

# tests_of KVER: what the RT kernel runs, for its report's name.
tests_of()
{
	if [ -n "${TESTS:-}" ]; then
		echo "$TESTS"
	elif [ "${ARS_RT_SCRIPTS:-}" = all ]; then
		echo "every script"
	else
		echo "the RT lane, $RT_LANE"
	fi
}

# lane PART: the scripts of the debug lane's guest PART (none: the default)
lane()
{
	case $1 in
	a) echo "$DEBUG_LANE_A" ;;
	b) echo "$DEBUG_LANE_B" ;;
	esac
}

for j in "${jobs[@]}"; do
	read -r k part <<<"$j"
	outs[$j]=$top/build/vm/$k/selftests${part:+-$part}
	rm -rf "${outs[$j]}" "${outs[$j]}.log"
	mkdir -p "${outs[$j]}"
	if [ "${ARS_VM_SERIAL:-0}" = 1 ]; then
		run_one "$k" "${outs[$j]}" "$(lane "$part")"
		report_one "$k" "${outs[$j]}" $? "$part" "$(lane "$part")"
	else
		while [ "$(jobs -rp | wc -l)" -ge "${ARS_VM_JOBS:-2}" ]; do
			wait -n
		done
		run_one "$k" "${outs[$j]}" "$(lane "$part")" &
		pids[$j]=$!
	fi
done

for j in "${jobs[@]}"; do
	[ -n "${pids[$j]:-}" ] || continue
	read -r k part <<<"$j"
	wait "${pids[$j]}"
	report_one "$k" "${outs[$j]}" "$(cat "${outs[$j]}.rc" 2>/dev/null || echo 1)" \
		"$part" "$(lane "$part")"
done
exit $status
