#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw results of fabric.sh into tables, JSON and a chart.

    report.py DIR        reads DIR/raw, writes DIR/results.json,
                         DIR/results.md and, with gnuplot, DIR/fabric.png

Every figure is over the measured window of a run (warm-up omitted):

  goodput      what the iperf3 receivers got, summed over the flows
  ideal        what a perfectly balanced fabric would deliver: flows
               share each host link, each leaf's pooled uplinks and each
               leaf's pooled downlinks max-min fairly (water-filling),
               in TCP payload (1448 of every 1514 bytes on the wire)
  uplinks      leaf-to-spine ports: bytes sent / (window x port rate)
  retrans      TcpRetransSegs of the hosts, % of the data segments
  reorder      TcpExtTCPSACKReorder + TCPTSReorder + TCPRenoReorder of the
               hosts (the events in which TCP found a segment reordered,
               as nstat names them), % of the data segments
  flowlets, reassignments   arsctl stats, summed over the routers, over
               the whole run (warm-up included: read before the flows
               start and after they end, where their timing is free)

The runs of one workload, mode and idle time (fabric.sh -R repeats them)
are reported together: the mean of every figure and, for goodput, reorder
and retrans %, the range (min-max) over the runs. One run of each reads
as before, without ranges.

A mode MODE:WINDOW (fabric.sh -m "flowlet-quality:100ms") is MODE with
that ars flowlet-window, a mode of its own everywhere here, right after
MODE; the other flowlet runs had the flowlet-window of fabric.sh -X
(auto unless it gave one: derived from fabric-rtt), the others none. A
mode MODE+remote is MODE with ars remote on, a mode of its own too; its
runs report the remote counters (remote_seen, _matched,
_credited, _moved, summed over the routers, the whole run).

