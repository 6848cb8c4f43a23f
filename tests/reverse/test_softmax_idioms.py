"""softmax written with `exp` is differentiated as softmax (transforms/softmax_idioms.py, issue 46
section 2): `e = np.exp(x - np.max(x)); e / e.sum(axis=0)` and the forms along an axis with
`keepdims=True` become `rt.softmax_by_exp(x, max_axis, sum_axis)` in reverse mode, whose tape
keeps the result alone and whose backward is `y * (g - sum(g * y))`. Values: the forward bitwise
the plain function's, gradients against central differences and against the chain rule's (the
same function with the max behind `stop_gradient`, which the idiom does not match), under grad,
jit(grad), vjp, hessian, vmap; forms whose derivative is not softmax's keep the chain rule."""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_grad_of, fd_hessian

import s2s
from s2s import runtime as rt


def soft_col(x):
    e_x = np.exp(x - np.max(x))
    return e_x / e_x.sum(axis=0)


def soft_rows(s):
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def soft_all(x):
    e = np.exp(x - np.amax(x))
    return e / np.sum(e)


def soft_rows_global_max(s):
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True)


def chain_col(x):  # (the chain rule's: a max behind stop_gradient is no match)
    e_x = np.exp(x - s2s.stop_gradient(np.max(x)))
    return e_x / e_x.sum(axis=0)


def chain_rows(s):
    e = np.exp(s - s2s.stop_gradient(np.max(s, axis=1, keepdims=True)))
    return e / np.sum(e, axis=1, keepdims=True)


def chain_all(x):
    e = np.exp(x - s2s.stop_gradient(np.max(x)))
    return e / np.sum(e)


def chain_rows_global_max(s):
    e = np.exp(s - s2s.stop_gradient(s.max()))
    return e / e.sum(axis=-1, keepdims=True)


def char_rnn(w, xs, ys):  # (the char RNN's step: a softmax column a step, cross-entropy of one entry)
    h = np.zeros((4, 1))
    loss = 0
    for t in range(len(ys)):
        h = np.tanh(w[:, :4] @ h + w[:, 4:] @ xs[t])
        p = soft_col(h)
        loss -= np.log(p[ys[t], 0])
    return loss


def char_rnn_chain(w, xs, ys):
    h = np.zeros((4, 1))
    loss = 0
    for t in range(len(ys)):
        h = np.tanh(w[:, :4] @ h + w[:, 4:] @ xs[t])
        p = chain_col(h)
        loss -= np.log(p[ys[t], 0])
    return loss


CASES = [(soft_col, chain_col, (6, 1), "None, 0"), (soft_rows, chain_rows, (3, 5), "1, 1"),
         (soft_all, chain_all, (4, 3), "None, None"), (soft_rows_global_max, chain_rows_global_max, (3, 4), "None, -1")]


def _x(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape) * 2


def _weights(shape):
    return np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape)


@pytest.mark.parametrize("fn,chain,shape,axes", CASES)
@pytest.mark.parametrize("jitted", [False, True])
def test_gradient_against_differences_and_the_chain_rule(fn, chain, shape, axes, jitted):
    x, w = _x(shape), _weights(shape)

    def loss(v):
        return np.sum(np.log(fn(v)) * w)

    def loss_chain(v):
        return np.sum(np.log(chain(v)) * w)
    g = s2s.grad(loss)
    got = (s2s.jit(g) if jitted else g)(x)
    np.testing.assert_allclose(got, fd_grad(loss, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, s2s.grad(loss_chain)(x), rtol=1e-12, atol=1e-14)
    src = s2s.source(g)
    assert "rt.softmax_by_exp(" in src and f", {axes})" in src and "softmax_by_exp" not in s2s.source(s2s.grad(loss_chain))


@pytest.mark.parametrize("fn,chain,shape,axes", CASES)
def test_value_is_bitwise_the_functions(fn, chain, shape, axes):
    x = _x(shape, 1)
    value, _ = s2s.value_and_grad(lambda v: np.sum(fn(v) * _weights(shape)))(x)
    assert value == np.sum(fn(x) * _weights(shape))
    for v in (x, x.astype(np.float32)):
        got = rt.softmax_by_exp(v, *eval(f"({axes})"))
        assert np.array_equal(got, fn(v)) and got.dtype == fn(v).dtype and got.shape == fn(v).shape


def test_tape_keeps_the_result_alone():
    code = s2s.source(s2s.grad(lambda v: np.sum(soft_col(v) * 2.0)))
    fwd = code[code.index("def fwd_"):code.index("def bwd_")]
    assert "rt.softmax_by_exp(" in fwd and "xp.exp" not in code and "max_vjp" not in code
    x = np.linspace(-2, 2, 7).reshape(7, 1)
    y, back = s2s.vjp(soft_col, x)
    assert np.array_equal(y, soft_col(x))
    g = np.cos(x)
    np.testing.assert_allclose(back(g)[0], y * (g - np.sum(g * y, axis=0, keepdims=True)), rtol=1e-15, atol=0)


@pytest.mark.parametrize("jitted", [False, True])
def test_char_rnn_step(jitted):
    r = np.random.default_rng(31)
    w = r.normal(size=(4, 7)) * 0.5
    xs = [np.eye(3)[:, [k]] for k in (0, 2, 1, 1, 0)]
    ys = [1, 3, 0, 2, 2]
    g = s2s.grad(char_rnn)
    got = (s2s.jit(g) if jitted else g)(w, xs, ys)
    if jitted:
        assert np.array_equal(got, g(w, xs, ys))  # (jit's values are grad's, bit for bit)
    np.testing.assert_allclose(got, fd_grad(lambda v: char_rnn(v, xs, ys), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got, s2s.grad(char_rnn_chain)(w, xs, ys), rtol=1e-12, atol=1e-14)


def test_hessian_jacrev_and_vmap():
    x = np.linspace(-1.5, 1.2, 5)

    def f(v):
        return np.sum(soft_all(v) * v)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd_hessian(f, x), rtol=1e-6, atol=1e-7)
    y = soft_all(x)
    np.testing.assert_allclose(s2s.jacrev(soft_all)(x), np.diag(y) - np.outer(y, y), rtol=1e-12, atol=1e-15)
    rows = np.stack([x, -x, 2 * x])
    for fn in (f, lambda v: np.sum(soft_col(v) ** 2), lambda v: np.sum(soft_all(v) ** 3)):
        want = np.stack([s2s.grad(fn)(r) for r in rows])
        np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(rows), want, rtol=1e-14, atol=1e-15)
    mats = np.stack([_x((3, 4), k) for k in range(3)])

    def h(s):
        return np.sum(soft_rows(s) ** 2)
    want = np.stack([s2s.grad(h)(m) for m in mats])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(h))(mats), want, rtol=1e-14, atol=1e-15)


