"""Contexts (info, defaults per thread, context managers, the order of release) and
DeviceArrays (transfers, views, dtypes, shapes)."""
import gc
import os
import subprocess
import threading
import types
import weakref

import numpy as np
import pytest

import gpgpu
from _ref import DTYPES, data, same_bits


def test_info_is_what_gpgpu_info_prints(ctx):
    cli = os.environ.get("GPGPU_CLI")
    if not cli:
        pytest.skip("GPGPU_CLI (the gpgpu command) is not set")
    env = dict(os.environ, GPGPU_BACKEND=ctx.backend)
    out = subprocess.run([cli, "info"], capture_output=True, text=True, env=env, check=True)
    printed = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
    info = ctx.info
    assert set(printed) <= set(info)
    for k, v in printed.items():
        want = ("yes" if info[k] else "no") if isinstance(info[k], bool) else \
            "none" if info[k] is None else str(info[k])
        assert want == v, k
    assert info["backend"] == os.environ.get("GPGPU_BACKEND", info["backend"])


def test_context_options_and_repr():
    with gpgpu.Context(memory_cache=gpgpu.MEMORY_CACHE_OFF, debug=True) as c:
        assert gpgpu.default_context() is c  # the thread's default inside the block
        assert "Context" in repr(c) and not c.closed
        d = gpgpu.asarray(np.arange(5, dtype=np.uint32))
        assert d.ctx is c and c.live_objects == 1
    assert c.closed and gpgpu.default_context() is not c
    with pytest.raises(ValueError, match="released"):
        d.get()  # closing destroyed it first
    with pytest.raises(ValueError, match="closed"):
        gpgpu.sum(np.ones(3, np.float32), ctx=c)
    with pytest.raises(ValueError, match="backend"):
        gpgpu.Context(backend="metal")
    with pytest.raises(ValueError, match="gl_platform"):
        gpgpu.Context(gl_platform="wayland")


def test_release_order_under_garbage_collection():
    c = gpgpu.Context()
    arrays = [gpgpu.asarray(np.arange(100, dtype=np.float32), ctx=c) for _ in range(5)]
    M = gpgpu.Matrix(np.eye(4), ctx=c)
    view = arrays[0][10:20]
    # A cycle holding the context, its arrays and a matrix: the collector may finalize
    # them in any order; the context destroys what is left before itself.
    cycle = {"ctx": c, "arrays": arrays, "m": M, "view": view}
    cycle["self"] = cycle
    assert c.live_objects == 6
    handles = list(c._live)
    ref = weakref.ref(c)
    del c, arrays, M, view, cycle
    gc.collect()
    assert ref() is None                        # collected, and closed on the way:
    assert all(h.ptr is None for h in handles)  # every buffer and matrix destroyed


def test_release_and_context_managers(ctx):
    base = ctx.live_objects
    with gpgpu.asarray(np.ones(10, np.float32)) as d:
        assert ctx.live_objects == base + 1
        v = d[2:4]
    assert ctx.live_objects == base
    with pytest.raises(ValueError, match="released"):
        v.get()
    with gpgpu.Matrix(np.eye(3)) as M:
        assert ctx.live_objects == base + 1
    assert ctx.live_objects == base
    with pytest.raises(ValueError, match="released"):
        M @ np.ones(3, np.float32)
    d = gpgpu.empty(7, np.int32)
    del d
    assert ctx.live_objects == base  # dropped by reference counting at once


def test_default_context_per_thread(ctx):
    seen = {}

    def work():
        c = gpgpu.default_context()
        seen["ctx"] = c
        seen["sum"] = gpgpu.sum(np.arange(10, dtype=np.int32))
        seen["same"] = gpgpu.default_context() is c
        c.close()

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen["ctx"] is not ctx and seen["sum"] == 45 and seen["same"]
    assert gpgpu.default_context() is ctx


def test_release_from_another_thread_is_deferred(ctx):
    base = ctx.live_objects
    d = gpgpu.asarray(np.ones(10, np.float32))
    holder = [d]
    del d
    t = threading.Thread(target=holder.clear)  # the last reference dies in another thread
    t.start()
    t.join()
    assert ctx.live_objects == base + 1        # not destroyed there ...
    gpgpu.empty(1)                              # ... but at the next allocation here
    assert ctx.live_objects == base


@pytest.mark.parametrize("dtype", DTYPES)
def test_transfers(rng, dtype):
    a = data(rng, dtype, 1001, special=True)
    d = gpgpu.asarray(a)
    assert (d.shape, d.dtype, len(d), d.size, d.ndim, d.nbytes) == (
        (1001,), np.dtype(dtype), 1001, 1001, 1, a.nbytes)
    assert same_bits(np.asarray(d), a) and same_bits(d.get(), a)
    assert np.asarray(d, dtype=np.float64).dtype == np.float64
    b = data(rng, dtype, 1001)
    d.set(b)
    assert same_bits(d.get(), b)
    out = np.empty(1001, dtype)
    assert d.get(out) is out and same_bits(out, b)
    c = d.copy()
    d.set(a)
    assert same_bits(c.get(), b)
    assert gpgpu.asarray(d) is d


