"""Stream compaction and partition, gather and scatter, histograms, segmented reductions,
run-length encoding and reduce-by-key over numpy arrays and DeviceArrays: numpy in, numpy
out; DeviceArray in, DeviceArray out."""
import operator
from ctypes import byref, c_size_t

import numpy as np

from . import _lib
from ._array import DeviceArray, host_array
from ._ops import _U32, _VALUE_TYPES, _check, _new, _operand, _segments, operands

_I32 = _lib.GPGPU_TYPE_I32
_COMPARES = {}
for _names, _v in ((("lt", "<"), _lib.GPGPU_COMPARE_LT), (("le", "<="), _lib.GPGPU_COMPARE_LE),
                   (("gt", ">"), _lib.GPGPU_COMPARE_GT), (("ge", ">="), _lib.GPGPU_COMPARE_GE),
                   (("eq", "=="), _lib.GPGPU_COMPARE_EQ), (("ne", "!="), _lib.GPGPU_COMPARE_NE)):
    for _n in _names:
        _COMPARES[_n] = _v
_SEGMENT_OPS = {"sum": _lib.GPGPU_OP_SUM, "min": _lib.GPGPU_OP_MIN, "max": _lib.GPGPU_OP_MAX}


def _temporaries(pairs):
    """The DeviceArrays of (device, original) pairs that were uploaded for the call."""
    return [d for d, orig in pairs if d is not None and d is not orig]


def _release(arrays):
    for x in arrays:
        x.release()


def _u32_indices(x, what, name):
    """Host indices as a C-contiguous uint32 numpy array: integers in [0, 2^32), so that
    none wraps to another index on the way (the library then checks them against the
    array's size)."""
    a = np.asarray(x)
    if a.dtype == np.uint32:
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: {name} must be integers, not {a.dtype.name}")
    if a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF):
        bad = a.min() if a.min() < 0 else a.max()
        raise IndexError(f"{what}: {name} {bad} is not a uint32 index (negative indices "
                         "are not taken)")
    return np.ascontiguousarray(a, dtype=np.uint32)


def _check_u32_device(d, what, name):
    if d._type not in (_U32, _I32):
        raise TypeError(f"{what}: {name} must be a uint32 (or int32) array, not "
                        f"{d.dtype.name}")


def _finish(results, dev, temps):
    """results as DeviceArrays (dev) or downloaded numpy arrays (their buffers freed), the
    call's uploaded inputs freed: one result alone, more as a tuple."""
    try:
        if not dev:
            out = []
            for r in results:
                if isinstance(r, DeviceArray):
                    out.append(r.get())
                    r.release()
                else:
                    out.append(r)
            results = out
    finally:
        _release(temps)
    return results[0] if len(results) == 1 else tuple(results)


# --------------------------------------------------------------------------- select


