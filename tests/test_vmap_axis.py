"""vmap of a reduction whose `axis` is a variable holding None reduces each example over all of
its own axes, never over the batch axis (vmap(grad(np.std)) used to mix the examples)."""
import numpy as np
import vmap_axis_funcs as F

import s2s

X = np.random.default_rng(0).normal(size=(4, 3))


def loop(f, xs):
    return np.stack([f(x) for x in xs])


def test_reduction_with_a_variable_none_axis_equals_a_loop():
    np.testing.assert_allclose(s2s.vmap(F.centered)(X), loop(F.centered, X), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(F.var_sum)(X), loop(F.var_sum, X), rtol=1e-13)


def test_vmap_of_grad_of_std_equals_a_loop_of_grad():
    g = s2s.grad(F.std_of)
    np.testing.assert_allclose(s2s.vmap(g)(X), loop(g, X), rtol=1e-13)
    # hand-derived: d std / dx = (x - mean) / (n std)
    want = (X - X.mean(axis=1, keepdims=True)) / (3 * X.std(axis=1, keepdims=True))
    np.testing.assert_allclose(s2s.vmap(g)(X), want, rtol=1e-12)
