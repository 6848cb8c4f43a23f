"""A function defined inside a transformed one (a nested def, a lambda) is lifted to a function of
its own, which carries its def as written; under `jit`, the inliner took that def for core form,
so a conditional expression (or a comprehension, an `and`) in it reached the passes: `TypeError:
not a core-form value: IfExp` (issue 45, tinynn's `get_padding_2d`). The lifted def is now
normalized before it is inlined, as any user function. Each program is checked against the plain
function and central differences under grad, jit, jit(grad), jvp, vmap, vmap(grad) and
jit(vmap).
"""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.3, -0.2, 0.7])


def pads_of(n, k, mode):
    """tinynn's get_padding_2d's inner function, reduced."""
    def one(w, k):
        if mode == "SAME":
            pads = k - 1
            half = pads // 2
            padding = (half, half) if pads % 2 == 0 else (half, half + 1)
        else:
            padding = (0, 0)
        return padding
    return one(n, k)


def padded(x):
    return np.sum(np.pad(x, pads_of(x.shape[0], 2, "VALID")) ** 2) \
        + np.sum(np.pad(x, pads_of(x.shape[0], 2, "SAME")) ** 3)


def nested_on_values(x):
    def g(v):
        return np.sin(v) if np.sum(v) > 0 else np.cos(v) * 2.0
    return np.sum(g(x) * g(-x))


def nested_on_a_shape(x):
    def scale(k):
        return 2.0 if k % 2 == 0 else 3.0
    return np.sum(x * scale(x.shape[0])) + np.sum(x ** 2 * scale(1))


def lambda_on_values(x):
    f = lambda v: v * 2.0 if np.sum(v) > 0 else v ** 3  # noqa: E731 - the construct under test
    return np.sum(f(x)) + np.sum(f(-x))


def lambda_of_a_tuple(x):
    f = lambda k: (k, k) if k > 1 else (k, k + 1)  # noqa: E731
    return np.sum(x * f(x.shape[0])[1])


def comprehension(x):
    return sum([v * 2.0 if v > 0 else np.sin(v) for v in x])


def comprehension_in_nested(x):
    def g(xs):
        return [v ** 2 if v > 0 else -v for v in xs]
    return sum(g(x))


def default_argument(x):
    def g(v, c=(1.0 if x.shape[0] > 2 else 2.0)):
        return v * c
    return np.sum(g(x) ** 2)


def default_read_in_ifexp(x, mode="a"):
    def g(v, m=mode):
        return v * (2.0 if m == "a" else 3.0)
    return np.sum(g(x) ** 2)


def nested_in_nested(x):
    def outer(v):
        def inner(k):
            return (1, 2) if k > 2 else (2, 1)
        a, b = inner(v.shape[0])
        return v[a] * v[b] if a < b else v[b]
    return outer(x) + np.sum(x)


def boolean_operator(x):
    def g(v, flag):
        return v * 2.0 if flag and v.shape[0] > 1 else v
    return np.sum(g(x, True) ** 2)


def loop_with_augmented_assignment(x):
    def acc(v, n):
        s = 0.0
        for i in range(n):
            s += v[i] * (i + 1.0)
        return s
    return acc(x, x.shape[0]) ** 2


PROGRAMS = [padded, nested_on_values, nested_on_a_shape, lambda_on_values, lambda_of_a_tuple, comprehension,
            comprehension_in_nested, default_argument, default_read_in_ifexp, nested_in_nested, boolean_operator,
            loop_with_augmented_assignment]
IDS = [f.__name__ for f in PROGRAMS]
XS = np.stack([X, -X[::-1]])  # (the examples take different branches)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_jit_equals_the_function(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_grad_and_jit_grad(f):
    want = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_jvp(f):
    want = fd_grad(f, X)
    for k in range(3):
        out, tangent = s2s.jvp(f, (X,), (np.eye(3)[k],))
        np.testing.assert_allclose(out, f(X), rtol=1e-12)
        np.testing.assert_allclose(tangent, want[k], rtol=1e-6, atol=1e-8)
    out, tangent = s2s.jit(lambda x, t: s2s.jvp(f, (x,), (t,)))(X, np.ones(3))
    np.testing.assert_allclose(tangent, np.sum(want), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=IDS)
def test_vmap_against_a_loop(f):
    want = [f(x) for x in XS]
    np.testing.assert_allclose(s2s.vmap(f)(XS), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(f))(XS), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XS), [fd_grad(f, x) for x in XS], rtol=1e-6, atol=1e-8)


def test_the_lifted_def_is_what_jit_inlines():
    """The tinynn form, differentiated through np.pad under jit: the pads a nested def computes
    with a conditional expression select which entries get a gradient."""
    def f(x):
        return np.sum(np.pad(x, pads_of(x.shape[0], 2, "SAME")) ** 2 * np.arange(1.0, 5.0))

    x = np.arange(3.0)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(x), 2.0 * x * np.arange(1.0, 4.0), rtol=1e-12)
