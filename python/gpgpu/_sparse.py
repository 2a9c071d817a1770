"""Sparse matrices on the GPU (gpgpu_matrix), SpMV, SpGEMM, the transpose, MatrixMarket
files and the generators."""
import ctypes
import os
from collections import namedtuple
from ctypes import POINTER, byref, c_double, c_size_t, c_uint32, c_void_p

import numpy as np

from . import _context, _errors, _lib
from ._array import DTYPES, TYPES, DeviceArray, check_f64, gpgpu_type, host_array, upload
from ._ops import _new, _new_n, algo_of

CSR = namedtuple("CSR", "data indices indptr shape")
CSR.__doc__ = ("A CSR matrix as plain numpy arrays (what gpgpu returns where SciPy is not "
               "installed, and what gpgpu.Matrix takes): data, indices (columns), indptr "
               "(row pointers), shape (rows, cols).")

_FORMATS = {"csr": _lib.GPGPU_FORMAT_CSR, "coo": _lib.GPGPU_FORMAT_COO,
            "csc": _lib.GPGPU_FORMAT_CSC, "ell": _lib.GPGPU_FORMAT_ELL,
            "sell": _lib.GPGPU_FORMAT_SELL, "bsr": _lib.GPGPU_FORMAT_BSR}
_FORMAT_NAMES = {v: k for k, v in _FORMATS.items()}
_SPMV_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
               "classic": _lib.GPGPU_ALGO_CLASSIC_SPMV, "scalar": _lib.GPGPU_ALGO_SPMV_SCALAR,
               "vector": _lib.GPGPU_ALGO_SPMV_VECTOR,
               "balanced": _lib.GPGPU_ALGO_SPMV_BALANCED}
# The default kernel choice's descriptor, read-only (the library reads it during a call).
_SPMV_DEFAULT = byref(_lib.SpmvDesc(_lib.GPGPU_ALGO_DEFAULT, 0, 0))
_SPGEMM_ALGOS = {None: _lib.GPGPU_ALGO_DEFAULT, "default": _lib.GPGPU_ALGO_DEFAULT,
                 "fast": _lib.GPGPU_ALGO_FAST, "rows": _lib.GPGPU_ALGO_SPGEMM_ROWS,
                 "esc": _lib.GPGPU_ALGO_SPGEMM_ESC, "classic": _lib.GPGPU_ALGO_CLASSIC_SPGEMM}
_GENERATORS = {"laplace3d_7": _lib.GPGPU_GEN_LAPLACE3D_7,
               "laplace3d_27": _lib.GPGPU_GEN_LAPLACE3D_27, "random": _lib.GPGPU_GEN_RANDOM,
               "power_law": _lib.GPGPU_GEN_POWER_LAW, "rmat": _lib.GPGPU_GEN_RMAT,
               "banded": _lib.GPGPU_GEN_BANDED, "dense_row": _lib.GPGPU_GEN_DENSE_ROW,
               "dense": _lib.GPGPU_GEN_DENSE}
_MAX_INDEX = 0x7fffffff
_MSG = 512


def _scipy_sparse():
    try:
        import scipy.sparse
        return scipy.sparse
    except ImportError:
        return None


def _issparse(a):
    sp = _scipy_sparse()
    return sp is not None and sp.issparse(a)


def _check(status, ctx):
    if status:
        _errors.raise_status(status, ctx._handle)


def _path(path):
    return os.fsencode(os.fspath(path))


# ------------------------------------------------------------------- host CSR arrays


def _take_csr(csr):
    """Copies a library-filled gpgpu_csr into a CSR of numpy arrays and frees it."""
    try:
        rows, cols, nnz = csr.rows, csr.cols, csr.nnz

        def arr(ptr, n, dtype):
            if n == 0 or not ptr:
                return np.zeros(n, dtype)
            return np.ctypeslib.as_array(ptr, shape=(n,)).copy()

        return CSR(arr(csr.values, nnz, np.float64), arr(csr.col_idx, nnz, np.uint32),
                   arr(csr.row_ptr, rows + 1, np.uint32), (rows, cols))
    finally:
        _lib.gpgpu_csr_free(byref(csr))


