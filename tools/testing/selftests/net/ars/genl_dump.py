#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A dump of the "ars" generic netlink family, read in parts of at most
4 kB, with every entry's numbers: what ars_dumps.sh needs to tell that each
entry came exactly once across the parts (genl_raw.py dump counts them).

Usage:
  genl_dump.py CMD [SHELLCMD]

SHELLCMD, if given, runs once the first part is read, as with genl_raw.py.

Prints one line of JSON:
  {"error": E, "parts": P, "intr": I, "entries": [{TYPE: N, ...}, ...]}
one object per message before NLMSG_DONE, in order: the message's
attributes of 4 or 8 bytes as numbers (host byte order), a flag attribute
(no payload) as true, by their type. E, P and I as in genl_raw.py.
"""
import errno
import json
import socket
import struct
import subprocess
import sys

import genl_raw as gr


def numbers(attrs):
    out = {}
    for atype, payload in attrs:
        if len(payload) == 4:
            out[str(atype)] = struct.unpack("=I", payload)[0]
        elif len(payload) == 8:
            out[str(atype)] = struct.unpack("=Q", payload)[0]
        elif not payload:
            out[str(atype)] = True
    return out


def dump(cmd, shellcmd):
    # The kernel sizes a dump's parts by the largest read of the socket:
    # a socket of its own, never read with more than 4 kB.
    g = gr.Genl(4096)
    msg = g.message(g.family, cmd, 1, 0, gr.NLM_F_DUMP, b"")
    seq = gr.NLMSGHDR.unpack_from(msg)[3]
    g.sock.send(msg)
    out = {"error": 0, "parts": 0, "intr": False, "entries": []}
    while True:
        if out["parts"] == 1 and shellcmd:
            subprocess.run(shellcmd, shell=True, check=True)
        data, _, mflags, _ = g.sock.recvmsg(4096)
        if mflags & socket.MSG_TRUNC:
            raise OSError(errno.EMSGSIZE, "a dump part exceeds 4 kB")
        out["parts"] += 1
        off = 0
        while off + gr.NLMSGHDR.size <= len(data):
            mlen, mtype, flags, mseq, _ = gr.NLMSGHDR.unpack_from(data, off)
            if mlen < gr.NLMSGHDR.size:
                raise OSError(errno.EBADMSG, "bad netlink message")
            body = data[off + gr.NLMSGHDR.size:off + mlen]
            off += gr.align4(mlen)
            if mseq != seq:
                continue
            out["intr"] |= bool(flags & gr.NLM_F_DUMP_INTR)
            if mtype == gr.NLMSG_ERROR:
                out["error"] = g.parse_error(flags, body)[0]
                return out
            if mtype == gr.NLMSG_DONE:
                return out
            out["entries"].append(
                numbers(gr.parse_attrs(body[gr.GENLMSGHDR.size:])))


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        out = dump(int(argv[0], 0), argv[1] if len(argv) == 2 else None)
    except OSError as e:
        print("genl_dump: %s" % (e.strerror or e), file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
