#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric benchmark, inside the test VM (demo.sh runs it there through
# vm-run.sh, with ars.ko loaded): a two-tier Clos of network namespaces,
# every router running ars with its own seed, TCP long flows (iperf3)
# between the hosts, every workload in every mode. It only measures; the
# tables and the chart are made on the host by report.py from OUT/raw.
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
# Workloads:
#   a  rail-aligned: host h of leaf l sends to host h of leaf l + L/2
#   b  a random permutation of all hosts (seed -s), no host to itself
#   c  a with the link l1-s4 at a quarter of RATE, both ways
#   d  a with spine s4's port to leaf l3 (-U) at a quarter of RATE, one
#      way, and marking: RED with ECN under its tbf, the hosts' TCP
#      negotiating ECN (tcp_ecn=1, cubic: RFC 3168 echoes). No leaf sees
#      that link, only l1's flows to l3 cross it: the case of remote
#      congestion (ars.rst), which only a mode MODE+remote can see. Not
#      in the default workloads: make demo DEMO_ARGS='-W d -m "..."'.
# Modes: ars modes (ecmp is the kernel's own hash of the 5-tuple at each
# router, not the sending socket's hash that veth carries), plus "pinned"
# for a: static routes that put rail h on spine h, the perfect placement,
# which shows what this VM can carry at all; it runs first, and ping
# measures the RTT under load meanwhile.
#
# Profile: every router gets ars fabric-rtt set to the fabric's base RTT
# (-B), and nothing else: the idle time (4 x fabric-rtt), the sampling
# interval, the flowlet window (a quarter of it, unless -X), the signal
# v3 and its tau are the kernel's derived defaults
# (ars.rst, "Derived defaults"). The base RTT is computed, not measured:
# a tbf with a full bucket lets an idle path's packets through at veth
# speed, so a ping on the idle fabric sees almost nothing, while a path
# in use serialises at RATE; the base RTT is then one full-size frame
# (MTU + Ethernet header) on each of the 4 links host - leaf - spine -
# leaf - host and one bare ACK (66 bytes) on each of the 4 back: 50.6 ms
# at 1 Mbit/s. -i, -I and -E set that figure explicitly instead. -B off
# is the profile before fabric-rtt: idle time twice the RTT under load
# (-F), sampling interval 2 frames, ewma-shift 2. Why twice and not the
# usual half: here a path's queue (8 frames, 97 ms at 1 Mbit/s) holds
# more than half the RTT under load, so a flowlet that moved after half
# an RTT could overtake its predecessor; the sweep shows it (at 0.5 RTT
# the flowlet modes reorder a few % of the segments, at 2 RTT almost
# none). Either way flowlet-quality on a also runs at the multiples of
# the RTT under load in -f, each with an explicit idle time.
#
# A mode MODE+remote, such as flowlet-quality+remote, is MODE with ars
# remote on and remote-half-life of -K on every router (every other run
# has remote off); it may take a window too: MODE+remote:WINDOW.
# The half-life, by default 4 x fabric-rtt (the derived idle time, 202 ms
# at 1 Mbit/s, which the kernel rounds to a power of two ns, 268 ms): an
# echo must still count when the next flowlet chooses, an idle time or
# more later, and a classic-ECN flow echoes once per round trip under
# load (0.1 to 0.5 s through a slowed port); once the port stops marking,
# its score fades within a second, so that it carries its share again.
#
# A mode MODE:WINDOW, such as flowlet-quality:100ms, is MODE with ars
# flowlet-window WINDOW on every router (for that long after a new
# flowlet took a port, flowlet-quality ranks the port busy), reported as
# a mode of its own; every other flowlet run has the flowlet-window of
# -X, by default auto (fabric-rtt's derived one, or off with -B off), and
# every other run has it off, so that no run inherits another's window.
#
# -R N repeats every workload's runs N times, interleaved (all of its
# modes, then the sweep, then all of them again), with new connections
# each time; report.py gives the mean of every figure and the range of
# the main ones. The RTT is measured once, in the first run, and link
# l1-s4 degraded once, before the first run of c.
#
# OUT/raw/config holds the settings; OUT/raw/NN-W-MODE[-wWINDOW][-idleX][-rK]/
# per run (NN counts the runs in the order they ran; -rK, the repetition,
# only with -R above 1):
#   meta         key=value: workload, mode, idle_us, rep, start times, ...
#   flows        "SRC DST" per flow
#   iperf-N.json iperf3 -J of flow N (warm-up omitted)
#   snap-a, snap-b  counters at the start and the end of the window
#   ars-a, ars-b arsctl stats of every router before and after the run
#   profile      arsctl -j show of every router, as the run had it
#   left-out     why the run was left out (then it has no meta)
#   paths-l1.json  arsctl paths of leaf l1 halfway through
#   ping-N.txt   full-size ping under load (first run only)

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
source "$top/tools/testing/selftests/net/ars/lib.sh"
NS_PREFIX=fab$$

