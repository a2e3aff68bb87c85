#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages of make deb as an operator uses them, in QEMU: for each
# given kernel, boot it without the tree's ars.ko and run guest-package.sh
# there on build/deb/*.deb (dpkg -i, DKMS, modprobe, the unit, purge).
#
#   vm-package.sh KVER...
#
# dpkg -i runs here, at the host's speed, in an overlay of this machine's
# root (the root the guest boots on): DKMS compiles the module there for
# the guest's kernel, and the guest starts from what the install wrote
# (guest-package.sh). Under emulation that compile took 460 s of CPU on
# 6.12, two thirds of the test, 23 min on 6.1.
#
# One kernel after the other; the caller holds the VM lock. Prints each
# guest's KTAP, then one line per kernel for its kernel log.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
status=0

# install_on_host KVER DIR: dpkg -i both packages of build/deb in an
# overlay of /, its writes in DIR/upper; the other kernels' build links
# hidden there, as on a machine with KVER's headers alone, so that DKMS
# builds for KVER.
# DIR/install.rc, .log and .start for the guest, which reports them.
install_on_host()
{
	local k=$1 d=$2

	rm -rf "$d"
	mkdir -p "$d/upper" "$d/work" "$d/root"
	date +%s >"$d/install.start"
	unshare --mount --propagation private /bin/bash -s "$k" "$d" \
		"$debs" >"$d/install.log" 2>&1 <<'EOF'
set -e
k=$1 d=$2 debs=$3 r=$2/root
mount -t overlay overlay \
	-o "lowerdir=/,upperdir=$d/upper,workdir=$d/work" "$r"
mount -t proc proc "$r/proc"
# No /sys, and /run empty: nothing in the chroot reaches the host's
# kernel or its daemons (udev, systemd).
mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/tmp"
mount -t tmpfs tmpfs "$r/run"
for b in "$r"/lib/modules/*/build; do
	[ "$b" = "$r/lib/modules/$k/build" ] || rm -f "$b"
done
# man-db's trigger would index every manual page: nothing of ars.
rm -f "$r/var/lib/man-db/auto-update"
cp "$debs"/ars-dkms_*.deb "$debs"/ars-tools_*_*.deb "$r/tmp/"
chroot "$r" sh -c 'dpkg -i /tmp/ars-dkms_*.deb /tmp/ars-tools_*_*.deb'
EOF
	echo $? >"$d/install.rc"
}

debs=$top/build/deb
if ! ls "$debs"/ars-dkms_*.deb "$debs"/ars-tools_*_*.deb >/dev/null 2>&1; then
	echo "not ok - no ars-dkms and ars-tools packages in $debs (make deb)"
	exit 1
fi

for k in "$@"; do
	out=$top/build/vm/$k/package
	rm -rf "$out" "$out.log"
	mkdir -p "$out"
	install_on_host "$k" "$out/install"
	"$top/tools/testing/vm/vm-run.sh" -k "$k" -o "$out" \
		-t "${ARS_VM_TIMEOUT:-3600}" -- \
		"$here/guest-package.sh" "$out/install" \
		>"$out.log" 2>&1
	rc=$?
	echo "# kernel $k"
	cat "$out.log"
	klog=$out/dmesg.txt
	[ -s "$klog" ] || klog=$out/console.log
	if [ -f "$out/status" ] &&
	   "$top/tools/testing/vm/check-kmsg.sh" "$klog" >/dev/null; then
		echo "ok - $k: kernel log clean after the packages' test"
	else
		echo "not ok - $k: kernel log or VM failure, see $out"
	fi
	[ $rc -eq 0 ] || status=1
done
exit $status
