"""The fuzzer's cheaper properties keep their power (tools/fuzz.py, issue 44's campaign): a program
checks one Hessian route, one cold compile, and a changed global against central differences,
each drawn per program; every draw still fails on a planted wrong derivative or stale cache."""
import importlib.util

import fuzz_tool
import numpy as np
import pytest

import s2s
from s2s.compiler.frontend import reads
from s2s.compiler.primitives.registry import PRIMS

fuzz = fuzz_tool.load()
PLAIN = {"n": 1, "i": 0, "b": 0, "c": 0.5, "c2": 1.0}


def _sin_program():
    # f = sum(acc * acc) with acc = x + 0.5 tanh(sin(x * y)): its Hessian differentiates cos
    return fuzz.Program([("plain", PLAIN, [("np.sin({0})", ("({0}) * ({1})", "x", "y")), "y"])], "scalar")


def _plant_cos(monkeypatch, factor: float) -> None:
    """cos's derivative rules (forward and reverse) off by `factor`: the gradient of a program
    without cos stays right, every route to its Hessian goes through one of them."""
    monkeypatch.setitem(PRIMS["xp.cos"].jvp, "x", f"dx * (-xp.sin(x)) * {factor!r}")
    monkeypatch.setitem(PRIMS["xp.cos"].vjp, "x", f"g * (-xp.sin(x)) * {factor!r}")
    fuzz.clear_caches()  # (a new transform of the same function reuses its compiled code)


@pytest.mark.parametrize("route", sorted(fuzz.HESSIAN_ROUTES))
@pytest.mark.parametrize("factor", [1.5, 1.0 + 1e-5])
def test_each_hessian_route_catches_a_wrong_second_order_rule(monkeypatch, request, route, factor):
    """Whichever route a program draws, a wrong rule fails it; one off by 1e-5 too (the 4-point
    differences are right to about 1e-11, the tolerance is 1e-7)."""
    monkeypatch.setattr(fuzz, "HESSIAN_ROUTES", {route: fuzz.HESSIAN_ROUTES[route]})
    assert fuzz.check_program(_sin_program(), 3, ["grad_fd", "hessian"]) == {}
    request.addfinalizer(fuzz.clear_caches)  # (runs before monkeypatch restores the rules)
    _plant_cos(monkeypatch, factor)
    fails = fuzz.check_program(_sin_program(), 3, ["grad_fd", "hessian"])
    assert set(fails) == {"hessian"} and route in fails["hessian"], fails


@pytest.mark.parametrize("name", sorted(fuzz.CACHE_DERIVS))
def test_each_cold_compile_catches_a_cache_that_differs(monkeypatch, name):
    """A cold compile that gives other numbers than the warm one (here: sin's rule changed while the
    caches are emptied) fails the property `cache`, whichever transform is drawn."""
    monkeypatch.setattr(fuzz, "CACHE_DERIVS", {name: fuzz.CACHE_DERIVS[name]})
    prog = fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"])], "vector")
    assert fuzz.check_program(prog, 3, ["cache"]) == {}
    clear = fuzz.clear_caches

    def clear_and_change():
        clear()
        monkeypatch.setitem(PRIMS["xp.sin"].jvp, "x", "dx * xp.cos(x) * 1.5")
        monkeypatch.setitem(PRIMS["xp.sin"].vjp, "x", "g * xp.cos(x) * 1.5")
    monkeypatch.setattr(fuzz, "clear_caches", clear_and_change)
    fails = fuzz.check_program(prog, 3, ["cache"])
    assert set(fails) == {"cache"} and fails["cache"].startswith(name), fails


def _ignore_reads(monkeypatch) -> None:
    """The code before issue 44's fix: what a compilation read is neither recorded nor checked."""
    monkeypatch.setattr(reads.Reads, "holds", lambda self: True)
    monkeypatch.setattr(reads, "note", lambda *a: None)
    for mod in ("expressions", "call_idioms", "function_loops", "function_values", "idioms"):
        monkeypatch.setattr(f"s2s.compiler.frontend.{mod}.note_read", lambda *a: None)


