#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of ars's benchmarks, demo and simulation, as documentation.

Every figure that the documentation gives comes from a results file that
one of the project's tools wrote, committed under
Documentation/networking/results/, and this script renders them into
Documentation/networking/ars-results.rst: one table per file, headed by
the command that produced it, when it ran, the commit of the tree and the
kernel. Nothing in the generated file is typed by hand.

  render.py add bench FILE      a forwarding benchmark's JSON
                                (tools/testing/bench/forward/run.sh:
                                build/bench/forward-KVER.json)
  render.py add core FILE       the core's instructions per packet
                                (make -C tools/testing/bench callgrind:
                                tools/testing/bench/core/build/callgrind.json)
  render.py add sim FOLDER      a simulation's report
                                (tools/testing/sim/run.py: FOLDER/results.json)
  render.py add demo FOLDER     a demo's report (make demo: FOLDER/results.json)
  render.py [render]            write ars-results.rst from the results
  render.py check               make check's stage (KTAP): the committed
                                ars-results.rst is what the results render
                                to, and ars.rst and README.md state no
                                measurement that is not in it

"add" copies the file unchanged and records in results/index.json where
it came from; --command, --date and --commit say what the file itself does
not (the simulation and the demo record no commit; older benchmark files
no command or date). Then "render".
"""
import argparse
import datetime
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOC = os.path.join(TOP, "Documentation", "networking")
RESULTS = os.path.join(DOC, "results")
INDEX = os.path.join(RESULTS, "index.json")
OUTPUT = os.path.join(DOC, "ars-results.rst")
# The files whose measurements must all come from OUTPUT.
CHECKED = [os.path.join(DOC, "ars.rst"), os.path.join(TOP, "README.md")]


def rel(path):
    """A path under the tree, relative to it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, TOP) if path.startswith(TOP + os.sep) else path


def tree_commit():
    try:
        return subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"],
                              capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def mtime(path):
    t = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def load_index():
    try:
        with open(INDEX) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def save_index(index):
    os.makedirs(RESULTS, exist_ok=True)
    with open(INDEX, "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")


def folder_date(folder):
    """run.py and demo.sh name a run's folder by its local start time."""
    m = re.search(r"(\d{8})-(\d{6})$", os.path.normpath(folder))
    if not m:
        return None
    t = datetime.datetime.strptime(m.group(1) + m.group(2), "%Y%m%d%H%M%S")
    return t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_bench(src, benchmark, what):
    """A benchmark's results file, refused unless it is @benchmark's."""
    with open(src) as f:
        d = json.load(f)
    if d.get("benchmark") != benchmark:
        sys.exit("%s: not %s" % (src, what))
    return d


def add(a):
    if a.kind == "bench":
        src = a.path
        d = load_bench(src, "forward", "a forwarding benchmark's results")
        name = "forward-%s.json" % d["kernel"]
        entry = {"command": d.get("command"), "date": d.get("date"),
                 "commit": d.get("commit"), "kernel": d["kernel"]}
    elif a.kind == "core":
        src = a.path
        d = load_bench(src, "core-callgrind", "the core's callgrind results")
        name = "core-callgrind.json"
        entry = {"command": d["command"], "date": d["date"], "commit": d["commit"],
                 "kernel": "none: the host, " + d["host"]}
    else:
        src = os.path.join(a.path, "results.json")
        with open(src) as f:
            d = json.load(f)
        stamp = os.path.basename(os.path.normpath(a.path))
        name = "%s-%s.json" % (a.kind, stamp)
        entry = {"date": folder_date(a.path), "commit": None}
        if a.kind == "sim":
            if "args" not in d:
                sys.exit("%s: not a run.py report" % src)
            args = [x for x in d["args"]]
            entry["command"] = "tools/testing/sim/run.py " + " ".join(
                shlex.quote(rel(x) if os.path.isabs(x) else x) for x in args)
            entry["kernel"] = "none: ns-3 (kmod/ars_core.c, ars_step.c and ars_est.c as built for the host)"
        else:
            if "table" not in d or "config" not in d:
                sys.exit("%s: not a demo report" % src)
            entry["command"] = None
            entry["kernel"] = d["config"].get("kver") or d["config"].get("kernel")
    entry["command"] = a.command or entry["command"]
    entry["date"] = a.date or entry["date"] or mtime(src)
    entry["commit"] = a.commit or entry["commit"] or tree_commit()
    entry["kernel"] = a.kernel or entry.get("kernel")
    if not entry["command"]:
        sys.exit("%s records no command: give --command" % src)
    if not entry["kernel"]:
        sys.exit("%s records no kernel: give --kernel" % src)
    entry.update({"file": name, "kind": a.kind, "title": a.title})
    os.makedirs(RESULTS, exist_ok=True)
    shutil.copyfile(src, os.path.join(RESULTS, name))
    index = [e for e in load_index() if e["file"] != name]
    index.append(entry)
    index.sort(key=lambda e: (e["kind"], e["file"]))
    save_index(index)
    print("added %s; then: %s render" % (rel(os.path.join(RESULTS, name)), rel(__file__)))


