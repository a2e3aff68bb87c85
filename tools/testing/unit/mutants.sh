#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A mutation run of ars's core (kmod/ars_core.[ch], ars_step.[ch]) and port estimator
# (kmod/ars_est.c): each mutant of mutants.txt is applied to a copy of the
# sources, and the host checks run against it: the unit tests with kcheck
# (make -C tools/testing/unit run), then, if they all pass, the file's
# libFuzzer target for a fixed number of inputs from a fixed seed and the
# generated seed corpus, so that a run is reproducible. A mutant that any
# of them fails is caught; one that passes them all survived: either a
# check is missing or the mutant is equivalent (then say so in the test
# file, and leave it out of the list).
#
#   mutants.sh [-n] [-l LIST] [-j JOBS] [NAME...]
#
#   -n       only check that every mutant applies: its text is where the
#            list says (make unit runs this, so that a change to the core
#            cannot leave a mutant quietly invalid); nothing is built
#   -l LIST  the mutants (default: mutants.txt beside this script)
#   NAME     run only these mutants
#
# Environment: MUTANTS_FUZZ_SEED (1), MUTANTS_CORE_RUNS (2000) and
# MUTANTS_EST_RUNS (100000), the inputs of fuzz_core and fuzz_est;
# MUTANTS_MIN, the percentage to reach (95), else the exit status is 1.
#
# The sources are never written: the copy lives in a temporary directory,
# removed on exit, ^C included. make mutants runs this at nice 19.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
list=$here/mutants.txt
seed=${MUTANTS_FUZZ_SEED:-1}
core_runs=${MUTANTS_CORE_RUNS:-2000}
est_runs=${MUTANTS_EST_RUNS:-100000}
min=${MUTANTS_MIN:-95}

dry=
while getopts nl: o; do
	case $o in
	n) dry=1 ;;
	l) list=$OPTARG ;;
	*) sed -n 's/^#   //p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ars-mutants.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

src=$tmp/src
mkdir -p "$src/tools/testing"
cp -r "$top/kmod" "$top/include" "$src/"
for d in unit fuzz; do
	mkdir -p "$src/tools/testing/$d"
	find "$top/tools/testing/$d" -maxdepth 1 -type f \
		-exec cp {} "$src/tools/testing/$d/" \;
done
cp -r "$top/tools/testing/unit/spec-check" "$src/tools/testing/unit/" \
	2>/dev/null
mkdir -p "$tmp/pristine"
cp "$src/kmod/ars_core.c" "$src/kmod/ars_core.h" "$src/kmod/ars_est.c" \
	"$src/kmod/ars_step.c" "$src/kmod/ars_step.h" "$tmp/pristine/"

# apply FILE OLD NEW NTH: replace the NTH occurrence of OLD (\n and \t
# escapes) in FILE by NEW; fails when there is no such occurrence.
apply()
{
	python3 - "$@" <<-'EOF'
	import sys
	path, old, new, nth = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
	esc = lambda s: s.replace('\\n', '\n').replace('\\t', '\t')
	old, new, nth = esc(old), esc(new), int(nth or 1)
	text = open(path).read()
	at = -1
	for _ in range(nth):
	    at = text.find(old, at + 1)
	    if at < 0:
	        sys.exit(1)
	open(path, 'w').write(text[:at] + new + text[at + len(old):])
	EOF
}

# mutant LINE: NAME, FILE, OLD, NEW and NTH of a line of the list.
mutant()
{
	IFS=$'\x01' read -r name file old new nth <<<"${1// @@ /$'\x01'}"
}

# -n: each mutant applied to the copy and taken back, nothing built.
if [ -n "$dry" ]; then
	n=0 bad=0
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		mutant "$line"
		n=$((n + 1))
		if [ -z "$old" ] || ! apply "$src/kmod/$file" "$old" "$new" "$nth"; then
			echo "not ok - mutant $name: no '$old' in $file"
			bad=$((bad + 1))
			continue
		fi
		cp "$tmp/pristine/$file" "$src/kmod/$file"
	done <"$list"
	status=ok
	[ $bad -eq 0 ] || status="not ok"
	echo "$status - mutants.txt: $((n - bad)) of $n mutants apply"
	[ $bad -eq 0 ]
	exit
fi

