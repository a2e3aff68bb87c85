#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forwarding-rate benchmark of ars, in the QEMU test VM (make -C
# tools/testing/bench forward).  It measures and asserts nothing: the exit
# status is 0 unless the run itself broke.
#
#   run.sh [-k KVER] [-d SECONDS] [-r ROUNDS] [-w WARMUP] [-c "CONFIG..."]
#          [-p same|split] [-s dummy|r2] [-i SHIFT] [-g BUCKETS]
#
# In the VM (guest.sh), pktgen floods a router r1 with 64-byte UDP packets
# of random ports, which r1 forwards over a 4-way multipath route.  The
# rate is what r1 forwarded per second (the tx counters of its 4 egress
# devices), for each CONFIG: nofwd (r1 receives the frames but does not
# route them), absent (ars.ko unloaded), off (loaded, state off), then
# modes with state on.  The configurations are measured in interleaved
# rounds and each is compared with "absent" of the same round.
#
# The host is shared: the wall-clock rate follows the host's load more
# than ars.  The second table is less sensitive to it: packets per second
# of host CPU time of the QEMU thread of the vCPU that forwards.  A busy
# host takes wall-clock time from the guest, not CPU time, so this is close
# to the inverse of the cost per packet.  guest.sh prints a "mark" line at
# each counter snapshot and this script reads the thread's run time
# (/proc/PID/task/TID/schedstat) as it sees one.  By default the generator
# and r1 share one vCPU (placement "same", see guest.sh for why), so the
# third table subtracts nofwd's cost per packet to leave r1's forwarding
# alone: its ratios are the ones to judge ars by.  Either way the costs are
# those of TCG, which emulates some instructions (indirect branches and
# retpolines, rdtsc, atomics) far more slowly than others: the ratios rank
# the configurations and size their costs, they do not predict hardware.
#
# -i SHIFT counts instructions instead (QEMU -icount shift=SHIFT): the
# guest's clock advances 2^SHIFT ns per instruction its vCPUs execute, so
# its rates are packets per guest instruction, the same on a busy host as
# on an idle one (the spreads of the time-based tables on a shared host
# reach 50-130%). The CPU-time table then uses the guest's clock too,
# and "r1 alone" is a ratio of instructions per packet: every instruction
# weighs the same, as in callgrind, unlike TCG's time.
#
# Prints the tables; writes build/bench/forward-KVER.json (with every
# sample) and keeps the VM's logs and the raw samples in
# build/bench/forward-KVER/.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../../.." && pwd)

kver=
duration=2
rounds=6
warmup=0.5
configs="nofwd absent off ecmp flowlet-random flowlet-quality"
placement='same'
sink='dummy'
icount=
buckets=0

usage() {
	cat <<EOF
usage: $0 [-k KVER] [-d SECONDS] [-r ROUNDS] [-w WARMUP] [-c "CONFIG..."]
          [-p same|split] [-s dummy|r2] [-i SHIFT] [-g BUCKETS]

  -k KVER     kernel to boot (default: the newest supported one installed)
  -d SECONDS  length of each measurement (default $duration)
  -r ROUNDS   rounds of all configurations (default $rounds)
  -w WARMUP   seconds of traffic before each measurement (default $warmup)
  -c CONFIGS  configurations in the order of a round (default
              "$configs");
              MODE,KEYWORD=VALUE adds arsctl set keywords, e.g.
              flowlet-quality,idle-time=1s
  -p WHERE    same: pktgen and r1 on CPU 0 (default); split: pktgen on
              CPU 0, r1 on CPU 1 (see guest.sh)
  -s SINK     dummy: r1's egress devices are dummy devices (default);
              r2: veth links to a namespace r2 that drops (see guest.sh)
  -i SHIFT    count instructions (QEMU -icount shift=SHIFT, e.g. 0: one
              ns per instruction): rates in guest time, independent of
              the host's load
  -g BUCKETS  route over a resilient nexthop group of BUCKETS buckets
              (1/2/3/4, idle timer 0) instead of a multipath route
EOF
}

die() {
	echo "forward: $*" >&2
	exit 1
}

is_count() {
	[[ $1 =~ ^[1-9][0-9]*$ ]]
}