def test_a_stale_global_fails_against_central_differences(monkeypatch):
    """The property `global` without a cold compile: a jacrev that keeps what it computed before G
    changed (a stand-in that remembers its first answer per function) differs from central
    differences at the new G."""
    prog = fuzz.Program([("plain", PLAIN, [("np.sin({0})", ("({0}) * ({1})", "x", "G")), "y"])], "scalar")
    assert fuzz.check_program(prog, 3, ["global"]) == {}
    real, memo = fuzz.s2s.jacrev, {}

    def stale(f, **kw):
        def run(*args):
            if f not in memo:
                memo[f] = real(f, **kw)(*args)
            return memo[f]
        return run
    monkeypatch.setattr(fuzz.s2s, "jacrev", stale)
    fails = fuzz.check_program(prog, 3, ["global"])
    assert set(fails) == {"global"} and "central differences" in fails["global"], fails


def test_each_draw_of_the_costly_state_transforms_is_checked(monkeypatch):
    """The property `state` checks one of STATE_COSTLY per program: over the draws of a few seeds
    each of them is made, and with stale caches each draw fails."""
    drawn = set()
    real = fuzz._state_transforms

    def spy(mod, scalar, costly=None):
        drawn.add(costly)
        return real(mod, scalar, costly)
    monkeypatch.setattr(fuzz, "_state_transforms", spy)
    prog = fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"]),
                         ("state", {**PLAIN, "s": 2}, [("({0}) * ({1})", "x", "y"), "y"])], "scalar")
    for seed in range(12):
        assert fuzz.check_program(prog, seed, ["state"]) == {}
        if drawn == set(fuzz.STATE_COSTLY):
            break
    assert drawn == set(fuzz.STATE_COSTLY)
    _ignore_reads(monkeypatch)
    for seed in range(3):
        fails = fuzz.check_program(prog, seed, ["state"])
        assert fails and "after the state changed" in fails["state"], fails


def test_grad_fd_reuses_the_differences_of_the_smoothness_check():
    """prepare keeps the central differences its smoothness check computed: grad_fd's reference,
    the same numbers as computed again."""
    ready = fuzz.prepare(_sin_program(), 3)
    assert ready is not None
    mod, x, y = ready
    np.testing.assert_array_equal(mod.FD["fd"], fuzz.fd_jacobian(mod.f, x, y, 1e-6))


def _gradient_step(x, y):
    # the gradient jumps by 1e-6 where np.round(x, 3) steps, 3e-6 from x[0] below: a 2-point
    # difference of the gradient at 1e-5 straddles the step, one at 1e-6 does not
    return np.sum(x * x) + 1e-3 * np.sum(x * np.round(x, 3)) + np.sum(x * y)


def _fast_wiggle(x, y):
    # sin(70 x): 4-point differences of the gradient at 1e-3 are off by about 1e-6 of the Hessian
    # (the fifth derivative is 70**3 times the second), those at 1e-4 by about 1e-10
    return np.sum(np.sin(70 * x)) / 4900 + np.sum(x * y)


@pytest.mark.parametrize("route", sorted(fuzz.HESSIAN_ROUTES))
@pytest.mark.parametrize("f", [_gradient_step, _fast_wiggle])
def test_hessian_check_passes_right_hessians_where_differences_mislead(monkeypatch, request, route, f):
    """Campaign 5101's two false failures (`--seed 5101002 --views --program 264`, a rounding step
    within 1e-5; `--seed 5101007 --views --program 562`, a large fifth derivative): s2s's Hessian is
    right, and the check passes it on every route; off by 1e-5, it still fails."""
    monkeypatch.setattr(fuzz, "HESSIAN_ROUTES", {route: fuzz.HESSIAN_ROUTES[route]})
    mod = type("Mod", (), {"f": staticmethod(f), "OUT": "scalar"})
    x, y = np.array([0.1005 + 3e-6, -0.3, 0.7]), np.array([0.2, 0.1, -0.4])
    assert fuzz.p_hessian(mod, x, y, np.random.default_rng(0)) is None
    if f is _fast_wiggle:
        monkeypatch.setitem(PRIMS["xp.sin"].jvp, "x", "dx * xp.cos(x) * (1.0 + 1e-5)")
        monkeypatch.setitem(PRIMS["xp.sin"].vjp, "x", "g * xp.cos(x) * (1.0 + 1e-5)")
        monkeypatch.setitem(PRIMS["xp.cos"].jvp, "x", "dx * (-xp.sin(x)) * (1.0 + 1e-5)")
        monkeypatch.setitem(PRIMS["xp.cos"].vjp, "x", "g * (-xp.sin(x)) * (1.0 + 1e-5)")
        fuzz.clear_caches()
        request.addfinalizer(fuzz.clear_caches)  # (runs before monkeypatch restores the rules)
        assert route in (fuzz.p_hessian(mod, x, y, np.random.default_rng(0)) or "")


