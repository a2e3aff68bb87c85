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
}
MSS = 1448
WIRE = 1514
PAYLOAD = MSS / WIRE
REORDER_COUNTERS = ("TcpExtTCPSACKReorder", "TcpExtTCPTSReorder",
                    "TcpExtTCPRenoReorder")
TARGET_GOODPUT = {"a": 95.0, "b": 95.0, "c": 90.0}
TARGET_REORDER = 0.1


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


def waterfill(flows, cfg, degraded):
    """Max-min fair rates (kbit/s on the wire) of FLOWS on a perfectly
    balanced fabric: resources are the source and destination host links
    and, per leaf, its pooled uplinks and pooled downlinks."""
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
        "idle_us": int(meta["idle_us"]) if meta.get("idle_us") else None,
        "shaped": meta.get("shaped") == "1",
        "degraded": meta.get("degraded") == "1",
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
        ideal = sum(waterfill(flows, cfg, run["degraded"])) * PAYLOAD / 1e3
        run["ideal_mbps"] = round(ideal, 3)
        run["goodput_pct"] = round(100.0 * goodput / ideal, 1)

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
    try:
        with open(os.path.join(d, "paths-l1.json")) as f:
            run["paths_l1_mid"] = {p["ifname"]: {
                "band": p["band"], "util": p["util"],
                "delay_us": round(p["delay"] / 1000)}
                for p in json.load(f) if p["ifname"].startswith("s")}
    except (OSError, ValueError, KeyError):
        pass
    return run


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def sort_runs(runs):
    def key(r):
        return (r["workload"], MODES.index(r["mode"])
                if r["mode"] in MODES else 99, r["idle_us"] or 0)
    return sorted(runs, key=key)


def main_runs(runs, rtt_us, idle_us):
    """The workload x mode table: the sweep's other idle times left out."""
    out = []
    for r in runs:
        if not r["shaped"]:
            continue
        if r["mode"].startswith("flowlet") and idle_us and \
                r["idle_us"] != idle_us:
            continue
        out.append(r)
    return sort_runs(out)


def sweep_runs(runs, rtt_us):
    out = [r for r in runs if r["workload"] == "a" and
           r["mode"] == "flowlet-quality" and r["shaped"]]
    for r in out:
        r["idle_rtt"] = round(r["idle_us"] / rtt_us, 2) if rtt_us else None
    return sorted(out, key=lambda r: r["idle_us"] or 0)


def summarise(table):
    """Best mode by mean % of ideal over the workloads, and its margin over
    ecmp; the targets."""
    by = {}
    for r in table:
        by.setdefault(r["mode"], {})[r["workload"]] = r
    wls = sorted({r["workload"] for r in table})
    means = {}
    for m, rs in by.items():
        if m == "pinned" or any(w not in rs for w in wls):
            continue
        means[m] = sum(rs[w]["goodput_pct"] for w in wls) / len(wls)
    summary = {"mean_goodput_pct": {m: round(v, 1) for m, v in means.items()}}
    if means:
        best = max(means, key=means.get)
        summary["best_mode"] = best
        if "ecmp" in means:
            summary["margin_over_ecmp_points"] = round(
                means[best] - means["ecmp"], 1)
            summary["margin_per_workload_points"] = {
                w: round(by[best][w]["goodput_pct"] -
                         by["ecmp"][w]["goodput_pct"], 1) for w in wls}
    targets = []
    fq = by.get("flowlet-quality", {})
    for w in wls:
        if w in fq and w in TARGET_GOODPUT:
            got = fq[w]["goodput_pct"]
            targets.append({
                "what": "flowlet-quality goodput on %s >= %g%% of ideal" %
                        (w, TARGET_GOODPUT[w]),
                "measured": got, "met": got >= TARGET_GOODPUT[w]})
    for m in ("flowlet-random", "flowlet-quality"):
        for w in wls:
            r = by.get(m, {}).get(w)
            if r and r["reorder_pct"] is not None:
                targets.append({
                    "what": "%s on %s reorders <= %g%% of packets" %
                            (m, w, TARGET_REORDER),
                    "measured": r["reorder_pct"],
                    "met": r["reorder_pct"] <= TARGET_REORDER})
    summary["targets"] = targets
    return summary


