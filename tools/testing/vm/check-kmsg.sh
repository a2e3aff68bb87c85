#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Scan a kernel log (dmesg output or a serial console capture) for the
# messages that mean a kernel bug: warnings, oopses, lockdep and RCU splats,
# stalls, refcount and memory leaks, stack dumps.
#
# Usage: check-kmsg.sh FILE
# Exit:  0 clean, 1 suspicious lines found (printed on stdout with their
#        line numbers), 2 usage error or unreadable FILE.
#
# ARS_KMSG_IGNORE may hold an extended regular expression of lines to
# accept anyway, for a test that provokes a splat on purpose.

set -eu

# Matched case-sensitively: "Warning:" from ordinary drivers is fine,
# "WARNING:" is what WARN() prints.  BUG: and WARNING: must start a word so
# that e.g. "DEBUG:" does not count.  Most reports start with one of them
# (KASAN, KFENCE, lockdep, suspicious RCU usage, sleeping in atomic
# context, soft lockups, WARN() itself); the others have a pattern each.
# tools/testing/vm/test-check-kmsg.sh runs this gate over a corpus of real
# report lines and of clean boot and test logs.
BAD='(^|[^[:alnum:]_])(WARNING|BUG):'
BAD="$BAD|Oops|general protection fault|kernel BUG|Kernel panic"
# SLUB's reports name the cache, without a colon: "BUG kmalloc-64 (...)".
BAD="$BAD|(^|[^[:alnum:]_])BUG [^ ]+ \\("
BAD="$BAD|possible circular locking|possible recursive locking"
BAD="$BAD|inconsistent lock state|suspicious RCU usage"
BAD="$BAD|turning off the locking correctness validator|lockdep is turned off"
BAD="$BAD|rcu_sched self-detected stall|rcu: INFO|rcu_preempt detected stall"
BAD="$BAD|detected (expedited )?stalls? on"
BAD="$BAD|scheduling while atomic|refcount_t:|unreferenced object"
BAD="$BAD|kmemleak: [0-9]+ new suspected memory leak"
BAD="$BAD|kmemleak: Kernel memory leak detector disabled"
BAD="$BAD|ODEBUG: .* object type:|ODEBUG: Out of memory"
BAD="$BAD|list_(add|del) corruption"
BAD="$BAD|Call Trace:|UBSAN:|blocked for more than|hard LOCKUP"
BAD="$BAD|RTNL: assertion failed|unregister_netdevice: waiting for"
# Reports without either, some rate-limited or printed once
# (kmsg-corpus/reports-quiet.txt): a dst refcount underflow, a child qdisc
# that held packets back, softirq work left pending or leaving the preempt
# count changed, attributes with trailing bytes, and user space that
# crashed (segfault, trap).
BAD="$BAD|dst:[^ ]+ refcnt:|qdisc [0-9A-F]+: is non-work-conserving"
BAD="$BAD|NOHZ tick-stop error|huh, entered softirq"
BAD="$BAD|netlink: [0-9]+ bytes leftover after parsing attributes"
# A work item of ars's that hogged its CPU; the kernel's own do so under
# TCG, emulation being slow (kmsg-corpus/clean-debug-boot.txt).
BAD="$BAD|workqueue: [^ ]+ \\[ars\\] hogged CPU for"
BAD="$BAD|\\[[0-9]+\\]: segfault at |traps: [^ ]+\\[[0-9]+\\] trap "

# Expected when testing an out-of-tree, unsigned module.
EXPECTED='loading out-of-tree module taints kernel'
EXPECTED="$EXPECTED|module verification failed: signature and/or required key missing"
# The debug kernel (debug-kernel.sh) says at boot that PROVE_RCU is on.
EXPECTED="$EXPECTED|rcu:[[:space:]]+RCU lockdep checking is enabled\."
# The tests that send malformed netlink messages on purpose.
EXPECTED="$EXPECTED|"'leftover after parsing attributes in process `(genl_raw\.py|ars-nlfuzz)'"'"

if [ $# -ne 1 ]; then
	echo "usage: $0 FILE" >&2
	exit 2
fi
if [ ! -r "$1" ]; then
	echo "check-kmsg: cannot read $1" >&2
	exit 2
fi

ignore=$EXPECTED
if [ -n "${ARS_KMSG_IGNORE:-}" ]; then
	ignore="$ignore|$ARS_KMSG_IGNORE"
fi

# Lines are matched as they are, so the patterns may use ^ and $.  They go
# through the environment because awk -v would eat their backslashes.
CHECK_BAD=$BAD CHECK_IGNORE=$ignore awk -v file="$1" '
	$0 ~ ENVIRON["CHECK_BAD"] && $0 !~ ENVIRON["CHECK_IGNORE"] {
		if (!n++)
			print "check-kmsg: bad kernel messages in " file ":"
		print FNR ": " $0
	}
	END { exit n > 0 }
' "$1"
