"""The fuzzer's generators for issue 27's families 2, 3, 4 and 6 (tools/fuzz.py), on a fixed slice:
functions decorated or wrapped with `functools.wraps`, user names equal to every name generated
code uses, module and function aliases, `out=` and modules bound twice (refused), and tuple,
list and dict values whose adjoints accumulate. Every property of the campaign holds on them."""
import random

import fuzz_tool
import pytest

fuzz = fuzz_tool.load()

PROPS = ["jit", "grad_fd", "jvp_vjp", "hessian", "vjp_twice", "vmap", "refusal"]


def _programs(seed, n):
    rng = random.Random(seed)
    out = []
    for k in range(n):
        blocks = [fuzz.gen_block(rng, 1) for _ in range(2)]
        blocks[0] = (fuzz.KINDS_27[k % 3], {**blocks[0][1], "b": k // 3 % 3}, blocks[0][2])
        names = rng.sample(fuzz.GENERATED_NAMES, len(fuzz.USER_NAMES))
        rename = dict(zip(fuzz.USER_NAMES, names)) if k % 2 == 0 else None
        wrap = sorted(fuzz.WRAPS)[k % 2] if k % 3 == 0 else None
        out.append(fuzz.Program(blocks, "scalar" if k % 4 else "vector", rename=rename, wrap=wrap))
    return out


PROGRAMS = _programs(27, 18)


# the first nine by default: they take every kind with and without renamed names, both wraps and
# both outputs; the other nine (the same kinds, other draws) with --full
@pytest.mark.parametrize("k", [k if k < 9 else pytest.param(k, marks=pytest.mark.full) for k in range(len(PROGRAMS))])
def test_issue27_generators_satisfy_every_property(k):
    prog = PROGRAMS[k]
    fails = fuzz.check_program(prog, 1000 + k, PROPS)
    assert fails is not None, "no smooth inputs found"
    assert not fails, f"{fails}\n{prog.source()}"


def test_the_default_nine_take_every_kind_both_ways():
    """The default slice (programs 0 to 8) has each generator kind with renamed names and without,
    both wraps, and scalar and vector outputs."""
    first = PROGRAMS[:9]
    assert {(p.blocks[0][0], not p.rename) for p in first} == {(k, r) for k in fuzz.KINDS_27 for r in (True, False)}
    assert {p.wrap for p in first} == set(fuzz.WRAPS) | {None}
    assert {p.out for p in first} == {"scalar", "vector"}


def test_every_generated_name_and_kind_is_drawn():
    drawn = {n for p in PROGRAMS for n in p.rename.values()}
    assert set(fuzz.GENERATED_NAMES) <= drawn | {n for p in _programs(28, 40) for n in p.rename.values()}
    assert {b[0] for p in PROGRAMS for b in p.blocks} >= set(fuzz.KINDS_27)
    assert {p.wrap for p in PROGRAMS} >= set(fuzz.WRAPS)
    src = "".join(p.source() for p in PROGRAMS)
    assert "functools.wraps" in src and "mm0 = np" in src and "hcont(" in src
