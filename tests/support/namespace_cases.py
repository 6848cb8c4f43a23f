"""User functions over s2s's JAX namespaces (s2s.scipy.special/stats/linalg, s2s.nn, s2s.lax,
s2s.tree_util), each with its arguments: the representative set the backend tests
(tests/backends/test_namespaces_dask.py, test_namespaces_fake.py) run on another array library
and compare with NumPy. Arguments are float arrays of a few rows (the first axis is the one a
backend chunks), in each function's domain."""
from __future__ import annotations

import dataclasses

import numpy as np

from s2s import lax, nn, tree_util
from s2s.scipy import linalg, special, stats

X = np.linspace(0.15, 0.85, 12).reshape(4, 3)  # in (0, 1): every special function's domain
A = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.2]])  # symmetric positive definite
B = np.array([[0.4, -1.0], [1.2, 0.3], [-0.5, 0.8]])


# ---- scipy.special

def special_unary(x):
    return (special.gammaln(x + 1.0) * special.erf(x) + special.digamma(x + 1.0) - special.erfc(x)
            + special.erfinv(x - 0.5) + special.ndtri(x) + special.log_ndtr(x) + special.i0e(x) * special.i1e(x)
            + special.polygamma(1, x + 1.0))


def special_composed(x):
    return (special.expit(x) * special.logit(x) + special.xlogy(x, x + 1.0) + special.xlog1py(x, x)
            + special.betaln(x + 1.0, x + 2.0) + special.multigammaln(x + 2.0, 2) + special.entr(x)
            + special.ndtr(x))


def special_reductions(x):
    return special.logsumexp(x, axis=1) + special.softmax(x, axis=1)[:, 0] + special.log_softmax(x, axis=1)[:, 1]


# ---- scipy.stats

def stats_continuous(x):
    return (stats.norm.logpdf(x, 0.2, 1.5) + stats.norm.cdf(x) + stats.norm.ppf(x) + stats.t.logpdf(x, 3.0)
            + stats.gamma.logpdf(x, 2.0) + stats.beta.logpdf(x, 2.0, 3.0) + stats.cauchy.logpdf(x)
            + stats.logistic.logcdf(x) + stats.laplace.logpdf(x, 0.1) + stats.expon.logpdf(x, 0.0, 2.0)
            + stats.uniform.logpdf(x, 0.0, 1.0))


def stats_parameters(mu, scale):
    k = np.array([0.0, 1.0, 2.0, 3.0])
    return (stats.poisson.logpmf(k, mu) + stats.bernoulli.logpmf(np.array([0.0, 1.0, 1.0, 0.0]), mu / 4.0)
            + stats.norm.logpdf(k, mu, scale) + stats.gamma.logpdf(k + 0.5, scale, 0.0, mu))


def stats_multivariate(x, mean, cov):
    return stats.multivariate_normal.logpdf(x, mean, cov) + stats.dirichlet.logpdf(x[0] / np.sum(x[0]),
                                                                               mean + 1.0)


# ---- scipy.linalg

def linalg_cholesky_solves(a, b):
    s = a @ a.T + np.eye(3)
    c = linalg.cholesky(s, lower=True)
    x = linalg.solve_triangular(c, b, lower=True)
    return np.sum(x * x) + np.sum(linalg.cho_solve(linalg.cho_factor(s), b)) + np.sum(linalg.solve(s, b))


def linalg_inverse(a):
    return linalg.inv(a @ a.T + np.eye(3))


def linalg_lu(a, b):
    return linalg.lu_solve(linalg.lu_factor(a), b)


def linalg_det(a):
    return linalg.det(a) + linalg.slogdet(a @ a.T)[1]


def linalg_eigh(a):
    return linalg.eigh(a + a.T)[0]


def linalg_expm(a):
    return linalg.expm(0.3 * a)


# ---- nn

def nn_activations(x):
    y = x - 0.5
    return (nn.relu(y) + nn.relu6(4.0 * y) + nn.gelu(y) + nn.silu(y)
            + nn.sigmoid(y) + nn.softplus(y) + nn.log_sigmoid(y) + nn.elu(y) + nn.selu(y) + nn.leaky_relu(y)
            + nn.celu(y) + nn.standardize(y))


def nn_normalizers(x):
    labels = nn.one_hot(np.array([0, 2, 1, 2]), 3, dtype=np.float64)
    return np.sum(labels * nn.log_softmax(x), axis=1) + nn.logsumexp(x, axis=1) + nn.softmax(x, axis=0)[:, 1]


def erf_series(x):
    """lax.erf: a 160-term series (a large graph on Dask)."""
    return lax.erf(x)


def gelu_exact(x):
    """The exact gelu, through lax.erf."""
    return nn.gelu(x - 0.5, approximate=False)


# ---- lax control flow

def _fori_body(i, v):
    return v * np.cos(v) + 0.1 * i


def _while_cond(carry):
    return carry[1] < 3


def _while_body(carry):
    v, k = carry
    return (v * 1.1 + np.sin(v), k + 1)


def _scan_step(carry, x):
    carry = np.tanh(carry + x)
    return carry, carry * 2.0


