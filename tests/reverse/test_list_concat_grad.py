"""Gradients through `+` of lists and tuples (concatenation, not a sum): each operand's cotangent is
its slice of the result's, checked against central differences to second order in both modes."""

import numpy as np
import pytest

import s2s
from s2s import runtime as rt
from s2s.base.tree import tree_flatten
from s2s.test_util import check_grads


def slice_then_append(A, B):
    L = [A, B]
    M = L[1:] + [A]
    return np.sum(M[0] * M[1])


def rotated(A, B):
    L = [A, B]
    M = L[1:] + L[:1]
    return np.sum(M[0] * np.sin(M[1]))


def zip_with_rotation(A, B):
    L = [A, B]
    s = 0.0
    for a, b in zip(L, L[1:] + [A]):
        s = s + np.sum(a * b)
    return s


def tuples(A, B):
    T = (A,) + (B, A)
    return np.sum(T[0] * T[1] * np.cos(T[2]))


def copies(L):
    M = list(L)
    N = tuple(L)
    return np.sum(M[0] * N[1]) + np.sum(np.tanh(L[0]))


def list_copies(A, B):
    return copies([A, B])


def arrays_added(A, B):
    return np.sum((A + B) * A) + np.sum(A[1:] + B[:-1])


RNG = np.random.default_rng(2)
ARGS = (RNG.normal(size=4), RNG.normal(size=4))


@pytest.mark.parametrize("f", [slice_then_append, rotated, zip_with_rotation, tuples, list_copies, arrays_added],
                         ids=lambda f: f.__name__)
def test_concatenation_gradients_match_finite_differences(f):
    check_grads(f, ARGS, order=2, modes=("rev", "fwd"))


def test_rotated_gradient_by_hand():
    A, B = ARGS
    gA, gB = s2s.grad(rotated, argnums=(0, 1))(A, B)  # f = sum(B * sin(A))
    np.testing.assert_allclose(gA, B * np.cos(A), rtol=1e-12)
    np.testing.assert_allclose(gB, np.sin(A), rtol=1e-12)


@pytest.mark.parametrize("f", [slice_then_append, rotated, zip_with_rotation], ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_loop(f):
    As, Bs = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    got = s2s.vmap(s2s.grad(f, argnums=(0, 1)))(As, Bs)
    want = [s2s.grad(f, argnums=(0, 1))(a, b) for a, b in zip(As, Bs)]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]), rtol=1e-10, atol=1e-12)


# Folded from test_seq_ct.py:
# rt.operand_cotangent, the cotangent of an operand of `a + b` / `a * b` where an operand may be a list or
# tuple (decided at run time), and its transpose rt.operand_cotangent_t: each pair is adjoint (checked with
# random vectors, the property that catches a wrong slice or chunk sum), the derivative of the
# cotangent with respect to the other operand (`d=1`) is the bilinear term of an array product and
# nothing for sequences, and a product through the helper has the right mixed second derivative.


SEQ_RNG = np.random.default_rng(5)


def vdot(a, b):
    la, lb = tree_flatten(a)[0], tree_flatten(b)[0]
    assert len(la) == len(lb)
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(la, lb))


def rand_like(t):
    if isinstance(t, (list, tuple)):
        return type(t)(rand_like(e) for e in t)
    return SEQ_RNG.normal(size=np.shape(t))


def vec():
    return SEQ_RNG.normal(size=3)


# (left, right, op): the forward operation is `left <op> right`
CASES = [
    ([vec(), vec()], [vec()], "add"),
    ((vec(),), (vec(), vec()), "add"),
    ([vec(), vec()], 3, "mul"),
    (2, (vec(), vec()), "mul"),
    ([vec()], 0, "mul"),
    (SEQ_RNG.normal(size=(2, 3)), SEQ_RNG.normal(size=3), "add"),
    (SEQ_RNG.normal(size=(2, 3)), SEQ_RNG.normal(size=(2, 1)), "mul"),
    (SEQ_RNG.normal(size=3), 2.5, "mul"),
]


ADJOINT = [(left, right, op, which) for left, right, op in CASES for which in (0, 1)
           if not isinstance((left, right)[which], int)]  # an int count has no cotangent


@pytest.mark.parametrize("left,right,op,which", ADJOINT, ids=[f"{i}-{c[2]}-{c[3]}" for i, c in enumerate(ADJOINT)])
def test_cotangent_and_transpose_are_adjoint(left, right, op, which):
    me, other = (left, right) if which == 0 else (right, left)
    out = left + right if op == "add" else left * right
    v, u = rand_like(out), rand_like(me)
    ct = rt.operand_cotangent(v, me, other, op, int(which == 0))
    back = rt.operand_cotangent_t(u, out, me, other, op, int(which == 0))
    assert vdot(ct, u) == pytest.approx(vdot(v, back), rel=1e-12)


@pytest.mark.parametrize("left,right,op", CASES[:5], ids=[f"{i}-{c[2]}" for i, c in enumerate(CASES[:5])])
def test_sequences_have_no_derivative_in_the_other_operand(left, right, op):
    out = left + right if op == "add" else left * right
    me, other = (left, right) if not isinstance(left, int) else (right, left)
    got = rt.operand_cotangent(rand_like(out), me, other, op, 1, 1)
    assert all(np.all(leaf == 0) for leaf in tree_flatten(got)[0])


def test_array_product_cotangent_is_bilinear():
    a, w, v = SEQ_RNG.normal(size=(2, 3)), SEQ_RNG.normal(size=3), SEQ_RNG.normal(size=(2, 3))
    np.testing.assert_allclose(rt.operand_cotangent(v, a, w, "mul", 1), v * w, rtol=1e-15)
    np.testing.assert_allclose(rt.operand_cotangent(v, w, a, "mul", 0, 1), np.sum(v * a, axis=0), rtol=1e-15)
    np.testing.assert_allclose(rt.operand_cotangent(v, a, w, "add", 1, 1), 0.0)


def wave(x):
    return np.sin(x)


def call_result_times_weight(x, w):
    # `h` comes from a user function, so it may be a list: `h * w` runs through rt.operand_cotangent, whose
    # derivative in `w` must be the array product's bilinear term (a mixed second derivative)
    h = wave(x)
    return np.sum(h * w + h * w * w)


def test_mixed_second_derivative_through_the_helper():
    x, w = SEQ_RNG.normal(size=3), SEQ_RNG.normal(size=3)
    assert "rt.operand_cotangent(" in s2s.api.sources.stacked_source(call_result_times_weight, ["grad"])
    check_grads(call_result_times_weight, (x, w), order=2, modes=("fwd", "rev"))
    got = s2s.jacfwd(s2s.grad(call_result_times_weight, argnums=0), argnums=1)(x, w)
    np.testing.assert_allclose(got, np.diag(np.cos(x) * (1 + 2 * w)), rtol=1e-12)
    got = s2s.jacrev(s2s.grad(call_result_times_weight, argnums=1), argnums=0)(x, w)
    np.testing.assert_allclose(got, np.diag(np.cos(x) * (1 + 2 * w)), rtol=1e-12)
