"""Contexts: the library's gpgpu_context, a default one per thread, adopted GL contexts, and
the release of buffers and matrices in a safe order."""
import atexit
import ctypes
import os
import threading
import uuid
import weakref
from ctypes import byref, c_double, c_void_p

from . import _errors, _lib

_BACKENDS = {None: _lib.GPGPU_BACKEND_DEFAULT, "default": _lib.GPGPU_BACKEND_DEFAULT,
             "gl": _lib.GPGPU_BACKEND_GL, "vulkan": _lib.GPGPU_BACKEND_VULKAN}
_PLATFORMS = {None: _lib.GPGPU_GL_PLATFORM_DEFAULT, "egl-device": _lib.GPGPU_GL_PLATFORM_EGL_DEVICE,
              "egl-surfaceless": _lib.GPGPU_GL_PLATFORM_EGL_SURFACELESS,
              "glfw": _lib.GPGPU_GL_PLATFORM_GLFW}
_BUFFER, _MATRIX = 0, 1
_destroy = {_BUFFER: _lib.gpgpu_buffer_destroy, _MATRIX: _lib.gpgpu_matrix_destroy}

# Device selection goes through the environment until gpgpu_context_desc has a device
# field; the lock keeps two threads' creations from seeing each other's variable.
_env_lock = threading.Lock()
_all_contexts = weakref.WeakSet()
_tls = threading.local()


class Handle:
    """A library object (buffer or matrix) of a context: the pointer, and what destroys it.
    The context holds every live Handle (not the Python objects that use them), so closing
    it can destroy them first, whatever order the garbage collector finalizes things in."""
    __slots__ = ("ptr", "kind", "__weakref__")

    def __init__(self, ptr, kind):
        self.ptr = ptr
        self.kind = kind


