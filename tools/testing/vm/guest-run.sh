#!/run/ars-vm/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash disable=SC2154 # job_* come from /results/job.sh
#
# Second stage of the vm-run.sh guest, PID 1 in the overlay root built by
# initramfs-init.sh.  It mounts what a networking test expects, runs the job
# that vm-run.sh wrote to /results/job.sh, and leaves behind:
#
#   /results/status     the command's exit status (only if it ran)
#   /results/error      why the command did not run or was killed
#   /results/dmesg.txt  the whole kernel log
#   /results/tainted-before, /results/tainted-after
#                       /proc/sys/kernel/tainted before the module is
#                       loaded and once all is done (check-taint.sh)
#
# Serial lines: ttyS0 is the kernel console (console.log on the host), ttyS1
# carries only the command's stdout and stderr, so the caller gets the
# test's output without kernel messages mixed in.
#
# Infrastructure commands are busybox applets (this busybox prefers its own
# applets over PATH); the job itself runs the host's tools through the
# host's /bin/sh.

bb=/run/ars-vm/busybox
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 SHELL=/bin/sh USER=root LOGNAME=root
out=/dev/ttyS1

# Markers in the kernel log tie kernel messages to the phases of the run.
# They must never contain the words that check-kmsg.sh looks for.
kmsg() {
	echo "ars-vm: $*" >/dev/kmsg
}

halt() {
	sync
	$bb poweroff -f
	sleep 1000
}

# Before /results is mounted the only way to report is the console.
die_early() {
	echo "ars-vm: $*" >/dev/console
	kmsg "$*"
	halt
}

mount_optional() {
	$bb mkdir -p "$3"
	$bb mount -t "$1" "$2" "$3" 2>/dev/null || true
}

mount_system() {
	$bb mkdir -p /dev/pts /dev/shm
	$bb mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts
	$bb mount -t tmpfs -o nosuid,nodev tmpfs /dev/shm
	# devtmpfs lacks the /dev/fd links that bash process substitution uses.
	$bb ln -sf /proc/self/fd /dev/fd
	$bb ln -sf /proc/self/fd/0 /dev/stdin
	$bb ln -sf /proc/self/fd/1 /dev/stdout
	$bb ln -sf /proc/self/fd/2 /dev/stderr
	mount_optional debugfs debugfs /sys/kernel/debug
	mount_optional tracefs tracefs /sys/kernel/tracing
	mount_optional cgroup2 cgroup2 /sys/fs/cgroup
	# No bpffs: its first mount loads bpf_preload (a second under TCG),
	# and tc mounts it itself when it pins a program.
	# No tmpfs on /tmp: the host's /tmp (CI clones may live there) must
	# stay visible; writes to it land in the overlay's RAM layer anyway.
}

mount_results() {
	$bb mkdir -p /results
	$bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 \
		results /results || die_early "cannot mount the results share"
	[ -r /results/job.sh ] || die_early "no /results/job.sh"
}

setup_network() {
	$bb hostname ars-vm
	$bb ip link set lo up
}

# The kernel runs this path (in PID 1's root, which is now the host's root)
# when tc or ip need a module: sch_*, cls_*, veth, ...  Set it explicitly
# so that autoloading does not depend on the kernel's CONFIG_MODPROBE_PATH.
setup_modprobe() {
	echo /sbin/modprobe >/proc/sys/kernel/modprobe
}

# Raw mode: no "\n" -> "\r\n" translation, no echo of anything the host
# might send back.
setup_output() {
	[ -c $out ] || out=/dev/console
	$bb stty -F $out raw -echo 2>/dev/null || true
}

# A kernel from debug-kernel.sh's cache has its modules there: give modprobe
# and modinfo the usual path to them (in the overlay, so only the guest
# sees it).
link_modules() {
	local dir

	dir=/lib/modules/$($bb uname -r)
	[ -n "$job_moddir" ] && [ ! -e "$dir" ] || return 0
	$bb mkdir -p /lib/modules
	$bb ln -s "$job_moddir" "$dir"
}

