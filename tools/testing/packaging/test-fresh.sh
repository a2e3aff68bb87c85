#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make && make install on a fresh Debian 12 that has only build-essential,
# the kernel headers, libmnl-dev and iproute2 (issue 35's goal), as root in
# a chroot without a network, so that nothing can be fetched: apt-get is a
# stub first in PATH that notes it was called.
#
#   test-fresh.sh KVER...
#
# The root is made once by mmdebstrap (minbase, those packages and the
# headers of each KVER, from this machine's apt sources) in
# $ARS_FRESH_ROOT (default /var/cache/ars/fresh-bookworm; 7 minutes and
# 830 MB the first time) and used read-only under an overlay, so that each
# run starts from the same fresh system. The build itself runs at native
# speed, about 30 s per kernel. Host only, needs root; nothing is
# installed on this machine and no module is loaded.
#
# Prints KTAP and "N passed, M failed"; exits 1 if anything failed.
set -u

top=$(cd "$(dirname "$0")/../../.." && pwd)
tmp=$(mktemp -d)
root=${ARS_FRESH_ROOT:-/var/cache/ars/fresh-bookworm}
mnt=$tmp/merged
. "$top/tools/testing/ktap.sh"

cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT

# The fresh root, made once: the packages of the goal and nothing else.
make_root() {
	local pkgs="build-essential,libmnl-dev,iproute2" k

	for k in "$@"; do
		pkgs="$pkgs,linux-headers-$k"
	done
	rm -rf "$root.tmp"
	mkdir -p "$(dirname "$root")"
	nice -n 19 mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
		bookworm "$root.tmp" /etc/apt/sources.list.d/debian.sources \
		>"$tmp/mmdebstrap" 2>&1 && mv "$root.tmp" "$root"
}

# in_root CMD: CMD by sh in the fresh root, without a network, with a clean
# environment and the apt-get stub first in PATH.
in_root() {
	unshare -n chroot "$mnt" /usr/bin/env -i HOME=/root \
		PATH=/noapt:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "$1"
}

if [ "$(id -u)" -ne 0 ]; then
	skip "make && make install on a fresh Debian 12" "needs root (chroot)"
	ktap_finish
	exit
fi
if [ ! -d "$root" ] && ! command -v mmdebstrap >/dev/null; then
	not_ok "a fresh Debian 12 root" "no $root and no mmdebstrap (make deps)"
	ktap_finish
	exit
fi
for k in "$@"; do
	[ -e "$root/lib/modules/$k/build/Makefile" ] || rm -rf "$root"
done
if [ ! -d "$root" ] && ! make_root "$@"; then
	not_ok "mmdebstrap a fresh Debian 12 root" \
		"$(tail -n 5 "$tmp/mmdebstrap" | tr '\n' '|')"
	ktap_finish
	exit
fi

mkdir -p "$tmp/upper" "$tmp/work" "$mnt"
if ! mount -t overlay overlay -o \
	"lowerdir=$root,upperdir=$tmp/upper,workdir=$tmp/work" "$mnt"; then
	not_ok "the fresh root under an overlay" "mount failed"
	ktap_finish
	exit
fi
mkdir -p "$mnt/noapt" "$mnt/root/ars"
printf '#!/bin/sh\ntouch /apt-called\nexit 1\n' >"$mnt/noapt/apt-get"
chmod +x "$mnt/noapt/apt-get"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -c) |
	tar -x -C "$mnt/root/ars"

# The premise: none of what the tree once needed beyond the goal's list.
extra=
for c in pkg-config git python3 qemu-system-x86_64 clang; do
	in_root "command -v $c" >/dev/null && extra="$extra $c"
done
if [ -z "$extra" ]; then
	ok "the fresh root has no pkg-config, git, python3, QEMU or clang"
else
	not_ok "the fresh root has only the goal's packages" "has:$extra"
fi

if in_root "cd /root/ars && make KVER='$*'" >"$tmp/make" 2>&1 &&
   [ ! -e "$mnt/apt-called" ]; then
	ok "make KVER='$*' in the fresh root, apt-get never called"
else
	not_ok "make in the fresh root" "$(tail -n 5 "$tmp/make" | tr '\n' '|')" \
		"apt-get called: $([ -e "$mnt/apt-called" ] && echo yes || echo no)"
fi
if in_root "cd /root/ars && make install KVER='$*'" >"$tmp/install" 2>&1 &&
   [ ! -e "$mnt/apt-called" ]; then
	ok "make install in the fresh root, apt-get never called"
else
	not_ok "make install in the fresh root" \
		"$(tail -n 5 "$tmp/install" | tr '\n' '|')"
fi
missing=
for f in usr/local/sbin/arsctl usr/lib/x86_64-linux-gnu/tc/q_ars.so \
	 usr/local/lib/systemd/system/ars.service etc/ars/ars.conf; do
	[ -s "$mnt/$f" ] || missing="$missing /$f"
done
for k in "$@"; do
	[ -s "$mnt/lib/modules/$k/extra/ars.ko" ] ||
		missing="$missing /lib/modules/$k/extra/ars.ko"
done
if [ -z "$missing" ]; then
	ok "installed: ars.ko for each kernel, arsctl, q_ars.so, the unit, /etc/ars"
else
	not_ok "installed files" "missing:$missing"
fi
# The installed arsctl runs (its libmnl is the root's).
if in_root "arsctl -V" >"$tmp/v" 2>&1 && grep -q '^arsctl ' "$tmp/v"; then
	ok "the installed arsctl runs: $(head -n 1 "$tmp/v")"
else
	not_ok "the installed arsctl runs" "$(head -n 3 "$tmp/v" | tr '\n' '|')"
fi

ktap_finish
