#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layout of kmod/: no two units call each other. For each pair of the
# module's object files (build/<version>/kmod/*.o, one kernel's build), the
# symbols each takes from the other; a pair where both take something
# fails. -v lists every one-way dependency too. One KTAP line.
set -u

verbose=
[ "${1:-}" != -v ] || { verbose=1; shift; }
dir=${1:?usage: layout-check.sh [-v] BUILD/KVER/kmod}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

cd "$dir" || exit 1
units=()
for o in *.o; do
	case $o in ars.o | *.mod.o) continue ;; esac
	u=${o%.o}
	units+=("$u")
	nm "$o" | awk 'NF == 3 && $2 ~ /^[TDBR]$/ { print $3 }' |
		sort -u >"$work/$u.def"
	nm "$o" | awk '$1 == "U" { print $2 }' | sort -u >"$work/$u.und"
done
[ ${#units[@]} -gt 1 ] || { echo "not ok - layout: no objects in $dir"; exit 1; }

mutual=0
for a in "${units[@]}"; do
	for b in "${units[@]}"; do
		[[ $a < $b ]] || continue
		ab=$(comm -12 "$work/$a.und" "$work/$b.def" | tr '\n' ' ')
		ba=$(comm -12 "$work/$b.und" "$work/$a.def" | tr '\n' ' ')
		if [ -n "$ab" ] && [ -n "$ba" ]; then
			echo "# $a <-> $b"
			echo "#   $a takes from $b: $ab"
			echo "#   $b takes from $a: $ba"
			mutual=$((mutual + 1))
		elif [ -n "$verbose" ]; then
			[ -z "$ab" ] || echo "# $a -> $b: $ab"
			[ -z "$ba" ] || echo "# $b -> $a: $ba"
		fi
	done
done
if [ $mutual -eq 0 ]; then
	echo "ok - layout: no two of ${#units[@]} units call each other"
else
	echo "not ok - layout: $mutual pairs of units call each other"
	exit 1
fi
