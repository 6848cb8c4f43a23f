"""Owned item sums of known shapes (passes/owned_items.py, issue 46 section 2): where the shapes
say that a step's sums cover every item of a dict of float64 parameters with values of the items'
shapes, `rt.tree_add_at_owned` is `rt.tree_add_at_shaped`, which checks only each value's type
and dtype. Checked against central differences and grad without jit (bitwise), a second call
against the first, the pass left alone where a parameter is not summed every step, and the
helper against `rt.tree_add_at` where a value fails its checks (complex, float32, a number)."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt


def step(p, h, x):
    return np.tanh(np.dot(p["w"], x) + np.dot(p["u"], h) + p["b"])


def rnn(w, u, b, xs):
    p = {"w": w, "u": u, "b": b}
    h = np.zeros((4, 1))
    total = 0.0
    for t in range(xs.shape[0]):
        h = step(p, h, xs[t])
        total = total + np.sum(h ** 2)
    return total


def rnn_unused(w, u, b, xs):
    p = {"w": w, "u": u, "b": b, "v": u}  # (`v` is never read: its cotangent is never summed)
    h = np.zeros((4, 1))
    total = 0.0
    for t in range(xs.shape[0]):
        h = step(p, h, xs[t])
        total = total + np.sum(h ** 2)
    return total


def _args():
    r = np.random.default_rng(8)
    return r.normal(size=(4, 3)) * 0.5, r.normal(size=(4, 4)) * 0.5, r.normal(size=(4, 1)) * 0.1, \
        r.normal(size=(5, 3, 1))


@pytest.mark.parametrize("fn, shaped", [(rnn, True), (rnn_unused, False)])
def test_gradient_against_grad_and_differences(fn, shaped):
    args = _args()
    g = s2s.jit(s2s.grad(fn, argnums=(0, 1, 2)))
    first = g(*args)
    code = s2s.source(g, *args)
    assert ("rt.tree_add_at_shaped(" in code) is shaped, code
    assert "rt.tree_add_at_owned(" in code or shaped
    want = s2s.grad(fn, argnums=(0, 1, 2))(*args)
    for k, (got, w) in enumerate(zip(first, want)):
        np.testing.assert_array_equal(got, w)
        at = lambda v, k=k: fn(*args[:k], v, *args[k + 1:])  # noqa: E731
        np.testing.assert_allclose(got, fd_grad(at, args[k]), rtol=1e-6, atol=1e-8)
    kept = [a.copy() for a in first]
    again = g(*args)  # (a second call sums into arrays of its own)
    for a, k, b in zip(first, kept, again):
        np.testing.assert_array_equal(a, k)
        np.testing.assert_array_equal(a, b)
        assert a is not b


@pytest.mark.parametrize("case", ["arrays", "complex", "float32", "number", "other shape"])
def test_helper_against_tree_add_at(case):
    r = np.random.default_rng(1)
    like = {"w": r.normal(size=(3, 2)), "b": r.normal(size=(3, 1))}
    acc = {"w": r.normal(size=(3, 2)), "b": r.normal(size=(3, 1))}
    keys = ("b", "w")
    values = [r.normal(size=(3, 1)), r.normal(size=(3, 2))]
    if case == "complex":
        values[1] = values[1] + 1j
    elif case == "float32":
        values[0] = values[0].astype(np.float32)
    elif case == "number":
        values[1] = 2.5
    elif case == "other shape":
        values[1] = r.normal(size=(1, 2))  # (broadcast: the long way)
    values = tuple(values)
    want = rt.tree_add_at({k: v.copy() for k, v in acc.items()}, like, keys, values)
    held = dict(acc)
    got = rt.tree_add_at_shaped(acc, like, keys, values)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
        assert got[k].dtype == want[k].dtype
        assert not any(got[k] is v for v in values)  # (its arrays are its own)
    assert (got["b"] is held["b"]) is (case != "float32")  # (in place up to the first value that fails)


def rnn_twice(w, u, b, xs):
    p = {"w": w, "u": u, "b": b}
    h = np.zeros((4, 1))
    total = 0.0
    for t in range(xs.shape[0]):
        h = step(p, h, xs[t])
        h = step(p, h, xs[t] * 0.5)  # (two sums into one accumulator a step)
        total = total + np.sum(h ** 2)
    return total


def test_two_sums_a_step():
    args = _args()
    g = s2s.jit(s2s.grad(rnn_twice, argnums=(0, 1, 2)))
    got = g(*args)
    code = s2s.source(g, *args)
    assert code.count("rt.tree_add_at_shaped(") == 2 and "rt.tree_add_at_owned(" not in code, code
    want = s2s.grad(rnn_twice, argnums=(0, 1, 2))(*args)
    for k, (a, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(a, w)
        at = lambda v, k=k: rnn_twice(*args[:k], v, *args[k + 1:])  # noqa: E731
        np.testing.assert_allclose(a, fd_grad(at, args[k]), rtol=1e-6, atol=1e-8)
