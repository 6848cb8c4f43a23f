"""`dict(pairs, **keywords)` and `dict({...})` written in a transformed function (autograd's
test_make_dict), and `sorted(d.items(), key=operator.itemgetter(0))` (test_items_values_keys):
a dict literal, and the items in the order of the keys. Gradients against hand-derived values
and central differences, vmap against a loop over examples."""
import operator

import numpy as np
import pytest

import s2s


def pairs_and_keywords(x):
    d = dict([("a", x), ("b", 2.0 * x)], b=x ** 2, c=np.sin(x))  # a keyword replaces a pair's entry
    return d["a"] * d["b"] + d["c"]


def from_literal_dict(x):
    d = dict({"u": x, "v": x ** 3}, w=x)
    return d["u"] + d["v"] * d["w"]


def returns_dict(x):
    return dict((("a", x),), b=np.cos(x))


def sorted_items(d):
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=operator.itemgetter(0))):
        total = total + (i + 1.0) * np.sum(np.sin(v))
    return total


def sorted_items_lambda(d):
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=lambda kv: kv[0])):
        total = total + (i + 1.0) * np.sum(v ** 2)
    for k, v in sorted(d.items()):
        total = total + np.sum(v) * len(k)
    return total


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("f", [pairs_and_keywords, from_literal_dict], ids=lambda f: f.__name__)
def test_dict_constructor_grad_jvp_vmap(f):
    x = 0.7
    np.testing.assert_allclose(s2s.grad(f)(x), _fd(f, x), rtol=1e-7)
    np.testing.assert_allclose(s2s.jvp(f, (x,), (1.0,))[1], _fd(f, x), rtol=1e-7)
    xs = np.linspace(-1.0, 1.0, 4)
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(v) for v in xs])


def test_dict_constructor_values_and_key_order_are_pythons():
    x = 0.3
    assert list(s2s.jit(returns_dict)(x)) == list(returns_dict(x)) == ["a", "b"]
    np.testing.assert_allclose(pairs_and_keywords(x), s2s.jit(pairs_and_keywords)(x))
    np.testing.assert_allclose(s2s.grad(pairs_and_keywords)(x), 3 * x ** 2 + np.cos(x))  # x * x**2 + sin(x)
    _, pull = s2s.vjp(returns_dict, x)
    np.testing.assert_allclose(pull({"a": 2.0, "b": 3.0})[0], 2.0 - 3.0 * np.sin(x))


@pytest.mark.parametrize("f", [sorted_items, sorted_items_lambda], ids=lambda f: f.__name__)
def test_sorted_items_follow_the_keys(f):
    rng = np.random.default_rng(4)
    d = {"b": rng.standard_normal(3), "a": rng.standard_normal((2, 2)), "c": rng.standard_normal(1)}
    np.testing.assert_allclose(s2s.jit(f)(d), f(d))
    g = s2s.grad(f)(d)
    for k, v in d.items():
        want = np.zeros_like(v)
        for i in np.ndindex(v.shape):
            e = np.zeros_like(v)
            e[i] = 1e-6
            want[i] = (f({**d, k: v + e}) - f({**d, k: v - e})) / 2e-6
        np.testing.assert_allclose(g[k], want, rtol=1e-6, atol=1e-8)
    if f is sorted_items:  # the rank of each key in sorted order weights its sines
        np.testing.assert_allclose(g["a"], 1.0 * np.cos(d["a"]))
        np.testing.assert_allclose(g["c"], 3.0 * np.cos(d["c"]))


def sorted_items_by_value(d):
    total = 0.0
    for k, v in sorted(d.items(), key=operator.itemgetter(1)):
        total = total + v
    return total


def test_sorting_items_by_value_stays_refused():
    with pytest.raises(s2s.S2SError):
        s2s.grad(sorted_items_by_value)({"a": 1.0, "b": 2.0})
