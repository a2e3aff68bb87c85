#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run a fuzz target for a bounded time, its log in OUT/NAME.log, and
# report one KTAP line; on failure the log's tail and the crashing input.
# A run that executed fewer than MIN_RUNS inputs (100) or covered fewer
# than MIN_EDGES edges (100) fails too: it tested next to nothing (a target
# that does not start, an empty corpus, a build without coverage).
#
#   run-fuzz.sh BINARY CORPUS OUT SECONDS SEED
#
# The seed is libFuzzer's -seed and is printed: with the same corpus,
# "build/fuzz_X -seed=SEED CORPUS" replays the run's first inputs.

set -u
bin=$1
corpus=$2
out=$3
secs=$4
seed=$5
name=$(basename "$bin")
log=$out/$name.log
min_runs=${MIN_RUNS:-100}
min_edges=${MIN_EDGES:-100}

echo "1..1"
echo "# $name: -seed=$seed, corpus $corpus"
"$bin" -seed="$seed" -max_total_time="$secs" -use_value_profile=1 \
	-max_len=4096 -print_final_stats=1 -artifact_prefix="$out/" \
	"$corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
cov=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log")
if [ $rc -ne 0 ]; then
	tail -n 30 "$log" | sed 's/^/# /'
	echo "not ok 1 - $name seed $seed: failed after ${runs:-?} runs (log $log)"
	exit 1
fi
if [ "${runs:-0}" -lt "$min_runs" ] || [ "${cov:-0}" -lt "$min_edges" ]; then
	tail -n 10 "$log" | sed 's/^/# /'
	echo "not ok 1 - $name seed $seed: ${runs:-no} runs, coverage" \
	     "${cov:-no} edges in ${secs} s (at least $min_runs runs and" \
	     "$min_edges edges expected; log $log)"
	exit 1
fi
echo "ok 1 - $name seed $seed: $runs runs in ${secs} s, coverage $cov" \
     "edges, all invariants held"
