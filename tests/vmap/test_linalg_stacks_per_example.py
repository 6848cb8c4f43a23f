"""Stacks of matrices per example under vmap composed with derivatives (issue 27): every np.linalg
and s2s.scipy.linalg function that takes a stack (..., M, N), given a (2, 3, 3)-like stack per
example and a batch of 3, under vmap(grad), grad of vmap, vmap(jvp), jvp(vmap) and vmap(hessian),
against a Python loop of s2s's derivative of one example and against central differences of
NumPy's (or SciPy's) own function. The derivative helpers of these functions are written with
`@`; vmap's matmul of stacks paired every stack of one operand with every stack of the other (as
np.dot does), so they were silently wrong or raised a broadcast error."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sp_linalg
from helpers_compare import fd_grad

import s2s
import s2s.scipy.linalg as ssl
from s2s.errors import S2SError

B = 3  # examples
W43 = np.arange(12.0).reshape(4, 3) / 10.0  # weights that make a loss of u ** 2 depend on u
W33 = np.arange(9.0).reshape(3, 3) / 10.0


# ---- draws of one example ----
def _normal(*shape):
    return lambda rng: rng.standard_normal(shape)


def _wc(*shape):
    """A stack of well-conditioned matrices."""
    return lambda rng: rng.standard_normal(shape) * 0.3 + 2.0 * np.eye(shape[-2], shape[-1])


def _sepvals(k, m, n):
    """A stack of k m-by-n matrices with well-separated singular values (3, 2, 1)."""
    def draw(rng):
        out = []
        for _ in range(k):
            u, _r = np.linalg.qr(rng.standard_normal((m, m)))
            v, _r = np.linalg.qr(rng.standard_normal((n, n)))
            s = np.array([3.0, 2.0, 1.0])[:min(m, n)] + 0.1 * rng.random(min(m, n))
            out.append((u[:, :len(s)] * s) @ v[:len(s)])
        return np.stack(out)
    return draw


def _sym_sep(k, n):
    """A stack of symmetric matrices with well-separated eigenvalues."""
    def draw(rng):
        q = np.linalg.qr(rng.standard_normal((k, n, n)))[0]
        w = np.array([1.0, 2.5, 4.0])[:n] + 0.1 * rng.random((k, n))
        return (q * w[:, None, :]) @ np.swapaxes(q, -1, -2)
    return draw


def _upper_sep(k, n):
    """Like _sym_sep, with noise in the lower triangle (np.linalg.eigh(UPLO="U") never reads it)."""
    sym = _sym_sep(k, n)
    return lambda rng: sym(rng) + np.tril(rng.standard_normal((k, n, n)), -1)


def _mT(x):
    return np.swapaxes(x, -1, -2)


def _spd(a):
    return a @ _mT(a) + 3.0 * np.eye(3)


# ---- the per-example losses (NumPy's own functions when called plainly) ----
def solve(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def inv(a):
    return np.sum(np.sin(np.linalg.inv(a)))


def det(a):
    return np.sum(np.sin(np.linalg.det(a)))


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.sum(np.sin(logdet) * sign)


def svd_values(a):
    return np.sum(np.sin(np.linalg.svd(a)[1]))


def svd_compute_uv_false(a):
    return np.sum(np.sin(np.linalg.svd(a, compute_uv=False)))


def svd_thin(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.sin(s)) + np.sum(u ** 2 * W43) + np.sum(vh ** 2 * W33)


def svdvals(a):
    return np.sum(np.sin(np.linalg.svdvals(a)))


def eigh(a):
    w, v = np.linalg.eigh(a)
    return np.sum(np.sin(w)) + np.sum(v ** 2 * W33)


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(np.sin(w)) + np.sum(v ** 2 * W33)


def eigvalsh(a):
    return np.sum(np.sin(np.linalg.eigvalsh(a)))


def cholesky(a):
    return np.sum(np.sin(np.linalg.cholesky(_spd(a))))


def qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(np.sin(q)) + np.sum(np.sin(r))


def pinv(a):
    return np.sum(np.sin(np.linalg.pinv(a)))


def matrix_power(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, 3)))


def matrix_power_negative(a):
    return np.sum(np.sin(np.linalg.matrix_power(a, -2)))


def norm_fro(a):
    return np.sum(np.sin(np.linalg.norm(a, axis=(1, 2))))


def norm_2(a):
    return np.sum(np.sin(np.linalg.norm(a, 2, axis=(-2, -1))))


def norm_nuc(a):
    return np.sum(np.sin(np.linalg.norm(a, "nuc", axis=(-2, -1))))


def norm_1(a):
    return np.sum(np.sin(np.linalg.norm(a, 1, axis=(-2, -1))))


def norm_inf(a):
    return np.sum(np.sin(np.linalg.norm(a, np.inf, axis=(-2, -1))))


def norm_other_ords(a):
    return np.sum(np.sin(np.linalg.norm(a, -1, axis=(1, 2)) + np.linalg.norm(a, -np.inf, axis=(2, 1))
                         + np.linalg.norm(a, -2, axis=(-2, -1))))


def vector_norm_two_axes(a):
    """The entries along both axes as one vector (not the matrix 2-norm)."""
    return np.sum(np.sin(np.linalg.vector_norm(a, axis=(-2, -1)))) + np.sum(np.linalg.vector_norm(a, ord=3, axis=(0, 2)))


def cond_other_ps(a):
    return np.sum(np.linalg.cond(a, "fro") + np.linalg.cond(a, 1) + np.linalg.cond(a, -np.inf))


def matrix_norm(a):
    return np.sum(np.sin(np.linalg.matrix_norm(a)))


def cond(a):
    return np.sum(np.sin(np.linalg.cond(a)))


def matmul(a, b):
    return np.sum(np.sin(a @ b))


def matmul_function(a, b):
    return np.sum(np.sin(np.matmul(a, b) + np.linalg.matmul(a, b)))


def matmul_chain(a, b):
    return np.sum(np.sin(a @ _mT(a) @ b))


def einsum_stacks(a, b):
    return np.sum(np.sin(np.einsum("sij,sjk->sik", a, b)))


def einsum_ellipsis(a, b):
    return np.sum(np.sin(np.einsum("...ij,...jk->...ik", a, b)))


def scipy_cholesky(a):
    return np.sum(np.sin(ssl.cholesky(_spd(a))))


def scipy_cholesky_lower(a):
    return np.sum(np.sin(ssl.cholesky(_spd(a), lower=True)))


def scipy_solve_triangular(a, b):
    return np.sum(np.sin(ssl.solve_triangular(a, b, lower=True)))


def scipy_solve_triangular_trans(a, b):
    return np.sum(np.sin(ssl.solve_triangular(a, b, trans=1)))


def scipy_cho_solve(a, b):
    return np.sum(np.sin(ssl.cho_solve(ssl.cho_factor(_spd(a)), b)))


def scipy_expm(a):
    return np.sum(np.sin(ssl.expm(a)))


# ---- SciPy's own functions, one matrix at a time (the references of the s2s.scipy cases) ----
def _per_matrix(fn, *stacks):
    return np.stack([fn(*ms) for ms in zip(*stacks)])


def ref_scipy_cholesky(a):
    return np.sum(np.sin(_per_matrix(sp_linalg.cholesky, _spd(a))))


def ref_scipy_cholesky_lower(a):
    return np.sum(np.sin(_per_matrix(lambda m: sp_linalg.cholesky(m, lower=True), _spd(a))))


def ref_scipy_solve_triangular(a, b):
    return np.sum(np.sin(_per_matrix(lambda m, r: sp_linalg.solve_triangular(m, r, lower=True), a, b)))


def ref_scipy_solve_triangular_trans(a, b):
    return np.sum(np.sin(_per_matrix(lambda m, r: sp_linalg.solve_triangular(m, r, trans=1), a, b)))


def ref_scipy_cho_solve(a, b):
    return np.sum(np.sin(_per_matrix(lambda m, r: sp_linalg.cho_solve(sp_linalg.cho_factor(m), r), _spd(a), b)))


def ref_scipy_expm(a):
    return np.sum(np.sin(_per_matrix(sp_linalg.expm, a)))


# id -> (loss, reference (None: the loss itself, NumPy's own functions), draws of one example)
CASES = {
    "solve": (solve, None, (_wc(2, 3, 3), _normal(2, 3, 2))),
    "inv": (inv, None, (_wc(2, 3, 3),)),
    "det": (det, None, (_wc(2, 3, 3),)),
    "slogdet": (slogdet, None, (_wc(2, 3, 3),)),
    "svd_values": (svd_values, None, (_sepvals(2, 3, 3),)),
    "svd_compute_uv_false": (svd_compute_uv_false, None, (_sepvals(2, 4, 3),)),
    "svd_thin": (svd_thin, None, (_sepvals(2, 4, 3),)),
    "svdvals": (svdvals, None, (_sepvals(2, 4, 3),)),
    "eigh": (eigh, None, (_sym_sep(2, 3),)),
    "eigh_upper": (eigh_upper, None, (_upper_sep(2, 3),)),
    "eigvalsh": (eigvalsh, None, (_sym_sep(2, 3),)),
    "cholesky": (cholesky, None, (_normal(2, 3, 3),)),
    "qr": (qr, None, (_wc(2, 4, 3),)),
    "pinv": (pinv, None, (_wc(2, 4, 3),)),
    "matrix_power": (matrix_power, None, (_normal(2, 3, 3),)),
    "matrix_power_negative": (matrix_power_negative, None, (_wc(2, 3, 3),)),
    "norm_fro": (norm_fro, None, (_normal(2, 3, 3),)),
    "norm_2": (norm_2, None, (_sepvals(2, 3, 3),)),
    "norm_nuc": (norm_nuc, None, (_sepvals(2, 3, 3),)),
    "norm_1": (norm_1, None, (_normal(2, 3, 3),)),
    "norm_inf": (norm_inf, None, (_normal(2, 3, 3),)),
    "norm_other_ords": (norm_other_ords, None, (_sepvals(2, 3, 3),)),
    "vector_norm_two_axes": (vector_norm_two_axes, None, (_normal(2, 3, 3),)),
    "matrix_norm": (matrix_norm, None, (_normal(2, 3, 3),)),
    "cond_other_ps": (cond_other_ps, None, (_wc(2, 3, 3),)),
    "cond": (cond, None, (_sepvals(2, 3, 3),)),
    "matmul": (matmul, None, (_normal(2, 3, 4), _normal(2, 4, 2))),
    "matmul_function": (matmul_function, None, (_normal(2, 3, 4), _normal(2, 4, 2))),
    "matmul_broadcast": (matmul, None, (_normal(1, 3, 4), _normal(2, 4, 2))),
    "matmul_rank4": (matmul, None, (_normal(2, 1, 3, 4), _normal(3, 4, 2))),
    "matmul_matrix_stack": (matmul, None, (_normal(3, 4), _normal(2, 4, 2))),
    "matmul_chain": (matmul_chain, None, (_normal(2, 3, 3), _normal(2, 3, 2))),
    "einsum_stacks": (einsum_stacks, None, (_normal(2, 3, 4), _normal(2, 4, 2))),
    "einsum_ellipsis": (einsum_ellipsis, None, (_normal(2, 3, 4), _normal(2, 4, 2))),
    "scipy_cholesky": (scipy_cholesky, ref_scipy_cholesky, (_normal(2, 3, 3),)),
    "scipy_cholesky_lower": (scipy_cholesky_lower, ref_scipy_cholesky_lower, (_normal(2, 3, 3),)),
    "scipy_solve_triangular": (scipy_solve_triangular, ref_scipy_solve_triangular, (_wc(2, 3, 3), _normal(2, 3, 2))),
    "scipy_solve_triangular_trans": (scipy_solve_triangular_trans, ref_scipy_solve_triangular_trans,
                                     (_wc(2, 3, 3), _normal(2, 3, 2))),
    "scipy_cho_solve": (scipy_cho_solve, ref_scipy_cho_solve, (_normal(2, 3, 3), _normal(2, 3, 2))),
    "scipy_expm": (scipy_expm, ref_scipy_expm, (_normal(2, 3, 3),)),
}
# cheap second derivatives (their Hessians of a (2, 3, 3) stack have 324 entries per example)
HESSIAN = ("solve", "inv", "det", "slogdet", "eigvalsh", "cholesky", "matrix_power", "norm_fro", "matmul",
           "matmul_chain", "svd_values", "scipy_solve_triangular")


def _examples(case_id, seed=0):
    """B examples of the case's arguments, and the same stacked along a leading batch axis."""
    rng = np.random.default_rng([seed, len(case_id)] + [ord(c) for c in case_id])
    draws = CASES[case_id][2]
    examples = [tuple(d(rng) for d in draws) for _ in range(B)]
    return examples, [np.stack([ex[i] for ex in examples]) for i in range(len(draws))]


