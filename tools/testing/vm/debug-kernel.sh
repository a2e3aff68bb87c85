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
# The build lives outside the clone, keyed by the config fragment, the
# source package's version and the compiler, so that a second make check on
# the same machine reuses it and several clones share it:
#
#   $ARS_KCACHE/builds/<key>/src       the unpacked source
#   $ARS_KCACHE/builds/<key>/obj       the O= tree: `make KVER=...` builds
#                                      ars.ko against it
#   $ARS_KCACHE/builds/<key>/build     -> obj
#   $ARS_KCACHE/builds/<key>/{vmlinuz,config,System.map,cmdline,
#                             kernelrelease}
#   $ARS_KCACHE/builds/<key>/modules   what modules_install put in
#                                      lib/modules/KVER (with build -> obj)
#   $ARS_KCACHE/KVER -> builds/<key>   how vm-run.sh and the Makefile find it
#
# ARS_KCACHE defaults to /var/cache/ars/kernel.  The build runs at nice 10
# with one job per CPU (ARS_KJOBS); its log is obj/build.log.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${ARS_KCACHE:-/var/cache/ars/kernel}
frag=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz
srcpkg=linux-source-6.12
# Bump when the recipe below changes what gets built.
recipe=1
# Appended by vm-run.sh to the kernel command line of this kernel.
cmdline="panic_on_warn=1"

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

log() {
	echo "debug-kernel: $*" >&2
}

cache_key() {
	local ver

	ver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
		die "$srcpkg is not installed (make deps)"
	{
		echo "recipe $recipe"
		echo "$ver"
		gcc --version | head -n 1
		cat "$frag"
	} | sha256sum | cut -c1-12
}

kmake() {
	nice -n 10 make -s -C "$dir/src" O="$dir/obj" ARCH=x86_64 "$@"
}

unpack() {
	[ -f "$dir/src/Makefile" ] && return 0
	[ -r "$tarball" ] || die "cannot read $tarball (make deps)"
	log "unpacking $tarball"
	rm -rf "$dir/src.tmp"
	mkdir -p "$dir/src.tmp"
	tar -C "$dir/src.tmp" -xJf "$tarball"
	mv "$dir/src.tmp/$srcpkg" "$dir/src"
	rmdir "$dir/src.tmp"
}

# Every line of the fragment must be in the final .config as written.
check_config() {
	local line sym bad=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$dir/obj/.config" && continue ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$dir/obj/.config" || continue ;;
		*) continue ;;
		esac
		echo "debug-kernel: did not stick: $line" \
			"(got: $(grep -E "^(# )?${line#\# }" "$dir/obj/.config" |
				head -n 1 || echo nothing))" >&2
		bad=1
	done <"$frag"
	return $bad
}

configure() {
	[ -f "$dir/obj/.config" ] && return 0
	log "configuring in $dir/obj"
	mkdir -p "$dir/obj"
	kmake tinyconfig >/dev/null
	(cd "$dir/obj" && "$dir/src/scripts/kconfig/merge_config.sh" -m \
		-O . .config "$dir/src/kernel/configs/kvm_guest.config" \
		"$frag" >/dev/null)
	kmake olddefconfig
	check_config || {
		mv "$dir/obj/.config" "$dir/obj/.config.rejected"
		die "config fragment $frag does not apply (see above)"
	}
}

# The time it took goes to obj/build.time: wall, user and system seconds.
compile() {
	local jobs=${ARS_KJOBS:-$(nproc)} rc=0 t TIMEFORMAT='%0R %0U %0S'

	log "building in $dir/obj with $jobs jobs (log: $dir/obj/build.log)"
	{ time kmake -j"$jobs" all >"$dir/obj/build.log" 2>&1 || rc=$?; } \
		2>"$dir/obj/build.time"
	if [ $rc -ne 0 ]; then
		tail -n 30 "$dir/obj/build.log" >&2
		die "kernel build failed, see $dir/obj/build.log"
	fi
	read -r -a t <"$dir/obj/build.time"
	log "built in ${t[0]} s (CPU: ${t[1]} s user, ${t[2]} s system)"
}

install_kernel() {
	local kver=$1 mods=$dir/root/lib/modules/$1

	rm -rf "$dir/root"
	kmake INSTALL_MOD_PATH="$dir/root" modules_install >/dev/null
	ln -sfn "$dir/obj" "$mods/build"
	rm -f "$mods/source"
	ln -sfn "root/lib/modules/$kver" "$dir/modules"
	ln -sfn obj "$dir/build"
	echo "$kver" >"$dir/kernelrelease"
	cp "$dir/obj/arch/x86/boot/bzImage" "$dir/vmlinuz"
	cp "$dir/obj/.config" "$dir/config"
	cp "$dir/obj/System.map" "$dir/System.map"
	echo "$cmdline" >"$dir/cmdline"
	touch "$dir/installed"
}

# Point $cache/KVER at this build, atomically.
publish() {
	local kver=$1

	ln -sfn "builds/$key" "$cache/$kver.tmp"
	mv -T "$cache/$kver.tmp" "$cache/$kver"
}

build() {
	local kver start

	start=$(date +%s)
	mkdir -p "$dir"
	# Concurrent runs (two clones' make check) build once.
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -f "$dir/installed" ]; then
		unpack
		configure
		compile
		kver=$(kmake kernelrelease)
		install_kernel "$kver"
		log "$kver ready in $(($(date +%s) - start)) s: $dir"
	fi
	kver=$(cat "$dir/kernelrelease")
	publish "$kver"
	echo "$kver"
}

main() {
	key=$(cache_key)
	dir=$cache/builds/$key
	case ${1:-} in
	"") build ;;
	-n)
		[ -f "$dir/installed" ] || exit 1
		cat "$dir/kernelrelease" ;;
	-p) echo "$dir" ;;
	*)
		echo "usage: $0 [-n | -p]" >&2
		exit 2 ;;
	esac
}

main "$@"