class Context:
    """A libgpgpu context: the GPU (GL or Vulkan) that arrays and matrices live on.

    ``Context(backend=None, device=None)`` makes a headless one: backend ``"gl"``,
    ``"vulkan"`` or None (``GPGPU_BACKEND`` from the environment, then the library's default,
    GL); device an index into the backend's devices (``GPGPU_EGL_DEVICE`` /
    ``GPGPU_VK_DEVICE`` are set for the creation) or None for the library's choice.
    Keyword options mirror gpgpu_context_desc: ``debug``, ``gl_platform`` ("egl-device",
    "egl-surfaceless", "glfw"), ``memory_limit``, ``memory_cache`` (bytes; 0 = the
    library's default, gpgpu.MEMORY_CACHE_OFF = none), ``transfer_copies``.

    Calls without ``ctx=`` use the thread's default context (gpgpu.default_context()),
    made on first use. ``with Context(...) as ctx:`` makes ctx the thread's default inside
    the block and closes it at the end. A context is used from the thread that made it
    (a GL context is current there); arrays and matrices keep their context alive, and
    ``close()`` (or garbage collection) destroys them before the context itself.
    """

    def __init__(self, backend=None, device=None, *, debug=False, gl_platform=None,
                 memory_limit=0, memory_cache=0, transfer_copies=False):
        try:
            b = _BACKENDS[backend.lower() if isinstance(backend, str) else backend]
        except (KeyError, AttributeError):
            raise ValueError(f"gpgpu.Context: backend {backend!r} is not 'gl', 'vulkan' "
                             "or None") from None
        if gl_platform not in _PLATFORMS:
            raise ValueError(f"gpgpu.Context: gl_platform {gl_platform!r} is not one of "
                             f"{[p for p in _PLATFORMS if p]}")
        desc = _lib.ContextDesc(backend=b, gl_platform=_PLATFORMS[gl_platform], debug=debug,
                                memory_limit=memory_limit, memory_cache=memory_cache,
                                transfer_copies=transfer_copies)
        self._init(desc, device)

    @classmethod
    def adopt_gl(cls, get_proc_address=None, *, debug=False, memory_limit=0, memory_cache=0):
        """Adopts the GL context current in this thread (4.5 or newer): moderngl's standalone
        EGL context, PyOpenGL's or pyglet's. The library uses it at every call and never
        makes another current, so it must be current whenever this context is used; the
        new context becomes the thread's default (calls without ``ctx=``, wrap_gl) until it
        is closed. Close it before the GL context is destroyed.

        ``get_proc_address``: the GL loader to use, a ctypes function pointer or a Python
        callable taking the name as bytes and returning the address; None looks up
        eglGetProcAddress (when an EGL context is current) or glXGetProcAddressARB (GLX).

        A call made while another GL context is current raises WrongContextError; headless
        contexts of the same thread put back what was current after each call."""
        self = cls.__new__(cls)
        gpa, keep = _gl_get_proc_address(get_proc_address)
        desc = _lib.ContextDesc(gl_get_proc_address=gpa, debug=debug,
                                memory_limit=memory_limit, memory_cache=memory_cache)
        self._gl_loader = keep
        self._init(desc, None)
        _stack().append(self)
        return self

    def _init(self, desc, device):
        self._handle = None
        self._thread = threading.get_ident()
        self._live = set()
        self._pending = []
        self._info = None
        self._iota = None
        # The out-parameter of the calls that make buffers, made once: the context is used
        # from one thread at a time, and it is read right after each.
        self._out = c_void_p()
        self._out_ref = byref(self._out)
        handle = c_void_p()
        if device is None:
            status = _lib.gpgpu_context_create(byref(desc), byref(handle))
        else:
            status = _create_on_device(desc, int(device), handle)
        if status:
            _errors.raise_status(status, None)
        self._handle = handle.value
        info = _lib.Info()
        _check(_lib.gpgpu_context_get_info(self._handle, byref(info)), self)
        self._info_struct = info
        self.has_f64 = bool(info.has_f64)
        self.backend = info.backend.decode()
        _all_contexts.add(self)

    # ------------------------------------------------------------------ properties

    @property
    def info(self):
        """What the context runs on, as `gpgpu info` prints it: a dict of backend, platform,
        vendor, renderer, version, version_major, version_minor, has_f64, has_subgroups,
        has_coopmat_f16, subgroup_size, the limits, device_memory_bytes, device (its number in
        gpgpu_device_count's list, 0 where not known), has_uuid and uuid (as gpgpu info prints
        it, 8-4-4-4-12 hex digits, or None)."""
        if self._info is None:
            i = self._info_struct
            d = {}
            for name, _ in _lib.Info._fields_:
                v = getattr(i, name)
                d[name] = v.decode() if isinstance(v, bytes) else v
            d["uuid"] = str(uuid.UUID(bytes=bytes(i.uuid))) if i.has_uuid else None
            self._info = d
        return dict(self._info)

    @property
    def closed(self):
        """True once close() has run."""
        return self._handle is None

    @property
    def handle(self):
        """The gpgpu_context pointer as an int (for other ctypes code), None when closed."""
        return self._handle

    def __repr__(self):
        if self._handle is None:
            return "<gpgpu.Context closed>"
        i = self._info_struct
        return (f"<gpgpu.Context {self.backend} {i.platform.decode()}: "
                f"{i.renderer.decode()}>")

    # -------------------------------------------------------------------- lifetime

    def close(self):
        """Destroys every array and matrix still alive on this context, then the context.
        Arrays and matrices used afterwards raise ValueError. Idempotent. A GL context is
        closed from the thread that made it (others raise RuntimeError)."""
        if self._handle is None:
            return
        if self.backend == "gl" and threading.get_ident() != self._thread:
            raise RuntimeError("gpgpu.Context.close: a GL context is closed from the thread "
                               "that made it (it is current there)")
        self._drain()
        # Matrices first: one made by gpgpu_matrix_wrap_csr would use buffers.
        for kind in (_MATRIX, _BUFFER):
            for h in [h for h in self._live if h.kind == kind]:
                if h.ptr is not None:
                    _destroy[kind](h.ptr)
                    h.ptr = None
        self._live.clear()
        self._iota = None
        handle, self._handle = self._handle, None
        _lib.gpgpu_context_destroy(handle)
        s = getattr(_tls, "stack", None)
        if s is not None and self in s:
            s.remove(self)

    def __del__(self):
        try:
            if self._handle is not None and threading.get_ident() == self._thread:
                self.close()
            # From another thread a GL context cannot be destroyed (it is current in its
            # own): it is left to the process's end rather than destroyed unsafely.
        except Exception:
            pass

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        s = _stack()
        if s and s[-1] is self:
            s.pop()
        self.close()
        return False

    # ---------------------------------------------------------------- resources

    # _array's new_array and DeviceArray.__del__ inline _own and the common case of
    # _release (one of each per call that makes a result): a change here goes there too.
    def _own(self, ptr, kind):
        if self._pending:
            self._drain()
        h = Handle(ptr, kind)
        self._live.add(h)
        return h

    def _release(self, h):
        """Destroys a buffer or matrix now when called from the context's thread, else at
        the context's next allocation in its own thread (or at close)."""
        if h.ptr is None or self._handle is None:
            return
        if threading.get_ident() == self._thread:
            _destroy[h.kind](h.ptr)
            h.ptr = None
            self._live.discard(h)
        else:
            self._pending.append(h)

    def _drain(self):
        if threading.get_ident() != self._thread:
            return
        pending, self._pending = self._pending, []
        for h in pending:
            if h.ptr is not None:
                _destroy[h.kind](h.ptr)
                h.ptr = None
            self._live.discard(h)

    @property
    def live_objects(self):
        """How many buffers and matrices of this context are alive (for leak checks)."""
        return sum(1 for h in self._live if h.ptr is not None)

    # ------------------------------------------------------------------ services

    def check(self):
        """Raises ValueError when the context is closed; returns self."""
        if self._handle is None:
            raise ValueError("gpgpu: the context is closed")
        return self

    def finish(self):
        """Waits until all submitted GPU work has finished (gpgpu_finish)."""
        _check(_lib.gpgpu_finish(self.check()._handle), self)

    def trim(self):
        """Gives back the GPU memory the context keeps between calls (scratch, freed buffers
        kept for reuse, the index array of argsort)."""
        self._iota = None
        _lib.gpgpu_context_trim(self.check()._handle)

    def timer(self):
        """A context manager that measures the GPU time of the calls inside it, summed
        (gpgpu_timer_begin/end): ``with ctx.timer() as t: ...`` then ``t.ns``. Mesa's
        llvmpipe reports 0."""
        return _Timer(self)

    @property
    def last_error(self):
        """The message of the context's last failure ("" if none)."""
        return _lib.gpgpu_last_error(self.check()._handle).decode(errors="replace")


