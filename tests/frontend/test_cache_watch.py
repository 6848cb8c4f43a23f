"""The per-call check of a transformed object's cache key (s2s/compiler/cachekey.py): identity tests of
every place the key read. Whatever a call rebinds there (a global, a module attribute, a closure
cell, an instance attribute, a helper's code or defaults) is seen by the next call of the very same
object; an equal value rebound keeps the compiled code."""
import math

import numpy as np
import pytest

import s2s
from s2s import stop_gradient
from s2s.compiler import cachekey

X = np.array([0.3, -0.5, 1.2])
SCALE = 2.0
C = 0.0


def scaled(x):
    return np.sum(x * SCALE)


def reads_c(x):
    return np.sum(x * np.arctan2(C, -1.0))


def helper(x):
    return x * 2.0


def helper3(x):
    return x * 3.0


def calls_helper(x):
    return np.sum(helper(x))


def with_default(x, k=2.0):
    return np.sum(x * k)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        return np.sum(x * self.scale)


CFG = Model(2.0)


def reads_cfg(x):
    return np.sum(x * CFG.scale)


@pytest.fixture
def restore():
    saved = dict(globals())
    yield
    for name in ("SCALE", "C", "CFG"):
        globals()[name] = saved[name]
    helper.__code__ = saved["helper"].__code__
    CFG.scale = 2.0
    CFG.__dict__.pop("extra", None)


@pytest.mark.parametrize("make", [s2s.grad, s2s.jit, lambda f: s2s.jit(s2s.grad(f)),
                                  lambda f: s2s.vmap(s2s.grad(f))])
def test_an_existing_object_sees_a_rebound_global(restore, make):
    t = make(scaled)
    x = X if "vmap" not in repr(t) else np.stack([X, X])
    first = np.asarray(t(x))
    globals()["SCALE"] = 5.0
    np.testing.assert_allclose(np.asarray(t(x)), first * 2.5)


def test_an_equal_value_rebound_keeps_the_compiled_code(restore):
    t = s2s.grad(scaled)
    t(X)
    compiled = t.compiled
    globals()["SCALE"] = float("2.0")  # another float object, the same key
    np.testing.assert_allclose(t(X), np.full(3, 2.0))
    assert t.compiled is compiled


@pytest.mark.parametrize("first, second", [(0.0, -0.0), (1, True), (1.0, 1), (math.nan, 2.0)])
def test_constants_rebound_under_an_existing_object(restore, first, second):
    globals()["C"] = first
    t = s2s.grad(reads_c)
    np.testing.assert_array_equal(t(X), np.full(3, np.arctan2(first, -1.0)))
    globals()["C"] = second
    got, want = t(X), np.full(3, np.arctan2(second, -1.0))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_a_closure_cell_rebound_by_nonlocal():
    def make():
        s = 2.0

        def f(x):
            return np.sum(x * s)

        def set_s(v):
            nonlocal s
            s = v
        return f, set_s
    f, set_s = make()
    t = s2s.grad(f)
    np.testing.assert_allclose(t(X), np.full(3, 2.0))
    set_s(-4.0)
    np.testing.assert_allclose(t(X), np.full(3, -4.0))


def test_a_helpers_code_replaced(restore):
    """(s2s finds a function's source by its code's name and line, so a transform of a function
    whose code was swapped is not tested here; the key and its watch see the swap.)"""
    key, check = cachekey.watched_key(calls_helper)
    helper.__code__ = helper3.__code__
    assert not check()
    assert cachekey.fn_key(calls_helper) != key


def test_defaults_replaced():
    def f(x, k=2.0):
        return np.sum(x * k)
    t = s2s.grad(f)
    np.testing.assert_allclose(t(X), np.full(3, 2.0))
    f.__defaults__ = (7.0,)
    np.testing.assert_allclose(t(X), np.full(3, 7.0))


def test_an_instance_attribute_of_a_bound_method_and_of_a_global_object(restore):
    m = Model(2.0)
    t, u = s2s.grad(m.loss), s2s.grad(reads_cfg)
    np.testing.assert_allclose(t(X), np.full(3, 2.0))
    np.testing.assert_allclose(u(X), np.full(3, 2.0))
    m.scale, CFG.scale = 3.0, -1.5
    np.testing.assert_allclose(t(X), np.full(3, 3.0))
    np.testing.assert_allclose(u(X), np.full(3, -1.5))
    CFG.extra = 1  # a new attribute: the key (all attributes) changes, the result does not
    np.testing.assert_allclose(u(X), np.full(3, -1.5))


def test_the_common_cases_get_a_cheap_check():
    """Plain functions, helpers, s2s primitives (stop_gradient), bound methods: an identity
    watch exists and says unchanged; rebinding a watched global makes it say changed."""
    for fn in (scaled, calls_helper, reads_cfg, Model(1.0).loss, with_default):
        key, check = cachekey.watched_key(fn)
        assert check is not None and check(), fn
        assert key == cachekey.fn_key(fn)
    _, check = cachekey.watched_key(scaled)
    old = globals()["SCALE"]
    try:
        globals()["SCALE"] = 3.0
        assert not check()
    finally:
        globals()["SCALE"] = old
    assert check()


class Scaled:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return np.sum(x * self.k * SCALE)


def test_partials_and_callable_instances(restore):
    """A partial is watched like a function; a callable instance (its `__call__` found through
    the class) has no cheap check: its key is recomputed on every call, and still seen."""
    import functools
    p = functools.partial(with_default, k=3.0)
    _, check = cachekey.watched_key(p)
    assert check is not None and check()
    t, inst = s2s.grad(p), Scaled(2.0)
    u = s2s.grad(inst)
    np.testing.assert_allclose(t(X), np.full(3, 3.0))
    np.testing.assert_allclose(u(X), np.full(3, 4.0))
    assert cachekey.watched_key(inst)[1] is None
    globals()["SCALE"], inst.k = 3.0, -1.0
    np.testing.assert_allclose(u(X), np.full(3, -3.0))


def sums_with_numpy(x):
    return np.sum(x * 2.0)   # `sum` is an attribute of np here: a global `sum` changes nothing


def sums_with_builtin(x):
    return sum(x * 2.0)      # the builtin, until a global `sum` shadows it


def stops(x):
    return np.sum(stop_gradient(x) * x)


def test_only_names_loaded_as_globals_are_watched_while_unbound():
    terms = cachekey.watched_key(sums_with_numpy)[1].terms[2]
    assert "'sum' not in" not in terms and "'np'" in terms
    assert "'sum' not in" in cachekey.watched_key(sums_with_builtin)[1].terms[2]
    t = s2s.jit(sums_with_builtin)
    assert t(X) == pytest.approx(2.0 * X.sum())
    globals()["sum"] = lambda v: 7.0  # a global `sum` now shadows the builtin: seen by the next call
    try:
        assert t(X) == 7.0
        assert s2s.jit(sums_with_numpy)(X) == pytest.approx(2.0 * X.sum())
    finally:
        del globals()["sum"]
    assert t(X) == pytest.approx(2.0 * X.sum())


def test_s2s_primitives_are_keyed_by_identity_not_by_their_code():
    _, check = cachekey.watched_key(stops)
    assert check.terms[2].count(".__code__") == 1  # `stops`'s own; stop_gradient's binding alone
    assert "['stop_gradient'] is" in check.terms[2]
    g = s2s.grad(stops)
    np.testing.assert_allclose(g(X), X)  # d/dx sum(stop(x) * x) = stop(x)
