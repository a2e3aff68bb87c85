#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the forwarding benchmark: run.sh runs it under vm-run.sh,
# which has loaded ars.ko and exported ARS_KO.  It measures and asserts
# nothing; it exits non-zero only when the run itself broke.
#
#   guest.sh [-d SECONDS] [-r ROUNDS] [-w WARMUP] [-c "CONFIG..."]
#            [-p same|split] [-s dummy|r2] [-g BUCKETS]
#
# CONFIG is "nofwd" (frames that r1 receives but does not route, see
# configure), "absent" (ars.ko unloaded), "off" (loaded, state off) or a
# mode with state on (ecmp, flowlet-random, flowlet-quality, ...),
# optionally with more arsctl set keywords: "flowlet-quality,idle-time=1s".
# Each round measures every CONFIG once, odd rounds in the order given,
# even rounds backwards, so that the drifts of a shared host's load weigh
# on all of them alike.  pktgen runs throughout a round and the profile is
# switched under traffic; it stops only to load or unload ars.ko or to
# change its destination.
#
#   gen --g0/in0--> r1 --d0..d3   (-s dummy, the default)
#   pktgen          4-way multipath route over dummy devices
#
#   gen --g0/in0--> r1 ==a0..a3 / b0..b3==> r2   (-s r2)
#   pktgen          over 4 veth links          tc ingress drop
#
# pktgen sends 64-byte UDP frames with random source and destination ports
# (a new 5-tuple nearly every packet) to 198.51.100.1.  The figure is what
# r1 forwarded over the measured interval: tx_packets plus tx_dropped of
# its egress devices (a veth counts as tx_dropped what the peer's backlog
# refused, after r1 did all its work).  Not pktgen's own rate: a veth
# transmit only queues the packet to a CPU's backlog, which drops what it
# cannot take (netdev_max_backlog); with -p split the generator offers
# more than r1 forwards, and those drops are g0's tx_dropped.
#
# Output lines, parsed by run.sh ('#' lines are comments):
#   info fwd_cpu CPU
#   mark begin|end ROUND CONFIG
#   sample ROUND CONFIG USECS FORWARDED A0 A1 A2 A3 FWD_DROP SENT GEN_DROP
#          ARS_PACKETS ARS_STEERED ARS_FLOWLETS
# (A0..A3: tx_packets per egress device; ARS_*: ars's counters, "-" when
# absent.)
# A "mark" line is printed right after each counter snapshot: run.sh reads
# the CPU time of the forwarding vCPU's QEMU thread when it sees one.
set -u

duration=2
rounds=6
warmup=0.5
configs="nofwd absent off ecmp flowlet-random flowlet-quality"
placement='same'
sink='dummy'
buckets=0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../../.." && pwd)
# run.sh passes a copy (vm-run.sh forwards ARS_* variables).
ARSCTL=${ARS_ARSCTL:-$top/tools/arsctl/arsctl}

NS_GEN=fwdbench-gen
NS_R1=fwdbench-r1
NS_R2=fwdbench-r2
NLINKS=4
DST=198.51.100.1
BACKLOG=20000

# Fixed MAC addresses: pktgen needs r1's, r1's static neighbours r2's,
# and nofwd one that is nobody's.
MAC_G0=02:00:00:00:00:02
MAC_IN0=02:00:00:00:00:01
MAC_NONE=02:00:00:00:00:99
mac_a() { printf '02:00:00:01:%02x:01' "$1"; }
mac_b() { printf '02:00:00:01:%02x:02' "$1"; }

usage() {
	echo "usage: $0 [-d SECONDS] [-r ROUNDS] [-w WARMUP] [-c CONFIGS]" \
	     "[-p same|split] [-s dummy|r2] [-g BUCKETS]" >&2
	exit 2
}

while getopts ":d:r:w:c:p:s:g:" opt; do
	case $opt in
	d) duration=$OPTARG ;;
	r) rounds=$OPTARG ;;
	w) warmup=$OPTARG ;;
	c) configs=$OPTARG ;;
	p) placement=$OPTARG ;;
	s) sink=$OPTARG ;;
	g) buckets=$OPTARG ;;
	*) usage ;;
	esac
