"""`try` with handlers that recover or translate, `else` and `finally` (issue 45, section 2;
s2s/compiler/frontend/handlers.py). Each form on both paths (the body raises, or it does not):
jit's value equals the plain function's; grad, value_and_grad, vjp, jvp, jacfwd, jacrev and
jit(grad) equal central differences of the plain function, and hessian central differences of the
gradient; vmap and vmap(grad) equal a loop over examples that take the same path. Where the plain
function raises, every transform raises the same exception (type, message and cause). Under vmap,
a statement that reads the examples' values and raises is refused at the user's line.
"""
import numpy as np
import pytest
from helpers_compare import fd_grad, fd_hessian

import s2s
from s2s import S2SError

POS = np.array([2.0, 3.0, 4.0])  # diag(x) + 0.5 is positive definite
NEG = np.array([-1.3, 3.0, 4.0])  # it is not: cholesky raises LinAlgError
T = np.array([0.3, -0.2, 0.5])  # a tangent


def cholesky_fallback(x):
    S = np.diag(x) + 0.5
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(S + 10.0 * np.eye(3))
    return np.sum(L * x)


def partial_effects(x):
    y = x * 1.0
    try:
        y = np.sin(y)  # runs before the statement that raises: its effect stays
        z = np.linalg.cholesky(np.diag(x) + 0.5)
        y = y * 3.0 + np.sum(z)
    except np.linalg.LinAlgError:
        y = y + 1.0
    return np.sum(y * x)


def else_and_finally(x):
    n = 1.0
    try:
        y = np.linalg.cholesky(np.diag(x) + 0.5)
    except np.linalg.LinAlgError:
        y = np.diag(x ** 2)
    else:
        y = y * 2.0
    finally:
        n = n + 1.0  # a counter the result reads
    return np.sum(y * x) * n


def in_loop(x):
    s = 0.0
    for i in range(3):
        try:
            L = np.linalg.cholesky(np.diag(x) + (i - 1.0) * np.eye(3) + 0.5)
            s = s + np.sum(L) * x[i]
        except np.linalg.LinAlgError:
            s = s + x[i] ** 2
    return s


def returns(x):
    try:
        return np.sum(np.linalg.cholesky(np.diag(x) + 0.5)) * x[0]
    except np.linalg.LinAlgError:
        return np.sum(x ** 3)


def nested(x):
    try:
        try:
            y = np.linalg.cholesky(np.diag(x) + 0.5)
        except KeyError:  # does not match: the outer handler catches it
            y = x * 0.0
        z = np.sum(y) * x[1]
    except np.linalg.LinAlgError:
        z = np.sum(x ** 2)
    return z * x[0]


def reraise_unless(x):
    try:
        y = np.linalg.cholesky(np.diag(x) + 0.5)
    except np.linalg.LinAlgError:
        if x[1] < 0:
            raise
        y = np.eye(3) * x
    return np.sum(y * x)


def cholesky_or_raise(x):
    try:
        y = np.linalg.cholesky(np.diag(x) + 0.5)
    except (np.linalg.LinAlgError, TypeError) as e:
        raise RuntimeError(f"not positive definite: {e}") from e
    return np.sum(y * x)


def finally_then_raise(x):
    n = 0.0
    try:
        y = np.linalg.cholesky(np.diag(x) + 0.5)
    finally:
        n = n + 2.0
    return np.sum(y) * n * x[0]


def lookup(x, d):
    try:
        w = d["w"] * x
    except KeyError:
        w = np.cos(x)
    else:
        w = w + 1.0
    return np.sum(np.sin(x) * w)


def _weight(d):
    try:
        w = d["w"]
    except KeyError:
        w = 2.0
    return w


def calls_lookup(x, d):
    return np.sum(np.sin(x)) * _weight(d) + np.sum(x ** 2)


def index_fallback(x, i):
    try:
        v = x[i]
    except IndexError:
        v = x[0] * 10.0
    return v * x[1]


def store_or_square(x, ws):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        try:
            out[i] = np.sin(x[i]) * ws[i]  # IndexError past the end of ws
        except IndexError:
            out[i] = x[i] ** 2
    return np.sum(out * x)


def while_lookup(x, d):
    k = 0
    s = 0.0
    while k < 4:
        try:
            s = s + d[k] * np.sum(x ** 2)
        except KeyError:
            s = s + np.sum(np.sin(x)) * k
        k = k + 1
    return s


