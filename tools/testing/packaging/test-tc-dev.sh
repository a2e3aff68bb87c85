#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The udev rule's helper (packaging/ars-tc-dev) and ars-mq-setup, on the
# host, with a fake tc and a fake ip on PATH: which tc -b lines each gives
# tc for a device, nothing else. The rule itself is checked for what udev
# would run (udevadm verify, where udev has it). Nothing touches the
# machine's devices.
#
#   test-tc-dev.sh
#
# Prints KTAP and "N passed, M failed"; exits 1 if anything failed.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tools/testing/ktap.sh"

# A tc that records its arguments and the batch it was given, and shows
# $tmp/root.DEV as DEV's root qdisc (no file: the default, handle 0:); an
# ip that
# prints what "ip -o -d link show dev DEV" prints, with $tmp/txq.DEV
# transmit queues (no file: no such device).
mkdir "$tmp/bin"
cat >"$tmp/bin/tc" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE/tc.args"
[ "$*" != "-b -" ] || cat >>"$FAKE/tc.batch"
case $* in
"qdisc show dev "*" root")
	set -- $*
	if [ -r "$FAKE/root.$4" ]; then
		echo "qdisc $(cat "$FAKE/root.$4") root refcnt 2"
	else
		echo "qdisc mq 0: root"
	fi ;;
esac
exit "${FAKE_TC_RC:-0}"
EOF
cat >"$tmp/bin/ip" <<'EOF'
#!/bin/sh
dev=$6
[ -r "$FAKE/txq.$dev" ] || {
	echo "Device \"$dev\" does not exist." >&2
	exit 1
}
echo "2: $dev: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9000 addrgenmode eui64 numtxqueues $(cat "$FAKE/txq.$dev") numrxqueues 8 gso_max_size 65536 gso_max_segs 65535"
EOF
chmod +x "$tmp/bin/tc" "$tmp/bin/ip"
export FAKE=$tmp PATH="$tmp/bin:$PATH"
echo 8 >"$tmp/txq.eth1"
echo 1 >"$tmp/txq.bond0"

# run PROG ARGS...: PROG from packaging/ with @SYSCONFDIR@ as make install
# makes it, its status in $rc, its stderr in $tmp/err, tc's record fresh.
run() {
	local p=$tmp/$1

	sed -e 's|@SYSCONFDIR@|/etc|g' "$top/packaging/$1" >"$p"
	chmod +x "$p"
	shift
	rm -f "$tmp/tc.args" "$tmp/tc.batch"
	"$p" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect WHAT WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "want: $(printf '%s' "$2" | tr '\n' '|')" \
			"got:  $(printf '%s' "$3" | tr '\n' '|')"
	fi
}

# ars-mq-setup: 8 queues, and one.
run ars-mq-setup -n eth1 bandwidth 25gbit
want="qdisc replace dev eth1 root handle 1: mq"
for i in 1 2 3 4 5 6 7 8; do
	want="$want
qdisc replace dev eth1 parent 1:$i handle 100$i: ars bandwidth 25gbit
qdisc replace dev eth1 parent 100$i:1 handle 200$i: fq_codel"
done
expect "ars-mq-setup -n, 8 queues: mq, ars per queue, fq_codel under each" \
	"0 $want" "$rc $(cat "$tmp/out")"
[ ! -e "$tmp/tc.args" ]
expect "ars-mq-setup -n runs no tc" 0 $?

run ars-mq-setup eth1 bandwidth 25gbit
expect "ars-mq-setup applies the same lines with tc -b -, over the default mq" \
	"0 qdisc show dev eth1 root|-b - $want" \
	"$rc $(paste -sd '|' "$tmp/tc.args") $(cat "$tmp/tc.batch")"

echo "mq 1:" >"$tmp/root.eth1"
run ars-mq-setup eth1 bandwidth 25gbit
expect "ars-mq-setup over its own mq 1: replaces, deletes nothing" \
	"0 qdisc show dev eth1 root|-b -" "$rc $(paste -sd '|' "$tmp/tc.args")"

echo "ars 1:" >"$tmp/root.eth1"
run ars-mq-setup eth1 bandwidth 25gbit
expect "ars-mq-setup over ars at the root (handle 1:): deletes it first" \
	"0 qdisc show dev eth1 root|qdisc del dev eth1 root|-b -" \
	"$rc $(paste -sd '|' "$tmp/tc.args")"

