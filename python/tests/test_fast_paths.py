"""The calls on DeviceArrays take a fast path for the common case (python/gpgpu/_ops.py,
_sparse.py): it must give the general path's results, hand everything else to the general
path (whose errors and messages these tests pin), and make no foreign call beyond those a
C program makes for the same result."""
import gc

import numpy as np
import pytest

import gpgpu
from gpgpu import _context, _lib

F32, F64, U32, I32 = np.float32, np.float64, np.uint32, np.int32


@pytest.fixture
def calls(monkeypatch):
    """The names of the library functions called, in order (buffer and matrix destroys
    included), while the test runs."""
    made = []

    def counted(name, f):
        def call(*args):
            made.append(name)
            return f(*args)
        return call
    for name in dir(_lib):
        f = getattr(_lib, name)
        if name.startswith("gpgpu_") and callable(f):
            monkeypatch.setattr(_lib, name, counted(name, f))
    for kind, f in list(_context._destroy.items()):
        monkeypatch.setitem(_context._destroy, kind, counted(f.__name__, f))
    return made


@pytest.fixture
def other():
    """A second context (not made the thread's default, as ``with`` would)."""
    c = gpgpu.Context()
    yield c
    c.close()


def _f64(ctx):
    if not ctx.has_f64:
        pytest.skip("no shader doubles")


def _dev(a):
    return gpgpu.asarray(np.ascontiguousarray(a))


# ------------------------------------------------------------------------ the C calls


def _cases(rng):
    n = 1 << 10
    x, y = _dev(rng.random(n).astype(F32)), _dev(rng.random(n).astype(F32))
    k, v = _dev(rng.integers(0, 1 << 31, n).astype(U32)), _dev(np.arange(n, dtype=U32))
    out1, outn, outk = gpgpu.empty(1, F32), gpgpu.empty(n, F32), gpgpu.empty(n, U32)
    M = gpgpu.Matrix(gpgpu.generate("laplace3d_7", 4))
    xm, ym = _dev(np.ones(64, F32)), gpgpu.empty(64, F32)
    g, gout = _dev(rng.random((8, 8)).astype(F32)), gpgpu.empty((8, 8), F32)
    new, red = ["gpgpu_buffer_create"], ["gpgpu_buffer_destroy"]
    return [
        (lambda: gpgpu.sum(x, out=out1), ["gpgpu_reduce_to_buffer"]),
        (lambda: gpgpu.max(x), new + ["gpgpu_reduce_to_buffer"] + red),
        (lambda: gpgpu.cumsum(x, out=outn), ["gpgpu_scan"]),
        (lambda: gpgpu.cumsum(x, exclusive=True), new + ["gpgpu_scan"] + red),
        (lambda: gpgpu.sort(k, out=outk), ["gpgpu_sort"]),
        (lambda: gpgpu.sort(k, descending=True), new + ["gpgpu_sort"] + red),
        (lambda: k.sort(), ["gpgpu_sort"]),
        (lambda: gpgpu.sort_by_key(k, v, out=(k, v)), ["gpgpu_sort"]),
        (lambda: gpgpu.sort_by_key(k, v), new + new + ["gpgpu_sort"] + red + red),
        (lambda: gpgpu.dot(x, y), new + ["gpgpu_dot_to_buffer"] + red),
        (lambda: gpgpu.spmv(M, xm, ym), ["gpgpu_spmv"]),
        (lambda: M @ xm, new + ["gpgpu_spmv"] + red),
        (lambda: gpgpu.matmul(g, g, out=gout), ["gpgpu_gemm"]),
        (lambda: g @ g, new + ["gpgpu_gemm"] + red),
    ]


def test_calls_make_only_the_c_programs_calls(rng, calls):
    for f, expected in _cases(rng):
        gc.collect()  # what earlier tests left is destroyed first
        del calls[:]
        f()  # the result, not kept, is destroyed here
        gc.collect()
        assert calls == expected


# ---------------------------------------------------------------------------- results