def e_read_twice(x):
    e = np.exp(x - np.max(x))
    return np.sum(e / e.sum(axis=0) + e)


def rows_without_keepdims(s):  # (the sum along 1 broadcasts along the last axis: not a softmax)
    e = np.exp(s - np.max(s))
    return np.sum(e / np.sum(e, axis=1) * np.arange(3.0))


def max_along_other_axis(s):  # (the max along 0 is no constant along the sum's axis 1)
    e = np.exp(s - np.max(s, axis=0, keepdims=True))
    return np.sum(e / np.sum(e, axis=1, keepdims=True) * np.arange(3.0))


def other_shift(x, y):
    e = np.exp(x - np.max(y))
    return np.sum(e / np.sum(e) * np.arange(3.0))


@pytest.mark.parametrize("f,args", [(e_read_twice, (np.linspace(-1, 1, 4),)),
                                    (rows_without_keepdims, (_x((3, 3)),)),
                                    (max_along_other_axis, (_x((3, 3)),)),
                                    (other_shift, (np.linspace(-1, 1, 3), np.linspace(0.5, -0.5, 3)))])
def test_other_forms_keep_the_chain_rule(f, args):
    g = s2s.grad(f)
    assert "softmax_by_exp" not in s2s.source(g)
    np.testing.assert_allclose(g(*args), fd_grad_of(f, args, 0), rtol=1e-6, atol=1e-8)


def layer_loss(w, h, b):
    p = soft_col(w @ h + b)
    return -np.log(p[3, 0])


def layer_loss_chain(w, h, b):
    p = chain_col(w @ h + b)
    return -np.log(p[3, 0])


def test_jit_knows_the_result_has_its_operands_shape():
    """Shape folding reads the helper's result as its operand's shape, also of an expression
    (passes/shapefold.py): the sum's cotangents need no `rt.operand_cotangent`."""
    r = np.random.default_rng(5)
    args = (r.normal(size=(6, 3)), r.normal(size=(3, 1)), r.normal(size=(6, 1)))
    g = s2s.jit(s2s.grad(layer_loss, (0, 1, 2)))
    got = g(*args)
    code = s2s.source(g, *args)
    assert "rt.softmax_by_exp(" in code and "operand_cotangent" not in code and "xp.zeros((6, 1))" in code
    plain = s2s.grad(layer_loss, (0, 1, 2))(*args)
    chain = s2s.grad(layer_loss_chain, (0, 1, 2))(*args)
    for k in range(3):
        assert np.array_equal(got[k], plain[k])
        np.testing.assert_allclose(got[k], chain[k], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got[k], fd_grad_of(layer_loss, args, k), rtol=1e-6, atol=1e-8)


def dict_loss(w, b):
    ys = {}
    loss = 0.0
    for t in range(3):
        ys[t] = soft_col(w @ b + t)
        loss -= np.log(ys[t][t, 0])
    return loss


def test_dict_items_are_float64():
    """The float64 facts read the helper's result as float64 where its operand is
    (passes/float64.py): the items of a dict of its results are float64 arrays, so the forward
    sweep keeps no shape stub of the item it reads (four stubs on the tape, five without)."""
    r = np.random.default_rng(5)
    args = (r.normal(size=(4, 4)), r.normal(size=(4, 1)))
    g = s2s.jit(s2s.grad(dict_loss, (0, 1)))
    got = g(*args)
    assert s2s.source(g, *args).count("rt.shape_stub(") == 4
    plain = s2s.grad(dict_loss, (0, 1))(*args)
    for k in range(2):
        assert np.array_equal(got[k], plain[k])
        np.testing.assert_allclose(got[k], fd_grad_of(dict_loss, args, k), rtol=1e-6, atol=1e-8)


def test_checkpoint_policy_replays_the_chain_rule():
    def cell(x):
        return np.sum(np.log(soft_rows(x * 1.5)) * _weights((3, 4)))
    saved = s2s.checkpoint(cell, policy=s2s.checkpoint_policies.dots_saveable)
    x = _x((3, 4), 2)
    np.testing.assert_allclose(s2s.grad(saved)(x), fd_grad(cell, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.grad(saved)(x), s2s.grad(cell)(x), rtol=1e-12, atol=1e-14)
