"""sum, min, max, minmax, dot and cumsum against numpy: every dtype, awkward sizes, numpy
and DeviceArray in and out, integer wrap-around, NaN, empty input."""
import numpy as np
import pytest

import gpgpu
from _ref import DTYPES, FLOATS, LARGE, SIZES, data, sum_bound

MAXV = {np.uint32: np.iinfo(np.uint32).max, np.int32: np.iinfo(np.int32).max,
        np.float32: np.inf, np.float64: np.inf}
MINV = {np.uint32: 0, np.int32: np.iinfo(np.int32).min, np.float32: -np.inf,
        np.float64: -np.inf}


def check_sum(got, a):
    assert np.asarray(got).dtype == a.dtype
    if a.dtype.kind in "iu":
        # numpy sums in the dtype when told to: modulo 2^32, as the library does.
        assert got == a.sum(dtype=a.dtype)
    else:
        exact = a.astype(np.float64).sum() if a.size else 0.0
        assert abs(float(got) - exact) <= sum_bound(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_reductions_numpy(rng, dtype, n):
    a = data(rng, dtype, n)
    s = gpgpu.sum(a)
    assert isinstance(s, np.generic)
    check_sum(s, a)
    lo, hi = gpgpu.minmax(a)
    want_lo = a.min() if n else MAXV[dtype]
    want_hi = a.max() if n else MINV[dtype]
    assert (gpgpu.min(a), gpgpu.max(a), lo, hi) == (want_lo, want_hi, want_lo, want_hi)
    assert type(lo) is np.dtype(dtype).type


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 257, 65537])
def test_reductions_device(rng, dtype, n):
    a = data(rng, dtype, n)
    d = gpgpu.asarray(a)
    s = gpgpu.sum(d)
    assert isinstance(s, gpgpu.DeviceArray) and s.shape == () and s.dtype == dtype
    check_sum(s.get()[()], a)
    lo, hi = gpgpu.minmax(d)
    assert isinstance(lo, gpgpu.DeviceArray) and lo.shape == ()
    want_lo = a.min() if n else MAXV[dtype]
    want_hi = a.max() if n else MINV[dtype]
    assert (lo.item(), hi.item()) == (want_lo, want_hi)
    assert (gpgpu.min(d).item(), gpgpu.max(d).item()) == (want_lo, want_hi)
    out = gpgpu.empty(1, dtype)
    assert gpgpu.sum(d, out=out) is out
    check_sum(out.get()[0], a)


@pytest.mark.parametrize("n", LARGE)
def test_reductions_large(rng, n):
    a = data(rng, np.float32, n)
    check_sum(gpgpu.sum(a), a)
    assert gpgpu.minmax(a) == (a.min(), a.max())


def test_integer_sums_wrap():
    a = np.full(1000, 0xFFFFFFF0, np.uint32)
    assert gpgpu.sum(a) == np.uint32((1000 * 0xFFFFFFF0) % (1 << 32))
    b = np.full(1000, np.iinfo(np.int32).max, np.int32)
    assert gpgpu.sum(b) == b.sum(dtype=np.int32)
    assert np.array_equal(gpgpu.cumsum(b), np.cumsum(b, dtype=np.int32))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_propagates(rng, dtype):
    a = data(rng, dtype, 1000)
    a[500] = np.nan
    for f in (gpgpu.sum, gpgpu.min, gpgpu.max):
        assert np.isnan(f(a))
    assert all(np.isnan(v) for v in gpgpu.minmax(a))


def test_classic_algorithms(rng):
    a = data(rng, np.int32, 1000)
    for algo in ("halving", "stride"):
        assert gpgpu.sum(a, algo=algo) == a.sum(dtype=np.int32)
    assert gpgpu.minmax(a, algo="minmax") == (a.min(), a.max())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 2, 31, 1025, 65537])
def test_dot(rng, dtype, n):
    x, y = data(rng, dtype, n), data(rng, dtype, n)
    exact = float(x.astype(np.float64) @ y.astype(np.float64)) if n else 0.0
    bound = sum_bound(x.astype(np.float64) * y) + (2 * np.finfo(dtype).eps *
                                                  np.abs(x.astype(np.float64) * y).sum())
    got = gpgpu.dot(x, y)
    assert isinstance(got, np.generic) and got.dtype == dtype
    assert abs(float(got) - exact) <= bound
    dg = gpgpu.dot(gpgpu.asarray(x), gpgpu.asarray(y))
    assert isinstance(dg, gpgpu.DeviceArray) and dg.shape == ()
    assert dg.item() == got


def ref_cumsum(a, exclusive):
    if a.dtype.kind in "iu":
        c = np.cumsum(a, dtype=a.dtype)
    else:
        c = np.cumsum(a.astype(np.float64))
    if exclusive:
        c = np.concatenate([[0], c[:-1]]) if a.size else c
    return c


def check_cumsum(got, a, exclusive):
    want = ref_cumsum(a, exclusive)
    assert got.dtype == a.dtype and got.shape == (a.size,)
    if a.dtype.kind in "iu":
        assert np.array_equal(got, want.astype(a.dtype))
    else:
        prefix_abs = np.cumsum(np.abs(a.astype(np.float64)))
        bound = (64 + np.log2(max(a.size, 2))) * np.finfo(a.dtype).eps * prefix_abs
        if exclusive and a.size:
            bound = np.concatenate([[0], bound[:-1]])
        assert np.all(np.abs(got.astype(np.float64) - want) <= bound)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_cumsum_numpy(rng, dtype, n, exclusive):
    a = data(rng, dtype, n)
    got = gpgpu.cumsum(a, exclusive=exclusive)
    assert isinstance(got, np.ndarray)
    check_cumsum(got, a, exclusive)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 4097] + LARGE)
def test_cumsum_device(rng, dtype, n):
    a = data(rng, dtype, n)
    d = gpgpu.asarray(a)
    got = gpgpu.cumsum(d, exclusive=True)
    assert isinstance(got, gpgpu.DeviceArray)
    check_cumsum(got.get(), a, True)
    assert gpgpu.cumsum(d, out=d) is d          # in place
    check_cumsum(d.get(), a, False)


def test_cumsum_flattens_and_algorithms(rng):
    a = data(rng, np.int32, 3 * 257).reshape(3, 257)
    assert np.array_equal(gpgpu.cumsum(a), np.cumsum(a, dtype=np.int32))
    for algo in ("reduce-then-scan", "classic", "single-pass"):
        try:
            got = gpgpu.cumsum(a, algo=algo)
        except gpgpu.UnsupportedFeatureError:
            continue  # the single pass needs subgroups on some devices
        assert np.array_equal(got, np.cumsum(a, dtype=np.int32))


def test_non_contiguous_input_is_copied(rng):
    a = data(rng, np.float32, 2000)[::2]
    assert not a.flags.c_contiguous
    check_sum(gpgpu.sum(a), np.ascontiguousarray(a))
    assert np.array_equal(gpgpu.sort(a), np.sort(a))
    f = np.asfortranarray(data(rng, np.int32, 60).reshape(6, 10))
    assert np.array_equal(gpgpu.cumsum(f), np.cumsum(f, dtype=np.int32))
