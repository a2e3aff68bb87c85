#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the tiny initramfs that vm-run.sh boots: static busybox, the two guest
# scripts, and the modules needed to mount the host's root over virtio-9p with
# an overlay on top.  The module list is derived from the kernel's own
# modules.dep/modules.builtin, so the same script serves kernels where virtio
# is modular (Debian 6.1) and where it is built in (Debian 6.12).
#
# Usage: mkinitramfs.sh [-f] KVER OUTPUT.cpio [MODDIR]
#   -f      rebuild even if OUTPUT is newer than all of its inputs
#   MODDIR  the kernel's modules, default /lib/modules/KVER
#
# The archive is an uncompressed newc cpio: it is only a few MB and the kernel
# unpacks it faster than it would decompress it under TCG.

set -eu

here=$(cd "$(dirname "$0")" && pwd)

# What the guest needs before it can see the host's root: the PCI transport
# for virtio, the 9p transport and filesystem, and overlayfs.
WANTED_MODULES="virtio_pci 9pnet_virtio 9p overlay"

usage() {
	echo "usage: $0 [-f] KVER OUTPUT.cpio [MODDIR]" >&2
	exit 2
}

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

# Module name as the kernel sees it: no directory, no .ko[.xz|.gz|.zst],
# and '-' and '_' are the same character.
modname() {
	local base=${1##*/}

	base=${base%%.ko*}
	echo "${base//-/_}"
}

find_busybox() {
	local bb

	for bb in /bin/busybox /usr/bin/busybox; do
		# The guest has no libc in the initramfs: only a static
		# busybox (package busybox-static) can run there.
		if [ -x "$bb" ] && ! LC_ALL=C ldd "$bb" >/dev/null 2>&1; then
			echo "$bb"
			return
		fi
	done
	die "no static busybox found (apt-get install busybox-static)"
}

# Fill dep_line[name] (the modules.dep line) and builtin[name] for one kernel.
load_module_db() {
	local moddir=$1 line

	declare -gA dep_line=() builtin=()
	while IFS= read -r line; do
		dep_line[$(modname "${line%%:*}")]=$line
	done <"$moddir/modules.dep"
	if [ -f "$moddir/modules.builtin" ]; then
		while IFS= read -r line; do
			builtin[$(modname "$line")]=1
		done <"$moddir/modules.builtin"
	fi
}

# Append the module file of $1 to load_order after all of its dependencies
# (depth first).  modules.dep lists a module's whole dependency closure with
# the innermost dependency last, so walking it backwards gives the same order
# that modprobe uses.
resolve() {
	local name=$1 line deps i

	[ -z "${visited[$name]:-}" ] || return 0
	visited[$name]=1
	if [ -n "${builtin[$name]:-}" ]; then
		return 0
	fi
	line=${dep_line[$name]:-}
	[ -n "$line" ] || die "module $name is neither in modules.dep nor built in"
	read -r -a deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		resolve "$(modname "${deps[i]}")"
	done
	load_order+=("${line%%:*}")
}

# busybox insmod only takes plain ELF objects, so unpack compressed modules.
copy_module() {
	local src=$1 dst=$2

	case "$src" in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*) die "unknown module format: $src" ;;
	esac
}

# True if $out is missing or older than any input it was built from.
is_stale() {
	local out=$1
	shift

	[ -e "$out" ] || return 0
	[ -n "$(find "$@" -newer "$out" -print -quit)" ]
}

pack() {
	local kver=$1 out=$2 bb=$3 root=$4 moddir=$5 path name

	mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" \
		"$root/newroot" "$root/mnt/lower" "$root/mnt/rw" "$root/modules"
	cp "$bb" "$root/bin/busybox"
	cp "$here/initramfs-init.sh" "$root/init"
	cp "$here/guest-run.sh" "$root/guest-run.sh"
	chmod 0755 "$root/init" "$root/guest-run.sh"

	load_module_db "$moddir"
	declare -gA visited=()
	load_order=()
	for name in $WANTED_MODULES; do
		resolve "$name"
	done
	: >"$root/modules/order"
	for path in "${load_order[@]}"; do
		name=$(modname "$path")
		copy_module "$moddir/$path" "$root/modules/$name.ko"
		echo "$name" >>"$root/modules/order"
	done

	# -R 0:0: the guest expects root-owned files whoever builds the image.
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
}

main() {
	local force='' kver out moddir bb tmp

	if [ "${1:-}" = "-f" ]; then
		force=1
		shift
	fi
	[ $# -eq 2 ] || [ $# -eq 3 ] || usage
	kver=$1
	out=$2
	moddir=${3:-/lib/modules/$kver}
	[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep not found"
	bb=$(find_busybox)

	if [ -z "$force" ] && ! is_stale "$out" "$0" "$here/initramfs-init.sh" \
		"$here/guest-run.sh" "$bb" "$moddir/modules.dep" \
		"$moddir/modules.builtin"; then
		return 0
	fi

	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp -d "$out.tmp.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	pack "$kver" "$tmp/initramfs.cpio" "$bb" "$tmp/root" "$moddir"
	# Rename into place so a concurrent run never boots a half-written file.
	mv -f "$tmp/initramfs.cpio" "$out"
	echo "mkinitramfs: built $out (modules: $(tr '\n' ' ' <"$tmp/root/modules/order"))" >&2
}

main "$@"
