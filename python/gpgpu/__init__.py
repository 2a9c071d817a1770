"""gpgpu: libgpgpu's GPU primitives for numpy and scipy (pure Python over the shared library
through ctypes).

Every function takes numpy arrays or DeviceArrays and returns numpy for numpy input (the
data is uploaded, processed and downloaded) and DeviceArrays for DeviceArray input (it
stays on the GPU). dtypes: uint32, int32, float32, float64.

    import numpy as np, gpgpu
    gpgpu.sum(np.arange(10, dtype=np.float32))        # 45.0
    d = gpgpu.asarray(np.random.rand(1 << 20).astype(np.float32))
    s = gpgpu.sort(d)                                  # a DeviceArray
    x, info = gpgpu.cg(A, b)                           # A a scipy.sparse SPD matrix

Contexts: gpgpu.Context (headless GL or Vulkan; ``GPGPU_BACKEND``), Context.adopt_gl (the
GL context current in the thread), a default context per thread. Arrays: asarray, empty,
wrap_gl, DeviceArray. Reductions: sum, min, max, minmax, dot. Scans: cumsum. Sorts: sort,
argsort, sort_by_key. Compaction and partition: select. Records: gather, scatter.
Histograms: histogram. Segments and runs: segmented_reduce, run_length_encode,
reduce_by_key. Sparse: Matrix, spmv, spgemm, read_mtx, write_mtx, generate. Dense:
matmul. Solver: cg. Errors: gpgpu.Error and one subclass per library status.
See docs/PYTHON.md.
"""
from . import _lib
from ._array import DeviceArray, asarray, empty, wrap_gl
from ._context import Context, default_context
from ._errors import (BackendError, BackendUnavailableError, Error, FileError,
                      GLVersionError, InvalidArgumentError, MisalignedError, NoContextError,
                      NullPointerError, OutOfMemoryError, OutOfRangeError, OverlapError,
                      ParseError, ShaderCompileError, TooLargeError, UnknownStatusError,
                      UnsupportedCombinationError, UnsupportedFeatureError, WrongContextError)
from ._ops import argsort, cumsum, dot, matmul, max, min, minmax, sort, sort_by_key, sum
from ._primitives import (gather, histogram, reduce_by_key, run_length_encode, scatter,
                          segmented_reduce, select)
from ._solver import cg
from ._sparse import CSR, Matrix, generate, read_mtx, spgemm, spmv, write_mtx

try:
    from ._config import VERSION as __version__
except ImportError:
    __version__ = "0.1.0+source"

#: The libgpgpu that was loaded (GPGPU_LIBRARY, the installed one, or the linker's).
LIBRARY_PATH = _lib.LIBRARY_PATH
#: Context(memory_cache=MEMORY_CACHE_OFF) keeps no freed memory.
MEMORY_CACHE_OFF = _lib.GPGPU_MEMORY_CACHE_OFF


def library_version():
    """The loaded library's version string (gpgpu_version)."""
    return _lib.gpgpu_version().decode()


__all__ = [
    "Context", "default_context", "DeviceArray", "asarray", "empty", "wrap_gl",
    "sum", "min", "max", "minmax", "dot", "cumsum", "sort", "argsort", "sort_by_key",
    "select", "gather", "scatter", "histogram", "segmented_reduce", "run_length_encode",
    "reduce_by_key", "matmul", "Matrix", "CSR", "spmv", "spgemm", "read_mtx", "write_mtx", "generate", "cg",
    "Error", "InvalidArgumentError", "NullPointerError", "OutOfRangeError",
    "UnsupportedCombinationError", "OverlapError", "MisalignedError", "TooLargeError",
    "NoContextError", "GLVersionError", "UnsupportedFeatureError",
    "BackendUnavailableError", "WrongContextError", "ShaderCompileError",
    "OutOfMemoryError", "BackendError", "FileError", "ParseError", "UnknownStatusError",
    "library_version", "LIBRARY_PATH", "MEMORY_CACHE_OFF",
]
