// SPDX-License-Identifier: GPL-2.0
/*
 * ars's own core in an ns-3 two-tier Clos fabric: one case (one workload,
 * one mode, one transport, one seed) per process, results as one JSON
 * object on stdout. run.py runs the cases and writes the report.
 *
 *   host -- leaf -- spine -- leaf -- host, every leaf linked once to every
 *   spine; hosts 10.<leaf>.<host>.1, leaf-spine links 11.<leaf>.<spine>.0/24
 *
 * Every leaf and spine is an ns-3 router whose routing protocol (ArsRouting)
 * asks kmod/ars_core.c and kmod/ars_step.c, linked unchanged, for the next
 * hop of every forwarded packet through the calls hook.c makes in the
 * kernel: the flow key (ars_flow_key() over addresses, protocol and
 * ports), the macro-flow table entry (key & mask), ars_flowlet_fast(),
 * flowlet-random's start without a route (ars_step_random()), else
 * ars_step() with the router's mode, idle time and random numbers and the
 * route's ports (ars_env_path_load() below: the bands, the head wait of a
 * stalled queue included), ars_step_commit(), and the kernel's
 * hash-threshold selection of the steering hash. Each router has its own
 * seed. Spines have one path to each leaf, so their packets are, as in
 * the kernel, not steered. With --remote (issue #34) a leaf also reads
 * the ECN-Echo of the ACKs it forwards to its own hosts and credits the
 * forward flowlet's path (ars_remote_feedback(), kmod/ars_remote.c), or
 * for a RoCE-like CNP the path of the address pair's newest flowlet
 * (ars_remote_pair_feedback()), and the step takes the scores (struct
 * ars_step's @remote): the same calls the hook is to make.
 *
 * Every router port's egress queue is ArsQueueDisc: a byte-limited FIFO
 * that marks ECN (DCTCP's step, on the instantaneous queue) and measures
 * the port with sch_ars's own estimator (kmod/ars_est.c, linked unchanged):
 * closes at enqueue and dequeue, a sample per packet that leaves, and at
 * each close the figures published as ars_qdisc_port_publish() does, so
 * that the bands come from the same arithmetic as the qdisc's. It also
 * keeps the port signal v3 (ars_sig_*, issue 33), which --signal=v3
 * publishes instead, and --port-trace compares the two.
 */
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <ctime>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

extern "C" {
#include "ars_core.h"
#include "ars_derive.h"
#include "ars_est.h"
#include "ars_step.h"
#include "ars_remote.h"
}

using namespace ns3;

/* ---------------------------------------------------------------- options */

/*
 * --remote: a RoCEv2 CNP as a NIC sends it, UDP to port 4791 with a BTH
 * whose opcode is 0x81; only the opcode matters here (--dcqcn: and the
 * destination QP, by which the sending host finds the flow's sender). A
 * CNP's address pair's note counts for this long after the pair's
 * flowlet started.
 */
#define ROCE_PORT	4791
#define ROCE_CNP	0x81
#define ROCE_NOTE_NS	1000000ULL

/* sch_ars_port.h's: a port whose qdisc closed no window this long is idle */
#define ARS_SIM_STALE_INTERVALS	4

struct Opts {
	uint32_t leaves = 32, spines = 8, hosts = 8;
	double rate_gbps = 400;
	/*
	 * Leaf-spine links at this many times the host links' rate, to see
	 * what the fabric adds to the FCT: at 4 on 8 x 4 x 4 the fabric is
	 * non-blocking by 4x and hardly queues, and what is left is the
	 * edge's (host links, incast). That is no floor for a balancer on
	 * the real fabric, whose queues also hold part of each incast.
	 * The ideal, the base RTT and the
	 * idle time stay those of the host rate, so that figures compare
	 * across speedups; buffer and ECN threshold per port are unchanged.
	 */
	double uplink_speedup = 1;
	double delay_us = 1;		/* per link */
	uint32_t mtu = 9000;
	uint64_t buffer = 500000;	/* bytes per router port */
	/*
	 * --shared-buffer: each router's egress ports draw on one pool of
	 * this many bytes, as a switch ASIC's shared buffer, under Choudhury
	 * and Hahne's Dynamic Threshold: a port queues a packet only if its
	 * backlog with it stays within dt_alpha times what the pool has
	 * free. 0: --buffer per port, as before. The ideal keeps --buffer.
	 */
	uint64_t shared_buffer = 0;
	double dt_alpha = 1;
	uint64_t ecn_k = 100000;	/* bytes, DCTCP marking threshold */
	std::string mode = "flowlet-quality";
	std::string transport = "udp";	/* udp (RoCE-like) or tcp (DCTCP) */
	/* seed, perm, allreduce, alltoall; websearch, hadoop or any name with --cdf */
	std::string workload = "seed";
	double load = 0.7;		/* flow-size workloads, of the uplinks */
	std::string cdf_dir, cdf;
	/* none, quarter, down, downlink-quarter, oversub */
	std::string degrade = "none";
	/*
	 * The profile is by default the kernel's with a fabric-rtt: what
	 * ars_derive() gives for the fabric's base RTT and link rate (idle
	 * time, v2's sampling interval, the flowlet window, v3's time
	 * constant), the kernel's
	 * ewma-shift, and the signal ARS_DERIVE_SIGNAL. Each figure given
	 * below (a value >= 0, a signal) wins over the derived one, as an
	 * explicit setting does in the kernel; the result says which
	 * ("profile": "derived" or the explicit options' names).
	 */
	double idle_rtt = -1;		/* idle time in base RTTs */
	double idle_us = 0;		/* explicit idle time, overrides */
	double interval_us = -1;	/* v2's sampling interval */
	int32_t shift = -1;		/* v2's EWMA shift */
	uint32_t rate_weight = ARS_RATE_WEIGHT_DEFAULT;
	double delay_full_us = 0;	/* full-scale delay; 0: ARS_DELAY_FULL_NS */
	uint32_t stale = ARS_SIM_STALE_INTERVALS;	/* experiment */
	uint32_t table = ARS_TABLE_SIZE_DEFAULT;
	uint64_t msg = 4000000;		/* RoCE message bytes */
	double gap_rtt = 3.0;		/* RoCE: pause between messages, base RTTs */
	/* -1: flow-size workloads max(2 ms, 5 ms x 100G / rate), collectives 0,
	 * long flows 100 us */
	double warmup_us = -1, window_us = 300;
	uint32_t warmup_flows = 1000;	/* flow-size: and at least these flows */
	uint32_t measure_flows = 10000;	/* flow-size: the window's flows; 0: --window */
	uint64_t coll_msg = 0;		/* collectives' message, bytes */
	/*
	 * The edge, out of what is compared (issue 30, item 2): a per-flow
	 * round robin in front of a NIC queue of 16 packets. With a FIFO of
	 * 100000 packets and no qdisc, a short flow waited behind the long
	 * flows' windows at its own sender, and the output-queued ideal came
	 * out worse than the fabric. WebSearch at 50%, 4x4x4 at 100G, 400
	 * flows, seed 1, mean FCT slowdown: FIFO ideal 6.28 (2 seeds), ecmp
	 * 4.41, flowlet-quality 4.05; fq and 16 packets ideal 3.11, ecmp
	 * 3.58, flowlet-quality 3.10.
	 */
	uint32_t nic_queue = 16;	/* hosts' NIC queue, packets */
	bool pacing = false;		/* TCP pacing at the hosts (fq's) */
	std::string host_qdisc = "fq";	/* none, fq (per-flow round robin) */
	bool read_now = false;		/* experiment: bands from ars_est_read() now */
	double reserve_us = -1;		/* the flowlet window; 0: off, -1: derived */
	/*
	 * The port signal (issue 33): v2, ars_est's windows (the kernel's),
	 * or v3, ars_sig's continuous-time load in eight bands by threshold
	 * (ars_est.h). The trace reads both on the leaf uplinks.
	 */
	std::string signal;		/* v2 or v3 */
	uint64_t tau_ns = 0;		/* v3's time constant */
	double tau_rtt = -1;		/* the same in base RTTs */
	std::string profile;		/* "derived" or what was explicit */
	double sig_full_us = 0;		/* v3's full scale; 0: buffer / line rate */
	std::string sig_weights;	/* v3: past,present,future; "": defaults */
	std::string sig_thresh;		/* v3: seven loads /65536; "": defaults */
	/*
	 * Remote congestion (issue #34): the leaves read DCTCP's ECN-Echo on
	 * the ACKs they forward to their own hosts and credit the path of
	 * the forward flow's flowlet (ars_remote.h); off by default.
	 */
	bool remote = false;
	double remote_half_us = 64;	/* the score's half-life, rounded to 2^k ns */
	uint32_t remote_credit = 1 << ARS_REMOTE_BAND_SHIFT;	/* one band */
	uint32_t remote_floor = 0;	/* the worst band a score makes */
	uint32_t remote_slots = 4096;	/* per leaf, a power of 2 */
	/* RoCE-like: a receiver sends a CNP per flow at most this often */
	double cnp_us = 50;
	uint32_t cnp_credit = 7 << ARS_REMOTE_BAND_SHIFT;	/* the cap */
	/*
	 * RoCE-like (issue #30 item 3): the receivers send CNPs on CE and
	 * the senders cut and recover their rate as DCQCN's reaction point
	 * (RoceSender says how); off by default, the transport has no
	 * congestion control.
	 */
	bool dcqcn = false;
	double dcqcn_timer_us = -1;	/* its timers; -1: 1.1 x cnp_us */
	double dcqcn_ai_mbps = -1;	/* additive step; -1: rate_gbps Mbit/s */
	double dcqcn_min_mbps = -1;	/* the floor; -1: rate_gbps Mbit/s */
	std::string port_trace;		/* file of the uplinks' trace; "": none */
	double trace_us = 16;		/* the trace's period */
	uint32_t peers = 4;		/* alltoall: peers of each host */
	double spread_us = -1;		/* long flows start within; -1: by transport */
	/* after the window, for finite flows to end; -1: flow-size the window
	 * and 10 times the largest flow's ideal FCT, collectives 20 times
	 * their ideal, long flows 0 */
	double drain_us = -1;
	uint32_t seed = 1;
	bool progress = true;
};

static Opts o;

/*
 * --mode=ideal: the floor that no balancer can beat. Every host on one
 * output-queued switch, links whose delay keeps the fabric's base RTT, the
 * same traffic: what is left of the FCT is the edge's and the transport's.
 * Its ports mark ECN as the fabric's and hold as much as the fabric holds
 * on the way to a host (the edge port and the spines' downlinks to its
 * leaf): with the fabric's buffer per port, an incast that the fabric's
 * queues spread over two tiers drops at the one port, and the "ideal"
 * came out worse than ecmp (WebSearch at 50%, 4x4x4 at 100G: mean FCT
 * slowdown 5.84 against 4.41).
 */
static bool Ideal()
{
	return o.mode == "ideal";
}

static int ModeOf(const std::string &m)
{
	if (m == "ideal")
		return ARS_MODE_ECMP;
	static const std::map<std::string, int> modes = {
		{"ecmp", ARS_MODE_ECMP},
		{"packet-random", ARS_MODE_PACKET_RANDOM},
		{"packet-roundrobin", ARS_MODE_PACKET_ROUNDROBIN},
		{"packet-quality", ARS_MODE_PACKET_QUALITY},
		{"flowlet-random", ARS_MODE_FLOWLET_RANDOM},
		{"flowlet-quality", ARS_MODE_FLOWLET_QUALITY},
	};
	auto it = modes.find(m);
	if (it == modes.end())
		NS_FATAL_ERROR("unknown mode " << m);
	return it->second;
}

static uint64_t NowNs()
{
	return Simulator::Now().GetNanoSeconds();
}

static double g_t0, g_t1;	/* measurement window, seconds */
static double g_drain_s;	/* flow-size: the drain's longest */
static double g_done_after = 1e9;	/* stop once measured flows are done, after */
static uint64_t g_remaining;	/* measured flows not done */

static bool FlowSizeWorkload()
{
	return !o.cdf.empty();
}

static bool Collective()
{
	return o.workload == "allreduce" || o.workload == "alltoall";
}

/* leaf-spine links' rate over the host links' */
static double UplinkScale()
{
	return o.uplink_speedup * (o.degrade == "oversub" ? 0.5 : 1);
}

/* --remote-half, as the shift of ns that ars_remote_cfg keeps */
static u8 RemoteHalfShift()
{
	double ns = o.remote_half_us * 1000;
	u8 k = ARS_REMOTE_HALF_MIN;

	while (k < ARS_REMOTE_HALF_MAX && (double)(1ULL << k) * 1.5 < ns)
		k++;
	return k;
}

static bool InWindow()
{
	double t = Simulator::Now().GetSeconds();
	return t >= g_t0 && t < g_t1;
}

/* ------------------------------------------------------------ the ports */

/* A router port's place, for the per-tier figures of the results. */
enum { TIER_EDGE, TIER_UP, TIER_DOWN, TIER_N };
static const char *const tier_name[TIER_N] = {"edge", "up", "down"};

/* --shared-buffer: a router's pool, what its ports hold now, and the most. */
struct BufferPool {
	uint64_t size = 0, used = 0, peak = 0;
};

/*
 * The most a port can hold: --buffer, or with --shared-buffer what the
 * Dynamic Threshold lets a port alone hold, a packet p included:
 * q + p <= alpha (size - q) gives q + p <= (alpha size + p) / (1 + alpha).
 */
static uint64_t PortBuffer()
{
	return o.shared_buffer ?
	       (uint64_t)((o.dt_alpha * o.shared_buffer + o.mtu) / (1 + o.dt_alpha)) :
	       o.buffer;
}

