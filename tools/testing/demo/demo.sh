#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: ars on a two-tier Clos fabric, benchmarked in the test VM.
#
#   +------+   +------+   +------+   +------+
#   |  s1  |   |  s2  |   |  s3  |   |  s4  |   4 spines (-S), ars on
#   +--+---+   +--+---+   +--+---+   +--+---+   each, each its own seed
#      |          |          |          |
#   ===+==========+==========+==========+===    full mesh, drawn as a bus:
#      |          |          |          |       leaf lL port sN <-> spine
#   +--+---+   +--+---+   +--+---+   +--+---+   sN port lL, one veth each;
#   |  l1  |   |  l2  |   |  l3  |   |  l4  |   ars qdisc over a tbf at
#   +-+-+-++   +-+-+-++   +-+-+-++   +-+-+-++   RATE on both ends (l1-s4
#     | | ||     | | ||     | | ||     | | ||   at RATE/4 in workload c)
#    h1 .. h4   h1 .. h4   h1 .. h4   h1 .. h4  4 leaves (-L), 4 hosts
#                                               each (-H), links at RATE
#
#   demo.sh [-k KVER] [-o DIR] [-- FABRIC_OPTIONS...]
#   make demo [KVER=<version>] [DEMO_ARGS="FABRIC_OPTIONS..."]
#
# 1. builds the tree (make all: module, arsctl, tc plugin);
# 2. boots KVER in QEMU and runs fabric.sh there: every workload in every
#    mode (about 5 minutes of VM time on an idle machine, N times that
#    with -R N; more when other VMs share its CPUs);
# 3. turns the raw counters into results.md, results.json and fabric.png
#    (report.py, gnuplot) in DIR, by default build/demo/<timestamp>/, and
#    prints the table, the summary and where the results are.
#
# FABRIC_OPTIONS go to fabric.sh (fabric.sh -h lists them): the size of
# the fabric, the link rate, durations, idle-time, modes, workloads and
# repetitions: make demo DEMO_ARGS="-R 3" runs everything three times,
# interleaved, and the report gives the mean and the range of each.
# -X TIME gives every flowlet run ars flowlet-window TIME (auto by
# default: a quarter of fabric-rtt; off in the other modes), and a
# mode MODE:WINDOW, such as -m "flowlet-quality flowlet-quality:100ms",
# is MODE with that window, a mode of its own in the report.
# Workload d (-W d, not in the default set) slows spine s4's port to leaf
# l3 and marks ECN there, which no leaf sees; a mode MODE+remote, such as
# -m "flowlet-random flowlet-quality flowlet-quality+remote", is MODE with
# ars remote on, reading the hosts' ECN-Echo.
# ARS_TC_LIB_DIR names another directory with q_ars.so for the guest's tc.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
kver=
out=

usage()
{
	sed -n '/^#   demo.sh/,/^# ARS_TC_LIB_DIR/s/^# \{0,1\}//p' "$0"
}

die()
{
	echo "demo: $*" >&2
	exit 1
}

# The newest supported kernel with headers (6.12 before 6.1), as make does.
default_kver()
{
	local k

	for k in $(cd /lib/modules && ls -d 6.12.* 6.1.* 2>/dev/null |
			sort -rV); do
		[ -d "/lib/modules/$k/build" ] && [ -r "/boot/vmlinuz-$k" ] &&
			{ echo "$k"; return 0; }
	done
	return 1
}

parse_args()
{
	local o

	while getopts "k:o:h" o; do
		case $o in
		k) kver=$OPTARG ;;
		o) out=$OPTARG ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	fabric_args=("$@")
}

main()
{
	local start rc

	parse_args "$@"
	[ -n "$kver" ] || kver=$(default_kver) || die "no supported kernel found"
	[ -n "$out" ] || out=$top/build/demo/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$out" || die "cannot create $out"
	out=$(cd "$out" && pwd)

	echo "# demo: building"
	make -C "$top" --no-print-directory all >"$out/build.log" 2>&1 ||
		{ tail -20 "$out/build.log" >&2; die "build failed, see $out/build.log"; }

	echo "# demo: fabric benchmark in QEMU ($kver), results in $out"
	start=$(date +%s)
	"$top/tools/testing/vm/vm-run.sh" -k "$kver" \
		-m "$top/build/$kver/kmod/ars.ko" -o "$out" -t 3600 -c 2 -M 4096 \
		-- "$here/fabric.sh" -o /results "${fabric_args[@]}"
	rc=$?
	echo "# demo: the VM ran $(($(date +%s) - start)) s"
	[ -f "$out/raw/config" ] || die "no results (vm-run exit $rc), see $out"

	echo
	python3 "$here/report.py" "$out" || die "report.py failed"
	echo
	echo "Results: $out"
	echo "  results.md    the tables and the summary"
	echo "  results.json  every figure, per run, flow and uplink"
	[ ! -f "$out/fabric.png" ] ||
		echo "  fabric.png    goodput and reordering per mode, uplink use"
	echo "  raw/          what the VM measured; output.log, dmesg.txt: its logs"
	[ "$rc" -eq 0 ] || die "the VM run failed (exit $rc), see $out/output.log"
}

main "$@"
