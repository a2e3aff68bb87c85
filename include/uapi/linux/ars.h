/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ars: adaptive, flowlet-based multipath routing.
 *
 * This header is the one contract between the kernel module (ars.ko), the
 * tc extension (q_ars.so) and arsctl. Documentation/netlink/specs/ars.yaml
 * describes the same generic netlink family; a test checks that the two
 * agree, number for number.
 *
 * Generic netlink family "ars", one configuration (the "profile") per
 * network namespace:
 *
 *   ARS_CMD_PROFILE_GET  do    -> ARS_A_PROFILE_*
 *   ARS_CMD_PROFILE_SET  do       ARS_A_PROFILE_* (only those given change;
 *                                 the request is validated whole first)
 *   ARS_CMD_STATS_GET    do    -> ARS_A_STATS_*
 *   ARS_CMD_STATS_RESET  do
 *   ARS_CMD_FLOWS_GET    dump  -> one message per macro-flow entry in use,
 *                                 ARS_A_FLOW_*
 *   ARS_CMD_FLOWS_GET    do       ARS_A_FLOW_SRC, _DST, _PROTO, ... (a flow)
 *                              -> the entry that holds it, ARS_A_FLOW_*
 *   ARS_CMD_PORT_INFO_GET dump -> one message per port (egress device),
 *                                 ARS_A_PORT_INFO_*
 *   ARS_CMD_PATH_ASSIGN  notification on the "monitor" group, ARS_A_EVENT_*
 *   ARS_CMD_OBJECT_NEW   do       ARS_A_OBJECT_NAME, _MODE, _IDLE_TIME, ...
 *   ARS_CMD_OBJECT_SET   do       ARS_A_OBJECT_NAME and what changes
 *   ARS_CMD_OBJECT_DEL   do       ARS_A_OBJECT_NAME
 *   ARS_CMD_OBJECT_GET   do/dump  (ARS_A_OBJECT_NAME) -> ARS_A_OBJECT_*
 *   ARS_CMD_BIND_NEW     do       ARS_A_BIND_*: what (nexthop group, prefix
 *                                 or mark) selects which object
 *   ARS_CMD_BIND_DEL     do       ARS_A_BIND_*: what
 *   ARS_CMD_BIND_GET     dump  -> ARS_A_BIND_*
 *   ARS_CMD_INTERFACE_ENABLE do   ARS_A_INTERFACE_IFINDEX: the device is
 *                                 ARS-enabled
 *   ARS_CMD_INTERFACE_DISABLE do  ARS_A_INTERFACE_IFINDEX: no longer
 *   ARS_CMD_INTERFACE_GET dump -> ARS_A_INTERFACE_IFINDEX, the enabled
 *                                 devices
 *   ARS_CMD_ALTERNATE_NEW do      ARS_A_ALTERNATE_*: a next hop of the
 *                                 object's routes, by gateway or device,
 *                                 is an alternate path
 *   ARS_CMD_ALTERNATE_DEL do      ARS_A_ALTERNATE_*: no longer
 *
 * Interfaces (SONiC's ARS_INTERFACES): while no device is enabled, every one
 * is; once some are, a route with a next hop on another device is not
 * steered (counted in ARS_A_STATS_DISABLED).
 *
 * Objects: a namespace's forwarded multipath packets are steered by the
 * mode and idle time of an ARS object (the name SAI gives them), chosen
 * when a flowlet starts, the most specific binding first:
 *
 *   1. a mark binding (mark & mask == the binding's mark; exempt, or an
 *      object), the first in the order they were made;
 *   2. a nexthop group binding, by the id of the route's group;
 *   3. a prefix binding: the packet's destination in the prefix, in the
 *      table the route was found in (prefixes of a table do not overlap);
 *   4. the profile's default object, "default" unless set otherwise, or
 *      none ("").
 *
 * Primary and alternate paths (SAI's PRIMARY_PATH_QUALITY_THRESHOLD,
 * ALTERNATE_PATH_COST and ALTERNATE_PATH_BIAS; SONiC's ARS_NEXTHOPS
 * roles): the next hops an object lists as alternates (by gateway or by
 * device) are alternate in every route it steers, the others primary.
 * In the quality modes a new flowlet takes no alternate while the best
 * usable primary's band is at or above the object's primary threshold;
 * below it, alternates compete with the primaries, each ranked as its
 * band less the alternate cost, the bias sharing ties. In the other
 * modes, which know no bands, alternates are used only when no primary
 * is usable. A flowlet that goes on keeps its path either way.
 *
 * Bindings to a group or table that does not exist (yet) are accepted:
 * they apply once it does. The built-in object "default" exists in every
 * namespace; the profile's mode and idle time are its own.
 *
 * Times are in nanoseconds, rates in bytes per second, bandwidths in bits
 * per second, unless an attribute says otherwise.
 */
#ifndef _UAPI_LINUX_ARS_H
#define _UAPI_LINUX_ARS_H

#include <linux/types.h>

#define ARS_GENL_NAME		"ars"
#define ARS_GENL_VERSION	1
#define ARS_MCGRP_MONITOR	"monitor"

/**
 * enum ars_mode - how a forwarded packet's next hop is chosen
 * @ARS_MODE_ECMP: the kernel's own multipath hash of the headers (baseline)
 * @ARS_MODE_FIXED: the path the flow key maps to by weight; never moves
 * @ARS_MODE_PACKET_RANDOM: every packet takes a random path, by weight
 * @ARS_MODE_PACKET_ROUNDROBIN: packets take the paths in turn, by weight
 * @ARS_MODE_PACKET_QUALITY: every packet takes the best-quality path
 * @ARS_MODE_FLOWLET_RANDOM: a new flowlet takes a random path, by weight
 * @ARS_MODE_FLOWLET_QUALITY: a new flowlet takes the best-quality path,
 *	random by weight among paths of equal quality
 */
enum ars_mode {
	ARS_MODE_ECMP,
	ARS_MODE_FIXED,
	ARS_MODE_PACKET_RANDOM,
	ARS_MODE_PACKET_ROUNDROBIN,
	ARS_MODE_PACKET_QUALITY,
	ARS_MODE_FLOWLET_RANDOM,
	ARS_MODE_FLOWLET_QUALITY,

	/* private: */
	__ARS_MODE_MAX,
	ARS_MODE_MAX = __ARS_MODE_MAX - 1
};

/**
 * enum ars_reason - why a macro flow was (re)assigned a path
 * @ARS_REASON_NEW: the entry was empty, or last used by other flows
 * @ARS_REASON_IDLE: the entry was idle longer than idle-time
 * @ARS_REASON_FAILOVER: the entry's path is gone (route or next hop
 *	changed, link down) while its flowlet was still active
 * @ARS_REASON_PACKET: a per-packet mode chose a path
 */
enum ars_reason {
	ARS_REASON_NEW,
	ARS_REASON_IDLE,
	ARS_REASON_FAILOVER,
	ARS_REASON_PACKET,

	/* private: */
	__ARS_REASON_MAX,
	ARS_REASON_MAX = __ARS_REASON_MAX - 1
};

/* Limits of the profile, as enforced by the kernel. */
#define ARS_IDLE_TIME_MIN		1000ULL		/* 1 us */
#define ARS_IDLE_TIME_MAX		1000000000ULL	/* 1 s */
#define ARS_IDLE_TIME_DEFAULT		256000ULL	/* 256 us */
#define ARS_TABLE_SIZE_MIN		64
#define ARS_TABLE_SIZE_MAX		1048576
#define ARS_TABLE_SIZE_DEFAULT		4096
#define ARS_SAMPLING_INTERVAL_MIN	1000ULL		/* 1 us */
#define ARS_SAMPLING_INTERVAL_MAX	1000000000ULL	/* 1 s */
#define ARS_SAMPLING_INTERVAL_DEFAULT	100000ULL	/* 100 us */
#define ARS_RATE_WEIGHT_MAX		100
#define ARS_RATE_WEIGHT_DEFAULT		50
#define ARS_EWMA_SHIFT_MAX		15
#define ARS_EWMA_SHIFT_DEFAULT		3
#define ARS_FLOWLET_WINDOW_MAX		1000000000ULL	/* 1 s */
#define ARS_FABRIC_RTT_MAX		100000000ULL	/* 100 ms */
#define ARS_REMOTE_HALF_LIFE_MIN	1000ULL		/* 1 us */
#define ARS_REMOTE_HALF_LIFE_MAX	1000000000ULL	/* 1 s */
#define ARS_REMOTE_HALF_LIFE_DEFAULT	1000000ULL	/* 1 ms */
#define ARS_OBJECTS_MAX			16	/* with "default" */
#define ARS_OBJECT_NAME_LEN		16	/* with the NUL */
#define ARS_BINDINGS_MAX		256
#define ARS_INTERFACES_MAX		64	/* enabled devices */
#define ARS_ALTERNATES_MAX		8	/* alternate next hops, per object */
#define ARS_PRIMARY_THRESHOLD_MAX	8	/* ARS_BAND_BEST + 1: always */
#define ARS_ALTERNATE_BIAS_MAX		100	/* percent */

/* Old names, for userspace built before they changed. */
#define ARS_PORTS_MAX			ARS_INTERFACES_MAX

/* Quality bands: 0 is the worst, ARS_BAND_BEST the best. */
#define ARS_BAND_BEST			7
#define ARS_BAND_UNKNOWN		4	/* device without an ars qdisc */

/**
 * enum ars_auto - profile figures that follow fabric-rtt unless set
 * @ARS_AUTO_IDLE_TIME: the idle-time of the object "default"
 * @ARS_AUTO_SAMPLING_INTERVAL: the sampling-interval
 * @ARS_AUTO_FLOWLET_WINDOW: the flowlet-window
 */
enum ars_auto {
	ARS_AUTO_IDLE_TIME		= 1 << 0,
	ARS_AUTO_SAMPLING_INTERVAL	= 1 << 1,
	ARS_AUTO_FLOWLET_WINDOW		= 1 << 2,

	/* private: */
	ARS_AUTO_MASK			= 7,
};

enum ars_cmd {
	ARS_CMD_UNSPEC,
	ARS_CMD_PROFILE_GET,
	ARS_CMD_PROFILE_SET,
	ARS_CMD_STATS_GET,
	ARS_CMD_STATS_RESET,
	ARS_CMD_FLOWS_GET,
	ARS_CMD_PORT_INFO_GET,
	ARS_CMD_PATH_ASSIGN,
	ARS_CMD_OBJECT_NEW,
	ARS_CMD_OBJECT_SET,
	ARS_CMD_OBJECT_DEL,
	ARS_CMD_OBJECT_GET,
	ARS_CMD_BIND_NEW,
	ARS_CMD_BIND_DEL,
	ARS_CMD_BIND_GET,
	ARS_CMD_INTERFACE_ENABLE,
	ARS_CMD_INTERFACE_DISABLE,
	ARS_CMD_INTERFACE_GET,
	ARS_CMD_ALTERNATE_NEW,
	ARS_CMD_ALTERNATE_DEL,

	/* private: */
	__ARS_CMD_MAX,
	ARS_CMD_MAX = __ARS_CMD_MAX - 1
};

/* Old names, for userspace built before they changed. */
#define ARS_CMD_PORT_ENABLE		ARS_CMD_INTERFACE_ENABLE
#define ARS_CMD_PORT_DISABLE		ARS_CMD_INTERFACE_DISABLE
#define ARS_CMD_PORT_GET		ARS_CMD_INTERFACE_GET
#define ARS_CMD_PATHS_GET		ARS_CMD_PORT_INFO_GET

/*
 * The profile of a network namespace.
 *
 * ARS_A_PROFILE_STATE		u8, 0 off (default) or 1 on. Turning it on is
 *				refused unless net.ipv4.fib_multipath_hash_policy
 *				(and net.ipv6.fib_multipath_hash_policy when
 *				IPv6 is enabled) is 1.
 * ARS_A_PROFILE_MODE		u32, enum ars_mode (default flowlet-quality),
 *				of the object "default"
 * ARS_A_PROFILE_IDLE_TIME	u64, ns, gap that ends a flowlet,
 *				ARS_IDLE_TIME_MIN..ARS_IDLE_TIME_MAX, of the
 *				object "default"
 * ARS_A_PROFILE_TABLE_SIZE	u32, macro-flow entries, a power of two,
 *				ARS_TABLE_SIZE_MIN..ARS_TABLE_SIZE_MAX
 * ARS_A_PROFILE_IPV4		u8, 0 or 1 (default 1)
 * ARS_A_PROFILE_IPV6		u8, 0 or 1 (default 1)
 * ARS_A_PROFILE_SAMPLING_INTERVAL u64, ns, quality sampling period,
 *				ARS_SAMPLING_INTERVAL_MIN..MAX
 * ARS_A_PROFILE_RATE_WEIGHT	u32, percent of the quality taken from
 *				utilisation, the rest from queueing, 0..100
 * ARS_A_PROFILE_EWMA_SHIFT	u32, quality averages weigh a new sample by
 *				2^-shift, 0..ARS_EWMA_SHIFT_MAX
 * ARS_A_PROFILE_PAD		padding for 64-bit attributes
 * ARS_A_PROFILE_DEFAULT_OBJECT	string, the object of packets that no
 *				binding selects: "default" (the default), the
 *				name of another object, or "" for none (only
 *				bound routes are steered)
 * ARS_A_PROFILE_FLOWLABEL	u8, 1 to include the IPv6 flow label in the
 *				flow key, so that a host that repaths by
 *				changing it (TCP PLB) moves to another macro
 *				flow; 0 (default) not to
 * ARS_A_PROFILE_FLOWLET_WINDOW	u64, ns, 0..ARS_FLOWLET_WINDOW_MAX: for
 *				this long after a new flowlet took a port,
 *				flowlet-quality ranks the port as busy as
 *				its line rate, before its qdisc can show the
 *				flowlet; and a flow that comes back from a
 *				pause (same tag, entry idle) counts as a new
 *				flowlet on the port it left, so that it and
 *				the flows that come back with it go
 *				elsewhere. 0: off. Default: derived from
 *				fabric-rtt (a quarter of it), off without it
 * ARS_A_PROFILE_FABRIC_RTT	u64, ns, 0..ARS_FABRIC_RTT_MAX: the fabric's
 *				base round-trip time. 0 (default): not known,
 *				and the figures that follow it keep their
 *				built-in defaults. Else they are derived from
 *				it (Documentation/networking/ars.rst, "Derived
 *				defaults"): the idle time of every object
 *				that names none (the profile's idle-time
 *				among them), the sampling-interval, the
 *				flowlet-window, and the signal v3 time
 *				constant of the ars qdiscs that name no tau
 * ARS_A_PROFILE_AUTO		u32, enum ars_auto flags. In replies: the
 *				figures that were not set explicitly, and so
 *				follow fabric-rtt (or are the built-in
 *				defaults). In a request: those to make so
 *				again, forgetting the value set; a request
 *				may not both set a figure and name it here
 * ARS_A_PROFILE_SIGNAL_TAU	u64, ns, in replies: the time constant of
 *				signal v3 of the namespace's ars qdiscs that
 *				name no tau (ARS_SIGNAL_TAU_DEFAULT without
 *				fabric-rtt)
 * ARS_A_PROFILE_REMOTE		u8, 1 to learn remote congestion from the
 *				feedback that forwarded packets carry back
 *				(TCP ECN-Echo, RoCEv2 CNPs): it credits a
 *				score to the path of the flow it is for,
 *				which the quality modes' new flowlets take
 *				as the worse of its band and the port's;
 *				0 (default) not to
 * ARS_A_PROFILE_REMOTE_HALF_LIFE u64, ns, ARS_REMOTE_HALF_LIFE_MIN..MAX:
 *				a remote score halves in this time (rounded
 *				to a power of two of ns); default
 *				ARS_REMOTE_HALF_LIFE_DEFAULT
 */
enum {
	ARS_A_PROFILE_UNSPEC,
	ARS_A_PROFILE_STATE,
	ARS_A_PROFILE_MODE,
	ARS_A_PROFILE_IDLE_TIME,
	ARS_A_PROFILE_TABLE_SIZE,
	ARS_A_PROFILE_IPV4,
	ARS_A_PROFILE_IPV6,
	ARS_A_PROFILE_SAMPLING_INTERVAL,
	ARS_A_PROFILE_RATE_WEIGHT,
	ARS_A_PROFILE_EWMA_SHIFT,
	ARS_A_PROFILE_PAD,
	ARS_A_PROFILE_DEFAULT_OBJECT,
	ARS_A_PROFILE_FLOWLABEL,
	ARS_A_PROFILE_FLOWLET_WINDOW,
	ARS_A_PROFILE_FABRIC_RTT,
	ARS_A_PROFILE_AUTO,
	ARS_A_PROFILE_SIGNAL_TAU,
	ARS_A_PROFILE_REMOTE,
	ARS_A_PROFILE_REMOTE_HALF_LIFE,

	/* private: */
	__ARS_A_PROFILE_MAX,
	ARS_A_PROFILE_MAX = __ARS_A_PROFILE_MAX - 1
};

/*
 * Counters of a network namespace, all u64, summed over CPUs.
 *
 * ARS_A_STATS_PACKETS		forwarded packets with a multipath route
 * ARS_A_STATS_STEERED		packets whose next hop ars chose
 * ARS_A_STATS_UNSTEERED	multipath packets ars could not steer (hash
 *				policy not 1, too many next hops)
 * ARS_A_STATS_FLOWLETS		flowlets started (new macro-flow assignments)
 * ARS_A_STATS_REASSIGNMENTS	new flowlets that took a different path than
 *				the entry's previous one
 * ARS_A_STATS_FAILOVERS	active flowlets moved because their path went
 *				away
 * ARS_A_STATS_SINGLEPATH	packets whose route was not multipath
 * ARS_A_STATS_UNKNOWN_QUALITY	choices by quality (a new flowlet, or a
 *				packet in packet-quality) among paths of
 *				which one had no ars qdisc
 * ARS_A_STATS_EXEMPT		packets that a mark binding exempts from ars
 * ARS_A_STATS_ECMP		packets left to the kernel's own hash:
 *				multipath ones that no object applies to,
 *				and those of an object in the ecmp mode
 * ARS_A_STATS_DISABLED		multipath packets of an object left to the
 *				kernel because a next hop of their route is
 *				on a device that is not ARS-enabled
 * ARS_A_STATS_REMOTE_SEEN	forwarded packets that carried congestion
 *				feedback (TCP with ECN-Echo and not SYN,
 *				RoCEv2 CNPs), with ARS_A_PROFILE_REMOTE on
 * ARS_A_STATS_REMOTE_MATCHED	of those, the ones whose forward flow held
 *				an active flowlet (a CNP: whose address
 *				pair's flowlet did)
 * ARS_A_STATS_REMOTE_CREDITED	of those, the ones that raised the path's
 *				remote score (not already at its cap)
 * ARS_A_STATS_REMOTE_MOVED	new flowlets whose locally best paths
 *				included one that a remote score lowered
 */
enum {
	ARS_A_STATS_UNSPEC,
	ARS_A_STATS_PACKETS,
	ARS_A_STATS_STEERED,
	ARS_A_STATS_UNSTEERED,
	ARS_A_STATS_FLOWLETS,
	ARS_A_STATS_REASSIGNMENTS,
	ARS_A_STATS_FAILOVERS,
	ARS_A_STATS_SINGLEPATH,
	ARS_A_STATS_UNKNOWN_QUALITY,
	ARS_A_STATS_PAD,
	ARS_A_STATS_EXEMPT,
	ARS_A_STATS_ECMP,
	ARS_A_STATS_DISABLED,
	ARS_A_STATS_REMOTE_SEEN,
	ARS_A_STATS_REMOTE_MATCHED,
	ARS_A_STATS_REMOTE_CREDITED,
	ARS_A_STATS_REMOTE_MOVED,

	/* private: */
	__ARS_A_STATS_MAX,
	ARS_A_STATS_MAX = __ARS_A_STATS_MAX - 1
};

/*
 * One macro-flow entry in use (ARS_CMD_FLOWS_GET dump).
 *
 * ARS_A_FLOW_INDEX	u32, the entry's index in the table
 * ARS_A_FLOW_IFINDEX	u32, egress device of the entry's path
 * ARS_A_FLOW_NEXTHOP	u32, the path's position among the route's next
 *			hops (0-based); absent while not known (a
 *			flowlet-random flowlet not yet refreshed)
 * ARS_A_FLOW_AGE	u64, ns since the entry last saw a packet: its age,
 *			which ends its flowlet once over the idle time
 * ARS_A_FLOW_PACKETS	u64, no longer sent: entries are not written for
 *			every packet (ARS_A_FLOW_FLOWLETS instead)
 * ARS_A_FLOW_GENERATION u32, the generation of the namespace's routing
 *			state the entry was last checked against (16 bits)
 * ARS_A_FLOW_GATEWAY	binary, 4 or 16 bytes: the gateway of the last
 *			flowlet steered to that device (exact on
 *			point-to-point links); absent without one
 * ARS_A_FLOW_FLOWLETS	u32, flowlets the entry started since the table
 *			was made (wraps at 2^32)
 * ARS_A_FLOW_OBJECT	string, the name of the object that steered the
 *			entry's last flowlet; absent when that object is
 *			gone
 * ARS_A_FLOW_OWN_TABLE	flag: the entry is in the macro-flow table of that
 *			object's own (ARS_A_OBJECT_TABLE_SIZE), not in the
 *			namespace's; ARS_A_FLOW_INDEX is its index there
 * ARS_A_FLOW_ACTIVE	flag: the entry's flowlet goes on (it saw a packet
 *			within its object's idle time)
 *
 * The dump gives the namespace's table first, then each own table, by the
 * order of the objects.
 *
 * The do (arsctl flows get, as ip route get) names one flow, as its
 * packets carry it at the end of PRE_ROUTING, and replies with its entry,
 * the attributes above plus ARS_A_FLOW_IIF, or fails with ENOENT when no
 * entry holds that flow (the entry is empty, or another flow's):
 *
 * ARS_A_FLOW_SRC	binary, 4 (IPv4) or 16 (IPv6) bytes, required
 * ARS_A_FLOW_DST	binary, as long as ARS_A_FLOW_SRC, required
 * ARS_A_FLOW_PROTO	u8, the IP protocol (IPv6: the first next header),
 *			required
 * ARS_A_FLOW_SPORT	u16, the source port (default 0); only for TCP,
 *			UDP, SCTP and UDP-Lite, the protocols ars takes
 *			the ports of
 * ARS_A_FLOW_DPORT	u16, the destination port (default 0); the same
 * ARS_A_FLOW_MARK	u32, the packets' mark as ars sees them, at the end
 *			of PRE_ROUTING (default 0)
 * ARS_A_FLOW_IIF	u32, the device the packets are routed as received
 *			on (under a VRF: the enslaved device for IPv4, the
 *			VRF's for IPv6). Without it, every device of the
 *			namespace is tried, and the entry last used wins;
 *			the reply names the device in ARS_A_FLOW_IIF
 * ARS_A_FLOW_TOS	u8, IPv4 only: the TOS byte (default 0), of which
 *			the bits the kernel's route lookup keys on count
 * ARS_A_FLOW_FLOWLABEL	u32, IPv6 only, 0..0xfffff: the flow label
 *			(default 0); counts only while the profile's
 *			flowlabel is on
 */
enum {
	ARS_A_FLOW_UNSPEC,
	ARS_A_FLOW_INDEX,
	ARS_A_FLOW_IFINDEX,
	ARS_A_FLOW_NEXTHOP,
	ARS_A_FLOW_AGE,
	ARS_A_FLOW_PACKETS,
	ARS_A_FLOW_GENERATION,
	ARS_A_FLOW_GATEWAY,
	ARS_A_FLOW_PAD,
	ARS_A_FLOW_FLOWLETS,
	ARS_A_FLOW_OBJECT,
	ARS_A_FLOW_OWN_TABLE,
	ARS_A_FLOW_ACTIVE,
	ARS_A_FLOW_SRC,
	ARS_A_FLOW_DST,
	ARS_A_FLOW_PROTO,
	ARS_A_FLOW_SPORT,
	ARS_A_FLOW_DPORT,
	ARS_A_FLOW_MARK,
	ARS_A_FLOW_IIF,
	ARS_A_FLOW_TOS,
	ARS_A_FLOW_FLOWLABEL,

	/* private: */
	__ARS_A_FLOW_MAX,
	ARS_A_FLOW_MAX = __ARS_A_FLOW_MAX - 1
};

/* Old names, for userspace built before they changed. */
#define ARS_A_FLOW_IDLE		ARS_A_FLOW_AGE

/*
 * One port, an egress device ars measures (ARS_CMD_PORT_INFO_GET dump).
 * The set is not "port": ARS_A_PORT_* are the interfaces' old names.
 *
 * ARS_A_PORT_INFO_IFINDEX	u32
 * ARS_A_PORT_INFO_IFNAME	string
 * ARS_A_PORT_INFO_QDISC	u8, 1 when an ars qdisc measures the device
 * ARS_A_PORT_INFO_BANDWIDTH	u64, bit/s: the ars qdisc's bandwidth option,
 *				else the ethtool link speed, 0 when unknown
 * ARS_A_PORT_INFO_RATE		u64, bytes/s, averaged transmit rate
 * ARS_A_PORT_INFO_BACKLOG	u64, bytes, averaged queue backlog
 * ARS_A_PORT_INFO_DELAY	u64, ns, averaged queueing delay
 * ARS_A_PORT_INFO_UTIL		u32, utilisation in per mille (rate /
 *				bandwidth)
 * ARS_A_PORT_INFO_BAND		u32, quality band 0..ARS_BAND_BEST
 * ARS_A_PORT_INFO_PACKETS	u64, packets ars steered to this device
 * ARS_A_PORT_INFO_BYTES	u64, bytes ars steered to this device
 * ARS_A_PORT_INFO_FLOWLETS	u64, flowlets assigned to this device
 */
enum {
	ARS_A_PORT_INFO_UNSPEC,
	ARS_A_PORT_INFO_IFINDEX,
	ARS_A_PORT_INFO_IFNAME,
	ARS_A_PORT_INFO_QDISC,
	ARS_A_PORT_INFO_BANDWIDTH,
	ARS_A_PORT_INFO_RATE,
	ARS_A_PORT_INFO_BACKLOG,
	ARS_A_PORT_INFO_DELAY,
	ARS_A_PORT_INFO_UTIL,
	ARS_A_PORT_INFO_BAND,
	ARS_A_PORT_INFO_PACKETS,
	ARS_A_PORT_INFO_BYTES,
	ARS_A_PORT_INFO_FLOWLETS,
	ARS_A_PORT_INFO_PAD,

	/* private: */
	__ARS_A_PORT_INFO_MAX,
	ARS_A_PORT_INFO_MAX = __ARS_A_PORT_INFO_MAX - 1
};

/* Old names, for userspace built before they changed. */
#define ARS_A_PATH_UNSPEC		ARS_A_PORT_INFO_UNSPEC
#define ARS_A_PATH_IFINDEX		ARS_A_PORT_INFO_IFINDEX
#define ARS_A_PATH_IFNAME		ARS_A_PORT_INFO_IFNAME
#define ARS_A_PATH_QDISC		ARS_A_PORT_INFO_QDISC
#define ARS_A_PATH_BANDWIDTH		ARS_A_PORT_INFO_BANDWIDTH
#define ARS_A_PATH_RATE			ARS_A_PORT_INFO_RATE
#define ARS_A_PATH_BACKLOG		ARS_A_PORT_INFO_BACKLOG
#define ARS_A_PATH_DELAY		ARS_A_PORT_INFO_DELAY
#define ARS_A_PATH_UTIL			ARS_A_PORT_INFO_UTIL
#define ARS_A_PATH_BAND			ARS_A_PORT_INFO_BAND
#define ARS_A_PATH_PACKETS		ARS_A_PORT_INFO_PACKETS
#define ARS_A_PATH_BYTES		ARS_A_PORT_INFO_BYTES
#define ARS_A_PATH_FLOWLETS		ARS_A_PORT_INFO_FLOWLETS
#define ARS_A_PATH_PAD			ARS_A_PORT_INFO_PAD
#define __ARS_A_PATH_MAX		__ARS_A_PORT_INFO_MAX
#define ARS_A_PATH_MAX			ARS_A_PORT_INFO_MAX

/*
 * A path assignment (ARS_CMD_PATH_ASSIGN on the "monitor" group; rate
 * limited, so a listener sees a sample under heavy churn).
 *
 * ARS_A_EVENT_FLOW		u32, macro-flow index
 * ARS_A_EVENT_OLD_IFINDEX	u32, 0 when the entry had no path
 * ARS_A_EVENT_NEW_IFINDEX	u32
 * ARS_A_EVENT_REASON		u32, enum ars_reason
 * ARS_A_EVENT_FAMILY		u32, AF_INET or AF_INET6
 */
enum {
	ARS_A_EVENT_UNSPEC,
	ARS_A_EVENT_FLOW,
	ARS_A_EVENT_OLD_IFINDEX,
	ARS_A_EVENT_NEW_IFINDEX,
	ARS_A_EVENT_REASON,
	ARS_A_EVENT_FAMILY,

	/* private: */
	__ARS_A_EVENT_MAX,
	ARS_A_EVENT_MAX = __ARS_A_EVENT_MAX - 1
};

/*
 * An ARS object (ARS_CMD_OBJECT_*).
 *
 * ARS_A_OBJECT_NAME		string, 1..ARS_OBJECT_NAME_LEN - 1 bytes, not
 *				"none"
 * ARS_A_OBJECT_MODE		u32, enum ars_mode (default flowlet-quality)
 * ARS_A_OBJECT_IDLE_TIME	u64, ns, ARS_IDLE_TIME_MIN..MAX (default
 *				ARS_IDLE_TIME_DEFAULT, or the one the
 *				profile's fabric-rtt derives, which an
 *				object that names none follows)
 * ARS_A_OBJECT_STATS		nested ARS_A_STATS_*, in replies
 * ARS_A_OBJECT_BINDINGS	u32, bindings that select it, in replies
 * ARS_A_OBJECT_PAD		padding for 64-bit attributes
 * ARS_A_OBJECT_PRIMARY_THRESHOLD u8, 0..ARS_PRIMARY_THRESHOLD_MAX (default
 *				0): alternates get no new flowlet while the
 *				best usable primary's band is at or above it;
 *				0: only when no primary is usable, 8: always
 * ARS_A_OBJECT_ALTERNATE_COST	u8, 0..ARS_BAND_BEST bands taken off an
 *				alternate's band when it competes (default 0)
 * ARS_A_OBJECT_ALTERNATE_BIAS	u8, 0..ARS_ALTERNATE_BIAS_MAX, percent of its
 *				weight an alternate keeps when it ties with
 *				the best primary; 0: primaries win ties
 *				(default 100)
 * ARS_A_OBJECT_ALTERNATE	nested ARS_A_ALTERNATE_IFINDEX or _GATEWAY,
 *				one per alternate next hop, in replies
 * ARS_A_OBJECT_TABLE_SIZE	u32, SAI's MAX_FLOWS: 0 (default), the object
 *				shares the namespace's macro-flow table
 *				(ARS_A_PROFILE_TABLE_SIZE); else a power of two,
 *				ARS_TABLE_SIZE_MIN..ARS_TABLE_SIZE_MAX, the size
 *				of a table of its own. A change carries the
 *				object's active entries over: no active
 *				flowlet moves
 */
enum {
	ARS_A_OBJECT_UNSPEC,
	ARS_A_OBJECT_NAME,
	ARS_A_OBJECT_MODE,
	ARS_A_OBJECT_IDLE_TIME,
	ARS_A_OBJECT_STATS,
	ARS_A_OBJECT_BINDINGS,
	ARS_A_OBJECT_PAD,
	ARS_A_OBJECT_PRIMARY_THRESHOLD,
	ARS_A_OBJECT_ALTERNATE_COST,
	ARS_A_OBJECT_ALTERNATE_BIAS,
	ARS_A_OBJECT_ALTERNATE,
	ARS_A_OBJECT_TABLE_SIZE,

	/* private: */
	__ARS_A_OBJECT_MAX,
	ARS_A_OBJECT_MAX = __ARS_A_OBJECT_MAX - 1
};

/* Old names, for userspace built before they changed. */
#define ARS_A_OBJECT_MAX_FLOWS		ARS_A_OBJECT_TABLE_SIZE

/*
 * A binding (ARS_CMD_BIND_*): exactly one of NHID, PREFIX or MARK says
 * what it binds; OBJECT or EXEMPT (marks only) what applies.
 *
 * ARS_A_BIND_OBJECT	string, the object's name
 * ARS_A_BIND_EXEMPT	flag: packets it selects are left to the kernel
 * ARS_A_BIND_NHID	u32, a nexthop group's id (ip nexthop)
 * ARS_A_BIND_PREFIX	binary, 4 (IPv4) or 16 (IPv6) bytes, the
 *			prefix's address; its host bits must be 0
 * ARS_A_BIND_PREFIX_LEN u8, 0..32 or 0..128
 * ARS_A_BIND_TABLE	u32, the routing table of the prefix (default 254,
 *			main; a VRF's table for a VRF)
 * ARS_A_BIND_MARK	u32, packets whose mark & MASK equals it
 * ARS_A_BIND_MASK	u32, non-zero; required with MARK
 * ARS_A_BIND_PACKETS	u64, in dumps: packets whose object the binding
 *			selected, i.e. those that looked their object up:
 *			the first packet of each flowlet, one packet per
 *			1/16 of the idle time while it goes on, every
 *			packet of a per-packet mode or an exempt mark;
 *			packets of a flowlet that goes on are the object's
 * ARS_A_BIND_FLOWLETS	u64, in dumps: flowlets the binding started
 * ARS_A_BIND_PAD	padding for 64-bit attributes
 */
enum {
	ARS_A_BIND_UNSPEC,
	ARS_A_BIND_OBJECT,
	ARS_A_BIND_EXEMPT,
	ARS_A_BIND_NHID,
	ARS_A_BIND_PREFIX,
	ARS_A_BIND_PREFIX_LEN,
	ARS_A_BIND_TABLE,
	ARS_A_BIND_MARK,
	ARS_A_BIND_MASK,
	ARS_A_BIND_PACKETS,
	ARS_A_BIND_FLOWLETS,
	ARS_A_BIND_PAD,

	/* private: */
	__ARS_A_BIND_MAX,
	ARS_A_BIND_MAX = __ARS_A_BIND_MAX - 1
};

/*
 * An ARS-enabled device, an interface (ARS_CMD_INTERFACE_*).
 *
 * ARS_A_INTERFACE_IFINDEX	u32, the device
 */
enum {
	ARS_A_INTERFACE_UNSPEC,
	ARS_A_INTERFACE_IFINDEX,

	/* private: */
	__ARS_A_INTERFACE_MAX,
	ARS_A_INTERFACE_MAX = __ARS_A_INTERFACE_MAX - 1
};

/* Old names, for userspace built before they changed. */
#define ARS_A_PORT_UNSPEC		ARS_A_INTERFACE_UNSPEC
#define ARS_A_PORT_IFINDEX		ARS_A_INTERFACE_IFINDEX
#define __ARS_A_PORT_MAX		__ARS_A_INTERFACE_MAX
#define ARS_A_PORT_MAX			ARS_A_INTERFACE_MAX

/*
 * An alternate next hop of an object (ARS_CMD_ALTERNATE_*): exactly one of
 * IFINDEX and GATEWAY.
 *
 * ARS_A_ALTERNATE_OBJECT	string, the object's name
 * ARS_A_ALTERNATE_IFINDEX	u32, next hops on this device
 * ARS_A_ALTERNATE_GATEWAY	binary, 4 (IPv4) or 16 (IPv6) bytes: next hops
 *				via this gateway
 */
enum {
	ARS_A_ALTERNATE_UNSPEC,
	ARS_A_ALTERNATE_OBJECT,
	ARS_A_ALTERNATE_IFINDEX,
	ARS_A_ALTERNATE_GATEWAY,

	/* private: */
	__ARS_A_ALTERNATE_MAX,
	ARS_A_ALTERNATE_MAX = __ARS_A_ALTERNATE_MAX - 1
};

/*
 * The ars qdisc (tc qdisc add dev DEV root ars ...): TCA_OPTIONS.
 *
 * TCA_ARS_BANDWIDTH	u64, bit/s: the line rate quality is measured
 *			against; 0 (default) takes the ethtool link speed
 * TCA_ARS_INTERVAL	u64, ns: sampling interval for this device; 0
 *			(default) takes the namespace's sampling-interval
 * TCA_ARS_SIGNAL	u8, enum ars_signal: the port signal the qdisc
 *			publishes for the data plane; ARS_SIGNAL_V2
 *			averages sampling intervals, ARS_SIGNAL_V3 is a
 *			load in continuous time, quantised into eight
 *			bands (ars.rst, "Port signal v3"). Without it the
 *			qdisc follows its namespace: v3 (ARS_DERIVE_SIGNAL)
 *			while a fabric-rtt is set, else v2; the dump says
 *			what was set (v2 if nothing), the extended
 *			statistics the signal in use
 * TCA_ARS_TAU		u64, ns: v3's time constant; 0 (default) takes
 *			the namespace's (ARS_A_PROFILE_SIGNAL_TAU: derived
 *			from its fabric-rtt, else ARS_SIGNAL_TAU_DEFAULT)
 */
enum {
	TCA_ARS_UNSPEC,
	TCA_ARS_BANDWIDTH,
	TCA_ARS_INTERVAL,
	TCA_ARS_PAD,
	TCA_ARS_SIGNAL,
	TCA_ARS_TAU,

	/* private: */
	__TCA_ARS_MAX,
	TCA_ARS_MAX = __TCA_ARS_MAX - 1
};

enum ars_signal {
	ARS_SIGNAL_V2,
	ARS_SIGNAL_V3,

	/* private: */
	__ARS_SIGNAL_MAX,
	ARS_SIGNAL_MAX = __ARS_SIGNAL_MAX - 1
};

#define ARS_SIGNAL_TAU_MIN		1000ULL		/* 1 us */
#define ARS_SIGNAL_TAU_MAX		1000000000ULL	/* 1 s */
#define ARS_SIGNAL_TAU_DEFAULT		16000ULL	/* 16 us */

/* The ars qdisc's extended statistics (tc -s qdisc). */
struct tc_ars_xstats {
	__u64	rate;		/* bytes/s, averaged transmit rate */
	__u64	backlog;	/* bytes, averaged backlog */
	__u64	delay;		/* ns, averaged queueing delay */
	__u64	bandwidth;	/* bit/s in use (option or link speed) */
	__u32	util;		/* per mille of bandwidth */
	__u32	band;		/* quality band, 0..ARS_BAND_BEST */
	__u64	samples;	/* sampling intervals completed */
	__u64	tau;		/* ns, signal v3's time constant in use */
	__u32	tau_derived;	/* 1: @tau is the namespace's fabric-rtt's */
	__u8	signal;		/* enum ars_signal in use */
	__u8	signal_derived;	/* 1: @signal is the namespace's fabric-rtt's */
	__u16	pad;
};

#endif /* _UAPI_LINUX_ARS_H */