def _csr_struct(h):
    """A gpgpu_csr over the arrays of a canonical host CSR (they must outlive its use)."""
    data, indices, indptr, (rows, cols) = h
    return _lib.Csr(rows, cols, data.size, indptr.ctypes.data_as(POINTER(c_uint32)),
                    indices.ctypes.data_as(POINTER(c_uint32)),
                    data.ctypes.data_as(POINTER(c_double)))


def _shape2(shape, what):
    try:
        rows, cols = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: shape must be (rows, cols), not {shape!r}") from None
    if not (0 <= rows <= _MAX_INDEX and 0 <= cols <= _MAX_INDEX):
        raise ValueError(f"{what}: shape {shape} is outside 0..2^31-1")
    return rows, cols


def _from_coo(rows, cols, r, c, v, what):
    """A canonical CSR from triples in any order, duplicates summed (gpgpu_csr_from_coo)."""
    nnz = v.size
    for name, idx, bound in (("row", r, rows), ("column", c, cols)):
        bad = np.flatnonzero((idx < 0) | (idx >= bound))
        if bad.size:
            raise ValueError(f"{what}: entry {bad[0]} has {name} index {idx[bad[0]]}, outside "
                             f"0..{bound - 1}")
    r = np.ascontiguousarray(r, dtype=np.uint32)
    c = np.ascontiguousarray(c, dtype=np.uint32)
    v = np.ascontiguousarray(v, dtype=np.float64)
    out = _lib.Csr()
    msg = ctypes.create_string_buffer(_MSG)
    status = _lib.gpgpu_csr_from_coo(rows, cols, nnz, r.ctypes.data, c.ctypes.data,
                                     v.ctypes.data, byref(out), msg, _MSG)
    if status:
        _errors.raise_message(status, msg, what)
    return _take_csr(out)


def _values64(data, what):
    data = np.asarray(data)
    if data.dtype.kind not in "biuf":
        raise TypeError(f"{what}: matrix values of dtype {data.dtype.name} are not supported "
                        "(real numbers)")
    return np.ascontiguousarray(data, dtype=np.float64).reshape(-1)


def host_csr(A, what):
    """A canonical CSR (sorted columns, no duplicates) of numpy arrays (float64 data,
    uint32 indices) from a scipy.sparse matrix, a CSR / (data, indices, indptr, shape)
    tuple, or a dense 2-D array."""
    if isinstance(A, Matrix):
        return A.to_arrays(values=np.float64)
    if _issparse(A):
        A = A.tocsr()
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
        rows, cols = _shape2(A.shape, what)
        if A.nnz > _MAX_INDEX:
            raise _errors.TooLargeError(f"{what}: {A.nnz} entries is more than 2^31 - 1")
        return CSR(_values64(A.data, what), np.ascontiguousarray(A.indices, dtype=np.uint32),
                   np.ascontiguousarray(A.indptr, dtype=np.uint32), (rows, cols))
    if isinstance(A, tuple) and len(A) == 4:
        data, indices, indptr, shape = A
        rows, cols = _shape2(shape, what)
        data = _values64(data, what)
        indices = np.asarray(indices).reshape(-1)
        indptr = np.asarray(indptr).reshape(-1)
        if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
            raise TypeError(f"{what}: indices and indptr must be integer arrays")
        if indices.size != data.size:
            raise ValueError(f"{what}: {indices.size} column indices for {data.size} values")
        if (indptr.size != rows + 1 or indptr[0] != 0 or indptr[-1] != data.size
                or np.any(np.diff(indptr.astype(np.int64)) < 0)):
            raise ValueError(f"{what}: indptr must hold rows + 1 = {rows + 1} row pointers "
                             f"rising from 0 to nnz = {data.size}")
        r = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr.astype(np.int64)))
        c = indices.astype(np.int64)
        key = r * max(cols, 1) + c
        if (c.size and (c.min() < 0 or c.max() >= cols)) or np.any(np.diff(key) <= 0):
            return _from_coo(rows, cols, r, c, data, what)
        return CSR(data, np.ascontiguousarray(indices, dtype=np.uint32),
                   np.ascontiguousarray(indptr, dtype=np.uint32), (rows, cols))
    if isinstance(A, np.ndarray) and A.ndim == 2:
        rows, cols = _shape2(A.shape, what)
        values = _values64(A, what).reshape(rows, cols)
        r, c = np.nonzero(values)
        counts = np.bincount(r, minlength=rows)
        indptr = np.zeros(rows + 1, np.uint32)
        np.cumsum(counts, out=indptr[1:])
        return CSR(np.ascontiguousarray(values[r, c]), c.astype(np.uint32), indptr,
                   (rows, cols))
    raise TypeError(f"{what}: expected a scipy.sparse matrix, a gpgpu.Matrix, a (data, "
                    f"indices, indptr, shape) tuple or a dense 2-D array, not "
                    f"{type(A).__name__}")


