"""jit(f) == f with fused kernels at every size: the corpus (tests/corpus.py), its gradients, and
a slice of the differential fuzzer's programs (tools/fuzz.py), with the size threshold of
s2s.compiler.emit.kernels set to one element, so every expression the fusion pass fuses runs as a
kernel on these small arrays (at the real threshold, 65536 elements, none of them would).

.ci/run runs this file again with S2S_NO_NUMBA=1 (NumPy block kernels) and S2S_NO_FUSE=1 (no
kernels): jit(f) == f holds on every code path."""
import copy
import os
import random

import corpus
import fuzz_tool
import numpy as np
import pytest
from helpers_compare import assert_trees_close as _close

import s2s
from s2s.api import jitted
from s2s.compiler.emit import kernels


@pytest.fixture
def fuse_everything(monkeypatch):
    monkeypatch.setattr(kernels, "THRESHOLD", 1)
    monkeypatch.setattr(jitted, "FUSE_THRESHOLD", 1)


@pytest.mark.parametrize("fn,make", corpus.CORPUS, ids=[f.__name__ for f, _ in corpus.CORPUS])
def test_fused_jit_equals_function_on_corpus(fuse_everything, fn, make):
    args = make(np.random.default_rng(0))
    want = fn(*copy.deepcopy(args))
    jf = s2s.jit(fn)
    _close(jf(*copy.deepcopy(args)), want)
    _close(jf(*copy.deepcopy(args)), want)  # the cached version, through the fast path
    _close(s2s.jit(s2s.grad(fn))(*copy.deepcopy(args)), s2s.grad(fn)(*copy.deepcopy(args)))


def test_fused_kernels_ran(fuse_everything):
    """The threshold reaches both places that read it: a small selu runs its kernel."""
    def selu(x):
        return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)
    x = np.linspace(-2.0, 2.0, 7)
    jf = s2s.jit(selu)
    np.testing.assert_array_equal(jf(x), selu(x))
    assert "fused_0" in s2s.source(jf.compiled) or os.environ.get("S2S_NO_FUSE")


def _fuzz():
    return fuzz_tool.load()


def test_fused_jit_equals_function_on_fuzzed_programs(fuse_everything):
    fuzz = _fuzz()
    rng = random.Random(12)
    bad, checked = [], 0
    for k in range(40):
        prog = fuzz.gen_program(rng)
        fails = fuzz.check_program(prog, k, ["jit"])
        if fails is None:
            continue
        checked += 1
        if fails:
            bad.append((fails["jit"], prog.source()))
    assert checked >= 20, f"only {checked} of 40 generated programs were usable"
    assert not bad, f"{len(bad)} failures; first: {bad[0][0]}\n{bad[0][1]}"


@pytest.mark.parametrize("first, stop", [
    pytest.param(0, 20, id="programs_0_to_19"),
    pytest.param(20, 80, id="programs_20_to_79", marks=pytest.mark.full)])
def test_fused_jit_of_derivatives_equals_derivatives_on_fuzzed_programs(fuse_everything, first, stop):
    """jit(jacrev(f)) == jacrev(f) and jit(jacfwd(f)) == jacfwd(f): jit's passes on backward and
    forward sweeps (this found `(a + b)[i]` printed as `a + b[i]`: tests/test_codegen_precedence.py).
    The 80 programs of one seeded stream run in two parts: the first quarter by default, the rest
    with --full (CI runs both); each part is a sample of the same generator, with its own floor of
    usable derivatives."""
    fuzz = _fuzz()
    rng = random.Random(601)
    bad, checked = [], 0
    for k in range(stop):
        prog = fuzz.gen_program(rng)
        if k < first:  # drawn to keep the stream's programs, not checked here
            continue
        ready = fuzz.prepare(prog, k)
        if ready is None:
            continue
        mod, x, y = ready
        for make in (s2s.jacrev, s2s.jacfwd):
            try:
                want = make(mod.f, argnums=(0, 1))(x, y)
            except Exception:  # noqa: BLE001 - a refusal of the transform itself, not jit's business
                continue
            checked += 1
            try:
                _close(s2s.jit(make(mod.f, argnums=(0, 1)))(x, y), want)
            except Exception as e:  # noqa: BLE001 - reported with the program
                bad.append((f"{make.__name__}: {type(e).__name__}: {e}", prog.source()))
    assert checked >= stop - first, f"only {checked} derivatives of {stop - first} generated programs were usable"
    assert not bad, f"{len(bad)} failures; first: {bad[0][0]}\n{bad[0][1]}"
