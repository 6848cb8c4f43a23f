"""The fuzzer's updates in place (tools/fuzz.py `--views`, INPLACE_LINES; issue 44, families 3 and
4): `a op= v` on names bound to int, float32 and float64 arrays. The forms NumPy computes hold every
property; in the forms NumPy refuses (an int array += floats, a float array += a larger right side,
an int view -= floats) every transform raises NumPy's class of error (the property `numpy_error`),
and that check fails on an s2s whose update in place is the out-of-place `a = a op v` again."""
import random

import fuzz_tool
import numpy as np
import pytest

import s2s.runtime

fuzz = fuzz_tool.load()
PLAIN = {"n": 1, "i": 1, "b": 0, "c": 0.5, "c2": 1.3}
PROPS = ["grad_fd", "jvp_vjp", "jit", "vmap"]


def _program(form: int):
    return fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"]),
                         ("inplace", {**PLAIN, "form": form}, [("({0}) * ({1})", "x", "y"), "y"])], "scalar")


@pytest.mark.parametrize("form", range(fuzz.INPLACE_RAISES))
def test_each_computed_form_holds_the_properties(form):
    prog = _program(form)
    assert " += " in prog.source() or " *= " in prog.source()
    assert not fuzz.raising(prog)
    assert fuzz.check_program(prog, 11, PROPS) == {}


@pytest.mark.parametrize("form", range(fuzz.INPLACE_RAISES, len(fuzz.INPLACE_LINES)))
def test_each_refused_form_raises_in_every_transform(form):
    prog = _program(form)
    assert fuzz.raising(prog)
    mod = fuzz.load(prog)
    x, y = fuzz.draw_inputs(np.random.default_rng(11))
    with pytest.raises((TypeError, ValueError)):
        mod.f(x, y)  # NumPy refuses it
    assert fuzz.check_program(prog, 11, PROPS) == {}


@pytest.mark.parametrize("form", range(fuzz.INPLACE_RAISES, len(fuzz.INPLACE_LINES)))
def test_the_check_fails_where_an_update_in_place_is_out_of_place(form, monkeypatch):
    """A planted bug, rt.inplace returning the out-of-place value unchecked (what s2s did before):
    the property `numpy_error` names the transform that returned a number."""
    monkeypatch.setattr(s2s.runtime, "inplace", lambda r, a, ufunc, at, array=False: r)
    monkeypatch.setattr(s2s.runtime, "batched_inplace", lambda flags, r, a, ufunc, at, array=False: r)
    fails = fuzz.check_program(_program(form), 11, PROPS)
    assert fails and "returned a value where NumPy raises" in fails["numpy_error"], fails


def test_the_generator_draws_every_inplace_form():
    """`--views` draws each form of INPLACE_LINES, those NumPy refuses less often."""
    drawn: dict = {}
    rng = random.Random(3)
    for _ in range(200):
        prog = fuzz.gen_program(rng, views=True)
        for kind, p, _ in prog.blocks:
            if kind == "inplace":
                drawn[p["form"]] = drawn.get(p["form"], 0) + 1
    assert set(drawn) == set(range(len(fuzz.INPLACE_LINES)))
    refused = sum(n for k, n in drawn.items() if k >= fuzz.INPLACE_RAISES)
    assert 0 < refused < sum(drawn.values()) / 3
