"""The fuzzer's stacks of matrices per example (tools/fuzz.py, block kind "linalg_stack"): each of
its np.linalg forms on a (2, 3, 3) stack built from the program's vectors holds every property,
vmap_grad included (vmap of the derivative against a loop of it, and the gradient against central
differences of NumPy's own function: grad_fd). Before vmap's matmul of stacks broadcast the stacks,
vmap_grad failed on most of them."""
import fuzz_tool
import numpy as np
import pytest

fuzz = fuzz_tool.load()


def _program(form, out):
    p = {"n": 1, "i": form % 3, "b": form // 3, "c": 0.5, "c2": 1.0}
    return fuzz.Program([("plain", p, ["x", "y"]), ("linalg_stack", p, [("np.sin({0})", "x"), "y"])], out)


@pytest.mark.parametrize("form", range(len(fuzz.LINALG_STACK)))
def test_each_stacked_linalg_form_satisfies_every_property(form):
    props = list(fuzz.PROPERTIES) + ["vmap_grad"]
    bad = []
    for out in ("scalar", "vector"):
        prog = _program(form, out)
        fails = fuzz.check_program(prog, 21 + form, props)
        assert fails is not None, "the program was skipped: it checks nothing"
        if fails:
            bad.append((fails, prog.source()))
    assert not bad, f"{len(bad)} failing programs; first: {bad[0][0]}\n{bad[0][1]}"


def test_the_generator_draws_stacked_linalg_blocks():
    import random
    rng = random.Random(0)
    drawn = [fuzz.gen_block(rng, 1) for _ in range(3000)]
    stacked = [b for b in drawn if b[0] == "linalg_stack"]
    assert stacked and {3 * b[1]["b"] + b[1]["i"] for b in stacked} == set(range(len(fuzz.LINALG_STACK)))
    assert np.all([b[1]["b"] in (0, 1, 2) and b[1]["i"] in (0, 1, 2) for b in stacked])
