"""Matrix, SpMV, SpGEMM, the transpose and MatrixMarket files against SciPy: every format,
f32 and f64, MatrixMarket files (real or generated: symmetric, pattern, integer,
rectangular) and generated matrices."""

import numpy as np
import pytest

import gpgpu
from _ref import FLOATS, data, same_bits

sp = pytest.importorskip("scipy.sparse")
sio = pytest.importorskip("scipy.io")

FORMATS = ["csr", "coo", "csc", "ell", "sell", "bsr"]
# The roles of tests/matrices/matrices.py whose files are read.
FILES = ["SPD", "INTEGER", "PATTERN", "RECTANGULAR", "GENERAL", "TALL", "PATTERN_SYMMETRIC"]


def scipy_read(path):
    A = sp.csr_matrix(sio.mmread(path)).astype(np.float64)
    A.sum_duplicates()
    return A


@pytest.fixture(scope="module")
def matrices(matrix):
    out = {f: gpgpu.read_mtx(matrix(f)) for f in FILES}
    rng = np.random.default_rng(7)
    out["random"] = sp.random(300, 200, density=0.05, format="csr", random_state=rng)
    out["empty-rows"] = sp.csr_matrix((np.ones(3), ([0, 0, 9], [1, 2, 3])), shape=(10, 4))
    out["0x0"] = sp.csr_matrix((0, 0))
    out["laplace"] = gpgpu.generate("laplace3d_7", 6)
    return out


@pytest.mark.parametrize("name", FILES)
def test_read_mtx_matches_scipy(matrix, matrices, name):
    A = matrices[name]
    ref = scipy_read(matrix(name))
    assert isinstance(A, sp.csr_matrix) and A.dtype == np.float64
    assert A.shape == ref.shape and A.nnz == ref.nnz
    assert np.array_equal(A.indptr, ref.indptr) and np.array_equal(A.indices, ref.indices)
    assert np.array_equal(A.data, ref.data)


def rounded(A, dtype):
    return A.astype(dtype).astype(np.float64)


