#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the fuzz target for a bounded time, its log in OUT/fuzz.log, and
# report one KTAP line; on failure the log's tail and the crashing input.
# A run that executed fewer than MIN_RUNS inputs (100) or covered fewer
# than MIN_EDGES edges (100) fails too: it tested next to nothing (a target
# that does not start, an empty corpus, a build without coverage).
#
#   run-fuzz.sh BINARY CORPUS OUT SECONDS

set -u
bin=$1
corpus=$2
out=$3
secs=$4
log=$out/fuzz.log
min_runs=${MIN_RUNS:-100}
min_edges=${MIN_EDGES:-100}

echo "1..1"
"$bin" -max_total_time="$secs" -use_value_profile=1 -max_len=4096 \
	-print_final_stats=1 -artifact_prefix="$out/" "$corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
cov=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log")
if [ $rc -ne 0 ]; then
	tail -n 30 "$log" | sed 's/^/# /'
	echo "not ok 1 - fuzz ars_core: failed after ${runs:-?} runs (log $log)"
	exit 1
fi
if [ "${runs:-0}" -lt "$min_runs" ] || [ "${cov:-0}" -lt "$min_edges" ]; then
	tail -n 10 "$log" | sed 's/^/# /'
	echo "not ok 1 - fuzz ars_core: ${runs:-no} runs, coverage ${cov:-no}" \
	     "edges in ${secs} s (at least $min_runs runs and $min_edges" \
	     "edges expected; log $log)"
	exit 1
fi
echo "ok 1 - fuzz ars_core: $runs runs in ${secs} s, coverage $cov edges," \
     "all invariants held"
