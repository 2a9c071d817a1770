"""Conjugate gradients on the GPU, step for step as `gpgpu cg` (tools/cmd_cg.c) takes them:
gpgpu_spmv for the products, gpgpu_dot, gpgpu_axpby and gpgpu_axpby_dot for the rest; only
the dot products' scalars come back each step."""
import math
from ctypes import byref, c_double

import numpy as np

from . import _errors, _lib
from ._array import DeviceArray
from ._ops import _new
from ._sparse import _SPMV_ALGOS, Matrix, _issparse, _vector, algo_of, as_matrix


def _jacobi(A, mat, what):
    """diag(1/a_ii) as a CSR Matrix of mat's dtype and context, from A's values as given
    (a scipy matrix's doubles, as the command's host CSR) or as the Matrix mat holds them."""
    if _issparse(A):
        d = np.asarray(A.tocsr().diagonal(), dtype=np.float64)
    else:
        data, indices, indptr, (rows, _) = mat.to_arrays(values=np.float64)
        r = np.repeat(np.arange(rows), np.diff(indptr.astype(np.int64)))
        on = indices == r
        d = np.zeros(rows)
        d[r[on]] = data[on]
    bad = np.flatnonzero(~(d > 0))
    if bad.size:
        raise ValueError(f"{what}: row {bad[0] + 1} has the diagonal entry {d[bad[0]]:g}; "
                         "jacobi=True needs every one positive")
    n = d.size
    idx = np.arange(n + 1, dtype=np.uint32)
    return Matrix((1 / d, idx[:n], idx, (n, n)), dtype=mat.dtype, ctx=mat.ctx)


