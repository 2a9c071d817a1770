"""select, gather, scatter, histogram, segmented_reduce, run_length_encode and reduce_by_key
against numpy: every dtype, awkward sizes, NaN/-0 where the semantics say, numpy and
DeviceArrays in and out, and the errors the package and the library raise."""
import operator

import numpy as np
import pytest

import gpgpu
from _ref import DTYPES, FLOATS, bits, data, same_bits, segment_offsets, sum_bound

SIZES = [0, 1, 1000, 65537]
WHERE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
         "eq": operator.eq, "ne": operator.ne}
SYMBOLS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def payload(rng, n):
    """Float32 payloads with NaNs of several bit patterns: moved bit for bit or not."""
    p = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    p[::7] = 0x7fc00001
    return p.view(np.float32)


# --------------------------------------------------------------------------- select


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_select_flags(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    keep = rng.random(n) < 0.3
    assert same_bits(gpgpu.select(a, flags=keep), a[keep])
    vals = payload(rng, n)
    got, v, idx = gpgpu.select(a, flags=keep.astype(np.int32) * 5, values=vals, indices=True)
    assert same_bits(got, a[keep]) and same_bits(v, vals[keep])
    assert idx.dtype == np.uint32 and np.array_equal(idx, np.flatnonzero(keep))
    part, count = gpgpu.select(a, flags=keep, partition=True)
    assert count == keep.sum()
    assert same_bits(part, np.concatenate([a[keep], a[~keep]]))  # both sides in order


@pytest.mark.parametrize("where", sorted(WHERE))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_select_compare(rng, where, dtype, n):
    a = data(rng, dtype, n, special=True)
    value = 0.0 if a.dtype.kind == "f" else (int(a[n // 2]) if n else 1)
    want = a[WHERE[where](a, a.dtype.type(value))]   # NaN kept by "ne" alone; -0 == +0
    assert same_bits(gpgpu.select(a, where=where, value=value), want)
    got, idx, count = gpgpu.select(a, where=SYMBOLS[where], value=value, partition=True,
                                   indices=True)
    assert count == want.size and same_bits(got[:count], want)
    assert np.array_equal(np.sort(idx), np.arange(n)) and same_bits(a[idx], got)


@pytest.mark.parametrize("dtype", FLOATS)
def test_select_nan_and_signed_zero(dtype):
    a = np.array([np.nan, -0.0, 0.0, 1.0, -np.nan, -1.0, np.inf], dtype)
    assert same_bits(gpgpu.select(a, where="eq", value=0), a[[1, 2]])
    assert same_bits(gpgpu.select(a, where="ne", value=0), a[[0, 3, 4, 5, 6]])
    assert same_bits(gpgpu.select(a, where="lt", value=-0.0), a[[5]])
    assert same_bits(gpgpu.select(a, where="ge", value=np.nan), a[:0])
    assert same_bits(gpgpu.select(a, where="!=", value=np.nan), a)


def test_select_value_rounded_to_float32():
    a = np.array([0.1, np.nextafter(np.float32(0.1), np.float32(1))], np.float32)
    assert same_bits(gpgpu.select(a, where="eq", value=0.1), a[:1])  # 0.1 as float32
    assert same_bits(gpgpu.select(a, where="gt", value=0.1), a[1:])


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_device(rng, dtype):
    a = data(rng, dtype, 3001, special=True)
    d = gpgpu.asarray(a)
    keep = a > 0
    flags = gpgpu.asarray(keep.astype(np.uint32))
    vals = gpgpu.asarray(payload(rng, a.size))
    got, v, idx = gpgpu.select(d, flags=flags, values=vals, indices=True)
    assert all(isinstance(x, gpgpu.DeviceArray) for x in (got, v, idx))
    assert same_bits(got.get(), a[keep]) and same_bits(v.get(), vals.get()[keep])
    assert np.array_equal(idx.get(), np.flatnonzero(keep))
    part, count = gpgpu.select(d[1:], where="gt", value=0, partition=True)  # a view
    assert isinstance(part, gpgpu.DeviceArray) and count == keep[1:].sum()
    assert same_bits(part.get(), np.concatenate([a[1:][keep[1:]], a[1:][~keep[1:]]]))
    assert same_bits(d.get(), a)
    # numpy elements with DeviceArray flags: numpy out.
    assert same_bits(gpgpu.select(a, flags=flags), a[keep])


def test_select_errors():
    a = np.arange(6, dtype=np.int32)
    with pytest.raises(ValueError, match=r"^gpgpu.select: give flags= or where= \(with "
                       r"value=\): one of them$"):
        gpgpu.select(a)
    with pytest.raises(ValueError, match="one of them"):
        gpgpu.select(a, flags=a > 2, where="lt", value=1)
    with pytest.raises(ValueError, match=r"^gpgpu.select: where='<>' is not one of"):
        gpgpu.select(a, where="<>", value=1)
    with pytest.raises(ValueError, match=r"^gpgpu.select: where= needs value=$"):
        gpgpu.select(a, where="lt")
    with pytest.raises(ValueError, match=r"^gpgpu.select: 6 elements and 5 flags$"):
        gpgpu.select(a, flags=[1, 0, 1, 0, 1])
    with pytest.raises(TypeError, match=r"^gpgpu.select: values of dtype float64 are not"):
        gpgpu.select(a, flags=a > 2, values=np.zeros(6))
    with pytest.raises(gpgpu.InvalidArgumentError) as e:
        gpgpu.select(a, where="lt", value=2.5)   # the library's check
    assert e.value.message == "gpgpu_select: the value 2.5 is not one of type i32"


# ------------------------------------------------------------------- gather, scatter


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_gather(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    idx = rng.integers(0, n, 777) if n else np.zeros(0, np.int64)
    assert same_bits(gpgpu.gather(a, idx), a[idx])
    rows = data(rng, dtype, 3 * n, special=True).reshape(n, 3)   # 12- or 24-byte records
    idx2 = idx.astype(np.uint32).reshape(-1, 7) if idx.size else idx
    assert same_bits(gpgpu.gather(rows, idx2), rows[idx2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_device(rng, dtype):
    a = data(rng, dtype, 2 * 1000, special=True).reshape(1000, 2)
    d = gpgpu.asarray(a)
    idx = rng.integers(0, 999, 500).astype(np.uint32)
    got = gpgpu.gather(d[1:], gpgpu.asarray(idx))   # a view: records from its offset
    assert isinstance(got, gpgpu.DeviceArray) and got.shape == (500, 2)
    assert same_bits(got.get(), a[1:][idx])
    flat = d.reshape(-1)[1:1999].reshape(999, 2)    # starts inside a record of the buffer
    assert same_bits(gpgpu.gather(flat, idx).get(), a.reshape(-1)[1:1999].reshape(999, 2)[idx])


def test_gather_out_of_range():
    a = np.arange(1000, dtype=np.float32)
    idx = np.array([3, 1000, 5, 1001, 2], np.uint32)
    with pytest.raises(gpgpu.OutOfRangeError) as e:
        gpgpu.gather(a, idx)
    assert isinstance(e.value, IndexError)
    assert e.value.message == ("gpgpu_gather: index 1001 (the largest) is past the input's "
                               "1000 records; nothing was written")
    with pytest.raises(gpgpu.OutOfRangeError, match="index 4 .* past the input's 4 records"):
        gpgpu.gather(gpgpu.asarray(np.zeros((4, 3), np.float64)), [4])
    with pytest.raises(IndexError, match=r"^gpgpu.gather: index -1 is not a uint32 index"):
        gpgpu.gather(a, [0, -1])
    with pytest.raises(IndexError, match=r"^gpgpu.gather: index 4294967296 is not a uint32"):
        gpgpu.gather(a, [1 << 32])   # would wrap to 0 as a uint32
    with pytest.raises(TypeError, match=r"^gpgpu.gather: index must be integers, not float64"):
        gpgpu.gather(a, [0.0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_scatter(rng, dtype, n):
    out = data(rng, dtype, n, special=True)
    want = out.copy()
    m = min(n, 700)
    idx = rng.permutation(n)[:m]   # distinct: a defined result
    a = data(rng, dtype, m, special=True)
    want[idx] = a
    assert gpgpu.scatter(a, idx, out) is out
    assert same_bits(out, want)
    rows = np.zeros((n, 2), dtype)
    vals = data(rng, dtype, 2 * m).reshape(m, 2)
    d = gpgpu.asarray(rows)
    assert gpgpu.scatter(gpgpu.asarray(vals), gpgpu.asarray(idx.astype(np.uint32)), d) is d
    rows[idx] = vals
    assert same_bits(d.get(), rows)


def test_scatter_errors():
    out = np.zeros(4, np.float32)
    with pytest.raises(gpgpu.OutOfRangeError) as e:
        gpgpu.scatter(np.ones(3, np.float32), [0, 5, 1], out)
    assert e.value.message == ("gpgpu_scatter: index 5 (the largest) is past the output's 4 "
                               "records; nothing was written")
    assert not out.any()
    with pytest.raises(TypeError, match=r"^gpgpu.scatter: a is int32 and out float32$"):
        gpgpu.scatter(np.ones(2, np.int32), [0, 1], out)
    with pytest.raises(ValueError, match=r"^gpgpu.scatter: 2 indices of records of 1 "
                       r"elements take 2 elements of a, not 3$"):
        gpgpu.scatter(np.ones(3, np.float32), [0, 1], out)
    with pytest.raises(ValueError, match="writeable C-contiguous"):
        gpgpu.scatter(np.ones(2, np.float32), [0, 1], np.zeros(8, np.float32)[::2])


# ------------------------------------------------------------------------ histogram


def ref_even(a, bins, lo, hi):
    """The library's even bins: integers exactly, floats in a's dtype as CUB computes."""
    a = np.asarray(a)
    if a.dtype.kind in "iu":
        v = a.astype(np.int64)
        inside = (v >= lo) & (v < hi)
        b = (v[inside] - lo) * bins // (hi - lo)
    else:
        t = a.dtype.type
        inside = (a >= t(lo)) & (a < t(hi))
        scale = t(bins) / (t(hi) - t(lo))
        b = np.minimum(((a[inside] - t(lo)) * scale).astype(np.int64), bins - 1)
    return np.bincount(b, minlength=bins).astype(np.uint32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_histogram_even(rng, dtype, n):
    if np.dtype(dtype).kind == "f":
        a = (data(rng, dtype, n, special=True) * 3).astype(dtype)
        lo, hi, bins = -2.0, 2.5, 37
    else:
        a = data(rng, dtype, n)
        info = np.iinfo(dtype)
        lo, hi, bins = int(info.min) // 2, int(info.max) // 3, 1000
    got = gpgpu.histogram(a, bins, range=(lo, hi))
    assert got.dtype == np.uint32 and np.array_equal(got, ref_even(a, bins, lo, hi))
    # Where no sample is near a bin edge, numpy's bins but for the half-open last one.
    b = rng.integers(-5, 70, n).astype(dtype)
    want = np.histogram(b[b != 64], 16, range=(0, 64))[0]
    assert np.array_equal(gpgpu.histogram(b, 16, range=(0, 64)), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_histogram_levels(rng, dtype, n):
    a = data(rng, dtype, n, special=True)
    pick = a[np.isfinite(a.astype(np.float64))] if n else np.zeros(1, dtype)
    levels = np.sort(rng.choice(pick, 9)).astype(dtype)   # may repeat: empty bins
    ok = ~np.isnan(a.astype(np.float64)) & (a >= levels[0]) & (a < levels[-1])
    idx = np.searchsorted(levels, a[ok], side="right") - 1
    want = np.bincount(idx, minlength=8).astype(np.uint32)
    assert np.array_equal(gpgpu.histogram(a, levels=levels), want)
    assert np.array_equal(gpgpu.histogram(a, levels), want)   # numpy's bins=edges


@pytest.mark.parametrize("dtype", FLOATS)
def test_histogram_nan_zero_and_out_of_range(dtype):
    a = np.array([0, -0.0, 1, 2, 3, 9.99, 10, np.nan, -np.nan, -1, np.inf, -np.inf], dtype)
    assert np.array_equal(gpgpu.histogram(a, 5, range=(0, 10)), [3, 2, 0, 0, 1])
    assert np.array_equal(gpgpu.histogram(a, 2, range=(-0.0, 10)), [5, 1])
    assert np.array_equal(gpgpu.histogram(a, levels=[-1, 0, 3, 10]), [1, 4, 2])
    assert np.array_equal(gpgpu.histogram(a, levels=[-np.inf, 0, np.inf]), [2, 7])


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogram_device(rng, dtype):
    a = data(rng, dtype, 5000, special=True)
    d = gpgpu.asarray(a)
    levels = np.sort(a[np.isfinite(a.astype(np.float64))][:6])
    want = gpgpu.histogram(a, levels=levels)
    got = gpgpu.histogram(d, levels=gpgpu.asarray(levels))
    assert isinstance(got, gpgpu.DeviceArray) and np.array_equal(got.get(), want)
    got = gpgpu.histogram(d[10:], 7, range=(0, 100))
    assert np.array_equal(got.get(), ref_even(a[10:], 7, 0, 100))


def test_histogram_errors():
    a = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"^gpgpu.histogram: even bins need bins and range="):
        gpgpu.histogram(a, 4)
    with pytest.raises(ValueError, match=r"^gpgpu.histogram: 0 bins \(1 to 65536 are taken\)"):
        gpgpu.histogram(a, 0, range=(0, 1))
    with pytest.raises(ValueError, match=r"65537 bins"):
        gpgpu.histogram(a, 65537, range=(0, 1))
    with pytest.raises(ValueError, match=r"^gpgpu.histogram: levels must not decrease"):
        gpgpu.histogram(a, levels=[0, 2, 1])
    with pytest.raises(ValueError, match=r"^gpgpu.histogram: the levels of int32 samples "
                       "must be integers"):
        gpgpu.histogram(a.astype(np.int32), levels=[0, 2.5, 4])
    with pytest.raises(ValueError, match=r"^gpgpu.histogram: 3 bins and 3 levels"):
        gpgpu.histogram(a, 3, levels=[0, 1, 2])
    with pytest.raises(gpgpu.InvalidArgumentError) as e:
        gpgpu.histogram(a, 4, range=(1, 1))
    assert e.value.message == "gpgpu_histogram: lower 1 is not below upper 1 (in f32)"


# ---------------------------------------------------------------- segmented reduce


def ref_segmented(a, offs, op):
    dt = a.dtype
    out = []
    for s, e in zip(offs[:-1], offs[1:]):
        seg = a[s:e]
        if op == "sum":
            if dt.kind in "iu":
                out.append(seg.astype(np.int64).sum() if seg.size else 0)
            else:
                out.append(seg.astype(np.float64).sum())
        elif seg.size:
            out.append(seg.min() if op == "min" else seg.max())
        elif dt.kind == "f":
            out.append(np.inf if op == "min" else -np.inf)
        else:
            out.append(np.iinfo(dt).max if op == "min" else np.iinfo(dt).min)
    if dt.kind in "iu":
        return np.array(out, np.int64).astype(dt)   # sums wrap modulo 2^32
    return np.array(out, np.float64)


@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_segmented_reduce(rng, op, dtype, n):
    a = data(rng, dtype, n, special=op != "sum")
    offs = segment_offsets(rng, n, 1 + n // 500)
    got = gpgpu.segmented_reduce(a, offs, op=op)
    want = ref_segmented(a, offs, op)
    assert got.dtype == a.dtype and got.shape == (offs.size - 1,)
    if op == "sum" and a.dtype.kind == "f":
        bound = [sum_bound(a[s:e]) for s, e in zip(offs[:-1], offs[1:])]
        assert np.all(np.abs(got - want) <= bound)
    else:
        np.testing.assert_array_equal(got, want.astype(a.dtype))   # NaN propagates


@pytest.mark.parametrize("dtype", DTYPES)
def test_segmented_reduce_rows_and_device(rng, dtype):
    a = data(rng, dtype, 7 * 13).reshape(7, 13)
    want = ref_segmented(a.ravel(), np.arange(8) * 13, "max").astype(dtype)
    assert np.array_equal(gpgpu.segmented_reduce(a, op="max"), want)
    assert np.array_equal(gpgpu.segmented_reduce(np.zeros((3, 0), dtype)), np.zeros(3, dtype))
    d = gpgpu.asarray(a.ravel())
    offs = np.array([0, 0, 50, 91], np.uint32)
    got = gpgpu.segmented_reduce(d, gpgpu.asarray(offs), op="min")
    assert isinstance(got, gpgpu.DeviceArray)
    np.testing.assert_array_equal(got.get(), ref_segmented(a.ravel(), offs, "min")
                                  .astype(dtype))


def test_segmented_reduce_errors():
    a = np.arange(5, dtype=np.float32)
    with pytest.raises(ValueError, match=r"^gpgpu.segmented_reduce: op 'minmax' is not one"):
        gpgpu.segmented_reduce(a, [0, 5], op="minmax")
    with pytest.raises(ValueError, match=r"^gpgpu.segmented_reduce: segments= is needed"):
        gpgpu.segmented_reduce(a)
    with pytest.raises(ValueError, match=r"segment offsets must rise from 0 to 5"):
        gpgpu.segmented_reduce(a, [0, 6])


# ------------------------------------------------------ run-length encoding


def runs_data(rng, dtype, n):
    """n elements in runs of 1 to 9 of a few values (NaNs of two bit patterns, -0 and +0
    for floats)."""
    pool = data(rng, dtype, 16, special=True)
    if np.dtype(dtype).kind == "f":
        pool[:4] = np.array([np.nan, -np.nan, -0.0, 0.0], dtype)
    lengths = rng.integers(1, 10, n)
    return np.repeat(pool[rng.integers(0, 16, n)], lengths)[:n]


def ref_runs(a):
    """Starts of the runs: equal bit for bit, or both NaN."""
    b = bits(a)
    same = b[1:] == b[:-1]
    if a.dtype.kind == "f":
        same |= np.isnan(a[1:]) & np.isnan(a[:-1])
    return np.flatnonzero(np.concatenate([[True], ~same])) if a.size else np.zeros(0, int)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_run_length_encode(rng, dtype, n):
    a = runs_data(rng, dtype, n)
    starts = ref_runs(a)
    vals, lengths = gpgpu.run_length_encode(a)
    assert same_bits(vals, a[starts])   # a run of NaNs: its first NaN's bits
    assert lengths.dtype == np.uint32 and np.array_equal(lengths, np.diff(np.append(starts, n)))


@pytest.mark.parametrize("vdtype", DTYPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1000, 65537])
def test_reduce_by_key(rng, dtype, vdtype, n):
    if dtype != vdtype and n == 65537:
        pytest.skip("the mixed types at the smaller sizes suffice")
    keys = runs_data(rng, dtype, n)
    values = data(rng, vdtype, n)
    starts = ref_runs(keys)
    k, s = gpgpu.reduce_by_key(keys, values)
    assert same_bits(k, keys[starts]) and s.dtype == values.dtype
    want = ref_segmented(values, np.append(starts, n), "sum")
    if values.dtype.kind == "f":
        bound = [sum_bound(values[x:y]) for x, y in zip(starts, np.append(starts[1:], n))]
        assert np.all(np.abs(s - want) <= bound)
    else:
        assert np.array_equal(s, want)


def test_runs_device(rng):
    a = runs_data(rng, np.float32, 4000)
    d = gpgpu.asarray(a)
    starts = ref_runs(a)
    vals, lengths = gpgpu.run_length_encode(d)
    assert isinstance(vals, gpgpu.DeviceArray) and isinstance(lengths, gpgpu.DeviceArray)
    assert same_bits(vals.get(), a[starts])
    assert np.array_equal(lengths.get(), np.diff(np.append(starts, a.size)))
    ones = gpgpu.asarray(np.ones(a.size, np.uint32))
    k, s = gpgpu.reduce_by_key(d, ones)
    assert isinstance(s, gpgpu.DeviceArray) and np.array_equal(s.get(), lengths.get())
    assert same_bits(k.get(), vals.get())
    with pytest.raises(ValueError, match=r"^gpgpu.reduce_by_key: 4000 keys and 3 values$"):
        gpgpu.reduce_by_key(d, np.ones(3, np.uint32))
