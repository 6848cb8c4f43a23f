"""s2s.scipy.stats' chi2 (logpdf, pdf, cdf, logcdf, sf, logsf), t's CDFs (cdf, logcdf, sf, logsf,
with broadcasting), multivariate_normal.entropy and multivariate_normal with allow_singular=True:
values against SciPy's own, reverse and forward derivatives against central differences of
SciPy's function, second order against central differences, vmap against a Python loop."""
import numpy as np
import pytest
import scipy.stats as ss
from scipy_checks import check_vjp_and_jvp, fd_vjp, sum_sin

import s2s
from s2s.scipy import stats
from s2s.test_util import check_grads

X = np.array([[-1.3, -0.4, 0.7], [1.9, -2.2, 0.25]])
POS = np.array([[0.35, 1.7, 2.6], [0.9, 3.1, 1.2]])
LOC, SCALE = np.array([[0.3, -0.2, 0.1], [0.05, 0.4, -0.3]]), np.array([[1.4, 0.8, 2.1], [0.6, 1.1, 1.7]])
DF = np.array([[1.5, 3.0, 7.5], [2.0, 4.5, 1.2]])
FIXED_DF = np.array([2.5, 4.0, 9.0])  # the CDFs' degrees of freedom (no derivative in them)

CASES = {
    "chi2.logpdf": (lambda x, df: stats.chi2.logpdf(x, df), lambda x, df: ss.chi2.logpdf(x, df), (POS, DF)),
    "chi2.pdf": (lambda x, df, loc: stats.chi2.pdf(x, df, loc, 1.5),
                 lambda x, df, loc: ss.chi2.pdf(x, df, loc, 1.5), (POS + 1.0, DF, LOC)),
}


def _df_fixed(ours, theirs, arg):
    """A CDF of x, loc and scale with the degrees of freedom FIXED_DF (no derivative in them)."""
    return (lambda x, loc, scale: ours(x, FIXED_DF, loc, scale), lambda x, loc, scale: theirs(x, FIXED_DF, loc, scale),
            (arg, LOC, SCALE))


