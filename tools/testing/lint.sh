#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lint the kernel-side C: checkpatch.pl --no-tree (from the packaged 6.1
# source) on every file of kmod/ and tc-ext/, and sparse through the
# kernel's own build (C=2) for each given kernel, then layout-check.sh on
# that build's objects. One KTAP line per check.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
checkpatch=${CHECKPATCH:-/usr/src/linux-source-6.1/scripts/checkpatch.pl}
status=0

ok()
{
	if [ "$1" -eq 0 ]; then
		echo "ok - $2"
	else
		echo "not ok - $2"
		status=1
	fi
}

cd "$top" || exit 1
for f in kmod/*.[ch] tc-ext/*.[ch]; do
	[ -f "$f" ] || continue
	# compat.h exists to test kernel versions.
	ignore=
	[ "$f" != kmod/compat.h ] ||
		ignore="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
	# shellcheck disable=SC2086
	out=$("$checkpatch" --no-tree --terse --show-types $ignore \
		--file "$f" 2>&1)
	rc=$?
	[ $rc -eq 0 ] || echo "$out" | sed 's/^/# /'
	ok $rc "checkpatch $f"
done

for k in "$@"; do
	out=$(make --no-print-directory module-one KVER="$k" C=2 \
		CHECK="sparse -Wno-decl" 2>&1)
	rc=$?
	# The kernel's own headers are not ours to fix; everything of the
	# project (kmod/ and include/uapi/, through build/<version>/) is.
	warn=$(echo "$out" | grep -E '^/.*: (warning|error):' |
		awk -v top="$top/" 'index($0, top) == 1')
	[ -z "$warn" ] || echo "$warn" | sed 's/^/# /'
	[ $rc -eq 0 ] && [ -z "$warn" ]
	ok $? "sparse on $k"
	# That build's objects: no two units of kmod/ call each other.
	"$top/tools/testing/layout-check.sh" "$top/build/$k/kmod" ||
		status=1
done
exit $status