/* One router egress port: the queue and the estimator of sch_ars. */
class ArsQueueDisc : public QueueDisc {
public:
	static TypeId GetTypeId();
	ArsQueueDisc() : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE) {}

	struct ars_est est = {};
	struct ars_est_cfg cfg = {ARS_SAMPLING_INTERVAL_DEFAULT, ARS_EWMA_SHIFT_DEFAULT};
	/* the signal v3, kept whichever signal is published */
	struct ars_sig sig = {};
	struct ars_sig_cfg sig_cfg = {};
	uint64_t deq_bytes = 0, trace_bytes = 0;	/* --port-trace */
	u64 bandwidth = 0;		/* bit/s */
	/* what the port table holds for the data plane (struct ars_port) */
	u32 util = 0;
	u64 delay = 0, stamp = 0, stale_after = 0;
	u64 flowlet_at = 0;		/* --reserve: a flowlet last started on it */
	bool flowlet_once = false;
	bool stalled = false;		/* published: the head waited an interval */
	u64 head_since = 0;		/* ns, while the queue holds packets */
	uint64_t limit = 1000000, ecn_k = 100000;
	BufferPool *pool = nullptr;	/* --shared-buffer */
	uint64_t peak = 0;		/* the most it held, bytes */
	bool measure_util = false;	/* leaf uplinks: utilisation counted */
	uint64_t win_bytes = 0, drops = 0, marks = 0;
	/* where the queueing is: every packet that leaves, its sojourn */
	int tier = 0;			/* TIER_* */
	uint64_t deq_pkts = 0, sojourn_ns = 0, sojourn_max_ns = 0;

	void Load(u64 now, struct ars_path_load *pl) const;
	u64 HeadWait(u64 now) const;
	void SigRead(u64 now, struct ars_sig_fig *f) const;

private:
	void Close(u64 now, u64 head);
	bool DoEnqueue(Ptr<QueueDiscItem> item) override;
	Ptr<QueueDiscItem> DoDequeue() override;
	Ptr<const QueueDiscItem> DoPeek() override;
	bool CheckConfig() override;
	void InitializeParams() override {}
};

NS_OBJECT_ENSURE_REGISTERED(ArsQueueDisc);

TypeId ArsQueueDisc::GetTypeId()
{
	static TypeId tid = TypeId("ArsQueueDisc")
		.SetParent<QueueDisc>()
		.AddConstructor<ArsQueueDisc>();
	return tid;
}

bool ArsQueueDisc::CheckConfig()
{
	if (!GetNInternalQueues())
		AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
			"MaxSize", QueueSizeValue(QueueSize("1000000p"))));
	return true;
}

/* sch_ars_data.h's ars_head_wait(): how long the head has waited at @now. */
u64 ArsQueueDisc::HeadWait(u64 now) const
{
	return GetInternalQueue(0)->GetNPackets() && now > head_since ?
	       now - head_since : 0;
}

/*
 * sch_ars.c's ars_sample() and ars_qdisc_port_publish(), for a port of
 * one qdisc; @head: how long the head waited (at a dequeue, the leaving
 * packet).
 */
void ArsQueueDisc::Close(u64 now, u64 head)
{
	struct ars_est_fig a;

	if (!ars_est_close(&est, &cfg, now, GetInternalQueue(0)->GetNBytes(), head))
		return;
	ars_est_read(&est, &cfg, now, 0, head, &a);
	util = ars_util_permille(a.rate, bandwidth);
	delay = a.delay;
	stalled = a.stalled;
	stale_after = o.stale * cfg.interval;
	stamp = now;
}

/* The signal v3 at @now: no windows, so always decayed to @now. */
void ArsQueueDisc::SigRead(u64 now, struct ars_sig_fig *f) const
{
	u64 wait = 0;

	if (GetInternalQueue(0)->GetNPackets())
		wait = now - GetInternalQueue(0)->Peek()->GetTimeStamp().GetNanoSeconds();
	ars_sig_read(&sig, &sig_cfg, now, GetInternalQueue(0)->GetNBytes(), wait, f);
}

/* --signal=v3 through the decision as it is, as sch_ars publishes it. */
static void SigAsPathLoad(u8 band, struct ars_path_load *pl)
{
	u64 full = o.delay_full_us > 0 ? (u64)(o.delay_full_us * 1000) :
		   ARS_DELAY_FULL_NS;

	ars_sig_path_figures(band, full, &pl->util, &pl->delay);
}

/*
 * quality.h's ars_port_load(): what a new flowlet reads of the port, a
 * stalled queue (sch_ars_port.c's ars_qdisc_port_stalled() once the port
 * is stale: its head waited an interval or more) as stalled. With
 * --read-now (an experiment, not what the kernel does), the figures a
 * close at @now would give instead, as tc and arsctl read them, so that a
 * port gone quiet decays at once rather than keeping its last published
 * figures until it is stale.
 */
void ArsQueueDisc::Load(u64 now, struct ars_path_load *pl) const
{
	*pl = ars_path_load{};	/* fields this glue does not know are 0 */
	pl->bandwidth = bandwidth;
	if (o.signal == "v3") {
		struct ars_sig_fig f;

		SigRead(now, &f);
		SigAsPathLoad(f.band, pl);
	} else if (o.read_now) {
		struct ars_est_fig a;

		ars_est_read(&est, &cfg, now, GetInternalQueue(0)->GetNBytes(),
			     HeadWait(now), &a);
		pl->util = ars_util_permille(a.rate, bandwidth);
		pl->delay = a.delay;
		pl->stalled = a.stalled;
	} else if (now - stamp > stale_after) {
		pl->util = 0;
		pl->delay = 0;
		pl->stalled = HeadWait(now) >= cfg.interval;
	} else {
		pl->util = util;
		pl->delay = delay;
		pl->stalled = stalled;
	}
}

bool ArsQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
	uint64_t backlog = GetInternalQueue(0)->GetNBytes();

	/* a window closes before the packet joins the queue */
	Close(NowNs(), HeadWait(NowNs()));
	if (backlog + item->GetSize() > limit) {
		drops++;
		DropBeforeEnqueue(item, "limit");
		return false;
	}
	if (pool) {
		uint64_t free = pool->size - pool->used;

		/* the Dynamic Threshold, the packet counted */
		if (item->GetSize() > free ||
		    backlog + item->GetSize() > o.dt_alpha * free) {
			drops++;
			DropBeforeEnqueue(item, "shared");
			return false;
		}
		pool->used += item->GetSize();
		pool->peak = std::max(pool->peak, pool->used);
	}
	peak = std::max(peak, backlog + item->GetSize());
	if (backlog > ecn_k && item->Mark())
		marks++;
	item->SetTimeStamp(Simulator::Now());
	if (!GetInternalQueue(0)->GetNPackets())
		head_since = NowNs();
	return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem> ArsQueueDisc::DoDequeue()
{
	Ptr<QueueDiscItem> item = GetInternalQueue(0)->Dequeue();
	uint64_t now;

	if (!item)
		return nullptr;
	now = NowNs();
	if (pool)
		pool->used -= item->GetSize();
	Close(now, now - head_since);
	uint64_t sojourn = now - item->GetTimeStamp().GetNanoSeconds();
	ars_est_sample(&est, &cfg, item->GetSize(), sojourn);
	ars_sig_sample(&sig, &sig_cfg, now, item->GetSize(), sojourn);
	deq_bytes += item->GetSize();
	deq_pkts++;
	sojourn_ns += sojourn;
	sojourn_max_ns = std::max(sojourn_max_ns, sojourn);
	/* the next packet, if any, is the head from now */
	head_since = now;
	if (measure_util && InWindow())
		win_bytes += item->GetSize() + 2;	/* + PPP header */
	return item;
}

Ptr<const QueueDiscItem> ArsQueueDisc::DoPeek()
{
	return GetInternalQueue(0)->Peek();
}

/* ---------------------------------------------------------- the routers */

struct Fabric;

/* A router's ars: its seed, table, ticket and counters (struct ars_net). */
class ArsRouting : public Ipv4RoutingProtocol {
public:
	static TypeId GetTypeId();

	Fabric *fab = nullptr;
	bool spine = false;
	uint32_t index = 0;		/* leaf or spine number */
	int mode = ARS_MODE_ECMP;
	uint32_t seed = 0, tag_seed = 0;
	uint64_t ticket = 0;
	uint64_t idle = 0;
	std::vector<struct ars_flow> table;
	Ptr<UniformRandomVariable> rnd;
	/* per interface: the route out of it, and its port */
	std::vector<Ptr<Ipv4Route>> out;
	std::vector<Ptr<ArsQueueDisc>> port;
	/* leaf: interface to host h, to spine s; spine: to leaf l */
	std::vector<uint32_t> host_if, up_if, down_if;
	/* leaf: the fabric's route to each other leaf (usable spines) */
	std::vector<struct ars_route> to_leaf;
	std::vector<std::vector<uint32_t>> to_leaf_spines;
	uint64_t packets = 0, flowlets = 0, reassignments = 0, failovers = 0;
	/* --remote: the leaf's scores, and its counters of feedback packets
	 * seen, matched (an active entry of the forward flow), credited, and
	 * of flowlets whose choice a remote score moved
	 */
	struct ars_remote remote = {};
	std::vector<struct ars_remote_slot> remote_slots;
	std::vector<struct ars_remote_pair> remote_pairs;
	uint64_t fb_seen = 0, fb_matched = 0, fb_credited = 0, remote_moved = 0;

	/* A feedback packet's outcome into the counters, as hook.c counts. */
	void Counted(enum ars_remote_fb fb)
	{
		fb_matched += fb != ARS_REMOTE_UNMATCHED;
		fb_credited += fb == ARS_REMOTE_CREDITED;
	}

	Ptr<Ipv4Route> RouteOutput(Ptr<Packet>, const Ipv4Header &, Ptr<NetDevice>,
				   Socket::SocketErrno &err) override
	{
		err = Socket::ERROR_NOROUTETOHOST;
		return nullptr;
	}
	bool RouteInput(Ptr<const Packet> p, const Ipv4Header &h,
			Ptr<const NetDevice> idev, UnicastForwardCallback ucb,
			MulticastForwardCallback mcb, LocalDeliverCallback lcb,
			ErrorCallback ecb) override;
	void NotifyInterfaceUp(uint32_t) override {}
	void NotifyInterfaceDown(uint32_t) override {}
	void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
	void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
	void SetIpv4(Ptr<Ipv4> ipv4) override { m_ipv4 = ipv4; }
	void PrintRoutingTable(Ptr<OutputStreamWrapper>, Time::Unit) const override {}

	uint32_t Steer(Ptr<const Packet> p, const Ipv4Header &h, uint32_t dleaf);
	void Feedback(Ptr<const Packet> p, const Ipv4Header &h, uint32_t sleaf);
	void Cnp(Ptr<const Packet> p, const Ipv4Header &h);

private:
	Ptr<Ipv4> m_ipv4;
};

NS_OBJECT_ENSURE_REGISTERED(ArsRouting);

TypeId ArsRouting::GetTypeId()
{
	static TypeId tid = TypeId("ArsRouting")
		.SetParent<Ipv4RoutingProtocol>()
		.AddConstructor<ArsRouting>();
	return tid;
}

/*
 * The kernel's hash-threshold uppers for n equal next hops (fib_rebalance():
 * the cumulative weight scaled to 2^31, rounded, minus one).
 */
static void RouteUppers(struct ars_route *r)
{
	for (unsigned int i = 0; i < r->n; i++) {
		uint64_t w = (uint64_t)(i + 1) << 31;

		r->path[i].upper = (s32)((w + r->n / 2) / r->n) - 1;
		r->path[i].weight = 1;
		r->path[i].band = ARS_BAND_BEST;
	}
}

/* The kernel's multipath selection of a hash: the first usable upper. */
static unsigned int KernelSelect(const struct ars_route *r, u32 hash)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (r->path[i].upper >= 0 && (s32)(hash >> 1) <= r->path[i].upper)
			return i;
	return 0;
}

/* The key of an address pair, as the data plane would hash it. */
static u32 PairKey(ArsRouting *rt, Ipv4Address src, Ipv4Address dst)
{
	u32 w[2] = {__builtin_bswap32(src.Get()), __builtin_bswap32(dst.Get())};

	return ars_flow_key(w, 2, rt->seed);
}

/* What one decision gives back to the glue. */
struct SimVerdict {
	unsigned int path;		/* index into the route */
	bool assigned;			/* a new flowlet */
	bool remote_moved;		/* a remote score moved it (--remote) */
	int reason;			/* ARS_REASON_* when assigned */
	u32 old_dev;			/* the entry's device before, 0: none */
};

/*
 * The environment of ars_step() (ars_step.h): a path's device is the
 * router's interface, whose port is its ArsQueueDisc. @env is the router.
 */
bool ars_env_path_load(void *env, u32 dev, u64 now, struct ars_path_load *pl)
{
	ArsRouting *rt = static_cast<ArsRouting *>(env);

	if (dev >= rt->port.size() || !rt->port[dev])
		return false;
	rt->port[dev]->Load(now, pl);
	return true;
}

void ars_env_flowlet_stamp(void *env, u32 dev, u64 now)
{
	ArsRouting *rt = static_cast<ArsRouting *>(env);

	if (dev >= rt->port.size() || !rt->port[dev])
		return;
	rt->port[dev]->flowlet_at = now;
	rt->port[dev]->flowlet_once = true;
}

/*
 * The profile's flowlet-window (--reserve): a port that took a new
 * flowlet (or that a flow back from a pause left, ars_step()) within it
 * reads as busy as its line rate (ars_step_window()).
 */
