"""The fuzzer's casts and views (tools/fuzz.py `--views`; issue 44, families 3 and 4): each cast
form holds every property (an int or bool result carries no derivative, so s2s's derivatives
agree with central differences), and each view form either holds them or is s2s's refusal of an
in-place update a view would see, the same in every transform; never a wrong number."""
import random

import fuzz_tool
import pytest

fuzz = fuzz_tool.load()
PLAIN = {"n": 1, "i": 0, "b": 0, "c": 0.5, "c2": 1.0}
PROPS = ["grad_fd", "jvp_vjp", "jit", "vmap"]


def _program(kind: str, form: int):
    return fuzz.Program([("plain", PLAIN, [("np.sin({0})", "x"), "y"]),
                         (kind, {**PLAIN, "b": form}, [("({0}) * ({1})", "x", "y"), "y"])], "scalar")


@pytest.mark.parametrize("form", range(len(fuzz.CAST_LINES)))
def test_each_cast_form_holds_the_properties(form):
    src = _program("cast", form).source()
    assert "int" in src or "float" in src
    assert fuzz.check_program(_program("cast", form), 11, PROPS) == {}


@pytest.mark.parametrize("form", range(len(fuzz.VIEW_LINES)))
def test_each_view_form_holds_the_properties_or_is_refused_everywhere(form):
    fails = fuzz.check_program(_program("view", form), 11, PROPS)
    assert fails is not None
    if fails:  # refused: by every transform, with the advice to copy
        assert set(fails) == set(PROPS) and all(fuzz.VIEW_REFUSAL.search(m) for m in fails.values()), fails


def test_without_views_the_generator_draws_what_it_drew():
    """`--views` only adds blocks: a campaign without it draws the same programs as before."""
    a = [fuzz.gen_program(random.Random(5)).source() for _ in range(3)]
    b = [fuzz.gen_program(random.Random(5), views=False).source() for _ in range(3)]
    assert a == b and all(".astype(int)" not in s and "reshape(3)" not in s for s in a)
    drawn = "".join(fuzz.gen_program(random.Random(k), views=True).source() for k in range(6))
    assert "astype(int)" in drawn or "dtype=int" in drawn or "reshape(3)" in drawn or "m[0], m[1]" in drawn
