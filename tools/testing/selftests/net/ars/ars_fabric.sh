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
# (ecmp does better than 68% here: a flow that times out gets a new
# socket hash from TCP, so a new path, and collided flows time out.)
#
# The assertion compares the medians of ROUNDS rounds (ecmp, then
# flowlet-quality, each with new connections, hence new hashes), never a
# time: flowlet-quality's must be MARGIN_PCT% above ecmp's. How the margin
# was chosen, from 12 runs of 5 rounds in the test VM (TCG, 2 vCPUs, both
# kernels side by side, 4 of them inside make check): the ratio of the
# medians was 1.06 to 1.40, mean 1.22, standard deviation 0.09; rounds gave
# flowlet-quality 6.6-7.5 Mbit/s (86-98% of ideal), ecmp 4.7-7.5 (ecmp
# sometimes places all 8 flows well, and a busy host slows every mode).
# Sums of rounds, as an earlier version of this test compared, went once
# to 0.96 when a single flowlet-quality round collapsed to 10%; a median
# ignores one such round. Seven rounds narrow the median's spread (to
# about 0.075 by the square root of 5/7), and 3% is then over 2.4
# standard deviations below the mean, while a flowlet-quality no better
# than ecmp passes about a third of the time: the test tells the direction
# reliably, not small regressions.

# shellcheck disable=SC2034
ALL_TESTS="
	fabric_flowlet_quality_beats_ecmp
"
source "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034 # the FAB_ settings are read by lib.sh
ROUNDS=${ROUNDS:-7}
MARGIN_PCT=${MARGIN_PCT:-3}
RATE=1000		# kbit/s: 8 flows stay well within what the VM forwards
QUEUE=8			# tbf queue and bucket, full frames
BURST=8
IDLE=90ms		# twice the RTT under load; see the demo's sweep
WARM=3
DUR=8
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

# measure MODE: goodput of one round in MODE, Mbit/s.
measure()
{
	local dir=$work/$1

	rm -rf "$dir"
	mkdir -p "$dir"
	fab_start_flows "$dir" "$WARM" "$DUR" <"$work/flows" || return 1
	fab_wait_flows || return 1
	fab_goodput "$dir"
}

# What the leaves saw, for a failure's log.
dump_state()
{
	local r

	for r in l1 l2; do
		log_info "$r: $(arsctl_ns "$r" -j stats)"
		arsctl_ns "$r" paths | sed 's/^/# /'
	done
}

# median X...: the median of the numbers.
median()
{
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

fabric_flowlet_quality_beats_ecmp()
{
	local round g flowlets e f
	local -a ecmp=() fq=()

	RET=0
	for ((round = 1; round <= ROUNDS; round++)); do
		fab_ars mode ecmp
		check_err $? "arsctl set mode ecmp"
		g=$(measure ecmp)
		check_err $? "ecmp round $round: a flow failed"
		ecmp+=("${g:-0}")

		fab_ars mode flowlet-quality idle-time "$IDLE"
		check_err $? "arsctl set mode flowlet-quality"
		g=$(measure flowlet-quality)
		check_err $? "flowlet-quality round $round: a flow failed"
		fq+=("${g:-0}")
		log_info "round $round: ecmp ${ecmp[-1]}, flowlet-quality ${fq[-1]} Mbit/s"
	done
	flowlets=$(arsctl_ns l1 -j stats | jq .flowlets)
	[ "${flowlets:-0}" -gt 0 ]
	check_err $? "leaf l1 started no flowlet"
	e=$(median "${ecmp[@]}")
	f=$(median "${fq[@]}")
	log_info "median of $ROUNDS rounds: ecmp $e, flowlet-quality $f Mbit/s, ratio $(awk -v e="$e" -v f="$f" 'BEGIN { if (e > 0) printf "%.3f", f / e }') (ideal $(awk -v r=$RATE 'BEGIN { printf "%.2f", 8 * r / 1000 * 1448 / 1514 }'))"
	awk -v e="$e" -v f="$f" -v m="$MARGIN_PCT" \
		'BEGIN { exit !(e > 0 && f >= e * (1 + m / 100)) }'
	check_err $? "flowlet-quality's median $f Mbit/s is not $MARGIN_PCT% above ecmp's $e Mbit/s"
	[ "$RET" -eq 0 ] || dump_state
	log_test "fabric: flowlet-quality carries $MARGIN_PCT% more than ecmp on rail pairs"
}

require_root
require_cmd iperf3 nsenter jq tc ip awk "$ARSCTL"
ars_loaded || ars_load || { echo "SKIP: ars.ko not loaded"; exit $ksft_skip; }
trap cleanup EXIT
work=$(mktemp -d)
setup_prepare || { echo "not ok 1 - fabric setup failed"; exit 1; }
tests_run
exit $EXIT_STATUS
