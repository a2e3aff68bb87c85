#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Raw requests to the "ars" generic netlink family, for the requests that
arsctl cannot make: wrong attribute types and lengths, unknown or reserved
attributes, garbage in the headers, bytes after the last attribute.

Usage:
  genl_raw.py [OPTIONS] set [ATTR...]   one ARS_CMD_PROFILE_SET request
  genl_raw.py [OPTIONS] get             one ARS_CMD_PROFILE_GET request
  genl_raw.py batch                     one request per line of stdin, each
                                        line "[OPTIONS] set|get [ATTR...]"
                                        (empty lines and # comments skipped)
  genl_raw.py dump CMD SHELLCMD         a dump of command CMD, read in
                                        parts of at most 4 kB: SHELLCMD runs
                                        once the first part is read, so that
                                        the third and later parts are built
                                        after it

ATTR is TYPE:KIND[:VALUE]
  TYPE   the attribute type, a number (0x8000, NLA_F_NESTED, may be or-ed in)
  KIND   u8, u16, u32, u64 (VALUE a number, host byte order), raw (VALUE in
         hex, any length, "" for none) or empty (no payload)
  e.g.   set 3:u64:5 4:raw:0102 1:empty

OPTIONS
  --cmd N        genl command (default 2 for set, 1 for get)
  --version N    genl header version (default 1)
  --reserved N   genl header reserved field (default 0)
  --flags N      more nlmsg_flags besides NLM_F_REQUEST|NLM_F_ACK
  --trailing HEX bytes after the last attribute, not padded
  --check        also get the profile before and after the request and
                 report whether it changed ("changed": true|false)

Each request prints one line of JSON:
  {"error": E, "msg": M, "offset": O, "attr": A, ...}
E is the errno of the kernel's ACK (positive; 0 when it accepted), M the
extended ACK message ("" if none), O the offset of the attribute at fault
in the request (null if none), A that attribute's type (null if none).
A get adds "profile": {TYPE: HEX, ...} when it succeeded.

A dump prints {"error": E, "parts": P, "messages": N, "intr": I}: P the
parts read, N the messages before NLMSG_DONE, I whether a message of the
dump (NLMSG_DONE included) has NLM_F_DUMP_INTR, the kernel's sign that the
dump spanned a change.

Exit status: 0 when every request got an ACK (whatever its error), 1 when
the family cannot be found or the socket fails, 2 on a usage error.
"""
import errno
import json
import os
import shlex
import socket
import struct
import sys

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP_INTR = 0x10
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200

NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2

ARS_CMD_PROFILE_GET = 1
ARS_CMD_PROFILE_SET = 2

NLA_TYPE_MASK = 0x3fff

NLMSGHDR = struct.Struct("=IHHII")
GENLMSGHDR = struct.Struct("=BBH")
NLATTR = struct.Struct("=HH")


class UsageError(Exception):
    pass


def align4(n):
    return (n + 3) & ~3


def nla(atype, payload):
    hdr = NLATTR.pack(NLATTR.size + len(payload), atype)
    return hdr + payload + b"\0" * (align4(len(payload)) - len(payload))


def parse_attrs(buf):
    """[(type, payload)] of the TLVs in buf, stopping at a malformed one."""
    out = []
    off = 0
    while off + NLATTR.size <= len(buf):
        alen, atype = NLATTR.unpack_from(buf, off)
        if alen < NLATTR.size or off + alen > len(buf):
            break
        out.append((atype & NLA_TYPE_MASK, buf[off + NLATTR.size:off + alen]))
        off += align4(alen)
    return out


def number(s):
    try:
        return int(s, 0)
    except ValueError:
        raise UsageError("not a number: %r" % s) from None


def attr_from_spec(spec):
    parts = spec.split(":", 2)
    if len(parts) < 2:
        raise UsageError("attribute %r is not TYPE:KIND[:VALUE]" % spec)
    atype = number(parts[0])
    kind = parts[1]
    value = parts[2] if len(parts) == 3 else None
    if not 0 <= atype <= 0xffff:
        raise UsageError("attribute type out of range: %r" % spec)
    fmts = {"u8": "=B", "u16": "=H", "u32": "=I", "u64": "=Q"}
    if kind in fmts:
        if value is None:
            raise UsageError("attribute %r needs a value" % spec)
        v = number(value)
        size = struct.calcsize(fmts[kind])
        if not 0 <= v < 1 << (8 * size):
            raise UsageError("value does not fit %s: %r" % (kind, spec))
        payload = struct.pack(fmts[kind], v)
    elif kind == "raw":
        try:
            payload = bytes.fromhex(value or "")
        except ValueError:
            raise UsageError("bad hex in %r" % spec) from None
    elif kind == "empty":
        if value:
            raise UsageError("an empty attribute takes no value: %r" % spec)
        payload = b""
    else:
        raise UsageError("unknown kind %r in %r" % (kind, spec))
    return nla(atype, payload)


class Genl:
    def __init__(self, bufsize=65536):
        self.bufsize = bufsize
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.portid = self.sock.getsockname()[0]
        self.seq = 1000
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.family = self.resolve("ars")

    def message(self, mtype, cmd, version, reserved, flags, body):
        self.seq += 1
        payload = GENLMSGHDR.pack(cmd, version, reserved) + body
        hdr = NLMSGHDR.pack(NLMSGHDR.size + len(payload), mtype,
                            NLM_F_REQUEST | NLM_F_ACK | flags, self.seq, 0)
        return hdr + payload

    def talk(self, msg):
        """Send msg; (error, msg, offset, [replies' attribute lists])."""
        self.sock.send(msg)
        seq = NLMSGHDR.unpack_from(msg)[3]
        replies = []
        while True:
            data = self.sock.recv(self.bufsize)
            off = 0
            while off + NLMSGHDR.size <= len(data):
                mlen, mtype, mflags, mseq, _ = NLMSGHDR.unpack_from(data, off)
                if mlen < NLMSGHDR.size:
                    raise OSError(errno.EBADMSG, "bad netlink message")
                body = data[off + NLMSGHDR.size:off + mlen]
                off += align4(mlen)
                if mseq != seq:
                    continue
                if mtype == NLMSG_ERROR:
                    return self.parse_error(mflags, body) + (replies,)
                if mtype == NLMSG_DONE:
                    return (0, "", None, replies)
                replies.append(parse_attrs(body[GENLMSGHDR.size:]))

    @staticmethod
    def parse_error(mflags, body):
        err = -struct.unpack_from("=i", body)[0]
        # The echoed request: its header alone when capped, else all of it.
        echoed = NLMSGHDR.size
        if not mflags & NLM_F_CAPPED:
            echoed = NLMSGHDR.unpack_from(body, 4)[0]
        text, offs = "", None
        if mflags & NLM_F_ACK_TLVS:
            for atype, payload in parse_attrs(body[4 + align4(echoed):]):
                if atype == NLMSGERR_ATTR_MSG:
                    text = payload.split(b"\0", 1)[0].decode("utf-8",
                                                             "replace")
                elif atype == NLMSGERR_ATTR_OFFS and len(payload) == 4:
                    offs = struct.unpack("=I", payload)[0]
        return (err, text, offs)

    def resolve(self, name):
        msg = self.message(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0, 0,
                           nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        err, text, _, replies = self.talk(msg)
        if err:
            raise OSError(err, "generic netlink family %s: %s" %
                          (name, text or os.strerror(err)))
        for attrs in replies:
            for atype, payload in attrs:
                if atype == CTRL_ATTR_FAMILY_ID:
                    return struct.unpack_from("=H", payload)[0]
        raise OSError(errno.EPROTO, "no id for family %s" % name)

    def get_profile(self):
        msg = self.message(self.family, ARS_CMD_PROFILE_GET, 1, 0, 0, b"")
        err, text, _, replies = self.talk(msg)
        if err:
            raise OSError(err, "profile get: %s" % (text or
                                                     os.strerror(err)))
        prof = {}
        for attrs in replies:
            for atype, payload in attrs:
                prof[str(atype)] = payload.hex()
        return prof


def run_dump(g, argv):
    """A dump of argv[0], interrupted by the shell command argv[1]."""
    import subprocess

    if len(argv) != 2:
        raise UsageError("dump takes CMD and SHELLCMD")
    # The kernel sizes a dump's parts by the largest read of the socket:
    # a socket of its own, never read with more than 4 kB.
    g = Genl(4096)
    msg = g.message(g.family, number(argv[0]), 1, 0, NLM_F_DUMP, b"")
    seq = NLMSGHDR.unpack_from(msg)[3]
    g.sock.send(msg)
    out = {"error": 0, "parts": 0, "messages": 0, "intr": False}
    while True:
        # The kernel builds the next part as the previous one is read: the
        # second exists once the first is read, the third is built after
        # the command.
        if out["parts"] == 1:
            subprocess.run(argv[1], shell=True, check=True)
        data, _, mflags, _ = g.sock.recvmsg(4096)
        if mflags & socket.MSG_TRUNC:
            raise OSError(errno.EMSGSIZE, "a dump part exceeds 4 kB")
        out["parts"] += 1
        off = 0
        while off + NLMSGHDR.size <= len(data):
            mlen, mtype, flags, mseq, _ = NLMSGHDR.unpack_from(data, off)
            if mlen < NLMSGHDR.size:
                raise OSError(errno.EBADMSG, "bad netlink message")
            body = data[off + NLMSGHDR.size:off + mlen]
            off += align4(mlen)
            if mseq != seq:
                continue
            out["intr"] |= bool(flags & NLM_F_DUMP_INTR)
            if mtype == NLMSG_ERROR:
                out["error"] = g.parse_error(flags, body)[0]
                return out
            if mtype == NLMSG_DONE:
                return out
            out["messages"] += 1


def parse_request(argv):
    opts = {"cmd": None, "version": 1, "reserved": 0, "flags": 0,
            "trailing": b"", "check": False}
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        name = argv[i][2:]
        if name == "check":
            opts["check"] = True
            i += 1
            continue
        if name not in ("cmd", "version", "reserved", "flags", "trailing"):
            raise UsageError("unknown option %r" % argv[i])
        if i + 1 >= len(argv):
            raise UsageError("option %r needs a value" % argv[i])
        if name == "trailing":
            try:
                opts["trailing"] = bytes.fromhex(argv[i + 1])
            except ValueError:
                raise UsageError("bad hex: %r" % argv[i + 1]) from None
        else:
            opts[name] = number(argv[i + 1])
        i += 2
    if i >= len(argv) or argv[i] not in ("set", "get"):
        raise UsageError("expected set or get")
    verb = argv[i]
    if opts["cmd"] is None:
        opts["cmd"] = ARS_CMD_PROFILE_SET if verb == "set" else \
            ARS_CMD_PROFILE_GET
    body = b"".join(attr_from_spec(s) for s in argv[i + 1:])
    return verb, opts, body + opts["trailing"]


def attr_at(msg, offs):
    if offs is None or offs + NLATTR.size > len(msg) or \
       offs < NLMSGHDR.size + GENLMSGHDR.size:
        return None
    return NLATTR.unpack_from(msg, offs)[1] & NLA_TYPE_MASK


def run_request(g, argv):
    verb, opts, body = parse_request(argv)
    before = g.get_profile() if opts["check"] else None
    msg = g.message(g.family, opts["cmd"], opts["version"], opts["reserved"],
                    opts["flags"], body)
    err, text, offs, replies = g.talk(msg)
    out = {"error": err, "msg": text, "offset": offs,
           "attr": attr_at(msg, offs)}
    if verb == "get" and not err:
        out["profile"] = {str(t): p.hex() for attrs in replies
                          for t, p in attrs}
    if opts["check"]:
        out["changed"] = g.get_profile() != before
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        g = Genl()
    except OSError as e:
        print("genl_raw: %s" % (e.strerror or e), file=sys.stderr)
        return 1
    try:
        if argv[0] == "batch":
            if len(argv) > 1:
                raise UsageError("batch reads its requests from stdin")
            for line in sys.stdin:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                print(json.dumps(run_request(g, shlex.split(line))),
                      flush=True)
        elif argv[0] == "dump":
            print(json.dumps(run_dump(g, argv[1:])))
        else:
            print(json.dumps(run_request(g, argv)))
    except UsageError as e:
        print("genl_raw: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("genl_raw: %s" % (e.strerror or e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
