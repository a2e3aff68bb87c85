#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Remote congestion through r1 (ars_dataplane.sh, remote_feedback): one
process moves between the namespaces h1, h2 and r1 (setns), so that a
phase costs no exec under emulation.

Usage:
  remote_fb.py ARSCTL H1 H2 R1 PHASE...

PHASE is KIND,FAMILY,DST,SRC,SPORT,FEEDBACK[,WAIT[,TO]]
  KIND      ece  a TCP segment from h1's SPORT to DST:5001 starts the
                 forward flow, then h2 sends FEEDBACK segments from
                 DST:5001 to h1's SPORT with ECN-Echo (and RST, so that
                 h1 answers none)
            cnp  a RoCEv2 data packet (UDP to DST:4791, BTH opcode 0x04)
                 from h1's SPORT, then FEEDBACK CNPs (opcode 0x81) from
                 DST to h1's port 4791
            orphan  as ece without the forward segment: no entry
            local  as orphan, with the feedback sent to TO, an address
                 of r1 itself: not on its way through
            off  "arsctl set remote off", then as ece
  FAMILY    4 or 6
  DST       h2's address that the forward flow goes to
  SRC       h1's address
  WAIT      seconds to sleep before the new flowlets (a decay)
  TO        where the feedback goes (SRC by default)

Then 32 new TCP flows from h1 to DST:5001, one segment each (source ports
from 20000 up, a new range for each phase). One JSON line per phase:
  path   the device index (0..3: p1..p4) the forward packet left r1 on,
         -1 for none or for more than one
  new    the new flows' packets that left r1 on p1..p4
  d      r1's counters remote_seen, remote_matched, remote_credited,
         remote_moved, flowlets, unsteered: their deltas over the phase
"""
import ctypes
import json
import os
import socket
import struct
import subprocess
import sys
import time

CLONE_NEWNET = 0x40000000
ROCE = 4791
NEW_FLOWS = 32
libc = ctypes.CDLL(None, use_errno=True)
fds = {}


def enter(name):
    if name not in fds:
        fds[name] = os.open('/run/netns/' + name, os.O_RDONLY)
    if libc.setns(fds[name], CLONE_NEWNET):
        raise OSError(ctypes.get_errno(), 'setns ' + name)


def tx():
    """tx_packets of r1's p1..p4."""
    enter(R1)
    out = [0, 0, 0, 0]
    with open('/proc/self/net/dev') as f:
        for line in f:
            name, _, rest = line.partition(':')
            name = name.strip()
            if name in ('p1', 'p2', 'p3', 'p4'):
                out[int(name[1]) - 1] = int(rest.split()[9])
    return out


def tx_wait(base, n):
    """tx() once the paths sent n packets more than base, 5 s at most."""
    for _ in range(100):
        now = tx()
        if sum(now) - sum(base) >= n:
            break
        time.sleep(0.05)
    return now


def stats():
    enter(R1)
    j = json.loads(subprocess.run([ARSCTL, '-j', 'stats'], check=True,
                                  capture_output=True).stdout)
    return [j['remote_seen'], j['remote_matched'], j['remote_credited'],
            j['remote_moved'], j['flowlets'], j['unsteered']]


def fam_of(f):
    return socket.AF_INET if f == '4' else socket.AF_INET6


def tcp(fam, src, dst, sport, dport, flags, n=1):
    """n raw TCP segments (the kernel writes the IP header)."""
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_TCP)
    s.bind((src, 0))
    seg = struct.pack('!HHIIBBHHH', sport, dport, 1, 1, 5 << 4, flags,
                      65535, 0, 0) + b'x' * 32
    for _ in range(n):
        s.sendto(seg, (dst, 0))
    s.close()


def udp(fam, src, sport, dst, dport, opcode, n=1):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((src, sport))
    for _ in range(n):
        s.sendto(bytes([opcode]) + bytes(27), (dst, dport))
    s.close()


ACK, RST, ECE = 0x10, 0x04, 0x40

ARSCTL, H1, H2, R1 = sys.argv[1:5]
# h1 answers the CNPs to port 4791 with nothing: a socket holds it.
enter(H1)
sinks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM),
         socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)]
sinks[0].bind(('0.0.0.0', ROCE))
sinks[1].setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
sinks[1].bind(('::', ROCE))

new_base = 20000
for phase in sys.argv[5:]:
    kind, f, dst, src, sport, nfb, *opt = phase.split(',')
    fam, sport, nfb = fam_of(f), int(sport), int(nfb)
    wait = float(opt[0]) if opt else 0
    to = opt[1] if len(opt) > 1 else src
    s0 = stats()
    path = -1
    if kind == 'off':
        enter(R1)
        subprocess.run([ARSCTL, 'set', 'remote', 'off'], check=True)
    if kind not in ('orphan', 'local'):
        t0 = tx()
        enter(H1)
        if kind == 'cnp':
            udp(fam, src, sport, dst, ROCE, 0x04)
        else:
            tcp(fam, src, dst, sport, 5001, ACK)
        d = [b - a for a, b in zip(t0, tx_wait(t0, 1))]
        if sum(d) == 1:
            path = d.index(1)
    enter(H2)
    if kind == 'cnp':
        udp(fam, dst, 0, to, ROCE, 0x81, nfb)
    else:
        tcp(fam, dst, to, 5001, sport, ACK | RST | ECE, nfb)
    if wait:
        time.sleep(wait)
    t1 = tx()
    enter(H1)
    for i in range(NEW_FLOWS):
        tcp(fam, src, dst, new_base + i, 5001, ACK)
    new_base += NEW_FLOWS
    t2 = tx_wait(t1, NEW_FLOWS)
    s1 = stats()
    print(json.dumps({'phase': phase, 'path': path,
                      'new': [b - a for a, b in zip(t1, t2)],
                      'd': [b - a for a, b in zip(s0, s1)]}), flush=True)
