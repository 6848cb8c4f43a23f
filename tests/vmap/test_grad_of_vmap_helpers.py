"""Derivatives of vmap's batching helpers (`rt.batched_<op>`): grad, jvp and second derivatives of a
function that calls vmap, one case per helper and keyword form. Each is checked against a Python
loop over the examples of s2s.grad (or s2s.hessian), and against central differences of NumPy's
own function; a second derivative s2s does not know is an S2SError naming the helper. Of the two
second-order tests, each case takes one by default and the other with --full."""
from __future__ import annotations

import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

RNG = np.random.default_rng(2808)
W = RNG.standard_normal((3, 4))
V4 = RNG.standard_normal(4)


def _cov_loop(x):
    """np.cov inside a loop (fuzz seed 2808, program 141: batched_atleast_2d)."""
    total = 0.0
    for i in range(2):
        total = total + np.sum(np.cov(x[i:i + 2] * (i + 1.0)) ** 2)
    return total


# name -> the per-example function of a (3, 4) array (every one smooth near the draws below)
CASES = {
    "rot90": lambda x: np.sum(np.rot90(x) ** 2 * W.T),
    "rot90_k_axes": lambda x: np.sum(np.sin(np.rot90(x, 3, axes=(1, 0))) * W.T),
    "split_sections": lambda x: np.sum(np.split(x, 2, axis=1)[1] ** 3),
    "split_indices": lambda x: np.sum(np.split(x, [1, 3], axis=1)[2] ** 3 + np.split(x, [1])[0] ** 2),
    "take_axis": lambda x: np.sum(np.take(x, [0, 2, 2], axis=1) ** 3),
    "take_flat": lambda x: np.sum(np.take(x, np.array([5, 0, 11])) ** 3),
    "diff": lambda x: np.sum(np.diff(x) ** 3),
    "diff_n_axis": lambda x: np.sum(np.diff(x ** 2, n=2, axis=0) ** 2),
    "cross": lambda x: np.sum(np.cross(x[:, :3], np.sin(x[:, 1:])) ** 2),
    "cross_axes": lambda x: np.sum(np.cross(x[:3, :3], np.cos(x[:, :3]), axisa=0, axisb=1, axisc=0) ** 2),
    "cross_axis": lambda x: np.sum(np.cross(x[:, :3].T, x[:, 1:].T ** 2, axis=0) ** 2),
    "tensordot_int": lambda x: np.sum(np.tensordot(x, W, axes=2) ** 2 + np.tensordot(x, x.T, 1) ** 2),
    "tensordot_pairs": lambda x: np.sum(np.tensordot(x, np.cos(x), axes=([1], [1])) ** 2),
    "partition": lambda x: np.sum(np.partition(x, 1, axis=1)[:, :2] ** 3),
    "partition_flat": lambda x: np.sum(np.partition(x.ravel(), 5)[:4] ** 3),
    "take_along_axis": lambda x: np.sum(np.take_along_axis(x, np.argsort(x, axis=1), axis=1)[:, 1:] ** 3),
    "delete": lambda x: np.sum(np.delete(x, 1, axis=1) ** 3),
    "delete_list_flat": lambda x: np.sum(np.delete(x, [0, 5, 7]) ** 3),
    "append_axis": lambda x: np.sum(np.append(x, x ** 2, axis=0) ** 3),
    "append_flat": lambda x: np.sum(np.append(x[0], np.sin(x[1])) ** 3),
    "pad": lambda x: np.sum(np.pad(x, 1) ** 3 * 1.5),
    "pad_widths_constant": lambda x: np.sum(np.pad(x, ((1, 0), (0, 2)), constant_values=0.5) ** 3),
    "pad_reflect": lambda x: np.sum(np.pad(x, ((1, 0), (0, 2)), mode="reflect") ** 3),
    "pad_edge": lambda x: np.sum(np.pad(x, 2, mode="edge") ** 3),
    "gradient_axis": lambda x: np.sum(np.gradient(x ** 2, axis=1) ** 2),
    "gradient_spacing": lambda x: np.sum(np.gradient(x ** 2, 0.5, axis=0) ** 2),
    "gradient_edge_order": lambda x: np.sum(np.gradient(x[0] ** 3, edge_order=2) ** 2),
    "vecdot": lambda x: np.sum(np.vecdot(x, np.sin(x)) ** 2),
    "vecdot_axis": lambda x: np.sum(np.vecdot(x, x ** 2, axis=0) ** 2),
    "cumulative_sum": lambda x: np.sum(np.cumulative_sum(x, axis=1) ** 3),
    "cumulative_sum_initial": lambda x: np.sum(np.cumulative_sum(x[0], include_initial=True) ** 3),
    "quantile": lambda x: np.sum(np.quantile(x ** 3, 0.3, axis=1) ** 2),
    "quantile_array_q": lambda x: np.sum(np.quantile(x ** 3, np.array([0.2, 0.7]), axis=0) ** 2),
    "quantile_axes_keepdims": lambda x: np.sum(np.quantile(x ** 3, 0.4, axis=(0, -1), keepdims=True) ** 2),
    "percentile": lambda x: np.sum(np.percentile(x ** 3, [30.0, 80.0], axis=-1) ** 2),
    "median_axes": lambda x: np.sum(np.median(x * W, axis=(-2, -1)) ** 2),
    "rollaxis": lambda x: np.sum(np.rollaxis(x, 1) ** 3 * W.T),
    "rollaxis_start": lambda x: np.sum(np.rollaxis(x[None] * 2.0, 2, 1) ** 3),
    "average": lambda x: np.sum(np.average(x ** 2, axis=1) ** 2),
    "average_weights": lambda x: np.sum(np.average(x ** 2, axis=1, weights=V4) ** 2),
    "average_weights_full": lambda x: np.sum(np.average(x ** 2, weights=W ** 2 + 0.5) ** 2),
    "average_keepdims": lambda x: np.sum(np.average(np.sin(x), axis=0, keepdims=True) ** 2),
    "atleast_2d": lambda x: np.sum(np.atleast_2d(x[0]) ** 3),
    "atleast_2d_scalar": lambda x: np.sum(np.atleast_2d(x[0, 0] * x[1, 1]) ** 2),
    "cov_in_a_loop": _cov_loop,
    "repeat_list": lambda x: np.sum(np.repeat(x, [1, 0, 3], axis=0) ** 3),
    "outer": lambda x: np.sum(np.outer(x[0], np.sin(x[1])) ** 2),
    "linalg_outer": lambda x: np.sum(np.linalg.outer(x[0] ** 2, x[1]) * W[0]),
    "linspace": lambda x: np.sum(np.linspace(x[0], x[1] ** 2, 5) ** 3),
    "linspace_axis_endpoint": lambda x: np.sum(np.linspace(x[0], np.sin(x[2]), 4, endpoint=False, axis=1) ** 3),
    "full": lambda x: np.sum(np.full((2, 4), x[0] * x[1]) ** 3),
    "full_like": lambda x: np.sum(np.full_like(x, x[0] ** 2) ** 3),
}
# a second derivative s2s refuses: the helper the S2SError names
REFUSED_AT_ORDER_2 = {"average_weights_of_x": "batched_average"}
# vmap(hessian(f)) refused by the batching transform itself (rt.reversed_range of the loop's
# backward sweep batched), not by a helper's derivative
VMAP_HESSIAN_GAPS = {"cov_in_a_loop"}
CASES["average_weights_of_x"] = lambda x: np.sum(np.average(x, axis=1, weights=x ** 2 + 1.0) ** 2)


