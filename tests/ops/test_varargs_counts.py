"""Operations whose NumPy function takes any number of arrays (`*xi`, `*args`, `*operands`) and
whose declaration binds a fixed count (issue 44, family 2): `np.meshgrid(a, b, c, d)` read `d` as
`indexing=` (vmap returned three grids for four, grad and jvp crashed inside s2s),
`np.broadcast_arrays` of five or six arrays raised an internal TypeError, and `np.einsum` of eight
operands crashed under vmap. Past the declared count a call is an S2SError at the user's line
(keywords.array_slots, read from NumPy's signature); broadcast_arrays has a form for each count
up to six. Every operation with NumPy varargs is bounded, rewritten per array, or declared `*args`."""
import inspect

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.compiler.primitives import keywords, registry
from s2s.errors import S2SError

RNG = np.random.default_rng(4)
X = RNG.standard_normal((3, 4))


def test_every_varargs_operation_is_bounded_or_unbounded_by_its_declaration():
    for key in sorted(registry.PRIMS):
        fn = keywords.numpy_function(key)
        if fn is None or isinstance(fn, np.ufunc):
            continue
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            continue
        if any(q.kind == q.VAR_POSITIONAL for q in params):
            p = registry.lookup(key)
            assert keywords.array_slots(key) is not None or "*args" in p.params or p.rewrites, key


def four_grids(x):
    return np.sum(np.meshgrid(x[0], x[1, :3], x[2, :2], x[0, :1], indexing="ij")[3])


def eight_operands(x):
    return np.einsum("i,i,i,i,i,i,i,i->", x[0], x[1], x[2], x[0], x[1], x[2], x[0], x[1])


def seven_broadcasts(x):
    return sum(np.sum(a) for a in np.broadcast_arrays(x, x[0], x[:, :1], x[1], x[2], x[0, 0], x[1, 1]))


@pytest.mark.parametrize("f", [four_grids, eight_operands, seven_broadcasts], ids=lambda f: f.__name__)
def test_past_the_declared_count_is_refused(f):
    f(X)  # (NumPy computes it)
    for run in (lambda: s2s.jit(f)(X), lambda: s2s.grad(f)(X), lambda: s2s.vmap(f)(np.stack([X, X]))):
        with pytest.raises(S2SError, match="at most"):
            run()


def five_broadcasts(x):
    parts = np.broadcast_arrays(x, x[0], x[:, :1], x[1] ** 2, np.sin(x[2]))
    return sum(np.sum(np.cos(a) * k) for k, a in enumerate(parts, 1))


def six_broadcasts(x):
    parts = np.broadcast_arrays(x, x[0], x[:, :1], x[1] ** 2, np.sin(x[2]), x[0, 0])
    return sum(np.sum(np.cos(a) * k) for k, a in enumerate(parts, 1))


@pytest.mark.parametrize("f", [five_broadcasts, six_broadcasts], ids=lambda f: f.__name__)
def test_broadcast_arrays_of_five_and_six(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f)(X), fd_grad(f, X), rtol=1e-6, atol=1e-8)
    xs = np.stack([X, X - 0.5])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
