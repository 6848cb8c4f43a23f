"""vmap when a name is batched in one place and a loop index in another (batchedness is per name):
`j` counted per example by a masked `while`, then reused as `for j in range(n)` to index a list.
Found by the fuzzer (seed 41, program 65): example_getitem raised an internal IndexError."""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def reused_index(x, y):
    acc = x * 1.0
    j = 0
    while np.sum(acc * acc) < 3.0 and j < 4:
        acc = acc + 0.3 * np.tanh(x) + 0.3
        j = j + 1
    lst = [np.tanh(x), acc * 1.0, y]
    s = 0.0 * acc
    for j in range(len(lst)):
        s = s + lst[j] * (0.3 / (j + 1.0))
    return np.sum((acc + s) ** 2) + 0.0 * j


def reused_array_index(x):
    j = 0
    while np.sum(x) > 0.5 and j < 3:
        x = x * 0.5
        j = j + 1
    out = 0.0
    for j in range(x.shape[0]):
        out = out + x[j] * (j + 1.0)
    return out


def per_example_position(x, k):
    lst = [x, 2.0 * x]
    return np.sum(lst[k])


def examples(seed=0, b=5, n=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(b, n)), rng.normal(size=(b, n))


def test_vmap_equals_loop_when_loop_index_reuses_a_batched_name():
    xs, ys = examples()
    xs[0] *= 4.0  # one example leaves the while loop at once, others run up to four times
    want = np.array([reused_index(x, y) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(s2s.vmap(reused_index)(xs, ys), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(reused_index))(xs, ys), want, rtol=1e-12)


@pytest.mark.parametrize("argnums", [0, 1])
def test_vmap_grad_equals_loop_of_grad(argnums):
    xs, ys = examples(1)
    g = s2s.grad(reused_index, argnums=argnums)
    want = np.stack([g(x, y) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(s2s.vmap(g)(xs, ys), want, rtol=1e-10)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(g))(xs, ys), want, rtol=1e-10)


def test_grad_matches_central_differences():
    xs, ys = examples(2)
    check_grads(reused_index, (xs[1], ys[1]), order=1)


def test_array_indexed_by_reused_name():
    xs, _ = examples(3, n=4)
    xs = np.abs(xs)
    want = np.array([reused_array_index(x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(reused_array_index)(xs), want, rtol=1e-12)
    gwant = np.stack([s2s.grad(reused_array_index)(x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(reused_array_index))(xs), gwant, rtol=1e-10)


def test_list_position_same_for_every_example_is_fine():
    xs, _ = examples(4)
    ks = np.array([1, 1, 1, 1, 1])
    want = np.array([per_example_position(x, 1) for x in xs])
    np.testing.assert_allclose(s2s.vmap(per_example_position)(xs, ks), want)


def test_list_position_differing_per_example_is_refused():
    xs, _ = examples(5)
    ks = np.array([0, 1, 0, 1, 1])
    with pytest.raises(s2s.S2SError, match="differs per example"):
        s2s.vmap(per_example_position)(xs, ks)


def _index_list_in_a_branch(x, y):
    acc = x * 1.0
    if np.sum(acc) > -1.0:
        acc = acc * 2.0 + x[[2, 0, 1]]
        return acc
    return acc


def test_vmap_of_jacrev_through_a_list_index_assigned_in_a_branch():
    """A list of positions assigned under a batched branch is held as one batched array per entry:
    indexing with it took the entries for the batch axis (IndexError; found by the fuzzer, vmap_grad)."""
    xs = np.array([[0.76, -0.53, 0.84], [0.1, 0.2, -0.3]])
    ys = xs * 0.5
    want = np.array([s2s.jacrev(_index_list_in_a_branch)(a, b) for a, b in zip(xs, ys)])
    np.testing.assert_allclose(s2s.vmap(s2s.jacrev(_index_list_in_a_branch))(xs, ys), want, rtol=1e-12)