@pytest.mark.parametrize("dtype", [F32, U32, I32, F64])
def test_reductions_and_scans_match_the_general_path(ctx, rng, dtype):
    if dtype == F64:
        _f64(ctx)
    h = (rng.random(777) * 100).astype(dtype)
    d = _dev(h)
    for f in (gpgpu.sum, gpgpu.min, gpgpu.max):
        r = f(d)
        assert isinstance(r, gpgpu.DeviceArray) and r.shape == () and r.dtype == dtype
        assert r.item() == f(h)
        out = gpgpu.empty(1, dtype)
        assert f(d[100:300], out=out) is out and out.item() == f(h[100:300])
    for exclusive in (False, True):
        r = gpgpu.cumsum(d, exclusive=exclusive)
        assert r.shape == (777,)
        np.testing.assert_array_equal(r.get(), gpgpu.cumsum(h, exclusive=exclusive))
    inplace = d.copy()
    assert gpgpu.cumsum(inplace, out=inplace) is inplace
    np.testing.assert_array_equal(inplace.get(), gpgpu.cumsum(h))


@pytest.mark.parametrize("dtype", [F32, F64])
def test_dot_matches_the_general_path_bit_for_bit(ctx, rng, dtype):
    if dtype == F64:
        _f64(ctx)
    hx, hy = rng.random(1000).astype(dtype), rng.random(1000).astype(dtype)
    r = gpgpu.dot(_dev(hx), _dev(hy))
    assert r.shape == () and r.dtype == dtype
    assert r.get().tobytes() == np.asarray(gpgpu.dot(hx, hy)).tobytes()
    assert gpgpu.dot(_dev(hx.reshape(10, 100)), _dev(hy)).item() == r.item()


def test_dot_on_two_contexts_in_turn(rng, other):
    # Each context has its own out-parameters: results do not cross.
    hx, hy = rng.random(100).astype(F32), rng.random(100).astype(F32) + 1
    a, b = _dev(hx), gpgpu.asarray(hy, ctx=other)
    ra, rb = gpgpu.dot(a, a), gpgpu.dot(b, b)
    assert ra.item() == gpgpu.dot(hx, hx) and rb.item() == gpgpu.dot(hy, hy, ctx=other)
    assert ra.ctx is a.ctx and rb.ctx is other


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [False, True])
def test_sorts_match_the_general_path(rng, descending, stable):
    h = rng.integers(0, 50, 3000).astype(U32)
    d = _dev(h)
    want = gpgpu.sort(h, descending=descending, stable=stable)
    np.testing.assert_array_equal(gpgpu.sort(d, descending=descending, stable=stable).get(),
                                  want)
    out = gpgpu.empty(3000, U32)
    assert gpgpu.sort(d, descending=descending, out=out, stable=stable) is out
    np.testing.assert_array_equal(out.get(), want)
    np.testing.assert_array_equal(d.get(), h)  # left alone
    assert gpgpu.sort(d, descending, stable, out=d) is d
    np.testing.assert_array_equal(d.get(), want)
    vals = np.arange(3000, dtype=U32)
    wk, wv = gpgpu.sort_by_key(h, vals, descending=descending, stable=True)
    for out in (None, "new", "in place"):
        k, v = _dev(h), _dev(vals)
        if out is None:
            rk, rv = gpgpu.sort_by_key(k, v, descending=descending, stable=True)
        elif out == "new":
            o = (gpgpu.empty(3000, U32), gpgpu.empty(3000, U32))
            rk, rv = gpgpu.sort_by_key(k, v, descending=descending, stable=True, out=o)
            assert rk is o[0] and rv is o[1]
        else:
            rk, rv = gpgpu.sort_by_key(k, v, descending=descending, stable=True, out=(k, v))
            assert rk is k and rv is v
        np.testing.assert_array_equal(rk.get(), wk)
        np.testing.assert_array_equal(rv.get(), wv)


def test_sort_of_views_and_2d(rng):
    h = rng.random(2000).astype(F32)
    base = _dev(h)
    np.testing.assert_array_equal(gpgpu.sort(base[500:1500]).get(), np.sort(h[500:1500]))
    # A 2-D array is sorted along its last axis (the general path's segments).
    np.testing.assert_array_equal(gpgpu.sort(base.reshape(40, 50)).get(),
                                  np.sort(h.reshape(40, 50), axis=1))


