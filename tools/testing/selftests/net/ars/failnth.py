#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every allocation of one ars request made to fail in turn (ars_failslab.sh).

Usage:
  failnth.py OP UNDO [MAX]

OP and UNDO are requests in genl_raw.py's form ("[--cmd N] set|get
[ATTR...]"). For N = 1, 2, ... the N-th slab allocation of this task
after the write to /proc/thread-self/fail-nth fails (CONFIG_FAILSLAB), and
OP is sent; the task's own send and the kernel's ACK count too. Then:
  - OP's answer: 0 (it went through, an allocation had a fallback), an
    errno (it failed), or none (the send or the ACK itself failed);
  - whether the failure was injected at all: once a run injects none, N-1
    is the number of allocations OP makes, and the sweep ends;
  - what OP left: a profile request (--cmd 2) must leave the profile as
    it was when it failed; any other must leave nothing for UNDO to
    remove (UNDO fails) when it failed, and something (UNDO succeeds)
    when it went through. A lost answer may have gone either way.
UNDO runs without injection after each N, so that every run starts from
the same state. One JSON line:
  {"allocations": A, "failed": F, "through": T, "lost": L, "errors": {...},
   "bad": [...]}
where bad lists the N whose outcome broke the rules above.
"""
import errno
import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import genl_raw  # noqa: E402

FAIL_NTH = "/proc/thread-self/fail-nth"


# Opened once: opening it later would be an allocation that counts.
fd = os.open(FAIL_NTH, os.O_RDWR)


def fail_nth(n=None):
    """Set the task's fail-nth to n; or read it (0: the fault was injected)."""
    if n is None:
        return int(os.pread(fd, 32, 0))
    os.pwrite(fd, str(n).encode(), 0)
    return n


def request(g, spec):
    _, opts, body = genl_raw.parse_request(shlex.split(spec))
    return opts, g.message(g.family, opts["cmd"], opts["version"],
                           opts["reserved"], opts["flags"], body)


def send(g, msg):
    """OP's errno (0 when accepted), or None when no answer came."""
    try:
        return g.talk(msg)[0]
    except OSError:
        return None


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    limit = int(argv[2]) if len(argv) == 3 else 1000
    g = genl_raw.Genl()
    opts, op = request(g, argv[0])
    _, undo = request(g, argv[1])
    profile = opts["cmd"] == genl_raw.ARS_CMD_PROFILE_SET
    out = {"allocations": None, "failed": 0, "through": 0, "lost": 0,
           "errors": {}, "bad": []}
    for n in range(1, limit + 1):
        before = g.get_profile() if profile else None
        fail_nth(n)
        err = send(g, op)
        injected = fail_nth() == 0
        fail_nth(0)
        if err is None:
            # A failed ACK leaves an error on the socket: a new one.
            g = genl_raw.Genl()
            out["lost"] += 1
        elif err:
            out["failed"] += 1
            name = errno.errorcode.get(err, str(err))
            out["errors"][name] = out["errors"].get(name, 0) + 1
        else:
            out["through"] += 1
        if profile:
            left = g.get_profile() != before
            g.talk(undo)
        else:
            left = g.talk(undo)[0] == 0
        if err is not None and left != (err == 0):
            out["bad"].append({"n": n, "error": err, "left": left})
        if not injected:
            if err != 0:
                out["bad"].append({"n": n, "error": err,
                                   "note": "failed with no fault injected"})
            out["allocations"] = n - 1
            break
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