Standard library only.
"""

import json
import os
import re
import shutil
import subprocess
import sys

MODES = ["ecmp", "packet-random", "packet-roundrobin", "packet-quality",
         "flowlet-random", "flowlet-quality", "pinned"]
ARS_MODES = [m for m in MODES if m not in ("ecmp", "pinned")]
WORKLOADS = {
    "a": "rail-aligned pairs",
    "b": "random permutation",
    "c": "rail pairs, one link at 1/4",
    "d": "rail pairs, one spine-to-leaf link at 1/4, marking, ECN",
}
MSS = 1448
WIRE = 1514
PAYLOAD = MSS / WIRE
REORDER_COUNTERS = ("TcpExtTCPSACKReorder", "TcpExtTCPTSReorder",
                    "TcpExtTCPRenoReorder")
TARGET_GOODPUT = {"a": 95.0, "b": 95.0, "c": 90.0, "d": 90.0}
TARGET_REORDER = 0.1
# What a group of runs reports: the mean of these figures (and of the
# per-link ones), and the range of RANGE_FIGURES.
MEAN_FIGURES = ("goodput_mbps", "ideal_mbps", "goodput_pct",
                "uplink_util_max", "uplink_util_mean", "retrans_segs",
                "retrans_pct", "reorder_events", "reorder_pct", "flowlets",
                "reassignments", "iperf_retransmits", "dsack_recv",
                "ofo_queued", "data_segments", "window_s",
                "vm_cpu_busy_pct", "remote_seen", "remote_matched",
                "remote_credited", "remote_moved", "slowed_leaf_mbps",
                "slowed_leaf_pct")
REMOTE_COUNTERS = ("remote_seen", "remote_matched", "remote_credited",
                   "remote_moved")
MEAN_LINKS = ("uplink_util_pct", "uplink_mbps", "downlink_mbps")
RANGE_FIGURES = ("goodput_pct", "retrans_pct", "reorder_pct",
                 "slowed_leaf_pct")
TIME_UNITS = {"s": 1e6, "ms": 1e3, "us": 1.0, "": 1.0, "ns": 1e-3}


def base_mode(mode):
    """The ars mode of MODE: flowlet-quality of flowlet-quality:100ms
    and of flowlet-quality+remote."""
    return mode.split(":", 1)[0].split("+", 1)[0]


def window_us(mode):
    """The flowlet-window of MODE:WINDOW in us, 0 for off or none; None
    if it does not read as a time."""
    _, sep, win = mode.partition(":")
    if not sep or win == "off":
        return 0.0
    if win == "auto":
        return None
    m = re.fullmatch(r"(\d+(?:\.\d*)?)([a-z]*)", win)
    if not m or m.group(2) not in TIME_UNITS:
        return None
    return float(m.group(1)) * TIME_UNITS[m.group(2)]


def window_text(window):
    """The flowlet-window of fabric.sh -X, as the report's header says it:
    only the flowlet modes have it."""
    if not window or window == "off":
        return "off"
    if window == "auto":
        window = "derived from fabric-rtt"
    return "%s in the flowlet modes (off in the others)" % window


def mode_rank(mode):
    """Where MODE goes in the tables and the chart: in the order of
    MODES, unknown ones last, and MODE:WINDOW right after MODE, by
    window; MODE+remote after those."""
    base = base_mode(mode)
    w = window_us(mode)
    return (MODES.index(base) if base in MODES else len(MODES), base,
            "+remote" in mode, ":" in mode,
            w if w is not None else float("inf"), mode)


def read_kv(path):
    out = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v
    return out


def read_flows(path):
    with open(path) as f:
        return [tuple(line.split()) for line in f if line.strip()]


def host_leaf(host):
    m = re.fullmatch(r"l(\d+)h(\d+)", host)
    return int(m.group(1))


def read_pids(raw):
    pids = {}
    with open(os.path.join(raw, "pids")) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[1] == "pid":
                pids[w[3]] = w[2]
    return pids


def parse_snapshot(path, pids):
    """fab_snapshot: "@ time T" lines around "/proc/PID/net/FILE:LINE"
    lines (and /proc/stat's)."""
    snap = {"time": [], "dev": {}, "mib": {}, "cpu": None}
    mib_hdr = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("@ time "):
                snap["time"].append(float(line.split()[2]))
                continue
            fname, _, text = line.partition(":")
            if fname == "/proc/stat":
                w = text.split()
                if w and w[0] == "cpu":
                    v = [int(x) for x in w[1:]]
                    # user nice system idle iowait irq softirq
                    snap["cpu"] = (v[0] + v[1] + v[2] + v[5] + v[6],
                                   v[3] + v[4])
                continue
            parts = fname.split("/")
            if len(parts) != 5 or parts[1] != "proc":
                continue
            ns = pids.get(parts[2])
            kind = parts[4]
            if ns is None:
                continue
            if kind == "dev":
                name, sep, rest = text.partition(":")
                f = rest.split()
                if sep and len(f) >= 16:
                    snap["dev"].setdefault(ns, {})[name.strip()] = {
                        "rx_bytes": int(f[0]), "tx_bytes": int(f[8]),
                        "tx_packets": int(f[9])}
            elif kind in ("snmp", "netstat"):
                w = text.split()
                if not w:
                    continue
                key = (ns, kind, w[0])
                if key not in mib_hdr:
                    mib_hdr[key] = w
                    continue
                names = mib_hdr.pop(key)
                mib = snap["mib"].setdefault(ns, {})
                prefix = w[0].rstrip(":")
                for k, v in zip(names[1:], w[1:]):
                    try:
                        mib[prefix + k] = int(v)
                    except ValueError:
                        pass
    return snap


def parse_ars(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            w = line.split(None, 3)
            if len(w) == 4 and w[1] == "ars":
                try:
                    out[w[2]] = json.loads(w[3])
                except ValueError:
                    out[w[2]] = {}
    return out


def mib_delta(a, b, hosts, names):
    total = 0
    for h in hosts:
        for n in names:
            total += b["mib"].get(h, {}).get(n, 0) - \
                a["mib"].get(h, {}).get(n, 0)
    return total


def waterfill(flows, cfg, degraded, degraded_down=False):
    """Max-min fair rates (kbit/s on the wire) of FLOWS on a perfectly
    balanced fabric: resources are the source and destination host links
    and, per leaf, its pooled uplinks and pooled downlinks (with
    DEGRADED_DOWN, workload d's spine-to-leaf link slowed)."""
    rate = cfg["rate_kbit"]
    spines = cfg["spines"]
    leaves = cfg["leaves"]
    cap = {}
    for l in range(1, leaves + 1):
        up = down = 0.0
        for s in range(1, spines + 1):
            r = rate
            if degraded and l == cfg["degrade_leaf"] and \
                    s == cfg["degrade_spine"]:
                r = rate / cfg["degrade_div"]
            up += r
            if degraded_down and l == cfg["degrade_down_leaf"] and \
                    s == cfg["degrade_down_spine"]:
                r = rate / cfg["degrade_down_div"]
            down += r
        cap[("up", l)] = up
        cap[("down", l)] = down
    uses = []
    for src, dst in flows:
        res = [("tx", src), ("rx", dst)]
        cap.setdefault(("tx", src), rate)
        cap.setdefault(("rx", dst), rate)
        ls, ld = host_leaf(src), host_leaf(dst)
        if ls != ld:
            res += [("up", ls), ("down", ld)]
        uses.append(res)
    alloc = [0.0] * len(flows)
    active = set(range(len(flows)))
    left = dict(cap)
    while active:
        count = {}
        for i in active:
            for r in uses[i]:
                count[r] = count.get(r, 0) + 1
        inc = min(left[r] / n for r, n in count.items())
        for i in active:
            alloc[i] += inc
        for r, n in count.items():
            left[r] -= inc * n
        full = {r for r in count if left[r] <= 1e-9 * cap[r]}
        active = {i for i in active if not full & set(uses[i])}
    return alloc


def link_rate(cfg, run, l, s):
    r = cfg["rate_kbit"]
    if run["degraded"] and l == cfg["degrade_leaf"] and \
            s == cfg["degrade_spine"]:
        r = r / cfg["degrade_div"]
    return r * 1000.0


def analyse_run(d, cfg, pids):
    meta = read_kv(os.path.join(d, "meta"))
    flows = read_flows(os.path.join(d, "flows"))
    run = {
        "id": meta["id"],
        "workload": meta["workload"],
        "mode": meta["mode"],
        "flowlet_window": meta.get("flowlet_window"),
        "idle_us": int(meta["idle_us"]) if meta.get("idle_us") else None,
        "idle_derived": meta.get("idle_derived") == "1",
        "rep": int(meta.get("rep") or 1),
        "shaped": meta.get("shaped") == "1",
        "degraded": meta.get("degraded") == "1",
        "degraded_down": meta.get("degraded_down") == "1",
        "ecn": meta.get("ecn") == "1",
        "remote": meta.get("remote") == "on",
        "flows": len(flows),
    }
    per_flow = []
    errors = []
    sent_rtx = 0
    for i, (src, dst) in enumerate(flows):
        path = os.path.join(d, "iperf-%d.json" % i)
        try:
            with open(path) as f:
                j = json.load(f)
            end = j["end"]
            bps = end["sum_received"]["bits_per_second"]
            sent_rtx += end["sum_sent"].get("retransmits", 0)
        except (OSError, ValueError, KeyError):
            bps = 0.0
            errors.append("%s->%s" % (src, dst))
        per_flow.append({"src": src, "dst": dst,
                         "goodput_mbps": round(bps / 1e6, 3)})
    run["per_flow"] = per_flow
    run["failed_flows"] = errors
    goodput = sum(f["goodput_mbps"] for f in per_flow)
    run["goodput_mbps"] = round(goodput, 3)
    run["iperf_retransmits"] = sent_rtx

    if run["shaped"]:
        alloc = waterfill(flows, cfg, run["degraded"], run["degraded_down"])
        ideal = sum(alloc) * PAYLOAD / 1e3
        run["ideal_mbps"] = round(ideal, 3)
        run["goodput_pct"] = round(100.0 * goodput / ideal, 1)
        if run["degraded_down"]:
            # The flows towards the leaf behind the slowed link, the
            # only ones it can slow: the rest of d is workload a.
            to = [i for i, (_, dst) in enumerate(flows)
                  if host_leaf(dst) == cfg["degrade_down_leaf"]]
            got = sum(per_flow[i]["goodput_mbps"] for i in to)
            want = sum(alloc[i] for i in to) * PAYLOAD / 1e3
            run["slowed_leaf_mbps"] = round(got, 3)
            run["slowed_leaf_pct"] = round(100.0 * got / want, 1)

    a = parse_snapshot(os.path.join(d, "snap-a"), pids)
    b = parse_snapshot(os.path.join(d, "snap-b"), pids)
    window = (b["time"][0] + b["time"][-1]) / 2 - \
        (a["time"][0] + a["time"][-1]) / 2
    run["window_s"] = round(window, 2)
    if a["cpu"] and b["cpu"]:
        busy = b["cpu"][0] - a["cpu"][0]
        idle = b["cpu"][1] - a["cpu"][1]
        if busy + idle > 0:
            run["vm_cpu_busy_pct"] = round(100.0 * busy / (busy + idle))

    # Leaf-to-spine (up) and spine-to-leaf (down) ports.
    up, down = {}, {}
    for l in range(1, cfg["leaves"] + 1):
        for s in range(1, cfg["spines"] + 1):
            key = "l%d-s%d" % (l, s)
            bits = 8 * (b["dev"]["l%d" % l]["s%d" % s]["tx_bytes"] -
                        a["dev"]["l%d" % l]["s%d" % s]["tx_bytes"])
            up[key] = bits / window
            bits = 8 * (b["dev"]["s%d" % s]["l%d" % l]["tx_bytes"] -
                        a["dev"]["s%d" % s]["l%d" % l]["tx_bytes"])
            down[key] = bits / window
    run["uplink_mbps"] = {k: round(v / 1e6, 3) for k, v in up.items()}
    run["downlink_mbps"] = {k: round(v / 1e6, 3) for k, v in down.items()}
    if run["shaped"]:
        util = {}
        for k, v in up.items():
            l, s = (int(x[1:]) for x in k.split("-"))
            util[k] = 100.0 * v / link_rate(cfg, run, l, s)
        run["uplink_util_pct"] = {k: round(v, 1) for k, v in util.items()}
        run["uplink_util_max"] = round(max(util.values()), 1)
        run["uplink_util_mean"] = round(sum(util.values()) / len(util), 1)

    hosts = sorted({h for f in flows for h in f})
    data_segs = goodput * 1e6 * window / 8 / MSS
    rtx = mib_delta(a, b, hosts, ["TcpRetransSegs"])
    reo = mib_delta(a, b, hosts, REORDER_COUNTERS)
    run["data_segments"] = round(data_segs)
    run["retrans_segs"] = rtx
    run["reorder_events"] = reo
    run["retrans_pct"] = round(100.0 * rtx / data_segs, 3) if data_segs else None
    run["reorder_pct"] = round(100.0 * reo / data_segs, 3) if data_segs else None
    run["dsack_recv"] = mib_delta(a, b, hosts, ["TcpExtTCPDSACKRecv"])
    run["ofo_queued"] = mib_delta(a, b, hosts, ["TcpExtTCPOFOQueue"])

    # ars counters: over the whole run, warm-up included (read before the
    # flows start and after they end, where timing does not matter).
    ars_a = parse_ars(os.path.join(d, "ars-a"))
    ars_b = parse_ars(os.path.join(d, "ars-b"))
    stats = {}
    for r, st in ars_b.items():
        for k, v in st.items():
            if isinstance(v, int):
                stats[k] = stats.get(k, 0) + v - ars_a.get(r, {}).get(k, 0)
    run["ars"] = stats
    run["flowlets"] = stats.get("flowlets", 0)
    run["reassignments"] = stats.get("reassignments", 0)
    for k in REMOTE_COUNTERS:
        run[k] = stats.get(k, 0)
    try:
        with open(os.path.join(d, "paths-l1.json")) as f:
            run["paths_l1_mid"] = {p["ifname"]: {
                "band": p["band"], "util": p.get("util_permille", 0),
                "delay_us": round(p["delay_ns"] / 1000)}
                for p in json.load(f) if p["ifname"].startswith("s")}
    except (OSError, ValueError, KeyError):
        pass
    return run


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def span(g, k, spec="%.1f"):
    """The range of K over the runs of G, "81.8–88.7"; "" for one run."""
    if g["n"] < 2 or g["min"][k] is None:
        return ""
    return "%s–%s" % (spec % g["min"][k], spec % g["max"][k])


def fmt_range(g, k, spec="%.1f", bracketed=False):
    """The mean of K over the runs of G and, for several, their range:
    "87.2 (81.8–88.7)"; bracketed, all in brackets: "(2.54%, 1.90–3.10)"."""
    s, r = fmt(g["mean"][k], spec), span(g, k, spec.rstrip("%"))
    if bracketed:
        return "(%s%s)" % (s, ", " + r if r else "")
    return s + (" (%s)" % r if r else "")


def mean(values):
    """The mean of the VALUES that there are, None if none; an int when
    they are ints and it is whole, as one run's figure reads."""
    vs = [v for v in values if v is not None]
    if not vs:
        return None
    m = sum(vs) / len(vs)
    if all(isinstance(v, int) for v in vs) and m == int(m):
        return int(m)
    return round(m, 3)


def group(runs):
    """The runs of the same workload, mode and idle time together: how
    many, which, the mean of every figure and the range of the main
    ones."""
    by = {}
    for r in runs:
        by.setdefault((r["workload"], r["mode"], r["idle_us"]),
                      []).append(r)
    out = []
    for (w, m, idle), rs in by.items():
        g = {"workload": w, "mode": m, "idle_us": idle, "n": len(rs),
             "runs": [r["id"] for r in rs], "flows": rs[0]["flows"],
             "degraded": rs[0]["degraded"], "mean": {}, "min": {},
             "max": {}}
        for k in MEAN_FIGURES:
            g["mean"][k] = mean(r.get(k) for r in rs)
        for k in MEAN_LINKS:
            links = rs[0].get(k)
            if links is not None:
                g["mean"][k] = {l: mean(r.get(k, {}).get(l) for r in rs)
                                for l in links}
        for k in RANGE_FIGURES:
            vs = [r[k] for r in rs if r.get(k) is not None]
            g["min"][k] = min(vs) if vs else None
            g["max"][k] = max(vs) if vs else None
        if "+remote" in m:
            g["per_run"] = [dict({"id": r["id"], "rep": r["rep"],
                                  "goodput_pct": r.get("goodput_pct")},
                                 **{k: r.get(k, 0) for k in REMOTE_COUNTERS})
                            for r in rs]
        out.append(g)
    return out


def sort_runs(runs):
    def key(r):
        return (r["workload"], mode_rank(r["mode"]), r["idle_us"] or 0)
    return sorted(runs, key=key)


def main_runs(runs, rtt_us, idle_us):
    """The workload x mode table, a group of runs per row: the sweep's
    other idle times left out."""
    out = []
    for r in runs:
        if not r["shaped"]:
            continue
        if r["mode"].startswith("flowlet") and idle_us and \
                r["idle_us"] != idle_us:
            continue
        out.append(r)
    return sort_runs(group(out))


def sweep_runs(runs, rtt_us):
    """The idle-time sweep, a group of runs per idle time."""
    out = [r for r in runs if r["workload"] == "a" and
           r["mode"] == "flowlet-quality" and r["shaped"]]
    for r in out:
        r["idle_rtt"] = round(r["idle_us"] / rtt_us, 2) if rtt_us else None
    out = group(out)
    for g in out:
        g["idle_rtt"] = round(g["idle_us"] / rtt_us, 2) if rtt_us else None
    return sorted(out, key=lambda g: g["idle_us"] or 0)


def runs_of_each(groups):
    """How many runs a group has, at most: fabric.sh -R."""
    return max([g["n"] for g in groups] or [1])


def summarise(table):
    """Best mode by mean % of ideal over the workloads (and the runs of
    each), and its margin over ecmp; the targets, met or not by the mean
    over the runs."""
    by = {}
    for g in table:
        by.setdefault(g["mode"], {})[g["workload"]] = g
    wls = sorted({g["workload"] for g in table})
    means = {}
    for m, gs in by.items():
        if m == "pinned" or any(w not in gs for w in wls):
            continue
        means[m] = sum(gs[w]["mean"]["goodput_pct"] for w in wls) / len(wls)
    summary = {"runs_of_each": runs_of_each(table),
               "mean_goodput_pct": {m: round(v, 1) for m, v in means.items()}}
    if means:
        best = max(means, key=means.get)
        summary["best_mode"] = best
        if "ecmp" in means:
            summary["margin_over_ecmp_points"] = round(
                means[best] - means["ecmp"], 1)
            summary["margin_per_workload_points"] = {
                w: round(by[best][w]["mean"]["goodput_pct"] -
                         by["ecmp"][w]["mean"]["goodput_pct"], 1)
                for w in wls}

    def target(what, g, k, met):
        got = g["mean"][k]
        return {"what": what, "measured": got, "met": met(got),
                "n": g["n"], "min": g["min"][k], "max": g["max"][k]}

    targets = []
    # The targets of flowlet-quality and flowlet-random hold for them
    # with any flowlet-window too.
    modes = sorted(by, key=mode_rank)
    for m in modes:
        if base_mode(m) != "flowlet-quality":
            continue
        for w in wls:
            if w in by[m] and w in TARGET_GOODPUT:
                targets.append(target(
                    "%s goodput on %s >= %g%% of ideal" %
                    (m, w, TARGET_GOODPUT[w]), by[m][w], "goodput_pct",
                    lambda v, t=TARGET_GOODPUT[w]: v >= t))
    for m in modes:
        if base_mode(m) not in ("flowlet-random", "flowlet-quality"):
            continue
        for w in wls:
            g = by.get(m, {}).get(w)
            if g and g["mean"]["reorder_pct"] is not None:
                targets.append(target(
                    "%s on %s reorders <= %g%% of packets" %
                    (m, w, TARGET_REORDER), g, "reorder_pct",
                    lambda v: v <= TARGET_REORDER))
    summary["targets"] = targets
    return summary


def markdown(cfg, capacity, table, sweep, summary, left_out=()):
    rate = cfg["rate_kbit"] / 1000.0
    each = runs_of_each(table + sweep)
    lines = []
    lines.append("# ars fabric benchmark")
    lines.append("")
    lines.append(
        "%d leaves x %d spines, %d hosts per leaf (1:1), every link "
        "%g Mbit/s (ars qdisc over tbf: queue %d frames, bucket %d); "
        "kernel %s in QEMU (TCG, %s vCPUs). Each run: %d s warm-up "
        "(omitted), %d s measured; one TCP flow (iperf3, cubic) per "
        "host%s. ars flowlet-window %s%s." % (
            cfg["leaves"], cfg["spines"], cfg["hosts"], rate,
            cfg["queue_frames"], cfg["burst_frames"], cfg.get("kernel", "?"),
            cfg.get("cpus", "?"), cfg["warm_s"], cfg["dur_s"],
            "; %d runs of each, interleaved, with new connections: the "
            "figures are their means, (min–max) their range" % each
            if each > 1 else "", window_text(cfg.get("flowlet_window")),
            "; MODE:WINDOW has WINDOW" if any(
                ":" in g["mode"] for g in table) else ""))
    lines.append("")
    lines.append(profile_text(cfg, each))
    if capacity:
        lines.append("")
        lines.append(
            "VM forwarding capacity, links unshaped (workload a, ecmp): "
            "%.0f Mbit/s of goodput, an upper bound, since unshaped "
            "veths carry 64 KB TSO packets; shaped, every packet is one "
            "or two frames and the VM forwards far less. "
            "The shaped fabric asks for %.0f Mbit/s." % (
                capacity["goodput_mbps"],
                cfg["leaves"] * cfg["hosts"] * rate))
    pinned = next((g for g in table if g["mode"] == "pinned"), None)
    if pinned:
        lines.append("")
        got = pinned["mean"]["goodput_pct"]
        r = span(pinned, "goodput_pct")
        s = ("Perfect placement (pinned, workload a) delivered %.1f%% of "
             "ideal%s: what this VM carried at all." % (
                 got, " (%s)" % r if r else ""))
        if got < 75:
            s += (" **Below 75%: the VM could not keep up (other guests "
                  "on its host?), and every figure here says more about "
                  "the emulation than about ars.**")
        lines.append(s)
    lines.append("")
    lines.append("| workload | mode | goodput Mbit/s | % of ideal | "
                 "uplink util max / mean % | retrans segs (%) | "
                 "reorder events (%) | flowlets | reassignments |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for g in table:
        m = g["mean"]
        r = span(g, "goodput_pct")
        lines.append("| %s %s | %s | %.1f / %.1f | **%.1f**%s | %s / %s | "
                     "%.0f %s | %.0f %s | %.0f | %.0f |" % (
                         g["workload"], WORKLOADS.get(g["workload"], ""),
                         g["mode"] + (" (%d runs)" % g["n"]
                                      if g["n"] != each else ""),
                         m["goodput_mbps"], m["ideal_mbps"],
                         m["goodput_pct"], " (%s)" % r if r else "",
                         fmt(m["uplink_util_max"]),
                         fmt(m["uplink_util_mean"]), m["retrans_segs"],
                         fmt_range(g, "retrans_pct", "%.2f%%", True),
                         m["reorder_events"],
                         fmt_range(g, "reorder_pct", "%.3f%%", True),
                         m["flowlets"], m["reassignments"]))
    if sweep:
        lines.append("")
        lines.append("Idle-time sweep, flowlet-quality on workload a:")
        lines.append("")
        lines.append("| idle-time | x RTT | % of ideal | reorder events (%) | "
                     "retrans (%) | flowlets | reassignments |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|")
        for g in sweep:
            m = g["mean"]
            lines.append("| %.2f ms | %s | %s | %.0f %s | %s | %.0f | %.0f |"
                         % (g["idle_us"] / 1000.0,
                            fmt(g.get("idle_rtt"), "%.2f"),
                            fmt_range(g, "goodput_pct"), m["reorder_events"],
                            fmt_range(g, "reorder_pct", "%.3f%%", True),
                            fmt_range(g, "retrans_pct", "%.2f%%"),
                            m["flowlets"], m["reassignments"]))
    slowed = [g for g in table if g["mean"].get("slowed_leaf_pct") is not None]
    if slowed:
        lines.append("")
        lines.append("Workload d, the flows towards leaf l%d (behind the "
                     "slowed link; the others are workload a's), goodput "
                     "in %% of their ideal:" % cfg["degrade_down_leaf"])
        lines.append("")
        lines.append("| mode | Mbit/s | % of their ideal |")
        lines.append("|---|---:|---:|")
        for g in slowed:
            lines.append("| %s | %.2f | %s |" % (
                g["mode"], g["mean"]["slowed_leaf_mbps"],
                fmt_range(g, "slowed_leaf_pct")))
    remote = [g for g in table if "+remote" in g["mode"]]
    if remote:
        lines.append("")
        lines.append("Remote feedback (ars remote on, remote-half-life %s), "
                     "per run, summed over the routers: ECN-Echo/CNP "
                     "packets seen, matched to an active flowlet, credited "
                     "to its path, and new flowlets that a remote score "
                     "moved:" % cfg.get("remote_half_life", "?"))
        lines.append("")
        lines.append("| workload | mode | run | % of ideal | seen | matched | "
                     "credited | moved |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|")
        for g in remote:
            for r in g["per_run"]:
                lines.append("| %s | %s | %d | %s | %d | %d | %d | %d |" % (
                    g["workload"], g["mode"], r["rep"],
                    fmt(r.get("goodput_pct")),
                    *(r.get(k, 0) for k in REMOTE_COUNTERS)))
    if left_out:
        lines.append("")
        lines.append("Left out (%d run%s): %s." % (
            len(left_out), "" if len(left_out) == 1 else "s", "; ".join(
            "%s: %s" % (r["id"], r["reason"]) for r in left_out)))
    lines.append("")
    lines.append("## Summary")
    lines.append("")
    lines.extend(summary_lines(summary))
    lines.append("")
    lines.append(
        "Ideal: the flows shared max-min fairly over each host link and "
        "each leaf's pooled up- and downlinks (perfect balancing), in TCP "
        "payload (%d of %d bytes per frame). Reorder events: the hosts' "
        "TcpExtTCPSACKReorder + TCPTSReorder + TCPRenoReorder, %% of the "
        "data segments delivered. pinned: static routes, rail h over spine "
        "h, so every uplink carries one flow: what this VM delivers with "
        "perfect placement.%s" % (MSS, WIRE, (
            " Several runs: every figure is their mean; goodput, retrans "
            "and reorder %% come with their range (min–max); \"(N runs)\" "
            "marks a row with fewer than %d." % each) if each > 1 else ""))
    return "\n".join(lines) + "\n"


def ns_ms(v):
    """"202240000" (ns) as "202.24 ms"."""
    try:
        return "%g ms" % (int(v) / 1e6)
    except (TypeError, ValueError):
        return "?"


def profile_text(cfg, each):
    """Which profile the routers ran: fabric-rtt's derived defaults, or
    the figures set explicitly (fabric.sh -B off, -i, -I, -E)."""
    if cfg.get("profile") == "derived":
        src = cfg.get("ars_idle_time_source") or "?"
        s = ("Profile: **derived** from ars fabric-rtt %s (%s), nothing else "
             "set%s: idle-time %s (%s), sampling-interval %s (%s), %sport "
             "signal %s%s, tau %s, ewma-shift %s." % (
                 "%g ms" % (cfg["fabric_rtt_us"] / 1000.0)
                 if cfg.get("fabric_rtt_us") else "?",
                 {"computed": "the base RTT computed from the link rate: a "
                  "full-size frame on each of the 4 links out, an ACK on "
                  "each back", "option": "fabric.sh -B"}.get(
                      cfg.get("fabric_rtt_from"), "?"),
                 "" if cfg.get("idle_mode") == "derived" and
                 cfg.get("sampling") == "derived" and
                 cfg.get("ewma_shift") == "derived" else
                 " but what fabric.sh's options gave",
                 ns_ms(cfg.get("ars_idle_time_ns")), src,
                 ns_ms(cfg.get("ars_sampling_interval_ns")),
                 cfg.get("ars_sampling_interval_source") or "?",
                 "flowlet-window %s (%s) in the flowlet modes, " % (
                     ns_ms(cfg.get("ars_flowlet_window_ns")),
                     cfg.get("ars_flowlet_window_source"))
                 if cfg.get("flowlet_window") == "auto" and
                 cfg.get("ars_flowlet_window_source") else "",
                 cfg.get("qdisc_signal") or "?",
                 " (derived)" if cfg.get("qdisc_signal_derived") == "true"
                 else "",
                 ns_ms(cfg.get("qdisc_tau_ns") or cfg.get("ars_signal_tau_ns")),
                 cfg.get("ars_ewma_shift") or cfg.get("ewma_shift")))
    else:
        s = ("Profile: **explicit** (no fabric-rtt): flowlet idle-time "
             "%s, ars sampling-interval %s, ewma-shift %s." % (
                 "%.1f ms" % (cfg["idle_us"] / 1000.0) +
                 (" (%s x RTT under load)" % cfg["idle_factor"]
                  if cfg.get("idle_factor") else "")
                 if cfg.get("idle_us") else "?",
                 cfg.get("sampling", "?"), cfg.get("ewma_shift", "?")))
    if cfg.get("rtt_us"):
        s += (" RTT under load (full-size ping during the %spinned run): "
              "%.1f ms." % ("first " if each > 1 else "",
                            cfg["rtt_us"] / 1000.0))
    s += (" Flows start in waves %s ms apart (host 1 of every leaf "
          "first)." % cfg.get("wave_ms", "?"))
    return s


def summary_lines(summary):
    out = []
    each = summary.get("runs_of_each", 1)
    if "best_mode" in summary:
        best = summary["best_mode"]
        s = "Best mode: **%s**, %.1f%% of ideal on average" % (
            best, summary["mean_goodput_pct"][best])
        if each > 1:
            s += " over the workloads and %d runs of each" % each
        if "margin_over_ecmp_points" in summary:
            s += ", %+.1f points over ecmp (%s)" % (
                summary["margin_over_ecmp_points"],
                ", ".join("%s %+.1f" % kv for kv in
                          sorted(summary["margin_per_workload_points"]
                                 .items())))
        out.append(s + ".")
        out.append("")
    for t in summary.get("targets", []):
        got = fmt(t["measured"], "%.3g")
        if t["n"] > 1:
            got += ", mean of %d runs, %s–%s" % (
                t["n"], fmt(t["min"], "%.3g"), fmt(t["max"], "%.3g"))
        out.append("- %s: %s (%s)" % (t["what"], got,
                                     "met" if t["met"] else "NOT met"))
    return out


GNUPLOT = r"""
set terminal pngcairo size 1600,1500 font "sans,11"
set output "{png}"
set multiplot layout 3,2 title "{title}" font "sans,14"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left horizontal maxrows 2 font "sans,9"
set xtics nomirror
set yrange [0:*]

set title "{goodput_title}"
set xrange [-0.6:{nwl}-0.4]
set ylabel "% of ideal"
set yrange [0:125]
{goodput_style}
plot {goodput_plot}, 100 with lines dt 2 lc rgb "black" notitle
set style histogram clustered gap 1

set title "Reordering events, % of data segments"
set ylabel "% (log scale)"
set logscale y
set yrange [0.001:300]
plot {reorder_plot}
unset logscale y

{uplink_panels}

set title "Idle-time sweep, flowlet-quality on workload a"
set style data linespoints
set xlabel "idle-time, multiples of the RTT under load"
set ylabel "% of ideal"
set y2label "reorder events, % of segments"
set key top right vertical
set ytics nomirror
set y2tics
set yrange [0:110]
set y2range [0:*]
set logscale x 2
set xrange [0.18:2.8]
set xtics (0.25, 0.5, 1, 2)
plot "{dat}/sweep.dat" using 1:2{sweep_range} axes x1y1 lw 2 pt 7 title "goodput %", \
     "" using 1:3 axes x1y2 lw 2 pt 5 title "reorder %"
unset multiplot
"""

COLORS = {"ecmp": "#888888", "packet-random": "#e6a02e",
          "packet-roundrobin": "#c9c93a", "packet-quality": "#9b59b6",
          "flowlet-random": "#4a90d9", "flowlet-quality": "#2ca02c",
          "pinned": "#222222"}


def mode_color(mode, modes):
    """The colour of MODE among MODES: its own, or for MODE:WINDOW its
    base mode's, darker the longer the window among those of that base."""
    base = base_mode(mode)
    c = COLORS.get(mode, COLORS.get(base, "#000000"))
    if mode in COLORS or ":" not in mode:
        return c
    variants = [m for m in modes if ":" in m and base_mode(m) == base]
    k = variants.index(mode) + 1 if mode in variants else 1
    f = 1 - 0.6 * k / (len(variants) + 1)
    rgb = [int(c[i:i + 2], 16) for i in (1, 3, 5)]
    return "#%02x%02x%02x" % tuple(int(v * f) for v in rgb)


def chart(outdir, cfg, table, sweep):
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    dat = os.path.join(outdir, "chart")
    os.makedirs(dat, exist_ok=True)
    wls = sorted({g["workload"] for g in table})
    modes = sorted({g["mode"] for g in table}, key=mode_rank)
    by = {(g["workload"], g["mode"]): g for g in table}
    each = runs_of_each(table + sweep)

    # With several runs, goodput.dat has the mean, min and max of each
    # mode, and its bars the range as error bars.
    def clustered(fname, value, cols=1):
        with open(os.path.join(dat, fname), "w") as f:
            f.write("# workload " + " ".join(modes) + "\n")
            for w in wls:
                vals = []
                for m in modes:
                    g = by.get((w, m))
                    vs = value(g) if g else (None,) * cols
                    vals += ["?" if v is None else "%g" % v for v in vs]
                f.write("%s %s\n" % (w, " ".join(vals)))

    if each > 1:
        clustered("goodput.dat", lambda g: (g["mean"]["goodput_pct"],
                                            g["min"]["goodput_pct"],
                                            g["max"]["goodput_pct"]), 3)
    else:
        clustered("goodput.dat", lambda g: (g["mean"]["goodput_pct"],))
    clustered("reorder.dat",
              lambda g: (max(g["mean"]["reorder_pct"] or 0, 0.001)
                         if g["mean"]["reorder_pct"] is not None else None,))

    def plot_cols(fname, cols=1):
        parts = []
        for i, m in enumerate(modes):
            src = '"%s/%s"' % (dat, fname) if i == 0 else '""'
            using = ":".join("%d" % (2 + i * cols + c) for c in range(cols))
            parts.append('%s using %s:xtic(1) title "%s" lc rgb "%s"' % (
                src, using, m, mode_color(m, modes)))
        return ", ".join(parts)

    panels = []
    for w in ("a", "b", "c", "d"):
        if w not in wls:
            continue
        links = sorted(next(g for g in table if g["workload"] == w)
                       ["mean"]["uplink_util_pct"],
                       key=lambda k: tuple(int(x[1:]) for x in k.split("-")))
        wmodes = [m for m in modes if (w, m) in by]
        fname = "uplinks-%s.dat" % w
        with open(os.path.join(dat, fname), "w") as f:
            f.write("# link " + " ".join(wmodes) + "\n")
            for k in links:
                f.write("%s %s\n" % (k, " ".join(
                    "%g" % by[(w, m)]["mean"]["uplink_util_pct"][k]
                    for m in wmodes)))
        parts = []
        for i, m in enumerate(wmodes):
            src = '"%s/%s"' % (dat, fname) if i == 0 else '""'
            parts.append('%s using %d:xtic(1) title "%s" lc rgb "%s"' % (
                src, i + 2, m, mode_color(m, modes)))
        title = "Uplink utilisation, workload %s (%s)" % (w, WORKLOADS[w])
        if w == "c":
            title += ", l%d-s%d at 1/%d" % (cfg["degrade_leaf"],
                                             cfg["degrade_spine"],
                                             cfg["degrade_div"])
        if w == "d":
            title += ", s%d-l%d at 1/%d" % (cfg["degrade_down_spine"],
                                             cfg["degrade_down_leaf"],
                                             cfg["degrade_down_div"])
        if each > 1:
            title += ", mean of %d runs" % each
        panels.append(
            'set title "%s"\n'
            'set ylabel "%% of the link rate"\n'
            'set xrange [-0.6:%g]\n'
            'set yrange [0:150]\n'
            'set xtics rotate by -60 font "sans,8"\n'
            'plot %s\n'
            'set xtics norotate font "sans,11"\n' % (
                title, len(links) - 0.4, ", ".join(parts)))
    while len(panels) < 3:
        panels.append("set multiplot next")
    with open(os.path.join(dat, "sweep.dat"), "w") as f:
        f.write("# idle_rtt goodput_pct reorder_pct goodput_min "
                "goodput_max\n")
        for g in sweep:
            if g.get("idle_rtt"):
                m = g["mean"]
                f.write("%g %g %g %g %g\n" % (
                    g["idle_rtt"], m["goodput_pct"], m["reorder_pct"] or 0,
                    g["min"]["goodput_pct"], g["max"]["goodput_pct"]))
    png = os.path.join(outdir, "fabric.png")
    title = "ars on a %dx%d Clos, %d hosts per leaf, %g Mbit/s links" % (
        cfg["leaves"], cfg["spines"], cfg["hosts"], cfg["rate_kbit"] / 1000)
    goodput_title = "Goodput, % of ideal"
    goodput_style = ""
    sweep_range = ""
    if each > 1:
        goodput_title += ", mean and range of %d runs" % each
        goodput_style = ("set style histogram errorbars gap 1 lw 1\n"
                         "set errorbars linecolor rgb \"black\"")
        sweep_range = ":4:5 with yerrorlines"
    script = GNUPLOT.format(png=png, title=title, dat=dat,
                            nwl=len(wls), goodput_title=goodput_title,
                            goodput_style=goodput_style,
                            goodput_plot=plot_cols("goodput.dat",
                                                   3 if each > 1 else 1),
                            sweep_range=sweep_range,
                            reorder_plot=plot_cols("reorder.dat"),
                            uplink_panels="\n".join(panels))
    gpfile = os.path.join(dat, "fabric.gp")
    with open(gpfile, "w") as f:
        f.write(script)
    res = subprocess.run([gp, gpfile], capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        return None
    return png


def load_config(raw):
    cfg = read_kv(os.path.join(raw, "config"))
    for k in ("leaves", "spines", "hosts", "rate_kbit", "queue_frames",
              "burst_frames", "warm_s", "dur_s", "degrade_leaf", "degrade_spine",
              "degrade_div", "rtt_us", "idle_us", "reps", "fabric_rtt_us",
              "degrade_down_spine", "degrade_down_leaf", "degrade_down_div"):
        if cfg.get(k):
            cfg[k] = int(cfg[k])
    return cfg


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py DIR")
    outdir = sys.argv[1]
    raw = os.path.join(outdir, "raw")
    cfg = load_config(raw)
    pids = read_pids(raw)
    runs = []
    left_out = []
    # In the order of the runs: by number, however wide.
    for name in sorted(os.listdir(raw), key=lambda n: (
            int(re.match(r"\d*", n).group() or -1), n)):
        d = os.path.join(raw, name)
        if os.path.isdir(d) and os.path.exists(os.path.join(d, "meta")):
            runs.append(analyse_run(d, cfg, pids))
        elif os.path.isfile(os.path.join(d, "left-out")):
            with open(os.path.join(d, "left-out")) as f:
                left_out.append({"id": name, "reason": f.read().strip()})
    rtt, idle = cfg.get("rtt_us"), cfg.get("idle_us")
    capacity = next((r for r in runs if not r["shaped"]), None)
    table = main_runs(runs, rtt, idle)
    sweep = sweep_runs(runs, rtt)
    summary = summarise(table)
    result = {"config": cfg, "capacity": capacity, "table": table,
              "sweep": sweep, "summary": summary, "runs": runs,
              "left_out": left_out}
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    md = markdown(cfg, capacity, table, sweep, summary, left_out)
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(md)
    png = chart(outdir, cfg, table, sweep)
    sys.stdout.write(md)
    if png:
        print("\nChart: %s" % png)


if __name__ == "__main__":
    main()