# The newest kernel of the supported series (as in the top Makefile) whose
# headers are installed.
default_kver() {
	local d k

	for d in /lib/modules/*/build; do
		k=${d%/build}
		k=${k##*/}
		case $k in
		6.1.* | 6.12.*) echo "$k" ;;
		esac
	done | sort -V | tail -n 1
}

while getopts ":k:d:r:w:c:p:s:i:g:h" opt; do
	case $opt in
	g) buckets=$OPTARG ;;
	i) icount=$OPTARG ;;
	s) sink=$OPTARG ;;
	k) kver=$OPTARG ;;
	d) duration=$OPTARG ;;
	r) rounds=$OPTARG ;;
	w) warmup=$OPTARG ;;
	c) configs=$OPTARG ;;
	p) placement=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { usage >&2; exit 2; }

[ -n "$kver" ] || kver=$(default_kver)
[ -n "$kver" ] || die "no supported kernel under /lib/modules"
is_count "$duration" || die "bad duration: $duration"
is_count "$rounds" || die "bad round count: $rounds"
[[ $warmup =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad warm-up: $warmup"
case $placement in
split | same) ;;
*) die "bad placement: $placement" ;;
esac
case $sink in
r2 | dummy) ;;
*) die "bad sink: $sink" ;;
esac
[ -z "$icount" ] || [[ $icount =~ ^[0-9]$ ]] || die "bad icount shift: $icount"
[[ $buckets =~ ^[0-9]+$ ]] && [ "$buckets" -le 65535 ] ||
	die "bad bucket count: $buckets"
ko=$top/build/$kver/kmod/ars.ko
[ -f "$ko" ] || die "no $ko: make -C $top modules tools"
[ -x "$top/tools/arsctl/arsctl" ] || die "no arsctl: make -C $top tools"

