#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What N network namespaces cost the kernel, in KiB of Slab + Percpu.

Creates N namespaces with unshare(CLONE_NEWNET), keeping each alive by a
file descriptor of it, reads /proc/meminfo before and after, prints the
difference, and lets them all go (the kernel frees them later, from a
workqueue).
"""
import ctypes
import os
import sys

CLONE_NEWNET = 0x40000000


def slab_percpu_kib():
    kib = 0
    with open('/proc/meminfo') as f:
        for line in f:
            key, val = line.split(':', 1)
            if key in ('Slab', 'Percpu'):
                kib += int(val.split()[0])
    return kib


def main():
    n = int(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    fds = []
    before = slab_percpu_kib()
    for _ in range(n):
        if libc.unshare(CLONE_NEWNET):
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        fds.append(os.open('/proc/self/ns/net', os.O_RDONLY))
    after = slab_percpu_kib()
    libc.setns(home, CLONE_NEWNET)
    for fd in fds:
        os.close(fd)
    print(after - before)


if __name__ == '__main__':
    main()
