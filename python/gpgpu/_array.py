"""DeviceArray: a typed, C-ordered range of a library buffer; uploads and downloads."""
import operator
import threading
from ctypes import byref, c_void_p

import numpy as np

from . import _context, _errors, _lib

TYPES = {np.dtype(np.uint32): _lib.GPGPU_TYPE_U32, np.dtype(np.int32): _lib.GPGPU_TYPE_I32,
         np.dtype(np.float32): _lib.GPGPU_TYPE_F32, np.dtype(np.float64): _lib.GPGPU_TYPE_F64}
DTYPES = {v: k for k, v in TYPES.items()}
_ITEMSIZE = {t: d.itemsize for t, d in DTYPES.items()}
SUPPORTED = "uint32, int32, float32, float64"
# The smallest buffer made: the library refuses 0 bytes, and an empty array still gets a
# buffer so that every call runs with count 0 and gives the library's own result.
_MIN_BYTES = 8
_BUFFER = _context._BUFFER
_Handle = _context.Handle
_destroy = _context._destroy
_get_ident = threading.get_ident


def gpgpu_type(dtype, what="gpgpu"):
    """The gpgpu_type of a numpy dtype; TypeError naming any other dtype."""
    try:
        return TYPES[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"{what}: dtype {np.dtype(dtype).name if _is_dtype(dtype) else dtype!r}"
                        f" is not supported ({SUPPORTED})") from None


def _is_dtype(d):
    try:
        np.dtype(d)
        return True
    except TypeError:
        return False


def check_f64(ctx, t, what):
    if t == _lib.GPGPU_TYPE_F64 and not ctx.has_f64:
        raise _errors.UnsupportedFeatureError(
            f"{what}: float64 needs shader doubles, which this device has not "
            f"({ctx.info['renderer']}, {ctx.backend}); use float32")


