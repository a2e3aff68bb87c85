#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages of make deb as an operator uses them, in QEMU: for each
# given kernel, boot it without the tree's ars.ko and run guest-package.sh
# there on build/deb/*.deb (dpkg -i, DKMS, modprobe, the unit, purge).
#
#   vm-package.sh KVER...
#
# One kernel after the other; the caller holds the VM lock. Prints each
# guest's KTAP, then one line per kernel for its kernel log.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
status=0

for k in "$@"; do
	out=$top/build/vm/$k/package
	rm -rf "$out" "$out.log"
	mkdir -p "$out"
	# DKMS compiles the module under emulation, on 6.1 for 6.12 (the
	# newest kernel) too: dpkg -i took 23 min of the 6.1 run, 9 min of
	# the 6.12 one, on a loaded machine.
	"$top/tools/testing/vm/vm-run.sh" -k "$k" -o "$out" \
		-t "${ARS_VM_TIMEOUT:-3600}" -- \
		"$here/guest-package.sh" "$top/build/deb" >"$out.log" 2>&1
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
