#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot an installed Debian kernel under QEMU (TCG), run one command in it and
# report the command's exit status; fail if the kernel logged a warning,
# oops, lockdep/RCU splat or similar during the run.
#
# The guest's root is the host's root, shared read-only over virtio-9p with
# a RAM overlay on top, so the command runs the host's binaries and sees the
# repo wherever it lives (also under /tmp).  See initramfs-init.sh and
# guest-run.sh for the guest side.
#
# Files in OUTDIR after a run:
#   job.sh       what the guest ran (written here, sourced in the guest)
#   output.log   the command's stdout+stderr (also streamed to our stdout)
#   console.log  the kernel's serial console
#   dmesg.txt    the whole kernel log, saved after the command
#   status       the command's exit status; missing if the guest died
#   error        why the command did not run or was killed
#   qemu.log     QEMU's own stderr
#   tainted-before, tainted-after
#                /proc/sys/kernel/tainted before the module was loaded
#                and at the end; a new flag but O and E fails the run
#                (check-taint.sh)

set -eu

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)

# Exit status when the run itself failed, whatever the command returned.
FAIL=125

kver=
ko=
out=
timeout=600
cpus=2
mem=2048
tmp=
qemu_pid=
tee_pid=

usage() {
	cat <<EOF
usage: $0 -k KVER [-m MODULE.ko] [-o OUTDIR] [-t TIMEOUT_SEC] [-c CPUS] [-M MEM_MB] -- COMMAND [ARGS...]

Boot /boot/vmlinuz-KVER under QEMU with the host's root as the guest's
root (read-only, RAM overlay on top) and run COMMAND in the current
directory.  Exit with COMMAND's status, or $FAIL if the guest crashed or
hung, the module did not load, the kernel log shows a warning, oops,
lockdep/RCU report or similar (see check-kmsg.sh), or the kernel was
tainted during the run (see check-taint.sh).

  -k KVER        kernel release, a directory under /lib/modules, or
                 the debug kernel in \$ARS_KCACHE (debug-kernel.sh)
  -m MODULE.ko   insmod this module before COMMAND; COMMAND gets
                 ARS_KO=<absolute path> and ARS_KVER=KVER
  -o OUTDIR      where logs go (default: BUILD/out-<timestamp>-<random>)
  -t TIMEOUT     seconds before a hung guest is killed (default 600);
                 above 20, the guest kills COMMAND itself 10 s earlier
                 and saves the kernel log with the blocked tasks' stacks
  -c CPUS        guest CPUs (default 2)
  -M MEM_MB      guest memory in MiB (default 2048)

BUILD is \$ARS_BUILD_DIR, default <repo>/build/vm/KVER; it caches the
initramfs.  Exported ARS_* variables are passed on to COMMAND, as is
ARS_VM=1.  COMMAND's stdout and stderr both arrive on stdout.
EOF
}

die() {
	echo "vm-run: $*" >&2
	exit $FAIL
}

is_count() {
	[[ $1 =~ ^[1-9][0-9]*$ ]]
}

need() {
	command -v "$1" >/dev/null || die "$1 not found (apt-get install $2)"
}

parse_args() {
	local opt

	while getopts ":k:m:o:t:c:M:h" opt; do
		case $opt in
		k) kver=$OPTARG ;;
		m) ko=$OPTARG ;;
		o) out=$OPTARG ;;
		t) timeout=$OPTARG ;;
		c) cpus=$OPTARG ;;
		M) mem=$OPTARG ;;
		h) usage; exit 0 ;;
		:) usage >&2; die "option -$OPTARG needs a value" ;;
		*) usage >&2; die "unknown option -$OPTARG" ;;
		esac
	done
	shift $((OPTIND - 1))
	cmd=("$@")
}