def markdown(cfg, capacity, table, sweep, summary):
    rate = cfg["rate_kbit"] / 1000.0
    lines = []
    lines.append("# ars fabric benchmark")
    lines.append("")
    lines.append(
        "%d leaves x %d spines, %d hosts per leaf (1:1), every link "
        "%g Mbit/s (ars qdisc over tbf: queue %d frames, bucket %d); "
        "kernel %s in QEMU (TCG, %s vCPUs). Each run: %d s warm-up "
        "(omitted), %d s measured; one TCP flow (iperf3, cubic) per host." % (
            cfg["leaves"], cfg["spines"], cfg["hosts"], rate,
            cfg["queue_frames"], cfg["burst_frames"], cfg.get("kernel", "?"),
            cfg.get("cpus", "?"), cfg["warm_s"], cfg["dur_s"]))
    if cfg.get("rtt_us"):
        lines.append("")
        lines.append(
            "RTT under load (full-size ping during the pinned run): %.1f "
            "ms; flowlet idle-time %.1f ms (%s x RTT). ars "
            "sampling-interval %s, ewma-shift %s. Flows start in waves "
            "%s ms apart (host 1 of every leaf first)." % (
                cfg["rtt_us"] / 1000.0, cfg["idle_us"] / 1000.0,
                cfg.get("idle_factor", "?"), cfg["sampling"],
                cfg["ewma_shift"], cfg.get("wave_ms", "?")))
    if capacity:
        lines.append("")
        lines.append(
            "VM forwarding capacity, links unshaped (workload a, ecmp): "
            "%.0f Mbit/s of goodput, an upper bound, since unshaped "
            "veths carry 64 KB TSO packets; shaped, every packet is one "
            "or two frames and the VM forwards far less (about 28 Mbit/s "
            "when links of 4 Mbit/s saturated its CPUs). The shaped "
            "fabric asks for %.0f Mbit/s." % (
                capacity["goodput_mbps"],
                cfg["leaves"] * cfg["hosts"] * rate))
    pinned = next((r for r in table if r["mode"] == "pinned"), None)
    if pinned:
        lines.append("")
        s = ("Perfect placement (pinned, workload a) delivered %.1f%% of "
             "ideal: what this VM carried at all." % pinned["goodput_pct"])
        if pinned["goodput_pct"] < 75:
            s += (" **Below 75%: the VM could not keep up (other guests "
                  "on its host?), and every figure here says more about "
                  "the emulation than about ars.**")
        lines.append(s)
    lines.append("")
    lines.append("| workload | mode | goodput Mbit/s | % of ideal | "
                 "uplink util max / mean % | retrans segs (%) | "
                 "reorder events (%) | flowlets | reassignments |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in table:
        lines.append("| %s %s | %s | %.1f / %.1f | **%.1f** | %s / %s | "
                     "%d (%s) | %d (%s) | %d | %d |" % (
                         r["workload"], WORKLOADS.get(r["workload"], ""),
                         r["mode"], r["goodput_mbps"], r["ideal_mbps"],
                         r["goodput_pct"], fmt(r.get("uplink_util_max")),
                         fmt(r.get("uplink_util_mean")), r["retrans_segs"],
                         fmt(r["retrans_pct"], "%.2f%%"),
                         r["reorder_events"],
                         fmt(r["reorder_pct"], "%.3f%%"),
                         r["flowlets"], r["reassignments"]))
    if sweep:
        lines.append("")
        lines.append("Idle-time sweep, flowlet-quality on workload a:")
        lines.append("")
        lines.append("| idle-time | x RTT | % of ideal | reorder events (%) | "
                     "retrans (%) | flowlets | reassignments |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|")
        for r in sweep:
            lines.append("| %.2f ms | %s | %.1f | %d (%s) | %s | %d | %d |" % (
                r["idle_us"] / 1000.0, fmt(r.get("idle_rtt"), "%.2f"),
                r["goodput_pct"], r["reorder_events"],
                fmt(r["reorder_pct"], "%.3f%%"),
                fmt(r["retrans_pct"], "%.2f%%"), r["flowlets"],
                r["reassignments"]))
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
        "perfect placement." % (MSS, WIRE))
    return "\n".join(lines) + "\n"


