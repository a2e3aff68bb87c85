#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Show that spec-check.py catches a disagreement between the spec and the
# header: each case edits a copy of one of them (never the real files) and
# expects spec-check to fail the named group. The unedited pair must pass.
#
# Prints KTAP lines and "N passed, M failed"; exits 1 if anything failed.

dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../../../.." && pwd)
SPEC=$root/Documentation/netlink/specs/ars.yaml
HEADER=$root/include/uapi/linux/ars.h
CHECK="python3 $dir/spec-check.py"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0

result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[ -n "$3" ] && echo "    # $3"
	fi
}

# mutate FILE SED-SCRIPT: a copy of FILE edited by SED-SCRIPT, in $copy.
mutate() {
	copy=$tmp/$(basename "$1")
	sed "$2" "$1" >"$copy"
	! cmp -s "$1" "$copy"
}

# expect_fail WHAT GROUP FILE SED-SCRIPT: spec-check fails exactly GROUP.
expect_fail() {
	what=$1 group=$2 file=$3
	if ! mutate "$file" "$4"; then
		result fail "$what" "the edit did not apply"
		return
	fi
	if [ "$file" = "$SPEC" ]; then
		$CHECK --spec "$copy" --header "$HEADER" >"$tmp/out" 2>&1
	else
		$CHECK --spec "$SPEC" --header "$copy" >"$tmp/out" 2>&1
	fi
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^not ok [0-9]* - $group\$" "$tmp/out"
	then
		result ok "$what: $group fails"
	else
		result fail "$what: $group fails" \
			"exit $rc: $(grep '^not ok\|#' "$tmp/out" | head -n 3 |
				     tr '\n' '|')"
	fi
	rm -f "$copy"
}

# expect_pass WHAT FILE SED-SCRIPT: spec-check passes the edited copy.
expect_pass() {
	what=$1 file=$2
	if ! mutate "$file" "$3"; then
		result fail "$what" "the edit did not apply"
		return
	fi
	if $CHECK --spec "$SPEC" --header "$copy" >"$tmp/out" 2>&1; then
		result ok "$what: passes"
	else
		result fail "$what: passes" \
			"$(grep '^not ok\|#' "$tmp/out" | head -n 3 | tr '\n' '|')"
	fi
	rm -f "$copy"
}

echo "KTAP version 1"

if $CHECK >"$tmp/out" 2>&1; then
	result ok "the spec and the header agree"
else
	result fail "the spec and the header agree" \
		"$(grep '^not ok\|#' "$tmp/out" | head -n 3 | tr '\n' '|')"
fi

expect_fail "header: attribute removed" "attribute set profile" "$HEADER" \
	'/^\tARS_A_PROFILE_IPV4,$/d'
expect_fail "header: attribute added" "attribute set flow" "$HEADER" \
	's/^\tARS_A_FLOW_PAD,$/\tARS_A_FLOW_WEIGHT,\n&/'
expect_fail "header: explicit value" "attribute set event" "$HEADER" \
	's/^\tARS_A_EVENT_FLOW,$/\tARS_A_EVENT_FLOW = 2,/'
expect_fail "header: command added" "commands" "$HEADER" \
	's/^\tARS_CMD_PATH_ASSIGN,$/&\n\tARS_CMD_FLOW_FLUSH,/'
expect_fail "header: commands swapped" "commands" "$HEADER" \
	's/^\tARS_CMD_STATS_GET,$/\tARS_CMD_STATS_RESET,/;
	 t; s/^\tARS_CMD_STATS_RESET,$/\tARS_CMD_STATS_GET,/'
expect_fail "header: mode added" "enum mode" "$HEADER" \
	's/^\tARS_MODE_FLOWLET_QUALITY,$/&\n\tARS_MODE_FLOWLET_HASH,/'
expect_fail "header: reason renamed" "enum reason" "$HEADER" \
	's/ARS_REASON_FAILOVER,/ARS_REASON_LINK_DOWN,/'
expect_fail "header: limit changed" "constants" "$HEADER" \
	's/^\(#define ARS_TABLE_SIZE_MAX\t*\)1048576/\12097152/'
expect_fail "header: group renamed" "mcast groups" "$HEADER" \
	's/"monitor"/"events"/'
expect_fail "header: family renamed" "family name and version" "$HEADER" \
	's/^\(#define ARS_GENL_NAME\t*\)"ars"/\1"ars2"/'
expect_fail "header: new define" "every constant of the header is in the spec" \
	"$HEADER" 's/^#define ARS_BAND_BEST.*/&\n#define ARS_BAND_WORST 0/'
expect_pass "header: alias of a name of the spec" "$HEADER" \
	's/^#define ARS_BAND_BEST.*/&\n#define ARS_A_FLOW_AGED ARS_A_FLOW_INDEX/'
expect_pass "header: alias of an implicit UNSPEC" "$HEADER" \
	's/^#define ARS_BAND_BEST.*/&\n#define ARS_A_FLOW_NONE ARS_A_FLOW_UNSPEC/'
expect_fail "header: alias of no name of the spec" \
	"every constant of the header is in the spec" "$HEADER" \
	's/^#define ARS_BAND_BEST.*/&\n#define ARS_A_FLOW_AGED ARS_A_FLOW_AGEING/'
expect_fail "header: new attribute set" \
	"every constant of the header is in the spec" "$HEADER" \
	's/^enum ars_cmd {$/enum { ARS_A_NEXTHOP_UNSPEC, ARS_A_NEXTHOP_ID };\n&/'

expect_fail "spec: enum entries swapped" "enum mode" "$SPEC" \
	's/name: packet-random$/name: packet-roundrobin-x/;
	 s/name: packet-roundrobin$/name: packet-random/;
	 s/name: packet-roundrobin-x$/name: packet-roundrobin/'
expect_fail "spec: attribute renamed" "attribute set profile" "$SPEC" \
	's/name: idle-time$/name: flowlet-gap/'
expect_fail "spec: explicit value" "attribute set port-info" "$SPEC" \
	'/name: qdisc$/a\        value: 5'
expect_fail "spec: constant changed" "constants" "$SPEC" \
	'/name: ewma-shift-max$/,/value:/s/value: 15/value: 16/'
expect_fail "spec: operation dropped" "commands" "$SPEC" \
	's/name: stats-reset$/name: stats-clear/'
expect_fail "spec: unknown attribute" "spec is self-consistent" "$SPEC" \
	's/^            - generation$/            - generations/'
expect_fail "spec: attribute set dropped" \
	"every constant of the header is in the spec" "$SPEC" \
	's/^    name: event$/    name: event\n    subset-of: flow/'

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
