"""Tests for s2s.test_util.check_grads.

Some tests use s2s's real ``vjp``/``jvp``; others swap in hand-written NumPy derivatives
(right and wrong) so that check_grads itself is tested apart from the compiler.
"""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def sum_sin(x):
    return np.sum(np.sin(x))


def two_args(x, y):
    return np.sum(x * np.cos(y)) + 2.0 * np.sum(x)


X = np.linspace(-1.0, 2.0, 7)


def fake_vjp(scale):
    """A vjp for ``sum_sin`` written by hand, its cotangent multiplied by ``scale``."""

    def vjp(fun, x):
        def pullback(g):
            return (scale * g * np.cos(x),)

        return fun(x), pullback

    return vjp


def fake_jvp(scale):
    """A jvp for ``sum_sin`` written by hand, its tangent multiplied by ``scale``."""

    def jvp(fun, primals, tangents):
        (x,), (dx,) = primals, tangents
        return fun(x), scale * np.sum(np.cos(x) * dx)

    return jvp


# --- with s2s's own derivatives -------------------------------------------------------


def test_passes_for_sum_sin_lambda():
    check_grads(lambda x: np.sum(np.sin(x)), (X,))


def test_passes_for_sum_sin_both_modes():
    check_grads(sum_sin, (X,), modes=("fwd", "rev"))


def test_passes_for_two_arguments_and_scalar_leaf():
    check_grads(two_args, (X, 0.3), modes=("fwd", "rev"))


def test_raises_when_vjp_is_wrong(monkeypatch):
    real_vjp = s2s.vjp

    def scaled_vjp(fun, *primals):
        out, pullback = real_vjp(fun, *primals)
        return out, lambda ct: tuple(1.5 * c for c in pullback(ct))

    monkeypatch.setattr(s2s, "vjp", scaled_vjp)
    with pytest.raises(AssertionError, match=r"mode 'rev', order 1.*max error"):
        check_grads(sum_sin, (X,))


# --- check_grads itself, against hand-written derivatives ----------------------------


def test_accepts_correct_hand_written_vjp(monkeypatch):
    monkeypatch.setattr(s2s, "vjp", fake_vjp(1.0))
    check_grads(sum_sin, (X,))


def test_rejects_scaled_hand_written_vjp(monkeypatch):
    monkeypatch.setattr(s2s, "vjp", fake_vjp(2.0))
    with pytest.raises(AssertionError, match=r"mode 'rev', order 1, VJP.*max error"):
        check_grads(sum_sin, (X,))


def test_accepts_correct_hand_written_jvp(monkeypatch):
    monkeypatch.setattr(s2s, "jvp", fake_jvp(1.0))
    check_grads(sum_sin, (X,), modes=("fwd",))


def test_rejects_scaled_hand_written_jvp(monkeypatch):
    monkeypatch.setattr(s2s, "jvp", fake_jvp(0.5))
    with pytest.raises(AssertionError, match=r"mode 'fwd', order 1, JVP.*max error"):
        check_grads(sum_sin, (X,), modes=("fwd",))


def test_rejects_wrong_number_of_cotangents(monkeypatch):
    def vjp(fun, x):
        return fun(x), lambda g: (g * np.cos(x), 0.0)

    monkeypatch.setattr(s2s, "vjp", vjp)
    with pytest.raises(AssertionError, match="tuple of 1 cotangents"):
        check_grads(sum_sin, (X,))


def test_rejects_wrong_primal_output(monkeypatch):
    def vjp(fun, x):
        return fun(x) + 1.0, lambda g: (g * np.cos(x),)

    monkeypatch.setattr(s2s, "vjp", vjp)
    with pytest.raises(AssertionError, match="primal output"):
        check_grads(sum_sin, (X,))


def test_second_order_reverse_with_hand_written_vjp(monkeypatch):
    """Order 2 differentiates ``a -> vjp(f, *a)[1](u)``; here every vjp is written by hand."""

    def pullback_of_sum_sin(x, g):
        return (g * np.cos(x),)

    def vjp(fun, x):
        if fun is sum_sin:
            return fun(x), lambda g: pullback_of_sum_sin(x, g)
        # fun is check_grads' a -> vjp(sum_sin, *a)[1](u) = (u * cos(a),), whose vjp is
        # g -> (-g[0] * u * sin(a),); recover u from the output (cos(X) has no zeros).
        out = fun(x)
        u = out[0] / np.cos(x)
        return out, lambda g: (-g[0] * u * np.sin(x),)

    monkeypatch.setattr(s2s, "vjp", vjp)
    check_grads(sum_sin, (X,), order=2, modes=("rev",))


def test_argument_validation():
    with pytest.raises(TypeError, match="tuple"):
        check_grads(sum_sin, X)
    with pytest.raises(ValueError, match="modes"):
        check_grads(sum_sin, (X,), modes=("sideways",))
    with pytest.raises(ValueError, match="order"):
        check_grads(sum_sin, (X,), order=0)