def summary_lines(summary):
    out = []
    if "best_mode" in summary:
        best = summary["best_mode"]
        s = "Best mode: **%s**, %.1f%% of ideal on average" % (
            best, summary["mean_goodput_pct"][best])
        if "margin_over_ecmp_points" in summary:
            s += ", %+.1f points over ecmp (%s)" % (
                summary["margin_over_ecmp_points"],
                ", ".join("%s %+.1f" % kv for kv in
                          sorted(summary["margin_per_workload_points"]
                                 .items())))
        out.append(s + ".")
        out.append("")
    for t in summary.get("targets", []):
        out.append("- %s: %s (%s)" % (t["what"], fmt(t["measured"], "%.3g"),
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

set title "Goodput, % of ideal"
set xrange [-0.6:{nwl}-0.4]
set ylabel "% of ideal"
set yrange [0:125]
plot {goodput_plot}, 100 with lines dt 2 lc rgb "black" notitle

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
plot "{dat}/sweep.dat" using 1:2 axes x1y1 lw 2 pt 7 title "goodput %", \
     "" using 1:3 axes x1y2 lw 2 pt 5 title "reorder %"
unset multiplot
"""

COLORS = {"ecmp": "#888888", "packet-random": "#e6a02e",
          "packet-roundrobin": "#c9c93a", "packet-quality": "#9b59b6",
          "flowlet-random": "#4a90d9", "flowlet-quality": "#2ca02c",
          "pinned": "#222222"}


def chart(outdir, cfg, table, sweep):
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    dat = os.path.join(outdir, "chart")
    os.makedirs(dat, exist_ok=True)
    wls = sorted({r["workload"] for r in table})
    modes = [m for m in MODES if any(r["mode"] == m for r in table)]
    by = {(r["workload"], r["mode"]): r for r in table}

    def clustered(fname, value):
        with open(os.path.join(dat, fname), "w") as f:
            f.write("# workload " + " ".join(modes) + "\n")
            for w in wls:
                vals = []
                for m in modes:
                    r = by.get((w, m))
                    v = value(r) if r else None
                    vals.append("?" if v is None else "%g" % v)
                f.write("%s %s\n" % (w, " ".join(vals)))

    clustered("goodput.dat", lambda r: r["goodput_pct"])
    clustered("reorder.dat",
              lambda r: max(r["reorder_pct"] or 0, 0.001)
              if r["reorder_pct"] is not None else None)

    def plot_cols(fname):
        parts = []
        for i, m in enumerate(modes):
            src = '"%s/%s"' % (dat, fname) if i == 0 else '""'
            parts.append('%s using %d:xtic(1) title "%s" lc rgb "%s"' % (
                src, i + 2, m, COLORS.get(m, "#000000")))
        return ", ".join(parts)

    panels = []
    for w in ("a", "b", "c"):
        if w not in wls:
            continue
        links = sorted(next(r for r in table if r["workload"] == w)
                       ["uplink_util_pct"],
                       key=lambda k: tuple(int(x[1:]) for x in k.split("-")))
        wmodes = [m for m in modes if (w, m) in by]
        fname = "uplinks-%s.dat" % w
        with open(os.path.join(dat, fname), "w") as f:
            f.write("# link " + " ".join(wmodes) + "\n")
            for k in links:
                f.write("%s %s\n" % (k, " ".join(
                    "%g" % by[(w, m)]["uplink_util_pct"][k] for m in wmodes)))
        parts = []
        for i, m in enumerate(wmodes):
            src = '"%s/%s"' % (dat, fname) if i == 0 else '""'
            parts.append('%s using %d:xtic(1) title "%s" lc rgb "%s"' % (
                src, i + 2, m, COLORS.get(m, "#000000")))
        title = "Uplink utilisation, workload %s (%s)" % (w, WORKLOADS[w])
        if w == "c":
            title += ", l%d-s%d at 1/%d" % (cfg["degrade_leaf"],
                                             cfg["degrade_spine"],
                                             cfg["degrade_div"])
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
        f.write("# idle_rtt goodput_pct reorder_pct\n")
        for r in sweep:
            if r.get("idle_rtt"):
                f.write("%g %g %g\n" % (r["idle_rtt"], r["goodput_pct"],
                                        r["reorder_pct"] or 0))
    png = os.path.join(outdir, "fabric.png")
    title = "ars on a %dx%d Clos, %d hosts per leaf, %g Mbit/s links" % (
        cfg["leaves"], cfg["spines"], cfg["hosts"], cfg["rate_kbit"] / 1000)
    script = GNUPLOT.format(png=png, title=title, dat=dat,
                            nwl=len(wls),
                            goodput_plot=plot_cols("goodput.dat"),
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
              "degrade_div", "rtt_us", "idle_us"):
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
    for name in sorted(os.listdir(raw)):
        d = os.path.join(raw, name)
        if os.path.isdir(d) and os.path.exists(os.path.join(d, "meta")):
            runs.append(analyse_run(d, cfg, pids))
    rtt, idle = cfg.get("rtt_us"), cfg.get("idle_us")
    capacity = next((r for r in runs if not r["shaped"]), None)
    table = main_runs(runs, rtt, idle)
    sweep = sweep_runs(runs, rtt)
    summary = summarise([r for r in table])
    result = {"config": cfg, "capacity": capacity, "table": table,
              "sweep": sweep, "summary": summary, "runs": runs}
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    md = markdown(cfg, capacity, table, sweep, summary)
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(md)
    png = chart(outdir, cfg, table, sweep)
    sys.stdout.write(md)
    if png:
        print("\nChart: %s" % png)


if __name__ == "__main__":
    main()
