#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the vm-run.sh initramfs.  It only builds the real root and hands
# over to guest-run.sh:
#
#   host "/" --virtio-9p, read-only--> /mnt/lower --+
#                                                   +--overlay--> /newroot
#   tmpfs (upper + work dirs) -------> /mnt/rw -----+
#
# The guest thus runs the host's own binaries and sees the host's files
# (including the repo and /tmp), while every write lands in guest RAM.
#
# We switch_root rather than chroot a child: PID 1 shares its fs_struct with
# kthreadd, so after switch_root the kernel's usermode helpers (the modprobe
# run for module autoloading) also resolve paths in the real root.

export PATH=/bin

# Never return: PID 1 exiting panics the kernel, which is louder than needed.
die() {
	echo "ars-vm init: $*" >/dev/console
	echo "ars-vm init: $*" >/dev/kmsg
	poweroff -f
	sleep 1000
}

# /modules/order lists the modules after their dependencies (mkinitramfs.sh).
load_modules() {
	local m

	while read -r m; do
		insmod "/modules/$m.ko" || die "insmod $m failed"
	done </modules/order
}

# Probing is synchronous today; the retry only guards against a virtio
# device that shows up a little late.
mount_9p() {
	local i=0

	while ! mount -t 9p -o "$1" "$2" "$3" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || die "cannot mount 9p tag $2 on $3"
		sleep 0.1
	done
}

/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

load_modules
# Default caching (none): the host may change files while the guest runs,
# and cache=loose measured no faster here (exec under TCG dominates).
mount_9p ro,trans=virtio,version=9p2000.L,msize=512000 hostroot /mnt/lower
mount -t tmpfs -o mode=0755 tmpfs /mnt/rw
mkdir /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	overlay /newroot || die "cannot mount the overlay root"

# /run is a fresh tmpfs (the host's /run holds its own netns and sockets);
# it also carries busybox and the second stage across switch_root, which
# empties the initramfs.
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run
mkdir /newroot/run/ars-vm
cp /bin/busybox /guest-run.sh /newroot/run/ars-vm/
for fs in dev proc sys; do
	mount --move /$fs /newroot/$fs
done

exec switch_root /newroot /run/ars-vm/busybox sh /run/ars-vm/guest-run.sh