def check_spmv(y, A, x, dtype, alpha=1.0, beta=0.0, y0=None):
    A64, x64 = rounded(A, dtype), x.astype(dtype).astype(np.float64)
    want = alpha * (A64 @ x64)
    mag = abs(alpha) * (abs(A64) @ abs(x64))
    if y0 is not None:
        want = want + beta * y0.astype(np.float64)
        mag = mag + abs(beta * y0.astype(np.float64))
    rowmax = np.diff(A.indptr).max() if A.shape[0] else 0
    bound = (rowmax + 4) * np.finfo(dtype).eps * mag + np.finfo(dtype).tiny
    assert y.dtype == dtype and y.shape == (A.shape[0],)
    assert np.all(np.abs(y.astype(np.float64) - want) <= bound)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_spmv_every_format(rng, matrices, fmt, dtype):
    for name, A in matrices.items():
        try:
            M = gpgpu.Matrix(A, dtype=dtype, format=fmt)
        except gpgpu.TooLargeError as e:
            # ELL refuses a matrix whose padding would pass its fill limit (8 x nnz).
            rowmax = np.diff(A.indptr).max()
            assert fmt == "ell" and A.shape[0] * rowmax > 8 * A.nnz, (name, e)
            continue
        assert (M.shape, M.nnz, M.format, M.dtype) == (A.shape, A.nnz, fmt, dtype)
        x = data(rng, dtype, A.shape[1])
        check_spmv(M @ x, A, x, dtype)
        y = M @ gpgpu.asarray(x)
        assert isinstance(y, gpgpu.DeviceArray)
        check_spmv(y.get(), A, x, dtype)
        y0 = data(rng, dtype, A.shape[0])
        y1 = y0.copy()
        assert gpgpu.spmv(M, x, y1, alpha=-2.0, beta=0.5) is y1
        check_spmv(y1, A, x, dtype, -2.0, 0.5, y0)
        for algo in (["classic", "scalar", "vector", "balanced"] if fmt == "csr" else
                     ["scalar"]):
            check_spmv(gpgpu.spmv(M, x, algo=algo), A, x, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_scipy_matrix_in_its_own_dtype(rng, matrices, dtype):
    A = matrices["random"].astype(dtype)
    x = data(rng, dtype, A.shape[1])
    y = gpgpu.spmv(A, x)
    assert y.dtype == dtype
    check_spmv(y, A, x, dtype)
    with pytest.raises(TypeError, match="int64"):
        gpgpu.spmv(A.astype(np.int64), x)


def test_spmv_shapes_and_types(rng, matrices):
    M = gpgpu.Matrix(matrices["random"])
    with pytest.raises(ValueError, match="200"):
        M @ np.ones(199, np.float32)
    with pytest.raises(ValueError):
        gpgpu.spmv(M, np.ones(200, np.float32), np.ones(299, np.float32), beta=1)
    with pytest.raises(ValueError, match="beta"):
        gpgpu.spmv(M, np.ones(200, np.float32), beta=1)
    with pytest.raises(TypeError, match="float64"):
        M @ gpgpu.asarray(np.ones(200))
    with pytest.raises(TypeError, match="int32"):
        M @ np.ones(200, np.int32)
    # numpy float64 x goes to a float32 matrix in its dtype.
    check_spmv(M @ np.ones(200), matrices["random"], np.ones(200), np.float32)


def structural(A, B):
    """Every (i, j) some stored a_ik and b_kj reach, stored zeros included: the products
    of the patterns (all ones, so SciPy, which drops zero sums, cannot drop any)."""
    Ap, Bp = A.copy(), B.copy()
    Ap.data[:] = 1
    Bp.data[:] = 1
    return sp.csr_matrix(Ap @ Bp)


@pytest.mark.parametrize("dtype", FLOATS)
def test_spgemm_structure_and_values(matrices, dtype):
    for name, A in matrices.items():
        B = A if A.shape[0] == A.shape[1] else A.T.tocsr()
        MA = gpgpu.Matrix(A, dtype=dtype)
        MB = MA if B is A else gpgpu.Matrix(B, dtype=dtype)
        C = MA @ MB
        assert isinstance(C, gpgpu.Matrix) and C.format == "csr"
        Cs = C.to_scipy()
        S = structural(A, B)
        S.sort_indices()
        assert Cs.shape == S.shape, name
        assert np.array_equal(Cs.indptr, S.indptr) and np.array_equal(Cs.indices, S.indices)
        A64, B64 = rounded(A, dtype), rounded(B, dtype)
        want = (A64 @ B64).toarray()
        mag = (abs(A64) @ abs(B64)).toarray()
        kmax = S.data.max() if S.nnz else 0  # the most products an entry sums
        got = Cs.toarray().astype(np.float64)
        assert np.all(np.abs(got - want) <= (kmax + 2) * np.finfo(dtype).eps * mag), name
        assert C.spgemm_stats["nnz"] == C.nnz


def test_spgemm_drop_zeros_and_scipy_operand():
    A = sp.csr_matrix(np.array([[1.0, 1.0], [1.0, -1.0]]))
    C = gpgpu.spgemm(gpgpu.Matrix(A, np.float64), A)  # [[2, 0], [0, 2]]: 2 exact zeros
    assert C.nnz == 4
    D = gpgpu.spgemm(A, A, drop_zeros=True)
    assert D.nnz == 2 and D.dtype == np.float64
    assert (D.to_scipy() != A @ A).nnz == 0
    with pytest.raises(ValueError, match="columns"):
        gpgpu.Matrix(sp.random(3, 4, 0.5)) @ gpgpu.Matrix(sp.random(3, 4, 0.5))


@pytest.mark.parametrize("fmt", ["csr", "sell"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_transpose_and_download(matrices, fmt, dtype):
    for name, A in matrices.items():
        try:
            M = gpgpu.Matrix(A, dtype=dtype, format=fmt)
        except gpgpu.TooLargeError:
            continue
        want = A.astype(dtype)
        got = M.to_scipy()
        assert got.dtype == dtype and (got != want).nnz == 0, name
        T = M.T.to_scipy()
        Tw = want.T.tocsr()
        Tw.sort_indices()
        assert np.array_equal(T.indptr, Tw.indptr) and np.array_equal(T.indices, Tw.indices)
        assert same_bits(T.data, Tw.data), name


def test_matrix_inputs(rng):
    dense = np.array([[0, 2.5, 0], [1, 0, 0], [0, 0, 0], [0, -3, 4]])
    ref = sp.csr_matrix(dense)
    for src in (dense, (ref.data, ref.indices, ref.indptr, ref.shape),
                gpgpu.CSR(ref.data, ref.indices, ref.indptr, ref.shape), ref.tocoo(),
                ref.tocsc(), gpgpu.Matrix(ref, np.float64)):
        M = gpgpu.Matrix(src, dtype=np.float64)
        assert (M.to_scipy() != ref).nnz == 0 and M.shape == (4, 3)
    # Duplicates summed and columns sorted, as the library's readers do.
    coo = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 0, 1], [2, 2, 0])), shape=(2, 3))
    M = gpgpu.Matrix(coo.tocsr(copy=False), np.float64)
    assert M.nnz == 2 and M.to_scipy()[0, 2] == 3.0
    unsorted = (np.array([1.0, 2.0]), np.array([2, 0]), np.array([0, 2]), (1, 3))
    assert np.array_equal(gpgpu.Matrix(unsorted, np.float64).to_arrays().indices, [0, 2])
    with pytest.raises(ValueError, match="column index 5"):
        gpgpu.Matrix((np.ones(1), np.array([5]), np.array([0, 1]), (1, 3)))
    with pytest.raises(ValueError, match="indptr"):
        gpgpu.Matrix((np.ones(2), np.array([0, 1]), np.array([0, 3]), (1, 3)))
    with pytest.raises(TypeError, match="int32"):
        gpgpu.Matrix(ref, dtype=np.int32)
    with pytest.raises(ValueError, match="format"):
        gpgpu.Matrix(ref, format="dia")
    with pytest.raises(TypeError):
        gpgpu.Matrix("not a matrix")


