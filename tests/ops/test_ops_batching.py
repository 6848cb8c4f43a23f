"""Vectorized batching rules of the coverage operations (s2s/runtime/batch_shape.py, batch_reduce.py,
batch_linalg.py) on the argument patterns the spec sweep does not reach: batched indices, knots,
coefficients and weights, mixed per-example ranks, keyword arguments, every mode. Each case: vmap
against a Python loop calling NumPy itself, for several in_axes."""
import numpy as np
import pytest
from helpers_vmap import assert_stacked, batch_args

import s2s
import s2s.runtime
from s2s.api import ops_table
from s2s.compiler.primitives.registry import BATCH

B = 4
rng = np.random.default_rng(7)


def _n(*s):
    return lambda k: rng.standard_normal(s)


def _sorted(*s):
    return lambda k: np.sort(rng.standard_normal(s), axis=-1) + np.arange(s[-1]) * 0.3


def _ints(hi, *s):
    return lambda k: rng.integers(-hi, hi, s)


def _pos_ints(hi, *s):
    return lambda k: rng.integers(0, hi, s)


def take_flat(a, i):
    return np.take(a, i)


def take_ax1(a, i):
    return np.take(a, i, axis=1)


def take_neg(a, i):
    return np.take(a, i, axis=-1)


def take_wrap(a, i):
    return np.take(a, i * 3, axis=0, mode="wrap")


def take_clip(a, i):
    return a.take(i * 3, mode="clip")


def take_along(a, i):
    return np.take_along_axis(a, i, axis=1)


def take_along_none(a, i):
    return np.take_along_axis(a, i, axis=None)


def interp(x, xk, fk):
    return np.interp(x, xk, fk)


def interp_lr(x, xk, fk):
    return np.interp(x, xk, fk, left=-5.0, right=7.0)


def polyval(p, x):
    return np.polyval(p, x)


def conv(a, v):
    return np.convolve(a, v) + np.convolve(a, v, "same").sum() + np.convolve(a, v, "valid").sum()


def corr(a, v):
    return np.correlate(a, v, "full") + np.correlate(a, v, "same").sum() + np.correlate(a, v).sum()


def cross_mixed(a, b):
    return np.cross(a, b)


def cross_axes(a, b):
    return np.cross(a, b, axisa=0, axisb=-1, axisc=0)


def solve_vec(a, b):
    return np.linalg.solve(a + 4.0 * np.eye(3), b)


def diff_edges(a, p, q):
    return np.diff(a, axis=0, prepend=p, append=q)


def diff_scalar_edges(a, p):
    return np.diff(a, n=2, prepend=p[0], append=1.5)


def average_w(a, w):
    return np.average(a, axis=1, weights=w * w + 0.5)


def average_full(a, w):
    return np.average(a, weights=w * w + 0.5)


def meshgrid_xy(x, y, z):
    return np.meshgrid(x, y, z)


def meshgrid_sparse(x, y):
    return np.meshgrid(x, y, indexing="ij", sparse=True)


def pad_modes(a):
    return (np.pad(a, ((1, 2), (0, 1)), constant_values=((1.0, 2.0), (3.0, 4.0))) .sum()
            + np.pad(a, 2, mode="reflect").sum() + np.pad(a, 1, mode="edge").sum()
            + np.pad(a, (1, 2), mode="symmetric", reflect_type="odd").sum() + np.pad(a, 1, mode="wrap"))[0]


def einsum_ell(a, b):
    return np.einsum("...ij,...jk", a, b) + np.einsum("i...->...", a).sum()


def einsum_trace(a, b):
    return np.einsum("ii", a) + np.einsum("ij,ji->", a, b)


def kron_mixed(a, b):
    return np.kron(a, b)


def matvec_stack(a, v):
    return np.matvec(a, v) + np.vecmat(v, a)


def vecdot_axis(a, b):
    return np.vecdot(a, b, axis=0) + np.linalg.vecdot(a, b, axis=0)


def tile_roll(a):
    return np.tile(a, (2, 1, 3)).sum(axis=0) + np.roll(a, 2).sum() + np.roll(a, (1, -1), axis=(0, 1)).sum()


def rotations(a):
    return np.rot90(a, 3, axes=(1, 0)) + np.rollaxis(a, 1).T.sum() + np.fliplr(np.flipud(a)).T


def stacks(a, b):
    return (np.column_stack([a[0], b[0]]).sum() + np.hstack([a, b]).sum() + np.vstack([a[0], b[0]]).sum()
            + np.dstack([a, b]).sum() + np.column_stack(a).sum() + np.vstack(a).sum())


