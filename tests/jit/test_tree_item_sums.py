"""A dict's cotangent built from zeros with a few items added, then added whole into an accumulator,
adds those items into the accumulator instead (passes/tree_items.py, `rt.tree_add_at`; issue 46
section 2): an inlined step that reads its weights from a dict by key, called once per time step.
Checked against central differences and the unjitted gradient, and the runtime helper against
the sum it stands for, bit for bit."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt


def cell(params, h, x):
    w, u, b = params["w"], params["u"], params["b"]
    return np.tanh(w @ x + u @ h + b)


def unroll(w, u, b, xs):
    params = {"w": w, "u": u, "b": b}
    h = np.zeros(4)
    total = 0.0
    for t in range(xs.shape[0]):
        h = cell(params, h, xs[t])
        total = total + np.sum(h * h) * (t + 1)
    return total


def args():
    rng = np.random.default_rng(11)
    return (rng.normal(size=(4, 3)) * 0.4, rng.normal(size=(4, 4)) * 0.4, rng.normal(size=4) * 0.1,
            rng.normal(size=(6, 3)))


def test_jit_grad_adds_the_items_and_matches_central_differences():
    a = args()
    g = s2s.jit(s2s.grad(unroll, argnums=(0, 1, 2)))
    # (its accumulator alone holds the sums, passes/owned_sums.py, of the known shapes of a dict of float64
    # weights: passes/owned_items.py)
    assert "rt.tree_add_at_shaped(" in s2s.source(g, *a)
    got = g(*a)
    plain = s2s.grad(unroll, argnums=(0, 1, 2))(*a)
    for k in range(3):
        want = fd_grad(lambda v, k=k: unroll(*a[:k], v, *a[k + 1:]), a[k])
        np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[k], plain[k], rtol=1e-13, atol=1e-15)


def long_way(acc, like, keys, values):
    x = rt.zeros_like_tree(like)
    for k, v in zip(keys, values):
        x = rt.add_at(x, k, v)
    return rt.tree_add(acc, x)


def _dict(rng, dtype=np.float64):
    return {"w": rng.normal(size=(3, 2)).astype(dtype), "b": rng.normal(size=2).astype(dtype)}


@pytest.mark.parametrize("case", ["same", "broadcast value", "key twice", "float32 acc", "missing key", "tuple",
                                  "no items"])
def test_runtime_equals_the_sum_it_stands_for(case):
    rng = np.random.default_rng(3)
    like, acc = _dict(rng), _dict(rng)
    keys, values = ("b", "w"), (rng.normal(size=2), rng.normal(size=(3, 2)))
    if case == "broadcast value":
        values = (rng.normal(size=2), rng.normal(size=2))
    elif case == "key twice":
        keys, values = ("b", "b"), (rng.normal(size=2), rng.normal(size=2))
    elif case == "float32 acc":
        acc = _dict(rng, np.float32)
    elif case == "missing key":
        del acc["b"]
        keys, values = ("w",), (values[1],)
    elif case == "tuple":
        like, acc = (like["w"], like["b"]), (acc["w"], acc["b"])
        keys = (1, 0)
    elif case == "no items":
        keys, values = (), ()
    got = rt.tree_add_at(acc, like, keys, values)
    want = long_way(acc, like, keys, values)
    assert type(got) is type(want)
    items = (lambda t: sorted(t.items())) if isinstance(want, dict) else enumerate
    for (kg, g), (kw, w) in zip(items(got), items(want)):
        assert kg == kw
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