def _summed(f):
    def total(xs):
        return np.sum(s2s.vmap(f)(xs))
    return total


def _examples():
    return np.random.default_rng(27).standard_normal((2, 3, 4))


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_of_vmap_is_each_examples_gradient(name):
    f, xs = CASES[name], _examples()
    loop = np.stack([s2s.grad(f)(x) for x in xs])
    np.testing.assert_allclose(loop, np.stack([fd_grad(f, x) for x in xs]), atol=1e-5)
    np.testing.assert_allclose(s2s.grad(_summed(f))(xs), loop, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), loop, rtol=1e-9, atol=1e-10)
    t = np.random.default_rng(1).standard_normal(xs.shape)
    _, dy = s2s.jvp(_summed(f), (xs,), (t,))
    np.testing.assert_allclose(dy, np.sum(loop * t), rtol=1e-8, atol=1e-10)


def _second_order(which: int) -> list:
    """The cases of one of the two second-order tests below: every other case by default (which =
    0: those at even places of the sorted names, for the Hessian-vector products of the summed
    vmap; 1: at odd places, for grad and jvp of vmap(grad)), the rest with --full (CI runs both),
    so each helper and keyword form is differentiated twice on every run; the case refused at
    order 2 runs its refusal by default."""
    return [pytest.param(name, id=name, marks=[] if i % 2 == which or (which == 0 and name in REFUSED_AT_ORDER_2)
                         else pytest.mark.full) for i, name in enumerate(sorted(CASES))]


