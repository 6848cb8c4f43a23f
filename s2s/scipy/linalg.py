"""`s2s.scipy.linalg`: JAX's `jax.scipy.linalg` functions, with JAX's signatures, written in plain
Python over NumPy's `np.linalg` primitives (so every transform applies, at any order): the
triangular solves solve with the triangle they read, `lu_factor` eliminates with partial pivoting
as LAPACK does, `expm` is the scaling-and-squaring Pade approximant of degree 13, `solve_banded`
solves with the dense matrix its bands hold. `sqrtm` and `solve_sylvester` are primitives SciPy
computes, differentiated through the Sylvester equation (s2s/compiler/primitives/rules_special.py). Real matrices."""
from __future__ import annotations

import numpy as np

from ..api.entry_points import stop_gradient
from ..runtime.special import lu_perm, scipy_unsupported
from ..runtime.special import solve_sylvester as _solve_sylvester
from ..runtime.special import sqrtm as _sqrtm

__all__ = ["cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv", "lu_factor", "lu_solve", "slogdet",
           "solve", "solve_banded", "solve_sylvester", "solve_triangular", "sqrtm"]

# Higham (2005): the degree-13 Pade approximant of exp is accurate to double precision for
# matrices of 1-norm up to theta_13; larger ones are scaled by 2**-s first and squared s times after
_THETA13 = 5.371920351148152
_B = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
      10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _mT(x):
    return np.swapaxes(x, -1, -2)