# ----------------------------------------------------------------------- the matrix


class Matrix:
    """A sparse matrix on the GPU (gpgpu_matrix), in float32 or float64, in one of the
    library's formats: "csr" (the default), "coo", "csc", "ell", "sell", "bsr".

    ``Matrix(A, dtype=np.float32, format="csr", ctx=None)`` uploads any scipy.sparse
    matrix, a ``(data, indices, indptr, shape)`` tuple (gpgpu.CSR), a dense 2-D array or
    another Matrix (duplicates summed, columns sorted). Format parameters: ``sell_c``,
    ``sell_sigma``, ``bsr_block``, ``ell_max_fill`` (0: the library's defaults).

    ``M @ x`` is SpMV (x a vector: numpy in, numpy out; DeviceArray in, DeviceArray out),
    ``M @ M2`` SpGEMM (a new CSR Matrix), ``M.T`` the transpose computed on the GPU (CSR),
    ``M.to_scipy()`` a scipy.sparse.csr_matrix of the matrix's values. ``shape``, ``nnz``,
    ``dtype``, ``format``, ``info`` (gpgpu_matrix_info as a dict). A matrix in another
    format than CSR keeps its host CSR too: the library's transpose, SpGEMM and download
    take CSR, so those go through a CSR copy of it."""

    __array_priority__ = 100

    def __init__(self, A, dtype=np.float32, format="csr", ctx=None, *, sell_c=0,
                 sell_sigma=0, bsr_block=0, ell_max_fill=0.0):
        what = "gpgpu.Matrix"
        t = gpgpu_type(dtype, what)
        if t not in (_lib.GPGPU_TYPE_F32, _lib.GPGPU_TYPE_F64):
            raise TypeError(f"{what}: dtype {np.dtype(dtype).name} is not supported "
                            "(float32, float64)")
        try:
            fmt = _FORMATS[format.lower()]
        except (KeyError, AttributeError):
            raise ValueError(f"{what}: format {format!r} is not one of "
                             f"{list(_FORMATS)}") from None
        if ctx is None and isinstance(A, Matrix):
            ctx = A.ctx
        ctx = _context.resolve(ctx)
        check_f64(ctx, t, what)
        h = host_csr(A, what)
        desc = _lib.MatrixDesc(t, fmt, _lib.FormatParams(sell_c, sell_sigma, bsr_block,
                                                         ell_max_fill))
        out = c_void_p()
        csr = _csr_struct(h)
        _check(_lib.gpgpu_matrix_create(ctx._handle, byref(desc), byref(csr), byref(out)), ctx)
        self._init(ctx, out.value, h if fmt != _lib.GPGPU_FORMAT_CSR else None)

    @classmethod
    def _adopt(cls, ctx, ptr, host=None):
        self = cls.__new__(cls)
        self._init(ctx, ptr, host)
        return self

    def _init(self, ctx, ptr, host):
        self.ctx = ctx
        self._h = ctx._own(ptr, _context._MATRIX)
        self._host = host
        info = _lib.MatrixInfo()
        _check(_lib.gpgpu_matrix_get_info(ptr, byref(info)), ctx)
        self._type = info.type
        self.dtype = DTYPES[info.type]
        self.format = _FORMAT_NAMES[info.format]
        self.shape = (info.rows, info.cols)
        self.nnz = info.nnz
        self._info = {name: getattr(info, name) for name, _ in _lib.MatrixInfo._fields_}
        self._info["type"] = self.dtype.name
        self._info["format"] = self.format

    @property
    def info(self):
        """gpgpu_matrix_info: type, format, rows, cols, nnz, stored (with padding), bytes
        (GPU memory of its arrays)."""
        return dict(self._info)

    def _ptr(self):
        p = self._h.ptr
        if p is None:
            raise ValueError("gpgpu: the Matrix was released (or its context closed)")
        return p

    def __repr__(self):
        return (f"<gpgpu.Matrix {self.shape[0]}x{self.shape[1]} nnz={self.nnz} "
                f"{self.format} {self.dtype.name}>")

    # ---------------------------------------------------------------- products

    def __matmul__(self, other):
        if type(other) is DeviceArray:
            return spmv(self, other)
        if isinstance(other, Matrix) or _issparse(other):
            return spgemm(self, other)
        return spmv(self, other)

    def dot(self, other):
        """self @ other."""
        return self @ other

    @property
    def T(self):
        """The transpose, a new CSR Matrix computed on the GPU (gpgpu_matrix_transpose: a
        stable radix sort of the entries by column)."""
        src = self._as_csr()
        out = c_void_p()
        try:
            _check(_lib.gpgpu_matrix_transpose(self.ctx._handle, src._ptr(), byref(out)),
                   self.ctx)
        finally:
            if src is not self:
                src.release()
        return Matrix._adopt(self.ctx, out.value)

    def transpose(self):
        """self.T."""
        return self.T

    def _as_csr(self):
        self._ptr()
        if self.format == "csr":
            return self
        return Matrix(self._host, dtype=self.dtype, ctx=self.ctx)

    # ---------------------------------------------------------------- downloads

    def to_arrays(self, values=None):
        """The matrix as a gpgpu.CSR of numpy arrays (data in the matrix's dtype, or
        ``values``; uint32 indices and row pointers), downloaded from the GPU."""
        self._ptr()
        if self._host is not None:
            data, indices, indptr, shape = self._host
            data = data.astype(self.dtype).astype(values or self.dtype)
            return CSR(data, indices.copy(), indptr.copy(), shape)
        csr = _lib.Csr()
        _check(_lib.gpgpu_matrix_download(self._ptr(), byref(csr)), self.ctx)
        h = _take_csr(csr)
        return h._replace(data=h.data.astype(values or self.dtype))

    def to_scipy(self):
        """A scipy.sparse.csr_matrix of the matrix (its dtype, sorted columns)."""
        sp = _scipy_sparse()
        if sp is None:
            raise ImportError("gpgpu.Matrix.to_scipy needs SciPy (python3-scipy); "
                              "to_arrays() gives the CSR arrays")
        data, indices, indptr, shape = self.to_arrays()
        return sp.csr_matrix((data, indices.astype(np.int32), indptr.astype(np.int32)),
                             shape=shape)

    # ----------------------------------------------------------------- lifetime

    def release(self):
        """Frees the matrix's GPU memory now; using it afterwards raises ValueError."""
        if self._h.ptr is not None:
            self.ctx._release(self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __del__(self):
        try:
            if self._h.ptr is not None:
                self.ctx._release(self._h)
        except Exception:
            pass


def as_matrix(A, ctx, what):
    """(a Matrix for A, whether it is a temporary): a Matrix as it is; a scipy.sparse
    matrix in its own dtype (float32 or float64)."""
    if isinstance(A, Matrix):
        if ctx is not None and ctx is not A.ctx:
            raise ValueError(f"{what}: the Matrix belongs to another context")
        A._ptr()
        return A, False
    if _issparse(A):
        if A.dtype not in (np.float32, np.float64):
            raise TypeError(f"{what}: a scipy matrix of dtype {A.dtype.name} is not supported "
                            "(float32, float64); convert it, or make a gpgpu.Matrix")
        return Matrix(A, dtype=A.dtype, ctx=ctx), True
    raise TypeError(f"{what}: expected a gpgpu.Matrix or a scipy.sparse matrix, not "
                    f"{type(A).__name__}")


# --------------------------------------------------------------------------- SpMV


def _vector(v, ctx, t, n, what, name):
    """v as a DeviceArray of type t and n elements on ctx: (array, is it a temporary)."""
    if isinstance(v, DeviceArray):
        if v.ctx is not ctx:
            raise ValueError(f"{what}: {name} belongs to another context than the matrix")
        if v._type != t:
            raise TypeError(f"{what}: {name} is {v.dtype.name}, the matrix {DTYPES[t].name}")
        if v.size != n:
            raise ValueError(f"{what}: {name} has {v.size} elements, the matrix needs {n}")
        v._ptr()
        return v, False
    a = np.asarray(v)
    if a.dtype not in (np.float32, np.float64):
        raise TypeError(f"{what}: {name} of dtype {a.dtype.name} is not supported (float32, "
                        "float64)")
    if a.size != n:
        raise ValueError(f"{what}: {name} has {a.size} elements (shape {a.shape}), the "
                         f"matrix needs {n}")
    return upload(host_array(a, what, DTYPES[t]).reshape(-1), ctx, what), True


def spmv(M, x, y=None, alpha=1.0, beta=0.0, algo=None, threads_per_row=0, rows_per_group=0,
         ctx=None):
    """y = alpha * M @ x + beta * y (gpgpu_spmv), in M's dtype.

    ``M``: a gpgpu.Matrix, or a scipy.sparse matrix (used in its own dtype, float32 or
    float64). ``x``: a vector of M.shape[1] elements. ``y``: None (a new vector; beta must
    then be 0), or a vector of M.shape[0] elements updated in place (a DeviceArray, or a
    writeable numpy array of M's dtype). Returns y: numpy for numpy x (or y), DeviceArray
    for DeviceArray. ``algo``: None, "scalar", "vector", "balanced", "classic"; the vector
    kernel's shape by ``threads_per_row`` and ``rows_per_group`` (0: tuned or heuristic)."""
    what = "gpgpu.spmv"
    # The fast path of _ops' functions: a Matrix and DeviceArrays of its context and
    # type, the default kernel choice.
    if (type(M) is Matrix and type(x) is DeviceArray and algo is None
            and type(threads_per_row) is int and type(rows_per_group) is int
            and threads_per_row == 0 and rows_per_group == 0):
        c = M.ctx
        t = M._type
        pm, px = M._h.ptr, x._h.ptr
        rows, cols = M.shape
        if (pm is not None and px is not None and x.ctx is c and (ctx is None or ctx is c)
                and x._type == t and x._n == cols):
            if y is None:
                dy = _new_n(c, (rows,), t, rows) if beta == 0 else None
            elif (type(y) is DeviceArray and y.ctx is c and y._type == t and y._n == rows
                  and y._h.ptr is not None):
                dy = y
            else:
                dy = None
            if dy is not None:
                status = _lib.gpgpu_spmv(c._handle, _SPMV_DEFAULT, float(alpha), pm, px, x._off,
                                         float(beta), dy._h.ptr, dy._off)
                if status:
                    _errors.raise_status(status, c._handle)
                return dy
    if ctx is None:
        ctx = next((v.ctx for v in (x, y) if isinstance(v, DeviceArray)), None)
    A, a_tmp = as_matrix(M, ctx, what)
    c = A.ctx
    rows, cols = A.shape
    tmp = [A] if a_tmp else []
    try:
        dx, x_tmp = _vector(x, c, A._type, cols, what, "x")
        if x_tmp:
            tmp.append(dx)
        host_y = None
        if y is None:
            if beta != 0:
                raise ValueError(f"{what}: beta = {beta} needs a y to scale")
            dy = _new(c, (rows,), A._type)
            dev = not x_tmp
        else:
            if isinstance(y, np.ndarray):
                if (y.dtype != A.dtype or not y.flags.c_contiguous
                        or not y.flags.writeable):
                    raise ValueError(f"{what}: a numpy y must be a writeable C-contiguous "
                                     f"{A.dtype.name} array")
                host_y = y
            dy, y_tmp = _vector(y, c, A._type, rows, what, "y")
            if y_tmp:
                tmp.append(dy)
            dev = not y_tmp
        desc = _lib.SpmvDesc(algo_of(_SPMV_ALGOS, algo, what), threads_per_row,
                             rows_per_group)
        _check(_lib.gpgpu_spmv(c._handle, byref(desc), float(alpha), A._ptr(), dx._h.ptr,
                               dx._off, float(beta), dy._h.ptr, dy._off), c)
        if dev:
            return dy
        if host_y is not None:
            dy.get(host_y)
            return host_y
        try:
            return dy.get()
        finally:
            dy.release()
    finally:
        for t in tmp:
            t.release()


# ------------------------------------------------------------------------- SpGEMM


def spgemm(A, B, algo=None, drop_zeros=False, memory_budget=0, ctx=None):
    """C = A @ B for two sparse matrices of one dtype and context (gpgpu_spgemm), as a new
    CSR gpgpu.Matrix holding every (i, j) some a_ik * b_kj reaches (zeros kept, as
    cuSPARSE keeps them, unless ``drop_zeros``), columns sorted. A scipy operand is
    uploaded first (B in A's dtype; A alone in its own). ``C.spgemm_stats`` says what the
    product did (products, chunks, peak_bytes, ...). ``algo``: None, "rows", "esc",
    "classic"; ``memory_budget``: bytes the product may take (0: the library's)."""
    what = "gpgpu.spgemm"
    a, a_tmp = as_matrix(A, ctx, what)
    tmp = [a] if a_tmp else []
    try:
        if isinstance(B, Matrix):
            if B.ctx is not a.ctx:
                raise ValueError(f"{what}: the matrices belong to different contexts")
            b = B
        elif _issparse(B):
            b = Matrix(B, dtype=a.dtype, ctx=a.ctx)
            tmp.append(b)
        else:
            raise TypeError(f"{what}: B must be a gpgpu.Matrix or a scipy.sparse matrix")
        if b.dtype != a.dtype:
            raise TypeError(f"{what}: dtypes {a.dtype.name} and {b.dtype.name} differ")
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"{what}: A is {a.shape[0]} x {a.shape[1]} and B {b.shape[0]} x "
                             f"{b.shape[1]}: A's columns and B's rows differ")
        ca = a._as_csr()
        cb = ca if b is a else b._as_csr()
        tmp += [m for m in {id(ca): ca, id(cb): cb}.values() if m is not a and m is not b]
        desc = _lib.SpgemmDesc(algo=algo_of(_SPGEMM_ALGOS, algo, what),
                               drop_zeros=bool(drop_zeros), memory_budget=memory_budget)
        stats = _lib.SpgemmStats()
        out = c_void_p()
        _check(_lib.gpgpu_spgemm(a.ctx._handle, byref(desc), ca._ptr(), cb._ptr(), byref(out),
                                 byref(stats)), a.ctx)
        C = Matrix._adopt(a.ctx, out.value)
        C.spgemm_stats = {name: getattr(stats, name) for name, _ in _lib.SpgemmStats._fields_}
        return C
    finally:
        for t in tmp:
            t.release()