check_args() {
	[ -n "$kver" ] || { usage >&2; die "-k KVER is required"; }
	[ ${#cmd[@]} -gt 0 ] || { usage >&2; die "no COMMAND given"; }
	find_kernel
	is_count "$timeout" || die "bad timeout: $timeout"
	is_count "$cpus" || die "bad CPU count: $cpus"
	is_count "$mem" || die "bad memory size: $mem"
	if [ -n "$ko" ]; then
		[ -f "$ko" ] || die "no module file $ko"
		# The guest sees the host's root, so an absolute path works there.
		ko=$(realpath "$ko")
	fi
	need qemu-system-x86_64 qemu-system-x86
	need cpio cpio
	need xz xz-utils
	need timeout coreutils
}

# An installed kernel (/boot, /lib/modules), or one that debug-kernel.sh
# built into its cache, with the command line options it asks for.
find_kernel() {
	local c=${ARS_KCACHE:-/var/cache/ars/kernel}/$kver

	[[ $kver != */* && -n $kver ]] || die "bad kernel release: $kver"
	kimage=/boot/vmlinuz-$kver
	kconfig=/boot/config-$kver
	moddir=/lib/modules/$kver
	kcmdline=
	if [ ! -d "$moddir" ] && [ -f "$c/installed" ]; then
		c=$(cd "$c" && pwd -P)
		kimage=$c/vmlinuz
		kconfig=$c/config
		moddir=$(cd "$c/modules" && pwd -P)
		kcmdline=$(cat "$c/cmdline")
	fi
	[ -d "$moddir" ] || die "no kernel $kver in /lib/modules nor in ${c%/*}"
	[ -r "$kimage" ] || die "cannot read $kimage"
}

# Boot the unpacked vmlinux through PVH when the kernel supports it: it
# saves the seconds that the bzImage decompressor takes under TCG.
# ARS_VM_PVH=0 boots the bzImage as it is.
prepare_kernel() {
	kernel=$kimage
	[ "${ARS_VM_PVH:-1}" != 0 ] || return 0
	grep -qx CONFIG_PVH=y "$kconfig" 2>/dev/null || return 0
	if "$here/mkvmlinux.sh" "$kernel" "$build/vmlinux-$kver"; then
		kernel=$build/vmlinux-$kver
	else
		echo "vm-run: booting the bzImage instead" >&2
	fi
}

prepare_build() {
	build=${ARS_BUILD_DIR:-$repo/build/vm/$kver}
	mkdir -p "$build" || die "cannot create $build"
	build=$(cd "$build" && pwd)
	initramfs=$build/initramfs-$kver.cpio
	"$here/mkinitramfs.sh" "$kver" "$initramfs" "$moddir" ||
		die "cannot build $initramfs"
	prepare_kernel
}

prepare_outdir() {
	if [ -z "$out" ]; then
		# mktemp: two runs started in the same second get distinct dirs.
		out=$(mktemp -d "$build/out-$(date +%Y%m%d-%H%M%S)-XXXX")
		chmod 0755 "$out"
	else
		mkdir -p "$out"
		out=$(cd "$out" && pwd)
		# Results from an earlier run must not pass for this one's.
		(cd "$out" && rm -f job.sh output.log console.log dmesg.txt \
			status error qemu.log tainted-before tainted-after)
	fi
}

# Single-quote $1 for the guest's shell.
shquote() {
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

# When guest-run.sh kills the command: 10 s before we kill QEMU, so that
# the kernel log is still saved.  It is a time of day because the guest's
# clock starts from the host's (through the emulated RTC) while its uptime
# lags by the boot, seconds on a busy host.
guest_deadline() {
	if [ "$timeout" -gt 20 ]; then
		echo $(($(date +%s) + timeout - 10))
	else
		echo 0
	fi
}

# The job file is sourced by guest-run.sh: the directory to run in, the
# module to load, the deadline, the environment and the command line.
write_job() {
	local v a

	{
		echo "# Written by vm-run.sh; sourced by guest-run.sh in the guest."
		echo "job_cwd=$(shquote "$PWD")"
		echo "job_ko=$(shquote "$ko")"
		echo "job_moddir=$(shquote "$moddir")"
		echo "job_timeout=$timeout"
		echo "job_deadline=$(guest_deadline)"
		for v in $(compgen -e); do
			case $v in
			ARS_VM | ARS_KVER | ARS_KO) ;;
			ARS_*) echo "export $v=$(shquote "${!v}")" ;;
			esac
		done
		echo "export ARS_VM=1"
		echo "export ARS_KVER=$(shquote "$kver")"
		[ -z "$ko" ] || echo "export ARS_KO=$(shquote "$ko")"
		printf 'set --'
		for a in "${cmd[@]}"; do
			printf ' %s' "$(shquote "$a")"
		done
		echo
	} >"$out/job.sh"
}

# QEMU splits option values at commas; a literal comma is written twice.
qpath() {
	echo "${1//,/,,}"
}

build_qemu_args() {
	# The whole kernel log goes to the console: after a crash or a hang
	# console.log is all there is.  It costs a fraction of a second.
	# printk.devkmsg=on: tests may mark their steps in /dev/kmsg, and
	# those lines must not be rate-limited away.
	local append="console=ttyS0 panic=-1 log_buf_len=16M printk.devkmsg=on"

	append="$append${kcmdline:+ $kcmdline}${ARS_VM_CMDLINE:+ $ARS_VM_CMDLINE}"

	# One host thread runs every vCPU (thread=single): with a thread per
	# vCPU, TCG let a vCPU run code that another was patching through
	# int3 (static keys flipped by tc and netfilter under traffic), and
	# the guest died with "Oops: int3" in code ars never touches. The
	# guest still has SMP; ARS_VM_TCG_THREAD=multi restores the speed.
	# Without cmpxchg16b (-cx16; ARS_VM_CPU overrides): QEMU 7.2's TCG
	# once left the guest with a corrupt EFLAGS (trap flag and reserved
	# bits set) in SLUB's cmpxchg16b allocation fast path, and 6.12 died
	# of a double fault in __kmalloc_node_track_caller() under
	# udp_sendmsg (make check, ars_quality.sh); the benchmark met the
	# same under -icount. The kernel then takes its cmpxchg16b
	# emulation, as on CPUs that lack the instruction.
	# shellcheck disable=SC2054 # the commas are QEMU's, not array syntax
	qemu_args=(
		-accel "tcg,thread=${ARS_VM_TCG_THREAD:-single}" -cpu "${ARS_VM_CPU:-max,-cx16}" \
		-smp "$cpus" -m "$mem"
		-nodefaults -nographic -no-reboot -no-user-config
		-nic none
		-kernel "$kernel" -initrd "$initramfs"
		-append "$append"
		# ttyS0: kernel console; ttyS1: the command's output only.
		-chardev "file,id=console,path=$(qpath "$out/console.log")"
		-serial chardev:console
		-chardev stdio,id=output,signal=off
		-serial chardev:output
		-fsdev local,id=root,path=/,readonly=on,security_model=none,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot
		-fsdev "local,id=results,path=$(qpath "$out"),security_model=none"
		-device virtio-9p-pci,fsdev=results,mount_tag=results
	)
	# ARS_VM_ICOUNT=SHIFT: the guest's clocks run by the instructions
	# it executes, 2^SHIFT ns each, not by the host's time (benchmarks:
	# a rate in guest time is then a cost in instructions, whatever the
	# host's load). An idle guest jumps to its next timer (sleep=off).
	if [ -n "${ARS_VM_ICOUNT:-}" ]; then
		qemu_args+=(-icount "shift=$ARS_VM_ICOUNT")
	fi
}

# shellcheck disable=SC2317 # called from traps
cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp"
}

# Ctrl-C or a CI cancel: take the guest down with us.  timeout(1) runs QEMU
# in its own process group, so it would not see the terminal's SIGINT.
# shellcheck disable=SC2317 # called from a trap
on_signal() {
	trap - INT TERM HUP
	[ -z "$qemu_pid" ] || kill -TERM "$qemu_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	echo "vm-run: interrupted; logs in $out" >&2
	exit 130
}

# Stream the guest's ttyS1 to our stdout and to output.log.
run_qemu() {
	local fifo=$tmp/output

	mkfifo "$fifo"
	# -p: if our reader goes away, keep filling output.log.
	tee -p "$out/output.log" <"$fifo" &
	tee_pid=$!
	timeout --kill-after=10 "$timeout" qemu-system-x86_64 "${qemu_args[@]}" \
		</dev/null >"$fifo" 2>"$out/qemu.log" &
	qemu_pid=$!
	qemu_rc=0
	wait "$qemu_pid" || qemu_rc=$?
	wait "$tee_pid" || true
}

# Why the command did not run to completion; nothing if it did.
run_failure() {
	if [ -s "$out/error" ]; then
		cat "$out/error"
	elif [ "$status" != none ]; then
		is_count "$status" || [ "$status" = 0 ] ||
			echo "garbled status file: $status"
	elif [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
		echo "guest hung: killed after ${timeout}s"
	elif [ "$qemu_rc" -ne 0 ]; then
		echo "QEMU failed (exit $qemu_rc), see $out/qemu.log"
	else
		echo "no exit status: the guest crashed or powered off early"
	fi
}

# Set $status, $failure, $klog and $reason (empty if the run is good).
judge() {
	status=none
	[ ! -s "$out/status" ] || status=$(cat "$out/status")
	failure=$(run_failure)
	reason=$failure
	klog=$out/dmesg.txt
	[ -s "$klog" ] || klog=$out/console.log
	[ -s "$klog" ] || return 0
	if ! "$here/check-kmsg.sh" "$klog" >&2; then
		reason="${reason:+$reason; }bad kernel messages"
	fi
	# Tainted during the run: a report the log may have rate-limited.
	if [ -s "$out/tainted-before" ] && [ -s "$out/tainted-after" ] &&
	   ! "$here/check-taint.sh" "$(cat "$out/tainted-before")" \
		"$(cat "$out/tainted-after")" >&2; then
		reason="${reason:+$reason; }kernel tainted"
	fi
}

# The end of the kernel log usually says why the run failed: the oops
# before a crash, the kernel's reason for refusing a module.
show_log_tail() {
	local lines=15

	[ -s "$out/status" ] || [ -s "$out/error" ] || lines=40
	if [ -s "$klog" ]; then
		echo "vm-run: last lines of $klog:" >&2
		tail -n $lines "$klog" >&2
	fi
	if [ -s "$out/qemu.log" ]; then
		echo "vm-run: $out/qemu.log:" >&2
		cat "$out/qemu.log" >&2
	fi
}

# Microseconds of CLOCK_BOOTTIME (/proc/uptime, in 10 ms steps), for the
# run's duration: the realtime clock may be stepped meanwhile.
now_us() {
	local up

	read -r up _ </proc/uptime
	echo $((10#${up/./} * 10000))
}

main() {
	local start elapsed result

	parse_args "$@"
	check_args
	prepare_build
	prepare_outdir
	write_job
	build_qemu_args

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vm-run.XXXXXX")
	trap cleanup EXIT
	trap on_signal INT TERM HUP

	start=$(now_us)
	run_qemu
	elapsed=$(($(now_us) - start))

	judge
	result=FAIL
	if [ -n "$reason" ]; then
		[ -z "$failure" ] || show_log_tail
		echo "vm-run: FAIL: $reason" >&2
	elif [ "$status" = 0 ]; then
		result=PASS
	fi
	printf 'vm-run: kernel=%s status=%s result=%s time=%d.%ds log=%s\n' \
		"$kver" "$status" "$result" $((elapsed / 1000000)) \
		$((elapsed / 100000 % 10)) "$klog" >&2
	[ -z "$reason" ] || exit $FAIL
	exit "$status"
}

main "$@"
