"""Derivatives of batched helpers: vmap(grad(f)) and grad(vmap(f)) differentiate batched code, so the
vmap helpers need derivative rules (rt.batched_outer had none, and np.r_/np.c_/np.roll ran once per
example through rt.map_examples, which has none: refusals at run time). Against a loop of
grad over the examples and against central differences."""
import numpy as np
import pytest
from helpers_vmap import assert_grad_and_jvp_match_differences, assert_stacked

import s2s


def outer_in_a_branch(x, y):
    if np.sum(x) > 0.5:
        acc = x * 2.0
    else:
        acc = x * np.cos(np.sum(np.outer(x[0], y), axis=0))
    return np.sum(acc * acc) + np.sum(np.outer(x, y[:2]) ** 2)


RNG = np.random.default_rng(11)
XS = RNG.uniform(-1.0, 1.0, (4, 3))
YS = RNG.uniform(-1.0, 1.0, (4, 3))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_vmap_grad_through_outer_matches_loop(argnums):
    got = s2s.vmap(s2s.grad(outer_in_a_branch, argnums))(XS, YS)
    assert_stacked(got, [s2s.grad(outer_in_a_branch, argnums)(x, y) for x, y in zip(XS, YS)])


def test_vmap_grad_through_outer_with_a_shared_argument():
    got = s2s.vmap(s2s.grad(outer_in_a_branch, 1), in_axes=(0, None))(XS, YS[0])
    assert_stacked(got, [s2s.grad(outer_in_a_branch, 1)(x, YS[0]) for x in XS])


def test_grad_and_jvp_of_vmap_through_outer_match_differences():
    def g(xs, ys):
        return np.sum(s2s.vmap(outer_in_a_branch)(xs, ys) ** 2)
    assert_grad_and_jvp_match_differences(g, (XS, YS), RNG, jvp=True)


def r_and_c(x, y):
    a = np.r_[x[0] + 0.0 * x, 0.5][1:]
    b = np.sum(np.c_[np.sqrt(1.5 ** 2 + x ** 2) + 0.0 * x, y], axis=1)
    c = np.r_[x, y, 2.0, x[1]]
    return np.sum(a * b) + np.sum(c ** 2) + np.sum(np.c_[np.outer(x, y), x] ** 2)


def test_vmap_of_r_and_c_matches_loop():
    got = s2s.vmap(r_and_c)(XS, YS)
    np.testing.assert_allclose(got, [r_and_c(x, y) for x, y in zip(XS, YS)], rtol=1e-12)


def test_vmap_grad_through_r_and_c_matches_loop():
    got = s2s.vmap(s2s.grad(r_and_c, (0, 1)))(XS, YS)
    assert_stacked(got, [s2s.grad(r_and_c, (0, 1))(x, y) for x, y in zip(XS, YS)])


def test_grad_and_jvp_of_vmap_through_r_and_c_match_differences():
    def g(xs, ys):
        return np.sum(s2s.vmap(r_and_c)(xs, ys) ** 2)
    assert_grad_and_jvp_match_differences(g, (XS, YS), RNG, jvp=True)


def rolls(x, y):
    a = np.roll(x, 1) * y + np.roll(np.sum(y), 1)
    m = np.outer(x, y)
    return np.sum(a ** 2) + np.sum(np.roll(m, 1) * m) + np.sum(np.roll(m, -1, axis=1) * m) \
        + np.sum(np.roll(m, (1, 2), axis=(0, 1)) * m)


def test_vmap_and_vmap_grad_of_roll_match_loop():
    np.testing.assert_allclose(s2s.vmap(rolls)(XS, YS), [rolls(x, y) for x, y in zip(XS, YS)], rtol=1e-12)
    got = s2s.vmap(s2s.grad(rolls, (0, 1)))(XS, YS)
    assert_stacked(got, [s2s.grad(rolls, (0, 1))(x, y) for x, y in zip(XS, YS)])


def test_grad_of_vmap_of_roll_matches_differences():
    def g(xs, ys):
        return np.sum(s2s.vmap(rolls)(xs, ys) ** 2)
    assert_grad_and_jvp_match_differences(g, (XS, YS), RNG, jvp=False)
