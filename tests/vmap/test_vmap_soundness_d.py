"""vmap soundness (issue #27): each construct below either gives every example's value (checked
against a Python loop over the examples) or is refused with an S2SError, never a raw Python
error or a silently wrong number."""
import numpy as np
import pytest

import s2s

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