rate=1000		# kbit/s of every link
queue=8			# tbf queue, full frames
burst=8			# tbf bucket, full frames
warm=3			# s of every flow omitted from the figures
dur=12			# s measured
fabric_rtt=auto		# ars fabric-rtt: auto, the computed base RTT; off
idle=derived		# flowlet idle time; derived: fabric-rtt's (auto
			# with fabric-rtt off); auto: RTT under load x factor
factor=2		# auto idle time, in RTTs under load
factors="0.25 0.5 1 2"	# idle-time sweep, in RTTs, flowlet-quality on a
modes="ecmp packet-random flowlet-random flowlet-quality"
window=auto		# ars flowlet-window of the flowlet modes without their own
workloads="a b c"
remote_half=auto	# ars remote-half-life of the +remote modes; auto:
			# 4 x fabric-rtt
sampling=derived	# ars sampling-interval; derived: fabric-rtt's
			# (auto with fabric-rtt off); auto: 2 frames of RATE
ewma=derived		# ars ewma-shift; derived: the kernel's (2 with
			# fabric-rtt off)
seed=1			# the permutation of b
degrade="1 4 4"		# workload c: leaf, spine, rate divisor
degrade_down="4 3 4"	# workload d: spine, leaf, rate divisor
capacity=1		# measure the unshaped fabric first
FAB_GSO_SEGS=		# frames per host TSO packet, "": the kernel's
FAB_WAVE_MS=500		# flows start in waves this far apart
pinned=1		# run the pinned placement on a
reps=1			# runs of every workload's modes and sweep
out=/results

usage()
{
	cat <<EOF
usage: $0 [options]   (as root, with ars.ko loaded; normally run by demo.sh)
  -L N       leaves ($FAB_LEAVES)          -S N     spines ($FAB_SPINES)
  -H N       hosts per leaf ($FAB_HOSTS)
  -r KBIT    rate of every link, kbit/s ($rate)
  -q N       tbf queue, full frames ($queue)
  -b N       tbf bucket, full frames ($burst)
  -w S       warm-up, omitted ($warm)       -d S     measured ($dur)
  -B TIME    ars fabric-rtt of every router, auto: the base RTT computed
             from the rate and the MTU, or off ($fabric_rtt)
  -i TIME    flowlet idle time, derived: fabric-rtt's, or auto: RTT
             under load x -F ($idle)
  -F X       idle time of auto, in RTTs under load ($factor)
  -f "X.."   idle-time sweep of flowlet-quality on a, in RTTs ($factors)
  -m "M.."   modes ($modes);
             MODE:WINDOW, such as flowlet-quality:100ms, is MODE with
             ars flowlet-window WINDOW; MODE+remote[:WINDOW], such as
             flowlet-quality+remote, is MODE with ars remote on
  -K TIME    ars remote-half-life of the +remote modes, auto: 4 x
             fabric-rtt ($remote_half)
  -X TIME    ars flowlet-window of the flowlet modes without their own,
             off, or auto: derived from fabric-rtt ($window)
  -W "W.."   workloads, of a b c d ($workloads)
  -I TIME    ars sampling-interval, derived: fabric-rtt's, or auto: 2
             frames at the rate ($sampling)
  -E N       ars ewma-shift, or derived: the kernel's ($ewma)
  -s SEED    permutation of workload b ($seed)
  -D "L S K" workload c: link leaf L - spine S at rate / K ($degrade)
  -U "S L K" workload d: spine S's port to leaf L at rate / K, marking
             ($degrade_down)
  -G N       frames per host TSO packet, "" for the kernel's ($FAB_GSO_SEGS)
  -T MS      flows start in waves MS apart, by host number; 0: at once ($FAB_WAVE_MS)
  -R N       repeat every workload's runs, and the sweep of a, N times,
             interleaved: all modes, all modes again, ... ($reps); the RTT
             under load is measured once, in the first run
  -P         skip the capacity probe       -N       skip the pinned run
  -o DIR     results go to DIR/raw ($out)
EOF
}