# -------------------------------------------------------------------------- files


def _sparse_result(h):
    sp = _scipy_sparse()
    if sp is None:
        return h
    data, indices, indptr, shape = h
    return sp.csr_matrix((data, indices.astype(np.int32), indptr.astype(np.int32)),
                         shape=shape)


def read_mtx(path, dtype=None):
    """Reads a MatrixMarket file (or .mtx.gz) with the library's reader.

    Without ``dtype``: gpgpu_mtx_read_matrix. A coordinate file gives a
    scipy.sparse.csr_matrix of float64 (a gpgpu.CSR tuple where SciPy is not installed):
    symmetric files expanded, pattern entries 1, duplicates summed; an array file gives a
    dense 2-D float64 numpy array (as scipy.io.mmread does).

    With ``dtype`` (uint32, int32, float32, float64): gpgpu_mtx_read_vector, a 1-D
    numpy array of that dtype, each value checked to fit it.

    Errors: gpgpu.FileError (an OSError) when the file cannot be read, gpgpu.ParseError
    (a ValueError) naming the line of a malformed one, gpgpu.TooLargeError."""
    what = "gpgpu.read_mtx"
    p = _path(path)
    msg = ctypes.create_string_buffer(_MSG)
    if dtype is not None:
        t = gpgpu_type(dtype, what)
        data, count = c_void_p(), c_size_t()
        status = _lib.gpgpu_mtx_read_vector(p, t, byref(data), byref(count), msg, _MSG)
        if status:
            _errors.raise_message(status, msg)
        try:
            dt = DTYPES[t]
            if count.value == 0:
                return np.zeros(0, dt)
            buf = (ctypes.c_char * (count.value * dt.itemsize)).from_address(data.value)
            return np.frombuffer(buf, dtype=dt).copy()
        finally:
            _lib.libc_free(data)
    csr, header = _lib.Csr(), _lib.MtxHeader()
    status = _lib.gpgpu_mtx_read_matrix(p, byref(csr), byref(header), msg, _MSG)
    if status:
        _errors.raise_message(status, msg)
    h = _take_csr(csr)
    if header.array:
        return h.data.reshape(h.shape)
    return _sparse_result(h)