# --- rendering -------------------------------------------------------------

def para(text):
    return textwrap.fill(text, 76, break_on_hyphens=False, break_long_words=False)


def table(header, rows):
    """An RST simple table."""
    cols = [header] + rows
    widths = [max(len(str(r[i])) for r in cols) for i in range(len(header))]
    rule = " ".join("=" * w for w in widths)

    def line(r):
        return " ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    return [rule, line(header), rule] + [line(r) for r in rows] + [rule]


def fmt(v, digits=1):
    if v is None:
        return "--"
    return "%.*f" % (digits, v)


def rng(lo, hi, digits=1):
    if lo is None or hi is None:
        return ""
    return " (%s-%s)" % (fmt(lo, digits), fmt(hi, digits))


def instructions(conf, ref):
    """Instructions per packet of r1's forwarding more than the reference,
    from the "r1 alone" rates of a run that counted instructions at
    shift 0 (one guest ns per instruction)."""
    own, base = conf.get("own_pps_per_cpu_s"), ref.get("own_pps_per_cpu_s")
    if not own or not base or not own.get("median") or not base.get("median"):
        return None
    return 1e9 / own["median"] - 1e9 / base["median"]


def render_bench(e, d):
    out = []
    icount = d.get("icount_shift")
    ref = next(c for c in d["configurations"] if c["name"] == d["reference"])
    out += [para("Traffic: %s; %d rounds of %d s, placement %s, sink %s; %s." % (
        d["traffic"], d["rounds"], d["duration_s"], d["placement"], d["sink"],
        "instructions counted (QEMU -icount shift=%d): the rates are per guest "
        "instruction, independent of the host's load" % icount
        if icount is not None else
        "wall-clock and host CPU time: the rates follow the host's load")), ""]
    out += [para("Ratios are medians of the per-round ratios to ``%s`` (ars.ko not "
            "loaded). *r1 alone* subtracts the cost per packet of ``%s`` (the "
            "traffic generator on the same vCPU)%s." % (
                d["reference"], d["base"],
                "; *+instructions* is what r1 spends per packet more than "
                "``%s``, from the file's medians (rounded to a packet per "
                "second: run.sh's own table may differ by one)" % d["reference"]
                if icount == 0 else "")), ""]
    header = ["configuration", "packets/s", "ratio", "r1 alone, ratio"]
    if icount == 0:
        header.append("+instructions")
    rows = []
    for c in d["configurations"]:
        r = ["``%s``" % c["name"], "%d" % c["pps"]["median"],
             fmt(c["ratio"]["median"], 3), fmt(c["own_ratio"]["median"], 3)]
        if icount == 0:
            n = instructions(c, ref)
            r.append("--" if n is None else "%+d" % round(n))
        rows.append(r)
    return out + table(header, rows)


