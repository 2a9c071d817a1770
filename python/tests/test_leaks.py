"""Nothing leaks over 10,000 calls: every buffer and matrix the package makes is
destroyed (its own count of live objects, and a memory_limit that a leak of library
memory would run into), and the process's resident memory stays put."""
import gc

import numpy as np
import pytest

import gpgpu

CALLS = 10000


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_ten_thousand_calls(rng):
    sp = pytest.importorskip("scipy.sparse")
    A = sp.random(200, 200, density=0.05, format="csr", random_state=1)
    a = rng.random(1000).astype(np.float32)
    k = rng.integers(0, 1 << 31, 1000).astype(np.uint32)
    # 16 MiB: a call that kept one of its ~4 KiB buffers would run past it within the
    # loop (the freed memory the context keeps for reuse is given back first).
    with gpgpu.Context(memory_limit=16 << 20) as c:
        d = gpgpu.asarray(a, ctx=c)
        M = gpgpu.Matrix(A, ctx=c)
        x = gpgpu.asarray(np.ones(200, np.float32), ctx=c)
        # Cheap calls (~0.3 ms on llvmpipe) mostly, the costly ones (1-16 ms) every 25th.
        cheap = [
            lambda: gpgpu.sum(a, ctx=c),
            lambda: gpgpu.sum(d),
            lambda: gpgpu.minmax(d),
            lambda: gpgpu.dot(d, d),
            lambda: gpgpu.asarray(a, ctx=c).get(),
            lambda: gpgpu.spmv(M, np.ones(200, np.float32)),
        ]
        costly = [
            lambda: gpgpu.cumsum(d),
            lambda: gpgpu.sort(k, ctx=c),
            lambda: gpgpu.argsort(d),
            lambda: gpgpu.sort_by_key(d, k),
            lambda: M @ x,
            lambda: gpgpu.Matrix(A, ctx=c).T,
        ]

        def run(count):
            for i in range(count):
                if i % 25 == 0:
                    costly[(i // 25) % len(costly)]()
                else:
                    cheap[i % len(cheap)]()

        run(200)  # the first of each call allocates what is kept (programs, scratch)
        gc.collect()
        base = c.live_objects  # d, M, x and argsort's index array
        before = resident_bytes()
        run(CALLS)
        gc.collect()
        assert c.live_objects == base
        grown = resident_bytes() - before
        assert grown < 24 << 20, f"resident memory grew by {grown / 2**20:.1f} MiB"
