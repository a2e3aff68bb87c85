#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What building and installing ars needs, checked and never installed:
# make, make install and make deb run this instead of install-deps.sh, so
# that a router builds with a compiler, the kernel headers and libmnl, and
# gets none of the test bench (QEMU, ns-3, the kernel images) that make
# deps installs for make check, make demo and make sim.
#
#   check-build-deps.sh modules KVER...   the kernels' build trees
#   check-build-deps.sh tools             cc and libmnl
#   check-build-deps.sh deb               what dpkg-buildpackage needs
#
# Says what is missing, with the Debian package that has it, and exits 1;
# prints nothing and exits 0 when all is there.
set -u

missing=
need() {
	missing="$missing
  $1"
}

what=${1:-tools}
[ $# -gt 0 ] && shift

case $what in
modules)
	command -v cc >/dev/null 2>&1 || need "a C compiler (gcc: build-essential)"
	command -v make >/dev/null 2>&1 || need "make (build-essential)"
	if [ $# -eq 0 ]; then
		need "the headers of a supported kernel, 6.1 or 6.12, in /lib/modules/<version>/build (linux-headers-amd64 or linux-headers-6.12-amd64; KVER=<version> for another)"
	fi
	for k in "$@"; do
		b=
		for d in "/lib/modules/$k/build" "${ARS_KCACHE:-/var/cache/ars/kernel}/$k/build"; do
			[ -e "$d/Makefile" ] && { b=$d; break; }
		done
		[ -n "$b" ] || need "the headers of kernel $k in /lib/modules/$k/build (linux-headers-$k)"
	done
	;;
tools)
	command -v cc >/dev/null 2>&1 || need "a C compiler (gcc: build-essential)"
	# libmnl as the tools' Makefiles take it: pkg-config's flags if it
	# is there, else the compiler's default paths.
	# shellcheck disable=SC2046 # pkg-config's flags are words
	if command -v cc >/dev/null 2>&1 &&
	   ! printf '#include <libmnl/libmnl.h>\nint main(void) { return !mnl_socket_open(0); }\n' |
	     cc -x c -o /dev/null $(pkg-config --cflags libmnl 2>/dev/null) - \
		$(pkg-config --libs libmnl 2>/dev/null || echo -lmnl) >/dev/null 2>&1; then
		need "libmnl's headers and library (libmnl-dev)"
	fi
	;;
deb)
	for t in dpkg-buildpackage:dpkg-dev dpkg-parsechangelog:dpkg-dev \
		 dh:debhelper fakeroot:fakeroot lintian:lintian; do
		command -v "${t%%:*}" >/dev/null 2>&1 ||
			need "${t%%:*} (${t#*:})"
	done
	[ -e /usr/share/perl5/Debian/Debhelper/Sequence/dkms.pm ] ||
		need "dh_dkms and its sequence (dh-dkms)"
	command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libmnl ||
		need "libmnl's headers and pkg-config file (libmnl-dev, pkg-config)"
	;;
*)
	echo "check-build-deps.sh: unknown check \"$what\"" >&2
	exit 2
	;;
esac

[ -z "$missing" ] && exit 0
echo "ars: cannot build ($what), missing:$missing" >&2
echo "Install them with apt-get (\"make deps\" installs these and the test bench)." >&2
exit 1