def select(a, flags=None, where=None, value=None, partition=False, indices=False,
           values=None, ctx=None):
    """Stream compaction (gpgpu_select), stable: the elements of ``a`` (taken flat) that are
    kept, in input order. Kept are a[i] with flags[i] != 0 (``flags``: one per element, any
    dtype on the host, compared with 0; a uint32 or int32 DeviceArray, nonzero bits keep),
    or, with ``where`` and ``value``, those with ``a[i] <where> value``: where is "lt",
    "le", "gt", "ge", "eq", "ne" (or "<", "<=", ">", ">=", "==", "!="), compared in a's
    dtype as C compares (value rounded to float32 for float32; for integer arrays value
    must be an integer of the dtype); NaN on either side is kept only by "ne"; -0 == +0.

    ``partition``: all n elements, the kept first, then the rejected ones (both in input
    order). ``values``: one 4-byte payload per element (uint32, int32 or float32, moved bit
    for bit) carried with the elements. ``indices``: also the uint32 input index of each
    output element.

    Returns the elements alone, or, when more is asked for, the tuple ``(elements[,
    values][, indices][, count])``, in that order: values with ``values=``, indices with
    ``indices=True``, count (an int: how many were kept) with ``partition=True``. numpy for
    numpy ``a``; DeviceArrays for a DeviceArray (the kept count is read back, so the call
    waits for the GPU; the arrays are views of n-element ones)."""
    what = "gpgpu.select"
    if (flags is None) == (where is None):
        raise ValueError(f"{what}: give flags= or where= (with value=): one of them")
    cmp = _lib.GPGPU_COMPARE_NONE
    if where is not None:
        try:
            cmp = _COMPARES[where]
        except (KeyError, TypeError):
            raise ValueError(f"{what}: where={where!r} is not one of "
                             f"{list(_COMPARES)}") from None
        if value is None:
            raise ValueError(f"{what}: where= needs value=")
        value = float(value)
    elif value is not None:
        raise ValueError(f"{what}: value= goes with where=, not with flags=")
    if flags is not None and not isinstance(flags, DeviceArray):
        flags = np.ascontiguousarray(np.asarray(flags) != 0, dtype=np.uint32)
    if values is not None and not isinstance(values, DeviceArray):
        values = host_array(values, what)
    (d, df, dv), dev = operands([a, flags, values], ctx, what)
    temps = _temporaries([(d, a), (df, flags), (dv, values)])
    outs = []
    try:
        c = d.ctx
        n = d.size
        if df is not None:
            _check_u32_device(df, what, "flags")
            if df.size != n:
                raise ValueError(f"{what}: {n} elements and {df.size} flags")
        if dv is not None:
            if dv._type not in _VALUE_TYPES:
                raise TypeError(f"{what}: values of dtype {dv.dtype.name} are not supported "
                                "(a 4-byte dtype: uint32, int32, float32)")
            if dv.size != n:
                raise ValueError(f"{what}: {n} elements and {dv.size} values")
        desc = _lib.SelectDesc(type=d._type, compare=cmp, value=0.0 if value is None else value,
                               partition=bool(partition))
        out = _new(c, (n,), d._type)
        outs.append(out)
        if df is not None:
            desc.flags, desc.flags_offset = df._ptr(), df._off
        if dv is not None:
            vout = _new(c, (n,), dv._type)
            outs.append(vout)
            desc.values_in, desc.values_in_offset = dv._ptr(), dv._off
            desc.values_out = vout._h.ptr
        if indices:
            iout = _new(c, (n,), _U32)
            outs.append(iout)
            desc.indices_out = iout._h.ptr
        kept = c_size_t()
        _check(_lib.gpgpu_select(c._handle, byref(desc), d._ptr(), d._off, out._h.ptr, 0, n,
                                 byref(kept)), c)
    except BaseException:
        _release(temps + outs)
        raise
    k = kept.value
    m = n if partition else k
    results = [r if m == n else r[:m] for r in outs]
    if not dev:
        # Only the kept elements come back: the views are downloaded, their owners freed.
        temps = temps + outs
    if partition:
        results.append(k)
    return _finish(results, dev, temps)


# ------------------------------------------------------------------ gather, scatter


def _records(d, what, name):
    """(records, elements per record) of an array taken as records along its first axis."""
    if d.ndim == 0:
        raise ValueError(f"{what}: {name} must have at least one dimension (records along "
                         "the first)")
    per = 1
    for s in d.shape[1:]:
        per *= s
    return d.shape[0], per


def _index_operand(indices, what):
    return indices if isinstance(indices, DeviceArray) else _u32_indices(indices, what,
                                                                         "index")


def gather(a, indices, ctx=None):
    """``a[indices]`` (gpgpu_gather): the records of ``a`` along its first axis (elements of
    a 1-D array; rows of a 2-D one, a record of a.shape[1] * itemsize bytes; likewise for
    more dimensions) picked by ``indices`` (integers, any shape; a uint32 DeviceArray).
    Returns an array of shape indices.shape + a.shape[1:], numpy for numpy ``a``,
    DeviceArray for a DeviceArray. Every index must be below len(a) (negative ones are not
    taken): the library checks them all before it moves anything, and an index past the
    end raises gpgpu.OutOfRangeError naming the largest."""
    what = "gpgpu.gather"
    idx = _index_operand(indices, what)
    (d, di), dev = operands([a, idx], ctx, what)
    temps = _temporaries([(d, a), (di, indices)])
    res = None
    try:
        _check_u32_device(di, what, "indices")
        in_count, per = _records(d, what, "a")
        c = d.ctx
        res = _new(c, di.shape + d.shape[1:], d._type)
        if per:
            if d._off % per:
                # A view whose first element is not on a record boundary of its buffer
                # (a reshaped slice): the call takes offsets in records.
                d = d.copy()
                temps.append(d)
            desc = _lib.GatherDesc(record_bytes=per * d.itemsize)
            _check(_lib.gpgpu_gather(c._handle, byref(desc), d._ptr(), d._off // per,
                                     in_count, di._ptr(), di._off, res._h.ptr, 0, di.size), c)
    except BaseException:
        _release(temps + ([res] if res is not None else []))
        raise
    return _finish([res], dev, temps)


