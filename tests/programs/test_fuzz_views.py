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
    assert "astype(" in src or "dtype=" in src or "np.arange(3)" in src  # (an integer array's dtype, passed on)
    assert fuzz.check_program(_program("cast", form), 11, PROPS) == {}


@pytest.mark.parametrize("form", range(len(fuzz.VIEW_LINES)))
def test_each_view_form_holds_the_properties_or_is_refused_everywhere(form):
    fails = fuzz.check_program(_program("view", form), 11, PROPS)
    assert fails is not None
    if fails:  # refused: by every transform, with the advice to copy
        assert set(fails) == set(PROPS) and all(fuzz.VIEW_REFUSAL.search(m) for m in fails.values()), fails


# the view forms s2s supports (a reshape of a copy scaled in place, a cast read after an item store,
# NumPy's row swap by a tuple assignment, a swap by fancy indices, ravel, transpose and reshape views
# read after a write): never refused, every property holds
SUPPORTED = [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("form", SUPPORTED)
def test_each_supported_view_form_holds_every_property(form):
    assert fuzz.check_program(_program("view", form), 11, PROPS + ["hessian", "jacfwd_jacrev"]) == {}


def test_the_generator_draws_every_cast_and_view_form():
    """`--views` draws each form of CAST_LINES and VIEW_LINES (a form index of its own, not the
    block's `b`, which takes three values)."""
    drawn = set()
    rng = random.Random(3)
    for _ in range(60):
        prog = fuzz.gen_program(rng, views=True)
        drawn |= {(kind, p["form"]) for kind, p, _ in prog.blocks if kind in ("cast", "view")}
    want = {("cast", k) for k in range(len(fuzz.CAST_LINES))} | {("view", k) for k in range(len(fuzz.VIEW_LINES))}
    assert drawn == want


def test_without_views_the_generator_draws_what_it_drew():
    """`--views` only adds blocks: a campaign without it draws the same programs as before."""
    a = [fuzz.gen_program(random.Random(5)).source() for _ in range(3)]
    b = [fuzz.gen_program(random.Random(5), views=False).source() for _ in range(3)]
    assert a == b and all(".astype(int)" not in s and "reshape(3)" not in s for s in a)
    drawn = "".join(fuzz.gen_program(random.Random(k), views=True).source() for k in range(6))
    assert "astype(int)" in drawn or "dtype=int" in drawn or "reshape(3)" in drawn or "m[0], m[1]" in drawn