# The flags (`lower`, `trans`, ...) choose between arrays with np.where rather than with `if`: the
# functions then have no branch, so vmap(grad(f)) of a function calling them batches the gradient
# code directly


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of `a`: upper U with a = U^T U by default (SciPy's and JAX's default), lower
    L with a = L L^T when `lower`."""
    c = np.linalg.cholesky(a)
    return np.where(lower, c, _mT(c))


def _triangle(a, lower, unit_diagonal):
    t = np.where(lower, np.tril(a), np.triu(a))
    return np.where(unit_diagonal & (np.eye(np.shape(a)[-1]) == 1), 1.0, t)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None,
                     check_finite=True):
    """x with t x = b (trans 0 or "N") or t^T x = b (1, "T", 2, "C"), where t is the lower or upper
    triangle of `a` (with ones on its diagonal when `unit_diagonal`); the other triangle is never read."""
    t = _triangle(a, lower, unit_diagonal)
    return np.linalg.solve(np.where(trans in (1, 2, "T", "C"), _mT(t), t), b)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor for `cho_solve` (the other triangle is zero)."""
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b, given `cho_factor(a)`: a = L L^T with L the factor or its transpose."""
    c, lower = c_and_lower
    low = _triangle(np.where(lower, c, _mT(c)), True, False)
    return np.linalg.solve(_mT(low), np.linalg.solve(low, b))


def _swap(n, k, p):
    """The row order that exchanges rows k and p of n rows."""
    i = np.arange(n)
    return np.where(i == k, p, np.where(i == p, k, i))


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) as SciPy returns them: L (unit diagonal, below) and U packed in `lu`, row k exchanged
    with row piv[k] at step k (partial pivoting, the largest entry of the column)."""
    if np.ndim(a) != 2:  # (its pivoting indexes rows of one matrix: a stack would be read as one matrix)
        scipy_unsupported("s2s.scipy.linalg.lu_factor factors one matrix (a 2-D `a`); for a stack of matrices, "
                          "vmap it over the stack (s2s.vmap(lu_factor)) or call it once per matrix")
    n = a.shape[-1]
    lu = a + 0.0
    piv = []
    for k in range(n):
        p = k + np.argmax(np.abs(lu[k:, k]))
        piv.append(p)
        lu = lu[_swap(n, k, p)]
        if k + 1 < n:  # (the last step has nothing below: Dask refuses empty assignments to a batch)
            col = lu[k + 1:, k] / lu[k, k]
            lu[k + 1:, k] = col
            lu[k + 1:, k + 1:] = lu[k + 1:, k + 1:] - np.outer(col, lu[k, k + 1:])
    return lu, np.array(piv)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans 0) or a^T x = b (1 or 2), given `lu_factor(a)`: a[perm] = L U, so
    x = U^-1 L^-1 b[perm], or x[perm] = L^-T U^-T b."""
    lu, piv = lu_and_piv
    if np.ndim(lu) != 2 or np.ndim(b) > 2:  # (b[perm] permutes the rows of one right-hand side)
        scipy_unsupported("s2s.scipy.linalg.lu_solve solves with one factored matrix (a 2-D `lu`) for a 1-D or 2-D "
                          "`b`; for stacks, vmap it over the stack (s2s.vmap(lu_solve)) or call it once per matrix")
    n = np.shape(lu)[0]
    perm = lu_perm(piv)
    t = trans != 0
    low, up = _triangle(lu, True, True), _triangle(lu, False, False)
    first, second = np.where(t, _mT(up), low), np.where(t, _mT(low), up)
    x = np.linalg.solve(second, np.linalg.solve(first, b[np.where(t, np.arange(n), perm)]))
    inverse = np.argmax(np.expand_dims(perm, -2) == np.arange(n)[:, None], axis=-1)  # (argsort: Dask lacks it)
    return x[np.where(t, inverse, np.arange(n))]


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a="gen"):
    """x with a x = b. `assume_a` ("gen", "sym", "her", "pos") names a property of `a` that does not
    change the solution; `a` is read whole."""
    return np.linalg.solve(a, b)


def inv(a, overwrite_a=False, check_finite=True):
    return np.linalg.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    return np.linalg.det(a)


def slogdet(a):
    """(sign, log |det a|)."""
    return np.linalg.slogdet(a)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, turbo=True,
         eigvals=None, type=1, check_finite=True):
    """The eigenvalues (ascending) and eigenvectors of the symmetric matrix whose `lower` (or upper)
    triangle `a` holds; the eigenvalues alone when `eigvals_only`. The generalized problem (`b`) is
    not supported."""
    if b is not None:
        scipy_unsupported("s2s.scipy.linalg.eigh: the generalized problem (b) is not supported")
    if eigvals_only:
        return np.linalg.eigvalsh(a, UPLO="L" if lower else "U")
    return np.linalg.eigh(a, UPLO="L" if lower else "U")


def expm(A, upper_triangular=False, max_squarings=16):
    """exp(A) by scaling and squaring the degree-13 Pade approximant (Higham 2005)."""
    n = np.shape(A)[-1]
    norm = stop_gradient(np.max(np.sum(np.abs(A), axis=-2)))
    s = int(max(0.0, np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    X = A / 2.0 ** s
    ident = np.eye(n)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X2 @ X4
    U = X @ (X6 @ (_B[13] * X6 + _B[11] * X4 + _B[9] * X2) + _B[7] * X6 + _B[5] * X4 + _B[3] * X2 + _B[1] * ident)
    V = X6 @ (_B[12] * X6 + _B[10] * X4 + _B[8] * X2) + _B[6] * X6 + _B[4] * X4 + _B[2] * X2 + _B[0] * ident
    R = np.linalg.inv(V - U) @ (V + U)  # (inv: vmap(grad) of a solve is not yet batched)
    for _ in range(s):
        R = R @ R
    return R


def sqrtm(A, disp=True, blocksize=64):
    """The principal square root X of `A` (X @ X == A), real: a matrix with negative real
    eigenvalues, whose root is complex, is an error. Its derivative solves X dX + dX X = dA."""
    if disp is not True:
        scipy_unsupported("s2s.scipy.linalg.sqrtm: disp=False (the error estimate) is not supported")
    return _sqrtm(A)


def solve_sylvester(a, b, q):
    """X with a X + X b = q (SciPy's Bartels-Stewart), differentiable in a, b and q."""
    return _solve_sylvester(a, b, q)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """x with A x = b, where A's band is stored in `ab` as SciPy does: A[i, j] = ab[u + i - j, j]
    for the `l` diagonals below and `u` above (entries of `ab` outside the matrix are not read).
    Solved with the dense A (built by one einsum with a constant 0/1 tensor), so every transform
    applies: its derivatives are np.linalg.solve's, in ab (on the band) and in b."""
    lower, upper = l_and_u
    n = np.shape(ab)[-1]
    i = np.arange(n)
    band = np.arange(lower + upper + 1)
    picks = (band[None, None, :] == upper + i[:, None, None] - i[None, :, None]) * 1.0  # [i, j, k]: k == u + i - j
    return np.linalg.solve(np.einsum("kj,ijk->ij", ab, picks), b)
