#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build, lint, host unit tests, then the selftests inside QEMU
# on each given kernel. Every test case of every stage prints a KTAP line
# ("ok ..." / "not ok ..."); this script keeps the whole log in
# build/check.log and ends with one line that counts them all:
#   N passed, M failed[, K skipped]
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
log=$top/build/check.log
kvers=()
start=$(date +%s)
dbg=
dbg_pid=

# The debug kernel (KASAN, kmemleak, lockdep) is the third kernel: it is
# built, or found in its cache, in the background at nice 10 while the
# Debian kernels' stages run, and its selftests run after theirs.
# ARS_DEBUG_KERNEL=1 puts it in. It is not in the default run yet: its
# suite under emulation has not been measured to fit make check's budget
# (the data-plane script alone ran over 25 minutes on a loaded machine).
for k in "$@"; do
	[[ $k == *-ars-debug ]] || kvers+=("$k")
done

mkdir -p "$top/build"
: >"$log"
if [ "${ARS_DEBUG_KERNEL:-0}" != 0 ]; then
	"$top/tools/testing/vm/debug-kernel.sh" >"$top/build/debug-kernel.out" \
		2>"$top/build/debug-kernel.log" &
	dbg_pid=$!
fi

# short_plans NAME FROM: in the log from line FROM on, each KTAP plan
# "1..N" must come with N numbered results: after it, up to the next
# version line or plan; or, for a plan printed last, before it. Fewer, and
# the script that printed it stopped early: one failed case. (The
# selftests' run_tests.sh checks its scripts' plans itself.)
short_plans()
{
	tail -n +"$2" "$log" | awk -v name="$1" '
		function short(have, want) {
			if (have < want)
				printf "not ok - %s: %d results, %d planned\n",
					name, have, want
		}
		function end_plan() {
			if (want != "")
				short(have, want)
			want = ""
			since = 0
		}
		/^K?TAP version / { end_plan(); next }
		/^1\.\.[0-9]+$/ {
			n = substr($0, 4) + 0
			if (want == "" && since > 0) {
				short(since, n)
				since = 0
			} else {
				end_plan()
				want = n
				have = 0
			}
			next
		}
		/^(not )?ok [0-9]+( |$)/ { since++; have++ }
		END { end_plan() }' | tee -a "$log"
}

# stage NAME CMD...: run a stage, its output to the terminal and the log; a
# stage that fails without reporting a failed case is one failed case.
stage()
{
	local name=$1 before after rc from

	shift
	echo "# === $name" | tee -a "$log"
	before=$(grep -c '^not ok' "$log")
	from=$(($(wc -l <"$log") + 1))
	"$@" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	[ "$name" = selftests ] || short_plans "$name" "$from"
	after=$(grep -c '^not ok' "$log")
	if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "not ok - $name: exited $rc" | tee -a "$log"
	fi
}

build()
{
	local out rc

	out=$(for k in "$@"; do
		make -C "$top" --no-print-directory all KVER="$k" || exit
	done 2>&1)
	rc=$?
	echo "$out" | grep -E 'warning:|error:' | sed 's/^/# /'
	[ $rc -eq 0 ]
	echo "$([ $rc -eq 0 ] || echo 'not ')ok - build for $*"
	echo "$out" | grep -q 'warning:'
	echo "$([ $? -ne 0 ] || echo 'not ')ok - no compiler warnings (W=1)"
}

# debug_kernel: wait for debug-kernel.sh, then say what it did.
debug_kernel()
{
	local rc=0 t0=$SECONDS

	wait "$dbg_pid" || rc=$?
	sed 's/^/# /' "$top/build/debug-kernel.log"
	dbg=$(cat "$top/build/debug-kernel.out")
	if [ $rc -ne 0 ] || [ -z "$dbg" ]; then
		echo "not ok - debug kernel: debug-kernel.sh exited $rc"
		dbg=
		return
	fi
	echo "ok - debug kernel $dbg ready (waited $((SECONDS - t0)) s)"
}

# package: make deb (lintian without errors), make install and uninstall
# and the DKMS sources on the host, then the packages in the VM of the
# newest kernel only: DKMS compiles under emulation there, minutes per
# kernel (tools/testing/packaging/vm-package.sh KVER runs any other).
package()
{
	if make -s -C "$top" deb >"$top/build/deb.log" 2>&1; then
		echo "ok - make deb: ars-dkms and ars-tools, lintian without errors"
	else
		echo "not ok - make deb, see build/deb.log"
		tail -n 20 "$top/build/deb.log" | sed 's/^/# /'
		return 1
	fi
	"$top/tools/testing/packaging/test-install.sh" "$@"
	"$top/tools/testing/packaging/vm-package.sh" "${@: -1}"
}

stage build build "${kvers[@]}"
stage lint "$top/tools/testing/lint.sh" "${kvers[@]}"
stage unit make -s -C "$top/tools/testing/unit" run
stage tc-ext make -s -C "$top/tc-ext" test
stage arsctl make -s -C "$top/tools/arsctl" test
stage spec python3 "$top/tools/testing/unit/spec-check/spec-check.py"
stage spec-check-self "$top/tools/testing/unit/spec-check/test-spec-check.sh"
stage kmsg-gate "$top/tools/testing/vm/test-check-kmsg.sh"
if [ -f "$top/tools/testing/fuzz/Makefile" ]; then
	stage fuzz make -s -C "$top/tools/testing/fuzz" fuzz-smoke
fi
# ars's core and port estimator in a small ns-3 fabric (tools/testing/sim)
stage sim make -s -C "$top/tools/testing/sim" check
stage selftests "$top/tools/testing/selftests/net/ars/vm-selftests.sh" \
	"${kvers[@]}"
stage package package "${kvers[@]}"
if [ -n "$dbg_pid" ]; then
	# Not through stage(): its pipeline would run debug_kernel in a
	# subshell, which can neither wait for debug-kernel.sh nor set $dbg.
	echo "# === debug-kernel" | tee -a "$log"
	debug_kernel >"$top/build/debug-kernel.stage" 2>&1
	tee -a "$log" <"$top/build/debug-kernel.stage"
	if [ -n "$dbg" ]; then
		stage debug-build build "$dbg"
		stage debug-selftests \
			"$top/tools/testing/selftests/net/ars/vm-selftests.sh" "$dbg"
		kvers+=("$dbg (debug)")
	fi
fi

passed=$(grep -E -c '^ok ' "$log")
skipped=$(grep -E -c '^ok .*# SKIP' "$log")
failed=$(grep -E -c '^not ok ' "$log")
passed=$((passed - skipped))
on=$(printf ', %s' "${kvers[@]}")
echo "# make check took $(( $(date +%s) - start ))s; log: $log"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped; on ${on#, }"
else
	echo "$passed passed, $failed failed; on ${on#, }"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
