"""Every primitive with derivative rules has a batching rule; each batching category is checked
against a loop over examples on a representative op."""

import numpy as np
import pytest

import s2s
from s2s.compiler.primitives.registry import BATCH, PRIMS


def test_every_differentiable_op_has_a_batching_rule():
    missing = [n for n, p in PRIMS.items() if (p.vjp or p.jvp or p.linear_in) and n not in BATCH
               and not n.startswith("ext.")]  # ext.*: registered by users (and by other tests) at run time
    assert not missing, f"primitives with derivative rules but no batching rule: {missing}"


def test_every_primitive_has_a_batching_rule():
    assert not [n for n in PRIMS if n not in BATCH and not n.startswith("ext.")]


def test_batching_table_names_known_primitives():
    assert not [n for n in BATCH if n not in PRIMS]


def test_looped_ops_are_listed_and_few():
    # ext.*: functions declared primitives from outside (s2s.random's, looped per key by design)
    looped = sorted(n for n, r in BATCH.items() if r.kind == "loop" and not n.startswith(("rt.", "ext.")))
    # ragged results and type queries (tests/test_ops_batching.py names them); shrink, never grow
    assert len(looped) <= 29, looped


def ew(x, y):
    return np.exp(x) * y + np.maximum(x, 0.3) - np.where(x > y, x, y)


def red(m):
    return np.sum(m, axis=0) + np.max(m, axis=-1) + np.mean(m) + np.argmax(m, axis=1)


def shapes(m):
    return np.reshape(m.T, (-1,)) + np.ravel(np.swapaxes(m, 0, 1)) + np.concatenate([m[0], m[1], m[2]])


def dots(m, v):
    return np.dot(m, v) + m @ v + np.outer(v, v).sum(axis=1) + np.inner(v, v)


def creation(m):
    z = np.zeros(m.shape)
    z[1] = m[1] * 2.0
    return z + np.ones_like(m) + len(m) + m.ndim


CASES = [(ew, (0, 0)), (ew, (0, None)), (ew, (None, 0)), (red, (0,)), (shapes, (0,)), (dots, (0, 0)),
         (dots, (None, 0)), (dots, (0, None)), (creation, (0,))]


@pytest.mark.parametrize("fn, axes", CASES, ids=[f"{f.__name__}-{a}" for f, a in CASES])
def test_category_matches_loop(fn, axes):
    rng = np.random.default_rng(0)
    per = {ew: [(3, 4), (4,)], red: [(3, 3)], shapes: [(3, 3)], dots: [(3, 3), (3,)], creation: [(3, 3)]}[fn]
    if fn is ew:
        per = [(4,), (4,)]
    args = [rng.normal(size=((5,) if a is not None else ()) + s) for a, s in zip(axes, per)]
    want = np.stack([fn(*[x[k] if a is not None else x for x, a in zip(args, axes)]) for k in range(5)])
    np.testing.assert_allclose(s2s.vmap(fn, in_axes=axes)(*args), want, rtol=1e-12, atol=1e-12)
