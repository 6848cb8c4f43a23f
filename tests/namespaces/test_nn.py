"""s2s.nn: each activation against a NumPy reference, its derivatives (forward and reverse, order
2) against central differences, and vmap against a Python loop over examples."""
import math

import numpy as np
import pytest

import s2s
from s2s import nn
from s2s.test_util import check_grads

X = np.array([[-1.7, -0.4, 0.3, 1.2], [2.1, -2.6, 0.8, -0.9], [0.45, 1.6, -1.3, 3.1]])  # no kinks hit
ERF = np.vectorize(math.erf)
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _softmax(x, axis=-1):
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


REFERENCE = {
    "relu": lambda x: np.maximum(x, 0.0),
    "relu6": lambda x: np.minimum(np.maximum(x, 0.0), 6.0),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "soft_sign": lambda x: x / (1.0 + np.abs(x)),
    "log_sigmoid": lambda x: np.log(1.0 / (1.0 + np.exp(-x))),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
    "swish": lambda x: x / (1.0 + np.exp(-x)),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "elu": lambda x: np.where(x > 0, x, np.exp(x) - 1.0),
    "selu": lambda x: SELU_S * np.where(x > 0, x, SELU_A * (np.exp(x) - 1.0)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "celu": lambda x: np.where(x > 0, x, np.exp(x) - 1.0),
    "softmax": _softmax,
    "log_softmax": lambda x: np.log(_softmax(x)),
    "logsumexp": lambda x: np.log(np.sum(np.exp(x))),
    "standardize": lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5),
}