bool ars_env_flowlet_at(void *env, u32 dev, u64 *at)
{
	ArsRouting *rt = static_cast<ArsRouting *>(env);

	if (dev >= rt->port.size() || !rt->port[dev] ||
	    !rt->port[dev]->flowlet_once)
		return false;
	*at = rt->port[dev]->flowlet_at;
	return true;
}

/*
 * The decision for one packet of a route with several paths, through the
 * core calls hook.c makes, in its order: the flow key over hook.c's words
 * and the macro-flow table entry; a flowlet that goes on from the entry
 * alone (ars_flowlet_fast()); flowlet-random's start with a random hash
 * that the kernel maps (ars_step_random()); else ars_step() on the route
 * with the ports' figures, the path's hash (ars_steer_hash()), which the
 * kernel always accepts here, and ars_step_commit(). The ecmp mode is the
 * kernel's own selection by the headers' hash. The sim composes no
 * decision of its own.
 */
static unsigned int SimDecide(ArsRouting *rt, const u32 w[4], struct ars_route *r,
			      u32 route, u64 now, struct SimVerdict *v)
{
	struct ars_step s = {};
	struct ars_route local, *rr;
	struct ars_flow *f = nullptr;
	struct ars_ctx c;
	int mode = rt->mode;
	unsigned int i;
	u32 hash;

	memset(&c, 0, sizeof(c));
	memset(v, 0, sizeof(*v));
	c.key = ars_flow_key(w, 4, rt->seed);
	c.tag = ars_flow_key(w, 3, rt->tag_seed);
	c.now = now;
	c.idle = rt->idle;
	c.gen = 0x8000;
	c.mode = mode;
	c.rand = rt->rnd->GetInteger();
	if (mode == ARS_MODE_PACKET_ROUNDROBIN)
		c.ticket = ++rt->ticket;

	if (mode == ARS_MODE_ECMP)
		return v->path = ars_choose(r, &c);

	s.env = rt;
	s.window = (u64)(o.reserve_us * 1000);
	s.delay_full = (u64)(o.delay_full_us * 1000);
	s.rate_weight = o.rate_weight;
	if (o.remote) {
		s.remote = &rt->remote;
		s.remote_route = route;
	}
	if (mode == ARS_MODE_FLOWLET_RANDOM || mode == ARS_MODE_FLOWLET_QUALITY) {
		f = &rt->table[c.key & (rt->table.size() - 1)];
		if (ars_flowlet_fast(f, &c))
			return v->path = KernelSelect(r, READ_ONCE(f->hash));
		if (ars_flow_gen(f->state))
			v->old_dev = f->ifindex;
	}
	if (mode == ARS_MODE_FLOWLET_RANDOM && ars_flowlet_expired(f, &c)) {
		hash = rt->rnd->GetInteger() | 1;
		i = KernelSelect(r, hash);
		f->key_hi = (u16)(c.key >> ARS_FLOW_KEY_SHIFT);
		ars_step_random(&s, f, &c, hash, r->path[i].dev);
	} else {
		rr = ars_step(&s, f, r, &local, &c);
		if (s.res.path == ARS_PATH_NONE)
			return v->path = 0;
		hash = ars_steer_hash(rr, s.res.path, c.key);
		/* the key bits that hook.c keeps (ars_flow_object_set()) */
		if (f && s.res.write == ARS_WRITE_ALL)
			f->key_hi = (u16)(c.key >> ARS_FLOW_KEY_SHIFT);
		ars_step_commit(&s, f, rr, &c, hash);
		i = KernelSelect(r, hash);
	}
	v->assigned = s.res.assigned;
	v->reason = s.res.reason;
	v->remote_moved = s.remote && s.res.assigned && s.remote_moved;
	return v->path = i;
}

uint32_t ArsRouting::Steer(Ptr<const Packet> p, const Ipv4Header &h,
			   uint32_t dleaf)
{
	struct ars_route r = to_leaf[dleaf];
	const std::vector<uint32_t> &sp = to_leaf_spines[dleaf];
	struct SimVerdict v;
	uint8_t l4[4] = {0, 0, 0, 0};
	uint64_t now = NowNs();
	u32 w[4];

	if (r.n == 1)
		return up_if[sp[0]];
	/* hook.c's ars_key4(): words as the data plane loads them */
	p->CopyData(l4, 4);
	w[0] = __builtin_bswap32(h.GetSource().Get());
	w[1] = __builtin_bswap32(h.GetDestination().Get());
	w[2] = h.GetProtocol();
	memcpy(&w[3], l4, 4);
	packets++;

	unsigned int i = SimDecide(this, w, &r, dleaf, now, &v);

	if (v.assigned) {
		flowlets++;
		remote_moved += v.remote_moved;
		/* a RoCEv2 flowlet (not a CNP): note its address pair's path */
		if (o.remote && w[2] == 17 &&
		    ((uint32_t)l4[2] << 8 | l4[3]) != ROCE_PORT)
			ars_remote_pair_note(&remote, PairKey(this, h.GetSource(),
							      h.GetDestination()),
					     dleaf, r.path[i].dev, now);
		if (v.reason == ARS_REASON_FAILOVER)
			failovers++;
		if (v.old_dev && v.old_dev != r.path[i].dev)
			reassignments++;
	}
	return up_if[sp[i]];
}

/*
 * A leaf forwards an ACK with ECN-Echo (not a SYN's, which negotiates ECN)
 * to one of its hosts: the forward flow is the same key with addresses and
 * ports swapped, in the same table; its route is the one to the ACK's
 * source leaf. ars_remote_feedback() credits the path of the forward
 * flow's active flowlet, as the hook is to.
 */
void ArsRouting::Feedback(Ptr<const Packet> p, const Ipv4Header &h,
			  uint32_t sleaf)
{
	uint8_t l4[14] = {0};
	struct ars_ctx c;
	u32 w[4];

	p->CopyData(l4, sizeof(l4));
	/* TCP flags: byte 13; ECE 0x40, SYN 0x02 */
	if ((l4[13] & 0x42) != 0x40)
		return;
	fb_seen++;
	w[0] = __builtin_bswap32(h.GetDestination().Get());
	w[1] = __builtin_bswap32(h.GetSource().Get());
	w[2] = h.GetProtocol();
	w[3] = (u32)l4[2] | (u32)l4[3] << 8 | (u32)l4[0] << 16 | (u32)l4[1] << 24;
	memset(&c, 0, sizeof(c));
	c.key = ars_flow_key(w, 4, seed);
	c.tag = ars_flow_key(w, 3, tag_seed);
	c.now = NowNs();
	c.idle = idle;
	c.gen = 0x8000;
	Counted(ars_remote_feedback(&remote,
				    &table[c.key & (table.size() - 1)], &c,
				    sleaf));
}

/*
 * A leaf forwards a CNP (UDP to port 4791, BTH opcode 0x81) to one of its
 * hosts: it credits the path of the newest flowlet of the data's address
 * pair, the CNP's swapped (ars_remote_pair_feedback(); ars_remote.h says
 * why a CNP cannot find its flow's entry).
 */
void ArsRouting::Cnp(Ptr<const Packet> p, const Ipv4Header &h)
{
	uint8_t l4[9] = {0};

	p->CopyData(l4, sizeof(l4));
	if (((uint32_t)l4[2] << 8 | l4[3]) != ROCE_PORT || l4[8] != ROCE_CNP)
		return;
	fb_seen++;
	Counted(ars_remote_pair_feedback(&remote,
					 PairKey(this, h.GetDestination(),
						 h.GetSource()),
					 NowNs(), ROCE_NOTE_NS));
}

/* ---------------------------------------------------------- the fabric */

struct Fabric {
	NodeContainer hosts, leaves, spines;
	std::vector<Ptr<ArsRouting>> leaf_rt, spine_rt;
	std::vector<Ipv4Address> host_addr;
	/* link (leaf, spine) up? */
	std::vector<std::vector<bool>> up;
	std::vector<Ptr<ArsQueueDisc>> uplinks, downlinks, ports;
	std::map<uint32_t, BufferPool> pools;	/* --shared-buffer, by node */
	double base_rtt_us = 0;

	uint32_t HostId(uint32_t leaf, uint32_t h) const { return leaf * o.hosts + h; }
};

static Fabric fab;

bool ArsRouting::RouteInput(Ptr<const Packet> p, const Ipv4Header &h,
			    Ptr<const NetDevice> idev, UnicastForwardCallback ucb,
			    MulticastForwardCallback, LocalDeliverCallback lcb,
			    ErrorCallback ecb)
{
	uint32_t d = h.GetDestination().Get();
	uint32_t dleaf = (d >> 16) & 0xff, dhost = (d >> 8) & 0xff;
	uint32_t iif = m_ipv4->GetInterfaceForDevice(idev), oif;

	if ((d >> 24) != 10) {
		if (m_ipv4->IsDestinationAddress(h.GetDestination(), iif)) {
			lcb(p, h, iif);
			return true;
		}
		ecb(p, h, Socket::ERROR_NOROUTETOHOST);
		return false;
	}
	if (Ideal()) {
		oif = host_if[dleaf * o.hosts + dhost];
	} else if (spine) {
		if (!fab->up[dleaf][index]) {
			ecb(p, h, Socket::ERROR_NOROUTETOHOST);
			return false;
		}
		oif = down_if[dleaf];
	} else if (dleaf == index) {
		oif = host_if[dhost];
		if (o.remote && ((h.GetSource().Get() >> 16) & 0xff) != index) {
			if (h.GetProtocol() == 6)
				Feedback(p, h, (h.GetSource().Get() >> 16) & 0xff);
			else if (h.GetProtocol() == 17)
				Cnp(p, h);
		}
	} else {
		oif = Steer(p, h, dleaf);
	}
	ucb(out[oif], p, h);
	return true;
}

/*
 * A host's NIC queue (the device's, no qdisc, no ECN): its bytes over
 * time, from the queue's BytesInQueue trace, for the results.
 */
struct HostQueue {
	uint64_t since = 0, bytes = 0, max = 0;
	double byte_ns = 0;		/* integral of bytes over time */
};

static std::vector<HostQueue> host_queues;

static void HostQueueBytes(HostQueue *q, uint32_t, uint32_t bytes)
{
	uint64_t now = NowNs();

	q->byte_ns += (double)q->bytes * (now - q->since);
	q->since = now;
	q->bytes = bytes;
	q->max = std::max<uint64_t>(q->max, bytes);
}

/* A comma-separated list of @n numbers, or NS_FATAL_ERROR. */
static void ParseList(const std::string &opt, const std::string &v, u32 *out,
		      unsigned int n)
{
	size_t pos = 0;

	for (unsigned int i = 0; i < n; i++) {
		size_t end = v.find(',', pos);
		std::string num = v.substr(pos, end == std::string::npos ?
					   std::string::npos : end - pos);
		char *tail;
		unsigned long x = strtoul(num.c_str(), &tail, 0);

		if (num.empty() || *tail || x > 0xffffffffUL ||
		    (end == std::string::npos) != (i == n - 1))
			NS_FATAL_ERROR("--" << opt << " takes " << n << " numbers");
		out[i] = x;
		pos = end + 1;
	}
}

/*
 * The profile: ars_derive() of the base RTT and the host rate, as the
 * kernel derives it from a fabric-rtt and a port's speed, except for what
 * the options set. The base RTT is the fabric's (BuildFabric()'s): four
 * links each way, a full packet serialised on each data hop.
 */
static void ResolveProfile(void)
{
	double rtt_us = 8 * o.delay_us + 4 * o.mtu * 8 / (o.rate_gbps * 1e3);
	struct ars_derived d;
	std::string expl;

	ars_derive((u64)(rtt_us * 1000), (u64)(o.rate_gbps * 1e9), &d);
	auto mark = [&](bool given, const char *name) {
		if (given)
			expl += (expl.empty() ? "" : ",") + std::string(name);
		return given;
	};
	if (mark(o.idle_us > 0, "idle"))
		;
	else if (mark(o.idle_rtt >= 0, "idle-rtt"))
		o.idle_us = o.idle_rtt * rtt_us;
	else
		o.idle_us = d.idle_time / 1000.0;
	if (!mark(o.interval_us >= 0, "interval"))
		o.interval_us = d.sampling_interval / 1000.0;
	if (!mark(o.shift >= 0, "shift"))
		o.shift = ARS_EWMA_SHIFT_DEFAULT;
	if (!mark(o.reserve_us >= 0, "reserve"))
		o.reserve_us = d.flowlet_window / 1000.0;
	if (mark(o.tau_ns > 0, "tau-ns"))
		;
	else if (mark(o.tau_rtt >= 0, "tau-rtt"))
		o.tau_ns = (uint64_t)(o.tau_rtt * rtt_us * 1000);
	else
		o.tau_ns = d.tau;
	if (!mark(!o.signal.empty(), "signal"))
		o.signal = ARS_DERIVE_SIGNAL == ARS_SIGNAL_V3 ? "v3" : "v2";
	o.profile = expl.empty() ? "derived" : "explicit:" + expl;
}

