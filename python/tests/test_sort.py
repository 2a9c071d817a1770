"""sort, argsort and sort_by_key against a stable CPU sort in the library's order: every
dtype, awkward sizes, NaN/-0/inf, stability, descending, segments, algorithms, n-D arrays,
in place, numpy and DeviceArrays."""
import numpy as np
import pytest

import gpgpu
from _ref import (DTYPES, LARGE, SIZES, bits, data, few_values, order_key,
                  ref_argsort, same_bits, segment_offsets)


def check_sorted_keys(got, a, descending=False):
    """Keys in order; NaN bits may come in any order among NaNs when not stable."""
    want = a[ref_argsort(a, descending)]
    assert got.dtype == a.dtype and got.shape == a.shape
    assert np.array_equal(order_key(got), order_key(want))
    if a.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(bits(got)[~nan], bits(want)[~nan])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sort_numpy(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    got = gpgpu.sort(a)
    assert isinstance(got, np.ndarray)
    check_sorted_keys(got, a)
    check_sorted_keys(gpgpu.sort(a, descending=True), a, descending=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2049, 65537])
def test_sort_device(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    d = gpgpu.asarray(a)
    got = gpgpu.sort(d)
    assert isinstance(got, gpgpu.DeviceArray)
    check_sorted_keys(got.get(), a)
    assert same_bits(d.get(), a)  # out of place: the input is unchanged
    d.sort(descending=True)      # in place
    check_sorted_keys(d.get(), a, descending=True)


@pytest.mark.parametrize("n", LARGE)
def test_sort_large(rng, n):
    for dtype in (np.uint32, np.float32):
        a = data(rng, dtype, n, special=True)
        check_sorted_keys(gpgpu.sort(a), a)


def test_nan_and_signed_zero_order():
    a = np.array([np.nan, 1.0, -0.0, np.inf, 0.0, -np.inf, -1.0, -np.nan, 0.0, -0.0],
                 np.float32)
    got = gpgpu.sort(a, stable=True)
    want_bits = bits(np.array([-np.inf, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, np.inf, np.nan,
                               -np.nan], np.float32))
    assert np.array_equal(bits(got), want_bits)  # -0 before +0; NaNs last, bits kept
    down = gpgpu.sort(a, descending=True, stable=True)
    assert np.array_equal(bits(down[:2]), bits(a[[0, 7]]))  # NaNs first, in input order
    assert np.array_equal(gpgpu.argsort(a), ref_argsort(a))


@pytest.mark.parametrize("algo", [None, "radix", "bitonic", "classic"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 100, 2049, 5003])
def test_stability_and_algorithms(rng, algo, dtype, n):
    a = few_values(rng, dtype, n)
    perm = gpgpu.argsort(a, algo=algo)  # stable by default
    assert perm.dtype == np.uint32
    assert np.array_equal(perm, ref_argsort(a))
    assert np.array_equal(gpgpu.argsort(a, descending=True, algo=algo),
                          ref_argsort(a, descending=True))
    v = np.arange(n, dtype=np.uint32)
    k2, v2 = gpgpu.sort_by_key(a, v, stable=True, algo=algo)
    assert np.array_equal(v2, ref_argsort(a)) and np.array_equal(k2, a[ref_argsort(a)])
    check_sorted_keys(gpgpu.sort(a, algo=algo), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_argsort(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    got = gpgpu.argsort(a)
    assert got.dtype == np.uint32 and np.array_equal(got, ref_argsort(a))
    d = gpgpu.asarray(a)
    gd = gpgpu.argsort(d)
    assert isinstance(gd, gpgpu.DeviceArray) and np.array_equal(gd.get(), got)
    assert same_bits(d.get(), a)  # the keys are left alone


@pytest.mark.parametrize("vdtype", [np.uint32, np.int32, np.float32])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 2048, 2049, 65537])
def test_sort_by_key(rng, dtype, vdtype, n):
    keys = data(rng, dtype, n, special=True)
    values = data(rng, vdtype, n, special=True)
    perm = ref_argsort(keys)
    k, v = gpgpu.sort_by_key(keys, values, stable=True)
    assert same_bits(k, keys[perm]) and same_bits(v, values[perm])  # values bit for bit
    dk, dv = gpgpu.asarray(keys), gpgpu.asarray(values)
    rk, rv = gpgpu.sort_by_key(dk, dv, descending=True, stable=True)
    down = ref_argsort(keys, descending=True)
    assert same_bits(rk.get(), keys[down]) and same_bits(rv.get(), values[down])
    assert gpgpu.sort_by_key(dk, dv, stable=True, out=(dk, dv)) == (dk, dv)  # in place
    assert same_bits(dk.get(), keys[perm]) and same_bits(dv.get(), values[perm])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n, count", [(0, 1), (1, 1), (100, 7), (5000, 40), (65537, 300),
                                      (20000, 1)])
def test_segments(rng, dtype, n, count):
    a = data(rng, dtype, n, special=True)
    seg = segment_offsets(rng, n, count)
    perm = ref_argsort(a, segments=seg)
    for algo in (None, "bitonic") if n <= 5000 else (None,):
        got = gpgpu.sort(a, segments=seg, algo=algo, stable=True)
        assert same_bits(got, a[perm])
        assert np.array_equal(gpgpu.argsort(a, segments=seg, algo=algo), perm)
    v = np.arange(n, dtype=np.uint32)
    k, vv = gpgpu.sort_by_key(gpgpu.asarray(a), gpgpu.asarray(v),
                              segments=gpgpu.asarray(seg), stable=True)
    assert same_bits(k.get(), a[perm]) and np.array_equal(vv.get(), perm)
    down = ref_argsort(a, descending=True, segments=seg)
    assert same_bits(gpgpu.sort(a, segments=seg, descending=True, stable=True), a[down])


def test_segments_checked():
    a = np.arange(10, dtype=np.uint32)
    for bad in ([0, 5, 3, 10], [1, 10], [0, 9], []):
        with pytest.raises(ValueError):
            gpgpu.sort(a, segments=bad)
    with pytest.raises(TypeError):
        gpgpu.sort(a, segments=np.array([0.0, 10.0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 0), (1, 5), (4, 257), (17, 31)])
def test_nd_sorts_last_axis(rng, dtype, shape):
    a = data(rng, dtype, int(np.prod(shape))).reshape(shape)
    got = gpgpu.sort(a)
    assert got.shape == shape
    for r in range(shape[0]):
        check_sorted_keys(got[r], a[r])
    idx = gpgpu.argsort(a)
    assert idx.shape == shape
    for r in range(shape[0]):
        assert np.array_equal(idx[r], ref_argsort(a[r]))
    d = gpgpu.asarray(a)
    assert np.array_equal(gpgpu.argsort(d).get(), idx)


def test_numpy_in_place(rng):
    a = data(rng, np.float64, 3001)
    want = np.sort(a)
    assert gpgpu.sort(a, out=a) is a
    assert np.array_equal(a, want)
    k = data(rng, np.int32, 999)
    v = np.arange(999, dtype=np.uint32)
    perm = ref_argsort(k)
    kk, vv = gpgpu.sort_by_key(k, v, stable=True, out=(k, v))
    assert kk is k and vv is v and np.array_equal(v, perm)


def test_views_sort_a_slice_in_place(rng):
    a = data(rng, np.uint32, 1000)
    d = gpgpu.asarray(a)
    part = d[100:600]
    part.sort()
    want = a.copy()
    want[100:600].sort()
    assert np.array_equal(d.get(), want)   # elements outside the slice untouched
    assert np.array_equal(gpgpu.sort(d[10:20]).get(), np.sort(want[10:20]))