def _fd(case_id, ex):
    """Central differences of the reference function of one example, per argument."""
    loss, ref, _ = CASES[case_id]
    ref = ref or loss
    return [fd_grad(lambda x, i=i: ref(*ex[:i], x, *ex[i + 1:]), np.array(ex[i], dtype=float)) for i in range(len(ex))]


def _check_grads(case_id, got, examples, nums):
    """`got` (a gradient per argument, stacked over the examples) against a loop of s2s.grad and
    against central differences of NumPy's (SciPy's) own function."""
    loss = CASES[case_id][0]
    loop = [s2s.grad(loss, argnums=nums)(*ex) for ex in examples]
    fd = [_fd(case_id, ex) for ex in examples]
    for i in nums:
        np.testing.assert_allclose(got[i], np.stack([w[i] for w in loop]), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(got[i], np.stack([d[i] for d in fd]), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case_id", list(CASES))
def test_vmap_of_grad(case_id):
    examples, stacked = _examples(case_id)
    nums = tuple(range(len(stacked)))
    got = s2s.vmap(s2s.grad(CASES[case_id][0], argnums=nums))(*stacked)
    _check_grads(case_id, got, examples, nums)


@pytest.mark.parametrize("case_id", list(CASES))
def test_grad_of_vmap(case_id):
    """Reverse mode through the batched function: the pullback of vmap(loss) of ones."""
    examples, stacked = _examples(case_id)
    nums = tuple(range(len(stacked)))
    _, pullback = s2s.vjp(s2s.vmap(CASES[case_id][0]), *stacked)
    _check_grads(case_id, pullback(np.ones(B)), examples, nums)


def _tangents(stacked, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(s)) for s in stacked]


def _check_jvp(case_id, got, examples, tangents):
    """Per-example directional derivatives against a loop of s2s.jvp and central differences."""
    loss, ref, _ = CASES[case_id]
    ref, eps = ref or loss, 1e-6
    loop, fd = [], []
    for k, ex in enumerate(examples):
        t = tuple(tg[k] for tg in tangents)
        loop.append(s2s.jvp(loss, ex, t)[1])
        fd.append((ref(*[x + eps * d for x, d in zip(ex, t)]) - ref(*[x - eps * d for x, d in zip(ex, t)])) / (2 * eps))
    np.testing.assert_allclose(got, np.stack(loop), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got, np.stack(fd), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case_id", list(CASES))
def test_vmap_of_jvp(case_id):
    examples, stacked = _examples(case_id)
    loss, n = CASES[case_id][0], len(stacked)
    tangents = _tangents(stacked)
    if n == 1:
        got = s2s.vmap(lambda a, t: s2s.jvp(loss, (a,), (t,))[1])(*stacked, *tangents)
    else:
        got = s2s.vmap(lambda a, b, t, u: s2s.jvp(loss, (a, b), (t, u))[1])(*stacked, *tangents)
    _check_jvp(case_id, got, examples, tangents)


@pytest.mark.parametrize("case_id", list(CASES))
def test_jvp_of_vmap(case_id):
    examples, stacked = _examples(case_id)
    tangents = _tangents(stacked)
    _, got = s2s.jvp(s2s.vmap(CASES[case_id][0]), tuple(stacked), tuple(tangents))
    _check_jvp(case_id, got, examples, tangents)


@pytest.mark.parametrize("case_id", HESSIAN)
def test_vmap_of_hessian(case_id):
    """Second derivatives in the first argument, batched, against a loop of s2s.hessian and central
    differences of NumPy's own gradient-free function along two directions (t^T H u)."""
    examples, stacked = _examples(case_id)
    loss = CASES[case_id][0]
    got = s2s.vmap(s2s.hessian(loss))(*stacked)
    want = np.stack([s2s.hessian(loss)(*ex) for ex in examples])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    rng, eps = np.random.default_rng(5), 1e-4
    for k, ex in enumerate(examples):
        a, rest = ex[0], ex[1:]
        t, u = rng.standard_normal(a.shape), rng.standard_normal(a.shape)
        mixed = (loss(a + eps * (t + u), *rest) - loss(a + eps * (t - u), *rest) - loss(a - eps * (t - u), *rest)
                 + loss(a - eps * (t + u), *rest)) / (4 * eps * eps)
        np.testing.assert_allclose(np.tensordot(t, np.tensordot(got[k], u, axes=u.ndim), axes=t.ndim), mixed,
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case_id", ["solve", "svd_thin", "cholesky", "matmul", "scipy_cho_solve", "qr"])
def test_in_axes_and_out_axes(case_id):
    """The batch axis second on the way in (in_axes=1) or on the way out (out_axes=1)."""
    examples, stacked = _examples(case_id)
    nums = tuple(range(len(stacked)))
    fn = s2s.grad(CASES[case_id][0], argnums=nums)
    moved_in = s2s.vmap(fn, in_axes=1)(*[np.moveaxis(s, 0, 1) for s in stacked])
    _check_grads(case_id, moved_in, examples, nums)
    moved_out = s2s.vmap(fn, out_axes=1)(*stacked)
    _check_grads(case_id, [np.moveaxis(g, 1, 0) for g in moved_out], examples, nums)


def test_shared_operand_in_axes_none():
    """One operand shared by every example (in_axes None): its per-example gradients inside vmap."""
    examples, stacked = _examples("solve")
    shared = examples[0][1]
    got = s2s.vmap(s2s.grad(solve, argnums=(0, 1)), in_axes=(0, None))(stacked[0], shared)
    for k, ex in enumerate(examples):
        want = s2s.grad(solve, argnums=(0, 1))(ex[0], shared)
        fd = _fd("solve", (ex[0], shared))
        for i in (0, 1):
            np.testing.assert_allclose(got[i][k], want[i], rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(got[i][k], fd[i], rtol=1e-6, atol=1e-6)


def test_nested_vmap_of_matmul_stacks():
    """vmap of vmap of `a @ b` on stacks (a product batched twice), its value and its gradient."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((4, 5, 2, 3, 3)), rng.standard_normal((4, 5, 2, 3, 2))
    np.testing.assert_allclose(s2s.vmap(s2s.vmap(lambda x, y: x @ y))(a, b), np.einsum("pqsij,pqsjk->pqsik", a, b),
                               rtol=1e-12, atol=1e-12)
    mixed = s2s.vmap(s2s.vmap(lambda x, y: x @ y, in_axes=(0, None)), in_axes=(None, 0))(a[0], b[:, 0])
    np.testing.assert_allclose(mixed, np.einsum("qsij,psjk->pqsik", a[0], b[:, 0]), rtol=1e-12, atol=1e-12)

    def total(x, y):
        return np.sum(s2s.vmap(s2s.vmap(matmul))(x, y))
    got = s2s.grad(total, argnums=(0, 1))(a, b)
    for p in range(4):
        for q in range(5):
            fd = _fd("matmul", (a[p, q], b[p, q]))
            for i in (0, 1):
                np.testing.assert_allclose(got[i][p, q], fd[i], rtol=1e-6, atol=1e-6)


RR_A, RR_B = np.random.default_rng(8).standard_normal((2, 3, 2, 2, 2))  # batch 3 of stacks of two 2x2 matrices


def _summed_matmul_a(a):
    return np.sum(s2s.vmap(matmul)(a, RR_B))


def _summed_matmul_b(b):
    return np.sum(s2s.vmap(matmul)(RR_A, b))


def _weighted_grad_a(a, w):
    return np.sum(s2s.grad(_summed_matmul_a)(a) * w)


def _weighted_grad_b(b, w):
    return np.sum(s2s.grad(_summed_matmul_b)(b) * w)


def _hand_grad_a(a):
    """The gradient of _summed_matmul_a, derived by hand: cos(a @ b) @ b^T."""
    return np.cos(a @ RR_B) @ _mT(RR_B)


def _hand_grad_b(b):
    return _mT(RR_A) @ np.cos(RR_A @ b)


@pytest.mark.parametrize("outer, hand, x", [(_weighted_grad_a, _hand_grad_a, RR_A),
                                            (_weighted_grad_b, _hand_grad_b, RR_B)])
def test_reverse_over_reverse_through_vmapped_matmul_stacks(outer, hand, x):
    """grad of grad of a function that calls vmap of `a @ b` on stacks: the cotangent of the batched
    product differentiated again, against central differences of the hand-derived gradient."""
    w = np.random.default_rng(9).standard_normal(x.shape)
    got = s2s.grad(outer)(x, w)
    np.testing.assert_allclose(got, fd_grad(lambda y: np.sum(hand(y) * w), x), rtol=1e-6, atol=1e-6)


def _loop_of_products(a, bs):
    out = []
    for i in range(3):
        out.append(a @ bs[i])
    t = np.array(out)
    return np.sum(np.sin(t))


def test_vectorized_loop_of_matmul_stacks():
    """A loop that jit vectorizes into a batched `a @ bs[i]` on stacks: its value, gradient and Hessian."""
    rng = np.random.default_rng(9)
    a, bs = rng.standard_normal((2, 3, 3)) * 0.5, rng.standard_normal((3, 2, 3, 3)) * 0.5
    np.testing.assert_allclose(s2s.jit(_loop_of_products)(a, bs), _loop_of_products(a, bs), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.grad(_loop_of_products))(a, bs), fd_grad(lambda x: _loop_of_products(x, bs), a),
                               rtol=1e-6, atol=1e-6)
    hess = s2s.jit(s2s.hessian(_loop_of_products))(a, bs)
    np.testing.assert_allclose(hess, s2s.hessian(_loop_of_products)(a, bs), rtol=1e-10, atol=1e-10)


# ---- refused: what s2s does not compute for stacks is an S2SError naming it ----
def _lu_solve_stack(a, b):
    return np.sum(np.sin(ssl.lu_solve(ssl.lu_factor(a), b)))


def _lu_solve_stacked_b(a, b):
    return np.sum(np.sin(ssl.lu_solve(ssl.lu_factor(a[0]), b)))


def _lstsq(a, b):
    return np.sum(np.linalg.lstsq(a[0], b[0])[0])


def _svd_full_wide(a):
    return np.sum(np.sin(np.linalg.svd(a)[0]))


@pytest.mark.parametrize("fn, match", [(_lu_solve_stack, "lu_factor factors one matrix"),
                                       (_lu_solve_stacked_b, "lu_solve solves with one factored matrix")])
def test_lu_of_a_stack_is_refused(fn, match):
    """lu_factor / lu_solve pivot the rows of one matrix: a stack (which a (3, 3, 3) array read as
    one matrix, silently) is refused, plainly and under every transform; vmap over it works."""
    a = np.random.default_rng(3).standard_normal((3, 3, 3)) + 3.0 * np.eye(3)
    b = np.random.default_rng(4).standard_normal((3, 3, 2))
    for call in (lambda: fn(a, b), lambda: s2s.grad(fn)(a, b), lambda: s2s.jit(fn)(a, b),
                 lambda: s2s.vmap(s2s.grad(fn))(a[None], b[None])):
        with pytest.raises(S2SError, match=match):
            call()
    got = s2s.vmap(s2s.grad(_lu_solve_one))(a, b)
    for k in range(3):
        np.testing.assert_allclose(got[k], fd_grad(lambda x: _lu_solve_ref(x, b[k]), a[k]), rtol=1e-6, atol=1e-6)


def _lu_solve_one(a, b):
    return np.sum(np.sin(ssl.lu_solve(ssl.lu_factor(a), b)))


def _lu_solve_ref(a, b):
    return np.sum(np.sin(sp_linalg.lu_solve(sp_linalg.lu_factor(a), b)))


def test_unsupported_stack_derivatives_are_refused():
    """svd with full_matrices of a non-square stack has no derivative rule: refused under
    vmap(grad) by name, never a number. (lstsq of one matrix per example has one: checked against
    a loop and central differences.)"""
    a, b = np.random.default_rng(6).standard_normal((3, 2, 4, 3)), np.random.default_rng(6).standard_normal((3, 2, 4, 2))
    got = s2s.vmap(s2s.grad(_lstsq))(a, b)
    np.testing.assert_allclose(got, [s2s.grad(_lstsq)(ai, bi) for ai, bi in zip(a, b)], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0], fd_grad(lambda t: _lstsq(t, b[0]), a[0]), rtol=1e-6, atol=1e-8)
    with pytest.raises(S2SError, match="full_matrices"):
        s2s.vmap(s2s.grad(_svd_full_wide))(a)
