#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the fuzz target for a bounded time, its log in OUT/fuzz.log, and
# report one KTAP line; on failure the log's tail and the crashing input.
#
#   run-fuzz.sh BINARY CORPUS OUT SECONDS

set -u
bin=$1
corpus=$2
out=$3
secs=$4
log=$out/fuzz.log

"$bin" -max_total_time="$secs" -use_value_profile=1 -max_len=4096 \
	-print_final_stats=1 -artifact_prefix="$out/" "$corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
cov=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$log")
if [ $rc -eq 0 ]; then
	echo "ok 1 - fuzz ars_core: ${runs:-?} runs in ${secs} s, coverage" \
	     "${cov:-?} edges, all invariants held"
	exit 0
fi
tail -n 30 "$log" | sed 's/^/# /'
echo "not ok 1 - fuzz ars_core: failed after ${runs:-?} runs (log $log)"
exit 1
