"""matmul against numpy, and cg against SciPy's direct solve and the `gpgpu cg` command."""
import os
import re
import subprocess

import numpy as np
import pytest

import gpgpu
from _ref import FLOATS, data


def check_gemm(c, a, b, ta=False, tb=False):
    A = (a.T if ta else a).astype(np.float64)
    B = (b.T if tb else b).astype(np.float64)
    want, mag = A @ B, np.abs(A) @ np.abs(B)
    k = A.shape[1]
    assert c.shape == want.shape and c.dtype == a.dtype
    assert np.all(np.abs(c - want) <= (k + 2) * np.finfo(a.dtype).eps * mag)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (0, 3, 4), (5, 0, 2), (3, 4, 0), (7, 13, 31),
                                     (64, 64, 64), (65, 127, 33), (257, 129, 100)])
def test_matmul(rng, dtype, m, n, k):
    a, b = data(rng, dtype, m * k).reshape(m, k), data(rng, dtype, k * n).reshape(k, n)
    c = gpgpu.matmul(a, b)
    assert isinstance(c, np.ndarray)
    check_gemm(c, a, b)
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    check_gemm(gpgpu.matmul(at, b, transpose_a=True), at, b, ta=True)
    check_gemm(gpgpu.matmul(a, bt, transpose_b=True), a, bt, tb=True)
    dc = gpgpu.asarray(a) @ gpgpu.asarray(b)
    assert isinstance(dc, gpgpu.DeviceArray) and dc.shape == (m, n)
    check_gemm(dc.get(), a, b)


def test_matmul_methods_and_errors(rng):
    a, b = data(rng, np.float32, 40 * 24).reshape(40, 24), data(rng, np.float32, 24 * 8)
    b = b.reshape(24, 8)
    for algo in ("method1", "method2", "method6", "tiled"):
        check_gemm(gpgpu.matmul(a, b, algo=algo), a, b)
    with pytest.raises(ValueError, match="inner"):
        gpgpu.matmul(a, a)
    with pytest.raises(ValueError, match="2-D"):
        gpgpu.matmul(a.reshape(-1), b)
    with pytest.raises(TypeError, match="int32"):
        gpgpu.matmul(a.astype(np.int32), b.astype(np.int32))
    with pytest.raises(TypeError, match="differ"):
        gpgpu.matmul(a, b.astype(np.float64))
    out = gpgpu.empty((40, 8), np.float32)
    assert gpgpu.matmul(gpgpu.asarray(a), b, out=out) is out
    check_gemm(out.get(), a, b)


sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")


@pytest.mark.parametrize("jacobi", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_cg_against_scipy_solve(rng, dtype, jacobi):
    A = gpgpu.generate("laplace3d_7", 8).astype(dtype)
    A = A + sp.diags(rng.random(A.shape[0]).astype(dtype))  # scaled rows for Jacobi
    b = data(rng, dtype, A.shape[0])
    tol = 1e-10 if dtype == np.float64 else 1e-5
    history = []
    x, info = gpgpu.cg(A, b, tol=tol, jacobi=jacobi, history=history)
    assert info == 0 and isinstance(x, np.ndarray) and x.dtype == dtype
    assert history[-1] <= tol and len(history) >= 2
    want = spla.spsolve(A.astype(np.float64).tocsc(), b.astype(np.float64))
    err = np.abs(x - want).max() / np.abs(want).max()
    assert err <= (1e-8 if dtype == np.float64 else 1e-3)
    # A DeviceArray b gives a DeviceArray x; a gpgpu.Matrix A the same iterations.
    M = gpgpu.Matrix(A, dtype=dtype)
    h2 = []
    xd, info2 = gpgpu.cg(M, gpgpu.asarray(b), tol=tol, jacobi=jacobi, history=h2)
    assert isinstance(xd, gpgpu.DeviceArray) and info2 == 0
    if not (jacobi and dtype == np.float32):  # f32 1/a_ii: from M's rounded diagonal
        assert len(h2) == len(history)


def test_cg_x0_maxiter_and_breakdown(rng):
    A = gpgpu.generate("laplace3d_7", 6)
    b = A @ np.ones(A.shape[0])
    x, info = gpgpu.cg(A, b, x0=np.ones(A.shape[0]))
    assert info == 0 and np.abs(x - 1).max() == 0  # the start solves it: no step
    x, info = gpgpu.cg(A, b, maxiter=3)
    assert info == 3
    x, info = gpgpu.cg(-A, b)  # negative definite: p.Ap < 0 at the first step
    assert info == -1
    x, info = gpgpu.cg(A, np.zeros(A.shape[0]))
    assert info == 0 and not x.any()
    with pytest.raises(ValueError, match="square"):
        gpgpu.cg(sp.random(4, 5, 0.5, format="csr"), np.ones(4))
    with pytest.raises(ValueError, match="diagonal"):
        gpgpu.cg(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 2.0]])), np.ones(2), jacobi=True)
    with pytest.raises(ValueError, match="elements"):
        gpgpu.cg(A, np.ones(5))


@pytest.mark.parametrize("args", [["--type", "f64"], ["--type", "f64", "--jacobi"],
                                  ["--type", "f32", "--tol", "1e-5", "--jacobi"]])
def test_cg_iterations_match_the_command(matrix, args):
    cli = os.environ.get("GPGPU_CLI")
    if not cli:
        pytest.skip("GPGPU_CLI (the gpgpu command) is not set")
    path = matrix("SPD")
    out = subprocess.run([cli, "cg", path, "--every", "1000000"] + args, capture_output=True,
                         text=True)
    iters = int(re.search(r"after (\d+) iterations", out.stdout).group(1))
    dtype = np.float64 if "f64" in args else np.float32
    tol = float(args[args.index("--tol") + 1]) if "--tol" in args else 1e-8
    A = gpgpu.read_mtx(path)
    M = gpgpu.Matrix(A, dtype=dtype)   # the file's doubles rounded once, as the command's
    b = M @ gpgpu.asarray(np.ones(A.shape[0], dtype))  # b = A*ones on the GPU, as there
    # The command's Jacobi preconditioner: 1/a_ii of the doubles, then rounded.
    P = sp.diags(1 / A.diagonal()).tocsr().astype(dtype) if "--jacobi" in args else None
    history = []
    x, info = gpgpu.cg(M, b, tol=tol, M=P, history=history)
    assert len(history) - 1 == iters
    assert info == (0 if out.returncode == 0 else iters)
