"""`s2s.scipy.stats`: JAX's `jax.scipy.stats` distributions, one module each (`norm.logpdf(x,
loc=0, scale=1)`), with JAX's signatures: plain Python over s2s.scipy.special and NumPy, which
s2s differentiates (in the values and in every parameter) and batches like user code. As in JAX,
a density outside its support is 0 (its log -inf), never an error."""
from __future__ import annotations

from . import (
    bernoulli,
    beta,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)

__all__ = ["bernoulli", "beta", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace", "logistic",
           "multivariate_normal", "norm", "poisson", "t", "uniform"]