log()
{
	printf '# [%s] %s\n' "${EPOCHREALTIME%.*}" "$*"
}

die()
{
	echo "fabric: $*" >&2
	exit 1
}

parse_args()
{
	local o

	while getopts "L:S:H:r:q:b:w:d:B:i:F:f:m:X:K:W:I:E:s:D:U:G:T:R:PNo:h" o; do
		case $o in
		L) FAB_LEAVES=$OPTARG ;;
		S) FAB_SPINES=$OPTARG ;;
		H) FAB_HOSTS=$OPTARG ;;
		r) rate=$OPTARG ;;
		q) queue=$OPTARG ;;
		b) burst=$OPTARG ;;
		w) warm=$OPTARG ;;
		d) dur=$OPTARG ;;
		B) fabric_rtt=$OPTARG ;;
		i) idle=$OPTARG ;;
		F) factor=$OPTARG ;;
		f) factors=$OPTARG ;;
		m) modes=$OPTARG ;;
		X) window=$OPTARG ;;
		K) remote_half=$OPTARG ;;
		W) workloads=$OPTARG ;;
		I) sampling=$OPTARG ;;
		E) ewma=$OPTARG ;;
		s) seed=$OPTARG ;;
		D) degrade=$OPTARG ;;
		U) degrade_down=$OPTARG ;;
		G) FAB_GSO_SEGS=$OPTARG ;;
		T) FAB_WAVE_MS=$OPTARG ;;
		R) reps=$OPTARG ;;
		P) capacity=0 ;;
		N) pinned=0 ;;
		o) out=$OPTARG ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
}

