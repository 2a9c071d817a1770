"""Reductions, prefix sums, sorts, vector dot products and dense products over numpy arrays
and DeviceArrays: numpy in, numpy out; DeviceArray in, DeviceArray out."""
import builtins
from ctypes import byref, c_double

import numpy as np

from . import _context, _errors, _lib
from ._array import DTYPES, DeviceArray, host_array, new_array, upload

_F32, _F64 = _lib.GPGPU_TYPE_F32, _lib.GPGPU_TYPE_F64
_U32 = _lib.GPGPU_TYPE_U32
_SORT_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
               "fast": _lib.GPGPU_ALGO_FAST, "radix": _lib.GPGPU_ALGO_RADIX,
               "bitonic": _lib.GPGPU_ALGO_BITONIC, "classic": _lib.GPGPU_ALGO_CLASSIC_NETSORT,
               "netsort": _lib.GPGPU_ALGO_CLASSIC_NETSORT}
_SCAN_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
               "fast": _lib.GPGPU_ALGO_FAST, "single-pass": _lib.GPGPU_ALGO_SCAN_SINGLE_PASS,
               "reduce-then-scan": _lib.GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN,
               "classic": _lib.GPGPU_ALGO_CLASSIC_SCAN}
_REDUCE_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
                 "fast": _lib.GPGPU_ALGO_FAST, "halving": _lib.GPGPU_ALGO_CLASSIC_HALVING,
                 "stride": _lib.GPGPU_ALGO_CLASSIC_STRIDE,
                 "minmax": _lib.GPGPU_ALGO_CLASSIC_MINMAX}
_GEMM_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
               "tiled": _lib.GPGPU_ALGO_GEMM_TILED, "method1": _lib.GPGPU_ALGO_GEMM_METHOD1,
               "method2": _lib.GPGPU_ALGO_GEMM_METHOD2, "method6": _lib.GPGPU_ALGO_GEMM_METHOD6,
               "coopmat": _lib.GPGPU_ALGO_GEMM_COOPMAT_F16}


def algo_of(table, algo, what):
    if isinstance(algo, int) and not isinstance(algo, bool):
        return algo
    try:
        return table[algo]
    except (KeyError, TypeError):
        raise ValueError(f"{what}: algo {algo!r} is not one of "
                         f"{[k for k in table if k is not None]}") from None


def _check(status, ctx):
    if status:
        _errors.raise_status(status, ctx._handle)


def _new(ctx, shape, t):
    """A new DeviceArray of ctx (no checks: the caller has made them)."""
    size = 1
    for s in shape:
        size *= s
    return new_array(ctx, shape, t, size)


# _new when the caller knows the element count n of shape: _new_n(ctx, shape, t, n).
_new_n = new_array


# The calls on DeviceArrays start with a fast path for the common case (DeviceArrays of
# one context, default options, a fitting out=) that makes the checks the general path
# would make and falls to it on anything else, so that every error, and its message,
# comes from one place. The general path normalises every operand and option.


def _fits(out, c, t, n):
    """Whether out is a live DeviceArray of ctx c, type t and n elements."""
    return (type(out) is DeviceArray and out.ctx is c and out._type == t and out._n == n
            and out._h.ptr is not None)


def operands(arrays, ctx, what):
    """The arrays as DeviceArrays of one context, and whether the first was one already.
    The context is the DeviceArrays' (ctx, when given, must be the same), else ctx or the
    thread's default; numpy operands are uploaded to it."""
    c = None
    for a in arrays:
        if isinstance(a, DeviceArray):
            if c is None:
                c = a.ctx
            elif a.ctx is not c:
                raise ValueError(f"{what}: the arrays belong to different contexts")
    if c is None:
        c = _context.resolve(ctx)
    elif ctx is not None and ctx is not c:
        raise ValueError(f"{what}: ctx is not the context of the DeviceArrays")
    out = []
    for a in arrays:
        if isinstance(a, DeviceArray):
            a._ptr()
            out.append(a)
        elif a is None:
            out.append(None)
        else:
            out.append(upload(host_array(a, what), c, what))
    return out, isinstance(arrays[0], DeviceArray)


