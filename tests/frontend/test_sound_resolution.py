"""Name resolution (issue 27, family 4): a call s2s cannot resolve is refused, never a constant.

`m = np; m.sum(x ** 2)` used to get gradient 0 (the module was an opaque value and `m.sum` an
array method of it), and `np.sin(x, out=y); np.sum(y)` too (the write into `y` was not
followed). Aliases bound once now resolve to the module or function; anything else that would
make a call opaque is an S2SError. References: central finite differences and the plain function.
"""
import math

import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads

X = np.array([0.3, -0.7, 1.1])


def helper(v):
    return np.sin(v) * v


def module_alias(x):
    m = np
    return m.sum(x ** 2) + m.prod(m.cos(x))


def submodule_alias(x):
    la = np.linalg
    return la.norm(x) * np.sum(x)


def function_alias(x):
    s = np.sin
    h = helper
    return np.sum(s(x) * h(x))


def alias_in_loop(x):
    m = np
    acc = x
    for _ in range(2):
        acc = m.tanh(acc) + m.exp(0.1 * acc)
    return m.sum(acc)


def math_alias(x):
    mm = math
    return mm.exp(x) * mm.sin(x)


@pytest.mark.parametrize("fn", [module_alias, submodule_alias, function_alias, alias_in_loop])
def test_aliases_resolve_and_differentiate(fn):
    check_grads(fn, (X,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(s2s.jit(fn)(X), fn(X), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(fn)(np.stack([X, -X])), [fn(X), fn(-X)], rtol=1e-13)


def test_module_alias_gradient_is_not_zero():
    np.testing.assert_allclose(s2s.grad(lambda x: module_alias(x) - np.prod(np.cos(x)))(X), 2 * X, rtol=1e-13)
    check_grads(math_alias, (0.7,), order=2, modes=("fwd", "rev"))


def rebound_module(x, flag):
    m = np
    if flag > 0:
        m = math
    return m.sin(x)


def module_in_branch(x):
    if x > 0:
        m = np
    else:
        m = np
    return m.sin(x)


def module_as_value(x):
    ms = [np, np]
    return ms[0].sin(x)


@pytest.mark.parametrize("fn, args", [(rebound_module, (0.5, 1.0)), (module_in_branch, (0.5,)),
                                      (module_as_value, (0.5,))])
def test_a_module_that_is_not_a_once_bound_alias_is_refused(fn, args):
    for t in (s2s.grad, s2s.jit):
        with pytest.raises(S2SError, match="module"):
            t(fn)(*args)


def ufunc_out(x):
    y = np.zeros_like(x)
    np.sin(x, out=y)
    return np.sum(y)


def reduction_out(x):
    y = np.zeros(())
    np.sum(x ** 2, out=y)
    return y * 1.0


def method_out(x):
    y = x * 1.0
    y.clip(-0.5, 0.5, out=y)
    return np.sum(y)


def ufunc_out_tuple(x):
    y = np.zeros_like(x)
    np.multiply(x, x, out=(y,))
    return np.sum(y)


@pytest.mark.parametrize("fn", [ufunc_out, reduction_out, method_out, ufunc_out_tuple])
def test_out_is_refused_in_every_transform(fn):
    for t in (s2s.grad, s2s.jit, s2s.vmap, lambda f: (lambda x: s2s.jvp(f, (x,), (x,)))):
        with pytest.raises(S2SError, match="out="):
            t(fn)(X if t is not s2s.vmap else np.stack([X, X]))


def out_none(x):
    return np.sum(np.sin(x, out=None))


def test_out_none_is_the_plain_call():
    check_grads(out_none, (X,), order=1, modes=("fwd", "rev"))


def unknown_function(x):
    return np.sum(np.polyder(x))  # (np.i0, the example before, is a primitive now)


def unknown_math(x):
    return math.gamma(x)


@pytest.mark.parametrize("fn, arg", [(unknown_function, X), (unknown_math, 1.5)])
def test_a_function_without_rules_is_refused_not_constant(fn, arg):
    for t in (s2s.grad, s2s.jit):
        with pytest.raises(S2SError):
            t(fn)(arg)
