"""The C library through ctypes: where it is found, the structs and enums the package mirrors,
and the prototypes of the functions it calls.

Every struct and enum value the package passes to the library is written here and nowhere
else, and listed in STRUCTS and ENUMS, so that python/tests/test_layout.py can compare each one
with a C program compiled from the public headers (sizeof, offsetof, every field and value).

ctypes rather than cffi's ABI mode: it is in the standard library (nothing to install), its
Structure classes give sizeof and each field's offset for the layout test to check, and both
reach the library through libffi at about the same cost per call (~0.4 us); cffi's ABI mode
would add a dependency and a C declaration parser for no gain in speed or safety.
"""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_double,
                    c_int, c_size_t, c_uint, c_uint8, c_uint32, c_uint64, c_void_p)

# ----------------------------------------------------------------- finding the library


def _candidates():
    """Where the library may be, in the order tried: GPGPU_LIBRARY, the installed package's
    own library (the path meson wrote into _config.py at install, first relative to this
    file so that a DESTDIR or a moved prefix works), the linker's search, the soname."""
    env = os.environ.get("GPGPU_LIBRARY")
    if env:
        return [env], "GPGPU_LIBRARY"
    paths = []
    try:
        from . import _config
    except ImportError:
        _config = None
    if _config is not None:
        here = os.path.dirname(os.path.abspath(__file__))
        rel = os.path.relpath(_config.LIBDIR, _config.PKGDIR)
        paths.append(os.path.normpath(os.path.join(here, rel, _config.LIBRARY)))
        paths.append(os.path.join(_config.LIBDIR, _config.LIBRARY))
    found = ctypes.util.find_library("gpgpu")
    if found:
        paths.append(found)
    paths.append("libgpgpu.so.0")
    return paths, None


def _load():
    paths, forced = _candidates()
    errors = []
    for path in paths:
        if forced is None and os.path.isabs(path) and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("gpgpu: cannot load libgpgpu (" + "; ".join(errors or paths) +
                      "); set GPGPU_LIBRARY to the path of libgpgpu.so")


dll, LIBRARY_PATH = _load()

# ----------------------------------------------------------------------------- enums
# Every value of every public enum the package uses, by its C name (the layout test
# compares each with the header's and checks that none is missing).

GPGPU_SUCCESS = 0
GPGPU_ERROR_INVALID_ARGUMENT = 100
GPGPU_ERROR_NULL_POINTER = 101
GPGPU_ERROR_OUT_OF_RANGE = 102
GPGPU_ERROR_UNSUPPORTED_COMBINATION = 103
GPGPU_ERROR_OVERLAP = 104
GPGPU_ERROR_MISALIGNED = 105
GPGPU_ERROR_TOO_LARGE = 106
GPGPU_ERROR_NO_CONTEXT = 200
GPGPU_ERROR_GL_VERSION = 201
GPGPU_ERROR_UNSUPPORTED_FEATURE = 202
GPGPU_ERROR_BACKEND_UNAVAILABLE = 203
GPGPU_ERROR_WRONG_CONTEXT = 204
GPGPU_ERROR_SHADER_COMPILE = 300
GPGPU_ERROR_OUT_OF_MEMORY = 301
GPGPU_ERROR_BACKEND = 302
GPGPU_ERROR_IO = 400
GPGPU_ERROR_PARSE = 401

GPGPU_TYPE_U32 = 1
GPGPU_TYPE_I32 = 2
GPGPU_TYPE_F32 = 3
GPGPU_TYPE_F64 = 4

GPGPU_OP_SUM = 1
GPGPU_OP_MIN = 2
GPGPU_OP_MAX = 3
GPGPU_OP_MINMAX = 4

GPGPU_ALGO_DEFAULT = 0
GPGPU_ALGO_FAST = 1
GPGPU_ALGO_CLASSIC_HALVING = 2
GPGPU_ALGO_CLASSIC_STRIDE = 3
GPGPU_ALGO_CLASSIC_MINMAX = 4
GPGPU_ALGO_CLASSIC_SCAN = 5
GPGPU_ALGO_CLASSIC_NETSORT = 6
GPGPU_ALGO_BITONIC = 7
GPGPU_ALGO_RADIX = 8
GPGPU_ALGO_CLASSIC_SPMV = 9
GPGPU_ALGO_SPMV_SCALAR = 10
GPGPU_ALGO_SPMV_VECTOR = 11
GPGPU_ALGO_SPMV_BALANCED = 12
GPGPU_ALGO_CLASSIC_SPGEMM = 13
GPGPU_ALGO_SPGEMM_ROWS = 14
GPGPU_ALGO_SPGEMM_ESC = 15
GPGPU_ALGO_GEMM_METHOD1 = 16
GPGPU_ALGO_GEMM_METHOD2 = 17
GPGPU_ALGO_GEMM_METHOD6 = 18
GPGPU_ALGO_GEMM_TILED = 19
GPGPU_ALGO_GEMM_COOPMAT_F16 = 20
GPGPU_ALGO_SCAN_SINGLE_PASS = 21
GPGPU_ALGO_SCAN_REDUCE_THEN_SCAN = 22