def _branch_a(v):
    return np.sin(v)


def _branch_b(v):
    return v * v


def lax_control_flow(x):
    v = lax.fori_loop(0, 3, _fori_body, x)
    w, _ = lax.while_loop(_while_cond, _while_body, (x, 0))
    last, ys = lax.scan(_scan_step, x[0], x)
    c = lax.cond(True, _branch_a, _branch_b, x)
    s = lax.switch(1, [_branch_a, _branch_b], x)
    m = lax.map(_branch_a, x)
    return v + w + ys * last + c + s + m + lax.select(x > 0.5, x, -x)


# ---- lax slicing, products and elementwise

def lax_slicing(x):
    a = lax.dynamic_slice(x, (1, 0), (2, 2))
    b = lax.dynamic_slice_in_dim(x, 2, 2, axis=0)[:, :2]
    c = lax.dynamic_update_slice(x, a * 3.0, (1, 1))[:2, 1:]
    d = lax.dynamic_index_in_dim(x, 1, axis=1, keepdims=False)[:2, None]
    e = lax.index_in_dim(x, -1, axis=0)[:, :2] + lax.slice_in_dim(x, 0, 4, 2, axis=0)[:, 1:]
    f = lax.slice(x, (0, 1), (2, 3)) + lax.pad(x, 0.5, ((0, -2, 0), (-1, 0, 0)))
    g = lax.concatenate([a, b], 1)[:, :2]
    return a * b + c + d * e[:, :2] + f + g


def lax_products(x, w):
    y = lax.dot_general(x, w, (((1,), (0,)), ((), ()))) + lax.dot(x, w, precision=lax.Precision.HIGHEST)
    z = lax.rsqrt(x + 1.0) + lax.logistic(x) + lax.integer_pow(x, 3) + lax.stop_gradient(x) * x
    return np.sum(y, axis=1) + np.sum(z, axis=1)


def lax_conv(x, k):
    img = x.reshape(1, 1, 4, 3)
    out = lax.conv_general_dilated(img, k.reshape(1, 1, 2, 2), (1, 1), "VALID",
                                   dimension_numbers=("NCHW", "OIHW", "NCHW"))
    pooled = lax.reduce_window(img, -np.inf, lax.max, (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
    return out[0, 0] + pooled[0, 0]


# ---- tree_util

@tree_util.register_pytree_node_class
class Pair:
    """A user-registered pytree node."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    """A registered dataclass."""
    w: object
    b: object


def _scale(s, v):
    return s * v


def tree_functions(x, w):
    params = {"p": (x, x * 2.0), "q": [w, {"w": w * 0.5, "b": x}]}
    sq = tree_util.tree_map(lambda v: v * v, params)
    leaves, tree = tree_util.tree_flatten(sq)
    back = tree_util.tree_unflatten(tree, [np.sin(leaf) for leaf in leaves])
    total = tree_util.tree_reduce(lambda a, b: a + np.sum(b), tree_util.tree_leaves(back), 0.0)
    return total + np.sum(_scale(0.5, back["p"][1])) + np.sum(back["q"][1]["w"])


def tree_nodes(x, pair: Pair, params: Params):
    """User-registered nodes as arguments: a pytree class and a dataclass (s2s differentiates
    with respect to arrays, not yet with respect to a registered node: it refuses that)."""
    a, b = tree_util.tree_leaves(tree_util.tree_map(lambda v: np.tanh(v * x), pair))
    w, c = tree_util.tree_leaves(params)
    return np.sum(a * w) + np.sum(b ** 2 * c)


CASES: dict[str, tuple] = {
    "special_unary": (special_unary, (X,)),
    "special_composed": (special_composed, (X,)),
    "special_reductions": (special_reductions, (X,)),
    "stats_continuous": (stats_continuous, (X,)),
    "stats_parameters": (stats_parameters, (np.array([1.5, 2.0, 2.5, 3.0]), np.array([1.2, 1.4, 1.8, 2.2]))),
    "stats_multivariate": (stats_multivariate, (X, np.array([0.2, 0.4, 0.6]), A)),
    "linalg_cholesky_solves": (linalg_cholesky_solves, (A, B)),
    "linalg_inverse": (linalg_inverse, (A,)),
    "linalg_lu": (linalg_lu, (A + np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [3.0, 0.0, 0.0]]), B)),
    "linalg_det": (linalg_det, (A,)),
    "linalg_eigh": (linalg_eigh, (A + np.diag([0.0, 0.5, 1.1]),)),
    "linalg_expm": (linalg_expm, (A,)),
    "nn_activations": (nn_activations, (X,)),
    "nn_normalizers": (nn_normalizers, (X,)),
    "erf_series": (erf_series, (X,)),
    "gelu_exact": (gelu_exact, (X,)),
    "lax_control_flow": (lax_control_flow, (X,)),
    "lax_slicing": (lax_slicing, (X,)),
    "lax_products": (lax_products, (X, B)),
    "lax_conv": (lax_conv, (X, np.array([0.5, -1.0, 0.25, 2.0]))),
    "tree_functions": (tree_functions, (X, np.array([0.3, -0.7, 1.1]))),
}