def _operand(a, ctx, what):
    if type(a) is DeviceArray:
        if ctx is not None and ctx is not a.ctx:
            raise ValueError(f"{what}: ctx is not the context of the DeviceArray")
        a._ptr()
        return a, True
    (d,), dev = operands([a], ctx, what)
    return d, dev


def _out_array(out, shape_size, t, ctx, what):
    if not isinstance(out, DeviceArray):
        raise TypeError(f"{what}: out must be a DeviceArray")
    if out.ctx is not ctx:
        raise ValueError(f"{what}: out belongs to another context")
    if out._type != t or out.size != shape_size:
        raise ValueError(f"{what}: out must be a {DTYPES[t].name} DeviceArray of "
                         f"{shape_size} elements, not {out.dtype.name} of {out.size}")
    out._ptr()
    return out


# ------------------------------------------------------------------------ reductions

# One read-only descriptor per op and type, passed by a reference made once (the library
# reads a descriptor during the call only, and these are never written).
_REDUCE = {op: {t: byref(_lib.ReduceDesc(t, op, 0)) for t in DTYPES} for op in range(1, 5)}
_MINMAX = _lib.GPGPU_OP_MINMAX


def _reduce(a, op, ctx, out, algo, what):
    d, dev = _operand(a, ctx, what)
    c = d.ctx
    desc = _REDUCE[op][d._type] if algo is None else byref(_lib.ReduceDesc(
        d._type, op, algo_of(_REDUCE_ALGOS, algo, what)))
    k = 2 if op == _MINMAX else 1
    if dev:
        res = _new(c, (k,) if k == 2 else (), d._type) if out is None else \
            _out_array(out, k, d._type, c, what)
        _check(_lib.gpgpu_reduce_to_buffer(c._handle, desc, d._ptr(), d._off, d.size,
                                           res._h.ptr, res._off), c)
        if k == 2:
            return res[0], res[1]
        return res
    host = np.empty(2, d.dtype)
    try:
        _check(_lib.gpgpu_reduce(c._handle, desc, d._h.ptr, 0, d.size,
                                 host.ctypes.data), c)
    finally:
        d.release()
    return (host[0], host[1]) if k == 2 else host[0]


def _reduction(op, name, doc):
    """gpgpu.sum, min or max: the fast path in the function itself (a helper would cost a
    call more), the rest through _reduce."""
    descs, what = _REDUCE[op], "gpgpu." + name

    def reduction(a, ctx=None, out=None, algo=None):
        if type(a) is DeviceArray and algo is None:
            c = a.ctx
            p = a._h.ptr
            if p is not None and (ctx is None or ctx is c):
                t = a._type
                res = _new_n(c, (), t, 1) if out is None else \
                    out if _fits(out, c, t, 1) else _out_array(out, 1, t, c, what)
                status = _lib.gpgpu_reduce_to_buffer(c._handle, descs[t], p, a._off, a._n,
                                                     res._h.ptr, res._off)
                if status:
                    _errors.raise_status(status, c._handle)
                return res
        return _reduce(a, op, ctx, out, algo, what)
    reduction.__name__ = reduction.__qualname__ = name
    reduction.__doc__ = doc
    return reduction


sum = _reduction(_lib.GPGPU_OP_SUM, "sum", """The sum of all elements of ``a`` (any shape), as
    the library sums: integers wrap modulo 2^32 (int32 as two's complement), floats in a
    tree in the element type (not numpy's pairwise order: the last bits may differ).
    Empty: 0.

    numpy in: a numpy scalar of a's dtype. DeviceArray in: a 0-d DeviceArray (the result
    stays on the GPU, nothing waits; ``float(r)`` or ``r.item()`` reads it), written into
    ``out`` (a DeviceArray of one element) when given. ``algo``: None, "halving",
    "stride" (the classic algorithms).""")

min = _reduction(_lib.GPGPU_OP_MIN, "min", """The smallest element of ``a`` (any shape); NaN
    if any element is NaN. Empty: the largest value of the dtype (+inf for floats), as the
    library returns. Results as gpgpu.sum's.""")

max = _reduction(_lib.GPGPU_OP_MAX, "max", """The largest element of ``a`` (any shape); NaN if
    any element is NaN. Empty: the smallest value of the dtype (-inf for floats). Results
    as gpgpu.sum's.""")