def scatter(a, indices, out, ctx=None):
    """``out[indices] = a`` (gpgpu_scatter): record i of ``a`` (records along the first axis,
    as gpgpu.gather takes them; ``a`` holds indices.size records of out's shape[1:]) goes
    to record indices[i] of ``out``, which must hold every index (each below len(out), all
    checked before anything moves: gpgpu.OutOfRangeError names the largest). Records no
    index names keep their contents. Where indices repeat, which record lands there is
    unspecified (a multi-word record may even mix them): give distinct indices for a
    defined result.

    ``out``: a DeviceArray, written in place, or a writeable C-contiguous numpy array
    (uploaded, scattered into, downloaded back); of a's dtype. Returns ``out``."""
    what = "gpgpu.scatter"
    host_out = not isinstance(out, DeviceArray)
    if host_out and (not isinstance(out, np.ndarray) or not out.flags.c_contiguous or
                     not out.flags.writeable):
        raise ValueError(f"{what}: out must be a DeviceArray or a writeable C-contiguous "
                         "numpy array")
    idx = _index_operand(indices, what)
    (do, d, di), _ = operands([out, a, idx], ctx, what)
    temps = _temporaries([(do, out), (d, a), (di, indices)])
    try:
        _check_u32_device(di, what, "indices")
        if d.dtype != do.dtype:
            raise TypeError(f"{what}: a is {d.dtype.name} and out {do.dtype.name}")
        out_count, per = _records(do, what, "out")
        if d.size != di.size * per:
            raise ValueError(f"{what}: {di.size} indices of records of {per} elements take "
                             f"{di.size * per} elements of a, not {d.size}")
        c = do.ctx
        if per:
            if do._off % per:
                raise ValueError(f"{what}: out starts inside a record of its buffer (a "
                                 "reshaped view): scatter into its base")
            if d._off % per:
                d = d.copy()
                temps.append(d)
            desc = _lib.GatherDesc(record_bytes=per * d.itemsize)
            _check(_lib.gpgpu_scatter(c._handle, byref(desc), d._ptr(), d._off // per,
                                      di._ptr(), di._off, do._ptr(), do._off // per,
                                      out_count, di.size), c)
        if host_out:
            do.get(out)
    finally:
        _release(temps)
    return out


# ------------------------------------------------------------------------ histogram


def _host_levels(levels, dtype, what):
    lv = np.asarray(levels)
    if lv.ndim != 1 or lv.size < 2:
        raise ValueError(f"{what}: levels must be a 1-D array of bins + 1 >= 2 boundaries")
    if lv.dtype.kind not in "iuf":
        raise TypeError(f"{what}: levels must be numbers, not {lv.dtype.name}")
    conv = np.ascontiguousarray(lv, dtype=dtype)
    if dtype.kind in "iu" and not np.array_equal(conv.astype(np.float64),
                                                 lv.astype(np.float64)):
        raise ValueError(f"{what}: the levels of {dtype.name} samples must be integers of "
                         f"that type")
    if np.any(np.isnan(conv.astype(np.float64))) or np.any(conv[1:] < conv[:-1]):
        raise ValueError(f"{what}: levels must not decrease (nor be NaN)")
    return conv


