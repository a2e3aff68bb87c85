#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Queue a namespace's forwarded IPv4 packets to user space and accept them.

Usage: nfq_accept.py COUNT TIMEOUT

In the namespace it runs in: an nf_tables table "ars_nfq" (family ip) with
a chain at PRE_ROUTING, priority 0, whose one rule queues every packet to
queue 0; then it binds queue 0 and accepts what arrives, COUNT packets or
until TIMEOUT seconds pass without one, and deletes the table. The kernel
reinjects each accepted packet from this process's context (nf_reinject(),
with bottom halves on): the hooks after the queue, ars's among them, run
there. Prints the packets accepted; nft and libnetfilter_queue are not
needed.
"""
import os
import select
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLMSG_ERROR = 2
NLA_F_NESTED = 0x8000
NFPROTO_IPV4 = 2

NFNL_SUBSYS_QUEUE = 3
NFNL_SUBSYS_NFTABLES = 10
NFNL_MSG_BATCH_BEGIN = 16
NFNL_MSG_BATCH_END = 17
NFT_MSG_NEWTABLE = 0
NFT_MSG_NEWCHAIN = 3
NFT_MSG_NEWRULE = 6
NFT_MSG_DELTABLE = 2
NFTA_TABLE_NAME = 1
NFTA_CHAIN_TABLE = 1
NFTA_CHAIN_NAME = 3
NFTA_CHAIN_HOOK = 4
NFTA_CHAIN_TYPE = 7
NFTA_HOOK_HOOKNUM = 1
NFTA_HOOK_PRIORITY = 2
NFTA_RULE_TABLE = 1
NFTA_RULE_CHAIN = 2
NFTA_RULE_EXPRESSIONS = 4
NFTA_LIST_ELEM = 1
NFTA_EXPR_NAME = 1
NFTA_EXPR_DATA = 2
NFTA_QUEUE_NUM = 1

NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NF_ACCEPT = 1

TABLE = b'ars_nfq\0'
CHAIN = b'pre\0'


def attr(kind, data):
    hdr = struct.pack('=HH', 4 + len(data), kind)
    return hdr + data + b'\0' * (-len(data) % 4)


def nest(kind, *attrs):
    return attr(kind | NLA_F_NESTED, b''.join(attrs))


def msg(kind, flags, seq, family, res_id, payload):
    body = struct.pack('=BBH', family, 0, socket.htons(res_id)) + payload
    return struct.pack('=IHHII', 16 + len(body), kind, flags, seq, 0) + body


def acks(sock, seqs):
    """Wait for the ACK of each of seqs; raise on an error."""
    seqs = set(seqs)
    while seqs:
        data = sock.recv(65536)
        off = 0
        while off + 16 <= len(data):
            length, kind, _, seq, _ = struct.unpack_from('=IHHII', data, off)
            if kind == NLMSG_ERROR:
                err = struct.unpack_from('=i', data, off + 16)[0]
                if err:
                    raise OSError(-err, f'netlink request {seq}: '
                                  f'{os.strerror(-err)}')
                seqs.discard(seq)
            off += (length + 3) & ~3


def nft_batch(sock, msgs):
    sub = NFNL_SUBSYS_NFTABLES << 8
    out = [msg(NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST, 1, 0,
               NFNL_SUBSYS_NFTABLES, b'')]
    seqs = []
    for i, (kind, flags, payload) in enumerate(msgs):
        seqs.append(2 + i)
        out.append(msg(sub | kind, NLM_F_REQUEST | NLM_F_ACK | flags,
                       2 + i, NFPROTO_IPV4, 0, payload))
    out.append(msg(NFNL_MSG_BATCH_END, NLM_F_REQUEST, 2 + len(msgs), 0,
                   NFNL_SUBSYS_NFTABLES, b''))
    sock.send(b''.join(out))
    acks(sock, seqs)


def queue_rule(sock):
    create = NLM_F_CREATE | NLM_F_EXCL
    hook = nest(NFTA_CHAIN_HOOK,
                attr(NFTA_HOOK_HOOKNUM, struct.pack('>I', 0)),
                attr(NFTA_HOOK_PRIORITY, struct.pack('>i', 0)))
    expr = nest(NFTA_LIST_ELEM,
                attr(NFTA_EXPR_NAME, b'queue\0'),
                nest(NFTA_EXPR_DATA,
                     attr(NFTA_QUEUE_NUM, struct.pack('>H', 0))))
    nft_batch(sock, [
        (NFT_MSG_NEWTABLE, create, attr(NFTA_TABLE_NAME, TABLE)),
        (NFT_MSG_NEWCHAIN, create,
         attr(NFTA_CHAIN_TABLE, TABLE) + attr(NFTA_CHAIN_NAME, CHAIN) +
         hook + attr(NFTA_CHAIN_TYPE, b'filter\0')),
        (NFT_MSG_NEWRULE, NLM_F_CREATE,
         attr(NFTA_RULE_TABLE, TABLE) + attr(NFTA_RULE_CHAIN, CHAIN) +
         nest(NFTA_RULE_EXPRESSIONS, expr)),
    ])


def queue_bind(sock):
    kind = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_CONFIG
    cmd = attr(NFQA_CFG_CMD, struct.pack('>BBH', NFQNL_CFG_CMD_BIND, 0, 0))
    params = attr(NFQA_CFG_PARAMS, struct.pack('>IB', 0, NFQNL_COPY_META))
    sock.send(msg(kind, NLM_F_REQUEST | NLM_F_ACK, 100, socket.AF_UNSPEC, 0,
                  cmd + params))
    acks(sock, [100])


def packet_ids(data):
    off = 0
    while off + 16 <= len(data):
        length, kind, _, _, _ = struct.unpack_from('=IHHII', data, off)
        if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            a = off + 20
            while a + 4 <= off + length:
                alen, atype = struct.unpack_from('=HH', data, a)
                if alen < 4:
                    break
                if atype & 0x7fff == NFQA_PACKET_HDR:
                    yield struct.unpack_from('>I', data, a + 4)[0]
                a += (alen + 3) & ~3
        off += (length + 3) & ~3


def main():
    count, timeout = int(sys.argv[1]), float(sys.argv[2])
    nft = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    nfq = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    nfq.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    queue_bind(nfq)
    queue_rule(nft)
    print('ready', flush=True)
    verdict = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_VERDICT
    done = 0
    try:
        while done < count:
            if not select.select([nfq], [], [], timeout)[0]:
                break
            for pid in packet_ids(nfq.recv(65536)):
                nfq.send(msg(verdict, NLM_F_REQUEST, 0, socket.AF_UNSPEC, 0,
                             attr(NFQA_VERDICT_HDR,
                                  struct.pack('>II', NF_ACCEPT, pid))))
                done += 1
    finally:
        nft_batch(nft, [(NFT_MSG_DELTABLE, 0, attr(NFTA_TABLE_NAME, TABLE))])
    print(done)


if __name__ == '__main__':
    main()
