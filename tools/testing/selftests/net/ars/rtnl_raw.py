#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw RTM_NEWQDISC requests for the ars qdisc, with TCA_OPTIONS that tc's
q_ars.so would never send: what the kernel itself refuses, its errno and
its extended ACK (ars_qdisc.sh).

Usage:
  rtnl_raw.py [--flat] add DEV [ATTR...]     create root 1: ars on DEV
  rtnl_raw.py [--flat] change DEV [ATTR...]  change root 1: on DEV

ATTR is TYPE:KIND[:VALUE] as in genl_raw.py (e.g. 2:u64:1, 1:u32:5,
0x8002:u64:1000): the attributes inside TCA_OPTIONS. --flat leaves
NLA_F_NESTED off TCA_OPTIONS itself.

Prints one line of JSON:
  {"error": E, "msg": M, "offset": O, "attr": A}
E the errno of the kernel's ACK (positive; 0 when it accepted), M the
extended ACK message ("" if none), O the offset of the attribute at fault
in the request (null if none), A its type with the flags (NLA_F_NESTED)
masked off (null if none): 2 for TCA_OPTIONS, else the option's own type
plus 1000, to tell an option from the top-level attribute of the same
number.

Exit status: 0 when the kernel answered, 1 when the socket fails, 2 on a
usage error.
"""
import json
import socket
import struct
import sys

import genl_raw as gr

NETLINK_ROUTE = 0
RTM_NEWQDISC = 36
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLA_F_NESTED = 0x8000
TCA_KIND = 1
TCA_OPTIONS = 2
TC_H_ROOT = 0xffffffff
TCMSG = struct.Struct("=BBHiIII")


def request(cmd, dev, attrs, flat):
    ifindex = socket.if_nametoindex(dev)
    flags = gr.NLM_F_REQUEST | gr.NLM_F_ACK
    if cmd == "add":
        flags |= NLM_F_CREATE | NLM_F_EXCL
    tcm = TCMSG.pack(0, 0, 0, ifindex, 0x10000, TC_H_ROOT, 0)
    opts = b"".join(gr.attr_from_spec(a) for a in attrs)
    otype = TCA_OPTIONS if flat else TCA_OPTIONS | NLA_F_NESTED
    body = tcm + gr.nla(TCA_KIND, b"ars\0") + gr.nla(otype, opts)
    hdr = gr.NLMSGHDR.pack(gr.NLMSGHDR.size + len(body), RTM_NEWQDISC,
                           flags, 4242, 0)
    # Where the options start in the request, to name the attribute at
    # fault: TCA_OPTIONS's header, then its attributes.
    opts_at = gr.NLMSGHDR.size + TCMSG.size + len(gr.nla(TCA_KIND, b"ars\0"))
    return hdr + body, opts_at


def attr_at(msg, offs, opts_at):
    if offs is None or offs + gr.NLATTR.size > len(msg):
        return None
    atype = gr.NLATTR.unpack_from(msg, offs)[1] & gr.NLA_TYPE_MASK
    return atype if offs == opts_at else atype + 1000


def main(argv):
    flat = False
    if argv and argv[0] == "--flat":
        flat = True
        argv = argv[1:]
    if len(argv) < 2 or argv[0] not in ("add", "change"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        msg, opts_at = request(argv[0], argv[1], argv[2:], flat)
    except (gr.UsageError, OSError) as e:
        print("rtnl_raw: %s" % e, file=sys.stderr)
        return 2
    try:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
        s.bind((0, 0))
        s.setsockopt(gr.SOL_NETLINK, gr.NETLINK_EXT_ACK, 1)
        s.send(msg)
        while True:
            data = s.recv(65536)
            off = 0
            while off + gr.NLMSGHDR.size <= len(data):
                mlen, mtype, mflags, mseq, _ = gr.NLMSGHDR.unpack_from(data,
                                                                       off)
                body = data[off + gr.NLMSGHDR.size:off + mlen]
                off += gr.align4(mlen)
                if mseq != 4242 or mtype != gr.NLMSG_ERROR:
                    continue
                err, text, offs = gr.Genl.parse_error(mflags, body)
                print(json.dumps({"error": err, "msg": text, "offset": offs,
                                  "attr": attr_at(msg, offs, opts_at)}))
                return 0
    except OSError as e:
        print("rtnl_raw: %s" % (e.strerror or e), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
