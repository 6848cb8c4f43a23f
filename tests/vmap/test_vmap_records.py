"""Per-value batchedness across helper calls, and vmap specialized on per-example ranks.

vmap inlines the helpers a function calls before batching it, so a helper's tuple result, and the
record `(theta, state)` a helper's forward sweep saves for its backward sweep, keep one batched
flag per element: an unbatched parameter is never repeated once per example (the cause of W1's
per-example-gradient cost, tools/bench/bench.py). With NumPy arguments, vmap also knows each value's
per-example rank and writes dot/matmul and their cotangents as one NumPy call. Every result here
is checked against a Python loop over the examples of the unbatched transform.
"""

import numpy as np
import pytest
from vmap_funcs import td_loss

import s2s
from s2s.errors import S2SError

RNG = np.random.default_rng(7)
B = 4


def pair(theta, x):
    """A tuple of a value that depends only on (unbatched) `theta` and one that depends on `x`."""
    return theta * 2.0, np.dot(theta, x)


def pair_loss(theta, x, r):
    a, b = pair(theta, x)
    return np.sum(a * a) * b + (r - b) ** 2


def _data():
    return RNG.normal(size=3), RNG.normal(size=(B, 3)), RNG.normal(size=B), RNG.normal(size=(B, 3))


def _loop(fn, theta, *batched):
    return np.stack([fn(theta, *(b[i] for b in batched)) for i in range(B)])


@pytest.mark.parametrize("wrap", [lambda f: f, s2s.jit], ids=["plain", "jit"])
def test_vmap_grad_of_a_helper_returning_a_mixed_tuple(wrap):
    theta, x, r, _ = _data()
    for argnums in (0, 1):
        g = s2s.grad(pair_loss, argnums=argnums)
        got = wrap(s2s.vmap(g, in_axes=(None, 0, 0)))(theta, x, r)
        np.testing.assert_allclose(got, _loop(g, theta, x, r), rtol=1e-12, atol=1e-12)


def test_vmap_of_jacrev_and_jacfwd_through_the_mixed_tuple():
    theta, x, r, _ = _data()

    def vec(theta, x, r):
        a, b = pair(theta, x)
        return a * b + r

    for jac in (s2s.jacrev, s2s.jacfwd):
        j = jac(vec)
        np.testing.assert_allclose(s2s.vmap(j, in_axes=(None, 0, 0))(theta, x, r), _loop(j, theta, x, r),
                                   rtol=1e-12, atol=1e-12)


def test_grad_of_a_sum_of_vmap_through_the_mixed_tuple():
    theta, x, r, _ = _data()

    def total(theta):
        return np.sum(s2s.vmap(pair_loss, in_axes=(None, 0, 0))(theta, x, r))

    want = np.sum(_loop(s2s.grad(pair_loss), theta, x, r), axis=0)
    np.testing.assert_allclose(s2s.grad(total)(theta), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("wrap", [lambda f: f, s2s.jit], ids=["plain", "jit"])
def test_per_example_td_gradients_equal_a_loop_and_the_hand_formula(wrap):
    theta, s1, r, s2 = _data()
    g = s2s.grad(td_loss)
    got = wrap(s2s.vmap(g, in_axes=(None, 0, 0, 0)))(theta, s1, r, s2)
    np.testing.assert_allclose(got, _loop(g, theta, s1, r, s2), rtol=1e-12, atol=1e-12)
    hand = -2.0 * (r + s2 @ theta - s1 @ theta)[:, None] * s1
    np.testing.assert_allclose(got, hand, rtol=1e-12, atol=1e-12)


def test_the_record_is_not_repeated_per_example():
    """The unbatched `theta` the helper's forward sweep saves is not broadcast B times, in the
    generic batched code (what `python -m s2s dump` shows) nor in the one specialized on ranks."""
    vg = s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0))
    assert "replicate_batch" not in s2s.source(vg)
    assert "copy_saved" not in s2s.source(vg)
    jv = s2s.jit(vg)
    jv(*_data())
    text = "\n".join(s2s.base.record.of(fn).source for entry in jv._by_kind.values() for fn in entry[:2] if fn)
    assert "replicate_batch" not in text and "batched_dot" not in text and "lift_rank" not in text


# ---- products of per-example vectors and matrices, every batched pattern, against loops ----

SHAPES = {1: (3,), 2: (3, 3)}


def _product_cases():
    for op in ("matmul", "dot"):
        for ra in (1, 2):
            for rb in (1, 2):
                for axes in ((0, None), (None, 0), (0, 0)):
                    yield op, ra, rb, axes


def _product(op):
    return (lambda a, b: a @ b) if op == "matmul" else (lambda a, b: np.dot(a, b))


def _args(ra, rb, axes):
    a = RNG.normal(size=((B,) if axes[0] == 0 else ()) + SHAPES[ra])
    b = RNG.normal(size=((B,) if axes[1] == 0 else ()) + SHAPES[rb])
    return a, b


def _example(args, axes, i):
    return tuple(x if ax is None else x[i] for x, ax in zip(args, axes))


@pytest.mark.parametrize("op, ra, rb, axes", list(_product_cases()))
def test_vmap_of_products_of_known_ranks_equals_a_loop(op, ra, rb, axes):
    f = _product(op)
    args = _args(ra, rb, axes)
    want = np.stack([f(*_example(args, axes, i)) for i in range(B)])
    for wrap in (lambda h: h, s2s.jit):
        np.testing.assert_allclose(wrap(s2s.vmap(f, in_axes=axes))(*args), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op, ra, rb, axes", list(_product_cases()))
def test_vmap_of_gradients_of_products_equals_a_loop(op, ra, rb, axes):
    """The cotangents of both operands (rt.dot_vjp_a/b written as one NumPy call per pattern)."""
    f = _product(op)

    def loss(a, b):
        return np.sum(np.sin(f(a, b)))

    args = _args(ra, rb, axes)
    g = s2s.grad(loss, argnums=(0, 1))
    got = s2s.vmap(g, in_axes=axes)(*args)
    for k in range(2):
        want = np.stack([g(*_example(args, axes, i))[k] for i in range(B)])
        np.testing.assert_allclose(got[k], want, rtol=1e-12, atol=1e-12)


def test_float32_per_example_gradients_stay_float32():
    theta, s1, r, s2 = (a.astype(np.float32) for a in _data())
    got = s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0))(theta, s1, r, s2)
    assert got.dtype == np.float32
    want = -2.0 * (r + s2 @ theta - s1 @ theta)[:, None] * s1
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("wrap", [lambda f: f, s2s.jit], ids=["plain", "jit"])
def test_mismatched_batch_sizes_are_refused_with_the_arguments_named(wrap):
    theta, s1, r, s2 = _data()
    vg = wrap(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))
    with pytest.raises(S2SError, match="inconsistent sizes") as e:
        vg(theta, s1, r[:1], s2)  # NumPy would broadcast the one example silently
    assert "r_t" in str(e.value)
