"""s2s.device_put and s2s.block_until_ready on pytrees (NumPy backend)."""

import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def test_device_put_makes_arrays_on_a_pytree():
    x = np.arange(3.0)
    tree = {"a": 1.5, "b": [2, np.float32(3.0)], "c": (x, None)}
    out = s2s.device_put(tree)
    assert set(out) == {"a", "b", "c"}
    assert isinstance(out["a"], np.ndarray) and out["a"].shape == () and out["a"] == 1.5
    assert isinstance(out["b"], list) and out["b"][0].dtype == np.asarray(2).dtype
    assert out["b"][1].dtype == np.float32
    assert out["c"][0] is x  # NumPy arrays are already on the host: no copy
    assert out["c"][1] is None
    np.testing.assert_array_equal(s2s.device_put(np.eye(2), "cpu"), np.eye(2))


def test_device_put_leaf():
    y = s2s.device_put(2.0)
    assert isinstance(y, np.ndarray) and y.dtype == np.float64 and float(y) == 2.0


def test_device_put_unknown_device():
    with pytest.raises(S2SError, match="device=None or 'cpu'"):
        s2s.device_put(np.ones(2), device="gpu:0")


def test_block_until_ready_returns_its_argument():
    x = np.ones(3)
    assert s2s.block_until_ready(x) is x
    tree = (x, {"k": [x, 1.0]})
    assert s2s.block_until_ready(tree) is tree


def test_block_until_ready_waits_on_async_leaves():
    class Pending:
        waited = 0

        def block_until_ready(self):
            Pending.waited += 1
            return self

    leaves = [Pending(), Pending()]
    assert s2s.block_until_ready(leaves) is leaves
    assert Pending.waited == 2


def test_dot_after_device_put_matches_numpy():
    x = s2s.random.normal(s2s.random.PRNGKey(0), (30, 30))
    y = s2s.device_put(x)
    np.testing.assert_allclose(s2s.block_until_ready(s2s.numpy.dot(y, y.T)), x @ x.T, rtol=1e-6)