def histogram(a, bins=None, range=None, levels=None, ctx=None):
    """Counts the samples of ``a`` (taken flat) in bins (gpgpu_histogram): returns ``bins``
    uint32 counts (numpy for numpy ``a``, DeviceArray for a DeviceArray).

    Even bins (CUB's HistogramEven): ``bins`` (1 to 65536) and ``range=(lo, hi)``; bin b
    holds lo + b (hi - lo) / bins <= v < lo + (b + 1) (hi - lo) / bins. Unlike
    numpy.histogram the last bin is half-open too: v == hi counts in no bin (and no range
    defaults to a.min(), a.max() for that reason). For integers the bin is floor((v - lo)
    * bins / (hi - lo)), exact; for floats (v - lo) * scale truncated, each operation in
    a's dtype, scale = bins / (hi - lo) (CUB's arithmetic: a sample within an ulp or so of
    a bin edge may land in the neighbour numpy picks against).

    Bins between levels (HistogramRange): ``levels``, bins + 1 nondecreasing boundaries
    (converted to a's dtype: rounded for floats, exact integers for integer samples; a
    DeviceArray of a's dtype is not checked); bin i holds levels[i] <= v < levels[i + 1].
    ``bins`` may be left out, or be the levels themselves as numpy.histogram takes them.

    Samples outside the bins, and NaN, count nowhere; -0 == +0."""
    what = "gpgpu.histogram"
    if bins is not None and not isinstance(bins, (int, np.integer)):
        if levels is not None:
            raise ValueError(f"{what}: bins is an array of levels, and levels= is given too")
        bins, levels = None, bins
    if levels is not None and range is not None:
        raise ValueError(f"{what}: give range= (even bins) or levels=, not both")
    if levels is None and (range is None or bins is None):
        raise ValueError(f"{what}: even bins need bins and range=(lo, hi) (the last bin is "
                         "half-open: a.max() would count nowhere), or give levels=")
    if not isinstance(a, DeviceArray):
        a = host_array(a, what)
    if levels is not None and not isinstance(levels, DeviceArray):
        levels = _host_levels(levels, a.dtype, what)
    (d, dl), dev = operands([a, levels], ctx, what)
    temps = _temporaries([(d, a), (dl, levels)])
    counts = None
    try:
        if dl is not None:
            if dl.dtype != d.dtype or dl.ndim != 1 or dl.size < 2:
                raise ValueError(f"{what}: levels must be a 1-D {d.dtype.name} array of "
                                 "bins + 1 >= 2 boundaries")
            if bins is not None and operator.index(bins) != dl.size - 1:
                raise ValueError(f"{what}: {bins} bins and {dl.size} levels (bins + 1 "
                                 "are needed)")
            bins = dl.size - 1
        bins = operator.index(bins)
        if not 1 <= bins <= _lib.GPGPU_HISTOGRAM_MAX_BINS:
            raise ValueError(f"{what}: {bins} bins (1 to {_lib.GPGPU_HISTOGRAM_MAX_BINS} "
                             "are taken)")
        desc = _lib.HistogramDesc(type=d._type, bins=bins)
        if dl is None:
            lo, hi = range
            desc.lower, desc.upper = float(lo), float(hi)
        else:
            desc.levels, desc.levels_offset = dl._ptr(), dl._off
        c = d.ctx
        counts = _new(c, (bins,), _U32)
        _check(_lib.gpgpu_histogram(c._handle, byref(desc), d._ptr(), d._off, d.size,
                                    counts._h.ptr, 0), c)
    except BaseException:
        _release(temps + ([counts] if counts is not None else []))
        raise
    return _finish([counts], dev, temps)


# ---------------------------------------------------------------- segmented reduce


