"""Shape folding through containers (issue 46 section 2, passes/container_shapes.py): the items
of a dict display of constant keys, of a dict made empty whose every item store has one shape
(states by time step), a reverse sweep's record taken back off its control list, and the
cotangent `rt.take_at` takes out of a dict's slot. Where they are known, jit(grad)'s backward
loop has its products as `@`/`xp.dot` and its broadcasting sums as `xp.sum` instead of runtime
helpers; the values stay those of central differences and of grad without jit. A dict whose
items have two shapes keeps them unknown."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.runtime import core


def step(params, h_prev, x):
    """An RNN step reading its weights from a dict (an inlined call: its record goes on the
    control list of the loop below)."""
    w, u, b = params["w"], params["u"], params["b"]
    return np.tanh(np.dot(w, x) + np.dot(u, h_prev) + b)


def rnn(w, u, b, h0, xs):
    params = {"w": w, "u": u, "b": b}
    h, xd = {}, {}
    h[-1] = np.copy(h0)
    loss = 0.0
    for t in range(xs.shape[0]):
        xd[t] = xs[t] * 1.0
        h[t] = step(params, h[t - 1], xd[t])
        loss = loss + np.sum(h[t] * h[t]) * (t + 1)
    return loss


def _args():
    r = np.random.default_rng(46)
    n, m, steps = 5, 3, 6
    return (r.normal(size=(n, m)) * 0.5, r.normal(size=(n, n)) * 0.4, r.normal(size=(n, 1)) * 0.3,
            r.normal(size=(n, 1)) * 0.2, r.normal(size=(steps, m, 1)))


def _backward_loop(code: str) -> str:
    return code[code.index("---- backward"):]


@pytest.mark.parametrize("wrt", [0, 1, 2, 3])
def test_rnn_over_dicts_against_central_differences(wrt):
    args = _args()
    got_jit = s2s.jit(s2s.grad(rnn, argnums=wrt))(*args)
    got = s2s.grad(rnn, argnums=wrt)(*args)

    def at(v):
        a = list(args)
        a[wrt] = v
        return rnn(*a)
    want = fd_grad(at, args[wrt])
    np.testing.assert_allclose(got_jit, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_jit, got, rtol=1e-12, atol=1e-14)


def test_helpers_fold_through_dict_items_and_records():
    """The backward loop's products and the bias's broadcasting sum fold (they stay helpers where
    the shapes are unknown: before container_shapes, every one did)."""
    args = _args()
    g = s2s.jit(s2s.grad(rnn, argnums=(0, 1, 2)))
    g(*args)
    code = _backward_loop(s2s.source(g, *args))
    assert "rt.dot_vjp_a" not in code and "rt.dot_vjp_b" not in code, code
    assert "rt.unbroadcast(bwd_step" not in code, code  # (the step's; the loss's numbers stay)
    plain = _backward_loop(s2s.source(s2s.jit(s2s.grad(rnn, argnums=(0, 1, 2)))))  # (no shapes: helpers)
    assert "rt.dot_vjp_a" in plain


def two_shapes(x, y):
    """Items of two shapes (a callee updating the dict, or a second name for it, is refused by
    the frontend: its items change only through `d`)."""
    d = {}
    d["a"] = x * 2.0          # (3, 4)
    d["b"] = np.sin(y)        # (3, 1)
    total = 0.0
    for t in range(3):
        total = total + np.sum(np.tanh(d["a"] + d["b"] * t))
    return total


def test_a_dict_of_items_of_two_shapes_keeps_them_unknown():
    r = np.random.default_rng(3)
    x, y = r.normal(size=(3, 4)), r.normal(size=(3, 1))
    for wrt, v in ((0, x), (1, y)):
        got = s2s.jit(s2s.grad(two_shapes, argnums=wrt))(x, y)
        want = fd_grad(lambda a: two_shapes(*((a, y) if wrt == 0 else (x, a))), v)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
        assert got.shape == v.shape


def test_take_at_gives_the_cotangent_in_the_stored_values_shape():
    like = np.ones((3, 1))
    v, acc = core.take_at({0: np.arange(6.0).reshape(3, 2)}, 0, like)  # (summed down, as for an array's slot)
    np.testing.assert_array_equal(v, [[1.0], [5.0], [9.0]])
    assert acc[0].shape == (3, 2) and not acc[0].any()
    v, _ = core.take_at([np.zeros(5)], 0, np.ones(3))  # (the zero a larger store's slot was reset to)
    assert v.shape == (3,) and not v.any()
    for zero in (0.0, None):  # (a number's zero or no cotangent, left by a later store of a number)
        v, _ = core.take_at({0: zero}, 0, like)
        assert type(v) is np.ndarray and v.shape == (3, 1) and not v.any()
    same = np.ones((3, 1))
    v, _ = core.take_at({"k": same}, "k", like)  # (one shape: the slot's own array, as before)
    assert v is same
    with pytest.raises(ValueError):
        core.take_at([np.ones(5)], 0, np.ones(3))  # (a nonzero cotangent of another shape: an error, not a number)


def overwritten(x, y):
    """A dict slot holding an array, then a number: the cotangent taken out for the array store
    is the zero the number's store left, in the array's shape."""
    d = {}
    d[0] = x * 2.0
    s = np.sum(d[0] ** 2) if y > 0 else 0.0
    d[0] = 1.0
    return s + d[0] * np.sum(x)


@pytest.mark.parametrize("y", [1.0, -1.0])
def test_a_slot_overwritten_with_a_number(y):
    x = np.random.default_rng(4).normal(size=3)
    for f in (s2s.grad(overwritten), s2s.jit(s2s.grad(overwritten))):
        got = f(x, y)
        assert got.shape == x.shape
        np.testing.assert_allclose(got, fd_grad(lambda v: overwritten(v, y), x), rtol=1e-6, atol=1e-8)


def rebound(x):
    """A display's item whose name is bound again, to another shape, before the item is read."""
    p = {"w": x}
    x = x.sum(axis=0)
    return np.sum(np.tanh(p["w"] * 0.5 + x) * np.arange(4.0))


def test_a_display_item_of_a_name_bound_again():
    x = np.random.default_rng(6).normal(size=(3, 4))
    got = s2s.jit(s2s.grad(rebound))(x)
    np.testing.assert_allclose(got, fd_grad(rebound, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, s2s.grad(rebound)(x), rtol=1e-12, atol=1e-14)


def rebound_tuple(x):
    """A tuple's item whose name is bound again, to another shape, before the item is read."""
    t = (x, 2.0)
    x = x.sum(axis=0)
    return np.sum(np.tanh(t[0] * 0.5 + x) * np.arange(4.0)) * t[1]


def test_a_tuple_item_of_a_name_bound_again():
    x = np.random.default_rng(7).normal(size=(3, 4))
    got = s2s.jit(s2s.grad(rebound_tuple))(x)
    np.testing.assert_allclose(got, fd_grad(rebound_tuple, x), rtol=1e-6, atol=1e-8)
