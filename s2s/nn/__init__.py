"""`s2s.nn`: JAX's activation functions and friends (`jax.nn`), written in plain NumPy.

Each is an ordinary Python function over NumPy calls s2s has rules for, so s2s transforms it
like user code when a transformed function calls it (`grad`, `jvp`, `vmap`, `jit` all apply);
called outside a transform it simply runs on NumPy. Signatures and defaults follow `jax.nn`.
"""
from __future__ import annotations

import numpy as np

from ..api.entry_points import stop_gradient
from ..lax import erf
from . import initializers

__all__ = ["celu", "elu", "gelu", "initializers", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp",
           "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus",
           "standardize", "swish"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_GELU_C = 0.7978845608028654  # sqrt(2 / pi)


def relu(x):
    """max(x, 0); its derivative at 0 is 0, as in JAX."""
    return np.where(x > 0, x, 0.0)


def relu6(x):
    """min(max(x, 0), 6)."""
    return np.minimum(np.maximum(x, 0.0), 6.0)


def sigmoid(x):
    """The logistic function 1 / (1 + exp(-x)), written with tanh so no input overflows."""
    return 0.5 * np.tanh(0.5 * x) + 0.5


def softplus(x):
    """log(1 + exp(x)), without overflow."""
    return np.logaddexp(x, 0.0)


def soft_sign(x):
    """x / (|x| + 1)."""
    return x / (np.abs(x) + 1.0)


def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return -np.logaddexp(-x, 0.0)


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return x * (0.5 * np.tanh(0.5 * x) + 0.5)


swish = silu


def gelu(x, approximate=True):
    """The Gaussian error linear unit x * Phi(x); `approximate=True` (JAX's default) is the tanh
    form, `approximate=False` the exact one (through `s2s.lax.erf`)."""
    if approximate:
        return 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * (x * x * x))))
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476))


def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    safe = np.where(x > 0, 0.0, x)
    return np.where(x > 0, x, alpha * np.expm1(safe))


def selu(x):
    """The scaled ELU with JAX's constants."""
    safe = np.where(x > 0, 0.0, x)
    return _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(safe))


def leaky_relu(x, negative_slope=0.01):
    """x where x >= 0, else negative_slope * x."""
    return np.where(x >= 0, x, negative_slope * x)


def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return np.maximum(x, 0.0) + alpha * np.expm1(np.minimum(x, 0.0) / alpha)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`, shifted by the (constant) maximum for stability."""
    shifted = x - stop_gradient(np.max(x, axis=axis, keepdims=True))
    unnormalized = np.exp(shifted)
    return unnormalized / np.sum(unnormalized, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`."""
    shifted = x - stop_gradient(np.max(x, axis=axis, keepdims=True))
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def logsumexp(a, axis=None, b=None, keepdims=False):
    """log(sum(b * exp(a))) along `axis` (all axes by default), without overflow."""
    m = stop_gradient(np.max(a, axis=axis, keepdims=True))
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(a - m)
    if b is not None:
        e = b * e
    out = np.log(np.sum(e, axis=axis, keepdims=True)) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out


def one_hot(x, num_classes, dtype=np.float32, axis=-1):
    """1 where `x` equals the class index, 0 elsewhere; the class axis is placed at `axis`."""
    hot = np.expand_dims(x, -1) == np.arange(num_classes)
    return np.moveaxis(hot.astype(dtype), -1, axis)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    """(x - mean) / sqrt(variance + epsilon), the moments along `axis` unless given."""
    if mean is None:
        mean = np.mean(x, axis=axis, keepdims=True)
    if variance is None:
        variance = np.mean(np.square(x), axis=axis, keepdims=True) - np.square(mean)
    return (x - mean) / np.sqrt(variance + epsilon)
