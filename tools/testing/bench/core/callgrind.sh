#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per packet of the ars core, from callgrind: each mode runs
# twice, with N1 and N2 packets; the difference of the totals over N2 - N1
# cancels set-up and start-up. "loop" is the whole measured loop (with the
# benchmark's own PRNG and flow pick), "core" only the core's functions
# (ars_*, including what they inline from ars_core.h). The target of 150
# applies to the core.
#
#   callgrind.sh BENCH_BINARY OUTDIR [N1 N2]

set -eu
bin=$1
out=$2
n1=${3:-100000}
n2=${4:-600000}

mkdir -p "$out"

# total Ir, and Ir in ars_core.c's functions, of one run
count() {
	f="$out/callgrind.$1.$2"
	valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$bin" -c -m "$1" -n "$2" >/dev/null 2>"$f.log"
	# one line per function: "Ir (pct) file:function [object]"; the
	# core's functions are ars_*, wherever their inlined lines come from
	callgrind_annotate --auto=no --inclusive=no --threshold=100 "$f" |
	awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
		$3 ~ /:ars_[a-z0-9_]+$/ { gsub(",", "", $1); core += $1 }
		END { printf "%d %d\n", total, core }'
}

status=0
for mode in quality random; do
	set -- $(count $mode "$n1") $(count $mode "$n2")
	awk -v t1="$1" -v c1="$2" -v t2="$3" -v c2="$4" -v n1="$n1" \
	    -v n2="$n2" -v m="flowlet-$mode" 'BEGIN {
		loop = (t2 - t1) / (n2 - n1); core = (c2 - c1) / (n2 - n1)
		printf "%-16s %.1f instructions/packet in the core " \
		       "(%.1f with the loop)\n", m, core, loop
		exit core > 150
	}' || status=1
done
[ $status -eq 0 ] || echo "over the target of 150 instructions/packet" >&2
exit $status
