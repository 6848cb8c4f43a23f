"""User functions that call SciPy itself, the way autograd's examples do (test_scipy_imports.py)."""
import numpy as np
import scipy.linalg
import scipy.special
import scipy.special as sps
import scipy.stats
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit, gammaln, logsumexp
from scipy.stats import multivariate_normal as mvn
from scipy.stats import norm


def special_module(x):
    return np.sum(scipy.special.gammaln(x) + sps.digamma(x) * scipy.special.erf(x - 1.0))


def special_names(x):
    return logsumexp(gammaln(x)) + np.sum(expit(x) * sps.xlogy(x, x + 1.0))


def stats_module(x, loc, scale):
    return np.sum(scipy.stats.norm.logpdf(x, loc, scale) + scipy.stats.t.logpdf(x, 3.0))


def stats_names(x, mean):
    cov = np.array([[1.5, 0.2, 0.0], [0.2, 1.0, 0.1], [0.0, 0.1, 0.8]])
    return np.sum(norm.cdf(x) * norm.logpdf(x, loc=0.3)) + mvn.logpdf(x, mean, cov)


def linalg_calls(a, b):
    s = a @ a.T + 4.0 * np.eye(3)
    u = scipy.linalg.cholesky(s)
    x = scipy.linalg.solve_triangular(u, b, trans=1)
    y = cho_solve(cho_factor(s, lower=True), b)
    return np.sum(x * x) + np.sum(y) + np.trace(scipy.linalg.expm(0.1 * a))


def row_loss(x):
    return scipy.special.logsumexp(x) - np.sum(norm.logpdf(x))


def unknown_special(x):
    return np.sum(scipy.special.zeta(x, 1.0))


def unknown_linalg(a):
    return np.sum(scipy.linalg.qr(a)[0])


def unknown_stats_method(x):
    return np.sum(scipy.stats.norm.rvs(x))