def minmax(a, ctx=None, out=None, algo=None):
    """``(min, max)`` of ``a`` in one pass: numpy scalars for numpy input, two 0-d
    DeviceArrays (views of one two-element array, ``out`` when given) for a DeviceArray.
    ``algo="minmax"`` is the classic GPUfindMinMax."""
    return _reduce(a, _lib.GPGPU_OP_MINMAX, ctx, out, algo, "gpgpu.minmax")


def _float_type(d, what):
    if d._type not in (_F32, _F64):
        raise TypeError(f"{what}: dtype {d.dtype.name} is not supported (float32, float64)")


def dot(x, y, ctx=None):
    """The dot product of two float32 or float64 vectors of one dtype and size (any shape,
    taken flat), summed in the element type in a tree (gpgpu_dot). numpy in: a numpy
    scalar; DeviceArray in: a 0-d DeviceArray of the dtype, written on the GPU
    (gpgpu_dot_to_buffer: the same value, without a wait for the GPU)."""
    if type(x) is DeviceArray and type(y) is DeviceArray:
        c = x.ctx
        t = x._type
        px, py = x._h.ptr, y._h.ptr
        if (px is not None and py is not None and y.ctx is c and (ctx is None or ctx is c)
                and (t == _F32 or t == _F64) and y._type == t and x._n == y._n):
            # The dot product stays on the GPU (gpgpu_dot_to_buffer): no wait, no upload.
            res = _new_n(c, (), t, 1)
            status = _lib.gpgpu_dot_to_buffer(c._handle, t, x._n, px, x._off, py, y._off,
                                              res._h.ptr, 0)
            if status:
                _errors.raise_status(status, c._handle)
            return res
    (dx, dy), dev = operands([x, y], ctx, "gpgpu.dot")
    _float_type(dx, "gpgpu.dot")
    if dy.dtype != dx.dtype:
        raise TypeError(f"gpgpu.dot: dtypes {dx.dtype.name} and {dy.dtype.name} differ")
    if dx.size != dy.size:
        raise ValueError(f"gpgpu.dot: sizes {dx.size} and {dy.size} differ")
    c = dx.ctx
    if dev:
        res = _new(c, (), dx._type)
        _check(_lib.gpgpu_dot_to_buffer(c._handle, dx._type, dx.size, dx._ptr(), dx._off,
                                        dy._ptr(), dy._off, res._h.ptr, 0), c)
        return res
    r = c_double()
    _check(_lib.gpgpu_dot(c._handle, dx._type, dx.size, dx._ptr(), dx._off, dy._ptr(),
                          dy._off, byref(r)), c)
    return dx.dtype.type(r.value)


# --------------------------------------------------------------------------- scans

# The default descriptors by type and exclusive, read-only as _REDUCE's.
_SCAN = {t: (byref(_lib.ScanDesc(t, False, 0)), byref(_lib.ScanDesc(t, True, 0)))
         for t in DTYPES}


def cumsum(a, exclusive=False, ctx=None, out=None, algo=None):
    """Prefix sums of ``a`` taken flat (numpy's cumsum without an axis): out[i] = a[0] +
    ... + a[i], or with ``exclusive`` a[0] + ... + a[i-1] (out[0] = 0). Integers wrap
    modulo 2^32, as the library's do; float sums are the library's tree order.

    Returns a new 1-D array (numpy for numpy input, DeviceArray for DeviceArray), or
    writes into ``out`` (a DeviceArray of the same dtype and size; ``a`` itself for in
    place). ``algo``: None, "single-pass", "reduce-then-scan", "classic"."""
    if type(a) is DeviceArray and algo is None:
        c = a.ctx
        p = a._h.ptr
        if p is not None and (ctx is None or ctx is c):
            t, n = a._type, a._n
            res = _new_n(c, (n,), t, n) if out is None else \
                out if _fits(out, c, t, n) else _out_array(out, n, t, c, "gpgpu.cumsum")
            status = _lib.gpgpu_scan(c._handle, _SCAN[t][1 if exclusive else 0], p, a._off,
                                     res._h.ptr, res._off, n)
            if status:
                _errors.raise_status(status, c._handle)
            return res
    d, dev = _operand(a, ctx, "gpgpu.cumsum")
    c = d.ctx
    n = d.size
    desc = _lib.ScanDesc(d._type, bool(exclusive), algo_of(_SCAN_ALGOS, algo, "gpgpu.cumsum"))
    if dev:
        res = _new(c, (n,), d._type) if out is None else \
            _out_array(out, n, d._type, c, "gpgpu.cumsum")
        _check(_lib.gpgpu_scan(c._handle, byref(desc), d._ptr(), d._off, res._h.ptr,
                               res._off, n), c)
        return res
    try:
        _check(_lib.gpgpu_scan(c._handle, byref(desc), d._h.ptr, 0, d._h.ptr, 0, n), c)
        return d.get().reshape(-1)
    finally:
        d.release()