/* The port's signal v3 from the options, its line rate and its buffer. */
static void SigConfig(Ptr<ArsQueueDisc> q)
{
	static const u32 thresh[ARS_SIG_THRESHOLDS] = ARS_SIG_THRESH_DEFAULT;
	struct ars_sig_cfg *c = &q->sig_cfg;
	u32 w[3] = {ARS_SIG_W_PAST_DEFAULT, ARS_SIG_W_PRESENT_DEFAULT,
		    ARS_SIG_W_FUTURE_DEFAULT};

	memcpy(c->thresh, thresh, sizeof(thresh));
	if (!o.sig_weights.empty())
		ParseList("sig-weights", o.sig_weights, w, 3);
	if (!o.sig_thresh.empty())
		ParseList("sig-thresh", o.sig_thresh, c->thresh, ARS_SIG_THRESHOLDS);
	for (unsigned int i = 1; i < ARS_SIG_THRESHOLDS; i++)
		if (c->thresh[i] < c->thresh[i - 1])
			NS_FATAL_ERROR("--sig-thresh must ascend");
	c->w_past = w[0];
	c->w_present = w[1];
	c->w_future = w[2];
	c->tau = o.tau_ns;
	c->bandwidth = q->bandwidth;
	/* the buffer's drain time at line rate, unless configured */
	c->full = o.sig_full_us > 0 ? (u64)(o.sig_full_us * 1000) :
		  q->bandwidth ? (q->pool ? PortBuffer() : q->limit) * 8 *
				 1000000000ULL / q->bandwidth :
		  ARS_DELAY_FULL_NS;
	ars_sig_init(&q->sig, 0);
}

/*
 * --port-trace: every --trace-us of the measurement window, each leaf
 * uplink's utilisation over the period just ended (its bytes over what
 * the line carries) and its band by either signal, both read at that
 * instant (ars_est_read() and ars_quality_band() for v2, as tc shows
 * them; ars_sig_read() for v3). One line a port and period; at the end,
 * for periods at 10%, 50% and 90% (+-5 points), how often each band was
 * read, per signal: what a port at that load reports.
 */
static FILE *g_trace;
static uint64_t g_trace_hist[2][3][ARS_BAND_BEST + 1];

static void PortTrace()
{
	uint64_t now = NowNs(), period = (uint64_t)(o.trace_us * 1000);

	for (size_t i = 0; i < fab.uplinks.size(); i++) {
		Ptr<ArsQueueDisc> q = fab.uplinks[i];
		uint64_t bytes = q->deq_bytes - q->trace_bytes;
		struct ars_quality_in in = {};
		struct ars_est_fig a;
		struct ars_sig_fig f;
		double util;
		u8 v2;

		q->trace_bytes = q->deq_bytes;
		if (!InWindow() || !q->bandwidth)
			continue;
		util = bytes * 8e9 / ((double)q->bandwidth * period);
		ars_est_read(&q->est, &q->cfg, now, q->GetNBytes(), 0, &a);
		in.rate = a.rate;
		in.bandwidth = q->bandwidth;
		in.delay = a.delay;
		in.rate_weight = o.rate_weight;
		in.delay_full = (u64)(o.delay_full_us * 1000);
		v2 = ars_quality_band(&in);
		q->SigRead(now, &f);
		fprintf(g_trace, "%.3f %zu %.4f %u %u %u %u %u %u\n", now / 1e3, i,
			util, v2, f.band, f.load, f.past, f.present, f.future);
		for (int b = 0; b < 3; b++) {
			static const double at[3] = {0.1, 0.5, 0.9};

			if (fabs(util - at[b]) < 0.05) {
				g_trace_hist[0][b][v2]++;
				g_trace_hist[1][b][f.band]++;
			}
		}
	}
	Simulator::Schedule(NanoSeconds(period), &PortTrace);
}

static void PortTraceStart()
{
	if (o.port_trace.empty())
		return;
	if (!(o.trace_us > 0))
		NS_FATAL_ERROR("--trace-us must be above 0");
	g_trace = fopen(o.port_trace.c_str(), "w");
	if (!g_trace)
		NS_FATAL_ERROR("cannot write " << o.port_trace);
	fprintf(g_trace, "# signal %s tau_ns %" PRIu64 " interval_us %g shift %d "
		"rate_weight %u\n# t_us uplink util v2_band v3_band v3_load "
		"past present future (/65536)\n", o.signal.c_str(), o.tau_ns,
		o.interval_us, o.shift, o.rate_weight);
	Simulator::Schedule(MicroSeconds(o.trace_us), &PortTrace);
}

static void PortTraceEnd()
{
	static const char *const sig[2] = {"v2", "v3"};
	static const char *const at[3] = {"10", "50", "90"};

	if (!g_trace)
		return;
	for (int s = 0; s < 2; s++)
		for (int b = 0; b < 3; b++) {
			fprintf(g_trace, "# %s at %s%%: bands 7..0", sig[s], at[b]);
			for (int k = ARS_BAND_BEST; k >= 0; k--)
				fprintf(g_trace, " %" PRIu64, g_trace_hist[s][b][k]);
			fprintf(g_trace, "\n");
		}
	fclose(g_trace);
}

static void Build()
{
	uint32_t L = o.leaves, S = o.spines, H = o.hosts;
	std::string rate = std::to_string((uint64_t)(o.rate_gbps * 1e9)) + "bps";
	std::string delay = std::to_string((uint64_t)(o.delay_us * 1000)) + "ns";
	PointToPointHelper p2p;
	InternetStackHelper stack;
	Ptr<UniformRandomVariable> seeds = CreateObject<UniformRandomVariable>();
	int mode = ModeOf(o.mode);
	double ser = o.mtu * 8 / (o.rate_gbps * 1e3);	/* us */
	uint64_t idle_ns;

	fab.hosts.Create(L * H);
	host_queues.resize(L * H);
	fab.leaves.Create(Ideal() ? 1 : L);
	fab.spines.Create(Ideal() ? 0 : S);
	fab.up.assign(L, std::vector<bool>(S, true));
	if (o.degrade == "down")
		fab.up[0][S - 1] = false;
	/* four links each way, a full packet serialised on each data hop */
	fab.base_rtt_us = 8 * o.delay_us + 4 * ser;
	idle_ns = (uint64_t)(o.idle_us * 1000);
	if (idle_ns < ARS_IDLE_TIME_MIN)
		idle_ns = ARS_IDLE_TIME_MIN;

	stack.Install(fab.hosts);
	auto routers = [&](NodeContainer &nc, bool spine,
			   std::vector<Ptr<ArsRouting>> &v) {
		for (uint32_t i = 0; i < nc.GetN(); i++) {
			Ptr<ArsRouting> rt = CreateObject<ArsRouting>();
			InternetStackHelper ish;
			Ipv4ListRoutingHelper list;

			ish.SetRoutingHelper(list);	/* replaced below */
			ish.Install(nc.Get(i));
			Ptr<Ipv4> ipv4 = nc.Get(i)->GetObject<Ipv4>();
			rt->fab = &fab;
			rt->spine = spine;
			rt->index = i;
			rt->mode = mode;
			rt->seed = seeds->GetInteger();
			rt->tag_seed = seeds->GetInteger();
			rt->idle = idle_ns;
			rt->table.assign(o.table, ars_flow{});
			if (o.remote && !spine) {
				rt->remote_slots.assign(o.remote_slots, ars_remote_slot{});
				rt->remote.slot = rt->remote_slots.data();
				rt->remote.mask = o.remote_slots / 2 - 1;
				rt->remote.seed = rt->seed ^ 0x9e3779b9u;
				rt->remote.cfg.half_shift = RemoteHalfShift();
				rt->remote.cfg.credit = o.remote_credit;
				rt->remote.cfg.floor = o.remote_floor;
				rt->remote.cfg.cnp_credit = o.cnp_credit;
				rt->remote_pairs.assign(o.remote_slots, ars_remote_pair{});
				rt->remote.pairs = rt->remote_pairs.data();
				rt->remote.pair_mask = o.remote_slots - 1;
			}
			rt->rnd = CreateObject<UniformRandomVariable>();
			rt->rnd->SetAttribute("Max", DoubleValue(4294967295.0));
			ipv4->SetRoutingProtocol(rt);
			v.push_back(rt);
		}
	};
	routers(fab.leaves, false, fab.leaf_rt);
	routers(fab.spines, true, fab.spine_rt);

	p2p.SetDeviceAttribute("DataRate", StringValue(rate));
	p2p.SetDeviceAttribute("Mtu", UintegerValue(o.mtu));
	p2p.SetChannelAttribute("Delay", StringValue(delay));
	p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("4p"));

	Ptr<TrafficControlLayer> tcl;
	auto port_of = [&](Ptr<NetDevice> dev, double gbps) {
		Ptr<ArsQueueDisc> q = CreateObject<ArsQueueDisc>();
		Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();

		/*
		 * the ideal's port holds what the fabric's path to the host
		 * holds: the leaf's edge port and the spines' downlinks to it
		 */
		q->limit = o.buffer * (Ideal() ? 1 + o.spines : 1);
		if (o.shared_buffer && !Ideal()) {
			/* the Dynamic Threshold is the limit (DoEnqueue()) */
			q->pool = &fab.pools[dev->GetNode()->GetId()];
			q->pool->size = o.shared_buffer;
			q->limit = o.shared_buffer;
		}
		q->ecn_k = o.ecn_k;
		q->cfg.interval = (uint64_t)(o.interval_us * 1000);
		q->cfg.shift = o.shift;
		q->bandwidth = (uint64_t)(gbps * 1e9);
		ars_est_init(&q->est, 0, &q->cfg);
		SigConfig(q);
		fab.ports.push_back(q);
		tc->SetRootQueueDiscOnDevice(dev, q);
		return q;
	};
	auto attach = [&](Ptr<ArsRouting> rt, Ptr<NetDevice> dev, Ipv4Address a,
			  Ipv4Address peer, uint32_t mask, double gbps) {
		Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
		uint32_t ifi = ipv4->AddInterface(dev);
		Ptr<Ipv4Route> route = Create<Ipv4Route>();

		ipv4->AddAddress(ifi, Ipv4InterfaceAddress(a, Ipv4Mask(mask)));
		ipv4->SetUp(ifi);
		if (rt->out.size() <= ifi) {
			rt->out.resize(ifi + 1);
			rt->port.resize(ifi + 1);
		}
		route->SetGateway(peer);
		route->SetOutputDevice(dev);
		route->SetSource(a);
		rt->out[ifi] = route;
		rt->port[ifi] = port_of(dev, gbps);
		return ifi;
	};

	Ipv4StaticRoutingHelper srh;
	if (Ideal()) {
		/* two store-and-forward hops instead of four, the same base RTT */
		p2p.SetChannelAttribute("Delay", StringValue(std::to_string(
			(uint64_t)((2 * o.delay_us + ser / 2) * 1000)) + "ns"));
		fab.leaf_rt[0]->host_if.resize(L * H);
	}
	for (uint32_t l = 0; l < L; l++) {
		Ptr<ArsRouting> rt = fab.leaf_rt[Ideal() ? 0 : l];

		if (!Ideal())
			rt->host_if.resize(H);
		for (uint32_t h = 0; h < H; h++) {
			Ptr<Node> host = fab.hosts.Get(fab.HostId(l, h));
			NetDeviceContainer d = p2p.Install(host, fab.leaves.Get(Ideal() ? 0 : l));
			uint32_t hi = Ideal() ? fab.HostId(l, h) : h;
			uint32_t net = (10u << 24) | (l << 16) | (h << 8);
			Ptr<Ipv4> hip = host->GetObject<Ipv4>();
			uint32_t hif = hip->AddInterface(d.Get(0));

			/* the host's NIC queue holds what its sockets burst */
			Ptr<Queue<Packet>> nicq =
				d.Get(0)->GetObject<PointToPointNetDevice>()->GetQueue();
			nicq->SetMaxSize(QueueSize(std::to_string(o.nic_queue) + "p"));
			/*
			 * --host-qdisc=fq: a per-flow round robin in front of the
			 * NIC (ns-3's FqCoDel; its CoDel target of 5 ms is never
			 * reached here), which the NIC stops when its queue is
			 * full, as sch_fq over BQL: a short flow no longer waits
			 * behind a long one's window in the NIC's FIFO.
			 */
			if (o.host_qdisc == "fq") {
				TrafficControlHelper tch;

				tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc");
				tch.Install(d.Get(0));
			} else if (o.host_qdisc != "none") {
				NS_FATAL_ERROR("unknown --host-qdisc " << o.host_qdisc);
			}
			nicq->TraceConnectWithoutContext("BytesInQueue",
				MakeBoundCallback(&HostQueueBytes,
						  &host_queues[fab.HostId(l, h)]));
			hip->AddAddress(hif, Ipv4InterfaceAddress(Ipv4Address(net | 1),
								  Ipv4Mask(0xffffff00)));
			hip->SetUp(hif);
			srh.GetStaticRouting(hip)->SetDefaultRoute(Ipv4Address(net | 2), hif);
			fab.host_addr.push_back(Ipv4Address(net | 1));
			rt->host_if[hi] = attach(rt, d.Get(1), Ipv4Address(net | 2),
						 Ipv4Address(net | 1), 0xffffff00,
						 o.rate_gbps);
			rt->port[rt->host_if[hi]]->tier = TIER_EDGE;
		}
	}
	if (Ideal())
		return;
	for (uint32_t l = 0; l < L; l++) {
		fab.leaf_rt[l]->up_if.resize(S);
		for (uint32_t s = 0; s < S; s++) {
			double gbps = o.rate_gbps * UplinkScale();
			NetDeviceContainer d;
			uint32_t net = (11u << 24) | (l << 16) | (s << 8);

			if (o.degrade == "quarter" && l == 0 && s == S - 1)
				gbps /= 4;
			p2p.SetDeviceAttribute("DataRate", StringValue(
				std::to_string((uint64_t)(gbps * 1e9)) + "bps"));
			d = p2p.Install(fab.leaves.Get(l), fab.spines.Get(s));
			p2p.SetDeviceAttribute("DataRate", StringValue(rate));
			Ptr<ArsRouting> lr = fab.leaf_rt[l], sr = fab.spine_rt[s];
			lr->up_if[s] = attach(lr, d.Get(0), Ipv4Address(net | 1),
					      Ipv4Address(net | 2), 0xffffff00, gbps);
			if (sr->down_if.size() < L)
				sr->down_if.resize(L);
			sr->down_if[l] = attach(sr, d.Get(1), Ipv4Address(net | 2),
						Ipv4Address(net | 1), 0xffffff00, gbps);
			/* the seed's "Spine1 - Leaf32": the spine's side only,
			 * invisible to the sending leaves' own ports */
			if (o.degrade == "downlink-quarter" && l == L - 1 && s == S - 1) {
				d.Get(1)->SetAttribute("DataRate", DataRateValue(
					DataRate((uint64_t)(gbps / 4 * 1e9))));
				sr->port[sr->down_if[l]]->bandwidth = (uint64_t)(gbps / 4 * 1e9);
				SigConfig(sr->port[sr->down_if[l]]);
			}
			Ptr<ArsQueueDisc> uq = lr->port[lr->up_if[s]];
			uq->measure_util = true;
			uq->tier = TIER_UP;
			sr->port[sr->down_if[l]]->tier = TIER_DOWN;
			fab.uplinks.push_back(uq);
			fab.downlinks.push_back(sr->port[sr->down_if[l]]);
		}
	}
	/* the fabric's routes after convergence: spines reaching both leaves */
	for (uint32_t l = 0; l < L; l++) {
		Ptr<ArsRouting> rt = fab.leaf_rt[l];

		rt->to_leaf.resize(L);
		rt->to_leaf_spines.resize(L);
		for (uint32_t dl = 0; dl < L; dl++) {
			struct ars_route &r = rt->to_leaf[dl];

			memset(&r, 0, sizeof(r));
			for (uint32_t s = 0; s < S; s++) {
				if (!fab.up[l][s] || !fab.up[dl][s])
					continue;
				r.path[r.n].dev = rt->up_if[s];
				rt->to_leaf_spines[dl].push_back(s);
				r.n++;
			}
			RouteUppers(&r);
		}
	}
}