for _fn in ("cdf", "logcdf", "sf", "logsf"):
    CASES[f"chi2.{_fn}"] = _df_fixed(getattr(stats.chi2, _fn), getattr(ss.chi2, _fn), POS + 0.5)
    CASES[f"t.{_fn}"] = _df_fixed(getattr(stats.t, _fn), getattr(ss.t, _fn), X)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    fn, ref, args = CASES[name]
    np.testing.assert_allclose(fn(*args), ref(*args), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_and_jvp_match_differences_of_scipy(name):
    fn, ref, args = CASES[name]
    check_vjp_and_jvp(fn, ref, args, 3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_matches_differences(name):
    fn, _, args = CASES[name]
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_a_loop(name):
    fn, _, args = CASES[name]
    batched = s2s.vmap(fn)(*args)
    np.testing.assert_allclose(batched, np.stack([fn(*row) for row in zip(*args)]), rtol=1e-12, atol=1e-14)
    loss = sum_sin(fn, len(args))
    per_row = s2s.vmap(s2s.grad(loss))(*args)
    np.testing.assert_allclose(per_row, np.stack([s2s.grad(loss)(*row) for row in zip(*args)]), rtol=1e-11)


def test_t_cdfs_broadcast_their_arguments():
    """autograd's shapes: x (4, 3), df (1, 3), loc (4, 3), scale (4, 1); derivatives in x and loc."""
    rng = np.random.default_rng(4)
    x, df, loc, scale = (rng.standard_normal((4, 3)), rng.standard_normal((1, 3)) ** 2 + 2.1,
                         rng.standard_normal((4, 3)), rng.standard_normal((4, 1)) ** 2 + 2.1)
    for f in ("cdf", "logcdf"):
        ours, theirs = getattr(stats.t, f), getattr(ss.t, f)
        np.testing.assert_allclose(ours(x, df, loc, scale), theirs(x, df, loc, scale), rtol=1e-12)
        u = rng.standard_normal((4, 3))
        _, pull = s2s.vjp(lambda a, b, c: ours(a, df, b, c), x, loc, scale)
        cots = pull(u)
        for i in range(3):
            np.testing.assert_allclose(cots[i], fd_vjp(lambda a, b, c: theirs(a, df, b, c), (x, loc, scale), u, i),
                                       rtol=1e-6, atol=1e-8)
        assert cots[2].shape == (4, 1)


def test_cdfs_refuse_a_derivative_in_the_degrees_of_freedom():
    with pytest.raises(s2s.S2SError, match="degrees of freedom"):
        s2s.grad(lambda df: np.sum(stats.t.cdf(X, df)))(DF)
    with pytest.raises(s2s.S2SError, match="shape parameter a"):
        s2s.grad(lambda df: np.sum(stats.chi2.cdf(POS, df)))(DF)


def test_chi2_below_its_support():
    assert stats.chi2.logpdf(-0.5, 3.0) == -np.inf and stats.chi2.pdf(-0.5, 3.0) == 0.0
    assert stats.chi2.cdf(-0.5, 3.0) == 0.0 and stats.chi2.sf(-0.5, 3.0) == 1.0


def _psd(seed, n=3):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return a @ a.T + np.eye(n)


def test_multivariate_normal_entropy():
    covs = np.stack([_psd(s) for s in range(4)])
    means = np.random.default_rng(5).standard_normal((4, 3))
    for m, c in zip(means, covs):
        np.testing.assert_allclose(stats.multivariate_normal.entropy(m, c), ss.multivariate_normal(m, c).entropy(),
                                   rtol=1e-13)
    np.testing.assert_allclose(stats.multivariate_normal.entropy(0.0, 1.7), ss.norm(0.0, np.sqrt(1.7)).entropy(),
                               rtol=1e-13)

    def ent(c):  # (symmetrized: SciPy reads one triangle of cov, s2s all of it)
        return stats.multivariate_normal.entropy(means[0], 0.5 * (c + c.T))

    check_grads(ent, (covs[0],), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(s2s.grad(ent)(covs[0]),
                               fd_vjp(lambda c: ss.multivariate_normal(means[0], 0.5 * (c + c.T)).entropy(),
                                      (covs[0],), 1.0, 0), rtol=1e-6)
    g_mean = s2s.grad(lambda m: stats.multivariate_normal.entropy(m, covs[0]))(means[0])
    np.testing.assert_array_equal(g_mean, np.zeros(3))
    np.testing.assert_allclose(s2s.vmap(s2s.grad(ent))(covs), np.stack([s2s.grad(ent)(c) for c in covs]), rtol=1e-12)


# a covariance of rank 2 in 4 dimensions (its range: the first two axes, rotated)
SING = np.zeros((4, 4))
SING[:2, :2] = [[1.3, 0.4], [0.4, 0.9]]
MEAN = np.array([0.2, -0.5, 0.7, 1.1])


def _on_support(x2):
    """A point whose last two coordinates are the mean's: inside the range of SING around MEAN."""
    return np.concatenate([x2, MEAN[2:]])


@pytest.mark.parametrize("fn", ["logpdf", "pdf"])
def test_multivariate_normal_allow_singular(fn):
    ours = getattr(stats.multivariate_normal, fn)
    theirs = getattr(ss.multivariate_normal, fn)
    pts = np.array([[0.3, -0.1], [1.2, 0.5], [-0.7, 0.8]])
    for p in pts:
        np.testing.assert_allclose(ours(_on_support(p), MEAN, SING, allow_singular=True),
                                   theirs(_on_support(p), MEAN, SING, allow_singular=True), rtol=1e-12)
    off = _on_support(pts[0]) + np.array([0.0, 0.0, 0.1, 0.0])
    assert ours(off, MEAN, SING, allow_singular=True) == theirs(off, MEAN, SING, allow_singular=True)

    def f(x2, mean):
        return ours(np.concatenate([x2, mean[2:]]), mean, SING, allow_singular=True)

    def ref(x2, mean):
        return theirs(np.concatenate([x2, mean[2:]]), mean, SING, allow_singular=True)

    args = (pts[0], MEAN)
    g = s2s.grad(f, argnums=(0, 1))(*args)
    for i in range(2):
        np.testing.assert_allclose(g[i], fd_vjp(ref, args, 1.0, i), rtol=1e-6, atol=1e-8)
    check_grads(f, args, order=2, modes=("fwd", "rev"))
    loss = sum_sin(f, 2)
    means = MEAN + np.arange(3.0)[:, None] * 0.1
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss))(pts, means),
                               np.stack([s2s.grad(loss)(p, m) for p, m in zip(pts, means)]), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(f)(pts, means), np.stack([ref(p, m) for p, m in zip(pts, means)]), rtol=1e-12)


