#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build, lint, host unit tests, then the selftests inside QEMU
# on each given kernel. Every test case of every stage prints a KTAP line
# ("ok ..." / "not ok ..."); this script keeps the whole log in
# build/check.log and ends with one line that counts them all:
#   N passed, M failed[, K skipped]
# A SKIP outside the allow-list tools/testing/skip-allow.txt is a failure
# (skips() below). The kernels are those of the Makefile's KVERS: Debian's
# 6.1, 6.12 and 6.12 PREEMPT_RT (which runs the selftests' RT lane only,
# vm-selftests.sh), and the debug kernel below.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
log=$top/build/check.log
kvers=()
# Durations on CLOCK_BOOTTIME, which nothing steps (date +%s and bash's
# SECONDS are the realtime clock, which NTP moves).
uptime_s() { cut -d. -f1 /proc/uptime; }
start=$(uptime_s)
lane=$top/build/debug-lane
lane_pid=

# The debug kernel (KASAN, kmemleak, lockdep, PROVE_RCU) is the third
# kernel, in a lane of its own beside the other stages (debug_lane below);
# its stages' output joins the log at the end. There it runs the debug
# lane's scripts (vm-selftests.sh: module load and unload under traffic,
# netlink, the fuzzer, churn) in two guests. ARS_DEBUG_KERNEL=0 leaves it
# out. With it, and the kernel built from scratch as on a fresh machine,
# make check took 2976 s at 1a3b050 (this script's log has each stage's
# start and length); CI adds make deps (about 180 s) to that.
for k in "$@"; do
	[[ $k == *-ars-debug ]] || kvers+=("$k")
done

mkdir -p "$top/build"
: >"$log"

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
	local name=$1 before after rc from t0

	t0=$(uptime_s)
	shift
	echo "# === $name (at $((t0 - start)) s)" | tee -a "$log"
	before=$(grep -c '^not ok' "$log")
	from=$(($(wc -l <"$log") + 1))
	"$@" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	case $name in
	selftests | selftests-rt | debug-selftests) ;;
	*) short_plans "$name" "$from" ;;
	esac
	after=$(grep -c '^not ok' "$log")
	if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
		echo "not ok - $name: exited $rc" | tee -a "$log"
	fi
	echo "# $name: $(($(uptime_s) - t0)) s" | tee -a "$log"
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

# The debug lane, in the background from the start:
# - debug-kernel.sh builds the kernel (about 940 CPU seconds on a fresh
#   machine), or finds it in its cache, at the idle scheduling class: it
#   takes only the CPU that the other stages leave, and the Debian
#   kernels' timing cases keep theirs;
# - ars.ko is built against it once the build stage is done (the tools
#   are built by then), also at the idle class;
# - its selftests, the debug subset (run_tests.sh and lib.sh skip what
#   measures time), run once the Debian kernels' full suites are done,
#   in two guests at nice 10, beside the RT lane and then the packages'
#   VM test: three VMs at most on two cores, the RT lane's ratio cases
#   and the packages' DKMS build with a core of their own.
# Each of its stages leaves NAME.out and NAME.rc in $lane, for replay.
# lane_wait GATE: until the main shell opens GATE (or is gone).
lane_wait()
{
	while [ ! -e "$lane/go-$1" ]; do
		kill -0 $$ 2>/dev/null || exit 1
		sleep 2
	done
}

lane_build()
{
	local rc=0 t0=$(uptime_s) kver

	chrt --idle --pid 0 "$BASHPID" >/dev/null 2>&1
	"$top/tools/testing/vm/debug-kernel.sh" >"$lane/kver" \
		2>"$lane/debug-kernel.log" || rc=$?
	kver=$(cat "$lane/kver")
	{
		sed 's/^/# /' "$lane/debug-kernel.log"
		if [ $rc -ne 0 ] || [ -z "$kver" ]; then
			echo "not ok - debug kernel: debug-kernel.sh exited $rc"
		else
			echo "ok - debug kernel $kver ready after $(($(uptime_s) - t0)) s"
		fi
	} >"$lane/debug-kernel.out"
	echo $rc >"$lane/debug-kernel.rc"
	[ $rc -eq 0 ] && [ -n "$kver" ] || return 1
	lane_wait build
	build "$kver" >"$lane/debug-build.out" 2>&1
	echo $? >"$lane/debug-build.rc"
}

debug_lane()
{
	local rc=0 t0

	(lane_build) || return
	lane_wait vm
	t0=$(uptime_s)
	# At nice 10: the RT lane's ratio cases and the packages' guest,
	# beside it, keep their core; its own cases measure no time.
	{
		nice -n 10 "$top/tools/testing/selftests/net/ars/vm-selftests.sh" \
			"$(cat "$lane/kver")" 2>&1 || rc=$?
		echo "# debug lane: its VM ran from $((t0 - start)) s to $(($(uptime_s) - start)) s of make check"
	} >"$lane/debug-selftests.out"
	echo $rc >"$lane/debug-selftests.rc"
}