# A kernel with kmemleak (the debug kernel) looks for leaks once the command
# is done, and what it finds goes to the kernel log, where check-kmsg.sh
# sees it; the whole report is /results/kmemleak.txt.  Objects younger
# than 5 s are not reported, and an object is only reported when a second
# scan finds it unreferenced and unchanged: wait, then scan twice.
scan_leaks() {
	local f=/sys/kernel/debug/kmemleak n

	[ -w $f ] || return 0
	kmsg "leak scan"
	$bb sleep 5
	if ! { echo scan >$f && echo scan >$f; }; then
		fail "kmemleak scan failed"
		return
	fi
	$bb cat $f >/results/kmemleak.txt
	n=$($bb grep -c '^unreferenced object' /results/kmemleak.txt)
	[ "$n" -gt 0 ] || return 0
	$bb head -n 300 /results/kmemleak.txt | while IFS= read -r line; do
		echo "kmemleak: $line" >/dev/kmsg
	done
}

fail() {
	echo "$*" >/results/error
	kmsg "$*"
}

insert_module() {
	[ -n "$job_ko" ] || return 0
	kmsg "insmod $job_ko"
	/sbin/insmod "$job_ko" </dev/null >$out 2>&1 && return 0
	fail "insmod $job_ko failed (exit $?) on $(uname -r)"
	return 1
}

# Kill the command before vm-run.sh kills the whole guest, so that the
# kernel log is still saved, with the stacks of blocked tasks (sysrq w):
# a hung test usually waits on a lock or a reference in the kernel.
start_watchdog() {
	local pid=$1 left

	watchdog=
	[ "$job_deadline" -gt 0 ] || return 0
	# job_deadline is a time of day; our clock comes from the host's RTC.
	# Clamp in case the clocks disagree.
	left=$((job_deadline - $($bb date +%s)))
	[ "$left" -le "$job_timeout" ] || left=$job_timeout
	[ "$left" -gt 0 ] || left=1
	(
		$bb sleep "$left"
		$bb kill -0 "$pid" 2>/dev/null || exit 0
		fail "command timed out (killed 10 s before the ${job_timeout} s limit)"
		echo w >/proc/sysrq-trigger
		$bb kill -KILL "-$pid"
	) &
	watchdog=$!
}

# The command runs in its own session so that the watchdog can kill its
# whole process group, and gets no stdin: a test must not wait for input.
run_job() {
	local pid status

	cd "$job_cwd" 2>/dev/null || {
		fail "cannot cd to $job_cwd in the guest"
		return
	}
	kmsg "command start"
	$bb setsid /bin/sh -c 'exec "$@"' sh "$@" </dev/null >$out 2>&1 &
	pid=$!
	start_watchdog "$pid"
	# The last process to close the serial line waits until the UART has
	# sent everything: once the command has exited, its output is out.
	wait "$pid"
	status=$?
	[ -z "$watchdog" ] || $bb kill "$watchdog" 2>/dev/null
	echo $status >/results/status
	kmsg "command exit status $status"
	cd /
}

save_kernel_log() {
	$bb dmesg >/results/dmesg.txt
}

# A taint whose report the log lost (rate-limited) still shows here.
save_taint() {
	$bb cat /proc/sys/kernel/tainted >"/results/tainted-$1"
}

mount_system
mount_results
setup_network
setup_modprobe
setup_output
# Defines job_cwd, job_ko, job_moddir, job_timeout, job_deadline, the exported ARS_*
# variables and "$@".
# shellcheck source=/dev/null
. /results/job.sh
link_modules
save_taint before
insert_module && run_job "$@"
# The log first: the scan takes seconds, and a command that timed out
# leaves only the 10 s before the guest is killed.
save_kernel_log
if [ ! -s /results/error ]; then
	scan_leaks
	save_kernel_log
fi
save_taint after
$bb umount /results 2>/dev/null || true
halt
