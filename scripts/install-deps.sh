#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing ars needs on a Debian 12 machine: both
# supported kernels (images for the VM, headers for the build), QEMU, the
# tools the selftests drive, and the linters. Idempotent; run as root.
set -eu

PACKAGES="
	build-essential pkg-config
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	linux-source-6.1
	qemu-system-x86 busybox-static cpio xz-utils zstd kmod util-linux
	iproute2 ethtool iperf3 iputils-ping tcpdump jq netcat-openbsd
	libmnl-dev sparse gnuplot-nox python3 python3-yaml
	clang libclang-rt-14-dev valgrind trace-cmd
	strace python3-jsonschema linux-source-6.12
"

# The ns-3 fabric simulation (make sim, tools/testing/sim): Debian's ns-3,
# whose pkg-config files name libgsl without depending on it, matplotlib
# for its chart, and GNU parallel and time for its matrix on one machine or
# many (make -C tools/testing/sim matrix-jobs).
PACKAGES="$PACKAGES
	libns3-dev libgsl-dev python3-matplotlib parallel time
"

# The debug kernel of make check (tools/testing/vm/debug-kernel.sh): its
# source and what building a kernel takes.
PACKAGES="$PACKAGES
	linux-source-6.12 flex bison bc libelf-dev libssl-dev dwarves
"

# The fresh Debian 12 root of tools/testing/packaging/test-fresh.sh.
PACKAGES="$PACKAGES
	mmdebstrap
"

# The test of arsctl's bash completion (tools/arsctl/test-completion.sh)
# runs it with the bash-completion it is written for.
PACKAGES="$PACKAGES
	bash-completion
"

# The FRR selftest (ars_frr.sh): bgpd and zebra, which it starts itself
# in the test VM's namespaces, as a leaf and its spines, with files of its
# own; the package's frr.service is left as Debian ships it.
PACKAGES="$PACKAGES
	frr
"

# make deb and its test (tools/testing/packaging/): the Debian tools that
# build the packages, lintian, and dkms, which the test VM runs with the
# host's kernel headers.
PACKAGES="$PACKAGES
	debhelper dh-dkms dkms dpkg-dev fakeroot lintian
"

# The fourth kernel of make check: Debian's PREEMPT_RT 6.12, whose
# softirqs run in threads (issue 31). Its release, 6.12.x+deb12-rt-amd64,
# matches the Makefile's SUPPORTED 6.12.%: it is built, linted and runs
# the RT subset of the selftests (vm-selftests.sh, RT_LANE).
PACKAGES="$PACKAGES
	linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
"

# The man pages' tests (tc-ext/test-plugin.sh, tools/arsctl/test-cli.sh)
# render them with man; without it they skip, and make check fails a SKIP
# that tools/testing/skip-allow.txt does not name.
PACKAGES="$PACKAGES
	man-db
"

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (apt-get installs packages)" >&2
	exit 1
fi

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done

if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# checkpatch.pl and its spelling list come from the packaged 6.1 source.
src=/usr/src/linux-source-6.1
if [ ! -x "$src/scripts/checkpatch.pl" ]; then
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts linux-source-6.1/Documentation/dev-tools \
		linux-source-6.1/include/linux/compiler_attributes.h
fi

# The netlink spec schemas (genetlink-legacy.yaml...) that spec-check.py
# validates Documentation/netlink/specs/ars.yaml against (6.1 has none),
# and YNL's C generator, which scripts/nl-gen.sh runs on it.
src=/usr/src/linux-source-6.12
if [ ! -r "$src/Documentation/netlink/genetlink-legacy.yaml" ] ||
   [ ! -r "$src/tools/net/ynl/ynl-gen-c.py" ]; then
	tar -C /usr/src -xf /usr/src/linux-source-6.12.tar.xz \
		linux-source-6.12/Documentation/netlink \
		linux-source-6.12/tools/net/ynl
fi
