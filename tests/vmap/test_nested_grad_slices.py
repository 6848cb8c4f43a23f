"""vmap of a gradient of a gradient through a slice: the backward sweep's tape tuple is batched as
a whole, so the slice it holds (every example's, which rt.replicate_batch leaves as it is) came
back flagged batched, and rt.example_getitem took it for a per-example index (an IndexError).
Checked against a loop of central differences of the gradient."""
from __future__ import annotations

import numpy as np
import pytest

import s2s

X = np.array([0.5, -0.8, 1.3, 0.2, 0.9])


def cube_of_head(x):
    return np.sum(x[:3] ** 3)


def head_times_tail(x):
    return np.sum(np.sin(x[:3]) * x[2:])


def strided(x):
    return np.sum(x[::2] ** 2 * x[1:4:1][:3].sum())


def columns(x):
    m = x[:4].reshape(2, 2)
    return np.sum(m[:, 1:] ** 3) + np.sum(m[None, ..., :1] ** 2)


def _fd_grad_sum(f, x, eps=1e-5):
    g = s2s.grad(f)
    return np.array([(np.sum(g(x + eps * e)) - np.sum(g(x - eps * e))) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("f", [cube_of_head, head_times_tail, strided, columns], ids=lambda f: f.__name__)
def test_vmap_of_grad_of_grad_through_slices_equals_a_loop(f):
    g = s2s.grad(f)
    gg = s2s.grad(lambda y: np.sum(g(y)))
    xs = np.stack([X, 0.5 * X - 0.3, X[::-1]])
    np.testing.assert_allclose(s2s.vmap(gg)(xs), [_fd_grad_sum(f, x) for x in xs], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.vmap(s2s.hessian(f))(xs), [s2s.hessian(f)(x) for x in xs], rtol=1e-12, atol=1e-12)
