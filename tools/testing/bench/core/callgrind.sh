#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per packet of the ars core, from callgrind: each mode and
# workload runs twice, with N1 and N2 packets; the difference of the totals
# over N2 - N1 cancels set-up and start-up. "loop" is the whole measured
# loop (with the benchmark's own PRNG and flow pick), "core" only the
# core's functions (ars_*, including what they inline from ars_core.h) and
# bench_steer(), which holds what the hook inlines (ars_flowlet_fast() and
# the read of the entry's hash). Workloads (bench_core.c): "continue", a
# packet of a continuing flowlet (the fast path); "new", a packet that
# starts a flowlet; "mixed", random flows at a fixed gap. The target of
# 150 applies to the core for a continuing packet.
#
#   callgrind.sh BENCH_BINARY OUTDIR [N1 N2]
#
# The figures also go to OUTDIR/callgrind.json, with the command, date and
# commit, for tools/testing/results/render.py.

set -eu
bin=$1
out=$2
n1=${3:-100000}
n2=${4:-600000}
top=$(cd "$(dirname "$0")/../../../.." && pwd)

mkdir -p "$out"
json=$out/callgrind.json
commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
compiler=$(${CC:-gcc} --version 2>/dev/null | head -n 1)
{
	printf '{\n  "benchmark": "core-callgrind",\n'
	printf '  "command": "make -C tools/testing/bench/core bench-core-callgrind CG_N1=%s CG_N2=%s",\n' \
	       "$n1" "$n2"
	printf '  "date": "%s",\n  "commit": "%s",\n' \
	       "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit"
	printf '  "host": "kmod/ars_core.c at -O2, %s",\n' "$compiler"
	printf '  "n1": %s,\n  "n2": %s,\n  "results": [' "$n1" "$n2"
} >"$json.tmp"
sep=

# total Ir, and Ir in ars_core.c's functions, of one run
count() {
	f="$out/callgrind.$1.$2.$3"
	valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$bin" -c -m "$1" -w "$2" -n "$3" >/dev/null 2>"$f.log"
	# one line per function and file: "Ir (pct) file:function [object]",
	# where "( 7.79%)" is two fields; the core's functions are ars_*,
	# wherever their inlined lines come from, and bench_steer; gcc may
	# suffix them (.constprop.0, .isra.0)
	callgrind_annotate --auto=no --inclusive=no --threshold=100 "$f" |
	awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
		{
			for (i = 2; i <= NF && i <= 4; i++)
				if ($i ~ /:(ars_[a-z0-9_.]+|bench_steer[a-z0-9_.]*)$/) {
					gsub(",", "", $1); core += $1; break
				}
		}
		END { printf "%d %d\n", total, core }'
}

status=0
for mode in quality random; do
	for w in continue new mixed; do
		set -- $(count $mode $w "$n1") $(count $mode $w "$n2")
		awk -v t1="$1" -v c1="$2" -v t2="$3" -v c2="$4" -v n1="$n1" \
		    -v n2="$n2" -v m="flowlet-$mode" -v w="$w" -v sep="$sep" \
		    -v json="$json.tmp" 'BEGIN {
			loop = (t2 - t1) / (n2 - n1)
			core = (c2 - c1) / (n2 - n1)
			printf "%-16s %-8s %.1f instructions/packet in the " \
			       "core (%.1f with the loop)\n", m, w, core, loop
			printf "%s\n    { \"mode\": \"%s\", \"workload\": \"%s\", " \
			       "\"core\": %.1f, \"loop\": %.1f }", sep, m, w,
			       core, loop >>json
			exit w == "continue" && core > 150
		}' || status=1
		sep=,
	done
done
printf '\n  ]\n}\n' >>"$json.tmp"
mv "$json.tmp" "$json"
[ $status -eq 0 ] || echo "over the target of 150 instructions/packet" >&2
exit $status