out=$top/build/bench/forward-$kver
json=$top/build/bench/forward-$kver.json
mkdir -p "$out" || die "cannot create $out"
# The guest reloads the module from the host's file several times: copies
# of it and of arsctl keep the run on one build when the tree is rebuilt
# meanwhile (a file replaced under the guest's 9p mount fails to read).
cp "$ko" "$out/ars.ko" || die "cannot copy $ko"
ko=$out/ars.ko
cp "$top/tools/arsctl/arsctl" "$out/arsctl" || die "cannot copy arsctl"
export ARS_ARSCTL=$out/arsctl
# What was measured, for comparing runs.
commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
# The command as given and when it ran, for the results file
# (tools/testing/results/render.py heads each table with them).
cmdline="tools/testing/bench/forward/run.sh -k $kver -d $duration -r $rounds"
cmdline+=" -w $warmup -p $placement -s $sink${icount:+ -i $icount}"
cmdline+=" -c \"$configs\""
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ko_sum=$(sha256sum <"$ko" | cut -c1-16)
nconf=$(wc -w <<<"$configs")
# Boot and set-up take a minute or two under TCG on a busy host; each
# measurement adds its length, the warm-up and a few seconds of arsctl,
# rmmod/insmod and pktgen start/stop.
timeout=$((300 + rounds * nconf * (duration + ${warmup%.*} + 10)))
[ $timeout -ge 900 ] || timeout=900
# Counting instructions, a guest second takes several on the host.
[ -z "$icount" ] || timeout=$((timeout * 8))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ars-fwd.XXXXXX") || die "mktemp"
vm_pid=
# shellcheck disable=SC2317 # called from traps
cleanup() {
	[ -z "$vm_pid" ] || kill "$vm_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The QEMU process that vm-run.sh started: the descendant of vm_pid named
# qemu-system-*, found through the process tree, never by name alone (other
# VMs may run on the host).
qemu_pid() {
	ps -e -o pid=,ppid=,comm= | awk -v root="$vm_pid" '
		{ parent[$1] = $2; comm[$1] = $3 }
		END {
			for (p in parent) {
				if (comm[p] !~ /^qemu-system/)
					continue
				for (q = p; q in parent && q != root; q = parent[q])
					if (q <= 1)
						break
				if (q == root)
					print p
			}
		}'
}

# QEMU's TCG threads, one per vCPU, are created in vCPU order at machine
# start, after the main and RCU threads and before any I/O worker, and they
# are the ones that have run by far the longest once the guest is up: take
# the two busiest threads other than the main one, in TID order.
qemu=
vcpu_tid=()
find_vcpus() {
	local t tid ns rest

	qemu=$(qemu_pid | head -n 1)
	[ -n "$qemu" ] || return 1
	for t in /proc/"$qemu"/task/*; do
		tid=${t##*/}
		[ "$tid" != "$qemu" ] || continue
		read -r ns rest <"$t/schedstat" 2>/dev/null || continue
		echo "$ns $tid"
	done >"$tmp/threads"
	mapfile -t vcpu_tid < <(sort -rn "$tmp/threads" | head -n 2 |
				awk '{ print $2 }' | sort -n)
	[ ${#vcpu_tid[@]} -eq 2 ]
}

# vcpu_ns: the run times in ns of the forwarding vCPU's thread and of the
# other one into $ns_fwd and $ns_other, or "-".  Sets variables rather than
# printing: no fork between the guest's mark and the reading.
fwd_cpu=1
ns_fwd=-
ns_other=-
vcpu_ns() {
	local rest

	ns_fwd=- ns_other=-
	# Counting instructions, the guest clock measures the work.
	[ -z "$icount" ] || return 0
	if [ -z "$qemu" ] && ! find_vcpus; then
		qemu=none
		echo "forward: no QEMU vCPU threads found; CPU-time figures" \
		     "left out" >&2
	fi
	[ "$qemu" != none ] || return 0
	read -r ns_fwd rest \
		<"/proc/$qemu/task/${vcpu_tid[fwd_cpu]}/schedstat" || ns_fwd=-
	read -r ns_other rest \
		<"/proc/$qemu/task/${vcpu_tid[1 - fwd_cpu]}/schedstat" ||
		ns_other=-
	# A thread taken for a vCPU that ended: no figure, rather than a
	# wrong one.
	[ "$ns_fwd" != - ] && [ "$ns_other" != - ] || ns_fwd=- ns_other=-
}

# Handle the guest's output line by line, as it comes: progress to the
# terminal, samples into $samples with the vCPUs' run times and the host's
# time between their marks.
begin=(- - 0) end=(- - 0)
handle() {
	local -a f
	local pps cpu=- other=- share=

	read -r -a f <<<"$1"
	case ${f[0]:-} in
	info)
		[ "${f[1]}" != fwd_cpu ] || fwd_cpu=${f[2]} ;;
	mark)
		vcpu_ns
		if [ "${f[1]}" = begin ]; then
			begin=("$ns_fwd" "$ns_other" "${EPOCHREALTIME/[.,]/}")
		else
			end=("$ns_fwd" "$ns_other" "${EPOCHREALTIME/[.,]/}")
		fi ;;
	sample)
		if [ "${begin[0]}" != - ] && [ "${end[0]}" != - ]; then
			cpu=$((end[0] - begin[0]))
			other=$((end[1] - begin[1]))
			share=", vCPUs had $((cpu / 10 / (end[2] - begin[2] + 1)))%"
			share+=" (forwarding) and"
			share+=" $((other / 10 / (end[2] - begin[2] + 1)))%"
			share+=" of a host CPU"
		fi
		echo "${f[*]:1} $cpu $((end[2] - begin[2])) $other" >>"$samples"
		pps=$((f[4] * 1000000 / f[3]))
		printf 'forward: round %s %-16s %7d packets/s%s\n' \
			"${f[1]}" "${f[2]}" "$pps" "$share"
		begin=(- - 0) end=(- - 0) ;;
	*)
		echo "$1" ;;
	esac
}

echo "forward: kernel $kver, $rounds rounds x ${duration}s, placement" \
     "$placement, sink $sink; VM logs in $out"
mkfifo "$tmp/out" || die "mkfifo"
samples=$out/samples.txt
: >"$samples"
# maxcpus=1: see guest.sh. vm-run.sh boots without cmpxchg16b: under
# -icount, QEMU 7.2 twice set the trap flag after one in SLUB's allocation
# fast path (a debug exception, then a double fault, in pktgen's
# allocations).
ARS_VM_ICOUNT=$icount ARS_VM_CMDLINE=${icount:+maxcpus=1} \
	"$top/tools/testing/vm/vm-run.sh" -k "$kver" \
	-m "$ko" -o "$out" \
	-t "$timeout" -c 2 -- "$here/guest.sh" -d "$duration" -r "$rounds" \
	-w "$warmup" -p "$placement" -s "$sink" -g "$buckets" \
	-c "$configs" >"$tmp/out" &