# one-argument wrappers for vmap (vmap matches in_axes to a function's whole signature: issue 27)
def v_relu(x): return nn.relu(x)                  # noqa: E704
def v_relu6(x): return nn.relu6(x)                # noqa: E704
def v_sigmoid(x): return nn.sigmoid(x)            # noqa: E704
def v_softplus(x): return nn.softplus(x)          # noqa: E704
def v_soft_sign(x): return nn.soft_sign(x)        # noqa: E704
def v_log_sigmoid(x): return nn.log_sigmoid(x)    # noqa: E704
def v_silu(x): return nn.silu(x)                  # noqa: E704
def v_swish(x): return nn.swish(x)                # noqa: E704
def v_gelu(x): return nn.gelu(x)                  # noqa: E704
def v_elu(x): return nn.elu(x)                    # noqa: E704
def v_selu(x): return nn.selu(x)                  # noqa: E704
def v_leaky_relu(x): return nn.leaky_relu(x)      # noqa: E704
def v_celu(x): return nn.celu(x)                  # noqa: E704
def v_softmax(x): return nn.softmax(x)            # noqa: E704
def v_log_softmax(x): return nn.log_softmax(x)    # noqa: E704
def v_logsumexp(x): return nn.logsumexp(x)        # noqa: E704
def v_standardize(x): return nn.standardize(x)    # noqa: E704


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_values(name):
    ref = REFERENCE[name]
    if name == "logsumexp":
        np.testing.assert_allclose(nn.logsumexp(X), ref(X), rtol=1e-12)
        return
    np.testing.assert_allclose(getattr(nn, name)(X), ref(X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_grads_order2(name):
    check_grads(getattr(nn, name), (X,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_vmap_matches_loop(name):
    fn = globals()["v_" + name]
    out = s2s.vmap(fn)(X)
    np.testing.assert_allclose(out, np.stack([getattr(nn, name)(x) for x in X]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_jit_and_grad_of_sum(name):
    fn = globals()["v_" + name]

    def loss(x):
        return np.sum(np.sin(fn(x)))
    np.testing.assert_allclose(s2s.jit(fn)(X), getattr(nn, name)(X), rtol=1e-12, atol=1e-14)
    check_grads(loss, (X,), modes=("fwd", "rev"))


def test_keywords():
    np.testing.assert_allclose(nn.elu(X, alpha=0.5), np.where(X > 0, X, 0.5 * np.expm1(X)), rtol=1e-12)
    np.testing.assert_allclose(nn.celu(X, alpha=2.0), np.maximum(X, 0) + 2.0 * np.expm1(np.minimum(X, 0) / 2.0),
                               rtol=1e-12)
    np.testing.assert_allclose(nn.leaky_relu(X, negative_slope=0.2), np.where(X >= 0, X, 0.2 * X), rtol=1e-12)
    np.testing.assert_allclose(nn.softmax(X, axis=0), _softmax(X, axis=0), rtol=1e-12)
    np.testing.assert_allclose(nn.log_softmax(X, axis=0), np.log(_softmax(X, axis=0)), rtol=1e-12)
    np.testing.assert_allclose(nn.logsumexp(X, axis=1), np.log(np.sum(np.exp(X), axis=1)), rtol=1e-12)
    np.testing.assert_allclose(nn.logsumexp(X, axis=0, keepdims=True), np.log(np.sum(np.exp(X), 0, keepdims=True)))
    b = np.abs(X) + 0.5
    np.testing.assert_allclose(nn.logsumexp(X, axis=1, b=b), np.log(np.sum(b * np.exp(X), axis=1)), rtol=1e-12)
    np.testing.assert_allclose(nn.logsumexp(np.array([1000.0, 1000.0])), 1000.0 + np.log(2.0), rtol=1e-15)
    np.testing.assert_allclose(nn.standardize(X, axis=0), (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5), rtol=1e-12)
    np.testing.assert_allclose(nn.gelu(X, approximate=False), 0.5 * X * (1 + ERF(X / np.sqrt(2))), rtol=1e-13)
    assert np.all(np.isfinite(nn.sigmoid(np.array([-1000.0, 1000.0]))))


def test_keyword_grads():
    check_grads(lambda x: nn.softmax(x, axis=0), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: nn.log_softmax(x, axis=0), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x, b: nn.logsumexp(x, axis=1, b=b), (X, np.abs(X) + 0.5), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: nn.gelu(x, approximate=False), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: nn.elu(x, alpha=0.5), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: nn.standardize(x, axis=0), (X,), modes=("fwd", "rev"))


def test_relu_derivative_at_zero_is_zero():
    def loss(x):
        return np.sum(nn.relu(x))
    np.testing.assert_array_equal(s2s.grad(loss)(np.array([0.0, 1.0, -1.0])), [0.0, 1.0, 0.0])


def test_one_hot():
    labels = np.array([2, 0, 1, 2])
    out = nn.one_hot(labels, 3)
    assert out.dtype == np.float32 and out.shape == (4, 3)
    np.testing.assert_array_equal(out, np.eye(3)[labels])
    np.testing.assert_array_equal(nn.one_hot(labels, 3, axis=0), np.eye(3)[labels].T)
    assert nn.one_hot(labels, 3, dtype=np.float64).dtype == np.float64

    def nll(logits, y):
        return -np.sum(nn.one_hot(y, 3, dtype=np.float64) * nn.log_softmax(logits))
    logits = X[:, :3].copy()
    y = np.array([0, 2, 1])
    expected = -(np.eye(3)[y] - _softmax(logits))
    np.testing.assert_allclose(s2s.grad(nll)(logits, y), expected, rtol=1e-12)


def test_infinite_inputs():
    inf = np.inf
    np.testing.assert_array_equal(nn.relu(np.array([-inf, inf])), [0.0, inf])
    np.testing.assert_array_equal(nn.elu(np.array([-inf, inf])), [-1.0, inf])
    np.testing.assert_array_equal(nn.sigmoid(np.array([-inf, inf])), [0.0, 1.0])
    assert nn.logsumexp(np.array([inf, 1.0])) == inf
    with np.errstate(divide="ignore"):
        assert nn.logsumexp(np.array([-inf, -inf])) == -inf