_RAISES_AT_NEW_G = """import numpy as np
G = 1.3


def f(x, y):
    if G < 1.0:
        return np.sum(np.std(x[0], axis=0) * x)
    return np.sum(x * y) * G
"""


def test_global_where_f_raises_at_the_new_value(monkeypatch, tmp_path):
    """Where f raises once G changes (`--seed 5301006 --state --program 185`: np.std of a 0-d value
    along axis 0, in a loop the new G enters), the property asks every transform to raise the same
    exception type; one that returns a number fails it."""
    path = tmp_path / "raises_at_new_g.py"
    path.write_text(_RAISES_AT_NEW_G)
    spec = importlib.util.spec_from_file_location("raises_at_new_g", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.SOURCE = _RAISES_AT_NEW_G
    x, y = np.array([0.6, 0.5, -0.2]), np.array([0.3, 0.1, 0.4])
    assert fuzz.p_global(mod, x, y, np.random.default_rng(0)) is None
    monkeypatch.setattr(fuzz.s2s, "jit", lambda f: (lambda *a: 0.0))
    assert "jit returned where f raises AxisError" in fuzz.p_global(mod, x, y, np.random.default_rng(0))


def _float32_on_the_way(x, y):
    # sin of a value rounded to float32: differences at 1e-6 are off by float32's rounding over
    # 1e-6 (a tenth of this term's derivative), 4-point ones at 1e-3 are not
    return 1e-2 * np.sum(x * x) + 1e-2 * np.sum(np.sin(np.exp(0.3 * np.tanh(y)).astype(np.float32) * -2.0))


def test_differences_reference_sees_past_float32_rounding():
    """`--seed 5601007 --views --program 46`, `--seed 5201002 --views --program 575`: s2s's
    gradient is right and the reference accepts it; off by 2e-5 in y, it is not."""
    x = np.array([0.188, 0.918, 0.117])
    y = np.array([0.9668361898312827, 0.9850394712770685, 0.8575962255008425])
    ref = fuzz.Differences(_float32_on_the_way, x, y)
    got = np.concatenate(s2s.grad(_float32_on_the_way, argnums=(0, 1))(x, y))[None]
    assert not fuzz.close(got, ref.fd, 1e-5)  # (the point of the reference: 1e-6 alone misleads)
    assert ref.agree(got, 1e-5)
    assert not ref.agree(got + np.array([0, 0, 0, 2e-5, 0, 0]), 1e-5)


_RAISES_AT_ONE_ROW = """import numpy as np


def f(x, y):
    if x[0] > x[2]:  # vmap's second example (x reversed) takes the branch NumPy refuses
        return x + np.diff(y)
    return x * y


def _mutate():
    pass


def _restore():
    pass


OUT = "vector"
"""


def test_state_vmap_where_a_loop_raises(monkeypatch, tmp_path):
    """Where f raises at one of vmap's examples (`--seed 7401001 --state --program 179`: the reversed
    row takes a branch adding shapes (3,) and (2,)), the state property asks vmap to raise the same
    class, as the loop does; a vmap that returns fails it."""
    path = tmp_path / "raises_at_one_row.py"
    path.write_text(_RAISES_AT_ONE_ROW)
    spec = importlib.util.spec_from_file_location("raises_at_one_row", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = np.array([0.1, 0.5, 0.9]), np.array([0.3, 0.1, 0.4])
    with pytest.raises(ValueError):
        mod.f(x[::-1], y)
    assert fuzz._state_check({"vmap": lambda x, y, u, v: s2s.vmap(mod.f, in_axes=(0, None))(np.stack([x, x[::-1]]), y)},
                             mod, x, y, np.random.default_rng(0)) is None
    returns = {"vmap": lambda x, y, u, v: np.stack([x, x])}
    assert "vmap returned where a loop raises ValueError" in fuzz._state_check(returns, mod, x, y, np.random.default_rng(0))