def test_views_and_shapes(rng):
    a = data(rng, np.int32, 60)
    d = gpgpu.asarray(a.reshape(3, 20))
    assert d.shape == (3, 20) and len(d) == 3
    assert np.array_equal(d[1].get(), a[20:40]) and d[1].offset == 20
    assert np.array_equal(d[-1].get(), a[40:])
    assert np.array_equal(d[1:3].get(), a[20:].reshape(2, 20))
    r = d.reshape(-1)
    assert r.shape == (60,) and np.array_equal(r[5:9].get(), a[5:9])
    assert d.reshape(5, 12).shape == (5, 12) and d.ravel().shape == (60,)
    r[5:9].set(np.zeros(4, np.int32))
    assert not d.get().reshape(-1)[5:9].any()
    assert gpgpu.sum(d[0]).item() == d.get()[0].sum(dtype=np.int32)
    z = d[2]
    assert z[3].item() == a[43] and int(z[3]) == a[43] and z[3].shape == ()
    with pytest.raises(IndexError):
        d[3]
    with pytest.raises(IndexError):
        d[::2]
    with pytest.raises(ValueError):
        d.reshape(7, 9)
    with pytest.raises(ValueError):
        d.set(np.ones(5))
    e = gpgpu.empty((2, 0), np.float64)
    assert e.shape == (2, 0) and e.get().shape == (2, 0)
    assert gpgpu.asarray(np.zeros(0, np.uint32)).get().size == 0
    assert "DeviceArray" in repr(d)
    with pytest.raises(TypeError):
        gpgpu.DeviceArray()


@pytest.mark.parametrize("bad", [np.int64, np.float16, np.uint8, np.complex64, np.bool_])
def test_unsupported_dtypes_name_the_dtype(bad):
    a = np.ones(10, bad)
    name = np.dtype(bad).name
    for f in (gpgpu.asarray, gpgpu.sum, gpgpu.cumsum, gpgpu.sort, gpgpu.argsort):
        with pytest.raises(TypeError, match=name):
            f(a)
    with pytest.raises(TypeError, match=name):
        gpgpu.empty(3, bad)
    with pytest.raises(TypeError, match=name):
        gpgpu.sort_by_key(np.ones(10, np.float32), a)
    with pytest.raises(TypeError, match="int64"):
        gpgpu.asarray([1, 2, 3])   # a list of Python ints is int64 to numpy
    assert gpgpu.asarray([1, 2, 3], dtype=np.int32).dtype == np.int32


def test_float64_without_doubles_says_so(ctx, monkeypatch):
    monkeypatch.setattr(ctx, "has_f64", False)
    for f in (lambda: gpgpu.asarray(np.ones(3)), lambda: gpgpu.empty(3, np.float64),
              lambda: gpgpu.sum(np.ones(3)), lambda: gpgpu.Matrix(np.eye(2), np.float64)):
        with pytest.raises(gpgpu.UnsupportedFeatureError, match="float64.*doubles") as e:
            f()
        assert isinstance(e.value, NotImplementedError)
    assert gpgpu.sum(np.ones(3, np.float32)) == 3


def test_shape_mismatches_are_value_errors():
    with pytest.raises(ValueError):
        gpgpu.dot(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError):
        gpgpu.sort_by_key(np.ones(3, np.float32), np.ones(4, np.uint32))
    with pytest.raises(ValueError):
        gpgpu.cumsum(gpgpu.asarray(np.ones(3, np.float32)),
                     out=gpgpu.empty(4, np.float32))
    with pytest.raises(ValueError):
        gpgpu.sum(gpgpu.asarray(np.ones(3, np.float32)), out=gpgpu.empty(2, np.float32))


def test_arrays_of_two_contexts_do_not_mix(ctx):
    with gpgpu.Context() as other:
        x = gpgpu.asarray(np.ones(4, np.float32), ctx=other)
        y = gpgpu.asarray(np.ones(4, np.float32), ctx=ctx)
        with pytest.raises(ValueError, match="different contexts"):
            gpgpu.dot(x, y)
        with pytest.raises(ValueError, match="context"):
            gpgpu.sum(x, ctx=ctx)
        assert gpgpu.dot(x, x).item() == 4


def test_timer_and_helpers(ctx):
    with ctx.timer() as t:
        gpgpu.sort(np.arange(1000, dtype=np.uint32)[::-1])
    assert t.ns is not None and t.ns >= 0
    ctx.finish()
    ctx.trim()
    assert gpgpu.library_version() is None or isinstance(gpgpu.library_version(), str)
    assert os.path.exists(gpgpu.LIBRARY_PATH)
    assert ctx.last_error == "" or isinstance(ctx.last_error, str)


def test_device_index_and_thread_end_cleanup():
    with gpgpu.Context(device=0) as c:
        assert gpgpu.sum(np.ones(3, np.float32), ctx=c) == 3
    assert "GPGPU_EGL_DEVICE" not in os.environ and "GPGPU_VK_DEVICE" not in os.environ
    made = []
    t = threading.Thread(target=lambda: made.append(weakref.ref(gpgpu.default_context())))
    t.start()
    t.join()
    gc.collect()
    assert made[0]() is None  # a thread's default context goes with the thread


def test_every_public_name_is_documented():
    undocumented = []
    for name in gpgpu.__all__:
        obj = getattr(gpgpu, name)
        if callable(obj) and not (obj.__doc__ or "").strip():
            undocumented.append(name)
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                kinds = (types.FunctionType, property, classmethod, staticmethod)
                if not attr.startswith("_") and isinstance(member, kinds) and \
                        not (member.__doc__ or "").strip():
                    undocumented.append(f"{name}.{attr}")
    assert undocumented == []
    assert "segments" in gpgpu.sort.__doc__ and "NaN" in gpgpu.sort.__doc__
