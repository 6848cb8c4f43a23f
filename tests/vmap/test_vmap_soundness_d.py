"""vmap soundness (issue #27): each construct below either gives every example's value (checked
against a Python loop over the examples) or is refused with an S2SError, never a raw Python
error or a silently wrong number."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

B = 3


def _loop(f, *xs):
    return np.stack([f(*ex) for ex in zip(*xs)])


def _tile_helper(x, reps):
    return np.tile(x, reps)


def tile_pair(x):
    return np.sum(np.sin(_tile_helper(x, (2, 2))))


def tile_int(x):
    return np.sum(_tile_helper(x, 3) ** 3)


def tile_deep(x):
    return np.sum(np.cos(_tile_helper(x, (2, 1, 2))) * 2.0)


@pytest.mark.parametrize("f", [tile_pair, tile_int, tile_deep])
def test_vmap_grad_of_tile_through_a_call(f):
    """A callee's record keeps tile's reps broadcast over the batch; the backward reshape takes
    the one shape every example shares."""
    xs = np.random.default_rng(0).normal(size=(B, 2, 3))
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), _loop(s2s.grad(f), xs), rtol=1e-12, atol=1e-12)


def mask_select(x):
    return np.sum(x[x > 0.0])


def mask_select_not(x):
    m = ~(x > 0.0)
    return np.sum(x[m] ** 2)


def mask_assign(x):
    y = x * 1.0
    y[x > 0.0] = 0.0
    return np.sum(y)


@pytest.mark.parametrize("f", [mask_select, mask_select_not, mask_assign])
@pytest.mark.parametrize("grad", [False, True])
def test_a_per_example_boolean_mask_reduced_or_stored_is_batched(f, grad):
    """A selection reduced or stored back has a shape every example shares (issue 45 section 7):
    each example's value, against a loop (tests/vmap/test_masked_selections.py has the rest)."""
    xs = np.random.default_rng(1).normal(size=(B, 5))
    g = s2s.grad(f) if grad else f
    np.testing.assert_allclose(s2s.vmap(g)(xs), _loop(g, xs), rtol=1e-12, atol=1e-12)


def test_a_per_example_boolean_mask_selection_returned_is_refused_at_its_line():
    xs = np.random.default_rng(1).normal(size=(B, 5))
    with pytest.raises(S2SError, match=r"(?s)test_vmap_soundness_d.py:\d+.*boolean mask that differs per example") as e:
        s2s.vmap(lambda x: x[x > 0.0])(xs)
    assert "np.where(mask, x, 0)" in str(e.value)


def test_a_mask_shared_by_the_examples_still_selects():
    xs = np.random.default_rng(2).normal(size=(B, 5))
    m = np.array([True, False, True, True, False])
    f = lambda x: np.sum(np.sin(x[m]))  # noqa: E731
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), _loop(s2s.grad(f), xs), rtol=1e-13)


RAGGED = {
    "extract": lambda x: np.extract(x > 0.0, x),
    "nonzero": lambda x: np.nonzero(x > 0.0)[0],
    "argwhere": lambda x: np.argwhere(x > 0.0),
    "flatnonzero": lambda x: np.flatnonzero(x),
    "compress": lambda x: np.compress(x > 0.0, x),
    "unique": lambda x: np.unique(np.round(x)),
}


@pytest.mark.parametrize("name", sorted(RAGGED))
def test_a_result_whose_size_differs_per_example_is_refused(name):
    xs = np.array([[1.0, -2.0, 3.0, 0.0], [1.0, 1.0, 2.0, 2.0], [-1.0, -2.0, 2.5, 0.0]])
    assert len({np.shape(RAGGED[name](x)) for x in xs}) > 1  # the examples' sizes differ
    with pytest.raises(S2SError, match=f"np.{name}.*different shape per example|different shape"):
        s2s.vmap(RAGGED[name])(xs)


@pytest.mark.parametrize("name", ["nonzero", "argwhere", "flatnonzero", "unique"])
def test_a_result_of_the_same_size_per_example_is_stacked(name):
    xs = np.array([[1.0, -2.0, 3.0, 0.5], [1.0, 2.0, -3.0, 4.0], [-1.0, 2.0, 3.5, 1.0]])
    want = [RAGGED[name](x) for x in xs]
    assert len({np.shape(w) for w in want}) == 1
    np.testing.assert_array_equal(s2s.vmap(RAGGED[name])(xs), np.stack(want))


def average_axis0(x):
    a, s = np.average(x.reshape(2, 2), axis=0, weights=np.array([1.0, 3.0]), returned=True)
    return np.sum(np.sin(a) * s)


def average_axis1_batched_weights(x):
    a, s = np.average(x.reshape(2, 2), axis=1, weights=x.reshape(2, 2) ** 2 + 1.0, returned=True)
    return np.sum(np.sin(a) * s)


def average_all(x):
    a, s = np.average(x, weights=np.arange(1.0, 5.0), returned=True)
    return np.sin(a) * s


@pytest.mark.parametrize("f", [average_axis0, average_axis1_batched_weights, average_all])
def test_vmap_grad_of_average_returned(f):
    """np.average(..., returned=True) in a callee's record: its axis is broadcast over the batch,
    and the rule's `shape[axis] = -1` on a list takes the one position every example names (it
    raised a TypeError)."""
    xs = np.random.default_rng(3).normal(size=(B, 4))
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), _loop(s2s.grad(f), xs), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)


def test_vmap_grad_of_average_returned_matches_central_differences():
    f, x, eps = average_axis0, np.array([0.3, -0.2, 0.9, 0.4]), 1e-6
    fd = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(x[None])[0], fd, rtol=1e-6, atol=1e-8)


def _total(x, data):
    if isinstance(data, list):
        return sum(_total(x, d) for d in data)
    return np.sum(np.cos(data) * x[0])


def recursive_over_a_list(x):
    return _total(x, [x[:2], x[1:]])


def branch_on_array_type(x):
    y = x[0] if isinstance(x, np.ndarray) else x
    return y * 2.0 if isinstance(y, float) else np.sum(y)


@pytest.mark.parametrize("f", [recursive_over_a_list, branch_on_array_type])
def test_isinstance_of_a_per_example_value_is_one_answer(f):
    """isinstance of a batched value answers for each example (its rows' type, the same for all):
    vmap refused it."""
    xs = np.random.default_rng(6).normal(size=(B, 3))
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), _loop(s2s.grad(f), xs), rtol=1e-12)