def test_allow_singular_derivative_in_the_covariance_along_its_range():
    """Perturbations within cov's range keep its rank: along them the derivative is SciPy's central
    difference; the gradient is autograd's -(C^+ - C^+ d d^T C^+) / 2."""
    x = _on_support(np.array([0.4, -0.3]))
    within = np.zeros((4, 4))
    within[:2, :2] = [[0.3, -0.2], [-0.2, 0.5]]

    def lp(c):
        return stats.multivariate_normal.logpdf(x, MEAN, c, allow_singular=True)

    def ent(c):
        return stats.multivariate_normal.entropy(MEAN, c, allow_singular=True)

    eps = 1e-6
    for ours, theirs in ((lp, lambda c: ss.multivariate_normal.logpdf(x, MEAN, c, allow_singular=True)),
                         (ent, lambda c: ss.multivariate_normal(MEAN, c, allow_singular=True).entropy())):
        want = (theirs(SING + eps * within) - theirs(SING - eps * within)) / (2 * eps)
        np.testing.assert_allclose(s2s.jvp(ours, (SING,), (within,))[1], want, rtol=1e-6)
        np.testing.assert_allclose(np.sum(s2s.grad(ours)(SING) * within), want, rtol=1e-6)
    pinv, d = np.linalg.pinv(SING), x - MEAN
    np.testing.assert_allclose(s2s.grad(lp)(SING), -0.5 * (pinv - np.outer(pinv @ d, pinv @ d)), atol=1e-12)
    np.testing.assert_allclose(stats.multivariate_normal.entropy(MEAN, SING, allow_singular=True),
                               ss.multivariate_normal(MEAN, SING, allow_singular=True).entropy(), rtol=1e-13)


def test_xlogy_derivative_in_x_at_zero_is_log_y():
    """d/dx x log(y) at x = 0 is log(y) (chi2.logpdf at df = 2, gamma.logpdf at a = 1 differentiate there)."""
    from s2s.scipy import special as sp
    y = np.array([0.5, 2.0, 3.5])
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(sp.xlogy(x, y)))(np.zeros(3)), np.log(y), rtol=1e-14)
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(sp.xlog1py(x, y)))(np.zeros(3)), np.log1p(y), rtol=1e-14)
    np.testing.assert_allclose(sp.xlogy(np.array([0.0, 0.0, 2.0]), np.array([0.0, -1.0, 3.0])),
                               [0.0, 0.0, 2.0 * np.log(3.0)])
    g = s2s.grad(lambda df: np.sum(stats.chi2.logpdf(POS, df)))(np.full(POS.shape, 2.0))
    np.testing.assert_allclose(g, fd_vjp(lambda df: ss.chi2.logpdf(POS, df), (np.full(POS.shape, 2.0),), 1.0, 0),
                               rtol=1e-6)
