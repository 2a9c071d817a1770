"""GL buffers of a Python application: moderngl's headless EGL context adopted, its
buffers wrapped and sorted, reduced and scanned in place, the results read back through
moderngl."""
import threading

import numpy as np
import pytest

import gpgpu
from _ref import ref_argsort, same_bits

moderngl = pytest.importorskip("moderngl")


@pytest.fixture
def gl():
    try:
        mgl = moderngl.create_standalone_context(backend="egl", require=430)
    except Exception as e:  # no EGL device or no GL 4.5 here
        pytest.skip(f"no moderngl EGL context: {e}")
    with mgl:  # current in this thread (a headless gpgpu context may have taken over)
        ctx = gpgpu.Context.adopt_gl()
        try:
            yield mgl, ctx
        finally:
            ctx.close()
    mgl.release()


def test_adopt_makes_the_default(gl):
    mgl, ctx = gl
    assert ctx.backend == "gl" and ctx.info["platform"] == "adopt"
    assert gpgpu.default_context() is ctx


@pytest.mark.parametrize("n", [1, 2049, 10007])
def test_particle_buffer_sorted_in_place(gl, rng, n):
    mgl, ctx = gl
    # One buffer as an application lays it out: n depths, then n particle indices.
    depth = rng.random(n).astype(np.float32)
    index = np.arange(n, dtype=np.uint32)
    buf = mgl.buffer(depth.tobytes() + index.tobytes())
    keys = gpgpu.wrap_gl(buf.glo, 0, 4 * n, np.float32)
    values = gpgpu.wrap_gl(buf, 4 * n, 4 * n, np.uint32)  # an object with .glo and .size
    assert keys.shape == (n,) and values.dtype == np.uint32
    assert gpgpu.sum(keys).item() == pytest.approx(depth.sum(dtype=np.float64), rel=1e-5)
    gpgpu.sort_by_key(keys, values, descending=True, stable=True, out=(keys, values))
    raw = np.frombuffer(buf.read(), np.uint8)  # what the application's draws would see
    order = ref_argsort(depth, descending=True)
    assert same_bits(raw[:4 * n].view(np.float32), depth[order])
    assert np.array_equal(raw[4 * n:].view(np.uint32), order)
    keys.release()
    values.release()
    assert buf.read(4) == depth[order][:1].tobytes()  # the GL buffer outlives its wraps
    buf.release()


def test_scan_into_a_gl_buffer_and_read_a_slice(gl, rng):
    mgl, ctx = gl
    a = rng.integers(1, 100, 1000).astype(np.int32)
    buf = mgl.buffer(a.tobytes())
    d = gpgpu.wrap_gl(buf)  # the whole buffer, float32 by default
    assert d.dtype == np.float32 and d.shape == (1000,)
    ints = gpgpu.wrap_gl(buf, 0, buf.size, np.int32)
    gpgpu.cumsum(ints, out=ints)
    assert np.array_equal(np.frombuffer(buf.read(), np.int32), np.cumsum(a, dtype=np.int32))
    assert np.array_equal(ints[10:20].get(), np.cumsum(a, dtype=np.int32)[10:20])
    buf.release()


def test_wrap_errors(gl):
    mgl, ctx = gl
    buf = mgl.buffer(reserve=64)
    with pytest.raises(gpgpu.OutOfRangeError) as e:
        gpgpu.wrap_gl(buf.glo, 32, 64, np.float32)
    assert isinstance(e.value, IndexError)
    with pytest.raises(gpgpu.MisalignedError):
        gpgpu.wrap_gl(buf.glo, 2, 16, np.float32)
    with pytest.raises(gpgpu.InvalidArgumentError, match="buffer"):
        gpgpu.wrap_gl(99999, 0, 16, np.float32)
    with pytest.raises(ValueError, match="whole number"):
        gpgpu.wrap_gl(buf.glo, 0, 6, np.float32)
    buf.release()


def test_adopt_without_a_current_context():
    caught = []

    def other():
        try:
            gpgpu.Context.adopt_gl()
        except gpgpu.NoContextError as e:
            caught.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(caught) == 1 and "current" in caught[0].message
