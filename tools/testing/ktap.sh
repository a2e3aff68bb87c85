# SPDX-License-Identifier: GPL-2.0
#
# KTAP results for the host test scripts, sourced (POSIX sh). The caller
# sets $tmp to a directory of its own first. Results are kept until
# ktap_finish prints the plan, then them, then one count line, so that a
# test's own output never splits them:
#
#   ok NAME
#   not_ok NAME [DETAIL...]	each DETAIL a "# " line under the result
#   skip NAME REASON
#   ktap_finish			"N passed, M failed[, K skipped]"; returns 1
#				if anything failed

n=0
passed=0
failed=0
skipped=0
results=$tmp/ktap-results
: >"$results"

ok() {
	n=$((n + 1))
	passed=$((passed + 1))
	echo "ok $n - $1" >>"$results"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1" >>"$results"
	shift
	for line in "$@"; do
		echo "    # $line" >>"$results"
	done
}

skip() {
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n - $1 # SKIP $2" >>"$results"
}

ktap_finish() {
	echo "KTAP version 1"
	echo "1..$n"
	cat "$results"
	if [ $skipped -eq 0 ]; then
		echo "$passed passed, $failed failed"
	else
		echo "$passed passed, $failed failed, $skipped skipped"
	fi
	[ $failed -eq 0 ]
}
