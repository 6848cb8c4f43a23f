"""A slice of the fuzzer's `--nested` programs (tools/fuzz.py): transforms called inside the
program (vmap of closures, nested vmaps, vmap of defs with defaults, grad/jvp/vjp of closures,
vmap of partials, random draws), each checked against loops and central differences
(`inside_ref`) and under the program-level transforms. The planted-bug test shows that the
slice catches the closure bug of issue 27 (free variables mapped by vmap)."""
import random

import fuzz_tool
import pytest

fuzz = fuzz_tool.load()

PROPS = ["inside_ref", "jit", "grad_fd", "jvp_vjp", "vmap"]


def test_generator_draws_every_nested_kind():
    rng = random.Random(0)
    kinds = {blk[0] for _ in range(200) for blk in fuzz.gen_program(rng, nested=True).blocks}
    assert set(fuzz.NESTED_KINDS) <= kinds


@pytest.mark.parametrize("kind", ["vmap_closure", "vmap_nested", "vmap_default", "grad_closure", "jvp_inside",
                                  "vjp_inside", "partial_vmap", "random_inside"])
def test_each_nested_kind_holds(kind):
    params = {"n": 2, "i": 1, "b": 1, "c": 0.5, "c2": 1.0}
    prog = fuzz.Program([(kind, params, [("np.sin({0})", "y"), ("np.cos({0})", "x")]),
                         ("plain", params, ["x", "y"])], "scalar")
    fails = fuzz.check_program(prog, 7, PROPS + ["hessian"])
    assert fails == {}, f"{fails}\n{prog.source()}"


@pytest.mark.parametrize("first, stop", [pytest.param(0, 6, id="programs_0_to_5"),
                                         pytest.param(6, 12, id="programs_6_to_11", marks=pytest.mark.full)])
def test_nested_slice_holds(first, stop):
    """Twelve nested programs of one seeded stream: the first six by default, the rest with --full
    (CI runs both); each half must be two thirds usable."""
    runs = [fuzz.campaign(stop, 5, PROPS, do_shrink=False, verbose=False, nested=True, only=k) for k in range(first, stop)]
    checked, failures = sum(r[0] for r in runs), [f for r in runs for f in r[2]]
    assert checked >= 2 * (stop - first) // 3
    assert not failures, f"{failures[0]['property']}: {failures[0]['message']}\n{failures[0]['source']}"


def test_planted_closure_bug_is_caught(monkeypatch):
    """Map every free variable again (the bug issue 27 reported): jit(f) and grad(f) disagree with
    f and with central differences (the plain call of f closes over cells, which vmap never maps)."""
    from s2s.compiler.frontend import function_calls
    monkeypatch.setattr(function_calls, "_closure_axes", lambda norm, where, in_axes, nfree, nargs: in_axes)
    params = {"n": 3, "i": 0, "b": 0, "c": 0.5, "c2": 1.0}
    prog = fuzz.Program([("vmap_closure", params, ["acc", "y"])], "scalar")
    fails = fuzz.check_program(prog, 3, ["inside_ref", "jit", "grad_fd"])
    assert set(fails) == {"jit", "grad_fd"}, fails