# replay NAME: what the lane's stage NAME printed, and its status (1 if
# it left none).
replay()
{
	cat "$lane/$1.out" 2>/dev/null
	return "$(cat "$lane/$1.rc" 2>/dev/null || echo 1)"
}

# package: make deb (lintian without errors), make install and uninstall
# and the DKMS sources on the host, then the packages in the VM of the
# newest kernel (tools/testing/packaging/vm-package.sh KVER runs any
# other), the newest but the PREEMPT_RT one (whose release sorts after its
# 6.12): dpkg -i in an overlay of the host's root, DKMS building for that
# kernel, then the guest on top of it. $newest is set below, with the
# selftests' kernels.
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
	"$top/tools/testing/packaging/vm-package.sh" "${newest:-${@: -1}}"
}

# A SKIP is a failure unless the allow-list names it: a line
# "SCRIPT: CASE : REASON" of tools/testing/skip-allow.txt, SCRIPT the
# selftest ("# TEST: SCRIPT" above the result) or else the stage ("# ===
# STAGE"), CASE the result's text between "ok N - " and " # SKIP". The
# list is short on purpose and capped here: an entry more fails make check
# until the cap is raised too, in the same reviewed commit.
SKIP_ALLOW_MAX=4

# skips LIST: "not ok" for each SKIP of the log that LIST does not name,
# and for a LIST longer than SKIP_ALLOW_MAX; then the list used, each
# entry with its reason and how many SKIPs it covered.
skips()
{
	local n

	echo "# === skips: SKIPs against the allow-list $1"
	if [ ! -r "$1" ]; then
		echo "not ok - skips: no allow-list $1"
		return
	fi
	n=$(grep -c -v -E '^[[:space:]]*(#|$)' "$1")
	echo "# $n entries, at most $SKIP_ALLOW_MAX"
	[ "$n" -le "$SKIP_ALLOW_MAX" ] ||
		echo "not ok - skips: the allow-list has $n entries, more than $SKIP_ALLOW_MAX"
	awk '
		function trim(x) { sub(/^[ \t]+/, "", x); sub(/[ \t]+$/, "", x); return x }
		FNR == NR {
			if ($0 ~ /^[ \t]*(#|$)/)
				next
			i = index($0, ": ")
			rest = substr($0, i + 2)
			j = 0
			for (k = 1; k <= length(rest) - 2; k++)
				if (substr(rest, k, 3) == " : ")
					j = k
			if (i == 0 || j == 0) {
				printf "not ok - skips: bad allow-list line: %s\n", $0
				next
			}
			key = trim(substr($0, 1, i - 1)) SUBSEP trim(substr(rest, 1, j - 1))
			order[++entries] = key
			reason[key] = trim(substr(rest, j + 3))
			used[key] = 0
			next
		}
		/^# === / { ctx = substr($0, 7); sub(/ \(at [0-9]+ s\)$/, "", ctx); next }
		/^# TEST: / { ctx = $3; next }
		/^ok .* # SKIP/ {
			c = $0
			sub(/^ok [0-9]* *- */, "", c)
			why = c
			sub(/ # SKIP.*/, "", c)
			sub(/.* # SKIP */, "", why)
			key = ctx SUBSEP trim(c)
			if (key in reason) {
				used[key]++
				next
			}
			printf "not ok - skipped and not on the allow-list: %s: %s (%s)\n",
				ctx, trim(c), why
		}
		END {
			for (e = 1; e <= entries; e++) {
				split(order[e], f, SUBSEP)
				printf "# allowed: %s: %s : %s (%d skipped)\n",
					f[1], f[2], reason[order[e]], used[order[e]]
			}
		}' "$1" "$log"
}

rm -rf "$lane"
mkdir -p "$lane"
if [ "${ARS_DEBUG_KERNEL:-1}" != 0 ]; then
	debug_lane &
	lane_pid=$!
fi
stage build build "${kvers[@]}"
touch "$lane/go-build"
stage lint "$top/tools/testing/lint.sh" "${kvers[@]}"
stage unit make -s -C "$top/tools/testing/unit" run
stage tc-ext make -s -C "$top/tc-ext" test
stage arsctl make -s -C "$top/tools/arsctl" test
stage tc-dev "$top/tools/testing/packaging/test-tc-dev.sh"
stage spec python3 "$top/tools/testing/unit/spec-check/spec-check.py"
stage nl-gen "$top/scripts/nl-gen.sh" --check
stage spec-check-self "$top/tools/testing/unit/spec-check/test-spec-check.sh"
# The generated results file (ars-results.rst) is what its results files
# render to, and ars.rst and README.md copy no figure by hand (a second).
stage results python3 "$top/tools/testing/results/render.py" check
stage kmsg-gate "$top/tools/testing/vm/test-check-kmsg.sh"
# The fuzz stage is a stage of make check like the others: without its
# Makefile it fails, it does not vanish from the log.
if [ -f "$top/tools/testing/fuzz/Makefile" ]; then
	stage fuzz make -s -C "$top/tools/testing/fuzz" fuzz-smoke
else
	echo "# === fuzz" | tee -a "$log"
	echo "not ok - fuzz: no tools/testing/fuzz/Makefile, the stage cannot run" |
		tee -a "$log"
fi
# ars's core and port estimator in a small ns-3 fabric (tools/testing/sim)
stage sim make -s -C "$top/tools/testing/sim" check
# The full suites of 6.1 and 6.12 side by side, then the PREEMPT_RT
# kernel's lane beside the debug lane's two guests: the RT lane alone
# used to leave a core idle for six minutes.
rt_kvers=()
full_kvers=()
for k in "${kvers[@]}"; do
	if [[ $k == *-rt-* ]]; then
		rt_kvers+=("$k")
	else
		full_kvers+=("$k")
	fi
done
# What one kernel's guest leaves to another kernel of make check
# (ARS_LEAVE_OUT, vm-selftests.sh; each guest's report names them), so that
# the two suites, side by side, end together and sooner:
# - a Debian kernel whose PREEMPT_RT build is here (6.12) leaves the RT
#   lane's ars_genl, ars_module and ars_churn to it: the same source and
#   the same cases, with the RT kernel's locking on top (the debug lane
#   runs them on 6.12 too). Its ars_dataplane stays, for the non-RT data
#   path's timing cases;
# - ars_fabric (flowlet-quality's goodput against ecmp's on a Clos, the
#   longest script) runs on the newest Debian kernel only: which path each
#   packet takes, the part that differs between kernels, is asserted on
#   every kernel by ars_dataplane, ars_ecmp and ars_alternates;
# - ars_readme (the README's commands: arsctl and tc against the family
#   and qdisc that every kernel's suite tests) runs on the oldest only,
#   Debian 12's default kernel.
leave=
newest=$(printf '%s\n' "${full_kvers[@]}" | sort -V | tail -n 1)
oldest=$(printf '%s\n' "${full_kvers[@]}" | sort -V | head -n 1)
for k in "${full_kvers[@]}"; do
	out=
	# (Only while the RT lane runs its default scripts.)
	for r in "${rt_kvers[@]}"; do
		[ "$r" != "${k%-amd64}-rt-amd64" ] ||
			[ -n "${ARS_RT_SCRIPTS:-}" ] ||
			out="ars_genl.sh,ars_module.sh,ars_churn.sh"
	done
	[ "$k" = "$newest" ] || out="${out:+$out,}ars_fabric.sh"
	[ "$k" = "$oldest" ] || out="${out:+$out,}ars_readme.sh"
	[ -z "$out" ] || leave="${leave:+$leave }$k:$out"
done
ARS_LEAVE_OUT=$leave stage selftests \
	"$top/tools/testing/selftests/net/ars/vm-selftests.sh" "${full_kvers[@]}"
touch "$lane/go-vm"
if [ ${#rt_kvers[@]} -gt 0 ]; then
	stage selftests-rt \
		"$top/tools/testing/selftests/net/ars/vm-selftests.sh" \
		"${rt_kvers[@]}"
fi
stage package package "${kvers[@]}"
if [ -n "$lane_pid" ]; then
	t0=$(uptime_s)
	wait "$lane_pid"
	echo "# === debug lane: waited $(($(uptime_s) - t0)) s for it" | tee -a "$log"
	stage debug-kernel replay debug-kernel
	if [ -f "$lane/debug-build.rc" ]; then
		stage debug-build replay debug-build
		stage debug-selftests replay debug-selftests
		kvers+=("$(cat "$lane/kver") (debug)")
	fi
fi

skips "$top/tools/testing/skip-allow.txt" | tee -a "$log"

passed=$(grep -E -c '^ok ' "$log")
skipped=$(grep -E -c '^ok .*# SKIP' "$log")
failed=$(grep -E -c '^not ok ' "$log")
passed=$((passed - skipped))
on=$(printf ', %s' "${kvers[@]}")
echo "# make check took $(( $(uptime_s) - start ))s; log: $log"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped; on ${on#, }"
else
	echo "$passed passed, $failed failed; on ${on#, }"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
