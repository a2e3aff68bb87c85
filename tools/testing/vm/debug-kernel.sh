#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel of make check (KASAN, kmemleak, lockdep, ...) from
# Debian's linux-source-6.12, or find it already built, and print its
# release on stdout.
#
#   debug-kernel.sh          build if needed; print KVER
#   debug-kernel.sh -n       print KVER if the kernel is built, else fail
#   debug-kernel.sh -p       print the cache directory it uses (built or not)
#
# The config is tinyconfig + kernel/configs/kvm_guest.config +
# debug-kernel.config, each line of which is checked after olddefconfig.
# Builds live outside the clone, so that a second make check on the same
# machine reuses them and several clones share them:
#
#   $ARS_KCACHE/tree-<srcver>/src     the unpacked source, one per version
#   $ARS_KCACHE/tree-<srcver>/obj     its O= tree, for the last config
#                                     built there (obj/.ars-key): a new
#                                     config rebuilds only what it changes
#   $ARS_KCACHE/builds/<key>/         a kernel, keyed by the fragment, the
#                                     source package's version and the
#                                     compiler: vmlinuz, config,
#                                     System.map, cmdline, kernelrelease,
#                                     modules (lib/modules/KVER), build
#                                     (-> the obj tree, while it has this
#                                     config: `make KVER=...` builds ars.ko
#                                     against it)
#   $ARS_KCACHE/KVER -> builds/<key>  how vm-run.sh and the Makefile find it
#
# ARS_KCACHE defaults to /var/cache/ars/kernel.  The build runs at nice 10
# with one job per CPU (ARS_KJOBS); its log is obj/build.log, its time
# obj/build.time (wall, user and system seconds).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${ARS_KCACHE:-/var/cache/ars/kernel}
frag=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz
srcpkg=linux-source-6.12
# Bump when the recipe below changes what gets built.
recipe=1
# Appended by vm-run.sh to the kernel command line of this kernel.
# pci=noacpi: the PCI interrupt routing comes from the BIOS's table, not
# from the DSDT's _PRT, which this kernel's AML interpreter (KASAN,
# lockdep, under TCG) runs for longer than ACPICA's 30 s loop limit, once
# per virtio device: a minute of every boot, for "no GSI" in the end.
cmdline="panic_on_warn=1 pci=noacpi"

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

log() {
	echo "debug-kernel: $*" >&2
}

cache_key() {
	{
		echo "recipe $recipe"
		echo "$ver"
		gcc --version | head -n 1
		cat "$frag"
	} | sha256sum | cut -c1-12
}

kmake() {
	nice -n 10 make -s -C "$src" O="$obj" ARCH=x86_64 "$@"
}

unpack() {
	[ -f "$src/Makefile" ] && return 0
	[ -r "$tarball" ] || die "cannot read $tarball (make deps)"
	log "unpacking $tarball"
	rm -rf "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" -xJf "$tarball"
	mv "$src.tmp/$srcpkg" "$src"
	rmdir "$src.tmp"
}

# Every line of the fragment must be in the final .config as written.
check_config() {
	local line sym bad=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$obj/.config" && continue ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$obj/.config" || continue ;;
		*) continue ;;
		esac
		echo "debug-kernel: did not stick: $line" \
			"(got: $(grep -E "^(# )?${line#\# }" "$obj/.config" |
				head -n 1 || echo nothing))" >&2
		bad=1
	done <"$frag"
	return $bad
}

# The tree's config, for this key. What a new config changes, the next
# build rebuilds: kbuild tracks the CONFIG_ symbols of every object.
configure() {
	[ "$(cat "$obj/.ars-key" 2>/dev/null)" != "$key" ] || return 0
	log "configuring in $obj"
	mkdir -p "$obj"
	rm -f "$obj/.ars-key"
	kmake tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m \
		-O . .config "$src/kernel/configs/kvm_guest.config" \
		"$frag" >/dev/null)
	kmake olddefconfig
	check_config || {
		mv "$obj/.config" "$obj/.config.rejected"
		die "config fragment $frag does not apply (see above)"
	}
	echo "$key" >"$obj/.ars-key"
}

compile() {
	local jobs=${ARS_KJOBS:-$(nproc)} rc=0 t TIMEFORMAT='%0R %0U %0S'

	log "building in $obj with $jobs jobs (log: $obj/build.log)"
	{ time kmake -j"$jobs" all >"$obj/build.log" 2>&1 || rc=$?; } \
		2>"$obj/build.time"
	if [ $rc -ne 0 ]; then
		tail -n 30 "$obj/build.log" >&2
		die "kernel build failed, see $obj/build.log"
	fi
	read -r -a t <"$obj/build.time"
	log "built in ${t[0]} s (CPU: ${t[1]} s user, ${t[2]} s system)"
}

install_kernel() {
	local kver=$1 mods=$dir/root/lib/modules/$1

	mkdir -p "$dir"
	rm -rf "$dir/root"
	kmake INSTALL_MOD_PATH="$dir/root" modules_install >/dev/null
	ln -sfn "$obj" "$mods/build"
	rm -f "$mods/source"
	ln -sfn "root/lib/modules/$kver" "$dir/modules"
	ln -sfn "$obj" "$dir/build"
	echo "$kver" >"$dir/kernelrelease"
	cp "$obj/arch/x86/boot/bzImage" "$dir/vmlinuz"
	cp "$obj/.config" "$dir/config"
	cp "$obj/System.map" "$dir/System.map"
	echo "$cmdline" >"$dir/cmdline"
	touch "$dir/installed"
}

# Point $cache/KVER at this build, atomically.
publish() {
	local kver=$1

	ln -sfn "builds/$key" "$cache/$kver.tmp"
	mv -T "$cache/$kver.tmp" "$cache/$kver"
}

# Built, and its tree still has its config.
built() {
	[ -f "$dir/installed" ] &&
	[ "$(cat "$obj/.ars-key" 2>/dev/null)" = "$key" ]
}

build() {
	local kver start

	start=$(cut -d. -f1 /proc/uptime)	# never stepped, unlike date +%s
	mkdir -p "$tree"
	# Concurrent runs (two clones' make check) build once.
	exec 9>"$tree/.lock"
	flock 9
	if ! built; then
		rm -f "$dir/installed"
		unpack
		configure
		compile
		kver=$(kmake kernelrelease)
		install_kernel "$kver"
		log "$kver ready in $(($(cut -d. -f1 /proc/uptime) - start)) s: $dir"
	fi
	kver=$(cat "$dir/kernelrelease")
	# Not part of the build: a kernel from the cache gets the current one.
	[ "$(cat "$dir/cmdline" 2>/dev/null)" = "$cmdline" ] ||
		echo "$cmdline" >"$dir/cmdline"
	publish "$kver"
	echo "$kver"
}

main() {
	ver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
		die "$srcpkg is not installed (make deps)"
	key=$(cache_key)
	dir=$cache/builds/$key
	tree=$cache/tree-$ver
	# A link to a tree elsewhere is followed: kbuild remembers paths.
	[ ! -L "$tree" ] || tree=$(readlink -f "$tree")
	src=$tree/src
	obj=$tree/obj
	case ${1:-} in
	"") build ;;
	-n)
		built || exit 1
		cat "$dir/kernelrelease" ;;
	-p) echo "$dir" ;;
	*)
		echo "usage: $0 [-n | -p]" >&2
		exit 2 ;;
	esac
}

main "$@"