def splits(a):
    p, q = np.array_split(a, [1], axis=1)
    r, s = np.hsplit(a, 2)
    t, u = np.vsplit(a, [1])
    return p.sum() + q.sum() * 2 + r.sum() * 3 + s.sum() * 4 + t.sum() * 5 + u.sum() * 6


def list_sum(a, b):
    return sum([a, b[0], b]) + sum(a)


def quantiles(a):
    return np.quantile(a, [0.2, 0.7], axis=0) + np.percentile(a, 30.0) + np.nanquantile(a, 0.4, keepdims=True)


def broadcast(a):
    return np.broadcast_to(a, (2, 3, 4)) + np.atleast_3d(a[0])[..., 0].sum()


def diag_both(a):
    return np.diag(np.diag(a), k=1) + np.diag(a[0], -2).sum()


def selections(a):
    return (np.compress([True, False, True], a, axis=1).sum() + np.delete(a, [0, 2]).sum()
            + np.extract(np.array([[True, False, True, False]] * 3), a).sum())


def select(x, y):
    return np.select([x > 0, y > 0.5], [x, y * 2.0], default=y[0])


def cumulative(a):
    return np.cumulative_sum(a, axis=1, include_initial=True) + np.cumulative_prod(a, axis=-1, include_initial=True)


def gradient(a):
    gx, gy = np.gradient(a, 0.5)
    return gx + gy * 2.0 + np.gradient(a, axis=1, edge_order=2)


def partition(a):
    return np.partition(a, 2, axis=0) + np.sort(a, axis=None).sum()


CASES = [
    (take_flat, [_n(3, 4), _ints(12, 2, 3)], [(0, 0), (None, 0), (0, None)]),
    (take_ax1, [_n(3, 4, 2), _ints(4, 5)], [(0, 0), (None, 0), (1, 0)]),
    (take_neg, [_n(3, 4), _ints(4, 2, 2)], [(0, 0), (None, 0)]),
    (take_wrap, [_n(4, 2), _ints(7, 3)], [(0, 0), (None, 0)]),
    (take_clip, [_n(4, 2), _ints(7, 3)], [(0, 0), (None, 0)]),
    (take_along, [_n(3, 4), _pos_ints(4, 3, 2)], [(0, 0), (None, 0), (0, None)]),
    (take_along_none, [_n(3, 4), _pos_ints(12, 5)], [(0, 0), (None, 0), (0, None)]),
    (interp, [_n(5), _sorted(6), _n(6)], [(0, 0, 0), (None, 0, 0), (0, None, 0), (0, 0, None), (None, 0, None)]),
    (interp_lr, [lambda k: rng.uniform(-3, 3, (2, 5)), _sorted(6), _n(6)], [(0, 0, 0), (None, 0, None)]),
    (polyval, [_n(4), _n(2, 3)], [(0, 0), (0, None), (None, 0)]),
    (conv, [_n(5), _n(3)], [(0, 0), (0, None), (None, 0)]),
    (conv, [_n(3), _n(6)], [(0, 0), (None, 0)]),
    (corr, [_n(5), _n(3)], [(0, 0), (0, None), (None, 0)]),
    (corr, [_n(2), _n(5)], [(0, 0), (None, 0)]),
    (cross_mixed, [_n(3), _n(2, 3)], [(0, 0), (0, None), (None, 0)]),
    (cross_axes, [_n(3, 2), _n(2, 3)], [(0, 0), (0, None), (None, 0), (1, 1)]),
    (solve_vec, [_n(3, 3), _n(3)], [(0, 0), (0, None), (None, 0)]),
    (solve_vec, [_n(2, 3, 3), _n(3)], [(0, 0), (0, None), (None, 0)]),
    (solve_vec, [_n(3, 3), _n(3, 2)], [(0, 0), (0, None), (None, 0)]),
    (diff_edges, [_n(3, 2), _n(1, 2), _n(2, 2)], [(0, 0, 0), (0, None, 0), (None, 0, None)]),
    (diff_scalar_edges, [_n(5), _n(2)], [(0, 0), (None, 0), (0, None)]),
    (average_w, [_n(2, 3), _n(3)], [(0, 0), (None, 0), (0, None)]),
    (average_full, [_n(2, 3), _n(2, 3)], [(0, 0), (None, 0), (0, None)]),
    (meshgrid_xy, [_n(2), _n(3), _n(4)], [(0, 0, 0), (None, 0, None), (0, None, 0)]),
    (meshgrid_sparse, [_n(2), _n(3)], [(0, 0), (None, 0)]),
    (pad_modes, [_n(3, 4)], [(0,), (1,)]),
    (einsum_ell, [_n(2, 3, 3), _n(2, 3, 4)], [(0, 0), (None, 0), (0, None)]),
    (einsum_trace, [_n(3, 3), _n(3, 3)], [(0, 0), (None, 0), (0, None)]),
    (kron_mixed, [_n(2, 3), _n(3)], [(0, 0), (None, 0), (0, None)]),
    (kron_mixed, [_n(2), _n(2, 2, 2)], [(0, 0), (None, 0), (0, None)]),
    (matvec_stack, [_n(2, 3, 3), _n(3)], [(0, 0), (None, 0), (0, None)]),
    (vecdot_axis, [_n(3, 2), _n(3, 2)], [(0, 0), (None, 0), (2, None)]),
    (tile_roll, [_n(2, 3)], [(0,), (1,)]),
    (rotations, [_n(3, 3)], [(0,), (1,)]),
    (stacks, [_n(2, 3), _n(2, 3)], [(0, 0), (None, 0), (0, None)]),
    (splits, [_n(2, 4)], [(0,), (1,)]),
    (list_sum, [_n(3), _n(2, 3)], [(0, 0), (None, 0), (0, None)]),
    (quantiles, [_n(4, 3)], [(0,), (1,)]),
    (broadcast, [_n(3, 1)], [(0,), (2,)]),
    (diag_both, [_n(3, 3)], [(0,), (1,)]),
    (selections, [_n(3, 4)], [(0,), (1,)]),
    (select, [_n(2, 3), _n(3)], [(0, 0), (None, 0), (0, None)]),
    (cumulative, [_n(2, 3)], [(0,), (1,)]),
    (gradient, [_n(4, 5)], [(0,), (2,)]),
    (partition, [_n(5, 3)], [(0,), (1,)]),
]


