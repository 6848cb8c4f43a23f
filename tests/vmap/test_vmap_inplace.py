"""Batched derivative code that updates arrays in place, under the optimization passes.

The backward sweep of an item write accumulates into zeros with `rt.add_at` and takes slots out
with `rt.take_at`, both in place. Batched, they become `rt.batched_add_at` and per-example loops
`rt.map_examples("rt.take_at", ...)`; common-subexpression elimination once merged two accumulators
`rt.zeros_like_tree(x)` because it did not know those update an argument, so one gradient term
was added twice (found by tools/fuzz.py's vmap_grad property, seed 411, under vmap and under
jit(vmap)). Each result is checked against a Python loop of the unbatched gradient.
"""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def two_slot_writes(x, y):
    acc = x * 1.0
    a0 = acc * 1.0
    a0[1:] = (x + 0.0 * x)[:2]
    acc = a0
    a1 = acc.copy()
    a1[1] = np.sum(x[0])
    acc = a1
    return np.sum(acc * acc)


def writes_from_both(x, y):
    a = np.zeros(3)
    a[0] = x[1] * y[2]
    b = np.zeros(3)
    b[1:] = x[:2] + y[1:]
    return np.sum(a * b) + np.sum(a[:2] * x[1:]) + np.sum(b * b)


def repeated_index(x, y):
    out = x * 2.0
    out[0] = out[0] + y[0]
    out[0] = out[0] * x[2]
    return np.sum(out ** 2)


FUNCS = [two_slot_writes, writes_from_both, repeated_index]
RNG = np.random.default_rng(411)
XS, YS = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3))


@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)], ids=str)
def test_batched_gradient_with_in_place_updates_equals_a_loop(fn, argnums):
    g = s2s.grad(fn, argnums=argnums)
    want = [g(x, y) for x, y in zip(XS, YS)]
    want = tuple(np.stack(w) for w in zip(*want)) if isinstance(argnums, tuple) else np.stack(want)
    for got in (s2s.vmap(g)(XS, YS), s2s.jit(s2s.vmap(g))(XS, YS), s2s.vmap(g).compiled(XS, YS)):
        for a, b in zip(got if isinstance(argnums, tuple) else (got,), want if isinstance(argnums, tuple) else (want,)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_gradient_itself_is_right():
    for fn in FUNCS:
        check_grads(fn, (XS[0], YS[0]), order=1, modes=("rev",))
