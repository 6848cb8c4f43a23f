"""The fuzzer's state generator and property (tools/fuzz.py `--state`, property `state`; issue 44,
family 1): a program reads a value from mutable state, which the property changes between two
calls of every transform. Each form of state holds the property, and a cache that ignores what a
compilation read is caught."""
import fuzz_tool
import numpy as np
import pytest

from s2s.compiler.frontend import reads

fuzz = fuzz_tool.load()
PLAIN = {"n": 1, "i": 0, "b": 0, "c": 0.5, "c2": 1.0}


def _program(form: int, out: str = "scalar"):
    return fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"]),
                         ("state", {**PLAIN, "s": form}, [("({0}) * ({1})", "x", "y"), "y"])], out)


@pytest.mark.parametrize("form", range(len(fuzz.STATE_LINES)))
def test_each_form_of_state_holds_the_property(form):
    prog = _program(form, "vector" if form % 2 else "scalar")
    assert "def _mutate():" in prog.source()
    assert fuzz.check_program(prog, 7, ["state"]) == {}


def test_a_cache_that_ignores_what_compilation_read_is_caught(monkeypatch):
    """With the reads neither recorded nor checked (the code before the fix), the property fails:
    the transforms made before the change keep the old hyperparameter."""
    monkeypatch.setattr(reads.Reads, "holds", lambda self: True)
    monkeypatch.setattr(reads, "note", lambda *a: None)
    for mod in ("expressions", "call_idioms", "function_loops", "function_values", "idioms"):
        mod = "s2s.compiler.frontend." + mod
        monkeypatch.setattr(f"{mod}.note_read", lambda *a: None)
    fails = fuzz.check_program(_program(2), 7, ["state"])
    assert fails and "state" in fails and "after the state changed" in fails["state"]


def test_without_state_the_generator_draws_what_it_drew():
    """`--state` only adds blocks: a campaign without it draws the same programs as before."""
    import random
    a = [fuzz.gen_program(random.Random(5)).source() for _ in range(3)]
    b = [fuzz.gen_program(random.Random(5), state=False).source() for _ in range(3)]
    assert a == b and all("_mutate" not in s for s in a)
    assert "_mutate" in fuzz.gen_program(random.Random(5), state=True).source()


def test_state_programs_jit_a_caller_of_f_with_a_static_argument():
    """A state program defines `f_static(x, y, mode)` calling f, and the property `state` checks
    `jit(f_static, static_argnums=2)` with the other transforms (issue 44: a rebound global under
    static_argnums); the form that rebinds module globals with `global` is among the forms."""
    prog = _program(len(fuzz.STATE_LINES) - 1)
    src = prog.source()
    assert "def f_static(x, y, mode):" in src and "global GS, GACT" in src
    mod = fuzz.load(prog)
    made = fuzz._state_transforms(mod, True, "hessian")
    assert "jit_static" in made and "hessian" in made and "jacfwd" not in made
    x, y = np.array([0.3, -0.5, 0.7]), np.array([0.2, 0.4, -0.6])
    np.testing.assert_allclose(made["jit_static"](x, y, None, None), 0.5 * mod.f(x, y), rtol=1e-12)