# --------------------------------------------------------------------------- sorting


def _segments(segments, a, c, what):
    """(DeviceArray of the segment offsets, segment count, is it a temporary)."""
    n = a.size
    if segments is None:
        if a.ndim <= 1:
            return None, 0, False
        row = a.shape[-1]
        rows = n // row if row else 0
        offs = np.arange(rows + 1, dtype=np.uint32) * np.uint32(row)
        return upload(offs, c, what), rows, True
    if a.ndim > 1:
        raise ValueError(f"{what}: segments= takes a 1-D array (an n-D one is sorted along "
                         "its last axis)")
    if isinstance(segments, DeviceArray):
        if segments.ctx is not c:
            raise ValueError(f"{what}: segments belong to another context")
        if segments._type not in (_U32, _lib.GPGPU_TYPE_I32) or segments.ndim != 1:
            raise TypeError(f"{what}: segments must be a 1-D uint32 array")
        if segments.size < 1:
            raise ValueError(f"{what}: segments needs n_segments + 1 >= 1 offsets")
        segments._ptr()
        return segments, segments.size - 1, False
    s = np.asarray(segments)
    if s.ndim != 1 or s.size < 1:
        raise ValueError(f"{what}: segments must be a 1-D array of n_segments + 1 offsets")
    if s.dtype.kind not in "iu":
        raise TypeError(f"{what}: segments must be integer offsets, not {s.dtype.name}")
    if s[0] != 0 or s[-1] != n or (s.size > 1 and np.any(np.diff(s.astype(np.int64)) < 0)):
        raise ValueError(f"{what}: segment offsets must rise from 0 to {n} (the array's "
                         f"size) without decreasing; they go from {s[0]} to {s[-1]}")
    return upload(np.ascontiguousarray(s, dtype=np.uint32), c, what), s.size - 1, True


# The default descriptors of sorts without values or segments, by type and then by
# 2 * descending + stable, read-only as _REDUCE's.
_SORT = {t: [byref(_lib.SortDesc(type=t, descending=bool(f & 2), stable=bool(f & 1)))
             for f in range(4)] for t in DTYPES}


def _sort_desc(d, descending, stable, algo, seg, count, what):
    desc = _lib.SortDesc(type=d._type, descending=bool(descending), stable=bool(stable),
                         algo=algo_of(_SORT_ALGOS, algo, what))
    if seg is not None:
        desc.segments = seg._ptr()
        desc.segments_offset = seg._off
        desc.segment_count = count
    return desc


def _host_out(out, a, what):
    if (not isinstance(out, np.ndarray) or out.dtype != a.dtype or out.size != a.size or
            not out.flags.c_contiguous or not out.flags.writeable):
        raise ValueError(f"{what}: out must be a writeable C-contiguous {a.dtype.name} array "
                         f"of {a.size} elements")
    return out