done
case $placement in
split | same) ;;
*) usage ;;
esac
case $sink in
r2) EGRESS=a ;;
dummy) EGRESS=d ;;
*) usage ;;
esac
[[ $buckets =~ ^[0-9]+$ ]] || usage

log() {
	echo "# $*"
}

die() {
	echo "# error: $*"
	exit 1
}

ars_loaded() {
	[ -d /sys/module/ars ]
}

keepers=()
pg_pid=
pg_dev=
pg_dst=
r1_net=
gen_net=

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -z "$pg_pid" ] || pg_stop
	[ ${#keepers[@]} -eq 0 ] || kill "${keepers[@]}" 2>/dev/null
	ip netns del "$NS_GEN" 2>/dev/null
	ip netns del "$NS_R1" 2>/dev/null
	ip netns del "$NS_R2" 2>/dev/null
	# vm-run.sh expects the module it loaded to still be there.
	ars_loaded || insmod "$ARS_KO"
}

# Where the work runs.  pktgen's thread kpktgend_0 is bound to CPU 0.  A
# veth transmit queues the packet to the transmitting CPU's backlog (or,
# with RPS, to the CPU that the receiving device's rps_cpus picks), and the
# NET_RX softirq of that CPU runs the receiving namespace's stack.
#
# same (default): no RPS.  r1 (and r2) run in the softirq that pktgen's
#   own local_bh_enable() raises on CPU 0, packet by packet: generator,
#   router (and sink) take turns on one CPU, the generator never outruns
#   the router, and nothing on the packets' path is shared between CPUs.
#   The rate is that of the whole chain, so the hook's cost is diluted in
#   it: the nofwd configuration measures the chain without r1's
#   forwarding, and run.sh subtracts it to get r1's own cost.  This script
#   and the interrupts stay on CPU 1.
# split: RPS sends r1's input (in0) to CPU 1 (and, with -s r2, r2's input
#   back to CPU 0).  CPU 1 runs r1's forwarding and nothing else; CPU 0
#   runs pktgen (with r2's drops), this script and the interrupts.  The
#   generator overloads CPU 1's backlog (its drops show as g0's
#   tx_dropped), so the rate is r1's forwarding capacity on one CPU.  But
#   both CPUs take CPU 1's backlog lock for every packet, and on a busy
#   host QEMU's vCPU threads are preempted at random, also while the
#   guest holds that lock: the other vCPU then spins on it.  On a busy
#   host its cost per packet varied by 20-60% (max - min over a run)
#   against 5-25% with "same", and the ratios from run to run by +-0.1.
set_placement() {
	local in_mask=0 out_mask=0 own=2 i f

	fwd_cpu=0
	if [ "$placement" = split ]; then
		in_mask=2 out_mask=1 own=1 fwd_cpu=1
	fi
	echo "info fwd_cpu $fwd_cpu"
	# split: a deep backlog, so that when the host deschedules the
	# generator's vCPU for a few ms, the forwarding vCPU keeps working
	# through its queue rather than going idle and being woken by IPIs,
	# a cost that would land on the forwarded packets at the whim of the
	# host.  Harmless with "same", where the backlog stays short.
	echo $BACKLOG >/proc/sys/net/core/netdev_max_backlog ||
		die "netdev_max_backlog"
	taskset -p $own $$ >/dev/null || die "taskset"
	# split: before the generator, which never sleeps; every arsctl or
	# ip call between two measurements would crawl at its side otherwise.
	renice -n -20 -p $$ >/dev/null || die "renice"
	# Interrupts (the serial line that carries this output, among them)
	# away from the measured CPU; per-CPU ones refuse, fine.
	for f in /proc/irq/*/smp_affinity; do
		echo $own >"$f" 2>/dev/null
	done
	ip netns exec $NS_R1 sh -c \
		"echo $in_mask >/sys/class/net/in0/queues/rx-0/rps_cpus" ||
		die "rps_cpus of in0"
	if [ "$sink" = r2 ]; then
		for ((i = 0; i < NLINKS; i++)); do
			echo "echo $out_mask" \
			     ">/sys/class/net/b$i/queues/rx-0/rps_cpus"
		done | ip netns exec $NS_R2 sh || die "rps_cpus of r2's links"
	fi
	log "placement $placement: pktgen on CPU 0, r1 forwards on CPU $fwd_cpu"
}

setup_netns() {
	local n
	local -a namespaces=("$NS_GEN" "$NS_R1")

	[ "$sink" = dummy ] || namespaces+=("$NS_R2")
	for n in "${namespaces[@]}"; do
		ip netns add "$n" || die "ip netns add $n"
		# No IPv6 on the links (set through "default" before they
		# exist): no MLD or router solicitation crosses r1 while it
		# is measured.  ars checks both multipath hash policies.
		ip netns exec "$n" sh -c '
			cd /proc/sys/net &&
			echo 1 >ipv6/conf/all/disable_ipv6 &&
			echo 1 >ipv6/conf/default/disable_ipv6 &&
			echo 1 >ipv4/ip_forward &&
			echo 1 >ipv4/fib_multipath_hash_policy &&
			echo 1 >ipv6/fib_multipath_hash_policy' ||
			die "sysctl in $n"
	done
}

# The sinks: what takes r1's packets off its 4 egress devices.
#
# dummy (default): the egress devices are dummy devices of r1, which count
#   and free what they are given: nothing but r1's forwarding runs on
#   CPU 1, and the generator has CPU 0 to itself, which it needs to keep
#   ahead of r1 under TCG.
# r2: veth links to a namespace r2 that drops at tc ingress, before IP:
#   cheaper than a blackhole route, and r2 runs no netfilter hook, so r1's
#   is the only ars hook that packets meet (ars registers one in every
#   namespace).  r2's drops run on CPU 0, where they slow the generator
#   down to about r1's rate: the overload is not guaranteed, and the run
#   is noisier.
setup_links() {
	local i nh=

	{
		echo "link add g0 netns $NS_GEN address $MAC_G0 type veth" \
		     "peer name in0 netns $NS_R1 address $MAC_IN0"
		for ((i = 0; i < NLINKS; i++)); do
			if [ "$sink" = r2 ]; then
				echo "link add a$i netns $NS_R1" \
				     "address $(mac_a $i) type veth" \
				     "peer name b$i netns $NS_R2" \
				     "address $(mac_b $i)"
			else
				echo "link add d$i netns $NS_R1 type dummy"
			fi
		done
	} | ip -batch - || die "creating the links"

	ip -n $NS_GEN -batch - <<-EOF || die "configuring $NS_GEN"
		link set lo up
		link set g0 up
		addr add 10.0.0.2/24 dev g0
	EOF
	for ((i = 0; i < NLINKS; i++)); do
		nh="$nh nexthop via 10.1.$i.2 dev $EGRESS$i"
	done
	{
		echo "link set lo up"
		echo "link set in0 up"
		echo "addr add 10.0.0.1/24 dev in0"
		for ((i = 0; i < NLINKS; i++)); do
			echo "link set $EGRESS$i up"
			echo "addr add 10.1.$i.1/24 dev $EGRESS$i"
			# Static: r2 drops whatever arrives, ARP too, and
			# no neighbour timer runs while r1 is measured.
			[ "$sink" = dummy ] ||
				echo "neigh replace 10.1.$i.2" \
				     "lladdr $(mac_b $i) dev a$i nud permanent"
		done
		if [ "$buckets" -gt 0 ]; then
			# -g: a resilient nexthop group instead, whose
			# buckets ars indexes for each new flowlet.
			for ((i = 0; i < NLINKS; i++)); do
				echo "nexthop add id $((i + 1))" \
				     "via 10.1.$i.2 dev $EGRESS$i"
			done
			echo "nexthop add id 100 group 1/2/3/4" \
			     "type resilient buckets $buckets idle_timer 0"
			echo "route add 198.51.100.0/24 nhid 100"
		else
			echo "route add 198.51.100.0/24$nh"
		fi
	} | ip -n $NS_R1 -batch - || die "configuring $NS_R1"
	[ "$sink" = r2 ] || return 0
	{
		echo "link set lo up"
		for ((i = 0; i < NLINKS; i++)); do
			echo "link set b$i up"
			echo "addr add 10.1.$i.2/24 dev b$i"
		done
	} | ip -n $NS_R2 -batch - || die "configuring $NS_R2"
	for ((i = 0; i < NLINKS; i++)); do
		echo "qdisc add dev b$i clsact"
		echo "filter add dev b$i ingress protocol ip pref 1" \
		     "matchall skip_hw action drop"
	done | tc -n $NS_R2 -batch - || die "tc drop filters in $NS_R2"
}

# A process in each namespace: its /proc/PID/net shows that namespace's
# counters and pktgen files, read without an "ip netns exec" each time.
keep_ns() {
	local pid i

	ip netns exec "$1" sleep 1000000 &
	pid=$!
	keepers+=("$pid")
	# Until ip has entered the namespace and become sleep.
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink /proc/$pid/ns/net)" = "$(readlink /proc/$$/ns/net)" ] ||
			break
		sleep 0.1
	done
	eval "$2=/proc/$pid/net"
}

# pgset FILE CMD: pktgen answers in the file itself ("Result: OK: ...").
# Builtins only: a fork costs a lot in a busy TCG guest.
pgset() {
	local reply

	echo "$2" >"$1" 2>/dev/null
	read -r -d '' reply <"$1"
	[[ $reply == *"Result: OK"* ]] ||
		die "pktgen refused '$2': ${reply##*Result: }"
}

setup_pktgen() {
	local i thr

	# pktgen is per namespace: every namespace gets its /proc/net/pktgen
	# and one kpktgend_N thread per CPU, bound to CPU N.
	modprobe pktgen || die "modprobe pktgen"
	for ((i = 0; i < 50; i++)); do
		[ -e "$gen_net/pktgen/kpktgend_0" ] && break
		sleep 0.2
	done
	thr=$gen_net/pktgen/kpktgend_0
	[ -e "$thr" ] || die "no pktgen thread files in $NS_GEN"
	pgset "$thr" "rem_device_all"
	pgset "$thr" "add_device g0"
	pg_dev=$gen_net/pktgen/g0
	# count 0: until stopped.  clone_skb 0, burst 1: a veth takes no
	# shared skbs.  pkt_size counts the FCS: 60 bytes reach the veth.
	pgset "$pg_dev" "count 0"
	pgset "$pg_dev" "clone_skb 0"
	pgset "$pg_dev" "burst 1"
	pgset "$pg_dev" "delay 0"
	pgset "$pg_dev" "pkt_size 64"
	pgset "$pg_dev" "dst_mac $MAC_IN0"
	pg_dst=$MAC_IN0
	pgset "$pg_dev" "src_min 10.0.0.2"
	pgset "$pg_dev" "src_max 10.0.0.2"
	pgset "$pg_dev" "dst_min $DST"
	pgset "$pg_dev" "dst_max $DST"
	# Many flows: both ports random per packet, so ars's flow table and
	# the kernel's multipath hash see ~2^32 5-tuples.
	pgset "$pg_dev" "udp_src_min 1024"
	pgset "$pg_dev" "udp_src_max 65535"
	pgset "$pg_dev" "udp_dst_min 1024"
	pgset "$pg_dev" "udp_dst_max 65535"
	pgset "$pg_dev" "flag UDPSRC_RND"
	pgset "$pg_dev" "flag UDPDST_RND"
}

# "start" and "stop" act on the namespace of the process that writes them,
# hence ip netns exec.  "start" returns only when pktgen stops.
pg_start() {
	ip netns exec $NS_GEN sh -c 'echo start >/proc/net/pktgen/pgctrl' &
	pg_pid=$!
}

pg_stop() {
	ip netns exec $NS_GEN sh -c 'echo stop >/proc/net/pktgen/pgctrl'
	wait "$pg_pid"
	pg_pid=
	wait_quiet
}

# Until no CPU processes packets any more: with "split", CPU 1's backlog
# holds thousands when pktgen stops.  rmmod and insmod must not run before:
# (un)registering the only PRE_ROUTING hook flips a static key, i.e.
# patches ip_rcv() through int3, and under TCG a vCPU that runs ip_rcv()
# meanwhile can trip on the int3 and oops ("Oops: int3" in ip_rcv, seen
# here with 6.12).  The first column of softnet_stat counts each CPU's
# processed packets.
wait_quiet() {
	local line now prev='' i

	for ((i = 0; i < 100; i++)); do
		now=
		while read -r line; do
			now+="${line%% *} "
		done </proc/net/softnet_stat
		[ "$now" != "$prev" ] || return 0
		prev=$now
		sleep 0.1
	done
	die "packets still being processed 10 s after pktgen stopped"
}

# snap: counters into cnt[], with bash builtins only, so that no fork
# separates the clock from r1's counters: time in us, tx_packets of a0..a3,
# tx_dropped of a0..a3, then g0's tx_packets and tx_dropped.
cnt=()
snap() {
	local t line name g0tx=0 g0drop=0
	local -a f tx txd

	while read -r line; do
		name=${line%%:*}
		case $name in
		"$EGRESS"[0-9])
			read -r -a f <<<"${line#*:}"
			tx[${name#"$EGRESS"}]=${f[9]}
			txd[${name#"$EGRESS"}]=${f[11]} ;;
		esac
	done <"$r1_net/dev"
	t=${EPOCHREALTIME/[.,]/}
	while read -r line; do
		name=${line%%:*}
		if [ "$name" = g0 ]; then
			read -r -a f <<<"${line#*:}"
			g0tx=${f[9]} g0drop=${f[11]}
		fi
	done <"$gen_net/dev"
	cnt=("$t" "${tx[@]}" "${txd[@]}" "$g0tx" "$g0drop")
}

# The profile that ars starts with, as "set" arguments ("show" prints
# them so): every configuration is applied on top of it, so that an
# attribute changed by one (say idle-time) does not leak into the next.
defaults=()

read_defaults() {
	local line

	ars_loaded || die "ars.ko is not loaded"
	while read -r line; do
		# shellcheck disable=SC2206 # "keyword value", split on purpose
		defaults+=($line)
	done < <("$ARSCTL" -n $NS_R1 show profile)
	[ ${#defaults[@]} -gt 0 ] || die "arsctl show printed nothing"
	log "ars defaults: ${defaults[*]}"
}

ars_load() {
	insmod "$ARS_KO" || die "insmod $ARS_KO"
	ars_last=(0 0 0)
}

# Loading and unloading the module, and redirecting pktgen, happen with
# pktgen stopped; switching the profile happens under traffic, as an
# operator would.
# CONFIG: nofwd | absent | off | MODE[,KEYWORD=VALUE...] (arsctl keywords).
# nofwd leaves the module as it is and addresses pktgen's frames to a MAC
# address that is not in0's: r1 receives them as PACKET_OTHERHOST and
# ip_rcv() drops them before any hook, so the measured cost is that of
# everything but r1's forwarding (generator, veth, backlog, receive).
configure() {
	local c=$1 a mac=$MAC_IN0 module=load
	local -a args

	case $c in
	nofwd) mac=$MAC_NONE module=keep ;;
	absent) module=unload ;;
	esac
	if [ -n "$pg_pid" ] &&
	   { [ "$mac" != "$pg_dst" ] ||
	     { [ $module = unload ] && ars_loaded; } ||
	     { [ $module = load ] && ! ars_loaded; }; }; then
		pg_stop
	fi
	if [ "$mac" != "$pg_dst" ]; then
		pgset "$pg_dev" "dst_mac $mac"
		pg_dst=$mac
	fi
	case $module in
	keep) return 0 ;;
	unload)
		! ars_loaded || rmmod ars || die "rmmod ars"
		return 0 ;;
	esac
	ars_loaded || ars_load
	args=("${defaults[@]}")
	case $c in
	off)
		args+=(state off) ;;
	*)
		IFS=, read -r -a a <<<"$c"
		args+=(state on mode "${a[0]}")
		for a in "${a[@]:1}"; do
			args+=("${a%%=*}" "${a#*=}")
		done ;;
	esac
	"$ARSCTL" -n $NS_R1 set "${args[@]}" || die "arsctl set ${args[*]}"
}

# ars_counts: ars's packets, steered and flowlets counters since the
# previous call (warm-up and switching included) into $ars_delta: whether
# the hook did what the configuration says.
ars_delta=
ars_last=(0 0 0)
ars_counts() {
	local s i k
	local -a now

	ars_delta="- - -"
	ars_loaded || return 0
	s=$("$ARSCTL" -j -n $NS_R1 stats) || die "arsctl stats"
	for k in packets steered flowlets; do
		[[ $s =~ \"$k\":\ *([0-9]+) ]] || die "arsctl stats: $s"
		now+=("${BASH_REMATCH[1]}")
	done
	ars_delta=
	for i in 0 1 2; do
		ars_delta+="$((now[i] - ars_last[i])) "
	done
	ars_last=("${now[@]}")
}

measure() {
	local round=$1 c=$2 i sent=0 dropped=0 fwd
	local -a a b

	configure "$c"
	[ -n "$pg_pid" ] || pg_start
	sleep "$warmup"
	snap
	echo "mark begin $round $c"
	a=("${cnt[@]}")
	sleep "$duration"
	snap
	echo "mark end $round $c"
	b=("${cnt[@]}")
	for ((i = 1; i <= NLINKS; i++)); do
		sent=$((sent + b[i] - a[i]))
		dropped=$((dropped + b[i + NLINKS] - a[i + NLINKS]))
	done
	# Forwarded: r1's transmits, including those that r2's backlog
	# refused (tx_dropped of a veth): r1 did all its work for them.
	# For nofwd, what r1 received (and dropped): what g0 sent.
	fwd=$((sent + dropped))
	[ "$c" != nofwd ] || fwd=$((b[9] - a[9]))
	ars_counts
	echo "sample $round $c $((b[0] - a[0])) $fwd" \
	     "$((b[1] - a[1])) $((b[2] - a[2])) $((b[3] - a[3]))" \
	     "$((b[4] - a[4])) $dropped $((b[9] - a[9])) $((b[10] - a[10]))" \
	     "$ars_delta"
}

[ -n "${ARS_KO:-}" ] || die "ARS_KO is not set (run under vm-run.sh -m)"
# Counting instructions (run.sh -i), 6.1 hangs bringing its second CPU up
# at boot: run.sh boots with maxcpus=1, and the CPUs come online here.
for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
	[ ! -e "$c" ] || [ "$(cat "$c")" = 1 ] || echo 1 >"$c" ||
		die "cannot bring ${c%/online} online"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs, has $(nproc)"
[ -x "$ARSCTL" ] || die "no $ARSCTL (make tools)"
trap cleanup EXIT

log "kernel $(uname -r), $(nproc) CPUs; ${duration}s per measurement" \
    "after ${warmup}s of warm-up, $rounds rounds of: $configs"
t0=$SECONDS
setup_netns
setup_links
keep_ns $NS_R1 r1_net
keep_ns $NS_GEN gen_net
read_defaults
setup_pktgen
set_placement
log "set up in $((SECONDS - t0))s; sink $sink"
# Odd rounds go through the configurations in order, even rounds
# backwards: a drift of the host's load within a pair of rounds then
# weighs on every configuration alike.
read -r -a order <<<"$configs"
for ((r = 1; r <= rounds; r++)); do
	for ((i = 0; i < ${#order[@]}; i++)); do
		j=$i
		((r % 2)) || j=$((${#order[@]} - 1 - i))
		measure $r "${order[j]}"
	done
	log "round $r done at $((SECONDS - t0))s"
done
[ -z "$pg_pid" ] || pg_stop
exit 0
