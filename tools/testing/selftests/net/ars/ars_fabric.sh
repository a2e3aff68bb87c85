#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ars on a small two-tier Clos fabric: on rail-aligned pairs, flowlet-
# quality carries more TCP goodput than ecmp, the kernel's own hash.
#
#     +------+    +------+    +------+    +------+
#     |  s1  |    |  s2  |    |  s3  |    |  s4  |  4 spines
#     +-+--+-+    +-+--+-+    +-+--+-+    +-+--+-+
#       |  +--------|--|--------|--|--------|--|---------------------+
#       |           |  +--------|--|--------|--|------------------+  |
#       |           |           |  +--------|--|---------------+  |  |
#       |           |           |           |  +------------+  |  |  |
#       |           |           |           |               |  |  |  |
#   +---+-----------+-----------+-----------+-----+      +--+--+--+--+--+
#   |  s1          s2          s3          s4     |      | s4 s3 s2 s1  |
#   |                 leaf l1                     |      |  leaf l2     |
#   |  h1          h2          h3          h4     |      | h1 h2 h3 h4  |
#   +---+-----------+-----------+-----------+-----+      +--+--+--+--+--+
#       |           |           |           |               |  |  |  |
#     l1h1        l1h2        l1h3        l1h4            l2h1 .. l2h4
#
# Every link 1 Mbit/s: the ars qdisc over a tbf on every router port, a
# tbf on every host; ars on every router, each with its own seed. Flows:
# l1hN -> l2hN and l2hN -> l1hN (iperf3, TCP), 8 in all.
#
# Each leaf puts its 4 flows on its 4 uplinks. ecmp hashes them: 4 flows
# into 4 paths leave 4 * (3/4)^4 = 1.27 paths idle on average, so ecmp
# carries about 68% of what perfect placement does (100% with
# probability 4!/4^4 = 9.4% per leaf and round). flowlet-quality sees
# its ports' load: the flows start in waves 0.5 s apart and each one's
# first flowlet takes an idle uplink, and a flow that shares a link keeps
# pausing long enough to be moved.
#
# (ecmp did better than 68% here while it hashed the sending socket's
# hash, which veth carries: a flow that timed out got a new socket hash
# from TCP, so a new path, and collided flows time out. The ecmp mode now
# hashes the 5-tuple at each router, ars.rst "The ecmp baseline".)
#
# The assertion compares the medians of ROUNDS rounds (ecmp and
# flowlet-quality, in alternating order, each with new connections, hence
# new hashes), never a time: flowlet-quality's must be MARGIN_PCT% above
# ecmp's. A median ignores the round in a dozen where flowlet-quality
# collapses (a mean of ratios does not).
#
# How ROUNDS and MARGIN_PCT were chosen: a mode no better than ecmp must
# fail as often as it can while flowlet-quality almost never does. The
# worst such mode places flows as randomly as ecmp but independently of
# it: ecmp against itself, with new hashes, is the test's null. Measured
# in make check (.ci/run, both kernels side by side, host otherwise idle,
# 2026-12-02), 20 rounds per kernel: ecmp's goodput is bimodal, about 4.8
# or 5.7 Mbit/s (a leaf with an idle uplink or not; median 4.90 on 6.1,
# 5.06 on 6.12, ideal 7.65), flowlet-quality's 7.36 (6.1) and 6.83 (6.12),
# never below 5.93. Resampling those rounds (bootstrap, the two kernels'
# ecmp runs pooled for the null): the null's pass rate hardly depends on
# the rounds, since two medians of a bimodal ecmp differ by up to 17%, but
# on the margin: 20% (8%), 15% (10%), 12% (12%), 9% (14%) at 10 rounds,
# and 18%, 14%, 11%, 6% at 20. flowlet-quality fails 0.4% of the runs at
# 10 rounds and 12% on 6.12 (0.01% at 20 rounds and 8%; never on 6.1).
# So 10 rounds at 12%: the null passes less often than with the 20 rounds
# at 8% used before, and the test takes half the time.
#
# One in eight was still too often. The medians alone cannot do better,
# so the test adds a rank test: of the ROUNDS x ROUNDS pairs (an ecmp
# round, a flowlet-quality round), at least U_MIN must have
# flowlet-quality ahead (Mann-Whitney U, one-sided). Whatever ecmp's
# distribution, a mode that places flows no better than ecmp (rounds
# exchangeable with ecmp's) reaches U_MIN = 108 of 144 at 12 rounds with
# probability 1.94%, exactly (the permutation distribution of U). The
# rounds of 2026-12-02 were not kept; those of a run on 6.1 (2026-12-06,
# another VM beside) were: ecmp 4.08 to 5.9 Mbit/s and once 7.5 (a
# round that hashed all but perfectly), flowlet-quality 6.5 to 7.4.
# Resampling them as before (20000 runs, the null ecmp against itself):
# the null passes the 12% medians alone 6.8%, with U >= 108 1.2%;
# flowlet-quality fails both 1.3%. U >= 113 (1%) would fail it 7%: one
# ecmp round above every flowlet-quality round costs 12 pairs. (On a
# model of ecmp's modes, fitted to the 2026-12-02 medians: null 1.6%,
# flowlet-quality fails 0.2%.) 16 rounds at U >= 190 would give 0.5% and
# 0.8%, for about two minutes more per kernel. So 12 rounds, 12% and
# U >= 108: two rounds (about a minute per kernel) more than before.
#
# Only a flow's failure reruns a round (the emulator starved: a flow
# that does not connect, 1-3% of the runs on a host busy with several
# VMs), at most MAX_REDO times; arsctl set failing is the module's
# failure, and fails the test at once.
#
# CANDIDATE=ecmp (or another mode) runs the test with that mode in place
# of flowlet-quality; ROUNDS and MARGIN_PCT override the defaults.