def loop_in_try(x):
    out = x * 1.0
    try:
        for i in range(3):
            out[i] = np.sqrt(x[i] ** 2 + 1.0)  # stays where a later iteration raises
            L = np.linalg.cholesky(np.diag(x) - i * np.eye(3) + 0.5)
            out = out + np.sum(L)
    except np.linalg.LinAlgError:
        out = out * 2.0
    return np.sum(out * x)


def self_update(x):
    S = np.diag(x) + 0.5
    try:
        S = np.linalg.cholesky(S)  # S's old value is saved before the statement that may raise
    except np.linalg.LinAlgError:
        S = S * 2.0
    return np.sum(S * x)


def self_update_loop(x):
    S = np.diag(x) + 0.5
    s = 0.0
    for i in range(3):
        try:
            S = np.linalg.cholesky(S - 0.9 * np.eye(3)) * x[i]
        except np.linalg.LinAlgError:
            S = S + x[i] * np.eye(3)
        s = s + np.sum(S)
    return s


def log_or_half(x):
    try:
        with np.errstate(divide="raise"):
            y = np.log(x)
    except FloatingPointError:
        y = x * 0.5
    return np.sum(y * x)


def _check_all(f, x, *rest):
    """Every transform of f (wrt x) against the plain function and central differences."""
    g = lambda v: f(v, *rest)  # noqa: E731
    want, fd = f(x, *rest), fd_grad(g, x)
    tol = dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jit(f)(x, *rest), want, rtol=1e-13)
    np.testing.assert_allclose(s2s.grad(f)(x, *rest), fd, **tol)
    value, grad = s2s.value_and_grad(f)(x, *rest)
    np.testing.assert_allclose(value, want, rtol=1e-13)
    np.testing.assert_allclose(grad, fd, **tol)
    out, back = s2s.vjp(g, x)
    np.testing.assert_allclose(out, want, rtol=1e-13)
    np.testing.assert_allclose(back(1.0)[0], fd, **tol)
    t = np.linspace(0.3, -0.5, x.size)
    out, tangent = s2s.jvp(g, (x,), (t,))
    np.testing.assert_allclose(out, want, rtol=1e-13)
    np.testing.assert_allclose(tangent, fd @ t, **tol)
    np.testing.assert_allclose(s2s.jacfwd(f)(x, *rest), fd, **tol)
    np.testing.assert_allclose(s2s.jacrev(f)(x, *rest), fd, **tol)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(x, *rest), fd, **tol)
    np.testing.assert_allclose(s2s.hessian(f)(x, *rest), fd_hessian(g, x), rtol=1e-5, atol=1e-6)


def _check_vmap(f, xs, *rest):
    axes = (0,) + (None,) * len(rest)
    np.testing.assert_allclose(s2s.vmap(f, in_axes=axes)(xs, *rest), [f(x, *rest) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f), in_axes=axes)(xs, *rest),
                               [fd_grad(lambda v: f(v, *rest), x) for x in xs], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [cholesky_fallback, partial_effects, else_and_finally, in_loop, returns, nested,
                               reraise_unless, self_update, self_update_loop])
@pytest.mark.parametrize("x", [POS, np.array([-1.3, 3.0, 4.0]) + [0.0, 0.0, 0.1], np.array([-1.3, -3.0, 4.0])],
                         ids=["body", "handler", "handler2"])
def test_recovering_handlers(f, x):
    try:
        f(x)
    except np.linalg.LinAlgError:  # reraise_unless re-raises at the third point
        for t in (s2s.jit, s2s.grad, s2s.jacfwd, s2s.hessian):
            with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
                t(f)(x)
        return
    _check_all(f, x)


@pytest.mark.parametrize("f", [cholesky_fallback, partial_effects, else_and_finally, returns, nested])
def test_vmap_where_every_example_takes_the_body(f):
    _check_vmap(f, np.stack([POS, POS * 1.1, POS + 0.3]))


@pytest.mark.parametrize("f", [cholesky_fallback, partial_effects, returns])
def test_vmap_refuses_an_exception_of_the_examples(f):
    xs = np.stack([POS, NEG])
    with pytest.raises(S2SError, match=r"test_try_handlers\.py:\d+: under vmap, this statement inside `try` raised "
                                       "LinAlgError"):
        s2s.vmap(f)(xs)
    with pytest.raises(S2SError, match="under vmap"):
        s2s.vmap(s2s.grad(f))(xs)


