"""What the per-call cost cuts keep: `-(c * y)` written `(-c) * y` only for float literals (same
values), the key watch's subscript checks still see a name bound or rebound later."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + np.dot(s_t, theta)
    return (s2s.stop_gradient(target) - np.dot(s_tm1, theta)) ** 2


def _td_data(b=4):
    r = np.random.default_rng(0)
    return r.normal(size=3), r.normal(size=(b, 3)), r.normal(size=b), r.normal(size=(b, 3))


def test_negated_float_product_is_folded_and_exact():
    a = _td_data()
    hand = -2.0 * (a[2] + a[3] @ a[0] - a[1] @ a[0])[:, None] * a[1]  # hand-derived gradient
    for f in (s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)),
              s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))):
        np.testing.assert_allclose(f(*a), hand, rtol=1e-12)
        ran = f._by_ndims if isinstance(f, s2s.api.calls.Vmapped) else {k: v[0] for k, v in f._by_kind.items()}
        src = next(iter(ran.values())).__s2s__.source  # the version the call ran
        factor = "-2.0 *" if isinstance(f, s2s.api.calls.Vmapped) else "c64_neg_2_0 *"  # (jit: a 0-d array)
        assert factor in src and "-(2.0" not in src and "-b_t2" not in src


def test_negated_product_folding_keeps_gradients():
    def f(x, y):
        return np.sum((np.sin(x) - 3.0 * y) ** 2) - np.sum(y * 0.5 - x)

    x, y = np.linspace(0.1, 0.9, 4), np.linspace(-1.0, 1.0, 4)
    check_grads(f, (x, y), order=2, modes=("rev", "fwd"))
    check_grads(s2s.jit(s2s.grad(f, argnums=(0, 1))), (x, y), order=1, modes=("rev",))


def test_negated_integer_product_keeps_wrapping():
    def f(x):
        y = 2 * x
        return -y

    x = np.array([1, 200], dtype=np.uint8)
    np.testing.assert_array_equal(s2s.jit(f)(x), -(2 * x))


K = 2.0


def uses_abs(x):
    return abs(x) * 2.0


def uses_k(x):
    return K * x * x


def test_watch_sees_a_builtin_shadowed_later(monkeypatch):
    g = s2s.grad(uses_abs)
    assert g(-3.0) == -2.0
    monkeypatch.setitem(globals(), "abs", lambda x: x * x)  # shadows the builtin: the key changes
    assert g(-3.0) == -12.0
    monkeypatch.undo()
    assert g(-3.0) == -2.0


def test_watch_sees_a_rebound_global_each_call(monkeypatch):
    g = s2s.jit(s2s.grad(uses_k))
    assert g(1.5) == 6.0
    monkeypatch.setitem(globals(), "K", 3.0)
    assert g(1.5) == 9.0
    monkeypatch.delitem(globals(), "K")
    with pytest.raises(S2SError, match="`K` is not defined"):
        g(1.5)


def half_stopped(x):
    return np.sum(s2s.stop_gradient(x * x) * x)


def test_jit_code_drops_stop_gradient_but_transforms_of_it_keep_it():
    x = np.array([0.5, -1.5, 2.0])
    j = s2s.jit(half_stopped)
    np.testing.assert_allclose(j(x), np.sum(x ** 3))
    ran = j._by_kind[(("d", 1),)][0].__s2s__.source  # the version that ran
    assert not [ln for ln in ran.splitlines() if "stop_gradient" in ln and not ln.lstrip().startswith("#")]
    np.testing.assert_allclose(s2s.grad(j)(x), x * x)  # not 3 x**2: the stop still holds
    np.testing.assert_allclose(s2s.jit(s2s.grad(j))(x), x * x)
    np.testing.assert_allclose(s2s.grad(lambda y: s2s.grad(j)(y).sum())(x), 0 * x)  # JAX: the stop is in it
    a = _td_data()
    want = s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0))(*a)
    jg = s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))
    np.testing.assert_allclose(jg(*a), want, rtol=1e-12)
    hand = -2.0 * (a[2] + a[3] @ a[0] - a[1] @ a[0])[:, None] * a[1]
    np.testing.assert_allclose(want, hand, rtol=1e-12)
