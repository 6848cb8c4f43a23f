"""Owned item sums (passes/owned_sums.py, issue 46 section 2): the accumulator of a dict's
cotangent that alone holds its dict and arrays takes each step's item sums in place
(`rt.tree_add_at_owned`). Checked against central differences and grad without jit, a second
call against the first (no array of the first is written into), the pass left alone where the
accumulator is read before its last sum, bound otherwise, or a parameter, and the helper against
`rt.tree_add_at` over the values it may meet."""
import textwrap

import gast
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s import runtime as rt
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import owned_sums


def step(p, h, x):
    return np.tanh(p["w"] @ x + p["u"] @ h + p["b"])


def rnn(w, u, b, xs):
    p = {"w": w, "u": u, "b": b}
    h = np.zeros(4)
    total = 0.0
    for t in range(xs.shape[0]):
        h = step(p, h, xs[t])
        total = total + np.sum(h ** 2)
    return total


def _args():
    r = np.random.default_rng(8)
    return r.normal(size=(4, 3)) * 0.5, r.normal(size=(4, 4)) * 0.5, r.normal(size=4) * 0.1, r.normal(size=(5, 3))


def test_weights_cotangent_summed_in_place():
    args = _args()
    g = s2s.jit(s2s.grad(rnn, argnums=(0, 1, 2)))
    first = g(*args)
    assert "rt.tree_add_at_shaped(" in s2s.source(g, *args)  # (the weights' known shapes: passes/owned_items.py)
    want = s2s.grad(rnn, argnums=(0, 1, 2))(*args)
    for k, (got, w) in enumerate(zip(first, want)):
        np.testing.assert_allclose(got, w, rtol=1e-13, atol=1e-15)
        at = lambda v, k=k: rnn(*args[:k], v, *args[k + 1:])  # noqa: E731
        np.testing.assert_allclose(got, fd_grad(at, args[k]), rtol=1e-6, atol=1e-8)
    kept = [a.copy() for a in first]
    again = g(*args)  # (a second call sums into arrays of its own, not into the first call's results)
    for a, k, b in zip(first, kept, again):
        np.testing.assert_array_equal(a, k)
        np.testing.assert_array_equal(a, b)
        assert a is not b


def _run(src, params=()):
    fn = gast.parse("def f(" + ", ".join(params) + "):\n" + textwrap.indent(textwrap.dedent(src), "    ")).body[0]
    _, changed = owned_sums.PASS(fn.body, set(params))
    return changed, to_source(fn)


LOOP = """
    acc = rt.zeros_like_tree(p)
    for t in r:
        acc = rt.tree_add_at(acc, p, ('w',), (v,))
        {inside}
    {after}
"""


@pytest.mark.parametrize("inside, after, owned", [
    ("pass", "return acc['w']", True),                  # (read after the last sum: the final values)
    ("pass", "return acc", True),
    ("y = acc['w']", "return y", False),                # (an item read before a later sum would change)
    ("q = acc", "return q", False),                     # (a second name for the dict)
    ("acc = rt.add_at(acc, 'w', v)", "return acc", False),  # (bound by another helper)
])
def test_pass_only_for_an_accumulator_nothing_else_reads(inside, after, owned):
    changed, code = _run(LOOP.format(inside=inside, after=after), ("p", "r", "v"))
    assert changed is owned and ("tree_add_at_owned" in code) is owned, code


def test_a_parameter_is_not_owned():
    changed, _ = _run("""
        for t in r:
            acc = rt.tree_add_at(acc, p, ('w',), (v,))
        return acc
    """, ("acc", "p", "r", "v"))
    assert not changed


@pytest.mark.parametrize("case", ["arrays", "number", "new key shape", "list", "none item"])
def test_helper_against_tree_add_at(case):
    r = np.random.default_rng(1)
    like = {"w": r.normal(size=(3, 2)), "b": r.normal(size=3)}
    acc = {"w": r.normal(size=(3, 2)), "b": r.normal(size=3)}
    values = (r.normal(size=(3, 2)), r.normal(size=3))
    keys = ("w", "b")
    if case == "number":
        values = (2.5, values[1])
    elif case == "new key shape":
        values = (r.normal(size=(1, 2)), values[1])  # (broadcast: the long way)
    elif case == "list":
        acc, like = [acc["w"], acc["b"]], [like["w"], like["b"]]
        keys = (0, 1)
    elif case == "none item":
        acc = {"w": None, "b": acc["b"]}
    want = rt.tree_add_at({k: v for k, v in acc.items()} if isinstance(acc, dict) else list(acc), like, keys, values)
    got = rt.tree_add_at_owned(acc, like, keys, values)
    for k in (want if isinstance(want, dict) else range(len(want))):
        np.testing.assert_array_equal(got[k], want[k])
        assert not any(got[k] is v for v in values)  # (its arrays are its own)


@pytest.mark.parametrize("case", ["every key", "some keys", "read-only item", "float32 value", "like of other shape"])
def test_every_key_summed_in_one_pass(case):
    """Where the keys name every item (the char RNN's five weights a step), the sums go into the
    accumulator's own arrays after one pass of checks; any item that does not qualify takes the
    long way, whose values are the same."""
    r = np.random.default_rng(2)
    shapes = {"w": (3, 2), "b": (3, 1), "u": (2, 2)}
    acc = {k: r.normal(size=s) for k, s in shapes.items()}
    like = {k: r.normal(size=s) for k, s in shapes.items()}
    keys = ("b", "u", "w") if case != "some keys" else ("b", "w")
    values = tuple(r.normal(size=shapes[k]) for k in keys)
    if case == "read-only item":
        acc["u"].flags.writeable = False
    elif case == "float32 value":
        values = (values[0].astype(np.float32),) + values[1:]
    elif case == "like of other shape":
        like["u"] = r.normal(size=(1, 2))
    want = rt.tree_add_at({k: v.copy() for k, v in acc.items()}, like, keys, values)
    held = {k: v for k, v in acc.items()}
    got = rt.tree_add_at_owned(acc, like, keys, values)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
        assert got[k].dtype == want[k].dtype
    in_place = case in ("every key", "some keys")
    assert all(got[k] is held[k] for k in keys) is in_place


def test_add_at_tuple_of_ints_into_a_numpy_array():
    """`rt.add_at(b, (i, 0), v)` (an item of a column, the char RNN's loss `y_hat[t][Y[t], 0]`)
    adds in place as `b[i, 0] += v` does, NumPy ints included; fancy and sliced indices keep
    their paths."""
    b = np.zeros((5, 1))
    out = rt.add_at(b, (3, 0), 1.5)
    out = rt.add_at(out, (np.int64(3), np.int32(0)), 0.25)
    assert out is b
    np.testing.assert_array_equal(b[:, 0], [0.0, 0.0, 0.0, 1.75, 0.0])
    np.testing.assert_array_equal(rt.add_at(np.zeros((3, 2)), (np.array([0, 0]), 1), 1.0),
                                  [[0.0, 2.0], [0.0, 0.0], [0.0, 0.0]])  # (fancy: every hit, `np.add.at`)
    np.testing.assert_array_equal(rt.add_at(np.zeros((2, 2)), (slice(None), 1), 1.0), [[0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(IndexError):
        rt.add_at(np.zeros((2, 2)), (2, 0), 1.0)