class DeviceArray:
    """An array in GPU memory: a C-ordered range of a library buffer (its own, or a caller's
    wrapped GL buffer), of dtype uint32, int32, float32 or float64.

    Made by gpgpu.asarray (upload), gpgpu.empty, gpgpu.wrap_gl and every function given
    DeviceArrays. ``np.asarray(d)`` or ``d.get()`` downloads it; ``d.set(a)`` uploads into
    it; ``d[i:j]`` (and ``d[i]``) are views of the same memory along the first axis;
    ``d.reshape(shape)`` a view of another shape. ``len``, ``shape``, ``dtype``, ``size``,
    ``ndim``, ``nbytes`` as numpy's. It keeps its context alive; ``with`` or
    ``release()`` frees its memory at once (views of it become unusable)."""

    # _n: the element count, kept with the shape (every call passes it to the library).
    __slots__ = ("ctx", "_h", "_off", "_shape", "dtype", "_type", "_base", "_n",
                 "__weakref__")
    __array_priority__ = 100

    def __init__(self, *args, **kwargs):
        raise TypeError("gpgpu.DeviceArray is made by gpgpu.asarray, gpgpu.empty or "
                        "gpgpu.wrap_gl")

    @classmethod
    def _make(cls, ctx, h, off, shape, t, base):
        n = 1
        for s in shape:
            n *= s
        return make(ctx, h, off, shape, t, base, n)

    # ---------------------------------------------------------------- properties

    @property
    def shape(self):
        """The dimensions, a tuple (assigning one reinterprets the elements, as numpy's)."""
        return self._shape

    @shape.setter
    def shape(self, shape):
        n = 1
        for s in shape:
            n *= s
        self._shape, self._n = shape, n

    @property
    def size(self):
        """Elements in all."""
        return self._n

    @property
    def ndim(self):
        """Dimensions."""
        return len(self.shape)

    @property
    def itemsize(self):
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """Bytes of the elements."""
        return self._n * self.dtype.itemsize

    @property
    def offset(self):
        """The first element's index in the library buffer (views and wrapped ranges)."""
        return self._off

    @property
    def buffer(self):
        """The gpgpu_buffer pointer as an int (for other ctypes code)."""
        return self._ptr()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d gpgpu.DeviceArray")
        return self.shape[0]

    def __repr__(self):
        state = "released" if self._h.ptr is None else self.ctx.backend
        return f"<gpgpu.DeviceArray shape={self.shape} dtype={self.dtype.name} {state}>"

    def _ptr(self):
        p = self._h.ptr
        if p is None:
            raise ValueError("gpgpu: the DeviceArray was released (or its context closed)")
        return p

    # ------------------------------------------------------------ host transfers

    def get(self, out=None):
        """Downloads into a new numpy array (or into ``out``, C-contiguous, of this dtype
        and size) and returns it."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif (not isinstance(out, np.ndarray) or out.dtype != self.dtype
              or out.size != self.size or not out.flags.c_contiguous
              or not out.flags.writeable):
            raise ValueError("gpgpu.DeviceArray.get: out must be a writeable C-contiguous "
                             f"{self.dtype.name} array of {self.size} elements")
        n = self.nbytes
        if n:
            _check(_lib.gpgpu_buffer_download(self._ptr(), self._off * self.dtype.itemsize,
                                              out.ctypes.data, n), self.ctx)
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def set(self, a):
        """Uploads ``a`` (converted to this dtype, of this size) into the array."""
        a = np.ascontiguousarray(a, dtype=self.dtype)
        if a.size != self.size:
            raise ValueError(f"gpgpu.DeviceArray.set: {a.size} elements into {self.size}")
        if a.size:
            _check(_lib.gpgpu_buffer_upload(self._ptr(), self._off * self.dtype.itemsize,
                                            a.ctypes.data, a.nbytes), self.ctx)
        return self

    def item(self):
        """The one element, as a Python number (downloads it)."""
        if self.size != 1:
            raise ValueError("gpgpu.DeviceArray.item: the array has "
                             f"{self.size} elements, not 1")
        return self.get().reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    # ------------------------------------------------------------------- views

    def _view(self, off, shape):
        return DeviceArray._make(self.ctx, self._h, self._off + off, shape, self._type,
                                 self._base if self._base is not None else self)

    def __getitem__(self, key):
        if not self.shape:
            raise IndexError("gpgpu.DeviceArray: a 0-d array has no index")
        n = self.shape[0]
        row = 1
        for s in self.shape[1:]:
            row *= s
        if isinstance(key, slice):
            start, stop, step = key.indices(n)
            if step != 1:
                raise IndexError("gpgpu.DeviceArray: views take slices of step 1 "
                                 "(the memory is contiguous)")
            count = max(0, stop - start)
            return self._view(start * row, (count,) + self.shape[1:])
        try:
            i = operator.index(key)
        except TypeError:
            raise IndexError("gpgpu.DeviceArray: index with an int or a slice of the "
                             "first axis") from None
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"gpgpu.DeviceArray: index {key} out of range for {n}")
        return self._view(i * row, self.shape[1:])

    def reshape(self, *shape):
        """A view of another shape with the same elements (one dimension may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        shape = tuple(int(s) for s in shape)
        if shape.count(-1) > 1:
            raise ValueError("gpgpu.DeviceArray.reshape: one dimension at most may be -1")
        if -1 in shape:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            if known == 0 or self.size % known:
                raise ValueError(f"gpgpu.DeviceArray.reshape: cannot reshape {self.shape} "
                                 f"into {shape}")
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        size = 1
        for s in shape:
            size *= s
        if size != self.size or any(s < 0 for s in shape):
            raise ValueError(f"gpgpu.DeviceArray.reshape: cannot reshape {self.shape} into "
                             f"{shape}")
        return self._view(0, shape)

    def ravel(self):
        """A 1-D view."""
        return self._view(0, (self.size,))

    def copy(self):
        """A copy in a new buffer of the same context (copied on the GPU)."""
        out = empty(self.shape, self.dtype, ctx=self.ctx)
        if self.nbytes:
            sz = self.dtype.itemsize
            _check(_lib.gpgpu_buffer_copy(self._ptr(), self._off * sz, out._ptr(), 0,
                                          self.nbytes), self.ctx)
        return out

    # --------------------------------------------------------------- operations

    def sort(self, descending=False, stable=False, algo=None, segments=None):
        """Sorts the array in place (gpgpu.sort with out=self)."""
        from ._ops import sort
        sort(self, descending=descending, stable=stable, algo=algo, segments=segments,
             out=self)

    def __matmul__(self, other):
        from ._ops import matmul
        return matmul(self, other)

    # ----------------------------------------------------------------- lifetime

    def release(self):
        """Frees the array's memory now (the owner of a buffer; a view releases nothing).
        Using it, or any view of it, afterwards raises ValueError."""
        if self._base is None and self._h.ptr is not None:
            self.ctx._release(self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __del__(self):
        try:
            h = self._h
            if self._base is None and h.ptr is not None:
                # Context._release's common case inline (kept in step with it: every
                # result a call makes and drops comes here); any other goes through it.
                ctx = self.ctx
                if ctx._handle is not None and _get_ident() == ctx._thread:
                    _destroy[h.kind](h.ptr)
                    h.ptr = None
                    ctx._live.discard(h)
                else:
                    ctx._release(h)
        except Exception:
            pass


_new_object = object.__new__


def make(ctx, h, off, shape, t, base, n):
    """A DeviceArray of n elements (the product of shape) over Handle h from element off."""
    self = _new_object(DeviceArray)
    self.ctx = ctx
    self._h = h
    self._off = off
    self._shape = shape
    self._type = t
    self.dtype = DTYPES[t]
    self._base = base
    self._n = n
    return self


def new_array(ctx, shape, t, n):
    """A DeviceArray of n elements (the product of shape) in a new buffer of ctx: new_buffer
    inline, then make (each call's result on DeviceArrays is one)."""
    nbytes = n * _ITEMSIZE[t]
    status = _lib.gpgpu_buffer_create(ctx._handle, nbytes if nbytes > _MIN_BYTES else _MIN_BYTES,
                                      ctx._out_ref)
    if status:
        _errors.raise_status(status, ctx._handle)
    # Context._own inline (kept in step with it).
    if ctx._pending:
        ctx._drain()
    h = _Handle(ctx._out.value, _BUFFER)
    ctx._live.add(h)
    return make(ctx, h, 0, shape, t, None, n)


def _check(status, ctx):
    if status:
        _errors.raise_status(status, ctx._handle)


def _shape_of(n):
    if isinstance(n, (tuple, list)):
        shape = tuple(operator.index(s) for s in n)
    else:
        shape = (operator.index(n),)
    if any(s < 0 for s in shape):
        raise ValueError(f"gpgpu: negative dimensions in {shape}")
    return shape


def new_buffer(ctx, nbytes):
    """A library buffer of at least nbytes, owned by ctx (its Handle)."""
    status = _lib.gpgpu_buffer_create(ctx._handle, nbytes if nbytes > _MIN_BYTES else _MIN_BYTES,
                                      ctx._out_ref)
    if status:
        _errors.raise_status(status, ctx._handle)
    return ctx._own(ctx._out.value, _BUFFER)


def empty(n, dtype=np.float32, ctx=None):
    """A new DeviceArray of shape ``n`` (an int or a tuple) and ``dtype`` (uint32, int32,
    float32, float64), contents undefined, on ``ctx`` (default: the thread's context)."""
    ctx = _context.resolve(ctx)
    t = gpgpu_type(dtype, "gpgpu.empty")
    check_f64(ctx, t, "gpgpu.empty")
    shape = _shape_of(n)
    size = 1
    for s in shape:
        size *= s
    return new_array(ctx, shape, t, size)


def host_array(a, what, dtype=None):
    """a as a C-contiguous numpy array of a supported dtype (copied when not contiguous or
    converted); TypeError naming any other dtype."""
    if dtype is not None:
        a = np.asarray(a, dtype=dtype)
    elif not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if a.dtype not in TYPES:
        raise TypeError(f"{what}: dtype {a.dtype.name} is not supported ({SUPPORTED})")
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a


def upload(a, ctx, what="gpgpu.asarray"):
    """A new DeviceArray holding the numpy array a (contiguous, of a supported dtype)."""
    t = TYPES[a.dtype]
    check_f64(ctx, t, what)
    h = new_buffer(ctx, a.nbytes)
    if a.nbytes:
        status = _lib.gpgpu_buffer_upload(h.ptr, 0, a.ctypes.data, a.nbytes)
        if status:
            ctx._release(h)
            _errors.raise_status(status, ctx._handle)
    return DeviceArray._make(ctx, h, 0, a.shape, t, None)


def asarray(a, dtype=None, ctx=None):
    """Uploads ``a`` (a numpy array or anything np.asarray takes) into a new DeviceArray on
    ``ctx`` (default: the thread's context); a DeviceArray of that dtype and context is
    returned as it is. dtype uint32, int32, float32 or float64 (``dtype=`` converts first);
    any other is a TypeError naming it. Non-contiguous arrays are copied first."""
    if isinstance(a, DeviceArray):
        if ctx is not None and ctx is not a.ctx:
            raise ValueError("gpgpu.asarray: the DeviceArray belongs to another context")
        if dtype is not None and np.dtype(dtype) != a.dtype:
            raise TypeError(f"gpgpu.asarray: a {a.dtype.name} DeviceArray is not converted "
                            f"to {np.dtype(dtype).name} on the GPU; download it first")
        a._ptr()
        return a
    ctx = _context.resolve(ctx)
    return upload(host_array(a, "gpgpu.asarray", dtype), ctx)


def wrap_gl(buffer_id, offset=0, nbytes=None, dtype=np.float32, ctx=None):
    """A DeviceArray over ``nbytes`` bytes of the caller's GL buffer object from byte
    ``offset``, without copying (gpgpu_buffer_wrap_gl): what the library does to it, your
    draws see. ``buffer_id`` is the GL name (moderngl: ``buf.glo``) or an object with a
    ``glo`` attribute (then nbytes defaults to its ``size`` - offset). ``ctx``: an adopted
    GL context (default: the thread's, which Context.adopt_gl sets). The GL buffer must
    outlive the array; releasing the array leaves the GL buffer alone. Offset: a multiple
    of 4 (8 for float64)."""
    ctx = _context.resolve(ctx)
    size = None
    if hasattr(buffer_id, "glo"):
        size = getattr(buffer_id, "size", None)
        buffer_id = buffer_id.glo
    if nbytes is None:
        if size is None:
            raise ValueError("gpgpu.wrap_gl: nbytes is needed with a plain buffer name")
        nbytes = size - offset
    t = gpgpu_type(dtype, "gpgpu.wrap_gl")
    check_f64(ctx, t, "gpgpu.wrap_gl")
    item = DTYPES[t].itemsize
    if nbytes % item:
        raise ValueError(f"gpgpu.wrap_gl: {nbytes} bytes is not a whole number of "
                         f"{DTYPES[t].name} elements")
    out = c_void_p()
    _check(_lib.gpgpu_buffer_wrap_gl(ctx._handle, int(buffer_id), offset, nbytes, byref(out)),
           ctx)
    h = ctx._own(out.value, _context._BUFFER)
    return DeviceArray._make(ctx, h, 0, (nbytes // item,), t, None)