def sort(a, descending=False, stable=False, algo=None, segments=None, out=None, ctx=None):
    """Sorts ``a``: integers by value, floats by -inf < negatives < -0 < +0 < positives <
    +inf < NaN (every NaN equal, bits kept); ``descending`` is the exact reverse (NaNs
    first). An n-D array is sorted along its last axis, as numpy sorts.

    ``stable``: equal keys keep their order (radix, the default above 2048 keys, always
    does). ``algo``: None, "radix", "bitonic", "classic" (Kiciak's network).
    ``segments``: n_segments + 1 offsets (CSR row pointers, from 0 to a.size, not
    decreasing); each segment [offsets[s], offsets[s+1]) is sorted alone.

    Returns a new array (numpy for numpy input, DeviceArray for DeviceArray), or sorts
    into ``out``; ``out=a`` sorts in place (a DeviceArray, or a writeable numpy array)."""
    if (type(a) is DeviceArray and algo is None and segments is None
            and len(a._shape) <= 1):
        c = a.ctx
        p = a._h.ptr
        if p is not None and (ctx is None or ctx is c):
            t, n = a._type, a._n
            if out is a:
                res, kout, koff = a, None, 0
            else:
                res = _new_n(c, a._shape, t, n) if out is None else \
                    out if _fits(out, c, t, n) else _out_array(out, n, t, c, "gpgpu.sort")
                kout, koff = res._h.ptr, res._off
            desc = _SORT[t][(2 if descending else 0) + (1 if stable else 0)]
            status = _lib.gpgpu_sort(c._handle, desc, p, a._off, kout, koff, n)
            if status:
                _errors.raise_status(status, c._handle)
            return res
    what = "gpgpu.sort"
    d, dev = _operand(a, ctx, what)
    c = d.ctx
    n = d.size
    seg, count, seg_tmp = _segments(segments, d, c, what)
    try:
        desc = _sort_desc(d, descending, stable, algo, seg, count, what)
        if dev:
            if out is d:
                res, kout, koff = d, None, 0
            else:
                res = _new(c, d.shape, d._type) if out is None else \
                    _out_array(out, n, d._type, c, what)
                kout, koff = res._h.ptr, res._off
            _check(_lib.gpgpu_sort(c._handle, byref(desc), d._h.ptr, d._off, kout, koff, n), c)
            return res
        if out is not None:
            _host_out(out, d, what)
        _check(_lib.gpgpu_sort(c._handle, byref(desc), d._h.ptr, 0, None, 0, n), c)
        if out is None:
            return d.get()
        d.get(out)
        return out
    finally:
        if seg_tmp:
            seg.release()
        if not dev:
            d.release()


def _iota(c, n):
    """A DeviceArray of 0..n-1 (uint32), a view of one the context keeps and grows."""
    io = c._iota
    if io is None or io.size < n:
        cap = 1
        while cap < builtins.max(n, 1024):
            cap *= 2
        c._iota = None
        io = c._iota = upload(np.arange(cap, dtype=np.uint32), c, "gpgpu.argsort")
    return io[:n]