GPGPU_BACKEND_DEFAULT = 0
GPGPU_BACKEND_GL = 1
GPGPU_BACKEND_VULKAN = 2

GPGPU_GL_PLATFORM_DEFAULT = 0
GPGPU_GL_PLATFORM_EGL_DEVICE = 1
GPGPU_GL_PLATFORM_EGL_SURFACELESS = 2
GPGPU_GL_PLATFORM_GLFW = 3
GPGPU_GL_PLATFORM_ADOPT = 4

GPGPU_FORMAT_CSR = 1
GPGPU_FORMAT_COO = 2
GPGPU_FORMAT_CSC = 3
GPGPU_FORMAT_ELL = 4
GPGPU_FORMAT_SELL = 5
GPGPU_FORMAT_BSR = 6

GPGPU_GEN_LAPLACE3D_7 = 1
GPGPU_GEN_LAPLACE3D_27 = 2
GPGPU_GEN_RANDOM = 3
GPGPU_GEN_POWER_LAW = 4
GPGPU_GEN_RMAT = 5
GPGPU_GEN_BANDED = 6
GPGPU_GEN_DENSE_ROW = 7
GPGPU_GEN_DENSE = 8

GPGPU_COMPARE_NONE = 0
GPGPU_COMPARE_LT = 1
GPGPU_COMPARE_LE = 2
GPGPU_COMPARE_GT = 3
GPGPU_COMPARE_GE = 4
GPGPU_COMPARE_EQ = 5
GPGPU_COMPARE_NE = 6

# Each enum by its C typedef, with the prefix its values share.
ENUMS = {
    "gpgpu_status": "GPGPU_(SUCCESS|ERROR_)",
    "gpgpu_type": "GPGPU_TYPE_",
    "gpgpu_op": "GPGPU_OP_",
    "gpgpu_algo": "GPGPU_ALGO_",
    "gpgpu_backend": "GPGPU_BACKEND_",
    "gpgpu_gl_platform": "GPGPU_GL_PLATFORM_",
    "gpgpu_format": "GPGPU_FORMAT_",
    "gpgpu_generator": "GPGPU_GEN_",
    "gpgpu_compare": "GPGPU_COMPARE_",
}
def enum_values():
    """{C name: value} of every enum value mirrored here."""
    return {k: v for k, v in globals().items()
            if k.startswith("GPGPU_") and isinstance(v, int) and k not in DEFINES}


GPGPU_MEMORY_CACHE_OFF = ctypes.c_size_t(-1).value
GPGPU_HISTOGRAM_MAX_BINS = 65536
# The headers' #define constants mirrored here (the layout test compares their values).
DEFINES = ("GPGPU_MEMORY_CACHE_OFF", "GPGPU_HISTOGRAM_MAX_BINS")

# --------------------------------------------------------------------------- structs

c_enum = c_int  # every enum of the API is an int on the ABIs Debian builds for
GetProcAddress = CFUNCTYPE(c_void_p, c_char_p)
CurrentContext = CFUNCTYPE(c_void_p, c_void_p)
ErrorCallback = CFUNCTYPE(None, c_enum, c_char_p, c_void_p)
ProgressCallback = CFUNCTYPE(None, c_char_p, c_void_p)


class ContextDesc(Structure):
    _fields_ = [
        ("backend", c_enum),
        ("gl_platform", c_enum),
        ("gl_get_proc_address", GetProcAddress),
        ("gl_current_context", CurrentContext),
        ("gl_accept_shared_contexts", c_bool),
        ("error_callback", ErrorCallback),
        ("user_data", c_void_p),
        ("debug", c_bool),
        ("vk_adopt", c_void_p),
        ("transfer_copies", c_bool),
        ("memory_limit", c_size_t),
        ("memory_cache", c_size_t),
        ("device", c_uint32),
    ]