def write_mtx(path, a):
    """Writes a MatrixMarket file with the library's writers: a gpgpu.Matrix, a
    scipy.sparse matrix or a gpgpu.CSR as `coordinate real general` (%.17g); a 1-D array
    (numpy or DeviceArray, uint32/int32/float32/float64) as a one-column `array` file in
    its type (`integer` or `real`, every value reading back bit-equal but a NaN's
    payload); a 2-D float array as a dense `array real general` file. "-" is stdout."""
    what = "gpgpu.write_mtx"
    p = _path(path)
    msg = ctypes.create_string_buffer(_MSG)
    if isinstance(a, DeviceArray):
        a = a.get()
    if isinstance(a, Matrix) or _issparse(a) or (isinstance(a, tuple) and len(a) == 4):
        h = host_csr(a, what)
        csr = _csr_struct(h)
        status = _lib.gpgpu_mtx_write_matrix(p, byref(csr), msg, _MSG)
    else:
        arr = np.asarray(a)
        if arr.ndim == 2:
            v = _values64(arr, what).reshape(arr.shape)
            rows, cols = _shape2(arr.shape, what)
            status = _lib.gpgpu_mtx_write_dense(p, rows, cols, v.ctypes.data, cols, msg, _MSG)
        elif arr.ndim == 1:
            arr = host_array(arr, what)
            status = _lib.gpgpu_mtx_write_vector(p, TYPES[arr.dtype], arr.ctypes.data,
                                                 arr.size, msg, _MSG)
        else:
            raise ValueError(f"{what}: a {arr.ndim}-D array is neither a vector nor a matrix")
    if status:
        _errors.raise_message(status, msg)


def generate(kind, size, avg=0, seed=0):
    """A reproducible sparse matrix from the library's generators (gpgpu_generate), as a
    scipy.sparse.csr_matrix of float64 (a gpgpu.CSR without SciPy). ``kind``:
    "laplace3d_7" (size^3 rows, SPD), "laplace3d_27", "random" (size rows, row lengths
    uniform in [0, 2*avg]), "power_law", "rmat" (2^size rows, avg * 2^size edges),
    "banded" (half-width avg), "dense_row", "dense" (size x size)."""
    try:
        g = _GENERATORS[kind]
    except KeyError:
        raise ValueError(f"gpgpu.generate: kind {kind!r} is not one of "
                         f"{list(_GENERATORS)}") from None
    csr = _lib.Csr()
    status = _lib.gpgpu_generate(g, size, avg, seed, byref(csr))
    if status:
        raise _errors.error(status, f"gpgpu.generate: {kind} of size {size}, avg {avg}: "
                            f"{_lib.gpgpu_status_string(status).decode()}")
    return _sparse_result(_take_csr(csr))
