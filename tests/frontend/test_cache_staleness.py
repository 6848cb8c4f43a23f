"""The cache of generated code never serves code for a changed program (issue 8, family 4): the key
covers the globals, module attributes and closure values the code inlines or resolves, compared
by type and value, and a transformed object checks it on every call."""
import importlib.util
import math
import sys
import textwrap

import numpy as np
import pytest

import s2s

HELPER = '''
import numpy as np

SCALE = 2.0
G = 0.25


def k(v):
    return np.sin(v) * SCALE


def k2(v):
    return np.cos(v)


def scaled(v):
    return v * SCALE


def uses_g(x):
    return np.sum(np.tanh(x * G))
'''

USER = '''
import numpy as np
import {mod} as mod

C = 0.0


def calls_k(x):
    return mod.k(x)


def reads_c(x):
    return np.sum(x * np.arctan2(C, -1.0)) + x[0]


def make_closure(h):
    def inner(x):
        return h(x) * 1.0
    return inner
'''


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A helper module and a user module importing it, written fresh for each test."""
    name = f"s2s_cache_helper_{id(tmp_path)}"
    (tmp_path / f"{name}.py").write_text(HELPER)
    (tmp_path / f"{name}_user.py").write_text(textwrap.dedent(USER.format(mod=name)))
    monkeypatch.syspath_prepend(str(tmp_path))
    mods = []
    for n in (name, name + "_user"):
        spec = importlib.util.spec_from_file_location(n, tmp_path / f"{n}.py")
        m = importlib.util.module_from_spec(spec)
        sys.modules[n] = m
        spec.loader.exec_module(m)
        mods.append(m)
    yield mods
    for n in (name, name + "_user"):
        sys.modules.pop(n, None)


X = np.array([0.3, -0.5, 1.2])


def test_helper_in_another_module_reads_its_global_after_it_changes(modules):
    mod, user = modules
    g = s2s.grad(lambda x: np.sum(user.calls_k(x)))
    np.testing.assert_allclose(g(X), 2.0 * np.cos(X))
    mod.SCALE = 4.0
    np.testing.assert_allclose(g(X), 4.0 * np.cos(X))
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(user.calls_k(x)))(X), 4.0 * np.cos(X))


def test_replacing_a_module_function_changes_the_derivative(modules):
    mod, user = modules
    t = s2s.jacrev(user.calls_k)
    np.testing.assert_allclose(t(X), np.diag(2.0 * np.cos(X)))
    mod.k = mod.k2
    np.testing.assert_allclose(t(X), np.diag(-np.sin(X)))
    np.testing.assert_allclose(s2s.jacfwd(user.calls_k)(X), np.diag(-np.sin(X)))


def test_closure_cell_holding_a_helper_that_reads_a_global(modules):
    mod, user = modules
    f = user.make_closure(mod.scaled)
    t = s2s.jacrev(f)
    np.testing.assert_allclose(t(X), 2.0 * np.eye(3))
    mod.SCALE = -3.0
    np.testing.assert_allclose(t(X), -3.0 * np.eye(3))
    np.testing.assert_allclose(s2s.jacrev(user.make_closure(mod.scaled))(X), -3.0 * np.eye(3))


def test_an_existing_transformed_object_sees_a_changed_global(modules):
    mod, _ = modules
    t = s2s.jacrev(s2s.grad(mod.uses_g))
    before = t(X)
    mod.G = 0.55
    after = t(X)
    expected = np.diag(-2 * 0.55 ** 2 * np.tanh(0.55 * X) / np.cosh(0.55 * X) ** 2)
    np.testing.assert_allclose(after, expected, rtol=1e-10)
    assert not np.allclose(before, after)


def test_jit_and_vmap_objects_see_a_changed_global(modules):
    """jit keeps versions per signature and vmap per rank: a changed global drops them all."""
    mod, _ = modules
    j, jg, v = s2s.jit(mod.uses_g), s2s.jit(s2s.grad(mod.uses_g)), s2s.vmap(mod.uses_g)
    xs = np.stack([X, 2 * X])
    j(X), jg(X), v(xs)
    mod.G = 0.55
    np.testing.assert_allclose(j(X), np.sum(np.tanh(0.55 * X)), rtol=1e-12)
    np.testing.assert_allclose(jg(X), 0.55 / np.cosh(0.55 * X) ** 2, rtol=1e-12)
    np.testing.assert_allclose(v(xs), [np.sum(np.tanh(0.55 * r)) for r in xs], rtol=1e-12)


@pytest.mark.parametrize("first, second", [(0.0, -0.0), (1, True), (1.0, 1), (math.nan, 2.0)])
def test_constants_are_compared_by_type_and_value(modules, first, second):
    _, user = modules
    user.C = first
    x = np.array([0.5, 2.0])

    def expected(c):
        return np.full(2, np.arctan2(c, -1.0)) + np.array([1.0, 0.0])  # pi or -pi at a zero c

    def same(got, want):  # equal values, nan where nan, and the sign of zeros
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))
    same(s2s.grad(user.reads_c)(x), expected(first))
    user.C = second
    same(s2s.grad(user.reads_c)(x), expected(second))
