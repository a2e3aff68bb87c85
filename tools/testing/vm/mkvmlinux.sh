#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the ELF vmlinux from a bzImage so that QEMU can boot it through its
# PVH entry point.  Under TCG the bzImage's own decompressor needs seconds
# (xz for Debian 6.1, zstd for 6.12) on every boot; the host does it once
# here in well under a second and vm-run.sh reuses the result.
#
# Usage: mkvmlinux.sh BZIMAGE OUTPUT
# Exit:  0 OUTPUT is up to date, 1 the image cannot be unpacked (vm-run.sh
#        then boots the bzImage as it is).
#
# The x86 boot protocol (2.08+) gives the payload's place in the header:
# setup_sects at 0x1f1 (0 means 4), payload_offset at 0x248 and
# payload_length at 0x24c, counted from the protected-mode code that follows
# the (setup_sects + 1) * 512 bytes of real-mode setup.  The kbuild appends
# the uncompressed size as 4 bytes to an xz or zstd payload; they are not
# part of the compressed stream (gzip carries the size in its own trailer).

set -eu

die() {
	echo "mkvmlinux: $*" >&2
	exit 1
}

# Unsigned little-endian integer of $3 bytes at offset $2 of file $1.
read_le() {
	local bytes v=0 i

	read -r -a bytes <<<"$(od -An -tu1 -j "$2" -N "$3" "$1")"
	[ ${#bytes[@]} -eq "$3" ] || die "$1 is too short"
	for ((i = $3 - 1; i >= 0; i--)); do
		v=$((v * 256 + bytes[i]))
	done
	echo $v
}

# Name of the tool that decompresses a stream starting with these bytes.
decompressor() {
	case $1 in
	"fd 37 7a 58 5a 00"*) echo "xz -dc" ;;
	"28 b5 2f fd"*) echo "zstd -qdc" ;;
	"1f 8b"*) echo "gzip -dc" ;;
	*) return 1 ;;
	esac
}

unpack() {
	local img=$1 out=$2 setup start len magic tool

	[ "$(od -An -c -j $((0x202)) -N 4 "$img" | tr -d ' ')" = HdrS ] ||
		die "$img is not a bzImage"
	[ "$(read_le "$img" $((0x206)) 2)" -ge $((0x208)) ] ||
		die "$img: boot protocol too old for payload fields"
	setup=$(read_le "$img" $((0x1f1)) 1)
	[ "$setup" -ne 0 ] || setup=4
	start=$(((setup + 1) * 512 + $(read_le "$img" $((0x248)) 4)))
	len=$(read_le "$img" $((0x24c)) 4)
	magic=$(od -An -tx1 -j "$start" -N 6 "$img" | tr -s ' ' | sed 's/^ //')
	tool=$(decompressor "$magic") || die "$img: unknown compression ($magic)"
	command -v "${tool%% *}" >/dev/null || die "${tool%% *} not installed"

	[ "${tool%% *}" = gzip ] || len=$((len - 4))
	tail -c +$((start + 1)) "$img" | head -c "$len" | $tool >"$out" ||
		die "$img: decompression failed"
	[ "$(od -An -c -N 4 "$out" | tr -d ' ')" = '177ELF' ] ||
		die "$img: payload is not an ELF file"
}

main() {
	local img out tmp

	[ $# -eq 2 ] || { echo "usage: $0 BZIMAGE OUTPUT" >&2; exit 2; }
	img=$1
	out=$2
	[ -r "$img" ] || die "cannot read $img"
	if [ -e "$out" ] && [ -z "$(find "$img" "$0" -newer "$out")" ]; then
		return 0
	fi

	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp "$out.tmp.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -f '$tmp'" EXIT
	unpack "$img" "$tmp"
	# Rename into place so a concurrent run never boots a half-written file.
	mv -f "$tmp" "$out"
}

main "$@"