def render_core(e, d):
    out = [para("Instructions per packet under callgrind: the difference of "
                "two runs of %d and %d packets over their difference, which "
                "cancels set-up. *core*: the core's functions (ars_*) and "
                "what the hook inlines; *loop*: with the benchmark's own loop. "
                "*continue*: a packet of a flowlet that goes on (the fast "
                "path); *new*: a packet that starts a flowlet; *mixed*: random "
                "flows at a fixed gap." % (d["n1"], d["n2"])), ""]
    rows = [[r["mode"], r["workload"], fmt(r["core"]), fmt(r["loop"])]
            for r in d["results"]]
    return out + table(["mode", "workload", "core", "loop"], rows)


def sim_case(c):
    what = "%s, %s" % (c["workload"], {"udp": "RoCE-like (UDP)",
                                      "tcp": "DCTCP"}.get(c["transport"], c["transport"]))
    if c.get("degrade", "none") != "none":
        what += ", " + c["degrade"]
    if c.get("uplink_speedup", 1) != 1:
        what += ", uplinks x%g" % c["uplink_speedup"]
    if c["workload"] in COLL:
        what += ", %g MB" % (c.get("coll_msg", 0) / 1e6)
    elif c["workload"] not in ("seed", "perm"):
        what += ", load %g" % c["load"]
    return what


COLL = ("allreduce", "alltoall")


# A sweep's figures of the profile (run.py --idle-rtt, --signal, --tau-rtt):
# the case's field, the column's heading.
SWEEP = (("idle_rtt", "idle, RTTs"), ("signal_sweep", "signal"),
         ("tau_rtt", "tau, RTTs"))


def sim_profile(c0):
    if "profile" not in c0:
        return ("profile: sampling interval %g us, ewma-shift %d, idle time "
                "%g us" % (c0["interval_us"], c0["shift"], c0["idle_us"]))
    return ("profile %s: signal %s, v3's tau %g us, v2's sampling interval "
            "%g us, ewma-shift %d, idle time %g us, base RTT %g us (a sweep's "
            "columns override)" % (
                c0["profile"], c0["signal"], c0["tau_ns"] / 1e3, c0["interval_us"],
                c0["shift"], c0["idle_us"], c0["base_rtt_us"]))


def big_ratio(c):
    """Mean FCT slowdown of the flows > 1 MB, and their p99."""
    s = (c.get("slowdown") or {}).get(">1M")
    return (fmt(s["mean"], 2), fmt(s["p99"], 1)) if s else ("--", "--")


def render_sim(e, d):
    cs = d["cases"]
    c0 = cs[0]
    out = [para("Fabric: %d leaves x %d spines x %d hosts at %g Gbit/s, %d bytes "
           "of buffer per port; %s; %g us measured after %g us." % (
               c0["leaves"], c0["spines"], c0["hosts"], c0["rate_gbps"],
               c0["buffer"], sim_profile(c0), c0["window_us"], c0["warmup_us"])), "",
           para("Goodput in % of ideal and reordered packets in %: mean over "
                "the seeds (range)."), ""]
    flowsize = any(c.get("slowdown_mean") is not None and
                   c["workload"] not in ("seed", "perm") + COLL for c in cs)
    coll = any(c.get("coll_ideal_us") for c in cs)
    sweep = [(f, h) for f, h in SWEEP if any(c.get(f) for c in cs)]
    header = ["case", "mode"] + [h for f, h in sweep] + \
        ["seeds", "goodput, % of ideal", "reordered, %"]
    if coll:
        header += ["completion / ideal", "bus bandwidth, %"]
    if flowsize:
        header += ["FCT slowdown, mean", "p99"]
        if sweep or coll:
            header += ["> 1 MB, mean", "> 1 MB, p99"]
    rows = []
    for c in cs:
        r = [sim_case(c), c["mode"]] + [c.get(f) or "default" for f, h in sweep] + \
            [str(len(c.get("seeds") or []) or c.get("runs") or 1),
             "--" if c["workload"] in COLL else
             fmt(c["goodput_pct"]) + rng(*(c.get("goodput_pct_range") or [None, None])),
             fmt(c["reordered_pct"], 3)]
        if coll:
            r += [fmt(c["coll_time_us"] / c["coll_ideal_us"], 2)
                  if c.get("coll_ideal_us") else "--",
                  fmt(c["busbw_pct"]) if c.get("coll_ideal_us") else "--"]
        if flowsize:
            r += [fmt(c.get("slowdown_mean"), 2), fmt(c.get("slowdown_p99"), 1)]
            if sweep or coll:
                r += list(big_ratio(c))
        rows.append(r)
    out += table(header, rows)
    cmp = [x for x in d.get("comparisons", []) if x["metric"] == "goodput_pct"]
    if cmp:
        out += ["", para("Paired differences over the seeds (a - b, points "
                         "of % of ideal, 95% interval):"), ""]
        rows = [[" ".join(str(k) for k in x["key"][:3]), x["a"], x["b"], str(x["n"]),
                 "%+.1f" % x["diff"], "%+.1f .. %+.1f" % tuple(x["ci"]) if x.get("ci")
                 else "--", x["verdict"]] for x in cmp]
        out += table(["case", "a", "b", "seeds", "a - b", "interval", "verdict"], rows)
    cmp = [x for x in d.get("comparisons", []) if x["metric"] in OTHER_METRICS]
    if cmp:
        out += ["", para("Paired differences over the seeds of the collectives' "
                         "completion over its ideal and of FCT slowdowns (a - b, "
                         "95% interval; lower is better), and b's figure over "
                         "a's:"), ""]
        rows = [[sim_case(dict(zip(("workload", "transport", "degrade",
                                    "uplink_speedup", "load", "coll_msg"), x["key"]))),
                 OTHER_METRICS[x["metric"]], x["a"], x["b"], str(x["n"]),
                 "%+.2f" % x["diff"], "%+.2f .. %+.2f" % tuple(x["ci"]) if x.get("ci")
                 else "--", fmt(x.get("ratio_b_a"), 2), x["verdict"]] for x in cmp]
        out += table(["case", "figure", "a", "b", "seeds", "a - b", "interval",
                      "b / a", "verdict"], rows)
    return out


