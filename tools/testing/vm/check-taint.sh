#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Compare the kernel's taint (/proc/sys/kernel/tainted) before and after a
# run: a flag that appeared during it means the kernel saw something wrong
# (a WARN, an oops, a soft lockup, a bad page, a forced rmmod...), even
# when the report itself never reached the log (printk_ratelimit() drops
# it, as show_signal_msg() and WARN_ONCE() do to later occurrences).
#
# Usage: check-taint.sh BEFORE AFTER
#        the two values as /proc/sys/kernel/tainted prints them (decimal)
# Exit:  0 no new flag but the expected ones, 1 new flags (named on
#        stdout), 2 usage error or a value that is not a number.
#
# Expected: O and E, which loading ars.ko (out of tree, unsigned) sets.
# ARS_TAINT_IGNORE may name more flags to accept, as letters (e.g. "N"
# for a test that loads a test module on purpose).

set -eu

# The letters of the kernel's taint flags, bit 0 first (kernel/panic.c).
LETTERS=PFSRMBUDAWCIOELKXTNJ
EXPECTED="OE${ARS_TAINT_IGNORE:-}"

if [ $# -ne 2 ]; then
	echo "usage: $0 BEFORE AFTER" >&2
	exit 2
fi
for v in "$1" "$2"; do
	case $v in
	'' | *[!0-9]*)
		echo "check-taint: not a taint value: '$v'" >&2
		exit 2
		;;
	esac
done

new=$(($2 & ~$1))
bad=
i=0
while [ "$new" -ne 0 ]; do
	if [ $((new & 1)) -ne 0 ]; then
		l=$(printf '%s' "$LETTERS" | cut -c$((i + 1)))
		[ -n "$l" ] || l="bit $i"
		case $EXPECTED in
		*"$l"*) [ ${#l} -eq 1 ] || bad="$bad $l" ;;
		*) bad="$bad $l" ;;
		esac
	fi
	new=$((new >> 1))
	i=$((i + 1))
done
if [ -n "$bad" ]; then
	echo "check-taint: the kernel was tainted during the run ($1 -> $2):$bad"
	exit 1
fi
exit 0
