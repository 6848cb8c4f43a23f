"""User-defined derivative rules: custom_vjp, custom_jvp, and s2s.defvjp / s2s.defjvp primitives."""

import numpy as np
import pytest

import s2s


def _make_f(scale):
    def f(x):
        return scale * x
    return f


# Two different functions, both named `f`, each with its own (deliberately unusual) rules, so
# the derivative shows which rule ran.
F_TEN = s2s.defvjp(_make_f(2.0), x="g * 10.0")
F_TWENTY = s2s.defvjp(_make_f(5.0), x=lambda g, ans, x: g * 20.0)
s2s.defjvp(F_TEN, x="dx * 10.0")
s2s.defjvp(F_TWENTY, x=lambda dx, ans, x: dx * 20.0)


def loss_ten(x):
    return np.sum(F_TEN(x))


def loss_twenty(x):
    return np.sum(F_TWENTY(x))


def test_two_user_primitives_with_the_same_name_keep_their_own_rules():
    assert F_TEN.__name__ == F_TWENTY.__name__ == "f"
    x = np.array([1.0, -2.0, 0.5])
    value, g = s2s.value_and_grad(loss_twenty)(x)
    assert value == pytest.approx(5.0 * x.sum())
    np.testing.assert_allclose(g, np.full(3, 20.0))
    np.testing.assert_allclose(s2s.grad(loss_ten)(x), np.full(3, 10.0))
    value, g = s2s.value_and_grad(loss_ten)(x)
    assert value == pytest.approx(2.0 * x.sum())
    np.testing.assert_allclose(g, np.full(3, 10.0))
    np.testing.assert_allclose(s2s.grad(loss_twenty)(x), np.full(3, 20.0))


def test_two_user_primitives_with_the_same_name_in_forward_mode():
    x, v = np.array([1.0, 3.0]), np.array([1.0, 1.0])
    assert s2s.jvp(loss_ten, (x,), (v,))[1] == pytest.approx(20.0)
    assert s2s.jvp(loss_twenty, (x,), (v,))[1] == pytest.approx(40.0)


def test_registering_the_same_function_twice_keeps_one_entry():
    def h(x):
        return x * x
    s2s.defvjp(h, x="g * 2 * x")
    s2s.defjvp(h, x="dx * 2 * x")

    def use(x):
        return h(x) + 1.0
    assert s2s.grad(use)(3.0) == pytest.approx(6.0)
    assert s2s.jvp(use, (3.0,), (1.0,))[1] == pytest.approx(6.0)


@s2s.custom_vjp
def scaled_square(x):
    return x * x


def _scaled_square_fwd(x):
    return x * x, x


def _scaled_square_bwd(x, g):
    return (3.0 * x * g,)  # deliberately not 2x: shows the rule is what runs


scaled_square.defvjp(_scaled_square_fwd, _scaled_square_bwd)


@s2s.custom_jvp
def doubled_sin(x):
    return np.sin(x)


@doubled_sin.defjvp
def _doubled_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return np.sin(x), 2.0 * np.cos(x) * t


def test_grad_applies_directly_to_custom_rule_functions():
    assert s2s.grad(scaled_square)(2.0) == pytest.approx(6.0)
    assert s2s.grad(doubled_sin)(0.5) == pytest.approx(2.0 * np.cos(0.5))
    assert s2s.jvp(doubled_sin, (0.5,), (1.0,))[1] == pytest.approx(2.0 * np.cos(0.5))
