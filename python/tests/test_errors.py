"""Each library status raises its class, deriving from gpgpu.Error and the built-in that
fits, with the library's message: provoked through the public API where the package lets
the call reach the library."""
import threading

import numpy as np
import pytest

import gpgpu
from gpgpu import _errors, _lib

KINDS = {100: ValueError, 101: ValueError, 102: IndexError, 103: ValueError, 104: ValueError,
         105: ValueError, 106: ValueError, 200: RuntimeError, 201: RuntimeError,
         202: NotImplementedError, 203: RuntimeError, 204: RuntimeError, 300: RuntimeError,
         301: MemoryError, 302: RuntimeError, 400: OSError, 401: ValueError}


@pytest.mark.parametrize("status", sorted(KINDS))
def test_every_status_has_its_class(status):
    e = _errors.error(status, "the message")
    assert isinstance(e, gpgpu.Error) and isinstance(e, KINDS[status])
    assert e.status == status and e.message == "the message" and str(e) == "the message"
    assert type(e).__name__ in gpgpu.__all__ and getattr(gpgpu, type(e).__name__) is type(e)
    if status != 204 or _lib.gpgpu_status_string(204) != b"unknown status":
        assert e.status_name == _lib.gpgpu_status_string(status).decode()
    unknown = _errors.error(999, "m")
    assert isinstance(unknown, gpgpu.UnknownStatusError) and unknown.status == 999


def test_unsupported_combination(ctx):
    with pytest.raises(gpgpu.UnsupportedCombinationError) as e:
        gpgpu.sort(np.ones(10, np.float32), algo=_lib.GPGPU_ALGO_CLASSIC_HALVING)
    assert isinstance(e.value, ValueError) and e.value.status == 103
    assert e.value.message == ctx.last_error != ""
    with pytest.raises(gpgpu.UnsupportedCombinationError, match="algorithm"):
        gpgpu.cumsum(np.ones(10, np.float32), algo=_lib.GPGPU_ALGO_CLASSIC_HALVING)
    # Another primitive's algorithm is refused alike whatever its place in the enum, and a
    # value that names none is an invalid argument.
    with pytest.raises(gpgpu.UnsupportedCombinationError, match="RADIX is another primitive"):
        gpgpu.cumsum(np.ones(10, np.float32), algo=_lib.GPGPU_ALGO_RADIX)
    with pytest.raises(gpgpu.InvalidArgumentError, match="unknown algorithm 99"):
        gpgpu.cumsum(np.ones(10, np.float32), algo=99)


def _check(status, ctx):
    if status:
        _errors.raise_status(status, ctx.handle)


def test_overlap(ctx):
    d = gpgpu.asarray(np.arange(100, dtype=np.uint32)[::-1].copy())
    with pytest.raises(gpgpu.OverlapError) as e:
        gpgpu.sort(d[0:50], out=d[10:60])
    assert isinstance(e.value, ValueError) and "overlap" in e.value.message.lower()


def test_out_of_memory_and_memory_limit():
    with gpgpu.Context(memory_limit=1 << 20) as c:
        with pytest.raises(gpgpu.OutOfMemoryError) as e:
            gpgpu.empty(1 << 19, np.float32, ctx=c)   # 2 MiB past a 1 MiB limit
        assert isinstance(e.value, MemoryError) and e.value.status == 301
        assert gpgpu.sum(np.ones(1000, np.float32), ctx=c) == 1000  # the context works on


def test_unsupported_feature():
    if gpgpu.default_context().info["has_coopmat_f16"]:
        pytest.skip("the device has cooperative matrices")
    a = np.ones((16, 16), np.float32)
    with pytest.raises(gpgpu.UnsupportedFeatureError) as e:
        gpgpu.matmul(a, a, algo="coopmat")
    assert isinstance(e.value, NotImplementedError) and e.value.message


def test_too_large():
    sp = pytest.importorskip("scipy.sparse")
    A = sp.csr_matrix(gpgpu.generate("dense_row", 1000, avg=2))
    with pytest.raises(gpgpu.TooLargeError, match="(?i)ell") as e:
        gpgpu.Matrix(A, format="ell")
    assert isinstance(e.value, ValueError)


def test_headless_gl_from_another_thread(ctx):
    """A headless GL context is current only during its calls, so another thread may use it
    in turn (one thread at a time, as every context)."""
    d = gpgpu.asarray(np.ones(10, np.float32))
    results, caught = [], []

    def other():
        try:
            results.append(gpgpu.sum(d).item())
        except gpgpu.Error as e:
            caught.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert caught == [] and results == [10]
    assert gpgpu.sum(d).item() == 10  # and works on in its own


def test_backend_unavailable_or_made():
    for backend in ("gl", "vulkan"):
        try:
            c = gpgpu.Context(backend=backend)
        except (gpgpu.BackendUnavailableError, gpgpu.NoContextError) as e:
            assert isinstance(e, RuntimeError) and e.message
            continue
        assert c.backend == backend
        c.close()


def test_invalid_argument_from_the_library():
    # A u32 key sort with values_out and no values_in: refused by the library itself.
    d = gpgpu.asarray(np.arange(10, dtype=np.uint32))
    desc = _lib.SortDesc(type=_lib.GPGPU_TYPE_U32, values_out=d.buffer)
    with pytest.raises(gpgpu.InvalidArgumentError) as e:
        _check(_lib.gpgpu_sort(d.ctx.handle, desc, d.buffer, 0, None, 0, 10), d.ctx)
    assert isinstance(e.value, ValueError) and "values" in e.value.message