run ars-mq-setup -n -l "fq limit 1000" bond0
expect "ars-mq-setup -n, one queue, -l fq: ars at the root" \
	"0 qdisc replace dev bond0 root handle 1: ars
qdisc replace dev bond0 parent 1:1 handle 2: fq limit 1000" \
	"$rc $(cat "$tmp/out")"

run ars-mq-setup -n -l none bond0 interval 1ms
expect "ars-mq-setup -l none: ars's own FIFO" \
	"0 qdisc replace dev bond0 root handle 1: ars interval 1ms" \
	"$rc $(cat "$tmp/out")"

echo 12 >"$tmp/txq.eth2"
run ars-mq-setup -n eth2
expect "ars-mq-setup: queue 10 is class 1:a, hex as tc reads it" \
	"qdisc replace dev eth2 parent 1:a handle 100a: ars
qdisc replace dev eth2 parent 100a:1 handle 200a: fq_codel" \
	"$(grep -E 'parent (1:a|100a:1) ' "$tmp/out")"

run ars-mq-setup nosuch0
expect "ars-mq-setup on a missing device fails, runs no tc" \
	"1 no tc" "$rc $([ -e "$tmp/tc.args" ] && echo tc || echo no tc)"

# ars-tc-dev: the lines of a tc.conf naming the device, nothing else.
cat >"$tmp/tc.conf" <<'EOF'
# a comment naming dev eth1
qdisc replace dev eth1 root handle 1: mq
qdisc replace dev eth10 root handle 1: ars
qdisc replace dev eth1 parent 1:1 handle 1001: ars bandwidth 25gbit # why

  qdisc replace dev bond0 root handle 1: ars
filter add dev eth1 egress protocol ip flower dst_ip 10.0.0.1 action pass
EOF
export ARS_TC_CONF=$tmp/tc.conf
run ars-tc-dev eth1
expect "ars-tc-dev eth1: its three lines, in order, to tc -b -" \
	"0 -b - qdisc replace dev eth1 root handle 1: mq
qdisc replace dev eth1 parent 1:1 handle 1001: ars bandwidth 25gbit 
filter add dev eth1 egress protocol ip flower dst_ip 10.0.0.1 action pass" \
	"$rc $(cat "$tmp/tc.args") $(cat "$tmp/tc.batch")"

run ars-tc-dev bond0
expect "ars-tc-dev bond0: an indented line" \
	"0   qdisc replace dev bond0 root handle 1: ars" \
	"$rc $(cat "$tmp/tc.batch")"

run ars-tc-dev eth3
expect "ars-tc-dev on a device tc.conf does not name: no tc, success" \
	"0 no tc" "$rc $([ -e "$tmp/tc.args" ] && echo tc || echo no tc)"

FAKE_TC_RC=1 run ars-tc-dev eth1
expect "ars-tc-dev: tc's failure is its own" 1 "$rc"

ARS_TC_CONF=$tmp/none run ars-tc-dev eth1
expect "ars-tc-dev without a tc.conf: no tc, success" \
	"0 no tc" "$rc $([ -e "$tmp/tc.args" ] && echo tc || echo no tc)"
unset ARS_TC_CONF

# The rule as installed: add events of net devices run the helper by
# the device's final name.
sed -e 's|@LIBEXECDIR@|/usr/libexec/ars|g' -e 's|@SYSCONFDIR@|/etc|g' \
	"$top/packaging/60-ars.rules.in" >"$tmp/60-ars.rules"
# shellcheck disable=SC2016 # udev's $name, not the shell's
expect "the rule: ACTION add, SUBSYSTEM net, RUN the helper with \$name" \
	'ACTION=="add", SUBSYSTEM=="net", RUN+="/usr/libexec/ars/ars-tc-dev $name"' \
	"$(grep -v '^#' "$tmp/60-ars.rules")"
if udevadm verify --help >/dev/null 2>&1; then
	if udevadm verify "$tmp/60-ars.rules" >"$tmp/err" 2>&1; then
		ok "udevadm verify 60-ars.rules"
	else
		not_ok "udevadm verify 60-ars.rules" "$(tr '\n' '|' <"$tmp/err")"
	fi
else
	# Debian 12's systemd (252) has no verify: the rule's text is
	# checked above, its syntax by udev only where udev can.
	echo "# udevadm has no verify here (systemd < 254): the rule's syntax is not checked"
fi

ktap_finish
