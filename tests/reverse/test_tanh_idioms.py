"""tanh written with `exp` is differentiated as tanh (transforms/tanh_idioms.py, issue 46 section 2):
`(np.exp(2*x) - 1) / (np.exp(2*x) + 1)` and `(np.exp(x) - np.exp(-x)) / (np.exp(x) + np.exp(-x))`
become `rt.tanh_by_exp(x)` / `rt.tanh_by_exps(x)` in reverse mode, whose tape keeps the result
alone and whose backward is `g * (1 - y * y)`. Values: the forward bitwise the plain function's,
gradients against central differences and against `np.tanh`'s, under grad, jit(grad), vjp,
hessian, vmap and a checkpoint policy; what must not match stays the chain rule."""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_hessian

import s2s
from s2s import runtime as rt


def tanh_a(x):
    return (np.exp(2*x) - 1) / (np.exp(2*x) + 1)


def tanh_b(x):
    return (np.exp(x)-np.exp(-x)) / (np.exp(x)+np.exp(-x))


def tanh_shared(x):
    e = np.exp(2.0 * x)
    return (e - 1) / (1 + e)


def loss_a(w, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = tanh_a(xs[t] @ w + h)
    return np.sum(h ** 2)


def loss_b(w, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = tanh_b(xs[t] @ w + h)
    return np.sum(h ** 2)


def loss_shared(w, xs):
    return np.sum(tanh_shared(xs @ w) * np.arange(3.0))


def loss_np(w, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h)
    return np.sum(h ** 2)


def _args():
    r = np.random.default_rng(46)
    return r.normal(size=(4, 3)) * 0.6, r.normal(size=(6, 4))


@pytest.mark.parametrize("loss", [loss_a, loss_b, loss_shared])
@pytest.mark.parametrize("jitted", [False, True])
def test_gradient_against_differences(loss, jitted):
    w, xs = _args()
    g = s2s.grad(loss)
    got = (s2s.jit(g) if jitted else g)(w, xs)
    np.testing.assert_allclose(got, fd_grad(lambda v: loss(v, xs), w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("loss", [loss_a, loss_b])
def test_gradient_is_tanhs(loss):
    w, xs = _args()  # (equal in exact arithmetic: the rounding of the two forms apart)
    np.testing.assert_allclose(s2s.grad(loss)(w, xs), s2s.grad(loss_np)(w, xs), rtol=1e-12, atol=1e-14)


def summed_a(x):
    return np.sum(tanh_a(x))


def summed_b(x):
    return np.sum(tanh_b(x))


def summed_shared(x):
    return np.sum(tanh_shared(x))


@pytest.mark.parametrize("f,fn,helper", [(summed_a, tanh_a, "rt.tanh_by_exp("), (summed_b, tanh_b, "rt.tanh_by_exps("),
                                         (summed_shared, tanh_shared, "rt.tanh_by_exp(")])
def test_tape_keeps_the_result_alone(f, fn, helper):
    code = s2s.source(s2s.grad(f))
    fwd = code[code.index("def fwd_"):code.index("def bwd_")]
    assert helper in fwd and "xp.exp" not in code
    ret = [ln.strip() for ln in fwd.splitlines() if ln.strip().startswith("return ")]
    assert ret in (["return t6, (t6,)"], ["return t8, (t8,)"], ["return t3, (t3,)"])  # (the result alone)
    x = np.linspace(-2, 2, 7)
    y, back = s2s.vjp(fn, x)
    assert np.array_equal(y, fn(x))  # the forward as written, bitwise
    g = np.cos(x)
    np.testing.assert_allclose(back(g)[0], g * (1 - fn(x) ** 2), rtol=1e-15, atol=0)


@pytest.mark.parametrize("fn", [tanh_a, tanh_b])
def test_value_is_bitwise_the_functions(fn):
    r = np.random.default_rng(3)
    for x in (r.normal(size=(5, 4)) * 3, r.normal(size=6).astype(np.float32), 0.37, np.float64(-1.5)):
        value, _ = s2s.value_and_grad(lambda v: np.sum(fn(v)))(x)
        assert value == np.sum(fn(x))
        got = (rt.tanh_by_exp if fn is tanh_a else rt.tanh_by_exps)(x)
        assert np.array_equal(got, fn(x)) and np.result_type(got) == np.result_type(fn(x))


def test_hessian_and_vmap():
    x = np.linspace(-1.5, 1.2, 5)

    def f(v):
        return np.sum(tanh_a(v) * v)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd_hessian(f, x), rtol=1e-6, atol=1e-7)
    rows = np.stack([x, -x, 2 * x])
    want = np.stack([s2s.grad(f)(r) for r in rows])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(rows), want, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(s2s.jacrev(tanh_b)(x), np.diag(1 - np.tanh(x) ** 2), rtol=1e-12, atol=1e-15)


def test_saturated_and_nan():
    x = np.array([-30.0, 0.0, 30.0, 200.0, 800.0, -800.0, np.nan])
    with np.errstate(over="ignore", invalid="ignore"):
        y = tanh_b(x)  # (e^800: inf / inf, NaN as the function itself gives)
        g = s2s.grad(lambda v: np.sum(tanh_b(v)))(x)
    assert np.array_equal(y[:4], [-1.0, 0.0, 1.0, 1.0]) and np.isnan(y[4:]).all()
    assert np.array_equal(g[:4], [0.0, 1.0, 0.0, 0.0]) and np.isnan(g[4:]).all()


def both_read(x):
    e = np.exp(2 * x)
    return np.sum((e - 1) / (e + 1) + e)


def three(x):
    return np.sum((np.exp(3 * x) - 1) / (np.exp(3 * x) + 1))


def mixed(x, y):
    return np.sum((np.exp(2 * x) - 1) / (np.exp(2 * y) + 1))


@pytest.mark.parametrize("f,args", [(both_read, (np.linspace(-1, 1, 4),)), (three, (np.linspace(-1, 1, 4),)),
                                    (mixed, (np.linspace(-1, 1, 4), np.linspace(0.5, -0.5, 4)))])
def test_other_forms_keep_the_chain_rule(f, args):
    code = s2s.source(s2s.grad(f))
    assert "tanh_by_exp" not in code
    got = s2s.grad(f)(*args)
    np.testing.assert_allclose(got, fd_grad(lambda v: f(v, *args[1:]), args[0]), rtol=1e-6, atol=1e-8)


def test_checkpoint_policy_replays_the_chain_rule():
    def cell(x):
        return np.sum(tanh_a(x * 1.5))
    saved = s2s.checkpoint(cell, policy=s2s.checkpoint_policies.dots_saveable)
    x = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(s2s.grad(saved)(x), fd_grad(cell, x), rtol=1e-6, atol=1e-8)
