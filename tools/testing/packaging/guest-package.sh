#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In the vm-run.sh guest, as root, what an operator does with the packages
# of make deb: dpkg -i both, DKMS builds ars.ko for the running kernel,
# modprobe, systemd-analyze verify, the unit's start and reload commands
# (run as the unit runs them: the guest has no systemd as PID 1) on a
# sample configuration, bad configurations, purge.
#
#   guest-package.sh INSTALL
#
# vm-package.sh has run dpkg -i on ars-dkms and ars-tools in an overlay
# of the host's root, the root this guest boots on, DKMS building for
# this kernel at the host's speed: INSTALL/upper
# is what the install wrote (a character device 0:0 is a file it removed),
# INSTALL/install.rc, .log and .start its result. This guest lays it over
# its root before the first test that needs the packages, and reports the
# install as its own. Nothing of it reaches the host's root.
#
# The guest's root is the host's, read-only, under a RAM overlay: dpkg,
# DKMS and the unit write there and nothing reaches the host. The kernel's
# headers are the host's /usr/src and /lib/modules/KVER/build, as on an
# operator's machine with linux-headers installed.
#
# Prints KTAP and "N passed, M failed"; exits 1 if anything failed.
set -u

inst=${1:?usage: guest-package.sh INSTALL}
kver=${ARS_KVER:?run me with vm-run.sh}
tmp=$(mktemp -d)
n=0
failed=0
unit=/lib/systemd/system/ars.service

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for line in "$@"; do
		echo "#   $line"
	done
}

# check NAME CMD...: ok when CMD succeeds; its output is shown if not.
check() {
	local name=$1

	shift
	if "$@" >"$tmp/out" 2>&1; then
		ok "$name"
	else
		not_ok "$name" "exit $?: $*" "$(tail -n 5 "$tmp/out" | tr '\n' '|')"
	fi
}

# The unit's commands of one kind (ExecStartPre, ExecStart, ExecReload),
# one a line, as systemd runs them: in order, each one must succeed.
unit_cmds() {
	sed -n "s/^$1=//p" "$unit"
}

# run_unit KIND...: run the commands of each KIND in turn; stop at the
# first that fails, as systemd fails the unit there. Output in $tmp/unit.
run_unit() {
	local kind cmd

	: >"$tmp/unit"
	for kind in "$@"; do
		while IFS= read -r cmd; do
			# shellcheck disable=SC2086 # a unit's command line
			$cmd >>"$tmp/unit" 2>&1 || return 1
		done < <(unit_cmds "$kind")
	done
}

start_unit() {
	run_unit ExecStartPre ExecStart
}

reload_unit() {
	run_unit ExecReload
}

# jq_check NAME JSON-FILE FILTER: ok when FILTER is true on the file.
jq_check() {
	if jq -e "$3" "$2" >/dev/null 2>&1; then
		ok "$1"
	else
		not_ok "$1" "jq '$3' on: $(head -c 400 "$2")"
	fi
}

snapshot() {
	arsctl -j show profile >"$tmp/$1.profile" 2>&1
	tc -j qdisc show >"$tmp/$1.qdisc" 2>&1
}

[ "$(cat /proc/sys/kernel/osrelease)" = "$kver" ] ||
	{ echo "Bail out! not running $kver"; exit 1; }
echo "TAP version 13"

# No ars.ko anywhere this kernel could load it from: the module that loads
# below is the one DKMS built.
if modinfo -F filename ars >"$tmp/out" 2>&1; then
	not_ok "no ars module before the packages" "found $(cat "$tmp/out")"
else
	ok "no ars module before the packages"
fi