OTHER_METRICS = {"coll_x_ideal": "completion / ideal",
                 "slowdown_mean": "mean FCT slowdown",
                 "slowdown_p99 >1M": "p99 FCT slowdown > 1 MB"}


def render_demo(e, d):
    out = [para("Goodput in % of ideal: mean over the runs (range); reordered "
                "and retransmitted segments in % of the data segments."), ""]
    rows = []
    for g in d["table"]:
        m, lo, hi = g.get("mean", {}), g.get("min", {}), g.get("max", {})
        rows.append([g["workload"], g["mode"], str(g["n"]),
                     fmt(m.get("goodput_pct")) + rng(lo.get("goodput_pct"),
                                                     hi.get("goodput_pct")),
                     fmt(m.get("reorder_pct"), 3), fmt(m.get("retrans_pct"), 2)])
    return out + table(["workload", "mode", "runs", "goodput, % of ideal",
                        "reordered, %", "retransmitted, %"], rows)


RENDER = {"bench": render_bench, "core": render_core, "sim": render_sim,
          "demo": render_demo}
TITLES = {"bench": "Forwarding rate in the VM", "core": "The core's instructions",
          "sim": "Simulated fabric (ns-3)",
          "demo": "Demo fabric in the VM"}


def render():
    out = [".. SPDX-License-Identifier: GPL-2.0", "",
           ".. Generated by tools/testing/results/render.py from",
           "   Documentation/networking/results/: do not edit; see",
           "   ars.rst, \"Results\".", "",
           "===========",
           "ars results",
           "===========", "",
           para("Each table below is rendered from one results file of the "
           "project's own tools, committed under "
           "``Documentation/networking/results/``, by "
           "``tools/testing/results/render.py``; the command that wrote the "
           "file, when, from which commit and on which kernel head each "
           "table. A figure that is not here was not measured on this tree."),
           ""]
    for e in load_index():
        with open(os.path.join(RESULTS, e["file"])) as f:
            d = json.load(f)
        title = e.get("title") or "%s: %s" % (TITLES[e["kind"]], e["file"])
        out += [title, "=" * len(title), "",
                "- command: ``%s``" % e["command"],
                "- date: %s" % e["date"],
                "- commit: ``%s``" % e["commit"],
                "- kernel: %s" % e["kernel"],
                "- file: ``results/%s``" % e["file"], ""]
        out += RENDER[e["kind"]](e, d)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# --- check -----------------------------------------------------------------