@pytest.mark.parametrize("name", _second_order(0))
def test_second_derivatives_of_vmap(name):
    """grad of grad (reverse over reverse) and jvp of grad (forward over reverse) of the summed vmap,
    as Hessian-vector products: central differences of the loop of s2s.grad, and the loop of
    s2s.hessian."""
    f, xs = CASES[name], _examples()
    v = np.random.default_rng(2).standard_normal(xs.shape)
    g = s2s.grad(_summed(f))

    def grads(z):
        return np.stack([s2s.grad(f)(x) for x in z])
    want = (grads(xs + 1e-5 * v) - grads(xs - 1e-5 * v)) / 2e-5
    hess = np.stack([np.tensordot(s2s.hessian(f)(x), u, 2) for x, u in zip(xs, v)])
    np.testing.assert_allclose(hess, want, atol=1e-4)
    if name in REFUSED_AT_ORDER_2:
        with pytest.raises(s2s.S2SError, match=REFUSED_AT_ORDER_2[name]):
            s2s.grad(lambda z: np.sum(g(z) * v))(xs)
        with pytest.raises(s2s.S2SError, match=REFUSED_AT_ORDER_2[name]):
            s2s.jvp(g, (xs,), (v,))
        return
    np.testing.assert_allclose(s2s.grad(lambda z: np.sum(g(z) * v))(xs), hess, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(s2s.jvp(g, (xs,), (v,))[1], hess, rtol=1e-7, atol=1e-9)
    if name not in VMAP_HESSIAN_GAPS:
        np.testing.assert_allclose(s2s.vmap(s2s.hessian(f))(xs), np.stack([s2s.hessian(f)(x) for x in xs]),
                                   rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", _second_order(1))
def test_derivatives_of_vmap_of_grad(name):
    """grad and jvp of vmap(grad(f)): the gradient's helpers batched (or run once per example,
    rt.map_examples) and differentiated, against the loop of s2s.hessian."""
    f, xs = CASES[name], _examples()
    v = np.random.default_rng(3).standard_normal(xs.shape)
    g = s2s.vmap(s2s.grad(f))
    want = np.stack([np.tensordot(s2s.hessian(f)(x), u, 2) for x, u in zip(xs, v)])
    np.testing.assert_allclose(s2s.grad(lambda z: np.sum(g(z) * v))(xs), want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(s2s.jvp(g, (xs,), (v,))[1], want, rtol=1e-7, atol=1e-9)


def test_batched_average_with_returned_and_keepdims():
    """np.average with per-example weights and returned=/keepdims= runs once per example
    (keepdims is keyword-only in NumPy), and grad of it is each example's gradient."""
    def f(x, w):
        avg, scale = np.average(x ** 2, axis=1, weights=w, returned=True)
        return np.sum(avg ** 2 * scale) + np.sum(np.average(x, axis=0, weights=w[:3], keepdims=True) ** 2)
    xs = np.random.default_rng(8).standard_normal((2, 3, 4))
    ws = np.random.default_rng(9).random((2, 4)) + 0.5
    np.testing.assert_allclose(s2s.vmap(f)(xs, ws), [f(x, w) for x, w in zip(xs, ws)], rtol=1e-12)
    gx, gw = s2s.grad(lambda a, b: np.sum(s2s.vmap(f)(a, b)), argnums=(0, 1))(xs, ws)
    np.testing.assert_allclose(gx, np.stack([fd_grad(lambda x: f(x, w), x) for x, w in zip(xs, ws)]), atol=1e-6)
    np.testing.assert_allclose(gw, np.stack([fd_grad(lambda w: f(x, w), w) for x, w in zip(xs, ws)]), atol=1e-6)