/* ------------------------------------------------------------ transports */

struct FlowStat {
	uint32_t src, dst;
	uint64_t size = 0;		/* 0: long flow */
	double start = 0;		/* s */
	uint64_t rx_bytes = 0, win_bytes = 0;
	uint64_t rx_pkts = 0, reordered = 0;
	uint16_t port = 0;		/* the receiver's, its own while open */
	int64_t max_seq = -1;
	double fct = -1;		/* s, finite flows */
	double ideal_fct = 0;
	bool measured = false;		/* in the results' FCTs */
};

static std::vector<FlowStat> flows;

/*
 * A flow is (source host, destination host, destination port). Each
 * receiving host has its own port space, 10000-65535, and a port is taken
 * again only once its flow has closed, so that a run may start any number
 * of flows (a 16-bit counter over the whole fabric wrapped after 55,536).
 */
static uint64_t FlowId(uint32_t src, uint32_t dst, uint16_t port)
{
	return (uint64_t)src << 40 | (uint64_t)dst << 16 | port;
}

static std::unordered_set<uint64_t> g_open;	/* (dst, port) in use */

static uint16_t NextPort(uint32_t dst)
{
	static std::unordered_map<uint32_t, uint32_t> next;
	uint32_t &p = next[dst];

	for (uint32_t i = 0; i < 55536; i++) {
		uint16_t port = 10000 + p++ % 55536;

		if (g_open.insert(FlowId(0, dst, port)).second)
			return port;
	}
	NS_FATAL_ERROR("host " << dst << ": 55536 flows open at once");
}

static void PortClosed(uint32_t dst, uint16_t port)
{
	g_open.erase(FlowId(0, dst, port));
}

/* the host of an address 10.<leaf>.<host>.1 */
static uint32_t HostOf(Ipv4Address a)
{
	uint32_t v = a.Get();

	return ((v >> 16) & 0xff) * o.hosts + ((v >> 8) & 0xff);
}

/*
 * --dcqcn: the reaction point of DCQCN (Zhu et al., SIGCOMM 2015),
 * simplified, per sender (one flow, one QP):
 *
 *   - a CNP:          target = current; current *= 1 - alpha / 2 (not
 *                     below the minimum rate); alpha = (1 - g) alpha + g;
 *                     the rate-increase count restarts from 0 and both
 *                     timers from now
 *   - the alpha timer, every T without a CNP: alpha = (1 - g) alpha
 *   - the increase timer, every T after a cut until the line rate is back:
 *                     the first DCQCN_F times fast recovery, current =
 *                     (current + target) / 2; then additive increase,
 *                     target += step, current = (current + target) / 2
 *
 * alpha starts at 1 (the first cut halves the rate) and g is 1/256, the
 * paper's. What is left out: the byte counter (rate increase by the timer
 * alone), hyper increase, and the rate limiter's granularity; the NIC's
 * CNP handling is immediate.
 *
 * The timescale: the paper pairs a 50 us CNP interval (N) with a 55 us
 * alpha timer (K), just longer, so that alpha decays only once a flow's
 * CNPs stop; its rate-increase timer is 55 us too. Here both timers are
 * T = --dcqcn-timer, by default 1.1 x --cnp: 55 us at the default 50 us.
 * The fabric's base RTT (about 11 us at 100G with 1 us links) is of the
 * order of the paper's testbed's, so its figures stand unscaled; a sweep
 * shortens both (e.g. --cnp=10 --dcqcn-timer=11). The additive step and
 * the minimum rate are by default the line rate / 1000 (the paper's
 * 40 Mbit/s step on 40G; 100 Mbit/s at 100G).
 */
#define DCQCN_G		(1.0 / 256)
#define DCQCN_F		5

static uint64_t g_cnp_sent, g_cnp_taken, g_rate_cuts;

/* --dcqcn's timer, s */
static double DcqcnTimerS()
{
	return (o.dcqcn_timer_us >= 0 ? o.dcqcn_timer_us : 1.1 * o.cnp_us) *
	       1e-6;
}

class RoceSender;

/* --dcqcn: a flow's sender by its QP number, the CNP's destination QP */
static std::vector<RoceSender *> g_qp;

/* RoCE-like: messages at line rate (--dcqcn: at DCQCN's rate), a pause
 * between them; every packet numbered, the receiver counts those that
 * arrive after a later one (what a go-back-N NIC would resend).
 */
class RoceSender : public Application {
public:
	Ptr<Socket> sock;
	Address peer;
	uint32_t payload = 8972;
	uint64_t msg = 1000000, total = 0, sent = 0;
	double gap_s = 0, pkt_s = 0;
	uint32_t seq = 0, qp = 0;
	uint64_t in_msg = 0;
	/* --dcqcn: rates in bit/s; the last packet's time and its spacing
	 * at the line rate and pause, to move the next packet on a change */
	double line = 0, cur = 0, target = 0, alpha = 1;
	uint32_t increases = 0;
	double last_tx = 0, last_line_s = 0, last_gap_s = 0;
	EventId send_ev, alpha_ev, inc_ev;

	void StartApplication() override
	{
		sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
		sock->Bind();
		sock->Connect(peer);
		/* --remote, --dcqcn: ECN-capable (ECT(0)): the ports mark */
		if (o.remote || o.dcqcn)
			sock->SetIpTos(0x02);
		cur = target = line;
		Send();
	}
	void StopApplication() override {}
	void Send()
	{
		uint32_t len = payload;

		if (total && sent >= total) {
			sock->Close();	/* leaves the host's demux */
			if (o.dcqcn) {
				g_qp[qp] = nullptr;
				alpha_ev.Cancel();
				inc_ev.Cancel();
			}
			return;
		}
		if (total && total - sent < len)
			len = total - sent;
		if (len < 12)
			len = 12;
		Ptr<Packet> p = Create<Packet>(len - 12);
		SeqTsHeader sh;
		sh.SetSeq(seq++);
		p->AddHeader(sh);
		sock->Send(p);
		sent += len;
		in_msg += len;
		double next = pkt_s * (len + 30.0) / (payload + 30.0);
		double gap = 0;
		if (in_msg >= msg) {
			in_msg = 0;
			gap = gap_s;
		}
		if (!o.dcqcn) {
			Simulator::Schedule(Seconds(next + gap),
					    &RoceSender::Send, this);
			return;
		}
		last_tx = Simulator::Now().GetSeconds();
		last_line_s = next;
		last_gap_s = gap;
		send_ev = Simulator::Schedule(Seconds(next * line / cur + gap),
					      &RoceSender::Send, this);
	}
	/* the next packet at the current rate, from the last one */
	void Repace()
	{
		if (!send_ev.IsRunning())
			return;
		double at = last_tx + last_line_s * line / cur + last_gap_s;
		double now = Simulator::Now().GetSeconds();

		send_ev.Cancel();
		send_ev = Simulator::Schedule(Seconds(std::max(at, now) - now),
					      &RoceSender::Send, this);
	}
	void Cnp()
	{
		double floor = (o.dcqcn_min_mbps >= 0 ? o.dcqcn_min_mbps :
				o.rate_gbps) * 1e6;

		g_cnp_taken++;
		target = cur;
		cur = std::max(cur * (1 - alpha / 2), std::min(floor, line));
		g_rate_cuts += cur < target;	/* not at the floor already */
		alpha = (1 - DCQCN_G) * alpha + DCQCN_G;
		increases = 0;
		alpha_ev.Cancel();
		alpha_ev = Simulator::Schedule(Seconds(DcqcnTimerS()),
					       &RoceSender::AlphaTimer, this);
		inc_ev.Cancel();
		inc_ev = Simulator::Schedule(Seconds(DcqcnTimerS()),
					     &RoceSender::IncreaseTimer, this);
		Repace();
	}
	void AlphaTimer()
	{
		alpha *= 1 - DCQCN_G;
		alpha_ev = Simulator::Schedule(Seconds(DcqcnTimerS()),
					       &RoceSender::AlphaTimer, this);
	}
	void IncreaseTimer()
	{
		double step = (o.dcqcn_ai_mbps >= 0 ? o.dcqcn_ai_mbps :
			       o.rate_gbps) * 1e6;

		if (++increases > DCQCN_F)
			target = std::min(target + step, line);
		cur = (cur + target) / 2;
		/* the line rate within a step: done until the next CNP */
		if (line - cur < std::max(step, 1.0)) {
			cur = target = line;
		} else {
			inc_ev = Simulator::Schedule(
				Seconds(DcqcnTimerS()),
				&RoceSender::IncreaseTimer, this);
		}
		Repace();
	}
};

static void StopIfDone()
{
	if (!g_remaining && Simulator::Now().GetSeconds() >= g_done_after)
		Simulator::Stop();
}

static void FlowDone(FlowStat *fs)
{
	fs->fct = Simulator::Now().GetSeconds() - fs->start;
	if (fs->measured && !--g_remaining)
		StopIfDone();
}

class RoceReceiver : public Application {
public:
	Ptr<Socket> sock, cnp;
	FlowStat *fs = nullptr;
	double last_cnp = -1;

	void StartApplication() override
	{
		sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
		sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), fs->port));
		sock->SetRecvCallback(MakeCallback(&RoceReceiver::Recv, this));
		if (o.remote || o.dcqcn) {
			sock->SetIpRecvTos(true);
			cnp = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
			cnp->Bind();
			cnp->Connect(InetSocketAddress(fab.host_addr[fs->src], ROCE_PORT));
		}
	}
	/* a packet that arrived CE-marked: a CNP, at most one per cnp_us;
	 * its BTH's destination QP (bytes 5..7) is the flow's sender's */
	void Marked()
	{
		double now = Simulator::Now().GetSeconds();
		uint32_t qp = fs - flows.data();
		uint8_t bth[28] = {ROCE_CNP};

		if (last_cnp >= 0 && now - last_cnp < o.cnp_us * 1e-6)
			return;
		last_cnp = now;
		bth[5] = qp >> 16;
		bth[6] = qp >> 8;
		bth[7] = qp;
		cnp->Send(Create<Packet>(bth, sizeof(bth)));
		g_cnp_sent++;
	}
	void StopApplication() override {}
	void Recv(Ptr<Socket> s)
	{
		Ptr<Packet> p;

		while ((p = s->Recv())) {
			SeqTsHeader sh;
			SocketIpTosTag tos;
			uint32_t len = p->GetSize();

			if (cnp && p->PeekPacketTag(tos) && (tos.GetTos() & 3) == 3)
				Marked();
			p->RemoveHeader(sh);
			Account(fs, len, sh.GetSeq());
		}
		if (fs->fct >= 0 && sock) {
			sock->Close();
			sock = nullptr;
			if (cnp) {
				cnp->Close();
				cnp = nullptr;
			}
			PortClosed(fs->dst, fs->port);
		}
	}
	static void Account(FlowStat *fs, uint32_t len, int64_t seq)
	{
		fs->rx_bytes += len;
		if (InWindow()) {
			fs->win_bytes += len;
			fs->rx_pkts++;
			if (seq < fs->max_seq)
				fs->reordered++;
		}
		if (seq > fs->max_seq)
			fs->max_seq = seq;
		if (fs->size && fs->fct < 0 && fs->rx_bytes >= fs->size)
			FlowDone(fs);
	}
};

/* TCP: arrivals of data segments at the receiving host, by sequence. */
static std::unordered_map<uint64_t, FlowStat *> tcp_flows;