@pytest.mark.parametrize("x", [POS, NEG], ids=["body", "raises"])
def test_translation_raises_from_the_caught_exception(x):
    if x is POS:
        _check_all(cholesky_or_raise, x)
        return
    for t in (s2s.jit, s2s.grad, s2s.jacfwd, s2s.jacrev, s2s.hessian):
        with pytest.raises(RuntimeError, match="^not positive definite: Matrix is not positive definite") as info:
            t(cholesky_or_raise)(x)
        assert isinstance(info.value.__cause__, np.linalg.LinAlgError)
    with pytest.raises(RuntimeError, match="not positive definite"):
        s2s.jvp(cholesky_or_raise, (x,), (T,))


@pytest.mark.parametrize("x", [POS, NEG], ids=["body", "raises"])
def test_finally_runs_and_the_exception_goes_on(x):
    if x is POS:
        _check_all(finally_then_raise, x)
        return
    for t in (s2s.jit, s2s.grad, s2s.jacrev, s2s.vmap):
        with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
            t(finally_then_raise)(x if t is not s2s.vmap else np.stack([x, x]))


@pytest.mark.parametrize("d", [{"w": 1.5}, {}], ids=["found", "missing"])
def test_key_error_default(d):
    _check_all(lookup, POS, d)
    _check_all(calls_lookup, POS, d)
    # the lookup reads no example's value: the handler runs for all of them under vmap
    _check_vmap(lookup, np.stack([POS, NEG, POS * 0.5]), d)
    _check_vmap(calls_lookup, np.stack([POS, NEG, POS * 0.5]), d)


@pytest.mark.parametrize("i", [2, 5], ids=["in range", "out of range"])
def test_index_error_fallback(i):
    _check_all(index_fallback, POS, i)


def test_generated_code_catches_where_the_statement_is():
    src = s2s.source(s2s.grad(cholesky_fallback), POS)
    assert "except s2s_catch" in src and "xp.linalg.cholesky(S)" in src


def test_unknown_exception_class_is_refused():
    def f(x, kind):
        try:
            y = np.sqrt(x)
        except kind:
            y = x
        return np.sum(y)

    with pytest.raises(S2SError, match="catches only exception classes it knows"):
        s2s.grad(f)(POS, ValueError)


def test_jump_out_of_try_with_finally_is_refused():
    def f(x):
        try:
            return np.sum(np.sqrt(x))
        finally:
            x = x + 1.0

    with pytest.raises(S2SError, match="inside a `try` that has a `finally` block"):
        s2s.grad(f)(POS)


@pytest.mark.parametrize("ws", [[2.0, 3.0], [2.0, 3.0, 1.0, 4.0]], ids=["short", "long"])
def test_try_inside_loops(ws):
    x = np.array([0.5, 1.5, 2.5, 0.7])
    _check_all(store_or_square, x, ws)
    _check_all(while_lookup, x, {0: 1.0, 2: 3.0} if len(ws) == 2 else {0: 1.0, 1: 2.0, 2: 3.0, 3: 0.5})
    _check_vmap(store_or_square, np.stack([x, x * 1.1]), ws)


@pytest.mark.parametrize("x", [np.array([3.0, 3.5, 4.0]), np.array([1.2, 3.0, 4.0])], ids=["body", "third trip raises"])
def test_loop_inside_try_keeps_the_trips_that_ran(x):
    _check_all(loop_in_try, x)


@pytest.mark.parametrize("x", [POS, np.array([0.0, 3.0, 4.0])], ids=["body", "raises"])
def test_errstate_inside_try_restores_the_settings_where_its_body_raised(x):
    before = np.geterr()
    if x is POS:
        _check_all(log_or_half, x)
    else:  # the handler's sum(x * x / 2): its gradient is x (central differences would step into log(0))
        np.testing.assert_allclose(s2s.jit(log_or_half)(x), log_or_half(x))
        for grad in (s2s.grad(log_or_half), s2s.jacrev(log_or_half), s2s.jit(s2s.grad(log_or_half))):
            np.testing.assert_allclose(grad(x), x)
    assert np.geterr() == before
