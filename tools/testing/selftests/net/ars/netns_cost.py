#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What N network namespaces cost the kernel, in KiB of Slab + Percpu.

Creates N namespaces with unshare(CLONE_NEWNET), keeping each alive by a
file descriptor of it, reads /proc/meminfo before and after, prints the
difference, and lets them all go. The kernel frees them later, from a
workqueue: where struct net has a slab cache of its own (/proc/slabinfo,
exact once shrunk), it waits until as many are left as before, so that
the next round does not count what this one frees meanwhile.
"""
import ctypes
import os
import sys
import time

CLONE_NEWNET = 0x40000000


def slab_percpu_kib():
    kib = 0
    with open('/proc/meminfo') as f:
        for line in f:
            key, val = line.split(':', 1)
            if key in ('Slab', 'Percpu'):
                kib += int(val.split()[0])
    return kib


def netns_live():
    """struct nets allocated, or None when the cache is merged away."""
    try:
        # Free objects in the CPUs' slabs count as active until flushed.
        with open('/sys/kernel/slab/net_namespace/shrink', 'w') as f:
            f.write('1')
        with open('/proc/slabinfo') as f:
            for line in f:
                words = line.split()
                if words and words[0] == 'net_namespace':
                    return int(words[1])
    except OSError:
        pass
    return None


def main():
    n = int(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    fds = []
    live = netns_live()
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
    for _ in range(600):
        if live is None or netns_live() <= live:
            break
        time.sleep(0.2)
    else:
        # The next round would count their freeing: no figure.
        print(f'namespaces not freed in 120 s: {netns_live()}, were {live}',
              file=sys.stderr)
        sys.exit(3)
    print(after - before)


if __name__ == '__main__':
    main()