class _Timer:
    __slots__ = ("ctx", "ns")

    def __init__(self, ctx):
        self.ctx = ctx
        self.ns = None

    def __enter__(self):
        _check(_lib.gpgpu_timer_begin(self.ctx.check()._handle), self.ctx)
        return self

    def __exit__(self, *exc):
        ns = c_double()
        _check(_lib.gpgpu_timer_end(self.ctx._handle, byref(ns)), self.ctx)
        self.ns = ns.value
        return False


def _check(status, ctx):
    if status:
        _errors.raise_status(status, ctx._handle if ctx is not None else None)


def _create_on_device(desc, device, handle):
    names = ["GPGPU_EGL_DEVICE", "GPGPU_VK_DEVICE"]
    with _env_lock:
        saved = {n: os.environ.get(n) for n in names}
        try:
            for n in names:
                os.environ[n] = str(device)
            return _lib.gpgpu_context_create(byref(desc), byref(handle))
        finally:
            for n, v in saved.items():
                if v is None:
                    os.environ.pop(n, None)
                else:
                    os.environ[n] = v


# --------------------------------------------------------------- default contexts


def _stack():
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def default_context():
    """The calling thread's default context: the innermost ``with Context()`` block's, else
    the last adopted GL context still open, else one made on first use with
    ``Context()`` (backend from GPGPU_BACKEND) and kept for the thread."""
    s = getattr(_tls, "stack", None)
    if s:
        return s[-1]
    ctx = getattr(_tls, "default", None)
    if ctx is None or ctx._handle is None:
        ctx = _tls.default = Context()
    return ctx


def resolve(ctx):
    """ctx, or the thread's default context when None."""
    if ctx is None:
        return default_context()
    if not isinstance(ctx, Context):
        raise TypeError(f"gpgpu: ctx must be a gpgpu.Context, not {type(ctx).__name__}")
    return ctx.check()


@atexit.register
def _close_at_exit():
    # Before the interpreter tears modules down: the contexts of this (the main) thread
    # close in order, their arrays and matrices first.
    me = threading.get_ident()
    for ctx in list(_all_contexts):
        if ctx._thread == me:
            try:
                ctx.close()
            except Exception:
                pass


# ------------------------------------------------------------------------ GL loaders


def _gl_get_proc_address(given):
    """(the function pointer for gpgpu_context_desc, what must stay alive with it)."""
    if given is not None:
        if isinstance(given, _lib.GetProcAddress):
            return given, given
        if isinstance(given, ctypes._CFuncPtr):
            fp = ctypes.cast(given, _lib.GetProcAddress)
            return fp, (given, fp)
        if callable(given):
            fp = _lib.GetProcAddress(lambda name: given(name))
            return fp, fp
        raise TypeError("gpgpu.Context.adopt_gl: get_proc_address must be a ctypes "
                        "function pointer or a callable")
    try:
        egl = ctypes.CDLL("libEGL.so.1")
        egl.eglGetCurrentContext.restype = c_void_p
        egl.eglGetCurrentContext.argtypes = []
        if egl.eglGetCurrentContext():
            fp = ctypes.cast(egl.eglGetProcAddress, _lib.GetProcAddress)
            return fp, (egl, fp)
    except OSError:
        pass
    for name in ("libGLX.so.0", "libGL.so.1"):
        try:
            glx = ctypes.CDLL(name)
            glx.glXGetCurrentContext.restype = c_void_p
            glx.glXGetCurrentContext.argtypes = []
        except (OSError, AttributeError):
            continue
        if glx.glXGetCurrentContext():
            fp = ctypes.cast(glx.glXGetProcAddressARB, _lib.GetProcAddress)
            return fp, (glx, fp)
    raise _errors.NoContextError("gpgpu.Context.adopt_gl: no GL context is current in this "
                                 "thread (neither EGL nor GLX has one)")