PARAMS = [pytest.param(fn, draws, axes, id=f"{fn.__name__}-{k}-{axes}")
          for k, (fn, draws, axes_list) in enumerate(CASES) for axes in axes_list]


@pytest.fixture
def no_loop(monkeypatch):
    """Fail if anything runs once per example (the rules under test must be vectorized)."""
    def refuse(fn, *args, **kwargs):
        raise AssertionError(f"{fn} ran once per example")
    monkeypatch.setattr(s2s.runtime, "map_examples", refuse)
    monkeypatch.setattr(s2s.runtime.batch, "map_examples", refuse)


@pytest.mark.parametrize("fn, draws, axes", PARAMS)
def test_vmap_matches_loop(fn, draws, axes, no_loop):
    examples = [tuple(d(k) for d in draws) for k in range(B)]
    in_axes, batched, per = batch_args(examples, axes)
    assert_stacked(s2s.vmap(fn, in_axes=in_axes)(*batched), [fn(*args) for args in per])


def test_fallback_patterns_still_agree():
    """Patterns with no vectorized form (a per-example shift or split point) run per example and
    still agree with the loop."""
    def f(a, s):
        return np.roll(a, s) + np.tile(a, 2)[:3]
    a = rng.standard_normal((B, 3))
    s = np.array([0, 1, 2, -1])
    got = s2s.vmap(f)(a, s)
    np.testing.assert_allclose(got, np.stack([f(a[k], s[k]) for k in range(B)]))


def test_coverage_ops_have_vectorized_rules():
    for op in ("xp.take", "xp.take_along_axis", "xp.pad", "xp.convolve", "xp.interp", "xp.polyval", "xp.einsum",
               "xp.linalg.solve", "xp.kron", "xp.cross", "xp.sort", "xp.diagonal", "rt.list_sum"):
        assert BATCH[op].kind != "loop", op


# ---- functions without derivative: integer and boolean results compared exactly ----
def nd_sorts(x, y):
    return np.argsort(x, axis=0), np.argsort(x, axis=None), x.argsort(), np.argpartition(x, 1, axis=1)


def nd_args(x, y):
    return np.nanargmax(x, axis=0), np.nanargmin(x)


def nd_search(x, y):
    return np.searchsorted(np.sort(y[0]), x[0]), np.searchsorted(np.sort(y[0]), x, side="right")


def nd_compare(x, y):
    return (np.allclose(x[:2], y), np.array_equal(x, x), np.array_equal(x, y[0]), np.array_equiv(x[0], x),
            np.allclose(x, x + 1e-12))


def nd_members(x, y):
    return (np.isin(x, y[0]), np.isin(x[0], y, invert=True), np.digitize(x, np.sort(y[1])),
            np.digitize(x, -np.sort(y[1]), right=True))