def test_spmv_and_matmul_match_the_general_path(rng):
    A = gpgpu.generate("laplace3d_7", 5)
    M = gpgpu.Matrix(A)
    hx = rng.random(125).astype(F32)
    x = _dev(hx)
    np.testing.assert_array_equal((M @ x).get(), M @ hx)
    y = _dev(np.ones(125, F32))
    assert gpgpu.spmv(M, x, y, alpha=2, beta=0.5) is y
    np.testing.assert_array_equal(y.get(), gpgpu.spmv(M, hx, np.ones(125, F32), 2, 0.5))
    a, b = rng.random((6, 4)).astype(F32), rng.random((6, 5)).astype(F32)
    np.testing.assert_array_equal(gpgpu.matmul(_dev(a), _dev(b), transpose_a=True).get(),
                                  gpgpu.matmul(a, b, transpose_a=True))
    out = gpgpu.empty((5, 4), F32)
    assert gpgpu.matmul(_dev(b), _dev(a), transpose_a=True, out=out) is out
    np.testing.assert_array_equal(out.get(), gpgpu.matmul(b, a, transpose_a=True))
    np.testing.assert_array_equal((_dev(a) @ _dev(a.T)).get(), gpgpu.matmul(a, a.T))


def test_assigning_a_shape_keeps_the_size():
    d = gpgpu.asarray(np.arange(12, dtype=F32)[::-1].copy())
    d.shape = (3, 4)
    assert d.size == 12 and d.ndim == 2 and d.nbytes == 48
    np.testing.assert_array_equal(gpgpu.sort(d).get(), np.sort(np.arange(12, dtype=F32)
                                                              [::-1].reshape(3, 4), axis=1))
    d.shape = (6,)
    assert d.size == 6 and gpgpu.sum(d).item() == sum(range(6, 12))


# ----------------------------------------------------------------------------- errors


