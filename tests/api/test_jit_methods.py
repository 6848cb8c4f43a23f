"""`@s2s.jit` on a method binds to its instance as a Python method does (issue 45, section 1; JAX's
jit object implements `__get__` the same way): `c.calc(3)` calls the jit of `calc` bound to `c`,
one per instance, which reads that instance's attributes; values match the plain method, and grad
of the bound jit matches the hand-derived derivative."""

import functools

import numpy as np
import pytest

import s2s


class Calc:
    def __init__(self, k):
        self.k = k
        self.calls = 0

    @s2s.jit
    def calc(self, x):
        return self.k * x * x

    @s2s.jit
    def wave(self, x):
        self.calls += 1
        return np.sin(self.k * x)

    def plain(self, x):
        return self.k * x * x


def test_jitted_method_binds_to_its_instance():
    c, d = Calc(2.0), Calc(3.0)
    assert c.calc(3) == 18.0 and d.calc(3) == 27.0
    np.testing.assert_allclose(c.calc(np.array([1.0, 2.0])), [2.0, 8.0])
    assert Calc.calc(c, 3.0) == c.plain(3.0)  # read through the class: the function of (self, x)
    assert c.calc is c.calc and c.calc is not d.calc and c.wave is not c.calc


def test_jitted_method_sees_new_attribute_values_and_stores():
    c = Calc(2.0)
    assert c.calc(1.5) == pytest.approx(4.5)
    c.k = -1.0
    assert c.calc(1.5) == pytest.approx(-2.25)
    assert c.wave(0.5) == pytest.approx(np.sin(-0.5))
    c.wave(0.5)
    assert c.calls == 2


def test_grad_of_a_jitted_method():
    c = Calc(2.0)
    assert s2s.grad(c.calc)(3.0) == pytest.approx(12.0)
    assert s2s.grad(c.wave)(0.25) == pytest.approx(2.0 * np.cos(0.5))


def test_only_the_last_instances_bound_jits_are_kept():
    from s2s.api.jitted import BOUND_KEPT

    objs = [Calc(float(k)) for k in range(BOUND_KEPT + 5)]
    for k, o in enumerate(objs):
        assert o.calc(2.0) == pytest.approx(4.0 * k)
    bound = Calc.__dict__["calc"].__dict__["_bound"]
    assert len(bound) == BOUND_KEPT  # (each holds its instance: a bounded number stays alive)
    assert objs[0].calc(1.5) == pytest.approx(0.0)  # dropped, built again
    assert objs[-1].calc is objs[-1].calc


class Repeat:
    def __init__(self, k):
        self.k = k

    @functools.partial(s2s.jit, static_argnums=2)
    def apply(self, x, n):
        for _ in range(n):
            x = x * self.k
        return x


def test_static_argnums_count_self_as_in_jax():
    assert Repeat(2.0).apply(3.0, 2) == pytest.approx(12.0)
    assert Repeat(3.0).apply(1.0, 3) == pytest.approx(27.0)