class Info(Structure):
    _fields_ = [
        ("backend", c_char_p),
        ("platform", c_char_p),
        ("vendor", c_char_p),
        ("renderer", c_char_p),
        ("version", c_char_p),
        ("version_major", c_int),
        ("version_minor", c_int),
        ("has_f64", c_bool),
        ("has_subgroups", c_bool),
        ("has_coopmat_f16", c_bool),
        ("subgroup_size", c_uint),
        ("max_workgroup_invocations", c_uint),
        ("max_workgroup_count_x", c_uint),
        ("max_shared_memory_bytes", c_size_t),
        ("max_storage_block_bytes", c_size_t),
        ("storage_offset_alignment", c_size_t),
        ("max_storage_range_bytes", c_size_t),
        ("device_memory_bytes", c_size_t),
        ("device", c_uint32),
        ("has_uuid", c_bool),
        ("uuid", c_uint8 * 16),
    ]


class ReduceDesc(Structure):
    _fields_ = [("type", c_enum), ("op", c_enum), ("algo", c_enum)]


class ScanDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("exclusive", c_bool),
        ("algo", c_enum),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
    ]


class SortDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("descending", c_bool),
        ("stable", c_bool),
        ("algo", c_enum),
        ("values_in", c_void_p),
        ("values_in_offset", c_size_t),
        ("values_out", c_void_p),
        ("values_out_offset", c_size_t),
        ("segments", c_void_p),
        ("segments_offset", c_size_t),
        ("segment_count", c_size_t),
        ("scratch", c_void_p),
        ("scratch_offset", c_size_t),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
    ]


class GemmTuning(Structure):
    _fields_ = [
        ("block_m", c_uint32),
        ("block_n", c_uint32),
        ("block_k", c_uint32),
        ("thread_m", c_uint32),
        ("invocations", c_uint32),
        ("gpu_ns", c_double),
    ]


class GemmDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("algo", c_enum),
        ("transpose_a", c_bool),
        ("transpose_b", c_bool),
        ("lda", c_size_t),
        ("ldb", c_size_t),
        ("ldc", c_size_t),
        ("tile", c_uint),
        ("outputs", c_uint),
        ("tuning", POINTER(GemmTuning)),
    ]


class Csr(Structure):
    _fields_ = [
        ("rows", c_uint32),
        ("cols", c_uint32),
        ("nnz", c_size_t),
        ("row_ptr", POINTER(c_uint32)),
        ("col_idx", POINTER(c_uint32)),
        ("values", POINTER(c_double)),
    ]


class FormatParams(Structure):
    _fields_ = [
        ("sell_c", c_uint32),
        ("sell_sigma", c_uint32),
        ("bsr_block", c_uint32),
        ("ell_max_fill", c_double),
    ]


class MatrixDesc(Structure):
    _fields_ = [("type", c_enum), ("format", c_enum), ("params", FormatParams)]


class MatrixInfo(Structure):
    _fields_ = [
        ("type", c_enum),
        ("format", c_enum),
        ("rows", c_uint32),
        ("cols", c_uint32),
        ("nnz", c_size_t),
        ("stored", c_size_t),
        ("bytes", c_size_t),
    ]


class SpmvDesc(Structure):
    """gpgpu_spmv_desc, alpha and beta being parameters of gpgpu_spmv itself."""
    _fields_ = [
        ("algo", c_enum),
        ("threads_per_row", c_uint32),
        ("rows_per_group", c_uint32),
    ]


class SpgemmDesc(Structure):
    _fields_ = [
        ("algo", c_enum),
        ("drop_zeros", c_bool),
        ("memory_budget", c_size_t),
        ("progress", ProgressCallback),
        ("user_data", c_void_p),
    ]


class SpgemmStats(Structure):
    _fields_ = [
        ("products", c_uint64),
        ("nnz", c_size_t),
        ("dropped", c_size_t),
        ("chunks", c_uint32),
        ("long_rows", c_uint32),
        ("one_phase", c_uint32),
        ("peak_bytes", c_size_t),
    ]


class MtxHeader(Structure):
    _fields_ = [
        ("array", c_bool),
        ("field", c_char * 16),
        ("symmetry", c_char * 16),
        ("rows", c_uint32),
        ("cols", c_uint32),
        ("entries", c_size_t),
    ]


class SelectDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("flags", c_void_p),
        ("flags_offset", c_size_t),
        ("compare", c_enum),
        ("value", c_double),
        ("partition", c_bool),
        ("algo", c_enum),
        ("values_in", c_void_p),
        ("values_in_offset", c_size_t),
        ("values_out", c_void_p),
        ("values_out_offset", c_size_t),
        ("indices_out", c_void_p),
        ("indices_out_offset", c_size_t),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
        ("count_out", c_void_p),
        ("count_out_offset", c_size_t),
        ("scratch", c_void_p),
        ("scratch_offset", c_size_t),
    ]


class GatherDesc(Structure):
    _fields_ = [
        ("record_bytes", c_size_t),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
        ("status_out", c_void_p),
        ("status_out_offset", c_size_t),
    ]


class HistogramDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("bins", c_uint32),
        ("lower", c_double),
        ("upper", c_double),
        ("levels", c_void_p),
        ("levels_offset", c_size_t),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
    ]


class SegmentedReduceDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("op", c_enum),
        ("segments", c_void_p),
        ("segments_offset", c_size_t),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
        ("scratch", c_void_p),
        ("scratch_offset", c_size_t),
    ]


class RleDesc(Structure):
    _fields_ = [
        ("type", c_enum),
        ("value_type", c_enum),
        ("count_buffer", c_void_p),
        ("count_offset", c_size_t),
        ("count_out", c_void_p),
        ("count_out_offset", c_size_t),
        ("scratch", c_void_p),
        ("scratch_offset", c_size_t),
    ]


# Every mirrored struct by its C typedef, for the layout test.
STRUCTS = {
    "gpgpu_context_desc": ContextDesc,
    "gpgpu_info": Info,
    "gpgpu_reduce_desc": ReduceDesc,
    "gpgpu_scan_desc": ScanDesc,
    "gpgpu_sort_desc": SortDesc,
    "gpgpu_gemm_tuning": GemmTuning,
    "gpgpu_gemm_desc": GemmDesc,
    "gpgpu_csr": Csr,
    "gpgpu_format_params": FormatParams,
    "gpgpu_matrix_desc": MatrixDesc,
    "gpgpu_matrix_info": MatrixInfo,
    "gpgpu_spmv_desc": SpmvDesc,
    "gpgpu_spgemm_desc": SpgemmDesc,
    "gpgpu_spgemm_stats": SpgemmStats,
    "gpgpu_mtx_header": MtxHeader,
    "gpgpu_select_desc": SelectDesc,
    "gpgpu_gather_desc": GatherDesc,
    "gpgpu_histogram_desc": HistogramDesc,
    "gpgpu_segmented_reduce_desc": SegmentedReduceDesc,
    "gpgpu_rle_desc": RleDesc,
}

# ------------------------------------------------------------------------ functions