def cg(A, b, x0=None, tol=1e-8, maxiter=None, jacobi=False, M=None, algo=None, history=None,
       ctx=None):
    """Solves A x = b for a symmetric positive definite A by conjugate gradients, every
    vector operation on the GPU, as `gpgpu cg` does (the same steps, so the same
    iterations): Ap = A p, p.Ap, x += a p, r -= a Ap with r.r in the same pass, p = z + b p,
    and with a preconditioner also z = M r and r.z.

    ``A``: a gpgpu.Matrix or a scipy.sparse matrix (used in its own dtype, float32 or
    float64). ``b``: numpy (x comes back as numpy) or a DeviceArray (x as a DeviceArray).
    ``x0``: the start (default 0). Stops when ||r|| / ||b|| <= ``tol`` (r the recurrence's
    residual) or after ``maxiter`` steps (default: the rows of A, at least 1000); in
    float32 the true residual stalls near 1e-6 or above, so a tol of about 1e-5 there.
    ``jacobi``: z = r / a_ii (the cure for badly scaled rows), the diagonal as A holds it
    (a scipy matrix's values, a Matrix's in its dtype). ``M``: a preconditioner instead,
    as scipy's cg takes it: a sparse approximation of A^-1 (Matrix or scipy matrix).
    ``algo``: the products' SpMV algorithm (gpgpu.spmv's). ``history``: a list that gets
    ||r|| / ||b|| before the first step and after each.

    Returns ``(x, info)`` as scipy.sparse.linalg.cg: info 0 converged, > 0 the steps run
    without converging (maxiter), < 0 a breakdown (p.Ap <= 0: A is not positive definite,
    or the precision ran out) at step -info."""
    what = "gpgpu.cg"
    if ctx is None and isinstance(b, DeviceArray):
        ctx = b.ctx
    mat, m_tmp = as_matrix(A, ctx, what)
    c = mat.ctx
    h = c._handle
    t = mat._type
    n = mat.shape[0]
    if mat.shape[0] != mat.shape[1]:
        if m_tmp:
            mat.release()
        raise ValueError(f"{what}: A is {n} x {mat.shape[1]}; CG needs a square matrix")
    tmp = [mat] if m_tmp else []
    check = _check_for(c)
    try:
        db, b_tmp = _vector(b, c, t, n, what, "b")
        if b_tmp:
            tmp.append(db)
        if jacobi and M is not None:
            raise ValueError(f"{what}: jacobi=True and M are two preconditioners; give one")
        inv_diag = _jacobi(A, mat, what) if jacobi else None
        if inv_diag is not None:
            tmp.append(inv_diag)
        elif M is not None:
            inv_diag, p_tmp = as_matrix(M, c, what)
            if p_tmp:
                tmp.append(inv_diag)
            if inv_diag.dtype != mat.dtype or inv_diag.shape != mat.shape:
                raise ValueError(f"{what}: M must be a {n} x {n} {mat.dtype.name} matrix, "
                                 f"not {inv_diag.shape[0]} x {inv_diag.shape[1]} "
                                 f"{inv_diag.dtype.name}")
        x = _new(c, (n,), t)
        r, p, ap = (_new(c, (n,), t) for _ in range(3))
        tmp += [r, p, ap]
        z = r
        if inv_diag is not None:
            z = _new(c, (n,), t)
            tmp.append(z)
        spmv = _lib.SpmvDesc(algo_of(_SPMV_ALGOS, algo, what), 0, 0)
        # The preconditioner's products: a row per invocation, as the command's.
        scale = _lib.SpmvDesc(_lib.GPGPU_ALGO_SPMV_SCALAR, 0, 0)
        def at(a):
            return a._h.ptr, a._off

        xb, bb, rb, pb, apb, zb = at(x), at(db), at(r), at(p), at(ap), at(z)
        rr, pap, s = c_double(), c_double(), c_double()

        def precondition():
            if inv_diag is None:
                return rr.value
            check(_lib.gpgpu_spmv(h, byref(scale), 1.0, inv_diag._ptr(), *rb, 0.0, *zb))
            check(_lib.gpgpu_dot(h, t, n, *rb, *zb, byref(s)))
            return s.value

        # x = x0 or 0; r = b - A x; z = M^-1 r; p = z.
        if x0 is None:
            x.set(np.zeros(n, x.dtype))
            check(_lib.gpgpu_axpby_dot(h, t, n, 1.0, *bb, 0.0, *rb, *rb, byref(rr)))
            b_norm = math.sqrt(rr.value)
        else:
            dx0, x0_tmp = _vector(x0, c, t, n, what, "x0")
            check(_lib.gpgpu_axpby(h, t, n, 1.0, *at(dx0), 0.0, *xb))
            if x0_tmp:
                dx0.release()
            check(_lib.gpgpu_axpby(h, t, n, 1.0, *bb, 0.0, *rb))
            check(_lib.gpgpu_spmv(h, byref(spmv), -1.0, mat._ptr(), *xb, 1.0, *rb))
            check(_lib.gpgpu_dot(h, t, n, *rb, *rb, byref(rr)))
            check(_lib.gpgpu_dot(h, t, n, *bb, *bb, byref(s)))
            b_norm = math.sqrt(s.value)
        rz_now = precondition()
        check(_lib.gpgpu_axpby(h, t, n, 1.0, *zb, 0.0, *pb))
        if maxiter is None:
            maxiter = n if n > 1000 else 1000
        rel = math.sqrt(rr.value) / b_norm if b_norm > 0 else 0.0
        if history is not None:
            history.append(rel)
        it = 0
        info = 0
        while rel > tol and it < maxiter:
            check(_lib.gpgpu_spmv(h, byref(spmv), 1.0, mat._ptr(), *pb, 0.0, *apb))
            check(_lib.gpgpu_dot(h, t, n, *pb, *apb, byref(pap)))
            # p.Ap > 0 for every p != 0 is what positive definite means; NaN fails too.
            if not pap.value > 0:
                info = -(it + 1)
                break
            alpha = rz_now / pap.value
            check(_lib.gpgpu_axpby(h, t, n, alpha, *pb, 1.0, *xb))
            check(_lib.gpgpu_axpby_dot(h, t, n, -alpha, *apb, 1.0, *rb, *rb, byref(rr)))
            rz_old, rz_now = rz_now, precondition()
            check(_lib.gpgpu_axpby(h, t, n, 1.0, *zb, rz_now / rz_old, *pb))
            it += 1
            rel = math.sqrt(rr.value) / b_norm
            if history is not None:
                history.append(rel)
        if info == 0 and rel > tol:
            info = it
        if isinstance(b, DeviceArray):
            return x, info
        try:
            return x.get(), info
        finally:
            x.release()
    finally:
        for a in tmp:
            a.release()


def _check_for(ctx):
    def check(status):
        if status:
            _errors.raise_status(status, ctx._handle)
    return check