# checks FILE: 0 when every check passes, 1 with what failed in $why, 2
# when the tests do not build (the mutant is not one: fix the list).
checks()
{
	local log=$tmp/log target runs corpus

	if ! make -s -C "$src/tools/testing/unit" build OUT="$tmp/unit" \
		>"$log" 2>&1; then
		why=$(grep -m1 'error:' "$log" | sed 's/.*error: //' | cut -c1-60)
		return 2
	fi
	if ! make -s -C "$src/tools/testing/unit" run OUT="$tmp/unit" \
		ARS_MUTANT="${name:-}" >"$log" 2>&1; then
		why=$(grep -E '^not ok' "$log" | head -n 3 |
			sed 's/^not ok [0-9]* - //' | paste -sd, -)
		[ -n "$why" ] || why=$(grep -m1 -E 'error|ERROR|runtime error' \
			"$log" | cut -c1-60)
		why="unit: ${why:-failed}"
		return 1
	fi
	case $1 in
	*ars_core.[ch] | *ars_step.[ch]) target=fuzz_core runs=$core_runs ;;
	*) target=fuzz_est runs=$est_runs ;;
	esac
	if ! make -s -C "$src/tools/testing/fuzz" OUT="$tmp/fuzz" \
		"$tmp/fuzz/$target" >"$log" 2>&1; then
		why="fuzz: build failed"
		return 1
	fi
	corpus=$tmp/corpus
	rm -rf "$corpus"
	mkdir -p "$corpus"
	if [ $target = fuzz_core ]; then
		"$tmp/fuzz/gen_seeds" "$corpus" >/dev/null
	else
		: >"$corpus/empty"
	fi
	if ! "$tmp/fuzz/$target" -seed="$seed" -runs="$runs" \
		-use_value_profile=1 -max_len=4096 \
		-artifact_prefix="$tmp/" "$corpus" >"$log" 2>&1; then
		why="$target: $(grep -m1 -E 'invariant failed|ERROR:|runtime error' \
			"$log" | sed 's/.*\(invariant failed\)/\1/' | cut -c1-70)"
		return 1
	fi
	return 0
}

make -s -C "$src/tools/testing/fuzz" OUT="$tmp/fuzz" "$tmp/fuzz/gen_seeds" \
	>/dev/null 2>&1 || { echo "mutants: gen_seeds does not build" >&2; exit 1; }
start=$(cut -d. -f1 /proc/uptime)	# SECONDS is the realtime clock
echo "# mutants of $list; fuzz seed $seed, $core_runs fuzz_core and" \
     "$est_runs fuzz_est inputs"
for f in ars_core.c ars_est.c ars_step.c; do
	if ! checks "$src/kmod/$f"; then
		echo "mutants: the checks fail without a mutant ($why)" >&2
		exit 1
	fi
done

total=0 caught=0 bad=0
survivors=()
# The list on its own descriptor: what the checks run (make, the fuzzers)
# must not read the rest of it from standard input.
while IFS= read -r -u 3 line; do
	case $line in '' | '#'*) continue ;; esac
	mutant "$line"
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	if [ -z "$new" ] && [ -z "$old" ] ||
	   ! apply "$src/kmod/$file" "$old" "$new" "$nth"; then
		echo "invalid   $name: no '$old' in $file"
		bad=$((bad + 1))
		continue
	fi
	checks "$src/kmod/$file"
	case $? in
	0)
		echo "SURVIVED  $name ($file)"
		survivors+=("$name")
		total=$((total + 1))
		;;
	1)
		echo "caught    $name ($why)"
		caught=$((caught + 1))
		total=$((total + 1))
		;;
	*)
		echo "invalid   $name: does not build ($why)"
		bad=$((bad + 1))
		;;
	esac
	# only this file: make then recompiles its objects alone
	cp "$tmp/pristine/$file" "$src/kmod/$file"
done 3<"$list"

pct=0
[ $total -eq 0 ] || pct=$((caught * 100 / total))
echo "# $caught of $total mutants caught ($pct%), $((total - caught))" \
     "survived${survivors[*]:+: ${survivors[*]}}; $bad invalid;" \
     "$(($(cut -d. -f1 /proc/uptime) - start)) s"
[ $bad -eq 0 ] && [ $total -gt 0 ] && [ $pct -ge "$min" ]