P = c_void_p  # every opaque handle (gpgpu_context *, gpgpu_buffer *, gpgpu_matrix *)
st = c_enum
sz = c_size_t
PROTOTYPES = {
    "gpgpu_context_create": (st, [POINTER(ContextDesc), POINTER(c_void_p)]),
    "gpgpu_context_destroy": (None, [P]),
    "gpgpu_context_trim": (None, [P]),
    "gpgpu_last_error": (c_char_p, [P]),
    "gpgpu_status_string": (c_char_p, [c_enum]),
    "gpgpu_type_name": (c_char_p, [c_enum]),
    "gpgpu_type_size": (sz, [c_enum]),
    "gpgpu_context_get_info": (st, [P, POINTER(Info)]),
    "gpgpu_buffer_create": (st, [P, sz, POINTER(c_void_p)]),
    "gpgpu_buffer_wrap_gl": (st, [P, c_uint, sz, sz, POINTER(c_void_p)]),
    "gpgpu_buffer_destroy": (None, [P]),
    "gpgpu_buffer_size": (sz, [P]),
    "gpgpu_buffer_upload": (st, [P, sz, c_void_p, sz]),
    "gpgpu_buffer_download": (st, [P, sz, c_void_p, sz]),
    "gpgpu_buffer_copy": (st, [P, sz, P, sz, sz]),
    "gpgpu_reduce": (st, [P, POINTER(ReduceDesc), P, sz, sz, c_void_p]),
    "gpgpu_reduce_to_buffer": (st, [P, POINTER(ReduceDesc), P, sz, sz, P, sz]),
    "gpgpu_scan": (st, [P, POINTER(ScanDesc), P, sz, P, sz, sz]),
    "gpgpu_sort": (st, [P, POINTER(SortDesc), P, sz, P, sz, sz]),
    "gpgpu_select": (st, [P, POINTER(SelectDesc), P, sz, P, sz, sz, POINTER(c_size_t)]),
    "gpgpu_gather": (st, [P, POINTER(GatherDesc), P, sz, sz, P, sz, P, sz, sz]),
    "gpgpu_scatter": (st, [P, POINTER(GatherDesc), P, sz, P, sz, P, sz, sz, sz]),
    "gpgpu_histogram": (st, [P, POINTER(HistogramDesc), P, sz, sz, P, sz]),
    "gpgpu_segmented_reduce": (st, [P, POINTER(SegmentedReduceDesc), P, sz, sz, P, sz, sz]),
    "gpgpu_run_length_encode": (st, [P, POINTER(RleDesc), P, sz, sz, P, sz, P, sz,
                                     POINTER(c_size_t)]),
    "gpgpu_reduce_by_key": (st, [P, POINTER(RleDesc), P, sz, P, sz, sz, P, sz, P, sz,
                                 POINTER(c_size_t)]),
    "gpgpu_axpby": (st, [P, c_enum, sz, c_double, P, sz, c_double, P, sz]),
    "gpgpu_dot": (st, [P, c_enum, sz, P, sz, P, sz, POINTER(c_double)]),
    "gpgpu_dot_to_buffer": (st, [P, c_enum, sz, P, sz, P, sz, P, sz]),
    "gpgpu_axpby_dot": (st, [P, c_enum, sz, c_double, P, sz, c_double, P, sz, P, sz,
                             POINTER(c_double)]),
    "gpgpu_gemm": (st, [P, POINTER(GemmDesc), sz, sz, sz, c_double, P, sz, P, sz, c_double,
                        P, sz]),
    "gpgpu_timer_begin": (st, [P]),
    "gpgpu_timer_end": (st, [P, POINTER(c_double)]),
    "gpgpu_finish": (st, [P]),
    "gpgpu_format_name": (c_char_p, [c_enum]),
    "gpgpu_csr_free": (None, [POINTER(Csr)]),
    "gpgpu_csr_from_coo": (st, [c_uint32, c_uint32, sz, c_void_p, c_void_p, c_void_p,
                                POINTER(Csr), c_char_p, sz]),
    "gpgpu_generate": (st, [c_enum, c_uint32, c_uint32, c_uint64, POINTER(Csr)]),
    "gpgpu_matrix_create": (st, [P, POINTER(MatrixDesc), POINTER(Csr), POINTER(c_void_p)]),
    "gpgpu_matrix_destroy": (None, [P]),
    "gpgpu_matrix_get_info": (st, [P, POINTER(MatrixInfo)]),
    "gpgpu_spmv": (st, [P, POINTER(SpmvDesc), c_double, P, P, sz, c_double, P, sz]),
    "gpgpu_matrix_download": (st, [P, POINTER(Csr)]),
    "gpgpu_matrix_transpose": (st, [P, P, POINTER(c_void_p)]),
    "gpgpu_spgemm": (st, [P, POINTER(SpgemmDesc), P, P, POINTER(c_void_p),
                          POINTER(SpgemmStats)]),
    "gpgpu_mtx_read_vector": (st, [c_char_p, c_enum, POINTER(c_void_p), POINTER(c_size_t),
                                   c_char_p, sz]),
    "gpgpu_mtx_write_vector": (st, [c_char_p, c_enum, c_void_p, sz, c_char_p, sz]),
    "gpgpu_mtx_read_matrix": (st, [c_char_p, POINTER(Csr), POINTER(MtxHeader), c_char_p, sz]),
    "gpgpu_mtx_write_matrix": (st, [c_char_p, POINTER(Csr), c_char_p, sz]),
    "gpgpu_mtx_write_dense": (st, [c_char_p, c_uint32, c_uint32, c_void_p, sz, c_char_p, sz]),
    "gpgpu_version": (c_char_p, []),
}


def _bind(name, restype, argtypes):
    fn = getattr(dll, name)
    fn.restype = restype
    fn.argtypes = argtypes
    return fn


for _name, (_res, _args) in PROTOTYPES.items():
    globals()[_name] = _bind(_name, _res, _args)

# libc's free, for the arrays gpgpu_mtx_read_vector mallocs.
libc_free = ctypes.CDLL(None).free
libc_free.argtypes = [c_void_p]
libc_free.restype = None

