"""s2s.scipy.stats: each distribution's functions against SciPy's own values, their reverse and
forward derivatives (in the point and in every parameter) against central differences of SciPy's
function, second order against central differences, and vmap against a Python loop."""
import numpy as np
import pytest
import scipy.stats as ss
from scipy_checks import fd_vjp, sum_sin

import s2s
from s2s.scipy import stats
from s2s.test_util import check_grads

X = np.array([[-1.3, -0.4, 0.7], [1.9, -2.2, 0.25]])
POS = np.array([[0.35, 1.7, 2.6], [0.9, 3.1, 1.2]])
UNIT = np.array([[0.12, 0.37, 0.55], [0.81, 0.63, 0.29]])
# parameters with the points' shape: vmap maps every argument over its rows
LOC, SCALE = np.array([[0.3, -0.2, 0.1], [0.05, 0.4, -0.3]]), np.array([[1.4, 0.8, 2.1], [0.6, 1.1, 1.7]])
A, B = np.array([[1.7, 2.5, 3.2], [2.9, 1.4, 2.2]]), np.array([[2.2, 1.3, 4.0], [1.6, 3.3, 2.7]])
K = np.array([[0.0, 1.0, 3.0], [2.0, 4.0, 1.0]])
MU = np.array([[1.5, 2.5, 0.7], [3.1, 0.9, 1.8]])
ALPHA = np.array([1.5, 2.0, 3.5])
SIMPLEX = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])  # rows on the simplex (each an example)
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.1]])


def _loc_scale(name, fn, arg=X):
    ours, theirs = getattr(getattr(stats, name), fn), getattr(getattr(ss, name), fn)
    return (lambda x, loc, scale: ours(x, loc, scale), lambda x, loc, scale: theirs(x, loc, scale), (arg, LOC, SCALE))