# us_of TIME: microseconds of "12.5ms", "800us", "1s", "2000ns".
us_of()
{
	local t=$1 num unit int frac

	num=${t%%[a-z]*}
	unit=${t#"$num"}
	int=${num%%.*}
	frac=
	[[ $num == *.* ]] && frac=${num#*.}
	frac=${frac}000000000
	case $unit in
	s) echo $((10#${int:-0} * 1000000 + 10#${frac:0:6})) ;;
	ms) echo $((10#${int:-0} * 1000 + 10#${frac:0:3})) ;;
	us|'') echo $((10#${int:-0})) ;;
	ns) echo $((10#${int:-0} / 1000)) ;;
	*) return 1 ;;
	esac
}

# base_rtt_us: the fabric's base RTT at RATE, in us: a full-size frame
# (the veths' MTU, 1500, and the Ethernet header) on each link of the
# path there (host, leaf, spine, leaf, host: 4) and a bare ACK (20 + 32 +
# 14 bytes, with timestamps) on each link back, with empty queues;
# propagation is nil on veth.
base_rtt_us()
{
	local frame=1514 ack=66 links=4

	echo $((links * (frame + ack) * 8 * 1000 / rate))
}

check_args()
{
	local v

	for v in "$rate" "$queue" "$burst" "$warm" "$dur" "$seed" "$reps"; do
		[[ $v =~ ^[0-9]+$ ]] || die "not a whole number: $v"
	done
	reps=$((10#$reps))
	[ "$reps" -ge 1 ] || die "repeat at least once"
	[ "$rate" -ge 100 ] || die "rate below 100 kbit/s"
	[ "$dur" -ge 2 ] || die "measure at least 2 s"
	fabric_rtt_from=option
	case $fabric_rtt in
	auto)
		fabric_rtt=$(base_rtt_us)us
		fabric_rtt_from=computed
		;;
	off) ;;
	*) us_of "$fabric_rtt" >/dev/null || die "bad fabric-rtt: $fabric_rtt" ;;
	esac
	if [ "$fabric_rtt" = off ]; then
		# The profile before fabric-rtt: every figure explicit.
		[ "$idle" != derived ] || idle=auto
		[ "$sampling" != derived ] || sampling=auto
		[ "$ewma" != derived ] || ewma=2
	fi
	[ "$ewma" = derived ] || [[ $ewma =~ ^[0-9]+$ ]] ||
		die "bad ewma-shift: $ewma"
	case $idle in
	derived|auto) ;;
	*) us_of "$idle" >/dev/null || die "bad idle time: $idle" ;;
	esac
	if [ "$sampling" = auto ]; then
		# Two full frames at the rate: every rate sample of the qdisc
		# holds a packet or more (100 us, the default, is made for
		# 10 Gbit/s, where it holds about 80).
		sampling=$((2 * 1514 * 8 * 1000 / rate))us
	fi
	[ "$sampling" = derived ] || us_of "$sampling" >/dev/null ||
		die "bad sampling interval: $sampling"
	[ "$window" = off ] || [ "$window" = auto ] ||
		us_of "$window" >/dev/null || die "bad flowlet-window: $window"
	for v in $modes; do
		[[ ${v%%:*} != *+* ]] || [[ ${v%%:*} == flowlet-*+remote ]] ||
			die "remote only with a flowlet mode: $v"
		[[ $v != *:* ]] || [ "${v#*:}" = off ] || [ "${v#*:}" = auto ] ||
			{ [ -n "${v#*:}" ] && us_of "${v#*:}" >/dev/null; } ||
			die "bad flowlet-window in mode $v"
	done
	fab_check_size || exit 2
	read -r deg_leaf deg_spine deg_div <<<"$degrade"
	[ "${deg_leaf:-0}" -ge 1 ] && [ "$deg_leaf" -le "$FAB_LEAVES" ] &&
		[ "${deg_spine:-0}" -ge 1 ] && [ "$deg_spine" -le "$FAB_SPINES" ] &&
		[ "${deg_div:-0}" -ge 1 ] || die "bad degraded link: $degrade"
	read -r down_spine down_leaf down_div <<<"$degrade_down"
	[ "${down_leaf:-0}" -ge 1 ] && [ "$down_leaf" -le "$FAB_LEAVES" ] &&
		[ "${down_spine:-0}" -ge 1 ] && [ "$down_spine" -le "$FAB_SPINES" ] &&
		[ "${down_div:-0}" -ge 1 ] ||
		die "bad degraded downlink: $degrade_down"
	if [ "$remote_half" = auto ]; then
		[ "$fabric_rtt" != off ] ||
			die "-K auto needs fabric-rtt: give -K a time"
		remote_half=$((4 * $(us_of "$fabric_rtt")))us
	fi
	us_of "$remote_half" >/dev/null || die "bad remote-half-life: $remote_half"
}

cleanup()
{
	fab_destroy
}

write_config()
{
	cat >"$raw/config" <<EOF
leaves=$FAB_LEAVES
spines=$FAB_SPINES
hosts=$FAB_HOSTS
rate_kbit=$rate
queue_frames=$queue
burst_frames=$burst
warm_s=$warm
dur_s=$dur
sampling=$sampling
ewma_shift=$ewma
seed=$seed
degrade_leaf=$deg_leaf
degrade_spine=$deg_spine
degrade_div=$deg_div
degrade_down_spine=$down_spine
degrade_down_leaf=$down_leaf
degrade_down_div=$down_div
remote_half_life=$remote_half
kernel=$(uname -r)
cpus=$(nproc)
gso_segs=$FAB_GSO_SEGS
wave_ms=$FAB_WAVE_MS
reps=$reps
flowlet_window=$window
EOF
}

# Pinned placement of workload a: every leaf sends to host h of another
# leaf over spine h (modulo the spines), so each uplink and each spine
# downlink carries one flow.
pin_batch()
{
	local op=$1 l=$2 d h s

	for ((d = 1; d <= FAB_LEAVES; d++)); do
		[ "$d" -ne "$l" ] || continue
		for ((h = 1; h <= FAB_HOSTS; h++)); do
			s=$(((h - 1) % FAB_SPINES + 1))
			echo "route $op 10.$d.$h.0/24 via 172.$((15 + s)).$l.2 dev s$s"
		done
	done
}

# pin add|del: the pinned routes on every leaf. add stops at the first
# error; del goes on over the errors (-force), so that it also removes
# what a failed add left.
pin()
{
	local l rc=0

	for ((l = 1; l <= FAB_LEAVES; l++)); do
		if [ "$1" = del ]; then
			pin_batch del "$l" |
				ip -force -n "$(ns "l$l")" -batch - || rc=1
		else
			pin_batch "$1" "$l" |
				ip -n "$(ns "l$l")" -batch - || return 1
		fi
	done
	return $rc
}

# ping_under_load DIR SECONDS: one ping per leaf, from its host 1 to that
# host's destination, for SECONDS from now: the measured window, where
# every flow runs (the first flows end before the last ones, so a ping to
# the end of the last flow would see an emptying fabric). Full-size
# frames: at these rates a frame's serialisation, hop after hop, is most
# of a data packet's round trip, which a 64-byte ping would miss.
ping_under_load()
{
	local dir=$1 secs=$2 src dst n=0

	while read -r src dst; do
		[[ $src == *h1 ]] || continue
		nsenter --net="/run/netns/$(ns "$src")" ping -q -i 0.5 \
			-s 1472 -M "do" -w "$secs" "$(fab_addr "$dst")" \
			>"$dir/ping-$n.txt" 2>&1 &
		ping_pids+=($!)
		n=$((n + 1))
	done <"$dir/flows"
}

# rtt_us DIR: the mean of the pings' average RTTs, in us.
rtt_us()
{
	local f line sum=0 n=0 avg

	for f in "$1"/ping-*.txt; do
		while IFS= read -r line; do
			[[ $line == rtt* ]] || continue
			avg=${line#*= }
			avg=${avg#*/}
			avg=${avg%%/*}
			sum=$((sum + $(us_of "${avg}ms")))
			n=$((n + 1))
		done <"$f"
	done
	[ $n -gt 0 ] || return 1
	echo $((sum / n))
}

# left_out DIR WORKLOAD MODE REASON: log that the run in DIR is left out
# of the results, and why; DIR/left-out says it too (report.py lists
# those runs), and DIR has no meta, so report.py reads nothing else of it.
left_out()
{
	local dir=$1 wl=$2 mode=$3 why=$4

	log "run left out: $wl $mode run $rep: $why (see $dir)"
	echo "$why" >"$dir/left-out"
}

# ars_show: "@ profile NAME {json}" per router, arsctl -j show.
ars_show()
{
	local r

	for r in "${FAB_ROUTER[@]}"; do
		echo "@ profile $r $(arsctl_ns "$r" -j show | tr -d '\n')"
	done
}

# run ID WORKLOAD MODE IDLE FLOWFILE [ping]: one measurement. IDLE is
# the idle time in us, "derived" for fabric-rtt's (main's MAIN_IDLE), or
# empty. MODE may be MODE:WINDOW, MODE with that flowlet-window; else the
# window is -X's in a flowlet mode, off in the others. Fails, and logs
# why, when the run has to be left out; then no client of it runs on and
# the pinned routes are gone.
run()
{
	local id=$1 wl=$2 mode=$3 idle_us=$4 flows=$5 ping=${6:-}
	local dir=$raw/$id ta tb total label=$3 base=${3%%:*} win=$window
	local idle_arg=$4 idle_derived=0 remote=off
	local -a ping_pids=() remote_args=(remote off)

	mkdir -p "$dir"
	cp "$flows" "$dir/flows"
	if [[ $base == *+remote ]]; then
		base=${base%+remote}
		remote=on
		remote_args=(remote on remote-half-life "$remote_half")
	fi
	[[ $base == flowlet-* ]] || win=off
	[[ $mode != *:* ]] || win=${mode#*:}
	if [ "$idle_us" = derived ]; then
		# Back to following fabric-rtt, after the sweep's explicit ones.
		idle_derived=1
		idle_us=$main_idle
		idle_arg=auto
	elif [ -n "$idle_us" ]; then
		idle_arg=${idle_us}us
	fi
	[ -z "$idle_us" ] || label+=" idle ${idle_us}us"
	case $base in
	pinned|unshaped) fab_ars mode ecmp flowlet-window "$win" \
		"${remote_args[@]}" ;;
	*) fab_ars mode "$base" ${idle_arg:+idle-time "$idle_arg"} \
		flowlet-window "$win" "${remote_args[@]}" ;;
	esac || {
		left_out "$dir" "$wl" "$label" "arsctl set mode failed"
		return 1
	}
	ars_show >"$dir/profile"
	if [ "$base" = pinned ] && ! pin add; then
		# What of it went in must not stay for the next runs.
		pin del 2>/dev/null
		left_out "$dir" "$wl" "$label" "cannot add the pinned routes"
		return 1
	fi
	fab_ars_stats >"$dir/ars-a"
	if ! fab_start_flows "$dir" "$warm" "$dur" <"$dir/flows"; then
		# fab_start_flows has killed its clients; this makes sure, so
		# that none keeps a server busy for the next run.
		fab_kill_flows ||
			log "$id: a server is still busy after its clients ended"
		[ "$base" != pinned ] || pin del
		left_out "$dir" "$wl" "$label" "the flows did not all connect"
		return 1
	fi
	# Each test starts between FAB_T0 and FAB_T_ALL, and measures from
	# WARM s after its start for DUR s: the counters' window is inside
	# all of those, 0.5 s from their edges.
	ta=$((FAB_T_ALL + warm * 1000000 + 500000))
	tb=$((FAB_T0 + (warm + dur) * 1000000 - 500000))
	[ "$tb" -gt $((ta + 1000000)) ] || tb=$((ta + 1000000))
	fab_sleep_until "$ta"
	[ -z "$ping" ] || ping_under_load "$dir" $(((tb - ta) / 1000000))
	fab_snapshot >"$dir/snap-a"
	# What leaf 1 sees of its uplinks, halfway.
	fab_sleep_until $(((ta + tb) / 2))
	arsctl_ns l1 -j paths >"$dir/paths-l1.json"
	fab_sleep_until "$tb"
	fab_snapshot >"$dir/snap-b"
	fab_wait_flows || log "$id: a client failed, see $dir"
	# Not a bare wait: the fabric's servers are children of this shell.
	[ ${#ping_pids[@]} -eq 0 ] || wait "${ping_pids[@]}"
	[ "$base" != pinned ] || pin del
	fab_ars_stats >"$dir/ars-b"
	cat >"$dir/meta" <<EOF
id=$id
workload=$wl
mode=$mode
idle_us=$idle_us
idle_derived=$idle_derived
flowlet_window=$win
remote=$remote
rep=$rep
t0_us=$FAB_T0
t_all_us=$FAB_T_ALL
shaped=$shaped
degraded=$degraded
degraded_down=$degraded_down
ecn=$ecn
EOF
	total=$(fab_goodput "$dir")
	log "$id: workload $wl, $base${idle_us:+, idle ${idle_us}us}, flowlet-window $win, remote $remote: $total Mbit/s (tests started within $(((FAB_T_ALL - FAB_T0) / 1000)) ms)"
}

# next_id NAME: the id of the next run in main's ID: its number in the
# order of the runs, NAME and, with -R, the repetition.
next_id()
{
	n=$((n + 1))
	printf -v id '%0*d-%s' "$width" "$n" "$1"
	[ "$reps" -eq 1 ] || id+=-r$rep
}

# run_rep WORKLOAD RUNS FLOWFILE: one repetition of a workload, every mode
# in RUNS and then, on a, the idle-time sweep. The first run of all also
# measures the RTT under load, which sets main's RTT (and, with -i auto,
# MAIN_IDLE), when it is pinned or ecmp.
run_rep()
{
	local wl=$1 runs=$2 flows=$3 mode f us

	for mode in $runs; do
		# flowlet-quality:100ms runs in NN-W-flowlet-quality-w100ms.
		next_id "$wl-${mode/:/-w}"
		if [ -z "$rtt" ] && [ "$measure_rtt" = 1 ]; then
			# The first run measures the RTT under load: the pinned
			# one when there is one, where every path carries one
			# flow and each ping follows a flow.
			case ${mode%%:*} in
			pinned|ecmp) ;;
			*)
				[ -n "$main_idle" ] ||
					die "idle auto needs pinned or ecmp first, to measure the RTT"
				measure_rtt=0
				;;
			esac
		fi
		if [ -z "$rtt" ] && [ "$measure_rtt" = 1 ]; then
			# A run left out measured nothing: the next one, if it
			# is pinned or ecmp too, measures the RTT instead.
			run "$id" "$wl" "$mode" "" "$flows" ping || continue
			rtt=$(rtt_us "$raw/$id") || die "no RTT measured"
			echo "rtt_us=$rtt" >>"$raw/config"
			log "RTT under load ${rtt} us"
			[ -z "$main_idle" ] || continue
			main_idle=$(awk -v r="$rtt" -v f="$factor" \
				'BEGIN { printf "%d", r * f }')
			echo "idle_factor=$factor" >>"$raw/config"
			log "idle time ${main_idle} us"
			continue
		fi
		case $mode in
		flowlet-*) run "$id" "$wl" "$mode" "$main_idle_arg" "$flows" ;;
		*) run "$id" "$wl" "$mode" "" "$flows" ;;
		esac
	done
	[ "$wl" = a ] && [ -n "$rtt" ] || return 0
	for f in $factors; do
		[ "$idle" != auto ] || [ "$f" != "$factor" ] || continue
		us=$(awk -v r="$rtt" -v f="$f" 'BEGIN { printf "%d", r * f }')
		next_id "a-flowlet-quality-idle$f"
		run "$id" a flowlet-quality "$us" "$flows"
	done
}

# set_profile: ars on every router, with fabric-rtt (unless -B off) and
# the figures set explicitly; sets MAIN_IDLE (empty with -i auto: the
# first run sets it), MAIN_IDLE_ARG, the flowlet runs' IDLE, and
# MEASURE_RTT. With the derived idle time, MAIN_IDLE is what leaf l1's
# kernel derived; the config records the profile, as l1 has it.
set_profile()
{
	local -a args=(state on mode ecmp)
	local show

	[ "$fabric_rtt" = off ] || args+=(fabric-rtt "$fabric_rtt")
	[ "$sampling" = derived ] || args+=(sampling-interval "$sampling")
	[ "$ewma" = derived ] || args+=(ewma-shift "$ewma")
	[ "$idle" != derived ] || args+=(idle-time auto)
	fab_ars "${args[@]}" || return 1
	show=$(arsctl_ns l1 -j show) || return 1
	main_idle=
	main_idle_arg=
	measure_rtt=1
	case $idle in
	derived)
		[ "$(jq -r '.profile.source.idle_time_ns' <<<"$show")" = derived ] ||
			die "the kernel did not derive the idle time: $show"
		main_idle=$(jq -r '.profile.idle_time_ns / 1000 | floor' <<<"$show")
		main_idle_arg=derived
		;;
	auto) ;;
	*)
		main_idle=$(us_of "$idle")
		main_idle_arg=$main_idle
		measure_rtt=0
		;;
	esac
	{
		echo "profile=$([ "$fabric_rtt" = off ] && echo explicit ||
			echo derived)"
		if [ "$fabric_rtt" != off ]; then
			echo "fabric_rtt_us=$(us_of "$fabric_rtt")"
			echo "fabric_rtt_from=$fabric_rtt_from"
		fi
		echo "idle_mode=$idle"
		jq -r '.profile | "ars_idle_time_ns=\(.idle_time_ns)",
			"ars_idle_time_source=\(.source.idle_time_ns // "")",
			"ars_sampling_interval_ns=\(.sampling_interval_ns)",
			"ars_sampling_interval_source=\(.source.sampling_interval_ns // "")",
			"ars_flowlet_window_ns=\(.flowlet_window_ns // "")",
			"ars_flowlet_window_source=\(.source.flowlet_window_ns // "")",
			"ars_signal_tau_ns=\(.signal_tau_ns // "")",
			"ars_ewma_shift=\(.ewma_shift)"' <<<"$show"
	} >>"$raw/config"
}

# record_signal: the port signal of leaf l1's ars qdisc on s1 (v3,
# derived from fabric-rtt, unless -B off), into the config.
record_signal()
{
	TC_LIB_DIR=$ARS_TC_LIB_DIR tc -n "$(ns l1)" -s -j qdisc show dev s1 |
		jq -r '[.[] | select(.kind == "ars")][0] |
			(.ars // .xstats.ars // {}) |
			"qdisc_signal=\(.signal // "")",
			"qdisc_signal_derived=\(.signal_derived // "")",
			"qdisc_tau_ns=\(.tau_ns // "")",
			"qdisc_tau_derived=\(.tau_derived // "")"' \
		>>"$raw/config"
}

# host_ecn VALUE: net.ipv4.tcp_ecn of every host (1: request ECN; 2, the
# default: accept it only).
host_ecn()
{
	local h

	for h in "${FAB_HOST[@]}"; do
		nsenter --net="/run/netns/$(ns "$h")" \
			sh -c "echo $1 >/proc/sys/net/ipv4/tcp_ecn" || return 1
	done
}

# down_batch RATE_KBIT: tc -batch lines, for spine DOWN_SPINE, that put
# its port to leaf DOWN_LEAF back to a fresh ars over a tbf at RATE_KBIT
# (a replace would keep the tbf's child) and, below RATE, RED marking
# with ECN under the tbf: between 2 and 4 frames of average queue it
# marks ECT packets (drops the others) with a probability rising to 1,
# above 4 it marks them all, and it holds the tbf's queue (-q).
down_batch()
{
	local dev=l$down_leaf

	echo "qdisc del dev $dev root"
	fab_port_batch "$dev" "$1" "$queue" "$burst"
	[ "$1" -lt "$rate" ] || return 0
	echo "qdisc replace dev $dev parent 10:1 handle 20: red limit $((queue * 1514)) min $((2 * 1514)) max $((4 * 1514)) avpkt 1514 burst 3 probability 1.0 bandwidth ${1}kbit ecn"
}

# links_for WORKLOAD: the links as WORKLOAD has them: c degrades l1-s4
# (-D) both ways, d the spine's port of -U with marking and ECN on the
# hosts; each undoes the other's. a and b take the fabric as it is (c
# degrades it for what follows, as before d existed).
links_for()
{
	case $1 in
	c)
		if [ "$degraded_down" = 1 ]; then
			down_batch "$rate" | fab_tc "s$down_spine" ||
				die "cannot restore s$down_spine-l$down_leaf"
			host_ecn 2 || die "cannot turn ECN off"
			degraded_down=0
			ecn=0
			log "link s$down_spine-l$down_leaf back at $rate kbit/s, hosts without ECN"
		fi
		if [ "$degraded" = 0 ]; then
			degraded=1
			fab_link_rate "$deg_leaf" "$deg_spine" \
				$((rate / deg_div)) "$queue" "$burst" ||
				die "cannot degrade"
			log "link l$deg_leaf-s$deg_spine at $((rate / deg_div)) kbit/s"
		fi
		;;
	d)
		if [ "$degraded" = 1 ]; then
			fab_link_rate "$deg_leaf" "$deg_spine" "$rate" \
				"$queue" "$burst" || die "cannot restore"
			degraded=0
			log "link l$deg_leaf-s$deg_spine back at $rate kbit/s"
		fi
		if [ "$degraded_down" = 0 ]; then
			degraded_down=1
			down_batch $((rate / down_div)) | fab_tc "s$down_spine" ||
				die "cannot degrade s$down_spine-l$down_leaf"
			host_ecn 1 || die "cannot turn ECN on"
			ecn=1
			log "link s$down_spine-l$down_leaf at $((rate / down_div)) kbit/s, RED marking, hosts with ECN"
		fi
		;;
	esac
}

main()
{
	local n=0 width last wl flows rtt='' main_idle main_idle_arg id runs
	local measure_rtt

	parse_args "$@"
	check_args
	require_root
	require_cmd iperf3 nsenter timeout jq tc ip "$ARSCTL"
	ars_loaded || ars_load || die "ars.ko is not loaded"
	raw=$out/raw
	rm -rf "$raw"
	mkdir -p "$raw"
	trap cleanup EXIT
	write_config
	# Run numbers wide enough for the most runs there can be, so that
	# the ids sort in the order of the runs.
	last=$(($(wc -w <<<"$workloads") * ($(wc -w <<<"$modes") + 1)))
	last=$((1 + reps * (last + $(wc -w <<<"$factors"))))
	width=${#last}
	[ "$width" -ge 2 ] || width=2

	log "fabric: $FAB_LEAVES leaves x $FAB_SPINES spines, $FAB_HOSTS hosts per leaf; links ${rate} kbit/s; ${warm}+${dur} s per run, $reps of each; flowlet-window $window"
	fab_create || die "cannot build the fabric"
	fab_pids >"$raw/pids"
	fab_flows_rail >"$raw/flows-a"
	fab_flows_perm "$seed" >"$raw/flows-b"
	cp "$raw/flows-a" "$raw/flows-c"
	cp "$raw/flows-a" "$raw/flows-d"
	log "fabric up"
	# ars is on in every mode (ecmp leaves the packets to the kernel, with
	# their hash cleared so that each router hashes their 5-tuple), so
	# every run pays the same hook.
	set_profile || die "arsctl set failed"

	shaped=0
	degraded=0
	degraded_down=0
	ecn=0
	rep=1
	if [ "$capacity" = 1 ]; then
		run "$(printf '%0*d-capacity' "$width" 0)" a unshaped "" \
			"$raw/flows-a"
	fi
	shaped=1
	fab_shape "$rate" "$queue" "$burst" || die "cannot shape the links"
	log "links shaped"

	record_signal
	for wl in $workloads; do
		flows=$raw/flows-$wl
		links_for "$wl"
		runs=$modes
		[ "$wl" != a ] || [ "$pinned" != 1 ] || runs="pinned $runs"
		for ((rep = 1; rep <= reps; rep++)); do
			run_rep "$wl" "$runs" "$flows"
		done
	done
	echo "idle_us=$main_idle" >>"$raw/config"
	log "done"
}

main "$@"