# shellcheck disable=SC2034
ALL_TESTS="
	fabric_flowlet_quality_beats_ecmp
"
source "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # the FAB_ settings are read by lib.sh
ROUNDS=${ROUNDS:-12}
MARGIN_PCT=${MARGIN_PCT:-12}
# Mann-Whitney U, one-sided at 2%: the least number of (ecmp round,
# candidate round) pairs with the candidate ahead, by ROUNDS (see above).
declare -A U_MIN_OF=([10]=78 [12]=108 [14]=143 [16]=183 [20]=277)
U_MIN=${U_MIN:-${U_MIN_OF[$ROUNDS]:-}}
CANDIDATE=${CANDIDATE:-flowlet-quality}
MAX_REDO=4
RATE=1000		# kbit/s: 8 flows stay well within what the VM forwards
QUEUE=8			# tbf queue and bucket, full frames
BURST=8
IDLE=90ms		# twice the RTT under load; see the demo's sweep
WARM=2
DUR=5
FAB_LEAVES=2
FAB_SPINES=4
FAB_HOSTS=4
FAB_WAVE_MS=500

work=

cleanup()
{
	fab_destroy
	[ -z "$work" ] || rm -rf "$work"
}

setup_prepare()
{
	fab_create || return 1
	fab_shape "$RATE" "$QUEUE" "$BURST" || return 1
	# The qdisc's rate samples: two frames' time at the link rate.
	fab_ars state on mode ecmp sampling-interval 24ms ewma-shift 2 ||
		return 1
	fab_flows_rail >"$work/flows"
}

# set_mode MODE: MODE on every router, with the idle-time for flowlets.
set_mode()
{
	if [ "$1" = ecmp ]; then
		fab_ars mode ecmp
	else
		fab_ars mode "$1" idle-time "$IDLE"
	fi
}

# measure_mode MODE: set MODE, then the goodput of one round in it,
# Mbit/s.
measure_mode()
{
	set_mode "$1" || { echo "arsctl set mode $1 failed" >&2; return 2; }
	measure "$1"
}

# measure MODE: goodput of one round in MODE, Mbit/s. Fails if a flow
# did not start or failed; no client outlives it.
measure()
{
	local dir=$work/$1

	rm -rf "$dir"
	mkdir -p "$dir"
	if ! fab_start_flows "$dir" "$WARM" "$DUR" <"$work/flows"; then
		# fab_start_flows has killed its clients; this makes sure.
		fab_kill_flows
		return 1
	fi
	if ! fab_wait_flows; then
		# What the clients said, for the log.
		jq -r '.error // empty' "$dir"/iperf-*.json 2>/dev/null |
			sort | uniq -c | sed 's/^/# iperf3: /' >&2
		return 1
	fi
	fab_goodput "$dir"
}

# What the leaves saw, for a failure's log.
dump_state()
{
	local r

	for r in l1 l2; do
		log_info "$r: $(arsctl_ns "$r" -j stats)"
		arsctl_ns "$r" ports | sed 's/^/# /'
	done
}

