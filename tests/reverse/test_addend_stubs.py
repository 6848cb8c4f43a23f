"""What the tape keeps of a sum's operands where one may be a list (issue 46 section 2):
`rt.operand_cotangent(g, a, b, 'add', 1)` reads `a` and `b` only for their type and shape, so a
loop's tape keeps `rt.shape_stub` of both (a copy of neither's data); a product's
(`'mul'`) reads the other factor's values, which stay. Values against central differences and
the plain function, with grad and jit(grad), and where the operands are lists."""
import re

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def summed(w, xs):
    h = np.zeros((2, 3))
    for t in range(xs.shape[0]):
        a = xs[t] @ w
        h = np.tanh(a + h) + a[0]  # (a[0]: `a` may be a sequence, so `a + h` takes operand_cotangent)
    return np.sum(h)


def multiplied(w, xs):
    h = np.ones((2, 3))
    for t in range(xs.shape[0]):
        a = xs[t] @ w
        h = np.tanh(a * h) + a[0]
    return np.sum(h)


def _args():
    r = np.random.default_rng(21)
    return r.normal(size=(4, 3)) * 0.5, r.normal(size=(5, 2, 4))


def _pushes(code):
    return re.findall(r"tape\.append\((.*)\)", code)


def test_addends_are_kept_as_stubs():
    code = s2s.source(s2s.grad(summed))
    assert "rt.operand_cotangent(" in code and "'add'" in code
    pushes = _pushes(code)
    assert "rt.shape_stub(a)" in pushes and "rt.shape_stub(h)" in pushes and "a" not in pushes


def test_factors_keep_their_values():
    code = s2s.source(s2s.grad(multiplied))
    assert "'mul'" in code
    pushes = _pushes(code)
    assert "a" in pushes and "h" in pushes


@pytest.mark.parametrize("f", [summed, multiplied])
@pytest.mark.parametrize("jit", [False, True])
def test_values(f, jit):
    w, xs = _args()
    g = s2s.grad(f)
    got = (s2s.jit(g) if jit else g)(w, xs)
    np.testing.assert_allclose(got, fd_grad(lambda v: f(v, xs), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.value_and_grad(f)(w, xs)[0], f(w, xs), rtol=1e-13)


def concatenated(x, n):
    """`+` of lists in a loop: the same call reads the lists' lengths, which the stubs keep."""
    acc = []
    total = 0.0
    for k in range(n):
        acc = acc + [x * k]
        total = total + np.sum(np.stack(acc) ** 2)
    return total


def test_lists_keep_their_lengths():
    x = np.array([0.3, -1.2])
    got = s2s.grad(concatenated)(x, 4)
    np.testing.assert_allclose(got, fd_grad(lambda v: concatenated(v, 4), x), rtol=1e-6, atol=1e-8)