static void TcpArrival(const Ipv4Header &h, Ptr<const Packet> p, uint32_t)
{
	TcpHeader th;

	if (h.GetProtocol() != 6)
		return;
	p->PeekHeader(th);
	uint32_t len = p->GetSize() - th.GetSerializedSize();
	if (!len)
		return;
	auto it = tcp_flows.find(FlowId(HostOf(h.GetSource()), HostOf(h.GetDestination()),
					th.GetDestinationPort()));
	if (it == tcp_flows.end())
		return;
	FlowStat *fs = it->second;
	if (InWindow()) {
		fs->rx_pkts++;
		if ((int64_t)th.GetSequenceNumber().GetValue() < fs->max_seq)
			fs->reordered++;
	}
	if ((int64_t)th.GetSequenceNumber().GetValue() > fs->max_seq)
		fs->max_seq = th.GetSequenceNumber().GetValue();
}

/*
 * The receiving end of one TCP flow: it listens from the flow's start, not
 * from t = 0, stops listening once it has accepted the connection and
 * closes the connection once the flow's bytes are in, so that no socket
 * outlives its flow in the hosts' demultiplexers (whose lookup walks every
 * socket of the host: a run's per-packet cost grew with its flow count).
 */
class TcpSink : public Application {
public:
	Ptr<Socket> listener, conn;
	FlowStat *fs = nullptr;

	void StartApplication() override
	{
		listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
		listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), fs->port));
		listener->Listen();
		listener->SetAcceptCallback(
			MakeNullCallback<bool, Ptr<Socket>, const Address &>(),
			MakeCallback(&TcpSink::Accept, this));
	}
	void StopApplication() override {}
	void Accept(Ptr<Socket> s, const Address &)
	{
		conn = s;
		s->SetRecvCallback(MakeCallback(&TcpSink::Recv, this));
		Simulator::ScheduleNow(&TcpSink::StopListening, this);
	}
	void StopListening()
	{
		if (listener) {
			listener->Close();
			listener = nullptr;
		}
	}
	void Recv(Ptr<Socket> s)
	{
		Ptr<Packet> p;

		while ((p = s->Recv())) {
			fs->rx_bytes += p->GetSize();
			if (InWindow())
				fs->win_bytes += p->GetSize();
		}
		if (fs->size && fs->fct < 0 && fs->rx_bytes >= fs->size) {
			FlowDone(fs);
			s->Close();
			tcp_flows.erase(FlowId(fs->src, fs->dst, fs->port));
			PortClosed(fs->dst, fs->port);
		}
	}
};

/* a sender's NIC takes the CNPs: --dcqcn hands each to its QP's sender */
static void CnpDrain(Ptr<Socket> s)
{
	Ptr<Packet> p;

	while ((p = s->Recv())) {
		uint8_t bth[8];

		if (!o.dcqcn || p->GetSize() < sizeof(bth))
			continue;
		p->CopyData(bth, sizeof(bth));
		uint32_t qp = (uint32_t)bth[5] << 16 | bth[6] << 8 | bth[7];
		if (bth[0] == ROCE_CNP && qp < g_qp.size() && g_qp[qp])
			g_qp[qp]->Cnp();
	}
}

/* A flow's applications, made at its start. */
static void StartFlow(FlowStat *fs)
{
	Ptr<Node> src = fab.hosts.Get(fs->src), dst = fab.hosts.Get(fs->dst);

	fs->port = NextPort(fs->dst);
	Address peer = InetSocketAddress(fab.host_addr[fs->dst], fs->port);

	if (o.transport == "udp") {
		Ptr<RoceReceiver> rx = CreateObject<RoceReceiver>();
		Ptr<RoceSender> tx = CreateObject<RoceSender>();
		static std::vector<Ptr<Socket>> cnp_sinks;

		/* --remote: the sender's NIC takes the CNPs (and does nothing);
		 * --dcqcn: and its flow's sender cuts its rate */
		bool cnps = o.remote || o.dcqcn;

		if (cnps && cnp_sinks.size() <= fs->src)
			cnp_sinks.resize(fab.hosts.GetN());
		if (cnps && !cnp_sinks[fs->src]) {
			Ptr<Socket> k = Socket::CreateSocket(src,
					UdpSocketFactory::GetTypeId());

			k->Bind(InetSocketAddress(Ipv4Address::GetAny(), ROCE_PORT));
			k->SetRecvCallback(MakeCallback(&CnpDrain));
			cnp_sinks[fs->src] = k;
		}

		rx->fs = fs;
		dst->AddApplication(rx);
		rx->SetStartTime(Seconds(0));
		tx->peer = peer;
		tx->payload = o.mtu - 28;
		tx->msg = o.msg;
		tx->total = fs->size;
		tx->pkt_s = o.mtu * 8 / (o.rate_gbps * 1e9);
		tx->gap_s = o.gap_rtt * fab.base_rtt_us * 1e-6;
		tx->line = o.rate_gbps * 1e9;
		if (o.dcqcn) {
			tx->qp = fs - flows.data();
			if (g_qp.size() <= tx->qp)
				g_qp.resize(flows.size());
			g_qp[tx->qp] = PeekPointer(tx);
		}
		src->AddApplication(tx);
		tx->SetStartTime(Seconds(0));
		return;
	}
	Ptr<TcpSink> sink = CreateObject<TcpSink>();
	sink->fs = fs;
	dst->AddApplication(sink);
	sink->SetStartTime(Seconds(0));
	BulkSendHelper bulk("ns3::TcpSocketFactory", peer);
	bulk.SetAttribute("MaxBytes", UintegerValue(fs->size));
	bulk.SetAttribute("SendSize", UintegerValue(1 << 16));
	ApplicationContainer ba = bulk.Install(src);
	ba.Start(Seconds(0));
	tcp_flows[FlowId(fs->src, fs->dst, fs->port)] = fs;
}

/* ------------------------------------------------------------- workloads */

static std::vector<std::pair<double, double>> LoadCdf(const std::string &path)
{
	std::vector<std::pair<double, double>> cdf;
	FILE *f = fopen(path.c_str(), "r");
	char line[256];

	if (!f)
		NS_FATAL_ERROR("cannot read " << path);
	while (fgets(line, sizeof(line), f)) {
		double sz, p;

		if (line[0] == '#' || sscanf(line, "%lf %lf", &sz, &p) != 2)
			continue;
		cdf.push_back({sz, p});
	}
	fclose(f);
	if (cdf.size() < 2 || cdf.back().second != 1)
		NS_FATAL_ERROR(path << ": a CDF's last point must have probability 1");
	return cdf;
}

static double SampleCdf(const std::vector<std::pair<double, double>> &cdf, double u)
{
	for (size_t i = 1; i < cdf.size(); i++) {
		if (u <= cdf[i].second) {
			double a = cdf[i - 1].second, b = cdf[i].second;
			double t = b > a ? (u - a) / (b - a) : 1;

			return cdf[i - 1].first + t * (cdf[i].first - cdf[i - 1].first);
		}
	}
	return cdf.back().first;
}

/* the workload's random numbers: its own stream, the same in every mode */
static Ptr<UniformRandomVariable> g_wrng;

static void Workload()
{
	uint32_t L = o.leaves, H = o.hosts, N = L * H;
	Ptr<UniformRandomVariable> u = g_wrng;
	/* RoCE-like flows start within one message and pause, not in step;
	 * TCP flows within a couple of microseconds, unless --spread says */
	double jitter = o.spread_us >= 0 ? o.spread_us * 1e-6 :
			o.transport != "udp" ? 2e-6 :
			o.msg * 8.0 / (o.rate_gbps * 1e9) +
			o.gap_rtt * fab.base_rtt_us * 1e-6;

	if (o.workload == "seed") {
		/* server i's GPU g to server i + L/2's GPU g, both halves */
		for (uint32_t l = 0; l < L; l++)
			for (uint32_t h = 0; h < H; h++) {
				FlowStat fs;
				fs.src = fab.HostId(l, h);
				fs.dst = fab.HostId((l + L / 2) % L, h);
				fs.start = u->GetValue(0, jitter);
				flows.push_back(fs);
			}
	} else if (o.workload == "perm") {
		std::vector<uint32_t> p(N);
		/* a random permutation without fixed points within a leaf */
		for (;;) {
			for (uint32_t i = 0; i < N; i++)
				p[i] = i;
			for (uint32_t i = N - 1; i > 0; i--)
				std::swap(p[i], p[u->GetInteger(0, i)]);
			bool ok = true;
			for (uint32_t i = 0; i < N && ok; i++)
				ok = p[i] / H != i / H;
			if (ok)
				break;
		}
		for (uint32_t i = 0; i < N; i++) {
			FlowStat fs;
			fs.src = i;
			fs.dst = p[i];
			fs.start = u->GetValue(0, jitter);
			flows.push_back(fs);
		}
	} else if (o.workload == "allreduce") {
		/*
		 * Ring all-reduce along the rails: rail g is GPU g of every
		 * server, server l's GPUs are leaf l's hosts, and GPU g of server
		 * l sends to GPU g of server l + 1. A ring over L ranks moves
		 * 2 (L - 1) / L of the message out of each rank (reduce-scatter,
		 * then all-gather); pipelined in chunks, as NCCL runs it, that is
		 * one flow of that size per rank, all at once.
		 */
		uint64_t m = o.coll_msg ? o.coll_msg : 16000000;
		for (uint32_t l = 0; l < L; l++)
			for (uint32_t h = 0; h < H; h++) {
				FlowStat fs;
				fs.src = fab.HostId(l, h);
				fs.dst = fab.HostId((l + 1) % L, h);
				fs.size = m * 2 * (L - 1) / L;
				fs.start = u->GetValue(0, std::min(jitter, 2e-6));
				flows.push_back(fs);
			}
	} else if (o.workload == "alltoall") {
		/* a collective's exchange (MoE dispatch): every host sends one
		 * message of --coll-msg (0: 1-64 MB, log-uniform) to the host
		 * after it on each of --peers other leaves, all at once */
		for (uint32_t l = 0; l < L; l++)
			for (uint32_t h = 0; h < H; h++)
				for (uint32_t k = 1; k <= o.peers; k++) {
					FlowStat fs;
					fs.src = fab.HostId(l, h);
					fs.dst = fab.HostId((l + k * L / (o.peers + 1)) % L,
							    (h + k) % H);
					fs.size = o.coll_msg ? o.coll_msg :
						  (uint64_t)(1e6 * pow(2, u->GetValue(0, 6)));
					fs.start = u->GetValue(0, std::min(jitter, 2e-6));
					flows.push_back(fs);
				}
	} else if (!o.cdf.empty()) {
		auto cdf = LoadCdf(o.cdf);
		double mean = 0;
		for (size_t i = 1; i < cdf.size(); i++)
			mean += (cdf[i].second - cdf[i - 1].second) *
				(cdf[i].first + cdf[i - 1].first) / 2;
		/*
		 * Poisson arrivals per host, to hosts on other leaves: every
		 * flow crosses the leaf's uplinks, and --load is of their
		 * capacity (S links at the uplink rate per H hosts), as the
		 * load-balancing papers state it. Arrivals go on through the
		 * drain, so that the last measured flows meet the same load.
		 */
		double up = o.spines * o.rate_gbps * UplinkScale() * 1e9 / o.hosts;
		double lambda = o.load * std::min(up, o.rate_gbps * 1e9) / 8 / mean;
		double rate = lambda * N;	/* flows per second, the fabric */
		double warm = std::max(o.warmup_us * 1e-6, o.warmup_flows / rate);
		double meas = o.measure_flows ? o.measure_flows / rate :
			      o.window_us * 1e-6;
		double drain = o.drain_us >= 0 ? o.drain_us * 1e-6 :
			       meas + 10 * (cdf.back().first * 8 / (o.rate_gbps * 1e9));
		double end = 1.2 * (warm + meas) + drain;

		g_drain_s = drain;
		for (uint32_t i = 0; i < N; i++) {
			double t = u->GetValue(0, 1 / lambda);
			while (t < end) {
				FlowStat fs;
				uint32_t d;
				do
					d = u->GetInteger(0, N - 1);
				while (d / H == i / H);
				fs.src = i;
				fs.dst = d;
				fs.size = (uint64_t)std::max(1.0, SampleCdf(cdf, u->GetValue()));
				fs.start = t;
				flows.push_back(fs);
				t += -log(1 - u->GetValue()) / lambda;
			}
		}
		std::sort(flows.begin(), flows.end(),
			  [](const FlowStat &x, const FlowStat &y) { return x.start < y.start; });
		/*
		 * The window opens after the warm-up's time and its first
		 * --warmup-flows flows, whichever is later, and holds the next
		 * --flows flows (or --window us when --flows=0).
		 */
		size_t i0 = std::min<size_t>(o.warmup_flows, flows.size() - 1);
		g_t0 = std::max(o.warmup_us * 1e-6, flows[i0].start);
		while (i0 < flows.size() && flows[i0].start < g_t0)
			i0++;
		if (o.measure_flows) {
			size_t i1 = i0 + o.measure_flows;
			if (i1 >= flows.size())
				NS_FATAL_ERROR("too few flows for --flows");
			g_t1 = flows[i1].start;
		} else {
			g_t1 = g_t0 + o.window_us * 1e-6;
		}
		if (g_t1 + drain > end)
			NS_FATAL_ERROR("arrivals end before the drain does");
	} else {
		NS_FATAL_ERROR("unknown workload " << o.workload);
	}
}

/* ------------------------------------------------------------ progress */

static std::chrono::steady_clock::time_point g_wall0;

static double WallS()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() -
					     g_wall0).count();
}

static double CpuS()
{
	return (double)std::clock() / CLOCKS_PER_SEC;
}

