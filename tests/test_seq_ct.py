"""rt.seq_ct, the cotangent of an operand of `a + b` / `a * b` where an operand may be a list or
tuple (decided at run time), and its transpose rt.seq_ct_t: each pair is adjoint (checked with
random vectors, the property that catches a wrong slice or chunk sum), the derivative of the
cotangent with respect to the other operand (`d=1`) is the bilinear term of an array product and
nothing for sequences, and a product through the helper has the right mixed second derivative."""
import numpy as np
import pytest

import s2s
from s2s import runtime as rt
from s2s.test_util import check_grads
from s2s.tree import tree_flatten

RNG = np.random.default_rng(5)


def vdot(a, b):
    la, lb = tree_flatten(a)[0], tree_flatten(b)[0]
    assert len(la) == len(lb)
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(la, lb))


def rand_like(t):
    if isinstance(t, (list, tuple)):
        return type(t)(rand_like(e) for e in t)
    return RNG.normal(size=np.shape(t))


def vec():
    return RNG.normal(size=3)


# (left, right, op): the forward operation is `left <op> right`
CASES = [
    ([vec(), vec()], [vec()], "add"),
    ((vec(),), (vec(), vec()), "add"),
    ([vec(), vec()], 3, "mul"),
    (2, (vec(), vec()), "mul"),
    ([vec()], 0, "mul"),
    (RNG.normal(size=(2, 3)), RNG.normal(size=3), "add"),
    (RNG.normal(size=(2, 3)), RNG.normal(size=(2, 1)), "mul"),
    (RNG.normal(size=3), 2.5, "mul"),
]


ADJOINT = [(left, right, op, which) for left, right, op in CASES for which in (0, 1)
           if not isinstance((left, right)[which], int)]  # an int count has no cotangent


@pytest.mark.parametrize("left,right,op,which", ADJOINT, ids=[f"{i}-{c[2]}-{c[3]}" for i, c in enumerate(ADJOINT)])
def test_cotangent_and_transpose_are_adjoint(left, right, op, which):
    me, other = (left, right) if which == 0 else (right, left)
    out = left + right if op == "add" else left * right
    v, u = rand_like(out), rand_like(me)
    ct = rt.seq_ct(v, me, other, op, int(which == 0))
    back = rt.seq_ct_t(u, out, me, other, op, int(which == 0))
    assert vdot(ct, u) == pytest.approx(vdot(v, back), rel=1e-12)


@pytest.mark.parametrize("left,right,op", CASES[:5], ids=[f"{i}-{c[2]}" for i, c in enumerate(CASES[:5])])
def test_sequences_have_no_derivative_in_the_other_operand(left, right, op):
    out = left + right if op == "add" else left * right
    me, other = (left, right) if not isinstance(left, int) else (right, left)
    got = rt.seq_ct(rand_like(out), me, other, op, 1, 1)
    assert all(np.all(leaf == 0) for leaf in tree_flatten(got)[0])


def test_array_product_cotangent_is_bilinear():
    a, w, v = RNG.normal(size=(2, 3)), RNG.normal(size=3), RNG.normal(size=(2, 3))
    np.testing.assert_allclose(rt.seq_ct(v, a, w, "mul", 1), v * w, rtol=1e-15)
    np.testing.assert_allclose(rt.seq_ct(v, w, a, "mul", 0, 1), np.sum(v * a, axis=0), rtol=1e-15)
    np.testing.assert_allclose(rt.seq_ct(v, a, w, "add", 1, 1), 0.0)


def wave(x):
    return np.sin(x)


def call_result_times_weight(x, w):
    # `h` comes from a user function, so it may be a list: `h * w` runs through rt.seq_ct, whose
    # derivative in `w` must be the array product's bilinear term (a mixed second derivative)
    h = wave(x)
    return np.sum(h * w + h * w * w)


def test_mixed_second_derivative_through_the_helper():
    x, w = RNG.normal(size=3), RNG.normal(size=3)
    assert "rt.seq_ct(" in s2s.sources.stacked_source(call_result_times_weight, ["grad"])
    check_grads(call_result_times_weight, (x, w), order=2, modes=("fwd", "rev"))
    got = s2s.jacfwd(s2s.grad(call_result_times_weight, argnums=0), argnums=1)(x, w)
    np.testing.assert_allclose(got, np.diag(np.cos(x) * (1 + 2 * w)), rtol=1e-12)
    got = s2s.jacrev(s2s.grad(call_result_times_weight, argnums=1), argnums=0)(x, w)
    np.testing.assert_allclose(got, np.diag(np.cos(x) * (1 + 2 * w)), rtol=1e-12)