# ---- Install: dpkg -i, DKMS building the module for the running kernel,
# done on the host (vm-package.sh); its writes go over this root here.
# apply_install UPPER: the install's files and directories, with their
# owners, modes and times, and its removals.
apply_install() {
	local f

	(cd "$1" && find . -type c) >"$tmp/removed"
	while IFS= read -r f; do
		f=${f#./}
		[ -z "$f" ] || rm -rf "/${f:?}"
	done <"$tmp/removed"
	(cd "$1" && find . -mindepth 1 ! -type c -print0 |
		tar --null --no-recursion -T - -cf -) | tar -C / -xpf -
}
start=$(cat "$inst/install.start" 2>/dev/null || echo 0)
cp "$inst/install.log" "$tmp/dpkg" 2>/dev/null
if [ "$(cat "$inst/install.rc" 2>/dev/null)" = 0 ] &&
   apply_install "$inst/upper" 2>"$tmp/apply"; then
	ok "dpkg -i ars-dkms ars-tools (in an overlay of this root, on the host)"
else
	not_ok "dpkg -i ars-dkms ars-tools" "$(tail -n 20 "$tmp/dpkg" | tr '\n' '|')" \
		"$(head -n 5 "$tmp/apply" 2>/dev/null | tr '\n' '|')"
fi
sed 's/^/# dpkg: /' "$tmp/dpkg" | grep -Ei 'building|install|error|sign' | head -20
if dkms status ars/0.1 -k "$kver" 2>&1 | grep -q ': installed'; then
	ok "dkms status: ars/0.1 installed for $kver"
else
	not_ok "dkms status: ars/0.1 installed for $kver" "$(dkms status 2>&1 | tr '\n' '|')"
fi
ko=$(modinfo -F filename ars 2>/dev/null)
built=$(ls /var/lib/dkms/ars/0.1/"$kver"/x86_64/module/ars.ko* 2>/dev/null)
if [[ $ko == /lib/modules/$kver/updates/dkms/ars.ko* ]] && [ -n "$built" ] &&
   [ "$(stat -c %Y "$built")" -ge "$start" ]; then
	ok "modprobe finds the module DKMS built: $ko"
else
	not_ok "modprobe finds the module DKMS built" "modinfo: $ko" "dkms: $built"
fi
check "modprobe ars" modprobe ars
check "the module is loaded (/sys/module/ars)" test -d /sys/module/ars
check "the unit passes systemd-analyze verify" \
	systemd-analyze verify "$unit"
check "ars.service is not enabled by the install" \
	test ! -e /etc/systemd/system/multi-user.target.wants/ars.service

# ---- The configuration as shipped changes nothing.
snapshot before
if start_unit && snapshot shipped &&
   cmp -s "$tmp/before.profile" "$tmp/shipped.profile" &&
   cmp -s "$tmp/before.qdisc" "$tmp/shipped.qdisc"; then
	ok "start with the shipped ars.conf and tc.conf: nothing changes"
else
	not_ok "start with the shipped configuration: nothing changes" \
		"$(tr '\n' '|' <"$tmp/unit")"
fi

# ---- A sample configuration, with the shipped sysctl snippet opted in.
ip link add ars-d1 type dummy && ip link add ars-d2 type dummy &&
	ip link set ars-d1 up && ip link set ars-d2 up
sed -i 's/^#net/net/' /etc/sysctl.d/60-ars.conf
sysctl -q -p /etc/sysctl.d/60-ars.conf
check "the shipped sysctl snippet, uncommented, sets hash policy 1" \
	test "$(sysctl -n net.ipv4.fib_multipath_hash_policy)" = 1
cat >/etc/ars/tc.conf <<'EOF'
# the sample of guest-package.sh
qdisc replace dev ars-d1 root handle 1: ars bandwidth 100mbit
qdisc replace dev ars-d2 root handle 1: ars bandwidth 200mbit
EOF
cat >/etc/ars/ars.conf <<'EOF'
# the sample of guest-package.sh
set mode flowlet-quality idle-time 500us sampling-interval 50us

set state on	# steer
EOF
if start_unit; then
	ok "start: the unit's ExecStartPre and ExecStart lines succeed"
else
	not_ok "start: the unit's commands succeed" "$(tr '\n' '|' <"$tmp/unit")"
fi
snapshot started
jq_check "arsctl -j show: state on, flowlet-quality, idle 500us, sampling 50us" \
	"$tmp/started.profile" '.state == true and .mode == "flowlet-quality"
	and .idle_time_ns == 500000 and .sampling_interval_ns == 50000'
jq_check "tc -j qdisc show: ars on ars-d1 at 100mbit, ars-d2 at 200mbit" \
	"$tmp/started.qdisc" '
	[.[] | select(.kind == "ars") | [.dev, .options.bandwidth_bits_per_s]]
	| sort == [["ars-d1", 100000000], ["ars-d2", 200000000]]'

# ---- Reload applies changes.
sed -i 's/idle-time 500us/idle-time 1ms/' /etc/ars/ars.conf
sed -i 's/200mbit/300mbit/' /etc/ars/tc.conf
if reload_unit; then
	ok "reload: the unit's ExecReload lines succeed"
else
	not_ok "reload: the unit's commands succeed" "$(tr '\n' '|' <"$tmp/unit")"
fi
snapshot reloaded
jq_check "after reload: idle-time 1ms, the rest kept" "$tmp/reloaded.profile" \
	'.state == true and .idle_time_ns == 1000000 and
	 .sampling_interval_ns == 50000'
jq_check "after reload: ars-d2 at 300mbit" "$tmp/reloaded.qdisc" '
	[.[] | select(.kind == "ars") | [.dev, .options.bandwidth_bits_per_s]]
	| sort == [["ars-d1", 100000000], ["ars-d2", 300000000]]'

# ---- A full ars.conf, reloaded twice: the kernel holds what it says.
full_snapshot() {
	{
		arsctl -j object show
		arsctl -j bind show
		arsctl -j interface show
		arsctl -j show profile
	} | jq -c . >"$tmp/$1.full"
}
cat >/etc/ars/ars.conf <<'EOF'
# a full ars.conf of guest-package.sh
set mode flowlet-quality idle-time 1ms sampling-interval 50us
object add fab mode flowlet-random idle-time 500us primary-threshold 6
object alternate add fab dev ars-d2
bind add prefix 10.8.0.0/16 object fab
bind add nhid 42 object fab
interface enable dev ars-d1
interface enable dev ars-d2
set state on
EOF
if reload_unit && full_snapshot full1 && reload_unit && full_snapshot full2 &&
   cmp -s "$tmp/full1.full" "$tmp/full2.full"; then
	ok "reload twice with objects, alternates, bindings, interfaces: both succeed, same state"
else
	not_ok "reload twice with a full ars.conf" "$(tr '\n' '|' <"$tmp/unit")" \
		"$(diff "$tmp/full1.full" "$tmp/full2.full" 2>&1 | tr '\n' '|')"
fi
jq -s . "$tmp/full2.full" >"$tmp/full2.json"
jq_check "... the kernel holds the file: fab, its alternate, 2 bindings, 2 interfaces" \
	"$tmp/full2.json" '
	(.[0] | map(.name) | sort == ["default", "fab"]) and
	(.[0][] | select(.name == "fab") | .mode == "flowlet-random" and
	 .idle_time_ns == 500000 and .primary_threshold_band == 6 and
	 (.alternates | map(.ifname)) == ["ars-d2"]) and
	(.[1] | map(.prefix // .nhid | tostring) | sort ==
	 ["10.8.0.0/16", "42"]) and
	(.[2] | map(.ifname) | sort == ["ars-d1", "ars-d2"]) and
	.[3].state == true and .[3].idle_time_ns == 1000000'
sed -i -e '/^object alternate/d' -e '/^bind add nhid/d' -e '/ars-d2$/d' \
	/etc/ars/ars.conf
if reload_unit && full_snapshot full3; then
	ok "reload of the file without a binding, an alternate and an interface"
else
	not_ok "reload of a changed file" "$(tr '\n' '|' <"$tmp/unit")"
fi
jq -s . "$tmp/full3.full" >"$tmp/full3.json"
jq_check "... they are gone from the kernel" "$tmp/full3.json" '
	(.[0][] | select(.name == "fab") | .alternates == []) and
	(.[1] | map(.prefix // .nhid | tostring) == ["10.8.0.0/16"]) and
	(.[2] | map(.ifname) == ["ars-d1"])'

# ---- Bad configurations fail the unit with file and line.
cp /etc/ars/ars.conf "$tmp/ars.conf.good"
cp /etc/ars/tc.conf "$tmp/tc.conf.good"
printf 'set idle-time 2ms\n\nset idle 3ms\n' >/etc/ars/ars.conf
sed -i 's/300mbit/400mbit/' /etc/ars/tc.conf
if reload_unit; then
	not_ok "a line 3 that does not parse fails the reload" "it succeeded"
elif grep -qx 'arsctl: /etc/ars/ars.conf:3: set: unknown keyword "idle"' \
	"$tmp/unit"; then
	ok "a line 3 that does not parse fails the reload, naming ars.conf:3"
else
	not_ok "a bad line fails with ars.conf:3" "$(tr '\n' '|' <"$tmp/unit")"
fi
snapshot bad
if cmp -s "$tmp/reloaded.profile" "$tmp/bad.profile" &&
   cmp -s "$tmp/reloaded.qdisc" "$tmp/bad.qdisc"; then
	ok "... and changes nothing: profile and qdiscs as before"
else
	not_ok "... and changes nothing" "$(diff "$tmp/reloaded.profile" \
		"$tmp/bad.profile" | tr '\n' '|')"
fi
cp "$tmp/tc.conf.good" /etc/ars/tc.conf
printf 'set ewma-shift 4\nset idle-time 5s\nset state off\n' >/etc/ars/ars.conf
if reload_unit; then
	not_ok "a value out of range on line 2 fails the reload" "it succeeded"
elif grep -q '^arsctl: /etc/ars/ars.conf:2: .*idle-time' "$tmp/unit"; then
	ok "a value out of range fails the reload's check, naming ars.conf:2: $(head -n 1 "$tmp/unit")"
else
	not_ok "a value out of range fails with ars.conf:2" "$(tr '\n' '|' <"$tmp/unit")"
fi
arsctl -j show profile >"$tmp/refused.profile"
jq_check "... nothing applied: ewma-shift not 4, state still on" \
	"$tmp/refused.profile" '.ewma_shift != 4 and .state == true'
cp "$tmp/ars.conf.good" /etc/ars/ars.conf
printf 'qdisc replace dev ars-d1 root handle 1: ars bandwidth 100mbit\nqdisc replace dev ars-nodev root ars\n' \
	>/etc/ars/tc.conf
if reload_unit; then
	not_ok "a bad tc.conf line 2 fails the reload" "it succeeded"
elif grep -q 'Command failed /etc/ars/tc.conf:2' "$tmp/unit"; then
	ok "a bad tc.conf line 2 fails the reload: Command failed /etc/ars/tc.conf:2"
else
	not_ok "a bad tc.conf line fails with tc.conf:2" "$(tr '\n' '|' <"$tmp/unit")"
fi

# ---- Purge: module, files and unit gone.
tc qdisc del dev ars-d1 root
tc qdisc del dev ars-d2 root
check "modprobe -r ars, once its qdiscs are gone" modprobe -r ars
dpkg -L ars-tools ars-dkms >"$tmp/files" 2>&1
if dpkg --purge ars-tools ars-dkms >"$tmp/dpkg" 2>&1; then
	ok "dpkg --purge ars-tools ars-dkms"
else
	not_ok "dpkg --purge" "$(tail -n 10 "$tmp/dpkg" | tr '\n' '|')"
fi
left=
while IFS= read -r f; do
	[ "$f" != /. ] || continue
	[ -d "$f" ] && [ "$(ls -A "$f")" ] && continue	# shared dirs
	[ -e "$f" ] && left="$left $f"
done <"$tmp/files"
for f in /lib/modules/"$kver"/updates/dkms/ars.ko* /var/lib/dkms/ars \
	 /usr/src/ars-0.1 /etc/ars "$unit" /usr/sbin/arsctl; do
	[ -e "$f" ] && left="$left $f"
done
if [ -z "$left" ] && ! modinfo ars >/dev/null 2>&1 &&
   ! dpkg -s ars-tools >/dev/null 2>&1 && ! dpkg -s ars-dkms >/dev/null 2>&1; then
	ok "after purge: no module for modprobe, no DKMS tree, no /etc/ars, no unit"
else
	not_ok "after purge: nothing left" "left:$left" "modinfo: $(modinfo -F filename ars 2>&1)"
fi

ip link del ars-d1
ip link del ars-d2
rm -rf "$tmp"
echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