# A line that states a measurement: a number next to one of these words.
MEASURE = re.compile(
    r"% of ideal|\binstructions?\b|\bgoodput\b|\breorder(ed|s|ing)?\b|"
    r"\bretransmi|\bslowdown\b|\bpackets/s\b|\bpps\b|\bMbit/s of\b|"
    r"\bratio\b|\bpoints\b|\bmedian\b|\bmargin\b|"
    r"\bevents\b|\bCPU (seconds|minutes)\b", re.I)
# Figures that are measurements wherever they stand: a percentage, a
# decimal fraction, a duration in minutes or hours.
FIGURE = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)(?:\s*%|\s+(?:min|minutes|hours)\b)|"
                    r"(?<![\w.-])(\d+\.\d+)(?![\w.])")
NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w.])")


def figures(path, known):
    """Lines of path that state a measurement with a number that the
    generated file does not have. Literals (commands, options) and
    code blocks are not statements."""
    bad = []
    block = literal = False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if s.startswith("```"):
                block = not block
                continue
            if block:
                continue
            # an RST literal block: indented lines after a "::"
            if literal and (not s.strip() or s.startswith(" ")):
                continue
            literal = s.endswith("::")
            s = re.sub(r"``[^`]*``|`[^`]*`", "", s)
            # kernel versions are no figures
            s = re.sub(r"(?:Linux|Debian's|kernels?|on) \d+\.\d+|"
                       r"\b\d+\.\d+(?=:| LTS| and later| kernel)", "", s)
            if MEASURE.search(s):
                nums = NUMBER.findall(s)
            else:
                nums = [a or b for a, b in FIGURE.findall(s)]
            nums = [x for x in nums if x not in known]
            if nums:
                bad.append("%s:%d: %s" % (rel(path), n, line.strip()))
    return bad


def check():
    tests = []
    want = render()
    try:
        with open(OUTPUT) as f:
            have = f.read()
    except FileNotFoundError:
        have = ""
    diff = list(difflib.unified_diff(have.splitlines(), want.splitlines(),
                                     rel(OUTPUT), "render.py", lineterm=""))
    tests.append((not diff, "%s is what render.py makes of the results" % rel(OUTPUT),
                  diff[:40]))
    known = set(NUMBER.findall(want))
    for path in CHECKED:
        bad = figures(path, known)
        tests.append((not bad, "%s states no measurement outside %s" % (
            rel(path), os.path.basename(OUTPUT)), bad))
    print("KTAP version 1")
    print("1..%d" % len(tests))
    for i, (ok, what, why) in enumerate(tests, 1):
        for w in why:
            print("# " + w)
        print("%sok %d - results: %s" % ("" if ok else "not ", i, what))
    return 0 if all(t[0] for t in tests) else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, allow_abbrev=False,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd")
    pa = sub.add_parser("add", help="add a results file")
    pa.add_argument("kind", choices=sorted(RENDER))
    pa.add_argument("path", help="bench, core: the JSON file; sim, demo: the run's folder")
    pa.add_argument("--command", help="the command that wrote it, if it does not say")
    pa.add_argument("--date", help="when it ran (UTC, ISO 8601), if it does not say")
    pa.add_argument("--commit", help="the tree's commit, if it does not say")
    pa.add_argument("--kernel", help="the kernel, if it does not say")
    pa.add_argument("--title", help="the table's heading")
    pr = sub.add_parser("render", help="write %s" % rel(OUTPUT))
    pr.add_argument("-o", "--output", default=OUTPUT)
    sub.add_parser("check", help="make check's stage")
    a = p.parse_args()
    if a.cmd == "add":
        add(a)
    elif a.cmd == "check":
        sys.exit(check())
    else:
        path = getattr(a, "output", OUTPUT)
        with open(path, "w") as f:
            f.write(render())
        print("wrote %s" % rel(path))


if __name__ == "__main__":
    main()