def segmented_reduce(a, segments=None, op="sum", ctx=None):
    """One reduction per segment (gpgpu_segmented_reduce): ``op`` "sum", "min" or "max" of
    each segment [segments[s], segments[s + 1]) of ``a``. ``segments``: n_segments + 1
    offsets from 0 to a.size, not decreasing (as gpgpu.sort's segments=; a DeviceArray of
    them is not checked); for an n-D array it may be left out: each row along the last
    axis is a segment (a.sum(axis=-1), .min, .max).

    Returns n_segments values of a's dtype (shape a.shape[:-1] for rows): numpy for numpy
    ``a``, a DeviceArray for a DeviceArray. An empty segment gives the identity (0; the
    largest value of the dtype, +inf for floats, for min; the smallest, -inf, for max).
    Integer sums wrap modulo 2^32; float sums are in a fixed tree order (the last bits may
    differ from numpy's); NaN propagates through min and max."""
    what = "gpgpu.segmented_reduce"
    try:
        op_c = _SEGMENT_OPS[op]
    except (KeyError, TypeError):
        raise ValueError(f"{what}: op {op!r} is not one of {list(_SEGMENT_OPS)}") from None
    d, dev = _operand(a, ctx, what)
    temps = [d] if d is not a else []
    res = seg = None
    seg_tmp = False
    try:
        if segments is None and d.ndim <= 1:
            raise ValueError(f"{what}: segments= is needed for a 1-D array")
        c = d.ctx
        if segments is None:
            # Each row a segment, rows of no elements too (their identity).
            shape = d.shape[:-1]
            count = d.size // d.shape[-1] if d.shape[-1] else int(np.prod(shape))
            segments = np.arange(count + 1, dtype=np.uint32) * np.uint32(d.shape[-1])
            d = d.ravel()
        else:
            shape = None
        seg, count, seg_tmp = _segments(segments, d, c, what)
        shape = (count,) if shape is None else shape
        res = _new(c, shape, d._type)
        desc = _lib.SegmentedReduceDesc(type=d._type, op=op_c, segments=seg._ptr(),
                                        segments_offset=seg._off)
        _check(_lib.gpgpu_segmented_reduce(c._handle, byref(desc), d._ptr(), d._off, d.size,
                                           res._h.ptr, 0, count), c)
    except BaseException:
        _release(temps + ([res] if res is not None else []))
        raise
    finally:
        if seg_tmp:
            seg.release()
    return _finish([res], dev, temps)


# ------------------------------------------------------ run-length encoding


def run_length_encode(a, ctx=None):
    """Runs of equal consecutive elements of ``a`` (taken flat; gpgpu_run_length_encode):
    returns ``(values, lengths)``, each run's first element and its length (uint32), one
    per run. Elements are equal by the sort's order: integers by value, floats bit for
    bit except that every NaN is one value (so -0 and +0 are different runs; a run of NaNs
    gives its first NaN's bits). numpy for numpy ``a``; DeviceArrays for a DeviceArray (the
    run count is read back, so the call waits for the GPU; the arrays are views of
    a.size-element ones)."""
    what = "gpgpu.run_length_encode"
    d, dev = _operand(a, ctx, what)
    temps = [d] if d is not a else []
    outs = []
    try:
        c = d.ctx
        n = d.size
        outs = [_new(c, (n,), d._type), _new(c, (n,), _U32)]
        desc = _lib.RleDesc(type=d._type)
        runs = c_size_t()
        _check(_lib.gpgpu_run_length_encode(c._handle, byref(desc), d._ptr(), d._off, n,
                                            outs[0]._h.ptr, 0, outs[1]._h.ptr, 0,
                                            byref(runs)), c)
    except BaseException:
        _release(temps + outs)
        raise
    return _runs(outs, runs.value, n, dev, temps)


def _runs(outs, k, n, dev, temps):
    results = [r if k == n else r[:k] for r in outs]
    if not dev:
        temps = temps + outs
    return _finish(results, dev, temps)


def reduce_by_key(keys, values, ctx=None):
    """Reduce-by-key (gpgpu_reduce_by_key): for each run of equal consecutive ``keys`` (as
    gpgpu.run_length_encode finds them; not a group-by: sort first for that), its first
    key and the sum of ``values`` at the run's positions. ``values``: one per key, of any
    dtype of the package (it need not be the keys'); integer sums wrap modulo 2^32, float
    sums are in a fixed order. Returns ``(unique_keys, sums)``: numpy for numpy keys,
    DeviceArrays (views, as run_length_encode's) for DeviceArray keys."""
    what = "gpgpu.reduce_by_key"
    (dk, dv), dev = operands([keys, values], ctx, what)
    temps = _temporaries([(dk, keys), (dv, values)])
    outs = []
    try:
        c = dk.ctx
        n = dk.size
        if dv.size != n:
            raise ValueError(f"{what}: {n} keys and {dv.size} values")
        outs = [_new(c, (n,), dk._type), _new(c, (n,), dv._type)]
        desc = _lib.RleDesc(type=dk._type, value_type=dv._type)
        runs = c_size_t()
        _check(_lib.gpgpu_reduce_by_key(c._handle, byref(desc), dk._ptr(), dk._off, dv._ptr(),
                                        dv._off, n, outs[0]._h.ptr, 0, outs[1]._h.ptr, 0,
                                        byref(runs)), c)
    except BaseException:
        _release(temps + outs)
        raise
    return _runs(outs, runs.value, n, dev, temps)

