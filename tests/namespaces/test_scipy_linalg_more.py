"""s2s.scipy.linalg's sqrtm, solve_sylvester and solve_banded: values against SciPy's own, reverse
and forward derivatives against central differences of SciPy's function, second (and for the
Sylvester primitives third) order against central differences, vmap of the function and of its
gradient against a Python loop; a complex square root and other libraries' arrays are refused."""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy_checks import check_vjp_and_jvp, fd_vjp, sum_sin

import s2s
from s2s.scipy import linalg
from s2s.test_util import check_grads

_rng = np.random.default_rng(7)
M = _rng.standard_normal((3, 3))
SPD = M @ M.T + np.eye(3)                                  # positive definite: a real principal root
NONSYM = np.array([[2.0, 0.7, -0.3], [0.2, 1.5, 0.4], [-0.5, 0.3, 3.0]])  # eigenvalues in the right half plane
B, Q = _rng.standard_normal((3, 3)) + 3.0 * np.eye(3), _rng.standard_normal((3, 3))
AB = _rng.standard_normal((4, 5)) + np.array([[0.0], [0.0], [4.0], [0.0]])  # (l, u) = (1, 2): diagonal dominant
RHS = _rng.standard_normal(5)
RHS2 = _rng.standard_normal((5, 2))

# name -> (s2s function, SciPy's function, arguments)
CASES = {
    "sqrtm_spd": (linalg.sqrtm, sl.sqrtm, (SPD,)),
    "sqrtm_nonsymmetric": (linalg.sqrtm, sl.sqrtm, (NONSYM,)),
    "solve_sylvester": (linalg.solve_sylvester, sl.solve_sylvester, (M, B, Q)),
    "solve_banded": (lambda ab, b: linalg.solve_banded((1, 2), ab, b),
                     lambda ab, b: sl.solve_banded((1, 2), ab, b), (AB, RHS)),
    "solve_banded_2d": (lambda ab, b: linalg.solve_banded((1, 2), ab, b),
                        lambda ab, b: sl.solve_banded((1, 2), ab, b), (AB, RHS2)),
    "solve_banded_tridiagonal": (lambda ab, b: linalg.solve_banded((1, 1), ab, b),
                                 lambda ab, b: sl.solve_banded((1, 1), ab, b), (AB[1:], RHS)),
}
THIRD = ("sqrtm_spd", "solve_sylvester")


def _band_mask(name, args):
    """Which entries of `ab` SciPy reads (the corners outside the matrix have no derivative)."""
    lower, upper = (1, 1) if name.endswith("tridiagonal") else (1, 2)
    ab = args[0]
    k, j = np.indices(ab.shape)
    i = k - upper + j
    return (i >= 0) & (i < ab.shape[1]) & (k <= lower + upper)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    fn, ref, args = CASES[name]
    np.testing.assert_allclose(fn(*args), ref(*args), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_and_jvp_match_differences_of_scipy(name):
    fn, ref, args = CASES[name]
    masks = {0: _band_mask(name, args)} if name.startswith("solve_banded") else None  # (SciPy ignores the corners)
    check_vjp_and_jvp(fn, ref, args, 1, masks)


@pytest.mark.parametrize("name", sorted(CASES))
def test_higher_orders_match_differences(name):
    fn, _, args = CASES[name]
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    if name in THIRD:
        check_grads(fn, args, order=3, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_of_function_and_gradient_match_a_loop(name):
    fn, _, args = CASES[name]
    stacks = tuple(np.stack([a, a + 0.1 * np.ones_like(a), a * 1.05]) for a in args)
    np.testing.assert_allclose(s2s.vmap(fn)(*stacks), np.stack([fn(*ex) for ex in zip(*stacks)]), rtol=1e-12)
    loss = sum_sin(fn, len(args))
    grads = s2s.vmap(s2s.grad(loss))(*stacks)
    np.testing.assert_allclose(grads, np.stack([s2s.grad(loss)(*ex) for ex in zip(*stacks)]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2s.jit(fn)(*args), fn(*args), rtol=1e-13)


def test_sylvester_batched_in_one_argument_only():
    """vmap over q alone (a and b the same for every example), and over a alone."""
    qs = np.stack([Q, 2.0 * Q, Q.T])

    def loss(a, b, q):
        return np.sum(np.sin(linalg.solve_sylvester(a, b, q)))

    got = s2s.vmap(s2s.grad(loss, argnums=(0, 2)), in_axes=(None, None, 0))(M, B, qs)
    for k, q in enumerate(qs):
        want = s2s.grad(loss, argnums=(0, 2))(M, B, q)
        np.testing.assert_allclose(got[0][k], want[0], rtol=1e-10)
        np.testing.assert_allclose(got[1][k], want[1], rtol=1e-10)
    as_ = np.stack([M, M + np.eye(3), -M])
    np.testing.assert_allclose(s2s.vmap(linalg.solve_sylvester, in_axes=(0, None, None))(as_, B, Q),
                               np.stack([sl.solve_sylvester(a, B, Q) for a in as_]), rtol=1e-10)


def test_sqrtm_of_a_symmetric_matrix_symmetrized_as_autograd_tests_it():
    def f(x):
        return linalg.sqrtm(0.5 * (x + x.T))

    rng = np.random.default_rng(3)
    u = rng.standard_normal((3, 3))
    np.testing.assert_allclose(s2s.vjp(f, SPD + 0.3 * M)[1](u)[0],
                               fd_vjp(lambda x: sl.sqrtm(0.5 * (x + x.T)), (SPD + 0.3 * M,), u, 0), rtol=1e-6)


def test_refusals():
    with pytest.raises(s2s.S2SError, match="negative real eigenvalues is complex"):
        linalg.sqrtm(np.diag([1.0, -2.0, 3.0]))
    with pytest.raises(s2s.S2SError, match="disp=False"):
        linalg.sqrtm(SPD, disp=False)
    da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")
    with pytest.raises(s2s.S2SError, match="scipy.linalg.sqrtm has no dask version"):
        s2s.grad(lambda a: np.sum(linalg.sqrtm(a)))(da.from_array(SPD))
    with pytest.raises(s2s.S2SError, match="scipy.linalg.solve_sylvester has no dask version"):
        linalg.solve_sylvester(da.from_array(M), B, Q)


def test_scipy_itself_in_user_code_reads_as_s2s_scipy():
    """A transformed function calling SciPy's own sqrtm, j0, chi2 and t.cdf gets s2s.scipy's."""
    import scipy.linalg
    import scipy.special
    import scipy.stats

    def f(a, x):
        return (np.trace(scipy.linalg.sqrtm(a)) * np.sum(scipy.special.j0(x))
                + np.sum(scipy.stats.chi2.logpdf(x, 3.0) + scipy.stats.t.cdf(x, 4.0)))

    x = np.array([0.4, 1.3, 2.2])
    g = s2s.grad(f, argnums=(0, 1))(SPD, x)
    np.testing.assert_allclose(g[0], fd_vjp(f, (SPD, x), 1.0, 0), rtol=1e-6)
    np.testing.assert_allclose(g[1], fd_vjp(f, (SPD, x), 1.0, 1), rtol=1e-6)