def _indices(c, d, explicit_segments, dev):
    """The values argsort starts from: 0..n-1, or 0..row-1 in each row of an n-D array."""
    n = d.size
    if d.ndim > 1 and not explicit_segments:
        row = d.shape[-1]
        return upload(np.tile(np.arange(row, dtype=np.uint32), n // row if row else 0)
                      .reshape(d.shape), c, "gpgpu.argsort")
    if not dev:
        return upload(np.arange(n, dtype=np.uint32).reshape(d.shape), c, "gpgpu.argsort")
    res = _new(c, d.shape, _U32)
    if n:
        _check(_lib.gpgpu_buffer_copy(_iota(c, n)._h.ptr, 0, res._h.ptr, 0, 4 * n), c)
    return res


def argsort(a, descending=False, stable=True, algo=None, segments=None, ctx=None):
    """The uint32 indices that sort ``a`` (in gpgpu.sort's order): a[argsort(a)] is sorted.
    Stable by default (equal keys keep their order). An n-D array gives the indices along
    its last axis, as numpy's argsort; with ``segments`` the indices are into the whole
    array. ``a`` is left unchanged. Returns numpy for numpy input, DeviceArray for
    DeviceArray."""
    what = "gpgpu.argsort"
    d, dev = _operand(a, ctx, what)
    c = d.ctx
    n = d.size
    seg, count, seg_tmp = _segments(segments, d, c, what)
    idx = keys = None
    try:
        idx = _indices(c, d, segments is not None, dev)
        desc = _sort_desc(d, descending, stable, algo, seg, count, what)
        desc.values_in = idx._h.ptr
        if dev:
            keys = _new(c, d.shape, d._type)
            kout = keys._h.ptr
        else:
            kout = None
        _check(_lib.gpgpu_sort(c._handle, byref(desc), d._h.ptr, d._off, kout, 0, n), c)
        if dev:
            return idx
        return idx.get()
    finally:
        if seg_tmp:
            seg.release()
        if keys is not None:
            keys.release()
        if not dev:
            d.release()
            if idx is not None:
                idx.release()


_VALUE_TYPES = (_U32, _lib.GPGPU_TYPE_I32, _F32)


def sort_by_key(keys, values, descending=False, stable=False, algo=None, segments=None,
                out=None, ctx=None):
    """Sorts ``keys`` as gpgpu.sort does and moves ``values`` (one per key, a 4-byte dtype:
    uint32, int32 or float32, moved bit for bit) with them: returns ``(keys, values)``
    sorted, numpy for numpy keys, DeviceArrays for DeviceArray keys. ``out=(k, v)`` writes
    there; ``out=(keys, values)`` sorts both in place. ``segments`` as gpgpu.sort's."""
    what = "gpgpu.sort_by_key"
    if (type(keys) is DeviceArray and type(values) is DeviceArray and algo is None
            and segments is None and len(keys._shape) <= 1
            and (out is None or type(out) is tuple and len(out) == 2)):
        c = keys.ctx
        pk, pv = keys._h.ptr, values._h.ptr
        t, vt, n = keys._type, values._type, keys._n
        if (pk is not None and pv is not None and values.ctx is c
                and (ctx is None or ctx is c) and vt in _VALUE_TYPES and values._n == n):
            # A new descriptor each call (it holds the values' buffers): positional
            # arguments make it quicker than keywords.
            desc = _lib.SortDesc(t, bool(descending), bool(stable), _lib.GPGPU_ALGO_DEFAULT,
                                 pv, values._off)
            if out is None:
                rk, rv = _new_n(c, keys._shape, t, n), _new_n(c, values._shape, vt, n)
            else:
                rk, rv = out
            if rk is keys and rv is values:
                kout = None
            else:
                if out is not None:
                    rk = _out_array(rk, n, t, c, what)
                    rv = _out_array(rv, n, vt, c, what)
                kout = rk._h.ptr
                desc.values_out, desc.values_out_offset = rv._h.ptr, rv._off
            status = _lib.gpgpu_sort(c._handle, byref(desc), pk, keys._off, kout,
                                     rk._off if kout else 0, n)
            if status:
                _errors.raise_status(status, c._handle)
            return rk, rv
    (dk, dv), dev = operands([keys, values], ctx, what)
    c = dk.ctx
    n = dk.size
    host_inputs = [x for x, orig in ((dk, keys), (dv, values)) if x is not orig]
    if dv._type not in _VALUE_TYPES:
        for x in host_inputs:
            x.release()
        raise TypeError(f"{what}: values of dtype {dv.dtype.name} are not supported (a "
                        "4-byte dtype: uint32, int32, float32)")
    if dv.size != n:
        for x in host_inputs:
            x.release()
        raise ValueError(f"{what}: {n} keys and {dv.size} values")
    seg, count, seg_tmp = _segments(segments, dk, c, what)
    try:
        desc = _sort_desc(dk, descending, stable, algo, seg, count, what)
        desc.values_in, desc.values_in_offset = dv._h.ptr, dv._off
        if dev:
            if out is not None and out[0] is dk and out[1] is dv:
                rk, rv = dk, dv
                kout = None
            else:
                if out is None:
                    rk, rv = _new(c, dk.shape, dk._type), _new(c, dv.shape, dv._type)
                else:
                    rk = _out_array(out[0], n, dk._type, c, what)
                    rv = _out_array(out[1], n, dv._type, c, what)
                kout = rk._h.ptr
                desc.values_out, desc.values_out_offset = rv._h.ptr, rv._off
            _check(_lib.gpgpu_sort(c._handle, byref(desc), dk._h.ptr, dk._off, kout,
                                   rk._off if kout else 0, n), c)
            return rk, rv
        if dv is values:
            # numpy keys with DeviceArray values: the values are sorted into a copy.
            rv = _new(c, dv.shape, dv._type)
            desc.values_out, desc.values_out_offset = rv._h.ptr, 0
            host_inputs.append(rv)
        else:
            rv = dv
        ok = ov = None
        if out is not None:
            ok, ov = _host_out(out[0], dk, what), _host_out(out[1], dv, what)
        _check(_lib.gpgpu_sort(c._handle, byref(desc), dk._h.ptr, 0, None, 0, n), c)
        return dk.get(ok), rv.get(ov)
    finally:
        if seg_tmp:
            seg.release()
        if not dev:
            for x in host_inputs:
                x.release()


# ------------------------------------------------------------------- dense products

# The default descriptors by type and then 2 * transpose_a + transpose_b, read-only as
# _REDUCE's.
_GEMM = {t: [byref(_lib.GemmDesc(type=t, transpose_a=bool(f & 2), transpose_b=bool(f & 1)))
             for f in range(4)] for t in DTYPES}


def matmul(a, b, transpose_a=False, transpose_b=False, out=None, algo=None, ctx=None):
    """The dense product op(a) @ op(b) of row-major 2-D float32 or float64 matrices of one
    dtype (gpgpu_gemm, f32 arithmetic throughout for float32): op(a) is a (m x k), or a.T
    with ``transpose_a`` (a stored k x m); op(b) likewise (k x n). Returns the m x n
    product: numpy for numpy a, DeviceArray for a DeviceArray (or writes into ``out``, a
    DeviceArray of that shape). ``algo``: None (the register-tiled default), "method1",
    "method2", "method6", "coopmat" (f16 products on matrix units, where the device has
    them)."""
    what = "gpgpu.matmul"
    if type(a) is DeviceArray and type(b) is DeviceArray and algo is None:
        c = a.ctx
        t = a._type
        pa, pb = a._h.ptr, b._h.ptr
        sa, sb = a._shape, b._shape
        if (pa is not None and pb is not None and b.ctx is c and (ctx is None or ctx is c)
                and (t == _F32 or t == _F64) and b._type == t and len(sa) == 2
                and len(sb) == 2):
            m, k = (sa[1], sa[0]) if transpose_a else sa
            k2, n = (sb[1], sb[0]) if transpose_b else sb
            if k == k2:
                if out is None:
                    res = _new_n(c, (m, n), t, m * n)
                elif _fits(out, c, t, m * n) and out._shape == (m, n):
                    res = out
                else:
                    res = None
                if res is not None:
                    desc = _GEMM[t][(2 if transpose_a else 0) + (1 if transpose_b else 0)]
                    status = _lib.gpgpu_gemm(c._handle, desc, m, n, k, 1.0, pa, a._off, pb,
                                             b._off, 0.0, res._h.ptr, res._off)
                    if status:
                        _errors.raise_status(status, c._handle)
                    return res
    (da, db), dev = operands([a, b], ctx, what)
    tmp = [x for x, orig in ((da, a), (db, b)) if x is not orig]
    try:
        _float_type(da, what)
        if db.dtype != da.dtype:
            raise TypeError(f"{what}: dtypes {da.dtype.name} and {db.dtype.name} differ")
        if da.ndim != 2 or db.ndim != 2:
            raise ValueError(f"{what}: 2-D matrices are multiplied, not shapes {da.shape} "
                             f"and {db.shape}")
        m, k = (da.shape[1], da.shape[0]) if transpose_a else da.shape
        k2, n = (db.shape[1], db.shape[0]) if transpose_b else db.shape
        if k != k2:
            raise ValueError(f"{what}: op(a) is {m} x {k} and op(b) {k2} x {n}: the inner "
                             "dimensions differ")
        c = da.ctx
        if out is not None:
            res = _out_array(out, m * n, da._type, c, what)
            if res.shape != (m, n):
                raise ValueError(f"{what}: out has shape {res.shape}, not {(m, n)}")
        else:
            res = _new(c, (m, n), da._type)
        desc = _lib.GemmDesc(type=da._type, algo=algo_of(_GEMM_ALGOS, algo, what),
                             transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))
        _check(_lib.gpgpu_gemm(c._handle, byref(desc), m, n, k, 1.0, da._ptr(), da._off,
                               db._ptr(), db._off, 0.0, res._h.ptr, res._off), c)
        if dev:
            return res
        try:
            return res.get()
        finally:
            res.release()
    finally:
        for x in tmp:
            x.release()
