#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the kernel-log gate, check-kmsg.sh, on a corpus:
#
#   kmsg-corpus/reports*.txt kernel reports (KASAN, kmemleak, SLUB, lockdep,
#                            RCU, UBSAN, refcount_t, sleeping in atomic
#                            context, WARN, Oops, hung tasks, lockups...,
#                            and in reports-quiet.txt those without a WARN
#                            or a trace): each one, alone, must fail the
#                            gate, which must print the lines that name it
#   kmsg-corpus/clean-*.txt  whole kernel logs of clean selftest runs, and
#                            the boot lines of a debug kernel: they must
#                            pass
#   kmsg-corpus/taint.txt    taint values before and after a run, and
#                            check-taint.sh's verdict on each
#
# plus the gate's usage errors and ARS_KMSG_IGNORE. Prints KTAP; exits 1 if
# anything failed.

dir=$(cd "$(dirname "$0")" && pwd)
gate=$dir/check-kmsg.sh
taint=$dir/check-taint.sh
corpus=$dir/kmsg-corpus
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
: >"$tmp/results"

result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2" >>"$tmp/results"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2" >>"$tmp/results"
		[ -z "$3" ] || printf '%s\n' "$3" | sed 's/^/    # /' >>"$tmp/results"
	fi
}

# Split the reports into $tmp/report.N (the lines, prefixes stripped),
# $tmp/want.N (the lines that name it) and $tmp/name.N.
awk -v d="$tmp" '
	/^## / { k++; print substr($0, 4) >(d "/name." k); next }
	/^#/ || !k { next }
	/^$/ { next }
	{
		line = substr($0, 3)
		print line >(d "/report." k)
		if (substr($0, 1, 2) == "> ")
			print line >(d "/want." k)
	}
	END { print k + 0 >(d "/count") }
' "$corpus"/reports*.txt

count=$(cat "$tmp/count")
i=1
while [ "$i" -le "$count" ]; do
	name=$(cat "$tmp/name.$i")
	"$gate" "$tmp/report.$i" >"$tmp/out" 2>&1
	rc=$?
	missing=
	if [ -s "$tmp/want.$i" ]; then
		# The gate prints "LINENO: LINE" for each line it flags.
		sed 's/^[0-9]*: //' "$tmp/out" >"$tmp/flagged"
		missing=$(grep -vxF -f "$tmp/flagged" "$tmp/want.$i")
	else
		missing="(no line marked in the corpus)"
	fi
	if [ "$rc" -eq 1 ] && [ -z "$missing" ]; then
		result ok "flags: $name"
	else
		result fail "flags: $name" "exit $rc; not flagged: $missing"
	fi
	i=$((i + 1))
done

# The whole corpus at once, too: one file, many reports.
sed -n 's/^[> ] //p' "$corpus"/reports*.txt >"$tmp/all"
"$gate" "$tmp/all" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && result ok "flags the reports all in one log" ||
	result fail "flags the reports all in one log" "exit $rc"

for f in "$corpus"/clean-*.txt; do
	"$gate" "$f" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ]; then
		result ok "passes: $(basename "$f") ($(wc -l <"$f") lines)"
	else
		result fail "passes: $(basename "$f")" \
			"exit $rc; $(head -n 5 "$tmp/out")"
	fi
done

# A clean log with one report in its middle: its lines flagged, no other.
f=$(ls "$corpus"/clean-*.txt | head -n 1)
{ head -n 100 "$f"; cat "$tmp/report.1"; tail -n +101 "$f"; } >"$tmp/mixed"
"$gate" "$tmp/mixed" >"$tmp/out" 2>&1
rc=$?
sed -n 's/^[0-9]*: //p' "$tmp/out" >"$tmp/flagged"
other=$(grep -vxF -f "$tmp/report.1" "$tmp/flagged")
missing=$(grep -vxF -f "$tmp/flagged" "$tmp/want.1")
if [ "$rc" -eq 1 ] && [ -z "$other$missing" ]; then
	result ok "flags a report in the middle of a clean log, and only it"
else
	result fail "flags a report in the middle of a clean log, and only it" \
		"exit $rc; flagged besides: $other; not flagged: $missing"
fi

# ARS_KMSG_IGNORE accepts what a test provokes on purpose, nothing else.
printf '%s\n' "[    1.0] WARNING: CPU: 0 PID: 1 at x.c:1 provoked+0x1/0x2" \
	>"$tmp/provoked"
ARS_KMSG_IGNORE='at x\.c:1 provoked' "$gate" "$tmp/provoked" >/dev/null 2>&1
rc1=$?
cat "$tmp/report.1" >>"$tmp/provoked"
ARS_KMSG_IGNORE='at x\.c:1 provoked' "$gate" "$tmp/provoked" >/dev/null 2>&1
rc2=$?
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 1 ] &&
	result ok "ARS_KMSG_IGNORE accepts the lines it names, only those" ||
	result fail "ARS_KMSG_IGNORE accepts the lines it names, only those" \
		"exit $rc1 with the provoked line alone, $rc2 with a report too"

# The taint before and after a run: new flags but O and E fail it, and
# are named.
while read -r before after want ignore rest; do
	case $before in '' | '#'*) continue ;; esac
	[ "$ignore" != - ] || ignore=
	out=$(ARS_TAINT_IGNORE=$ignore "$taint" "$before" "$after" 2>&1)
	rc=$?
	got=$(echo "$out" | sed -n 's/.*during the run ([0-9]* -> [0-9]*)://p' |
		sed 's/^ //; s/bit /bit/g; s/ /,/g')
	desc="taint $before -> $after${ignore:+ (ignoring $ignore)}: ${rest#-- }"
	if [ "$want" = ok ] && [ $rc -eq 0 ] && [ -z "$out" ]; then
		result ok "$desc"
	elif [ "$want" != ok ] && [ $rc -eq 1 ] && [ "$got" = "$want" ]; then
		result ok "$desc: $want"
	else
		result fail "$desc" "exit $rc, flags '$got', want $want; $out"
	fi
done <"$corpus/taint.txt"
"$taint" 12288 >/dev/null 2>&1
rc1=$?
"$taint" 12288 12288x >/dev/null 2>&1
rc2=$?
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] &&
	result ok "check-taint.sh: one value or a garbled one: exit 2" ||
	result fail "check-taint.sh: one value or a garbled one: exit 2" \
		"exit $rc1 with one value, $rc2 with a garbled one"

# Usage errors are not a clean log.
"$gate" >/dev/null 2>&1
rc1=$?
"$gate" "$tmp/does-not-exist" >/dev/null 2>&1
rc2=$?
[ "$rc1" -eq 2 ] && [ "$rc2" -eq 2 ] &&
	result ok "no file or an unreadable one: exit 2" ||
	result fail "no file or an unreadable one: exit 2" \
		"exit $rc1 without a file, $rc2 with a missing one"

echo "KTAP version 1"
echo "1..$n"
cat "$tmp/results"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