/* progress on stderr: simulated time, and events per CPU second since the last */
static void Progress(double step, double end)
{
	static double cpu0;
	static uint64_t ev0;
	double t = Simulator::Now().GetSeconds(), c = CpuS();
	uint64_t ev = Simulator::GetEventCount();

	fprintf(stderr, "  %s %s %s: %.0f/%.0f us simulated, %.0f s, %.0f s of CPU, "
		"%.0f kevents per CPU s, %zu flows open\n",
		o.workload.c_str(), o.transport.c_str(), o.mode.c_str(), t * 1e6,
		end * 1e6, WallS(), c, c > cpu0 ? (ev - ev0) / (c - cpu0) / 1e3 : 0,
		g_open.size());
	cpu0 = c;
	ev0 = ev;
	if (t + step < end)
		Simulator::Schedule(Seconds(step), &Progress, step, end);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	CommandLine cmd;
	std::string mode;

	cmd.AddValue("leaves", "leaves", o.leaves);
	cmd.AddValue("spines", "spines", o.spines);
	cmd.AddValue("hosts", "hosts per leaf", o.hosts);
	cmd.AddValue("rate", "link rate, Gbit/s", o.rate_gbps);
	cmd.AddValue("delay", "link delay, us", o.delay_us);
	cmd.AddValue("mtu", "MTU, bytes", o.mtu);
	cmd.AddValue("buffer", "router port buffer, bytes", o.buffer);
	cmd.AddValue("shared-buffer", "each router's ports share a pool of this many "
		     "bytes under the Dynamic Threshold (--dt-alpha) in place of --buffer "
		     "per port; not the ideal's (0: off)", o.shared_buffer);
	cmd.AddValue("dt-alpha", "--shared-buffer: a port queues at most alpha times "
		     "what its router's pool has free", o.dt_alpha);
	cmd.AddValue("ecn", "ECN marking threshold, bytes", o.ecn_k);
	cmd.AddValue("mode", "ars mode", o.mode);
	cmd.AddValue("transport", "udp (RoCE-like) or tcp (DCTCP)", o.transport);
	cmd.AddValue("workload", "seed, perm, allreduce, alltoall, websearch, hadoop, "
		     "or a name for --cdf", o.workload);
	cmd.AddValue("cdf", "flow sizes from this CDF file (data/*.cdf's format); "
		     "websearch and hadoop: data/<name>.cdf", o.cdf);
	cmd.AddValue("coll-msg", "collectives' message, bytes (allreduce 0: 16 MB; "
		     "alltoall 0: 1-64 MB log-uniform)", o.coll_msg);
	cmd.AddValue("nic-queue", "hosts' NIC queue, packets", o.nic_queue);
	cmd.AddValue("host-qdisc", "hosts' qdisc: none, fq (per-flow round robin, "
		     "stopped by a full NIC queue)", o.host_qdisc);
	cmd.AddValue("pacing", "TCP pacing at the hosts, as fq paces", o.pacing);
	cmd.AddValue("spread", "long and alltoall flows start within this, us (-1: "
		     "a message and a pause for RoCE-like, 2 for TCP)", o.spread_us);
	cmd.AddValue("peers", "alltoall: messages per host, to other leaves", o.peers);
	cmd.AddValue("load", "offered load of flow-size workloads on the uplinks, 0..1",
		     o.load);
	cmd.AddValue("cdf-dir", "folder of the flow-size CDFs", o.cdf_dir);
	cmd.AddValue("uplink-speedup", "leaf-spine links at this many times the "
		     "host rate (what the fabric adds to the FCT; ideal and base "
		     "RTT unchanged)", o.uplink_speedup);
	cmd.AddValue("degrade", "none, quarter (leaf 1 - last spine at 1/4), down "
		     "(that link down), downlink-quarter (last spine - last leaf at "
		     "1/4, that direction only), oversub (leaf-spine links at 1/2: 2:1)",
		     o.degrade);
	cmd.AddValue("idle-rtt", "idle time, in base RTTs (-1: derived)", o.idle_rtt);
	cmd.AddValue("idle", "idle time, us (overrides idle-rtt)", o.idle_us);
	cmd.AddValue("interval", "v2's sampling interval, us (-1: derived)",
		     o.interval_us);
	cmd.AddValue("shift", "v2's EWMA shift (-1: the kernel's default, 3)", o.shift);
	cmd.AddValue("rate-weight", "percent of quality from utilisation", o.rate_weight);
	cmd.AddValue("delay-full", "full-scale queueing delay of the quality, us "
		     "(0: ARS_DELAY_FULL_NS)", o.delay_full_us);
	cmd.AddValue("stale", "experiment: intervals without a close until a port "
		     "is idle (sch_ars: 4)", o.stale);
	cmd.AddValue("read-now", "experiment: rank ports by their figures at the "
		     "decision (ars_est_read()), not the last published", o.read_now);
	cmd.AddValue("reserve", "a port that took a new flowlet within this many us "
		     "reads as busy (the profile's flowlet-window; 0: off; "
		     "default: derived, a quarter of the base RTT)",
		     o.reserve_us);
	cmd.AddValue("signal", "the port signal the decision reads: v2 (ars_est, "
		     "the kernel's) or v3 (ars_sig)", o.signal);
	cmd.AddValue("tau-ns", "v3: the time constant of its averages, ns (0: "
		     "derived)", o.tau_ns);
	cmd.AddValue("tau-rtt", "v3: the same in base RTTs", o.tau_rtt);
	cmd.AddValue("sig-full", "v3: queue delay that reads full, us (0: the "
		     "port's buffer over its line rate)", o.sig_full_us);
	cmd.AddValue("sig-weights", "v3: weights of past (utilisation), present "
		     "(delay), future (backlog), as a,b,c (\"\": 2,1,1)", o.sig_weights);
	cmd.AddValue("sig-thresh", "v3: the seven ascending loads, /65536, where "
		     "bands 6..0 start (\"\": ARS_SIG_THRESH_DEFAULT)", o.sig_thresh);
	cmd.AddValue("port-trace", "write the leaf uplinks' utilisation and "
		     "bands by both signals to this file", o.port_trace);
	cmd.AddValue("trace-us", "the port trace's period, us", o.trace_us);
	cmd.AddValue("remote", "remote congestion: leaves credit the forward "
		     "flowlet's path on ACKs with ECN-Echo (ars_remote.h)", o.remote);
	cmd.AddValue("remote-half", "--remote: the score's half-life, us "
		     "(rounded to 2^k ns)", o.remote_half_us);
	cmd.AddValue("remote-credit", "--remote: score per feedback, 256 a band",
		     o.remote_credit);
	cmd.AddValue("remote-floor", "--remote: the worst band a score makes "
		     "(0..7)", o.remote_floor);
	cmd.AddValue("remote-slots", "--remote: scores per leaf (power of 2)",
		     o.remote_slots);
	cmd.AddValue("cnp", "--remote, --dcqcn, RoCE-like: a receiver's CNPs per "
		     "flow at most every this many us", o.cnp_us);
	cmd.AddValue("cnp-credit", "--remote: score per CNP, 256 a band",
		     o.cnp_credit);
	cmd.AddValue("dcqcn", "RoCE-like: receivers send CNPs on CE (as with "
		     "--remote) and senders react as DCQCN's reaction point: a cut "
		     "by alpha/2 per CNP, g 1/256, timer-driven fast recovery (5) "
		     "and additive increase, paced at the rate (fabric.cc's "
		     "RoceSender); the transport is then \"udp+dcqcn\"", o.dcqcn);
	cmd.AddValue("dcqcn-timer", "--dcqcn: its alpha and rate-increase "
		     "timer, us (-1: 1.1 x --cnp, the paper's 55 us at 50)",
		     o.dcqcn_timer_us);
	cmd.AddValue("dcqcn-ai", "--dcqcn: additive increase step, Mbit/s (-1: "
		     "the line rate / 1000)", o.dcqcn_ai_mbps);
	cmd.AddValue("dcqcn-min", "--dcqcn: minimum rate, Mbit/s (-1: the line "
		     "rate / 1000)", o.dcqcn_min_mbps);
	cmd.AddValue("table", "macro-flow table size (power of 2)", o.table);
	cmd.AddValue("msg", "RoCE message, bytes", o.msg);
	cmd.AddValue("gap-rtt", "RoCE pause between messages, base RTTs", o.gap_rtt);
	cmd.AddValue("warmup", "warm-up, us (-1: flow-size max(2000, 5000 x 100 / "
		     "rate), collectives 0, long flows 100)", o.warmup_us);
	cmd.AddValue("warmup-flows", "flow-size: the warm-up lasts at least these "
		     "flows", o.warmup_flows);
	cmd.AddValue("flows", "flow-size: flows in the window (0: --window)",
		     o.measure_flows);
	cmd.AddValue("window", "measurement window, us (long flows; flow-size "
		     "with --flows=0)", o.window_us);
	cmd.AddValue("drain", "run on after the window at most, us, for the "
		     "measured flows to end (-1: flow-size the window and 10 times "
		     "the largest flow's ideal FCT, collectives 20 times their ideal, "
		     "long flows 0); flows not done then are censored", o.drain_us);
	cmd.AddValue("seed", "run number (seeds every router and workload)", o.seed);
	cmd.AddValue("progress", "print progress on stderr", o.progress);
	cmd.Parse(argc, argv);
	if (!(o.uplink_speedup > 0))
		NS_FATAL_ERROR("--uplink-speedup must be above 0");
	if (!(o.dt_alpha > 0))
		NS_FATAL_ERROR("--dt-alpha must be above 0");
	if (o.shared_buffer && o.shared_buffer < 2 * o.mtu)
		NS_FATAL_ERROR("--shared-buffer must hold two packets or be 0");

	static const std::set<std::string> degrades = {"none", "quarter", "down",
		"downlink-quarter", "oversub"};
	if (!degrades.count(o.degrade))
		NS_FATAL_ERROR("unknown --degrade " << o.degrade);
	if (o.remote_slots < 2 || (o.remote_slots & (o.remote_slots - 1)) ||
	    o.remote_floor > ARS_BAND_BEST || o.remote_credit > 0xffff ||
	    o.cnp_credit > 0xffff)
		NS_FATAL_ERROR("--remote-slots must be a power of 2 >= 2, "
			       "--remote-floor 0..7, --remote-credit and "
			       "--cnp-credit <= 65535");
	if (o.dcqcn && o.transport != "udp")
		NS_FATAL_ERROR("--dcqcn is the RoCE-like transport's "
			       "(--transport=udp)");
	ResolveProfile();
	if (o.signal != "v2" && o.signal != "v3")
		NS_FATAL_ERROR("unknown --signal " << o.signal);
	if (!o.tau_ns || o.tau_ns > ARS_SIG_TAU_MAX)
		NS_FATAL_ERROR("--tau-ns must be 1.." << ARS_SIG_TAU_MAX);
	if (o.cdf.empty() && (o.workload == "websearch" || o.workload == "hadoop"))
		o.cdf = o.cdf_dir + "/" + o.workload + ".cdf";
	if (o.warmup_us < 0)
		o.warmup_us = FlowSizeWorkload() ? std::max(2000.0, 5000.0 * 100 / o.rate_gbps) :
			      Collective() ? 0 : 100;

	RngSeedManager::SetSeed(1 + o.seed);
	RngSeedManager::SetRun(o.seed);
	g_wrng = CreateObject<UniformRandomVariable>();
	g_t0 = o.warmup_us * 1e-6;
	g_t1 = g_t0 + o.window_us * 1e-6;

	uint32_t seg = o.mtu - 40 - 12;	/* TCP timestamps on */
	Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
	Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
	Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(2 << 20));
	Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(2 << 20));
	Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
	Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
	Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
	Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(200)));
	Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
	Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MicroSeconds(200)));
	/* TIME_WAIT of 2 x 1 us: a closed socket leaves the host at once */
	Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(1e-6));
	if (o.pacing) {
		Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
		Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(true));
		Config::SetDefault("ns3::TcpSocketState::MaxPacingRate", DataRateValue(
			DataRate((uint64_t)(o.rate_gbps * 1e9))));
	}

	Build();
	Workload();
	/*
	 * What is measured: flow-size workloads the flows that start in the
	 * window; collectives every flow, from 0 until the last is done;
	 * long flows the window's goodput. Each flow's ideal FCT is its size
	 * at the host rate plus the base RTT.
	 */
	double coll_ideal = 0;
	std::vector<uint64_t> out_b(fab.hosts.GetN()), in_b(fab.hosts.GetN());
	for (auto &fs : flows) {
		fs.ideal_fct = fs.size * 8.0 / (o.rate_gbps * 1e9) + fab.base_rtt_us * 1e-6;
		fs.measured = fs.size && (Collective() ||
			(FlowSizeWorkload() && fs.start >= g_t0 && fs.start < g_t1));
		g_remaining += fs.measured;
		out_b[fs.src] += fs.size;
		in_b[fs.dst] += fs.size;
		Simulator::Schedule(Seconds(fs.start), &StartFlow, &fs);
	}
	if (Collective()) {
		/* the busiest host's bytes at its line rate, and a base RTT */
		for (uint32_t i = 0; i < fab.hosts.GetN(); i++)
			coll_ideal = std::max(coll_ideal, std::max(out_b[i], in_b[i]) * 8.0 /
					      (o.rate_gbps * 1e9));
		coll_ideal += fab.base_rtt_us * 1e-6;
		g_t0 = 0;
		g_t1 = o.drain_us >= 0 ? o.drain_us * 1e-6 : 20 * coll_ideal;
		g_done_after = 0;
		o.drain_us = 0;
	} else if (FlowSizeWorkload()) {
		g_done_after = g_t1;
		o.drain_us = g_drain_s * 1e6;
		Simulator::Schedule(Seconds(g_t1), &StopIfDone);
	} else if (o.drain_us < 0) {
		o.drain_us = 0;
	}
	if (o.transport == "tcp") {
		for (uint32_t i = 0; i < fab.hosts.GetN(); i++)
			fab.hosts.Get(i)->GetObject<Ipv4L3Protocol>()
				->TraceConnectWithoutContext("LocalDeliver",
							     MakeCallback(&TcpArrival));
	}

	g_wall0 = std::chrono::steady_clock::now();
	if (o.progress)
		Simulator::Schedule(Seconds(g_t1 / 4), &Progress, g_t1 / 4,
				    g_t1 + o.drain_us * 1e-6);
	Simulator::Stop(Seconds(g_t1 + o.drain_us * 1e-6));
	PortTraceStart();
	Simulator::Run();
	PortTraceEnd();
	double wall = WallS();
	uint64_t events = Simulator::GetEventCount();
	double t_end = Simulator::Now().GetSeconds();
	uint64_t measured = 0, censored = 0;
	double coll_time = 0, busbw = 0;
	uint32_t senders = 0;

	/* flows not done at the end: censored at it, in every mode alike */
	for (auto &fs : flows) {
		if (!fs.measured)
			continue;
		measured++;
		if (fs.fct < 0)
			censored++;
		coll_time = std::max(coll_time, fs.start + (fs.fct < 0 ? t_end - fs.start : fs.fct));
	}
	if (Collective()) {
		for (uint32_t i = 0; i < fab.hosts.GetN(); i++)
			if (out_b[i]) {
				busbw += out_b[i] * 8.0 / coll_time / (o.rate_gbps * 1e9);
				senders++;
			}
		busbw = senders ? 100 * busbw / senders : 0;
	}

	/* results */
	double win = g_t1 - g_t0;
	double goodput = 0, ideal = 0;
	uint64_t rx = 0, reo = 0, drops = 0, marks = 0;
	uint64_t flt = 0, rea = 0, fail = 0, pkts = 0;
	std::vector<double> recv_ideal(fab.hosts.GetN(), 0);
	double payload_frac = o.transport == "udp" ? (o.mtu - 28.0) / (o.mtu + 2.0) :
				(double)seg / (o.mtu + 2.0);

	for (auto &fs : flows) {
		goodput += fs.win_bytes;
		rx += fs.rx_pkts;
		reo += fs.reordered;
	}
	/* ideal: every receiving host's link at line rate, for what it is sent */
	std::vector<bool> receives(fab.hosts.GetN(), false), sends(fab.hosts.GetN(), false);
	for (auto &fs : flows) {
		receives[fs.dst] = true;
		sends[fs.src] = true;
	}
	double offered = 1.0;
	if (o.transport == "udp" && !flows[0].size) {
		double msg_s = o.msg * 8.0 / (o.rate_gbps * 1e9) * (o.mtu + 2.0) / (o.mtu - 28.0);
		offered = msg_s / (msg_s + o.gap_rtt * fab.base_rtt_us * 1e-6);
	}
	for (uint32_t i = 0; i < fab.hosts.GetN(); i++)
		if (receives[i])
			ideal += o.rate_gbps * 1e9 / 8 * win * payload_frac * offered;
	/*
	 * per tier (edge: leaf to host; up: leaf to spine; down: spine to
	 * leaf), over the whole run: drops, marks, packets and their mean and
	 * largest sojourn
	 */
	uint64_t t_drops[TIER_N] = {}, t_marks[TIER_N] = {}, t_pkts[TIER_N] = {};
	uint64_t t_soj[TIER_N] = {}, t_max[TIER_N] = {};
	for (auto &q : fab.ports) {
		drops += q->drops;
		marks += q->marks;
		t_drops[q->tier] += q->drops;
		t_marks[q->tier] += q->marks;
		t_pkts[q->tier] += q->deq_pkts;
		t_soj[q->tier] += q->sojourn_ns;
		t_max[q->tier] = std::max(t_max[q->tier], q->sojourn_max_ns);
	}
	/* the hosts' NIC queues, in bytes: mean over hosts and time, largest */
	double hq_mean = 0;
	uint64_t hq_max = 0;
	for (auto &q : host_queues) {
		HostQueueBytes(&q, 0, q.bytes);
		hq_mean += q.byte_ns / NowNs() / host_queues.size();
		hq_max = std::max(hq_max, q.max);
	}
	std::string tiers;
	for (int t = 0; t < TIER_N; t++) {
		char b[256];

		snprintf(b, sizeof(b), "%s\"%s\": {\"drops\": %" PRIu64 ", \"marks\": %"
			 PRIu64 ", \"pkts\": %" PRIu64 ", \"sojourn_us_mean\": %.3f, "
			 "\"sojourn_us_max\": %.3f}", t ? ", " : "", tier_name[t],
			 t_drops[t], t_marks[t], t_pkts[t],
			 t_pkts[t] ? t_soj[t] / 1e3 / t_pkts[t] : 0, t_max[t] / 1e3);
		tiers += b;
	}
	{
		char b[160];

		snprintf(b, sizeof(b), ", \"host\": {\"nic_bytes_mean\": %.0f, "
			 "\"nic_bytes_max\": %" PRIu64 "}", hq_mean, hq_max);
		tiers += b;
	}
	uint64_t fb_seen = 0, fb_matched = 0, fb_credited = 0, fb_moved = 0;
	for (auto &rt : fab.leaf_rt) {
		fb_seen += rt->fb_seen;
		fb_matched += rt->fb_matched;
		fb_credited += rt->fb_credited;
		fb_moved += rt->remote_moved;
		flt += rt->flowlets;
		rea += rt->reassignments;
		fail += rt->failovers;
		pkts += rt->packets;
	}
	double umax = 0, usum = 0;
	uint32_t nup = 0;
	for (size_t i = 0; i < fab.uplinks.size(); i++) {
		uint32_t l = i / o.spines, s = i % o.spines;
		double cap = o.rate_gbps * UplinkScale() * 1e9 / 8 * win;
		if (o.degrade == "quarter" && l == 0 && s == o.spines - 1)
			cap /= 4;
		if (!fab.up[l][s])
			continue;
		double u = fab.uplinks[i]->win_bytes / cap;
		umax = std::max(umax, u);
		usum += u;
		nup++;
	}

	/* --remote is another mode to compare, --dcqcn another transport,
	 * for run.py */
	std::string mode_name = o.mode + (o.remote ? "+remote" : "");
	std::string transport_name = o.transport + (o.dcqcn ? "+dcqcn" : "");
	std::string opt_json;

	if (o.dcqcn) {
		/* over the whole run: CNPs the receivers sent, those the senders
		 * took, the cuts (those above the floor), and the senders' mean
		 * rate at the end */
		double rate_sum = 0;
		uint32_t n = 0;
		char b[320];

		for (auto *tx : g_qp) {
			if (tx) {
				rate_sum += tx->cur / tx->line;
				n++;
			}
		}
		snprintf(b, sizeof(b), ", \"dcqcn\": {\"timer_us\": %g, "
			 "\"cnp_us\": %g, \"ai_mbps\": %g, \"min_mbps\": %g, "
			 "\"cnps_sent\": %" PRIu64 ", \"cnps_taken\": %" PRIu64
			 ", \"rate_cuts\": %" PRIu64 ", \"end_rate_pct\": %.2f}",
			 DcqcnTimerS() * 1e6, o.cnp_us,
			 o.dcqcn_ai_mbps >= 0 ? o.dcqcn_ai_mbps : o.rate_gbps,
			 o.dcqcn_min_mbps >= 0 ? o.dcqcn_min_mbps : o.rate_gbps,
			 g_cnp_sent, g_cnp_taken, g_rate_cuts,
			 n ? 100 * rate_sum / n : 0);
		opt_json = b;
	}

	if (o.shared_buffer) {
		/* the pools' and ports' most, over the whole run */
		uint64_t pool_peak = 0, port_peak = 0;
		char b[256];

		for (auto &p : fab.pools)
			pool_peak = std::max(pool_peak, p.second.peak);
		for (auto &q : fab.ports)
			if (q->pool)
				port_peak = std::max(port_peak, q->peak);
		snprintf(b, sizeof(b), "%s, \"shared\": {\"pool_bytes\": %" PRIu64
			 ", \"dt_alpha\": %g, \"pools\": %zu, \"pool_peak\": %" PRIu64
			 ", \"port_peak\": %" PRIu64 ", \"port_limit\": %" PRIu64 "}",
			 opt_json.c_str(), o.shared_buffer, o.dt_alpha,
			 fab.pools.size(), pool_peak, port_peak,
			 PortBuffer());
		opt_json = b;
	}

	if (o.remote) {
		char b[640];

		snprintf(b, sizeof(b), "%s, \"remote\": {\"half_ns\": %llu, "
			 "\"credit\": %u, \"cnp_credit\": %u, \"floor\": %u, "
			 "\"seen\": %" PRIu64
			 ", \"matched\": %" PRIu64 ", \"credited\": %" PRIu64
			 ", \"moved\": %" PRIu64 "}",
			 opt_json.c_str(), 1ULL << RemoteHalfShift(),
			 o.remote_credit,
			 o.cnp_credit, o.remote_floor, fb_seen, fb_matched, fb_credited,
			 fb_moved);
		opt_json = b;
	}
	printf("{\"workload\": \"%s\", \"mode\": \"%s\", \"transport\": \"%s\", "
	       "\"degrade\": \"%s\", \"load\": %.2f, \"seed\": %u, "
	       "\"leaves\": %u, \"spines\": %u, \"hosts\": %u, \"rate_gbps\": %g, "
	       "\"uplink_speedup\": %g, "
	       "\"delay_us\": %g, \"mtu\": %u, \"buffer\": %" PRIu64 ", \"ecn_k\": %" PRIu64 ", "
	       "\"base_rtt_us\": %.3f, \"idle_us\": %.3f, \"interval_us\": %g, "
	       "\"profile\": \"%s\", \"signal\": \"%s\", \"tau_ns\": %" PRIu64 ", \"delay_full_us\": %g, \"shift\": %d, \"read_now\": %d, \"reserve_us\": %g, "
	       "\"msg\": %" PRIu64 ", \"gap_rtt\": %g, \"warmup_us\": %g, \"window_us\": %g, \"drain_us\": %g, "
	       "\"flows\": %zu, \"goodput_gbps\": %.3f, \"ideal_gbps\": %.3f, "
	       "\"goodput_pct\": %.3f, \"rx_pkts\": %" PRIu64 ", \"reordered\": %" PRIu64 ", "
	       "\"reordered_pct\": %.5f, \"drops\": %" PRIu64 ", \"ecn_marks\": %" PRIu64 ", "
	       "\"uplink_util_max\": %.4f, \"uplink_util_mean\": %.4f, "
	       "\"steered_pkts\": %" PRIu64 ", \"flowlets\": %" PRIu64 ", \"reassignments\": %" PRIu64 ", "
	       "\"failovers\": %" PRIu64 ", \"events\": %" PRIu64 ", \"wall_s\": %.2f, "
	       "\"events_per_s\": %.0f, \"tiers\": {%s}%s, "
	       "\"t0_us\": %.3f, \"t1_us\": %.3f, \"end_us\": %.3f, \"warmup_flows\": %u, "
	       "\"measured\": %" PRIu64 ", \"censored\": %" PRIu64 ", \"nic_queue\": %u, "
	       "\"pacing\": %d, \"host_qdisc\": \"%s\", \"coll_msg\": %" PRIu64 ", \"coll_time_us\": %.3f, "
	       "\"coll_ideal_us\": %.3f, \"busbw_pct\": %.3f, \"fct\": [",
	       o.workload.c_str(), mode_name.c_str(), transport_name.c_str(),
	       o.degrade.c_str(), o.load, o.seed, o.leaves, o.spines, o.hosts,
	       o.rate_gbps, o.uplink_speedup, o.delay_us, o.mtu, o.buffer, o.ecn_k, fab.base_rtt_us,
	       fab.leaf_rt[0]->idle / 1000.0, o.interval_us, o.profile.c_str(),
	       o.signal.c_str(), o.tau_ns, o.delay_full_us, o.shift, o.read_now, o.reserve_us, o.msg, o.gap_rtt,
	       o.warmup_us, o.window_us, o.drain_us, flows.size(), goodput * 8 / win / 1e9,
	       ideal * 8 / win / 1e9, ideal > 0 ? 100 * goodput / ideal : 0, rx, reo,
	       rx ? 100.0 * reo / rx : 0, drops, marks, umax, nup ? usum / nup : 0,
	       pkts, flt, rea, fail, events, wall, wall > 0 ? events / wall : 0,
	       tiers.c_str(), opt_json.c_str(), g_t0 * 1e6, g_t1 * 1e6, t_end * 1e6, o.warmup_flows,
	       measured, censored, o.nic_queue, o.pacing, o.host_qdisc.c_str(), o.coll_msg, coll_time * 1e6,
	       coll_ideal * 1e6, busbw);
	bool first = true;
	for (auto &fs : flows) {
		if (!fs.measured)
			continue;
		/* [size, fct s (censored: until the end), ideal fct s, start s,
		 *  censored, source host, destination host]; a host's leaf is
		 *  its number over "hosts" */
		printf("%s[%" PRIu64 ", %.9f, %.9f, %.9f, %d, %u, %u]", first ? "" : ", ",
		       fs.size, fs.fct < 0 ? t_end - fs.start : fs.fct, fs.ideal_fct,
		       fs.start, fs.fct < 0, fs.src, fs.dst);
		first = false;
	}
	printf("]}\n");
	Simulator::Destroy();
	return 0;
}