CASES = {}
for _name, _fns in (("norm", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")), ("cauchy", ("logpdf", "pdf", "cdf",
                    "logcdf", "sf", "logsf")), ("logistic", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
                    ("laplace", ("logpdf", "pdf", "cdf")), ("expon", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")),
                    ("uniform", ("logpdf", "pdf", "cdf"))):
    for _fn in _fns:
        _arg = POS * 0.5 + 1.0 if _name in ("expon",) else (LOC + SCALE * UNIT if _name == "uniform" else X)
        CASES[f"{_name}.{_fn}"] = _loc_scale(_name, _fn, _arg)
for _name in ("norm", "cauchy", "logistic", "expon", "uniform"):
    CASES[f"{_name}.ppf"] = _loc_scale(_name, "ppf", UNIT)
for _name in ("norm", "cauchy", "logistic"):
    CASES[f"{_name}.isf"] = _loc_scale(_name, "isf", UNIT)
ROWWISE = ("dirichlet", "multivariate_normal")  # each row of their arguments is one example
CASES["t.logpdf"] = (lambda x, df: stats.t.logpdf(x, df, 0.2, 1.3), lambda x, df: ss.t.logpdf(x, df, 0.2, 1.3), (X, A))
CASES["t.pdf"] = (lambda x, df: stats.t.pdf(x, df), lambda x, df: ss.t.pdf(x, df), (X, A))
CASES["gamma.logpdf"] = (lambda x, a: stats.gamma.logpdf(x, a, scale=1.5), lambda x, a: ss.gamma.logpdf(x, a, scale=1.5),
                         (POS, A))
CASES["gamma.pdf"] = (stats.gamma.pdf, ss.gamma.pdf, (POS, A))
def _shapes_fixed(name, fn, shapes, args):
    """`fn` of distribution `name` with its shape parameters fixed, in the arguments `args`."""
    ours, theirs = getattr(getattr(stats, name), fn), getattr(getattr(ss, name), fn)
    if len(args) == 3:
        return (lambda x, loc, scale: ours(x, *shapes, loc, scale), lambda x, loc, scale: theirs(x, *shapes, loc, scale),
                args)
    return (lambda x, loc: ours(x, *shapes, loc, 2.0), lambda x, loc: theirs(x, *shapes, loc, 2.0), args)


for _fn in ("cdf", "logcdf", "sf", "logsf"):  # in x, loc and scale (the shapes have no derivative)
    CASES[f"gamma.{_fn}"] = _shapes_fixed("gamma", _fn, (2.5,), (POS + 0.5, LOC, SCALE))
    CASES[f"beta.{_fn}"] = _shapes_fixed("beta", _fn, (1.8, 2.6), (UNIT + 0.45, LOC))
CASES["poisson.cdf"] = (lambda mu: stats.poisson.cdf(K + 0.5, mu), lambda mu: ss.poisson.cdf(K + 0.5, mu), (MU,))
CASES["beta.logpdf"] = (lambda x, a: stats.beta.logpdf(x, a, 2.5), lambda x, a: ss.beta.logpdf(x, a, 2.5), (UNIT, A))
CASES["beta.pdf"] = (lambda x, b: stats.beta.pdf(x, 1.8, b), lambda x, b: ss.beta.pdf(x, 1.8, b), (UNIT, B))
CASES["poisson.logpmf"] = (lambda mu: stats.poisson.logpmf(K, mu), lambda mu: ss.poisson.logpmf(K, mu), (MU,))
CASES["poisson.pmf"] = (lambda mu: stats.poisson.pmf(K, mu, 1), lambda mu: ss.poisson.pmf(K, mu, 1), (MU,))
CASES["bernoulli.logpmf"] = (lambda p: stats.bernoulli.logpmf(np.array([0.0, 1.0, 1.0]), p),
                             lambda p: ss.bernoulli.logpmf(np.array([0.0, 1.0, 1.0]), p), (UNIT,))
CASES["bernoulli.pmf"] = (lambda p: stats.bernoulli.pmf(np.array([1.0, 0.0, 1.0]), p),
                          lambda p: ss.bernoulli.pmf(np.array([1.0, 0.0, 1.0]), p), (UNIT,))
CASES["dirichlet.logpdf"] = (lambda x, alpha: stats.dirichlet.logpdf(x, alpha),
                             lambda x, alpha: ss.dirichlet.logpdf(x, alpha), (SIMPLEX, ALPHA + SIMPLEX))
CASES["dirichlet.pdf"] = (lambda alpha: stats.dirichlet.pdf(SIMPLEX[0], alpha),
                          lambda alpha: ss.dirichlet.pdf(SIMPLEX[0], alpha), (ALPHA + SIMPLEX,))
CASES["multivariate_normal.logpdf"] = (lambda x, mean: stats.multivariate_normal.logpdf(x, mean, COV),
                                       lambda x, mean: ss.multivariate_normal.logpdf(x, mean, COV), (X, LOC + X))
CASES["multivariate_normal.pdf"] = (lambda x, mean: stats.multivariate_normal.pdf(x, mean, COV),
                                    lambda x, mean: ss.multivariate_normal.pdf(x, mean, COV), (X, LOC + X))
# the density's other arguments: its support's edges are where the derivative jumps, avoided above


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    fn, ref, args = CASES[name]
    if name.startswith(ROWWISE):
        for row in zip(*args):
            np.testing.assert_allclose(fn(*row), ref(*row), rtol=1e-12)
        return
    np.testing.assert_allclose(fn(*args), ref(*args), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_and_jvp_match_differences_of_scipy(name):
    fn, ref, args = CASES[name]
    if name.startswith(ROWWISE):  # one example each: rows are examples below
        args = tuple(a[0] for a in args)
    rng = np.random.default_rng(2)
    out, pull = s2s.vjp(fn, *args)
    u = rng.standard_normal(np.shape(out))
    cot = pull(u)
    tangents = tuple(rng.standard_normal(a.shape) for a in args)
    if name.startswith("dirichlet.logpdf"):
        tangents = (tangents[0] - tangents[0].mean(), tangents[1])  # along the simplex
    _, tan = s2s.jvp(fn, args, tangents)
    eps = 1e-6
    want = (ref(*(a + eps * t for a, t in zip(args, tangents))) - ref(*(a - eps * t for a, t in zip(args, tangents))))
    np.testing.assert_allclose(tan, want / (2 * eps), rtol=1e-6, atol=1e-7)
    for i in range(len(args)):
        if name.startswith("dirichlet.logpdf") and i == 0:
            continue  # off the simplex SciPy refuses; the point's direction along it is checked by the JVP
        np.testing.assert_allclose(cot[i], fd_vjp(ref, args, u, i), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_matches_differences(name):
    fn, _, args = CASES[name]
    if name.startswith("dirichlet.logpdf"):
        fn, args = (lambda alpha: stats.dirichlet.logpdf(SIMPLEX[0], alpha)), (args[1][0],)
    elif name.startswith(ROWWISE):
        args = tuple(a[0] for a in args)
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_a_loop(name):
    fn, _, args = CASES[name]
    batched = s2s.vmap(fn)(*args)
    np.testing.assert_allclose(batched, np.stack([fn(*row) for row in zip(*args)]), rtol=1e-12, atol=1e-14)
    loss = sum_sin(fn, len(args))
    per_row = s2s.vmap(s2s.grad(loss))(*args)
    np.testing.assert_allclose(per_row, np.stack([s2s.grad(loss)(*row) for row in zip(*args)]), rtol=1e-11)


def test_outside_the_support_the_log_density_is_minus_infinity():
    assert stats.gamma.logpdf(-1.0, 2.0) == -np.inf and stats.beta.logpdf(1.5, 2.0, 2.0) == -np.inf
    assert stats.poisson.logpmf(2.5, 1.0) == -np.inf and stats.expon.logpdf(-0.1) == -np.inf
    assert stats.uniform.pdf(1.2) == 0.0 and stats.bernoulli.pmf(2.0, 0.3) == 0.0
    np.testing.assert_allclose(stats.bernoulli.cdf(np.array([-1.0, 0.0, 1.0]), 0.3), ss.bernoulli.cdf([-1, 0, 1], 0.3))
    np.testing.assert_allclose(stats.bernoulli.ppf(np.array([0.5, 0.8]), 0.3), ss.bernoulli.ppf([0.5, 0.8], 0.3))


def test_multivariate_normal_batched_points_and_scalar_variance():
    pts = np.array([[0.1, -0.3, 0.8], [1.2, 0.4, -0.5], [0.0, 0.0, 0.0], [-0.7, 0.9, 0.2]])
    np.testing.assert_allclose(stats.multivariate_normal.logpdf(pts, LOC[0], COV),
                               ss.multivariate_normal.logpdf(pts, LOC[0], COV), rtol=1e-12)
    np.testing.assert_allclose(stats.multivariate_normal.logpdf(X, 0.2, 1.7), ss.norm.logpdf(X, 0.2, np.sqrt(1.7)),
                               rtol=1e-12)
    g = s2s.grad(lambda c: np.sum(stats.multivariate_normal.logpdf(pts, LOC[0], c @ c.T)))(COV)
    want = fd_vjp(lambda c: np.sum(ss.multivariate_normal.logpdf(pts, LOC[0], c @ c.T)), (COV,), 1.0, 0)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