# median X...: the median of the numbers.
# pairs_ahead "A..." "B...": of the pairs (a, b), how many have a > b,
# a tie counting half (Mann-Whitney U of A over B).
pairs_ahead()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " ")
		for (i = 1; i <= n; i++)
			for (j = 1; j <= m; j++)
				u += (x[i] > y[j]) + 0.5 * (x[i] == y[j])
		print u + 0 }'
}

median()
{
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

fabric_flowlet_quality_beats_ecmp()
{
	local round=1 redo=0 g flowlets e f m u rc
	local -a ecmp=() cand=()
	# shellcheck disable=SC2034 # read as got[ecmp], got[cand]
	local -A got=()

	RET=0
	while [ "$round" -le "$ROUNDS" ]; do
		# Alternating order: neither mode always runs first.
		if [ $((round % 2)) -eq 1 ]; then
			set -- ecmp cand
		else
			set -- cand ecmp
		fi
		got=()
		rc=0
		for m in "$@"; do
			if [ "$m" = ecmp ]; then
				g=$(measure_mode ecmp) || { rc=$?; break; }
			else
				g=$(measure_mode "$CANDIDATE") || { rc=$?; break; }
			fi
			got[$m]=$g
		done
		if [ "$rc" -eq 2 ]; then
			check_err 1 "round $round: arsctl set mode failed"
			break
		fi
		# A flow that does not connect or fails is the emulator starved
		# (1-3% of the runs on a host busy with several VMs): the round
		# is run again, at most MAX_REDO times in all.
		if [ -z "${got[ecmp]:-}" ] || [ -z "${got[cand]:-}" ]; then
			redo=$((redo + 1))
			log_info "round $round: a $m flow failed ($redo rounds run again, at most $MAX_REDO)"
			if [ "$redo" -gt "$MAX_REDO" ]; then
				check_err 1 "more than $MAX_REDO rounds had arsctl set or a flow fail"
				break
			fi
			continue
		fi
		ecmp+=("${got[ecmp]}")
		cand+=("${got[cand]}")
		log_info "round $round: ecmp ${got[ecmp]}, $CANDIDATE ${got[cand]} Mbit/s"
		round=$((round + 1))
	done
	if [ "$CANDIDATE" != ecmp ]; then
		flowlets=$(arsctl_ns l1 -j stats | jq .flowlets)
		[ "${flowlets:-0}" -gt 0 ]
		check_err $? "leaf l1 started no flowlet"
	fi
	e=$(median "${ecmp[@]}")
	f=$(median "${cand[@]}")
	log_info "median of ${#ecmp[@]} rounds: ecmp $e, $CANDIDATE $f Mbit/s, ratio $(awk -v e="$e" -v f="$f" 'BEGIN { if (e > 0) printf "%.3f", f / e }') (ideal $(awk -v r=$RATE 'BEGIN { printf "%.2f", 8 * r / 1000 * 1448 / 1514 }'))"
	awk -v e="$e" -v f="$f" -v m="$MARGIN_PCT" \
		'BEGIN { exit !(e > 0 && f >= e * (1 + m / 100)) }'
	check_err $? "$CANDIDATE's median $f Mbit/s is not $MARGIN_PCT% above ecmp's $e Mbit/s"
	u=$(pairs_ahead "${cand[*]}" "${ecmp[*]}")
	log_info "$CANDIDATE ahead of ecmp in $u of $((${#cand[@]} * ${#ecmp[@]})) pairs of rounds (at least ${U_MIN:-?})"
	if [ -z "$U_MIN" ]; then
		check_err 1 "no U_MIN for $ROUNDS rounds (set U_MIN)"
	elif [ "${#cand[@]}" -eq "$ROUNDS" ]; then
		awk -v u="$u" -v m="$U_MIN" 'BEGIN { exit !(u >= m) }'
		check_err $? "$CANDIDATE ahead of ecmp in $u pairs of rounds, fewer than $U_MIN (Mann-Whitney, 2%)"
	fi
	[ "$RET" -eq 0 ] || dump_state
	log_test "fabric: $CANDIDATE carries $MARGIN_PCT% more than ecmp on rail pairs, and ranks above it"
}

require_root
require_cmd iperf3 nsenter timeout jq tc ip awk "$ARSCTL"
ars_loaded || ars_load || { echo "not ok 1 - ars.ko does not load"; exit 1; }
trap cleanup EXIT
work=$(mktemp -d)
setup_prepare || { echo "not ok 1 - fabric setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