vm_pid=$!
while IFS= read -r line; do
	handle "$line"
done <"$tmp/out"
wait "$vm_pid"
rc=$?
vm_pid=
if [ $rc -ne 0 ]; then
	echo "forward: the VM run failed (exit $rc); logs in $out" >&2
	exit $rc
fi
[ -s "$samples" ] || die "no samples; logs in $out"

# Fields of a sample: round config usecs fwd a0 a1 a2 a3 fwd_drop sent
# gen_drop ars_packets ars_steered ars_flowlets cpu_ns host_usecs
# other_cpu_ns.
awk -v kver="$kver" -v configs="$configs" -v rounds="$rounds" \
    -v duration="$duration" -v warmup="$warmup" -v placement="$placement" \
    -v sink="$sink" -v icount="$icount" -v buckets="$buckets" \
    -v fwd_cpu="$fwd_cpu" -v json="$json" -v commit="$commit" \
    -v ko_sum="$ko_sum" -v cmdline="$cmdline" -v date="$date" '
function median(v, n,    i, j, t, s) {
	for (i = 1; i <= n; i++)
		s[i] = v[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && s[j - 1] > s[j]; j--) {
			t = s[j]; s[j] = s[j - 1]; s[j - 1] = t
		}
	return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}
function minmax(v, n, want_max,    i, m) {
	m = v[1]
	for (i = 2; i <= n; i++)
		if (want_max ? v[i] > m : v[i] < m)
			m = v[i]
	return m
}
# stats(KIND): per configuration, median/min/max of KIND (pps, cpps or
# own) and the median of the per-round ratios to the reference.
function stats(kind,    c, r, n, m, v, rv) {
	for (c = 1; c <= nc; c++) {
		n = m = 0
		split("", v); split("", rv)
		for (r = 1; r <= rounds; r++) {
			if (!((conf[c], r, kind) in val))
				continue
			v[++n] = val[conf[c], r, kind]
			if ((conf[ref], r, kind) in val &&
			    val[conf[ref], r, kind] > 0) {
				ratio[conf[c], r, kind] = v[n] / val[conf[ref], r, kind]
				rv[++m] = ratio[conf[c], r, kind]
			}
		}
		cnt[c, kind] = n
		if (n) {
			med[c, kind] = median(v, n)
			lo[c, kind] = minmax(v, n, 0)
			hi[c, kind] = minmax(v, n, 1)
		}
		if (m)
			rmed[c, kind] = median(rv, m)
	}
}
function table(kind, title,    c, r, line, spread, rm, mm, extra) {
	printf "\n%s\n", title
	extra = kind == "own" ? sprintf(" %7s %6s", "ns/pkt", "+ns") : ""
	printf "%-" w "s %9s %9s %9s %7s  %-6s %-6s%s  %s\n", "configuration",
	       "median", "min", "max", "spread", "ratio", "m/m", extra,
	       "ratio per round"
	for (c = 1; c <= nc; c++) {
		if (!cnt[c, kind])
			continue
		line = ""
		for (r = 1; r <= rounds; r++)
			line = line sprintf(" %5s", fmt_ratio(conf[c], r, kind, "-"))
		spread = 0
		if (med[c, kind])
			spread = 100 * (hi[c, kind] - lo[c, kind]) / med[c, kind]
		rm = mm = "-"
		if ((c, kind) in rmed)
			rm = sprintf("%.3f", rmed[c, kind])
		if (cnt[ref, kind] && med[ref, kind] > 0)
			mm = sprintf("%.3f", med[c, kind] / med[ref, kind])
		extra = ""
		if (kind == "own")
			extra = sprintf(" %7.0f %+6.0f", 1e9 / med[c, kind],
					1e9 / med[c, kind] - 1e9 / med[ref, kind])
		printf "%-" w "s %9.0f %9.0f %9.0f %6.1f%%  %-6s %-6s%s %s\n",
		       conf[c], med[c, kind], lo[c, kind], hi[c, kind], spread,
		       rm, mm, extra, line
	}
}
function jnum(x) {
	return x == "" || x == "-" ? "null" : x
}
function jstats(c, kind) {
	if (!cnt[c, kind])
		return "null"
	return sprintf("{\"median\": %.0f, \"min\": %.0f, \"max\": %.0f}",
		       med[c, kind], lo[c, kind], hi[c, kind])
}
function fmt_ratio(name, r, kind, none) {
	if ((name, r, kind) in ratio)
		return sprintf("%.3f", ratio[name, r, kind])
	return none
}
function jratios(c, kind,    r, s, m, mm) {
	m = "null"
	if ((c, kind) in rmed)
		m = sprintf("%.4f", rmed[c, kind])
	mm = "null"
	if (cnt[c, kind] && cnt[ref, kind] && med[ref, kind] > 0)
		mm = sprintf("%.4f", med[c, kind] / med[ref, kind])
	s = "{\"median\": " m ", \"of_medians\": " mm ", \"per_round\": ["
	for (r = 1; r <= rounds; r++)
		s = s (r > 1 ? ", " : "") fmt_ratio(conf[c], r, kind, "null")
	return s "]}"
}
BEGIN {
	nc = split(configs, conf, " ")
	w = length("configuration")
	# The reference of the ratios: absent, else the first configuration;
	# the base of the cost of r1 alone: nofwd, if measured.
	ref = 1
	base = 0
	for (c = 1; c <= nc; c++) {
		if (length(conf[c]) > w)
			w = length(conf[c])
		if (conf[c] == "absent")
			ref = c
		if (conf[c] == "nofwd")
			base = c
	}
}
{
	r = $1; c = $2
	val[c, r, "pps"] = $4 * 1e6 / $3
	# Counting instructions, the guest clock is the measure of work.
	if (icount != "")
		val[c, r, "cpps"] = val[c, r, "pps"]
	else if ($15 != "-" && $15 > 0)
		val[c, r, "cpps"] = $4 * 1e9 / $15
	if ($15 != "-" && $15 > 0) {
		share[c, r] = $16 > 0 ? $15 / ($16 * 1000) : ""
		oshare[c, r] = $16 > 0 ? $17 / ($16 * 1000) : ""
	}
	raw[c, r] = $0
}
END {
	printf "\nars forwarding benchmark: kernel %s, r1 forwards 64-byte UDP " \
	       "(random ports) over 4 %s%s;\n", kver,
	       sink == "r2" ? "veth links to r2" : "dummy devices",
	       buckets ? ", a resilient group of " buckets " buckets" : ""
	printf "%d rounds of %d s per configuration, placement %s " \
	       "(forwarding on vCPU %d), sink %s; ars %s\n", rounds, duration,
	       placement, fwd_cpu, sink, commit
	# With "split" the forwarding vCPU runs r1 alone already, and nofwd
	# leaves it mostly idle: no subtraction.
	if (placement != "same")
		base = 0
	# The cost of r1 alone per packet in a round: the forwarding vCPU time
	# per packet minus that of nofwd, as a rate (packets per CPU-second of
	# the forwarding alone), so that its ratios compare like the others.
	for (c = 1; c <= nc; c++) {
		if (c == base || !base)
			continue
		for (r = 1; r <= rounds; r++) {
			if (!((conf[c], r, "cpps") in val) ||
			    !((conf[base], r, "cpps") in val))
				continue
			cost = 1 / val[conf[c], r, "cpps"]
			cost -= 1 / val[conf[base], r, "cpps"]
			if (cost > 0)
				val[conf[c], r, "own"] = 1 / cost
		}
	}
	stats("pps"); stats("cpps"); stats("own")
	if (icount != "")
		printf "instructions counted: QEMU -icount shift=%s, %d ns " \
		       "of guest time per instruction\n", icount, 2 ^ icount
	table("pps", "packets/s forwarded by r1 (" \
	      (icount != "" ? "guest clock" : "wall clock") "); ratio to " \
	      conf[ref] " in the same round")
	table("cpps", icount != "" ? "packets per second of guest time " \
	      "(instructions); ratio to " conf[ref] " in the same round" : \
	      "packets per second of host CPU time of the forwarding " \
	      "vCPU; ratio to " conf[ref] " in the same round")
	if (base)
		table("own", "r1 alone: the same minus the cost per packet of " \
		      "nofwd; ratio to " conf[ref] " in the same round")
	printf "\nspread: (max - min) / median; ratio: median of the ratios " \
	       "per round; m/m: median / median of %s", conf[ref]
	if (base)
		printf ";\nnofwd: frames r1 receives and drops unrouted (its " \
		       "rate counts those); ns/pkt: 1e9 / median, %s " \
		       "per packet; +ns: more than %s",
		       icount != "" ? "guest ns (instructions)" : "host CPU ns",
		       conf[ref]
	printf "\n"

	printf "{\n  \"benchmark\": \"forward\",\n  \"kernel\": \"%s\",\n", kver >json
	printf "  \"commit\": \"%s\",\n  \"ars_ko_sha256_prefix\": \"%s\",\n",
	       commit, ko_sum >json
	gsub(/\\/, "\\\\", cmdline)
	gsub(/"/, "\\\"", cmdline)
	printf "  \"command\": \"%s\",\n  \"date\": \"%s\",\n", cmdline,
	       date >json
	printf "  \"duration_s\": %d,\n  \"warmup_s\": %s,\n  \"rounds\": %d,\n",
	       duration, warmup, rounds >json
	printf "  \"placement\": \"%s\",\n  \"forwarding_vcpu\": %d,\n",
	       placement, fwd_cpu >json
	printf "  \"sink\": \"%s\",\n", sink >json
	printf "  \"resilient_buckets\": %d,\n", buckets >json
	printf "  \"icount_shift\": %s,\n", icount != "" ? icount : "null" >json
	printf "  \"traffic\": \"pktgen, 64-byte UDP, random source and " \
	       "destination ports, one destination, 4-way multipath\",\n" >json
	printf "  \"reference\": \"%s\",\n  \"base\": %s,\n", conf[ref],
	       base ? "\"" conf[base] "\"" : "null" >json
	printf "  \"configurations\": [\n" >json
	for (c = 1; c <= nc; c++) {
		printf "    {\n      \"name\": \"%s\",\n", conf[c] >json
		printf "      \"pps\": %s,\n", jstats(c, "pps") >json
		printf "      \"ratio\": %s,\n", jratios(c, "pps") >json
		printf "      \"pps_per_cpu_s\": %s,\n", jstats(c, "cpps") >json
		printf "      \"ratio_per_cpu_s\": %s,\n", jratios(c, "cpps") >json
		printf "      \"own_pps_per_cpu_s\": %s,\n", jstats(c, "own") >json
		printf "      \"own_ratio\": %s,\n", jratios(c, "own") >json
		printf "      \"samples\": [" >json
		n = 0
		for (r = 1; r <= rounds; r++) {
			if (!((conf[c], r) in raw))
				continue
			split(raw[conf[c], r], f, " ")
			cs = sh = osh = "null"
			if (f[15] != "-")
				cs = sprintf("%.6f", f[15] / 1e9)
			if (share[conf[c], r] != "")
				sh = sprintf("%.3f", share[conf[c], r])
			if (oshare[conf[c], r] != "")
				osh = sprintf("%.3f", oshare[conf[c], r])
			printf "%s\n        {\"round\": %d, \"seconds\": %.6f, " \
			       "\"forwarded\": %d, \"per_link\": [%d, %d, %d, %d], " \
			       "\"forward_dropped\": %d, \"pktgen_sent\": %d, " \
			       "\"pktgen_dropped\": %d, \"ars_packets\": %s, " \
			       "\"ars_steered\": %s, \"ars_flowlets\": %s, " \
			       "\"vcpu_cpu_s\": %s, " \
			       "\"vcpu_share\": %s, \"other_vcpu_share\": %s}",
			       n++ ? "," : "", r, f[3] / 1e6,
			       f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11],
			       jnum(f[12]), jnum(f[13]), jnum(f[14]), cs, sh, osh >json
		}
		printf "\n      ]\n    }%s\n", c < nc ? "," : "" >json
	}
	printf "  ]\n}\n" >json
	printf "\nresults: %s\n", json
}' "$samples"