def _errors(rng, other):
    x, y = _dev(np.ones(8, F32)), _dev(np.ones(8, F32))
    gone = _dev(np.ones(8, F32))
    gone1 = gpgpu.empty(1, F32)
    gone.release(), gone1.release()
    k, u = _dev(np.arange(8, dtype=U32)), _dev(np.arange(9, dtype=U32))
    o = gpgpu.asarray(np.ones(8, F32), ctx=other)
    base = _dev(np.arange(9, dtype=U32))
    M = gpgpu.Matrix(gpgpu.generate("laplace3d_7", 2))
    g = _dev(np.ones((4, 4), F32))
    released = "the DeviceArray was released"
    return [
        (lambda: gpgpu.sum(gone), ValueError, released),
        (lambda: gpgpu.sum(x, out=gone1), ValueError, released),
        (lambda: gpgpu.sum(x, ctx=other), ValueError,
         "gpgpu.sum: ctx is not the context of the DeviceArray"),
        (lambda: gpgpu.sum(x, out=np.empty(1, F32)), TypeError,
         "gpgpu.sum: out must be a DeviceArray"),
        (lambda: gpgpu.min(x, out=gpgpu.empty(2, F32)), ValueError,
         "gpgpu.min: out must be a float32 DeviceArray of 1 elements, not float32 of 2"),
        (lambda: gpgpu.max(x, out=gpgpu.asarray(np.ones(1, F32), ctx=other)), ValueError,
         "gpgpu.max: out belongs to another context"),
        (lambda: gpgpu.sum(base[:8], out=base[3:4]), gpgpu.OverlapError,
         "gpgpu_reduce_to_buffer: the result at element 3 overlaps the input"),
        (lambda: gpgpu.sum(x, algo="halving-not"), ValueError, "algo 'halving-not'"),
        (lambda: gpgpu.cumsum(x, out=gpgpu.empty(8, U32)), ValueError,
         "gpgpu.cumsum: out must be a float32 DeviceArray of 8 elements, not uint32 of 8"),
        (lambda: gpgpu.cumsum(base[:8], out=base[1:]), gpgpu.OverlapError,
         r"gpgpu_scan: input \[0, 8\) and output \[1, 9\) overlap without being equal"),
        (lambda: gpgpu.cumsum(gone), ValueError, released),
        (lambda: gpgpu.sort(k, out=u), ValueError,
         "gpgpu.sort: out must be a uint32 DeviceArray of 8 elements, not uint32 of 9"),
        (lambda: gpgpu.sort(k, out=np.empty(8, U32)), TypeError,
         "gpgpu.sort: out must be a DeviceArray"),
        (lambda: gpgpu.sort(base[:8], out=base[1:]), gpgpu.OverlapError,
         r"gpgpu_sort: keys_in \[0, 8\) and keys_out \[1, 9\) overlap"),
        (lambda: gpgpu.sort(k, algo="quick"), ValueError, "algo 'quick'"),
        (lambda: gpgpu.sort(gone), ValueError, released),
        (lambda: gpgpu.sort_by_key(k, x[:7]), ValueError,
         "gpgpu.sort_by_key: 8 keys and 7 values"),
        (lambda: gpgpu.sort_by_key(k, _dev(np.ones(8, I32).view(np.uint32))[:0]), ValueError,
         "gpgpu.sort_by_key: 8 keys and 0 values"),
        (lambda: gpgpu.sort_by_key(k, x, out=(k, np.empty(8, F32))), TypeError,
         "gpgpu.sort_by_key: out must be a DeviceArray"),
        (lambda: gpgpu.sort_by_key(k, o), ValueError,
         "gpgpu.sort_by_key: the arrays belong to different contexts"),
        (lambda: gpgpu.sort_by_key(k, gone), ValueError, released),
        (lambda: gpgpu.dot(k, k), TypeError,
         r"gpgpu.dot: dtype uint32 is not supported \(float32, float64\)"),
        (lambda: gpgpu.dot(x, x[:4]), ValueError, "gpgpu.dot: sizes 8 and 4 differ"),
        (lambda: gpgpu.dot(x, o), ValueError, "gpgpu.dot: the arrays belong to different"),
        (lambda: gpgpu.dot(x, y, ctx=other), ValueError,
         "gpgpu.dot: ctx is not the context of the DeviceArrays"),
        (lambda: gpgpu.dot(x, gone), ValueError, released),
        (lambda: M @ _dev(np.ones(7, F32)), ValueError,
         "gpgpu.spmv: x has 7 elements, the matrix needs 8"),
        (lambda: gpgpu.spmv(M, x, beta=1.0), ValueError,
         "gpgpu.spmv: beta = 1.0 needs a y to scale"),
        (lambda: gpgpu.spmv(M, x, o), ValueError,
         "gpgpu.spmv: y belongs to another context than the matrix"),
        (lambda: gpgpu.spmv(M, x, k), TypeError,
         "gpgpu.spmv: y is uint32, the matrix float32"),
        (lambda: gpgpu.spmv(M, x, threads_per_row=0.0), TypeError, ""),
        (lambda: M @ gone, ValueError, released),
        (lambda: gpgpu.matmul(g, x), ValueError,
         r"gpgpu.matmul: 2-D matrices are multiplied, not shapes \(4, 4\) and \(8,\)"),
        (lambda: gpgpu.matmul(g, x.reshape(2, 4)), ValueError,
         "op.a. is 4 x 4 and op.b. 2 x 4: the inner dimensions differ"),
        (lambda: gpgpu.matmul(g, g, out=gpgpu.empty(16, F32)), ValueError,
         r"gpgpu.matmul: out has shape \(16,\), not \(4, 4\)"),
        (lambda: gpgpu.matmul(g, g, out=gpgpu.empty((4, 4), U32)), ValueError,
         "gpgpu.matmul: out must be a float32 DeviceArray of 16 elements"),
        (lambda: gpgpu.matmul(k.reshape(2, 4), k.reshape(4, 2)), TypeError,
         "gpgpu.matmul: dtype uint32 is not supported"),
        (lambda: gpgpu.matmul(g, g, algo="fastest"), ValueError, "algo 'fastest'"),
    ] + ([(lambda: gpgpu.sort_by_key(k, _dev(np.ones(8, F64))), TypeError,
           r"gpgpu.sort_by_key: values of dtype float64 are not supported \(a 4-byte")]
         if x.ctx.has_f64 else [])


def test_what_the_fast_path_hands_over_raises_as_before(rng, other):
    for f, exc, message in _errors(rng, other):
        with pytest.raises(exc, match=message):
            f()