def test_mtx_round_trips(tmp_path, rng, matrices):
    A = matrices["random"]
    p = tmp_path / "a.mtx"
    gpgpu.write_mtx(p, A)
    B = gpgpu.read_mtx(p)
    assert same_bits(B.data, A.data) and np.array_equal(B.indices, A.indices)
    M = gpgpu.Matrix(A, np.float64)
    gpgpu.write_mtx(str(p), M)
    assert (gpgpu.read_mtx(p) != A).nnz == 0
    for dtype in (np.uint32, np.int32, np.float32, np.float64):
        v = data(rng, dtype, 50, special=True)
        gpgpu.write_mtx(p, v)
        back = gpgpu.read_mtx(p, dtype=dtype)
        if v.dtype.kind == "f":
            # Bit-equal but a NaN's payload; the sign of -nan and -0 kept.
            nan = np.isnan(v)
            assert same_bits(back[~nan], v[~nan]) and np.array_equal(np.isnan(back), nan)
            assert np.array_equal(np.signbit(back), np.signbit(v))
        else:
            assert same_bits(back, v)
        gpgpu.write_mtx(p, gpgpu.asarray(v))
        assert gpgpu.read_mtx(p, dtype=dtype).size == 50
    dense = data(rng, np.float64, 12).reshape(3, 4)
    gpgpu.write_mtx(p, dense)
    back = gpgpu.read_mtx(p)
    assert isinstance(back, np.ndarray) and same_bits(back, dense)
    gpgpu.write_mtx(p, np.zeros(0, np.float32))
    assert gpgpu.read_mtx(p, dtype=np.float32).size == 0


def test_mtx_errors(tmp_path, matrix):
    with pytest.raises(gpgpu.FileError) as e:
        gpgpu.read_mtx(tmp_path / "missing.mtx")
    assert isinstance(e.value, OSError) and "missing.mtx" in str(e.value)
    with pytest.raises(gpgpu.ParseError, match="complex") as e:
        gpgpu.read_mtx(matrix("COMPLEX"))
    assert isinstance(e.value, ValueError) and e.value.status == 401
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n1 x 2\n")
    with pytest.raises(gpgpu.ParseError, match="4"):
        gpgpu.read_mtx(bad)
    bad.write_text("%%MatrixMarket matrix array real general\n2 1\n1.5\n2.5e99999\n")
    with pytest.raises(gpgpu.ParseError):
        gpgpu.read_mtx(bad, dtype=np.float32)
    with pytest.raises(TypeError, match="int64"):
        gpgpu.read_mtx(bad, dtype=np.int64)


def test_generate():
    L = gpgpu.generate("laplace3d_7", 4)
    assert L.shape == (64, 64) and (L != L.T).nnz == 0
    assert np.all(L.diagonal() == 6)
    R = gpgpu.generate("rmat", 8, avg=4, seed=3)
    assert R.shape == (256, 256) and (R != gpgpu.generate("rmat", 8, avg=4, seed=3)).nnz == 0
    with pytest.raises(ValueError):
        gpgpu.generate("nope", 3)
