"""`[A] * n` and `n * (A, B)` repeat a list or tuple: each copy's cotangent flows back to the same
element (the `*` rule once gave the whole list's cotangent to a list operand, and the shape pass
took `L = t * 2` for an array of `t`'s shape, so the backward sweep allocated too few slots)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def triple(A):
    L = [A] * 3
    return np.sum(np.sin(L[0] * L[1] + L[2]))


def loop_over_repeat(A, B):
    L = [A, B] * 2
    s = 0.0
    for a in L:
        s = s + np.sum(np.sin(a) * a)
    return s


def tuple_left(A, B):
    L = 2 * (A, B)
    return np.sum(L[0] * L[3] * L[2] + np.cos(L[1]))


RNG = np.random.default_rng(3)
A = RNG.normal(size=3)
B = RNG.normal(size=3) + 0.3
CASES = [(triple, (A,)), (loop_over_repeat, (A, B)), (tuple_left, (A, B))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_finite_differences_order_2(fn, args):
    check_grads(fn, args, order=2, modes=("fwd", "rev"))


def test_hand_derived():
    # d/dA of 2 * sum(sin(A) * A) is 2 * (sin(A) + A cos(A))
    want = 2 * (np.sin(A) + A * np.cos(A))
    np.testing.assert_allclose(s2s.grad(loop_over_repeat)(A, B), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(loop_over_repeat, argnums=1)(A, B),
                               2 * (np.sin(B) + B * np.cos(B)), rtol=1e-12)


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_jit_and_vmap_agree(fn, args):
    g = s2s.grad(fn)
    np.testing.assert_allclose(s2s.jit(g)(*args), g(*args), rtol=1e-12)
    batch = [np.stack([a * (1 + 0.1 * i) for i in range(4)]) for a in args]
    got = s2s.vmap(g)(*batch)
    want = np.stack([g(*[b[i] for b in batch]) for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