@pytest.mark.parametrize("fn", [nd_sorts, nd_args, nd_search, nd_compare, nd_members], ids=lambda f: f.__name__)
@pytest.mark.parametrize("axes", [(0, 0), (0, None), (None, 0)])
def test_no_derivative_ops_match_loop(fn, axes, no_loop):
    X, Y = np.round(rng.standard_normal((B, 3, 4)), 1), np.round(rng.standard_normal((B, 2, 4)), 1)
    Y[:, 0, :2] = X[:, 0, :2]  # some members, some ties
    per = [(X[k] if axes[0] is not None else X[0], Y[k] if axes[1] is not None else Y[0]) for k in range(B)]
    got = s2s.vmap(fn, in_axes=axes)(X if axes[0] is not None else X[0], Y if axes[1] is not None else Y[0])
    for i, g in enumerate(got):
        want = np.stack([np.asarray(fn(*p)[i]) for p in per])
        assert np.shape(g) == want.shape and np.array_equal(g, want), (i, g, want)


# Differentiable operations whose batching rule may run once per example: name -> why. Keep it short;
# an operation leaves the list when it gets a vectorized rule.
LOOPED_DIFFERENTIABLE = {  # (NumPy 2's named-tuple forms: ragged, and their derivative is refused)
    "np.unique_all": "ragged, refused", "np.unique_counts": "ragged, refused", "np.unique_inverse": "ragged, refused",
    "np.linalg.lstsq": "NumPy's lstsq takes one matrix (no stacks); its rank and its rank check are per example",
}
# Operations without derivative that still run once per example: their results differ in size per
# example (no stacked result exists) or they answer questions about types, not values.
LOOPED_NO_DERIVATIVE = {
    "np.nonzero": "ragged", "np.flatnonzero": "ragged", "np.argwhere": "ragged", "ndarray.nonzero": "ragged",
    "np.lexsort": "a sequence of keys", "np.ix_": "index builder",
    "np.indices": "index builder", "np.diag_indices_from": "index builder", "np.tril_indices_from": "index builder",
    "np.triu_indices_from": "index builder", "np.mask_indices": "index builder",
    "np.ravel_multi_index": "index builder", "np.can_cast": "type query", "np.promote_types": "type query",
    "np.finfo": "type query", "np.iinfo": "type query", "np.isscalar": "type query", "np.iscomplexobj": "type query",
    "np.isrealobj": "type query", "np.may_share_memory": "memory query", "np.shares_memory": "memory query",
    "round": "Python's builtin: a Python int per example, rounded exactly in decimal (np.round scales in binary)",
}


def test_looped_batching_rules_are_allowlisted():
    """A differentiable operation whose batching rule is a per-example loop fails here unless it is
    on the allowlist above with a reason (and the list of no-derivative loops only shrinks)."""
    rows = ops_table.operations()
    looped = {r["name"] for r in rows if r["batch_loop"]}
    diff = {r["name"] for r in rows if r["batch_loop"] and r["differentiable"]}
    assert diff <= set(LOOPED_DIFFERENTIABLE), f"differentiable operations batched by a loop: {diff}"
    assert looped - diff <= set(LOOPED_NO_DERIVATIVE), looped - diff - set(LOOPED_NO_DERIVATIVE)


def test_vectorized_coverage_count():
    """Issue 11's bar: at least 250 operations with VJP, JVP and a vectorized batching rule."""
    s = ops_table.summary(ops_table.operations())
    assert s["differentiable_all_rules_vectorized"] >= 250, s


# ---- vmap of grad: the derivative helpers batch without a loop too ----
def g_reductions(x):
    return np.sum(np.max(x, axis=0) ** 2) + np.min(x) + np.sum(np.prod(x, axis=1)) + np.sum(np.cumsum(x, axis=1) ** 2)


def g_orders(x):
    return np.sum(np.sort(x, axis=1) * np.arange(4.0)) + np.sum(np.partition(x, 1, axis=0)[1] ** 2)


def g_shapes(x):
    return (np.sum(np.diff(x, axis=1) ** 2) + np.sum(np.transpose(x) @ x) + np.sum(np.rot90(x) ** 3)
            + np.sum(np.cumulative_sum(x, axis=0) ** 2) + np.sum(np.rollaxis(x, 1) ** 2))


def g_products(x):
    return np.sum(np.einsum("ij,kj->ik", x, np.sin(x)) ** 2) + np.sum(np.mod(x, 0.7) * np.fmod(x, 0.3))


@pytest.mark.parametrize("fn", [g_reductions, g_orders, g_shapes, g_products], ids=lambda f: f.__name__)
def test_vmap_grad_helpers_match_loop(fn, no_loop):
    xs = rng.permutation(B * 12).reshape(B, 3, 4) * 0.1 + 0.05
    got = s2s.vmap(s2s.grad(fn))(xs)
    np.testing.assert_allclose(got, np.stack([s2s.grad(fn)(x) for x in xs]), rtol=1e-12, atol=1e-12)
