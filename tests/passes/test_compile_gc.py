"""The cyclic garbage collector around compilation (issue 46): `paused_gc` pauses it during a
build without asking anything whose cost grows with the objects frozen, leaves the collector's
settings as the user had them, and the compiler's helpers make no reference cycles (garbage that
only the collector would free)."""
import gc

import gast
import numpy as np
import pytest

import s2s
from s2s.base.stats import paused_gc
from s2s.compiler import analysis
from s2s.compiler.ir import build


def _settings():
    return gc.isenabled(), gc.get_threshold(), gc.get_debug(), gc.get_freeze_count()


@pytest.fixture
def collector():
    """Nothing frozen while the test runs (the test session freezes what each test leaves alive:
    tests/support/session_gc.py), and the collector's settings as they were after it."""
    enabled, threshold, frozen = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    gc.unfreeze()
    yield
    gc.unfreeze()
    if frozen:
        gc.freeze()
    (gc.enable if enabled else gc.disable)()
    gc.set_threshold(*threshold)


def _f(x, v):
    y = np.sin(v) * x
    if np.sum(y) > 0.0:
        y = y * 0.9
    return np.sum(np.tanh(y) * v)


def _central(x, v, h=1e-6):
    return (_f(x + h, v) - _f(x - h, v)) / (2 * h)


class _Kept:
    """A tracked object made inside the block, to find its generation."""


def test_a_build_asks_nothing_whose_cost_grows_with_frozen_objects(collector, monkeypatch):
    """`gc.get_freeze_count`, `gc.freeze` and `gc.unfreeze` walk every frozen object (a test session
    freezes millions): a build calls none of them, and leaves the collector as it was."""
    import s2s.base.stats as stats

    class _Gc:
        def __getattr__(self, name):
            if name in ("get_freeze_count", "freeze", "unfreeze"):
                raise AssertionError(f"paused_gc called gc.{name}")
            return getattr(gc, name)
    monkeypatch.setattr(stats, "gc", _Gc())
    gc.enable()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    s2s.clear_caches()
    x, v = 0.2, np.array([0.5, -0.3, 1.1, 0.8])
    np.testing.assert_allclose(s2s.grad(_f)(x, v), _central(x, v), rtol=1e-6, atol=1e-8)


def test_the_settings_are_the_users_after_a_transform(collector):
    x, v = 0.7, np.array([0.3, -1.2, 2.0, 0.4])
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        gc.set_threshold(900, 11, 12)
        before = _settings()
        s2s.clear_caches()
        got = s2s.grad(_f)(x, v)
        assert _settings() == before
        np.testing.assert_allclose(got, _central(x, v), rtol=1e-6, atol=1e-8)


def test_grad_is_right_with_objects_frozen_by_the_user(collector):
    x, v = -0.4, np.array([1.5, 0.2, -0.7, 0.9])
    gc.enable()
    mine = [_Kept() for _ in range(10)]
    gc.freeze()
    count = gc.get_freeze_count()
    s2s.clear_caches()
    np.testing.assert_allclose(s2s.grad(_f)(x, v), _central(x, v), rtol=1e-6, atol=1e-8)
    assert 0 < gc.get_freeze_count() <= count  # (the old caches' frozen objects died)
    unfrozen = {id(o) for o in gc.get_objects()}
    assert not any(id(k) in unfrozen for k in mine)


def _cyclic_garbage(make) -> int:
    """How many objects the collector frees after `make()` runs and its result is dropped."""
    gc.collect()
    gc.disable()
    try:
        make()
        return gc.collect()
    finally:
        gc.enable()


def test_template_makes_no_reference_cycles(collector):
    def make():
        for i in range(50):
            node = build.template("a * f(b, 2) + c", a=build.name("x"), b=build.name("y"), c=float(i))
        assert isinstance(node, gast.BinOp) and node.right.value == 49.0
    assert _cyclic_garbage(make) == 0


def test_definitely_assigned_makes_no_reference_cycles(collector):
    body = gast.parse("a = x\nif a > 0:\n    b = a\nelse:\n    b = 2\nc = b").body

    def make():
        before = analysis.definitely_assigned(body, ["x"])
        assert "b" in before[body[2]] and "b" not in before[body[1]] and "a" in before[body[1]]
    assert _cyclic_garbage(make) == 0
